//! The arena search tree.

use crate::game::Game;
use crate::value::{Abs, Outcome, Player, Wdl};

/// Index of a node in a [`Tree`]'s arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The root is always the first node of the arena.
    pub const ROOT: NodeId = NodeId(0);
    /// No node: the root's parent.
    pub const NONE: NodeId = NodeId(u32::MAX);

    #[inline]
    pub(crate) fn idx(self) -> usize {
        self.0 as usize
    }
}

/// No state stored for this node.
pub(crate) const NO_STATE: u32 = u32::MAX;

/// Where a node is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// Created as a child; never visited, no state, no children.
    Unvisited,
    /// Expanded (state and children created) and waiting for its evaluation.
    Pending,
    /// Evaluated: its children have priors.
    Expanded,
    /// The game is over here; `raw_value`/`raw_draw` hold the exact result.
    Terminal,
}

/// One node: statistics of the edge leading to it and of the position it holds.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub(crate) parent: NodeId,
    /// Children are the nodes `first_child .. first_child + num_children`.
    pub(crate) first_child: u32,
    pub(crate) num_children: u32,
    /// Index into `Tree::states`, or [`NO_STATE`].
    pub(crate) state: u32,
    /// Completed visits (evaluations and terminal hits backed up through here).
    pub(crate) visits: u32,
    /// Simulations in flight through this node (virtual loss).
    pub(crate) virtual_visits: u32,
    /// Σ (win − loss) of the backed-up values, absolute (First's view).
    pub(crate) w_abs: f32,
    /// Σ draw probability of the backed-up values.
    pub(crate) d_sum: f32,
    /// Prior of the action leading here (normalized over its siblings).
    pub(crate) prior: f32,
    /// `ln(prior)` of the evaluator's prior (Gumbel), cached.
    pub(crate) logit: f32,
    /// The evaluator's (or terminal) scalar value for `to_play`.
    pub(crate) raw_value: f32,
    /// The evaluator's (or terminal) draw probability.
    pub(crate) raw_draw: f32,
    /// The player to move here (meaningless while `Unvisited`).
    pub(crate) to_play: Player,
    pub(crate) status: Status,
    /// The winner with best play from here, once the search has proven it
    /// (MCTS-Solver: a terminal win, a child the player to move wins, or
    /// every child won by the opponent). `None`: not proven.
    pub(crate) proven: Option<Player>,
}

impl Node {
    fn unvisited(parent: NodeId) -> Node {
        Node {
            parent,
            first_child: 0,
            num_children: 0,
            state: NO_STATE,
            visits: 0,
            virtual_visits: 0,
            w_abs: 0.0,
            d_sum: 0.0,
            prior: 0.0,
            logit: 0.0,
            raw_value: 0.0,
            raw_draw: 0.0,
            to_play: Player::First,
            status: Status::Unvisited,
            proven: None,
        }
    }

    /// Children ids as a range of arena indices.
    #[inline]
    pub(crate) fn children(&self) -> std::ops::Range<usize> {
        let f = self.first_child as usize;
        f..f + self.num_children as usize
    }
}

/// The search tree: nodes in one arena (`Vec`), children of a node
/// contiguous, the root at [`NodeId::ROOT`]. The action leading to node `i`
/// (`i ≥ 1`) is `actions[i − 1]`: nodes and actions are pushed in lockstep.
/// Positions are stored for expanded nodes only.
#[derive(Clone, Debug)]
pub struct Tree<G: Game> {
    pub(crate) nodes: Vec<Node>,
    pub(crate) actions: Vec<G::Action>,
    pub(crate) states: Vec<G>,
}

impl<G: Game> Tree<G> {
    /// A tree holding only `root`, expanded if the game is not over
    /// (its children created, waiting for the root's evaluation).
    pub(crate) fn new(root: G) -> Tree<G> {
        let mut tree = Tree {
            nodes: Vec::with_capacity(1024),
            actions: Vec::with_capacity(1024),
            states: Vec::with_capacity(128),
        };
        tree.nodes.push(Node::unvisited(NodeId::NONE));
        tree.expand(NodeId::ROOT, root);
        tree
    }

