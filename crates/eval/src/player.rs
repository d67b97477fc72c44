//! The [`PlayerFactory`] trait over `dama_game`'s [`Player`] contract, and
//! the options players are built with; `crate::factory` builds players
//! from specs.

pub use dama_game::player::{NoMove, Player, RandomPlayer};
use dama_game::GameDef;

use crate::searcher::BatchedSearcher;
use crate::Error;

/// Makes fresh players of one kind for games of `G`: the arena builds one
/// per game (or per worker), sharing expensive resources such as a loaded
/// network.
pub trait PlayerFactory<G: GameDef>: Send + Sync {
    /// Name of the players made (the canonical spec).
    fn name(&self) -> &str;

    /// A new player.
    ///
    /// # Errors
    ///
    /// When the player cannot be built (for a network player: a device error).
    fn build(&self) -> Result<Box<dyn Player<G>>, Error>;

    /// The rules the players were trained for, if they play only those (a
    /// learned evaluation); `None`: every rule set of the game.
    fn trained_rules(&self) -> Option<G::Rules> {
        None
    }

    /// For players whose searches the arena can batch across games (a
    /// checkpoint with a simulation budget): a network evaluator and the
    /// search settings, which play exactly like [`PlayerFactory::build`]'s
    /// players. The default: `None` (the arena calls the player).
    ///
    /// # Errors
    ///
    /// As [`PlayerFactory::build`].
    fn batched(&self) -> Result<Option<BatchedSearcher<G::State>>, Error> {
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
    pub tables: dama_game::AnyTables,
    /// The game and rules the player will play under, if known: a
    /// checkpoint (or a learned evaluator) trained under other rules
    /// (another variant, another game) is then refused when built.
    pub rules: Option<dama_registry::GameRules>,
    /// Network copies (threads) a checkpoint player of one game at a time
    /// evaluates with when its spec does not say (`threads=N`); `None`: one
    /// (games in parallel already share the cores). The batched arena's
    /// evaluator, shared by the games in flight, has one per core.
    pub lanes: Option<usize>,
}
