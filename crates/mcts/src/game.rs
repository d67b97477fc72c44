//! The [`Game`] trait: everything the search needs to know about a game.

use std::fmt::Debug;

use crate::value::{Outcome, Player};

/// A two-player, zero-sum, perfect-information game, as the search sees it.
///
/// The player to move need not alternate: in Turkish draughts a capture is
/// decided one jump at a time, so the same player acts several times in a
/// row. The search compares [`Game::to_play`] at every node and never
/// assumes alternation.
///
/// # Contract
///
/// * If [`Game::outcome`] is `None`, [`Game::legal_actions`] yields at least
///   one action; if it is `Some`, the search never asks for actions.
/// * [`Game::legal_actions`] is deterministic: the same position always
///   yields the same actions in the same order. Priors from an
///   [`Evaluator`](crate::Evaluator) and policy targets in a
///   [`SearchResult`](crate::SearchResult) are given in this order.
/// * [`Game::apply`] is only called with an action from
///   [`Game::legal_actions`] of the current position.
pub trait Game: Clone {
    /// One decision of the player to move.
    type Action: Copy + Eq + Debug;

    /// The player who acts next.
    fn to_play(&self) -> Player;

    /// Appends the legal actions of the position to `out` (which the caller
    /// has cleared), in a deterministic order.
    fn legal_actions(&self, out: &mut Vec<Self::Action>);

    /// Plays `action`, which must be one of [`Game::legal_actions`].
    fn apply(&mut self, action: Self::Action);

    /// The result if the game is over (including draws by rule), else `None`.
    fn outcome(&self) -> Option<Outcome>;

    /// A hash of the position (for evaluation caches and transpositions).
    fn hash(&self) -> u64;

    /// The key of the position in an evaluation cache
    /// ([`CachedEvaluator`](crate::CachedEvaluator)): it must tell apart
    /// any two positions an evaluator may answer differently. The default
    /// is [`Game::hash`]; a game whose evaluator also sees counters the
    /// hash leaves out mixes them in.
    fn eval_key(&self) -> u64 {
        self.hash()
    }
}
