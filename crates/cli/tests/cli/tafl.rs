//! Turkish Tafl through the command line: `dama eval` with results per
//! side, `dama ladder` on a Tafl run, `dama export` of a Tafl network (a
//! bundle that names its game, loads through libtorch and is refused by
//! the draughts loaders by name).

// Helpers outside #[test] functions unwrap too: this is test code.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use crate::common::{dama, draughts_checkpoint, err, ok, ok_with, save_tafl_network};
use dama_nn::device::Device;

/// `run/models/gen-000{1,2}.safetensors`: small random Tafl networks.
fn tafl_run(root: &Path) -> Vec<PathBuf> {
    let models = root.join("run/models");
    std::fs::create_dir_all(&models).unwrap();
    dama_nn::device::manual_seed(3);
    (1..=2)
        .map(|g| {
            let path = models.join(format!("gen-000{g}.safetensors"));
            save_tafl_network(&path, g);
            path
        })
        .collect()
}

#[test]
fn eval_and_ladder_play_tafl_checkpoints_with_results_per_side() {
    let tmp = tempfile::tempdir().unwrap();
    let ckpts = tafl_run(tmp.path());
    let a = format!("ckpt:{},sims=4", ckpts[1].display());
    let out = ok(dama(&[
        "eval",
        "--a",
        &a,
        "--b",
        "random",
        "--games",
        "4",
        "--device",
        "cpu",
        "--tournament",
    ]));
    assert!(out.contains("Turkish Tafl"), "{out}");
    assert!(
        out.contains("A as Defenders") && out.contains("as King side"),
        "{out}"
    );
    assert!(out.contains("tournament"), "{out}");
    // Baselines alone need --game tafl; draughts-only players are refused.
    let out = ok(dama(&[
        "eval", "--a", "greedy", "--b", "random", "--games", "2", "--game", "tafl",
    ]));
    assert!(out.contains("A as Defenders"), "{out}");
    // Tafl's alpha-beta searches to a depth or within a time.
    let out = ok(dama(&[
        "eval",
        "--a",
        "alphabeta:time=20",
        "--b",
        "random",
        "--games",
        "2",
        "--game",
        "tafl",
    ]));
    assert!(out.contains("A as Defenders"), "{out}");
    let e = err(dama(&[
        "eval",
        "--a",
        "alphabeta:time=0",
        "--b",
        "random",
        "--games",
        "2",
        "--game",
        "tafl",
    ]));
    assert!(e.contains("time must be in 1..="), "{e}");
    // Pure MCTS is written once for every game.
    let out = ok(dama(&[
        "eval",
        "--a",
        "mcts:sims=10",
        "--b",
        "random",
        "--games",
        "2",
        "--game",
        "tafl",
    ]));
    assert!(out.contains("A as Defenders"), "{out}");
    // One match plays one game.
    let d = draughts_checkpoint(tmp.path());
    let b = format!("ckpt:{},sims=4", d.display());
    let e = err(dama(&["eval", "--a", &a, "--b", &b, "--games", "2"]));
    assert!(e.contains("one match plays one game"), "{e}");
    // A Tafl network in a draughts match is refused by name.
    let e = err(dama(&[
        "eval", "--a", &a, "--b", "random", "--games", "2", "--game", "draughts",
    ]));
    assert!(e.contains("Turkish Tafl"), "{e}");

    let run = tmp.path().join("run");
    let out = ok(dama(&[
        "ladder",
        "--run",
        run.to_str().unwrap(),
        "--games",
        "2",
        "--sims",
        "2",
        "--baselines",
        "random,greedy",
        "--device",
        "cpu",
    ]));
    assert!(
        out.contains("as Defenders") && out.contains("gen-0002"),
        "{out}"
    );
    assert!(run.join("eval/ladder.csv").is_file());
    assert!(run.join("eval/ladder-matches.json").is_file());
}

#[test]
fn a_tafl_bundle_names_its_game_and_is_refused_by_draughts_loaders() {
    let tmp = tempfile::tempdir().unwrap();
    let ckpts = tafl_run(tmp.path());
    let out_dir = tmp.path().join("bundle");
    let out = ok(dama(&[
        "export",
        "--checkpoint",
        ckpts[0].to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]));
    assert!(out.contains("Turkish Tafl"), "{out}");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("bundle.json")).unwrap())
            .unwrap();
    assert_eq!(meta["game"], "tafl");
    assert_eq!(meta["input_planes"], 12);
    assert_eq!(meta["policy_size"], 288);
    assert!(meta["game_rules_text"].is_string(), "{meta}");
    assert!(meta.get("tafl_rules").is_none(), "{meta}");
    assert!(meta["check"]["libtorch_max_wdl_diff"].as_f64().unwrap() <= 1e-4);
    // The Python side is the example on dama's Python module, for Tafl as
    // for every game; the README is the Tafl one.
    assert!(out_dir.join("bundle_example.py").is_file());
    assert!(!out_dir.join("dama_py").exists());
    let readme = std::fs::read_to_string(out_dir.join("README.md")).unwrap();
    assert!(readme.contains("Turkish Tafl") && readme.contains("[B, 12, 8, 4]"));
    assert!(
        readme.contains("pip install ./crates/python")
            && readme.contains(&format!(
                "dama.Game(\"tafl\", rules=\"{}\")",
                meta["game_rules_text"].as_str().unwrap()
            ))
            && readme.contains(&format!(
                "g.encoding_version == {}",
                dama_tafl::encode::TAFL_ENCODING_VERSION
            )),
        "{readme}"
    );
    // The bundle loads as a Tafl bundle, and the draughts bot refuses it.
    let bundle = dama_bot::Bundle::load(&out_dir).unwrap();
    assert_eq!(bundle.meta.game, dama_nn::GameName::Tafl);
    bundle.evaluator(Device::Cpu).unwrap();
    let e = dama_bot::Bot::<dama_draughts::Draughts>::new(
        &dama_bot::BotSpec::Bundle(out_dir.clone()),
        &dama_bot::BotOptions::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("Turkish Tafl"), "{e}");
    // `dama bot` plays the bundle as a Tafl bot, on the protocol.
    let bundle_arg = format!("bundle:{}", out_dir.display());
    let text = ok_with(
        dama(&["bot", "--bot", &bundle_arg, "--device", "cpu"]),
        "hello\nposition startpos\ngo sims 8\nquit\n",
    );
    assert!(text.contains("id game tafl"), "{text}");
    let best = text
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove: {text}"));
    let game = dama_tafl::Game::new(dama_tafl::TaflRules::default());
    game.parse_move(best.trim()).unwrap();
    // A bundle.json that claims draughts for this network is refused.
    let mut bad = meta.clone();
    bad["game"] = "draughts".into();
    std::fs::write(out_dir.join("bundle.json"), bad.to_string()).unwrap();
    let e = dama_bot::Bundle::load(&out_dir).unwrap_err().to_string();
    assert!(e.contains("encoding") || e.contains("planes"), "{e}");
}
