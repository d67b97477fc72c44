//! Positions: where the pieces stand and who moves.

use std::fmt;
use std::str::FromStr;

use crate::board::{Bitboard, Square};

/// A side.
#[derive(
    Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The Defenders (White): 14 men moving towards column 1, promoted to
    /// Kings there.
    Defender,
    /// The King side (Black): 8 men and the King, moving towards column 8.
    KingSide,
}

impl Side {
    /// Both sides.
    pub const ALL: [Side; 2] = [Side::Defender, Side::KingSide];

    /// The other side.
    pub const fn other(self) -> Side {
        match self {
            Side::Defender => Side::KingSide,
            Side::KingSide => Side::Defender,
        }
    }

    /// The letter of the side in position text: `W` (Defender), `B` (King
    /// side).
    pub const fn letter(self) -> char {
        match self {
            Side::Defender => 'W',
            Side::KingSide => 'B',
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Defender => "defender",
            Side::KingSide => "king side",
        })
    }
}

/// The most men the King side can have (8) and the most pieces the
/// Defenders can have (14): what each side starts with.
pub const KING_SIDE_MEN: u32 = 8;
/// The Defenders' pieces at the start.
pub const DEFENDER_PIECES: u32 = 14;

/// A position: the pieces and the side to move. The King side's King is
/// always on the board (a game ends when it leaves).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub(crate) black_men: Bitboard,
    pub(crate) king: Square,
    pub(crate) white_men: Bitboard,
    pub(crate) white_kings: Bitboard,
    pub(crate) turn: Side,
}

/// Position text that does not parse or cannot occur.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad position `{text}`: {reason}")]
pub struct ParsePositionError {
    /// The text (at most 80 characters of it).
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

impl Position {
    /// The initial position (reconstructed; see the crate docs): King-side
    /// men on columns 1 and 2, the King on b3; Defender men on b5, c5 and
    /// columns 6 to 8; `first` moves.
    pub fn startpos(first: Side) -> Position {
        let col = |c: u8| Bitboard::column(c);
        let sq = |s: &str| s.parse::<Square>().expect("invariant: a valid square name");
        Position {
            black_men: col(0) | col(1),
            king: sq("b3"),
            white_men: col(5) | col(6) | col(7) | Bitboard::from_square(sq("b5")).with(sq("c5")),
            white_kings: Bitboard::EMPTY,
            turn: first,
        }
    }

    /// The side to move.
    pub const fn turn(&self) -> Side {
        self.turn
    }

    /// The King side's King.
    pub const fn king(&self) -> Square {
        self.king
    }

    /// The King side's men.
    pub const fn king_side_men(&self) -> Bitboard {
        self.black_men
    }

    /// The Defenders' men.
    pub const fn defender_men(&self) -> Bitboard {
        self.white_men
    }

    /// The Defenders' Kings.
    pub const fn defender_kings(&self) -> Bitboard {
        self.white_kings
    }

    /// Every piece of `side`.
    pub fn pieces(&self, side: Side) -> Bitboard {
        match side {
            Side::Defender => self.white_men | self.white_kings,
            Side::KingSide => self.black_men.with(self.king),
        }
    }

    /// Every occupied square.
    pub fn occupied(&self) -> Bitboard {
        self.pieces(Side::Defender) | self.pieces(Side::KingSide)
    }

    /// The position with the other side to move.
    pub fn with_turn(mut self, turn: Side) -> Position {
        self.turn = turn;
        self
    }

    /// The position mirrored across the long axis (rows A ↔ D, B ↔ C), the
    /// board's one symmetry.
    pub fn mirror(&self) -> Position {
        Position {
            black_men: self.black_men.mirror(),
            king: self.king.mirror(),
            white_men: self.white_men.mirror(),
            white_kings: self.white_kings.mirror(),
            turn: self.turn,
        }
    }

    /// A 64-bit hash of the pieces and the side to move.
    pub fn hash(&self) -> u64 {
        let mix = |mut z: u64| {
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let a = u64::from(self.black_men.0) | (u64::from(self.white_men.0) << 32);
        let b = u64::from(self.white_kings.0)
            | (u64::from(self.king.index()) << 32)
            | ((self.turn as u64) << 40);
        mix(a ^ mix(b ^ 0x9e37_79b9_7f4a_7c15))
    }

    /// Builds a position from its pieces, checking that it can occur:
    /// no square twice, at most 8 King-side men and 14 Defender pieces, no
    /// Defender man on column 1 (it would have been crowned).
    ///
    /// # Errors
    ///
    /// The reason, in words.
    pub fn from_pieces(
        black_men: Bitboard,
        king: Square,
        white_men: Bitboard,
        white_kings: Bitboard,
        turn: Side,
    ) -> Result<Position, String> {
        if black_men.contains(king)
            || !(black_men & (white_men | white_kings)).is_empty()
            || !(white_men & white_kings).is_empty()
            || (white_men | white_kings).contains(king)
        {
            return Err("two pieces on one square".into());
        }
        if black_men.count() > KING_SIDE_MEN {
            return Err(format!(
                "{} King-side men (at most {KING_SIDE_MEN})",
                black_men.count()
            ));
        }
        if (white_men | white_kings).count() > DEFENDER_PIECES {
            return Err(format!(
                "{} Defender pieces (at most {DEFENDER_PIECES})",
                (white_men | white_kings).count()
            ));
        }
        if !(white_men & Bitboard::column(0)).is_empty() {
            return Err("a Defender man on column 1 (it would be a King)".into());
        }
        Ok(Position {
            black_men,
            king,
            white_men,
            white_kings,
            turn,
        })
    }
}

impl fmt::Display for Position {
    /// `W:Wb5,c5,Kd1:Ba1,b1,Kb3`: the side to move (`W` Defenders, `B` King
    /// side), then each side's squares, `K` before a King.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        /// One side's squares: men, then Kings with a `K`.
        fn side(f: &mut fmt::Formatter<'_>, men: Bitboard, kings: Bitboard) -> fmt::Result {
            let all = men
                .into_iter()
                .map(|s| (s, ""))
                .chain(kings.into_iter().map(|s| (s, "K")));
            for (i, (sq, k)) in all.enumerate() {
                write!(f, "{}{k}{sq}", if i == 0 { "" } else { "," })?;
            }
            Ok(())
        }
        write!(f, "{}:W", self.turn.letter())?;
        side(f, self.white_men, self.white_kings)?;
        f.write_str(":B")?;
        side(f, self.black_men, Bitboard::from_square(self.king))
    }
}

impl FromStr for Position {
    type Err = ParsePositionError;

