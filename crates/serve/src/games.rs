//! The games being played: one per browser tab (or API client), of any
//! game, kept in memory under an unguessable id, dropped when idle for long
//! or when the store is full of older idle games.
//!
//! [`Session`] is written once against [`GameDef`]; the store holds each as
//! a [`GameSession`] trait object, created for the game a request names
//! through `GameName::with`.

use std::any::Any;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use dama_game::GameDef;
use dama_mcts::{Game as SearchGame, Outcome, Player};
use rand::RngCore;
use serde::Serialize;

use crate::adapter::Thought;
use crate::bots::{BotPool, Chosen, Strength};
use crate::error::ApiError;
use crate::view::{
    board_of_state, geometry_of, name_of, result_text, side_key, side_name, steps_of,
    termination_text, GeometryView, MoveView, PendingView, PieceView, StepView, ThoughtView,
};

type Action<G> = <<G as GameDef>::State as SearchGame>::Action;

/// What a bot's turn returns once erased: a [`Thought`] of the game's
/// moves.
pub type ErasedThought = Box<dyn Any + Send>;

/// The bot's search, running on the pool, as a future.
pub type BotFuture = Pin<Box<dyn Future<Output = Result<ErasedThought, ApiError>> + Send>>;

/// One game of game `G`.
pub struct Session<G: GameDef> {
    /// The game (whole moves).
    pub game: G::Game,
    /// The human's move in progress: the search state after its decisions
    /// so far, and those decisions.
    partial: Option<(G::State, Vec<Action<G>>)>,
    /// The human's side.
    pub human: Player,
    /// The bot and its strength.
    pub bot: Chosen,
    /// The side that resigned.
    pub resigned: Option<Player>,
    /// What the bot thought about its last move.
    pub thought: Option<ThoughtView>,
    /// Whether the bot is thinking now (the game then takes no moves).
    pub thinking: bool,
    /// Whether the last move crowned a man.
    promoted: bool,
}

/// Whose turn it is, in a game's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Turn {
    /// The human's.
    Human,
    /// The bot's.
    Bot,
    /// Nobody's: the game is over.
    Over,
}

/// The bot of a game, in its view.
#[derive(Clone, Debug, Serialize)]
pub struct BotView {
    /// Its id.
    pub id: String,
    /// Its strength.
    pub strength: Strength,
}

/// A game as the API sends it.
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// The game (`draughts`, `tafl`).
    pub game: &'static str,
    /// The board and sides.
    pub geometry: GeometryView,
    /// The rules, as text.
    pub rules: String,
    /// The start position.
    pub start: String,
    /// The position now (before a move in progress).
    pub position: String,
    /// The side to move (its key: `white`, `defender`).
    pub turn: String,
    /// The human's side (its key).
    pub human: String,
    /// Whose turn it is.
    pub state: Turn,
    /// The pieces as they stand (a move in progress included).
    pub board: Vec<PieceView>,
    /// A move in progress (a capture or chain decided step by step).
    pub pending: Option<PendingView>,
    /// The legal next steps (the continuations of a move in progress).
    pub legal: Vec<StepView>,
    /// The moves played.
    pub moves: Vec<MoveView>,
    /// The last move.
    pub last: Option<MoveView>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: &'static str,
    /// Why the game ended.
    pub reason: Option<String>,
    /// The game record (PDN-like text).
    pub record: String,
    /// The bot.
    pub bot: BotView,
    /// Whether the bot is thinking.
    pub thinking: bool,
    /// What the bot thought about its last move.
    pub thought: Option<ThoughtView>,
}

