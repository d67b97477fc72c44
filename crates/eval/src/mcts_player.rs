//! `mcts:sims=N`: pure MCTS with random rollouts, and the step-by-step
//! driver shared with the network players.
//!
//! The search of `dama_mcts` decides a capture one jump at a time
//! ([`DamaState`]); a player returns whole moves, so [`choose_by_steps`]
//! runs one search per decision until the turn is complete
//! ([`dama_draughts::search_move`]) and returns the move that was played;
//! `crate::timed` does the same within a time budget per move.

use dama_draughts::{search_move, DamaState};
use dama_engine::{Game, Move};
use dama_mcts::{Budget, Evaluator, RolloutEvaluator, SearchConfig};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::player::{Player, PlayerFactory};
use crate::Error;

/// A failed search of player `name`.
pub(crate) fn fail(name: &str, source: dama_mcts::Error) -> Error {
    Error::Search {
        player: name.to_owned(),
        source,
    }
}

/// Plays one whole move in `game` by searching each step with `config` and
/// `evaluator` ([`search_move`]); a step that is the only legal one is
/// played without search.
pub(crate) fn choose_by_steps<E: Evaluator<DamaState>>(
    name: &str,
    game: &Game,
    config: &SearchConfig,
    evaluator: &mut E,
    mut rng: &mut dyn RngCore,
) -> Result<Move, Error> {
    search_move(
        config,
        DamaState::new(game.clone()),
        evaluator,
        &mut Budget::default(),
        &mut rng,
    )
    .map_err(|e| fail(name, e))
}

/// The most simulations one timed decision runs, whatever time is left: it
/// bounds the tree's memory on fast hardware and long budgets (a million
/// nodes, no more than a search config may ask for).
pub const MAX_TIMED_SIMS: u32 = 1_000_000;

/// Pure MCTS: PUCT with uniform priors and one random rollout per leaf.
pub struct MctsPlayer {
    name: String,
    config: SearchConfig,
}

impl MctsPlayer {
    /// A player running `sims` simulations per decision.
    pub fn new(name: impl Into<String>, sims: u32) -> Self {
        let config = SearchConfig {
            simulations: sims,
            reuse_tree: false,
            temperature: 0.0,
            dirichlet_epsilon: 0.0,
            ..SearchConfig::default()
        };
        Self {
            name: name.into(),
            config,
        }
    }
}

impl Player for MctsPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, rng: &mut dyn RngCore) -> Result<Move, Error> {
        let mut evaluator = RolloutEvaluator::new(ChaCha8Rng::seed_from_u64(rng.next_u64()));
        choose_by_steps(&self.name, game, &self.config, &mut evaluator, rng)
    }
}

pub(crate) struct MctsFactory {
    pub(crate) name: String,
    pub(crate) sims: u32,
}

impl PlayerFactory for MctsFactory {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> Result<Box<dyn Player>, Error> {
        Ok(Box::new(MctsPlayer::new(self.name.clone(), self.sims)))
    }
}
