//! Property tests (proptest): legality, Zobrist, notation round-trips,
//! monotone piece counts, symmetries, jump-by-jump play, and no panics on
//! arbitrary text.

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::BTreeSet;

use crate::common::{passed_turn_has_capture, random_sparse_position, Naive};
use dama_engine::{
    Color, Game, GameRecord, MidCapturePromotion, MoveText, Position, Rules, Square, StepResult,
};
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rules_for(flag: bool) -> Rules {
    if flag {
        Rules {
            promotion_mid_capture: MidCapturePromotion::ContinueAsKing,
            ..Rules::default()
        }
    } else {
        Rules::default()
    }
}

/// A position after `plies` random moves from the start (or from a random
/// sparse position when `sparse`).
fn playout(seed: u64, plies: usize, sparse: bool, cak: bool) -> Position {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos = if sparse {
        random_sparse_position(&mut rng, rules_for(cak))
    } else {
        Position::startpos_with_rules(rules_for(cak))
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
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Every generated move is legal by the rules (it is one of the naive
    /// generator's moves) and accepted by `try_play`; nothing is missing.
    #[test]
    fn generated_moves_are_legal(seed: u64, plies in 0usize..160, sparse: bool, cak: bool) {
        let pos = playout(seed, plies, sparse, cak);
        let naive = Naive::from_position(&pos).children(cak);
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

    /// The incremental Zobrist hash equals the recomputed one along a game.
    #[test]
    fn zobrist_incremental_equals_recomputed(seed: u64, sparse: bool, cak: bool) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pos = playout(seed, 0, sparse, cak);
        for _ in 0..200 {
            prop_assert_eq!(pos.hash(), pos.compute_hash());
            let moves = pos.legal_moves();
            let Some(m) = moves.choose(&mut rng) else { break };
            pos.play_unchecked(m);
        }
    }

    /// A threat is what the side that just moved could capture were it to
    /// move again: the same position with the turn passed back has a
    /// capture among its legal moves.
    #[test]
    fn threats_are_the_passed_turns_captures(seed: u64, plies in 0usize..160, sparse: bool, cak: bool) {
        let pos = playout(seed, plies, sparse, cak);
        prop_assert_eq!(pos.has_threat(), passed_turn_has_capture(&pos), "{}", pos);
    }

    /// Piece counts only fall: the mover keeps its pieces, the opponent loses
    /// exactly the captured ones; kings never turn back into men.
    #[test]
    fn piece_counts_only_fall(seed: u64, plies in 0usize..160, sparse: bool, cak: bool) {
        let pos = playout(seed, plies, sparse, cak);
        for m in pos.legal_moves() {
            let mut p = pos;
            p.play_unchecked(&m);
            let (us, them) = (pos.turn(), pos.turn().other());
            prop_assert_eq!(p.pieces(us).count(), pos.pieces(us).count());
            prop_assert_eq!(
                p.pieces(them).count() as usize,
                pos.pieces(them).count() as usize - m.capture_count()
            );
            prop_assert!(p.pieces_of(us, dama_engine::Role::King).count()
                >= pos.pieces_of(us, dama_engine::Role::King).count());
        }
    }

    /// Position text, move text and squares round-trip.
    #[test]
    fn notation_round_trips(seed: u64, plies in 0usize..160, sparse: bool) {
        let pos = playout(seed, plies, sparse, false);
        let text = pos.to_string();
        let back: Position = text.parse().unwrap();
        prop_assert_eq!(key(&back), key(&pos));
        prop_assert_eq!(back.hash(), pos.hash());
        for m in pos.legal_moves() {
            let s = m.to_string();
            prop_assert_eq!(pos.parse_move(&s).unwrap(), m);
            let t: MoveText = s.parse().unwrap();
            prop_assert_eq!(t.to_string(), s.clone());
            prop_assert_eq!(MoveText::from(&m), t);
            // The short form resolves when it is unambiguous.
            if m.capture_count() > 1 {
                let short = format!("{}x{}", m.from(), m.to());
                let same = pos
                    .legal_moves()
                    .iter()
                    .filter(|x| x.from() == m.from() && x.to() == m.to())
                    .count();
                if same == 1 {
                    prop_assert_eq!(pos.parse_move(&short).unwrap(), m);
                } else {
                    prop_assert!(pos.parse_move(&short).is_err());
                }
            }
        }
        for sq in Square::ALL {
            prop_assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
        }
    }

    /// A random game written as a record reads back to the same moves.
    #[test]
    fn game_records_round_trip(seed: u64, plies in 0usize..120, sparse: bool) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let start = playout(seed, 0, sparse, false);
        let mut game = Game::from_position(start);
        for _ in 0..plies {
            if game.is_game_over() {
                break;
            }
            let moves = game.legal_moves();
            let m = *moves.choose(&mut rng).unwrap();
            game.play(&m).unwrap();
        }
        let rec = GameRecord::from_game(&game);
        let text = rec.to_string();
        let back: GameRecord = text.parse().unwrap();
        prop_assert_eq!(back.game.moves(), game.moves());
        prop_assert_eq!(back.result, rec.result);
        prop_assert_eq!(key(back.game.position()), key(game.position()));
    }

    /// Mirroring the board (a <-> h) maps legal moves onto legal moves, and
    /// so does swapping colours with a 180-degree turn.
    #[test]
    fn symmetries(seed: u64, plies in 0usize..160, sparse: bool, cak: bool) {
        let pos = playout(seed, plies, sparse, cak);
        let mirrored = pos.flip_horizontal();
        let a: BTreeSet<_> = pos.legal_moves().iter().map(|m| {
            let mut p = pos;
            p.play_unchecked(m);
            key(&p.flip_horizontal())
        }).collect();
        let b: BTreeSet<_> = mirrored.legal_moves().iter().map(|m| {
            let mut p = mirrored;
            p.play_unchecked(m);
            key(&p)
        }).collect();
        prop_assert_eq!(a, b);
        prop_assert_eq!(mirrored.flip_horizontal(), pos);
        let flipped = pos.flip_colors();
        prop_assert_eq!(key(&flipped.flip_colors()), key(&pos));
        prop_assert_eq!(flipped.legal_moves().len(), pos.legal_moves().len());
        for m in pos.legal_moves() {
            prop_assert!(flipped.is_legal(&m.rotate_180()));
            prop_assert!(mirrored.is_legal(&m.flip_horizontal()));
        }
    }

    /// Jump-by-jump play reaches exactly the legal moves, and
    /// `Game::hash` tells apart the states in between.
    #[test]
    fn steps_reach_exactly_the_legal_moves(seed: u64, plies in 0usize..160, sparse: bool, cak: bool) {
        let pos = playout(seed, plies, sparse, cak);
        if Game::from_position(pos).is_game_over() {
            // play_step refuses to play after the end, like play.
            return Ok(());
        }
        let mut reached = BTreeSet::new();
        let mut hashes = BTreeSet::new();
        let mut stack = vec![Game::from_position(pos)];
        let mut states = 0;
        while let Some(g) = stack.pop() {
            states += 1;
            prop_assert!(states < 20_000);
            if g.pending_capture().is_some() {
                hashes.insert(g.hash());
            }
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
        prop_assert!(!hashes.contains(&pos.hash()));
    }

    /// No input text makes a parser panic.
    #[test]
    fn parsers_never_panic(s in "\\PC{0,40}", t in "[WBK:a-j0-9,x=\\- ]{0,40}") {
        for text in [&s, &t] {
            let _ = text.parse::<Position>();
            let _ = text.parse::<Square>();
            let _ = text.parse::<MoveText>();
            let _ = text.parse::<GameRecord>();
            let _ = Position::startpos().parse_move(text);
        }
    }

    /// Random move text is either rejected or resolves to a legal move.
    #[test]
    fn parsed_moves_are_legal(seed: u64, plies in 0usize..100) {
        let pos = playout(seed, plies, true, false);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 1);
        for _ in 0..50 {
            let n = rng.gen_range(2..5);
            let sep = if rng.gen_bool(0.5) { "-" } else { "x" };
            let text: Vec<String> = (0..n).map(|_| Square::ALL[rng.gen_range(0..64)].to_string()).collect();
            if let Ok(m) = pos.parse_move(&text.join(sep)) {
                prop_assert!(pos.is_legal(&m));
            }
        }
    }
}
