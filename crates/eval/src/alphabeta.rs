//! A classical engine: iterative deepening principal-variation search with
//! alpha-beta, a Zobrist-keyed transposition table, move ordering (table
//! move, captures, promotions, killers, history), quiescence over forced
//! captures and a handcrafted evaluation.
//!
//! One ply is one whole move (a capture sequence is one ply).
//! Scores are in centi-men from the side to move's point of view; a win in
//! `n` plies scores `MATE - n`.
//!
//! Draw rules are respected inside the tree: the no-capture limit, one piece
//! each, mutual block, and repetition (a position repeated on the search path
//! or already seen in the game since the last capture is scored as a draw,
//! the usual engine shortcut for threefold repetition).

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use dama_engine::{
    Bitboard, Color, Game, Move, MoveList, OnePieceEachRule, Outcome, Position, MAX_MOVES,
};
use dama_tablebase::Tablebase;
use rand::RngCore;

use crate::player::{Player, PlayerFactory};
use crate::spec::AlphaBetaLimit;
use crate::Error;

/// Score of a win at the root; a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are wins or losses.
pub const MATE_BOUND: i32 = MATE - 1_000;
const INF: i32 = 32_000;
const MAX_PLY: usize = 128;

/// Value of a man.
pub const MAN_VALUE: i32 = 100;
/// Value of a king (flying kings are strong in Turkish draughts).
pub const KING_VALUE: i32 = 320;

/// Bonus for a man by how far it has advanced (0 = its own back row, which a
/// man never stands on; men start on relative rows 1 and 2; relative row 7 is
/// the promotion row, where it is a king).
const ADVANCE: [i32; 8] = [0, 0, 1, 4, 9, 16, 28, 0];
/// Bonus for a man on relative row 1, guarding its back row.
const GUARD: i32 = 4;
/// Bonus for a man on relative row 6 with its promotion square empty.
const RUNAWAY: i32 = 30;
/// Bonus per available quiet step or slide.
const MOBILITY: i32 = 2;

/// Limits of one search; the first one reached stops it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Maximum depth in plies (default: no limit, up to 100).
    pub depth: Option<u32>,
    /// Wall-clock budget.
    pub time: Option<Duration>,
    /// Node budget.
    pub nodes: Option<u64>,
}

impl SearchLimits {
    /// A fixed-depth search.
    pub fn depth(depth: u32) -> Self {
        Self {
            depth: Some(depth),
            ..Self::default()
        }
    }

