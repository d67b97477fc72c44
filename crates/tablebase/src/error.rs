//! Errors of the tablebase crate.

use std::path::PathBuf;

/// Everything that can go wrong generating, reading or writing tables.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file or directory failed.
    #[error("cannot read or write {}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file ends before its header or payload does.
    #[error("{}: truncated table file ({len} bytes, need {need})", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// The length its header asks for.
        need: u64,
    },
    /// The file does not start with the table magic.
    #[error("{}: not a dama tablebase file", path.display())]
    BadMagic {
        /// The file.
        path: PathBuf,
    },
    /// The file has a format version this build cannot read.
    #[error("{}: table format version {found}, this build reads version {expected}", path.display())]
    WrongVersion {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// The file was generated under other rules than the others (or than the
    /// generator's).
    #[error("{}: table generated for rules {found}, expected {expected}", path.display())]
    WrongRules {
        /// The file.
        path: PathBuf,
        /// The rules in the file.
        found: String,
        /// The rules expected.
        expected: String,
    },
    /// The checksum does not match the content.
    #[error("{}: checksum mismatch (damaged table file)", path.display())]
    Checksum {
        /// The file.
        path: PathBuf,
    },
    /// The header or payload is inconsistent.
    #[error("{}: corrupt table file: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The material cannot be indexed (too many pieces of one kind, or an
    /// index beyond what the in-memory generator handles).
    #[error("material {material}: {reason}")]
    Unsupported {
        /// The material split.
        material: String,
        /// Why.
        reason: String,
    },
    /// A table's content contradicts itself (found by verification).
    #[error("table {material}: {reason}")]
    Inconsistent {
        /// The material split.
        material: String,
        /// The first contradiction found.
        reason: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
