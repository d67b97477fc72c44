//! The game's baseline players: random, greedy (one move deep) and an
//! alpha-beta search over whole moves, with the handcrafted evaluation or
//! a learned one ([`TaflEvaluation`]: an NNUE-style network over
//! [`TaflFeatures`], `alphabeta:depth=D,eval=FILE`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use dama_nnue::{Accumulator, Features as _, Network};
use rand::Rng;

use crate::features::TaflFeatures;
use crate::rules::TaflRules;

use crate::board::{Bitboard, Dir};
use crate::game::{Game, Move, MoveKind, PlayableMove};
use crate::position::{Position, Side};

/// A score beyond any evaluation: a won game.
pub const WIN: i32 = 1_000_000;

/// A uniformly random legal move (`None` when the game is over).
pub fn random_move(game: &Game, rng: &mut impl Rng) -> Option<Move> {
    let moves = game.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let i = rng.gen_range(0..moves.len());
    moves.into_iter().nth(i)
}

/// Plies the King needs to reach column 8 through empty squares (stepping
/// one square at a time, ignoring every move of the other pieces), or
/// `None` if no such path exists.
pub fn king_distance(pos: &Position) -> Option<u32> {
    // A breadth-first search as a flood fill of the empty squares.
    let free = Bitboard(!pos.occupied().0);
    let goal = Bitboard::column(7);
    let mut seen = Bitboard::from_square(pos.king());
    let mut frontier = seen;
    let mut d = 0;
    loop {
        if frontier.0 & goal.0 != 0 {
            return Some(d);
        }
        frontier = Bitboard(frontier.neighbours().0 & free.0 & !seen.0);
        if frontier.is_empty() {
            return None;
        }
        seen = Bitboard(seen.0 | frontier.0);
        d += 1;
    }
}

/// Defender pieces on the squares beside the King (0 to 4).
pub fn king_guards(pos: &Position) -> usize {
    let king = pos.king();
    Dir::ALL
        .iter()
        .filter(|&&d| {
            king.step(d)
                .is_some_and(|n| pos.pieces(Side::Defender).contains(n))
        })
        .count()
}

/// The handcrafted evaluation, for the King side (positive: good for the
/// King side): material (a Defender King counts 3 men), the King's advance
/// and its free path to column 8, and the Defenders around it.
pub fn evaluate(game: &Game) -> i32 {
    if let Some(o) = game.outcome() {
        return match o.winner {
            Some(Side::KingSide) => WIN,
            Some(Side::Defender) => -WIN,
            None => 0,
        };
    }
    let pos = game.position();
    let king = pos.king();
    let men = pos.king_side_men().count() as i32;
    let defenders = pos.defender_men().count() as i32 + 3 * pos.defender_kings().count() as i32;
    let advance = i32::from(king.column());
    let path = match king_distance(pos) {
        Some(d) => 60 - 12 * d as i32,
        None => -40,
    };
    let guards = king_guards(pos) as i32;
    100 * men - 100 * defenders + 25 * advance + path - 30 * guards
}

/// Learned scores are kept below this, far from [`WIN`].
pub const LEARNED_SCORE_LIMIT: i32 = 10_000;

/// The handcrafted evaluation's share, in percent, of a learned
/// evaluation's score (the network's is the rest).
///
/// The two err differently: the network, trained on a few minutes of
/// self-play, misjudges positions the handcrafted terms (material, the
/// King's path) get right, and sees what those terms cannot. Their mean
/// beat the network alone at equal time: the shipped network scored
/// 53.0% against the handcrafted engine at 100 ms a move on its own and
/// 73.0% blended, on the same 200 games' openings (docs/nnue.md has the
/// figures with their commands).
pub const HANDCRAFTED_SHARE: i32 = 50;

/// A learned score blended with the handcrafted one, both for the side to
/// move and below [`LEARNED_SCORE_LIMIT`] (so is the blend).
fn blend(learned: i32, handcrafted: i32) -> i32 {
    (learned * (100 - HANDCRAFTED_SHARE) + handcrafted * HANDCRAFTED_SHARE) / 100
}

