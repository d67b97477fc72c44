//! Ray geometry of the 8×8 board: the squares a line of moves crosses.
//!
//! Shared by move generation (king slides and jumps) and by [`Move`]'s
//! decoding of its path (which squares a capture passes over), so that
//! neither module depends on the other.
//!
//! [`Move`]: crate::Move

use crate::{Bitboard, Direction, Square};

/// `RAYS[d][sq]`: the squares from `sq` (exclusive) to the edge in direction `d`.
pub(crate) static RAYS: [[u64; 64]; 4] = ray_table([(0, 1), (1, 0), (0, -1), (-1, 0)]);

/// For each of four `(file, rank)` steps and each square, the squares from
/// the square (exclusive) to the edge along that step.
pub(crate) const fn ray_table(steps: [(i8, i8); 4]) -> [[u64; 64]; 4] {
    let mut rays = [[0u64; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let (df, dr) = steps[d];
        let mut sq = 0;
        while sq < 64 {
            let mut f = (sq % 8) as i8 + df;
            let mut r = (sq / 8) as i8 + dr;
            let mut bb = 0u64;
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                bb |= 1 << (r * 8 + f);
                f += df;
                r += dr;
            }
            rays[d][sq] = bb;
            sq += 1;
        }
        d += 1;
    }
    rays
}

/// The squares strictly between `a` and `b` if they share a rank or file.
pub(crate) fn between(a: Square, b: Square) -> Bitboard {
    match Direction::between(a, b) {
        Some(d) => {
            let d = d as usize;
            Bitboard(RAYS[d][a.index() as usize] & !RAYS[d][b.index() as usize] & !(1 << b.index()))
        }
        None => Bitboard::EMPTY,
    }
}
