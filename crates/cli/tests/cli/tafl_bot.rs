//! Turkish Tafl bots through the command line: `dama bot` driven over
//! stdin with a Tafl checkpoint, `dama play` with scripted input and its
//! record, `dama analyse`; a network of the other game, or the other
//! game's rules, refused by name.

// Helpers outside #[test] functions unwrap too: this is test code.
#![allow(clippy::unwrap_used)]

use crate::common::{dama, draughts_checkpoint, err, ok, ok_with, tafl_checkpoint};
use dama_tafl::{Game, TaflRules};

/// The `bestmove` of a reply, checked legal in `game`.
fn best_in(out: &str, game: &Game) -> String {
    let best = out
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove: {out}"));
    game.parse_move(best)
        .unwrap_or_else(|e| panic!("{best} is not legal: {e}"));
    best.to_owned()
}

#[test]
fn the_bot_serves_a_tafl_checkpoint_and_refuses_the_other_game() {
    let tmp = tempfile::tempdir().unwrap();
    let ckpt = tafl_checkpoint(tmp.path());
    let c = ckpt.to_str().unwrap();
    let out = ok_with(
        dama(&["bot", "--checkpoint", c]),
        "hello\nposition startpos moves c5-c4\ngo sims 8\nlegal\neval\nmoves a1-a9\nquit\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("id dama-bot "), "{out}");
    assert!(lines.contains(&"id game tafl"), "{out}");
    assert!(
        lines.iter().any(|l| l.starts_with("rules first=defender")),
        "{out}"
    );
    let mut game = Game::new(TaflRules::default());
    let m = game.parse_move("c5-c4").unwrap();
    game.play(&m).unwrap();
    best_in(&out, &game);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info time_ms ") && l.contains(" wdl ")),
        "{out}"
    );
    let legal: Vec<String> = game.legal_moves().iter().map(ToString::to_string).collect();
    assert!(
        lines.contains(&format!("legal {}", legal.join(" ")).as_str()),
        "{out}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info value ") && l.contains(" priors ")),
        "{out}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("error illegal move `a1-a9`; legal: ")),
        "{out}"
    );
    assert_eq!(lines.last(), Some(&"bye"), "{out}");

    // Baselines play Turkish Tafl when asked to.
    let out = ok_with(
        dama(&["bot", "--game", "tafl", "--bot", "greedy"]),
        "go\nquit\n",
    );
    best_in(&out, &Game::new(TaflRules::default()));

    // Each game refuses the other's network and rules by name.
    let draughts = draughts_checkpoint(tmp.path());
    let e = err(dama(&["bot", "--checkpoint", c, "--game", "draughts"]));
    assert!(e.contains("Turkish Tafl network"), "{e}");
    let e = err(dama(&[
        "bot",
        "--checkpoint",
        draughts.to_str().unwrap(),
        "--game",
        "tafl",
    ]));
    assert!(e.contains("Turkish draughts network"), "{e}");
    let e = err(dama(&[
        "bot",
        "--checkpoint",
        c,
        "--rules",
        "variant=croda",
    ]));
    assert!(e.contains("Turkish draughts rules"), "{e}");
    let e = err(dama(&[
        "bot",
        "--game",
        "tafl",
        "--bot",
        "alphabeta:threads=2,depth=2",
    ]));
    assert!(e.contains("searches on one thread"), "{e}");
    // `mcts:` rollouts are the bot's own search, for every game.
    let out = ok_with(
        dama(&["bot", "--game", "tafl", "--bot", "mcts:sims=10"]),
        "go\nquit\n",
    );
    best_in(&out, &Game::new(TaflRules::default()));
}

#[test]
fn play_and_analyse_a_tafl_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let ckpt = tafl_checkpoint(tmp.path());
    let c = ckpt.to_str().unwrap();
    let record = tmp.path().join("game.pdn");
    let out = ok_with(
        dama(&[
            "play",
            "--checkpoint",
            c,
            "--sims",
            "8",
            "--color",
            "white",
            "--save",
            record.to_str().unwrap(),
        ]),
        "zz9\nc5-c3\nmoves\nc5-c4\nundo\nb5-b4\nresign\n",
    );
    assert!(out.contains("you are the Defenders"), "{out}");
    assert!(out.contains("illegal move `zz9`"), "{out}");
    assert!(out.contains("illegal move `c5-c3`"), "{out}");
    assert!(out.contains("legal moves: b5-b4 b5-a5 c5-c4"), "{out}");
    assert!(out.contains("took back 2 move(s)"), "{out}");
    assert!(out.contains("plays ") && out.contains("eval "), "{out}");
    assert!(out.contains(" b | b b K . w w w w | b"), "{out}");
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains("[GameType \"Turkish Tafl\"]"), "{text}");
    assert!(text.contains("[Defenders \"human\"]"), "{text}");
    assert!(text.contains("[Result \"0-1\"]"), "{text}");
    assert!(
        text.contains("[Termination \"defender resigns\"]"),
        "{text}"
    );
    let start = Game::new(TaflRules::default()).position().to_string();
    assert!(text.contains(&format!("[FEN \"{start}\"]")), "{text}");
    assert!(text.contains("\n1. b5-b4 "), "{text}");

    // The King side against alpha-beta, to the end of the input.
    let out = ok_with(
        dama(&[
            "play",
            "--game",
            "tafl",
            "--bot",
            "alphabeta:depth=2",
            "--color",
            "black",
            "--no-save",
        ]),
        "help\nboard\n",
    );
    assert!(out.contains("you are the King side"), "{out}");
    assert!(out.contains("plays ") && out.contains("score "), "{out}");
    assert!(out.contains("(end of input)"), "{out}");

    // analyse: text and JSON.
    let out = ok(dama(&["analyse", "--checkpoint", c, "--sims", "16"]));
    assert!(
        out.contains("eval ") && out.contains("network ") && out.contains("share"),
        "{out}"
    );
    let pos = "B:Wd8:Ba1,a2,a4,Kd1";
    let json: serde_json::Value = serde_json::from_str(&ok(dama(&[
        "analyse",
        "--checkpoint",
        c,
        "--sims",
        "16",
        "--position",
        pos,
        "--json",
    ])))
    .unwrap();
    assert_eq!(json["game"], "tafl");
    assert_eq!(json["turn"], "king_side");
    let game = Game::from_position(pos.parse().unwrap(), TaflRules::default());
    game.parse_move(json["analysis"]["best"].as_str().unwrap())
        .unwrap();
    assert_eq!(
        json["network"]["priors"].as_array().unwrap().len(),
        game.legal_steps().len()
    );
    let e = err(dama(&["analyse", "--checkpoint", c, "--moves", "c5-c3"]));
    assert!(e.contains("c5-c3") && e.contains("legal"), "{e}");
    let e = err(dama(&["analyse", "--checkpoint", c, "--position", "W:Wq1"]));
    assert!(e.contains("bad position"), "{e}");
}
