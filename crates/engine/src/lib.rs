//! Turkish draughts (Dama) and its orthogonal relatives (Armenian draughts,
//! Croda, Dameo): bitboards, legal moves, notation, perft.
//!
//! ```
//! use dama_engine::{perft, Game, Position, Rules, StepResult};
//!
//! // Positions, moves and notation.
//! let mut pos = Position::startpos();
//! assert_eq!(pos.legal_moves().len(), 8);
//! let m = pos.parse_move("d3-d4")?;
//! pos.play_unchecked(&m);
//!
//! // A king on d4 takes d6, turns on d7 and takes f7: the maximum rule
//! // forces both captures (landing on g7 or h7 are two moves).
//! let pos: Position = "W:WKd4:Bd6,f7,a7".parse()?;
//! let moves = pos.legal_moves();
//! assert_eq!(moves.len(), 2);
//! assert!(moves.iter().all(|m| m.capture_count() == 2));
//! assert_eq!(moves[0].to_string(), "d4xd7xg7");
//!
//! // The same capture, one jump at a time.
//! let mut game = Game::from_position(pos);
//! let first = game.legal_steps()[0];
//! assert_eq!(game.play_step(first)?, StepResult::InProgress);
//! let second = game.legal_steps()[0];
//! assert!(matches!(game.play_step(second)?, StepResult::Completed(_)));
//!
//! // Perft from the initial position.
//! assert_eq!(perft(&Position::startpos(), &Rules::default(), 4), 7538);
//! # Ok::<(), dama_engine::Error>(())
//! ```
//!
//! # Rules of Turkish draughts
//!
//! The default [`Rules`] follow `turkish-draughts-official-rules.md` and
//! Zeybek's "Türk Daması":
//!
//! * Men step one square forward or sideways; kings slide any distance along
//!   ranks and files. Captures are orthogonal jumps: a man jumps an adjacent
//!   piece forward or sideways; a king flies, jumping the first piece on a
//!   line at any distance and landing on any empty square beyond it.
//! * Capturing is mandatory, and the sequence that captures the most pieces
//!   must be played; men and kings count alike; among equal maxima the choice
//!   is free (with any piece).
//! * Captured pieces leave the board at once, so their squares (and the
//!   capturing piece's start square) can be crossed again in the same move.
//! * No 180-degree reversal between two consecutive jumps; 90-degree L-turns
//!   are allowed.
//! * A man is crowned on the far row. Reached during a capture, by default it
//!   finishes the capture as a man and is crowned at the end of the move
//!   ([`MidCapturePromotion::EndOfMove`]); [`MidCapturePromotion::ContinueAsKing`] crowns
//!   it at once.
//! * A player with no pieces, or whose pieces are all blocked, loses. If
//!   neither side could move, the game is drawn (mutual block).
//! * Draws: threefold repetition (same pieces, same side to move; see
//!   [`Game`]); one piece each (by default whatever the pieces;
//!   [`OnePieceEachRule::PlayOn`] switches it off;
//!   [`OnePieceEachRule::KingBeatsMan`] lets a lone king beat a lone man); and
//!   [`Rules::no_capture_limit`] plies without a capture (default 50, `None`
//!   for off).
//!
//! # Variants
//!
//! [`Rules::variant`] picks the game ([`Variant`]; `variant=dameo` in rules
//! text, `variant = "dameo"` in configs, Turkish by default). All variants
//! share [`Position`], [`Move`], [`Game`], notation and perft; each has its
//! own initial position ([`Position::startpos_with_rules`]) and, where the
//! rules differ, its own move generator (Armenian extends the Turkish one;
//! Croda and Dameo share another). A position with more pieces than a variant
//! starts with is refused under it ([`Position::from_str_with_rules`],
//! [`Position::try_with_rules`]), and a game record is replayed under its
//! `[Rules]` tag, so a record of one variant fails under another at its first
//! illegal move. Sources are named by their file in `shared/rules/`
//! (`README.md` there) or by address.
//!
//! **Armenian** (`turkish-checkers-variant-armenian.txt`):
//!
//! * 16 men a side on ranks 2–3 and 6–7, as in Turkish draughts.
//! * A man steps one square forward, sideways **or diagonally forward**.
//! * Everything else as in Turkish draughts above (the source's captures,
//!   kings, maximum rule and immediate removal are the Turkish ones), with
//!   the Turkish promotion option.
//! * Draws: threefold repetition (and agreement); the source gives no
//!   one-piece or 50-ply rule, so they are off by default and available as
//!   options.
//!
//! **Croda** (Ljuban Dedić, 1995; `orthogonal-draughts-turkish-croda-dameo.txt`
//! = "004", Dedić's rules as given at `di.fc.ul.pt/~jpn/gv/croda.htm`, and
//! Freeling at `mindsports.nl` "The Pit: Croda"):
//!
//! * 24 men a side on the three nearest ranks.
//! * A man steps one square straight or diagonally forward (004, jpn,
//!   Freeling: "replaced the sideways move of a man in Turkish draughts by a
//!   diagonally forward move"; setupgroup.com alone adds a sideways step,
//!   not followed).
//! * A king slides any distance along ranks and files, like a rook.
//! * Captures are orthogonal only: a man jumps an adjacent piece forward,
//!   sideways and backward (jpn, setupgroup; 004 says forward and sideways:
//!   [`Rules::croda_man_captures`]); a king jumps the first piece on its line
//!   at any distance and lands on any empty square beyond.
//! * Captured pieces are removed at the end of the move; until then they
//!   block and cannot be jumped again, while empty squares may be crossed
//!   repeatedly (jpn; Freeling: Croda sits "in the framework of rules of
//!   International Draughts"; 004 is silent for Croda): [`Rules::croda_removal`]
//!   switches to Turkish removal (at once, with the 180-degree ban).
//! * Capturing is mandatory and the maximum capture must be played (men and
//!   kings count alike).
//! * A man is crowned only if its move ends on the last row; a man that
//!   touches the last row and jumps back out of it stays a man (004,
//!   setupgroup).
//! * A player without a move loses. Draws: threefold repetition, mutual
//!   block (jpn: "mutual impotence"); no one-piece or 50-ply rule by default.
//!
//! **Dameo** (Christian Freeling, 2000; 004, Freeling at
//! `mindsports.net/Arena/Dameo/Rules`, jpn `dameo.htm`):
//!
//! * 18 men a side in a trapezoid: a1–h1, b2–g2, c3–f3 and the mirror image.
//! * Linear movement: a straight unbroken line of one or more men (no kings)
//!   moves one square forward along its own line, straight or diagonally,
//!   if the square in front of it is empty (Freeling). Any man may be the
//!   rear of the line (playstrategy.org, BrainKing: a man jumps over a line
//!   of friendly men to the empty square beyond). The board after it is the
//!   rear man moved to the square in front, so a line move is a quiet
//!   [`Move`] from the rear square to that square (`d1-d4`: d1, d2, d3 move
//!   up); a single man's step is a line of one.
//! * A king moves any distance in the eight directions, like a queen, but
//!   captures orthogonally only, like a flying rook.
//! * Men capture forward, sideways and backward; captured pieces are removed
//!   at the end of the move and no piece is jumped twice; maximum capture.
//! * A man (the leader, for a line) is crowned only if its move ends on the
//!   last row; a man bounced back during a capture is not crowned.
//! * Draws: threefold repetition, mutual block; no one-piece or 50-ply rule
//!   by default.
//!
//! In every variant [`perft`] counts moves as for Turkish draughts below, a
//! capture is a sequence of orthogonal jumps ([`Step`]s) and every other move
//! is one step; Armenian and Croda men's diagonal steps and Dameo's line
//! moves and diagonal king slides are quiet steps whose `from` and `to` are
//! not on one rank or file (line moves span up to seven squares).
//!
//! # Text formats
//!
//! * Positions ([`Position`]'s `FromStr`/`Display`): `W:Wa2,b2,Kd4:Ba7,Kh8`
//!   — the side to move, then each side's squares after its letter, `K`
//!   before a king; `startpos` for the initial position. Counters and rules
//!   are not part of the text.
//! * Moves ([`Move`]'s `Display`, [`Position::parse_move`], [`MoveText`]):
//!   `d3-d4` (quiet), `d4xd6` (one jump), `b3xd3xd5` (every landing square in
//!   order). On input a trailing `=K` is accepted (and must agree with the
//!   move), `X` and `:` read as `x`, and the short form `fromxto` is accepted
//!   for a longer capture when exactly one legal move matches it.
//! * Game records ([`GameRecord`]): optional `[Tag "value"]` lines (a
//!   `[Position "…"]` tag gives a non-standard start), then numbered moves and
//!   a result: `1. d3-d4 d6-d5 2. d4xd6xd8 c7-d7 1-0`.
//!
//! # Moves with the same effect
//!
//! Capture sequences of one piece with the same start, end and captured set
//! are one [`Move`], listed once and counted once by [`perft`]. See [`Move`].
//!
//! # Perft convention
//!
//! [`perft`] counts leaf positions reached by distinct moves in the sense
//! above; a position without moves above the last ply adds nothing. The
//! `kish` crate counts every capture path separately and counts a node without
//! moves as one leaf, so its numbers are larger in capture-rich trees.

mod bitboard;
mod color;
mod error;
mod game;
mod geometry;
mod movegen;
mod mv;
mod notation;
mod ortho;
mod outcome;
mod perft;
mod position;
mod rules;
mod square;
mod zobrist;

pub use bitboard::{Bitboard, IntoIter as BitboardIter};
pub use color::{ByColor, Color, Piece, Role};
pub use error::{
    Error, ParseGameError, ParseMoveError, ParsePositionError, ParseRulesError, ParseSquareError,
    PlayError, PositionError,
};
pub use game::{Game, PendingCapture, StepList, StepResult};
pub use mv::{Move, MoveList, Path, Step, MAX_CAPTURES, MAX_MOVES};
pub use notation::{GameRecord, MoveText};
pub use outcome::{Outcome, Termination};
pub use perft::{perft, perft_divide};
#[cfg(feature = "parallel")]
pub use perft::{perft_divide_parallel, perft_parallel};
pub use position::Position;
pub use rules::{
    CaptureRemoval, ManCaptureDirections, MidCapturePromotion, OnePieceEachRule, RuleOption,
    RuleValues, Rules, Variant,
};
pub use square::{Direction, Square};
