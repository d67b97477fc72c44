//! Using a trained network: bundles, a thinking bot, the line protocol.
//!
//! * [`export`]: a checkpoint → a self-contained bundle directory
//!   (`model.ts` as TorchScript traced from Rust, `weights.safetensors` +
//!   `weights.json`, `bundle.json`, `README.md`, and `bundle_example.py`,
//!   which runs it with PyTorch and dama's Python module), without Python;
//!   [`Bundle::load`] reads one back and checks its format and encoding
//!   version.
//! * [`export_evaluator`]: a learned evaluator (`.nnue`, or a
//!   learned-evaluator run's `best.nnue`) → a bundle that the alpha-beta
//!   engine plays (`evaluator.nnue`, `bundle.json` with `"kind":
//!   "evaluator"`, `README.md`); [`EvaluatorBundle::load`] checks the file
//!   against the checksum `bundle.json` records and the rules.
//!   [`BundleContents`] reads a `bundle.json` of either kind.
//! * [`find_python`]: the project's Python (the venv with PyTorch) that the
//!   tests run the protocol scripts with.
//! * [`Bot`]: thinks about a position of any game
//!   ([`dama_game::GameDef`]) with a network (a checkpoint or a bundle),
//!   `mcts:` rollouts or one of the game's own players, within a
//!   simulation or time [`Limit`], and reports a [`Thought`]: best whole
//!   move, evaluation, principal variation and the top moves with their
//!   visit shares.
//! * [`Session`]: the line protocol of `dama bot` (`docs/protocol.md`),
//!   written once for every game.
//! * [`serve_hub`]: Scan's Hub protocol (`dama bot --protocol hub`,
//!   `docs/hub.md`) for the draughts alpha-beta engine, so that programs
//!   nobody here wrote (Hub, pydraughts) can drive dama.
//! * [`own_player`] (`own.rs`): the bot's own players (the arena's, the
//!   game's own through the seam, learned-evaluator bundles). Nothing in
//!   this crate names a game: a game's players, tables and text for people
//!   are its own ([`dama_game::GameDef`]).
//!
//! # Examples
//!
//! ```
//! use dama_bot::{Bot, BotOptions, Limit};
//! use dama_draughts::Draughts;
//!
//! // A baseline bot needs no network.
//! let mut bot = Bot::<Draughts>::from_spec("mcts:sims=50", &BotOptions::default())?;
//! let game = dama_engine::Game::new();
//! let thought = bot.think(&game, Some(Limit::Sims(50)))?;
//! assert!(game.legal_moves().contains(&thought.best));
//! assert!(thought.eval.is_some());
//! # Ok::<(), dama_bot::Error>(())
//! ```

mod bot;
mod bundle;
mod error;
mod evaluator_bundle;
mod export;
mod export_evaluator;
mod hub;
mod own;
mod protocol;
mod python;
mod report;
mod spec;
mod think;
mod wheel;

pub use bot::Bot;
pub use bundle::{
    Bundle, BundleContents, BundleKind, BundleMeta, EloEntry, ExportCheck, BUNDLE_FORMAT,
    OLDEST_BUNDLE_FORMAT,
};
pub use error::Error;
pub use evaluator_bundle::{
    EvaluatorBundle, EvaluatorBundleMeta, EVALUATOR_BUNDLE_FORMAT, MAX_EVALUATOR_FILE,
};
pub use export::{export, ExportOptions, ExportReport};
pub use export_evaluator::{export_evaluator, EvaluatorExportOptions, EvaluatorExportReport};
pub use hub::{hub_game, hub_move, hub_position, parse_hub_move, serve_hub, HubConfig};
pub use own::{own_player, OwnPlayer};
pub use protocol::{parse_rules, Reply, Session, MAX_LINE, PROTOCOL_VERSION};
pub use python::find_python;
pub use report::{describe_tablebase, Action, Eval, RawEval, Thought, TopMove};
pub use spec::{evaluator_rules, BotOptions, BotSpec, Limit, DEFAULT_SIMS};
pub use wheel::{WheelEntry, MAX_WHEEL_FILE};
