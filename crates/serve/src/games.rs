//! The games being played: one per browser tab (or API client), kept in
//! memory under an unguessable id, dropped when idle for long or when the
//! store is full of older idle games.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use dama_engine::{Color, Game, GameRecord, Position, Rules, Square, StepResult};
use rand::RngCore;
use serde::Serialize;

use crate::bots::{Chosen, Strength};
use crate::error::ApiError;
use crate::view::{
    board_of_game, pending_of, result_text, steps_of, termination_text, MoveView, PendingView,
    PieceView, StepView, ThoughtView,
};

/// One game.
#[derive(Debug)]
pub struct Session {
    /// The game.
    pub game: Game,
    /// The human's colour.
    pub human: Color,
    /// The bot and its strength.
    pub bot: Chosen,
    /// The side that resigned.
    pub resigned: Option<Color>,
    /// What the bot thought about its last move.
    pub thought: Option<ThoughtView>,
    /// Whether the bot is thinking now (the game then takes no moves).
    pub thinking: bool,
    touched: Instant,
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
    /// The rules, as text.
    pub rules: String,
    /// The start position.
    pub start: String,
    /// The position now (before a capture in progress).
    pub position: String,
    /// The side to move.
    pub turn: String,
    /// The human's colour.
    pub human: String,
    /// Whose turn it is.
    pub state: Turn,
    /// The pieces as they stand (a capture in progress included).
    pub board: Vec<PieceView>,
    /// A capture in progress.
    pub pending: Option<PendingView>,
    /// The legal next steps (the forced continuation of a capture in
    /// progress).
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

impl Session {
    /// A new game.
    pub fn new(game: Game, human: Color, bot: Chosen) -> Session {
        Session {
            game,
            human,
            bot,
            resigned: None,
            thought: None,
            thinking: false,
            touched: Instant::now(),
        }
    }

    fn over(&self) -> bool {
        self.resigned.is_some()
            || (self.game.pending_capture().is_none() && self.game.is_game_over())
    }

    /// Whose turn it is.
    pub fn turn(&self) -> Turn {
        if self.over() {
            Turn::Over
        } else if self.game.turn() == self.human {
            Turn::Human
        } else {
            Turn::Bot
        }
    }

    fn record(&self) -> GameRecord {
        let mut rec = GameRecord::from_game(&self.game);
        let (white, black) = if self.human == Color::White {
            ("you".to_owned(), self.bot.id.clone())
        } else {
            (self.bot.id.clone(), "you".to_owned())
        };
        rec.tags = vec![
            ("Event".into(), "dama serve".into()),
            ("White".into(), white),
            ("Black".into(), black),
        ];
        if let Some(loser) = self.resigned {
            rec.result = Some(dama_engine::Outcome::Decisive { winner: !loser });
            rec.tags
                .push(("Termination".into(), format!("{loser} resigned")));
        }
        rec
    }

    /// The game's view.
    pub fn view(&self, id: &str) -> GameView {
        let rec = self.record();
        let reason = match self.resigned {
            Some(c) => Some(format!("{c} resigned")),
            None if self.game.pending_capture().is_none() => self
                .game
                .termination()
                .map(|(_, t)| termination_text(t).to_owned()),
            None => None,
        };
        let moves: Vec<MoveView> = self.game.moves().iter().map(MoveView::of).collect();
        GameView {
            id: id.to_owned(),
            rules: self.game.rules().to_string(),
            start: self.game.start_position().to_string(),
            position: self.game.position().to_string(),
            turn: self.game.turn().to_string(),
            human: self.human.to_string(),
            state: self.turn(),
            board: board_of_game(&self.game),
            pending: pending_of(&self.game),
            legal: if self.over() {
                Vec::new()
            } else {
                steps_of(&self.game)
            },
            last: moves.last().cloned(),
            moves,
            result: result_text(rec.result),
            reason,
            record: rec.to_string(),
            bot: BotView {
                id: self.bot.id.clone(),
                strength: self.bot.strength,
            },
            thinking: self.thinking,
            thought: self.thought.clone(),
        }
    }

    fn human_to_move(&self) -> Result<(), ApiError> {
        if self.thinking {
            return Err(ApiError::conflict("the bot is thinking"));
        }
        match self.turn() {
            Turn::Human => Ok(()),
            Turn::Bot => Err(ApiError::conflict("it is the bot's turn")),
            Turn::Over => Err(ApiError::conflict("the game is over")),
        }
    }

