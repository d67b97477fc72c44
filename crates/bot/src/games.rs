//! The bot's per-game adapter: [`BotGame`], implemented here for every
//! game the bot plays. Everything else in this crate (the [`Bot`], its
//! [`Thought`]s, the protocol [`Session`]) is written once against the game
//! seam ([`GameDef`]) and this trait.
//!
//! What a game adds here is what the seam does not say: which of its
//! players play without this crate's network search (baselines, an
//! alpha-beta engine) and how a [`BotSpec`] maps onto them, the rules a
//! network file records for it, and its text for people (the board, how a
//! game ended, move help, a game record).
//!
//! [`Bot`]: crate::Bot
//! [`Session`]: crate::Session

use std::sync::Arc;
use std::time::Duration;

use dama_draughts::{DamaState, Draughts};
use dama_eval::alphabeta::{AlphaBeta, SearchLimits};
use dama_eval::{AlphaBetaLimit, BuildOptions, Player as DraughtsPlayer, PlayerSpec};
use dama_game::GameDef;
use dama_mcts::Player;
use dama_nn::{GameName, GameRules};
use dama_tablebase::{Probe, Tablebase};
use dama_tafl::players::{best_move, Baseline};
use dama_tafl::{Side, Square, Tafl};
use rand_chacha::ChaCha8Rng;

use crate::evaluator_bundle::{EvaluatorBundle, EvaluatorBundleMeta};
use crate::report::Thought;
use crate::spec::{BotOptions, BotSpec, Limit};
use crate::Error;

/// One of a game's own players, as [`BotGame::own_player`] builds it.
pub struct OwnPlayer<G: BotGame> {
    /// The bot's name (its spec).
    pub name: String,
    /// The player.
    pub player: G::Player,
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

impl<G: BotGame> OwnPlayer<G> {
    /// A player named `name` with nothing else to say.
    fn plain(name: impl Into<String>, player: G::Player) -> OwnPlayer<G> {
        OwnPlayer {
            name: name.into(),
            player,
            own_limit: None,
            timed: false,
            trained: None,
            evaluator_bundle: None,
        }
    }
}

/// The bot's per-game adapter (see the [module docs](self)): the part of a
/// bot that differs between games. Network bots (checkpoints, network
/// bundles) and `mcts:` rollouts are the bot's own, for every game.
pub trait BotGame: GameDef<State: dama_mcts::Game<Action: std::fmt::Display>> {
    /// The game's own players: whatever thinks without the network search.
    type Player: Send;
    /// An example position, for the error of a `position` without one.
    const POSITION_EXAMPLE: &'static str;
    /// What to type in `dama play`.
    const MOVE_HELP: &'static str;
    /// Whether the endgame tables (`dama_tablebase`) hold this game's
    /// positions.
    const ENDGAME_TABLES: bool = false;

    /// Builds the game's own player for `spec` (an alpha-beta engine, a
    /// baseline, a learned-evaluator bundle: any spec but a checkpoint, a
    /// network bundle or `mcts:`).
    ///
    /// # Errors
    ///
    /// A player the game does not have, named in one sentence; loading
    /// errors.
    fn own_player(spec: &BotSpec, options: &BotOptions) -> Result<OwnPlayer<Self>, Error>;

    /// The whole move `player` plays in `game` (which is not over) within
    /// `limit`, with what it found (`best`, `pv`, `score_cm`, `nodes`).
    ///
    /// # Errors
    ///
    /// The player's errors.
    fn think_own(
        player: &mut Self::Player,
        game: &Self::Game,
        limit: Limit,
        rng: &mut ChaCha8Rng,
    ) -> Result<Thought<Self>, Error>;

    /// The rules of a network file if they are this game's.
    fn rules_of(rules: &GameRules) -> Option<Self::Rules>;

    /// Why a network trained under `trained` refuses to play `asked`, in
    /// one sentence (`None`: it plays them, with a warning if they differ).
    fn refuse_rules(trained: &Self::Rules, asked: &Self::Rules) -> Option<String> {
        let _ = (trained, asked);
        None
    }

    /// The search's root at `game`, with the endgame tables if the game
    /// has them.
    fn search_root(game: &Self::Game, tablebase: Option<&Arc<Tablebase>>) -> Self::State {
        let _ = tablebase;
        Self::search_state(game)
    }

    /// The tables' best move and verdict, if they hold `game`'s position.
    fn tablebase_move(
        game: &Self::Game,
        tablebase: &Arc<Tablebase>,
    ) -> Option<(Self::Move, Probe)> {
        let _ = (game, tablebase);
        None
    }

