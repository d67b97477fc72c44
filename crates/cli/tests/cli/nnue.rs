//! Learned evaluators from the command line: a learned-evaluator run
//! (`dama train` with `[run] kind = "nnue"`, stopped and resumed), `dama
//! evaluator fit`, and the `alphabeta:…,eval=PATH` player in `eval`, `bot`,
//! `play`, `analyse` and `bench search`.

#![allow(clippy::unwrap_used)]

use crate::common::{dama, err, ok, ok_with};

const TINY: &str = r#"
[run]
kind = "nnue"
generations = 1
seed = 3
threads = 2
torch_threads = 1
[selfplay]
games_per_generation = 8
depth = 3
nodes = 300
max_plies = 100
[train]
steps_per_generation = 20
batch_size = 64
[gate]
games = 2
depth = 2
[eval]
games = 2
depth = 2
"#;

#[test]
fn a_learned_evaluator_trains_resumes_and_plays_in_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny-nnue.toml");
    std::fs::write(&config, TINY).unwrap();
    let ckpts = tmp.path().join("runs");
    let (c, k) = (config.to_str().unwrap(), ckpts.to_str().unwrap());
    let out = ok(dama(&[
        "train",
        "--config",
        c,
        "--checkpoints",
        k,
        "--run",
        "r",
        "--quiet",
    ]));
    assert!(out.contains("done at generation 1"), "{out}");
    // Resumed to a second generation with the run's own config.
    let out = ok(dama(&[
        "train",
        "--resume",
        "--run",
        "r",
        "--checkpoints",
        k,
        "--generations",
        "2",
        "--quiet",
    ]));
    assert!(out.contains("done at generation 2"), "{out}");
    let run = ckpts.join("r");
    let net = run.join("models/gen-0002.nnue");
    assert!(net.is_file());
    let n = net.to_str().unwrap();
    // --game picks any game whose engine learns; Mini draughts has none.
    let e = err(dama(&[
        "train",
        "--config",
        c,
        "--checkpoints",
        k,
        "--game",
        "minidama",
    ]));
    assert!(e.contains("has no alpha-beta engine"), "{e}");
    let e = err(dama(&[
        "train",
        "--config",
        c,
        "--checkpoints",
        k,
        "--device",
        "cpu",
    ]));
    assert!(e.contains("--device is not an option"), "{e}");

    // dama ladder rates the run's networks in the engine, beside the
    // handcrafted engine at the same limit, here on openings a judge finds
    // even.
    let out = ok(dama(&[
        "ladder",
        "--run",
        "r",
        "--checkpoints",
        k,
        "--games",
        "2",
        "--baselines",
        "random",
        "--depth",
        "1",
        "--pairing",
        "neighbours",
        "--balanced",
        "100",
        "--judge",
        "alphabeta:depth=2",
    ]));
    for name in ["gen-0001", "gen-0002", "alphabeta:depth=1"] {
        assert!(out.contains(name), "{name} not in the ladder: {out}");
    }
    assert!(run.join("eval/ladder.json").is_file());

    // dama evaluator fit on the run's samples.
    let fitted = tmp.path().join("fit.nnue");
    let samples = run.join("games/gen-0001.samples");
    let out = ok(dama(&[
        "evaluator",
        "fit",
        "--samples",
        samples.to_str().unwrap(),
        "--valid",
        run.join("games/gen-0002.samples").to_str().unwrap(),
        "--steps",
        "10",
        "--batch",
        "32",
        "--threads",
        "1",
        "--out",
        fitted.to_str().unwrap(),
    ]));
    assert!(out.contains("validation loss"), "{out}");
    assert!(fitted.is_file());

    // dama eval with the player spec.
    let a = format!("alphabeta:depth=2,eval={n}");
    let out = ok(dama(&[
        "eval",
        "--a",
        &a,
        "--b",
        "greedy",
        "--games",
        "2",
        "--threads",
        "1",
    ]));
    assert!(out.contains("games 2"), "{out}");
    let e = err(dama(&[
        "eval",
        "--a",
        &a,
        "--b",
        "greedy",
        "--games",
        "2",
        "--rules",
        "variant=croda",
    ]));
    assert!(e.contains("variant=croda"), "{e}");

    // dama bot, play and analyse.
    let bot = format!("alphabeta:depth=3,eval={n},threads=2");
    let out = ok_with(dama(&["bot", "--bot", &bot]), "hello\ngo\nquit\n");
    assert!(out.contains("bestmove"), "{out}");
    let out = ok_with(
        dama(&["play", "--bot", &bot, "--color", "black", "--no-save"]),
        "resign\n",
    );
    assert!(out.contains("plays "), "{out}");
    let out = ok(dama(&["analyse", "--bot", &bot, "--position", "startpos"]));
    assert!(!out.trim().is_empty(), "{out}");

    // dama bench search with the run's network.
    let out = ok(dama(&[
        "bench",
        "search",
        "--eval",
        n,
        "--positions",
        "2",
        "--depth",
        "3",
        "--rounds",
        "1",
    ]));
    assert!(out.contains("learned / handcrafted nodes/s"), "{out}");

    // A corrupt evaluator file is refused by name.
    let bad = tmp.path().join("bad.nnue");
    std::fs::write(&bad, b"DAMANNUE").unwrap();
    let spec = format!("alphabeta:depth=2,eval={}", bad.display());
    let e = err(dama(&[
        "eval", "--a", &spec, "--b", "greedy", "--games", "2",
    ]));
    assert!(e.contains("bad.nnue"), "{e}");
}
