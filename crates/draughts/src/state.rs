//! The Turkish draughts adapter: [`DamaState`] implements [`Game`] for
//! [`dama_engine::Game`], one [`Step`] (a quiet move or a single jump) per
//! action, so a multi-capture is decided jump by jump by the same player.
//!
//! [`search_move`] searches a whole move (every jump of a capture) and
//! [`complete_turn`] turns the steps of a turn into the move.
//!
//! Also [`MaterialEvaluator`], a network-free evaluator that counts pieces.

use std::convert::Infallible;
use std::sync::Arc;

use dama_engine::{Color, Move, Position, Role, Step, StepResult};
use dama_tablebase::{Probe, Tablebase};
use rand::Rng;

use dama_mcts::{
    search_turn, uniform, Error, Evaluation, Evaluator, Game, Leaf, Outcome, Player, SearchConfig,
    TurnPolicy, Wdl,
};

/// The engine's colour as a search player: White moves first.
#[inline]
#[must_use]
pub fn player(color: Color) -> Player {
    match color {
        Color::White => Player::First,
        Color::Black => Player::Second,
    }
}

/// The search player as the engine's colour.
#[inline]
#[must_use]
pub fn color(player: Player) -> Color {
    match player {
        Player::First => Color::White,
        Player::Second => Color::Black,
    }
}

/// A Turkish draughts game as the search sees it: a [`dama_engine::Game`]
/// (position, repetition history, capture in progress), played step by
/// step. Its hash is [`dama_engine::Game::hash`], which includes the
/// capture in progress.
///
/// With an endgame tablebase ([`DamaState::with_tablebase`]), a position
/// the tables hold (at a move boundary) is over: its
/// [`Game::outcome`] is the tables' exact result under the no-capture rule
/// (a cursed win or blessed loss is a draw), so the search treats it as a
/// terminal node with its exact value and the solver proves the lines
/// into it.
#[derive(Clone, Debug)]
pub struct DamaState {
    game: dama_engine::Game,
    tablebase: Option<Arc<Tablebase>>,
}

impl DamaState {
    /// Wraps a game (its history counts for threefold repetition).
    #[must_use]
    pub fn new(game: dama_engine::Game) -> Self {
        DamaState {
            game,
            tablebase: None,
        }
    }

    /// The same state, probing `tablebase` for its outcome (and that of
    /// every state the search reaches from it). Tables of other rules than
    /// the game's are never consulted.
    #[must_use]
    pub fn with_tablebase(mut self, tablebase: Option<Arc<Tablebase>>) -> Self {
        self.tablebase = tablebase;
        self
    }

    /// The tablebase this state probes, if any.
    #[must_use]
    pub fn tablebase(&self) -> Option<&Arc<Tablebase>> {
        self.tablebase.as_ref()
    }

    /// The tables' verdict on the position, for the side to move: `None`
    /// without tables, during a capture, once the game is over by the
    /// rules, or when the tables do not hold the position.
    #[must_use]
    pub fn probe(&self) -> Option<Probe> {
        if self.game.outcome().is_some() {
            return None;
        }
        self.probe_unfinished()
    }

    /// [`DamaState::probe`] for a game already known not to be over by the
    /// rules (so [`Game::outcome`] does not ask the engine twice).
    fn probe_unfinished(&self) -> Option<Probe> {
        let tb = self.tablebase.as_ref()?;
        if self.game.pending_capture().is_some() {
            return None;
        }
        let pos = self.game.position();
        if pos.occupied().count() > tb.max_pieces() {
            return None;
        }
        tb.probe(pos)
    }

    /// A game starting at `position`.
    #[must_use]
    pub fn from_position(position: Position) -> Self {
        DamaState::new(dama_engine::Game::from_position(position))
    }

    /// The wrapped game.
    #[must_use]
    pub fn game(&self) -> &dama_engine::Game {
        &self.game
    }

    /// Unwraps the game.
    #[must_use]
    pub fn into_game(self) -> dama_engine::Game {
        self.game
    }

    /// Material balance for the player to act, counting the capture in
    /// progress: men count 1, kings `king_value`.
    #[must_use]
    pub fn material(&self, king_value: f32) -> f32 {
        let pos = self.game.position();
        let us = self.game.turn();
        let them = us.other();
        let value = |men: u32, kings: u32| men as f32 + king_value * kings as f32;
        match self.game.pending_capture() {
            None => {
                let side = |c: Color| {
                    let kings = (pos.pieces(c) & pos.kings()).count();
                    value(pos.pieces(c).count() - kings, kings)
                };
                side(us) - side(them)
            }
            Some(p) => {
                // Ours: the moving piece counted by its role, the rest as
                // they stood at the start of the turn.
                let rest = pos.pieces(us).without(p.origin());
                let rest_kings = (rest & pos.kings()).count();
                let moving_king = p.role() == Role::King || p.captures_as_king();
                let ours = value(rest.count() - rest_kings, rest_kings)
                    + if moving_king { king_value } else { 1.0 };
                let theirs_bb = p.pieces(pos, them);
                let their_kings = (theirs_bb & pos.kings()).count();
                ours - value(theirs_bb.count() - their_kings, their_kings)
            }
        }
    }
}