/// The static evaluation the alpha-beta search calls at its leaves.
#[derive(Clone, Debug, Default)]
pub enum TaflEvaluation {
    /// [`evaluate`].
    #[default]
    Handcrafted,
    /// A learned network, loaded from `path`.
    Learned {
        /// The evaluator file.
        path: PathBuf,
        /// The quantized network.
        network: Arc<Network<TaflFeatures>>,
    },
}

impl TaflEvaluation {
    /// Loads the evaluator file at `path`; with `rules`, refuses a network
    /// trained for other rules.
    ///
    /// # Errors
    ///
    /// The file's problem, named ([`dama_nnue::Error`]): not an evaluator,
    /// another game's, other rules, truncated or corrupt.
    pub fn load(path: &Path, rules: Option<&TaflRules>) -> Result<Self, dama_nnue::Error> {
        let (float, _) = dama_nnue::read_network::<TaflFeatures>(path, rules)?;
        Ok(TaflEvaluation::Learned {
            path: path.to_path_buf(),
            network: Arc::new(Network::from_float(&float)?),
        })
    }

    /// The rules a learned evaluation was trained for (`None` for the
    /// handcrafted one).
    pub fn rules(&self) -> Option<&TaflRules> {
        match self {
            TaflEvaluation::Handcrafted => None,
            TaflEvaluation::Learned { network, .. } => Some(network.rules()),
        }
    }

    /// What the search keeps per node for this evaluation at the root
    /// `pos`: a learned one's accumulator (updated move by move, as a
    /// refresh would give it), nothing for the handcrafted one.
    fn root(&self, pos: &Position) -> Option<Accumulator> {
        match self {
            TaflEvaluation::Handcrafted => None,
            TaflEvaluation::Learned { network, .. } => Some(network.refresh(pos)),
        }
    }

    /// The node state after the move from `before` to `after`.
    fn child(
        &self,
        state: &Option<Accumulator>,
        before: &Position,
        after: &Position,
    ) -> Option<Accumulator> {
        match (self, state) {
            (TaflEvaluation::Learned { network, .. }, Some(acc)) => {
                Some(network.update(acc, before, after))
            }
            _ => None,
        }
    }

    /// The score of an unfinished `game` for the side to move, from its
    /// node state: a learned one blends the network's score with the
    /// handcrafted evaluation ([`HANDCRAFTED_SHARE`]).
    fn score(&self, game: &Game, state: &Option<Accumulator>) -> i32 {
        let handcrafted = sign(game.turn()) * evaluate(game);
        let TaflEvaluation::Learned { network, .. } = self else {
            return handcrafted;
        };
        let learned = match state {
            Some(acc) => network.evaluate(acc, TaflFeatures::side_to_move(game.position())),
            None => network.evaluate_position(game.position()),
        }
        .clamp(-LEARNED_SCORE_LIMIT, LEARNED_SCORE_LIMIT);
        blend(learned, handcrafted)
    }
}

fn ordered(game: &Game) -> Vec<PlayableMove> {
    let mut moves = game.playable_moves();
    // Captures and exits first, longer captures before shorter.
    moves.sort_by_key(|PlayableMove { mv: m, .. }| {
        (
            !m.exit,
            m.kind != MoveKind::Capture,
            std::cmp::Reverse(m.captured.count()),
        )
    });
    moves
}

/// The plies a search keeps killer moves for (forced captures extend a
/// line past its nominal depth; deeper plies have none).
const KILLER_PLIES: usize = 64;

/// The slots of [`Order`]'s table of best moves (a power of two).
const ORDER_SLOTS: usize = 1 << 14;

/// A move's start and end as indices (32 for the King's exit).
fn from_to(m: &Move) -> (usize, usize) {
    let to = m.to().map_or(32, |s| usize::from(s.index()));
    (usize::from(m.from.index()), to)
}

/// A move's identity ([`Move::key`]: kind, start, end, captured pieces) as
/// a number for [`Order`], with the top bit set (0 is no move).
fn move_code(m: &Move) -> u64 {
    let (kind, _, _, captured) = m.key();
    let (from, to) = from_to(m);
    (1 << 63)
        | (kind as u64)
        | ((from as u64) << 8)
        | ((to as u64) << 16)
        | (u64::from(captured.0) << 24)
}

