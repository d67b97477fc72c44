//! Issue 19: exact resume, one trainer per run, restart after a kill in
//! the first moments of a run.

#![allow(clippy::unwrap_used)] // Test helpers outside #[test] functions.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard};

use dama_selfplay::{train, Error, NoProgress, RunConfig, RunDir, RunLock, TrainOptions};

/// configs/smoke.toml with more games than parallel slots, so games finish
/// (and are written) in an order other than their ids.
/// libtorch's random generator (seeded when a run creates its network) and
/// thread count are global to the process, and cargo runs the tests of a
/// file on parallel threads: tests that train take turns, or a run could
/// draw its initial weights after another run reseeded the generator.
static TRAINING: Mutex<()> = Mutex::new(());

fn one_trainer_at_a_time() -> MutexGuard<'static, ()> {
    TRAINING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn config(generations: u32) -> RunConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/smoke.toml");
    let mut config = RunConfig::load(&path).unwrap();
    config.run.generations = generations;
    config.run.device = dama_run::DeviceSpec::Cpu;
    config.selfplay.games_per_generation = 8;
    config.selfplay.parallel_games = 3;
    config.eval.games = 0;
    config
}

fn options(dir: &Path, generations: u32, resume: bool) -> TrainOptions {
    TrainOptions {
        config: config(generations).into(),
        run_dir: dir.to_path_buf(),
        resume,
    }
}

fn weights(dir: &Path, generation: u32) -> Vec<u8> {
    std::fs::read(RunDir::new(dir).model(generation)).unwrap()
}

/// Stopped after generation 1 and resumed, a run trains the same
/// generation-2 network, bit for bit, as one that ran straight through.
/// It did not when the resume rebuilt the replay window in the order games
/// finished rather than in game-id order.
#[test]
fn resume_after_generation_one_is_bit_exact() {
    let _turn = one_trainer_at_a_time();
    let tmp = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let straight = tmp.path().join("straight");
    train(&options(&straight, 2, false), &stop, &NoProgress).unwrap();

    let resumed = tmp.path().join("resumed");
    train(&options(&resumed, 1, false), &stop, &NoProgress).unwrap();
    assert_eq!(weights(&straight, 1), weights(&resumed, 1));
    train(&options(&resumed, 2, true), &stop, &NoProgress).unwrap();
    assert!(
        weights(&straight, 2) == weights(&resumed, 2),
        "generation 2 after a resume differs from the uninterrupted run"
    );
}

/// A second trainer on a run is refused while the first holds it, with an
/// error naming the holder's process id; the lock goes with its holder.
#[test]
fn a_second_trainer_is_locked_out() {
    let _turn = one_trainer_at_a_time();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    let stop = AtomicBool::new(false);
    let held = RunLock::acquire(&RunDir::new(&dir)).unwrap();
    for resume in [false, true] {
        let err = train(&options(&dir, 1, resume), &stop, &NoProgress).unwrap_err();
        if !resume {
            assert!(
                matches!(err, Error::Run(dama_run::Error::Locked { .. })),
                "{err}"
            );
            let msg = err.to_string();
            assert!(
                msg.contains(&format!("process {}", std::process::id())),
                "{msg}"
            );
        }
    }
    assert!(
        !RunDir::new(&dir).config().exists(),
        "the loser wrote nothing"
    );
    drop(held);
    train(&options(&dir, 1, false), &stop, &NoProgress).unwrap();
}

/// Killed after the generation-0 weights were written but before their
/// sidecar (or `state.json`), a run restarts, with or without `--resume`.
#[test]
fn an_orphan_generation_zero_checkpoint_does_not_block_the_run() {
    let _turn = one_trainer_at_a_time();
    let tmp = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let reference = tmp.path().join("reference");
    train(&options(&reference, 1, false), &stop, &NoProgress).unwrap();
    for resume in [false, true] {
        let dir = tmp.path().join(format!("orphan-{resume}"));
        let paths = RunDir::new(&dir);
        std::fs::create_dir_all(dir.join("models")).unwrap();
        std::fs::write(paths.config(), config(1).to_toml().unwrap()).unwrap();
        std::fs::write(paths.model(0), b"half a safetensors file").unwrap();
        std::fs::write(dir.join("models/gen-0000.json.tmp"), b"{").unwrap();
        train(&options(&dir, 1, resume), &stop, &NoProgress).unwrap();
        assert_eq!(weights(&reference, 1), weights(&dir, 1));
        assert!(!dir.join("models/gen-0000.json.tmp").exists());
    }
}

/// `--run ''` would train into the checkpoints directory itself.
#[test]
fn an_empty_run_directory_is_refused() {
    let _turn = one_trainer_at_a_time();
    let stop = AtomicBool::new(false);
    let err = train(&options(Path::new(""), 1, false), &stop, &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("empty"), "{err}");
}
