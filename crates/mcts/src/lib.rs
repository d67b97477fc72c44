//! Batched PUCT and Gumbel MCTS over a small [`Game`] trait; no tensors.
//!
//! The search talks to the game through [`Game`] and to the network through
//! [`Evaluator`], which gets a batch of positions and returns priors over
//! each position's legal actions (in [`Game::legal_actions`] order) and a
//! [`Wdl<Pov>`] value. The tree is an arena ([`Tree`], [`NodeId`]).
//!
//! # Examples
//!
//! One search, driven by [`Search::run`]:
//!
//! ```
//! use dama_mcts::{toy::TicTacToe, RolloutEvaluator, Search, SearchConfig};
//! use rand::SeedableRng;
//!
//! let mut rng = rand::rngs::StdRng::seed_from_u64(1);
//! let mut evaluator = RolloutEvaluator::new(rand::rngs::StdRng::seed_from_u64(2));
//! // X to move wins at once on square 2.
//! let game = TicTacToe::parse("XX. OO. ...").expect("valid board");
//! let config = SearchConfig { simulations: 200, ..SearchConfig::default() };
//! let mut search = Search::new(config, game)?;
//! let result = search.run(&mut evaluator, &mut rng)?;
//! assert_eq!(result.action, 2);
//! assert!(result.value.scalar() > 0.5);
//! # Ok::<(), dama_mcts::Error>(())
//! ```
//!
//! Many searches sharing one evaluator batch (self-play) use the
//! gather/apply split; [`step`] runs one round for all of them, and the
//! [`driver`] module has the loops built on it (a search to a [`Budget`] of
//! simulations or time, the leaves of many searches in one evaluator call,
//! a whole turn decided action by action in [`TurnSearch`]), with
//! [`CachedEvaluator`] to answer repeated positions from a cache.
//! Spelled out, a round is:
//!
//! ```
//! use dama_mcts::{toy::BonusNim, Evaluator, Leaf, Search, SearchConfig, UniformEvaluator};
//! use rand::SeedableRng;
//!
//! let mut rng = rand::rngs::StdRng::seed_from_u64(0);
//! let config = SearchConfig { simulations: 64, batch_size: 4, ..SearchConfig::default() };
//! let mut searches = vec![
//!     Search::new(config.clone(), BonusNim::new(9))?,
//!     Search::new(config, BonusNim::new(13))?,
//! ];
//! for s in &mut searches {
//!     s.begin(&mut rng)?;
//! }
//! let mut net = UniformEvaluator::default();
//! while searches.iter().any(|s| !s.is_done()) {
//!     // 1. Every search selects its leaves (up to `batch_size` each).
//!     for s in &mut searches {
//!         s.gather()?;
//!     }
//!     // 2. One evaluator call for all leaves of all searches.
//!     let leaves: Vec<Leaf<'_, BonusNim>> =
//!         searches.iter().flat_map(|s| s.pending_leaves()).collect();
//!     let evals = net.evaluate(&leaves).expect("infallible");
//!     drop(leaves);
//!     // 3. Each search takes back its slice, in order.
//!     let mut offset = 0;
//!     for s in &mut searches {
//!         let k = s.num_pending();
//!         s.apply(&evals[offset..offset + k])?;
//!         offset += k;
//!     }
//! }
//! for s in &mut searches {
//!     let result = s.result(&mut rng)?;
//!     s.advance(result.action)?; // keeps the subtree for the next move
//! }
//! # Ok::<(), dama_mcts::Error>(())
//! ```
//!
//! # Values
//!
//! See [`Wdl`] for the sign convention: evaluators and results speak
//! [`Pov`] (the player to move), the tree stores [`Abs`] (the first
//! player), and players need not alternate: every backed-up value goes
//! through the absolute frame, never through a per-ply sign flip.

mod cache;
mod config;
pub mod driver;
mod error;
mod evaluator;
mod game;
mod search;
mod select;
pub mod toy;
mod tree;
mod turn;
mod value;

pub use cache::{CacheError, CachedEvaluator, EvalCache};
pub use config::{Algorithm, SearchConfig, MAX_SIMULATIONS};
pub use driver::{step, Budget};
pub use error::Error;
pub use evaluator::{uniform, Evaluation, Evaluator, Leaf, RolloutEvaluator, UniformEvaluator};
pub use game::Game;
pub use search::{Search, SearchResult};
pub use tree::{NodeId, Tree};
pub use turn::{
    search_turn, search_turn_reusing, TurnParts, TurnPolicy, TurnSearch, MAX_REUSE_DEPTH,
};
pub use value::{Abs, Outcome, Player, Pov, Wdl};
