//! `mcts:sims=N`: pure MCTS with random rollouts, and the step-by-step
//! driver shared with the network players.
//!
//! The search of `dama_mcts` decides a capture one jump at a time
//! ([`DamaState`]); a player returns whole moves, so [`choose_by_steps`]
//! runs one search per decision until the turn is complete and returns the
//! move that was played.

use dama_engine::{Game, Move, StepResult};
use dama_mcts::dama::DamaState;
use dama_mcts::{Evaluator, RolloutEvaluator, Search, SearchConfig};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::player::{Player, PlayerFactory};
use crate::Error;

/// Plays one whole move in `game` by searching each step with `config` and
/// `evaluator`; a step that is the only legal one is played without search.
pub(crate) fn choose_by_steps<E: Evaluator<DamaState>>(
    name: &str,
    game: &Game,
    config: &SearchConfig,
    evaluator: &mut E,
    rng: &mut dyn RngCore,
) -> Result<Move, Error> {
    let fail = |message: String| Error::Player {
        player: name.to_owned(),
        message,
    };
    let mut state = game.clone();
    loop {
        let steps = state.legal_steps();
        let step = match steps.len() {
            0 => return Err(fail("no legal step".to_owned())),
            1 => steps[0],
            _ => {
                let mut search = Search::new(config.clone(), DamaState::new(state.clone()))
                    .map_err(|e| fail(e.to_string()))?;
                let mut r = &mut *rng;
                search
                    .run(evaluator, &mut r)
                    .map_err(|e| fail(e.to_string()))?
                    .action
            }
        };
        match state
            .play_step(step)
            .map_err(|e| fail(format!("illegal step {step}: {e}")))?
        {
            StepResult::Completed(m) => return Ok(m),
            StepResult::InProgress => {}
        }
    }
}

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
