//! Turkish Tafl ([`dama_tafl`]): [`TaflBot`], a network with search or a
//! baseline that thinks about a position and says what it found
//! ([`TaflThought`]), and [`TaflSession`], the line protocol of `dama bot`
//! for this game (`docs/protocol.md`, "Turkish Tafl").
//!
//! A Tafl move may be several decisions of the same player (a friendly
//! jump chain, stopped at will, or a capture chain), one [`Step`] each: a
//! searching bot searches every decision with a fresh tree, as
//! [`search_turn`] does, and the whole [`Move`] is the one its steps make.
//!
//! # Examples
//!
//! ```
//! use dama_bot::tafl::{TaflBot, TaflSession};
//! use dama_bot::BotOptions;
//!
//! let bot = TaflBot::from_spec("alphabeta:depth=2", &BotOptions::default())?;
//! let mut session = TaflSession::new(bot);
//! let reply = session.handle("go");
//! assert!(reply.lines.last().is_some_and(|l| l.starts_with("bestmove ")));
//! # Ok::<(), dama_bot::Error>(())
//! ```

use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

use dama_eval::PlayerSpec;
use dama_mcts::{search_turn, Algorithm, Evaluator, Leaf, SearchConfig};
use dama_nn::{GameName, NnEvaluator, Precision};
use dama_tafl::players::{best_move, Baseline};
use dama_tafl::search::TaflState;
use dama_tafl::{Game, Move, Outcome, Position, Side, Square, Step, TaflRules};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use crate::export::default_search;
use crate::protocol::{clip, info_start, join, session_methods, show_reply, Commands, Reply};
use crate::report::{thought_json, Eval, RawEval, StepGame, TopMove};
use crate::spec::{BotOptions, BotSpec, Limit, DEFAULT_SIMS};
use crate::think::Thinking;
use crate::Error;

/// A Turkish Tafl network behind the search's evaluator trait, type-erased:
/// a checkpoint's [`NnEvaluator`], or a bundle's
/// [`dama_nn::TorchScriptEvaluator`] (both implement it for [`TaflState`]).
pub type TaflNetwork = Box<dyn Evaluator<TaflState, Error = dama_nn::Error> + Send>;

enum Brain {
    Search(TaflNetwork),
    Baseline(Baseline),
}

/// A Turkish Tafl player that explains itself: a network with search (see
/// [`TaflBot::from_evaluator`]) or a baseline (`random`, `greedy`,
/// `alphabeta:depth=N`).
pub struct TaflBot {
    name: String,
    brain: Brain,
    config: SearchConfig,
    default_limit: Limit,
    rng: ChaCha8Rng,
    trained: Option<TaflRules>,
}

impl fmt::Debug for TaflBot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaflBot")
            .field("name", &self.name)
            .field("default_limit", &self.default_limit)
            .finish_non_exhaustive()
    }
}

/// One root move of a search: the whole move (a chain completed along
/// the most visited line) and its first step (the root decision).
pub type TaflTopMove = TopMove<Move, Step>;

/// The raw network output for one position (no search): the policy
/// indices are [`dama_tafl::encode::policy_index`]'s.
pub type TaflRawEval = RawEval<Step>;

/// What a [`TaflBot`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct TaflThought {
    /// The move to play.
    pub best: Move,
    /// The search's evaluation of the position (searching bots).
    pub eval: Option<Eval>,
    /// The network's own evaluation of the position (network bots).
    pub network: Option<Eval>,
    /// Alpha-beta: the handcrafted evaluation for the side to move (100 a
    /// man; ±1000000 beyond a won or lost game) and the depth in whole
    /// moves.
    pub score: Option<(i32, u32)>,
    /// Principal variation of whole moves, starting with `best` (may be
    /// just `best`).
    pub pv: Vec<Move>,
    /// Root moves by visits, most visited first (searching bots).
    pub top: Vec<TaflTopMove>,
    /// Simulations of every search of the move (alpha-beta: nodes).
    pub nodes: u64,
    /// Thinking time.
    pub elapsed: Duration,
}

impl TaflThought {
    /// The thought as JSON (moves and steps in notation).
    pub fn to_json(&self) -> serde_json::Value {
        thought_json(
            &self.best,
            self.eval,
            self.network,
            &self.pv,
            self.nodes,
            self.elapsed,
            json!({
                "score": self.score.map(|s| s.0),
                "depth": self.score.map(|s| s.1),
                "top": self.top.iter().map(|t| json!({
                    "move": t.mv.to_string(), "step": t.step.to_string(), "visits": t.visits,
                    "share": t.share, "prior": t.prior, "value": t.value,
                })).collect::<Vec<_>>(),
            }),
        )
    }
}

