//! The search: [`Search`] (its life cycle and its result) and
//! [`SearchResult`].
//!
//! A search is split by idea: this module holds the search's state, its
//! start (`begin`, root noise) and its end (`result`, `advance`);
//! `tree_policy` selects the leaves of a round, `backup` applies their
//! evaluations, `noise` draws the random samples. The loops that drive a
//! search (one or many, to a simulation or time budget) live in
//! [`driver`](crate::driver).

mod backup;
mod noise;
mod tree_policy;

use rand::Rng;

use crate::config::{Algorithm, SearchConfig};
use crate::driver::{self, Budget};
use crate::error::Error;
use crate::evaluator::Evaluator;
use crate::game::Game;
use crate::select::{self, GumbelScratch};
use crate::tree::{NodeId, Status, Tree};
use crate::value::{Abs, Player, Pov, Wdl};

use noise::{dirichlet, sample_gumbel, sample_tempered};

/// What a finished search reports: the move to play and the training
/// targets (mctx's `PolicyOutput`).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<A> {
    /// The root's legal actions, in [`Game::legal_actions`] order. Every
    /// vector below is indexed like this one.
    pub actions: Vec<A>,
    /// The policy training target (mctx `action_weights`), summing to 1:
    /// the visit distribution for PUCT, the improved policy
    /// `softmax(logits + σ(completedQ))` for Gumbel.
    pub policy: Vec<f32>,
    /// Completed visits of each root action (reused visits included).
    pub visits: Vec<u32>,
    /// The evaluator's priors at the root (before Dirichlet noise).
    pub prior: Vec<f32>,
    /// The action chosen to play.
    pub action: A,
    /// Index of `action` in `actions`.
    pub action_index: usize,
    /// The search's value of the root, for the player to move there.
    /// PUCT: the mean of all values backed up through the root. Gumbel: the
    /// improved policy's expectation of the root children's mean values
    /// (sequential halving prescribes the visit counts, so the plain mean
    /// would mix in the values of the actions it rejected).
    pub value: Wdl<Pov>,
    /// The evaluator's own value of the root, for the player to move there.
    pub raw_value: Wdl<Pov>,
    /// The player to move at the root.
    pub to_play: Player,
    /// Whether this was a full search whose policy should be recorded as a
    /// training target (playout cap randomization; always true when
    /// `full_search_prob` is 1).
    pub is_training_target: bool,
    /// Simulations run by this search (not counting reused visits).
    pub simulations: u32,
}

/// One game's search: an arena [`Tree`] over [`Game`] positions, driven in
/// gather/apply rounds.
///
/// # Life cycle
///
/// 1. [`Search::new`] with the position; [`Search::begin`] starts a search
///    (draws the playout-cap coin, Dirichlet noise and Gumbel noise).
/// 2. Rounds until [`Search::is_done`]: [`Search::gather`] selects up to
///    `batch_size` leaves (virtual loss keeps them apart) and expands them;
///    [`Search::pending_leaves`] lists them for the evaluator;
///    [`Search::apply`] takes one [`Evaluation`](crate::Evaluation) per leaf, in order, and
///    backs the values up. Terminal positions are backed up inside `gather`
///    and need no evaluation.
/// 3. [`Search::result`] picks the move and returns the targets;
///    [`Search::advance`] plays a move, keeping its subtree (tree reuse);
///    then `begin` again.
///
/// [`Search::run`] does all of this for a single search;
/// [`step`](crate::step) runs one round for many searches sharing one
/// evaluator call; [`driver`](crate::driver) has the other loops.
#[derive(Clone, Debug)]
pub struct Search<G: Game> {
    config: SearchConfig,
    tree: Tree<G>,
    /// Leaves waiting for their evaluation, in the order given to the evaluator.
    pending: Vec<NodeId>,
    /// Leaves of paths that collided with a pending leaf: their virtual
    /// visits are removed in `apply`.
    collisions: Vec<NodeId>,
    begun: bool,
    full: bool,
    budget: u32,
    /// Simulations started (in flight or completed) in this search.
    started: u32,
    /// Visits the root held when this search's tree was kept (tree reuse).
    kept_visits: u32,
    /// Dirichlet sample for the root children (empty: no noise).
    noise: Vec<f32>,
    /// Root priors before noise, once the root is evaluated.
    root_raw_prior: Vec<f32>,
    /// Gumbel sample per root child (Gumbel search only).
    gumbel: Vec<f32>,
    /// Visits started through each root child in this search (Gumbel).
    root_search_visits: Vec<u32>,
    /// Sequential-halving schedule for this search (Gumbel).
    schedule: Vec<u32>,
    scratch: GumbelScratch,
}

