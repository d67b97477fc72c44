//! [`Game`]: a game in progress, with its history and draw rules.

use dama_game::EndReason;
use dama_mcts::{Outcome, Player};

use crate::board::{Color, Position};
use crate::moves::Move;
use crate::{MiniError, MiniRules};

/// A game: its rules, start position, moves played and what the draw rules
/// count (plies without a capture, the positions since the last capture).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    rules: MiniRules,
    start: Position,
    position: Position,
    moves: Vec<Move>,
    since_capture: u16,
    /// Hashes of the positions since the last capture, the current one last
    /// (no position before a capture can come back).
    seen: Vec<u64>,
}

impl Game {
    /// A game from the start position.
    #[must_use]
    pub fn new(rules: MiniRules) -> Game {
        Game::from_position(rules, Position::start())
    }

    /// A game from `position`, with nothing counted yet.
    #[must_use]
    pub fn from_position(rules: MiniRules, position: Position) -> Game {
        Game {
            rules,
            start: position,
            position,
            moves: Vec::new(),
            since_capture: 0,
            seen: vec![position.hash()],
        }
    }

    /// The rules.
    #[must_use]
    pub fn rules(&self) -> &MiniRules {
        &self.rules
    }

    /// The position now.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The position the game started from.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The moves played.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The side to move.
    #[must_use]
    pub fn turn(&self) -> Color {
        self.position.turn()
    }

    /// Plies played since the last capture (or the start).
    #[must_use]
    pub fn plies_since_capture(&self) -> u16 {
        self.since_capture
    }

    /// How many times the current position has occurred (1 the first time).
    #[must_use]
    pub fn repetitions(&self) -> usize {
        let now = self.position.hash();
        self.seen.iter().filter(|&&h| h == now).count()
    }

    /// The result if the game is over (see [`Game::termination`]).
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        self.termination().map(|(o, _, _)| o)
    }

    /// The result and why, if the game is over, in this order: a side
    /// without pieces loses (`no pieces`); one piece each is a draw if the
    /// rule is on (`one piece each`); a side without a legal move loses
    /// (`no legal move`), unless neither side could move (a draw,
    /// `neither side can move`); the third occurrence of a position
    /// (`repetition`) and the no-capture limit (`no-capture limit`) are
    /// draws.
    #[must_use]
    pub fn termination(&self) -> Option<(Outcome, EndReason, &'static str)> {
        let p = &self.position;
        let (us, them) = (p.turn(), p.turn().other());
        let win = |c: Color, why| Some((Outcome::Win(player(c)), EndReason::NoMoves, why));
        let (ours, theirs) = (p.count(us), p.count(them));
        if ours == 0 || theirs == 0 {
            return win(if ours == 0 { them } else { us }, "no pieces");
        }
        if self.rules.one_piece_each && ours == 1 && theirs == 1 {
            return Some((Outcome::Draw, EndReason::Other, "one piece each"));
        }
        if p.legal_moves().is_empty() {
            let mut other = *p;
            other.set_turn(them);
            return if other.legal_moves().is_empty() {
                Some((Outcome::Draw, EndReason::Other, "neither side can move"))
            } else {
                win(them, "no legal move")
            };
        }
        if self.repetitions() >= 3 {
            return Some((Outcome::Draw, EndReason::Repetition, "repetition"));
        }
        if self
            .rules
            .no_capture_limit
            .is_some_and(|l| self.since_capture >= l)
        {
            return Some((Outcome::Draw, EndReason::NoCaptureLimit, "no-capture limit"));
        }
        None
    }

    /// The legal moves; none once the game is over.
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        self.position.legal_moves()
    }

    /// Plays `m`.
    ///
    /// # Errors
    ///
    /// [`MiniError::Illegal`] if `m` is not legal here (nothing is played).
    pub fn play(&mut self, m: &Move) -> Result<(), MiniError> {
        if !self.legal_moves().contains(m) {
            return Err(MiniError::Illegal(m.to_string()));
        }
        self.position = self.position.after_move(m);
        if m.is_capture() {
            self.since_capture = 0;
            self.seen.clear();
        } else {
            self.since_capture = self.since_capture.saturating_add(1);
        }
        self.seen.push(self.position.hash());
        self.moves.push(m.clone());
        Ok(())
    }

    /// The legal move written `text` here.
    ///
    /// # Errors
    ///
    /// As [`Position::parse_move`]; [`MiniError::Illegal`] once the game is
    /// over.
    pub fn parse_move(&self, text: &str) -> Result<Move, MiniError> {
        let m = self.position.parse_move(text)?;
        match self.outcome() {
            Some(_) => Err(MiniError::Illegal(text.trim().to_owned())),
            None => Ok(m),
        }
    }
}

/// The side as a search player: White is [`Player::First`].
#[must_use]
pub(crate) fn player(color: Color) -> Player {
    match color {
        Color::White => Player::First,
        Color::Black => Player::Second,
    }
}
