//! The one per-game adapter of the server: which bot plays which game.
//!
//! **This file becomes `dama_bot::Bot<G>`.** Until the bot crate has one
//! bot generic over [`GameDef`], each game's bot (`dama_bot::Bot` for
//! Turkish draughts, `dama_bot::tafl::TaflBot` for Turkish Tafl) is reached
//! from here and nowhere else: the rest of the server is written once
//! against [`GameDef`] and sees only [`AnyBot`], [`think`] and the
//! game-neutral [`Thought`]. A game without a bot here is refused by name
//! when a bot is asked to play it.

use std::any::Any;
use std::time::Duration;

use dama_bot::{BotOptions, BotSpec, Limit};
use dama_game::GameDef;
use dama_nn::{GameName, GameRules};

pub use dama_bot::Eval;

/// One root move of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct Top<M> {
    /// The whole move.
    pub mv: M,
    /// Visits of its first decision.
    pub visits: u32,
    /// Share of the root's visits.
    pub share: f32,
    /// The prior of its first decision.
    pub prior: f32,
    /// Its search value for the side to move.
    pub value: Option<f32>,
}

/// What a bot found, for any game: moves of type `M`.
#[derive(Clone, Debug, PartialEq)]
pub struct Thought<M> {
    /// The move to play.
    pub best: M,
    /// The search's evaluation (searching bots).
    pub eval: Option<Eval>,
    /// The network's own evaluation (network bots).
    pub network: Option<Eval>,
    /// Alpha-beta score (hundredths of a man for the side to move) and
    /// depth.
    pub score: Option<(i32, u32)>,
    /// Principal variation, starting with `best`.
    pub pv: Vec<M>,
    /// Root moves, most visited first.
    pub top: Vec<Top<M>>,
    /// Simulations or nodes.
    pub nodes: u64,
    /// Thinking time.
    pub elapsed: Duration,
    /// The endgame tables' verdict, in words, if they hold the position.
    pub tablebase: Option<String>,
}

/// A built bot of some game.
pub enum AnyBot {
    /// A Turkish draughts bot.
    Draughts(Box<dama_bot::Bot>),
    /// A Turkish Tafl bot.
    Tafl(Box<dama_bot::tafl::TaflBot>),
    /// A bot that could not be built: thinking answers why.
    Failed(String),
}

impl std::fmt::Debug for AnyBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyBot::Draughts(b) => b.fmt(f),
            AnyBot::Tafl(b) => b.fmt(f),
            AnyBot::Failed(why) => f.debug_tuple("Failed").field(why).finish(),
        }
    }
}

/// The baselines game `game` offers, by catalogue id (`alphabeta`,
/// `mcts`, `greedy`, `random`).
pub fn baselines(game: GameName) -> &'static [&'static str] {
    match game {
        GameName::Draughts => &["alphabeta", "mcts", "greedy", "random"],
        GameName::Tafl => &["alphabeta", "greedy", "random"],
    }
}

/// The deepest alpha-beta search game `game`'s bot takes, if lower than
/// the server's limit.
pub fn max_depth(game: GameName) -> Option<u32> {
    match game {
        GameName::Draughts => None,
        GameName::Tafl => Some(8),
    }
}

/// Whether game `game` has learned-evaluator bots (`nnue:RUN`, evaluator
/// bundles).
pub fn has_evaluators(game: GameName) -> bool {
    game == GameName::Draughts
}

/// The game a bot plays when it has a network (`None`: a baseline, which
/// plays whatever game it is asked to; or files that cannot be read, which
/// choosing it names).
pub fn network_game(spec: &BotSpec) -> Option<GameName> {
    spec.game().ok().flatten()
}

/// The game and rules a bot's network was trained under, if it has one.
pub fn trained(spec: &BotSpec) -> Result<Option<GameRules>, String> {
    let Some(game) = spec.game().map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    if game == GameName::Draughts {
        return Ok(spec
            .trained_rules()
            .map_err(|e| e.to_string())?
            .map(GameRules::Draughts));
    }
    match spec {
        BotSpec::Checkpoint { path, .. } => dama_nn::read_meta(path)
            .map(|m| Some(m.game_rules()))
            .map_err(|e| e.to_string()),
        _ => Ok(Some(GameRules::default_for(game))),
    }
}