/// A side as the protocol writes it: `defender`, `king_side`.
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::Defender => "defender",
        Side::KingSide => "king_side",
    }
}

/// The end of a game in words: `the Defenders win (the King is
/// surrounded)`.
pub fn describe_outcome(o: &Outcome) -> String {
    let who = match o.winner {
        Some(Side::Defender) => "the Defenders win",
        Some(Side::KingSide) => "the King side wins",
        None => "a draw",
    };
    format!("{who} ({})", o.termination)
}

/// Draws `pos` as text: columns 1 to 8 left to right (the King side moves
/// right and leaves the board past column 8), rows `d` to `a` top to
/// bottom; `b` King-side men, `K` the King, `w` Defender men, `W` Defender
/// Kings, `.` empty.
///
/// ```
/// let pos = dama_tafl::Position::startpos(dama_tafl::Side::Defender);
/// let board = dama_bot::tafl::draw_board(&pos);
/// assert!(board.contains(" b | b b K . w w w w | b"), "{board}");
/// ```
pub fn draw_board(pos: &Position) -> String {
    let numbers = "1 2 3 4 5 6 7 8";
    let edge = format!("   +{}+\n", "-".repeat(17));
    let mut out = format!("     {numbers}\n{edge}");
    for row in (0..dama_tafl::ROWS).rev() {
        let letter = char::from(b'a' + row);
        out.push_str(&format!(" {letter} |"));
        for col in 0..dama_tafl::COLUMNS {
            let c = match Square::at(row, col) {
                None => '?',
                Some(sq) if pos.king() == sq => 'K',
                Some(sq) if pos.king_side_men().contains(sq) => 'b',
                Some(sq) if pos.defender_men().contains(sq) => 'w',
                Some(sq) if pos.defender_kings().contains(sq) => 'W',
                Some(_) => '.',
            };
            out.push(' ');
            out.push(c);
        }
        out.push_str(&format!(" | {letter}\n"));
    }
    out.push_str(&edge);
    out.push_str(&format!("     {numbers}\n"));
    out
}

/// Why `game` cannot be thought about, if it cannot.
fn game_over(game: &Game) -> Option<String> {
    if let Some(o) = game.outcome() {
        return Some(format!("the game is over: {}", describe_outcome(&o)));
    }
    game.legal_steps()
        .is_empty()
        .then(|| "no legal move".to_owned())
}

impl TaflBot {
    /// Builds a bot from a spec: a `.safetensors` checkpoint of a Turkish
    /// Tafl network or `ckpt:PATH[,sims=N|time=MS][,search=puct|gumbel]`,
    /// `random`, `greedy`, `alphabeta:depth=N` (whole moves, 1 to 8).
    ///
    /// # Errors
    ///
    /// See [`TaflBot::new`].
    pub fn from_spec(spec: &str, options: &BotOptions) -> Result<TaflBot, Error> {
        TaflBot::new(&spec.parse()?, options)
    }

    /// Builds a bot from a parsed spec (see [`TaflBot::from_spec`]).
    ///
    /// # Errors
    ///
    /// A checkpoint of another game, refused by name; the players Turkish
    /// Tafl does not have (`mcts:`, `policy:`, `alphabeta:time=`, a depth
    /// out of range), named; bundles (not playable by this bot yet);
    /// loading errors.
    pub fn new(spec: &BotSpec, options: &BotOptions) -> Result<TaflBot, Error> {
        match spec {
            BotSpec::Checkpoint {
                path,
                limit,
                algorithm,
                ..
            } => TaflBot::from_checkpoint(path, *limit, *algorithm, options),
            BotSpec::Bundle(dir) => TaflBot::from_bundle(dir, options),
            BotSpec::Rollout { sims } => baseline(&PlayerSpec::Mcts { sims: *sims }, options),
            BotSpec::AlphaBeta {
                limit,
                tt_mb,
                eval,
                threads,
            } => baseline(
                &PlayerSpec::AlphaBeta {
                    limit: *limit,
                    tt_mb: *tt_mb,
                    eval: eval.clone(),
                    threads: *threads,
                },
                options,
            ),
            BotSpec::Player(p) => baseline(p, options),
        }
    }

