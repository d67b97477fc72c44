//! Squares, directions and bitboards of the 8 × 4 board.
//!
//! The board has **columns 1..=8** along its long axis and **rows A..=D**
//! across it. A square is named by its row letter and column number, as in
//! the rules text (`B3`, written `b3`). The King side (Black) moves towards
//! column 8, the Defenders (White) towards column 1.
//!
//! Square index: `4 · (column − 1) + row`, rows A..D = 0..3, so a
//! [`Bitboard`] is a `u32` whose four low bits are column 1.

use std::fmt;
use std::str::FromStr;

/// Columns (the long axis).
pub const COLUMNS: u8 = 8;
/// Rows (the short axis).
pub const ROWS: u8 = 4;
/// Squares on the board.
pub const SQUARES: usize = 32;

/// A square of the board.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Every square, in index order.
    pub const ALL: [Square; SQUARES] = {
        let mut out = [Square(0); SQUARES];
        let mut i = 0;
        while i < SQUARES {
            out[i] = Square(i as u8);
            i += 1;
        }
        out
    };

    /// The square with this index (`0..32`).
    pub const fn new(index: u8) -> Option<Square> {
        if (index as usize) < SQUARES {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square at `row` (0 = A .. 3 = D) and `column` (0-based: 0 is
    /// column 1).
    pub const fn at(row: u8, column: u8) -> Option<Square> {
        if row < ROWS && column < COLUMNS {
            Some(Square(column * ROWS + row))
        } else {
            None
        }
    }

    /// The index, `0..32`.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The row, 0 (A) to 3 (D).
    pub const fn row(self) -> u8 {
        self.0 % ROWS
    }

    /// The 0-based column: 0 is column 1, 7 is column 8.
    pub const fn column(self) -> u8 {
        self.0 / ROWS
    }

    /// The neighbour in `dir`, or `None` off the board.
    pub const fn step(self, dir: Dir) -> Option<Square> {
        let (dr, dc) = dir.delta();
        let r = self.row() as i8 + dr;
        let c = self.column() as i8 + dc;
        if r < 0 || c < 0 {
            return None;
        }
        Square::at(r as u8, c as u8)
    }

    /// The square mirrored across the long axis (A ↔ D, B ↔ C).
    pub const fn mirror(self) -> Square {
        Square(self.column() * ROWS + (ROWS - 1 - self.row()))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.row()) as char, self.column() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A square name that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a square (a1 .. d8: row letter a-d, column 1-8)")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses `b3` (or `B3`).
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let err = || ParseSquareError(s.chars().take(16).collect());
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(err());
        }
        let row = b[0].to_ascii_lowercase().wrapping_sub(b'a');
        let col = b[1].wrapping_sub(b'1');
        Square::at(row, col).ok_or_else(err)
    }
}

/// An orthogonal direction on the board.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Dir {
    /// Towards column 8 (the King side's forward).
    Up = 0,
    /// Towards column 1 (the Defenders' forward).
    Down = 1,
    /// Towards row D.
    Right = 2,
    /// Towards row A.
    Left = 3,
}

impl Dir {
    /// All four.
    pub const ALL: [Dir; 4] = [Dir::Up, Dir::Down, Dir::Right, Dir::Left];

    /// `(row, column)` delta.
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Dir::Up => (0, 1),
            Dir::Down => (0, -1),
            Dir::Right => (1, 0),
            Dir::Left => (-1, 0),
        }
    }

    /// The direction turned by 180°.
    pub const fn opposite(self) -> Dir {
        match self {
            Dir::Up => Dir::Down,
            Dir::Down => Dir::Up,
            Dir::Right => Dir::Left,
            Dir::Left => Dir::Right,
        }
    }

    /// The direction mirrored across the long axis (Right ↔ Left).
    pub const fn mirror(self) -> Dir {
        match self {
            Dir::Right => Dir::Left,
            Dir::Left => Dir::Right,
            d => d,
        }
    }
}

/// A set of squares.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u32);

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every square.
    pub const FULL: Bitboard = Bitboard(u32::MAX);

    /// The set of one square.
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.0)
    }

    /// The squares of one column (0-based).
    pub const fn column(column: u8) -> Bitboard {
        Bitboard(0xF << (column * ROWS))
    }

    /// The squares orthogonally next to a square of the set (the set's own
    /// squares included only where two of them are neighbours).
    pub const fn neighbours(self) -> Bitboard {
        Bitboard(
            self.shift(Dir::Up).0
                | self.shift(Dir::Down).0
                | self.shift(Dir::Right).0
                | self.shift(Dir::Left).0,
        )
    }

    /// Every square of the set moved one step in `dir` (those that would
    /// leave the board dropped), as [`Square::step`] moves one.
    pub const fn shift(self, dir: Dir) -> Bitboard {
        // Square index = column × 4 + row: a column step shifts by 4, a row
        // step by 1 within the column (never across into the next one).
        const ROW_0: u32 = 0x1111_1111;
        const ROW_3: u32 = 0x8888_8888;
        let b = self.0;
        Bitboard(match dir {
            Dir::Up => b << ROWS,
            Dir::Down => b >> ROWS,
            Dir::Right => (b << 1) & !ROW_0,
            Dir::Left => (b >> 1) & !ROW_3,
        })
    }

    /// Whether `sq` is in the set.
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.0) != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of squares.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The set with `sq` added.
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | (1 << sq.0))
    }

    /// The set with `sq` removed.
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.0))
    }

    /// The set mirrored across the long axis.
    pub fn mirror(self) -> Bitboard {
        self.into_iter()
            .fold(Bitboard::EMPTY, |b, sq| b.with(sq.mirror()))
    }
}

impl std::ops::BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 | o.0)
    }
}

impl std::ops::BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 & o.0)
    }
}

impl std::ops::Sub for Bitboard {
    type Output = Bitboard;
    fn sub(self, o: Bitboard) -> Bitboard {
        Bitboard(self.0 & !o.0)
    }
}

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(*self).finish()
    }
}

/// The squares of a [`Bitboard`], in index order.
#[derive(Clone, Debug)]
pub struct Squares(u32);

impl Iterator for Squares {
    type Item = Square;
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Square(i as u8))
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;
    fn into_iter(self) -> Squares {
        Squares(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_steps_stay_on_the_board() {
        for sq in Square::ALL {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
            assert_eq!(sq.mirror().mirror(), sq);
            for d in Dir::ALL {
                if let Some(n) = sq.step(d) {
                    assert_eq!(n.step(d.opposite()), Some(sq));
                }
            }
        }
        let b3: Square = "b3".parse().unwrap();
        assert_eq!((b3.row(), b3.column()), (1, 2));
        assert_eq!(b3.step(Dir::Up).unwrap().to_string(), "b4");
        assert_eq!(b3.step(Dir::Right).unwrap().to_string(), "c3");
        assert_eq!("a8".parse::<Square>().unwrap().step(Dir::Up), None);
        for bad in ["", "e1", "a9", "a0", "b33", "ä1"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }
}
