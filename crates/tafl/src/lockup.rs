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

use crate::board::{Bitboard, Dir};
use crate::position::{Position, Side};

/// The frozen pieces of `pos` (step 1 above), every square at once.
pub fn frozen(pos: &Position) -> Bitboard {
    let defenders = pos.pieces(Side::Defender);
    // The pieces that may move in each direction (the King is never
    // frozen, so it is not among them).
    let may = |d: Dir| match d {
        Dir::Up => pos.king_side_men() | pos.defender_kings(),
        Dir::Down => pos.defender_men() | pos.defender_kings(),
        Dir::Right | Dir::Left => pos.occupied().without(pos.king()),
    };
    let mut f = pos.occupied().without(pos.king());
    loop {
        let free = Bitboard(!f.0);
        // `open[d]`: the squares whose neighbour in `d` is on the board
        // and not frozen (past column 8 counts as open for a Defender
        // piece on column 8: the King captures over it onto the exit).
        let open = Dir::ALL.map(|d| {
            let o = free.shift(d.opposite());
            if d == Dir::Up {
                o | (defenders & Bitboard::column(7))
            } else {
                o
            }
        });
        let mut thawed = Bitboard::EMPTY;
        for d in Dir::ALL {
            let one = free.shift(d.opposite());
            let two = one.shift(d.opposite());
            thawed = thawed | (may(d) & (one | two));
        }
        let capturable = (open[Dir::Up as usize] & open[Dir::Down as usize])
            | (open[Dir::Right as usize] & open[Dir::Left as usize]);
        let next = Bitboard(f.0 & !(thawed | capturable).0);
        if next == f {
            return f;
        }
        f = next;
    }
}

/// Whether the King can never reach the exit (step 2 above): a flood fill
/// from the King through every square off the frozen set, and over a
/// frozen King-side piece onto one.
pub fn locked(pos: &Position) -> bool {
    let f = frozen(pos);
    let open = Bitboard(!f.0);
    let own_frozen = pos.pieces(Side::KingSide) & f;
    let mut seen = Bitboard::from_square(pos.king());
    loop {
        if !(seen & Bitboard::column(7)).is_empty() {
            return false;
        }
        let mut next = seen.neighbours() & open;
        for d in Dir::ALL {
            next = next | ((seen.shift(d) & own_frozen).shift(d) & open);
        }
        let next = next | seen;
        if next == seen {
            return true;
        }
        seen = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;
    use crate::{Game, TaflRules};
    use rand::seq::SliceRandom;
    use rand::SeedableRng;

    fn dirs_of(pos: &Position, sq: Square) -> &'static [Dir] {
        if pos.king_side_men().contains(sq) {
            &[Dir::Up, Dir::Right, Dir::Left]
        } else if pos.defender_men().contains(sq) {
            &[Dir::Down, Dir::Right, Dir::Left]
        } else {
            &Dir::ALL
        }
    }

    /// The frozen pieces, square by square (the reference).
    fn frozen_by_square(pos: &Position) -> Bitboard {
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

    /// Whether the board is locked, square by square (the reference).
    fn locked_by_square(pos: &Position) -> bool {
        let f = frozen_by_square(pos);
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

    /// The bitboard fixpoint and flood fill agree with the square-by-square
    /// reference on the positions of random games and on positions with
    /// pieces put at random (which lock far more often).
    #[test]
    fn the_bitboard_lockup_agrees_with_the_reference() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let mut positions = Vec::new();
        for _ in 0..40 {
            let mut g = Game::new(TaflRules::default());
            while g.outcome().is_none() {
                positions.push(*g.position());
                let moves = g.legal_moves();
                g.play(moves.choose(&mut rng).expect("a move"))
                    .expect("legal");
            }
        }
        // Random positions, half of them with a wall across a column
        // (which locks the board far more often than play does).
        for i in 0..4000 {
            let mut squares = Square::ALL;
            squares.shuffle(&mut rng);
            let wall = Bitboard::column(rand::Rng::gen_range(&mut rng, 4..8u8));
            if i % 2 == 0 {
                // The wall's squares first: men of both sides on them.
                squares.sort_by_key(|&q| !wall.contains(q));
                squares[..5].rotate_left(4);
            }
            let men = rand::Rng::gen_range(&mut rng, 0..=8usize);
            let defenders = rand::Rng::gen_range(&mut rng, 0..=14usize);
            let kings = rand::Rng::gen_range(&mut rng, 0..=defenders);
            let set = |s: &[Square]| s.iter().fold(Bitboard::EMPTY, |b, &q| b.with(q));
            let black = set(&squares[1..1 + men]);
            let white = &squares[1 + men..1 + men + defenders];
            let (wk, wm) = white.split_at(kings);
            let wm = Bitboard(set(wm).0 & !Bitboard::column(0).0);
            if let Ok(p) = Position::from_pieces(black, squares[0], wm, set(wk), Side::KingSide) {
                positions.push(p);
            }
        }
        let mut count = 0;
        for p in &positions {
            assert_eq!(frozen(p), frozen_by_square(p), "{p}");
            assert_eq!(locked(p), locked_by_square(p), "{p}");
            count += usize::from(locked(p));
        }
        assert!(count > 50, "{count} locked of {}", positions.len());
    }
}
