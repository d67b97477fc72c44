//! A distributed learned-evaluator run (`[run] kind = "nnue"`): a learner
//! and two workers (threads) on one run directory play and train two small
//! generations; the learner is stopped in generation 2's training and
//! resumed. Every chunk is consumed once (the ledgers), each generation's
//! samples are exactly its used chunks', stale and unreadable chunks are
//! skipped by name, and restarted workers never overwrite a chunk.

#![allow(clippy::unwrap_used)] // Test helpers outside #[test] functions.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::common::{worker, SetOnDrop};
use dama_run::dist::{ChunkKind, ChunkName, ChunkUse, Ledger, ModelPointer};
use dama_run::metrics::{read_metrics, MetricsEvent};
use dama_selfplay::nnue::NnueConfig;
use dama_selfplay::{
    learn, run_worker, LearnerOptions, NoProgress, Progress, ProgressEvent, RunDir, RunState,
    RunSummary, Stage, TrainOptions, WorkerSummary,
};

/// A learned-evaluator run's learner on its own run directory.
struct NnueLearnerOptions {
    config: NnueConfig,
    run_dir: std::path::PathBuf,
    resume: bool,
}

impl NnueLearnerOptions {
    fn learner(&self) -> LearnerOptions {
        LearnerOptions {
            train: TrainOptions {
                config: self.config.clone().into(),
                run_dir: self.run_dir.clone(),
                resume: self.resume,
            },
            store: None,
        }
    }
}

/// Sized like `nnue_run.rs`'s run: seconds per generation in a debug build.
const TINY: &str = r#"
[run]
kind = "nnue"
generations = 2
seed = 7
threads = 1
torch_threads = 1
[selfplay]
games_per_generation = 8
depth = 3
nodes = 400
max_plies = 120
[train]
steps_per_generation = 30
batch_size = 64
window = 2
[gate]
games = 2
depth = 2
min_score = 0.0
[eval]
games = 2
depth = 2
[distributed]
games_per_chunk = 2
max_staleness = 0
poll_secs = 0.05
"#;

/// Runs the learner and workers `a` and `b` until the learner returns;
/// the workers are stopped then (and the learner, should a worker end
/// first). `progress` sees the learner's events.
fn session(
    opts: &NnueLearnerOptions,
    stop_learner: &AtomicBool,
    progress: &dyn Progress,
    cache: &Path,
) -> (RunSummary, [WorkerSummary; 2]) {
    let stop_workers = AtomicBool::new(false);
    let store = opts.run_dir.clone();
    let run = |id: &str| {
        let _stop_learner = SetOnDrop(stop_learner);
        run_worker(
            &worker(store.to_str().unwrap(), id, cache),
            &stop_workers,
            &NoProgress,
        )
    };
    std::thread::scope(|s| {
        let l = s.spawn(|| {
            let _stop_workers = SetOnDrop(&stop_workers);
            learn(&opts.learner(), stop_learner, progress)
        });
        let a = s.spawn(|| run("a"));
        let b = s.spawn(|| run("b"));
        let summary = l.join().unwrap().unwrap();
        (
            summary,
            [a.join().unwrap().unwrap(), b.join().unwrap().unwrap()],
        )
    })
}

