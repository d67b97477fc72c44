//! Issue 19, fault tests of the `dama` binary: a trainer killed at every
//! write of a run resumes to the same network as an uninterrupted run; two
//! trainers on one run are locked out; a closed stdout ends quietly; bounds
//! on user-supplied numbers.
//!
//! The kill is `DAMA_FAULT_ABORT_AT_WRITE=N` (`dama_nn::files::FAULT_ENV`):
//! the process aborts just before its `N`th atomic write renames its
//! temporary file into place, which leaves the disk as a `kill -9` at that
//! moment would (the temporary file included).

// Helpers outside #[test] functions unwrap too: this is test code.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const DAMA: &str = env!("CARGO_BIN_EXE_dama");

/// configs/smoke.toml made smaller still: two generations, eight games in
/// three parallel slots (games finish out of id order), no evaluation.
fn write_config(dir: &Path, generations: u32) -> PathBuf {
    let smoke = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/smoke.toml");
    let text = std::fs::read_to_string(smoke)
        .unwrap()
        .replace("generations = 2", &format!("generations = {generations}"))
        .replace("device = \"auto\"", "device = \"cpu\"")
        .replace("games_per_generation = 4", "games_per_generation = 8")
        .replace("parallel_games = 4", "parallel_games = 3")
        .replace("games = 2\n", "games = 0\n");
    let path = dir.join(format!("faults-{generations}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn train(config: &Path, checkpoints: &Path, run: &str, resume: bool) -> Command {
    let mut cmd = Command::new(DAMA);
    cmd.arg("train")
        .arg("--config")
        .arg(config)
        .arg("--checkpoints")
        .arg(checkpoints)
        .arg("--run")
        .arg(run)
        .env_remove(dama_nn::files::FAULT_ENV)
        .stdin(Stdio::null());
    if resume {
        cmd.arg("--resume");
    }
    cmd
}

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "dama failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn final_weights(checkpoints: &Path, run: &str) -> Vec<u8> {
    std::fs::read(checkpoints.join(run).join("models/gen-0002.safetensors")).unwrap()
}

/// Kills the trainer at each of its writes in turn (config, every file of
/// each checkpoint, game chunks, `state.json`), then resumes it (or, killed
/// before its config was committed, starts it again): every run ends with
/// the generation-2 weights of the uninterrupted run, bit for bit, and no
/// temporary file.
#[test]
fn killed_at_every_write_the_run_resumes_to_the_same_network() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), 2);
    let ckpts = tmp.path().join("checkpoints");
    let start = Instant::now();
    // `--quiet` keeps one line per generation (and draws no bars).
    let out = ok(train(&config, &ckpts, "straight", false)
        .arg("--quiet")
        .output()
        .unwrap());
    let stderr = String::from_utf8_lossy(&out.stderr);
    for g in ["gen   1:", "gen   2:"] {
        assert!(stderr.contains(g), "no `{g}` line with --quiet: {stderr}");
    }
    let reference = final_weights(&ckpts, "straight");
    eprintln!("uninterrupted run: {:.1} s", start.elapsed().as_secs_f64());

    // Two workers take the kill points in turn (1, 3, 5, ... and 2, 4, ...)
    // until a run is not killed: it made fewer writes than that.
    let kills: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (1..=2)
            .map(|first| {
                let (config, ckpts, reference) = (&config, &ckpts, &reference);
                scope.spawn(move || {
                    let mut kills = 0;
                    for n in (first..).step_by(2) {
                        if !kill_and_resume(n, config, ckpts, reference) {
                            assert!(n > 10, "only {} writes in a two-generation run?", n - 1);
                            break;
                        }
                        kills += 1;
                    }
                    kills
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    });
    assert!(kills >= 10, "{kills}");
    eprintln!(
        "{kills} kill points in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

/// Kills a run of `config` at its `n`th write and resumes it (or, killed
/// before its config was committed, starts it again), checking that no
/// temporary file is left; the run's directory, or `None` when the run
/// made fewer than `n` writes (it finished).
fn kill_then_resume(n: usize, config: &Path, ckpts: &Path) -> Option<PathBuf> {
    let run = format!("kill-{n:02}");
    let out = train(config, ckpts, &run, false)
        .arg("--quiet")
        .env(dama_nn::files::FAULT_ENV, n.to_string())
        .output()
        .unwrap();
    if out.status.success() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("aborting before committing"),
        "write {n}: not killed by the hook: {stderr}"
    );
    let dir = ckpts.join(&run);
    let resume = dir.join("config.toml").exists();
    ok(train(config, ckpts, &run, resume)
        .arg("--quiet")
        .output()
        .unwrap());
    assert_no_temporary_file(&dir, n);
    Some(dir)
}

/// Kills a run at its `n`th write and resumes it; false when the run made
/// fewer than `n` writes (it finished).
fn kill_and_resume(n: usize, config: &Path, ckpts: &Path, reference: &[u8]) -> bool {
    let Some(dir) = kill_then_resume(n, config, ckpts) else {
        return false;
    };
    let run = dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        final_weights(ckpts, &run) == reference,
        "killed at write {n}: generation 2 differs from the uninterrupted run"
    );
    // The ladder sees only finished checkpoints (no orphans).
    let listed = dama_eval::run_checkpoints(&dir).unwrap();
    assert_eq!(listed.len(), 3, "write {n}: {listed:?}");
    true
}

/// No temporary file of an atomic write is left in a run directory `dir`
/// resumed after a kill at write `n`.
fn assert_no_temporary_file(dir: &Path, n: usize) {
    for sub in ["", "models", "games"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let p = e.unwrap().path();
            assert!(
                p.extension().is_none_or(|x| x != "tmp"),
                "write {n}: {} left behind",
                p.display()
            );
        }
    }
}