    /// The Turkish Tafl checkpoint at `path` with search: `limit` per
    /// decision (simulations) or per move (time), `algorithm` at the root
    /// (overridden by `options.algorithm`). A checkpoint of another game is
    /// refused by name.
    ///
    /// # Errors
    ///
    /// [`Error::Nn`] for a missing, damaged or incompatible checkpoint (a
    /// draughts network included) and for the device.
    pub fn from_checkpoint(
        path: &Path,
        limit: Limit,
        algorithm: Algorithm,
        options: &BotOptions,
    ) -> Result<TaflBot, Error> {
        let device = dama_nn::device::resolve(options.device)?;
        let (net, meta) = dama_nn::load_game_network(path, device, GameName::Tafl)?;
        let evaluator = NnEvaluator::new(&net, device, Precision::F32)?;
        let sims = match limit {
            Limit::Sims(n) => n,
            Limit::Time(_) => DEFAULT_SIMS,
        };
        let mut config = default_search(sims);
        config.algorithm = options.algorithm.unwrap_or(algorithm);
        let mut bot = TaflBot::from_evaluator(
            format!("ckpt:{}", path.display()),
            Box::new(evaluator),
            config,
            meta.game_rules().tafl(),
            options.seed,
        );
        bot.default_limit = limit;
        Ok(bot)
    }

    /// The Turkish Tafl bundle in `dir` (written by `dama export`): its
    /// TorchScript network with the bundle's search settings. A bundle of
    /// another game is refused by name.
    ///
    /// # Errors
    ///
    /// [`Error::Bundle`] for a missing or incompatible bundle,
    /// [`Error::Input`] for a draughts bundle, the device.
    pub fn from_bundle(dir: &Path, options: &BotOptions) -> Result<TaflBot, Error> {
        let bundle = crate::Bundle::load(dir)?;
        if bundle.meta.game != GameName::Tafl {
            return Err(Error::Input(format!(
                "{}: the bundle's network plays {}, not Turkish Tafl",
                dir.display(),
                bundle.meta.game.title()
            )));
        }
        let device = dama_nn::device::resolve(options.device)?;
        let evaluator = bundle.evaluator(device)?;
        let mut config = bundle.meta.search.clone();
        if let Some(a) = options.algorithm {
            config.algorithm = a;
        }
        Ok(TaflBot::from_evaluator(
            format!("bundle:{}", dir.display()),
            Box::new(evaluator),
            config,
            bundle.meta.tafl_rules,
            options.seed,
        ))
    }

    /// A searching bot with any Turkish Tafl network behind `evaluator`
    /// (a checkpoint's [`NnEvaluator`], a bundle's
    /// [`dama_nn::TorchScriptEvaluator`]): `config` is its search (used as
    /// given: for play it should have no noise and temperature 0), its
    /// default limit `config.simulations` per decision; `trained` the rules
    /// the network was trained under (sessions start with them), `seed` the
    /// seed of its random generator.
    pub fn from_evaluator(
        name: impl Into<String>,
        evaluator: TaflNetwork,
        config: SearchConfig,
        trained: Option<TaflRules>,
        seed: u64,
    ) -> TaflBot {
        let default_limit = Limit::Sims(config.simulations.max(1));
        TaflBot {
            name: name.into(),
            brain: Brain::Search(evaluator),
            config,
            default_limit,
            rng: ChaCha8Rng::seed_from_u64(seed),
            trained,
        }
    }

    /// A baseline bot (no network, no search tree).
    pub fn baseline(player: Baseline, seed: u64) -> TaflBot {
        TaflBot {
            name: player.to_string(),
            brain: Brain::Baseline(player),
            config: default_search(DEFAULT_SIMS),
            default_limit: Limit::Sims(DEFAULT_SIMS),
            rng: ChaCha8Rng::seed_from_u64(seed),
            trained: None,
        }
    }

    /// The bot's name (its spec).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The rules the network was trained under (network bots).
    pub fn trained_rules(&self) -> Option<TaflRules> {
        self.trained
    }

    /// Whether the bot has a network (so [`TaflBot::network_eval`]
    /// answers).
    pub fn has_network(&self) -> bool {
        matches!(self.brain, Brain::Search(_))
    }

    /// Whether the bot's limit matters: network bots search within it;
    /// baselines play at their own depth whatever the limit.
    pub fn searches(&self) -> bool {
        self.has_network()
    }

    /// The limit used when [`TaflBot::think`] gets none.
    pub fn default_limit(&self) -> Limit {
        self.default_limit
    }

    /// Changes the limit used when [`TaflBot::think`] gets none.
    pub fn set_default_limit(&mut self, limit: Limit) {
        self.default_limit = limit;
    }

