//! Backing up: [`Search::apply`] takes the evaluations of the pending
//! leaves, sets priors and backs values up through the absolute frame;
//! virtual loss, MCTS-Solver proofs and abandoning leaves in flight.

use crate::error::Error;
use crate::evaluator::{Evaluation, Leaf};
use crate::game::Game;
use crate::select;
use crate::tree::{NodeId, Status};

use super::Search;

impl<G: Game> Search<G> {
    /// Removes one virtual visit on the path from `leaf` to the root.
    pub(super) fn remove_virtual(&mut self, leaf: NodeId) {
        let mut id = leaf;
        while id != NodeId::NONE {
            let n = &mut self.tree.nodes[id.idx()];
            n.virtual_visits = n.virtual_visits.saturating_sub(1);
            id = n.parent;
        }
    }

    /// Backs up the absolute scalar value `v` and draw probability `d` from
    /// `leaf` to the root, removing a virtual visit if `virtual_loss`.
    pub(super) fn backup(&mut self, leaf: NodeId, v: f32, d: f32, virtual_loss: bool) {
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
    pub(super) fn propagate_proof(&mut self, id: NodeId) {
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
}