/// A game of any game, as the store and the routes use it.
pub trait GameSession: Send + std::fmt::Debug {
    /// The game's view.
    fn view(&self, id: &str) -> GameView;
    /// Whose turn it is.
    fn turn(&self) -> Turn;
    /// Whether the bot is thinking.
    fn thinking(&self) -> bool;
    /// One step of the human's move (see [`Session::step`]).
    ///
    /// # Errors
    ///
    /// As [`Session::step`].
    fn step(&mut self, from: &str, to: &str) -> Result<(), ApiError>;
    /// A whole move of the human's (see [`Session::play_move`]).
    ///
    /// # Errors
    ///
    /// As [`Session::play_move`].
    fn play_move(&mut self, text: &str) -> Result<(), ApiError>;
    /// Takes back (see [`Session::undo`]).
    ///
    /// # Errors
    ///
    /// As [`Session::undo`].
    fn undo(&mut self) -> Result<(), ApiError>;
    /// The human resigns.
    ///
    /// # Errors
    ///
    /// 409 when the game is over or the bot thinks.
    fn resign(&mut self) -> Result<(), ApiError>;
    /// Starts the bot's turn on `pool`: the search to await (outside the
    /// store's lock), then to give to [`GameSession::finish_bot`].
    ///
    /// # Errors
    ///
    /// 409 when it is not the bot's turn or the bot already thinks.
    fn start_bot(&mut self, pool: &BotPool) -> Result<BotFuture, ApiError>;
    /// Ends the bot's turn with what it found.
    ///
    /// # Errors
    ///
    /// The bot's error; 500 if its move is not legal (a bug).
    fn finish_bot(&mut self, result: Result<ErasedThought, ApiError>) -> Result<(), ApiError>;
}

impl<G: GameDef> std::fmt::Debug for Session<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("game", &self.game)
            .field("human", &self.human)
            .field("bot", &self.bot)
            .field("thinking", &self.thinking)
            .finish_non_exhaustive()
    }
}

impl<G: GameDef> Session<G> {
    /// A new game.
    pub fn new(game: G::Game, human: Player, bot: Chosen) -> Session<G> {
        Session {
            game,
            partial: None,
            human,
            bot,
            resigned: None,
            thought: None,
            thinking: false,
            promoted: false,
        }
    }

    fn over(&self) -> bool {
        self.resigned.is_some() || (self.partial.is_none() && G::outcome(&self.game).is_some())
    }

    fn result(&self) -> Option<Outcome> {
        match self.resigned {
            Some(loser) => Some(Outcome::Win(other(loser))),
            None => G::outcome(&self.game),
        }
    }

    fn record(&self) -> String {
        let (first, second) = if self.human == Player::First {
            ("you".to_owned(), self.bot.id.clone())
        } else {
            (self.bot.id.clone(), "you".to_owned())
        };
        let sides = G::geometry().sides;
        let mut tags = vec![
            ("Event".to_owned(), "dama serve".to_owned()),
            // Tag names are one word: `White`, `KingSide`.
            (tag_name(sides[0].name), first),
            (tag_name(sides[1].name), second),
        ];
        if let Some(loser) = self.resigned {
            tags.push((
                "Termination".into(),
                format!("{} resigned", side_key::<G>(loser)),
            ));
        }
        crate::record::write::<G>(&self.game, &tags, self.result())
    }

    fn state_now(&self) -> G::State {
        match &self.partial {
            Some((state, _)) => state.clone(),
            None => G::search_state(&self.game),
        }
    }

    fn pending(&self) -> Option<PendingView> {
        let (state, decisions) = self.partial.as_ref()?;
        let mut replay = G::search_state(&self.game);
        let mut path = Vec::new();
        let mut captured = Vec::new();
        let mut origin = None;
        for d in decisions {
            let sq = G::decision_squares(&replay, d);
            origin.get_or_insert(sq.from);
            path.push(name_of::<G>(sq.to));
            captured.extend(sq.captured.map(G::square_name));
            replay.apply(*d);
        }
        let remaining = G::legal_moves(&self.game)
            .iter()
            .map(|m| G::move_squares(m).path.len())
            .filter(|&n| n > decisions.len())
            .map(|n| n - decisions.len())
            .min()
            .unwrap_or(0);
        let _ = state;
        Some(PendingView {
            origin: origin.map_or_else(String::new, G::square_name),
            at: path.last().cloned().unwrap_or_default(),
            path,
            captured,
            remaining: u32::try_from(remaining).unwrap_or(u32::MAX),
        })
    }