    /// The network's evaluation of the position of `game` without search
    /// (`None` for bots without a network).
    ///
    /// # Errors
    ///
    /// [`Error::GameOver`] in a finished game; network errors.
    pub fn network_eval(&mut self, game: &Game) -> Result<Option<TaflRawEval>, Error> {
        if let Some(over) = game_over(game) {
            return Err(Error::GameOver(over));
        }
        let Brain::Search(eval) = &mut self.brain else {
            return Ok(None);
        };
        let steps = game.legal_steps();
        let state = TaflState::new(game.clone());
        let evals = eval.evaluate(&[Leaf {
            state: &state,
            actions: &steps,
        }])?;
        let Some(ev) = evals.into_iter().next() else {
            return Ok(None);
        };
        Ok(Some(TaflRawEval {
            wdl: [ev.value.win, ev.value.draw, ev.value.loss],
            priors: steps
                .iter()
                .zip(ev.policy)
                .map(|(&s, p)| (s, dama_tafl::encode::policy_index(s), p))
                .collect(),
        }))
    }

    /// Thinks about the position of `game` within `limit` (default: the
    /// bot's; baselines ignore it) and returns the whole move to play with
    /// what the bot found.
    ///
    /// # Errors
    ///
    /// [`Error::GameOver`] if the game is over; search and network errors.
    pub fn think(&mut self, game: &Game, limit: Option<Limit>) -> Result<TaflThought, Error> {
        if let Some(over) = game_over(game) {
            return Err(Error::GameOver(over));
        }
        let limit = limit.unwrap_or(self.default_limit);
        let start = Instant::now();
        let network = self.network_eval(game)?.map(|raw| Eval::of_wdl(raw.wdl));
        let mut thought = match &mut self.brain {
            Brain::Search(eval) => think_search(
                eval.as_mut(),
                &self.config,
                &mut self.rng,
                game,
                limit,
                start,
            )?,
            Brain::Baseline(b) => {
                let (best, score, nodes) = match *b {
                    Baseline::AlphaBeta(depth) => best_move(game, depth, Some(&mut self.rng))
                        .map(|(best, score, nodes)| (best, Some((score, depth)), nodes)),
                    b => b.choose(game, &mut self.rng).map(|best| (best, None, 0)),
                }
                .ok_or_else(|| Error::GameOver("no legal move".into()))?;
                TaflThought {
                    pv: vec![best.clone()],
                    best,
                    eval: None,
                    network: None,
                    score,
                    top: Vec::new(),
                    nodes,
                    elapsed: Duration::ZERO,
                }
            }
        };
        thought.network = network;
        thought.elapsed = start.elapsed();
        Ok(thought)
    }
}

/// A baseline bot from a player spec, or the reason Turkish Tafl has no
/// such player.
fn baseline(spec: &PlayerSpec, options: &BotOptions) -> Result<TaflBot, Error> {
    match dama_eval::games::tafl_baseline(spec)? {
        Some(b) => Ok(TaflBot::baseline(b, options.seed)),
        None => Err(Error::Input(format!(
            "`{spec}` is not a Turkish Tafl bot (random, greedy, alphabeta:depth=N, or a checkpoint)"
        ))),
    }
}

/// Searches the whole move of `game` within `limit` (started at `start`;
/// see [`Thinking::new`]), every decision with a fresh tree.
fn think_search(
    eval: &mut (dyn Evaluator<TaflState, Error = dama_nn::Error> + Send),
    base: &SearchConfig,
    rng: &mut ChaCha8Rng,
    game: &Game,
    limit: Limit,
    start: Instant,
) -> Result<TaflThought, Error> {
    let mut config = base.clone();
    let mut thinking = Thinking::new(limit, start, &mut config, TaflState::game);
    let steps = search_turn(
        &config,
        TaflState::new(game.clone()),
        eval,
        &mut thinking,
        rng,
    )?;
    let mut g = game.clone();
    for &s in &steps {
        g.play_step(s)
            .map_err(|e| Error::Input(format!("the search chose an illegal step {s}: {e}")))?;
    }
    let best = match g.moves().last() {
        Some(m) if g.plies() == game.plies() + 1 => m.clone(),
        _ => {
            return Err(Error::Input(format!(
                "the search ended its turn mid-move after {} steps",
                steps.len()
            )))
        }
    };
    let report = thinking.report(&best)?;
    Ok(TaflThought {
        best,
        eval: Some(report.eval),
        network: None,
        score: None,
        pv: report.pv,
        top: report.top,
        nodes: report.nodes,
        elapsed: Duration::ZERO,
    })
}

