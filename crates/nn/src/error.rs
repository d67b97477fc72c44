//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong in `dama-nn`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error reported by libtorch (shape mismatch, bad dtype, CUDA, ...).
    #[error(transparent)]
    Tch(#[from] tch::TchError),
    /// A file could not be read or written.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A JSON sidecar could not be parsed or written.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A configuration value is out of range.
    #[error("invalid config: {0}")]
    Config(String),
    /// Tensors or slices handed in have the wrong shape.
    #[error("shape: {0}")]
    Shape(String),
    /// A checkpoint file is damaged (truncated, not safetensors, wrong size).
    #[error("checkpoint {path}: {reason}")]
    Corrupt {
        /// The damaged file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A checkpoint is readable but does not fit what it is loaded into.
    /// Every mismatch is named, one per entry.
    #[error("checkpoint {path} is incompatible: {}", summarize(problems))]
    Incompatible {
        /// The checkpoint (weights or sidecar).
        path: PathBuf,
        /// One sentence per mismatch, e.g. `missing tensor tower/0/conv1/weight`.
        problems: Vec<String>,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The first problems, then how many more.
fn summarize(problems: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut s = problems
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if problems.len() > SHOWN {
        s.push_str(&format!("; and {} more", problems.len() - SHOWN));
    }
    s
}
