//! Error types. Every parser and every checked operation returns one of
//! these; nothing in the crate panics on bad input.

use thiserror::Error;

use crate::{Color, Square, Variant};

/// A square name that is not `a1` … `h8`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid square {text:?} (expected a1 to h8)")]
pub struct ParseSquareError {
    /// The offending text.
    pub text: String,
}

/// A set of pieces that cannot be a position of the variant in force.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    /// Two pieces on one square.
    #[error("two pieces on {0}")]
    Overlap(Square),
    /// A man on the row where it would already have been crowned.
    #[error("{color} man on {square}, its promotion row: a man cannot stand there")]
    ManOnPromotionRow {
        /// The man's colour.
        color: Color,
        /// Where it stands.
        square: Square,
    },
    /// More pieces of one colour than the variant starts with.
    #[error("{color} has {count} pieces (at most {max} in {variant})")]
    TooManyPieces {
        /// The colour.
        color: Color,
        /// How many it has.
        count: u32,
        /// The most the variant allows ([`Variant::max_pieces`]).
        max: u32,
        /// The variant checked against.
        variant: Variant,
    },
}

/// Position text that could not be read (see [`Position`](crate::Position)'s `FromStr`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParsePositionError {
    /// Nothing to parse.
    #[error("empty position text")]
    Empty,
    /// A character that has no place at this point.
    #[error("unexpected character {ch:?} at byte {index} of the position")]
    UnexpectedChar {
        /// The character.
        ch: char,
        /// Its byte offset in the input.
        index: usize,
    },
    /// The side to move is not `W` or `B`.
    #[error("invalid side to move {0:?} (expected W or B)")]
    BadTurn(String),
    /// A square that does not parse.
    #[error("invalid square {text:?} at byte {index} of the position")]
    BadSquare {
        /// The text.
        text: String,
        /// Its byte offset in the input.
        index: usize,
    },
    /// The same colour's piece list appears twice.
    #[error("the piece list for {0} appears twice")]
    DuplicateColor(Color),
    /// The text has more or fewer `:`-separated fields than `side:W…:B…`.
    #[error("expected side:Wsquares:Bsquares, found {0} field(s)")]
    FieldCount(usize),
    /// The pieces parse but do not form a valid position.
    #[error(transparent)]
    Invalid(#[from] PositionError),
}

/// Move text that could not be read or is not legal in the position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseMoveError {
    /// Nothing to parse.
    #[error("empty move text")]
    Empty,
    /// A character that has no place at this point.
    #[error("unexpected character {ch:?} at byte {index} of move {text:?}")]
    UnexpectedChar {
        /// The whole move text.
        text: String,
        /// The character.
        ch: char,
        /// Its byte offset.
        index: usize,
    },
    /// A square that does not parse.
    #[error("invalid square {square:?} in move {text:?}")]
    BadSquare {
        /// The whole move text.
        text: String,
        /// The bad square text.
        square: String,
    },
    /// Well-formed but not a legal move here.
    #[error("illegal move {text:?}: {reason}")]
    Illegal {
        /// The move text.
        text: String,
        /// Why (for example "a capture is mandatory" or "no piece on d3").
        reason: String,
    },
    /// The short `from x to` form matches more than one legal capture.
    #[error("ambiguous move {text:?}: {count} legal captures match; give the full path")]
    Ambiguous {
        /// The move text.
        text: String,
        /// How many legal moves match.
        count: usize,
    },
}

/// A move or step that cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlayError {
    /// The move is not among the legal moves.
    #[error("illegal move {0}")]
    IllegalMove(String),
    /// The step is not among the legal steps.
    #[error("illegal step {0}")]
    IllegalStep(String),
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// A whole move was played while a capture is half done.
    #[error("a capture is in progress: finish it with play_step")]
    CaptureInProgress,
}

/// Rules text (`no_capture_limit=off ...`) that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("rules: {0}")]
pub struct ParseRulesError(pub String);

/// A game record that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseGameError {
    /// A `[Tag "value"]` line that is malformed.
    #[error("line {line}: malformed tag {text:?}")]
    BadTag {
        /// 1-based line number.
        line: usize,
        /// The text.
        text: String,
    },
    /// The `Rules` tag does not parse.
    /// (The cause is in the message, so not also a `source`: a chain
    /// printer would say it twice.)
    #[error("bad rules tag: {0}")]
    Rules(ParseRulesError),
    /// The `FEN`/`Position` tag does not parse (the cause is in the message).
    #[error("bad starting position: {0}")]
    Position(ParsePositionError),
    /// A move that does not parse or is illegal.
    #[error("move {ply} ({text:?}): {reason}")]
    Move {
        /// 1-based ply number.
        ply: usize,
        /// The move text.
        text: String,
        /// Why (in the message, so not also a `source`: a chain printer
        /// would say it twice).
        reason: ParseMoveError,
    },
    /// A move number that does not match the move it numbers.
    #[error("unexpected move number {text:?} before ply {ply}")]
    MoveNumber {
        /// The token.
        text: String,
        /// 1-based ply number it precedes.
        ply: usize,
    },
    /// A move after the end of the game.
    #[error("move {text:?} after the game ended")]
    AfterEnd {
        /// The move text.
        text: String,
    },
    /// Text after the result token.
    #[error("unexpected text {0:?} after the result")]
    Trailing(String),
}

/// Any error of this crate.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// See [`ParseSquareError`].
    #[error(transparent)]
    Square(#[from] ParseSquareError),
    /// See [`PositionError`].
    #[error(transparent)]
    Position(#[from] PositionError),
    /// See [`ParsePositionError`].
    #[error(transparent)]
    ParsePosition(#[from] ParsePositionError),
    /// See [`ParseMoveError`].
    #[error(transparent)]
    ParseMove(#[from] ParseMoveError),
    /// See [`PlayError`].
    #[error(transparent)]
    Play(#[from] PlayError),
    /// See [`ParseGameError`].
    #[error(transparent)]
    ParseGame(#[from] ParseGameError),
}

impl From<ParseRulesError> for ParseGameError {
    fn from(e: ParseRulesError) -> ParseGameError {
        ParseGameError::Rules(e)
    }
}

impl From<ParsePositionError> for ParseGameError {
    fn from(e: ParsePositionError) -> ParseGameError {
        ParseGameError::Position(e)
    }
}