    /// How the game ended, in words (`1-0 (NoPieces)`), if it did.
    fn end_text(game: &Self::Game) -> Option<String>;

    /// How the game ended as `show`'s `status over` writes it (`<result>
    /// <reason>`), if it did.
    fn status_text(game: &Self::Game) -> Option<String>;

    /// The board as text, `bottom`'s side nearest the viewer where the
    /// game turns the board.
    fn draw_board(game: &Self::Game, bottom: Player) -> String;

    /// A side in sentences (`White`, `the Defenders`).
    fn side_title(side: Player) -> &'static str;

    /// The game's record as text (PDN or the game's own), `names` the
    /// players in [`Player`] order, `resigned` the side that resigned.
    fn record(game: &Self::Game, names: [&str; 2], resigned: Option<Player>) -> String;
}

/// The draughts players that are not a network search.
pub enum DraughtsOwn {
    /// The alpha-beta engine within its limit.
    AlphaBeta {
        /// The engine (handcrafted or learned evaluation).
        engine: Box<AlphaBeta>,
        /// Its own depth or time.
        limit: AlphaBetaLimit,
    },
    /// Another player of `dama_eval` (random, greedy, policy).
    Player(Box<dyn DraughtsPlayer<Draughts>>),
}

fn draughts_color(p: Player) -> dama_engine::Color {
    match p {
        Player::First => dama_engine::Color::White,
        Player::Second => dama_engine::Color::Black,
    }
}

impl BotGame for Draughts {
    type Player = DraughtsOwn;
    const POSITION_EXAMPLE: &'static str = "W:Wa2,b2:Ba7,Kh8";
    const MOVE_HELP: &'static str =
        "Type a move (d3-d4, b3xd3xd5; a capture may be shortened to from x to),\n\
        or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";
    const ENDGAME_TABLES: bool = true;

    fn own_player(spec: &BotSpec, options: &BotOptions) -> Result<OwnPlayer<Self>, Error> {
        let alphabeta = |limit: AlphaBetaLimit,
                         tt_mb: usize,
                         evaluation: dama_eval::Evaluation,
                         threads: usize| DraughtsOwn::AlphaBeta {
            engine: Box::new(
                AlphaBeta::new(tt_mb)
                    .with_tablebase(options.tablebase.clone())
                    .with_evaluation(evaluation)
                    .with_threads(threads),
            ),
            limit,
        };
        match spec {
            BotSpec::Bundle(dir) => {
                let b = EvaluatorBundle::load(dir)?;
                Ok(OwnPlayer {
                    name: format!("bundle:{}", dir.display()),
                    player: alphabeta(b.meta.limit, b.meta.tt_mb, b.evaluation, b.meta.threads),
                    own_limit: Some(b.meta.limit),
                    timed: true,
                    trained: Some(b.meta.rules),
                    evaluator_bundle: Some(b.meta),
                })
            }
            BotSpec::AlphaBeta {
                limit,
                tt_mb,
                eval,
                threads,
            } => {
                let evaluation = dama_eval::Evaluation::of_spec(eval.as_deref(), None)?;
                // A learned evaluation plays the rules it was trained for.
                let trained = evaluation.rules().copied();
                Ok(OwnPlayer {
                    name: spec.to_string(),
                    player: alphabeta(*limit, *tt_mb, evaluation, *threads),
                    own_limit: Some(*limit),
                    timed: true,
                    trained,
                    evaluator_bundle: None,
                })
            }
            BotSpec::Player(p) => {
                let factory = dama_eval::factory(
                    p,
                    &BuildOptions {
                        device: Some(options.device),
                        tablebase: options.tablebase.clone(),
                        rules: None,
                        lanes: None,
                    },
                )?;
                Ok(OwnPlayer::plain(
                    p.to_string(),
                    DraughtsOwn::Player(factory.build()?),
                ))
            }
            BotSpec::Checkpoint { .. } | BotSpec::Rollout { .. } => Err(Error::Input(format!(
                "`{spec}` is a search of the bot, not a player of Turkish draughts"
            ))),
        }
    }

