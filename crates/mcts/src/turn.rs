//! Searching a whole turn: [`TurnSearch`], [`TurnPolicy`] and
//! [`search_turn`].
//!
//! In Turkish draughts a capture is decided one jump at a time, so one
//! turn of a player is several actions of the search ([`Game`] lets the
//! same player act several times in a row). A player that returns whole
//! moves searches each decision of its turn with a fresh tree, plays the
//! action found, and goes on until the other player is to move (or the
//! game is over). [`TurnSearch`] is that loop as a state machine, so that
//! many turns can share one evaluator call (the batched arena);
//! [`search_turn`] runs it alone.

use rand::Rng;

use crate::config::SearchConfig;
use crate::driver::{self, Budget};
use crate::error::Error;
use crate::evaluator::Evaluator;
use crate::game::Game;
use crate::search::{Search, SearchResult};
use crate::value::Player;

/// How a [`TurnSearch`] decides: the budget of each decision, and what it
/// learns from each search.
pub trait TurnPolicy<G: Game> {
    /// The budget of the search of `state` (legal `actions`, the
    /// `decision`th decision of the turn, from 0), or `None` to play
    /// `actions[0]` without a search (meant for a forced action).
    fn plan(&mut self, state: &G, actions: &[G::Action], decision: u32) -> Option<Budget>;

    /// Called after each search with its tree and result, before its
    /// action is played.
    fn searched(&mut self, search: &Search<G>, result: &SearchResult<G::Action>) {
        let _ = (search, result);
    }
}

/// A budget is the simplest policy: every decision with more than one
/// legal action is searched within it, forced actions are played at once.
impl<G: Game> TurnPolicy<G> for Budget {
    fn plan(&mut self, _state: &G, actions: &[G::Action], _decision: u32) -> Option<Budget> {
        (actions.len() > 1).then_some(*self)
    }
}

/// One player's turn, searched decision by decision, each with a fresh
/// search tree: [`TurnSearch::advance`] runs until a search has leaves for
/// the evaluator or the turn is complete; the caller evaluates the leaves
/// (with [`driver::evaluate_pending`] on [`TurnSearch::search_mut`]) and
/// calls `advance` again.
///
/// The random generator is used as a search alone uses it
/// ([`Search::begin`] when a decision's search starts, [`Search::result`]
/// when it ends), so a turn gives the same actions whatever evaluator calls
/// its leaves share.
///
/// # Examples
///
/// ```
/// use dama_mcts::{driver, toy::BonusNim, Budget, SearchConfig, TurnSearch, UniformEvaluator};
/// use rand::SeedableRng;
///
/// let mut rng = rand::rngs::StdRng::seed_from_u64(0);
/// let config = SearchConfig { simulations: 30, ..SearchConfig::default() };
/// let mut turn = TurnSearch::new(config, BonusNim::new(9))?;
/// let mut net = UniformEvaluator::default();
/// while turn.advance(&mut Budget::default(), &mut rng)? {
///     driver::evaluate_pending(turn.search_mut(), &mut net)?;
/// }
/// assert!(!turn.actions().is_empty());
/// # Ok::<(), dama_mcts::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct TurnSearch<G: Game> {
    config: SearchConfig,
    state: G,
    mover: Player,
    played: Vec<G::Action>,
    search: Option<Search<G>>,
    budget: Budget,
    decisions: u32,
    buf: Vec<G::Action>,
    done: bool,
    /// The last finished search, kept for its subtree (`reuse_tree`).
    previous: Option<Search<G>>,
}

/// A finished turn: its actions, and the last search when its tree is
/// kept ([`SearchConfig::reuse_tree`]) for the next turn.
pub type TurnParts<G> = (Vec<<G as Game>::Action>, Option<Search<G>>);

/// How far below a kept tree's root [`TurnSearch::continuing`] looks for
/// the position to search: the rest of a turn and the opponent's turn,
/// one action per jump of the longest captures.
pub const MAX_REUSE_DEPTH: u32 = 64;

impl<G: Game> TurnSearch<G> {
    /// The turn of the player to move at `root`, searched with `config`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] if `config` does not validate;
    /// [`Error::TerminalRoot`] if the game is over at `root`.
    pub fn new(config: SearchConfig, root: G) -> Result<Self, Error> {
        Self::continuing(config, root, None)
    }

    /// As [`TurnSearch::new`], with the tree of an earlier search: with
    /// [`SearchConfig::reuse_tree`], each decision's search starts from
    /// the subtree of the last search that holds its position (found by
    /// [`Search::reroot_at`] within [`MAX_REUSE_DEPTH`] actions), and the
    /// decisions of the turn pass their trees on to each other. A player
    /// told only the position keeps [`TurnSearch::into_parts`]'s search
    /// and gives it back here on its next move: the visits spent on its
    /// own move and the opponent's reply are not searched again.
    ///
    /// # Errors
    ///
    /// As [`TurnSearch::new`].
    pub fn continuing(
        config: SearchConfig,
        root: G,
        previous: Option<Search<G>>,
    ) -> Result<Self, Error> {
        config.validate()?;
        let previous = previous.filter(|_| config.reuse_tree);
        if root.outcome().is_some() {
            return Err(Error::TerminalRoot);
        }
        Ok(TurnSearch {
            config,
            mover: root.to_play(),
            state: root,
            played: Vec::new(),
            search: None,
            budget: Budget::default(),
            decisions: 0,
            buf: Vec::new(),
            done: false,
            previous,
        })
    }