    fn human_to_move(&self) -> Result<(), ApiError> {
        if self.thinking {
            return Err(ApiError::conflict("the bot is thinking"));
        }
        match self.turn_now() {
            Turn::Human => Ok(()),
            Turn::Bot => Err(ApiError::conflict("it is the bot's turn")),
            Turn::Over => Err(ApiError::conflict("the game is over")),
        }
    }

    fn turn_now(&self) -> Turn {
        if self.over() {
            Turn::Over
        } else if G::to_play(&self.game) == self.human {
            Turn::Human
        } else {
            Turn::Bot
        }
    }

    /// Plays a whole move, noting whether it crowns a man.
    fn play_whole(&mut self, mv: &G::Move) -> Result<(), String> {
        let before = self.game.clone();
        G::play(&mut self.game, mv).map_err(|e| e.to_string())?;
        self.promoted = MoveView::played::<G>(&before, &self.game, mv).promotes;
        self.partial = None;
        Ok(())
    }

    /// Plays one step of the human's move: a quiet move, one jump of a
    /// capture or chain (then the move goes on from the landing square),
    /// or the end of a chain (`to` equal to `from`); `to` is `off` for a
    /// landing off the board.
    ///
    /// # Errors
    ///
    /// 400 for a square that is not one of the board's, 409 when it is not
    /// the human's turn, 422 for a step that is not legal now.
    pub fn step(&mut self, from: &str, to: &str) -> Result<(), ApiError> {
        self.human_to_move()?;
        let from_cell = parse_square::<G>(from)?;
        let to_cell = if to == crate::view::OFF {
            None
        } else {
            Some(parse_square::<G>(to)?)
        };
        let (mut state, mut decisions) = self
            .partial
            .take()
            .unwrap_or_else(|| (G::search_state(&self.game), Vec::new()));
        let mut actions = Vec::new();
        state.legal_actions(&mut actions);
        let found = actions.iter().copied().find(|a| {
            let d = G::decision_squares(&state, a);
            d.from == from_cell && d.to == to_cell
        });
        let Some(action) = found else {
            let steps = steps_of::<G>(&state);
            let here: Vec<String> = steps
                .iter()
                .filter(|s| s.from == G::square_name(from_cell))
                .map(|s| format!("{}-{}", s.from, s.to))
                .collect();
            let all: Vec<String> = steps
                .iter()
                .map(|s| format!("{}-{}", s.from, s.to))
                .collect();
            let message = if here.is_empty() {
                format!(
                    "{from}-{to} is not a legal step; the legal steps are {}",
                    all.join(", ")
                )
            } else {
                format!(
                    "{from}-{to} is not a legal step; from {from}: {}",
                    here.join(", ")
                )
            };
            if !decisions.is_empty() {
                self.partial = Some((state, decisions));
            }
            return Err(ApiError::unprocessable(message));
        };
        let plies = G::plies(&self.game);
        state.apply(action);
        decisions.push(action);
        self.thought = None;
        if G::plies(G::game_of(&state)) > plies {
            let mv = G::complete_turn(&self.game, &decisions)
                .map_err(|e| ApiError::internal(format!("the steps make no move: {e}")))?;
            self.play_whole(&mv)
                .map_err(|e| ApiError::internal(format!("the steps make no legal move: {e}")))?;
        } else {
            self.partial = Some((state, decisions));
        }
        Ok(())
    }

