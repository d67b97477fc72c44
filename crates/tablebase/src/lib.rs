//! Endgame tablebases for Turkish draughts: every position with few pieces
//! solved by retrograde analysis, with the no-capture rule as part of the
//! answer.
//!
//! ```
//! use dama_engine::{Position, Rules};
//! use dama_tablebase::{Generator, Tablebase, Wdl};
//!
//! let dir = tempfile::tempdir().unwrap();
//! Generator::new(dir.path(), Rules::default()).generate(3, &|_| {})?;
//! let tb = Tablebase::open(dir.path())?;
//! assert_eq!(tb.max_pieces(), 3);
//!
//! // Two kings against one, and the king on d4 takes d6: a win in one ply.
//! let pos: Position = "W:WKd4,Ka8:BKd6".parse().unwrap();
//! let p = tb.probe(&pos).unwrap();
//! assert_eq!((p.wdl, p.dtz), (Wdl::Win, Some(1)));
//! // After 50 plies without a capture the game is drawn: a cursed win.
//! let late = pos.with_counters(50, 0);
//! assert_eq!(tb.probe(&late).unwrap().wdl, Wdl::CursedWin);
//! // The moves that keep the win fastest come first.
//! let (best, after) = tb.best_moves(&pos).unwrap()[0];
//! assert_eq!(after.wdl, Wdl::Win);
//! # let _ = best;
//! # Ok::<(), dama_tablebase::Error>(())
//! ```
//!
//! # What is stored
//!
//! One file per material split (men and kings of each side, `KMvK.dtb`),
//! both sides to move, for one [`Rules`](dama_engine::Rules) value recorded
//! in the header. For each position: win/draw/loss with the no-capture rule
//! ignored (2 bits), and the distance to zeroing `k` of wins and losses that
//! hold under the rule: the plies to the capture that keeps the result, or
//! to the end of the game when no capture is needed (the winner minimising,
//! the loser maximising). Only captures reset the counter in this engine,
//! so from a counter `c` a win stands exactly when `c + k` is at most the
//! limit; otherwise it is a cursed win (and a loss a blessed loss). With the
//! rule off the values are plain win/draw/loss and `k` is the plain distance
//! to zeroing.
//!
//! Positions with fewer than three pieces, or with a bare side, need no
//! table: the rules decide them ([`Position::termination`](dama_engine::Position::termination)).
//! Positions that repeat forever are draws, as the repetition rule makes
//! them; a side with no move loses (a draw if neither side can move), as in
//! the engine.
//!
//! See `README.md` for the file format, the index and the measured sizes and
//! speeds.

mod error;
mod generate;
mod index;
mod material;
mod probe;
mod table;
mod value;

pub use error::{Error, Result};
pub use generate::{Event, Generator, SplitReport};
pub use material::Material;
pub use probe::{sample_positions, Probe, Tablebase, Unusable, Wdl};
pub use table::{Stats, Table, FORMAT_VERSION};

/// The most pieces a table may have.
pub const MAX_PIECES: u32 = 6;
