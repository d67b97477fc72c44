//! `mcts:sims=N`: pure MCTS with random rollouts, and the step-by-step
//! driver shared with the network players.
//!
//! The search of `dama_mcts` decides a capture one jump at a time
//! ([`DamaState`]); a player returns whole moves, so [`choose_by_steps`]
//! runs one search per decision until the turn is complete and returns the
//! move that was played; [`choose_by_steps_timed`] does the same within a
//! time budget per move.

use std::time::{Duration, Instant};

use dama_engine::{Game, Move, StepResult};
use dama_mcts::dama::DamaState;
use dama_mcts::{
    Algorithm, Evaluator, Game as _, Leaf, NodeId, RolloutEvaluator, Search, SearchConfig,
};
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

/// The most simulations one timed decision runs, whatever time is left: it
/// bounds the tree's memory on fast hardware and long budgets (a million
/// nodes, no more than a search config may ask for).
pub const MAX_TIMED_SIMS: u32 = 1_000_000;

/// A timed player's measured cost of one simulation, carried from decision
/// to decision: Gumbel's sequential halving needs its simulation count up
/// front, so a timed Gumbel search is sized from it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SimRate {
    /// Seconds per simulation (an exponential moving average), once measured.
    secs_per_sim: Option<f64>,
}

impl SimRate {
    /// Simulations that fit in `time` (at least 1, at most [`MAX_TIMED_SIMS`]),
    /// keeping a tenth of the time as a margin.
    fn sims_for(self, time: Duration) -> u32 {
        let per = self.secs_per_sim.unwrap_or(1e-3).max(1e-7);
        let n = 0.9 * time.as_secs_f64() / per;
        n.clamp(1.0, f64::from(MAX_TIMED_SIMS)) as u32
    }

    pub(crate) fn observe(&mut self, elapsed: Duration, sims: u32) {
        let x = elapsed.as_secs_f64() / f64::from(sims.max(1));
        self.secs_per_sim = Some(match self.secs_per_sim {
            None => x,
            Some(old) => 0.7 * old + 0.3 * x,
        });
    }
}

/// Searched decisions left in the current turn of `state`, on the longest
/// path: 0 when the turn is over, forced steps not counted.
fn decisions_left(state: &Game) -> u32 {
    let steps = state.legal_steps();
    let here = u32::from(steps.len() > 1);
    let mut most = 0;
    for &step in &steps {
        let mut next = state.clone();
        if let Ok(StepResult::InProgress) = next.play_step(step) {
            most = most.max(decisions_left(&next));
        }
    }
    here + most
}

/// Plays one whole move in `game` within `budget` of wall time: the time
/// left is split evenly between the decisions still to come in this move
/// (the jumps of a capture), forced steps are free, and each search stops
/// at its share of the deadline, checked between gather/apply rounds (it
/// always evaluates the root first, so a move comes back even when the
/// budget is spent). PUCT searches until the deadline; Gumbel sizes its
/// simulation count from `rate` (measured on earlier decisions), since
/// sequential halving plans its budget up front, and also stops at the
/// deadline.
pub(crate) fn choose_by_steps_timed<E: Evaluator<DamaState>>(
    name: &str,
    game: &Game,
    config: &SearchConfig,
    evaluator: &mut E,
    rng: &mut dyn RngCore,
    budget: Duration,
    rate: &mut SimRate,
) -> Result<Move, Error> {
    let fail = |message: String| Error::Player {
        player: name.to_owned(),
        message,
    };
    let deadline = Instant::now() + budget;
    let mut state = game.clone();
    loop {
        let steps = state.legal_steps();
        let step = match steps.len() {
            0 => return Err(fail("no legal step".to_owned())),
            1 => steps[0],
            _ => {
                let root = DamaState::new(state.clone());
                if rate.secs_per_sim.is_none() && config.algorithm == Algorithm::Gumbel {
                    // First decision of this player: time one evaluation.
                    let mut actions = Vec::new();
                    root.legal_actions(&mut actions);
                    let t = Instant::now();
                    evaluator
                        .evaluate(&[Leaf {
                            state: &root,
                            actions: &actions,
                        }])
                        .map_err(|e| fail(e.to_string()))?;
                    rate.observe(t.elapsed(), 1);
                }
                let start = Instant::now();
                let share =
                    deadline.saturating_duration_since(start) / decisions_left(&state).max(1);
                let mut cfg = config.clone();
                cfg.simulations = match cfg.algorithm {
                    Algorithm::Puct => MAX_TIMED_SIMS,
                    Algorithm::Gumbel => rate.sims_for(share),
                };
                let stop = start + share;
                let mut search = Search::new(cfg, root).map_err(|e| fail(e.to_string()))?;
                let mut r = &mut *rng;
                search.begin(&mut r).map_err(|e| fail(e.to_string()))?;
                while !search.is_done() {
                    if search.tree().visits(NodeId::ROOT) > 0 && Instant::now() >= stop {
                        break;
                    }
                    if search.gather().map_err(|e| fail(e.to_string()))? == 0 {
                        continue;
                    }
                    let leaves: Vec<Leaf<'_, DamaState>> = search.pending_leaves().collect();
                    let evals = evaluator
                        .evaluate(&leaves)
                        .map_err(|e| fail(e.to_string()))?;
                    drop(leaves);
                    search.apply(&evals).map_err(|e| fail(e.to_string()))?;
                }
                let result = search.result(&mut r).map_err(|e| fail(e.to_string()))?;
                rate.observe(start.elapsed(), result.simulations + 1);
                result.action
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
