//! Perft: the number of whole-move sequences of a given length.

use crate::game::Game;

/// The number of distinct legal move sequences of `depth` whole moves from
/// `game` (moves are counted once per [`Move::key`](crate::Move::key);
/// sequences end early where the game does).
pub fn perft(game: &Game, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = game.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| {
            let mut g = game.clone();
            g.play(m).expect("invariant: a legal move plays");
            perft(&g, depth - 1)
        })
        .sum()
}
