//! Mini Turkish draughts: the rules of Turkish draughts
//! (`shared/rules/turkish-draughts-official-rules.md`), unchanged, on a
//! 6 × 6 board; a small third game behind the game seam ([`MiniDama`]
//! implements [`dama_game::GameDef`]).
//!
//! * Squares `a1`..`f6`, files left to right and ranks bottom to top from
//!   White's side. Each side has six men on its second row: White on rank 2,
//!   Black on rank 5. White moves first.
//! * A man steps one square forward or sideways; a king flies any distance
//!   along a rank or file.
//! * A man captures forward or sideways by jumping an adjacent enemy piece
//!   to the empty square beyond; a king captures at a distance, jumping the
//!   first piece on its line (if it is an enemy and the squares before it
//!   are empty) and landing on any empty square beyond it.
//! * Capturing is mandatory and must go on while the piece can; the
//!   sequence capturing the most pieces must be played (men and kings count
//!   alike; the choice among equal maxima is free).
//! * A captured piece leaves the board at once: it cannot be jumped twice
//!   and does not block. No 180° turn between two jumps.
//! * A man reaching the last row is crowned at the end of the move; reached
//!   during a capture, it finishes the capture as a man.
//! * A side with no pieces, or with no legal move, loses; if neither side
//!   could move it is a draw (mutual block). Draws: threefold repetition,
//!   one piece each ([`MiniRules::one_piece_each`]) and
//!   [`MiniRules::no_capture_limit`] plies without a capture (default 40).
//!
//! ```
//! use dama_minidama::{perft, Game, MiniRules, Position};
//!
//! let mut game = Game::new(MiniRules::default());
//! assert_eq!(game.legal_moves().len(), 6);
//! game.play(&game.parse_move("c2-c3")?)?;
//! assert_eq!(game.position().to_string(), "B:Wa2,b2,d2,e2,f2,c3:Ba5,b5,c5,d5,e5,f5");
//! assert_eq!(perft(&Position::start(), 3), 286);
//! # Ok::<(), dama_minidama::MiniError>(())
//! ```

mod board;
mod encode;
mod game;
mod moves;
mod plugin;
mod rules;
mod search;

pub use board::{Color, Piece, Position, Square, SIDE};
pub use encode::{mirror_planes, mirror_policy_index, ENCODING_VERSION, SHAPE};
pub use game::Game;
pub use moves::{perft, Move, Step};
pub use plugin::MiniDama;
pub use rules::MiniRules;
pub use search::MiniState;

/// Everything this crate refuses, naming the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MiniError {
    /// Not a square of the board (`a1`..`f6`).
    #[error("`{0}` is not a square (a1..f6)")]
    Square(String),
    /// Position text that cannot be read, and why.
    #[error("bad position `{text}`: {why}")]
    Position {
        /// The text.
        text: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// Move text that cannot be read, and why.
    #[error("bad move `{text}`: {why}")]
    MoveText {
        /// The text.
        text: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A move that is not legal in the position (or the game is over).
    #[error("`{0}` is not a legal move here")]
    Illegal(String),
    /// Rules text naming an unknown option or value.
    #[error("bad rules `{0}`: expected no_capture_limit=N|off (N in 1..=1000) or one_piece_each=draw|play_on")]
    Rules(String),
}