    /// Plays a whole move of the human's in notation.
    ///
    /// # Errors
    ///
    /// 409 when it is not the human's turn or a move is half played, 422
    /// for text that is not a legal move.
    pub fn play_move(&mut self, text: &str) -> Result<(), ApiError> {
        self.human_to_move()?;
        if self.partial.is_some() {
            return Err(ApiError::conflict(
                "a move is in progress: finish it step by step, or undo it",
            ));
        }
        let m = G::parse_move(&self.game, text).map_err(|e| {
            ApiError::unprocessable(format!(
                "`{}`: {e}",
                text.chars().take(80).collect::<String>().escape_default()
            ))
        })?;
        self.play_whole(&m).map_err(ApiError::unprocessable)?;
        self.thought = None;
        Ok(())
    }

    /// Takes back a move in progress, or the human's last move and the
    /// bot's replies after it.
    ///
    /// # Errors
    ///
    /// 409 while the bot thinks, after a resignation, or when the human
    /// has no move to take back.
    pub fn undo(&mut self) -> Result<(), ApiError> {
        if self.thinking {
            return Err(ApiError::conflict("the bot is thinking"));
        }
        if self.resigned.is_some() {
            return Err(ApiError::conflict("the game is over: you resigned"));
        }
        if self.partial.take().is_some() {
            return Ok(());
        }
        let rules = G::rules(&self.game);
        let mut g = G::parse_position(&rules, &G::start_text(&self.game))
            .map_err(|e| ApiError::internal(format!("the game's start cannot be read: {e}")))?;
        let moves = G::history(&self.game).to_vec();
        let start = G::to_play(&g);
        let last_human = (0..moves.len()).rev().find(|&i| {
            let mover = if i % 2 == 0 { start } else { other(start) };
            mover == self.human
        });
        let Some(keep) = last_human else {
            return Err(ApiError::conflict("you have no move to take back"));
        };
        let mut promoted = false;
        for m in &moves[..keep] {
            let before = g.clone();
            G::play(&mut g, m).map_err(|e| {
                ApiError::internal(format!("the game's move `{m}` cannot be replayed: {e}"))
            })?;
            promoted = MoveView::played::<G>(&before, &g, m).promotes;
        }
        self.game = g;
        self.promoted = promoted;
        self.thought = None;
        Ok(())
    }
}

impl<G: GameDef> GameSession for Session<G> {
    fn view(&self, id: &str) -> GameView {
        let state = self.state_now();
        let reason = match self.resigned {
            Some(p) => Some(format!("{} resigned", side_name::<G>(p))),
            None if self.partial.is_none() => {
                G::termination(&self.game).map(|t| termination_text(&t))
            }
            None => None,
        };
        let moves: Vec<MoveView> = G::history(&self.game)
            .iter()
            .map(MoveView::of::<G>)
            .collect();
        let mut last = moves.last().cloned();
        if let Some(l) = &mut last {
            l.promotes = self.promoted;
        }
        GameView {
            id: id.to_owned(),
            game: G::NAME,
            geometry: geometry_of::<G>(),
            rules: G::rules(&self.game).to_string(),
            start: G::start_text(&self.game),
            position: G::position_text(&self.game),
            turn: side_key::<G>(G::to_play(&self.game)).to_owned(),
            human: side_key::<G>(self.human).to_owned(),
            state: self.turn_now(),
            board: board_of_state::<G>(&state),
            pending: self.pending(),
            legal: if self.over() {
                Vec::new()
            } else {
                steps_of::<G>(&state)
            },
            last,
            moves,
            result: result_text(self.result()),
            reason,
            record: self.record(),
            bot: BotView {
                id: self.bot.id.clone(),
                strength: self.bot.strength,
            },
            thinking: self.thinking,
            thought: self.thought.clone(),
        }
    }

    fn turn(&self) -> Turn {
        self.turn_now()
    }

    fn thinking(&self) -> bool {
        self.thinking
    }

    fn step(&mut self, from: &str, to: &str) -> Result<(), ApiError> {
        Session::step(self, from, to)
    }

    fn play_move(&mut self, text: &str) -> Result<(), ApiError> {
        Session::play_move(self, text)
    }

    fn undo(&mut self) -> Result<(), ApiError> {
        Session::undo(self)
    }