fn ledger(run: &RunDir, g: u32) -> Ledger {
    let text =
        std::fs::read_to_string(run.root().join(format!("learner/gen-{g:04}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_learner_and_two_workers_consume_every_chunk_once_across_a_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("run");
    let cache = tmp.path().join("cache");
    let run = RunDir::new(&root);
    let config: NnueConfig = toml::from_str(TINY).unwrap();
    config.validate().unwrap();
    // Two chunks a worker could not have written well: a truncated sample
    // file, and a network run's chunk.
    let bad = "w-bad-g0000-000000-n0002.samples";
    let other = "w-az-g0000-000000.games";
    dama_run::files::write_atomic(&run.games().join(bad), b"DAMANNUS\x01\0\0\0 cut").unwrap();
    dama_run::files::write_atomic(&run.games().join(other), b"DAMAGAME").unwrap();
    let mut opts = NnueLearnerOptions {
        config,
        run_dir: root.clone(),
        resume: false,
    };

    // Session 1: stopped as generation 2 starts training (after its
    // ingest: its chunks were read, but its ledger is not written).
    let stop = AtomicBool::new(false);
    let warnings = Mutex::new(Vec::new());
    let progress = |p: ProgressEvent<'_>| match p {
        ProgressEvent::StageStarted {
            generation: 2,
            stage: Stage::Train,
            ..
        } => stop.store(true, Ordering::SeqCst),
        ProgressEvent::Warning(w) => warnings.lock().unwrap().push(w.to_owned()),
        _ => {}
    };
    let (first, workers_1) = session(&opts, &stop, &progress, &cache);
    assert!(first.stopped && first.generation == 1, "{first:?}");
    assert_eq!(RunState::load(&run.state()).unwrap().generation, 1);
    assert!(run.samples(2).exists() && run.evaluator(2).exists());
    assert!(!root.join("learner/gen-0002.json").exists());
    let pointer: ModelPointer =
        serde_json::from_slice(&std::fs::read(root.join("models/latest.json")).unwrap()).unwrap();
    assert!(
        pointer.generation == 1 && pointer.learner_generation == 1 && !pointer.done,
        "{pointer:?}"
    );
    let warnings = warnings.into_inner().unwrap();
    for name in [bad, other] {
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("skipping chunk") && w.contains(name)),
            "no warning names {name}: {warnings:?}"
        );
    }

    // Session 2: resumed to the end; the workers restart with their ids.
    opts.resume = true;
    let never = AtomicBool::new(false);
    let (second, workers_2) = session(&opts, &never, &NoProgress, &cache);
    assert!(
        !second.stopped && second.generation == 2 && second.best_generation == 2,
        "{second:?}"
    );
    let pointer: ModelPointer =
        serde_json::from_slice(&std::fs::read(root.join("models/latest.json")).unwrap()).unwrap();
    assert!(
        pointer.done && pointer.generation == 2 && pointer.learner_generation == 2,
        "{pointer:?}"
    );
    assert!(run.best_evaluator().exists());

    // Every chunk in the store is whole; a restarted worker continued its
    // sequence (no chunk overwritten).
    let chunks: Vec<String> = std::fs::read_dir(run.games())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("w-"))
        .collect();
    for (id, w1, w2) in [
        ("a", &workers_1[0], &workers_2[0]),
        ("b", &workers_1[1], &workers_2[1]),
    ] {
        let written = chunks
            .iter()
            .filter(|n| n.starts_with(&format!("w-{id}-")))
            .count() as u64;
        assert_eq!(written, w1.status.chunks + w2.status.chunks, "worker {id}");
        assert!(written >= 1, "worker {id} wrote no chunk");
    }

    // The ledgers: each chunk once, in a generation whose best evaluator
    // played it (max_staleness 0), and the samples file of a generation
    // is exactly its used chunks' samples, in ledger order.
    let mut consumed: BTreeMap<String, u32> = BTreeMap::new();
    for g in 1..=2 {
        let ledger = ledger(&run, g);
        let mut used = Vec::new();
        let mut used_games = 0;
        for e in &ledger.chunks {
            assert!(chunks.contains(&e.chunk), "{} is not in the store", e.chunk);
            if let Some(first) = consumed.insert(e.chunk.clone(), g) {
                panic!("{} consumed in generations {first} and {g}", e.chunk);
            }
            let name = ChunkName::parse(&e.chunk).unwrap();
            match e.usage {
                ChunkUse::Used => {
                    assert_eq!(name.generation, g - 1, "{} used in {g}", e.chunk);
                    assert_eq!(name.kind, ChunkKind::Samples { games: 2 });
                    let (_, s) = dama_nnue::read_samples::<dama_draughts::DraughtsFeatures>(
                        &run.games().join(&e.chunk),
                        Some(&opts.config.rules.draughts().unwrap()),
                        1 << 20,
                    )
                    .unwrap();
                    used.extend(s);
                    used_games += e.games;
                }
                ChunkUse::Stale => assert!(name.generation < g - 1, "{} stale in {g}", e.chunk),
                ChunkUse::Bad => assert!(e.chunk == bad || e.chunk == other, "{}", e.chunk),
            }
        }
        assert!(used_games >= 8, "generation {g}: {used_games} games");
        let (_, window) = dama_nnue::read_samples::<dama_draughts::DraughtsFeatures>(
            &run.samples(g),
            Some(&opts.config.rules.draughts().unwrap()),
            1 << 20,
        )
        .unwrap();
        assert!(!window.is_empty());
        assert_eq!(window, used, "generation {g}'s samples are not its chunks'");
    }
    assert_eq!(consumed.get(bad), Some(&1));
    assert_eq!(consumed.get(other), Some(&1));

    // The metrics: one line of each kind per finished generation (the
    // stopped attempt's lines are dropped), the games counted once.
    let events = read_metrics(&run.metrics()).unwrap();
    let of_kind = |k: &str| events.iter().filter(|e| e.kind() == k).count();
    assert_eq!(of_kind("generation"), 2);
    assert_eq!(of_kind("learner"), 2);
    assert_eq!(of_kind("selfplay"), 2);
    for e in &events {
        if let MetricsEvent::Selfplay(sp) = e {
            let used: u64 = ledger(&run, sp.generation)
                .chunks
                .iter()
                .filter(|c| c.usage == ChunkUse::Used)
                .map(|c| c.games)
                .sum();
            assert_eq!(sp.games, used, "generation {}", sp.generation);
        }
    }
    for id in ["a", "b"] {
        assert!(
            events
                .iter()
                .any(|e| matches!(e, MetricsEvent::Worker(w) if w.worker == id)),
            "no worker line of {id}"
        );
    }
}

