//! A distributed run whose store is an object store (`memory://`, the
//! `object_store` crate's in-memory store, one per process): the learner
//! keeps its state in a local directory and uploads the config, the
//! networks and the pointer; two workers download the networks into their
//! caches and upload chunks. The code paths of `s3://`, `gs://` and `az://`
//! stores, without a cloud. Needs `--features object-store`.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::atomic::AtomicBool;

use crate::common::TINY;
use dama_run::dist::{ChunkUse, Ledger, ModelPointer};
use dama_run::store::get_json;
use dama_selfplay::{
    learn, run_worker, LearnerOptions, NoProgress, RunConfig, RunDir, TrainOptions,
};

#[test]
fn a_learner_and_two_workers_share_an_object_store() {
    let tmp = tempfile::tempdir().unwrap();
    let url = "memory:///object-store-test/run";
    let mut config = RunConfig::parse(TINY).unwrap();
    config.run.generations = 2;
    config.distributed.games_per_chunk = 2;
    config.distributed.poll_secs = 0.05;
    let local = tmp.path().join("learner");
    let learner = LearnerOptions {
        train: TrainOptions {
            config: config.into(),
            run_dir: local.clone(),
            resume: false,
        },
        store: Some(url.to_owned()),
    };
    let stop = AtomicBool::new(false);
    let cache = tmp.path().join("cache");
    let worker = |id: &str| common::worker(url, id, &cache);
    let (summary, workers) = std::thread::scope(|s| {
        let l = s.spawn(|| learn(&learner, &stop, &NoProgress));
        // Workers wait for the learner's pointer.
        let a = s.spawn(|| run_worker(&worker("a"), &stop, &NoProgress));
        let b = s.spawn(|| run_worker(&worker("b"), &stop, &NoProgress));
        let summary = l.join().unwrap().unwrap();
        (
            summary,
            [a.join().unwrap().unwrap(), b.join().unwrap().unwrap()],
        )
    });
    assert_eq!(summary.generation, 2);
    assert!(workers.iter().all(|w| w.learner_done), "{workers:?}");

    let store = dama_run::open_store(url).unwrap();
    let pointer: ModelPointer = get_json(store.as_ref(), "models/latest.json").unwrap();
    assert!(
        pointer.done && pointer.learner_generation == 2,
        "{pointer:?}"
    );
    // Every chunk in the store is in exactly one ledger of the learner's
    // local directory, and the workers' uploads add up.
    let chunks = store.list("games/").unwrap();
    let uploaded: u64 = workers.iter().map(|w| w.status.chunks).sum();
    assert_eq!(chunks.len() as u64, uploaded);
    let dir = RunDir::new(&local);
    let mut in_ledgers = Vec::new();
    for g in 1..=2 {
        let text = std::fs::read_to_string(local.join(format!("learner/gen-{g:04}.json"))).unwrap();
        let ledger: Ledger = serde_json::from_str(&text).unwrap();
        in_ledgers.extend(
            ledger
                .chunks
                .into_iter()
                .map(|c| format!("games/{}", c.chunk)),
        );
    }
    in_ledgers.sort();
    let mut unique = in_ledgers.clone();
    unique.dedup();
    assert_eq!(unique, in_ledgers, "a chunk consumed twice");
    assert!(in_ledgers.iter().all(|c| chunks.contains(c)));
    // The networks were uploaded for the workers and downloaded by them.
    for g in 0..=1 {
        assert!(dir.model(g).exists());
        assert!(store
            .get(&format!("models/gen-{g:04}.safetensors"), 1 << 30)
            .is_ok());
    }
    let cached = std::fs::read_dir(cache.join("a")).unwrap().count();
    assert!(cached >= 1, "worker a cached no network");
}

