//! Building players from specs, for any game: [`parse_player`],
//! [`factory`] and [`named`]. `random` and the checkpoint players are
//! every game's; the others are the game's own (`crate::games`).

use std::sync::Arc;

use dama_game::{GameDef, GameError};
use rand::RngCore;

use crate::player::{BuildOptions, Player, PlayerFactory};
use crate::searcher::BatchedSearcher;
use crate::spec::PlayerSpec;
use crate::Error;

/// Builds a player factory of a game of `G` from a spec string.
///
/// # Errors
///
/// [`Error::Spec`] for a malformed spec, or one the game does not have
/// (naming both); errors of loading a checkpoint.
///
/// # Examples
///
/// ```
/// use dama_draughts::Draughts;
///
/// let factory = dama_eval::parse_player::<Draughts>("alphabeta:depth=3", &Default::default())?;
/// assert_eq!(factory.name(), "alphabeta:depth=3");
/// let mut player = factory.build()?;
/// assert_eq!(player.name(), "alphabeta:depth=3");
/// # Ok::<(), dama_eval::Error>(())
/// ```
pub fn parse_player<G: GameDef>(
    spec: &str,
    options: &BuildOptions,
) -> Result<Arc<dyn PlayerFactory<G>>, Error> {
    let spec: PlayerSpec = spec.parse()?;
    factory(&spec, options)
}

/// Builds a player factory of a game of `G` from a parsed spec.
///
/// # Errors
///
/// See [`parse_player`].
pub fn factory<G: GameDef>(
    spec: &PlayerSpec,
    options: &BuildOptions,
) -> Result<Arc<dyn PlayerFactory<G>>, Error> {
    crate::games::check_spec::<G>(spec)?;
    let name = spec.to_string();
    match spec {
        PlayerSpec::Random => Ok(crate::games::random(name)),
        PlayerSpec::Engine { path, time_ms } => Ok(Arc::new(crate::engine::EngineFactory {
            name,
            path: path.clone(),
            time: time_ms.map(std::time::Duration::from_millis),
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
                message:
                    "this build of dama-eval has no network players (its `network` feature is off)"
                        .to_owned(),
            })
        }
        _ => crate::games::game_players(spec, name, options),
    }
}

/// The same players under another name (for short labels such as `gen-3`
/// instead of a checkpoint's full path in tables and records).
///
/// # Examples
///
/// ```
/// use dama_draughts::Draughts;
///
/// let f = dama_eval::parse_player::<Draughts>("alphabeta:depth=2", &Default::default())?;
/// let f = dama_eval::named(f, "ab2");
/// assert_eq!(f.name(), "ab2");
/// assert_eq!(f.build()?.name(), "ab2");
/// # Ok::<(), dama_eval::Error>(())
/// ```
pub fn named<G: GameDef>(
    factory: Arc<dyn PlayerFactory<G>>,
    name: impl Into<String>,
) -> Arc<dyn PlayerFactory<G>> {
    Arc::new(NamedFactory {
        inner: factory,
        name: name.into(),
    })
}

struct NamedFactory<G: GameDef> {
    inner: Arc<dyn PlayerFactory<G>>,
    name: String,
}

impl<G: GameDef> PlayerFactory<G> for NamedFactory<G> {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> Result<Box<dyn Player<G>>, Error> {
        Ok(Box::new(NamedPlayer {
            inner: self.inner.build()?,
            name: self.name.clone(),
        }))
    }
    fn batched(&self) -> Result<Option<BatchedSearcher<G::State>>, Error> {
        self.inner.batched()
    }
    fn trained_rules(&self) -> Option<G::Rules> {
        self.inner.trained_rules()
    }
}

struct NamedPlayer<G: GameDef> {
    inner: Box<dyn Player<G>>,
    name: String,
}

impl<G: GameDef> Player<G> for NamedPlayer<G> {
    fn name(&self) -> &str {
        &self.name
    }
    fn choose(&mut self, game: &G::Game, rng: &mut dyn RngCore) -> Result<G::Move, GameError> {
        self.inner.choose(game, rng)
    }
    fn new_game(&mut self) {
        self.inner.new_game();
    }
    fn think(
        &mut self,
        game: &G::Game,
        time: Option<std::time::Duration>,
        rng: &mut dyn RngCore,
    ) -> Result<dama_game::Choice<G::Move>, GameError> {
        self.inner.think(game, time, rng)
    }
}