    /// A timed search.
    pub fn time(time: Duration) -> Self {
        Self {
            time: Some(time),
            ..Self::default()
        }
    }
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct SearchReport {
    /// The best move (`None` only if the position has no legal move).
    pub best: Option<Move>,
    /// Its score in centi-men for the side to move.
    pub score: i32,
    /// The deepest fully searched iteration.
    pub depth: u32,
    /// Nodes visited (interior, leaf and quiescence nodes).
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
    /// Principal variation, from the transposition table.
    pub pv: Vec<Move>,
}

impl SearchReport {
    /// Nodes per second.
    pub fn nps(&self) -> f64 {
        self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

#[derive(Clone, Copy, Default)]
struct TtEntry {
    key: u64,
    mv: u32,
    score: i16,
    depth: i8,
    bound: u8,
}

const BOUND_EXACT: u8 = 1;
const BOUND_LOWER: u8 = 2;
const BOUND_UPPER: u8 = 3;

/// Compact identity of a move for the table: `from`, `to` and a fold of the
/// captured set (`+1` so that 0 means "no move").
fn move_id(m: &Move) -> u32 {
    let c = m.captured().0;
    let fold = (c ^ (c >> 20) ^ (c >> 40)) as u32 & 0xf_ffff;
    (u32::from(m.from().index()) | (u32::from(m.to().index()) << 6) | (fold << 12)).wrapping_add(1)
}

fn score_to_tt(score: i32, ply: usize) -> i16 {
    let s = if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    };
    s as i16
}

fn score_from_tt(score: i16, ply: usize) -> i32 {
    let s = i32::from(score);
    if s > MATE_BOUND {
        s - ply as i32
    } else if s < -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// The engine: tables persist between searches of one game.
pub struct AlphaBeta {
    tt: Vec<TtEntry>,
    tt_mask: u64,
    killers: [[u32; 2]; MAX_PLY],
    history: Box<[[i32; 64]; 64]>,
    /// Hashes of the search path, then of earlier game positions, since the
    /// last capture.
    path: Vec<u64>,
    nodes: u64,
    stop: bool,
    deadline: Option<Instant>,
    node_limit: u64,
    tablebase: Option<Arc<Tablebase>>,
}

/// Score of a tablebase win at the root; a win whose capture (or end) is
/// `d` plies away scores `TB_WIN - d`, below every mate score, above every
/// evaluation.
pub const TB_WIN: i32 = 20_000;

impl std::fmt::Debug for AlphaBeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlphaBeta")
            .field("tt_entries", &self.tt.len())
            .finish_non_exhaustive()
    }
}

impl AlphaBeta {
    /// An engine with a transposition table of about `tt_mb` MiB.
    pub fn new(tt_mb: usize) -> Self {
        let entries = (tt_mb.max(1) << 20) / std::mem::size_of::<TtEntry>();
        let size = entries.next_power_of_two() / 2;
        let size = size.max(1024);
        Self {
            tt: vec![TtEntry::default(); size],
            tt_mask: size as u64 - 1,
            killers: [[0; 2]; MAX_PLY],
            history: Box::new([[0; 64]; 64]),
            path: Vec::with_capacity(256),
            nodes: 0,
            stop: false,
            deadline: None,
            node_limit: u64::MAX,
            tablebase: None,
        }
    }

    /// Probes `tablebase` in the search (positions it holds are scored
    /// exactly, and a root it holds plays its best move).
    #[must_use]
    pub fn with_tablebase(mut self, tablebase: Option<Arc<Tablebase>>) -> Self {
        self.tablebase = tablebase;
        self
    }

    /// The tables' score of `pos` for the side to move, if they hold it.
    fn tablebase_score(&self, pos: &Position, ply: usize) -> Option<i32> {
        let tb = self.tablebase.as_ref()?;
        if pos.occupied().count() > tb.max_pieces() {
            return None;
        }
        let probe = tb.probe(pos)?;
        let dtz = i32::from(probe.dtz.unwrap_or(0));
        Some(match probe.wdl.score() {
            1 => TB_WIN - dtz - ply as i32,
            -1 => -TB_WIN + dtz + ply as i32,
            _ => 0,
        })
    }

    /// Clears the transposition table, killers and history.
    pub fn clear(&mut self) {
        self.tt.fill(TtEntry::default());
        self.killers = [[0; 2]; MAX_PLY];
        for row in self.history.iter_mut() {
            row.fill(0);
        }
    }

