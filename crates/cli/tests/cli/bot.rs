//! Issue 8 end to end: `dama export` a checkpoint, load the bundle in Rust
//! (`dama analyse`, `dama play`, `dama bot`), drive it from Python
//! (`scripts/test_bot_protocol.py`), and bad bundles, moves and commands
//! answered with errors rather than panics. Issue 14: the export runs
//! without Python. Issue 41: the bundle's Python side is `bundle_example.py`
//! on dama's Python module; `crates/python/tests` (scripts/test-python.sh,
//! which builds the module) runs it from a bundle against `dama analyse`.
//!
//! Needs the Python of `scripts/setup-torch.sh` for the protocol script
//! (found by [`dama_bot::find_python`]: `$DAMA_VENV`, the cache venv, then
//! `python3`).

// Helpers outside #[test] functions unwrap too: this is test code.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{dama, err, ok, ok_with, DAMA};
use dama_engine::{GameRecord, Rules};
use dama_nn::{device::Device, ModelConfig, Network};

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts")
}

fn python() -> PathBuf {
    dama_bot::find_python(None)
        .expect("no Python with PyTorch: run scripts/setup-torch.sh or set DAMA_VENV")
}

/// A run directory with a checkpoint `models/gen-0001.safetensors` of a
/// small random network (with squeeze-excitation) and an eval line in
/// `metrics.jsonl`.
fn checkpoint(root: &Path) -> PathBuf {
    let models = root.join("run/models");
    std::fs::create_dir_all(&models).unwrap();
    dama_nn::device::manual_seed(8);
    let config = ModelConfig {
        blocks: 2,
        channels: 16,
        se_channels: 4,
        policy_channels: 8,
        value_channels: 2,
        value_hidden: 16,
        ..ModelConfig::default()
    };
    let net = Network::new(&config, Device::Cpu).unwrap();
    let path = models.join("gen-0001.safetensors");
    dama_nn::save_network(&net, Rules::default(), 42, &path).unwrap();
    std::fs::write(
        root.join("run/metrics.jsonl"),
        "{\"kind\":\"eval\",\"generation\":1,\"step\":42,\"opponent\":\"random\",\"games\":20,\
         \"score\":0.75,\"elo\":190.8,\"elo_lo\":40.0,\"elo_hi\":380.0}\n",
    )
    .unwrap();
    path
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[test]
fn export_then_play_analyse_and_drive_the_bundle() {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("issue8-bot");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let ckpt = checkpoint(&root);
    let bundle = root.join("bundle");
    let py = python();
    let b = bundle.to_str().unwrap();
    let c = ckpt.to_str().unwrap();

    // Export: no Python involved (issue 14), so no interpreter on PATH.
    let out = ok(dama(&["export", "--checkpoint", c, "--out", b, "--sims", "16"]).env("PATH", ""));
    assert!(out.contains("bundle written"), "{out}");
    for f in [
        "model.ts",
        "bundle.json",
        "README.md",
        "weights.safetensors",
        "weights.json",
        "bundle_example.py",
    ] {
        assert!(bundle.join(f).is_file(), "{f} missing");
    }
    // The example is the repository's, and no pure-Python rules travel with
    // it: the README sends the user to dama's Python module for positions,
    // legal actions and encodings.
    assert_eq!(
        std::fs::read_to_string(bundle.join("bundle_example.py")).unwrap(),
        std::fs::read_to_string(scripts().join("bundle_example.py")).unwrap()
    );
    assert!(!bundle.join("dama_py").exists());
    let readme = std::fs::read_to_string(bundle.join("README.md")).unwrap();
    for needle in [
        "pip install ./crates/python".to_owned(),
        "import torch, dama".to_owned(),
        format!("dama.Game(\"draughts\", rules=\"{}\")", Rules::default()),
        format!(
            "g.encoding_version == {}",
            dama_draughts::encode::ENCODING_VERSION
        ),
        "g.encode()".to_owned(),
        "g.actions()".to_owned(),
        "[B, 13, 8, 8]".to_owned(),
    ] {
        assert!(
            readme.contains(&needle),
            "README lacks `{needle}`:\n{readme}"
        );
    }
    assert!(!bundle.join(".export-check").exists());
    let meta = json(&std::fs::read_to_string(bundle.join("bundle.json")).unwrap());
    assert_eq!(
        meta["encoding_version"],
        dama_draughts::encode::ENCODING_VERSION
    );
    assert_eq!(meta["step"], 42);
    assert_eq!(meta["generation"], 1);
    assert_eq!(meta["search"]["simulations"], 16);
    assert_eq!(meta["elo"][0]["opponent"], "random");
    // The PyTorch side of the check (`torch.jit.load` within 1e-4) is the
    // Python example below, run from the bundle.
    let check = &meta["check"];
    for k in ["libtorch_max_policy_logit_diff", "libtorch_max_wdl_diff"] {
        let d = check[k].as_f64().unwrap();
        assert!(d <= 1e-4, "{k} = {d}");
    }
    let sizes = check["batch_sizes"].as_array().unwrap();
    assert!(sizes.len() >= 2 && sizes.contains(&1.into()), "{sizes:?}");

    // analyse: the bundle (TorchScript) and the checkpoint (tch) agree.
    let pos = "B:Wa2,b2,c3,d3,Kd4:Ba7,b6,c6,Kh8";
    let via_bundle = json(&ok(&mut dama(&[
        "analyse",
        "--bundle",
        b,
        "--position",
        pos,
        "--sims",
        "24",
        "--json",
    ])));
    let via_ckpt = json(&ok(&mut dama(&[
        "analyse",
        "--checkpoint",
        c,
        "--position",
        pos,
        "--sims",
        "24",
        "--json",
    ])));
    for i in 0..3 {
        let (x, y) = (
            via_bundle["network"]["wdl"][i].as_f64().unwrap(),
            via_ckpt["network"]["wdl"][i].as_f64().unwrap(),
        );
        assert!((x - y).abs() < 1e-4, "wdl {i}: {x} vs {y}");
    }
    let top = via_bundle["analysis"]["top"].as_array().unwrap();
    assert!(!top.is_empty());
    let best = via_bundle["analysis"]["best"].as_str().unwrap();
    let legal: Vec<String> = pos
        .parse::<dama_engine::Position>()
        .unwrap()
        .legal_moves()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(legal.iter().any(|m| m == best), "{best} not in {legal:?}");
    let text = ok(&mut dama(&["analyse", "--bundle", b, "--sims", "8"]));
    assert!(text.contains("eval ") && text.contains("share"), "{text}");

    // The protocol, driven by its script.
    let out = ok(Command::new(&py)
        .arg(scripts().join("test_bot_protocol.py"))
        .arg("--dama")
        .arg(DAMA)
        .arg("--bot")
        .arg(format!("bundle:{b}"))
        .arg("--network"));
    assert!(out.contains("protocol ok"), "{out}");

    // play: a bad entry, an illegal move, a move, undo, resign; the record.
    let record = root.join("game.pdn");
    let stdout = ok_with(
        dama(&[
            "play", "--bundle", b, "--sims", "8", "--color", "white", "--save",
        ])
        .arg(&record),
        "zz9\ne3-e5\nmoves\nd3-d4\nundo\nc3-c4\nresign\n",
    );
    assert!(stdout.contains("illegal move `zz9`"), "{stdout}");
    assert!(stdout.contains("illegal move `e3-e5`"), "{stdout}");
    assert!(stdout.contains("legal moves: a3-a4"), "{stdout}");
    assert!(stdout.contains("took back 2 move(s)"), "{stdout}");
    assert!(
        stdout.contains("plays ") && stdout.contains("eval "),
        "{stdout}"
    );
    let rec: GameRecord = std::fs::read_to_string(&record).unwrap().parse().unwrap();
    assert_eq!(rec.game.moves().len(), 2, "c3-c4 and the reply");
    assert_eq!(rec.game.moves()[0].to_string(), "c3-c4");
    assert_eq!(
        rec.result,
        Some(dama_engine::Outcome::Decisive {
            winner: dama_engine::Color::Black
        })
    );

    // Bad bundles: named errors, no panic.
    let bad = root.join("bad-encoding");
    std::fs::create_dir_all(&bad).unwrap();
    for f in ["model.ts", "weights.safetensors", "weights.json"] {
        std::fs::copy(bundle.join(f), bad.join(f)).unwrap();
    }
    let mut m = meta.clone();
    m["encoding_version"] = 99.into();
    std::fs::write(bad.join("bundle.json"), m.to_string()).unwrap();
    let e = err(&mut dama(&["analyse", "--bundle", bad.to_str().unwrap()]));
    assert!(
        e.contains("encoding version mismatch") && e.contains("99"),
        "{e}"
    );
    // The Turkish-only layout of version 1 is refused by name too.
    let mut m = meta.clone();
    m["encoding_version"] = 1.into();
    std::fs::write(bad.join("bundle.json"), m.to_string()).unwrap();
    let e = err(&mut dama(&["analyse", "--bundle", bad.to_str().unwrap()]));
    assert!(e.contains("encoding version 1"), "{e}");
    std::fs::write(bad.join("bundle.json"), meta.to_string()).unwrap();
    std::fs::write(bad.join("model.ts"), b"not a torchscript archive").unwrap();
    let e = err(&mut dama(&["analyse", "--bundle", bad.to_str().unwrap()]));
    assert!(e.contains("TorchScript"), "{e}");
    std::fs::write(bad.join("bundle.json"), "{ half").unwrap();
    let e = err(&mut dama(&["bot", "--bundle", bad.to_str().unwrap()]));
    assert!(e.contains("does not parse"), "{e}");
    let e = err(&mut dama(&[
        "analyse",
        "--bundle",
        root.join("nothing").to_str().unwrap(),
    ]));
    assert!(e.contains("no such directory"), "{e}");

    // A network plays the variant it was trained for, nothing else.
    for cmd in ["bot", "play"] {
        let e = err(&mut dama(&[cmd, "--bundle", b, "--rules", "variant=croda"]));
        assert!(e.contains("trained for turkish, not croda"), "{cmd}: {e}");
    }

    // Bad command lines.
    let e = err(&mut dama(&[
        "analyse",
        "--bundle",
        b,
        "--position",
        "W:Wq1",
    ]));
    assert!(e.contains("bad position"), "{e}");
    let e = err(&mut dama(&["analyse", "--bundle", b, "--moves", "d3-d5"]));
    assert!(e.contains("d3-d5") && e.contains("legal"), "{e}");
    let e = err(dama(&[
        "export",
        "--checkpoint",
        "/nonexistent.safetensors",
        "--out",
    ])
    .arg(root.join("x")));
    assert!(e.contains("nonexistent"), "{e}");
    // (The export no longer runs Python, so a missing interpreter is no
    // longer an error; an output path that is a file is.)
    let e = err(dama(&["export", "--checkpoint", c, "--out"]).arg(&record));
    assert!(e.contains("is a file"), "{e}");
}

#[test]
fn protocol_and_play_without_a_network() {
    let out = ok(Command::new(python())
        .arg(scripts().join("test_bot_protocol.py"))
        .arg("--dama")
        .arg(DAMA)
        .arg("--bot")
        .arg("mcts:sims=24"));
    assert!(out.contains("protocol ok"), "{out}");

    // Playing Black against alpha-beta, ending the input without resigning.
    let stdout = ok_with(
        dama(&[
            "play",
            "--bot",
            "alphabeta:depth=2",
            "--color",
            "black",
            "--no-save",
        ]),
        "help\nundo\nboard\n",
    );
    assert!(stdout.contains("plays "), "{stdout}");
    assert!(stdout.contains("nothing to undo"), "{stdout}");
    assert!(stdout.contains("(end of input)"), "{stdout}");
    // Black at the bottom: rank 1 is drawn first.
    assert!(stdout.contains("h g f e d c b a"), "{stdout}");
}
