//! Differential tests against the naive reference generator in
//! `tests/common/mod.rs` (arrays and recursion, no bitboards).

#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use common::{engine_children, random_playout_positions, random_sparse_position, Naive};
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
    for i in 0..20_000 {
        let rules = if i % 2 == 0 {
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
    for _ in 0..200 {
        let pos = random_sparse_position(&mut rng, cak_rules());
        assert_eq!(
            perft(&pos, pos.rules(), 3),
            Naive::from_position(&pos).perft(3, true),
            "perft 3 differs in {pos}"
        );
    }
}
