//! `dama bot --protocol hub`: Scan's Hub protocol, driven by pydraughts'
//! own Hub client (a program nobody here wrote, installed into the
//! project's venv by `scripts/setup-notebooks.sh`) through whole games
//! (`scripts/test_hub_pydraughts.py`), every reply checked against dama's
//! rules here; and by hand: bad input, `ping` during a search, `stop`.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{err, DAMA};

/// The start position in Hub form (a8 first).
const START: &str = "Weeeeeeeebbbbbbbbbbbbbbbbeeeeeeeeeeeeeeeewwwwwwwwwwwwwwwweeeeeeee";

fn python() -> std::path::PathBuf {
    dama_bot::find_python(None).expect("no Python: run scripts/setup-notebooks.sh")
}

#[test]
fn pydraughts_plays_whole_games_through_dama_over_hub() {
    let py = python();
    let has = Command::new(&py)
        .args(["-c", "import draughts.engine"])
        .output()
        .expect("run python");
    assert!(
        has.status.success(),
        "pydraughts is missing from {}: run scripts/setup-notebooks.sh",
        py.display()
    );
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("hub.jsonl");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/test_hub_pydraughts.py"
    );
    let out = Command::new(&py)
        .arg(script)
        .args(["--dama", DAMA, "--games", "8", "--log"])
        .arg(&log)
        .output()
        .expect("run the pydraughts script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "stdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{stdout}");
    assert!(stdout.contains("hub: 8 games"), "{stdout}");
    // Every reply is legal in dama's rules in the position pydraughts sent.
    let text = std::fs::read_to_string(&log).unwrap();
    let mut replies = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let (pos, moves, reply) = (
            v["pos"].as_str().unwrap(),
            v["moves"].as_str().unwrap(),
            v["reply"].as_str().unwrap(),
        );
        let game = dama_bot::hub_game(pos, moves, dama_engine::Rules::default())
            .unwrap_or_else(|e| panic!("pydraughts sent `{pos}` `{moves}`: {e}"));
        let m = dama_bot::parse_hub_move(&game, reply)
            .unwrap_or_else(|e| panic!("dama replied `{reply}` to `{pos}` `{moves}`: {e}"));
        assert_eq!(
            dama_bot::hub_move(&m),
            reply,
            "replies list captures in order"
        );
        replies += 1;
    }
    assert!(replies > 200, "only {replies} replies logged");
}

/// A running `dama bot --protocol hub`, read line by line on a thread.
struct Engine {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(DAMA)
            .args(["bot", "--protocol", "hub", "--tablebase", ""])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn dama");
        let out = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in out.lines() {
                if tx.send(l.unwrap()).is_err() {
                    break;
                }
            }
        });
        Engine { child, lines }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.child.stdin.as_mut().unwrap(), "{line}").unwrap();
    }

    /// The next line, within 60 s.
    fn next(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(60))
            .expect("a line within 60 s")
    }

    /// Lines up to and including one that starts with `prefix`.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let l = self.next();
            let done = l.starts_with(prefix);
            out.push(l);
            if done {
                return out;
            }
        }
    }
}

#[test]
fn bad_input_is_answered_and_stop_ends_an_infinite_search() {
    let mut e = Engine::start(&["--bot", "alphabeta:depth=2"]);
    e.send("hub");
    let hello = e.until("wait");
    assert!(hello[0].starts_with("id name=dama"), "{hello:?}");
    assert!(hello
        .iter()
        .any(|l| l.contains("name=variant") && l.contains("dameo")));
    e.send("set-param name=variant value=chess");
    assert!(e.next().contains("variant `chess` is not one of dama's"));
    e.send("set-param name=threads value=100000");
    assert!(e
        .next()
        .contains("threads=100000 is not a whole number from 1 to"));
    e.send("init");
    assert_eq!(e.until("ready").last().unwrap(), "ready");
    e.send("go think");
    assert!(e.next().contains("go before pos"));
    e.send("pos pos=Wxyz");
    assert!(e.next().contains("65 characters"));
    e.send(&format!("pos pos={START} moves=\"17-25 41-33 25-41\""));
    let l = e.next();
    assert!(
        l.contains("move 3") && l.contains("not a legal move"),
        "{l}"
    );
    e.send("level move-time=-1");
    assert!(e.next().contains("move-time=-1 is not a time"));
    e.send("level nodes=99999999999999999999");
    assert!(e.next().contains("nodes="));
    e.send("pos moves=\"unterminated");
    assert!(e.next().contains("no closing quote"));
    // Bytes that are not UTF-8, and a line over 64 KiB.
    e.child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(b"\xff\xfe\n")
        .unwrap();
    assert!(e.next().contains("not UTF-8"));
    e.send(&"x".repeat(70_000));
    assert!(e.next().contains("longer than"));
    // A legal game: its reply is legal and names its search.
    e.send(&format!("pos pos={START} moves=\"17-25 48-40\""));
    e.send("level depth=3");
    e.send("go think");
    let reply = e.until("done");
    assert!(reply[0].starts_with("info depth=3 score="), "{reply:?}");
    let mv = reply.last().unwrap().split_whitespace().nth(1).unwrap();
    let game = dama_bot::hub_game(START, "17-25 48-40", dama_engine::Rules::default()).unwrap();
    dama_bot::parse_hub_move(&game, mv.trim_start_matches("move=")).unwrap();
    // An infinite search answers ping while it runs, and stops on `stop`.
    e.send("level infinite");
    e.send("go analyze");
    std::thread::sleep(Duration::from_millis(300));
    e.send("ping");
    assert_eq!(e.next(), "pong");
    e.send("pos pos=Wx");
    assert!(e.next().contains("during a search"));
    e.send("stop");
    let reply = e.until("done");
    assert!(reply.last().unwrap().starts_with("done move="), "{reply:?}");
    // The end of input during a search ends the engine.
    e.send("go think");
    drop(e.child.stdin.take());
    let status = e.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

#[test]
fn other_variants_search_their_own_rules() {
    let mut e = Engine::start(&["--bot", "alphabeta:depth=2"]);
    e.send("hub");
    e.until("wait");
    e.send("set-param name=variant value=croda");
    e.send("set-param name=no_capture_limit value=off");
    e.send("init");
    e.until("ready");
    let pos = dama_engine::Position::startpos_with_rules(dama_engine::Rules::for_variant(
        dama_engine::Variant::Croda,
    ));
    let hub = dama_bot::hub_position(&pos);
    e.send(&format!("pos pos={hub}"));
    e.send("go think");
    let done = e.until("done");
    let mv = done.last().unwrap().split_whitespace().nth(1).unwrap();
    let rules: dama_engine::Rules = "variant=croda no_capture_limit=off".parse().unwrap();
    let game = dama_bot::hub_game(&hub, "", rules).unwrap();
    dama_bot::parse_hub_move(&game, mv.trim_start_matches("move=")).unwrap();
    e.send("quit");
    assert!(e.child.wait().unwrap().success());
}

#[test]
fn hub_serves_the_draughts_alpha_beta_engine_only() {
    let why = err(common::dama(&[
        "bot",
        "--protocol",
        "hub",
        "--game",
        "tafl",
    ]));
    assert!(why.contains("the Hub protocol is draughts'"), "{why}");
    let why = err(common::dama(&[
        "bot",
        "--protocol",
        "hub",
        "--bot",
        "mcts:sims=10",
    ]));
    assert!(why.contains("plays the alpha-beta engine"), "{why}");
}