/// A worker refuses a store whose pointer names an evaluator file that is
/// not there, naming it, and a config whose `[distributed]` is out of
/// bounds, naming the key.
#[test]
fn workers_name_a_missing_evaluator_and_bad_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("run");
    std::fs::create_dir_all(root.join("models")).unwrap();
    std::fs::write(root.join("config.toml"), TINY).unwrap();
    std::fs::write(
        root.join("models/latest.json"),
        r#"{"version":1,"generation":9,"learner_generation":9,"done":false}"#,
    )
    .unwrap();
    let stop = AtomicBool::new(false);
    let mut opts = worker(root.to_str().unwrap(), "w", tmp.path());
    opts.max_chunks = Some(1);
    let err = run_worker(&opts, &stop, &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("generation 9") && err.contains("models/gen-0009.nnue"),
        "{err}"
    );
    opts.games_per_chunk = Some(0);
    let err = run_worker(&opts, &stop, &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("distributed.games_per_chunk"), "{err}");
    std::fs::write(
        root.join("config.toml"),
        TINY.replace("max_staleness = 0", "max_staleness = 5000"),
    )
    .unwrap();
    opts.games_per_chunk = None;
    let err = run_worker(&opts, &stop, &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("config.toml") && err.contains("distributed.max_staleness"),
        "{err}"
    );
}

/// The same roles for Turkish Tafl (`[game] name = "tafl"`): workers play
/// Tafl's engine, the learner trains Tafl's features, the files are Tafl's.
#[test]
fn a_tafl_learner_and_two_workers_train_tafls_evaluator() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("run");
    // The workers look for the store before the learner starts.
    std::fs::create_dir_all(&root).unwrap();
    let text = TINY
        .replace("[selfplay]", "[game]\nname = \"tafl\"\n[selfplay]")
        .replace("depth = 3", "depth = 2")
        .replace("depth = 2\nmin_score", "depth = 1\nmin_score")
        .replace(
            "[eval]\ngames = 2\ndepth = 2",
            "[eval]\ngames = 2\ndepth = 1",
        );
    let config: NnueConfig = toml::from_str(&text).unwrap();
    config.validate().unwrap();
    let rules = config.rules.tafl().unwrap();
    let opts = NnueLearnerOptions {
        config,
        run_dir: root.clone(),
        resume: false,
    };
    let stop = AtomicBool::new(false);
    let (summary, workers) = session(&opts, &stop, &NoProgress, &tmp.path().join("c"));
    assert!(!summary.stopped && summary.generation == 2, "{summary:?}");
    assert!(workers.iter().map(|w| w.status.chunks).sum::<u64>() >= 8);
    let run = RunDir::new(&root);
    for g in 1..=2 {
        let (_, samples) = dama_nnue::read_samples::<dama_tafl::TaflFeatures>(
            &run.samples(g),
            Some(&rules),
            1 << 20,
        )
        .unwrap();
        assert!(!samples.is_empty(), "generation {g}");
        dama_nnue::read_network::<dama_tafl::TaflFeatures>(&run.evaluator(g), Some(&rules))
            .unwrap();
        assert_eq!(ledger(&run, g).generation, g);
    }
}