/// A move that neither captures nor takes the King off the board.
fn is_quiet(m: &Move) -> bool {
    m.kind != MoveKind::Capture && !m.exit
}

/// What one search (all its iterations) learns about the order of moves:
/// the best move of each position searched (a table by hash, replaced
/// whenever a move raised alpha), two killer moves per ply (quiet moves
/// that cut a sibling off) and a history score per start and end of quiet
/// cut-off moves. It decides which moves are searched first and so how
/// many nodes a search visits, never the score of a move within the
/// search's window: alpha-beta finds those whatever the order.
struct Order {
    best: Vec<(u64, u64)>,
    killers: [[u64; 2]; KILLER_PLIES],
    history: [[u32; 33]; 32],
    /// Off, the moves are searched as [`ordered`] gives them (the tests
    /// compare the two).
    on: bool,
}

impl Order {
    fn new() -> Order {
        Order {
            best: vec![(0, 0); ORDER_SLOTS],
            killers: [[0; 2]; KILLER_PLIES],
            history: [[0; 33]; 32],
            on: true,
        }
    }

    fn best_of(&self, hash: u64) -> u64 {
        let (h, code) = self.best[hash as usize & (ORDER_SLOTS - 1)];
        if h == hash {
            code
        } else {
            0
        }
    }

    fn remember(&mut self, hash: u64, code: u64) {
        self.best[hash as usize & (ORDER_SLOTS - 1)] = (hash, code);
    }

    /// The order to search `moves` (captures and exits as [`ordered`]
    /// sorted them) in the position `hash` at `ply`: its remembered best
    /// move, captures and exits, killers, then quiet moves by history.
    fn plan(&self, moves: &[PlayableMove], hash: u64, ply: usize) -> Vec<usize> {
        if !self.on {
            return (0..moves.len()).collect();
        }
        let best = self.best_of(hash);
        let killers = self.killers.get(ply).copied().unwrap_or_default();
        let mut keyed: Vec<((u8, u32), usize)> = moves
            .iter()
            .enumerate()
            .map(|(i, PlayableMove { mv, .. })| {
                let code = move_code(mv);
                let rank = if code == best {
                    (0, 0)
                } else if !is_quiet(mv) {
                    (1, 0)
                } else if killers.contains(&code) {
                    (2, 0)
                } else {
                    (3, u32::MAX - self.history_of(mv))
                };
                (rank, i)
            })
            .collect();
        keyed.sort_by_key(|&(rank, _)| rank);
        keyed.into_iter().map(|(_, i)| i).collect()
    }

    fn history_of(&self, m: &Move) -> u32 {
        let (from, to) = from_to(m);
        self.history[from][to]
    }

    /// A quiet move `m` cut off a node `depth` moves from the leaves.
    fn cut(&mut self, m: &Move, ply: usize, depth: u32) {
        let code = move_code(m);
        if let Some(k) = self.killers.get_mut(ply) {
            if k[0] != code {
                k[1] = k[0];
                k[0] = code;
            }
        }
        let (from, to) = from_to(m);
        let h = &mut self.history[from][to];
        *h = h.saturating_add(depth * depth);
    }
}

fn sign(side: Side) -> i32 {
    match side {
        Side::KingSide => 1,
        Side::Defender => -1,
    }
}

/// When a search must stop: at a deadline (checked every 1024 nodes) or
/// past a node budget (checked at every node).
#[derive(Clone, Copy, Debug, Default)]
struct Clock {
    deadline: Option<std::time::Instant>,
    max_nodes: Option<u64>,
    stopped: bool,
}

impl Clock {
    fn tick(&mut self, nodes: u64) -> bool {
        if !self.stopped {
            if self.max_nodes.is_some_and(|m| nodes > m) {
                self.stopped = true;
            } else if nodes & 1023 == 0 {
                if let Some(d) = self.deadline {
                    self.stopped = std::time::Instant::now() >= d;
                }
            }
        }
        self.stopped
    }
}

