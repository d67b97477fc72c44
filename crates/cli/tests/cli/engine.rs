//! `engine:PATH`: another program as an arena player over dama's line
//! protocol, here `dama bot` itself behind a wrapper script (what a frozen
//! build of an earlier commit is), in Turkish draughts and Turkish Tafl;
//! engines that answer an illegal move, an error or nothing, or that exit,
//! end the match with an error that names them.

#![allow(clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::{dama, err, ok, DAMA};

/// An executable shell script at `dir/name` running `body`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The `score` line's wins, draws and losses of player A.
fn wdl(out: &str) -> (u32, u32, u32) {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("A: +"))
        .unwrap_or_else(|| panic!("no result line in {out}"));
    let num = |c: char| -> u32 {
        let i = line.find(c).unwrap();
        line[i + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap()
    };
    (num('+'), num('='), num('-'))
}

#[test]
fn a_program_on_the_line_protocol_plays_matches() {
    let tmp = tempfile::tempdir().unwrap();
    let ab = script(
        tmp.path(),
        "ab2.sh",
        &format!("exec '{DAMA}' bot --bot alphabeta:depth=2 --tablebase ''"),
    );
    let spec = format!("engine:{}", ab.display());
    let out = ok(dama(&[
        "eval",
        "--a",
        &spec,
        "--b",
        "random",
        "--games",
        "6",
        "--threads",
        "2",
    ]));
    let (w, d, l) = wdl(&out);
    assert_eq!(w + d + l, 6, "{out}");
    assert!(
        w >= 4,
        "alpha-beta at depth 2 over the protocol beat random only {w} of 6:\n{out}"
    );

    // The same engine in Turkish Tafl, with a time per move.
    let tafl = script(
        tmp.path(),
        "tafl.sh",
        &format!("exec '{DAMA}' bot --game tafl --bot alphabeta:depth=1"),
    );
    let spec = format!("engine:{},time=50", tafl.display());
    let out = ok(dama(&[
        "eval",
        "--game",
        "tafl",
        "--a",
        &spec,
        "--b",
        "random",
        "--games",
        "2",
        "--threads",
        "1",
    ]));
    assert!(out.contains("Defenders"), "{out}");
}

#[test]
fn broken_engines_end_the_match_with_their_name() {
    let tmp = tempfile::tempdir().unwrap();
    // Answers the protocol's framing, but with a move that is not legal.
    let illegal = script(
        tmp.path(),
        "illegal.sh",
        "while read -r line; do case \"$line\" in go*) echo 'bestmove a1-a2';; quit) echo bye; exit 0;; *) echo ok;; esac; done",
    );
    let silent = script(tmp.path(), "silent.sh", "exit 3");
    let erring = script(
        tmp.path(),
        "erring.sh",
        "while read -r line; do case \"$line\" in go*) echo 'error out of ideas';; *) echo ok;; esac; done",
    );
    for (engine, want) in [
        (&illegal, "not a legal move"),
        (&silent, "exited"),
        (&erring, "out of ideas"),
    ] {
        let spec = format!("engine:{}", engine.display());
        let e = err(dama(&[
            "eval",
            "--a",
            &spec,
            "--b",
            "random",
            "--games",
            "2",
            "--threads",
            "1",
        ]));
        assert!(
            e.contains(want) && e.contains(&engine.display().to_string()),
            "{want}: {e}"
        );
    }
    let e = err(dama(&[
        "eval", "--a", "engine:", "--b", "random", "--games", "2",
    ]));
    assert!(e.contains("engine:PATH"), "{e}");
    let e = err(dama(&[
        "eval",
        "--a",
        "engine:/no/such/program",
        "--b",
        "random",
        "--games",
        "2",
    ]));
    assert!(
        e.contains("cannot start the engine /no/such/program"),
        "{e}"
    );
}

/// `scripts/independent_engine.py`: a Turkish draughts engine written apart
/// from dama's code, from the rules text alone (shared/rules). Its move
/// generator and dama's count the same trees, from the start and from
/// positions with flying kings, the 180° ban, a man crossing the last row
/// mid-capture and long king captures; and it plays whole games against
/// dama's engine, every move of both checked by the arena.
#[test]
fn an_engine_written_apart_agrees_on_the_rules() {
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/independent_engine.py");
    let last_number = |out: &str| -> u64 {
        out.split_whitespace()
            .rev()
            .find_map(|w| w.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no count in {out}"))
    };
    for (position, depth) in [
        ("startpos", "4"),
        ("W:WKd4:Bf4,b4,h8", "4"),
        ("W:Wc6,a2:Bc7,Kd8,e5,h7", "4"),
        ("W:WKb2:Bb4,d6,f4,d2,a5,h8", "4"),
        ("B:Wd5,e4,c2,Kh1,f6:Bd6,Ka8,g5,c4", "3"),
        ("W:Wb4,d4,e5,Kh2:Bb6,c5,d6,f5,Ka8,Kg8", "4"),
    ] {
        let theirs = ok(std::process::Command::new(&engine).args([
            "--perft",
            depth,
            "--position",
            position,
        ]));
        let ours = ok(dama(&["perft", "--depth", depth, "--position", position]));
        assert_eq!(
            last_number(&theirs),
            last_number(&ours),
            "perft {depth} of {position}: the independent engine {theirs}, dama {ours}"
        );
    }
    let spec = format!("engine:{},time=50", engine.display());
    let out = ok(dama(&[
        "eval",
        "--a",
        "alphabeta:depth=2",
        "--b",
        &spec,
        "--games",
        "2",
        "--threads",
        "2",
    ]));
    let (w, d, l) = wdl(&out);
    assert_eq!(w + d + l, 2, "{out}");
}