    /// Advances the turn: starts the search of the next decision (as
    /// `policy` plans it), gathers its leaves, plays the action of a
    /// finished search. Returns `true` when the current search has leaves
    /// waiting for evaluations, `false` when the turn is complete.
    ///
    /// # Errors
    ///
    /// The errors of the search; [`Error::TerminalRoot`] if a position of
    /// the turn has neither an outcome nor a legal action (a broken
    /// [`Game`]).
    pub fn advance<P>(&mut self, policy: &mut P, rng: &mut impl Rng) -> Result<bool, Error>
    where
        P: TurnPolicy<G> + ?Sized,
    {
        loop {
            if self.done {
                return Ok(false);
            }
            if let Some(search) = &mut self.search {
                if driver::gather(search, &self.budget)? {
                    return Ok(true);
                }
                let result = search.result(rng)?;
                policy.searched(search, &result);
                let finished = self.search.take();
                if self.config.reuse_tree {
                    self.previous = finished;
                }
                self.play(result.action);
                continue;
            }
            self.buf.clear();
            self.state.legal_actions(&mut self.buf);
            let Some(&first) = self.buf.first() else {
                return Err(Error::TerminalRoot);
            };
            let decision = self.decisions;
            self.decisions += 1;
            match policy.plan(&self.state, &self.buf, decision) {
                None => self.play(first),
                Some(budget) => {
                    let mut search = self
                        .reused()?
                        .map_or_else(|| Search::new(self.config.clone(), self.state.clone()), Ok)?;
                    driver::start(&mut search, &budget, rng)?;
                    self.budget = budget;
                    self.search = Some(search);
                }
            }
        }
    }

    /// The kept search, rerooted at the current position, if it holds it
    /// (and holds no more visits than one search may run: a tree kept
    /// through many forced moves stops growing there).
    fn reused(&mut self) -> Result<Option<Search<G>>, Error> {
        let Some(mut search) = self.previous.take() else {
            return Ok(None);
        };
        if !search.reroot_at(&self.state, MAX_REUSE_DEPTH)?
            || search.tree().visits(crate::tree::NodeId::ROOT) > crate::config::MAX_SIMULATIONS
        {
            return Ok(None);
        }
        *search.config_mut() = self.config.clone();
        Ok(Some(search))
    }

    fn play(&mut self, action: G::Action) {
        self.state.apply(action);
        self.played.push(action);
        if self.state.to_play() != self.mover || self.state.outcome().is_some() {
            self.done = true;
        }
    }

    /// Whether the turn is complete.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The search of the current decision, if one is running.
    #[must_use]
    pub fn search(&self) -> Option<&Search<G>> {
        self.search.as_ref()
    }

    /// The search of the current decision, mutably (to apply evaluations).
    pub fn search_mut(&mut self) -> Option<&mut Search<G>> {
        self.search.as_mut()
    }

    /// The actions played so far in this turn, in order.
    #[must_use]
    pub fn actions(&self) -> &[G::Action] {
        &self.played
    }

    /// The position after the actions played so far.
    #[must_use]
    pub fn state(&self) -> &G {
        &self.state
    }

    /// The actions of the turn.
    #[must_use]
    pub fn into_actions(self) -> Vec<G::Action> {
        self.played
    }

    /// The actions of the turn and, with [`SearchConfig::reuse_tree`], the
    /// last finished search, for [`TurnSearch::continuing`] on the next move.
    #[must_use]
    pub fn into_parts(self) -> TurnParts<G> {
        (self.played, self.previous)
    }
}

/// Searches the whole turn of the player to move at `root` with
/// `evaluator` (see [`TurnSearch`]) and returns its actions.
///
/// # Errors
///
/// As [`TurnSearch::new`] and [`TurnSearch::advance`]; [`Error::Evaluator`]
/// if the evaluator fails.
pub fn search_turn<G, E, P>(
    config: &SearchConfig,
    root: G,
    evaluator: &mut E,
    policy: &mut P,
    rng: &mut impl Rng,
) -> Result<Vec<G::Action>, Error>
where
    G: Game,
    E: Evaluator<G> + ?Sized,
    P: TurnPolicy<G> + ?Sized,
{
    search_turn_reusing(config, root, None, evaluator, policy, rng).map(|(actions, _)| actions)
}

/// [`search_turn`] with the tree of an earlier search (see
/// [`TurnSearch::continuing`]); returns the turn's actions and the search
/// to pass on to the next call.
///
/// # Errors
///
/// As [`search_turn`].
pub fn search_turn_reusing<G, E, P>(
    config: &SearchConfig,
    root: G,
    previous: Option<Search<G>>,
    evaluator: &mut E,
    policy: &mut P,
    rng: &mut impl Rng,
) -> Result<TurnParts<G>, Error>
where
    G: Game,
    E: Evaluator<G> + ?Sized,
    P: TurnPolicy<G> + ?Sized,
{
    let mut turn = TurnSearch::continuing(config.clone(), root, previous)?;
    while turn.advance(policy, rng)? {
        driver::evaluate_pending(turn.search_mut(), evaluator)?;
    }
    Ok(turn.into_parts())
}
