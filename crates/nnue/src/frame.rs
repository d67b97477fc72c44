//! The framing both file kinds share: 8 magic bytes and a `u32` version up
//! front, an FNV-1a 64 checksum of everything before it at the end, and the
//! rules the file is for.

use std::path::Path;

use dama_run::files::{fnv1a64, read_bounded, write_atomic};

use crate::{Error, Features};

/// The first 12 bytes of a file of `magic` and `version`.
pub(crate) fn head(magic: &[u8; 8], version: u32) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(4096);
    bytes.extend_from_slice(magic);
    bytes.extend_from_slice(&version.to_le_bytes());
    bytes
}

/// Appends the checksum of `bytes` to them.
pub(crate) fn seal(mut bytes: Vec<u8>) -> Vec<u8> {
    let sum = fnv1a64(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    bytes
}

/// Appends the checksum and writes `bytes` to `path` atomically.
pub(crate) fn seal_and_write(path: &Path, bytes: Vec<u8>) -> Result<(), Error> {
    write_atomic(path, &seal(bytes)).map_err(|e| Error::io(path, e))
}

/// Reads at most `max` bytes of `path` and checks its magic and that its
/// version is one of `versions` (`what` names the kind of file in the
/// messages); returns the bytes and the version.
pub(crate) fn read(
    path: &Path,
    max: u64,
    magic: &[u8; 8],
    versions: &[u32],
    what: &str,
) -> Result<(Vec<u8>, u32), Error> {
    let bytes = read_bounded(path, max).map_err(|e| Error::io(path, e))?;
    let version = check(path, &bytes, magic, versions, what)?;
    Ok((bytes, version))
}

/// Checks the magic of `bytes` (the file `path`) and that its version is
/// one of `versions`; returns the version.
pub(crate) fn check(
    path: &Path,
    bytes: &[u8],
    magic: &[u8; 8],
    versions: &[u32],
    what: &str,
) -> Result<u32, Error> {
    if bytes.len() < 16 || &bytes[..8] != magic {
        return Err(Error::format(
            path,
            format!("not {what} (no {} header)", String::from_utf8_lossy(magic)),
        ));
    }
    let found = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if !versions.contains(&found) {
        let reads: Vec<String> = versions.iter().map(u32::to_string).collect();
        return Err(Error::format(
            path,
            format!(
                "{what} format {found}, this build reads format {}",
                reads.join(" and ")
            ),
        ));
    }
    Ok(found)
}

/// Checks the checksum of `bytes`, whose length has been checked; returns
/// the bytes before it.
pub(crate) fn verify<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a [u8], Error> {
    let (body, sum) = bytes.split_at(bytes.len().saturating_sub(8));
    let mut s = [0u8; 8];
    s.copy_from_slice(sum);
    if fnv1a64(body) != u64::from_le_bytes(s) {
        return Err(Error::format(
            path,
            "checksum mismatch: the file is corrupt",
        ));
    }
    Ok(body)
}

/// Parses the rules text of a file as `F`'s rules and, with `want`,
/// refuses other rules.
pub(crate) fn rules<F: Features>(
    path: &Path,
    text: &str,
    want: Option<&F::Rules>,
) -> Result<F::Rules, Error> {
    let found: F::Rules = text
        .parse()
        .map_err(|e| Error::format(path, format!("rules `{text}` do not parse: {e}")))?;
    if let Some(want) = want {
        if *want != found {
            return Err(Error::OtherRules {
                path: path.to_path_buf(),
                found: found.to_string(),
                expected: want.to_string(),
            });
        }
    }
    Ok(found)
}
