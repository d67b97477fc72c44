//! Errors of reading and writing evaluator and sample files.

use std::path::PathBuf;

/// What went wrong with an evaluator or sample file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not of the expected kind, is truncated or corrupt.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The file is an evaluator of another feature set (another game's
    /// network).
    #[error("{path}: an evaluator of the feature set `{found}`, not `{expected}` (another game's network)")]
    OtherFeatureSet {
        /// The file.
        path: PathBuf,
        /// The feature set the file names.
        found: String,
        /// The feature set the caller reads.
        expected: &'static str,
    },
    /// A network's weights are not what the architecture needs.
    #[error("invalid network: {0}")]
    Invalid(String),
    /// The file was made for other rules than the ones asked for.
    #[error("{path}: the evaluator was trained for rules `{found}`, not `{expected}`")]
    OtherRules {
        /// The file.
        path: PathBuf,
        /// The rules the file records.
        found: String,
        /// The rules the caller plays.
        expected: String,
    },
}

impl Error {
    pub(crate) fn format(path: &std::path::Path, message: impl Into<String>) -> Error {
        Error::Format {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }

    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