    /// Gives the unvisited node `id` its position: it becomes `Terminal`, or
    /// `Pending` with its children created. Returns the new status.
    pub(crate) fn expand(&mut self, id: NodeId, state: G) -> Status {
        let to_play = state.to_play();
        let outcome = state.outcome();
        let first_child = self.nodes.len() as u32;
        let keep_state = id == NodeId::ROOT || outcome.is_none();
        let mut num_children = 0;
        if outcome.is_none() {
            let before = self.actions.len();
            state.legal_actions(&mut self.actions);
            num_children = (self.actions.len() - before) as u32;
            self.nodes
                .resize_with(self.nodes.len() + num_children as usize, || {
                    Node::unvisited(id)
                });
        }
        let state_idx = if keep_state {
            self.states.push(state);
            (self.states.len() - 1) as u32
        } else {
            NO_STATE
        };
        let node = &mut self.nodes[id.idx()];
        node.to_play = to_play;
        node.state = state_idx;
        node.first_child = first_child;
        node.num_children = num_children;
        match outcome {
            Some(o) => {
                let v = o.wdl_for(to_play);
                node.raw_value = v.scalar();
                node.raw_draw = v.draw;
                node.status = Status::Terminal;
                node.proven = match o {
                    Outcome::Win(p) => Some(p),
                    Outcome::Draw => None,
                };
            }
            None if num_children == 0 => {
                // A game breaking the contract (no actions, not over): treat
                // the position as a draw rather than panic.
                node.raw_value = 0.0;
                node.raw_draw = 1.0;
                node.status = Status::Terminal;
            }
            None => node.status = Status::Pending,
        }
        node.status
    }

    /// The position stored at `id` (expanded nodes and the root).
    #[inline]
    pub(crate) fn state_of(&self, id: NodeId) -> Option<&G> {
        let s = self.nodes[id.idx()].state;
        self.states.get(s as usize)
    }

    /// Actions of `id`'s children, in legal-action order.
    #[inline]
    pub(crate) fn child_actions(&self, id: NodeId) -> &[G::Action] {
        let n = &self.nodes[id.idx()];
        if n.num_children == 0 {
            return &[];
        }
        let f = n.first_child as usize - 1;
        &self.actions[f..f + n.num_children as usize]
    }

    /// Copies the subtree under `new_root` into a fresh arena whose root it
    /// becomes; everything else is dropped.
    pub(crate) fn reroot(&mut self, new_root: NodeId) {
        let old_nodes = std::mem::take(&mut self.nodes);
        let old_actions = std::mem::take(&mut self.actions);
        let mut old_states: Vec<Option<G>> = std::mem::take(&mut self.states)
            .into_iter()
            .map(Some)
            .collect();
        let mut take_state = |idx: u32, states: &mut Vec<G>| -> u32 {
            match old_states.get_mut(idx as usize).and_then(Option::take) {
                Some(s) => {
                    states.push(s);
                    (states.len() - 1) as u32
                }
                None => NO_STATE,
            }
        };
        let mut root = old_nodes[new_root.idx()].clone();
        root.parent = NodeId::NONE;
        root.state = take_state(root.state, &mut self.states);
        self.nodes.push(root);
        // Breadth-first: `queue[i]` is the old id of new node `i`.
        let mut queue: Vec<u32> = vec![new_root.0];
        let mut i = 0;
        while i < queue.len() {
            let old = &old_nodes[queue[i] as usize];
            if old.num_children > 0 {
                let new_first = self.nodes.len() as u32;
                for c in old.children() {
                    let mut child = old_nodes[c].clone();
                    child.parent = NodeId(i as u32);
                    child.state = take_state(child.state, &mut self.states);
                    self.nodes.push(child);
                    self.actions.push(old_actions[c - 1]);
                    queue.push(c as u32);
                }
                self.nodes[i].first_child = new_first;
            }
            i += 1;
        }
    }

    /// Number of nodes in the arena.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the arena is empty (never: the root is always there).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The children of `id`, in legal-action order.
    pub fn children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes[id.idx()].children().map(|c| NodeId(c as u32))
    }

    /// The action leading to `id` (`None` for the root).
    #[must_use]
    pub fn action(&self, id: NodeId) -> Option<G::Action> {
        if id == NodeId::ROOT {
            None
        } else {
            self.actions.get(id.idx().wrapping_sub(1)).copied()
        }
    }

    /// Completed visits of `id`.
    #[must_use]
    pub fn visits(&self, id: NodeId) -> u32 {
        self.nodes[id.idx()].visits
    }

    /// The prior of the action leading to `id`.
    #[must_use]
    pub fn prior(&self, id: NodeId) -> f32 {
        self.nodes[id.idx()].prior
    }

    /// The player to move at `id` (`None` while it is unvisited).
    #[must_use]
    pub fn to_play(&self, id: NodeId) -> Option<Player> {
        let n = &self.nodes[id.idx()];
        (n.status != Status::Unvisited).then_some(n.to_play)
    }

    /// The winner with best play from `id`, if the search has proven it
    /// (see [`SearchConfig::solver`](crate::SearchConfig::solver)).
    #[must_use]
    pub fn proven(&self, id: NodeId) -> Option<Player> {
        self.nodes[id.idx()].proven
    }

    /// The mean backed-up value of `id` (`None` before its first visit).
    #[must_use]
    pub fn value(&self, id: NodeId) -> Option<Wdl<Abs>> {
        let n = &self.nodes[id.idx()];
        (n.visits > 0).then(|| {
            let k = n.visits as f32;
            Wdl::from_scalar(n.w_abs / k, n.d_sum / k)
        })
    }
}
