//! The Python module a bundle carries: a wheel of `crates/python` (`import
//! dama`), built with maturin (`scripts/build-wheel.sh`) and copied into the
//! bundle by `dama export --wheel FILE` as `python/<wheel>`, so that the
//! bundle's Python side installs with `pip install BUNDLE/python/*.whl`,
//! without a dama checkout or a Rust toolchain.
//!
//! The wheel is checked before it is copied (a `dama-…whl` name, a zip
//! archive, a bounded size), read back after, and recorded in `bundle.json`
//! with its size and FNV-1a 64 checksum; loading a bundle that names one
//! checks the file against them.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::evaluator_bundle::fnv_hex;
use crate::Error;

/// The largest wheel a bundle carries (a release build of the module is a
/// few MB; a huge file in its place must not exhaust memory).
pub const MAX_WHEEL_FILE: u64 = 256 << 20;

/// The folder of a bundle that holds the wheel.
pub const WHEEL_DIR: &str = "python";

/// `bundle.json`'s record of the wheel a bundle carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WheelEntry {
    /// The wheel, inside the bundle (`python/dama-….whl`).
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its FNV-1a 64 checksum, 16 hexadecimal digits.
    pub fnv1a64: String,
}

/// Why `name` is not the file name of a wheel of dama's module.
fn bad_name(name: &str) -> Option<String> {
    if !name.starts_with("dama-") || !name.ends_with(".whl") {
        return Some(format!(
            "`{name}` is not a wheel of dama's Python module (dama-<version>-<tags>.whl, \
             as scripts/build-wheel.sh writes)"
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'))
    {
        return Some(format!("`{name}` has characters a wheel's name does not"));
    }
    None
}

/// Copies the wheel `wheel` into the bundle directory `out` (as
/// `python/<its name>`, atomically), reads it back, and returns its record.
///
/// # Errors
///
/// [`Error::Input`] for a file that is not a wheel of dama's module (its
/// name, a zip archive's first bytes, the size bound); [`Error::Bundle`]
/// when the copy does not read back the same; I/O errors.
pub(crate) fn copy_wheel(out: &Path, wheel: &Path) -> Result<WheelEntry, Error> {
    let name = wheel
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Error::Input(format!("{} names no wheel file", wheel.display())))?;
    if let Some(why) = bad_name(name) {
        return Err(Error::Input(format!("--wheel {}: {why}", wheel.display())));
    }
    let bytes = dama_nn::files::read_bounded(wheel, MAX_WHEEL_FILE)
        .map_err(|e| Error::Input(format!("--wheel {}: {e}", wheel.display())))?;
    // A wheel is a zip archive: its first local file header.
    if !bytes.starts_with(b"PK\x03\x04") {
        return Err(Error::Input(format!(
            "--wheel {}: not a zip archive, so not a wheel",
            wheel.display()
        )));
    }
    let entry = WheelEntry {
        file: format!("{WHEEL_DIR}/{name}"),
        bytes: bytes.len() as u64,
        fnv1a64: fnv_hex(&bytes),
    };
    let dir = out.join(WHEEL_DIR);
    std::fs::create_dir_all(&dir).map_err(Error::file(&dir))?;
    let copy = out.join(&entry.file);
    dama_nn::files::write_atomic(&copy, &bytes).map_err(Error::file(&copy))?;
    check_wheel(out, &entry).map_err(|p| Error::Bundle {
        path: out.to_path_buf(),
        problems: vec![p],
    })?;
    Ok(entry)
}

/// Checks the wheel a bundle in `dir` records: a file of dama's module
/// inside the bundle, of the recorded size and checksum.
///
/// # Errors
///
/// The problem, in words.
pub(crate) fn check_wheel(dir: &Path, entry: &WheelEntry) -> Result<(), String> {
    let name = entry
        .file
        .strip_prefix(&format!("{WHEEL_DIR}/"))
        .unwrap_or(&entry.file);
    if !entry.file.starts_with(&format!("{WHEEL_DIR}/")) || name.contains('/') {
        return Err(format!(
            "python_wheel `{}` is not a file in the bundle's {WHEEL_DIR}/ folder",
            entry.file
        ));
    }
    if let Some(why) = bad_name(name) {
        return Err(format!("python_wheel: {why}"));
    }
    let path = dir.join(&entry.file);
    let bytes = dama_nn::files::read_bounded(&path, MAX_WHEEL_FILE)
        .map_err(|e| format!("cannot read the wheel {}: {e}", entry.file))?;
    let sum = fnv_hex(&bytes);
    if bytes.len() as u64 != entry.bytes || sum != entry.fnv1a64 {
        return Err(format!(
            "the wheel {} is corrupt or was replaced: {} bytes with checksum {sum}, bundle.json \
             records {} bytes with checksum {}",
            entry.file,
            bytes.len(),
            entry.bytes,
            entry.fnv1a64
        ));
    }
    Ok(())
}

/// The README's lines on installing the bundle's wheel, if it has one.
pub(crate) fn readme_lines(entry: Option<&WheelEntry>) -> String {
    match entry {
        Some(w) => format!(
            "This bundle carries the module as a wheel (`{file}`, {bytes} bytes): install it with\n\n```\npip install BUNDLE_DIR/{file}\n```\n\n(it needs Python of the wheel's tag and NumPy; no Rust toolchain). ",
            file = w.file,
            bytes = w.bytes
        ),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wheel_is_copied_checked_and_refused_when_it_is_not_one() {
        let tmp = tempfile::tempdir().unwrap();
        let wheel = tmp.path().join("dama-0.1.0-cp311-cp311-linux_x86_64.whl");
        std::fs::write(&wheel, b"PK\x03\x04 a zip archive's bytes").unwrap();
        let out = tmp.path().join("bundle");
        std::fs::create_dir_all(&out).unwrap();
        let entry = copy_wheel(&out, &wheel).unwrap();
        assert_eq!(entry.file, "python/dama-0.1.0-cp311-cp311-linux_x86_64.whl");
        assert!(check_wheel(&out, &entry).is_ok());

        // Replaced after the export: refused by name.
        std::fs::write(out.join(&entry.file), b"PK\x03\x04 other bytes!").unwrap();
        let e = check_wheel(&out, &entry).unwrap_err();
        assert!(e.contains("corrupt or was replaced"), "{e}");
        // A record pointing outside the folder.
        let outside = WheelEntry {
            file: "../dama-0.1.0-x.whl".into(),
            ..entry.clone()
        };
        assert!(check_wheel(&out, &outside)
            .unwrap_err()
            .contains("python/ folder"));

        // Not a zip, not dama's, not a wheel.
        let not_zip = tmp.path().join("dama-0.1.0-x.whl");
        std::fs::write(&not_zip, b"text").unwrap();
        let e = copy_wheel(&out, &not_zip).unwrap_err().to_string();
        assert!(e.contains("not a zip archive"), "{e}");
        let other = tmp.path().join("numpy-2.0-x.whl");
        std::fs::write(&other, b"PK\x03\x04").unwrap();
        let e = copy_wheel(&out, &other).unwrap_err().to_string();
        assert!(e.contains("not a wheel of dama's Python module"), "{e}");
        let e = copy_wheel(&out, &tmp.path().join("dama-9-missing.whl"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("dama-9-missing.whl"), "{e}");
    }
}
