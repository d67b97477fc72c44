//! Runs the frozen perft counts in `tests/data/*.perft` against the engine,
//! and checks the `result` lines against `Position::termination`.

#![allow(clippy::unwrap_used, missing_docs)]

use crate::common;

use dama_engine::{perft, perft_divide, perft_parallel};

/// Counts above this run only in the ignored test (startpos depth 8).
const NODE_LIMIT: u64 = 20_000_000;

fn run(limit: u64) {
    let cases = common::read_perft_files();
    assert!(cases.len() >= 30, "{} cases", cases.len());
    for case in &cases {
        let pos = case.position();
        for &(depth, n) in &case.perft {
            let n = n.unwrap_or_else(|| panic!("{} {}: unknown count", case.file, case.id));
            if n > limit {
                continue;
            }
            assert_eq!(
                perft(&pos, &case.rules, depth),
                n,
                "{} {} depth {depth}",
                case.file,
                case.id
            );
        }
    }
}

#[test]
fn perft_data() {
    run(NODE_LIMIT);
}

#[test]
#[ignore]
fn perft_data_deep() {
    run(u64::MAX);
}

#[test]
fn results() {
    for case in common::read_perft_files() {
        let Some((token, termination)) = &case.result else {
            continue;
        };
        let got = case.position().termination();
        match got {
            None => assert_eq!(
                (token.as_str(), termination.as_str()),
                ("*", "-"),
                "{}",
                case.id
            ),
            Some((o, t)) => {
                assert_eq!(o.as_str(), token, "{}", case.id);
                assert_eq!(format!("{t:?}"), *termination, "{}", case.id);
            }
        }
    }
}

#[test]
fn divide_and_parallel_agree() {
    for case in common::read_perft_files() {
        let pos = case.position();
        let depth = case.perft.iter().map(|p| p.0).max().unwrap_or(0).min(3);
        let total = perft(&pos, &case.rules, depth);
        let div: u64 = perft_divide(&pos, &case.rules, depth)
            .iter()
            .map(|x| x.1)
            .sum();
        let expected = if depth == 0 { 0 } else { total };
        assert_eq!(div, expected, "{}", case.id);
        assert_eq!(
            perft_parallel(&pos, &case.rules, depth),
            total,
            "{}",
            case.id
        );
    }
}
