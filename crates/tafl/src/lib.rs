//! Turkish Tafl (Rich Hutnik, 2011, game 24 of the *Games on Half a
//! Checkerboard* series): rules, legal moves decided jump by jump, whole
//! moves, notation and perft on the 8 × 4 board.
//!
//! ```
//! use dama_tafl::{perft, Game, Side, TaflRules};
//!
//! let mut game = Game::new(TaflRules::default());
//! assert_eq!(game.turn(), Side::Defender);
//! // b5 and c5 step forward or sideways, a6 and d6 forward.
//! assert_eq!(game.legal_moves().len(), 6);
//! assert_eq!(perft(&game, 4), 4497);
//!
//! // The King side answers with slides and friendly (Halma) jumps.
//! let m = game.parse_move("c5-c4")?;
//! game.play(&m)?;
//! let m = game.parse_move("a1-a3")?; // over a2
//! game.play(&m)?;
//! assert_eq!(game.position().to_string().split(':').nth(2), Some("Bb1,c1,d1,a2,b2,c2,d2,a3,Kb3"));
//! # Ok::<(), dama_tafl::PlayError>(())
//! ```
//!
//! # The rules and where each comes from
//!
//! The only text of the game is `turkish-tafl.txt` in the project's rules
//! folder ("[T]" below); it lost its diagrams (the setup and every movement
//! and example diagram), and no other published version was found. What [T]
//! leaves open is read against Turkish draughts ("[TD]",
//! `turkish-draughts-official-rules.md`), which the game fuses with Tafl,
//! and against Tafl conventions (Copenhagen Hnefatafl). Every reading [T]
//! allows is a [`TaflRules`] option; the defaults are in bold.
//!
//! * **Board.** "The board is 8 spaces long and 4 spaces wide": columns 1–8,
//!   rows A–D; a square is its row letter and column number (`b3`), which
//!   the worked examples settle ("the Black King on A7, leaping over the
//!   Black piece at A8 to exit the board").
//! * **Sides.** "Black is going from left to right, while White is going
//!   from right to left": the King side (Black, 8 men and the King; "9
//!   checkers King side … Black side doubles up one of its Checkers at start
//!   and creates a King piece with it") moves towards column 8, the
//!   Defenders (White, "14 checkers") towards column 1, where their men are
//!   promoted ("After a Defender's man … ends up hitting column 1, it is
//!   promoted to a King piece").
//! * **Setup** (the diagram is lost; an assumption): King-side men on
//!   columns 1 and 2, the King on b3 (every King example of [T] has it on
//!   B3); Defender men on columns 6 to 8 and on b5 and c5 (the handicap "set
//!   up their pieces on any spaces in their first four columns where their
//!   pieces start" puts them in columns 5–8). Any other setup can be given
//!   as a position ([`Position`]'s text).
//! * **First move** ([T]: "Players alternate turns"): **the Defenders**
//!   (White moves first in [TD]; the side opposing the king does in Tafl),
//!   or the King side ([`TaflRules::first`]).
//! * **Slides.** "Slide: Move one piece one space": men forward or sideways
//!   (as in [TD]; the movement diagrams are lost), Kings in all four
//!   directions ("could leap backwards to B1"). No diagonal moves.
//! * **Friendly jumps** (King side only: listed under "King side's moves";
//!   "Give Defender side the ability to jump over piece on own side" is a
//!   handicap): "Piece jumps over one or more friendly pieces (Halma/Chinese
//!   Checker style) and ends turn on different space than where it started.
//!   Only one piece may be jumped at a time, and after each jump, piece lands
//!   on an empty space." Men jump forward or sideways, the King in all four
//!   directions, over adjacent pieces (the King included); the chain may stop
//!   after any jump ("it can either continue to B5, or leap to D3"); no
//!   square is landed on twice in one chain (which keeps chains finite and
//!   gives the same set of end squares).
//! * **Capture jumps**: "A player with at least one capture jump move during
//!   their turn available, MUST perform a capture jump … Once a piece
//!   performs a single capture jump move over an enemy piece, it must
//!   continue to perform such a move until the piece is not able to."
//!   Captured pieces are removed at once (as in [TD]). **No majority rule**:
//!   every worked example offers chains of different lengths as free
//!   choices ([`TaflRules::majority`] turns the [TD] rule on). Kinds never
//!   mix: "a player may not combine a slide or jump, or a friendly and
//!   capture jump".
//! * **Defender captures.** "The King side's King piece may not be jumped
//!   over and captured." A Defender man "jumps over only one enemy piece":
//!   **one capture per turn** (also the handicap "Give mult-piece jump
//!   capture to Defender side"), or chains as in the worked example C4xC2xA2
//!   ([`TaflRules::defender_man_chain`]). A Defender King "moves and
//!   captures like an enemy King piece" (chains, all four directions) and
//!   can be captured.
//! * **The King's exit.** "King side wins if it gets King piece off the
//!   board past column 8": by a slide from column 8, or by a capture jump
//!   over a Defender on column 8 ("the King piece on A7 leaps over the White
//!   piece on A8 to exit the board"), **never by a friendly jump** ("leaping
//!   over the Black piece at A8 to exit the board, is not a legal move").
//!   An exit slide is a slide, so a pending capture forbids it. "King side
//!   wins if it gets King piece to column 8" (said once) is the option
//!   [`Goal::Column8`](crate::Goal::Column8).
//! * **The Defenders win** "If the King side no longer has [any] legal
//!   moves, has no chance of ever exiting off the board, because the board
//!   has locked up …, or has surrounded the King side's King on all sides
//!   orthogonally with their own pieces, at the start of the King side's
//!   turn": all three are tested at the start of every King-side turn.
//!   Surrounded means **four Defender pieces** (an edge is not hostile, as in
//!   Tafl), or walls on rows A and D and column 1 too
//!   ([`Surround::EdgeCounts`](crate::Surround::EdgeCounts)); the locked
//!   board is decided by [`lockup`] (**frozen**, or off).
//! * **A Defender without a legal move loses** ([T] is silent; [TD] and
//!   Tafl).
//! * **Games that do not end** (nothing in [T]): after **200 plies**
//!   ([`TaflRules::ply_limit`]) or a threefold repetition, **the Defenders
//!   win** (the King "has no chance of ever exiting"; Tafl makes repetition
//!   a loss for the king's side), or it is a draw
//!   ([`TaflRules::limit_result`]).
//! * **The tournament variant** (two games, one per side, scored by pieces)
//!   is a match format, not a rule of one game: see [`tournament_score`].
//!
//! Not offered yet: flying Kings, the handicaps that add or remove jump
//! kinds, the Kingless and Big-King variants, end-of-move removal of
//! captured pieces (with short jumps it changes only whether a later jump
//! may land on a square just emptied).