    /// Searches `pos`. `history` holds the hashes of the earlier positions of
    /// the game (oldest first), used for repetition; pass `&[]` if unknown.
    pub fn search(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: SearchLimits,
    ) -> SearchReport {
        let start = Instant::now();
        self.nodes = 0;
        self.stop = false;
        self.deadline = limits.time.map(|t| start + t);
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.killers = [[0; 2]; MAX_PLY];
        for row in self.history.iter_mut() {
            for h in row.iter_mut() {
                *h /= 8;
            }
        }
        // Repetition history: positions since the last capture. The
        // no-capture counter tells how far back that is.
        let back = usize::from(pos.plies_since_capture()).min(history.len());
        self.path.clear();
        self.path
            .extend_from_slice(&history[history.len() - back..]);

        let mut root_moves = pos.legal_moves();
        let mut report = SearchReport {
            best: root_moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: Vec::new(),
        };
        if root_moves.len() <= 1 {
            report.elapsed = start.elapsed();
            return report;
        }
        // A root the tables hold: their best move (fastest win, longest
        // loss), no search.
        if let Some(score) = self.tablebase_score(pos, 0) {
            if let Some((best, _)) = self
                .tablebase
                .as_ref()
                .and_then(|tb| tb.best_moves(pos))
                .and_then(|m| m.first().copied())
            {
                report.best = Some(best);
                report.score = score;
                report.elapsed = start.elapsed();
                report.pv = vec![best];
                return report;
            }
        }
        let max_depth = limits.depth.unwrap_or(100).clamp(1, MAX_PLY as u32 - 8);
        for depth in 1..=max_depth {
            let (best, score, complete) = self.root(pos, &mut root_moves, depth as i32);
            if complete {
                report.best = Some(best);
                report.score = score;
                report.depth = depth;
                // Read now: an aborted next iteration may overwrite the
                // table entries of this line (it did, on a timed search
                // from the initial position, leaving no PV at all).
                report.pv = self.pv(pos, depth as usize + 4);
            } else {
                // An aborted iteration searched the previous best move first;
                // a move that beat it is trustworthy.
                if let Some(m) = best_if_improved(best, report.best, score, report.score) {
                    report.best = Some(m);
                    report.score = score;
                }
                break;
            }
            if score.abs() > MATE_BOUND && depth as i32 >= MATE - score.abs() {
                break;
            }
            if self.stop {
                break;
            }
        }
        report.nodes = self.nodes;
        report.elapsed = start.elapsed();
        // The PV starts with the move played.
        if report.pv.first() != report.best.as_ref() {
            report.pv = report.best.into_iter().collect();
        }
        report
    }

    fn pv(&self, pos: &Position, max: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut p = *pos;
        let mut seen = Vec::new();
        while pv.len() < max {
            let e = &self.tt[(p.hash() & self.tt_mask) as usize];
            if e.key != p.hash() || e.mv == 0 || seen.contains(&p.hash()) {
                break;
            }
            seen.push(p.hash());
            let moves = p.legal_moves();
            let Some(m) = moves.iter().find(|m| move_id(m) == e.mv) else {
                break;
            };
            pv.push(*m);
            p.play_unchecked(m);
        }
        pv
    }

