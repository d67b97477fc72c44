//! The run directory as one typed contract.
//!
//! A training run lives in one directory (`checkpoints/<run>/`); its stages
//! talk to each other through the files in it, and the tools that read a
//! run (the ladder, the learning curve, the bundle export, `dama report` and
//! the notebooks) read those same files. This crate owns their names and
//! formats, so that no other crate rebuilds a path or reads a metrics key
//! by hand:
//!
//! - [`RunDir`]: every path of a run directory (`config.toml`,
//!   `state.json`, `metrics.jsonl`, `lock`, `models/gen-NNNN.safetensors`
//!   and its sidecars, `games/gen-NNNN-III.games`, `eval/`, `curve.*`);
//! - [`RunState`]: `state.json`, where a run stands;
//! - [`MetricsEvent`]: one line of `metrics.jsonl`, tagged on `"kind"`,
//!   with [`MetricsWriter`] and [`read_metrics`];
//! - [`RunLock`]: the exclusive lock of the trainer that owns the run;
//! - [`dist`] and [`store`]: the files of a distributed run (worker
//!   chunks, the model pointer, worker status, the learner's ledger) and
//!   the run directory addressed by a URL (a directory, or an object store
//!   with the `object-store` feature);
//! - [`files`]: atomic writes (with the fault-injection commit point),
//!   bounded reads and the FNV-1a checksum, used by every crate that
//!   writes files.
//!
//! `docs/run-directory.md` describes every file and every metrics field for
//! readers in other languages.
//!
//! The crate depends on serde, serde_json and thiserror only (no libtorch),
//! so the lowest crates (`tablebase`) use it too.
//!
//! # Examples
//!
//! ```
//! use dama_run::{MetricsEvent, RunDir};
//!
//! let run = RunDir::new("checkpoints/smoke");
//! assert!(run.model(3).ends_with("models/gen-0003.safetensors"));
//! assert_eq!(dama_run::generation_of(&run.model(3)), Some(3));
//!
//! let line = r#"{"kind":"selfplay","generation":2,"games":8,"samples":300}"#;
//! let event: MetricsEvent = serde_json::from_str(line).unwrap();
//! assert_eq!(event.generation(), Some(2));
//! ```

use std::path::{Path, PathBuf};

pub mod device;
pub mod dir;
pub mod dist;
pub mod files;
pub mod metrics;
#[cfg(feature = "object-store")]
mod object;
pub mod state;
pub mod store;

pub use device::{DeviceSpec, ParseDeviceError};
pub use dir::{generation_of, sidecar_of, RunDir, RunLock};
pub use metrics::{
    read_metrics, selfplay_totals, truncate_after_generation, EvalEvent, GenerationEvent,
    LearnerEvent, MetricsEvent, MetricsWriter, SelfplayEvent, SessionEvent, SideResult, TrainEvent,
    WorkerEvent,
};
pub use state::RunState;
pub use store::{open_store, LocalStore, Store, StoreError};

/// Errors of reading and writing a run directory.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O error on a named file (the cause is the error's `source`).
    #[error("{path}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A JSON file that does not parse as what it should hold.
    #[error("{path}: not a valid {what}")]
    Json {
        /// The file.
        path: PathBuf,
        /// What the file should hold (`state.json`, …).
        what: &'static str,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// A line of a metrics file (other than a partial last line) that is not
    /// a metrics event.
    #[error("{path}: line {line}")]
    MetricsLine {
        /// The metrics file.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// A value that cannot be written as JSON.
    #[error("cannot encode {what} as JSON")]
    Encode {
        /// What was being encoded.
        what: &'static str,
        /// The encoder's error.
        #[source]
        source: serde_json::Error,
    },
    /// The store of a distributed run.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Another process holds the run directory's lock.
    #[error("run directory {dir} is in use by {holder} (another `dama train` on the same run?); wait for it to finish or stop it")]
    Locked {
        /// The run directory.
        dir: PathBuf,
        /// Who holds the lock (`process 1234`).
        holder: String,
    },
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
