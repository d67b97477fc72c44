//! `dama perft` for every game: standard Turkish draughts, its variants
//! (`--rules`) and Turkish Tafl (`--game tafl`), against the counts the
//! game crates freeze (`crates/engine/tests/data/*.perft`, the perft of
//! `dama_tafl`'s crate docs and bench), and bad `--game`/`--rules`/
//! `--position` refused by name.

// Helpers outside #[test] functions unwrap too: this is test code.
#![allow(clippy::unwrap_used)]

use crate::common::{dama, err, ok};
use dama_tafl::{Game, Side, TaflRules};

/// The node count `dama perft` prints last, with `args` after `perft`.
fn perft(args: &[&str]) -> u64 {
    let mut all = vec!["perft"];
    all.extend_from_slice(args);
    let out = ok(dama(&all));
    out.lines().last().unwrap().parse().unwrap()
}

/// `perft` with `--divide`: the root moves' counts, and the total.
fn divide(args: &[&str]) -> (Vec<(String, u64)>, u64) {
    let mut all = vec!["perft", "--divide"];
    all.extend_from_slice(args);
    let out = ok(dama(&all));
    let mut lines: Vec<&str> = out.lines().collect();
    let total = lines.pop().unwrap().parse().unwrap();
    let moves = lines
        .iter()
        .map(|l| {
            let (m, n) = l.split_once(": ").unwrap();
            (m.to_owned(), n.parse().unwrap())
        })
        .collect();
    (moves, total)
}

#[test]
fn standard_draughts_matches_the_frozen_counts() {
    // crates/engine/tests/data/startpos.perft
    for (depth, nodes) in [(1, 8), (2, 64), (3, 708), (4, 7538)] {
        assert_eq!(perft(&["--depth", &depth.to_string()]), nodes);
    }
    // `--game draughts` and `--rules default` are the defaults.
    assert_eq!(
        perft(&["--depth", "4", "--game", "draughts", "--rules", "default"]),
        7538
    );
    // Split over threads, or by root move, the count is the same.
    assert_eq!(perft(&["--depth", "5", "--threads", "2"]), 85090);
    let (moves, total) = divide(&["--depth", "3"]);
    assert_eq!((moves.len(), total), (8, 708));
    assert_eq!(moves.iter().map(|(_, n)| n).sum::<u64>(), 708);

    // crates/engine/tests/data/rules.perft: a position, and the rule that
    // crowns a man mid-capture, from --rules or its own flag.
    let pos = ["--position", "W:Wd6:Bd7,Kf8,g5"];
    assert_eq!(perft(&[&pos[..], &["--depth", "2"]].concat()), 3);
    let crowned = [&pos[..], &["--depth", "1"]].concat();
    assert_eq!(perft(&crowned), 1);
    let rules = ["--rules", "promotion=continue_as_king"];
    assert_eq!(perft(&[&crowned[..], &rules].concat()), 4);
    assert_eq!(perft(&[&crowned[..], &["--crown-mid-capture"]].concat()), 4);
    let black = ["--position", "B:Wb2,Kc1,d3:Bb3"];
    assert_eq!(perft(&[&black[..], &["--depth", "3"]].concat()), 32);
    assert_eq!(perft(&[&black[..], &["--depth", "1"], &rules].concat()), 5);
}

#[test]
fn variants_follow_the_rules_text() {
    // crates/engine/tests/data/croda.perft
    for (depth, nodes) in [(1, 22), (2, 484), (3, 10494)] {
        let d = depth.to_string();
        assert_eq!(perft(&["--depth", &d, "--rules", "variant=croda"]), nodes);
    }
    assert_eq!(
        perft(&[
            "--depth",
            "3",
            "--position",
            "W:Wd4:BKh8",
            "--rules",
            "variant=croda"
        ]),
        126
    );
    // crates/engine/tests/data/dameo.perft, with an option after the
    // variant (it changes the draw rules only, not the tree).
    for (depth, nodes) in [(1, 52), (2, 2704), (3, 135930)] {
        let d = depth.to_string();
        let rules = "variant=dameo,no_capture_limit=off";
        assert_eq!(perft(&["--depth", &d, "--rules", rules]), nodes);
    }
    let (moves, total) = divide(&[
        "--depth",
        "3",
        "--position",
        "W:Wd1,d2,d3:BKh8",
        "--rules",
        "variant=dameo",
        "--threads",
        "2",
    ]);
    assert_eq!((moves.len(), total), (9, 1467));
}