    /// One iteration at the root; returns the best move, its score and
    /// whether the iteration completed.
    fn root(&mut self, pos: &Position, moves: &mut MoveList, depth: i32) -> (Move, i32, bool) {
        // Order: table move (the previous best) first, then by the usual keys.
        let tt_move = {
            let e = &self.tt[(pos.hash() & self.tt_mask) as usize];
            if e.key == pos.hash() {
                e.mv
            } else {
                0
            }
        };
        let mut keys: Vec<i64> = moves
            .iter()
            .map(|m| self.order_key(m, tt_move, 0))
            .collect();
        sort_by_keys(moves, &mut keys);
        let mut alpha = -INF;
        let beta = INF;
        let mut best = moves[0];
        self.path.push(pos.hash());
        let mut complete = true;
        for (i, m) in moves.iter().enumerate() {
            let mut child = *pos;
            child.play_unchecked(m);
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, -beta, -alpha, 1)
            } else {
                let mut s = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && !self.stop {
                    s = -self.negamax(&child, depth - 1, -beta, -alpha, 1);
                }
                s
            };
            if self.stop {
                complete = false;
                break;
            }
            if score > alpha {
                alpha = score;
                best = *m;
            }
        }
        self.path.pop();
        if complete {
            self.store(pos.hash(), &best, alpha, depth, BOUND_EXACT, 0);
        }
        (best, alpha, complete)
    }

    fn check_limits(&mut self) {
        if self.nodes >= self.node_limit {
            self.stop = true;
        }
        if self.nodes & 1023 == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stop = true;
                }
            }
        }
    }

    /// Score of a drawn or finished position that the move generator alone
    /// does not see, or `None` to search on.
    fn rule_score(&self, pos: &Position) -> Option<i32> {
        if let Some(limit) = pos.rules().no_capture_limit {
            if pos.plies_since_capture() >= limit {
                return Some(0);
            }
        }
        let (us, them) = (pos.us().count(), pos.them().count());
        if us == 1 && them == 1 {
            if pos.rules().one_piece_each == OnePieceEachRule::Draw {
                return Some(0);
            }
            if let Some(outcome) = pos.outcome() {
                return Some(outcome_score(outcome, pos.turn(), 0));
            }
        }
        // Earlier positions with the same side to move since the last
        // capture: every second entry from the grandparent back.
        let reversible = usize::from(pos.plies_since_capture());
        if reversible >= 4
            && self
                .path
                .iter()
                .rev()
                .take(reversible)
                .skip(1)
                .step_by(2)
                .any(|&h| h == pos.hash())
        {
            return Some(0);
        }
        None
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> i32 {
        self.nodes += 1;
        self.check_limits();
        if self.stop {
            return 0;
        }
        if let Some(s) = self.rule_score(pos) {
            return s;
        }
        if ply > 0 {
            if let Some(s) = self.tablebase_score(pos, ply) {
                return s;
            }
        }
        if ply >= MAX_PLY - 1 {
            return evaluate(pos);
        }
        // Quiescence: at depth 0 a side that must capture has no stand-pat,
        // so every capture is searched (depth stays at 0); otherwise the
        // static evaluation stands. Leaves are told apart without
        // generating moves.
        if depth <= 0 && !pos.has_capture() {
            if !has_quiet_move(pos) {
                return no_move_score(pos, ply);
            }
            return evaluate(pos);
        }
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            return no_move_score(pos, ply);
        }

        // Mate-distance pruning.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        let key = pos.hash();
        let idx = (key & self.tt_mask) as usize;
        let entry = self.tt[idx];
        let mut tt_move = 0;
        if entry.key == key {
            tt_move = entry.mv;
            if i32::from(entry.depth) >= depth {
                let s = score_from_tt(entry.score, ply);
                let cutoff = match entry.bound {
                    BOUND_EXACT => true,
                    BOUND_LOWER => s >= beta,
                    BOUND_UPPER => s <= alpha,
                    _ => false,
                };
                if cutoff {
                    return s;
                }
            }
        }

        // A forced move or a capture does not use up depth (bounded by MAX_PLY).
        let child_depth = if moves.len() == 1 { depth } else { depth - 1 };
        let child_depth = child_depth.max(0);

        let mut keys: ArrayVec<i64, MAX_MOVES> = moves
            .iter()
            .map(|m| self.order_key(m, tt_move, ply))
            .collect();

        let alpha0 = alpha;
        let mut best_score = -INF;
        let mut best_move = moves[0];
        self.path.push(key);
        for i in 0..moves.len() {
            // Lazy selection sort: most cut-offs come from the first moves.
            pick_best(&mut moves, &mut keys, i);
            let m = &moves[i];
            let mut child = *pos;
            child.play_unchecked(m);
            let score = if i == 0 {
                -self.negamax(&child, child_depth, -beta, -alpha, ply + 1)
            } else {
                let mut s = -self.negamax(&child, child_depth, -alpha - 1, -alpha, ply + 1);
                if s > alpha && s < beta && !self.stop {
                    s = -self.negamax(&child, child_depth, -beta, -alpha, ply + 1);
                }
                s
            };
            if self.stop {
                break;
            }
            if score > best_score {
                best_score = score;
                best_move = *m;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        if !m.is_capture() {
                            let id = move_id(m);
                            if self.killers[ply][0] != id {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = id;
                            }
                            let h = &mut self.history[usize::from(m.from().index())]
                                [usize::from(m.to().index())];
                            *h = (*h + depth * depth).min(1 << 15);
                        }
                        break;
                    }
                }
            }
        }
        self.path.pop();
        if self.stop {
            return 0;
        }
        let bound = if best_score >= beta {
            BOUND_LOWER
        } else if best_score > alpha0 {
            BOUND_EXACT
        } else {
            BOUND_UPPER
        };
        self.store(key, &best_move, best_score, depth, bound, ply);
        best_score
    }

    fn store(&mut self, key: u64, m: &Move, score: i32, depth: i32, bound: u8, ply: usize) {
        let idx = (key & self.tt_mask) as usize;
        let e = &mut self.tt[idx];
        if e.key != key || i32::from(e.depth) <= depth || bound == BOUND_EXACT {
            *e = TtEntry {
                key,
                mv: move_id(m),
                score: score_to_tt(score, ply),
                depth: depth.clamp(0, 127) as i8,
                bound,
            };
        }
    }

    fn order_key(&self, m: &Move, tt_move: u32, ply: usize) -> i64 {
        let id = move_id(m);
        if id == tt_move {
            return 1 << 40;
        }
        let mut k: i64 = 0;
        if m.is_capture() {
            k += (1 << 30) + (m.capture_count() as i64) * (1 << 20);
        }
        if m.promotes() {
            k += 1 << 25;
        }
        if ply < MAX_PLY && !m.is_capture() {
            if self.killers[ply][0] == id {
                k += 1 << 19;
            } else if self.killers[ply][1] == id {
                k += 1 << 18;
            }
        }
        k + i64::from(self.history[usize::from(m.from().index())][usize::from(m.to().index())])
    }
}

