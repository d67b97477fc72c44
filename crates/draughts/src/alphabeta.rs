//! A classical engine: iterative deepening principal-variation search with
//! alpha-beta, a Zobrist-keyed transposition table, move ordering (table
//! move, captures, promotions, killers, history with a malus for the quiet
//! moves a cut-off move was tried after), aspiration windows at the root,
//! late-move reductions and, near the horizon, late-move pruning of the
//! plainly quiet moves only ([`Worker::plainly_quiet`]), reverse futility
//! pruning in quiet positions, ProbCut at null-window nodes (a search four
//! plies shallower that beats beta by most of a man cuts the node),
//! quiescence over forced captures and a static evaluation at the leaves:
//! the handcrafted one, or
//! a learned network ([`Evaluation`]; the search is compiled once
//! per [`Evaluator`]).
//!
//! One ply is one whole move (a capture sequence is one ply).
//! Scores are in centi-men from the side to move's point of view; a win in
//! `n` plies scores `MATE - n`.
//!
//! Draw rules are respected inside the tree: the no-capture limit, one piece
//! each, mutual block, and repetition (a position repeated on the search path
//! or already seen in the game since the last capture is scored as a draw,
//! the usual engine shortcut for threefold repetition).
//!
//! The search can run on several threads (Lazy SMP, [`AlphaBeta::with_threads`]):
//! they share the transposition table, which is lockless (two relaxed
//! atomic words per entry, Hyatt's `key ^ data` check).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use dama_engine::{
    Bitboard, Color, Game, Move, MoveList, OnePieceEachRule, Outcome, Position, MAX_MOVES,
};
use dama_tablebase::Tablebase;
use rand::RngCore;

use crate::evaluator::{Evaluation, Evaluator, Handcrafted, Learned};
use crate::Draughts;
use dama_game::player::Choice;
use dama_game::{AlphaBetaLimit, GameError};

use dama_game::player::Player;

/// Score of a win at the root; a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are wins or losses.
pub const MATE_BOUND: i32 = MATE - 1_000;
const INF: i32 = 32_000;
const MAX_PLY: usize = 128;
/// Bound of a history score (either sign): a cut-off adds `bonus` scaled
/// by how far the score is from the bound ("history gravity"), so scores
/// saturate rather than overflow and recent cut-offs outweigh old ones.
const HISTORY_MAX: i32 = 1 << 15;
/// Late-move reductions start at this move of a node (0-based) ...
const LMR_FIRST: usize = 3;
/// ... of this depth or more.
const LMR_DEPTH: i32 = 3;
/// ProbCut: at null-window nodes of this depth or more ...
const PROBCUT_DEPTH: i32 = 5;
/// ... a search this much shallower ...
const PROBCUT_REDUCTION: i32 = 4;
/// ... that beats beta by this margin (centi-men) cuts the node off.
const PROBCUT_MARGIN: i32 = 80;
/// Late-move pruning: at null-window nodes of this depth or less, the
/// late plainly quiet moves are not searched ...
const LMP_DEPTH: i32 = 3;
/// ... counting from this move (0-based) plus the depth squared.
const LMP_FIRST: usize = 3;
/// Reverse futility pruning: at null-window nodes of this depth or less ...
const RFP_DEPTH: i32 = 3;
/// ... a static evaluation that beats beta by this margin per ply of
/// depth (centi-men) cuts the node off.
const RFP_MARGIN: i32 = 75;
/// Half-width of the root's aspiration window (centi-men) ...
const ASPIRATION: i32 = 25;
/// ... from this iteration on.
const ASPIRATION_DEPTH: u32 = 4;

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
    /// Node budget: of all threads together (with several threads the
    /// main thread checks their sum every 1024 of its nodes; one thread
    /// stops at the exact count).
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
    /// Whether `score` is the endgame tables' (the root is in them, and
    /// `depth` is 0).
    pub tablebase: bool,
}

impl SearchReport {
    /// The score, if the search completed a depth or the root is in the
    /// endgame tables: a move played without either (the only legal one)
    /// has none.
    pub fn known_score(&self) -> Option<i32> {
        (self.depth > 0 || self.tablebase).then_some(self.score)
    }

    /// Nodes per second.
    pub fn nps(&self) -> f64 {
        self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// One entry of the transposition table, as packed into the 64-bit data
/// word of a [`Slot`]: the move id in bits 0..32, the score (`i16`) in bits
/// 32..48, the depth (`i8`) in bits 48..56 and the bound in bits 56..64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct TtEntry {
    mv: u32,
    score: i16,
    depth: i8,
    bound: u8,
}

impl TtEntry {
    fn pack(self) -> u64 {
        u64::from(self.mv)
            | (u64::from(self.score as u16) << 32)
            | (u64::from(self.depth as u8) << 48)
            | (u64::from(self.bound) << 56)
    }

