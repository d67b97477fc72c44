//! How a game ends.

use std::fmt;

use crate::Color;

/// The result of a finished game.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// One side won.
    Decisive {
        /// The winner.
        winner: Color,
    },
    /// Nobody won.
    Draw,
}

impl Outcome {
    /// The winner, if any.
    pub const fn winner(self) -> Option<Color> {
        match self {
            Outcome::Decisive { winner } => Some(winner),
            Outcome::Draw => None,
        }
    }

    /// The score from `color`'s point of view: 1 for a win, 0 for a draw, -1
    /// for a loss.
    pub fn score_for(self, color: Color) -> i8 {
        match self {
            Outcome::Decisive { winner } if winner == color => 1,
            Outcome::Decisive { .. } => -1,
            Outcome::Draw => 0,
        }
    }

    /// The result token of a game record: `1-0`, `0-1` or `1/2-1/2`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Decisive {
                winner: Color::White,
            } => "1-0",
            Outcome::Decisive {
                winner: Color::Black,
            } => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }

    /// Parses `1-0`, `0-1` or `1/2-1/2`.
    pub fn from_token(s: &str) -> Option<Outcome> {
        match s {
            "1-0" => Some(Outcome::Decisive {
                winner: Color::White,
            }),
            "0-1" => Some(Outcome::Decisive {
                winner: Color::Black,
            }),
            "1/2-1/2" => Some(Outcome::Draw),
            _ => None,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a game ended.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Termination {
    /// The side to move has no pieces left: it loses.
    NoPieces,
    /// The side to move has pieces but no legal move (it is blocked): it loses.
    Blocked,
    /// Neither side could move: a draw.
    MutualBlock,
    /// One piece each: a draw (the default rule).
    OnePieceEach,
    /// One king against one man under
    /// [`OnePieceEachRule::KingBeatsMan`](crate::OnePieceEachRule::KingBeatsMan):
    /// the king's side wins.
    KingBeatsMan,
    /// The same position (and side to move) arose for the third time: a draw.
    Repetition,
    /// [`Rules::no_capture_limit`](crate::Rules::no_capture_limit) plies without
    /// a capture: a draw.
    NoCaptureLimit,
}