/// How many whole moves past the nominal depth a search follows forced
/// captures before it evaluates anyway.
pub const MAX_CAPTURE_EXTENSION: u32 = 8;

/// Negamax with alpha-beta to `depth` whole moves; the score is for the
/// side to move. Wins sooner score higher. A position at depth 0 where
/// the side to move must capture is searched on (captures only, at most
/// `extension` more moves) rather than evaluated: a static evaluation
/// there misses the capture, and a learned one was trained on quiet
/// positions only. A stopped `clock` makes the score meaningless (the
/// caller drops the iteration).
#[allow(clippy::too_many_arguments)]
fn negamax(
    game: &mut Game,
    state: &Option<Accumulator>,
    depth: u32,
    extension: u32,
    ply: usize,
    mut alpha: i32,
    beta: i32,
    nodes: &mut u64,
    eval: &TaflEvaluation,
    clock: &mut Clock,
    order: &mut Order,
) -> i32 {
    *nodes += 1;
    if clock.tick(*nodes) {
        return 0;
    }
    let over = game.outcome().is_some();
    let (depth, extension) = if depth == 0 && !over && extension > 0 && game.has_capture() {
        (1, extension - 1)
    } else {
        (depth, extension)
    };
    if over || depth == 0 {
        let s = if over {
            sign(game.turn()) * evaluate(game)
        } else {
            eval.score(game, state)
        };
        // Prefer quicker wins and slower losses.
        return if s >= WIN {
            s + depth as i32
        } else if s <= -WIN {
            s - depth as i32
        } else {
            s
        };
    }
    let mut best = i32::MIN + 1;
    let before = *game.position();
    let hash = before.hash();
    let moves = ordered(game);
    let mut raised = None;
    for i in order.plan(&moves, hash, ply) {
        let m = &moves[i];
        let undo = game.make(m);
        let child = eval.child(state, &before, game.position());
        let score = -negamax(
            game,
            &child,
            depth - 1,
            extension,
            ply + 1,
            -beta,
            -alpha,
            nodes,
            eval,
            clock,
            order,
        );
        game.unmake(undo);
        if clock.stopped {
            return 0;
        }
        if score > best {
            best = score;
        }
        if score > alpha {
            alpha = score;
            raised = Some(i);
        }
        if alpha >= beta {
            if is_quiet(&m.mv) {
                order.cut(&m.mv, ply, depth);
            }
            break;
        }
    }
    if let Some(i) = raised {
        order.remember(hash, move_code(&moves[i].mv));
    }
    best
}

/// The best move by an alpha-beta search of `depth` whole moves (1 is the
/// greedy player), its score for the side to move, and the nodes searched;
/// ties go to the earlier move, or to a random one among equals with `rng`.
/// `None` when the game is over.
pub fn best_move(
    game: &Game,
    depth: u32,
    rng: Option<&mut dyn rand::RngCore>,
) -> Option<(Move, i32, u64)> {
    best_move_with(game, depth, &TaflEvaluation::Handcrafted, rng)
}

/// [`best_move`] with the evaluation `eval` at the leaves.
pub fn best_move_with(
    game: &Game,
    depth: u32,
    eval: &TaflEvaluation,
    rng: Option<&mut dyn rand::RngCore>,
) -> Option<(Move, i32, u64)> {
    search_root(
        game,
        depth,
        eval,
        rng,
        &mut Clock::default(),
        &mut Order::new(),
    )
}

/// The deepest iteration of a timed search, in whole moves.
pub const MAX_TIMED_DEPTH: u32 = 32;