/// A second trainer on a run that one is training is refused with the
/// first one's process id; after the first is killed, the run resumes.
#[test]
fn a_second_trainer_on_a_run_is_locked_out() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), 1000);
    let ckpts = tmp.path().join("checkpoints");
    let mut first = train(&config, &ckpts, "shared", false)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = ckpts.join("shared/lock");
    let state = ckpts.join("shared/state.json");
    let deadline = Instant::now() + Duration::from_secs(60);
    // Wait until the first trainer holds the lock and has started.
    while !(state.exists()
        && std::fs::read_to_string(&lock).is_ok_and(|s| s.trim() == first.id().to_string()))
    {
        assert!(Instant::now() < deadline, "the first trainer never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    for resume in [true, false] {
        let out = train(&config, &ckpts, "shared", resume).output().unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("in use by process {}", first.id())),
            "{stderr}"
        );
    }
    first.kill().unwrap();
    first.wait().unwrap();
    // The OS released the lock of the killed process.
    let out = ok(train(&config, &ckpts, "shared", true)
        .arg("--generations")
        .arg("1")
        .output()
        .unwrap());
    drop(out);
    let metrics = std::fs::read_to_string(ckpts.join("shared/metrics.jsonl")).unwrap();
    let mut gens: Vec<u64> = metrics
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] == "generation")
        .filter_map(|v| v["generation"].as_u64())
        .collect();
    let n = gens.len();
    gens.dedup();
    assert_eq!(gens.len(), n, "duplicate generation lines: {metrics}");
}

/// Sends SIGINT to process `pid` (with the `kill` command).
fn interrupt(pid: u32) {
    let status = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// One interrupt delivered twice at once (as `timeout -s INT` does: to its
/// child, then to the child's process group) stops the run after a clean
/// checkpoint, from which it resumes. (A second Ctrl-C half a second or more
/// after the first still exits at once, but the run stops sooner than that
/// between generations, so no test can time it.)
#[cfg(unix)]
#[test]
fn an_interrupt_delivered_twice_is_one_interrupt() {
    let tmp = tempfile::tempdir().unwrap();
    let ckpts = tmp.path().join("checkpoints");
    let config = write_config(tmp.path(), 1000);
    let child = train(&config, &ckpts, "echo", false)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first_model = ckpts.join("echo/models/gen-0001.safetensors");
    let deadline = Instant::now() + Duration::from_secs(120);
    while !first_model.exists() {
        assert!(Instant::now() < deadline, "no first generation");
        std::thread::sleep(Duration::from_millis(20));
    }
    interrupt(child.id());
    interrupt(child.id());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("stopped at generation"), "{stderr}");
    assert!(!stderr.contains("second interrupt"), "{stderr}");
    ok(train(&config, &ckpts, "echo", true)
        .arg("--generations")
        .arg("2")
        .output()
        .unwrap());
}

/// `dama games DIR | head -c1` and the like: a closed stdout ends the
/// program quietly instead of a panic.
#[test]
fn a_closed_stdout_ends_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(DAMA)
        .args(["perft", "--depth", "2", "--divide"])
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "{stderr}");
}

