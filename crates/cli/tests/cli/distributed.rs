//! Issue 18, distributed runs through the `dama` binary, without Ray (the
//! Ray driver's test is `scripts/test-ray.sh`): a learner and workers on
//! one run directory, a worker killed mid-upload and one mid-game, the
//! learner killed mid-training-step and resumed; and the errors of bad
//! input (store URLs, chunks, pointers, bounds).

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use dama_run::dist::{ChunkUse, Ledger, ModelPointer, WorkerStatus};
use dama_run::{read_metrics, MetricsEvent, RunState};

const DAMA: &str = env!("CARGO_BIN_EXE_dama");

/// configs/smoke.toml with chunks of two games and long enough training
/// steps to be killed in (200 a generation).
fn write_config(dir: &Path, generations: u32) -> PathBuf {
    let smoke = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/smoke.toml");
    let text = std::fs::read_to_string(smoke)
        .unwrap()
        .replace("generations = 2", &format!("generations = {generations}"))
        .replace("device = \"auto\"", "device = \"cpu\"")
        .replace("steps_per_generation = 3", "steps_per_generation = 200")
        .replace("games = 2\n", "games = 0\n")
        + "\n[distributed]\ngames_per_chunk = 2\npoll_secs = 0.1\nmax_staleness = 1\n";
    let path = dir.join("dist.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn dama(args: &[&str]) -> Command {
    let mut cmd = Command::new(DAMA);
    cmd.args(args)
        .env_remove(dama_run::files::FAULT_ENV)
        .stdin(Stdio::null());
    cmd
}

fn worker(store: &Path, id: &str) -> Command {
    let mut cmd = dama(&[
        "worker",
        "--quiet",
        "--torch-threads",
        "1",
        "--worker-id",
        id,
    ]);
    cmd.arg("--store").arg(store);
    cmd
}

fn spawn(mut cmd: Command, log: &Path) -> Child {
    let log = std::fs::File::create(log).unwrap();
    cmd.stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap()
}

fn wait_with_timeout(child: &mut Child, secs: u64) -> std::process::ExitStatus {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("a process did not finish in {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn metrics(run: &Path) -> Vec<MetricsEvent> {
    read_metrics(&run.join("metrics.jsonl")).unwrap_or_default()
}

fn failed(out: Output) -> String {
    assert!(!out.status.success(), "dama succeeded: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs a learner with `config` on the store `dir/run` and one worker
/// until the learner finishes; the run directory.
fn learner_and_worker(dir: &Path, config: &Path) -> PathBuf {
    let run = dir.join("run");
    let mut learner = spawn(
        {
            let mut c = dama(&["learner", "--quiet", "--config"]);
            c.arg(config).arg("--store").arg(&run);
            c
        },
        &dir.join("learner.log"),
    );
    let until = Instant::now() + Duration::from_secs(60);
    while !run.join("config.toml").exists() {
        assert!(Instant::now() < until, "the learner wrote no config");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut w = spawn(worker(&run, "w"), &dir.join("w.log"));
    let log = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert!(
        wait_with_timeout(&mut learner, 300).success(),
        "{}",
        log("learner.log")
    );
    assert!(wait_with_timeout(&mut w, 60).success(), "{}", log("w.log"));
    run
}

/// A learner and workers: one aborted just before publishing its second
/// chunk (a kill -9 mid-upload), one killed with SIGKILL while it plays,
/// a malformed chunk among theirs, and the learner killed with SIGKILL in
/// a training step of generation 2 or later, then resumed. Every
/// generation is committed once; every chunk the ledgers name is whole and
/// named once; the games trained on are counted once in the metrics; the
/// unfinished upload and the malformed chunk are never trained on.
#[test]
fn killed_workers_and_a_killed_learner_lose_and_double_no_game() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), 4);
    let run = tmp.path().join("run");
    let mut learner = spawn(
        {
            let mut c = dama(&["learner", "--quiet", "--config"]);
            c.arg(&config).arg("--store").arg(&run);
            c
        },
        &tmp.path().join("learner-1.log"),
    );
    // Workers need the run's directory: the learner makes it.
    let until = Instant::now() + Duration::from_secs(60);
    while !run.join("config.toml").exists() {
        assert!(Instant::now() < until, "the learner wrote no config");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut steady = spawn(worker(&run, "steady"), &tmp.path().join("steady.log"));
    // Worker writes: chunk 0, its status, chunk 1 (aborted before the rename).
    let mut aborted = spawn(
        {
            let mut c = worker(&run, "aborted");
            c.env(dama_run::files::FAULT_ENV, "3");
            c
        },
        &tmp.path().join("aborted.log"),
    );
    let mut victim = spawn(worker(&run, "victim"), &tmp.path().join("victim.log"));

    // The victim is killed while it plays the chunk after its first.
    let status_of = |id: &str| -> Option<WorkerStatus> {
        let text = std::fs::read_to_string(run.join(format!("workers/{id}.json"))).ok()?;
        serde_json::from_str(&text).ok()
    };
    let until = Instant::now() + Duration::from_secs(120);
    let victim_chunks = loop {
        if let Some(s) = status_of("victim") {
            if s.chunks >= 1 {
                victim.kill().unwrap();
                victim.wait().unwrap();
                break s.chunks;
            }
        }
        assert!(
            Instant::now() < until && victim.try_wait().unwrap().is_none(),
            "the victim wrote no chunk: {}",
            std::fs::read_to_string(tmp.path().join("victim.log")).unwrap()
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    // A malformed chunk, published as a worker would.
    let bad = run.join("games/w-bad-g0000-000000.games");
    dama_run::files::write_atomic(&bad, b"DAMAGAME\x01\0\0\0 truncated").unwrap();

    // The learner is killed inside a training step: a `train` line of a
    // generation >= 2 is out, its `generation` line is not.
    let killed_in = loop {
        let events = metrics(&run);
        let done: Vec<u32> = events
            .iter()
            .filter_map(|e| match e {
                MetricsEvent::Generation(g) => Some(g.generation),
                _ => None,
            })
            .collect();
        let training = events.iter().rev().find_map(|e| match e {
            MetricsEvent::Train(t) if t.generation >= 2 && !done.contains(&t.generation) => {
                Some(t.generation)
            }
            _ => None,
        });
        if let Some(g) = training {
            learner.kill().unwrap();
            learner.wait().unwrap();
            break g;
        }
        assert!(
            learner.try_wait().unwrap().is_none(),
            "the learner ended before it could be killed: {}",
            std::fs::read_to_string(tmp.path().join("learner-1.log")).unwrap()
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(status_of("victim").unwrap().chunks == victim_chunks);
    let state = RunState::load(&run.join("state.json")).unwrap();
    assert_eq!(state.generation, killed_in - 1);

    // Resumed, the learner finishes the run; the workers stop with it.
    let mut resumed = spawn(
        {
            let mut c = dama(&["learner", "--quiet", "--resume", "--store"]);
            c.arg(&run);
            c
        },
        &tmp.path().join("learner-2.log"),
    );
    let learner_log = || {
        std::fs::read_to_string(tmp.path().join("learner-1.log")).unwrap()
            + &std::fs::read_to_string(tmp.path().join("learner-2.log")).unwrap()
    };
    assert!(
        wait_with_timeout(&mut resumed, 300).success(),
        "{}",
        learner_log()
    );
    assert!(wait_with_timeout(&mut steady, 60).success());
    assert!(!wait_with_timeout(&mut aborted, 60).success());
    let pointer: ModelPointer =
        serde_json::from_slice(&std::fs::read(run.join("models/latest.json")).unwrap()).unwrap();
    assert!(
        pointer.done && pointer.learner_generation == 4,
        "{pointer:?}"
    );

    // The chunks: the aborted upload is a temporary file nobody read.
    let names: Vec<String> = std::fs::read_dir(run.join("games"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("w-aborted-g") && n.ends_with("-000001.games.tmp")),
        "{names:?}"
    );
    assert!(!names
        .iter()
        .any(|n| n.starts_with("w-aborted-g") && n.ends_with("-000001.games")));
    let victim_written = names.iter().filter(|n| n.starts_with("w-victim-")).count();
    assert_eq!(victim_written as u64, victim_chunks);

    let mut consumed: BTreeMap<String, u32> = BTreeMap::new();
    let mut used_games = 0;
    for g in 1..=4 {
        let text = std::fs::read_to_string(run.join(format!("learner/gen-{g:04}.json"))).unwrap();
        let ledger: Ledger = serde_json::from_str(&text).unwrap();
        for e in ledger.chunks {
            assert!(names.contains(&e.chunk), "{} is not a whole chunk", e.chunk);
            if let Some(first) = consumed.insert(e.chunk.clone(), g) {
                panic!("{} consumed in generations {first} and {g}", e.chunk);
            }
            match e.usage {
                ChunkUse::Used => used_games += e.games,
                ChunkUse::Bad => assert_eq!(e.chunk, "w-bad-g0000-000000.games"),
                ChunkUse::Stale => {}
            }
        }
    }
    assert!(consumed.contains_key("w-bad-g0000-000000.games"));
    assert!(
        learner_log().contains("skipping chunk") && learner_log().contains("shorter than"),
        "{}",
        learner_log()
    );

    let events = metrics(&run);
    let sum = |f: &dyn Fn(&MetricsEvent) -> Option<u64>| events.iter().filter_map(f).sum::<u64>();
    let generations: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            MetricsEvent::Generation(g) => Some(g.generation),
            _ => None,
        })
        .collect();
    assert_eq!(generations, [1, 2, 3, 4]);
    assert_eq!(
        sum(&|e| match e {
            MetricsEvent::Learner(l) => Some(l.games),
            _ => None,
        }),
        used_games
    );
    assert_eq!(
        sum(&|e| match e {
            MetricsEvent::Selfplay(s) => Some(s.games),
            _ => None,
        }),
        used_games
    );
    assert!(events
        .iter()
        .any(|e| matches!(e, MetricsEvent::Worker(w) if w.worker == "steady")));
}

/// Bad input: each is an error that names the problem, never a panic or a
/// wait for ever.
#[test]
fn bad_stores_chunks_pointers_and_numbers_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let out = |args: &[&str]| dama(args).output().unwrap();

    let err = failed(out(&["worker", "--store", "ftp://host/run"]));
    assert!(err.contains("unknown scheme `ftp`"), "{err}");
    let err = failed(out(&["worker", "--store", ""]));
    assert!(err.contains("empty"), "{err}");
    // Without the object-store feature a cloud store is refused by name;
    // with it (the test suite's build) it would be tried over the network.
    if !cfg!(feature = "object-store") {
        let err = failed(out(&["worker", "--store", "s3://bucket/run"]));
        assert!(err.contains("object-store"), "{err}");
    }
    let err = failed(out(&["worker", "--store", "/nonexistent/dama-store"]));
    assert!(err.contains("/nonexistent/dama-store"), "{err}");
    let err = failed(out(&["worker", "--store", "x", "--worker-id", "a/b"]));
    assert!(err.contains("worker id"), "{err}");
    let err = failed(out(&["worker", "--store", "x", "--max-chunks", "0"]));
    assert!(err.contains("--max-chunks"), "{err}");

    // A store holding a config and a pointer to a network that is missing.
    let run = tmp.path().join("run");
    let config = write_config(tmp.path(), 1);
    std::fs::create_dir_all(run.join("models")).unwrap();
    std::fs::copy(&config, run.join("config.toml")).unwrap();
    std::fs::write(
        run.join("models/latest.json"),
        r#"{"version":1,"generation":9,"learner_generation":9,"done":false}"#,
    )
    .unwrap();
    let store = run.to_str().unwrap();
    let err = failed(out(&["worker", "--store", store, "--max-chunks", "1"]));
    assert!(
        err.contains("generation 9") && err.contains("models/gen-0009.safetensors"),
        "{err}"
    );
    let err = failed(out(&["worker", "--store", store, "--games-per-chunk", "0"]));
    assert!(err.contains("distributed.games_per_chunk"), "{err}");
    let err = failed(out(&[
        "worker",
        "--store",
        store,
        "--games-per-chunk",
        "100000",
    ]));
    assert!(err.contains("1..=4096"), "{err}");
    std::fs::write(run.join("models/latest.json"), "{\"version\":1,").unwrap();
    let err = failed(out(&["worker", "--store", store, "--max-chunks", "1"]));
    assert!(
        err.contains("models/latest.json") && err.contains("pointer"),
        "{err}"
    );

    let err = failed(out(&[
        "learner",
        "--store",
        "gs://bucket/run",
        "--config",
        "x",
    ]));
    // Refused before any network call: without the feature for the
    // feature, with it for the missing --local-dir.
    let why = if cfg!(feature = "object-store") {
        "--local-dir"
    } else {
        "object-store"
    };
    assert!(err.contains(why), "{err}");
    let err = failed(out(&[
        "learner",
        "--store",
        store,
        "--config",
        config.to_str().unwrap(),
        "--max-staleness",
        "5000",
    ]));
    assert!(err.contains("distributed.max_staleness"), "{err}");
}

/// `[teacher]` in a distributed run: while the learner's next generation is
/// a teacher generation the workers' chunks are the alpha-beta engine's
/// games (one-hot policy targets), and the learner waits for `teacher.games`
/// of them; then the workers play with the network.
#[test]
fn a_distributed_run_plays_its_teacher_generations_with_the_engine() {
    use dama_selfplay::record::read_chunk;
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), 2);
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("steps_per_generation = 200", "steps_per_generation = 3")
        + "\n[teacher]\ngenerations = 1\ngames = 4\ndepth = 2\n";
    std::fs::write(&config, text).unwrap();
    let run = learner_and_worker(tmp.path(), &config);

    let (mut teacher, mut network) = (0, 0);
    for entry in std::fs::read_dir(run.join("games")).unwrap() {
        let path = entry.unwrap().path();
        for g in read_chunk(&path).unwrap() {
            let one_hot = g
                .samples
                .iter()
                .all(|s| s.policy.iter().filter(|&&p| p == 1.0).count() == 1);
            if g.generation == 0 {
                assert!(
                    one_hot,
                    "{}: a teacher game without one-hot targets",
                    path.display()
                );
                teacher += 1;
            } else {
                // A network's search spreads its visits over several moves
                // at some decision of a game.
                assert!(
                    !one_hot,
                    "{}: a network game with one-hot targets",
                    path.display()
                );
                network += 1;
            }
        }
    }
    assert!(
        teacher >= 4 && network >= 2,
        "teacher {teacher}, network {network}"
    );
}

/// A distributed Turkish Tafl run: the learner and a worker of
/// `[game] name = "tafl"` play, upload and train Tafl games, and the
/// learner's checkpoints are Tafl networks.
#[test]
fn a_distributed_run_trains_turkish_tafl() {
    use dama_selfplay::record::read_chunk;
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), 2);
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("steps_per_generation = 200", "steps_per_generation = 3")
        + "\n[game]\nname = \"tafl\"\n";
    std::fs::write(&config, text).unwrap();
    let run = learner_and_worker(tmp.path(), &config);
    let mut games = 0;
    for entry in std::fs::read_dir(run.join("games")).unwrap() {
        for g in read_chunk(&entry.unwrap().path()).unwrap() {
            assert_eq!(g.game, dama_nn::GameName::Tafl);
            g.rules::<dama_tafl::Tafl>().unwrap();
            games += 1;
        }
    }
    assert!(games >= 2, "{games} games");
    let meta = dama_nn::read_meta(&run.join("models/gen-0002.safetensors")).unwrap();
    assert_eq!(meta.game, dama_nn::GameName::Tafl);
}

