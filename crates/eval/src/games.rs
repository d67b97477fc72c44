//! Which players each game has: the one place in this crate that names
//! the games (the arena, the network players and the ladder are written
//! once for every [`GameDef`]).
//!
//! Every game has `random` ([`RandomPlayer`]), pure MCTS (`mcts:`,
//! [`crate::MctsPlayer`]) and the checkpoint players (`ckpt:`, `policy:`,
//! built by `crate::network` for any game); the others are the game's own:
//! Turkish draughts' greedy player
//! ([`dama_draughts::players::GreedyPlayer`]) and alpha-beta engine
//! ([`crate::alphabeta`], with its evaluations and endgame tables); Turkish
//! Tafl's baselines ([`dama_tafl::players`]). A spec a
//! game does not have is refused in one sentence naming the spec and the
//! game.

use std::any::Any;
use std::sync::Arc;

use dama_draughts::Draughts;
use dama_game::GameDef;
use dama_registry::GameName;
use dama_tafl::players::{Baseline, BaselinePlayer};
use dama_tafl::Tafl;

use crate::player::{BuildOptions, Player, PlayerFactory, RandomPlayer};
use crate::spec::{AlphaBetaLimit, PlayerSpec, SearchBudget};
use crate::Error;

/// The deepest Turkish Tafl alpha-beta search a spec may ask for, in whole
/// moves.
pub const MAX_TAFL_ALPHABETA_DEPTH: u32 = 8;

/// Refuses `spec` for `G`.
fn not_available<G: GameDef>(spec: &PlayerSpec) -> Error {
    Error::Spec(format!("`{spec}` is not available for {}", G::TITLE))
}

/// Checks that `G` has the player `spec` names, without building it (no
/// checkpoint is read).
///
/// # Errors
///
/// [`Error::Spec`] naming the spec and the game for a player the game does
/// not have, or a setting out of the game's range.
pub fn check_spec<G: GameDef>(spec: &PlayerSpec) -> Result<(), Error> {
    if let PlayerSpec::Mcts { .. } = spec {
        // Pure MCTS (random rollouts) is written once for every game.
        return Ok(());
    }
    match GameName::of::<G>() {
        Some(GameName::Draughts) => Ok(()),
        Some(GameName::Tafl) => tafl_baseline(spec).map(|_| ()),
        // Every other game: the players written once for every game.
        _ => match spec {
            PlayerSpec::Random | PlayerSpec::Checkpoint { .. } | PlayerSpec::Policy { .. } => {
                Ok(())
            }
            _ => Err(not_available::<G>(spec)),
        },
    }
}

/// The factory of the players of `spec` in `G` that are the game's own
/// (every spec but `random` and the checkpoint players).
pub(crate) fn game_players<G: GameDef>(
    spec: &PlayerSpec,
    name: String,
    options: &BuildOptions,
) -> Result<Arc<dyn PlayerFactory<G>>, Error> {
    if let PlayerSpec::Mcts { sims } = spec {
        return Ok(Arc::new(crate::mcts_player::MctsFactory {
            name,
            sims: *sims,
        }));
    }
    match GameName::of::<G>() {
        Some(GameName::Draughts) => cast(draughts(spec, name, options)?),
        Some(GameName::Tafl) => cast(tafl(spec, name)?),
        _ => Err(not_available::<G>(spec)),
    }
}

/// `factory`, a factory of `H`'s players, as one of `G`'s: the same type
/// when the registry names `G` as `H` (what [`game_players`] checked).
fn cast<H: GameDef, G: GameDef>(
    factory: Arc<dyn PlayerFactory<H>>,
) -> Result<Arc<dyn PlayerFactory<G>>, Error> {
    let any: Box<dyn Any> = Box::new(factory);
    any.downcast::<Arc<dyn PlayerFactory<G>>>()
        .map(|f| *f)
        .map_err(|_| {
            Error::Spec(format!(
                "{} and {} share the name `{}` in the registry",
                H::TITLE,
                G::TITLE,
                G::NAME
            ))
        })
}

