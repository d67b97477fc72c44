//! `mcts:sims=N`: pure MCTS with random rollouts, and the decision-by-
//! decision driver shared with the network players, for every game.
//!
//! The search decides a turn one decision at a time (a capture one jump at
//! a time: [`GameDef::State`]); a player returns whole moves, so
//! [`choose_by_steps`] runs one search per decision until the turn is
//! complete ([`dama_mcts::search_turn`]) and returns the move that was played
//! ([`GameDef::complete_turn`]); `crate::timed` does the same within a time
//! budget per move.

use std::marker::PhantomData;

use dama_game::{GameDef, GameError};
use dama_mcts::{
    search_turn_reusing, Budget, Evaluator, RolloutEvaluator, Search, SearchConfig, TurnPolicy,
};
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

/// Plays one whole move in `game`, searching each decision with `config`,
/// `evaluator` and `policy` ([`search_turn_reusing`]), starting from the
/// tree in `kept` where it holds the position (with
/// [`SearchConfig::reuse_tree`]) and leaving the last search there for the
/// next move.
pub(crate) fn search_move<G, E, P>(
    name: &str,
    game: &G::Game,
    config: &SearchConfig,
    evaluator: &mut E,
    policy: &mut P,
    mut rng: &mut dyn RngCore,
    kept: &mut Option<Search<G::State>>,
) -> Result<G::Move, Error>
where
    G: GameDef,
    E: Evaluator<G::State> + ?Sized,
    P: TurnPolicy<G::State> + ?Sized,
{
    let root = G::search_state(game);
    let (decisions, last) =
        search_turn_reusing(config, root, kept.take(), evaluator, policy, &mut rng)
            .map_err(|e| fail(name, e))?;
    *kept = last;
    G::complete_turn(game, &decisions).map_err(|source| Error::Move {
        player: name.to_owned(),
        source,
    })
}

/// Plays one whole move in `game` by searching each decision with
/// `config` and `evaluator`; a decision that is the only legal one is
/// played without search.
pub(crate) fn choose_by_steps<G: GameDef, E: Evaluator<G::State>>(
    name: &str,
    game: &G::Game,
    config: &SearchConfig,
    evaluator: &mut E,
    rng: &mut dyn RngCore,
) -> Result<G::Move, Error> {
    search_move::<G, _, _>(
        name,
        game,
        config,
        evaluator,
        &mut Budget::default(),
        rng,
        &mut None,
    )
}

/// The most simulations one timed decision runs, whatever time is left: it
/// bounds the tree's memory on fast hardware and long budgets (a million
/// nodes, no more than a search config may ask for).
pub const MAX_TIMED_SIMS: u32 = 1_000_000;

/// Pure MCTS: PUCT with uniform priors and one random rollout per leaf.
pub struct MctsPlayer<G> {
    name: String,
    config: SearchConfig,
    game: PhantomData<fn() -> G>,
}

impl<G> MctsPlayer<G> {
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
            game: PhantomData,
        }
    }
}

impl<G: GameDef> Player<G> for MctsPlayer<G> {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &G::Game, rng: &mut dyn RngCore) -> Result<G::Move, GameError> {
        let mut evaluator = RolloutEvaluator::new(ChaCha8Rng::seed_from_u64(rng.next_u64()));
        Ok(choose_by_steps::<G, _>(
            &self.name,
            game,
            &self.config,
            &mut evaluator,
            rng,
        )?)
    }
}

pub(crate) struct MctsFactory {
    pub(crate) name: String,
    pub(crate) sims: u32,
}

impl<G: GameDef> PlayerFactory<G> for MctsFactory {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> Result<Box<dyn Player<G>>, Error> {
        Ok(Box::new(MctsPlayer::<G>::new(self.name.clone(), self.sims)))
    }
}
