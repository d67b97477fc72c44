//! Driving searches: the one loop of gather → evaluate → apply.
//!
//! Everything that runs a [`Search`] goes through this module:
//!
//! * [`run`] runs one search to a [`Budget`] (its simulations, a deadline,
//!   or both) with an evaluator of its own.
//! * [`gather`] advances one search until it has leaves waiting for an
//!   evaluation or its budget is spent, and [`evaluate_pending`] sends the
//!   waiting leaves of many searches to an evaluator in one call; [`step`]
//!   is one such round. Self-play and the batched arena call these two
//!   between their own bookkeeping (playing moves, starting games).
//! * [`TurnSearch`](crate::TurnSearch) (in `turn.rs`) searches a whole turn
//!   of a game whose player may act several times in a row, decision by
//!   decision, on top of the same two calls.
//!
//! A budget's deadline is checked between rounds, never inside one, and
//! only once the root has been evaluated (and `min_simulations` have
//! started), so a timed search always has a move to return.

use std::time::{Duration, Instant};

use rand::Rng;

use crate::config::MAX_SIMULATIONS;
use crate::error::Error;
use crate::evaluator::{Evaluator, Leaf};
use crate::game::Game;
use crate::search::{Search, SearchResult};
use crate::tree::NodeId;

/// How much one search may spend: simulations, wall time, or both
/// (whichever runs out first).
///
/// The default is the search's own [`SearchConfig::simulations`]
/// (`fast_simulations` for a fast search of playout cap randomization)
/// and no clock.
///
/// [`SearchConfig::simulations`]: crate::SearchConfig::simulations
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dama_mcts::{driver, toy::TicTacToe, Budget, Search, SearchConfig, UniformEvaluator};
/// use rand::SeedableRng;
///
/// let mut rng = rand::rngs::StdRng::seed_from_u64(0);
/// let mut search = Search::new(SearchConfig::default(), TicTacToe::default())?;
/// let mut net = UniformEvaluator::default();
/// let r = driver::run(&mut search, &mut net, &Budget::simulations(40), &mut rng)?;
/// assert_eq!(r.simulations, 40);
/// // A clock that has already run out: the root is still evaluated.
/// let late = Budget::time(Duration::ZERO);
/// let mut search = Search::new(SearchConfig::default(), TicTacToe::default())?;
/// let r = driver::run(&mut search, &mut net, &late, &mut rng)?;
/// assert_eq!(r.simulations, 0);
/// # Ok::<(), dama_mcts::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// Simulations per search; replaces [`SearchConfig::simulations`] when
    /// the search starts (at most [`MAX_SIMULATIONS`]). `None` keeps the
    /// configured count.
    ///
    /// [`SearchConfig::simulations`]: crate::SearchConfig::simulations
    pub simulations: Option<u32>,
    /// The search stops at this instant (checked between rounds). `None`:
    /// no clock.
    pub deadline: Option<Instant>,
    /// Simulations a search starts whatever the clock says, after
    /// evaluating its root (which it always does).
    pub min_simulations: u32,
}

impl Budget {
    /// Exactly `n` simulations per search (for a full search), no clock.
    #[must_use]
    pub fn simulations(n: u32) -> Budget {
        Budget {
            simulations: Some(n),
            ..Budget::default()
        }
    }

    /// The configured simulations, stopping at `deadline`.
    #[must_use]
    pub fn until(deadline: Instant) -> Budget {
        Budget {
            deadline: Some(deadline),
            ..Budget::default()
        }
    }

    /// The configured simulations, stopping after `time` from now (no
    /// clock if the instant is not representable).
    #[must_use]
    pub fn time(time: Duration) -> Budget {
        Budget {
            deadline: Instant::now().checked_add(time),
            ..Budget::default()
        }
    }

    /// The same budget with `simulations` per search.
    #[must_use]
    pub fn with_simulations(self, simulations: u32) -> Budget {
        Budget {
            simulations: Some(simulations),
            ..self
        }
    }

    /// The same budget, starting at least `n` simulations before the clock
    /// counts.
    #[must_use]
    pub fn with_min_simulations(self, n: u32) -> Budget {
        Budget {
            min_simulations: n,
            ..self
        }
    }

    /// Whether `search` has run out of time: its root is evaluated, it has
    /// started `min_simulations`, and the deadline has passed.
    #[must_use]
    pub fn is_out_of_time<G: Game>(&self, search: &Search<G>) -> bool {
        match self.deadline {
            None => false,
            Some(deadline) => {
                search.tree().visits(NodeId::ROOT) > 0
                    && search.simulations() >= self.min_simulations
                    && Instant::now() >= deadline
            }
        }
    }
}

/// Starts a search of `search`'s root within `budget`: sets its simulations
/// (if the budget names them), then [`Search::begin`].
///
/// # Errors
///
/// [`Error::InvalidConfig`] if the budget asks for 0 or more than
/// [`MAX_SIMULATIONS`] simulations; the errors of [`Search::begin`].
pub fn start<G: Game>(
    search: &mut Search<G>,
    budget: &Budget,
    rng: &mut impl Rng,
) -> Result<(), Error> {
    if let Some(n) = budget.simulations {
        if n == 0 || n > MAX_SIMULATIONS {
            return Err(Error::InvalidConfig {
                field: "simulations",
                why: "must be in 1..=1000000",
            });
        }
        search.config_mut().simulations = n;
    }
    search.begin(rng)
}