    fn think_own(
        player: &mut DraughtsOwn,
        game: &dama_engine::Game,
        limit: Limit,
        rng: &mut ChaCha8Rng,
    ) -> Result<Thought<Self>, Error> {
        match player {
            DraughtsOwn::AlphaBeta { engine, limit: own } => {
                let limits = match (limit, *own) {
                    (Limit::Time(d), _) => SearchLimits::time(d),
                    (Limit::Sims(_), AlphaBetaLimit::Depth(d)) => SearchLimits::depth(d),
                    (Limit::Sims(_), AlphaBetaLimit::TimeMs(ms)) => {
                        SearchLimits::time(Duration::from_millis(ms))
                    }
                };
                let history = dama_eval::game_history_hashes(game);
                let report = engine.search(game.position(), &history, limits);
                let best = report
                    .best
                    .ok_or_else(|| Error::GameOver("no legal move".into()))?;
                let mut thought = Thought::of_move(best, Some((report.score, report.depth)));
                if report.pv.first() == Some(&best) {
                    thought.pv = report.pv;
                }
                thought.nodes = report.nodes;
                Ok(thought)
            }
            DraughtsOwn::Player(p) => {
                let best = p
                    .choose(game, rng)
                    .map_err(|e| dama_eval::Error::from_move(p.name(), e))?;
                Ok(Thought::of_move(best, None))
            }
        }
    }

    fn rules_of(rules: &GameRules) -> Option<dama_engine::Rules> {
        rules.draughts()
    }

    /// A network plays the variant it was trained for: other rule options
    /// get a warning, another variant is refused.
    fn refuse_rules(trained: &dama_engine::Rules, asked: &dama_engine::Rules) -> Option<String> {
        (trained.variant != asked.variant).then(|| {
            format!(
                "the network was trained for {}, not {}",
                trained.variant, asked.variant
            )
        })
    }

    fn search_root(game: &dama_engine::Game, tablebase: Option<&Arc<Tablebase>>) -> DamaState {
        DamaState::new(game.clone()).with_tablebase(tablebase.cloned())
    }

    fn tablebase_move(
        game: &dama_engine::Game,
        tablebase: &Arc<Tablebase>,
    ) -> Option<(dama_engine::Move, Probe)> {
        let probe = DamaState::new(game.clone())
            .with_tablebase(Some(tablebase.clone()))
            .probe()?;
        let (best, _) = tablebase.best_moves(game.position())?.first().copied()?;
        Some((best, probe))
    }

    fn end_text(game: &dama_engine::Game) -> Option<String> {
        game.termination().map(|(o, t)| format!("{o} ({t:?})"))
    }

    fn status_text(game: &dama_engine::Game) -> Option<String> {
        game.termination().map(|(o, t)| format!("{o} {t:?}"))
    }

    fn draw_board(game: &dama_engine::Game, bottom: Player) -> String {
        crate::draw_board(game.position(), draughts_color(bottom))
    }

    fn side_title(side: Player) -> &'static str {
        match side {
            Player::First => "White",
            Player::Second => "Black",
        }
    }

    fn record(game: &dama_engine::Game, names: [&str; 2], resigned: Option<Player>) -> String {
        let mut record = dama_engine::GameRecord::from_game(game);
        record.tags = vec![
            ("Event".into(), "dama play".into()),
            ("White".into(), names[0].into()),
            ("Black".into(), names[1].into()),
            ("Rules".into(), game.rules().to_string()),
        ];
        if let Some(loser) = resigned.map(draughts_color) {
            record.result = Some(dama_engine::Outcome::Decisive { winner: !loser });
            record
                .tags
                .push(("Termination".into(), format!("{loser} resigns")));
        } else if let Some((_, t)) = game.termination() {
            record.tags.push(("Termination".into(), format!("{t:?}")));
        }
        record.to_string()
    }
}

fn tafl_side(p: Player) -> Side {
    match p {
        Player::First => Side::Defender,
        Player::Second => Side::KingSide,
    }
}

/// A Turkish Tafl side as the protocol writes it: `defender`, `king_side`.
fn side_key(side: Side) -> &'static str {
    match side {
        Side::Defender => "defender",
        Side::KingSide => "king_side",
    }
}

