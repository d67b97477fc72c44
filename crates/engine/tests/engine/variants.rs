//! The variants (Armenian, Croda, Dameo) against the naive reference
//! generator in `tests/common/variants.rs`: random playouts, random sparse
//! positions and perft from the initial positions; plus the rules that need
//! a game (promotion, line moves, notation, records, refusals).

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::BTreeSet;

use crate::common::variants::{children_of, VRules};
use crate::common::{engine_children, passed_turn_has_capture, random_playout_positions, Naive};
use dama_engine::{
    perft, Color, Game, GameRecord, MoveText, OnePieceEachRule, Piece, PlayError, Position,
    PositionError, Role, Rules, Square, StepResult, Termination, Variant,
};
use proptest::prelude::*;
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
    random_position(rng, rules, 0.35)
}

/// As [`random_sparse`] with kings of probability `king_p`.
fn random_position(rng: &mut impl Rng, rules: Rules, king_p: f64) -> Position {
    loop {
        let mut squares = Square::ALL.to_vec();
        squares.shuffle(rng);
        let nw = rng.gen_range(1..=12);
        let nb = rng.gen_range(1..=12);
        let mut pieces = Vec::new();
        for (i, &sq) in squares.iter().take(nw + nb).enumerate() {
            let color = if i < nw { Color::White } else { Color::Black };
            let role = if rng.gen_bool(king_p) || sq.is_promotion_row(color) {
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
        // Every third position is mostly kings (long captures, turns,
        // pieces crossed or blocking).
        let king_p = if i % 3 == 0 { 0.8 } else { 0.35 };
        let pos = random_position(&mut rng, sets[i % sets.len()], king_p);
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

fn variant_rules(i: usize) -> Rules {
    let sets = variant_rule_sets();
    sets[i % sets.len()]
}

/// A position after `plies` random moves from the variant's start (or from a
/// random sparse position).
fn playout(seed: u64, plies: usize, sparse: bool, rules: Rules) -> Position {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos = if sparse {
        random_sparse(&mut rng, rules)
    } else {
        Position::startpos_with_rules(rules)
    };
    for _ in 0..plies {
        let moves = pos.legal_moves();
        let Some(m) = moves.choose(&mut rng) else {
            break;
        };
        pos.play_unchecked(m);
    }
    pos
}

fn key(p: &Position) -> (u64, u64, u64, Color) {
    (
        p.pieces(Color::White).0,
        p.pieces(Color::Black).0,
        p.kings().0,
        p.turn(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Every generated move is legal by the rules (one of the naive
    /// generator's moves) and accepted by `try_play`; nothing is missing.
    #[test]
    fn generated_moves_are_legal(seed: u64, plies in 0usize..160, sparse: bool, v in 0usize..6) {
        let pos = playout(seed, plies, sparse, variant_rules(v));
        let naive = children_of(&pos);
        let mut seen = BTreeSet::new();
        for m in pos.legal_moves() {
            prop_assert!(pos.is_legal(&m));
            let mut p = pos;
            prop_assert!(p.try_play(&m).is_ok());
            let n = Naive::from_position(&p);
            prop_assert!(naive.contains(&n), "{} is not legal in {}", m, pos);
            seen.insert(n);
        }
        prop_assert_eq!(seen.len(), naive.len());
    }

    /// A threat is what the side that just moved could capture were it to
    /// move again, in every variant.
    #[test]
    fn threats_are_the_passed_turns_captures(seed: u64, plies in 0usize..160, sparse: bool, v in 0usize..6) {
        let pos = playout(seed, plies, sparse, variant_rules(v));
        prop_assert_eq!(pos.has_threat(), passed_turn_has_capture(&pos), "{}", pos);
    }

    /// The incremental Zobrist hash equals the recomputed one along a game.
    #[test]
    fn zobrist_incremental_equals_recomputed(seed: u64, sparse: bool, v in 0usize..6) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pos = playout(seed, 0, sparse, variant_rules(v));
        for _ in 0..200 {
            prop_assert_eq!(pos.hash(), pos.compute_hash());
            let moves = pos.legal_moves();
            let Some(m) = moves.choose(&mut rng) else { break };
            pos.play_unchecked(m);
        }
    }

    /// Position text (under the variant), move text and records round-trip.
    #[test]
    fn notation_round_trips(seed: u64, plies in 0usize..160, sparse: bool, v in 0usize..6) {
        let rules = variant_rules(v);
        let pos = playout(seed, plies, sparse, rules);
        let back = Position::from_str_with_rules(&pos.to_string(), rules).unwrap();
        prop_assert_eq!(key(&back), key(&pos));
        prop_assert_eq!(back.hash(), pos.hash());
        for m in pos.legal_moves() {
            let s = m.to_string();
            prop_assert_eq!(pos.parse_move(&s).unwrap(), m);
            let t: MoveText = s.parse().unwrap();
            prop_assert_eq!(MoveText::from(&m), t);
        }
    }

    /// A random game of a variant written as a record reads back to the
    /// same moves under the same rules.
    #[test]
    fn game_records_round_trip(seed: u64, plies in 0usize..120, sparse: bool, v in 0usize..6) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let rules = variant_rules(v);
        let mut game = Game::from_position(playout(seed, 0, sparse, rules));
        for _ in 0..plies {
            if game.is_game_over() {
                break;
            }
            let m = *game.legal_moves().choose(&mut rng).unwrap();
            game.play(&m).unwrap();
        }
        let rec = GameRecord::from_game(&game);
        let back: GameRecord = rec.to_string().parse().unwrap();
        prop_assert_eq!(back.game.rules(), &rules);
        prop_assert_eq!(back.game.moves(), game.moves());
        prop_assert_eq!(key(back.game.position()), key(game.position()));
    }

    /// Mirroring the board, and swapping colours with a half turn, map legal
    /// moves onto legal moves.
    #[test]
    fn symmetries(seed: u64, plies in 0usize..160, sparse: bool, v in 0usize..6) {
        let pos = playout(seed, plies, sparse, variant_rules(v));
        let mirrored = pos.flip_horizontal();
        let flipped = pos.flip_colors();
        prop_assert_eq!(mirrored.legal_moves().len(), pos.legal_moves().len());
        prop_assert_eq!(flipped.legal_moves().len(), pos.legal_moves().len());
        for m in pos.legal_moves() {
            prop_assert!(mirrored.is_legal(&m.flip_horizontal()));
            prop_assert!(flipped.is_legal(&m.rotate_180()));
        }
    }

    /// Jump-by-jump play reaches exactly the legal moves.
    #[test]
    fn steps_reach_exactly_the_legal_moves(seed: u64, plies in 0usize..160, sparse: bool, v in 0usize..6) {
        let pos = playout(seed, plies, sparse, variant_rules(v));
        if Game::from_position(pos).is_game_over() {
            return Ok(());
        }
        let mut reached = BTreeSet::new();
        let mut stack = vec![Game::from_position(pos)];
        let mut states = 0;
        while let Some(g) = stack.pop() {
            states += 1;
            prop_assert!(states < 50_000);
            let steps = g.legal_steps();
            if g.pending_capture().is_some() {
                prop_assert!(!steps.is_empty());
            }
            for s in steps {
                let mut g2 = g.clone();
                match g2.play_step(s).unwrap() {
                    StepResult::InProgress => stack.push(g2),
                    StepResult::Completed(m) => {
                        prop_assert!(pos.is_legal(&m));
                        reached.insert(key(g2.position()));
                    }
                }
            }
        }
        let legal: BTreeSet<_> = pos.legal_moves().iter().map(|m| {
            let mut p = pos;
            p.play_unchecked(m);
            key(&p)
        }).collect();
        if pos.has_legal_move() {
            prop_assert_eq!(reached, legal);
        }
    }

    /// No text makes the variant-aware parsers panic.
    #[test]
    fn parsers_never_panic(s in "\\PC{0,40}", t in "[WBK:a-j0-9,x=\\- ]{0,60}", v in 0usize..6) {
        let rules = variant_rules(v);
        for text in [&s, &t] {
            let _ = Position::from_str_with_rules(text, rules);
            let _ = text.parse::<Rules>();
            let _ = Position::startpos_with_rules(rules).parse_move(text);
            let _ = format!("[Rules \"{}\"]\n{text}", rules).parse::<GameRecord>();
        }
    }
}

#[test]
fn initial_positions() {
    let count = |v: Variant| {
        let p = Position::startpos_with_rules(Rules::for_variant(v));
        assert!(p.is_initial());
        (
            p.pieces(Color::White).count(),
            p.pieces(Color::Black).count(),
        )
    };
    assert_eq!(count(Variant::Turkish), (16, 16));
    assert_eq!(count(Variant::Armenian), (16, 16));
    assert_eq!(count(Variant::Croda), (24, 24));
    assert_eq!(count(Variant::Dameo), (18, 18));
    let dameo = Position::startpos_with_rules(rules("variant=dameo"));
    assert_eq!(
        dameo.to_string(),
        "W:Wa1,b1,c1,d1,e1,f1,g1,h1,b2,c2,d2,e2,f2,g2,c3,d3,e3,f3\
         :Bc6,d6,e6,f6,b7,c7,d7,e7,f7,g7,a8,b8,c8,d8,e8,f8,g8,h8"
    );
    // The mirror image of the trapezoid is itself.
    assert_eq!(dameo.flip_horizontal(), dameo);
    let flipped = dameo.flip_colors();
    assert_eq!(flipped.pieces(Color::White), dameo.pieces(Color::White));
    assert_eq!(flipped.pieces(Color::Black), dameo.pieces(Color::Black));
}

#[test]
fn positions_and_records_of_one_variant_are_refused_under_another() {
    let croda = rules("variant=croda");
    let start = Position::startpos_with_rules(croda);
    let text = start.to_string();
    // 24 men a side cannot be a Turkish position.
    let e = text.parse::<Position>().unwrap_err();
    assert!(e.to_string().contains("at most 16 in turkish"), "{e}");
    let e = start.try_with_rules(Rules::default()).unwrap_err();
    assert!(matches!(
        e,
        PositionError::TooManyPieces {
            count: 24,
            max: 16,
            ..
        }
    ));
    let e = Position::from_str_with_rules(&text, rules("variant=dameo")).unwrap_err();
    assert!(e.to_string().contains("at most 18 in dameo"), "{e}");
    // A record's position is read under its rules tag, whichever comes first.
    let rec = format!("[Position \"{text}\"]\n[Rules \"variant=croda\"]\n1. a3-a4 *");
    let g: GameRecord = rec.parse().unwrap();
    assert_eq!(g.game.rules().variant, Variant::Croda);
    let e = format!("[Position \"{text}\"]\n1. a3-a4 *")
        .parse::<GameRecord>()
        .unwrap_err();
    assert!(e.to_string().contains("at most 16"), "{e}");
    // A Dameo line move is no Turkish move.
    let dameo_rec = "[Rules \"variant=dameo\"]\n1. d1-d4 d8-d5 *";
    let g: GameRecord = dameo_rec.parse().unwrap();
    assert_eq!(g.game.moves().len(), 2);
    let e = "1. d1-d4 d8-d5 *".parse::<GameRecord>().unwrap_err();
    assert!(e.to_string().contains("d1-d4"), "{e}");
    // Written records carry their variant.
    let written = GameRecord::from_game(&g.game).to_string();
    assert!(written.starts_with("[Rules \"variant=dameo "), "{written}");
    assert!(!written.contains("[Position"), "{written}");
}

#[test]
fn line_moves() {
    let dameo = rules("variant=dameo");
    let mut pos = Position::startpos_with_rules(dameo);
    // d1, d2, d3 move up as a line: d1 empties, d4 fills.
    let m = pos.parse_move("d1-d4").unwrap();
    assert_eq!(
        (m.role(), m.is_capture(), m.promotes()),
        (Role::Man, false, false)
    );
    assert_eq!(m.to_string(), "d1-d4");
    assert_eq!(m.steps().len(), 1);
    pos.play_unchecked(&m);
    assert!(pos.piece_at(Square::D1).is_none());
    for sq in [Square::D2, Square::D3, Square::D4] {
        assert_eq!(pos.piece_at(sq).map(|p| p.role), Some(Role::Man), "{sq}");
    }
    // A diagonal line: c1-d2-e3 moves to f4.
    let p = Position::startpos_with_rules(dameo);
    assert!(p.parse_move("c1-f4").is_ok());
    // Not over a gap, not through a king, not onto a piece.
    let p = Position::from_str_with_rules("W:Wd1,d3,f1,Kf2,f3:BKh8", dameo).unwrap();
    assert!(p.parse_move("d1-d4").is_err());
    assert!(p.parse_move("f1-f4").is_err());
    assert!(p.parse_move("d3-d4").is_ok());
    // Only the leader of a line reaching the last row is crowned.
    let mut p = Position::from_str_with_rules("W:Wg5,g6,g7:BKa1", dameo).unwrap();
    let m = p.parse_move("g5-g8").unwrap();
    assert!(m.promotes());
    p.play_unchecked(&m);
    assert_eq!(p.kings().count(), 2);
    assert_eq!(p.piece_at(Square::G8).map(|x| x.role), Some(Role::King));
    assert_eq!(p.piece_at(Square::G7).map(|x| x.role), Some(Role::Man));
    assert_eq!(p.piece_at(Square::G6).map(|x| x.role), Some(Role::Man));
    assert!(p.piece_at(Square::G5).is_none());
    // Croda has no line moves.
    let c = Position::startpos_with_rules(rules("variant=croda"));
    assert!(c.parse_move("d1-d4").is_err());
    assert!(c.parse_move("d3-e4").is_ok());
}

#[test]
fn bounced_back_man_is_not_crowned_jump_by_jump() {
    for v in ["croda", "dameo"] {
        let r = rules(&format!("variant={v}"));
        let pos = Position::from_str_with_rules("W:Wb6:Bb7,c8,d7,Kh1", r).unwrap();
        let mut game = Game::from_position(pos);
        assert_eq!(game.legal_steps().len(), 1);
        let s = game.legal_steps()[0];
        assert_eq!(game.play_step(s).unwrap(), StepResult::InProgress);
        let p = game.pending_capture().unwrap();
        assert_eq!(p.square(), Square::B8);
        assert!(p.removes_at_end());
        assert!(!p.captures_as_king());
        let s = game.legal_steps()[0];
        assert_eq!(game.play_step(s).unwrap(), StepResult::InProgress);
        let s = game.legal_steps()[0];
        let StepResult::Completed(m) = game.play_step(s).unwrap() else {
            panic!("{v}: the capture should be over");
        };
        assert_eq!(m.to_string(), "b6xb8xd8xd6");
        assert!(!m.promotes(), "{v}");
        let at = game.position().piece_at(Square::D6).unwrap();
        assert_eq!(at.role, Role::Man, "{v}");
        assert_eq!(game.position().pieces(Color::Black).count(), 1);
    }
    // Without backward captures the man stops on the last row and is crowned.
    let r = rules("variant=croda croda_man_captures=forward_sideways");
    let pos = Position::from_str_with_rules("W:Wb6:Bb7,c8,d7,Kh1", r).unwrap();
    let m = pos.legal_moves()[0];
    assert_eq!(m.to_string(), "b6xb8xd8");
    assert!(m.promotes());
    // Armenian keeps the Turkish option of crowning mid-capture: b6xb8
    // crowns the man, which flies over c8 to any of d8..h8.
    for (text, n) in [
        ("variant=armenian", 1),
        ("variant=armenian promotion=continue_as_king", 5),
        ("variant=croda promotion=continue_as_king", 1),
    ] {
        let pos = Position::from_str_with_rules("W:Wb6:Bb7,c8,Kh1", rules(text)).unwrap();
        let moves = pos.legal_moves();
        assert_eq!(moves.len(), n, "{text}: {moves:?}");
        assert!(moves.iter().all(|m| m.capture_count() == 2 && m.promotes()));
    }
}

#[test]
fn draw_rules_per_variant() {
    for v in [Variant::Armenian, Variant::Croda, Variant::Dameo] {
        let r = Rules::for_variant(v);
        assert_eq!(r.one_piece_each, OnePieceEachRule::PlayOn);
        assert_eq!(r.no_capture_limit, None);
        let p = Position::from_str_with_rules("W:WKa1:BKh8", r)
            .unwrap()
            .with_counters(500, 600);
        assert_eq!(p.termination(), None, "{v}");
        // As options they work as in the standard game.
        let r = format!("variant={v} one_piece_each=draw no_capture_limit=50")
            .parse::<Rules>()
            .unwrap();
        let p = Position::from_str_with_rules("W:WKa1:BKh8", r).unwrap();
        assert_eq!(
            p.termination().map(|t| t.1),
            Some(Termination::OnePieceEach)
        );
    }
    let p: Position = "W:WKa1:BKh8".parse().unwrap();
    assert_eq!(
        p.termination().map(|t| t.1),
        Some(Termination::OnePieceEach)
    );
    // Threefold repetition everywhere.
    let mut g = Game::from_position(
        Position::from_str_with_rules("W:WKa1,b2:BKh8,g7", rules("variant=dameo")).unwrap(),
    );
    for _ in 0..2 {
        for m in ["a1-a2", "h8-h7", "a2-a1", "h7-h8"] {
            let mv = g.position().parse_move(m).unwrap();
            g.play(&mv).unwrap();
        }
    }
    assert_eq!(g.termination().map(|t| t.1), Some(Termination::Repetition));
    let mv = g.legal_moves()[0];
    assert_eq!(g.play(&mv), Err(PlayError::GameOver));
}
