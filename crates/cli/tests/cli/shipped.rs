//! The learned evaluators dama ships (`networks/turkish.nnue`, and
//! `networks/tafl.nnue` for Turkish Tafl): named by
//! `eval=shipped` in every player spec, the default bot of `dama bot`,
//! `play` and `analyse` in the rules it was trained for (and only there),
//! and refused by name by the rules and games it was not trained for.

#![allow(clippy::unwrap_used)]

use crate::common::{dama, err, ok, ok_with};

#[test]
fn the_default_bot_is_the_shipped_evaluator_where_it_plays() {
    let hello = |args: &[&str]| {
        let mut all = vec!["bot", "--tablebase", ""];
        all.extend_from_slice(args);
        let out = ok_with(dama(&all), "hello\nquit\n");
        out.lines()
            .find_map(|l| l.strip_prefix("id bot ").map(str::to_owned))
            .unwrap_or_else(|| panic!("no `id bot` line in {out}"))
    };
    assert_eq!(hello(&[]), "alphabeta:time=1000,eval=shipped");
    assert_eq!(
        hello(&["--rules", "default"]),
        "alphabeta:time=1000,eval=shipped"
    );
    // Other options of its variant are the search's, as for networks.
    assert_eq!(
        hello(&["--rules", "no_capture_limit=40"]),
        "alphabeta:time=1000,eval=shipped"
    );
    // Another variant: the handcrafted engine; Turkish Tafl: its own
    // shipped network.
    assert_eq!(hello(&["--rules", "variant=croda"]), "alphabeta:depth=4");
    assert_eq!(
        hello(&["--game", "tafl"]),
        "alphabeta:time=1000,eval=shipped"
    );
    // A bot named is the bot played.
    assert_eq!(hello(&["--bot", "alphabeta:depth=3"]), "alphabeta:depth=3");
    let out = ok_with(
        dama(&[
            "bot",
            "--tablebase",
            "",
            "--bot",
            "alphabeta:depth=3,eval=shipped",
        ]),
        "position startpos\ngo\nquit\n",
    );
    assert!(out.contains("bestmove "), "{out}");
}

#[test]
fn eval_plays_the_shipped_evaluator_and_refuses_it_elsewhere() {
    let out = ok(dama(&[
        "eval",
        "--a",
        "alphabeta:depth=2,eval=shipped",
        "--b",
        "alphabeta:depth=2",
        "--games",
        "2",
        "--threads",
        "1",
    ]));
    assert!(
        out.contains("alphabeta:depth=2,eval=shipped vs alphabeta:depth=2"),
        "{out}"
    );
    let e = err(dama(&[
        "eval",
        "--a",
        "alphabeta:depth=2,eval=shipped",
        "--b",
        "random",
        "--games",
        "2",
        "--rules",
        "variant=croda",
    ]));
    assert!(e.contains("variant=croda"), "{e}");
    // Turkish Tafl ships its own (networks/tafl.nnue).
    let out = ok(dama(&[
        "eval",
        "--game",
        "tafl",
        "--a",
        "alphabeta:depth=2,eval=shipped",
        "--b",
        "random",
        "--games",
        "2",
        "--threads",
        "1",
    ]));
    assert!(
        out.contains("alphabeta:depth=2,eval=shipped vs random"),
        "{out}"
    );
}

#[test]
fn the_shipped_evaluator_exports_as_a_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("b");
    let b = bundle.to_str().unwrap();
    // Run from an empty directory: `shipped` is the built-in network, not
    // a file.
    let out = ok(dama(&[
        "export",
        "--evaluator",
        "shipped",
        "--out",
        b,
        "--depth",
        "2",
    ])
    .current_dir(tmp.path()));
    assert!(out.contains("bundle written to"), "{out}");
    assert_eq!(
        std::fs::read(bundle.join("evaluator.nnue")).unwrap(),
        dama_draughts::shipped::SHIPPED.bytes
    );
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(bundle.join("bundle.json")).unwrap())
            .unwrap();
    assert_eq!(meta["kind"], "evaluator");
    assert!(
        meta["source"].as_str().unwrap().starts_with("shipped"),
        "{meta}"
    );
    let out = ok_with(
        dama(&["bot", "--bundle", b, "--tablebase", ""]),
        "go\nquit\n",
    );
    assert!(out.contains("bestmove "), "{out}");
}
