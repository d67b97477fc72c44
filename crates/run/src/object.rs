//! The store of a distributed run in object storage (S3, GCS, Azure Blob)
//! through the `object_store` crate (feature `object-store`).
//!
//! Credentials and endpoints come from the environment the way each
//! cloud's tools read them (`AWS_ACCESS_KEY_ID`, `AWS_REGION`,
//! `AWS_ENDPOINT`, `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME`,
//! …): every variable starting with `AWS_`, `GOOGLE_` or `AZURE_` is handed
//! to the store's builder, which takes the keys it knows.
//!
//! A PUT replaces an object whole, so readers see an old object or the new
//! one, never a part: the atomic write the run needs without a rename.
//! The async client runs on a small private Tokio runtime; the trainer's
//! code stays synchronous.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use object_store::memory::InMemory;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

use crate::store::{check_key, Store, StoreError};

/// The environment variables handed to the store's builder.
const ENV_PREFIXES: [&str; 3] = ["AWS_", "GOOGLE_", "AZURE_"];

/// The process's `memory://` store.
static MEMORY: OnceLock<Arc<InMemory>> = OnceLock::new();

/// A run directory in object storage.
pub(crate) struct ObjectStoreRun {
    url: String,
    store: Box<dyn ObjectStore>,
    prefix: ObjectPath,
    runtime: tokio::runtime::Runtime,
}

impl std::fmt::Debug for ObjectStoreRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectStoreRun")
            .field("url", &self.url)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

fn bad_url(url: &str, reason: impl std::fmt::Display) -> StoreError {
    StoreError::BadUrl {
        url: url.to_owned(),
        reason: reason.to_string(),
    }
}

impl ObjectStoreRun {
    /// Opens `url` (`s3://bucket/prefix`, `gs://…`, `az://…`, `memory://`).
    pub(crate) fn open(url: &str) -> Result<ObjectStoreRun, StoreError> {
        let parsed = url::Url::parse(url).map_err(|e| bad_url(url, e))?;
        let env = std::env::vars().filter(|(k, _)| ENV_PREFIXES.iter().any(|p| k.starts_with(p)));
        let (store, prefix) =
            object_store::parse_url_opts(&parsed, env).map_err(|e| bad_url(url, e))?;
        // `memory://` is one store per process (its stores opened twice see
        // the same objects), so a learner and workers on threads of one
        // process, as in the tests, share it.
        let store: Box<dyn ObjectStore> = if parsed.scheme() == "memory" {
            Box::new(Arc::clone(MEMORY.get_or_init(|| Arc::new(InMemory::new()))))
        } else {
            store
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("dama-object-store")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Io {
                store: url.to_owned(),
                key: ".".into(),
                source: e,
            })?;
        Ok(ObjectStoreRun {
            url: url.to_owned(),
            store,
            prefix,
            runtime,
        })
    }

    fn path(&self, key: &str) -> Result<ObjectPath, StoreError> {
        check_key(&self.url, key)?;
        Ok(key
            .split('/')
            .fold(self.prefix.clone(), |p, part| p.join(part)))
    }

    fn err(&self, key: &str, e: object_store::Error) -> StoreError {
        match e {
            object_store::Error::NotFound { .. } => StoreError::NotFound {
                store: self.url.clone(),
                key: key.to_owned(),
            },
            e => StoreError::Io {
                store: self.url.clone(),
                key: key.to_owned(),
                source: std::io::Error::other(e),
            },
        }
    }
}

impl Store for ObjectStoreRun {
    fn url(&self) -> &str {
        &self.url
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let dir = self.path(prefix.trim_end_matches('/'))?;
        let listing = self
            .runtime
            .block_on(self.store.list_with_delimiter(Some(&dir)))
            .map_err(|e| self.err(prefix, e))?;
        let mut keys: Vec<String> = listing
            .objects
            .into_iter()
            .filter_map(|meta| {
                let name = meta.location.filename()?.to_owned();
                (!name.ends_with(".tmp"))
                    .then(|| format!("{}/{name}", prefix.trim_end_matches('/')))
            })
            .collect();
        keys.sort();
        Ok(keys)
    }

    fn get(&self, key: &str, max: u64) -> Result<Vec<u8>, StoreError> {
        let path = self.path(key)?;
        self.runtime.block_on(async {
            let got = self.store.get(&path).await.map_err(|e| self.err(key, e))?;
            if got.meta.size > max {
                return Err(StoreError::Invalid {
                    store: self.url.clone(),
                    key: key.to_owned(),
                    reason: format!("{} bytes, more than the {max} allowed", got.meta.size),
                });
            }
            let bytes = got.bytes().await.map_err(|e| self.err(key, e))?;
            Ok(bytes.to_vec())
        })
    }

    fn put_atomic(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.path(key)?;
        let payload = PutPayload::from(bytes.to_vec());
        self.runtime
            .block_on(self.store.put(&path, payload))
            .map(|_| ())
            .map_err(|e| self.err(key, e))
    }

    fn local_path(&self, _key: &str) -> Option<PathBuf> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_store_lists_gets_and_puts() {
        let store = crate::store::open_store("memory:///unit/run").unwrap();
        assert!(store.list("games/").unwrap().is_empty());
        store.put_atomic("games/a.games", b"one").unwrap();
        store.put_atomic("games/b.tmp", b"half").unwrap();
        store.put_atomic("models/latest.json", b"{}").unwrap();
        assert_eq!(store.list("games/").unwrap(), ["games/a.games"]);
        assert_eq!(store.get("games/a.games", 10).unwrap(), b"one");
        // Replaced whole.
        store.put_atomic("games/a.games", b"two!").unwrap();
        assert_eq!(store.get("games/a.games", 10).unwrap(), b"two!");
        let err = store.get("games/a.games", 3).unwrap_err().to_string();
        assert!(err.contains("more than the 3 allowed"), "{err}");
        assert!(matches!(
            store.get("games/none.games", 10),
            Err(StoreError::NotFound { .. })
        ));
        assert!(store.get("../x", 10).is_err());
        assert!(store.local_path("games/a.games").is_none());
        // The process's memory store is one: opened again, it holds them.
        let again = crate::store::open_store("memory:///unit/run").unwrap();
        assert_eq!(again.get("models/latest.json", 10).unwrap(), b"{}");
        let other = crate::store::open_store("memory:///unit/other").unwrap();
        assert!(other.list("games/").unwrap().is_empty());
    }

    #[test]
    fn a_bad_object_url_is_named() {
        let err = crate::store::open_store("s3://").unwrap_err().to_string();
        assert!(err.contains("s3://"), "{err}");
    }
}
