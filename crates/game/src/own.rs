//! A game's own players: what it plays with besides the players written
//! once for every game (random, pure MCTS, networks). The command line's
//! `greedy` and `alphabeta:…` specs are read once (in `dama_eval`) into an
//! [`OwnSpec`]; the game checks it ([`crate::GameDef::check_own`]) and
//! builds its players from it ([`crate::GameDef::own_players`]): Turkish
//! draughts' greedy player and alpha-beta engine (handcrafted or learned
//! evaluation, endgame tables), Turkish Tafl's baselines. A game without
//! them refuses the spec by name ([`OwnError::NotAvailable`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::def::{GameDef, GameError};
use crate::player::Player;

/// The most search threads a spec may ask for (`threads=N`).
pub const MAX_SEARCH_THREADS: usize = 64;

/// The largest transposition table a spec may ask for (`tt=MB`), in MiB.
pub const MAX_SEARCH_TT_MB: usize = 16 * 1024;

/// The longest time per move a spec may ask for (`time=MS`): one hour.
pub const MAX_MOVE_TIME_MS: u64 = 3_600_000;

/// The deepest alpha-beta search a spec may ask for (`depth=N`, plies); a
/// game may take less.
pub const MAX_SEARCH_DEPTH: u32 = 64;

/// What a game's own players are, declared by the game
/// ([`GameDef::own_capabilities`]): what catalogues offer (`dama serve`'s
/// bots, their depths, learned-evaluator bots) without asking
/// [`GameDef::check_own`] about made-up specs. A test of every game
/// (`dama-registry`) holds the declaration and `check_own` together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OwnCapabilities {
    /// `greedy`: the best move one move deep.
    pub greedy: bool,
    /// `alphabeta:…`, if the game has an alpha-beta engine.
    pub alphabeta: Option<AlphaBetaCapabilities>,
}

/// What a game's alpha-beta engine takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlphaBetaCapabilities {
    /// The deepest `depth=N` (at most [`MAX_SEARCH_DEPTH`]).
    pub max_depth: u32,
    /// Whether it searches within a time (`time=MS`).
    pub timed: bool,
    /// The most `threads=N`.
    pub max_threads: usize,
    /// Whether it plays a learned evaluation from a file (`eval=PATH`).
    pub evaluator_files: bool,
}

/// How far an alpha-beta search looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlphaBetaLimit {
    /// Fixed depth in plies (one ply = one whole move, captures included).
    Depth(u32),
    /// Iterative deepening until this many milliseconds have passed.
    TimeMs(u64),
}

/// Where a learned evaluation comes from (`eval=shipped` or
/// `eval=PATH`).
///
/// Written in files as its `eval=` text (`"shipped"` or the path), as the
/// path alone was before the shipped network.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum EvalSource {
    /// The game's best network, built into the program (for Turkish
    /// draughts `networks/turkish.nnue` of the repository; a game without
    /// one refuses it by name).
    Shipped,
    /// An evaluator file.
    File(PathBuf),
}

impl EvalSource {
    /// What `eval=` names it by: `shipped`, or the path.
    pub const SHIPPED: &'static str = "shipped";

    /// Reads an `eval=` value: `shipped`, else a path (a file called
    /// `shipped` is `./shipped`).
    #[must_use]
    pub fn parse(text: &str) -> EvalSource {
        if text == Self::SHIPPED {
            EvalSource::Shipped
        } else {
            EvalSource::File(PathBuf::from(text))
        }
    }

    /// The file, if it is one.
    #[must_use]
    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            EvalSource::Shipped => None,
            EvalSource::File(p) => Some(p),
        }
    }
}

impl std::fmt::Display for EvalSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalSource::Shipped => f.write_str(Self::SHIPPED),
            EvalSource::File(p) => write!(f, "{}", p.display()),
        }
    }
}

impl From<String> for EvalSource {
    fn from(s: String) -> Self {
        EvalSource::parse(&s)
    }
}

impl From<EvalSource> for String {
    fn from(e: EvalSource) -> Self {
        e.to_string()
    }
}

impl From<PathBuf> for EvalSource {
    fn from(p: PathBuf) -> Self {
        EvalSource::File(p)
    }
}

/// An alpha-beta engine's settings (`alphabeta:depth=N|time=MS,tt=MB,eval=PATH,threads=N`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlphaBetaSpec {
    /// Depth or time per move.
    pub limit: AlphaBetaLimit,
    /// Transposition table size in MiB.
    pub tt_mb: usize,
    /// A learned evaluation instead of the handcrafted one.
    pub eval: Option<EvalSource>,
    /// Search threads (1: one).
    pub threads: usize,
}

/// A game's own player, as a spec asks for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnSpec {
    /// A one-ply (or reply-aware) material grabber.
    Greedy,
    /// An alpha-beta engine.
    AlphaBeta(AlphaBetaSpec),
}

impl OwnSpec {
    /// The alpha-beta engine's own limit, if the spec is one.
    #[must_use]
    pub fn alphabeta_limit(&self) -> Option<AlphaBetaLimit> {
        match self {
            OwnSpec::AlphaBeta(a) => Some(a.limit),
            OwnSpec::Greedy => None,
        }
    }
}

/// Why a game has no player for a spec.
#[derive(Debug, thiserror::Error)]
pub enum OwnError {
    /// The game has no such player at all.
    #[error("not a player of this game")]
    NotAvailable,
    /// It has one, but not with these settings (the reason, in one
    /// sentence naming the setting and its range).
    #[error("{0}")]
    Settings(String),
    /// A file it needs (a learned evaluator) could not be used.
    #[error("{0}")]
    Load(#[source] GameError),
}

/// Builds a game's own players from a checked spec: files are read once,
/// when the factory is made, and each [`OwnFactory::build`] gives a fresh
/// player (its own tables and threads) for one arena worker or one bot.
pub trait OwnFactory<G: GameDef>: Send + Sync {
    /// A new player called `name`.
    fn build(&self, name: &str) -> Box<dyn Player<G>>;

    /// The rules the player was trained for, if it plays only those (a
    /// learned evaluation); `None`: every rule set of the game.
    fn trained_rules(&self) -> Option<G::Rules> {
        None
    }
}