    /// Plays one step of the human's move: a quiet move, or one jump of a
    /// capture (then the capture goes on from the landing square until the
    /// maximum rule is satisfied).
    ///
    /// # Errors
    ///
    /// 400 for a square that is not one, 409 when it is not the human's
    /// turn, 422 for a step that is not legal now.
    pub fn step(&mut self, from: &str, to: &str) -> Result<(), ApiError> {
        self.human_to_move()?;
        let from_sq = parse_square(from)?;
        let to_sq = parse_square(to)?;
        let legal = self.game.legal_steps();
        let Some(&step) = legal.iter().find(|s| s.from == from_sq && s.to == to_sq) else {
            let here: Vec<String> = legal
                .iter()
                .filter(|s| s.from == from_sq)
                .map(ToString::to_string)
                .collect();
            let all: Vec<String> = legal.iter().map(ToString::to_string).collect();
            return Err(ApiError::unprocessable(if here.is_empty() {
                format!(
                    "{from_sq}-{to_sq} is not a legal step; the legal steps are {}",
                    all.join(", ")
                )
            } else {
                format!(
                    "{from_sq}-{to_sq} is not a legal step; from {from_sq}: {}",
                    here.join(", ")
                )
            }));
        };
        match self.game.play_step(step) {
            Ok(StepResult::InProgress | StepResult::Completed(_)) => {
                self.thought = None;
                Ok(())
            }
            Err(e) => Err(ApiError::unprocessable(e.to_string())),
        }
    }

    /// Plays a whole move of the human's in notation.
    ///
    /// # Errors
    ///
    /// 409 when it is not the human's turn or a capture is half played,
    /// 422 for text that is not a legal move.
    pub fn play_move(&mut self, text: &str) -> Result<(), ApiError> {
        self.human_to_move()?;
        if self.game.pending_capture().is_some() {
            return Err(ApiError::conflict(
                "a capture is in progress: finish it step by step, or undo it",
            ));
        }
        let m =
            self.game.position().parse_move(text).map_err(|e| {
                ApiError::unprocessable(format!("`{}`: {e}", text.escape_default()))
            })?;
        self.game
            .play(&m)
            .map_err(|e| ApiError::unprocessable(e.to_string()))?;
        self.thought = None;
        Ok(())
    }

    /// Takes back a capture in progress, or the human's last move and the
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
        if self.game.pending_capture().is_some() {
            // Undo drops the capture in progress with the last move: play
            // that move again.
            if let Some(m) = self.game.undo() {
                self.game.play_unchecked(&m);
            }
            return Ok(());
        }
        // Find the human's last move: moves alternate from the start's
        // side to move.
        let start = self.game.start_position().turn();
        let n = self.game.moves().len();
        let last_human = (0..n).rev().find(|&i| {
            let mover = if i % 2 == 0 { start } else { !start };
            mover == self.human
        });
        let Some(keep) = last_human else {
            return Err(ApiError::conflict("you have no move to take back"));
        };
        while self.game.moves().len() > keep {
            self.game.undo();
        }
        self.thought = None;
        Ok(())
    }

    /// The human resigns.
    ///
    /// # Errors
    ///
    /// 409 when the game is over or the bot thinks.
    pub fn resign(&mut self) -> Result<(), ApiError> {
        if self.thinking {
            return Err(ApiError::conflict("the bot is thinking"));
        }
        if self.over() {
            return Err(ApiError::conflict("the game is over"));
        }
        self.resigned = Some(self.human);
        Ok(())
    }

    /// Starts the bot's turn: the game and the bot to think with. The
    /// session is marked thinking until [`Session::finish_bot`].
    ///
    /// # Errors
    ///
    /// 409 when it is not the bot's turn or the bot already thinks.
    pub fn start_bot(&mut self) -> Result<(Game, Chosen), ApiError> {
        if self.thinking {
            return Err(ApiError::conflict("the bot is already thinking"));
        }
        match self.turn() {
            Turn::Bot => {}
            Turn::Human => return Err(ApiError::conflict("it is your turn, not the bot's")),
            Turn::Over => return Err(ApiError::conflict("the game is over")),
        }
        self.thinking = true;
        Ok((self.game.clone(), self.bot.clone()))
    }

    /// Ends the bot's turn with what it found.
    ///
    /// # Errors
    ///
    /// The bot's error; 500 if its move is not legal (a bug).
    pub fn finish_bot(
        &mut self,
        result: Result<dama_bot::Thought<dama_draughts::Draughts>, ApiError>,
    ) -> Result<(), ApiError> {
        self.thinking = false;
        let thought = result?;
        self.game
            .play(&thought.best)
            .map_err(|e| ApiError::internal(format!("the bot chose an illegal move: {e}")))?;
        self.thought = Some(ThoughtView::of(&self.bot.id, &thought));
        Ok(())
    }
}

/// Parses a square of a request.
///
/// # Errors
///
/// 400 naming the text.
pub fn parse_square(text: &str) -> Result<Square, ApiError> {
    text.parse().map_err(|_| {
        ApiError::bad_request(format!(
            "`{}` is not a square (a1..h8)",
            text.escape_default()
        ))
    })
}

/// A game set up from text: a position (`W:Wa2,…:B…` or `startpos`) under
/// `rules`, or a whole game record (which carries its own rules and
/// start).
///
/// # Errors
///
/// 400 with the parser's words when the text is neither.
pub fn setup(text: Option<&str>, rules: Option<&str>) -> Result<Game, ApiError> {
    setup_with(text, parse_rules(rules)?.unwrap_or_default())
}

