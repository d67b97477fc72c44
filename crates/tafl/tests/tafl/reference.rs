//! The engine against the naive generator of `tests/common`: the legal
//! moves of every position of many random games, under the default rules
//! and each option that changes move generation, and perft from the initial
//! position.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use crate::common::{describe, Board, NaiveMove, Opts};
use dama_tafl::{perft, Game, MoveKind, Side, TaflRules};
use rand::{Rng, SeedableRng};

fn naive_of(m: &dama_tafl::Move) -> NaiveMove {
    let rc = |s: dama_tafl::Square| (i32::from(s.row()), i32::from(s.column()));
    let kind = match m.kind {
        MoveKind::Slide => 0,
        MoveKind::Friendly => 1,
        MoveKind::Capture => 2,
    };
    let mut caps: Vec<(i32, i32)> = m.captured.into_iter().map(rc).collect();
    caps.sort();
    (kind, rc(m.from), m.to().map(rc), caps)
}

fn check(rules: TaflRules, opts: &Opts, seed: u64, games: usize) -> (usize, usize, usize) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let (mut positions, mut captures, mut friendly) = (0, 0, 0);
    for _ in 0..games {
        let mut game = Game::new(rules);
        while game.outcome().is_none() {
            let engine: Vec<NaiveMove> = game.legal_moves().iter().map(naive_of).collect();
            let engine_set: BTreeSet<NaiveMove> = engine.iter().cloned().collect();
            assert_eq!(engine.len(), engine_set.len(), "a move listed twice");
            let naive = Board::parse(&game.position().to_string()).moves(opts);
            if engine_set != naive {
                let only_e: Vec<_> = engine_set.difference(&naive).map(describe).collect();
                let only_n: Vec<_> = naive.difference(&engine_set).map(describe).collect();
                panic!(
                    "{}: engine only {only_e:?}, naive only {only_n:?}",
                    game.position()
                );
            }
            positions += 1;
            captures += usize::from(engine.iter().any(|m| m.0 == 2));
            friendly += usize::from(engine.iter().any(|m| m.0 == 1));
            let moves = game.legal_moves();
            let m = &moves[rng.gen_range(0..moves.len())];
            game.play(m).unwrap();
        }
    }
    (positions, captures, friendly)
}

#[test]
fn legal_moves_agree_with_the_naive_generator_on_random_games() {
    let (n, caps, friendly) = check(TaflRules::default(), &Opts::default(), 1, 300);
    assert!(n > 10_000, "{n} positions");
    assert!(caps > n / 20, "{caps} positions with captures");
    assert!(
        friendly > n / 10,
        "{friendly} positions with friendly jumps"
    );
}

#[test]
fn options_that_change_move_generation_agree_too() {
    for (text, opts) in [
        (
            "defender_man_chain=on",
            Opts {
                defender_man_chain: true,
                ..Opts::default()
            },
        ),
        (
            "majority=on",
            Opts {
                majority: true,
                ..Opts::default()
            },
        ),
        (
            "majority=on,defender_man_chain=on,first=king_side",
            Opts {
                defender_man_chain: true,
                majority: true,
                ..Opts::default()
            },
        ),
        (
            "goal=column8",
            Opts {
                exit_goal: false,
                ..Opts::default()
            },
        ),
    ] {
        let rules: TaflRules = text.parse().unwrap();
        let (n, _, _) = check(rules, &opts, 2, 100);
        assert!(n > 2000, "{text}: {n}");
    }
}

#[test]
fn perft_from_the_initial_position_agrees_with_the_naive_generator() {
    for first in [Side::Defender, Side::KingSide] {
        let rules = TaflRules {
            first,
            ..TaflRules::default()
        };
        let game = Game::new(rules);
        let board = Board::parse(&game.position().to_string());
        for depth in 1..=4 {
            assert_eq!(
                perft(&game, depth),
                board.perft(depth, &Opts::default()),
                "{first:?} depth {depth}"
            );
        }
    }
}
