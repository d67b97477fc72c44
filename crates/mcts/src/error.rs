//! The crate's error type.

/// Everything that can go wrong in a search.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A [`SearchConfig`](crate::SearchConfig) field is out of range.
    #[error("invalid search config: `{field}` {why}")]
    InvalidConfig {
        /// The field's name.
        field: &'static str,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A search algorithm's name is neither `puct` nor `gumbel`.
    #[error("search `{0}`: expected puct or gumbel")]
    UnknownAlgorithm(String),
    /// The evaluator failed.
    #[error(transparent)]
    Evaluator(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// `apply` got a different number of evaluations than leaves pending.
    #[error("expected {expected} evaluations, got {got}")]
    BatchSize {
        /// Leaves pending.
        expected: usize,
        /// Evaluations given.
        got: usize,
    },
    /// An evaluation's policy does not have one entry per legal action.
    #[error("evaluation policy has {got} entries for {expected} legal actions")]
    PolicyLength {
        /// Legal actions of the leaf.
        expected: usize,
        /// Entries in the policy.
        got: usize,
    },
    /// The root position is already decided; there is nothing to search.
    #[error("the game is over at the root")]
    TerminalRoot,
    /// The action is not legal at the root.
    #[error("action is not legal at the root")]
    IllegalAction,
    /// Actions that were to make up one whole move of the game do not
    /// (an illegal action, or a turn cut short).
    #[error("the actions do not make up one whole move")]
    IncompleteTurn,
    /// The call needs the leaves in flight to be applied first.
    #[error("evaluations are still pending: call apply first")]
    Pending,
}