/// Turkish draughts' own players: greedy, alpha-beta.
fn draughts(
    spec: &PlayerSpec,
    name: String,
    options: &BuildOptions,
) -> Result<Arc<dyn PlayerFactory<Draughts>>, Error> {
    match spec {
        PlayerSpec::Greedy => Ok(Arc::new(SimpleFactory {
            name,
            make: |n| Box::new(dama_draughts::players::GreedyPlayer::new(n)),
        })),
        PlayerSpec::AlphaBeta {
            limit,
            tt_mb,
            eval,
            threads,
        } => {
            let rules = options.rules.as_ref().and_then(|r| r.draughts());
            let evaluation =
                crate::Evaluation::of_spec(eval.as_deref(), rules.as_ref()).map_err(|e| {
                    Error::Network {
                        player: name.clone(),
                        source: Box::new(e),
                    }
                })?;
            Ok(Arc::new(crate::alphabeta::AlphaBetaFactory {
                name,
                limit: *limit,
                tt_mb: *tt_mb,
                tablebase: options.tablebase.clone(),
                evaluation,
                threads: *threads,
            }))
        }
        _ => Err(not_available::<Draughts>(spec)),
    }
}

/// The Turkish Tafl baseline a spec names: `random`, `greedy`, and
/// `alphabeta:depth=D` with `D` in `1..=8` ([`MAX_TAFL_ALPHABETA_DEPTH`])
/// whole moves; `Ok(None)` for a checkpoint with a simulation budget (the
/// network players build it).
///
/// # Errors
///
/// [`Error::Spec`] for a depth out of range, and for the players Turkish
/// Tafl does not have (`alphabeta:time=…`, `alphabeta:…,threads=N` with
/// `N` other than 1 or with `eval=`, `policy:…`, `ckpt:…,time=…`),
/// naming the spec.
pub fn tafl_baseline(spec: &PlayerSpec) -> Result<Option<Baseline>, Error> {
    match spec {
        PlayerSpec::Random => Ok(Some(Baseline::Random)),
        PlayerSpec::Greedy => Ok(Some(Baseline::Greedy)),
        PlayerSpec::AlphaBeta {
            limit: AlphaBetaLimit::Depth(d),
            eval: None,
            threads: 1,
            ..
        } => {
            if (1..=MAX_TAFL_ALPHABETA_DEPTH).contains(d) {
                Ok(Some(Baseline::AlphaBeta(*d)))
            } else {
                Err(Error::Spec(format!(
                    "`{spec}`: depth={d} is out of range for Turkish Tafl \
                     (1..={MAX_TAFL_ALPHABETA_DEPTH} whole moves)"
                )))
            }
        }
        PlayerSpec::Checkpoint {
            budget: SearchBudget::Sims(_),
            ..
        } => Ok(None),
        PlayerSpec::Checkpoint {
            budget: SearchBudget::Time(_),
            ..
        } => Err(Error::Spec(format!(
            "`{spec}`: Turkish Tafl checkpoint players search to a simulation count \
             (sims=N), not a time"
        ))),
        PlayerSpec::AlphaBeta { .. } | PlayerSpec::Mcts { .. } | PlayerSpec::Policy { .. } => {
            Err(not_available::<Tafl>(spec))
        }
    }
}

/// Turkish Tafl's own players: its baselines.
fn tafl(spec: &PlayerSpec, name: String) -> Result<Arc<dyn PlayerFactory<Tafl>>, Error> {
    match tafl_baseline(spec)? {
        Some(baseline) => Ok(Arc::new(TaflBaselines { name, baseline })),
        None => Err(not_available::<Tafl>(spec)),
    }
}

/// Players made by a function of their name.
pub(crate) struct SimpleFactory<G: GameDef> {
    pub(crate) name: String,
    pub(crate) make: fn(String) -> Box<dyn Player<G>>,
}

impl<G: GameDef> PlayerFactory<G> for SimpleFactory<G> {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> Result<Box<dyn Player<G>>, Error> {
        Ok((self.make)(self.name.clone()))
    }
}

/// The random player of every game.
pub(crate) fn random<G: GameDef>(name: String) -> Arc<dyn PlayerFactory<G>> {
    Arc::new(SimpleFactory {
        name,
        make: |n| Box::new(RandomPlayer::new(n)),
    })
}

/// A Turkish Tafl baseline under the spec's name.
struct TaflBaselines {
    name: String,
    baseline: Baseline,
}

impl PlayerFactory<Tafl> for TaflBaselines {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> Result<Box<dyn Player<Tafl>>, Error> {
        Ok(Box::new(Named {
            inner: BaselinePlayer::new(self.baseline),
            name: self.name.clone(),
        }))
    }
}

/// A player under another name.
struct Named<P> {
    inner: P,
    name: String,
}

impl<G: GameDef, P: Player<G>> Player<G> for Named<P> {
    fn name(&self) -> &str {
        &self.name
    }
    fn choose(
        &mut self,
        game: &G::Game,
        rng: &mut dyn rand::RngCore,
    ) -> Result<G::Move, dama_game::GameError> {
        self.inner.choose(game, rng)
    }
    fn new_game(&mut self) {
        self.inner.new_game();
    }
}