    fn unpack(data: u64) -> Self {
        TtEntry {
            mv: data as u32,
            score: (data >> 32) as u16 as i16,
            depth: (data >> 48) as u8 as i8,
            bound: (data >> 56) as u8,
        }
    }
}

/// One slot of the shared table: Hyatt's lockless hashing. The slot holds
/// `key ^ data` and `data`, each written and read with relaxed atomics; a
/// slot torn by two threads writing at once (one's check word, the other's
/// data word) fails the key check and reads as a miss, so a probe never
/// returns another position's data (short of a hash collision).
#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// The transposition table, shared by every thread of a search without
/// locks (see [`Slot`]).
struct Table {
    slots: Box<[Slot]>,
    mask: u64,
}

impl Table {
    /// A table of about `mb` MiB (a power of two number of slots, at least
    /// 1024).
    fn new(mb: usize) -> Self {
        let entries = (mb.max(1) << 20) / std::mem::size_of::<Slot>();
        let size = (entries.next_power_of_two() / 2).max(1024);
        Table {
            slots: (0..size).map(|_| Slot::default()).collect(),
            mask: size as u64 - 1,
        }
    }

    fn clear(&mut self) {
        for s in self.slots.iter_mut() {
            *s.check.get_mut() = 0;
            *s.data.get_mut() = 0;
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> &Slot {
        &self.slots[(key & self.mask) as usize]
    }

    /// The entry of the position `key`, if its slot holds it.
    #[inline]
    fn probe(&self, key: u64) -> Option<TtEntry> {
        let slot = self.slot(key);
        let data = slot.data.load(Ordering::Relaxed);
        let check = slot.check.load(Ordering::Relaxed);
        (check ^ data == key).then(|| TtEntry::unpack(data))
    }

    /// Stores `entry` for `key`, replacing the slot's entry if it is another
    /// position's, not deeper, or if `entry` is exact.
    #[inline]
    fn store(&self, key: u64, entry: TtEntry) {
        let slot = self.slot(key);
        let data = slot.data.load(Ordering::Relaxed);
        let check = slot.check.load(Ordering::Relaxed);
        let old = TtEntry::unpack(data);
        if check ^ data != key || old.depth <= entry.depth || entry.bound == BOUND_EXACT {
            let data = entry.pack();
            slot.data.store(data, Ordering::Relaxed);
            slot.check.store(key ^ data, Ordering::Relaxed);
        }
    }

    /// The principal variation from `pos`: the table's moves, at most `max`.
    fn pv(&self, pos: &Position, max: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut p = *pos;
        let mut seen = Vec::new();
        while pv.len() < max {
            let Some(e) = self.probe(p.hash()) else {
                break;
            };
            if e.mv == 0 || seen.contains(&p.hash()) {
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
}

const BOUND_EXACT: u8 = 1;
const BOUND_LOWER: u8 = 2;
const BOUND_UPPER: u8 = 3;

/// The most search threads an engine runs ([`AlphaBeta::with_threads`]).
pub const MAX_THREADS: usize = dama_game::own::MAX_SEARCH_THREADS;

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

/// What each search thread keeps to itself between searches: killers,
/// history and the repetition path.
struct ThreadData {
    killers: [[u32; 2]; MAX_PLY],
    history: Box<[[i32; 64]; 64]>,
    /// Hashes of the search path, then of earlier game positions, since the
    /// last capture.
    path: Vec<u64>,
}

impl Default for ThreadData {
    fn default() -> Self {
        ThreadData {
            killers: [[0; 2]; MAX_PLY],
            history: Box::new([[0; 64]; 64]),
            path: Vec::with_capacity(256),
        }
    }
}

impl ThreadData {
    fn clear(&mut self) {
        self.killers = [[0; 2]; MAX_PLY];
        for row in self.history.iter_mut() {
            row.fill(0);
        }
    }

    /// Readies the data for a new search from a position whose repetition
    /// history (since the last capture) is `path`: killers cleared, history
    /// aged.
    fn prepare(&mut self, path: &[u64]) {
        self.killers = [[0; 2]; MAX_PLY];
        for row in self.history.iter_mut() {
            for h in row.iter_mut() {
                *h /= 8;
            }
        }
        self.path.clear();
        self.path.extend_from_slice(path);
    }
}

/// The engine: tables persist between searches of one game.
///
/// With [`AlphaBeta::with_threads`] above 1 it searches with Lazy SMP: the
/// calling thread (the main thread) and `threads - 1` helpers run the same
/// iterative deepening on the same root at once, sharing the transposition
/// table (lockless, see [`Slot`]); each thread has its own killers, history,
/// repetition path, node counter and evaluator state. What one thread
/// stores the others find, so they search faster together than alone,
/// though nothing divides the work explicitly. Helpers are diversified:
/// odd helpers start one ply deeper than the main thread, and even helpers
/// search the root moves after the first in a rotated order. When the main
/// thread stops (its depth, time or node limit), it raises a shared stop
/// flag that helpers check at every node.
///
/// The answer is the deepest iteration any thread completed, the main
/// thread's on a tie (so a fixed-depth search always answers with the main
/// thread's result: a helper cannot go beyond the depth limit). A deeper
/// iteration of a helper (an odd helper runs one ply ahead) saw more than
/// the main thread's last one, and its table entries are the ones the main
/// thread was using anyway; Stockfish picks between threads by depth and
/// score in the same spirit. Nodes are summed over the threads.
pub struct AlphaBeta {
    tt: Table,
    /// The main thread's data, then each helper's.
    threads: Vec<ThreadData>,
    tablebase: Option<Arc<Tablebase>>,
    evaluation: Evaluation,
    /// Raised from outside to stop the search (a protocol's `stop`).
    abort: Option<Arc<AtomicBool>>,
    /// Whether late moves are reduced ([`AlphaBeta::with_reductions`]).
    reductions: bool,
}

/// Score of a tablebase win at the root; a win whose capture (or end) is
/// `d` plies away scores `TB_WIN - d`, below every mate score, above every
/// evaluation.
pub const TB_WIN: i32 = 20_000;

impl std::fmt::Debug for AlphaBeta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlphaBeta")
            .field("tt_entries", &self.tt.slots.len())
            .field("threads", &self.threads.len())
            .finish_non_exhaustive()
    }
}

impl AlphaBeta {
    /// An engine with a transposition table of about `tt_mb` MiB, searching
    /// with one thread.
    pub fn new(tt_mb: usize) -> Self {
        Self {
            tt: Table::new(tt_mb),
            threads: vec![ThreadData::default()],
            tablebase: None,
            evaluation: Evaluation::Handcrafted,
            abort: None,
            reductions: true,
        }
    }

    /// Whether late quiet moves are searched shallower and ProbCut cuts
    /// nodes on a shallower search (on by default). Without them the
    /// search is exact: its score at a depth is plain negamax's, which the
    /// tests check (aspiration windows do not change it).
    #[must_use]
    pub fn with_reductions(mut self, on: bool) -> Self {
        self.reductions = on;
        self
    }

    /// Stops each search when `flag` is raised (checked every 1024 nodes
    /// of the main thread, like the clock): the search answers with its
    /// deepest completed iteration, as when its time runs out. The flag is
    /// the caller's to lower before the next search.
    #[must_use]
    pub fn with_abort(mut self, flag: Arc<AtomicBool>) -> Self {
        self.abort = Some(flag);
        self
    }

    /// Searches with `threads` threads (Lazy SMP, see [`AlphaBeta`]);
    /// clamped to `1..=`[`MAX_THREADS`]. One thread (the default) searches
    /// on the calling thread alone.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads
            .resize_with(threads.clamp(1, MAX_THREADS), ThreadData::default);
        self
    }

    /// The number of search threads.
    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// Evaluates leaves with `evaluation` (the handcrafted evaluation by
    /// default).
    #[must_use]
    pub fn with_evaluation(mut self, evaluation: Evaluation) -> Self {
        self.evaluation = evaluation;
        self
    }

    /// The evaluation the engine plays with.
    pub fn evaluation(&self) -> &Evaluation {
        &self.evaluation
    }

    /// Probes `tablebase` in the search (positions it holds are scored
    /// exactly, and a root it holds plays its best move).
    #[must_use]
    pub fn with_tablebase(mut self, tablebase: Option<Arc<Tablebase>>) -> Self {
        self.tablebase = tablebase;
        self
    }

    /// Clears the transposition table, killers and history.
    pub fn clear(&mut self) {
        self.tt.clear();
        for t in &mut self.threads {
            t.clear();
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
        match self.evaluation.clone() {
            Evaluation::Handcrafted => {
                self.search_with_evaluator(&Handcrafted, pos, history, limits)
            }
            Evaluation::Learned { network, .. } => {
                self.search_with_evaluator(&Learned(network), pos, history, limits)
            }
        }
    }

    /// [`AlphaBeta::search`] with the evaluator `e` instead of the engine's
    /// [`Evaluation`] (for evaluators outside [`Evaluation`], such as a
    /// float reference network in tests). `e` is shared by the search
    /// threads, hence `Sync`; each thread makes its own
    /// [`Evaluator::State`]s.
    pub fn search_with_evaluator<E: Evaluator + Sync>(
        &mut self,
        e: &E,
        pos: &Position,
        history: &[u64],
        limits: SearchLimits,
    ) -> SearchReport {
        let start = Instant::now();
        // Repetition history: positions since the last capture. The
        // no-capture counter tells how far back that is.
        let back = usize::from(pos.plies_since_capture()).min(history.len());
        let path = &history[history.len() - back..];
        for t in &mut self.threads {
            t.prepare(path);
        }

        let root_moves = pos.legal_moves();
        let mut report = SearchReport {
            best: root_moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: Vec::new(),
            tablebase: false,
        };
        if root_moves.len() <= 1 {
            report.elapsed = start.elapsed();
            return report;
        }
        // A root the tables hold: their best move (fastest win, longest
        // loss), no search.
        let tablebase = self.tablebase.as_deref();
        if let Some(score) = tablebase_score(tablebase, pos, 0) {
            if let Some((best, _)) = tablebase
                .and_then(|tb| tb.best_moves(pos))
                .and_then(|m| m.first().copied())
            {
                report.best = Some(best);
                report.score = score;
                report.tablebase = true;
                report.elapsed = start.elapsed();
                report.pv = vec![best];
                return report;
            }
        }
        let max_depth = limits.depth.unwrap_or(100).clamp(1, MAX_PLY as u32 - 8);
        let signal = AtomicBool::new(false);
        let counter = AtomicU64::new(0);
        let shared = Shared {
            tt: &self.tt,
            tablebase,
            signal: &signal,
            counter: (self.threads.len() > 1).then_some(&counter),
            deadline: limits.time.map(|t| start + t),
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            abort: self.abort.as_deref(),
            reductions: self.reductions,
        };
        // Each thread's data moves into its worker and back.
        let mut datas = std::mem::take(&mut self.threads).into_iter();
        let main = datas.next().expect("at least the main thread");
        let mut results = Vec::with_capacity(datas.len() + 1);
        if datas.len() == 0 {
            results.push(Worker::new(&shared, main, 0).iterate(e, pos, root_moves, max_depth));
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = datas
                    .enumerate()
                    .map(|(i, data)| {
                        let (shared, moves) = (&shared, root_moves.clone());
                        s.spawn(move || {
                            Worker::new(shared, data, i + 1).iterate(e, pos, moves, max_depth)
                        })
                    })
                    .collect();
                results.push(Worker::new(&shared, main, 0).iterate(e, pos, root_moves, max_depth));
                signal.store(true, Ordering::Relaxed);
                for h in handles {
                    results.push(h.join().expect("a search thread panicked"));
                }
            });
        }
        let nodes = results.iter().map(|(r, _)| r.nodes).sum();
        let mut chosen: Option<ThreadResult> = None;
        for (r, data) in results {
            self.threads.push(data);
            // The deepest completed iteration, the main thread's on a tie.
            if chosen.as_ref().is_none_or(|c| r.depth > c.depth) {
                chosen = Some(r);
            }
        }
        let chosen = chosen.expect("at least the main thread");
        report.best = chosen.best;
        report.score = chosen.score;
        report.depth = chosen.depth;
        report.pv = chosen.pv;
        report.nodes = nodes;
        report.elapsed = start.elapsed();
        // The PV starts with the move played.
        if report.pv.first() != report.best.as_ref() {
            report.pv = report.best.into_iter().collect();
        }
        report
    }
}

/// The tables' score of `pos` for the side to move, if they hold it.
fn tablebase_score(tb: Option<&Tablebase>, pos: &Position, ply: usize) -> Option<i32> {
    let tb = tb?;
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

/// What the threads of one search share.
#[derive(Clone, Copy)]
struct Shared<'a> {
    tt: &'a Table,
    tablebase: Option<&'a Tablebase>,
    /// Raised by the main thread when it stops; helpers stop on it.
    signal: &'a AtomicBool,
    /// Nodes of all threads, added in batches of 1024 (only with helpers).
    counter: Option<&'a AtomicU64>,
    deadline: Option<Instant>,
    node_limit: u64,
    /// Raised from outside to stop the search ([`AlphaBeta::with_abort`]).
    abort: Option<&'a AtomicBool>,
    /// Whether late moves are reduced.
    reductions: bool,
}

/// What one thread found.
struct ThreadResult {
    best: Option<Move>,
    score: i32,
    /// The deepest iteration it completed.
    depth: u32,
    pv: Vec<Move>,
    nodes: u64,
}

/// One search thread: the main thread (`id` 0) or a helper.
struct Worker<'a> {
    shared: Shared<'a>,
    id: usize,
    data: ThreadData,
    nodes: u64,
    stop: bool,
}

impl<'a> Worker<'a> {
    fn new(shared: &Shared<'a>, data: ThreadData, id: usize) -> Self {
        Worker {
            shared: *shared,
            id,
            data,
            nodes: 0,
            stop: false,
        }
    }