impl From<dama_engine::Game> for DamaState {
    fn from(game: dama_engine::Game) -> Self {
        DamaState::new(game)
    }
}

impl Game for DamaState {
    type Action = Step;

    #[inline]
    fn to_play(&self) -> Player {
        // During a capture the position (and its side to move) is the one
        // at the start of the turn: the capturing side.
        player(self.game.turn())
    }

    fn legal_actions(&self, out: &mut Vec<Step>) {
        out.extend(self.game.legal_steps());
    }

    fn apply(&mut self, action: Step) {
        let played = self.game.play_step(action);
        debug_assert!(played.is_ok(), "illegal step {action:?}: {played:?}");
    }

    fn outcome(&self) -> Option<Outcome> {
        if self.game.pending_capture().is_some() {
            return None;
        }
        if let Some(o) = self.game.outcome() {
            return Some(match o.winner() {
                Some(c) => Outcome::Win(player(c)),
                None => Outcome::Draw,
            });
        }
        let probe = self.probe_unfinished()?;
        let us = player(self.game.turn());
        Some(match probe.wdl.score() {
            1 => Outcome::Win(us),
            -1 => Outcome::Win(us.other()),
            _ => Outcome::Draw,
        })
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.game.hash()
    }

    /// The game hash (pieces, side to move, capture in progress) mixed
    /// with the two counters the network sees (repetitions and plies
    /// without capture), so a cache hit returns exactly what the network
    /// would have said.
    fn eval_key(&self) -> u64 {
        let game = &self.game;
        let counters = (game.position().plies_since_capture() as u64) << 8
            | game.repetitions().min(255) as u64;
        game.hash() ^ counters.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// The whole move that `steps` (one turn, for example of a
/// [`TurnSearch`](dama_mcts::TurnSearch)) play from `game`.
///
/// # Errors
///
/// [`Error::IncompleteTurn`] if a step is illegal or the steps end before
/// the move does.
pub fn complete_turn(game: &dama_engine::Game, steps: &[Step]) -> Result<Move, Error> {
    let mut game = game.clone();
    for &step in steps {
        match game.play_step(step) {
            Ok(StepResult::Completed(m)) => return Ok(m),
            Ok(StepResult::InProgress) => {}
            Err(_) => return Err(Error::IncompleteTurn),
        }
    }
    Err(Error::IncompleteTurn)
}

/// Searches the whole move of the side to move at `root`, jump by jump
/// ([`search_turn`]), and returns it.
///
/// # Examples
///
/// ```
/// use dama_draughts::{search_move, DamaState, MaterialEvaluator};
/// use dama_mcts::{Budget, SearchConfig};
/// use rand::SeedableRng;
///
/// // White must capture twice: b3xd3xd5.
/// let game = dama_engine::Game::from_position("W:Wb3:Bc3,d4".parse().expect("valid"));
/// let mut rng = rand::rngs::StdRng::seed_from_u64(0);
/// let config = SearchConfig { simulations: 20, ..SearchConfig::default() };
/// let m = search_move(
///     &config,
///     DamaState::new(game),
///     &mut MaterialEvaluator::default(),
///     &mut Budget::default(),
///     &mut rng,
/// )?;
/// assert_eq!(m.to_string(), "b3xd3xd5");
/// # Ok::<(), dama_mcts::Error>(())
/// ```
///
/// # Errors
///
/// As [`search_turn`].
pub fn search_move<E, P>(
    config: &SearchConfig,
    root: DamaState,
    evaluator: &mut E,
    policy: &mut P,
    rng: &mut impl Rng,
) -> Result<Move, Error>
where
    E: Evaluator<DamaState> + ?Sized,
    P: TurnPolicy<DamaState> + ?Sized,
{
    let game = root.game().clone();
    let steps = search_turn(config, root, evaluator, policy, rng)?;
    complete_turn(&game, &steps)
}

/// Uniform priors and a value from the material balance:
/// `tanh(scale · (ours − theirs))` with men 1 and kings `king_value`.
/// A network-free baseline and the evaluator of the tactical tests.
#[derive(Clone, Copy, Debug)]
pub struct MaterialEvaluator {
    /// Value of a king in men (default 3).
    pub king_value: f32,
    /// Steepness of the value (default 0.5: one man up is worth ≈ 0.46).
    pub scale: f32,
}

impl Default for MaterialEvaluator {
    fn default() -> Self {
        MaterialEvaluator {
            king_value: 3.0,
            scale: 0.5,
        }
    }
}

impl Evaluator<DamaState> for MaterialEvaluator {
    type Error = Infallible;

    fn evaluate(&mut self, batch: &[Leaf<'_, DamaState>]) -> Result<Vec<Evaluation>, Infallible> {
        Ok(batch
            .iter()
            .map(|leaf| Evaluation {
                policy: uniform(leaf.actions.len()),
                value: Wdl::from_scalar(
                    (self.scale * leaf.state.material(self.king_value)).tanh(),
                    0.0,
                ),
            })
            .collect())
    }
}
