//! The [`Player`] trait, the simple baselines and building players from specs.

use std::sync::Arc;

use dama_engine::{Game, Move};
use rand::{Rng, RngCore};

use crate::batched::BatchedSearcher;
use crate::spec::PlayerSpec;
use crate::Error;

/// Something that picks a move in a game.
///
/// A player may keep state between moves of one game (a transposition table,
/// a search tree); the arena calls [`Player::new_game`] before each game.
pub trait Player: Send {
    /// Display name (the canonical spec for built-in players).
    fn name(&self) -> &str;

    /// Picks a legal move for the side to move in `game`, which is not over.
    ///
    /// `rng` is the only source of randomness the player may use, so that
    /// games are reproducible from the arena seed.
    ///
    /// # Errors
    ///
    /// When the player cannot move (for a network player: an evaluation
    /// error).
    fn choose(&mut self, game: &Game, rng: &mut dyn RngCore) -> Result<Move, Error>;

    /// Called before each game; the default does nothing.
    fn new_game(&mut self) {}
}

/// Makes fresh players of one kind: the arena builds one per game (or per
/// worker), sharing expensive resources such as a loaded network.
pub trait PlayerFactory: Send + Sync {
    /// Name of the players made (the canonical spec).
    fn name(&self) -> &str;

    /// A new player.
    ///
    /// # Errors
    ///
    /// When the player cannot be built (for a network player: a device error).
    fn build(&self) -> Result<Box<dyn Player>, Error>;

    /// For players whose searches the arena can batch across games (a
    /// checkpoint with a simulation budget): a network evaluator and the
    /// search settings, which play exactly like [`PlayerFactory::build`]'s
    /// players. The default: `None` (the arena calls the player).
    ///
    /// # Errors
    ///
    /// As [`PlayerFactory::build`].
    fn batched(&self) -> Result<Option<BatchedSearcher>, Error> {
        Ok(None)
    }
}

/// Options for building players that the spec does not carry.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Device for network players: `cpu`, `cuda` or `cuda:N` (default: CUDA if
    /// available, else CPU).
    pub device: Option<dama_run::DeviceSpec>,
    /// Endgame tables for the players that use them (alpha-beta probes them
    /// in its search and plays their best move at the root).
    pub tablebase: Option<std::sync::Arc<dama_tablebase::Tablebase>>,
}

/// Builds a player factory from a spec string.
///
/// # Errors
///
/// [`Error::Spec`] for a malformed spec; errors of loading a checkpoint.
///
/// # Examples
///
/// ```
/// let factory = dama_eval::parse_player("alphabeta:depth=3", &Default::default())?;
/// assert_eq!(factory.name(), "alphabeta:depth=3");
/// let mut player = factory.build()?;
/// assert_eq!(player.name(), "alphabeta:depth=3");
/// # Ok::<(), dama_eval::Error>(())
/// ```
pub fn parse_player(spec: &str, options: &BuildOptions) -> Result<Arc<dyn PlayerFactory>, Error> {
    let spec: PlayerSpec = spec.parse()?;
    factory(&spec, options)
}

/// Builds a player factory from a parsed spec.
///
/// # Errors
///
/// See [`parse_player`].
pub fn factory(spec: &PlayerSpec, options: &BuildOptions) -> Result<Arc<dyn PlayerFactory>, Error> {
    let name = spec.to_string();
    match spec {
        PlayerSpec::Random => Ok(Arc::new(SimpleFactory {
            name,
            make: |n| Box::new(RandomPlayer { name: n }),
        })),
        PlayerSpec::Greedy => Ok(Arc::new(SimpleFactory {
            name,
            make: |n| Box::new(GreedyPlayer { name: n }),
        })),
        PlayerSpec::AlphaBeta { limit, tt_mb } => {
            Ok(Arc::new(crate::alphabeta::AlphaBetaFactory {
                name,
                limit: *limit,
                tt_mb: *tt_mb,
                tablebase: options.tablebase.clone(),
            }))
        }
        PlayerSpec::Mcts { sims } => Ok(Arc::new(crate::mcts_player::MctsFactory {
            name,
            sims: *sims,
        })),
        #[cfg(feature = "network")]
        PlayerSpec::Checkpoint { .. } | PlayerSpec::Policy { .. } => {
            crate::network::factory(spec, name, options)
        }
        #[cfg(not(feature = "network"))]
        PlayerSpec::Checkpoint { .. } | PlayerSpec::Policy { .. } => {
            let _ = options;
            Err(Error::Player {
                player: name,
                message: "this build of dama-eval has no network players (its `network` feature is off)"
                    .to_owned(),
            })
        }
    }
}

