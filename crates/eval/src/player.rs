//! The [`Player`] and [`PlayerFactory`] traits and the simple baselines
//! (`random`, `greedy`); `crate::factory` builds players from specs.

use dama_engine::{Game, Move};
use rand::{Rng, RngCore};

use crate::searcher::BatchedSearcher;
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
    /// The rules the player will play under, if known: a checkpoint trained
    /// under other rules (another variant) is then refused when built.
    pub rules: Option<dama_engine::Rules>,
    /// Network copies (threads) a checkpoint player of one game at a time
    /// evaluates with when its spec does not say (`threads=N`); `None`: one
    /// (games in parallel already share the cores). The batched arena's
    /// evaluator, shared by the games in flight, has one per core.
    pub lanes: Option<usize>,
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
    pub(crate) name: String,
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
    pub(crate) name: String,
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
