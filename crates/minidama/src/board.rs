//! The board: [`Square`], [`Color`], [`Piece`] and [`Position`] with its
//! text (`W:Wa2,b2,Kd4:Ba5,Kf6`).

use std::fmt;
use std::str::FromStr;

use crate::MiniError;

/// Squares on a side of the board.
pub const SIDE: u8 = 6;

/// A square, `a1`..`f6`: index `6 · rank + file`, both from 0, a1 first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square on `file` and `rank` (both `0..6`), if on the board.
    #[must_use]
    pub fn new(file: i8, rank: i8) -> Option<Square> {
        let on = |v: i8| (0..SIDE as i8).contains(&v);
        (on(file) && on(rank)).then(|| Square(rank as u8 * SIDE + file as u8))
    }

    /// Every square, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..36).map(Square)
    }

    /// Index `0..36`.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// File, 0 (`a`) to 5 (`f`).
    #[must_use]
    pub fn file(self) -> i8 {
        (self.0 % SIDE) as i8
    }

    /// Rank, 0 (`1`) to 5 (`6`).
    #[must_use]
    pub fn rank(self) -> i8 {
        (self.0 / SIDE) as i8
    }

    /// The square `(df, dr)` away, if on the board.
    #[must_use]
    pub fn offset(self, (df, dr): (i8, i8)) -> Option<Square> {
        Square::new(self.file() + df, self.rank() + dr)
    }

    /// The square mirrored left to right (a ↔ f).
    #[must_use]
    pub fn mirrored(self) -> Square {
        Square(self.0 - self.file() as u8 + (SIDE - 1 - self.file() as u8))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file() as u8) as char,
            self.rank() + 1
        )
    }
}

impl FromStr for Square {
    type Err = MiniError;

    fn from_str(s: &str) -> Result<Square, MiniError> {
        match s.as_bytes() {
            [f @ b'a'..=b'f', r @ b'1'..=b'6'] => Ok(Square((r - b'1') * SIDE + (f - b'a'))),
            _ => Err(MiniError::Square(s.to_owned())),
        }
    }
}

/// A side: White moves first, up the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Moves first, towards rank 6.
    White,
    /// Moves towards rank 1.
    Black,
}

impl Color {
    /// The other side.
    #[must_use]
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The rank step of this side's forward direction (+1 or −1).
    #[must_use]
    pub fn forward(self) -> i8 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }

    /// The rank where this side's men are crowned.
    #[must_use]
    pub fn last_rank(self) -> i8 {
        match self {
            Color::White => SIDE as i8 - 1,
            Color::Black => 0,
        }
    }

    fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }
}

/// A man or a king of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece.
    pub color: Color,
    /// Whether it is a king.
    pub king: bool,
}

/// The pieces on the board and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    cells: [Option<Piece>; 36],
    turn: Color,
}

impl Position {
    /// The start position: White men on rank 2, Black men on rank 5, White
    /// to move.
    #[must_use]
    pub fn start() -> Position {
        let mut p = Position::empty(Color::White);
        for sq in Square::all().filter(|s| s.rank() == 1 || s.rank() == 4) {
            let color = if sq.rank() == 1 {
                Color::White
            } else {
                Color::Black
            };
            p.set(sq, Some(Piece { color, king: false }));
        }
        p
    }

    /// An empty board with `turn` to move.
    #[must_use]
    pub fn empty(turn: Color) -> Position {
        Position {
            cells: [None; 36],
            turn,
        }
    }

    /// The piece on `sq`.
    #[must_use]
    pub fn get(&self, sq: Square) -> Option<Piece> {
        self.cells[sq.index()]
    }

    /// Puts `piece` on `sq` (or empties it).
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        self.cells[sq.index()] = piece;
    }

    /// The side to move.
    #[must_use]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Sets the side to move.
    pub fn set_turn(&mut self, turn: Color) {
        self.turn = turn;
    }

    /// The squares of `color`'s pieces, a1 first.
    pub fn squares(&self, color: Color) -> impl Iterator<Item = Square> + '_ {
        Square::all().filter(move |&s| self.get(s).is_some_and(|p| p.color == color))
    }

    /// How many pieces `color` has.
    #[must_use]
    pub fn count(&self, color: Color) -> usize {
        self.squares(color).count()
    }

    /// A hash of the pieces and the side to move (FNV-1a, the same in every
    /// run).
    #[must_use]
    pub fn hash(&self) -> u64 {
        let code = |c: Option<Piece>| c.map_or(0, |p| 1 + p.color as u8 * 2 + p.king as u8);
        let bytes = self.cells.iter().map(|&c| code(c));
        bytes
            .chain([self.turn as u8])
            .fold(0xcbf2_9ce4_8422_2325, |h, b| {
                (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
            })
    }

    /// The position mirrored left to right (a ↔ f); the rules are
    /// symmetric under it.
    #[must_use]
    pub fn mirrored(&self) -> Position {
        let mut p = Position::empty(self.turn);
        for sq in Square::all() {
            p.set(sq.mirrored(), self.get(sq));
        }
        p
    }
}

impl fmt::Display for Position {
    /// `W:Wa2,b2,Kd4:Ba5,Kf6`: the side to move, then each side's squares
    /// (a1 first, `K` before a king).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.turn.letter())?;
        for color in [Color::White, Color::Black] {
            write!(f, ":{}", color.letter())?;
            for (i, sq) in self.squares(color).enumerate() {
                let king = if self.get(sq).is_some_and(|p| p.king) {
                    "K"
                } else {
                    ""
                };
                write!(f, "{}{king}{sq}", if i > 0 { "," } else { "" })?;
            }
        }
        Ok(())
    }
}

impl FromStr for Position {
    type Err = MiniError;

    /// Reads what [`Display`](fmt::Display) writes (either side's list may
    /// come first and may be empty); refuses a square given twice, a man on
    /// its own side's crowning row, and more than six pieces a side.
    fn from_str(s: &str) -> Result<Position, MiniError> {
        let bad = |why| MiniError::Position {
            text: s.to_owned(),
            why,
        };
        let fields: Vec<&str> = s.trim().split(':').map(str::trim).collect();
        let [turn, a, b] = fields[..] else {
            return Err(bad("expected three fields: side to move, White, Black"));
        };
        let color = |t: &str| match t {
            "W" => Some(Color::White),
            "B" => Some(Color::Black),
            _ => None,
        };
        let mut p = Position::empty(color(turn).ok_or(bad("the side to move is not W or B"))?);
        let mut seen = [false; 2];
        for field in [a, b] {
            let side = field.get(..1).and_then(color);
            let side = side.ok_or(bad("a side's list does not start with W or B"))?;
            if std::mem::replace(&mut seen[side as usize], true) {
                return Err(bad("a side is listed twice"));
            }
            for item in field[1..]
                .split(',')
                .map(str::trim)
                .filter(|i| !i.is_empty())
            {
                let (king, name) = match item.strip_prefix('K') {
                    Some(rest) => (true, rest),
                    None => (false, item),
                };
                let sq: Square = name.parse()?;
                if p.get(sq).is_some() {
                    return Err(bad("a square is given twice"));
                }
                if !king && sq.rank() == side.last_rank() {
                    return Err(bad("a man stands on its crowning row"));
                }
                p.set(sq, Some(Piece { color: side, king }));
            }
            if p.count(side) > SIDE as usize {
                return Err(bad("more than six pieces a side"));
            }
        }
        Ok(p)
    }
}
