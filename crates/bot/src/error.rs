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
    #[error(transparent)]
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
    /// A game refused a move, a position or rules (its own error kept as
    /// the source).
    #[error("{context}")]
    Game {
        /// What was refused, in words.
        context: String,
        /// The game's error.
        source: dama_game::GameError,
    },
    /// Text from a user (a spec, a command) does not parse.
    #[error("{0}")]
    Input(String),
    /// Asked to move in a finished game, or in a position without moves.
    #[error("{0}")]
    GameOver(String),
    /// Reading or writing a file.
    #[error(transparent)]
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
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl Error {
    /// An I/O error on `path`.
    pub fn file(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::File { path, source }
    }
}

/// `err` and its causes on one line, each once: `outer: cause: cause`.
pub(crate) fn chain(err: &dyn std::error::Error) -> String {
    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !out.ends_with(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = e.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_names_each_cause_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let err = Error::File {
            path: "model.ts".into(),
            source: io,
        };
        assert_eq!(chain(&err), "model.ts: no such file");
        let err = Error::from(dama_nn::Error::Io(std::io::Error::other("disk full")));
        assert_eq!(chain(&err), "disk full");
    }
}