impl BotGame for Tafl {
    type Player = Baseline;
    const POSITION_EXAMPLE: &'static str = "W:Wb5,c5,Kd1:Ba1,Kb3";
    const MOVE_HELP: &'static str = "Type a move: b5-b4 (a slide), a1-a3-c3 (friendly jumps), \
        c4xc2 or c4xc2xa2 (a capture; a chain may be shortened to its start and end), \
        c8-off (the King's exit),\n\
        or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";

    fn own_player(spec: &BotSpec, _: &BotOptions) -> Result<OwnPlayer<Self>, Error> {
        let player = match spec {
            BotSpec::Bundle(dir) => {
                return Err(Error::Input(format!(
                    "{}: a learned-evaluator bundle is Turkish draughts' alpha-beta evaluation; \
                     Turkish Tafl has no learned evaluator",
                    dir.display()
                )))
            }
            BotSpec::AlphaBeta { .. } | BotSpec::Player(_) => spec
                .player_spec()
                .ok_or_else(|| Error::Input(format!("`{spec}`")))?,
            BotSpec::Checkpoint { .. } | BotSpec::Rollout { .. } => {
                return Err(Error::Input(format!(
                    "`{spec}` is a search of the bot, not a player of Turkish Tafl"
                )))
            }
        };
        let baseline = dama_eval::games::tafl_baseline(&player)?.ok_or_else(|| {
            Error::Input(format!(
                "`{player}` is not a Turkish Tafl bot (random, greedy, alphabeta:depth=N, \
                 mcts:sims=N, or a network)"
            ))
        })?;
        let mut own = OwnPlayer::plain(baseline.to_string(), baseline);
        if let Baseline::AlphaBeta(d) = baseline {
            own.own_limit = Some(AlphaBetaLimit::Depth(d));
        }
        Ok(own)
    }

    fn think_own(
        player: &mut Baseline,
        game: &dama_tafl::Game,
        _: Limit,
        rng: &mut ChaCha8Rng,
    ) -> Result<Thought<Self>, Error> {
        let no_move = || Error::GameOver("no legal move".into());
        Ok(match *player {
            Baseline::AlphaBeta(depth) => {
                let (best, score, nodes) = best_move(game, depth, Some(rng)).ok_or_else(no_move)?;
                let mut thought = Thought::of_move(best, Some((score, depth)));
                thought.nodes = nodes;
                thought
            }
            b => Thought::of_move(b.choose(game, rng).ok_or_else(no_move)?, None),
        })
    }

    fn rules_of(rules: &GameRules) -> Option<dama_tafl::TaflRules> {
        rules.tafl()
    }

    fn end_text(game: &dama_tafl::Game) -> Option<String> {
        let o = game.outcome()?;
        let who = match o.winner {
            Some(Side::Defender) => "the Defenders win",
            Some(Side::KingSide) => "the King side wins",
            None => "a draw",
        };
        Some(format!("{who} ({})", o.termination))
    }

    fn status_text(game: &dama_tafl::Game) -> Option<String> {
        let o = game.outcome()?;
        Some(format!(
            "{} {:?}",
            o.winner.map_or("draw", side_key),
            o.termination
        ))
    }

    /// Columns 1 to 8 left to right (the King side moves right and leaves
    /// the board past column 8), rows `d` to `a` top to bottom; `b`
    /// King-side men, `K` the King, `w` Defender men, `W` Defender Kings,
    /// `.` empty. The board is never turned.
    fn draw_board(game: &dama_tafl::Game, _: Player) -> String {
        let pos = game.position();
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

    fn side_title(side: Player) -> &'static str {
        match side {
            Player::First => "the Defenders",
            Player::Second => "the King side",
        }
    }

    /// A PDN-like text record: tags for the game, players (Defenders, King
    /// side), rules, start position (FEN), result (1-0: the Defenders win,
    /// as in self-play records) and termination, then the numbered moves.
    fn record(game: &dama_tafl::Game, names: [&str; 2], resigned: Option<Player>) -> String {
        let tag = |v: &str| v.replace(['"', '\\'], "'");
        let (winner, termination) = match (resigned.map(tafl_side), game.outcome()) {
            (Some(loser), _) => (
                Some(Some(loser.other())),
                format!("{} resigns", side_key(loser)),
            ),
            (None, Some(o)) => (Some(o.winner), format!("{:?}", o.termination)),
            (None, None) => (None, "unfinished".to_owned()),
        };
        let result = match winner {
            Some(Some(Side::Defender)) => "1-0",
            Some(Some(Side::KingSide)) => "0-1",
            Some(None) => "1/2-1/2",
            None => "*",
        };
        let mut text = String::new();
        for (k, v) in [
            ("Event", "dama play".to_owned()),
            ("GameType", "Turkish Tafl".to_owned()),
            ("Defenders", tag(names[0])),
            ("KingSide", tag(names[1])),
            ("Rules", game.rules().to_string()),
            ("FEN", game.start_position().to_string()),
            ("Result", result.to_owned()),
            ("Termination", termination),
        ] {
            text.push_str(&format!("[{k} \"{v}\"]\n"));
        }
        text.push('\n');
        let moves: Vec<String> = game.moves().iter().map(ToString::to_string).collect();
        for (i, pair) in moves.chunks(2).enumerate() {
            text.push_str(&format!("{}. {} ", i + 1, pair.join(" ")));
        }
        text.push_str(result);
        text.push('\n');
        text
    }
}

