//! `state.json`: where a run stands.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::files::{read_bounded_string, write_atomic, MAX_TEXT_FILE};
use crate::Error;

/// Where a run stands (`state.json`): written atomically as the last file of
/// a generation, so the generation it names is finished, and `--resume`
/// continues at the next one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunState {
    /// Format version of this file ([`RunState::VERSION`]).
    pub version: u32,
    /// The last finished generation (0: only the initial network exists).
    pub generation: u32,
    /// Training steps taken.
    pub step: u64,
    /// The generation whose network plays self-play (differs from
    /// `generation` when gating rejected newer networks).
    pub best_generation: u32,
    /// Wall time spent in the run, over all sessions, in seconds.
    pub elapsed_secs: f64,
}

impl RunState {
    /// The format version written today.
    pub const VERSION: u32 = 1;

    /// The state of a new run: generation 0 (the initial network), step 0.
    pub fn new_run() -> RunState {
        RunState {
            version: RunState::VERSION,
            generation: 0,
            step: 0,
            best_generation: 0,
            elapsed_secs: 0.0,
        }
    }

    /// Reads `state.json` (at most [`MAX_TEXT_FILE`] bytes).
    ///
    /// # Errors
    /// I/O errors and JSON that is not a `RunState`, naming the file.
    pub fn load(path: &Path) -> Result<RunState, Error> {
        let text = read_bounded_string(path, MAX_TEXT_FILE).map_err(|e| Error::io(path, e))?;
        serde_json::from_str(&text).map_err(|source| Error::Json {
            path: path.to_path_buf(),
            what: "state.json",
            source,
        })
    }

    /// Writes `state.json` atomically (pretty-printed).
    ///
    /// # Errors
    /// I/O errors, naming the file.
    pub fn save(&self, path: &Path) -> Result<(), Error> {
        let text = serde_json::to_string_pretty(self).map_err(|source| Error::Encode {
            what: "state.json",
            source,
        })?;
        write_atomic(path, text.as_bytes()).map_err(|e| Error::io(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_refuses_unknown_keys() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("state.json");
        let state = RunState {
            generation: 3,
            step: 90,
            best_generation: 2,
            elapsed_secs: 12.5,
            ..RunState::new_run()
        };
        state.save(&path).unwrap();
        assert_eq!(RunState::load(&path).unwrap(), state);
        std::fs::write(
            &path,
            r#"{"version":1,"generation":1,"step":1,"best_generation":1,"elapsed_secs":1,"x":0}"#,
        )
        .unwrap();
        let err = RunState::load(&path).unwrap_err();
        assert!(matches!(err, Error::Json { .. }), "{err}");
        assert!(err.to_string().contains("state.json"), "{err}");
    }
}
