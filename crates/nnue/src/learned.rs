//! The seam between a game and the learned-evaluator run: what a game
//! supplies so that its alpha-beta engine can learn an evaluation by
//! playing itself (`[run] kind = "nnue"` with `[game] name = …`).
//!
//! The run (`dama-selfplay`) is written once against [`LearnedGame`]: it
//! deals openings, asks the game to play them with its engine
//! ([`LearnedGame::self_play`]), labels the positions with the results,
//! trains the network on the game's [`Features`] and plays matches with
//! the game's own `alphabeta:…,eval=FILE` players. A game implements it in
//! its own crate, and the registry names it (`GameName::with_learned`).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use dama_game::GameDef;
use dama_mcts::Player;

use crate::{Error, Features, FloatNet, Network, Sample};

/// How a self-play move is searched: whichever of `depth` and `nodes`
/// comes first ends the search (never the clock, so that a run is
/// reproducible).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfPlayLimits {
    /// The deepest iteration, in the game's own depth unit (plies in
    /// draughts, whole moves in Tafl).
    pub depth: u32,
    /// The node budget of one move's search.
    pub nodes: u64,
    /// The game is cut (a draw) after this many moves.
    pub max_plies: u32,
    /// Megabytes of the engine's transposition table, where it has one.
    pub tt_mb: usize,
}

/// A position a self-play game scored: the search's score for the side
/// to move, who that is, and the position in the features' form.
#[derive(Clone, Debug)]
pub struct Scored<F: Features> {
    /// The position.
    pub position: F::Position,
    /// The search's score for `to_play`.
    pub score: i32,
    /// The side to move.
    pub to_play: Player,
}

/// A network and its file header's metadata (`(key, value)` pairs).
pub type NetworkWithMeta = (FloatNet, Vec<(String, String)>);

/// An evaluator file built into the program ([`LearnedGame::shipped_file`]).
#[derive(Clone, Copy, Debug)]
pub struct ShippedFile {
    /// Where it lies in the repository (`networks/turkish.nnue`).
    pub path: &'static str,
    /// Its bytes.
    pub bytes: &'static [u8],
}

impl ShippedFile {
    /// The file's checksum, FNV-1a 64 of its bytes before the last eight
    /// (what the file itself ends with), as 16 hex digits (what a
    /// network's history names it by).
    #[must_use]
    pub fn checksum(&self) -> String {
        let n = self.bytes.len();
        let mut s = [0u8; 8];
        if n >= 8 {
            s.copy_from_slice(&self.bytes[n - 8..]);
        }
        format!("{:016x}", u64::from_le_bytes(s))
    }

    /// The file decoded as floats, with its header's metadata.
    ///
    /// # Errors
    ///
    /// The bytes do not decode as a network of `F` (a broken build).
    pub fn decode<F: Features>(&self) -> Result<NetworkWithMeta, Error> {
        crate::decode_network::<F>(Path::new(self.path), self.bytes, None)
    }

    /// The file quantized for the search, once per process: `cache` is the
    /// caller's `static`, filled on the first call.
    ///
    /// # Errors
    ///
    /// As [`ShippedFile::decode`], or the network does not quantize.
    pub fn quantized<F: Features>(
        &self,
        cache: &'static OnceLock<Arc<Network<F>>>,
    ) -> Result<Arc<Network<F>>, Error> {
        if let Some(net) = cache.get() {
            return Ok(net.clone());
        }
        let (float, _) = self.decode::<F>()?;
        let net = Arc::new(Network::from_float(&float)?);
        Ok(cache.get_or_init(|| net).clone())
    }
}

/// A game whose alpha-beta engine plays with a learned evaluation.
pub trait LearnedGame: GameDef {
    /// The network's input features (the rules they are trained under are
    /// the game's rules).
    type Features: Features<Rules = Self::Rules>;
    /// The engine's evaluation: the handcrafted one or a network.
    type Evaluation: Clone + Send + Sync + 'static;

    /// The handcrafted evaluation.
    fn handcrafted() -> Self::Evaluation;

    /// The evaluation of the evaluator file at `path`, refusing a file of
    /// another game or trained under other rules than `rules`.
    ///
    /// # Errors
    ///
    /// The file's problem, named.
    fn load_evaluation(path: &Path, rules: &Self::Rules) -> Result<Self::Evaluation, Error>;

    /// The evaluator file the game ships (`eval=shipped`, `init =
    /// "shipped"`), built into the program: its path in the repository and
    /// its bytes; `None` if it ships none.
    fn shipped_file() -> Option<ShippedFile> {
        None
    }

    /// The network the game ships ([`LearnedGame::shipped_file`]), decoded,
    /// with its header's metadata; `None` if it ships none.
    ///
    /// # Errors
    ///
    /// The built-in bytes do not decode (a broken build).
    fn shipped_network() -> Option<Result<NetworkWithMeta, Error>> {
        Self::shipped_file().map(|file| file.decode::<Self::Features>())
    }

    /// Plays `game` out with the engine and `evaluation`, each move a
    /// search within `limits`: the positions worth learning from (the
    /// quiet ones: no capture pending), each with its search's score, and
    /// the game as it ended (or was cut at `limits.max_plies`).
    fn self_play(
        game: Self::Game,
        evaluation: &Self::Evaluation,
        limits: &SelfPlayLimits,
    ) -> (Vec<Scored<Self::Features>>, Self::Game);
}

/// The samples of a finished self-play game: each scored position with the
/// game's result for its side to move (`winner`: `None` for a draw or a
/// game cut short).
pub fn label<F: Features>(scored: Vec<Scored<F>>, winner: Option<Player>) -> Vec<Sample<F>> {
    scored
        .into_iter()
        .map(|s| {
            let result = match winner {
                None => 0,
                Some(w) if w == s.to_play => 1,
                Some(_) => -1,
            };
            Sample::new(&s.position, s.score, result)
        })
        .collect()
}