/// A learned-evaluator run on an object store: the learner uploads the
/// config and each best evaluator before the pointer names it, downloads
/// the workers' sample chunks to read them; the workers download the
/// evaluators into their caches and upload their samples whole.
#[test]
fn a_learned_evaluator_run_shares_an_object_store() {
    use dama_selfplay::nnue::NnueConfig;
    use dama_selfplay::{learn, LearnerOptions, TrainOptions};
    let tmp = tempfile::tempdir().unwrap();
    let url = "memory:///object-store-test/nnue";
    let config: NnueConfig = toml::from_str(
        "[run]\nkind = \"nnue\"\ngenerations = 2\nthreads = 1\ntorch_threads = 1\n\
         [selfplay]\ngames_per_generation = 4\ndepth = 2\nnodes = 200\nmax_plies = 80\n\
         [train]\nsteps_per_generation = 5\nbatch_size = 32\n\
         [gate]\ngames = 0\n[eval]\ngames = 0\n\
         [distributed]\ngames_per_chunk = 2\npoll_secs = 0.05\nmax_staleness = 0\n",
    )
    .unwrap();
    let local = tmp.path().join("learner");
    let learner = LearnerOptions {
        train: TrainOptions {
            config: config.into(),
            run_dir: local.clone(),
            resume: false,
        },
        store: Some(url.to_owned()),
    };
    let stop = AtomicBool::new(false);
    let cache = tmp.path().join("cache");
    let worker = |id: &str| common::worker(url, id, &cache);
    // A worker that ends (returning or panicking) before the learner is
    // done stops it, rather than leave it waiting for chunks for ever; the
    // learner's failure stops the workers.
    use common::SetOnDrop;
    let learner_stop = AtomicBool::new(false);
    let run = |id: &str| {
        let _stop_learner = SetOnDrop(&learner_stop);
        run_worker(&worker(id), &stop, &NoProgress)
    };
    let (summary, workers) = std::thread::scope(|s| {
        let l = s.spawn(|| {
            let stop_workers = SetOnDrop(&stop);
            let r = learn(&learner, &learner_stop, &NoProgress);
            if r.is_ok() {
                // The workers stop when they read that the learner is done.
                std::mem::forget(stop_workers);
            }
            r
        });
        let a = s.spawn(|| run("a"));
        let b = s.spawn(|| run("b"));
        let summary = l.join().unwrap().unwrap();
        (
            summary,
            [a.join().unwrap().unwrap(), b.join().unwrap().unwrap()],
        )
    });
    // `[gate] games = 0` accepts every network.
    assert!(summary.generation == 2 && summary.best_generation == 2);
    assert!(workers.iter().all(|w| w.learner_done), "{workers:?}");
    let store = dama_run::open_store(url).unwrap();
    let pointer: ModelPointer = get_json(store.as_ref(), "models/latest.json").unwrap();
    assert!(pointer.done && pointer.generation == 2, "{pointer:?}");
    for g in 1..=2 {
        let key = format!("models/gen-{g:04}.nnue");
        let bytes = store.get(&key, 1 << 30).unwrap();
        assert_eq!(
            bytes,
            std::fs::read(RunDir::new(&local).evaluator(g)).unwrap()
        );
    }
    // The chunks in the ledgers are the store's, each once, and the
    // learner's samples of a generation are its used chunks'.
    let chunks = store.list("games/").unwrap();
    let mut seen = Vec::new();
    for g in 1..=2 {
        let text = std::fs::read_to_string(local.join(format!("learner/gen-{g:04}.json"))).unwrap();
        let ledger: Ledger = serde_json::from_str(&text).unwrap();
        let mut samples = 0;
        for c in ledger.chunks {
            assert!(c.chunk.ends_with(".samples"), "{}", c.chunk);
            let key = format!("games/{}", c.chunk);
            assert!(chunks.contains(&key) && !seen.contains(&key), "{key}");
            if c.usage == ChunkUse::Used {
                let path = tmp.path().join("chunk.samples");
                std::fs::write(&path, store.get(&key, 1 << 30).unwrap()).unwrap();
                let (_, s) = dama_nnue::read_samples::<dama_draughts::DraughtsFeatures>(
                    &path,
                    None,
                    1 << 20,
                )
                .unwrap();
                samples += s.len();
            }
            seen.push(key);
        }
        let dir = RunDir::new(&local);
        let (_, window) = dama_nnue::read_samples::<dama_draughts::DraughtsFeatures>(
            &dir.samples(g),
            None,
            1 << 20,
        )
        .unwrap();
        assert_eq!(window.len(), samples, "generation {g}");
    }
    // Generation 2 used only generation 1's games (`max_staleness = 0`):
    // a worker downloaded that evaluator into its cache to play them.
    assert!(["a", "b"].iter().any(|w| tmp
        .path()
        .join(format!("cache/{w}/models/gen-0001.nnue"))
        .exists()));
}