/// Gathers leaves of `search` until some wait for an evaluation (`true`)
/// or the search is finished within `budget` (`false`: its simulations are
/// spent or its time is up; call [`Search::result`]). Rounds that end in
/// terminal positions only need no evaluation and are gathered again.
///
/// Also `false` before [`Search::begin`] and at a terminal root.
///
/// # Errors
///
/// As [`Search::gather`].
pub fn gather<G: Game>(search: &mut Search<G>, budget: &Budget) -> Result<bool, Error> {
    while !search.is_done() {
        if budget.is_out_of_time(search) {
            return Ok(false);
        }
        if search.gather()? > 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Sends the leaves waiting in `searches` to `evaluator` in one call and
/// gives each search its evaluations back, in order. Returns the number of
/// leaves evaluated; the evaluator is not called when there are none.
///
/// # Errors
///
/// [`Error::Evaluator`] if the evaluator fails (the searches keep their
/// pending leaves: call [`Search::abandon_pending`] on each to go on);
/// [`Error::BatchSize`] if it returns another number of evaluations than
/// leaves; the errors of [`Search::apply`].
pub fn evaluate_pending<'s, G, E>(
    searches: impl IntoIterator<Item = &'s mut Search<G>>,
    evaluator: &mut E,
) -> Result<usize, Error>
where
    G: Game + 's,
    E: Evaluator<G> + ?Sized,
{
    let active: Vec<&'s mut Search<G>> = searches
        .into_iter()
        .filter(|s| s.num_pending() > 0)
        .collect();
    let leaves: Vec<Leaf<'_, G>> = active.iter().flat_map(|s| s.pending_leaves()).collect();
    let n = leaves.len();
    if n == 0 {
        return Ok(0);
    }
    let evals = evaluator
        .evaluate(&leaves)
        .map_err(|e| Error::Evaluator(Box::new(e)))?;
    drop(leaves);
    if evals.len() != n {
        return Err(Error::BatchSize {
            expected: n,
            got: evals.len(),
        });
    }
    let mut offset = 0;
    for s in active {
        let k = s.num_pending();
        s.apply(&evals[offset..offset + k])?;
        offset += k;
    }
    Ok(n)
}

/// One gather/evaluate/apply round over many searches with a single
/// evaluator call: every search that is not done gathers its leaves, all
/// leaves go to `evaluator` as one batch, and each search gets its
/// evaluations back. Returns the batch size (0 when every search is done).
///
/// Self-play and the batched arena run the same two halves, [`gather`]
/// and [`evaluate_pending`], with their own bookkeeping in between.
///
/// # Examples
///
/// ```
/// use dama_mcts::{step, toy::BonusNim, Search, SearchConfig, UniformEvaluator};
/// use rand::SeedableRng;
///
/// let mut rng = rand::rngs::StdRng::seed_from_u64(0);
/// let config = SearchConfig { simulations: 50, ..SearchConfig::default() };
/// let mut games: Vec<Search<BonusNim>> = (5..9)
///     .map(|n| Search::new(config.clone(), BonusNim::new(n)))
///     .collect::<Result<_, _>>()?;
/// for s in &mut games {
///     s.begin(&mut rng)?;
/// }
/// let mut evaluator = UniformEvaluator::default();
/// // In self-play the loop never ends: a finished search is answered
/// // (`result`, `advance`, `begin`) and goes on gathering with the others.
/// while step(games.iter_mut(), &mut evaluator)? > 0 {}
/// for s in &mut games {
///     assert!(s.is_done());
///     let r = s.result(&mut rng)?;
///     assert!((r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
/// }
/// # Ok::<(), dama_mcts::Error>(())
/// ```
///
/// # Errors
///
/// As [`Search::gather`] and [`Search::apply`]; [`Error::Evaluator`] if the
/// evaluator fails: the searches then hold pending leaves; call
/// [`Search::abandon_pending`] on each to go on.
pub fn step<'s, G, E>(
    searches: impl IntoIterator<Item = &'s mut Search<G>>,
    evaluator: &mut E,
) -> Result<usize, Error>
where
    G: Game + 's,
    E: Evaluator<G> + ?Sized,
{
    let mut waiting: Vec<&'s mut Search<G>> = Vec::new();
    let budget = Budget::default();
    for s in searches {
        if gather(s, &budget)? {
            waiting.push(s);
        }
    }
    evaluate_pending(waiting, evaluator)
}

/// Runs a whole search of `search`'s root within `budget`: [`start`],
/// rounds of [`gather`] and [`evaluate_pending`] until the budget is spent,
/// then [`Search::result`].
///
/// # Errors
///
/// [`Error::TerminalRoot`] at a terminal root, [`Error::Evaluator`] if the
/// evaluator fails, [`Error::BatchSize`]/[`Error::PolicyLength`] if it
/// returns malformed evaluations, [`Error::InvalidConfig`] for a budget out
/// of range.
pub fn run<G, E>(
    search: &mut Search<G>,
    evaluator: &mut E,
    budget: &Budget,
    rng: &mut impl Rng,
) -> Result<SearchResult<G::Action>, Error>
where
    G: Game,
    E: Evaluator<G> + ?Sized,
{
    start(search, budget, rng)?;
    while gather(search, budget)? {
        // `evaluate_pending` for one search, without collecting searches.
        let leaves: Vec<Leaf<'_, G>> = search.pending_leaves().collect();
        let evals = evaluator
            .evaluate(&leaves)
            .map_err(|e| Error::Evaluator(Box::new(e)))?;
        drop(leaves);
        search.apply(&evals)?;
    }
    search.result(rng)
}
