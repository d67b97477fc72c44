//! The tree policy: which leaves a round of [`Search::gather`] selects
//! (PUCT below the root, PUCT or Gumbel sequential halving at the root),
//! under virtual loss.

use crate::config::Algorithm;
use crate::error::Error;
use crate::game::Game;
use crate::select;
use crate::tree::{NodeId, Status};
use crate::value::Player;

use super::Search;

impl<G: Game> Search<G> {
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
    pub(super) fn gumbel_root_argmax(&mut self, considered: Option<u32>) -> usize {
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
    pub(super) fn add_virtual(&mut self, leaf: NodeId) {
        let mut id = leaf;
        while id != NodeId::NONE {
            let n = &mut self.tree.nodes[id.idx()];
            n.virtual_visits += 1;
            id = n.parent;
        }
    }
}
