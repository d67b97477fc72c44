//! The variants (Armenian, Croda, Dameo) against the naive reference
//! generator in `tests/common/variants.rs`: random playouts, random sparse
//! positions and perft from the initial positions; plus the rules that need
//! a game (promotion, line moves, notation, records, refusals).

#![allow(clippy::unwrap_used, missing_docs)]

mod common;

use common::variants::{children_of, VRules};
use common::{engine_children, random_playout_positions, Naive};
use dama_engine::{perft, Color, Piece, Position, Role, Rules, Square};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rules(text: &str) -> Rules {
    text.parse().unwrap()
}

/// Every rule set of the variants the tests cover (each option of each).
fn variant_rule_sets() -> Vec<Rules> {
    vec![
        rules("variant=armenian"),
        rules("variant=armenian promotion=continue_as_king"),
        rules("variant=croda"),
        rules("variant=croda croda_removal=immediate"),
        rules("variant=croda croda_man_captures=forward_sideways"),
        rules("variant=dameo"),
    ]
}

fn check_same(pos: &Position) {
    let ours = engine_children(pos);
    let naive = children_of(pos);
    assert_eq!(
        ours,
        naive,
        "move sets differ in {pos} under {}; engine moves: {:?}",
        pos.rules(),
        pos.legal_moves()
    );
    assert_eq!(
        ours.len(),
        pos.legal_moves().len(),
        "duplicate moves in {pos} under {}",
        pos.rules()
    );
}

/// A random position of `rules.variant` with up to 12 pieces a side, kings
/// likely; men anywhere but their promotion row.
fn random_sparse(rng: &mut impl Rng, rules: Rules) -> Position {
    loop {
        let mut squares = Square::ALL.to_vec();
        squares.shuffle(rng);
        let nw = rng.gen_range(1..=12);
        let nb = rng.gen_range(1..=12);
        let mut pieces = Vec::new();
        for (i, &sq) in squares.iter().take(nw + nb).enumerate() {
            let color = if i < nw { Color::White } else { Color::Black };
            let role = if rng.gen_bool(0.35) || sq.is_promotion_row(color) {
                Role::King
            } else {
                Role::Man
            };
            pieces.push((sq, Piece { color, role }));
        }
        let turn = if rng.gen_bool(0.5) {
            Color::White
        } else {
            Color::Black
        };
        if let Ok(p) = Position::from_pieces_with_rules(pieces, turn, rules) {
            return p;
        }
    }
}

#[test]
fn random_playouts_match_reference() {
    let mut total = 0;
    for (i, r) in variant_rule_sets().into_iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(0x7a1 + i as u64);
        let games = if i == 2 || i == 5 { 120 } else { 50 };
        let positions = random_playout_positions(&mut rng, games, 250, r);
        assert!(positions.len() > 2_000, "{r}: {}", positions.len());
        // Captures (and multi-captures) must be among them.
        let captures = positions
            .iter()
            .filter(|p| {
                p.legal_moves()
                    .first()
                    .is_some_and(|m| m.capture_count() > 1)
            })
            .count();
        assert!(captures > 20, "{r}: {captures} multi-captures");
        for pos in &positions {
            check_same(pos);
        }
        total += positions.len();
    }
    assert!(total > 30_000, "{total}");
}

#[test]
fn random_sparse_positions_match_reference() {
    let sets = variant_rule_sets();
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    for i in 0..24_000usize {
        let pos = random_sparse(&mut rng, sets[i % sets.len()]);
        check_same(&pos);
    }
}

#[test]
fn perft_startpos_matches_reference() {
    // (rules, counts from depth 0) frozen from the naive generator.
    let cases: [(&str, &[u64]); 5] = [
        (
            "variant=armenian",
            &[1, 22, 484, 12_174, 268_670, 6_280_482],
        ),
        ("variant=croda", &[1, 22, 484, 10_494, 194_440, 3_624_616]),
        (
            "variant=croda croda_removal=immediate",
            &[1, 22, 484, 10_494, 194_440, 3_624_616],
        ),
        (
            "variant=croda croda_man_captures=forward_sideways",
            &[1, 22, 484, 10_494, 194_440, 3_623_734],
        ),
        ("variant=dameo", &[1, 52, 2_704, 135_930, 6_253_934]),
    ];
    for (text, expected) in cases {
        let r = rules(text);
        let start = Position::startpos_with_rules(r);
        let naive = Naive::from_position(&start);
        for (depth, &n) in expected.iter().enumerate() {
            let depth = depth as u32;
            assert_eq!(perft(&start, &r, depth), n, "{text}: engine depth {depth}");
            assert_eq!(
                naive.perft_v(depth, &VRules::of(&r)),
                n,
                "{text}: reference depth {depth}"
            );
        }
    }
}

#[test]
fn perft_midgame_positions_match_reference() {
    for (i, r) in variant_rule_sets().into_iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(200 + i as u64);
        let positions = random_playout_positions(&mut rng, 10, 120, r);
        for pos in positions.iter().step_by(53) {
            assert_eq!(
                perft(pos, &r, 3),
                Naive::from_position(pos).perft_v(3, &VRules::of(&r)),
                "perft 3 differs in {pos} under {r}"
            );
        }
        for _ in 0..60 {
            let pos = random_sparse(&mut rng, r);
            assert_eq!(
                perft(&pos, &r, 3),
                Naive::from_position(&pos).perft_v(3, &VRules::of(&r)),
                "perft 3 differs in {pos} under {r}"
            );
        }
    }
}

/// Prints the naive perft of each variant's initial position
/// (`-- --ignored print_startpos_perft --nocapture`).
#[test]
#[ignore]
fn print_startpos_perft() {
    for text in [
        "variant=armenian",
        "variant=croda",
        "variant=croda croda_removal=immediate",
        "variant=croda croda_man_captures=forward_sideways",
        "variant=dameo",
    ] {
        let r = rules(text);
        let start = Position::startpos_with_rules(r);
        let naive = Naive::from_position(&start);
        let depth: u32 = std::env::var("DEPTH")
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(5);
        for d in 0..=depth {
            let t = std::time::Instant::now();
            let n = naive.perft_v(d, &VRules::of(&r));
            let t1 = t.elapsed();
            let t = std::time::Instant::now();
            let e = perft(&start, &r, d);
            println!(
                "{text} depth {d}: naive {n} ({t1:?}) engine {e} ({:?})",
                t.elapsed()
            );
        }
    }
}

#[test]
#[ignore]
fn print_perft_env() {
    let r = rules(&std::env::var("RULES").unwrap());
    let pos = Position::from_str_with_rules(&std::env::var("EPD").unwrap(), r).unwrap();
    let depth: u32 = std::env::var("DEPTH").unwrap().parse().unwrap();
    for m in pos.legal_moves() {
        println!("move {m:?}");
    }
    for d in 1..=depth {
        println!(
            "perft {d} engine {} naive {}",
            perft(&pos, &r, d),
            Naive::from_position(&pos).perft_v(d, &VRules::of(&r))
        );
    }
}
