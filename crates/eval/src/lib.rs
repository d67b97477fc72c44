//! Baseline players, alpha-beta engine, arena and Elo.
//!
//! # Examples
//!
//! ```
//! use dama_eval::Wdl;
//!
//! // 60 wins, 20 draws, 20 losses: +147 Elo, 95% interval [86, 218].
//! let e = Wdl::new(60, 20, 20).elo();
//! assert!((e.elo - 147.19).abs() < 0.01);
//! assert!(e.lo > 86.0 && e.hi < 218.5);
//! ```

mod error;
mod io;
mod rating;
mod stats;

pub use error::Error;
pub use rating::{fit_elo, FitConfig, PairResult, Rating, RatingTable};
pub use stats::{
    elo_from_score, expected_score, gsprt_llr, EloEstimate, GameScore, Pentanomial, Sprt,
    SprtDecision, Wdl, Z95,
};
