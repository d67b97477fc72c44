//! What a checkpoint player hands the batched arena: its network behind a
//! type-erased evaluator, and its search settings.

use dama_mcts::{Evaluator, SearchConfig};

/// Why a network evaluation failed (the network's own error is the source).
#[derive(Debug)]
pub struct NetworkError(pub Box<dyn std::error::Error + Send + Sync + 'static>);

impl std::fmt::Display for NetworkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("network evaluation failed")
    }
}

impl std::error::Error for NetworkError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.0.as_ref())
    }
}

/// A checkpoint player's network behind the search's evaluator trait for
/// search states `S`, type-erased so that the arena does not name libtorch
/// types (the `network` feature builds them).
pub type NetworkEvaluator<S> = Box<dyn Evaluator<S, Error = NetworkError> + Send>;

/// A checkpoint player's network and search, for the batched arena (see
/// [`PlayerFactory::batched`](crate::PlayerFactory::batched)).
pub struct BatchedSearcher<S> {
    pub(crate) evaluator: NetworkEvaluator<S>,
    pub(crate) config: SearchConfig,
}

impl<S> BatchedSearcher<S> {
    /// `evaluator` searching each decision with `config` (its
    /// `simulations` are the budget of a decision; for evaluation it
    /// should have no noise and temperature 0).
    pub fn new(evaluator: NetworkEvaluator<S>, config: SearchConfig) -> Self {
        BatchedSearcher { evaluator, config }
    }
}

impl<S> std::fmt::Debug for BatchedSearcher<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchedSearcher")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