    /// Parses [`Position`]'s text form (the King side has exactly one King),
    /// or `startpos` (the Defenders to move).
    fn from_str(s: &str) -> Result<Position, ParsePositionError> {
        let fail = |reason: String| ParsePositionError {
            text: s.chars().take(80).collect(),
            reason,
        };
        let s = s.trim();
        if s == "startpos" {
            return Ok(Position::startpos(Side::Defender));
        }
        let parts: Vec<&str> = s.split(':').collect();
        if parts.len() != 3 {
            return Err(fail(
                "expected `TURN:W<squares>:B<squares>`, e.g. `W:Wb5,Kd1:Ba1,Kb3`".into(),
            ));
        }
        let turn = match parts[0] {
            "W" | "w" => Side::Defender,
            "B" | "b" => Side::KingSide,
            t => {
                return Err(fail(format!(
                    "side to move `{}` is not W or B",
                    t.escape_default()
                )))
            }
        };
        let mut sides = [(Bitboard::EMPTY, Bitboard::EMPTY); 2];
        for (i, (part, letter)) in [(parts[1], 'W'), (parts[2], 'B')].into_iter().enumerate() {
            let Some(list) = part
                .strip_prefix(letter)
                .or_else(|| part.strip_prefix(letter.to_ascii_lowercase()))
            else {
                return Err(fail(format!(
                    "the {} list must start with `{letter}`",
                    i + 1
                )));
            };
            for item in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                let (king, name) = match item.strip_prefix(['K', 'k']) {
                    Some(rest) => (true, rest),
                    None => (false, item),
                };
                let sq: Square = name.parse().map_err(|e| fail(format!("{e}")))?;
                let (men, kings) = &mut sides[i];
                if men.contains(sq) || kings.contains(sq) {
                    return Err(fail(format!("{sq} is listed twice")));
                }
                if king {
                    *kings = kings.with(sq);
                } else {
                    *men = men.with(sq);
                }
            }
        }
        let [(white_men, white_kings), (black_men, black_kings)] = sides;
        let mut kings = black_kings.into_iter();
        let (Some(king), None) = (kings.next(), kings.next()) else {
            return Err(fail(format!(
                "the King side has {} Kings (exactly one)",
                black_kings.count()
            )));
        };
        Position::from_pieces(black_men, king, white_men, white_kings, turn).map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_has_the_pieces_of_the_rules_text_and_round_trips() {
        let p = Position::startpos(Side::Defender);
        assert_eq!(p.pieces(Side::Defender).count(), 14);
        assert_eq!(p.pieces(Side::KingSide).count(), 9);
        assert_eq!(
            p.to_string(),
            "W:Wb5,c5,a6,b6,c6,d6,a7,b7,c7,d7,a8,b8,c8,d8:Ba1,b1,c1,d1,a2,b2,c2,d2,Kb3"
        );
        assert_eq!(p.to_string().parse::<Position>().unwrap(), p);
        assert_eq!("startpos".parse::<Position>().unwrap(), p);
        let m = p.mirror();
        assert_eq!(m.mirror(), p);
        assert_eq!(m.king().to_string(), "c3");
    }

    #[test]
    fn bad_text_is_refused_by_name() {
        for (text, needle) in [
            ("", "expected"),
            ("X:W:BKa1", "side to move"),
            ("W:Wa5:Ba1", "exactly one"),
            ("W:Wa5:BKa1,Kb1", "exactly one"),
            ("W:Wa1:BKb3", "column 1"),
            ("W:Wa5,a5:BKb3", "twice"),
            ("W:Wb3:BKb3", "two pieces"),
            ("W:Wz9:BKb3", "not a square"),
            ("W:Wa5:Ba1,a2,a3,a4,b1,b2,b4,c1,c2,Kd4", "King-side men"),
        ] {
            let e = text.parse::<Position>().unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