impl StepGame for Game {
    type Step = Step;
    type Move = Move;
    // A chain lands on at most every square once.
    const MAX_STEPS: usize = dama_tafl::SQUARES + 1;

    fn advance(&mut self, step: Step) -> Option<Option<Move>> {
        let n = self.plies();
        self.play_step(step).ok()?;
        Some(
            (self.plies() > n)
                .then(|| self.moves().last().cloned())
                .flatten(),
        )
    }

    fn first_step(&self) -> Option<Step> {
        self.legal_steps().first().copied()
    }
}

/// A protocol session for Turkish Tafl: rules, a game, a bot. The framing,
/// commands and errors are those of [`crate::Session`] (`docs/protocol.md`);
/// moves, positions and turns are Turkish Tafl's.
#[derive(Debug)]
pub struct TaflSession {
    bot: TaflBot,
    rules: TaflRules,
    game: Game,
}

/// Replays `moves` (in notation) on a new game from `start` under `rules`.
fn replay<'a>(
    start: Position,
    rules: TaflRules,
    moves: impl IntoIterator<Item = &'a str>,
) -> Result<Game, Error> {
    let mut game = Game::from_position(start, rules);
    for m in moves {
        play_text(&mut game, m)?;
    }
    Ok(game)
}

/// Plays one move in notation on `game`, or says why not (listing the legal
/// moves of an illegal one); `game` is unchanged on error.
fn play_text(game: &mut Game, text: &str) -> Result<(), Error> {
    if let Some(o) = game.outcome() {
        return Err(Error::GameOver(format!(
            "cannot play {}: the game is over ({})",
            clip(text),
            describe_outcome(&o)
        )));
    }
    let mv = game.parse_move(text).map_err(|_| {
        Error::Input(format!(
            "illegal move `{}`; legal: {}",
            clip(text),
            legal_list(game)
        ))
    })?;
    game.play(&mv)
        .map_err(|e| Error::Input(format!("illegal move `{}`: {e}", clip(text))))
}

impl TaflSession {
    /// A session with `bot`, the rules the bot was trained under (else the
    /// defaults) and the initial position.
    pub fn new(bot: TaflBot) -> TaflSession {
        let rules = bot.trained_rules().unwrap_or_default();
        TaflSession {
            bot,
            rules,
            game: Game::new(rules),
        }
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The rules in force.
    pub fn rules(&self) -> TaflRules {
        self.rules
    }

    /// The bot.
    pub fn bot(&self) -> &TaflBot {
        &self.bot
    }

    session_methods!();
}

impl Commands for TaflSession {
    const GAME: &'static str = "tafl";
    const POSITION_EXAMPLE: &'static str = "W:Wb5,c5,Kd1:Ba1,Kb3";
    const PRIORS_SHOWN: usize = usize::MAX;
    type Step = Step;

    fn bot_name(&self) -> &str {
        self.bot.name()
    }

    fn default_limit(&self) -> Limit {
        self.bot.default_limit()
    }

    fn rules_text(&self) -> String {
        self.rules.to_string()
    }

    fn other_trained_rules(&self) -> Option<String> {
        self.bot
            .trained_rules()
            .filter(|t| *t != self.rules)
            .map(|t| t.to_string())
    }

    fn set_rules(&mut self, text: &str) -> Result<(), Error> {
        let rules: TaflRules = text.parse().map_err(|e| {
            let draughts = text.parse::<dama_engine::Rules>().is_ok();
            Error::Input(if draughts {
                format!(
                    "`{}` are Turkish draughts rules; this session plays Turkish Tafl \
                     ({e})",
                    clip(text)
                )
            } else {
                format!("bad Turkish Tafl rules: {e}")
            })
        })?;
        // A game from the initial position starts from the new rules' (the
        // first side to move may change); the moves are replayed.
        let start = if *self.game.start_position() == Position::startpos(self.rules.first) {
            Position::startpos(rules.first)
        } else {
            *self.game.start_position()
        };
        let moves: Vec<String> = self.game.moves().iter().map(ToString::to_string).collect();
        let game = replay(start, rules, moves.iter().map(String::as_str)).map_err(|e| {
            Error::Input(format!(
                "the game does not replay under these rules ({e}); use `position` first"
            ))
        })?;
        self.rules = rules;
        self.game = game;
        Ok(())
    }

    fn set_position(&mut self, position: &str, moves: &str) -> Result<(), Error> {
        let pos = if position == "startpos" {
            Position::startpos(self.rules.first)
        } else {
            position
                .parse::<Position>()
                .map_err(|e| Error::Input(e.to_string()))?
        };
        self.game = replay(pos, self.rules, moves.split_whitespace())?;
        Ok(())
    }

