//! The store of a distributed run: the run directory addressed by a URL
//! (issue 18).
//!
//! Workers and the learner of a distributed run reach the run directory
//! only through [`Store`]: list the keys under a prefix, get one, put one
//! atomically. A key is a path relative to the run directory with `/`
//! separators (`games/w-…-g0003-000012.games`, `models/latest.json`;
//! [`crate::dist`] names them).
//!
//! | URL | store |
//! |---|---|
//! | `/path/run`, `run`, `file:///path/run` | [`LocalStore`]: a local or shared (NFS) directory |
//! | `s3://bucket/prefix`, `gs://…`, `az://…`, `memory://` | object storage through the `object_store` crate (cargo feature `object-store`) |
//!
//! Writes are atomic: a local put writes a synced temporary file and
//! renames it into place (rename is atomic on one filesystem, NFS
//! included); an object store PUT replaces an object whole. So a reader
//! never sees half a file, and a writer killed at any moment leaves at most
//! a temporary file nobody reads.

use std::path::{Path, PathBuf};

use crate::files;

/// Errors of a store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A URL that names no store.
    #[error("store URL `{url}`: {reason}")]
    BadUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The key does not exist (yet).
    #[error("{store}: `{key}` does not exist")]
    NotFound {
        /// The store's URL.
        store: String,
        /// The key.
        key: String,
    },
    /// The store could not be read or written (the cause is the `source`).
    #[error("{store}: `{key}`")]
    Io {
        /// The store's URL.
        store: String,
        /// The key (or prefix).
        key: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A key that is not a relative path inside the store, or an object
    /// larger than its reader allows.
    #[error("{store}: `{key}`: {reason}")]
    Invalid {
        /// The store's URL.
        store: String,
        /// The key.
        key: String,
        /// What is wrong.
        reason: String,
    },
}

/// A run directory addressed by a URL: the four operations workers and the
/// learner need.
pub trait Store: Send + Sync + std::fmt::Debug {
    /// The store's URL (for messages).
    fn url(&self) -> &str;

    /// The keys directly under `prefix` (a directory key ending in `/`,
    /// such as `games/`), sorted; temporary files (`*.tmp`) are not listed.
    /// A prefix with nothing under it lists nothing.
    ///
    /// # Errors
    /// The store cannot be listed.
    fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError>;

    /// The bytes of `key`, refusing an object larger than `max` bytes.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], an object over `max`, I/O.
    fn get(&self, key: &str, max: u64) -> Result<Vec<u8>, StoreError>;

    /// Writes `key` atomically: readers see its old content or all of the
    /// new, never a part.
    ///
    /// # Errors
    /// The store cannot be written.
    fn put_atomic(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError>;

    /// Where `key` lives on this machine's filesystem, for a store that is
    /// a directory (so a network can be loaded in place); `None` for an
    /// object store.
    fn local_path(&self, key: &str) -> Option<PathBuf>;
}

/// Checks that `key` is a relative path of plain components.
pub(crate) fn check_key(store: &str, key: &str) -> Result<(), StoreError> {
    let plain = !key.is_empty()
        && !key.starts_with('/')
        && key
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains('\\'));
    if plain {
        Ok(())
    } else {
        Err(StoreError::Invalid {
            store: store.to_owned(),
            key: key.to_owned(),
            reason: "not a relative path of plain names".into(),
        })
    }
}

/// A run directory on a local or shared filesystem.
#[derive(Clone, Debug)]
pub struct LocalStore {
    root: PathBuf,
    url: String,
}

impl LocalStore {
    /// The directory `root` (created on the first write if missing).
    pub fn new(root: impl Into<PathBuf>) -> LocalStore {
        let root = root.into();
        LocalStore {
            url: root.display().to_string(),
            root,
        }
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, key: &str) -> Result<PathBuf, StoreError> {
        check_key(&self.url, key)?;
        Ok(self.root.join(key))
    }

    fn io(&self, key: &str, source: std::io::Error) -> StoreError {
        if source.kind() == std::io::ErrorKind::NotFound {
            StoreError::NotFound {
                store: self.url.clone(),
                key: key.to_owned(),
            }
        } else {
            StoreError::Io {
                store: self.url.clone(),
                key: key.to_owned(),
                source,
            }
        }
    }
}

impl Store for LocalStore {
    fn url(&self) -> &str {
        &self.url
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let dir = self.path(prefix.trim_end_matches('/'))?;
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // The prefix is empty, but the store itself must exist.
                if self.root.is_dir() {
                    return Ok(Vec::new());
                }
                return Err(StoreError::Invalid {
                    store: self.url.clone(),
                    key: ".".into(),
                    reason: "no such directory (start the learner first, or check the path and the mount)".into(),
                });
            }
            Err(e) => return Err(self.io(prefix, e)),
        };
        let mut keys = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| self.io(prefix, e))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.ends_with(".tmp") || !entry.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            keys.push(format!("{}/{name}", prefix.trim_end_matches('/')));
        }
        keys.sort();
        Ok(keys)
    }

    fn get(&self, key: &str, max: u64) -> Result<Vec<u8>, StoreError> {
        let path = self.path(key)?;
        files::read_bounded(&path, max).map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidData {
                StoreError::Invalid {
                    store: self.url.clone(),
                    key: key.to_owned(),
                    reason: e.to_string(),
                }
            } else {
                self.io(key, e)
            }
        })
    }

    fn put_atomic(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.path(key)?;
        files::write_atomic(&path, bytes).map_err(|e| StoreError::Io {
            store: self.url.clone(),
            key: key.to_owned(),
            source: e,
        })
    }

    fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.path(key).ok()
    }
}

