//! Self-play, game records, the replay buffer and the training loop.
//!
//! One generation of training runs: self-play games with the current network
//! ([`selfplay`]) → chunk files of [`record::GameRecord`]s → the
//! [`buffer::ReplayBuffer`] window → training steps → a checkpoint → an
//! evaluation → one line per stage in `metrics.jsonl` ([`metrics`]).
//! [`curve`] rates a run's checkpoints against fixed anchors: the learning
//! curve against hours and self-play positions.

use std::path::{Path, PathBuf};

pub mod buffer;
pub mod config;
pub mod curve;
pub mod metrics;
pub mod record;
pub mod run;
pub mod selfplay;

pub use config::RunConfig;
pub use run::{train, RunLock, RunPaths, RunState, RunSummary, TrainOptions};

/// Errors of the self-play and training library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O error on a named file (the cause is the error's `source`).
    #[error("{path}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file that exists but cannot be used.
    #[error("{path}: {reason}")]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Another process holds the run directory's lock.
    #[error("run directory {dir} is in use by {holder} (another `dama train` on the same run?); wait for it to finish or stop it")]
    Locked {
        /// The run directory.
        dir: PathBuf,
        /// Who holds the lock (`process 1234`).
        holder: String,
    },
    /// Data that does not decode.
    #[error("corrupt data: {0}")]
    Corrupt(String),
    /// An invalid configuration or run directory.
    #[error("{0}")]
    Config(String),
    /// The endgame tables could not be read.
    #[error("endgame tables")]
    Tablebase(#[from] dama_tablebase::Error),
    /// The network failed (libtorch, a checkpoint).
    #[error("network: {0}")]
    Network(String),
    /// The search failed.
    #[error("search: {0}")]
    Search(String),
    /// An evaluation match failed.
    #[error("evaluation: {0}")]
    Eval(String),
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