    fn new_game(&mut self) {
        self.game = Game::new(self.rules);
    }

    fn play_moves(&mut self, moves: &str) -> Result<(), Error> {
        let mut game = self.game.clone();
        for text in moves.split_whitespace() {
            play_text(&mut game, text)?;
        }
        self.game = game;
        Ok(())
    }

    fn played(&self) -> usize {
        self.game.moves().len()
    }

    fn undo(&mut self, n: usize) -> Result<(), Error> {
        let moves: Vec<String> = self.game.moves()[..self.played() - n]
            .iter()
            .map(ToString::to_string)
            .collect();
        self.game = replay(
            *self.game.start_position(),
            self.rules,
            moves.iter().map(String::as_str),
        )?;
        Ok(())
    }

    fn think(&mut self, limit: Option<Limit>) -> Result<(String, String), Error> {
        let t = self.bot.think(&self.game, limit)?;
        Ok((info_line(&t), t.best.to_string()))
    }

    fn network_eval(&mut self) -> Result<Option<TaflRawEval>, Error> {
        self.bot.network_eval(&self.game)
    }

    fn show(&self) -> Reply {
        let pos = self.game.position();
        show_reply(
            &draw_board(pos),
            pos,
            &side_name(pos.turn()),
            self.game.moves(),
            self.game
                .outcome()
                .map(|o| format!("{} {:?}", o.winner.map_or("draw", side_name), o.termination)),
            self.legal_list(),
        )
    }