/// Code written once for every game the bot plays ([`BotGame`]), run with
/// the game a [`GameName`] stands for by [`with_bot_game`].
pub trait WithBotGame {
    /// What the code returns.
    type Output;

    /// Runs the code for game `G`.
    fn run<G: BotGame>(self) -> Self::Output;
}

/// Runs `code` with the game `game` stands for: the bot's one dispatch
/// from a name to a type. It mirrors [`GameName::with`] (the registry sits
/// below this crate, so it cannot know the bot's adapter); a game's
/// adapter above adds its arm here.
pub fn with_bot_game<W: WithBotGame>(game: GameName, code: W) -> W::Output {
    match game {
        GameName::Draughts => code.run::<Draughts>(),
        GameName::Tafl => code.run::<Tafl>(),
        // A game without an adapter of its own plays through the one
        // written once for every game.
        other => other.with(Fallback(code)),
    }
}

struct Fallback<W>(W);

/// A side's place in [`dama_game::Geometry::sides`].
fn side_index(p: Player) -> usize {
    match p {
        Player::First => 0,
        Player::Second => 1,
    }
}

impl<W: WithBotGame> dama_nn::WithGame for Fallback<W> {
    type Output = W::Output;

    fn run<G: GameDef>(self) -> W::Output {
        self.0.run::<Generic<G>>()
    }
}

/// Game `G` as a bot plays it without an adapter of its own: the players
/// written once for every game (`random`, `mcts:`, networks), and its text
/// from the seam (position text for the board, the termination for the
/// end, the whole moves for the record). Every [`GameDef`] item is `G`'s.
#[derive(Debug, PartialEq, Eq)]
pub struct Generic<G>(std::marker::PhantomData<G>);

impl<G> Clone for Generic<G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G> Copy for Generic<G> {}

impl<G> Default for Generic<G> {
    fn default() -> Self {
        Generic(std::marker::PhantomData)
    }
}

impl<G: GameDef> GameDef for Generic<G> {
    const NAME: &'static str = G::NAME;
    const TITLE: &'static str = G::TITLE;
    const ENCODING_VERSION: u32 = G::ENCODING_VERSION;
    type Rules = G::Rules;
    type Game = G::Game;
    type Move = G::Move;
    type State = G::State;
    type Tables = G::Tables;

    fn start(rules: &G::Rules) -> G::Game {
        G::start(rules)
    }
    fn rules(game: &G::Game) -> G::Rules {
        G::rules(game)
    }
    fn parse_rules(text: &str) -> Result<G::Rules, dama_game::GameError> {
        G::parse_rules(text)
    }
    fn to_play(game: &G::Game) -> Player {
        G::to_play(game)
    }
    fn outcome(game: &G::Game) -> Option<dama_mcts::Outcome> {
        G::outcome(game)
    }
    fn plies(game: &G::Game) -> usize {
        G::plies(game)
    }
    fn legal_moves(game: &G::Game) -> Vec<G::Move> {
        G::legal_moves(game)
    }
    fn play(game: &mut G::Game, mv: &G::Move) -> Result<(), dama_game::GameError> {
        G::play(game, mv)
    }
    fn parse_move(game: &G::Game, text: &str) -> Result<G::Move, dama_game::GameError> {
        G::parse_move(game, text)
    }
    fn position_text(game: &G::Game) -> String {
        G::position_text(game)
    }
    fn parse_position(rules: &G::Rules, text: &str) -> Result<G::Game, dama_game::GameError> {
        G::parse_position(rules, text)
    }
    fn search_state(game: &G::Game) -> G::State {
        G::search_state(game)
    }
    fn search_state_with(game: &G::Game, tables: &G::Tables) -> G::State {
        G::search_state_with(game, tables)
    }
    fn game_of(state: &G::State) -> &G::Game {
        G::game_of(state)
    }
    fn start_text(game: &G::Game) -> String {
        G::start_text(game)
    }
    fn history(game: &G::Game) -> &[G::Move] {
        G::history(game)
    }
    fn termination(game: &G::Game) -> Option<String> {
        G::termination(game)
    }
    fn complete_turn(
        game: &G::Game,
        decisions: &[<G::State as dama_mcts::Game>::Action],
    ) -> Result<G::Move, dama_game::GameError> {
        G::complete_turn(game, decisions)
    }
    fn perft(game: &G::Game, depth: u32) -> u64 {
        G::perft(game, depth)
    }
    fn geometry() -> dama_game::Geometry {
        G::geometry()
    }
    fn tournament() -> Option<dama_game::TournamentPoints<Self>> {
        G::tournament()
    }
    fn square_name(cell: usize) -> String {
        G::square_name(cell)
    }
    fn board(state: &G::State) -> Vec<Option<dama_game::Piece>> {
        G::board(state)
    }
    fn decision_squares(
        state: &G::State,
        decision: &<G::State as dama_mcts::Game>::Action,
    ) -> dama_game::DecisionSquares {
        G::decision_squares(state, decision)
    }
    fn move_squares(mv: &G::Move) -> dama_game::MoveSquares {
        G::move_squares(mv)
    }
    fn mirror_planes(src: &[f32], dst: &mut [f32]) {
        G::mirror_planes(src, dst);
    }
    fn mirror_policy_index(index: usize) -> usize {
        G::mirror_policy_index(index)
    }
}