/// Whether a network trained under `trained` plays a game under `rules`:
/// the same game, and for draughts the same variant (other rule options
/// are the player's choice).
///
/// # Errors
///
/// One sentence naming both.
pub fn plays(trained: &GameRules, rules: &GameRules) -> Result<(), String> {
    match (trained, rules) {
        (GameRules::Draughts(t), GameRules::Draughts(r)) if t.variant != r.variant => {
            Err(format!("was trained for {}, not {}", t.variant, r.variant))
        }
        (t, r) if t.name() != r.name() => Err(format!(
            "plays {}, not {}",
            t.name().title(),
            r.name().title()
        )),
        _ => Ok(()),
    }
}

/// Builds the bot `spec` for game `game`.
///
/// # Errors
///
/// The bot's error, on one line.
pub fn build(game: GameName, spec: &BotSpec, options: &BotOptions) -> Result<AnyBot, String> {
    match game {
        GameName::Draughts => dama_bot::Bot::new(spec, options)
            .map(|b| AnyBot::Draughts(Box::new(b)))
            .map_err(|e| chain(&e)),
        GameName::Tafl => dama_bot::tafl::TaflBot::new(spec, options)
            .map(|b| AnyBot::Tafl(Box::new(b)))
            .map_err(|e| chain(&e)),
    }
}

/// Thinks about `game` with `bot`.
///
/// # Errors
///
/// The bot's error, on one line; a bot of another game than `G` (a bug).
pub fn think<G: GameDef>(
    bot: &mut AnyBot,
    game: &G::Game,
    limit: Option<Limit>,
) -> Result<Thought<G::Move>, String> {
    let game: &dyn Any = game;
    match bot {
        AnyBot::Failed(why) => Err(why.clone()),
        AnyBot::Draughts(bot) => {
            let game = game
                .downcast_ref::<dama_engine::Game>()
                .ok_or_else(|| mismatch::<G>())?;
            let t = bot.think(game, limit).map_err(|e| chain(&e))?;
            cast(Thought {
                best: t.best,
                eval: t.eval,
                network: t.network,
                score: t.score_cm,
                pv: t.pv,
                top: t
                    .top
                    .into_iter()
                    .map(|m| Top {
                        mv: m.mv,
                        visits: m.visits,
                        share: m.share,
                        prior: m.prior,
                        value: m.value,
                    })
                    .collect(),
                nodes: t.nodes,
                elapsed: t.elapsed,
                tablebase: t.tablebase.as_ref().map(dama_bot::describe_tablebase),
            })
        }
        AnyBot::Tafl(bot) => {
            let game = game
                .downcast_ref::<dama_tafl::Game>()
                .ok_or_else(|| mismatch::<G>())?;
            let t = bot.think(game, limit).map_err(|e| chain(&e))?;
            cast(Thought {
                best: t.best,
                eval: t.eval,
                network: t.network,
                score: t.score,
                pv: t.pv,
                top: t
                    .top
                    .into_iter()
                    .map(|m| Top {
                        mv: m.mv,
                        visits: m.visits,
                        share: m.share,
                        prior: m.prior,
                        value: m.value,
                    })
                    .collect(),
                nodes: t.nodes,
                elapsed: t.elapsed,
                tablebase: None,
            })
        }
    }
}

fn mismatch<G: GameDef>() -> String {
    format!("the bot does not play {}", G::TITLE)
}

/// `value` as a `U`, when `T` is `U` (the game's own types, once erased).
fn cast<T: 'static, U: 'static>(value: T) -> Result<U, String> {
    let boxed: Box<dyn Any> = Box::new(value);
    boxed
        .downcast::<U>()
        .map(|b| *b)
        .map_err(|_| "the bot's moves are of another game".to_owned())
}

/// An error with its sources, on one line.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        s.push_str(": ");
        s.push_str(&cause.to_string());
        source = cause.source();
    }
    s
}
