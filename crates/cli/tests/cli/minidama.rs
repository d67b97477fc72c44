//! The third game, Mini Turkish draughts (`crates/minidama`), registered by
//! one line of the registry and named nowhere else: `dama train` trains
//! it, `dama eval` plays its network in the arena with results per side,
//! `dama bot` serves it over the line protocol, `dama export` bundles it,
//! and `dama perft` counts its moves.

// Helpers outside #[test] functions unwrap too: this is test code.
#![allow(clippy::unwrap_used)]

use crate::common::{dama, err, ok, ok_with};
use dama_game::GameDef;
use dama_minidama::MiniDama;

/// configs/smoke.toml (the smallest network and run) for Mini Turkish
/// draughts, under rules of its own (`[rules]`, the game's options).
fn config(dir: &std::path::Path) -> std::path::PathBuf {
    let smoke = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/smoke.toml");
    let text = std::fs::read_to_string(smoke).unwrap();
    let path = dir.join("mini.toml");
    std::fs::write(
        &path,
        format!("[game]\nname = \"minidama\"\n\n[rules]\nno_capture_limit = 30\n\n{text}"),
    )
    .unwrap();
    path
}

#[test]
fn mini_turkish_draughts_trains_and_plays_through_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(tmp.path());
    let runs = tmp.path().join("runs");
    let out = ok(dama(&[
        "train",
        "--config",
        cfg.to_str().unwrap(),
        "--checkpoints",
        runs.to_str().unwrap(),
        "--run",
        "r",
        "--device",
        "cpu",
        "--quiet",
    ]));
    assert!(out.contains("generation 2"), "{out}");
    let ckpt = runs.join("r/models/gen-0002.safetensors");
    let meta = dama_nn::read_meta(&ckpt).unwrap();
    assert_eq!(meta.game.as_str(), MiniDama::NAME);
    assert_eq!(meta.model.shape(), MiniDama::shape());
    let rules = meta.game_rules().get::<MiniDama>().unwrap();
    assert_eq!(rules.no_capture_limit, Some(30));
    assert_eq!(
        meta.game_rules_text.as_deref(),
        Some(rules.to_string().as_str())
    );
    // `--rules` is read by the game played; a network trained under other
    // rules is refused, and another game's rules are named as such.
    let a4 = format!("ckpt:{},sims=4", ckpt.display());
    let e = err(dama(&[
        "eval",
        "--a",
        &a4,
        "--b",
        "random",
        "--games",
        "2",
        "--rules",
        "no_capture_limit=31",
        "--device",
        "cpu",
    ]));
    assert!(e.contains("no_capture_limit"), "{e}");
    let e = err(dama(&[
        "eval",
        "--a",
        "random",
        "--b",
        "random",
        "--games",
        "2",
        "--game",
        "minidama",
        "--rules",
        "variant=croda",
    ]));
    assert!(
        e.contains("variant=croda") && e.contains(MiniDama::TITLE),
        "{e}"
    );

    // The arena: its network against random, results per side.
    let a = format!("ckpt:{},sims=4", ckpt.display());
    let out = ok(dama(&[
        "eval", "--a", &a, "--b", "random", "--games", "4", "--device", "cpu",
    ]));
    assert!(out.contains(MiniDama::TITLE), "{out}");
    assert!(
        out.contains("A as White") && out.contains("as Black"),
        "{out}"
    );
    // Its baselines are the players written once for every game (pure
    // MCTS here); another game's are refused by name.
    let out = ok(dama(&[
        "eval",
        "--a",
        "mcts:sims=8",
        "--b",
        "random",
        "--games",
        "2",
        "--game",
        "minidama",
    ]));
    assert!(out.contains("A as White"), "{out}");
    let e = err(dama(&[
        "eval",
        "--a",
        "alphabeta:depth=2",
        "--b",
        "random",
        "--games",
        "2",
        "--game",
        "minidama",
    ]));
    assert!(e.contains(MiniDama::TITLE), "{e}");

    // The line protocol, with its network.
    let out = ok_with(
        dama(&["bot", "--checkpoint", ckpt.to_str().unwrap()]),
        "hello\nposition startpos moves b2-b3\ngo sims 8\nlegal\nquit\n",
    );
    assert!(out.lines().any(|l| l == "id game minidama"), "{out}");
    let mut game = MiniDama::start(&Default::default());
    let m = MiniDama::parse_move(&game, "b2-b3").unwrap();
    MiniDama::play(&mut game, &m).unwrap();
    let best = out
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove: {out}"));
    MiniDama::parse_move(&game, best).unwrap_or_else(|e| panic!("{best}: {e}"));
    assert_eq!(out.lines().last(), Some("bye"), "{out}");

    // A bundle of it, read back.
    let bundle = tmp.path().join("bundle");
    let out = ok(dama(&[
        "export",
        "--checkpoint",
        ckpt.to_str().unwrap(),
        "--out",
        bundle.to_str().unwrap(),
    ]));
    assert!(out.contains(MiniDama::TITLE), "{out}");
    let json = std::fs::read_to_string(bundle.join("bundle.json")).unwrap();
    assert!(json.contains("\"minidama\""), "{json}");
    let meta: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        meta["game_rules_text"],
        rules.to_string().as_str(),
        "{json}"
    );
    let readme = std::fs::read_to_string(bundle.join("README.md")).unwrap();
    assert!(
        readme.contains(MiniDama::TITLE) && readme.contains(&rules.to_string()),
        "{readme}"
    );

    // perft: the counts its reference generator gives (crates/minidama/tests).
    let out = ok(dama(&["perft", "--game", "minidama", "--depth", "4"]));
    assert_eq!(out.lines().last(), Some("2136"), "{out}");
}
