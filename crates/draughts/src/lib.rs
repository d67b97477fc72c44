//! Turkish draughts and its variants (Armenian, Croda, Dameo:
//! [`dama_engine::Rules::variant`]) behind the game seam
//! ([`dama_game::GameDef`], implemented by [`Draughts`]).
//!
//! The rules themselves are `dama_engine`'s; this crate adds what the
//! layers above need of them: the search's state ([`DamaState`], a capture
//! decided one jump at a time, endgame tables as terminal nodes), whole
//! moves from a turn's decisions ([`complete_turn`]), the network's
//! encoding ([`encode`]: planes `[13, 8, 8]`, policy `[56, 8, 8]`), and
//! its own players: the greedy one ([`players`]) and the alpha-beta engine
//! ([`alphabeta`]) with its evaluations ([`evaluator`]: handcrafted, or a
//! learned network from `dama-nnue` over draughts' input features,
//! [`features`]).

pub mod alphabeta;
pub mod board;
pub mod encode;
mod error;
pub mod evaluator;
pub mod features;
mod learned;
mod own;
pub mod players;
mod plugin;
pub mod shipped;
mod state;

pub use alphabeta::{game_history_hashes, AlphaBeta, AlphaBetaPlayer, SearchLimits, SearchReport};
pub use error::EngineError;
pub use evaluator::{
    Evaluation, Evaluator, Handcrafted, Learned, Network, Sample, LEARNED_SCORE_LIMIT,
};
pub use features::DraughtsFeatures;
pub use own::AlphaBetaFactory;
pub use plugin::Draughts;
pub use state::{color, complete_turn, player, search_move, DamaState, MaterialEvaluator};