/// The best move by iterative deepening within `time` (depth 1, 2, … up to
/// [`MAX_TIMED_DEPTH`]; an iteration the clock cuts short is dropped, and
/// depth 1 always completes), its score, the nodes of every iteration and
/// the depth of the last complete one. `None` when the game is over.
pub fn timed_best_move_with(
    game: &Game,
    time: std::time::Duration,
    eval: &TaflEvaluation,
    mut rng: Option<&mut dyn rand::RngCore>,
) -> Option<(Move, i32, u64, u32)> {
    let deadline = std::time::Instant::now() + time;
    let mut order = Order::new();
    let (mut best, mut score, mut nodes) = search_root(
        game,
        1,
        eval,
        reborrow(&mut rng),
        &mut Clock::default(),
        &mut order,
    )?;
    let mut depth = 1;
    for d in 2..=MAX_TIMED_DEPTH {
        let mut clock = Clock {
            deadline: Some(deadline),
            ..Clock::default()
        };
        let Some((m, s, n)) =
            search_root(game, d, eval, reborrow(&mut rng), &mut clock, &mut order)
        else {
            break;
        };
        nodes += n;
        if clock.stopped {
            break;
        }
        (best, score, depth) = (m, s, d);
        // A forced result (a win or loss found) will not change deeper.
        if s.abs() >= WIN || std::time::Instant::now() >= deadline {
            break;
        }
    }
    Some((best, score, nodes, depth))
}

/// The best move by iterative deepening to `depth` whole moves within a
/// budget of `max_nodes` nodes (an iteration that would pass the budget is
/// dropped, and depth 1 always completes): its score, the nodes searched
/// and the depth of the last complete iteration. Ties go to the earlier
/// move, so the result depends on the position alone (what self-play for
/// a learned evaluation needs). `None` when the game is over.
pub fn budgeted_best_move_with(
    game: &Game,
    depth: u32,
    max_nodes: u64,
    eval: &TaflEvaluation,
) -> Option<(Move, i32, u64, u32)> {
    let mut order = Order::new();
    let (mut best, mut score, mut nodes) =
        search_root(game, 1, eval, None, &mut Clock::default(), &mut order)?;
    let mut done = 1;
    for d in 2..=depth {
        let Some(left) = max_nodes.checked_sub(nodes) else {
            break;
        };
        let mut clock = Clock {
            max_nodes: Some(left),
            ..Clock::default()
        };
        let Some((m, s, n)) = search_root(game, d, eval, None, &mut clock, &mut order) else {
            break;
        };
        nodes += n;
        if clock.stopped {
            break;
        }
        (best, score, done) = (m, s, d);
        if s.abs() >= WIN {
            break;
        }
    }
    Some((best, score, nodes, done))
}

/// A shorter borrow of an optional generator, for one more call.
fn reborrow<'a>(rng: &'a mut Option<&mut dyn rand::RngCore>) -> Option<&'a mut dyn rand::RngCore> {
    match rng {
        Some(r) => Some(&mut **r),
        None => None,
    }
}

fn search_root(
    game: &Game,
    depth: u32,
    eval: &TaflEvaluation,
    rng: Option<&mut dyn rand::RngCore>,
    clock: &mut Clock,
    order: &mut Order,
) -> Option<(Move, i32, u64)> {
    let moves = ordered(game);
    if moves.is_empty() {
        return None;
    }
    let mut nodes = 0;
    let mut scored = Vec::with_capacity(moves.len());
    let mut alpha = i32::MIN + 1;
    let mut g = game.clone();
    let root = eval.root(game.position());
    let hash = game.position().hash();
    for i in order.plan(&moves, hash, 0) {
        let m = &moves[i];
        let undo = g.make(m);
        let child = eval.child(&root, game.position(), g.position());
        // A window that keeps scores equal to the best so far exact, so
        // that ties are found; anything worse may be a bound.
        let bound = if alpha == i32::MIN + 1 {
            i32::MAX
        } else {
            -(alpha - 1)
        };
        let score = -negamax(
            &mut g,
            &child,
            depth.max(1) - 1,
            MAX_CAPTURE_EXTENSION,
            1,
            i32::MIN + 1,
            bound,
            &mut nodes,
            eval,
            clock,
            order,
        );
        g.unmake(undo);
        if clock.stopped {
            break;
        }
        alpha = alpha.max(score);
        scored.push((i, score));
    }
    let top = scored.iter().map(|(_, s)| *s).max()?;
    // The moves of the best score in the order `ordered` gives them, so
    // that the search order never decides between equals.
    let mut best: Vec<usize> = scored
        .into_iter()
        .filter(|(_, s)| *s == top)
        .map(|(i, _)| i)
        .collect();
    best.sort_unstable();
    order.remember(hash, move_code(&moves[best[0]].mv));
    let i = match rng {
        Some(r) => r.gen_range(0..best.len()),
        None => 0,
    };
    Some((moves[best[i]].mv.clone(), top, nodes))
}

