//! Differential test against the `kish` crate (an independent Turkish
//! draughts engine; dev-dependency only). Move sets are compared as sets of
//! resulting positions, because kish lists each capture path separately.
//! kish implements the default rules only (crowning at the end of the move).

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::BTreeSet;

use crate::common::{random_playout_positions, random_sparse_position};
use dama_engine::{perft, Color, Position, Rules};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

type Key = (u64, u64, u64);

fn ours(pos: &Position) -> BTreeSet<Key> {
    pos.legal_moves()
        .iter()
        .map(|m| {
            let mut c = *pos;
            c.play_unchecked(m);
            (
                c.pieces(Color::White).0,
                c.pieces(Color::Black).0,
                c.kings().0,
            )
        })
        .collect()
}

#[path = "../support/kish_board.rs"]
mod kish_support;
use kish_support::kish_board;

fn theirs(pos: &Position) -> BTreeSet<Key> {
    let b = kish_board(pos);
    b.actions()
        .iter()
        .map(|a| {
            let c = b.apply(a);
            (c.state.pieces[0], c.state.pieces[1], c.state.kings)
        })
        .collect()
}

#[test]
fn random_playouts_match_kish() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x1c15);
    let positions = random_playout_positions(&mut rng, 400, 250, Rules::default());
    assert!(positions.len() > 10_000, "{}", positions.len());
    for pos in &positions {
        assert_eq!(ours(pos), theirs(pos), "differs from kish in {pos}");
    }
}

#[test]
fn random_sparse_positions_match_kish() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5ba5e);
    for _ in 0..20_000 {
        let pos = random_sparse_position(&mut rng, Rules::default());
        assert_eq!(ours(&pos), theirs(&pos), "differs from kish in {pos}");
    }
}

#[test]
fn perft_agrees_with_kish_where_conventions_coincide() {
    // Up to depth 6 from the start no two capture paths share an effect and
    // no node is without moves, so both conventions give the same numbers.
    let start = Position::startpos();
    let board = kish_board(&start);
    for depth in 1..=6u32 {
        assert_eq!(
            perft(&start, &Rules::default(), depth),
            board.perft(u64::from(depth)),
            "depth {depth}"
        );
    }
}
