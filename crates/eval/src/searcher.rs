//! What a checkpoint player hands the batched arena: its network behind a
//! type-erased evaluator, and its search settings.

use dama_draughts::DamaState;
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

/// A checkpoint player's network behind the search's evaluator trait,
/// type-erased so that the arena does not name libtorch types (the
/// `network` feature builds them).
pub type NetworkEvaluator = Box<dyn Evaluator<DamaState, Error = NetworkError> + Send>;

/// A checkpoint player's network and search, for the batched arena (see
/// [`PlayerFactory::batched`]). Opaque: only the arena uses it.
pub struct BatchedSearcher {
    pub(crate) evaluator: NetworkEvaluator,
    pub(crate) config: SearchConfig,
}

impl std::fmt::Debug for BatchedSearcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchedSearcher")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