    fn legal_list(&self) -> String {
        legal_list(&self.game)
    }
}

/// The legal moves of `game` in notation, separated by spaces.
fn legal_list(game: &Game) -> String {
    join(&game.legal_moves())
}

/// `info …` for a thought: `time_ms`, `nodes`, `value`, `wdl` (searching
/// bots), `score_cm` and `depth` (alpha-beta), then `pv` last.
fn info_line(t: &TaflThought) -> String {
    format!(
        "{} pv {}",
        info_start(t.elapsed, t.nodes, t.eval.as_ref(), t.score),
        join(&t.pv)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_nn::device::Device;
    use dama_nn::{ModelConfig, Network};

    fn last(r: &Reply) -> &str {
        r.lines.last().map_or("", String::as_str)
    }

    fn session(spec: &str) -> TaflSession {
        TaflSession::new(TaflBot::from_spec(spec, &BotOptions::default()).unwrap())
    }

    /// A tiny network (of Turkish draughts' shape).
    fn small() -> ModelConfig {
        ModelConfig {
            blocks: 1,
            channels: 8,
            se_channels: 0,
            policy_channels: 4,
            value_channels: 2,
            value_hidden: 8,
            ..ModelConfig::default()
        }
    }

    /// A tiny random Turkish Tafl network saved as a checkpoint.
    fn tafl_checkpoint(dir: &Path) -> std::path::PathBuf {
        dama_nn::device::manual_seed(5);
        let config = small().with_shape(dama_tafl::encode::TAFL_SHAPE);
        let net = Network::new(&config, Device::Cpu).unwrap();
        let path = dir.join("tafl.safetensors");
        dama_nn::save_network(&net, TaflRules::default(), 7, &path).unwrap();
        path
    }

    fn draughts_checkpoint(dir: &Path) -> std::path::PathBuf {
        let net = Network::new(&small(), Device::Cpu).unwrap();
        let path = dir.join("draughts.safetensors");
        dama_nn::save_network(&net, dama_engine::Rules::default(), 7, &path).unwrap();
        path
    }

    /// The move of a `bestmove` line, checked legal in `game`.
    fn legal_best(game: &Game, r: &Reply) -> Move {
        let text = last(r)
            .strip_prefix("bestmove ")
            .unwrap_or_else(|| panic!("{r:?}"));
        game.parse_move(text)
            .unwrap_or_else(|e| panic!("{text} is not legal at {}: {e}", game.position()))
    }

    #[test]
    fn legal_moves_and_illegal_ones_are_answered() {
        let mut s = session("greedy");
        let r = s.handle("hello");
        assert!(r.lines.iter().any(|l| l == "id game tafl"), "{r:?}");
        assert!(r.lines.iter().any(|l| l == "id bot greedy"), "{r:?}");
        assert_eq!(last(&r), "ok");
        let r = s.handle("legal");
        assert_eq!(r.lines.len(), 2, "{r:?}");
        assert_eq!(r.lines[0].split_whitespace().count(), 1 + 6, "{r:?}");
        assert_eq!(last(&s.handle("moves c5-c4 a1-a3")), "ok");
        assert_eq!(s.game().plies(), 2);
        for bad in [
            "moves c4-c2",
            "moves b5-b4 zz",
            "position W:Wz9:BKb3",
            "position",
            "position startpos moves c5-c3",
            "rules goal=home",
            "rules variant=croda",
            "undo 3",
            "undo x",
            "go sims 0",
            "go sims 99999999999",
            "go depth 3",
            "eval",
            "fly",
        ] {
            let r = s.handle(bad);
            assert!(last(&r).starts_with("error "), "{bad}: {r:?}");
            assert_eq!(r.lines.len(), 1, "{bad}: {r:?}");
            assert_eq!(s.game().plies(), 2, "{bad} changed the game");
        }
        let r = s.handle("moves c4-c2");
        assert!(last(&r).contains("legal: "), "{r:?}");
        let r = s.handle("rules variant=croda");
        assert!(last(&r).contains("Turkish draughts rules"), "{r:?}");
        let r = s.handle("show");
        assert!(r.lines.iter().any(|l| l == "turn defender"), "{r:?}");
        assert!(r.lines.iter().any(|l| l == "moves c5-c4 a1-a3"), "{r:?}");
        assert!(r.lines.iter().any(|l| l == "status playing"), "{r:?}");
        assert!(r.lines.iter().any(|l| l.starts_with("board  b |")), "{r:?}");
        assert_eq!(last(&r), "ok");
        assert!(s.handle("# a comment").lines.is_empty());
        assert!(s.handle("quit").quit);
    }

    #[test]
    fn undo_newgame_rules_and_a_finished_game() {
        let mut s = session("random");
        assert_eq!(last(&s.handle("position startpos moves c5-c4 a1-a3")), "ok");
        assert_eq!(last(&s.handle("undo")), "ok");
        assert_eq!(s.game().plies(), 1);
        assert_eq!(s.game().moves()[0].to_string(), "c5-c4");
        assert_eq!(last(&s.handle("undo 1")), "ok");
        assert_eq!(s.game().plies(), 0);
        // The King side moves first: the initial position follows.
        assert_eq!(last(&s.handle("rules first=king_side")), "ok");
        assert_eq!(s.game().turn(), Side::KingSide);
        assert_eq!(last(&s.handle("moves a1-a3")), "ok");
        assert_eq!(last(&s.handle("newgame")), "ok");
        assert_eq!((s.game().plies(), s.game().turn()), (0, Side::KingSide));
        let r = s.handle("rules");
        assert!(r.lines[0].contains("first=king_side"), "{r:?}");
        // Surrounded at the start of its turn: the Defenders have won.
        assert_eq!(last(&s.handle("position B:Wb4,d4,c3,c5:BKc4")), "ok");
        let r = s.handle("go");
        assert!(last(&r).starts_with("error the game is over"), "{r:?}");
        let r = s.handle("show");
        assert!(
            r.lines
                .iter()
                .any(|l| l == "status over defender KingSurrounded"),
            "{r:?}"
        );
        let r = s.handle("moves c4-c5");
        assert!(last(&r).contains("the game is over"), "{r:?}");
    }

    #[test]
    fn baselines_answer_go_with_a_legal_whole_move() {
        for spec in ["random", "greedy", "alphabeta:depth=2"] {
            let mut s = session(spec);
            assert_eq!(last(&s.handle("position startpos moves c5-c4")), "ok");
            let r = s.handle("go");
            assert_eq!(r.lines.len(), 2, "{spec}: {r:?}");
            assert!(r.lines[0].starts_with("info time_ms "), "{spec}: {r:?}");
            assert_eq!(
                r.lines[0].contains(" score_cm "),
                spec.starts_with("alphabeta"),
                "{spec}: {r:?}"
            );
            let best = legal_best(s.game(), &r);
            assert!(r.lines[0].ends_with(&format!(" pv {best}")), "{r:?}");
        }
        // Players Turkish Tafl does not have are refused by name.
        for spec in ["mcts:sims=10", "alphabeta:time=100", "alphabeta:depth=20"] {
            let e = TaflBot::from_spec(spec, &BotOptions::default()).unwrap_err();
            assert!(e.to_string().contains("Turkish Tafl"), "{spec}: {e}");
        }
    }

    #[test]
    fn a_network_searches_whole_moves_and_evaluates() {
        let tmp = tempfile::tempdir().unwrap();
        let ckpt = tafl_checkpoint(tmp.path());
        let mut bot = TaflBot::from_spec(ckpt.to_str().unwrap(), &BotOptions::default()).unwrap();
        assert!(bot.has_network());
        assert_eq!(bot.trained_rules(), Some(TaflRules::default()));
        assert_eq!(bot.default_limit(), Limit::Sims(DEFAULT_SIMS));
        // A capture chain of two forced jumps is one move.
        let game = Game::from_position("B:Wa2,a4:Ba1,Kd1".parse().unwrap(), TaflRules::default());
        let t = bot.think(&game, Some(Limit::Sims(8))).unwrap();
        assert_eq!(t.best.to_string(), "a1xa3xa5");
        // A friendly chain that may stop: whatever the search likes, a legal
        // whole move; its top moves are whole moves too.
        let game =
            Game::from_position("B:Wd8:Ba1,a2,a4,Kd1".parse().unwrap(), TaflRules::default());
        let t = bot.think(&game, Some(Limit::Sims(16))).unwrap();
        let legal: Vec<_> = game.legal_moves().iter().map(Move::key).collect();
        assert!(legal.contains(&t.best.key()), "{}", t.best);
        assert!(t.eval.is_some() && t.network.is_some());
        assert!(t.nodes > 0);
        assert_eq!(t.pv.first(), Some(&t.best));
        let share: f32 = t.top.iter().map(|m| m.share).sum();
        assert!((share - 1.0).abs() < 1e-3, "{share}");
        for m in &t.top {
            assert!(legal.contains(&m.mv.key()), "{}", m.mv);
        }
        let json = t.to_json();
        assert_eq!(json["best"], t.best.to_string());

        let mut s = TaflSession::new(bot);
        let r = s.handle("go sims 8");
        assert!(
            r.lines[0].contains(" value ") && r.lines[0].contains(" wdl "),
            "{r:?}"
        );
        legal_best(s.game(), &r);
        let r = s.handle("go time 30");
        legal_best(s.game(), &r);
        let r = s.handle("eval");
        assert_eq!(last(&r), "ok");
        let priors = r.lines[0].split(" priors ").nth(1).unwrap();
        assert_eq!(
            priors.split_whitespace().count(),
            2 * s.game().legal_steps().len(),
            "{r:?}"
        );
        // Other rules than the network's: a warning, then ok.
        let r = s.handle("rules ply_limit=300");
        assert!(r.lines[0].starts_with("info warning"), "{r:?}");
        assert_eq!(last(&r), "ok");
    }

    #[test]
    fn each_game_refuses_the_other_games_network_by_name() {
        // A bundle's TorchScript module fits where a checkpoint's network
        // does (TaflBot::from_evaluator).
        let _: fn(dama_nn::TorchScriptEvaluator) -> TaflNetwork = |e| Box::new(e);
        let tmp = tempfile::tempdir().unwrap();
        let tafl = tafl_checkpoint(tmp.path());
        let draughts = draughts_checkpoint(tmp.path());
        let e = crate::Bot::from_spec(tafl.to_str().unwrap(), &BotOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("Turkish Tafl"), "{e}");
        let e = TaflBot::from_spec(draughts.to_str().unwrap(), &BotOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("Turkish draughts"), "{e}");
        let spec: BotSpec = tafl.to_str().unwrap().parse().unwrap();
        assert_eq!(spec.game().unwrap(), Some(GameName::Tafl));
        let spec: BotSpec = draughts.to_str().unwrap().parse().unwrap();
        assert_eq!(spec.game().unwrap(), Some(GameName::Draughts));
        assert_eq!("greedy".parse::<BotSpec>().unwrap().game().unwrap(), None);
    }

    #[test]
    fn bad_bytes_and_long_lines_are_errors_and_the_session_goes_on() {
        let mut input = Vec::new();
        input.extend_from_slice(b"isready\nmoves c5-c4 \xff\n");
        input.extend_from_slice(&vec![b'x'; crate::protocol::MAX_LINE * 2]);
        input.extend_from_slice(b"\nlegal\nquit\nisready\n");
        let mut out = Vec::new();
        session("random")
            .serve(&mut std::io::Cursor::new(input), &mut out)
            .unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 6, "{out}");
        assert_eq!(lines[0], "readyok");
        assert!(lines[1].starts_with("error") && lines[1].contains("UTF-8"));
        assert!(lines[2].starts_with("error") && lines[2].contains("longer"));
        assert!(lines[3].starts_with("legal "));
        assert_eq!(lines[4], "ok");
        assert_eq!(lines[5], "bye");
    }
}
