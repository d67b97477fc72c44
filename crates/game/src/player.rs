//! [`Player`]: what picks a whole move in a game, the contract of every
//! arena player (a game's baselines, written in its own crate, and the
//! network and search players written once for every game), and
//! [`RandomPlayer`], the baseline every game has.

use std::time::Duration;

use rand::{Rng, RngCore};

use crate::def::{GameDef, GameError};

/// Something that picks a whole move in a game of `G`.
///
/// A player may keep state between moves of one game (a transposition
/// table, a search tree); the arena calls [`Player::new_game`] before each
/// game.
pub trait Player<G: GameDef>: Send {
    /// Display name (the canonical spec for built-in players).
    fn name(&self) -> &str;

    /// Picks a legal move for the side to move in `game`, which is not
    /// over.
    ///
    /// `rng` is the only source of randomness the player may use, so that
    /// games are reproducible from the arena's seed.
    ///
    /// # Errors
    ///
    /// When the player cannot move ([`NoMove`] in a position without legal
    /// moves; for a network player, its evaluation's error).
    fn choose(&mut self, game: &G::Game, rng: &mut dyn RngCore) -> Result<G::Move, GameError>;

    /// Called before each game; the default does nothing.
    fn new_game(&mut self) {}

    /// Picks a move as [`Player::choose`] does and says what it found: a
    /// searching player its principal variation, score and nodes. `time`,
    /// when given, replaces a timed player's own time per move (a bot
    /// told how long to think); players that do not search ignore it. The
    /// default reports the move alone.
    ///
    /// # Errors
    ///
    /// As [`Player::choose`].
    fn think(
        &mut self,
        game: &G::Game,
        time: Option<Duration>,
        rng: &mut dyn RngCore,
    ) -> Result<Choice<G::Move>, GameError> {
        let _ = time;
        Ok(Choice::of(self.choose(game, rng)?))
    }
}

/// What a player found when it chose a move ([`Player::think`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice<M> {
    /// The move played.
    pub best: M,
    /// The expected line from here, `best` first (empty if not known).
    pub pv: Vec<M>,
    /// The search's score in centi-men for the side to move and the depth
    /// it was reached at (in whole moves), if the player searched.
    pub score: Option<(i32, u32)>,
    /// Positions searched.
    pub nodes: u64,
}

impl<M> Choice<M> {
    /// A move with nothing else to say.
    pub fn of(best: M) -> Choice<M> {
        Choice {
            best,
            pv: Vec::new(),
            score: None,
            nodes: 0,
        }
    }

    /// The score and depth of a search that completed a depth (above 0).
    /// A move played without a search, such as the only legal one, has
    /// none, whatever its player reported with it (the endgame tables'
    /// score of a root is exact but not a search's).
    pub fn searched_score(&self) -> Option<(i32, u32)> {
        self.score.filter(|&(_, depth)| depth > 0)
    }
}

/// A player was asked to move in a position without legal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("asked to move in a position without legal moves")]
pub struct NoMove;

/// Plays a uniformly random legal move: one draw of `0..n` from the
/// generator over [`GameDef::legal_moves`].
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    name: String,
}

impl RandomPlayer {
    /// A random player called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        RandomPlayer { name: name.into() }
    }
}

impl Default for RandomPlayer {
    fn default() -> Self {
        RandomPlayer::new("random")
    }
}

impl<G: GameDef> Player<G> for RandomPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &G::Game, rng: &mut dyn RngCore) -> Result<G::Move, GameError> {
        let mut moves = G::legal_moves(game);
        if moves.is_empty() {
            return Err(NoMove.into());
        }
        let i = rng.gen_range(0..moves.len());
        Ok(moves.swap_remove(i))
    }
}
