//! The errors of Turkish draughts' own players.

use dama_engine::Rules;
use dama_game::EvalSource;

/// Why the alpha-beta engine or its evaluation could not play.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// A learned evaluator file could not be loaded (the file's error is
    /// the source).
    #[error("evaluator")]
    Evaluator(#[from] dama_nnue::Error),
    /// A learned evaluation asked to play rules it was not trained for.
    #[error("the evaluator {evaluator} was trained for rules `{trained}`, not `{asked}`")]
    Rules {
        /// The evaluator (`shipped` or its file).
        evaluator: EvalSource,
        /// Its rules.
        trained: Rules,
        /// The game's.
        asked: Rules,
    },
}
