//! Issue 27: `dama export --evaluator` writes a bundle of a learned
//! evaluator that `dama analyse`, `dama bot` and `dama play` play with the
//! alpha-beta engine; a bundle whose evaluator file is missing, corrupt or
//! for other rules is refused by name.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use crate::common::{dama, err, ok, ok_with};
use dama_engine::{Rules, Variant};

/// A random learned evaluator under `rules`, as a run would write it.
fn write_net(path: &Path, rules: Rules, generation: u32) {
    let net = dama_nnue::FloatNet::random::<dama_draughts::DraughtsFeatures>(&rules, 11);
    dama_nnue::write_network(path, &net, &[("generation", generation.to_string())]).unwrap();
}

#[test]
fn an_evaluator_bundle_exports_plays_and_refuses_a_damaged_file() {
    let tmp = tempfile::tempdir().unwrap();
    let run = dama_run::RunDir::new(tmp.path().join("runs/nn"));
    std::fs::create_dir_all(run.root()).unwrap();
    write_net(&run.best_evaluator(), Rules::default(), 3);
    let bundle = tmp.path().join("bundle");
    let b = bundle.to_str().unwrap();

    // From the run directory (its best.nnue), at a fixed depth.
    let out = ok(dama(&[
        "export",
        "--evaluator",
        run.root().to_str().unwrap(),
        "--out",
        b,
        "--depth",
        "2",
        "--threads",
        "2",
    ]));
    assert!(out.contains("bundle written to"), "{out}");
    assert!(out.contains("generation 3"), "{out}");
    assert_eq!(
        std::fs::read(bundle.join("evaluator.nnue")).unwrap(),
        std::fs::read(run.best_evaluator()).unwrap()
    );
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(bundle.join("bundle.json")).unwrap())
            .unwrap();
    assert_eq!(meta["format"], 4);
    assert_eq!(meta["kind"], "evaluator");
    assert_eq!(meta["limit"]["depth"], 2);
    assert_eq!(meta["threads"], 2);
    assert_eq!(meta["generation"], 3);
    let readme = std::fs::read_to_string(bundle.join("README.md")).unwrap();
    assert!(readme.contains("dama play --bundle"), "{readme}");
    // From Python, the bundle is a player spec of dama's module.
    assert!(
        readme.contains("dama.Player(\"alphabeta:depth=2,")
            && readme.contains("pip install ./crates/python"),
        "{readme}"
    );

    // analyse: the engine's move at the bundle's depth.
    let out = ok(dama(&["analyse", "--bundle", b, "--position", "startpos"]));
    assert!(out.contains("depth 2"), "{out}");
    let out = ok(dama(&[
        "analyse",
        "--bundle",
        b,
        "--position",
        "startpos",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["bot"], format!("bundle:{b}"));
    assert!(v["analysis"]["best"].is_string(), "{out}");

    // bot: the protocol, the bundle named in `hello`.
    let out = ok_with(
        dama(&["bot", "--bundle", b]),
        "hello\nposition startpos moves d3-d4\ngo\ngo time 50\nquit\n",
    );
    assert!(out.contains(&format!("id bot bundle:{b}")), "{out}");
    assert!(out.contains("id evaluator threads 2 generation 3"), "{out}");
    assert!(out.contains("id limit depth 2"), "{out}");
    assert_eq!(out.matches("bestmove ").count(), 2, "{out}");
    assert!(out.contains("score_cm"), "{out}");
    let out = ok_with(
        dama(&[
            "play",
            "--bot",
            &format!("bundle:{b}"),
            "--color",
            "black",
            "--no-save",
        ]),
        "resign\n",
    );
    assert!(out.contains("depth 2"), "{out}");
    assert!(out.contains("plays "), "{out}");

    // A time limit is the bot's default limit, and --time replaces it.
    let timed = tmp.path().join("timed");
    let file = tmp.path().join("fit.nnue");
    write_net(&file, Rules::default(), 1);
    let out = ok(dama(&[
        "export",
        "--evaluator",
        file.to_str().unwrap(),
        "--out",
        timed.to_str().unwrap(),
        "--time",
        "40",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["limit"]["time_ms"], 40);
    let out = ok_with(
        dama(&["bot", "--bundle", timed.to_str().unwrap()]),
        "hello\nquit\n",
    );
    assert!(out.contains("id limit time 40"), "{out}");
    let out = ok_with(
        dama(&["bot", "--bundle", timed.to_str().unwrap(), "--time", "30"]),
        "hello\nquit\n",
    );
    assert!(out.contains("id limit time 30"), "{out}");

    // Options of the other kind of export, and bounds, are refused.
    let e = err(dama(&[
        "export",
        "--evaluator",
        b,
        "--out",
        b,
        "--sims",
        "5",
    ]));
    assert!(e.contains("--sims"), "{e}");
    let e = err(dama(&["export", "--out", b, "--depth", "3"]));
    assert!(
        e.contains("--evaluator") || e.contains("--checkpoint"),
        "{e}"
    );
    let e = err(dama(&[
        "export",
        "--evaluator",
        file.to_str().unwrap(),
        "--out",
        tmp.path().join("x").to_str().unwrap(),
        "--threads",
        "65",
    ]));
    assert!(e.contains("threads must be in 1..=64"), "{e}");
    let e = err(dama(&[
        "export",
        "--evaluator",
        tmp.path().to_str().unwrap(),
        "--out",
        tmp.path().join("y").to_str().unwrap(),
    ]));
    assert!(e.contains("without best.nnue"), "{e}");

    // A corrupted evaluator file in the bundle (one byte flipped: same
    // size) is refused by every command, by name.
    let nnue = bundle.join("evaluator.nnue");
    let good = std::fs::read(&nnue).unwrap();
    let mut bad = good.clone();
    bad[1000] ^= 0x40;
    std::fs::write(&nnue, &bad).unwrap();
    let e = err(dama(&["analyse", "--bundle", b, "--position", "startpos"]));
    assert!(
        e.contains("evaluator.nnue is corrupt or was replaced"),
        "{e}"
    );
    let e = err(dama(&["bot", "--bundle", b]));
    assert!(e.contains("corrupt"), "{e}");
    // bundle.json updated to the damaged file: the file's own checksum.
    let mut m = meta.clone();
    m["evaluator_fnv1a64"] = format!("{:016x}", dama_run::files::fnv1a64(&bad)).into();
    std::fs::write(bundle.join("bundle.json"), m.to_string()).unwrap();
    let e = err(dama(&["analyse", "--bundle", b]));
    assert!(e.contains("checksum mismatch"), "{e}");
    // Missing.
    std::fs::remove_file(&nnue).unwrap();
    let e = err(dama(&["analyse", "--bundle", b]));
    assert!(e.contains("evaluator.nnue is missing"), "{e}");
    // For other rules than bundle.json's.
    write_net(&nnue, Rules::for_variant(Variant::Armenian), 3);
    let bytes = std::fs::read(&nnue).unwrap();
    let mut m = meta.clone();
    m["evaluator_bytes"] = bytes.len().into();
    m["evaluator_fnv1a64"] = format!("{:016x}", dama_run::files::fnv1a64(&bytes)).into();
    std::fs::write(bundle.join("bundle.json"), m.to_string()).unwrap();
    let e = err(dama(&["bot", "--bundle", b]));
    assert!(e.contains("trained for rules"), "{e}");
    // A bundle format this build does not know.
    let mut m = meta;
    m["format"] = 99.into();
    std::fs::write(bundle.join("bundle.json"), m.to_string()).unwrap();
    let e = err(dama(&["analyse", "--bundle", b]));
    assert!(e.contains("bundle format 99"), "{e}");
}

/// Issue 39: a Turkish Tafl evaluator exports as a Tafl bundle (the file's
/// feature set names the game) that `dama bot` and `dama analyse` play as
/// Tafl's alpha-beta engine, and `--game draughts` refuses by name.
#[test]
fn a_tafl_evaluator_bundle_plays_tafl() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("tafl.nnue");
    let rules = dama_tafl::TaflRules::default();
    let net = dama_nnue::FloatNet::random::<dama_tafl::TaflFeatures>(&rules, 3);
    dama_nnue::write_network(&file, &net, &[]).unwrap();
    let bundle = tmp.path().join("bundle");
    let b = bundle.to_str().unwrap();
    let out = ok(dama(&[
        "export",
        "--evaluator",
        file.to_str().unwrap(),
        "--out",
        b,
        "--depth",
        "2",
    ]));
    assert!(out.contains("Turkish Tafl's alpha-beta"), "{out}");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(bundle.join("bundle.json")).unwrap())
            .unwrap();
    assert_eq!(meta["game"], "tafl");
    assert_eq!(meta["game_rules_text"], rules.to_string());

    let out = ok_with(dama(&["bot", "--bundle", b]), "hello\ngo\nquit\n");
    assert!(out.contains("id game tafl"), "{out}");
    assert!(out.contains("id limit depth 2"), "{out}");
    assert_eq!(out.matches("bestmove ").count(), 1, "{out}");
    let out = ok(dama(&["analyse", "--bundle", b, "--position", "startpos"]));
    assert!(out.contains("depth 2"), "{out}");
    let e = err(dama(&["bot", "--bundle", b, "--game", "draughts"]));
    assert!(e.contains("Turkish Tafl"), "{e}");
}