impl<G: Game> Search<G> {
    /// A search tree rooted at `root`. Call [`Search::begin`] next.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] if `config` does not validate.
    pub fn new(config: SearchConfig, root: G) -> Result<Self, Error> {
        config.validate()?;
        Ok(Search {
            config,
            tree: Tree::new(root),
            pending: Vec::new(),
            collisions: Vec::new(),
            begun: false,
            full: true,
            budget: 0,
            started: 0,
            kept_visits: 0,
            noise: Vec::new(),
            root_raw_prior: Vec::new(),
            gumbel: Vec::new(),
            root_search_visits: Vec::new(),
            schedule: Vec::new(),
            scratch: GumbelScratch::default(),
        })
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The configuration, to change between searches (for example the
    /// temperature per move). Changes to simulation counts and noise take
    /// effect at the next [`Search::begin`]; temperature at [`Search::result`].
    ///
    /// Fields are not re-validated; invalid values give unspecified (but
    /// memory-safe) search behaviour.
    pub fn config_mut(&mut self) -> &mut SearchConfig {
        &mut self.config
    }

    /// The tree, for inspection.
    #[must_use]
    pub fn tree(&self) -> &Tree<G> {
        &self.tree
    }

    /// The root position.
    #[must_use]
    pub fn root_state(&self) -> &G {
        self.tree
            .state_of(NodeId::ROOT)
            .expect("invariant: the root always stores its state")
    }

    /// Whether the game is over at the root.
    #[must_use]
    pub fn is_terminal(&self) -> bool {
        self.tree.nodes[0].status == Status::Terminal
    }

    /// Whether the current search is a full one (a training target).
    #[must_use]
    pub fn is_full_search(&self) -> bool {
        self.full
    }

    /// The Gumbel noise drawn for the root actions by the last `begin`
    /// (empty for PUCT), already scaled by `gumbel_scale`.
    #[must_use]
    pub fn root_gumbel(&self) -> &[f32] {
        &self.gumbel
    }

    /// Simulations started in the current search.
    #[must_use]
    pub fn simulations(&self) -> u32 {
        self.started
    }

    /// The visits the root held when the current search began
    /// ([`Search::begin`]): those kept from earlier searches by
    /// [`Search::advance`] or [`Search::reroot_at`], 0 for a fresh tree.
    #[must_use]
    pub fn kept_visits(&self) -> u32 {
        self.kept_visits
    }

    /// Starts a search of the root: draws the playout-cap coin (full or fast
    /// search), the Dirichlet noise (full PUCT searches with
    /// `dirichlet_epsilon > 0`) and the Gumbel noise (Gumbel search).
    ///
    /// # Errors
    ///
    /// [`Error::TerminalRoot`] if the game is over; [`Error::Pending`] if
    /// leaves are still waiting for evaluations.
    pub fn begin(&mut self, rng: &mut impl Rng) -> Result<(), Error> {
        if !self.pending.is_empty() {
            return Err(Error::Pending);
        }
        if self.is_terminal() {
            return Err(Error::TerminalRoot);
        }
        let cfg = &self.config;
        self.full = cfg.full_search_prob >= 1.0 || rng.gen::<f32>() < cfg.full_search_prob;
        self.budget = if self.full {
            cfg.simulations
        } else {
            cfg.fast_simulations
        };
        self.started = 0;
        self.kept_visits = self.tree.nodes[0].visits;
        let k = self.tree.nodes[0].num_children as usize;
        self.noise.clear();
        if cfg.algorithm == Algorithm::Puct && self.full && cfg.dirichlet_epsilon > 0.0 && k > 1 {
            self.noise = dirichlet(rng, cfg.dirichlet_alpha, k);
        }
        self.gumbel.clear();
        self.schedule.clear();
        if cfg.algorithm == Algorithm::Gumbel {
            let scale = cfg.gumbel_scale;
            self.gumbel
                .extend((0..k).map(|_| scale * sample_gumbel(rng)));
            let m = cfg.gumbel_considered_actions.min(k as u32);
            self.schedule = select::considered_visits(m, self.budget);
        }
        self.root_search_visits.clear();
        self.root_search_visits.resize(k, 0);
        self.begun = true;
        if self.tree.nodes[0].status == Status::Expanded {
            self.prepare_root();
        }
        Ok(())
    }

    /// Restores the root's raw priors and mixes in this search's Dirichlet
    /// noise; called once the root is evaluated.
    pub(super) fn prepare_root(&mut self) {
        let range = self.tree.nodes[0].children();
        if self.root_raw_prior.len() == range.len() {
            for (c, p) in range.clone().zip(&self.root_raw_prior) {
                self.tree.nodes[c].prior = *p;
            }
        } else {
            self.root_raw_prior.clear();
            self.root_raw_prior
                .extend(range.clone().map(|c| self.tree.nodes[c].prior));
        }
        if self.noise.len() == range.len() {
            let eps = self.config.dirichlet_epsilon;
            for (c, eta) in range.zip(&self.noise) {
                let p = &mut self.tree.nodes[c].prior;
                *p = (1.0 - eps) * *p + eps * eta;
            }
        }
    }

    /// Whether the current search has spent its budget and has nothing in
    /// flight (also true before [`Search::begin`] and at a terminal root).
    #[must_use]
    pub fn is_done(&self) -> bool {
        if !self.begun || self.is_terminal() {
            return self.pending.is_empty();
        }
        self.pending.is_empty()
            && self.tree.nodes[0].status == Status::Expanded
            && self.started >= self.budget
    }

    /// Ends the search: chooses the action and returns the targets.
    ///
    /// PUCT plays the most visited action (`temperature` 0) or samples
    /// `∝ N^(1/τ)`; Gumbel plays the best of the most visited actions by
    /// `g + logits + σ(completedQ)`.
    ///
    /// # Errors
    ///
    /// [`Error::TerminalRoot`] at a terminal root; [`Error::Pending`] if
    /// leaves are in flight or the root has not been evaluated.
    pub fn result(&mut self, rng: &mut impl Rng) -> Result<SearchResult<G::Action>, Error> {
        if self.is_terminal() {
            return Err(Error::TerminalRoot);
        }
        if !self.pending.is_empty() || self.tree.nodes[0].status != Status::Expanded {
            return Err(Error::Pending);
        }
        let root = &self.tree.nodes[0];
        let range = root.children();
        let visits: Vec<u32> = range.clone().map(|c| self.tree.nodes[c].visits).collect();
        let total: u32 = visits.iter().sum();
        let prior: Vec<f32> = if self.root_raw_prior.len() == range.len() {
            self.root_raw_prior.clone()
        } else {
            range.clone().map(|c| self.tree.nodes[c].prior).collect()
        };
        let (policy, action_index) = match self.config.algorithm {
            Algorithm::Puct => {
                let policy: Vec<f32> = if total > 0 {
                    visits.iter().map(|&n| n as f32 / total as f32).collect()
                } else {
                    prior.clone()
                };
                let index = if self.config.temperature > 0.0 && total > 0 {
                    sample_tempered(rng, &visits, self.config.temperature)
                } else {
                    // Most visits; ties broken by prior, then by order.
                    let mut best = 0;
                    for i in 1..visits.len() {
                        if (visits[i], prior[i]) > (visits[best], prior[best]) {
                            best = i;
                        }
                    }
                    best
                };
                (policy, index)
            }
            Algorithm::Gumbel => {
                let max = self.root_search_visits.iter().copied().max().unwrap_or(0);
                let index = self.gumbel_root_argmax(Some(max));
                // The improved policy: softmax(logits + σ(completedQ)),
                // with the scratch filled by `gumbel_root_argmax`.
                let s = &self.scratch;
                let mut m = f32::NEG_INFINITY;
                for (l, q) in s.logits.iter().zip(&s.q) {
                    m = m.max(l + q);
                }
                let mut policy: Vec<f32> = s
                    .logits
                    .iter()
                    .zip(&s.q)
                    .map(|(l, q)| (l + q - m).exp())
                    .collect();
                let z: f32 = policy.iter().sum();
                for p in &mut policy {
                    *p /= z;
                }
                (policy, index)
            }
        };
        // A proven win at the root is played, whatever the visits say (the
        // most visited of the winning actions).
        let root = &self.tree.nodes[0];
        let to_play = root.to_play;
        let action_index = if self.config.solver {
            root.children()
                .enumerate()
                .filter(|&(_, c)| self.tree.nodes[c].proven == Some(to_play))
                .max_by_key(|&(i, _)| visits[i])
                .map_or(action_index, |(i, _)| i)
        } else {
            action_index
        };
        let value = match self.config.algorithm {
            Algorithm::Puct => mean_value(root).map(|v| v.to_pov(to_play)),
            Algorithm::Gumbel => {
                // Σ π'(a) · value(a) over the visited children.
                let (mut v, mut d, mut mass) = (0.0, 0.0, 0.0);
                for (c, p) in root.children().zip(&policy) {
                    if let Some(cv) = mean_value(&self.tree.nodes[c]) {
                        v += p * cv.scalar();
                        d += p * cv.draw;
                        mass += p;
                    }
                }
                (mass > 0.0).then(|| Wdl::<Abs>::from_scalar(v / mass, d / mass).to_pov(to_play))
            }
        }
        .unwrap_or_else(|| Wdl::from_scalar(root.raw_value, root.raw_draw));
        let value = match root.proven {
            Some(w) if self.config.solver && w == to_play => Wdl::WIN,
            Some(_) if self.config.solver => Wdl::LOSS,
            _ => value,
        };
        let raw_value = Wdl::<Pov>::from_scalar(root.raw_value, root.raw_draw);
        let actions = self.tree.child_actions(NodeId::ROOT).to_vec();
        Ok(SearchResult {
            action: actions[action_index],
            actions,
            policy,
            visits,
            prior,
            action_index,
            value,
            raw_value,
            to_play,
            is_training_target: self.full,
            simulations: self.started,
        })
    }

    /// Plays `action` at the root. With `reuse_tree`, its subtree becomes
    /// the new tree; otherwise the tree restarts from the new position.
    /// Call [`Search::begin`] before searching again.
    ///
    /// # Errors
    ///
    /// [`Error::IllegalAction`] if `action` is not a root action;
    /// [`Error::Pending`] if leaves are in flight.
    pub fn advance(&mut self, action: G::Action) -> Result<(), Error> {
        if !self.pending.is_empty() {
            return Err(Error::Pending);
        }
        let index = self
            .tree
            .child_actions(NodeId::ROOT)
            .iter()
            .position(|&a| a == action)
            .ok_or(Error::IllegalAction)?;
        let child = NodeId(self.tree.nodes[0].first_child + index as u32);
        let status = self.tree.nodes[child.idx()].status;
        if self.config.reuse_tree && status == Status::Expanded {
            self.tree.reroot(child);
        } else {
            let mut state = self.root_state().clone();
            state.apply(action);
            self.tree = Tree::new(state);
        }
        self.reset_search_state();
        Ok(())
    }

    /// Moves the root to `target` if the tree holds that position: of the
    /// shallowest searched nodes (breadth first, at most `max_depth`
    /// actions below the root) with `target`'s player to move and
    /// [`Game::eval_key`] (the position and the counters an evaluator
    /// sees), the most visited becomes the root, keeping its subtree, as
    /// [`Search::advance`] does one action at a time. This is tree reuse
    /// for a player that is told the position rather than the actions
    /// played since its last search (its own and its opponent's). Returns
    /// whether the tree now starts at `target`; when it does not, the tree
    /// is unchanged (call [`Search::reset`]). Call [`Search::begin`] before
    /// searching again.
    ///
    /// # Errors
    ///
    /// [`Error::Pending`] if leaves are in flight.
    pub fn reroot_at(&mut self, target: &G, max_depth: u32) -> Result<bool, Error> {
        if !self.pending.is_empty() {
            return Err(Error::Pending);
        }
        let (key, to_play) = (target.eval_key(), target.to_play());
        let mut level = vec![NodeId::ROOT];
        let mut next = Vec::new();
        for depth in 0..=max_depth {
            // Of the nodes holding `target` at this depth (transpositions:
            // a capture's jumps in another order), the most visited.
            let mut found: Option<NodeId> = None;
            for &id in &level {
                let node = &self.tree.nodes[id.idx()];
                if node.status != Status::Expanded {
                    continue;
                }
                let holds = node.to_play == to_play
                    && self.tree.state_of(id).is_some_and(|s| s.eval_key() == key);
                if holds && found.is_none_or(|f| self.tree.nodes[f.idx()].visits < node.visits) {
                    found = Some(id);
                }
                if depth < max_depth {
                    next.extend(self.tree.children(id));
                }
            }
            if let Some(id) = found {
                if id != NodeId::ROOT {
                    self.tree.reroot(id);
                }
                self.reset_search_state();
                return Ok(true);
            }
            std::mem::swap(&mut level, &mut next);
            next.clear();
            if level.is_empty() {
                break;
            }
        }
        Ok(false)
    }

    /// Replaces the tree by a fresh one rooted at `root` (a new game).
    pub fn reset(&mut self, root: G) {
        self.tree = Tree::new(root);
        self.pending.clear();
        self.collisions.clear();
        self.reset_search_state();
    }

    fn reset_search_state(&mut self) {
        self.begun = false;
        self.started = 0;
        self.budget = 0;
        self.noise.clear();
        self.root_raw_prior.clear();
        self.gumbel.clear();
        self.root_search_visits.clear();
        self.schedule.clear();
    }

    /// Runs a whole search with `evaluator`: [`Search::begin`], rounds of
    /// gather/evaluate/apply until done, then [`Search::result`]; the same
    /// as [`driver::run`] with the default [`Budget`] (the configured
    /// simulations, no clock).
    ///
    /// # Errors
    ///
    /// [`Error::TerminalRoot`] at a terminal root, [`Error::Evaluator`] if
    /// the evaluator fails, [`Error::BatchSize`]/[`Error::PolicyLength`] if
    /// it returns malformed evaluations.
    pub fn run<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &mut E,
        rng: &mut impl Rng,
    ) -> Result<SearchResult<G::Action>, Error> {
        driver::run(self, evaluator, &Budget::default(), rng)
    }
}

/// The mean of the values backed up through `node`, if it has visits.
fn mean_value(node: &crate::tree::Node) -> Option<Wdl<Abs>> {
    (node.visits > 0).then(|| {
        let k = node.visits as f32;
        Wdl::from_scalar(node.w_abs / k, node.d_sum / k)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toy::TicTacToe;
    use crate::UniformEvaluator;
    use rand::SeedableRng;

    /// Virtual visits (leaves and collisions) are all removed by `apply`,
    /// and visits add up: each node's visits are its own evaluation plus
    /// its children's visits.
    #[test]
    fn virtual_loss_is_balanced_and_visits_add_up() {
        for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
            let cfg = SearchConfig {
                algorithm,
                simulations: 300,
                batch_size: 8,
                ..SearchConfig::default()
            };
            let mut s = Search::new(cfg, TicTacToe::default()).expect("valid");
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
            s.run(&mut UniformEvaluator::default(), &mut rng)
                .expect("runs");
            for (i, n) in s.tree.nodes.iter().enumerate() {
                assert_eq!(n.virtual_visits, 0, "node {i}");
                if n.status == Status::Expanded {
                    let children: u32 = n.children().map(|c| s.tree.nodes[c].visits).sum();
                    assert_eq!(n.visits, children + 1, "node {i}");
                }
            }
        }
    }
}
