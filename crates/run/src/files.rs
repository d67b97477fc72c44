//! File helpers shared by every crate that writes files: atomic writes with
//! their fault-injection commit point, bounded reads, and the FNV-1a
//! checksum of game chunks and table files.
//!
//! They live here, in a crate without libtorch, so that `tablebase` (which
//! must not link libtorch) and every crate above `nn` share one copy.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// `path` with `.tmp` appended: where [`write_atomic`] writes first.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Writes `bytes` to `path` atomically: the parent directory is created,
/// the bytes go to `path.tmp`, are synced, and the file is renamed into
/// place, so `path` holds either its old or its new content, never a part.
/// The temporary file is removed if anything fails.
///
/// # Errors
///
/// The I/O error; the caller names the file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            fs::create_dir_all(dir)?;
        }
    }
    let tmp = tmp_path(path);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        commit_point(path);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The environment variable of the fault-injection hook: when it holds a
/// number `N`, the process aborts (like `kill -9`: no unwinding, no
/// cleanup) at its `N`th commit point, just before the `N`th atomic write
/// renames its temporary file into place. The crash tests of the training
/// loop use it to stop a run at every write of a generation; it is read once
/// and costs nothing when unset.
pub const FAULT_ENV: &str = "DAMA_FAULT_ABORT_AT_WRITE";

/// A commit point of an atomic write to `path` (see [`FAULT_ENV`]): every
/// writer of a file that must be whole calls it just before the rename.
pub fn commit_point(path: &Path) {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static ABORT_AT: OnceLock<Option<u64>> = OnceLock::new();
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let Some(at) = *ABORT_AT.get_or_init(|| {
        std::env::var(FAULT_ENV)
            .ok()
            .and_then(|v| v.trim().parse().ok())
    }) else {
        return;
    };
    let n = COUNT.fetch_add(1, Ordering::SeqCst) + 1;
    if n == at {
        eprintln!(
            "{FAULT_ENV}={at}: aborting before committing {}",
            path.display()
        );
        std::process::abort();
    }
}

/// Reads the whole file at `path`, refusing one larger than `max` bytes
/// before allocating for it (a sidecar, a config or a bundle description
/// is small; a huge file in its place must not exhaust memory).
///
/// # Errors
///
/// The I/O error, or [`std::io::ErrorKind::InvalidData`] for a file over
/// `max` bytes; the caller names the file.
pub fn read_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let f = fs::File::open(path)?;
    let mut bytes = Vec::new();
    f.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("file is larger than the {max}-byte limit"),
        ));
    }
    Ok(bytes)
}

/// [`read_bounded`] of a UTF-8 text file.
///
/// # Errors
///
/// As [`read_bounded`], and [`std::io::ErrorKind::InvalidData`] for text
/// that is not UTF-8.
pub fn read_bounded_string(path: &Path, max: u64) -> std::io::Result<String> {
    String::from_utf8(read_bounded(path, max)?).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// The size limit of small text files read from disk (sidecars,
/// `bundle.json`, `state.json`, configs): 1 MiB.
pub const MAX_TEXT_FILE: u64 = 1 << 20;

/// FNV-1a, 64 bits: a cheap content hash to tell a damaged file from a
/// whole one (not a cryptographic check).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_file() {
        let dir = std::env::temp_dir().join(format!("dama-files-{}", std::process::id()));
        let path = dir.join("sub").join("x.bin");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert!(!tmp_path(&path).exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bounded_reads_refuse_large_files() {
        let dir = tempfile_dir("bounded");
        let path = dir.join("big.json");
        fs::write(&path, vec![b'x'; 100]).unwrap();
        assert_eq!(read_bounded(&path, 100).unwrap().len(), 100);
        let err = read_bounded(&path, 99).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("99-byte limit"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dama-files-{name}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn fnv1a64_matches_reference_values() {
        // Reference values of FNV-1a 64.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