mod board;
pub mod encode;
pub mod features;
mod game;
mod learned;
pub mod lockup;
mod perft;
pub mod players;
mod plugin;
mod position;
mod rules;
pub mod search;
pub mod shipped;

pub use board::{Bitboard, Dir, ParseSquareError, Square, COLUMNS, ROWS, SQUARES};
pub use features::TaflFeatures;
pub use game::{Game, Move, MoveKind, Outcome, PlayError, PlayableMove, Step, Termination, Undo};
pub use perft::perft;
pub use plugin::Tafl;
pub use position::{ParsePositionError, Position, Side, DEFENDER_PIECES, KING_SIDE_MEN};
pub use rules::{Goal, LimitResult, Lockup, ParseRulesError, Surround, TaflRules};

/// The tournament score of one finished game ([T]: "Player who wins the
/// game counts the number of pieces of theirs they have left on the board,
/// and the number of enemy pieces were captured … King piece(s) count as one
/// piece"): the winner's score (the loser, and both sides of a draw, score
/// 0). A King that escaped counts as one of the winner's pieces.
pub fn tournament_score(game: &Game) -> Option<(Side, u32)> {
    let outcome = game.outcome()?;
    let winner = outcome.winner?;
    let start = game.start_position();
    let pos = game.position();
    let own = pos.pieces(winner).count();
    let captured = start.pieces(winner.other()).count() - pos.pieces(winner.other()).count();
    Some((winner, own + captured))
}
