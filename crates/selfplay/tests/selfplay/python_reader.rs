//! The notebooks' reader of a run directory (`notebooks/dama_plots.py`,
//! which `dama report` uses) and the Rust types of the run directory
//! (`dama_run::MetricsEvent`, `RunState`) agree on a real run: Python reads
//! every line of its `metrics.jsonl`, and sees, for every kind of line, the
//! keys the Rust types write (and `docs/run-directory.md` documents).
//!
//! The one test of this file trains, so no other test of its binary races
//! it for libtorch's global seed and thread count.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use dama_selfplay::metrics::{read_metrics, MetricsEvent};
use dama_selfplay::{train, NoProgress, RunConfig, RunDir, RunState, TrainOptions};

/// Prints what `dama_plots` reads from a run directory, as JSON.
const READER: &str = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
import dama_plots
from pathlib import Path
run_dir = Path(sys.argv[2])
rows, skipped = dama_plots.read_metrics(run_dir / "metrics.jsonl")
run = dama_plots.load_run(run_dir)
keys, counts = {}, {}
for r in rows:
    keys.setdefault(r["kind"], set()).update(r.keys())
    counts[r["kind"]] = counts.get(r["kind"], 0) + 1
print(json.dumps({
    "skipped": skipped,
    "rows": len(rows),
    "keys": {k: sorted(v) for k, v in keys.items()},
    "counts": counts,
    "frames": {k: sorted(getattr(run, k).columns) for k in dama_plots.KINDS},
    "frame_rows": {k: len(getattr(run, k)) for k in dama_plots.KINDS},
    "state": sorted(run.state.keys()),
}))
"#;

fn python() -> String {
    let venv = std::env::var("DAMA_VENV")
        .expect("DAMA_VENV is not set: source scripts/env.sh (it installs the venv the tests use)");
    format!("{venv}/bin/python")
}

#[test]
fn the_notebooks_reader_sees_the_rust_schema_on_a_real_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = RunDir::new(tmp.path().join("tiny"));
    let options = TrainOptions {
        config: {
            // The tiny run of `tests/common`, one generation, evaluated.
            let mut config = RunConfig::parse(common::TINY).unwrap();
            config.run.generations = 1;
            config.into()
        },
        run_dir: dir.root().to_path_buf(),
        resume: false,
    };
    train(&options, &AtomicBool::new(false), &NoProgress).unwrap();

    let events = read_metrics(&dir.metrics()).unwrap();
    let mut rust_counts: BTreeMap<String, u64> = BTreeMap::new();
    for e in &events {
        assert_ne!(*e, MetricsEvent::Unknown);
        *rust_counts.entry(e.kind().to_owned()).or_default() += 1;
    }
    // Every kind of line appears in this run.
    assert_eq!(
        rust_counts.keys().map(String::as_str).collect::<Vec<_>>(),
        ["eval", "generation", "selfplay", "session", "train"]
    );

    let notebooks = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../notebooks");
    let out = Command::new(python())
        .arg("-c")
        .arg(READER)
        .arg(&notebooks)
        .arg(dir.root())
        .env("MPLBACKEND", "Agg")
        .output()
        .expect("the venv's python runs");
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    // Python reads every line, and as many of each kind as Rust.
    assert_eq!(seen["skipped"], 0, "{seen}");
    assert_eq!(seen["rows"], events.len() as u64, "{seen}");
    let py_counts: BTreeMap<String, u64> = serde_json::from_value(seen["counts"].clone()).unwrap();
    assert_eq!(py_counts, rust_counts);

    // The keys of each kind are the Rust types' keys, in the lines and in
    // the data frames the plots use.
    let schema = MetricsEvent::schema();
    let py_keys: BTreeMap<String, Vec<String>> =
        serde_json::from_value(seen["keys"].clone()).unwrap();
    let frames: BTreeMap<String, Vec<String>> =
        serde_json::from_value(seen["frames"].clone()).unwrap();
    assert_eq!(
        frames.keys().collect::<Vec<_>>(),
        schema.keys().collect::<Vec<_>>(),
        "dama_plots.KINDS and MetricsEvent::KINDS differ"
    );
    for (kind, keys) in &schema {
        let mut keys = keys.clone();
        keys.sort();
        assert_eq!(py_keys[*kind], keys, "keys of `{kind}` lines");
        assert_eq!(frames[*kind], keys, "columns of the `{kind}` frame");
        assert_eq!(seen["frame_rows"][*kind], rust_counts[*kind], "{kind}");
    }

    // state.json: the same fields as RunState.
    let state = serde_json::to_value(RunState::load(&dir.state()).unwrap()).unwrap();
    let mut state_keys: Vec<String> = state.as_object().unwrap().keys().cloned().collect();
    state_keys.sort();
    assert_eq!(
        serde_json::from_value::<Vec<String>>(seen["state"].clone()).unwrap(),
        state_keys
    );
}