/// A player of the arena: which move to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// A uniformly random legal move.
    Random,
    /// The best move one move deep by [`evaluate`] (random among equals).
    Greedy,
    /// [`best_move`] at this depth in whole moves.
    AlphaBeta(u32),
    /// [`timed_best_move_with`] within this many milliseconds a move.
    AlphaBetaTime(u64),
}

impl Baseline {
    /// Its move (`None` when the game is over).
    pub fn choose(self, game: &Game, rng: &mut impl rand::RngCore) -> Option<Move> {
        self.choose_with(game, &TaflEvaluation::Handcrafted, rng)
    }

    /// Its move, the alpha-beta search evaluating its leaves with `eval`
    /// (greedy stays one move deep by [`evaluate`]).
    pub fn choose_with(
        self,
        game: &Game,
        eval: &TaflEvaluation,
        rng: &mut impl rand::RngCore,
    ) -> Option<Move> {
        match self {
            Baseline::Random => random_move(game, rng),
            Baseline::Greedy => best_move(game, 1, Some(rng)).map(|(m, _, _)| m),
            Baseline::AlphaBeta(d) => best_move_with(game, d, eval, Some(rng)).map(|(m, _, _)| m),
            Baseline::AlphaBetaTime(ms) => {
                timed_best_move_with(game, std::time::Duration::from_millis(ms), eval, Some(rng))
                    .map(|(m, ..)| m)
            }
        }
    }
}

impl std::fmt::Display for Baseline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Baseline::Random => f.write_str("random"),
            Baseline::Greedy => f.write_str("greedy"),
            Baseline::AlphaBeta(d) => write!(f, "alphabeta:depth={d}"),
            Baseline::AlphaBetaTime(ms) => write!(f, "alphabeta:time={ms}"),
        }
    }
}

/// A [`Baseline`] as an arena player ([`dama_game::player::Player`] of
/// [`Tafl`](crate::Tafl)), named by its spec (`alphabeta:depth=4`).
#[derive(Clone, Debug)]
pub struct BaselinePlayer {
    baseline: Baseline,
    evaluation: TaflEvaluation,
    name: String,
}

impl BaselinePlayer {
    /// `baseline`, named by its spec.
    pub fn new(baseline: Baseline) -> Self {
        BaselinePlayer {
            baseline,
            evaluation: TaflEvaluation::Handcrafted,
            name: baseline.to_string(),
        }
    }

    /// The same player searching with `evaluation` (the alpha-beta
    /// baseline's leaves; random and greedy players ignore it).
    #[must_use]
    pub fn with_evaluation(mut self, evaluation: TaflEvaluation) -> Self {
        self.evaluation = evaluation;
        self
    }

    /// The same player called `name`.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The baseline it plays.
    pub fn baseline(&self) -> Baseline {
        self.baseline
    }
}

impl dama_game::player::Player<crate::Tafl> for BaselinePlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(
        &mut self,
        game: &Game,
        mut rng: &mut dyn rand::RngCore,
    ) -> Result<Move, dama_game::GameError> {
        self.baseline
            .choose_with(game, &self.evaluation, &mut rng)
            .ok_or_else(|| dama_game::player::NoMove.into())
    }

    /// The alpha-beta baseline reports its score, depth and nodes; `time`
    /// replaces a timed search's own time.
    fn think(
        &mut self,
        game: &Game,
        time: Option<std::time::Duration>,
        rng: &mut dyn rand::RngCore,
    ) -> Result<dama_game::Choice<Move>, dama_game::GameError> {
        let found = match self.baseline {
            Baseline::AlphaBetaTime(ms) => {
                let time = time.unwrap_or(std::time::Duration::from_millis(ms));
                timed_best_move_with(game, time, &self.evaluation, Some(rng))
            }
            Baseline::AlphaBeta(depth) => best_move_with(game, depth, &self.evaluation, Some(rng))
                .map(|(best, score, nodes)| (best, score, nodes, depth)),
            _ => return Ok(dama_game::Choice::of(self.choose(game, rng)?)),
        };
        let (best, score, nodes, depth) = found.ok_or(dama_game::player::NoMove)?;
        let mut choice = dama_game::Choice::of(best);
        choice.score = Some((score, depth));
        choice.nodes = nodes;
        Ok(choice)
    }
}