/// The schemes of object stores (feature `object-store`).
pub const OBJECT_SCHEMES: [&str; 4] = ["s3", "gs", "az", "memory"];

/// Opens the store at `url`: a directory path or `file:///path` (always),
/// `s3://`, `gs://`, `az://` or `memory://` (with the `object-store`
/// feature; credentials come from the environment, as each cloud's SDK
/// reads them).
///
/// # Errors
/// [`StoreError::BadUrl`] naming the problem: an empty URL, an unknown
/// scheme, a `file:` URL that is not absolute, an object store in a build
/// without the feature.
pub fn open_store(url: &str) -> Result<Box<dyn Store>, StoreError> {
    let bad = |reason: &str| StoreError::BadUrl {
        url: url.to_owned(),
        reason: reason.to_owned(),
    };
    if url.trim().is_empty() {
        return Err(bad(
            "empty: give a directory or a URL (file://, s3://, gs://, az://)",
        ));
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return Ok(Box::new(LocalStore::new(url)));
    };
    match scheme {
        "file" => {
            if !rest.starts_with('/') {
                return Err(bad("a file URL needs an absolute path (file:///path/run)"));
            }
            Ok(Box::new(LocalStore::new(rest)))
        }
        s if OBJECT_SCHEMES.contains(&s) => open_object_store(url),
        "" => Err(bad("no scheme before `://`")),
        other => Err(bad(&format!(
            "unknown scheme `{other}` (a directory, file://, s3://, gs://, az:// or memory://)"
        ))),
    }
}

#[cfg(feature = "object-store")]
fn open_object_store(url: &str) -> Result<Box<dyn Store>, StoreError> {
    Ok(Box::new(crate::object::ObjectStoreRun::open(url)?))
}

#[cfg(not(feature = "object-store"))]
fn open_object_store(url: &str) -> Result<Box<dyn Store>, StoreError> {
    Err(StoreError::BadUrl {
        url: url.to_owned(),
        reason: "object stores need a build with the `object-store` feature (cargo build -p dama-cli --features object-store)".into(),
    })
}

/// Reads and parses a small JSON file of the store (at most
/// [`files::MAX_TEXT_FILE`] bytes).
///
/// # Errors
/// As [`Store::get`], and JSON that is not a `T` ([`StoreError::Invalid`]).
pub fn get_json<T: serde::de::DeserializeOwned>(
    store: &dyn Store,
    key: &str,
) -> Result<T, StoreError> {
    let bytes = store.get(key, files::MAX_TEXT_FILE)?;
    serde_json::from_slice(&bytes).map_err(|e| StoreError::Invalid {
        store: store.url().to_owned(),
        key: key.to_owned(),
        reason: format!("not valid JSON for this file: {e}"),
    })
}

/// Writes a small JSON file to the store, atomically.
///
/// # Errors
/// As [`Store::put_atomic`].
pub fn put_json<T: serde::Serialize>(
    store: &dyn Store,
    key: &str,
    value: &T,
) -> Result<(), StoreError> {
    let text = serde_json::to_vec_pretty(value).map_err(|e| StoreError::Invalid {
        store: store.url().to_owned(),
        key: key.to_owned(),
        reason: format!("cannot encode as JSON: {e}"),
    })?;
    store.put_atomic(key, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_store_lists_gets_and_puts_atomically() {
        let tmp = tempfile::tempdir().unwrap();
        let store = open_store(tmp.path().to_str().unwrap()).unwrap();
        assert_eq!(store.list("games/").unwrap(), Vec::<String>::new());
        store.put_atomic("games/b.games", b"bb").unwrap();
        store.put_atomic("games/a.games", b"a").unwrap();
        std::fs::write(tmp.path().join("games/c.games.tmp"), b"half").unwrap();
        assert_eq!(
            store.list("games/").unwrap(),
            ["games/a.games", "games/b.games"]
        );
        assert_eq!(store.get("games/b.games", 2).unwrap(), b"bb");
        let err = store.get("games/b.games", 1).unwrap_err();
        assert!(err.to_string().contains("1-byte limit"), "{err}");
        let err = store.get("games/zz.games", 10).unwrap_err();
        assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
        for key in ["../x", "/etc/passwd", "a//b", ""] {
            assert!(store.put_atomic(key, b"x").is_err(), "{key}");
        }
        assert_eq!(
            store.local_path("games/a.games").unwrap(),
            tmp.path().join("games/a.games")
        );
    }

    #[test]
    fn a_missing_store_is_an_error_naming_it() {
        let store = LocalStore::new("/nonexistent/dama/store");
        let err = store.list("games/").unwrap_err();
        assert!(err.to_string().contains("/nonexistent/dama/store"), "{err}");
    }

    #[test]
    fn urls_name_their_store_or_the_problem() {
        let tmp = tempfile::tempdir().unwrap();
        let url = format!("file://{}", tmp.path().display());
        assert_eq!(
            open_store(&url).unwrap().url(),
            tmp.path().to_str().unwrap()
        );
        for (url, why) in [
            ("", "empty"),
            ("ftp://x/y", "unknown scheme `ftp`"),
            ("file://relative/x", "absolute"),
            ("://x", "no scheme"),
        ] {
            let err = open_store(url).unwrap_err().to_string();
            assert!(err.contains(why), "{url}: {err}");
        }
        #[cfg(not(feature = "object-store"))]
        {
            let err = open_store("s3://bucket/run").unwrap_err().to_string();
            assert!(err.contains("object-store"), "{err}");
        }
    }
}
