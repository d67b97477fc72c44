//! Turkish draughts and its variants (Armenian, Croda, Dameo:
//! [`dama_engine::Rules::variant`]) behind the game seam
//! ([`dama_game::GameDef`], implemented by [`Draughts`]).
//!
//! The rules themselves are `dama_engine`'s; this crate adds what the
//! layers above need of them: the search's state ([`DamaState`], a capture
//! decided one jump at a time, endgame tables as terminal nodes), whole
//! moves from a turn's decisions ([`complete_turn`]), and the network's
//! encoding ([`encode`]: planes `[13, 8, 8]`, policy `[56, 8, 8]`).

pub mod encode;
pub mod players;
mod plugin;
mod state;

pub use plugin::Draughts;
pub use state::{color, complete_turn, player, search_move, DamaState, MaterialEvaluator};
