//! A bot's own players: every bot that is not a network search nor `mcts:`
//! rollouts. They are the arena's players ([`dama_eval::factory`], written
//! once for every game): `random`, `policy:`, and the game's own
//! (`greedy`, `alphabeta:…`, asked of the game through the seam,
//! [`dama_game::GameDef::own_players`]); a learned-evaluator bundle is the
//! alpha-beta engine with the bundle's evaluator, limit and threads.
//! Whatever a game lacks it refuses in one sentence.

use std::time::Duration;

use dama_eval::{AlphaBetaLimit, BuildOptions, PlayerSpec};
use dama_game::player::Player;
use dama_game::{AlphaBetaSpec, GameDef, OwnSpec};
use rand_chacha::ChaCha8Rng;

use crate::evaluator_bundle::{EvaluatorBundle, EvaluatorBundleMeta};
use crate::report::Thought;
use crate::spec::{BotOptions, BotSpec, Limit};
use crate::Error;

/// One of a game's own players, as [`own_player`] builds it.
pub struct OwnPlayer<G: GameDef> {
    /// The bot's name (its spec).
    pub name: String,
    /// The player.
    pub player: Box<dyn Player<G>>,
    /// The depth or time it searches to when `go` gives no time (an
    /// alpha-beta engine), shown as its limit.
    pub own_limit: Option<AlphaBetaLimit>,
    /// Whether a time limit changes how it plays.
    pub timed: bool,
    /// The rules it was trained for (a learned evaluation).
    pub trained: Option<G::Rules>,
    /// A learned-evaluator bundle's metadata.
    pub evaluator_bundle: Option<EvaluatorBundleMeta>,
}

/// Whether `G`'s alpha-beta engine takes a time per move.
fn alphabeta_takes_time<G: GameDef>() -> bool {
    G::check_own(&OwnSpec::AlphaBeta(AlphaBetaSpec {
        limit: AlphaBetaLimit::TimeMs(1),
        tt_mb: 1,
        eval: None,
        threads: 1,
    }))
    .is_ok()
}

/// Builds the own player of `spec` (any spec but a checkpoint, a network
/// bundle or `mcts:`).
///
/// # Errors
///
/// A player the game does not have, named in one sentence; loading
/// errors.
pub fn own_player<G: GameDef>(spec: &BotSpec, options: &BotOptions) -> Result<OwnPlayer<G>, Error> {
    let (player_spec, name, bundle) = match spec {
        BotSpec::Bundle(dir) => {
            let b = EvaluatorBundle::load(dir)?;
            if b.meta.game.as_str() != G::NAME {
                return Err(Error::Input(format!(
                    "{}: the bundle's evaluator plays {}, not {}",
                    dir.display(),
                    b.meta.game.title(),
                    G::TITLE
                )));
            }
            let player = PlayerSpec::AlphaBeta {
                limit: b.meta.limit,
                tt_mb: b.meta.tt_mb,
                eval: Some(b.dir.join(&b.meta.evaluator_file).into()),
                threads: b.meta.threads,
            };
            (player, format!("bundle:{}", dir.display()), Some(b.meta))
        }
        BotSpec::Checkpoint { .. } | BotSpec::Rollout { .. } => {
            return Err(Error::Input(format!(
                "`{spec}` is a search of the bot, not a player of {}",
                G::TITLE
            )))
        }
        _ => {
            let p = spec
                .player_spec()
                .ok_or_else(|| Error::Input(format!("`{spec}` is not a player")))?;
            let name = p.to_string();
            (p, name, None)
        }
    };
    let factory = dama_eval::factory::<G>(
        &player_spec,
        &BuildOptions {
            device: Some(options.device),
            tables: options.tables.clone(),
            rules: None,
            lanes: None,
        },
    )?;
    let own_limit = match &player_spec {
        PlayerSpec::AlphaBeta { limit, .. } => Some(*limit),
        _ => None,
    };
    Ok(OwnPlayer {
        player: dama_eval::named(factory.clone(), name.clone()).build()?,
        name,
        timed: own_limit.is_some() && alphabeta_takes_time::<G>(),
        own_limit,
        trained: factory.trained_rules(),
        evaluator_bundle: bundle,
    })
}

/// The whole move `player` plays in `game` (which is not over) within
/// `limit` (a time replaces the player's own; a simulation count leaves
/// it), with what it found.
///
/// # Errors
///
/// The player's errors.
pub(crate) fn think_own<G: GameDef>(
    player: &mut dyn Player<G>,
    game: &G::Game,
    limit: Limit,
    rng: &mut ChaCha8Rng,
) -> Result<Thought<G>, Error> {
    let time: Option<Duration> = match limit {
        Limit::Time(d) => Some(d),
        Limit::Sims(_) => None,
    };
    let choice = player
        .think(game, time, rng)
        .map_err(|e| dama_eval::Error::from_move(player.name(), e))?;
    let mut thought = Thought::of_move(choice.best.clone(), choice.score);
    if choice.pv.first() == Some(&choice.best) {
        thought.pv = choice.pv;
    }
    thought.nodes = choice.nodes;
    Ok(thought)
}
