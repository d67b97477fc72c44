//! A game: positions with history, repetition, and jump-by-jump capture play.

use arrayvec::ArrayVec;

use crate::error::PlayError;
use crate::movegen::{self, JumpRules, JumpState};
use crate::mv::{Path, MAX_MOVES};
use crate::outcome::{Outcome, Termination};
use crate::zobrist;
use crate::{Bitboard, Color, Move, MoveList, Position, Role, Rules, Square, Step};

/// The legal next steps of a [`Game`].
pub type StepList = ArrayVec<Step, MAX_MOVES>;

/// A capture sequence that has been started with [`Game::play_step`] but not
/// finished.
///
/// The position of the game does not change until the last jump; this value
/// describes the board in between (the moving piece on [`square`], the
/// [`captured`] pieces already gone).
///
/// [`square`]: PendingCapture::square
/// [`captured`]: PendingCapture::captured
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PendingCapture {
    origin: Square,
    role: Role,
    state: JumpState,
    captured: Bitboard,
    path: Path,
    remaining: u32,
    remove_at_end: bool,
}

impl PendingCapture {
    /// Where the moving piece started.
    pub fn origin(&self) -> Square {
        self.origin
    }

    /// Where the moving piece stands now.
    pub fn square(&self) -> Square {
        self.state.at
    }

    /// The colour of the moving piece.
    pub fn color(&self) -> Color {
        self.state.color
    }

    /// The role the moving piece started with.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Whether the piece now captures as a king (a king, or a man crowned
    /// mid-capture under [`MidCapturePromotion::ContinueAsKing`]).
    ///
    /// [`MidCapturePromotion::ContinueAsKing`]: crate::MidCapturePromotion::ContinueAsKing
    pub fn captures_as_king(&self) -> bool {
        self.state.king
    }

    /// The pieces captured so far. Under Turkish and Armenian rules (and
    /// Croda with [`CaptureRemoval::Immediate`]) they are already off the
    /// board; under Croda and Dameo they stay as obstacles until the move ends
    /// (see [`PendingCapture::removes_at_end`]).
    ///
    /// [`CaptureRemoval::Immediate`]: crate::CaptureRemoval::Immediate
    pub fn captured(&self) -> Bitboard {
        self.captured
    }

    /// Whether the captured pieces stay on the board, as obstacles that
    /// cannot be jumped again, until the move ends.
    pub fn removes_at_end(&self) -> bool {
        self.remove_at_end
    }

    /// The landing squares so far.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The direction of the last jump (the next jump may not reverse it).
    pub fn last_direction(&self) -> Option<crate::Direction> {
        self.state.last
    }

    /// How many more pieces the maximum rule requires this sequence to take.
    pub fn remaining(&self) -> u32 {
        self.remaining
    }

    /// The pieces of `color` mid-capture: captured pieces left out (whether
    /// or not they still stand, see [`PendingCapture::removes_at_end`]), the
    /// moving piece on its current square.
    pub fn pieces(&self, pos: &Position, color: Color) -> Bitboard {
        if color == self.state.color {
            pos.pieces(color).without(self.origin).with(self.state.at)
        } else {
            pos.pieces(color) - self.captured
        }
    }

    fn hash_key(&self) -> u64 {
        let mut h = zobrist::pending_at(self.state.at);
        for sq in self.captured {
            h ^= zobrist::pending_captured(sq);
        }
        if let Some(d) = self.state.last {
            h ^= zobrist::pending_dir(d);
        }
        if self.state.king {
            h ^= zobrist::pending_king();
        }
        h
    }
}

/// What [`Game::play_step`] did.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum StepResult {
    /// The step was a jump and the capture goes on: the same side plays the
    /// next step.
    InProgress,
    /// The move is complete and has been played; the other side is to move.
    Completed(Move),
}

/// A game: the current [`Position`], the moves played, the history the
/// repetition rule needs, and an optional capture in progress.
///
/// # Examples
///
/// ```
/// use dama_engine::{Game, Outcome};
///
/// let mut game = Game::new();
/// while game.outcome().is_none() && game.moves().len() < 20 {
///     let m = game.legal_moves()[0];
///     game.play(&m)?;
/// }
/// assert_eq!(game.moves().len(), 20);
/// # Ok::<(), dama_engine::PlayError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// Hashes of every position since the start, the current one last.
    hashes: Vec<u64>,
    pending: Option<PendingCapture>,
}

impl Default for Game {
    fn default() -> Game {
        Game::new()
    }
}

impl Game {
    /// A new game from the initial position under the default rules.
    pub fn new() -> Game {
        Game::from_position(Position::startpos())
    }