    fn resign(&mut self) -> Result<(), ApiError> {
        if self.thinking {
            return Err(ApiError::conflict("the bot is thinking"));
        }
        if self.over() {
            return Err(ApiError::conflict("the game is over"));
        }
        self.partial = None;
        self.resigned = Some(self.human);
        Ok(())
    }

    fn start_bot(&mut self, pool: &BotPool) -> Result<BotFuture, ApiError> {
        if self.thinking {
            return Err(ApiError::conflict("the bot is already thinking"));
        }
        match self.turn_now() {
            Turn::Bot => {}
            Turn::Human => return Err(ApiError::conflict("it is your turn, not the bot's")),
            Turn::Over => return Err(ApiError::conflict("the game is over")),
        }
        let think = pool.think::<G>(self.bot.spec.clone(), self.game.clone(), self.bot.limit);
        self.thinking = true;
        Ok(Box::pin(async move {
            let thought = think.await?;
            Ok(Box::new(thought) as ErasedThought)
        }))
    }

    fn finish_bot(&mut self, result: Result<ErasedThought, ApiError>) -> Result<(), ApiError> {
        self.thinking = false;
        let thought = result?
            .downcast::<Thought<G::Move>>()
            .map_err(|_| ApiError::internal("the bot answered for another game"))?;
        self.play_whole(&thought.best)
            .map_err(|e| ApiError::internal(format!("the bot chose an illegal move: {e}")))?;
        self.thought = Some(ThoughtView::of::<G>(&self.bot.id, &thought));
        Ok(())
    }
}

/// A side's name as a tag name (one word).
fn tag_name(name: &str) -> String {
    name.split_whitespace()
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

fn other(p: Player) -> Player {
    match p {
        Player::First => Player::Second,
        Player::Second => Player::First,
    }
}

/// The cell of a square named in a request.
///
/// # Errors
///
/// 400 naming the text and the board's squares.
pub fn parse_square<G: GameDef>(text: &str) -> Result<usize, ApiError> {
    let g = G::geometry();
    let cells = usize::from(g.width) * usize::from(g.height);
    let t = text.trim().to_ascii_lowercase();
    (0..cells).find(|&c| G::square_name(c) == t).ok_or_else(|| {
        let mut names: Vec<String> = (0..cells).map(G::square_name).collect();
        names.sort();
        ApiError::bad_request(format!(
            "`{}` is not a square of the {} board ({} … {})",
            text.chars().take(16).collect::<String>().escape_default(),
            G::TITLE,
            names.first().map_or("", String::as_str),
            names.last().map_or("", String::as_str),
        ))
    })
}

/// A side named in a request: its key or name (`white`, `Defenders`), or
/// the key's first letter (`w`), ignoring case; the first side if none.
///
/// # Errors
///
/// 400 naming the text and the game's sides.
pub fn parse_side<G: GameDef>(text: Option<&str>) -> Result<Player, ApiError> {
    let sides = G::geometry().sides;
    let Some(t) = text.map(str::trim) else {
        return Ok(Player::First);
    };
    let is = |i: usize| {
        let s = sides[i];
        t.eq_ignore_ascii_case(s.key)
            || t.eq_ignore_ascii_case(s.name)
            || (t.len() == 1 && s.key.get(..1).is_some_and(|c| t.eq_ignore_ascii_case(c)))
    };
    if is(0) {
        Ok(Player::First)
    } else if is(1) {
        Ok(Player::Second)
    } else {
        Err(ApiError::bad_request(format!(
            "`{}` is not a side of {}: {} or {}",
            t.chars().take(32).collect::<String>().escape_default(),
            G::TITLE,
            sides[0].key,
            sides[1].key
        )))
    }
}

/// Rules text from a request, parsed (`None` when none was given).
///
/// # Errors
///
/// 400 naming what does not parse.
pub fn parse_rules<G: GameDef>(rules: Option<&str>) -> Result<Option<G::Rules>, ApiError> {
    rules
        .map(|r| G::parse_rules(r).map_err(|e| ApiError::bad_request(format!("{}: {e}", G::TITLE))))
        .transpose()
}

/// A game set up from text: a position (`startpos` by default) under
/// `rules`, or a whole game record (which carries its own rules and
/// start), with the record's tags and result.
///
/// # Errors
///
/// 400 with the parser's words when the text is neither.
pub fn setup_record<G: GameDef>(
    text: Option<&str>,
    rules: G::Rules,
) -> Result<crate::record::Record<G>, ApiError> {
    let text = text
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or("startpos");
    if text.len() > 1 << 16 {
        return Err(ApiError::bad_request("the position or record is too long"));
    }
    match G::parse_position(&rules, text) {
        Ok(game) => Ok(crate::record::Record {
            tags: Vec::new(),
            game,
            result: None,
        }),
        Err(pos_err) => match crate::record::read::<G>(text, Some(rules)) {
            Ok(rec) => Ok(rec),
            Err(rec_err) => {
                let looks_like_record = text.contains('[') || text.contains('.');
                Err(ApiError::bad_request(if looks_like_record {
                    format!("not a game record: {rec_err}")
                } else {
                    format!("not a position: {pos_err}")
                }))
            }
        },
    }
}

/// [`setup_record`]'s game.
///
/// # Errors
///
/// As [`setup_record`].
pub fn setup<G: GameDef>(text: Option<&str>, rules: G::Rules) -> Result<G::Game, ApiError> {
    setup_record::<G>(text, rules).map(|r| r.game)
}

struct Entry {
    session: Box<dyn GameSession>,
    touched: Instant,
}

/// The games in play.
pub struct Games {
    map: Mutex<HashMap<String, Entry>>,
    max: usize,
    idle: Duration,
}

impl std::fmt::Debug for Games {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Games")
            .field("max", &self.max)
            .field("idle", &self.idle)
            .finish_non_exhaustive()
    }
}