/// The same players under another name (for short labels such as `gen-3`
/// instead of a checkpoint's full path in tables and records).
///
/// # Examples
///
/// ```
/// let f = dama_eval::parse_player("alphabeta:depth=2", &Default::default())?;
/// let f = dama_eval::named(f, "ab2");
/// assert_eq!(f.name(), "ab2");
/// assert_eq!(f.build()?.name(), "ab2");
/// # Ok::<(), dama_eval::Error>(())
/// ```
pub fn named(factory: Arc<dyn PlayerFactory>, name: impl Into<String>) -> Arc<dyn PlayerFactory> {
    Arc::new(NamedFactory {
        inner: factory,
        name: name.into(),
    })
}

struct NamedFactory {
    inner: Arc<dyn PlayerFactory>,
    name: String,
}

impl PlayerFactory for NamedFactory {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> Result<Box<dyn Player>, Error> {
        Ok(Box::new(NamedPlayer {
            inner: self.inner.build()?,
            name: self.name.clone(),
        }))
    }
    fn batched(&self) -> Result<Option<BatchedSearcher>, Error> {
        self.inner.batched()
    }
}

struct NamedPlayer {
    inner: Box<dyn Player>,
    name: String,
}

impl Player for NamedPlayer {
    fn name(&self) -> &str {
        &self.name
    }
    fn choose(&mut self, game: &Game, rng: &mut dyn RngCore) -> Result<Move, Error> {
        self.inner.choose(game, rng)
    }
    fn new_game(&mut self) {
        self.inner.new_game();
    }
}

struct SimpleFactory {
    name: String,
    make: fn(String) -> Box<dyn Player>,
}

impl PlayerFactory for SimpleFactory {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> Result<Box<dyn Player>, Error> {
        Ok((self.make)(self.name.clone()))
    }
}

fn no_moves(name: &str) -> Error {
    Error::Player {
        player: name.to_owned(),
        message: "asked to move in a position without legal moves".to_owned(),
    }
}

/// Plays a uniformly random legal move.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    name: String,
}

impl Default for RandomPlayer {
    fn default() -> Self {
        Self {
            name: "random".to_owned(),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, rng: &mut dyn RngCore) -> Result<Move, Error> {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return Err(no_moves(&self.name));
        }
        Ok(moves[rng.gen_range(0..moves.len())])
    }
}

/// Material in the greedy player's units: a man is 1, a king 3.
fn greedy_material(pos: &dama_engine::Position, color: dama_engine::Color) -> i32 {
    let ours = pos.pieces(color);
    let kings = (ours & pos.kings()).count() as i32;
    let men = ours.count() as i32 - kings;
    men + 3 * kings
}

/// Plays the move that leaves the best material balance (man 1, king 3) after
/// the opponent's best capture in reply; ties are broken at random.
///
/// A move that wins at once (the opponent has no move left) is always taken.
#[derive(Clone, Debug)]
pub struct GreedyPlayer {
    name: String,
}

impl Default for GreedyPlayer {
    fn default() -> Self {
        Self {
            name: "greedy".to_owned(),
        }
    }
}

impl Player for GreedyPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, rng: &mut dyn RngCore) -> Result<Move, Error> {
        let pos = game.position();
        let me = pos.turn();
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Err(no_moves(&self.name));
        }
        let mut best = i32::MIN;
        let mut best_moves: Vec<Move> = Vec::new();
        for m in &moves {
            let mut after = *pos;
            after.play_unchecked(m);
            let replies = after.legal_moves();
            let value = if replies.is_empty() {
                // The opponent is blocked or has no pieces: a win.
                i32::MAX
            } else if replies[0].is_capture() {
                replies
                    .iter()
                    .map(|r| {
                        let mut next = after;
                        next.play_unchecked(r);
                        greedy_material(&next, me) - greedy_material(&next, !me)
                    })
                    .min()
                    .unwrap_or(i32::MIN)
            } else {
                greedy_material(&after, me) - greedy_material(&after, !me)
            };
            if value > best {
                best = value;
                best_moves.clear();
            }
            if value == best {
                best_moves.push(*m);
            }
        }
        Ok(best_moves[rng.gen_range(0..best_moves.len())])
    }
}
