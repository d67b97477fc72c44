//! Which players a game has: those written once for every game here
//! (`random`, [`RandomPlayer`]; pure MCTS, `mcts:`, [`crate::MctsPlayer`];
//! the checkpoint players, `ckpt:` and `policy:`, built by
//! `crate::network`) and the game's own, asked of the game through the
//! seam ([`GameDef::check_own`], [`GameDef::own_players`]): `greedy` and
//! `alphabeta:…` specs become an [`OwnSpec`] the game checks and builds.
//! A spec a game does not have is refused in one sentence naming the spec
//! and the game.

use std::sync::Arc;

use dama_game::{AlphaBetaSpec, GameDef, OwnError, OwnFactory, OwnSpec};

use crate::player::{BuildOptions, Player, PlayerFactory, RandomPlayer};
use crate::spec::PlayerSpec;
use crate::Error;

/// Refuses `spec` for `G`.
fn not_available<G: GameDef>(spec: &PlayerSpec) -> Error {
    Error::Spec(format!("`{spec}` is not available for {}", G::TITLE))
}

/// The game's own-player spec `spec` stands for, if it is one (`greedy`,
/// `alphabeta:…`).
#[must_use]
pub fn own_spec(spec: &PlayerSpec) -> Option<OwnSpec> {
    match spec {
        PlayerSpec::Greedy => Some(OwnSpec::Greedy),
        PlayerSpec::AlphaBeta {
            limit,
            tt_mb,
            eval,
            threads,
        } => Some(OwnSpec::AlphaBeta(AlphaBetaSpec {
            limit: *limit,
            tt_mb: *tt_mb,
            eval: eval.clone(),
            threads: *threads,
        })),
        _ => None,
    }
}

/// `G`'s refusal of `spec`, in one sentence naming both.
pub fn own_error<G: GameDef>(spec: &PlayerSpec, e: OwnError) -> Error {
    match e {
        OwnError::NotAvailable => not_available::<G>(spec),
        OwnError::Settings(why) => Error::Spec(format!("`{spec}` in {}: {why}", G::TITLE)),
        OwnError::Load(source) => Error::Network {
            player: spec.to_string(),
            source,
        },
    }
}

/// Checks that `G` has the player `spec` names, without building it (no
/// file is read).
///
/// # Errors
///
/// [`Error::Spec`] naming the spec and the game for a player the game does
/// not have, or a setting out of the game's range.
pub fn check_spec<G: GameDef>(spec: &PlayerSpec) -> Result<(), Error> {
    match spec {
        // Written once for every game.
        PlayerSpec::Random
        | PlayerSpec::Engine { .. }
        | PlayerSpec::Mcts { .. }
        | PlayerSpec::Checkpoint { .. }
        | PlayerSpec::Policy { .. } => Ok(()),
        _ => match own_spec(spec) {
            Some(own) => G::check_own(&own).map_err(|e| own_error::<G>(spec, e)),
            None => Err(not_available::<G>(spec)),
        },
    }
}

/// The factory of the players of `spec` in `G` that are the game's own, or
/// pure MCTS (every spec but `random` and the checkpoint players).
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
    let own = own_spec(spec).ok_or_else(|| not_available::<G>(spec))?;
    let factory =
        G::own_players(&own, &options.tables.get::<G>()).map_err(|e| own_error::<G>(spec, e))?;
    // A learned evaluation plays the rules it was trained for, or others
    // the game does not refuse (draughts: other options of its variant).
    if let (Some(trained), Some(asked)) = (
        factory.trained_rules(),
        options.rules.as_ref().and_then(|r| r.get::<G>()),
    ) {
        if G::refuse_network_rules(&trained, &asked).is_some() {
            return Err(Error::Spec(format!(
                "`{spec}` was trained for rules `{trained}`, not `{asked}`"
            )));
        }
    }
    Ok(Arc::new(OwnPlayers { name, factory }))
}

/// A game's own players under the spec's name.
struct OwnPlayers<G: GameDef> {
    name: String,
    factory: Arc<dyn OwnFactory<G>>,
}

impl<G: GameDef> PlayerFactory<G> for OwnPlayers<G> {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> Result<Box<dyn Player<G>>, Error> {
        Ok(self.factory.build(&self.name))
    }
    fn trained_rules(&self) -> Option<G::Rules> {
        self.factory.trained_rules()
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
