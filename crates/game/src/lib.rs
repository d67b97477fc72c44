//! The game seam: everything a game supplies, once, to the layers above it.
//!
//! A game is a marker type implementing [`GameDef`], in the game's own
//! crate: its typed rule options, its game record (position and history),
//! whole moves and their text, the search's state (decisions, as the
//! search sees them: [`dama_mcts::Game`]), the network's encoding
//! ([`NnInput`], [`Shape`], mirror symmetry) and what a front end needs to
//! draw it ([`Geometry`]). Its players implement [`player::Player`]. Everything above (self-play, records, training
//! batches, the arena, bots, the protocol, the web page) is written once
//! against it; `dama_registry` maps a game's name to its implementation.
//!
//! This crate depends only on the search (`dama_mcts`), never on a game
//! nor on libtorch.

mod def;
mod input;
pub mod own;
pub mod player;
mod shape;
mod tables;

pub use def::{
    side_index, DecisionSquares, EndReason, Ending, GameDef, GameError, Geometry, IncompleteTurn,
    MoveSquares, Piece, PieceKind, RuleOptionInfo, RuleOptionValues, SideInfo, TableVerdict,
    TournamentPoints,
};
pub use input::NnInput;
pub use own::{
    AlphaBetaCapabilities, AlphaBetaLimit, AlphaBetaSpec, EvalSource, OwnCapabilities, OwnError,
    OwnFactory, OwnSpec,
};
pub use player::Choice;
pub use shape::{Shape, ShapeError, MAX_PLANES, MAX_SIDE};
pub use tables::{AnyTables, OpenedTables, TablesError};

/// Serde for a rule's optional limit (`no_capture_limit`, `ply_limit`):
/// a number, `0` meaning off, so that a limit turned off survives a TOML
/// round trip (a `None` would be left out and read back as the default).
/// Use with `#[serde(with = "dama_game::limit_serde")]`.
pub mod limit_serde {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the limit, `0` for off.
    ///
    /// # Errors
    ///
    /// The serializer's.
    #[allow(clippy::ref_option, clippy::trivially_copy_pass_by_ref)]
    pub fn serialize<S: Serializer>(v: &Option<u16>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(v.unwrap_or(0))
    }

    /// Reads a number (`0` for off).
    ///
    /// # Errors
    ///
    /// Anything but a number in `0..=65535`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
        Ok(Some(u16::deserialize(d)?).filter(|&n| n != 0))
    }
}
