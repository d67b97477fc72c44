//! Timed checkpoint players (`ckpt:PATH,time=MS`): one whole move within a
//! wall-clock budget, split over the decisions of the turn.

use std::time::{Duration, Instant};

use dama_game::GameDef;
use dama_mcts::{
    Algorithm, Budget, Evaluator, Game as SearchGame, Leaf, Search, SearchConfig, SearchResult,
    TurnPolicy,
};
use rand::RngCore;

use crate::mcts_player::{fail, search_move, MAX_TIMED_SIMS};
use crate::Error;

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

/// What a timed player carries from move to move: its measured rate and,
/// with [`SearchConfig::reuse_tree`], the tree of its last search, which
/// the next move starts from where it holds the new position (the visits
/// spent on the move played and the reply it expected are kept).
#[derive(Debug)]
pub(crate) struct Carried<S: SearchGame> {
    pub(crate) rate: SimRate,
    pub(crate) kept: Option<Search<S>>,
}

impl<S: SearchGame> Default for Carried<S> {
    fn default() -> Self {
        Carried {
            rate: SimRate::default(),
            kept: None,
        }
    }
}

/// Searched decisions left in the current turn of `state`, on the longest
/// path: 0 when the turn is over, forced decisions not counted. The turn
/// goes on while the same player is to move in a game not over.
fn decisions_left<S: SearchGame>(state: &S) -> u32 {
    if state.outcome().is_some() {
        return 0;
    }
    let mut actions = Vec::new();
    state.legal_actions(&mut actions);
    let here = u32::from(actions.len() > 1);
    let mut most = 0;
    for action in actions {
        let mut next = state.clone();
        next.apply(action);
        if next.outcome().is_none() && next.to_play() == state.to_play() {
            most = most.max(decisions_left(&next));
        }
    }
    here + most
}

/// The turn policy of a timed player: the time left is split evenly
/// between the decisions still to come in this move (the jumps of a
/// capture), forced steps are free, and each search stops at its share of
/// the deadline. PUCT searches until then; Gumbel sizes its simulation
/// count from `rate` (measured on earlier decisions), since sequential
/// halving plans its budget up front, and also stops at the deadline.
struct Timed<'a> {
    deadline: Instant,
    algorithm: Algorithm,
    rate: &'a mut SimRate,
    /// When the current decision's search started.
    started: Instant,
}

impl<S: SearchGame> TurnPolicy<S> for Timed<'_> {
    fn plan(&mut self, state: &S, actions: &[S::Action], _: u32) -> Option<Budget> {
        if actions.len() <= 1 {
            return None;
        }
        let start = Instant::now();
        let share = self.deadline.saturating_duration_since(start) / decisions_left(state).max(1);
        self.started = start;
        Some(Budget {
            simulations: Some(match self.algorithm {
                Algorithm::Puct => MAX_TIMED_SIMS,
                Algorithm::Gumbel => self.rate.sims_for(share),
            }),
            deadline: Some(start + share),
            min_simulations: 0,
        })
    }

    fn searched(&mut self, _: &Search<S>, result: &SearchResult<S::Action>) {
        self.rate
            .observe(self.started.elapsed(), result.simulations + 1);
    }
}

/// Plays one whole move in `game` within `budget` of wall time (see
/// [`Timed`]); each search stops at its share of the deadline, checked
/// between gather/apply rounds (it always evaluates the root first, so a
/// move comes back even when the budget is spent), starting from the tree
/// `carried` kept where it holds the position.
pub(crate) fn choose_by_steps_timed<G: GameDef, E: Evaluator<G::State>>(
    name: &str,
    game: &G::Game,
    config: &SearchConfig,
    evaluator: &mut E,
    rng: &mut dyn RngCore,
    budget: Duration,
    carried: &mut Carried<G::State>,
) -> Result<G::Move, Error> {
    let Carried { rate, kept } = carried;
    let deadline = Instant::now() + budget;
    let root = G::search_state(game);
    if rate.secs_per_sim.is_none()
        && config.algorithm == Algorithm::Gumbel
        && decisions_left(&root) > 0
    {
        // First decision of this player: time one evaluation.
        let mut actions = Vec::new();
        root.legal_actions(&mut actions);
        let t = Instant::now();
        evaluator
            .evaluate(&[Leaf {
                state: &root,
                actions: &actions,
            }])
            .map_err(|e| fail(name, dama_mcts::Error::Evaluator(Box::new(e))))?;
        rate.observe(t.elapsed(), 1);
    }
    let mut policy = Timed {
        deadline,
        algorithm: config.algorithm,
        rate,
        started: Instant::now(),
    };
    search_move::<G, _, _>(name, game, config, evaluator, &mut policy, rng, kept)
}
