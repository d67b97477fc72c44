//! A learned evaluation for the alpha-beta engine, in the style of NNUE
//! (the "efficiently updatable neural network" of computer shogi and
//! Stockfish): sparse piece-square inputs, an accumulator updated
//! incrementally as the search plays moves, and a few small dense layers to
//! one score, run in integers with SIMD chosen at run time.
//!
//! The crate knows no game: a game supplies its input features by
//! implementing [`Features`] in its own crate (draughts: `dama-draughts`,
//! 256 piece-square features per perspective), and everything here (the
//! network, its quantized kernels, the evaluator and sample files) is
//! written once against it. The crate does no training and links no
//! libtorch: `dama-nn` trains the float network ([`FloatNet`]) with tch and
//! hands its weights here, and a game's alpha-beta engine plays with the
//! quantized [`Network`]. A game whose engine learns its evaluation by
//! self-play implements [`LearnedGame`] (the seam of the learned-evaluator
//! run, written once in `dama-selfplay`).
//!
//! # The network
//!
//! ```text
//! features (F::COUNT per perspective, supplied by the game; draughts: own/
//!           their × man/king × 64 squares, the board seen from that side)
//!   └─ feature transformer F::COUNT → 128, one accumulator per perspective
//!        [acc(side to move), acc(other)] → clipped ReLU → 256
//!          └─ L1 256 → 16 → clipped ReLU → L2 16 → 32 → clipped ReLU → 1
//! ```
//!
//! The output, times [`OUT_SCALE`], is the score for the side to move in
//! the units of the game's handcrafted evaluation (centi-men in draughts),
//! so that the search's mate and tablebase scores keep their meaning.
//!
//! The feature transformer and L1 run in `i16`/`i32` ([`Network`]); the last
//! two layers (16 × 32 + 32 weights) in `f32`. [`FloatNet::evaluate`] is the
//! reference the quantized network is tested against.

mod error;
mod features;
mod file;
mod float;
mod frame;
mod learned;
mod quant;
mod sample;
mod simd;

pub use error::Error;
pub use features::{check_features, Features, MAX_ACTIVE};
pub use file::{
    decode_network, read_network, write_network, NETWORK_FORMAT_VERSION, NETWORK_MAGIC,
};
pub use float::FloatNet;
pub use learned::{label, LearnedGame, NetworkWithMeta, Scored, SelfPlayLimits, ShippedFile};
pub use quant::{Accumulator, Network};
pub use sample::{
    decode_samples, encode_samples, read_samples, samples_file_bound, write_samples, Sample,
    SAMPLES_FORMAT_VERSION, SAMPLES_MAGIC,
};
pub use simd::Simd;

/// Width of one perspective's accumulator.
pub const HIDDEN: usize = 128;
/// Inputs of L1: both perspectives' accumulators.
pub const L1_IN: usize = 2 * HIDDEN;
/// Outputs of L1.
pub const L1: usize = 16;
/// Outputs of L2.
pub const L2: usize = 32;
/// Training keeps the feature transformer's weights and bias within this
/// (in absolute value), so that the quantized accumulator cannot overflow.
pub const FT_WEIGHT_LIMIT: f32 = 2.5;
/// Centi-men per unit of the network's output.
pub const OUT_SCALE: f32 = 100.0;
