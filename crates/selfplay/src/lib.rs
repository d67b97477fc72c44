//! Self-play, game records, the replay buffer and the training loop.
//!
//! One generation of training runs: self-play games with the current network
//! ([`selfplay`]) → chunk files of [`record::GameRecord`]s → the
//! [`buffer::ReplayBuffer`] window → training steps → a checkpoint → an
//! evaluation → one line per stage in `metrics.jsonl` ([`metrics`]). One
//! loop ([`driver`]) runs every kind of run (a network run's stages are
//! methods of [`run::TrainingRun`], a learned-evaluator run's of [`nnue`]'s
//! run) from local self-play or workers' chunks ([`distributed`]), and
//! reports progress through [`progress::Progress`];
//! the run directory's files and formats belong to [`dama_run`].
//! [`curve`] rates a run's checkpoints against fixed anchors: the learning
//! curve against hours and self-play positions.

use std::path::{Path, PathBuf};

pub mod buffer;
pub mod config;
pub mod curve;
pub mod distributed;
pub mod driver;
pub mod metrics;
pub mod nnue;
pub mod progress;
pub mod record;
pub mod run;
pub mod selfplay;
pub mod teacher;

pub use config::{RunConfig, RunKind};
pub use dama_run::{RunDir, RunLock, RunState};
pub use distributed::{run_worker, WorkerOptions, WorkerSummary};
pub use driver::{learn, train, AnyConfig, LearnerOptions, RunSummary, TrainOptions};
pub use progress::{NoProgress, Progress, ProgressEvent, Stage};
pub use run::TrainingRun;

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
    /// A file of the run directory (state, metrics, lock): see
    /// [`dama_run::Error`], which includes another trainer holding the run.
    #[error(transparent)]
    Run(#[from] dama_run::Error),
    /// Data that does not decode.
    #[error("corrupt data: {0}")]
    Corrupt(String),
    /// An invalid configuration or run directory.
    #[error("{0}")]
    Config(String),
    /// The endgame tables could not be read.
    #[error(transparent)]
    Tables(#[from] dama_game::TablesError),
    /// The network failed (libtorch, a checkpoint); the cause is the
    /// error's `source`.
    #[error("network")]
    Network(#[from] dama_nn::Error),
    /// The search failed (an evaluator's failure is its `source`).
    #[error("search")]
    Search(#[from] dama_mcts::Error),
    /// An evaluation match failed.
    #[error("evaluation")]
    Eval(#[from] dama_eval::Error),
    /// A learned evaluator or sample file could not be read or written.
    #[error(transparent)]
    Evaluator(#[from] dama_nnue::Error),
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