    /// Iterative deepening from `pos` up to `max_depth`: from depth 1 for the
    /// main thread and even helpers, depth 2 for odd helpers. Returns what
    /// it found and the thread's data.
    fn iterate<E: Evaluator>(
        mut self,
        e: &E,
        pos: &Position,
        mut root_moves: MoveList,
        max_depth: u32,
    ) -> (ThreadResult, ThreadData) {
        let mut result = ThreadResult {
            best: root_moves.first().copied(),
            score: 0,
            depth: 0,
            pv: Vec::new(),
            nodes: 0,
        };
        let first = 1 + (self.id % 2) as u32;
        for depth in first..=max_depth {
            let (best, score, complete) = self.aspirate(e, pos, &mut root_moves, depth, &result);
            if complete {
                result.best = Some(best);
                result.score = score;
                result.depth = depth;
                // Read now: an aborted next iteration may overwrite the
                // table entries of this line (it did, on a timed search
                // from the initial position, leaving no PV at all).
                result.pv = self.shared.tt.pv(pos, depth as usize + 4);
            } else {
                // An aborted iteration searched the previous best move first;
                // a move that beat it is trustworthy.
                if let Some(m) = best_if_improved(best, result.best, score, result.score) {
                    result.best = Some(m);
                    result.score = score;
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
        result.nodes = self.nodes;
        (result, self.data)
    }

    /// One iteration at the root in an aspiration window: from the second
    /// iteration on, a window of [`ASPIRATION`] either side of the last
    /// iteration's score, widened (doubling its margin) on the side it
    /// fails until the score falls inside. Returns what [`Worker::root`]
    /// returns for the last window searched.
    fn aspirate<E: Evaluator>(
        &mut self,
        e: &E,
        pos: &Position,
        moves: &mut MoveList,
        depth: u32,
        last: &ThreadResult,
    ) -> (Move, i32, bool) {
        let centre = last.score;
        if last.depth == 0 || depth < ASPIRATION_DEPTH || centre.abs() > MATE_BOUND {
            return self.root(e, pos, moves, depth as i32, -INF, INF);
        }
        let mut delta = ASPIRATION;
        let (mut alpha, mut beta) = ((centre - delta).max(-INF), (centre + delta).min(INF));
        loop {
            let (best, score, complete) = self.root(e, pos, moves, depth as i32, alpha, beta);
            if !complete {
                return (best, score, complete);
            }
            delta *= 2;
            if score <= alpha && alpha > -INF {
                alpha = (score - delta).max(-INF);
            } else if score >= beta && beta < INF {
                beta = (score + delta).min(INF);
            } else {
                return (best, score, complete);
            }
        }
    }

    /// One iteration at the root in the window `alpha..beta`; returns the
    /// best move, its score (a bound if it falls outside the window) and
    /// whether the iteration completed.
    fn root<E: Evaluator>(
        &mut self,
        e: &E,
        pos: &Position,
        moves: &mut MoveList,
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> (Move, i32, bool) {
        let state = e.root(pos);
        // Order: table move (the previous best) first, then by the usual keys.
        let tt_move = self.shared.tt.probe(pos.hash()).map_or(0, |e| e.mv);
        let mut keys: Vec<i64> = moves
            .iter()
            .map(|m| self.order_key(m, tt_move, 0))
            .collect();
        sort_by_keys(moves, &mut keys);
        // Even helpers try the other moves in another order.
        if self.id > 0 && self.id.is_multiple_of(2) && moves.len() > 2 {
            let n = moves.len() - 1;
            moves[1..].rotate_left((self.id / 2) % n);
        }
        let alpha0 = alpha;
        let mut best_score = -INF;
        let mut best = moves[0];
        self.data.path.push(pos.hash());
        let mut complete = true;
        for (i, m) in moves.iter().enumerate() {
            let mut child = *pos;
            child.play_unchecked(m);
            let st = e.child(&state, pos, &child);
            let score = if i == 0 {
                -self.negamax(e, &st, &child, depth - 1, -beta, -alpha, 1)
            } else {
                let mut s = -self.negamax(e, &st, &child, depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && !self.stop {
                    s = -self.negamax(e, &st, &child, depth - 1, -beta, -alpha, 1);
                }
                s
            };
            if self.stop {
                complete = false;
                break;
            }
            if score > best_score {
                best_score = score;
                best = *m;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.data.path.pop();
        if complete {
            let bound = bound(best_score, alpha0, beta);
            self.store(pos.hash(), &best, best_score, depth, bound, 0);
        }
        (best, best_score, complete)
    }

    #[inline]
    fn check_limits(&mut self) {
        match self.shared.counter {
            // Alone: the node limit exactly.
            None => {
                if self.nodes >= self.shared.node_limit {
                    self.stop = true;
                }
            }
            // With other threads: the main thread stops on the sum of the
            // threads' nodes, helpers on the main thread's signal.
            Some(counter) => {
                if self.id > 0 {
                    if self.shared.signal.load(Ordering::Relaxed) {
                        self.stop = true;
                    }
                } else if self.nodes & 1023 == 0
                    && counter.load(Ordering::Relaxed) >= self.shared.node_limit
                {
                    self.stop = true;
                }
                if self.nodes & 1023 == 0 {
                    counter.fetch_add(1024, Ordering::Relaxed);
                }
            }
        }
        if self.id == 0 && self.nodes & 1023 == 0 {
            if let Some(d) = self.shared.deadline {
                if Instant::now() >= d {
                    self.stop = true;
                }
            }
            if self.shared.abort.is_some_and(|a| a.load(Ordering::Relaxed)) {
                self.stop = true;
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
                .data
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

    #[allow(clippy::too_many_arguments)]
    fn negamax<E: Evaluator>(
        &mut self,
        e: &E,
        state: &E::State,
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
            if let Some(s) = tablebase_score(self.shared.tablebase, pos, ply) {
                return s;
            }
        }
        if ply >= MAX_PLY - 1 {
            return e.evaluate(pos, state);
        }
        // Quiescence: at depth 0 a side that must capture has no stand-pat,
        // so every capture is searched (depth stays at 0); otherwise the
        // static evaluation stands. Leaves are told apart without
        // generating moves.
        if depth <= 0 && !pos.has_capture() {
            if !has_quiet_move(pos) {
                return no_move_score(pos, ply);
            }
            return e.evaluate(pos, state);
        }
        // Mate-distance pruning's window ...
        let mate_alpha = alpha.max(-MATE + ply as i32);
        let mate_beta = beta.min(MATE - ply as i32 - 1);
        // ... in which the table is probed before the moves are generated:
        // a cut-off from it needs none. (A position without moves is never
        // stored: its node returns before the store.)
        let key = pos.hash();
        let mut tt_move = 0;
        if let Some(entry) = self.shared.tt.probe(key) {
            tt_move = entry.mv;
            if i32::from(entry.depth) >= depth && mate_alpha < mate_beta {
                let s = score_from_tt(entry.score, ply);
                let cutoff = match entry.bound {
                    BOUND_EXACT => true,
                    BOUND_LOWER => s >= mate_beta,
                    BOUND_UPPER => s <= mate_alpha,
                    _ => false,
                };
                if cutoff {
                    return s;
                }
            }
        }
        let mut moves = MoveList::new();
        pos.legal_moves_into(&mut moves);
        if moves.is_empty() {
            return no_move_score(pos, ply);
        }
        (alpha, beta) = (mate_alpha, mate_beta);
        if alpha >= beta {
            return alpha;
        }

        // Reverse futility: at a null window near the horizon, where the
        // side to move need not capture and no capture threatens it, a
        // static evaluation that beats beta by RFP_MARGIN a ply is taken as
        // a cut-off (draughts' shots start with a threat or a capture,
        // which the guard leaves to the search).
        if self.shared.reductions
            && ply > 0
            && beta - alpha == 1
            && depth <= RFP_DEPTH
            && beta.abs() < MATE_BOUND
            && !pos.has_capture()
            && !pos.has_threat()
        {
            let s = e.evaluate(pos, state);
            if s - RFP_MARGIN * depth >= beta {
                return s;
            }
        }

        // ProbCut: at a null window far enough from the horizon, a search
        // shallower by PROBCUT_REDUCTION that beats beta by PROBCUT_MARGIN
        // is taken as a cut-off.
        if self.shared.reductions
            && ply > 0
            && beta - alpha == 1
            && depth >= PROBCUT_DEPTH
            && beta.abs() < MATE_BOUND
        {
            let rbeta = beta + PROBCUT_MARGIN;
            let s = self.negamax(
                e,
                state,
                pos,
                depth - PROBCUT_REDUCTION,
                rbeta - 1,
                rbeta,
                ply,
            );
            if self.stop {
                return 0;
            }
            if s >= rbeta {
                return s;
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
        // Quiet moves searched before a cut-off lose the history the
        // cut-off move gains.
        let mut quiets_tried: ArrayVec<(u8, u8), MAX_MOVES> = ArrayVec::new();
        // Captures are compulsory: either every move captures or none does.
        let quiet_node = !moves[0].is_capture();
        self.data.path.push(key);
        for i in 0..moves.len() {
            // Lazy selection sort: most cut-offs come from the first moves.
            pick_best(&mut moves, &mut keys, i);
            let m = &moves[i];
            let mut child = *pos;
            child.play_unchecked(m);
            // Only quiet nodes' moves get an id: killers and the
            // reductions' tests are for quiet moves.
            let id = if quiet_node { move_id(m) } else { 0 };
            // Late-move pruning: near the horizon, at a null window, the
            // late plainly quiet moves are not searched at all once one
            // move has been.
            let prunable = beta - alpha == 1
                && depth <= LMP_DEPTH
                && i >= LMP_FIRST + (depth * depth) as usize
                && best_score > -MATE_BOUND;
            // The plainly-quiet test probes the child twice: it is asked
            // only where pruning or a reduction would act on its answer.
            let late = self.shared.reductions
                && quiet_node
                && i >= LMR_FIRST
                && (prunable || depth >= LMR_DEPTH)
                && self.plainly_quiet(m, id, &child, tt_move, ply);
            if late && prunable {
                continue;
            }
            let reduction = if late && depth >= LMR_DEPTH {
                if depth >= 6 && i >= 2 * LMR_FIRST {
                    2
                } else {
                    1
                }
            } else {
                0
            };
            let st = e.child(state, pos, &child);
            let score = if i == 0 {
                -self.negamax(e, &st, &child, child_depth, -beta, -alpha, ply + 1)
            } else {
                let mut s = -self.negamax(
                    e,
                    &st,
                    &child,
                    child_depth - reduction,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                );
                if reduction > 0 && s > alpha && !self.stop {
                    s = -self.negamax(e, &st, &child, child_depth, -alpha - 1, -alpha, ply + 1);
                }
                if s > alpha && s < beta && !self.stop {
                    s = -self.negamax(e, &st, &child, child_depth, -beta, -alpha, ply + 1);
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
                            let killers = &mut self.data.killers[ply];
                            if killers[0] != id {
                                killers[1] = killers[0];
                                killers[0] = id;
                            }
                            let bonus = (depth * depth).min(HISTORY_MAX / 4);
                            let h = &mut self.data.history[usize::from(m.from().index())]
                                [usize::from(m.to().index())];
                            *h += bonus - *h * bonus / HISTORY_MAX;
                            for &(from, to) in &quiets_tried {
                                let h = &mut self.data.history[usize::from(from)][usize::from(to)];
                                *h -= bonus + *h * bonus / HISTORY_MAX;
                            }
                        }
                        break;
                    }
                }
            }
            if !m.is_capture() {
                quiets_tried.push((m.from().index(), m.to().index()));
            }
        }
        self.data.path.pop();
        if self.stop {
            return 0;
        }
        let bound = bound(best_score, alpha0, beta);
        self.store(key, &best_move, best_score, depth, bound, ply);
        best_score
    }

    #[inline]
    fn store(&self, key: u64, m: &Move, score: i32, depth: i32, bound: u8, ply: usize) {
        self.shared.tt.store(
            key,
            TtEntry {
                mv: move_id(m),
                score: score_to_tt(score, ply),
                depth: depth.clamp(0, 127) as i8,
                bound,
            },
        );
    }

    /// Whether a late quiet move may be searched shallower than the others
    /// (at a null window, searched again at full depth if it beats alpha)
    /// or, near the horizon, not at all: only a move the history says
    /// fails (never one that refuted a sibling), that neither promotes nor
    /// threatens a capture and after which the opponent need not capture.
    /// Draughts' quiet moves are often its tactics, so only the plainly
    /// quiet ones are reduced or pruned.
    fn plainly_quiet(&self, m: &Move, id: u32, child: &Position, tt_move: u32, ply: usize) -> bool {
        let killers = &self.data.killers[ply];
        let history = self.data.history[usize::from(m.from().index())][usize::from(m.to().index())];
        !(id == tt_move
            || killers.contains(&id)
            || history > 0
            || m.promotes()
            || child.has_capture()
            || child.has_threat())
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
            let killers = &self.data.killers[ply];
            if killers[0] == id {
                k += 1 << 19;
            } else if killers[1] == id {
                k += 1 << 18;
            }
        }
        k + i64::from(self.data.history[usize::from(m.from().index())][usize::from(m.to().index())])
    }
}

/// The table bound of a node's best score, searched in the window
/// `alpha..beta`.
fn bound(score: i32, alpha: i32, beta: i32) -> u8 {
    if score >= beta {
        BOUND_LOWER
    } else if score > alpha {
        BOUND_EXACT
    } else {
        BOUND_UPPER
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

    /// The same player with the evaluation `evaluation`.
    #[must_use]
    pub fn with_evaluation(mut self, evaluation: Evaluation) -> Self {
        self.engine.evaluation = evaluation;
        self
    }

    /// The same player searching with `threads` threads
    /// ([`AlphaBeta::with_threads`]).
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.engine = self.engine.with_threads(threads);
        self
    }

    /// The report of the last search.
    pub fn last_report(&self) -> Option<&SearchReport> {
        self.last.as_ref()
    }
}

impl AlphaBetaPlayer {
    fn search_game(
        &mut self,
        game: &Game,
        time: Option<Duration>,
    ) -> Result<SearchReport, GameError> {
        self.engine.evaluation.check_rules(game.rules())?;
        let limits = match (time, self.limit) {
            (Some(t), _) => SearchLimits::time(t),
            (None, AlphaBetaLimit::Depth(d)) => SearchLimits::depth(d),
            (None, AlphaBetaLimit::TimeMs(ms)) => SearchLimits::time(Duration::from_millis(ms)),
        };
        let history = game_history_hashes(game);
        let report = self.engine.search(game.position(), &history, limits);
        if report.best.is_none() {
            return Err(dama_game::player::NoMove.into());
        }
        Ok(report)
    }
}

impl Player<Draughts> for AlphaBetaPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, _rng: &mut dyn RngCore) -> Result<Move, GameError> {
        let report = self.search_game(game, None)?;
        let best = report.best.ok_or(dama_game::player::NoMove)?;
        self.last = Some(report);
        Ok(best)
    }

    fn think(
        &mut self,
        game: &Game,
        time: Option<Duration>,
        _rng: &mut dyn RngCore,
    ) -> Result<Choice<Move>, GameError> {
        let report = self.search_game(game, time)?;
        let best = report.best.ok_or(dama_game::player::NoMove)?;
        let mut choice = Choice::of(best);
        choice.score = report.known_score().map(|s| (s, report.depth));
        if report.pv.first() == Some(&best) {
            choice.pv.clone_from(&report.pv);
        }
        choice.nodes = report.nodes;
        self.last = Some(report);
        Ok(choice)
    }

    fn new_game(&mut self) {
        self.engine.clear();
    }
}

/// Hashes of the positions of `game` before the current one, oldest first
/// (for repetition detection in searches).
pub fn game_history_hashes(game: &Game) -> Vec<u64> {
    let mut pos = *game.start_position();
    let mut out = Vec::with_capacity(game.moves().len());
    for m in game.moves() {
        out.push(pos.hash());
        pos.play_unchecked(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_entries_pack_and_unpack() {
        for mv in [0, 1, 0x1234_5678, u32::MAX] {
            for score in [0, 1, -1, 137, -137, MATE as i16 - 3, -(MATE as i16) + 3] {
                for score in [score, i16::MIN, i16::MAX] {
                    for depth in [0, 1, 63, 127, -1, i8::MIN] {
                        for bound in [0, BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, u8::MAX] {
                            let e = TtEntry {
                                mv,
                                score,
                                depth,
                                bound,
                            };
                            assert_eq!(TtEntry::unpack(e.pack()), e);
                        }
                    }
                }
            }
        }
        // Scores round-trip through the table with their mate distance.
        for (score, ply) in [(MATE - 7, 3), (-MATE + 9, 5), (-250, 4), (TB_WIN - 40, 2)] {
            let packed = TtEntry {
                mv: 9,
                score: score_to_tt(score, ply),
                depth: 4,
                bound: BOUND_LOWER,
            }
            .pack();
            assert_eq!(score_from_tt(TtEntry::unpack(packed).score, ply), score);
        }
    }

    #[test]
    fn the_table_stores_probes_and_replaces_as_before() {
        let table = Table::new(1);
        assert_eq!(table.slots.len(), 1 << 15);
        let entry = |depth: i8, bound: u8| TtEntry {
            mv: 77,
            score: -42,
            depth,
            bound,
        };
        let key = 0xdead_beef_0000_0005;
        assert_eq!(table.probe(key), None);
        table.store(key, entry(5, BOUND_LOWER));
        assert_eq!(table.probe(key), Some(entry(5, BOUND_LOWER)));
        // Another position in the same slot is a miss.
        let other = key ^ (1 << 40);
        assert_eq!(table.probe(other), None);
        // A shallower bound does not replace a deeper entry; an exact one
        // does, and so does another position.
        table.store(key, entry(3, BOUND_UPPER));
        assert_eq!(table.probe(key), Some(entry(5, BOUND_LOWER)));
        table.store(key, entry(5, BOUND_UPPER));
        assert_eq!(table.probe(key), Some(entry(5, BOUND_UPPER)));
        table.store(key, entry(2, BOUND_EXACT));
        assert_eq!(table.probe(key), Some(entry(2, BOUND_EXACT)));
        table.store(other, entry(1, BOUND_UPPER));
        assert_eq!(table.probe(key), None);
        assert_eq!(table.probe(other), Some(entry(1, BOUND_UPPER)));
        // A slot torn by two writers (one's data, the other's check) is a
        // miss for both.
        let slot = table.slot(key);
        slot.data
            .store(entry(9, BOUND_EXACT).pack(), Ordering::Relaxed);
        assert_eq!(table.probe(key), None);
        assert_eq!(table.probe(other), None);
    }

    #[test]
    fn a_raised_abort_flag_stops_an_unlimited_search() {
        let flag = Arc::new(AtomicBool::new(false));
        let mut engine = AlphaBeta::new(1).with_abort(flag.clone());
        let pos = Position::startpos();
        // Lowered: a search to depth 4 completes it.
        let full = engine.search(&pos, &[], SearchLimits::depth(4));
        assert_eq!(full.depth, 4);
        // Raised: a search with no depth or time limit (the node budget
        // only keeps a broken flag from hanging the test) stops within
        // its first 1024 nodes, with a legal move.
        flag.store(true, Ordering::Relaxed);
        engine.clear();
        let limits = SearchLimits {
            nodes: Some(50_000_000),
            ..SearchLimits::default()
        };
        let stopped = engine.search(&pos, &[], limits);
        assert!(stopped.nodes < 2048, "{} nodes", stopped.nodes);
        assert!(pos.legal_moves().contains(&stopped.best.unwrap()));
    }
}