    /// A new game from the initial position under `rules`.
    pub fn with_rules(rules: Rules) -> Game {
        Game::from_position(Position::startpos_with_rules(rules))
    }

    /// A new game from `position`.
    pub fn from_position(position: Position) -> Game {
        Game {
            start: position,
            position,
            moves: Vec::new(),
            hashes: vec![position.hash()],
            pending: None,
        }
    }

    /// The current position (at the start of the current turn, also while a
    /// capture is in progress).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Position {
        &self.start
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        self.position.rules()
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.position.turn()
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The legal moves of the current position (whole moves; see
    /// [`Game::legal_steps`] for jump-by-jump play).
    pub fn legal_moves(&self) -> MoveList {
        self.position.legal_moves()
    }

    /// How many times the current position (same pieces, same side to move)
    /// has occurred, this time included.
    pub fn repetitions(&self) -> usize {
        let h = self.position.hash();
        // Only positions since the last capture can repeat the current one,
        // and only every second ply has the same side to move.
        let window = usize::from(self.position.plies_since_capture()) + 1;
        self.hashes
            .iter()
            .rev()
            .take(window)
            .step_by(2)
            .filter(|&&x| x == h)
            .count()
    }

    /// Why the game is over, if it is: the rules of [`Position::termination`]
    /// plus threefold repetition.
    pub fn termination(&self) -> Option<(Outcome, Termination)> {
        if let Some(t) = self.position.termination() {
            return Some(t);
        }
        if self.repetitions() >= 3 {
            return Some((Outcome::Draw, Termination::Repetition));
        }
        None
    }

    /// The outcome, if the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.termination().map(|(o, _)| o)
    }

    /// Whether the game is over.
    pub fn is_game_over(&self) -> bool {
        self.termination().is_some()
    }

    /// A hash of the game state for search tables: the position's Zobrist
    /// hash, mixed with the capture in progress (current square, captured
    /// pieces, last direction, crowned flag) if there is one. Two states with
    /// different legal steps never share a hash by construction (barring
    /// 64-bit collisions).
    pub fn hash(&self) -> u64 {
        match &self.pending {
            None => self.position.hash(),
            Some(p) => self.position.hash() ^ p.hash_key(),
        }
    }

    /// The capture in progress, if any.
    pub fn pending_capture(&self) -> Option<&PendingCapture> {
        self.pending.as_ref()
    }

    /// Plays a whole move.
    ///
    /// # Errors
    ///
    /// [`PlayError::CaptureInProgress`] while a capture is half played,
    /// [`PlayError::GameOver`] after the end, [`PlayError::IllegalMove`] for a
    /// move not in [`Game::legal_moves`]. The game is unchanged on error.
    pub fn play(&mut self, m: &Move) -> Result<(), PlayError> {
        if self.pending.is_some() {
            return Err(PlayError::CaptureInProgress);
        }
        if self.is_game_over() {
            return Err(PlayError::GameOver);
        }
        let legal = self.position.legal_moves();
        match legal.iter().find(|x| *x == m) {
            Some(found) => {
                let found = *found;
                self.play_unchecked(&found);
                Ok(())
            }
            None => Err(PlayError::IllegalMove(m.to_string())),
        }
    }

    /// Plays a move from [`Game::legal_moves`] without checks (see
    /// [`Position::play_unchecked`]). Drops any capture in progress.
    pub fn play_unchecked(&mut self, m: &Move) {
        self.pending = None;
        self.position.play_unchecked(m);
        self.moves.push(*m);
        self.hashes.push(self.position.hash());
    }

