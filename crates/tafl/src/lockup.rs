//! The locked board: "has no chance of ever exiting off the board, because
//! the board has locked up so there is no possible path for the King to get
//! to column 8".
//!
//! A test that freezes the Defenders and looks for a path for the King is
//! not safe: a wall of Defender men is not permanent (mandatory captures and
//! the lack of other moves force them to move), and such a test already
//! finds the initial position locked. This module decides a lock that no
//! play can break:
//!
//! 1. The **frozen** pieces are the largest set `F` of pieces (the King
//!    never among them) such that every piece in `F`
//!    * can slide nowhere: each square it could slide to is off the board or
//!      holds a piece of `F`;
//!    * can jump nowhere: each square two away in its directions is off the
//!      board or holds a piece of `F`;
//!    * can never be jumped: on each axis through it, one of its two
//!      neighbours is off the board or holds a piece of `F` (for a Defender
//!      piece on column 8, the side past column 8 does not count as off the
//!      board: the King captures over it onto the exit).
//!
//!    Pieces in `F` can never move or leave, whatever both sides play
//!    (computed as a greatest fixpoint, over-approximating what every other
//!    piece might do).
//! 2. The King then moves through every square not held by `F` (any other
//!    piece may move or be captured), and may also jump a frozen King-side
//!    piece onto such a square. If it can reach no square of column 8 off
//!    `F`, from which it could slide off the board, the board is locked.

use crate::board::{Bitboard, Dir, Square};
use crate::position::{Position, Side};

fn dirs_of(pos: &Position, sq: Square) -> &'static [Dir] {
    if pos.king_side_men().contains(sq) {
        &[Dir::Up, Dir::Right, Dir::Left]
    } else if pos.defender_men().contains(sq) {
        &[Dir::Down, Dir::Right, Dir::Left]
    } else {
        &Dir::ALL
    }
}

/// The frozen pieces of `pos` (step 1 above).
pub fn frozen(pos: &Position) -> Bitboard {
    let mut f = pos.occupied().without(pos.king());
    let defenders = pos.pieces(Side::Defender);
    loop {
        let mut next = f;
        for sq in f {
            let blocked = |s: Option<Square>| s.is_none_or(|s| f.contains(s));
            let moves = dirs_of(pos, sq).iter().any(|&d| {
                let one = sq.step(d);
                !blocked(one) || !blocked(one.and_then(|s| s.step(d)))
            });
            let capturable =
                [(Dir::Up, Dir::Down), (Dir::Right, Dir::Left)]
                    .iter()
                    .any(|&(a, b)| {
                        let side_open = |d: Dir| match sq.step(d) {
                            Some(s) => !f.contains(s),
                            // Past column 8 is open for the King's capture of a
                            // Defender piece.
                            None => d == Dir::Up && defenders.contains(sq),
                        };
                        side_open(a) && side_open(b)
                    });
            if moves || capturable {
                next = next.without(sq);
            }
        }
        if next == f {
            return f;
        }
        f = next;
    }
}

/// Whether the King can never reach the exit (step 2 above).
pub fn locked(pos: &Position) -> bool {
    let f = frozen(pos);
    let own = pos.pieces(Side::KingSide);
    let mut seen = Bitboard::from_square(pos.king());
    let mut stack = vec![pos.king()];
    while let Some(sq) = stack.pop() {
        if sq.column() == 7 {
            return false;
        }
        for d in Dir::ALL {
            let Some(one) = sq.step(d) else { continue };
            let next = if !f.contains(one) {
                Some(one)
            } else if own.contains(one) {
                one.step(d).filter(|s| !f.contains(*s))
            } else {
                None
            };
            if let Some(n) = next {
                if !seen.contains(n) {
                    seen = seen.with(n);
                    stack.push(n);
                }
            }
        }
    }
    true
}
