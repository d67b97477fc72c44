//! [`MiniState`]: the game as the search sees it, one [`Step`] per
//! decision, so a capture is decided jump by jump by the same player.

use dama_mcts::{Game as SearchGame, Outcome, Player};

use crate::board::{Position, Square};
use crate::game::{player, Game};
use crate::moves::{Move, Step};

/// A game and the steps already decided in the turn in progress (a capture
/// decided jump by jump). Its legal actions are the next steps of the
/// legal moves that begin with those steps; the move is played once its
/// last step is.
#[derive(Clone, Debug)]
pub struct MiniState {
    game: Game,
    steps: Vec<Step>,
}

impl MiniState {
    /// The state at the current position of `game`, at a move boundary.
    #[must_use]
    pub fn new(game: Game) -> MiniState {
        MiniState {
            game,
            steps: Vec::new(),
        }
    }

    /// The game (at the start of the turn in progress).
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The steps decided so far in the turn in progress.
    #[must_use]
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The board as it stands mid-turn: the steps decided so far played
    /// (jumped pieces gone, the moving piece on its current square).
    #[must_use]
    pub fn board(&self) -> Position {
        let p = *self.game.position();
        self.steps.iter().fold(p, |p, &s| p.after_step(s))
    }

    /// The square of the piece in the middle of a capture, and the square
    /// its last jump started from.
    #[must_use]
    pub fn capturing(&self) -> Option<(Square, Square)> {
        self.steps.last().map(|s| (s.to, s.from))
    }

    /// The legal moves that begin with the steps decided so far.
    fn continuations(&self) -> impl Iterator<Item = Move> + '_ {
        let n = self.steps.len();
        let moves = self.game.legal_moves().into_iter();
        moves.filter(move |m| m.steps().len() > n && m.steps()[..n] == self.steps[..])
    }
}

impl SearchGame for MiniState {
    type Action = Step;

    fn to_play(&self) -> Player {
        player(self.game.turn())
    }

    fn legal_actions(&self, out: &mut Vec<Step>) {
        let n = self.steps.len();
        for m in self.continuations() {
            if !out.contains(&m.steps()[n]) {
                out.push(m.steps()[n]);
            }
        }
    }

    fn apply(&mut self, action: Step) {
        self.steps.push(action);
        let done = self
            .game
            .legal_moves()
            .into_iter()
            .find(|m| m.steps() == self.steps);
        if let Some(m) = done {
            let played = self.game.play(&m);
            debug_assert!(played.is_ok(), "{m} was legal");
            self.steps.clear();
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.steps.is_empty() {
            self.game.outcome()
        } else {
            None
        }
    }

    /// The pieces, side to move and capture in progress (where the moving
    /// piece stands and where its last jump came from).
    fn hash(&self) -> u64 {
        let sq = |s: Option<Square>| s.map_or(0, |s| s.index() as u64 + 1);
        let (at, came) = self.capturing().unzip();
        let capture = sq(at) << 8 | sq(came);
        self.board().hash() ^ capture.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// The hash with the counters the network sees (repetitions, plies
    /// without capture).
    fn eval_key(&self) -> u64 {
        let counters =
            (self.game.plies_since_capture() as u64) << 8 | self.game.repetitions().min(255) as u64;
        self.hash() ^ counters.wrapping_mul(0xff51_afd7_ed55_8ccd)
    }
}