/// The deepest alpha-beta search a spec may ask for, in whole moves.
pub const MAX_ALPHABETA_DEPTH: u32 = 8;

/// The baseline an own-player spec names (`greedy`, `alphabeta:depth=D`
/// with `D` in `1..=`[`MAX_ALPHABETA_DEPTH`] or `alphabeta:time=MS`, one
/// thread, with or without an evaluator file: [`own_of`] loads it).
///
/// # Errors
///
/// [`dama_game::OwnError::Settings`] naming what Turkish Tafl's search
/// does not have.
pub fn baseline_of(spec: &dama_game::OwnSpec) -> Result<Baseline, dama_game::OwnError> {
    use dama_game::{AlphaBetaLimit, OwnError, OwnSpec};
    let settings = |s: String| Err(OwnError::Settings(s));
    match spec {
        OwnSpec::Greedy => Ok(Baseline::Greedy),
        OwnSpec::AlphaBeta(a) => match a.limit {
            _ if a.threads != 1 => {
                settings("Turkish Tafl's alpha-beta searches on one thread (threads=1)".into())
            }
            AlphaBetaLimit::TimeMs(ms) if !(1..=dama_game::own::MAX_MOVE_TIME_MS).contains(&ms) => {
                settings(format!(
                    "time={ms} is out of range (1..={} ms)",
                    dama_game::own::MAX_MOVE_TIME_MS
                ))
            }
            AlphaBetaLimit::TimeMs(ms) => Ok(Baseline::AlphaBetaTime(ms)),
            AlphaBetaLimit::Depth(d) if !(1..=MAX_ALPHABETA_DEPTH).contains(&d) => settings(
                format!("depth={d} is out of range (1..={MAX_ALPHABETA_DEPTH} whole moves)"),
            ),
            AlphaBetaLimit::Depth(d) => Ok(Baseline::AlphaBeta(d)),
        },
    }
}

/// The baseline and the evaluation an own-player spec names, its
/// evaluator file (`eval=`) loaded.
///
/// # Errors
///
/// As [`baseline_of`]; [`dama_game::OwnError::Load`] naming the file's
/// problem.
pub fn own_of(
    spec: &dama_game::OwnSpec,
) -> Result<(Baseline, TaflEvaluation), dama_game::OwnError> {
    let baseline = baseline_of(spec)?;
    let load = |e: dama_nnue::Error| dama_game::OwnError::Load(Box::new(e));
    let evaluation = match spec {
        dama_game::OwnSpec::AlphaBeta(a) => match &a.eval {
            Some(dama_game::EvalSource::Shipped) => TaflEvaluation::Learned {
                path: PathBuf::from(crate::shipped::SHIPPED.path),
                network: crate::shipped::shipped_network().map_err(load)?,
            },
            Some(dama_game::EvalSource::File(path)) => {
                TaflEvaluation::load(path, None).map_err(load)?
            }
            None => TaflEvaluation::Handcrafted,
        },
        dama_game::OwnSpec::Greedy => TaflEvaluation::Handcrafted,
    };
    Ok((baseline, evaluation))
}

/// Builds [`BaselinePlayer`]s of one baseline and evaluation.
pub(crate) struct BaselineFactory(pub(crate) Baseline, pub(crate) TaflEvaluation);

impl dama_game::OwnFactory<crate::Tafl> for BaselineFactory {
    fn build(&self, name: &str) -> Box<dyn dama_game::player::Player<crate::Tafl>> {
        Box::new(
            BaselinePlayer::new(self.0)
                .with_evaluation(self.1.clone())
                .with_name(name),
        )
    }

