//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong in `dama-bot`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A network, checkpoint or TorchScript error.
    #[error(transparent)]
    Nn(#[from] dama_nn::Error),
    /// A player spec or a baseline player failed.
    #[error(transparent)]
    Eval(#[from] dama_eval::Error),
    /// The search failed.
    #[error("search: {0}")]
    Search(#[from] dama_mcts::Error),
    /// A bundle is missing, damaged or made for another build; every
    /// problem is named.
    #[error("bundle {path}: {}", problems.join("; "))]
    Bundle {
        /// The bundle directory (or its `bundle.json`).
        path: PathBuf,
        /// One sentence per problem.
        problems: Vec<String>,
    },
    /// Text from a user (a spec, rules, a command) does not parse.
    #[error("{0}")]
    Input(String),
    /// Asked to move in a finished game, or in a position without moves.
    #[error("{0}")]
    GameOver(String),
    /// Reading or writing a file.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// Reading or writing a named file or directory.
    #[error("{path}")]
    File {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// JSON (de)serialisation.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
}

impl Error {
    /// An I/O error on `path`.
    pub fn file(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::File { path, source }
    }
}
