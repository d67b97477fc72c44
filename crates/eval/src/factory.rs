//! Building players from specs: [`parse_player`], [`factory`] and
//! [`named`]. The one module that knows every kind of player, so that the
//! players themselves depend only on the traits of `crate::player`.

use std::sync::Arc;

use dama_engine::{Game, Move};
use rand::RngCore;

use crate::player::{BuildOptions, GreedyPlayer, Player, PlayerFactory, RandomPlayer};
use crate::searcher::BatchedSearcher;
use crate::spec::PlayerSpec;
use crate::Error;

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
        PlayerSpec::AlphaBeta {
            limit,
            tt_mb,
            eval,
            threads,
        } => {
            let evaluation = match eval {
                None => crate::Evaluation::Handcrafted,
                Some(path) => {
                    crate::Evaluation::load(path, options.rules.as_ref()).map_err(|e| {
                        Error::Network {
                            player: name.clone(),
                            source: Box::new(e),
                        }
                    })?
                }
            };
            Ok(Arc::new(crate::alphabeta::AlphaBetaFactory {
                name,
                limit: *limit,
                tt_mb: *tt_mb,
                tablebase: options.tablebase.clone(),
                evaluation,
                threads: *threads,
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
                message:
                    "this build of dama-eval has no network players (its `network` feature is off)"
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
