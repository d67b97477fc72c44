//! Squares and directions.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseSquareError;
use crate::Color;

/// One of the 64 squares, numbered `8 * rank + file` (a1 = 0, b1 = 1, …, h8 = 63).
///
/// # Examples
///
/// ```
/// use dama_engine::Square;
///
/// let sq: Square = "d4".parse()?;
/// assert_eq!(sq, Square::D4);
/// assert_eq!((sq.file(), sq.rank()), (3, 3));
/// assert_eq!(sq.to_string(), "d4");
/// assert_eq!(Square::new(64), None);
/// # Ok::<(), dama_engine::ParseSquareError>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

macro_rules! squares {
    ($($name:ident = $idx:expr),* $(,)?) => {
        impl Square {
            $(
                #[doc = concat!("The square ", stringify!($name), ".")]
                pub const $name: Square = Square($idx);
            )*
        }
    };
}

squares! {
    A1 = 0, B1 = 1, C1 = 2, D1 = 3, E1 = 4, F1 = 5, G1 = 6, H1 = 7,
    A2 = 8, B2 = 9, C2 = 10, D2 = 11, E2 = 12, F2 = 13, G2 = 14, H2 = 15,
    A3 = 16, B3 = 17, C3 = 18, D3 = 19, E3 = 20, F3 = 21, G3 = 22, H3 = 23,
    A4 = 24, B4 = 25, C4 = 26, D4 = 27, E4 = 28, F4 = 29, G4 = 30, H4 = 31,
    A5 = 32, B5 = 33, C5 = 34, D5 = 35, E5 = 36, F5 = 37, G5 = 38, H5 = 39,
    A6 = 40, B6 = 41, C6 = 42, D6 = 43, E6 = 44, F6 = 45, G6 = 46, H6 = 47,
    A7 = 48, B7 = 49, C7 = 50, D7 = 51, E7 = 52, F7 = 53, G7 = 54, H7 = 55,
    A8 = 56, B8 = 57, C8 = 58, D8 = 59, E8 = 60, F8 = 61, G8 = 62, H8 = 63,
}

impl Square {
    /// All 64 squares in index order (a1, b1, …, h8).
    pub const ALL: [Square; 64] = {
        let mut all = [Square(0); 64];
        let mut i = 0;
        while i < 64 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square with index `index` (`8 * rank + file`), or `None` if `index > 63`.
    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square with index `index`, for indices known to be below 64.
    ///
    /// The index is reduced modulo 64, so an out-of-range index gives a wrong
    /// square but never undefined behaviour; debug builds assert `index < 64`.
    #[inline]
    pub const fn new_unchecked(index: u8) -> Square {
        debug_assert!(index < 64);
        Square(index & 63)
    }

    /// The square on `file` (0 = a … 7 = h) and `rank` (0 = rank 1 … 7 = rank 8).
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// The index, `8 * rank + file`.
    #[inline]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The file, 0 (a) to 7 (h).
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// The rank, 0 (rank 1) to 7 (rank 8).
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The neighbouring square in direction `dir`, or `None` at the edge.
    #[inline]
    pub const fn offset(self, dir: Direction) -> Option<Square> {
        let (df, dr) = dir.delta();
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f < 0 || f > 7 || r < 0 || r > 7 {
            None
        } else {
            Some(Square((r * 8 + f) as u8))
        }
    }

    /// The square mirrored left to right (a ↔ h).
    #[inline]
    #[must_use]
    pub const fn flip_horizontal(self) -> Square {
        Square(self.0 ^ 7)
    }

    /// The square mirrored top to bottom (rank 1 ↔ rank 8).
    #[inline]
    #[must_use]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The square rotated by 180 degrees (a1 ↔ h8).
    #[inline]
    #[must_use]
    pub const fn rotate_180(self) -> Square {
        Square(63 - self.0)
    }

    /// Whether this square is on the row where `color`'s men are crowned
    /// (rank 8 for White, rank 1 for Black).
    #[inline]
    pub const fn is_promotion_row(self, color: Color) -> bool {
        match color {
            Color::White => self.rank() == 7,
            Color::Black => self.rank() == 0,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file()) as char,
            (b'1' + self.rank()) as char
        )
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses `a1` … `h8` (the file letter may also be upper case).
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let bytes = s.as_bytes();
        if bytes.len() != 2 {
            return Err(ParseSquareError { text: s.to_owned() });
        }
        let file = bytes[0].to_ascii_lowercase();
        let rank = bytes[1];
        if !(b'a'..=b'h').contains(&file) || !(b'1'..=b'8').contains(&rank) {
            return Err(ParseSquareError { text: s.to_owned() });
        }
        Ok(Square((rank - b'1') * 8 + (file - b'a')))
    }
}

impl From<Square> for u8 {
    #[inline]
    fn from(sq: Square) -> u8 {
        sq.0
    }
}

impl From<Square> for usize {
    #[inline]
    fn from(sq: Square) -> usize {
        sq.0 as usize
    }
}

/// One of the four orthogonal directions, seen from White's side of the board
/// (North is towards rank 8).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[repr(u8)]
pub enum Direction {
    /// Towards rank 8 (White's forward).
    North = 0,
    /// Towards the h-file.
    East = 1,
    /// Towards rank 1 (Black's forward).
    South = 2,
    /// Towards the a-file.
    West = 3,
}

impl Direction {
    /// All four directions: North, East, South, West.
    pub const ALL: [Direction; 4] = [
        Direction::North,
        Direction::East,
        Direction::South,
        Direction::West,
    ];

    /// The direction turned by 180 degrees.
    #[inline]
    #[must_use]
    pub const fn opposite(self) -> Direction {
        match self {
            Direction::North => Direction::South,
            Direction::East => Direction::West,
            Direction::South => Direction::North,
            Direction::West => Direction::East,
        }
    }

    /// The change in (file, rank) of one step in this direction.
    #[inline]
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::North => (0, 1),
            Direction::East => (1, 0),
            Direction::South => (0, -1),
            Direction::West => (-1, 0),
        }
    }

    /// The change in square index of one step in this direction.
    #[inline]
    pub const fn index_delta(self) -> i8 {
        match self {
            Direction::North => 8,
            Direction::East => 1,
            Direction::South => -8,
            Direction::West => -1,
        }
    }

    /// The forward direction of `color`'s men (North for White, South for Black).
    #[inline]
    pub const fn forward(color: Color) -> Direction {
        match color {
            Color::White => Direction::North,
            Color::Black => Direction::South,
        }
    }

    /// Whether a man of `color` may move or capture in this direction
    /// (forward or sideways, never backward).
    #[inline]
    pub const fn is_man_direction(self, color: Color) -> bool {
        !matches!(
            (self, color),
            (Direction::South, Color::White) | (Direction::North, Color::Black)
        )
    }

    /// The direction from `from` to `to` when both lie on one rank or file.
    pub const fn between(from: Square, to: Square) -> Option<Direction> {
        if from.0 == to.0 {
            None
        } else if from.file() == to.file() {
            if to.rank() > from.rank() {
                Some(Direction::North)
            } else {
                Some(Direction::South)
            }
        } else if from.rank() == to.rank() {
            if to.file() > from.file() {
                Some(Direction::East)
            } else {
                Some(Direction::West)
            }
        } else {
            None
        }
    }

    /// The direction mirrored left to right (East ↔ West).
    #[inline]
    #[must_use]
    pub const fn flip_horizontal(self) -> Direction {
        match self {
            Direction::East => Direction::West,
            Direction::West => Direction::East,
            d => d,
        }
    }
}