impl<G: GameDef> BotGame for Generic<G> {
    type Player = dama_game::player::RandomPlayer;
    const POSITION_EXAMPLE: &'static str = "startpos";
    const MOVE_HELP: &'static str = "Type a move in the game's notation,\n\
        or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";

    fn own_player(spec: &BotSpec, _: &BotOptions) -> Result<OwnPlayer<Self>, Error> {
        match spec {
            BotSpec::Player(PlayerSpec::Random) => Ok(OwnPlayer::plain(
                "random",
                dama_game::player::RandomPlayer::default(),
            )),
            _ => Err(Error::Input(format!(
                "`{spec}` is not a bot of {} (random, mcts:sims=N, or a network)",
                G::TITLE
            ))),
        }
    }

    fn think_own(
        player: &mut dama_game::player::RandomPlayer,
        game: &G::Game,
        _: Limit,
        rng: &mut ChaCha8Rng,
    ) -> Result<Thought<Self>, Error> {
        let best = dama_game::player::Player::<G>::choose(player, game, rng)
            .map_err(|e| dama_eval::Error::from_move("random", e))?;
        Ok(Thought::of_move(best, None))
    }

    fn rules_of(rules: &GameRules) -> Option<G::Rules> {
        rules.get::<G>()
    }

    fn end_text(game: &G::Game) -> Option<String> {
        let why = G::termination(game).unwrap_or_default();
        Some(match G::outcome(game)? {
            dama_mcts::Outcome::Win(p) => {
                format!("{} win ({why})", G::geometry().sides[side_index(p)].name)
            }
            dama_mcts::Outcome::Draw => format!("a draw ({why})"),
        })
    }

    fn status_text(game: &G::Game) -> Option<String> {
        let why = G::termination(game).unwrap_or_default();
        Some(match G::outcome(game)? {
            dama_mcts::Outcome::Win(p) => {
                format!("{} {why}", G::geometry().sides[side_index(p)].key)
            }
            dama_mcts::Outcome::Draw => format!("draw {why}"),
        })
    }

    fn draw_board(game: &G::Game, _: Player) -> String {
        format!("{}\n", G::position_text(game))
    }

    fn side_title(side: Player) -> &'static str {
        G::geometry().sides[side_index(side)].name
    }

    fn record(game: &G::Game, names: [&str; 2], resigned: Option<Player>) -> String {
        let sides = G::geometry().sides;
        let mut out = format!(
            "[Game \"{}\"]\n[Rules \"{}\"]\n[{} \"{}\"]\n[{} \"{}\"]\n[FEN \"{}\"]\n",
            G::TITLE,
            G::rules(game),
            sides[0].name,
            names[0].replace(['"', '\\'], "'"),
            sides[1].name,
            names[1].replace(['"', '\\'], "'"),
            G::start_text(game)
        );
        let end = match resigned {
            Some(p) => Some(format!("{} resigns", sides[side_index(p)].name)),
            None => G::termination(game),
        };
        if let Some(end) = end {
            out.push_str(&format!("[Termination \"{end}\"]\n"));
        }
        out.push('\n');
        for (i, m) in G::history(game).iter().enumerate() {
            out.push_str(&format!("{}. {m} ", i + 1));
        }
        out.push('\n');
        out
    }
}