impl Games {
    /// A store of at most `max` games, each dropped after `idle` without a
    /// request.
    pub fn new(max: usize, idle: Duration) -> Games {
        Games {
            map: Mutex::new(HashMap::new()),
            max: max.max(1),
            idle,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds a game and returns its id.
    ///
    /// # Errors
    ///
    /// 429 when the store is full of games in use.
    pub fn insert(&self, session: Box<dyn GameSession>) -> Result<String, ApiError> {
        let mut map = self.lock();
        if map.len() >= self.max {
            let idle = self.idle;
            map.retain(|_, e| e.session.thinking() || e.touched.elapsed() < idle);
        }
        if map.len() >= self.max {
            return Err(ApiError::too_many(format!(
                "the server holds {} games, its limit: try again later",
                map.len()
            )));
        }
        let mut bytes = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        map.insert(
            id.clone(),
            Entry {
                session,
                touched: Instant::now(),
            },
        );
        Ok(id)
    }

    /// Runs `f` on the game `id`.
    ///
    /// # Errors
    ///
    /// 404 for an unknown (or expired) game; `f`'s errors.
    pub fn with<R>(
        &self,
        id: &str,
        f: impl FnOnce(&mut dyn GameSession) -> Result<R, ApiError>,
    ) -> Result<R, ApiError> {
        let mut map = self.lock();
        let Some(entry) = map.get_mut(id) else {
            return Err(ApiError::not_found(format!(
                "no game `{}` (games are dropped after {} minutes without a move)",
                id.chars().take(64).collect::<String>().escape_default(),
                self.idle.as_secs() / 60
            )));
        };
        entry.touched = Instant::now();
        f(entry.session.as_mut())
    }

    /// How many games are held.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no game is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_bot::BotSpec;
    use dama_draughts::Draughts;
    use dama_eval::PlayerSpec;
    use dama_tafl::Tafl;

    fn chosen() -> Chosen {
        Chosen {
            id: "random".into(),
            game: dama_nn::GameName::default(),
            spec: BotSpec::Player(PlayerSpec::Random),
            limit: None,
            strength: Strength::default(),
        }
    }

    fn bot_plays<G: GameDef>(s: &mut Session<G>) {
        s.thinking = true;
        let best = G::legal_moves(&s.game)[0].clone();
        let thought = Thought {
            best: best.clone(),
            eval: None,
            network: None,
            score: None,
            pv: vec![best],
            top: Vec::new(),
            nodes: 0,
            elapsed: Duration::ZERO,
            tablebase: None,
        };
        s.finish_bot(Ok(Box::new(thought))).unwrap();
    }

    #[test]
    fn steps_undo_and_turns() {
        let game = setup::<Draughts>(Some("W:Wc4,a2:Bc5,d6,h7"), Default::default()).unwrap();
        let mut s = Session::<Draughts>::new(game, Player::First, chosen());
        assert_eq!(s.turn(), Turn::Human);
        assert_eq!(s.step("c4", "c5").unwrap_err().status.as_u16(), 422);
        assert_eq!(s.step("z9", "c5").unwrap_err().status.as_u16(), 400);
        s.step("c4", "c6").unwrap();
        assert!(s.view("x").pending.is_some());
        // Undo of a capture in progress drops only the capture.
        s.undo().unwrap();
        assert!(s.view("x").pending.is_none());
        assert_eq!(Draughts::plies(&s.game), 0);
        s.step("c4", "c6").unwrap();
        s.step("c6", "e6").unwrap();
        assert_eq!(s.turn(), Turn::Bot);
        assert_eq!(s.play_move("h7-h6").unwrap_err().status.as_u16(), 409);
        bot_plays(&mut s);
        assert_eq!(s.turn(), Turn::Human);
        s.undo().unwrap();
        assert_eq!(Draughts::plies(&s.game), 0);
        assert_eq!(s.undo().unwrap_err().status.as_u16(), 409);
        GameSession::resign(&mut s).unwrap();
        assert_eq!(s.view("x").result, "0-1");
        assert_eq!(s.turn(), Turn::Over);
    }

    #[test]
    fn tafl_steps_chains_and_exits() {
        let game = setup::<Tafl>(None, Default::default()).unwrap();
        let mut s = Session::<Tafl>::new(game, Player::First, chosen());
        let v = s.view("x");
        assert_eq!((v.geometry.width, v.geometry.height), (8, 4));
        assert_eq!(v.turn, "defender");
        s.step("c5", "c4").unwrap();
        assert_eq!(s.turn(), Turn::Bot);
        bot_plays(&mut s);
        assert_eq!(Tafl::plies(&s.game), 2);
        assert_eq!(s.play_move("a1-a3").unwrap_err().status.as_u16(), 422);
        assert_eq!(s.step("e9", "a1").unwrap_err().status.as_u16(), 400);
        s.undo().unwrap();
        assert_eq!(Tafl::plies(&s.game), 0);
        assert_eq!(
            parse_side::<Tafl>(Some("king_side")).unwrap(),
            Player::Second
        );
        assert!(parse_side::<Tafl>(Some("white")).is_err());
    }

    #[test]
    fn setups_from_text() {
        let d = Default::default();
        assert!(setup::<Draughts>(None, d).is_ok());
        assert!(setup::<Draughts>(Some("1. d3-d4 d6-d5 *"), d).is_ok());
        for bad in ["W:Wz9", "1. d3-d5 *", "[Tag", "nonsense"] {
            assert_eq!(
                setup::<Draughts>(Some(bad), d).unwrap_err().status.as_u16(),
                400,
                "{bad}"
            );
        }
        assert_eq!(
            parse_rules::<Draughts>(Some("promotion=never"))
                .unwrap_err()
                .status
                .as_u16(),
            400
        );
        assert!(setup::<Tafl>(Some("1. c5-c4 *"), Default::default()).is_ok());
    }
}