/// A learned-evaluator run (`[run] kind = "nnue"`) through `dama learner`
/// and `dama worker`: the worker plays the alpha-beta engine's games and
/// uploads their samples, the learner trains two generations on them,
/// prints its learner lines, and publishes the best evaluator.
#[test]
fn a_distributed_learned_evaluator_run() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("nnue.toml");
    std::fs::write(
        &config,
        r#"
[run]
kind = "nnue"
generations = 2
seed = 3
threads = 1
torch_threads = 1
[selfplay]
games_per_generation = 4
depth = 3
nodes = 300
max_plies = 100
[train]
steps_per_generation = 10
batch_size = 32
[gate]
games = 2
depth = 2
min_score = 0.0
[eval]
games = 2
depth = 2
[distributed]
games_per_chunk = 2
poll_secs = 0.1
"#,
    )
    .unwrap();
    let run = learner_and_worker(tmp.path(), &config);
    let pointer: ModelPointer =
        serde_json::from_slice(&std::fs::read(run.join("models/latest.json")).unwrap()).unwrap();
    assert!(
        pointer.done && pointer.generation == 2 && pointer.learner_generation == 2,
        "{pointer:?}"
    );
    let mut games = 0;
    for g in 1..=2 {
        let text = std::fs::read_to_string(run.join(format!("learner/gen-{g:04}.json"))).unwrap();
        let ledger: Ledger = serde_json::from_str(&text).unwrap();
        for e in ledger.chunks {
            assert!(
                e.chunk.starts_with("w-w-") && e.chunk.ends_with("-n0002.samples"),
                "{}",
                e.chunk
            );
            games += e.games;
        }
        assert!(run.join(format!("models/gen-{g:04}.nnue")).exists());
        assert!(run.join(format!("games/gen-{g:04}.samples")).exists());
    }
    assert!(games >= 8, "{games} games");
    assert!(run.join("best.nnue").exists());
    let kinds: Vec<&str> = metrics(&run).iter().map(MetricsEvent::kind).collect();
    for k in [
        "selfplay",
        "train",
        "eval",
        "learner",
        "worker",
        "generation",
    ] {
        assert!(kinds.contains(&k), "no {k} line in {kinds:?}");
    }
    let log = std::fs::read_to_string(tmp.path().join("learner.log")).unwrap();
    assert!(
        log.contains("learner: ") && log.contains("done: learner at generation 2"),
        "{log}"
    );
    let log = std::fs::read_to_string(tmp.path().join("w.log")).unwrap();
    assert!(
        log.contains("uploaded w-w-g0000-000000-n0002.samples")
            && log.contains("the learner is done"),
        "{log}"
    );

    // The evaluator a pointer names must be there.
    std::fs::write(
        run.join("models/latest.json"),
        r#"{"version":1,"generation":9,"learner_generation":9,"done":false}"#,
    )
    .unwrap();
    let out = worker(&run, "x")
        .arg("--max-chunks")
        .arg("1")
        .output()
        .unwrap();
    let err = failed(out);
    assert!(err.contains("models/gen-0009.nnue"), "{err}");
}