#[test]
fn turkish_tafl_matches_its_crate() {
    // dama_tafl's crate docs (6 moves, perft 4 = 4497) and its bench
    // (perft 5 = 30329).
    let tafl = ["--game", "tafl"];
    assert_eq!(perft(&[&tafl[..], &["--depth", "1"]].concat()), 6);
    assert_eq!(perft(&[&tafl[..], &["--depth", "4"]].concat()), 4497);
    assert_eq!(
        perft(&[&tafl[..], &["--depth", "5", "--threads", "2"]].concat()),
        30329
    );
    let (moves, total) = divide(&[&tafl[..], &["--depth", "4"]].concat());
    assert_eq!((moves.len(), total), (6, 4497));
    assert!(moves.iter().any(|(m, _)| m == "c5-c4"), "{moves:?}");

    // The initial position as text is the same tree.
    let start = Game::new(TaflRules::default()).position().to_string();
    assert_eq!(
        perft(&[&tafl[..], &["--depth", "4", "--position", &start]].concat()),
        4497
    );
    // Rules text: the King side first, counted by the crate's own perft.
    let rules = TaflRules {
        first: Side::KingSide,
        ..TaflRules::default()
    };
    let expected = dama_tafl::perft(&Game::new(rules), 3);
    assert_eq!(
        perft(&[&tafl[..], &["--depth", "3", "--rules", "first=king_side"]].concat()),
        expected
    );
}

#[test]
fn bad_games_rules_and_positions_are_refused_by_name() {
    let e = err(dama(&["perft", "--depth", "1", "--game", "chess"]));
    assert!(
        e.contains("--game") && e.contains("unknown game `chess`"),
        "{e}"
    );

    let e = err(dama(&["perft", "--depth", "1", "--rules", "variant=chess"]));
    assert!(e.contains("--rules") && e.contains("variant=chess"), "{e}");
    let e = err(dama(&["perft", "--depth", "1", "--rules", "nonsense"]));
    assert!(e.contains("bad Turkish draughts rules"), "{e}");

    // Each game's rules, given to the other game, are named.
    let e = err(dama(&[
        "perft",
        "--depth",
        "1",
        "--rules",
        "first=king_side",
    ]));
    assert!(e.contains("are Turkish Tafl rules"), "{e}");
    let e = err(dama(&[
        "perft",
        "--depth",
        "1",
        "--game",
        "tafl",
        "--rules",
        "variant=croda",
    ]));
    assert!(e.contains("are Turkish draughts rules"), "{e}");
    let e = err(dama(&[
        "perft",
        "--depth",
        "1",
        "--game",
        "tafl",
        "--rules",
        "ply_limit=0",
    ]));
    assert!(
        e.contains("bad Turkish Tafl rules") && e.contains("ply_limit"),
        "{e}"
    );
    let e = err(dama(&[
        "perft",
        "--depth",
        "1",
        "--game",
        "tafl",
        "--crown-mid-capture",
    ]));
    assert!(e.contains("--crown-mid-capture"), "{e}");

    let e = err(dama(&["perft", "--depth", "1", "--position", "W:Wz9"]));
    assert!(e.contains("bad --position `W:Wz9`"), "{e}");
    let e = err(dama(&[
        "perft",
        "--depth",
        "1",
        "--game",
        "tafl",
        "--position",
        "W:Wh8:Ba1",
    ]));
    assert!(e.contains("bad --position `W:Wh8:Ba1`"), "{e}");
}
