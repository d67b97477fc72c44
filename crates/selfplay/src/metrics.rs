//! Metrics as JSON lines: one object per line, appended, flushed at once.
//!
//! Every line has a `"kind"` (`"train"`, `"selfplay"`, `"eval"`,
//! `"generation"`) and a `"generation"`. A run killed mid-write can leave a
//! partial last line; [`read_metrics`] skips a last line that does not parse.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::Error;

/// Appends JSON objects to a metrics file.
#[derive(Debug)]
pub struct MetricsWriter {
    path: PathBuf,
}

impl MetricsWriter {
    /// A writer appending to `path` (created when first written).
    pub fn new(path: impl Into<PathBuf>) -> MetricsWriter {
        MetricsWriter { path: path.into() }
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line.
    ///
    /// # Errors
    /// I/O errors, naming the file.
    pub fn write(&self, value: &Value) -> Result<(), Error> {
        let mut line = value.to_string();
        line.push('\n');
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| Error::io(&self.path, e))?;
        f.write_all(line.as_bytes())
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// Reads every metrics line of a file.
///
/// # Errors
/// I/O errors, or a line other than the last that is not JSON.
pub fn read_metrics(path: &Path) -> Result<Vec<Value>, Error> {
    let text = fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str(line) {
            Ok(v) => out.push(v),
            Err(_) if i + 1 == lines.len() => {}
            Err(e) => {
                return Err(Error::BadFile {
                    path: path.to_path_buf(),
                    reason: format!("line {}: {e}", i + 1),
                })
            }
        }
    }
    Ok(out)
}

/// Self-play positions (training samples) and games recorded in the
/// `"selfplay"` lines of a metrics file (0 and 0 if it does not exist): the
/// totals a resumed run continues from.
///
/// # Errors
/// As [`read_metrics`].
pub fn selfplay_totals(path: &Path) -> Result<(u64, u64), Error> {
    if !path.exists() {
        return Ok((0, 0));
    }
    let mut positions = 0;
    let mut games = 0;
    for v in read_metrics(path)? {
        if v.get("kind").and_then(Value::as_str) == Some("selfplay") {
            positions += v.get("samples").and_then(Value::as_u64).unwrap_or(0);
            games += v.get("games").and_then(Value::as_u64).unwrap_or(0);
        }
    }
    Ok((positions, games))
}

/// Drops metrics lines of generations after `generation` (used by resume, so
/// a generation interrupted before its checkpoint is not counted twice).
///
/// # Errors
/// I/O errors.
pub fn truncate_after_generation(path: &Path, generation: u32) -> Result<(), Error> {
    if !path.exists() {
        return Ok(());
    }
    let kept: Vec<String> = read_metrics(path)?
        .into_iter()
        .filter(|v| {
            v.get("generation")
                .and_then(Value::as_u64)
                .is_none_or(|g| g <= u64::from(generation))
        })
        .map(|v| v.to_string() + "\n")
        .collect();
    crate::record::write_atomic(path, kept.concat().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_round_trip_and_partial_last_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.jsonl");
        let w = MetricsWriter::new(&path);
        w.write(&json!({"kind": "train", "generation": 1, "loss": 2.5}))
            .unwrap();
        w.write(&json!({"kind": "train", "generation": 2, "loss": 2.0}))
            .unwrap();
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"kind\": \"tr").unwrap();
        let lines = read_metrics(&path).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1]["loss"], 2.0);
        truncate_after_generation(&path, 1).unwrap();
        assert_eq!(read_metrics(&path).unwrap().len(), 1);
    }

    #[test]
    fn selfplay_totals_sum_the_selfplay_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.jsonl");
        assert_eq!(selfplay_totals(&path).unwrap(), (0, 0));
        let w = MetricsWriter::new(&path);
        w.write(&json!({"kind": "selfplay", "generation": 1, "samples": 100, "games": 4}))
            .unwrap();
        w.write(&json!({"kind": "train", "generation": 1, "samples": 7}))
            .unwrap();
        w.write(&json!({"kind": "selfplay", "generation": 2, "samples": 50, "games": 2}))
            .unwrap();
        assert_eq!(selfplay_totals(&path).unwrap(), (150, 6));
    }

    #[test]
    fn a_bad_line_in_the_middle_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.jsonl");
        fs::write(&path, "{\"a\":1}\nnot json\n{\"a\":2}\n").unwrap();
        let err = read_metrics(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
    }
}