    fn trained_rules(&self) -> Option<TaflRules> {
        self.1.rules().copied()
    }
}

/// Plays one game between `defender` and `king_side` from `game`; the
/// finished game.
pub fn play_out(
    mut game: Game,
    defender: Baseline,
    king_side: Baseline,
    rng: &mut impl rand::RngCore,
) -> Game {
    while game.outcome().is_none() {
        let p = match game.turn() {
            Side::Defender => defender,
            Side::KingSide => king_side,
        };
        let Some(m) = p.choose(&game, rng) else { break };
        game.play(&m).expect("invariant: a chosen move is legal");
    }
    game
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Positions of random games, some with a capture pending.
    fn positions(count: usize, seed: u64) -> Vec<Game> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let mut game = Game::new(TaflRules::default());
            for _ in 0..rng.gen_range(0..40) {
                match random_move(&game, &mut rng) {
                    Some(m) if game.outcome().is_none() => {
                        game.play(&m).expect("a legal move");
                    }
                    _ => break,
                }
            }
            if game.outcome().is_none() {
                out.push(game);
            }
        }
        out
    }

    /// The order of moves changes the nodes a search visits, never its
    /// answer: iterative deepening with the order (as the timed and
    /// budgeted searches run it) finds the move and score of the plain
    /// order at every depth, with the handcrafted and the shipped learned
    /// evaluation, in fewer nodes.
    #[test]
    fn the_move_order_changes_the_nodes_not_the_answer() {
        let learned = TaflEvaluation::Learned {
            path: PathBuf::from("shipped"),
            network: crate::shipped::shipped_network().expect("the shipped network loads"),
        };
        let (mut with, mut without) = (0, 0);
        for (eval, depth) in [(TaflEvaluation::Handcrafted, 4), (learned, 3)] {
            for game in positions(40, 7) {
                let mut order = Order::new();
                for d in 1..=depth {
                    let clock = &mut Clock::default();
                    let (m, s, n) =
                        search_root(&game, d, &eval, None, clock, &mut order).expect("a move");
                    let mut off = Order::new();
                    off.on = false;
                    let clock = &mut Clock::default();
                    let (m0, s0, n0) =
                        search_root(&game, d, &eval, None, clock, &mut off).expect("a move");
                    assert_eq!((&m, s), (&m0, s0), "depth {d}, {}", game.position());
                    with += n;
                    without += n0;
                }
            }
        }
        assert!(
            with < without,
            "{with} nodes with the order, {without} without"
        );
    }

    /// A learned evaluation scores the blend of its network and the
    /// handcrafted evaluation, from the accumulator the search carries and
    /// from the position alike; the handcrafted evaluation scores alone.
    #[test]
    fn a_learned_score_blends_the_network_with_the_handcrafted_evaluation() {
        let network = crate::shipped::shipped_network().expect("the shipped network loads");
        let learned = TaflEvaluation::Learned {
            path: PathBuf::from("shipped"),
            network: Arc::clone(&network),
        };
        let mut apart = 0;
        for game in positions(40, 3) {
            let pos = game.position();
            let net = network
                .evaluate_position(pos)
                .clamp(-LEARNED_SCORE_LIMIT, LEARNED_SCORE_LIMIT);
            let hand = sign(game.turn()) * evaluate(&game);
            let want = (net * (100 - HANDCRAFTED_SHARE) + hand * HANDCRAFTED_SHARE) / 100;
            assert_eq!(learned.score(&game, &learned.root(pos)), want, "{pos}");
            assert_eq!(learned.score(&game, &None), want, "{pos}");
            assert!(net.min(hand) <= want && want <= net.max(hand), "{pos}");
            let handcrafted = TaflEvaluation::Handcrafted;
            assert_eq!(handcrafted.score(&game, &handcrafted.root(pos)), hand);
            apart += usize::from(net != hand);
        }
        assert!(
            apart > 20,
            "the network and the handcrafted evaluation agree on {} of 40",
            40 - apart
        );
    }
}
