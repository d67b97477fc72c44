//! Baseline players, the alpha-beta engine, the arena and Elo, for every
//! game ([`dama_game::GameDef`]).
//!
//! * Players: [`Player`] (`dama_game`'s contract) picks a whole move in a
//!   game of `G`; [`parse_player`] builds a [`PlayerFactory`] of `G` from a
//!   spec such as
//!   `random`, `greedy`, `alphabeta:depth=4`, `alphabeta:time=100`,
//!   `mcts:sims=400`, `ckpt:PATH[,sims=N|time=MS][,search=gumbel|puct]` or
//!   `policy:PATH` (see [`PlayerSpec`]).
//!   Which specs each game has (its baselines) is said in one place,
//!   [`games`].
//! * Arena: [`play_match`] plays paired openings, each from both sides, in
//!   parallel (networks' searches batched across games) and returns a
//!   [`MatchResult`] (W/D/L, A's results per side, Elo ± 95%, SPRT, the
//!   game's tournament scoring if it has one).
//! * Ladder: [`run_ladder`] plays many matches and fits one Elo scale
//!   anchored at `random` = 0 ([`fit_elo`], [`RatingTable`] with CSV/JSON
//!   output).
//!
//! # Examples
//!
//! Elo from a match score:
//!
//! ```
//! use dama_eval::Wdl;
//!
//! // 60 wins, 20 draws, 20 losses: +147 Elo, 95% interval [86, 218].
//! let e = Wdl::new(60, 20, 20).elo();
//! assert!((e.elo - 147.19).abs() < 0.01);
//! assert!(e.lo > 86.0 && e.hi < 218.5);
//! ```
//!
//! A short match:
//!
//! ```
//! use dama_draughts::Draughts;
//! use dama_eval::{parse_player, play_match, MatchConfig};
//!
//! let greedy = parse_player::<Draughts>("greedy", &Default::default())?;
//! let random = parse_player::<Draughts>("random", &Default::default())?;
//! let config = MatchConfig { games: 6, seed: 1, ..MatchConfig::default() };
//! let result = play_match(greedy.as_ref(), random.as_ref(), &config, &|_| {})?;
//! println!("{result}");
//! # Ok::<(), dama_eval::Error>(())
//! ```

mod arena;
mod batched;
mod engine;
mod error;
mod factory;
pub mod games;
mod io;
mod ladder;
mod mcts_player;
#[cfg(feature = "network")]
mod network;
mod openings;
mod player;
mod rating;
mod searcher;
mod spec;
mod stats;
#[cfg(feature = "network")]
mod timed;

pub use arena::{
    play_game, play_match, progress_bar, Adjudication, DrawRun, GameEnd, GameRecord, MatchConfig,
    MatchProgress, MatchResult, MoveSearch, ScoreRun, SprtReport, TournamentScore, ADJUDICATED,
};
pub use error::Error;
pub use factory::{factory, named, parse_player};
pub use ladder::{run_checkpoints, run_ladder, LadderConfig, LadderResult, Pairing};
pub use mcts_player::MctsPlayer;
pub use mcts_player::MAX_TIMED_SIMS;
#[cfg(feature = "network")]
pub use network::{checkpoint_game, net_precision, NetworkPlayer};
pub use openings::{
    balanced_openings, load_openings, openings_for, random_openings, Opening, OpeningSource,
    DEFAULT_OPENING_PLIES,
};
pub use player::{BuildOptions, NoMove, Player, PlayerFactory, RandomPlayer};
pub use rating::{fit_elo, FitConfig, PairResult, Rating, RatingTable};
pub use searcher::{BatchedSearcher, NetworkError, NetworkEvaluator};
pub use spec::{
    AlphaBetaLimit, Inference, NetPrecision, PlayerSpec, SearchBudget, DEFAULT_CKPT_SEARCH,
    DEFAULT_CKPT_SIMS, DEFAULT_CPU_TIMED_BATCH_PER_LANE, DEFAULT_CUDA_BATCH, DEFAULT_TT_MB,
    MAX_LANES, MAX_LEAF_BATCH, MAX_MOVE_TIME, MAX_MOVE_TIME_MS,
};
pub use stats::{
    elo_from_score, expected_score, gsprt_llr, EloEstimate, GameScore, Pentanomial, Sprt,
    SprtDecision, Wdl, PSEUDO_COUNT, Z95,
};
