//! The server's bots: `dama_bot::Bot<G>` for whichever game a request
//! plays (built through `GameName::with`), behind [`AnyBot`], so
//! the rest of the server, written once against [`GameDef`], sees only
//! [`AnyBot`], [`think`] and the game-neutral [`Thought`]. Which catalogue
//! entries a game offers is said here ([`baselines`], [`max_depth`],
//! [`has_evaluators`]): the draughts and Tafl baselines, and the players
//! written once for every game for the others.

use std::any::Any;
use std::time::Duration;

use dama_bot::{BotOptions, BotSpec, Limit};
use dama_game::{GameDef, OwnCapabilities};
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

/// A built bot of some game: a `dama_bot::Bot<G>` behind [`ErasedBot`].
pub enum AnyBot {
    /// A bot of the game it was built for.
    Built(Box<dyn ErasedBot>),
    /// A bot that could not be built: thinking answers why.
    Failed(String),
}

impl std::fmt::Debug for AnyBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyBot::Built(b) => b.fmt(f),
            AnyBot::Failed(why) => f.debug_tuple("Failed").field(why).finish(),
        }
    }
}

/// A bot of one game, its types erased: the game comes in as `&dyn Any`
/// and the [`Thought`] goes out boxed, of that game's moves.
pub trait ErasedBot: Send + std::fmt::Debug {
    /// Thinks about `game` (a `G::Game` of the bot's game).
    ///
    /// # Errors
    ///
    /// The bot's error, on one line; a game of another type (a bug).
    fn think_any(&mut self, game: &dyn Any, limit: Option<Limit>) -> Result<Box<dyn Any>, String>;
}

impl<G: GameDef> ErasedBot for dama_bot::Bot<G> {
    fn think_any(&mut self, game: &dyn Any, limit: Option<Limit>) -> Result<Box<dyn Any>, String> {
        let game = game
            .downcast_ref::<G::Game>()
            .ok_or_else(|| format!("the bot does not play this game ({})", G::TITLE))?;
        let t = self.think(game, limit).map_err(|e| chain(&e))?;
        Ok(Box::new(Thought {
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
        }))
    }
}

/// The baselines game `game` offers, by catalogue id (`alphabeta`,
/// `mcts`, `greedy`, `random`): pure MCTS and random for every game, and
/// the game's own players it declares ([`GameDef::own_capabilities`]).
pub fn baselines(game: GameName) -> Vec<&'static str> {
    let own = capabilities(game);
    let mut ids = Vec::new();
    if own.alphabeta.is_some() {
        ids.push("alphabeta");
    }
    ids.push("mcts");
    if own.greedy {
        ids.push("greedy");
    }
    ids.push("random");
    ids
}

/// What game `game`'s own players are ([`GameDef::own_capabilities`]).
fn capabilities(game: GameName) -> OwnCapabilities {
    struct Declared;
    impl dama_nn::WithGame for Declared {
        type Output = OwnCapabilities;
        fn run<G: GameDef>(self) -> OwnCapabilities {
            G::own_capabilities()
        }
    }
    game.with(Declared)
}

/// The deepest alpha-beta search game `game`'s bot takes, if lower than
/// `limit`, the server's.
pub fn max_depth(game: GameName, limit: u32) -> Option<u32> {
    capabilities(game)
        .alphabeta
        .map(|a| a.max_depth)
        .filter(|&d| d < limit)
}

/// Whether game `game` has learned-evaluator bots (`nnue:RUN`, evaluator
/// bundles): its alpha-beta engine takes an evaluator file.
pub fn has_evaluators(game: GameName) -> bool {
    capabilities(game)
        .alphabeta
        .is_some_and(|a| a.evaluator_files)
}

/// The rules of the learned evaluator game `game` ships
/// (`eval=shipped`), as text, if it ships one.
pub fn shipped_rules(game: GameName) -> Option<String> {
    struct Shipped;
    impl dama_nn::WithGame for Shipped {
        type Output = Option<String>;
        fn run<G: GameDef>(self) -> Option<String> {
            G::shipped_evaluator_rules().map(|r| r.to_string())
        }
    }
    game.with(Shipped)
}

/// The game a bot plays when it has a network (`None`: a baseline, which
/// plays whatever game it is asked to; or files that cannot be read, which
/// choosing it names).
pub fn network_game(spec: &BotSpec) -> Option<GameName> {
    spec.game().ok().flatten()
}

/// The game and rules a bot's network was trained under, if it has one,
/// when it plays `game`.
pub fn trained(spec: &BotSpec, game: GameName) -> Result<Option<GameRules>, String> {
    spec.trained_rules(game).map_err(|e| e.to_string())
}

/// Builds the bot `spec` for game `game`.
///
/// # Errors
///
/// The bot's error, on one line.
pub fn build(game: GameName, spec: &BotSpec, options: &BotOptions) -> Result<AnyBot, String> {
    struct Build<'a>(&'a BotSpec, &'a BotOptions);
    impl dama_nn::WithGame for Build<'_> {
        type Output = Result<AnyBot, String>;
        fn run<G: GameDef>(self) -> Self::Output {
            let bot = dama_bot::Bot::<G>::new(self.0, self.1).map_err(|e| chain(&e))?;
            Ok(AnyBot::Built(Box::new(bot)))
        }
    }
    game.with(Build(spec, options))
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
    match bot {
        AnyBot::Failed(why) => Err(why.clone()),
        AnyBot::Built(bot) => {
            let thought = bot.think_any(game, limit)?;
            thought
                .downcast::<Thought<G::Move>>()
                .map(|t| *t)
                .map_err(|_| mismatch::<G>())
        }
    }
}

fn mismatch<G: GameDef>() -> String {
    format!("the bot does not play {}", G::TITLE)
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