    /// Takes back the last move (and any capture in progress). Returns the
    /// move, or `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        self.pending = None;
        let m = self.moves.pop()?;
        self.hashes.pop();
        let mut pos = self.start;
        for x in &self.moves {
            pos.play_unchecked(x);
        }
        self.position = pos;
        Some(m)
    }

    fn jump_rules(&self) -> JumpRules {
        JumpRules::new(self.position.rules())
    }

    /// The jumps from `state` that keep a maximum capture possible, with the
    /// state after each.
    fn good_jumps(&self, state: &JumpState, remaining: u32) -> ArrayVec<(Step, JumpState), 32> {
        let jr = self.jump_rules();
        movegen::jumps_from(state, jr)
            .into_iter()
            .filter(|(_, next)| 1 + movegen::max_further(next, jr) == remaining)
            .collect()
    }

    fn start_state(&self, from: Square) -> Option<(JumpState, Role)> {
        let pos = &self.position;
        let piece = pos.piece_at(from)?;
        if piece.color != pos.turn() {
            return None;
        }
        Some((
            JumpState {
                color: pos.turn(),
                at: from,
                king: piece.role == Role::King,
                occ: pos.occupied().without(from).0,
                them: pos.them().0,
                last: None,
            },
            piece.role,
        ))
    }

    /// The legal next steps: while a capture is in progress, the jumps that
    /// continue it along a maximum sequence; otherwise the first jumps of all
    /// maximum captures, or all quiet moves as single steps if there is no
    /// capture. Empty when the side to move is blocked or has no pieces.
    ///
    /// Playing any sequence of these steps to completion plays a legal move,
    /// and every legal move (every path of it) can be played this way. This
    /// does not look at draws: check [`Game::outcome`] first (after the end,
    /// [`Game::play_step`] refuses to start a new move).
    pub fn legal_steps(&self) -> StepList {
        let mut out = StepList::new();
        if let Some(p) = &self.pending {
            for (s, _) in self.good_jumps(&p.state, p.remaining) {
                let _ = out.try_push(s);
            }
            return out;
        }
        let moves = self.position.legal_moves();
        match moves.first() {
            None => {}
            Some(m) if !m.is_capture() => {
                for m in &moves {
                    let _ = out.try_push(Step {
                        from: m.from(),
                        to: m.to(),
                        captured: None,
                    });
                }
            }
            Some(m) => {
                let max = m.capture_count() as u32;
                let mut origins = Bitboard::EMPTY;
                for m in &moves {
                    origins.add(m.from());
                }
                for from in origins {
                    if let Some((state, _)) = self.start_state(from) {
                        for (s, _) in self.good_jumps(&state, max) {
                            let _ = out.try_push(s);
                        }
                    }
                }
            }
        }
        out
    }

    /// Plays one step: a quiet move, or one jump of a capture.
    ///
    /// # Errors
    ///
    /// [`PlayError::IllegalStep`] if `step` is not in [`Game::legal_steps`]
    /// (the game is then unchanged), [`PlayError::GameOver`] after the end.
    pub fn play_step(&mut self, step: Step) -> Result<StepResult, PlayError> {
        if self.pending.is_none() && self.is_game_over() {
            return Err(PlayError::GameOver);
        }
        let illegal = || PlayError::IllegalStep(step.to_string());
        let mut pending = match self.pending.take() {
            Some(p) => p,
            None => {
                if step.captured.is_none() {
                    let m = self
                        .position
                        .legal_moves()
                        .into_iter()
                        .find(|m| !m.is_capture() && m.from() == step.from && m.to() == step.to)
                        .ok_or_else(illegal)?;
                    self.play_unchecked(&m);
                    return Ok(StepResult::Completed(m));
                }
                let moves = self.position.legal_moves();
                let Some(max) = moves
                    .first()
                    .filter(|m| m.is_capture())
                    .map(|m| m.capture_count() as u32)
                else {
                    return Err(illegal());
                };
                let Some((state, role)) = self.start_state(step.from) else {
                    return Err(illegal());
                };
                PendingCapture {
                    origin: step.from,
                    role,
                    state,
                    captured: Bitboard::EMPTY,
                    path: Path::new(),
                    remaining: max,
                    remove_at_end: self.position.rules().removes_at_end(),
                }
            }
        };
        let jumps = self.good_jumps(&pending.state, pending.remaining);
        let Some(&(s, next)) = jumps.iter().find(|(s, _)| *s == step) else {
            // Restore a pending capture that was in progress.
            if !pending.path.is_empty() {
                self.pending = Some(pending);
            }
            return Err(illegal());
        };
        if let Some(c) = s.captured {
            pending.captured.add(c);
        }
        let _ = pending.path.try_push(s.to);
        pending.state = next;
        pending.remaining -= 1;
        if pending.remaining > 0 {
            self.pending = Some(pending);
            return Ok(StepResult::InProgress);
        }
        let promotes = pending.role == Role::Man
            && (pending.state.king || pending.state.at.is_promotion_row(pending.state.color));
        let built = Move::new_capture(
            pending.origin,
            &pending.path,
            pending.captured,
            pending.role,
            promotes,
        );
        // Every maximal sequence is a legal move; check it all the same so
        // that a bug can never play an illegal move.
        match built {
            Some(m) if self.position.legal_moves().contains(&m) => {
                // Record the path actually played.
                self.play_unchecked(&m);
                Ok(StepResult::Completed(m))
            }
            _ => Err(illegal()),
        }
    }
}