/// Rules text from a request, parsed (`None` when none was given).
///
/// # Errors
///
/// 400 naming what does not parse.
pub fn parse_rules(rules: Option<&str>) -> Result<Option<Rules>, ApiError> {
    rules
        .map(|r| r.parse().map_err(|e| ApiError::bad_request(format!("{e}"))))
        .transpose()
}

/// [`setup`] under rules already parsed.
///
/// # Errors
///
/// As [`setup`].
pub fn setup_with(text: Option<&str>, rules: Rules) -> Result<Game, ApiError> {
    let text = text
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or("startpos");
    // The variant's own initial position and piece counts.
    match Position::from_str_with_rules(text, rules) {
        Ok(pos) => Ok(Game::from_position(pos)),
        Err(pos_err) => match text.parse::<GameRecord>() {
            Ok(rec) => Ok(rec.game),
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

/// The games in play.
#[derive(Debug)]
pub struct Games {
    map: Mutex<HashMap<String, Session>>,
    max: usize,
    idle: Duration,
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

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds a game and returns its id.
    ///
    /// # Errors
    ///
    /// 429 when the store is full of games in use.
    pub fn insert(&self, session: Session) -> Result<String, ApiError> {
        let mut map = self.lock();
        if map.len() >= self.max {
            let idle = self.idle;
            map.retain(|_, s| s.thinking || s.touched.elapsed() < idle);
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
        map.insert(id.clone(), session);
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
        f: impl FnOnce(&mut Session) -> Result<R, ApiError>,
    ) -> Result<R, ApiError> {
        let mut map = self.lock();
        let Some(session) = map.get_mut(id) else {
            return Err(ApiError::not_found(format!(
                "no game `{}` (games are dropped after {} minutes without a move)",
                id.chars().take(64).collect::<String>().escape_default(),
                self.idle.as_secs() / 60
            )));
        };
        session.touched = Instant::now();
        f(session)
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
    use dama_eval::PlayerSpec;

    fn session(game: Game, human: Color) -> Session {
        Session::new(
            game,
            human,
            Chosen {
                id: "random".into(),
                spec: BotSpec::Player(PlayerSpec::Random),
                limit: None,
                strength: Strength::default(),
            },
        )
    }

    #[test]
    fn steps_undo_and_turns() {
        let game = setup(Some("W:Wc4,a2:Bc5,d6,h7"), None).unwrap();
        let mut s = session(game, Color::White);
        assert_eq!(s.turn(), Turn::Human);
        assert_eq!(s.step("c4", "c5").unwrap_err().status.as_u16(), 422);
        assert_eq!(s.step("z9", "c5").unwrap_err().status.as_u16(), 400);
        s.step("c4", "c6").unwrap();
        assert!(s.view("x").pending.is_some());
        // Undo of a capture in progress drops only the capture.
        s.undo().unwrap();
        assert!(s.view("x").pending.is_none());
        assert_eq!(s.game.moves().len(), 0);
        s.step("c4", "c6").unwrap();
        s.step("c6", "e6").unwrap();
        assert_eq!(s.turn(), Turn::Bot);
        assert_eq!(s.play_move("h7-h6").unwrap_err().status.as_u16(), 409);
        let (game, _) = s.start_bot().unwrap();
        assert_eq!(s.undo().unwrap_err().status.as_u16(), 409);
        let m = game.legal_moves()[0];
        s.finish_bot(Ok(dama_bot::Thought::<dama_draughts::Draughts> {
            best: m,
            eval: None,
            network: None,
            score_cm: None,
            pv: vec![m],
            top: Vec::new(),
            nodes: 0,
            elapsed: Duration::ZERO,
            tablebase: None,
        }))
        .unwrap();
        assert_eq!(s.turn(), Turn::Human);
        s.undo().unwrap();
        assert_eq!(s.game.moves().len(), 0);
        assert_eq!(s.undo().unwrap_err().status.as_u16(), 409);
        s.resign().unwrap();
        assert_eq!(s.view("x").result, "0-1");
        assert_eq!(s.turn(), Turn::Over);
    }

    #[test]
    fn setups_from_text() {
        assert!(setup(None, None).is_ok());
        assert!(setup(Some("1. d3-d4 d6-d5 *"), None).is_ok());
        assert!(setup(Some("W:Wd4:Bh7"), Some("no_capture_limit=off")).is_ok());
        for bad in ["W:Wz9", "1. d3-d5 *", "[Tag", "nonsense"] {
            assert_eq!(
                setup(Some(bad), None).unwrap_err().status.as_u16(),
                400,
                "{bad}"
            );
        }
        assert_eq!(
            setup(None, Some("promotion=never"))
                .unwrap_err()
                .status
                .as_u16(),
            400
        );
    }
}