fn best_if_improved(best: Move, prev: Option<Move>, score: i32, prev_score: i32) -> Option<Move> {
    match prev {
        Some(p) if p != best && score > prev_score => Some(best),
        _ => None,
    }
}

/// Moves the best-keyed move of `moves[i..]` to index `i` (the first of
/// equal keys wins, so the order is deterministic).
fn pick_best(moves: &mut MoveList, keys: &mut [i64], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if keys[j] > keys[best] {
            best = j;
        }
    }
    if best != i {
        moves.swap(i, best);
        keys.swap(i, best);
    }
}

/// Sorts `moves` by decreasing key (stable for equal keys).
fn sort_by_keys(moves: &mut MoveList, keys: &mut [i64]) {
    let mut idx: Vec<usize> = (0..moves.len()).collect();
    idx.sort_by(|&a, &b| keys[b].cmp(&keys[a]));
    let sorted: MoveList = idx.iter().map(|&i| moves[i]).collect();
    *moves = sorted;
}

fn outcome_score(outcome: Outcome, me: Color, ply: usize) -> i32 {
    match outcome.winner() {
        None => 0,
        Some(w) if w == me => MATE - ply as i32,
        Some(_) => -MATE + ply as i32,
    }
}

/// Score when the side to move has no legal move: a loss, unless neither side
/// can move (a draw).
fn no_move_score(pos: &Position, ply: usize) -> i32 {
    match pos.outcome() {
        Some(o) => outcome_score(o, pos.turn(), ply),
        None => -MATE + ply as i32,
    }
}

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = 0x8080_8080_8080_8080;

fn forward(bb: u64, color: Color) -> u64 {
    match color {
        Color::White => bb << 8,
        Color::Black => bb >> 8,
    }
}

/// Quiet steps available to the men of `men` (forward and sideways).
fn man_mobility(men: u64, empty: u64, color: Color) -> i32 {
    let f = forward(men, color) & empty;
    let l = ((men & !FILE_A) >> 1) & empty;
    let r = ((men & !FILE_H) << 1) & empty;
    (f.count_ones() + l.count_ones() + r.count_ones()) as i32
}

/// Whether the side to move has a quiet move (a man step or a king slide).
fn has_quiet_move(pos: &Position) -> bool {
    let empty = !pos.occupied().0;
    let us = pos.us().0;
    let kings = us & pos.kings().0;
    let men = us & !kings;
    if man_mobility(men, empty, pos.turn()) > 0 {
        return true;
    }
    let near = (kings << 8) | (kings >> 8) | ((kings & !FILE_H) << 1) | ((kings & !FILE_A) >> 1);
    near & empty != 0
}

/// Squares a king on `sq` can slide to.
fn king_mobility(sq: u32, empty: u64) -> i32 {
    let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut n = 0;
    for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
        let (mut f, mut r) = (file + df, rank + dr);
        while (0..8).contains(&f) && (0..8).contains(&r) && empty & (1u64 << (r * 8 + f)) != 0 {
            n += 1;
            f += df;
            r += dr;
        }
    }
    n
}