/// Numbers that would exhaust the machine are refused when parsed, with
/// the bound in the message.
#[test]
fn huge_numbers_on_the_command_line_are_refused() {
    for args in [
        vec!["perft", "--depth", "1", "--threads", "100000"],
        vec!["analyse", "--time", "18446744073709551615"],
        vec![
            "eval",
            "--a",
            "random",
            "--b",
            "greedy",
            "--threads",
            "100000",
        ],
    ] {
        let out = Command::new(DAMA).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr.contains("limit") || stderr.contains("one hour"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    let out = Command::new(DAMA)
        .args([
            "eval",
            "--a",
            "alphabeta:time=18446744073709551615",
            "--b",
            "random",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("3600000"), "{stderr}");
}

/// Counts out of range, zero included (`dama eval --games 0`, a match of no
/// game; `dama export --sims 0`, a default strength the export silently
/// raised to 1), are refused when parsed, with the flag and the allowed
/// range in the message.
#[test]
fn counts_out_of_range_are_refused_with_the_flag_and_the_range() {
    let eval = ["eval", "--a", "random", "--b", "greedy"];
    let export = ["export", "--checkpoint", "missing.safetensors", "--out"];
    for (args, flag, range) in [
        (
            &[&eval[..], &["--games", "0"]].concat(),
            "--games",
            "1..=1000000",
        ),
        (
            &[&eval[..], &["--games", "1000001"]].concat(),
            "--games",
            "1..=1000000",
        ),
        (
            &[&eval[..], &["--opening-plies", "10001"]].concat(),
            "--opening-plies",
            "0..=10000",
        ),
        (
            &[&eval[..], &["--balanced", "0"]].concat(),
            "--balanced",
            "1..=10000",
        ),
        (
            &[&export[..], &["bundle", "--sims", "0"]].concat(),
            "--sims",
            "1..=1000000",
        ),
        (
            &[&export[..], &["bundle", "--sims", "1000001"]].concat(),
            "--sims",
            "1..=1000000",
        ),
        (
            &["ladder", "--run", "x", "--games", "0"][..].to_vec(),
            "--games",
            "1..=1000000",
        ),
        (
            &["curve", "--run", "x", "--games", "0"][..].to_vec(),
            "--games",
            "1..=1000000",
        ),
        (
            &["curve", "--run", "x", "--balanced", "0"][..].to_vec(),
            "--balanced",
            "1..=10000",
        ),
        (
            &[
                &eval[..],
                &["--balanced", "100", "--judge", "alphabeta:depth=x"],
            ]
            .concat(),
            "--judge",
            "alphabeta",
        ),
        (
            &["bench", "selfplay", "--config", "x.toml", "--games", "0"][..].to_vec(),
            "--games",
            "1..=100000",
        ),
    ] {
        let out = Command::new(DAMA).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains(range),
            "{args:?}: {stderr}"
        );
    }
}

/// `--run ''` is refused instead of training into the checkpoints
/// directory itself.
#[test]
fn an_empty_run_name_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), 1);
    let ckpts = tmp.path().join("checkpoints");
    let out = train(&config, &ckpts, "", false).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--run"), "{stderr}");
    assert!(!ckpts.join("config.toml").exists());
}

/// A learned-evaluator run (`[run] kind = "nnue"`) made tiny: two
/// generations of a few shallow games, a gate and a last evaluation of a
/// few games each.
fn write_nnue_config(dir: &Path) -> PathBuf {
    let path = dir.join("faults-nnue.toml");
    std::fs::write(
        &path,
        "[run]\nkind = \"nnue\"\ngenerations = 2\nseed = 5\nthreads = 1\ntorch_threads = 1\n\
         [selfplay]\ngames_per_generation = 12\ndepth = 3\nnodes = 400\nmax_plies = 120\n\
         [train]\nsteps_per_generation = 12\nbatch_size = 128\n\
         [gate]\ngames = 2\ndepth = 2\nmin_score = 0.0\n\
         [eval]\ngames = 2\ndepth = 2\n",
    )
    .unwrap();
    path
}

/// The learned-evaluator run's final files: generation 2's network and the
/// best one.
fn nnue_result(checkpoints: &Path, run: &str) -> (Vec<u8>, Vec<u8>) {
    let dir = checkpoints.join(run);
    (
        std::fs::read(dir.join("models/gen-0002.nnue")).unwrap(),
        std::fs::read(dir.join("best.nnue")).unwrap(),
    )
}

/// Issue 27's run killed at each of its writes in turn (config, samples,
/// networks, `best.nnue`, `state.json`) and resumed: every run ends with
/// the uninterrupted run's networks, byte for byte, and no temporary file.
#[test]
fn a_learned_evaluator_run_killed_at_every_write_resumes_to_the_same_networks() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_nnue_config(tmp.path());
    let ckpts = tmp.path().join("checkpoints");
    ok(train(&config, &ckpts, "straight", false)
        .arg("--quiet")
        .output()
        .unwrap());
    let reference = nnue_result(&ckpts, "straight");
    let mut kills = 0;
    for n in 1.. {
        let Some(dir) = kill_then_resume(n, &config, &ckpts) else {
            assert!(n > 6, "only {} writes in a two-generation run?", n - 1);
            break;
        };
        let run = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            nnue_result(&ckpts, &run) == reference,
            "killed at write {n}: the networks differ from the uninterrupted run's"
        );
        kills += 1;
    }
    assert!(kills >= 6, "{kills}");
    eprintln!("{kills} kill points");
}
