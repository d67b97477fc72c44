//! The search: [`Search`] (gather/apply), [`SearchResult`], and [`step`]
//! for many searches sharing one evaluator batch.

use rand::Rng;
use rand_distr::{Distribution, Gamma};

use crate::config::{Algorithm, SearchConfig};
use crate::error::Error;
use crate::evaluator::{Evaluation, Evaluator, Leaf};
use crate::game::Game;
use crate::select::{self, GumbelScratch};
use crate::tree::{NodeId, Status, Tree};
use crate::value::{Abs, Player, Pov, Wdl};

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
///    [`Search::apply`] takes one [`Evaluation`] per leaf, in order, and
///    backs the values up. Terminal positions are backed up inside `gather`
///    and need no evaluation.
/// 3. [`Search::result`] picks the move and returns the targets;
///    [`Search::advance`] plays a move, keeping its subtree (tree reuse);
///    then `begin` again.
///
/// [`Search::run`] does all of this for a single search;
/// [`step`] runs one round for many searches sharing one evaluator call.
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
    fn prepare_root(&mut self) {
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

    /// Selects up to `batch_size` leaves for evaluation and returns how many
    /// are pending. Simulations that end in a terminal position are backed
    /// up here directly. Does nothing once the budget is spent, or before
    /// [`Search::begin`].
    ///
    /// The first round of a fresh tree returns the root alone.
    ///
    /// # Errors
    ///
    /// [`Error::Pending`] if the previous round was not applied.
    pub fn gather(&mut self) -> Result<usize, Error> {
        if !self.pending.is_empty() {
            return Err(Error::Pending);
        }
        if !self.begun {
            return Ok(0);
        }
        match self.tree.nodes[0].status {
            Status::Pending => {
                self.add_virtual(NodeId::ROOT);
                self.pending.push(NodeId::ROOT);
                return Ok(1);
            }
            Status::Terminal | Status::Unvisited => return Ok(0),
            Status::Expanded => {}
        }
        let want = self.config.batch_size as usize;
        let max_attempts = 2 * want + 2;
        let mut attempts = 0;
        while self.pending.len() < want && self.started < self.budget && attempts < max_attempts {
            attempts += 1;
            let (leaf, root_child) = self.select_leaf();
            let status = match self.tree.nodes[leaf.idx()].status {
                Status::Unvisited => {
                    let parent = self.tree.nodes[leaf.idx()].parent;
                    let mut state = self
                        .tree
                        .state_of(parent)
                        .expect("invariant: expanded nodes store their state")
                        .clone();
                    let action = self.tree.actions[leaf.idx() - 1];
                    state.apply(action);
                    self.tree.expand(leaf, state)
                }
                s => s,
            };
            let proven = self.tree.nodes[leaf.idx()].proven;
            match status {
                Status::Terminal => {
                    let n = &self.tree.nodes[leaf.idx()];
                    let v = n.to_play.sign() * n.raw_value;
                    let d = n.raw_draw;
                    self.backup(leaf, v, d, false);
                    self.started += 1;
                    self.root_search_visits[root_child] += 1;
                    if self.config.solver {
                        self.propagate_proof(leaf);
                    }
                }
                Status::Expanded if proven.is_some() => {
                    // A proven node: its exact value, no search below.
                    let winner = proven.unwrap_or(Player::First);
                    self.backup(leaf, winner.sign(), 0.0, false);
                    self.started += 1;
                    self.root_search_visits[root_child] += 1;
                }
                Status::Pending
                    if self.tree.nodes[leaf.idx()].visits == 0
                        && self.tree.nodes[leaf.idx()].virtual_visits == 0 =>
                {
                    // Freshly expanded: a new leaf for the evaluator.
                    self.add_virtual(leaf);
                    self.pending.push(leaf);
                    self.started += 1;
                    self.root_search_visits[root_child] += 1;
                }
                _ => {
                    // Collision with a leaf already in this batch.
                    self.add_virtual(leaf);
                    self.collisions.push(leaf);
                }
            }
        }
        Ok(self.pending.len())
    }

    /// Descends from the root to a node that is not expanded; also returns
    /// the index of the root child taken.
    fn select_leaf(&mut self) -> (NodeId, usize) {
        let root_child = self.select_root_child();
        let mut node = NodeId(self.tree.nodes[0].first_child + root_child as u32);
        loop {
            let n = &self.tree.nodes[node.idx()];
            if n.status != Status::Expanded || (n.proven.is_some() && self.config.solver) {
                return (node, root_child);
            }
            let range = n.children();
            let first = range.start;
            let children = &self.tree.nodes[range];
            let i = match self.config.algorithm {
                Algorithm::Puct => {
                    select::puct(n, children, &self.config, self.config.fpu_reduction)
                }
                Algorithm::Gumbel => {
                    select::gumbel_interior(n, children, &self.config, &mut self.scratch)
                }
            };
            node = NodeId((first + i) as u32);
        }
    }

    /// The root child for the next simulation.
    fn select_root_child(&mut self) -> usize {
        let root = &self.tree.nodes[0];
        let children = &self.tree.nodes[root.children()];
        match self.config.algorithm {
            Algorithm::Puct => {
                select::puct(root, children, &self.config, self.config.fpu_reduction_root)
            }
            Algorithm::Gumbel => {
                let started: u32 = self.root_search_visits.iter().sum();
                let idx = (started as usize).min(self.schedule.len().saturating_sub(1));
                let considered = self.schedule.get(idx).copied().unwrap_or(0);
                self.gumbel_root_argmax(Some(considered))
            }
        }
    }

    /// argmax over root children of `g + logits + σ(completedQ)`, restricted
    /// to children with `considered` visits in this search when given.
    fn gumbel_root_argmax(&mut self, considered: Option<u32>) -> usize {
        let root = &self.tree.nodes[0];
        let children = &self.tree.nodes[root.children()];
        // Gumbel roots get no Dirichlet noise: the children's priors are
        // the evaluator's.
        self.scratch
            .sigma_completed_q(root, children, &self.config, false);
        let mut best = None;
        let mut best_score = f32::NEG_INFINITY;
        for i in 0..children.len() {
            if considered.is_some_and(|v| self.root_search_visits[i] != v) {
                continue;
            }
            let g = self.gumbel.get(i).copied().unwrap_or(0.0);
            let score = g + self.scratch.logits[i] + self.scratch.q[i];
            if best.is_none() || score > best_score {
                best = Some(i);
                best_score = score;
            }
        }
        match best {
            Some(i) => i,
            // No child has the scheduled count (only possible if the
            // schedule is exhausted): consider them all.
            None if considered.is_some() => self.gumbel_root_argmax(None),
            None => 0,
        }
    }

    /// Adds one virtual visit on the path from `leaf` to the root.
    fn add_virtual(&mut self, leaf: NodeId) {
        let mut id = leaf;
        while id != NodeId::NONE {
            let n = &mut self.tree.nodes[id.idx()];
            n.virtual_visits += 1;
            id = n.parent;
        }
    }

    /// Removes one virtual visit on the path from `leaf` to the root.
    fn remove_virtual(&mut self, leaf: NodeId) {
        let mut id = leaf;
        while id != NodeId::NONE {
            let n = &mut self.tree.nodes[id.idx()];
            n.virtual_visits = n.virtual_visits.saturating_sub(1);
            id = n.parent;
        }
    }

    /// Backs up the absolute scalar value `v` and draw probability `d` from
    /// `leaf` to the root, removing a virtual visit if `virtual_loss`.
    fn backup(&mut self, leaf: NodeId, v: f32, d: f32, virtual_loss: bool) {
        let mut id = leaf;
        while id != NodeId::NONE {
            let n = &mut self.tree.nodes[id.idx()];
            n.visits += 1;
            n.w_abs += v;
            n.d_sum += d;
            if virtual_loss {
                n.virtual_visits = n.virtual_visits.saturating_sub(1);
            }
            id = n.parent;
        }
    }

    /// MCTS-Solver: after `id` was proven, proves its ancestors where the
    /// proof decides them (a child won by the parent's player to move wins
    /// the parent; a parent all of whose children are won by the opponent
    /// is lost), and stops at the first ancestor it does not decide.
    fn propagate_proof(&mut self, id: NodeId) {
        let mut id = id;
        while let Some(winner) = self.tree.nodes[id.idx()].proven {
            let parent = self.tree.nodes[id.idx()].parent;
            if parent == NodeId::NONE || self.tree.nodes[parent.idx()].proven.is_some() {
                return;
            }
            let mover = self.tree.nodes[parent.idx()].to_play;
            let decided = winner == mover
                || self.tree.nodes[self.tree.nodes[parent.idx()].children()]
                    .iter()
                    .all(|c| c.proven == Some(winner));
            if !decided {
                return;
            }
            self.tree.nodes[parent.idx()].proven = Some(winner);
            id = parent;
        }
    }

    /// Number of leaves waiting for evaluations.
    #[must_use]
    pub fn num_pending(&self) -> usize {
        self.pending.len()
    }

    /// The leaves waiting for evaluations, in the order [`Search::apply`]
    /// expects them.
    pub fn pending_leaves(&self) -> impl ExactSizeIterator<Item = Leaf<'_, G>> + '_ {
        self.pending.iter().map(move |&id| Leaf {
            state: self
                .tree
                .state_of(id)
                .expect("invariant: pending leaves store their state"),
            actions: self.tree.child_actions(id),
        })
    }

    /// Takes one evaluation per pending leaf (same order as
    /// [`Search::pending_leaves`]), sets the priors and backs the values up.
    ///
    /// # Errors
    ///
    /// [`Error::BatchSize`] or [`Error::PolicyLength`] if `evals` does not
    /// match the leaves; the search is then unchanged (call `apply` again
    /// with the right evaluations).
    pub fn apply(&mut self, evals: &[Evaluation]) -> Result<(), Error> {
        if evals.len() != self.pending.len() {
            return Err(Error::BatchSize {
                expected: self.pending.len(),
                got: evals.len(),
            });
        }
        for (&id, ev) in self.pending.iter().zip(evals) {
            let expected = self.tree.nodes[id.idx()].num_children as usize;
            if ev.policy.len() != expected {
                return Err(Error::PolicyLength {
                    expected,
                    got: ev.policy.len(),
                });
            }
        }
        let pending = std::mem::take(&mut self.pending);
        for (&id, ev) in pending.iter().zip(evals) {
            let range = self.tree.nodes[id.idx()].children();
            let sum: f32 = ev.policy.iter().map(|p| p.max(0.0)).sum();
            let uniform = !(sum.is_finite() && sum > 0.0);
            let k = range.len() as f32;
            for (c, p) in range.zip(&ev.policy) {
                let prior = if uniform { 1.0 / k } else { p.max(0.0) / sum };
                let node = &mut self.tree.nodes[c];
                node.prior = prior;
                node.logit = prior.max(select::TINY).ln();
            }
            let value = ev.value.normalized();
            let node = &mut self.tree.nodes[id.idx()];
            node.raw_value = value.scalar();
            node.raw_draw = value.draw;
            node.status = Status::Expanded;
            let v = node.to_play.sign() * node.raw_value;
            self.backup(id, v, value.draw, true);
            if id == NodeId::ROOT && self.begun {
                self.prepare_root();
            }
        }
        self.pending = pending;
        self.pending.clear();
        for c in std::mem::take(&mut self.collisions) {
            self.remove_virtual(c);
        }
        Ok(())
    }

    /// Drops the leaves in flight without evaluating them (for example after
    /// the evaluator failed): their virtual loss is removed and they become
    /// unvisited again, so the search can go on.
    pub fn abandon_pending(&mut self) {
        for id in std::mem::take(&mut self.pending) {
            self.remove_virtual(id);
            if id != NodeId::ROOT {
                let node = &mut self.tree.nodes[id.idx()];
                // The children and state stay in the arena as garbage until
                // the next re-rooting compacts it.
                node.status = Status::Unvisited;
                node.num_children = 0;
                node.state = crate::tree::NO_STATE;
                self.started = self.started.saturating_sub(1);
                if let Some(slot) = self.root_child_of(id) {
                    self.root_search_visits[slot] = self.root_search_visits[slot].saturating_sub(1);
                }
            }
        }
        for c in std::mem::take(&mut self.collisions) {
            self.remove_virtual(c);
        }
    }

    /// The index among the root's children of the ancestor of `id`.
    fn root_child_of(&self, id: NodeId) -> Option<usize> {
        let mut id = id;
        loop {
            let parent = self.tree.nodes.get(id.idx())?.parent;
            if parent == NodeId::ROOT {
                let first = self.tree.nodes[0].first_child;
                return Some((id.0 - first) as usize);
            }
            if parent == NodeId::NONE {
                return None;
            }
            id = parent;
        }
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
    /// gather/evaluate/apply until done, then [`Search::result`].
    ///
    /// # Errors
    ///
    /// [`Error::TerminalRoot`] at a terminal root, [`Error::Evaluator`] if
    /// the evaluator fails, [`Error::BatchSize`]/[`Error::PolicyLength`] if
    /// it returns malformed evaluations.
    pub fn run<E: Evaluator<G>>(
        &mut self,
        evaluator: &mut E,
        rng: &mut impl Rng,
    ) -> Result<SearchResult<G::Action>, Error> {
        self.begin(rng)?;
        while !self.is_done() {
            self.gather()?;
            let leaves: Vec<Leaf<'_, G>> = self.pending_leaves().collect();
            let evals = evaluator
                .evaluate(&leaves)
                .map_err(|e| Error::Evaluator(Box::new(e)))?;
            drop(leaves);
            self.apply(&evals)?;
        }
        self.result(rng)
    }
}

/// One gather/evaluate/apply round over many searches with a single
/// evaluator call: every search that is not done gathers its leaves, all
/// leaves go to `evaluator` as one batch, and each search gets its
/// evaluations back. Returns the batch size (0 when every search is done).
///
/// This is how self-play shares one network batch among many games.
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
    let mut active: Vec<&'s mut Search<G>> = Vec::new();
    for s in searches {
        // A round may end in terminal positions only (nothing to evaluate)
        // while the budget is not spent: gather again. Each such round
        // completes at least one simulation, so this terminates.
        while !s.is_done() {
            if s.gather()? > 0 {
                active.push(s);
                break;
            }
        }
    }
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

/// The mean of the values backed up through `node`, if it has visits.
fn mean_value(node: &crate::tree::Node) -> Option<Wdl<Abs>> {
    (node.visits > 0).then(|| {
        let k = node.visits as f32;
        Wdl::from_scalar(node.w_abs / k, node.d_sum / k)
    })
}

/// A Dirichlet(α, …, α) sample of dimension `k`, via normalized Gamma draws.
fn dirichlet(rng: &mut impl Rng, alpha: f32, k: usize) -> Vec<f32> {
    let mut out: Vec<f32> = match Gamma::new(alpha, 1.0) {
        Ok(g) => (0..k).map(|_| g.sample(rng)).collect(),
        Err(_) => vec![1.0; k],
    };
    let sum: f32 = out.iter().sum();
    if sum.is_finite() && sum > 0.0 {
        for x in &mut out {
            *x /= sum;
        }
    } else {
        // All draws underflowed (tiny α): put the mass on one random action.
        out.iter_mut().for_each(|x| *x = 0.0);
        out[rng.gen_range(0..k)] = 1.0;
    }
    out
}

/// A standard Gumbel sample: `−ln(−ln U)`.
fn sample_gumbel(rng: &mut impl Rng) -> f32 {
    let u: f32 = rng.gen_range(f32::MIN_POSITIVE..1.0);
    -(-u.ln()).ln()
}

/// Samples an index `∝ visits^(1/τ)`.
fn sample_tempered(rng: &mut impl Rng, visits: &[u32], temperature: f32) -> usize {
    let max = visits.iter().copied().max().unwrap_or(0).max(1) as f64;
    let inv = 1.0 / temperature as f64;
    let weights: Vec<f64> = visits.iter().map(|&n| (n as f64 / max).powf(inv)).collect();
    let total: f64 = weights.iter().sum();
    if !(total.is_finite() && total > 0.0) {
        return 0;
    }
    let mut x = rng.gen::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
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