fn side_eval(pos: &Position, color: Color, empty: u64) -> i32 {
    let ours = pos.pieces(color).0;
    let kings = ours & pos.kings().0;
    let men = ours & !kings;
    let mut s = MAN_VALUE * men.count_ones() as i32 + KING_VALUE * kings.count_ones() as i32;
    // Advancement and the back-row guard, by relative row.
    let mut m = men;
    while m != 0 {
        let sq = m.trailing_zeros();
        m &= m - 1;
        let rank = sq / 8;
        let rel = match color {
            Color::White => rank,
            Color::Black => 7 - rank,
        } as usize;
        s += ADVANCE[rel];
        if rel == 1 {
            s += GUARD;
        }
        if rel == 6 {
            let ahead = match color {
                Color::White => sq + 8,
                Color::Black => sq - 8,
            };
            if empty & (1u64 << ahead) != 0 {
                s += RUNAWAY;
            }
        }
    }
    let mut mob = man_mobility(men, empty, color);
    let mut k = kings;
    while k != 0 {
        let sq = k.trailing_zeros();
        k &= k - 1;
        mob += king_mobility(sq, empty);
    }
    s + MOBILITY * mob
}

/// The handcrafted evaluation, in centi-men for the side to move: material
/// (man 100, king 320), advancement of men, men guarding their back row,
/// men one step from promotion with the way free, and mobility.
pub fn evaluate(pos: &Position) -> i32 {
    let empty = !pos.occupied().0;
    let us = pos.turn();
    side_eval(pos, us, empty) - side_eval(pos, !us, empty)
}

/// Material difference in centi-men for the side to move.
pub fn material(pos: &Position) -> i32 {
    let value = |bb: Bitboard| {
        let kings = (bb & pos.kings()).count() as i32;
        MAN_VALUE * (bb.count() as i32 - kings) + KING_VALUE * kings
    };
    value(pos.us()) - value(pos.them())
}

/// The alpha-beta engine as a [`Player`].
pub struct AlphaBetaPlayer {
    name: String,
    limit: AlphaBetaLimit,
    engine: AlphaBeta,
    last: Option<SearchReport>,
}

impl AlphaBetaPlayer {
    /// A player searching to `limit` with a table of `tt_mb` MiB.
    pub fn new(name: impl Into<String>, limit: AlphaBetaLimit, tt_mb: usize) -> Self {
        Self {
            name: name.into(),
            limit,
            engine: AlphaBeta::new(tt_mb),
            last: None,
        }
    }

    /// The same player probing endgame tables.
    #[must_use]
    pub fn with_tablebase(mut self, tablebase: Option<Arc<Tablebase>>) -> Self {
        self.engine.tablebase = tablebase;
        self
    }

    /// The report of the last search.
    pub fn last_report(&self) -> Option<&SearchReport> {
        self.last.as_ref()
    }
}

impl Player for AlphaBetaPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, _rng: &mut dyn RngCore) -> Result<Move, Error> {
        let limits = match self.limit {
            AlphaBetaLimit::Depth(d) => SearchLimits::depth(d),
            AlphaBetaLimit::TimeMs(ms) => SearchLimits::time(Duration::from_millis(ms)),
        };
        let history = crate::game_history_hashes(game);
        let report = self.engine.search(game.position(), &history, limits);
        let best = report.best.ok_or_else(|| Error::Player {
            player: self.name.clone(),
            message: "no legal move".to_owned(),
        })?;
        self.last = Some(report);
        Ok(best)
    }

    fn new_game(&mut self) {
        self.engine.clear();
    }
}

pub(crate) struct AlphaBetaFactory {
    pub(crate) name: String,
    pub(crate) limit: AlphaBetaLimit,
    pub(crate) tt_mb: usize,
    pub(crate) tablebase: Option<Arc<Tablebase>>,
}

impl PlayerFactory for AlphaBetaFactory {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> Result<Box<dyn Player>, Error> {
        Ok(Box::new(
            AlphaBetaPlayer::new(self.name.clone(), self.limit, self.tt_mb)
                .with_tablebase(self.tablebase.clone()),
        ))
    }
}
