//! Differential tests against the naive reference generator in
//! `tests/common/mod.rs` (arrays and recursion, no bitboards).

#![allow(clippy::unwrap_used, missing_docs)]

use crate::common;

use crate::common::variants::VRules;
use crate::common::{engine_children, random_playout_positions, random_sparse_position, Naive};
use dama_engine::{perft, MidCapturePromotion, Position, Rules};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn cak_rules() -> Rules {
    Rules {
        promotion_mid_capture: MidCapturePromotion::ContinueAsKing,
        ..Rules::default()
    }
}

fn check_same(pos: &Position) {
    let cak = pos.rules().promotion_mid_capture == MidCapturePromotion::ContinueAsKing;
    let ours = engine_children(pos);
    let naive = Naive::from_position(pos).children(cak);
    assert_eq!(
        ours,
        naive,
        "move sets differ in {pos} (continue_as_king: {cak}); engine moves: {:?}",
        pos.legal_moves()
    );
    // Distinct moves leave distinct positions in all these positions, so
    // the engine lists no duplicates.
    assert_eq!(
        ours.len(),
        pos.legal_moves().len(),
        "duplicate moves in {pos}"
    );
}

#[test]
fn random_playouts_match_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xda3a);
    let positions = random_playout_positions(&mut rng, 400, 250, Rules::default());
    assert!(positions.len() > 10_000, "{}", positions.len());
    for pos in &positions {
        check_same(pos);
    }
}

#[test]
fn random_playouts_match_reference_continue_as_king() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xc0de);
    let positions = random_playout_positions(&mut rng, 200, 250, cak_rules());
    assert!(positions.len() > 5_000, "{}", positions.len());
    for pos in &positions {
        check_same(pos);
    }
}

#[test]
fn random_sparse_positions_match_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for i in 0..20_000u32 {
        let rules = if i.is_multiple_of(2) {
            Rules::default()
        } else {
            cak_rules()
        };
        let pos = random_sparse_position(&mut rng, rules);
        check_same(&pos);
    }
}

#[test]
fn perft_startpos_matches_reference_to_depth_6() {
    let start = Position::startpos();
    let naive = Naive::from_position(&start);
    let expected = [1u64, 8, 64, 708, 7_538, 85_090, 931_312];
    for (depth, &n) in expected.iter().enumerate() {
        let depth = depth as u32;
        assert_eq!(
            perft(&start, &Rules::default(), depth),
            n,
            "engine depth {depth}"
        );
        if depth <= 6 {
            assert_eq!(naive.perft(depth, false), n, "reference depth {depth}");
        }
    }
}

#[test]
fn perft_midgame_positions_match_reference() {
    // Positions with kings and captures from playouts: compare perft 3.
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let positions = random_playout_positions(&mut rng, 20, 120, Rules::default());
    for pos in positions.iter().step_by(97) {
        assert_eq!(
            perft(pos, pos.rules(), 3),
            Naive::from_position(pos).perft(3, false),
            "perft 3 differs in {pos}"
        );
    }
    let mut rng = ChaCha8Rng::seed_from_u64(100);
    for i in 0..600 {
        let cak = i % 2 == 1;
        let rules = if cak { cak_rules() } else { Rules::default() };
        let pos = random_sparse_position(&mut rng, rules);
        assert_eq!(
            perft(&pos, pos.rules(), 3),
            Naive::from_position(&pos).perft(3, cak),
            "perft 3 differs in {pos}"
        );
    }
}

/// Prints every data file with the `?` counts filled in by the naive
/// generator (`-- --ignored print_perft_data --nocapture`).
#[test]
#[ignore]
fn print_perft_data() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let cases = common::parse_perft_text(&file, &text);
        println!("==== {file}");
        let mut case_iter = cases.iter();
        let mut current: Option<&common::PerftCase> = None;
        for line in text.lines() {
            if line.starts_with("id ") {
                current = case_iter.next();
            }
            match (line.strip_prefix("perft "), current) {
                (Some(rest), Some(case)) if rest.ends_with('?') => {
                    let depth: u32 = rest.split_whitespace().next().unwrap().parse().unwrap();
                    let naive = Naive::from_position(&case.position());
                    let rules = VRules::of(&case.rules);
                    println!("perft {depth} {}", naive.perft_v(depth, &rules));
                }
                _ => println!("{line}"),
            }
        }
    }
}

/// Every frozen count agrees with the naive generators (slow for the deep
/// start-position counts; `PERFT_FILE=NAME` limits it to some files): the Turkish one of `tests/common/mod.rs` for
/// Turkish cases, and the all-variant one of `tests/common/variants.rs` for
/// every case (a cross-check of the two on the Turkish data).
#[test]
#[ignore]
fn perft_data_matches_reference() {
    // `PERFT_FILE=dameo` checks only the files whose name contains it.
    let only = std::env::var("PERFT_FILE").unwrap_or_default();
    for case in common::read_perft_files() {
        if !case.file.contains(&only) {
            continue;
        }
        let naive = Naive::from_position(&case.position());
        let rules = VRules::of(&case.rules);
        for &(depth, n) in &case.perft {
            if let Some(n) = n {
                if case.rules.variant == dama_engine::Variant::Turkish {
                    assert_eq!(
                        naive.perft(depth, case.continue_as_king()),
                        n,
                        "{} {} depth {depth}",
                        case.file,
                        case.id
                    );
                }
                assert_eq!(
                    naive.perft_v(depth, &rules),
                    n,
                    "{} {} depth {depth}",
                    case.file,
                    case.id
                );
            }
        }
    }
}
