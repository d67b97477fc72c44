//! Generation by retrograde analysis.
//!
//! Each material split is solved over its full index (both sides to move,
//! no mirror reduction) and then stored mirror-reduced. Splits are solved in
//! the order of [`Material::all_up_to`], so every capture (fewer pieces) and
//! every promotion (one man fewer, one king more) leads into a table that is
//! already solved; only quiet moves that do not promote stay in the split.
//!
//! One pass over a split:
//!
//! 1. *Initialisation* (parallel): every index is decoded; terminal positions
//!    (no move, mutual block) and positions with captures (which, capture
//!    being mandatory, have only captures) are final at once from the rules
//!    and the smaller tables. For the others, the number of quiet
//!    non-promoting moves is counted, and promotions (into solved splits)
//!    are backed up at once.
//! 2. *Propagation* (one thread, in order of distance, a bucket queue):
//!    a position resolved as a loss at distance `d` makes every predecessor
//!    (found by un-moves: the side that just moved steps back, and the
//!    predecessor must have had no capture) a win at `d + 1`, if not already
//!    a win at most that; a position resolved as a win lowers its
//!    predecessors' counters of unresolved children, and a predecessor with
//!    none left (and no drawing promotion) is a loss at one more than its
//!    longest child. What is left unresolved is a draw (cycles, repetition).
//!
//! With the no-capture rule on, two passes run: one with the rule (captures
//! only keep a win that stands at counter 0, distances as in
//! [`crate::value`]) and one without, for plain win/draw/loss (which tells
//! cursed wins and blessed losses from draws).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use dama_engine::{Bitboard, Color, Direction, Position, Rules, Square};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::index::{overlap, Indexer, Sets, MEN_SQUARES};
use crate::table::{normalized, pack, Stats, Table, DRAW, LOSS, UNUSED, WIN};
use crate::value::{limit, raw_value, Backup, Lookup, Raw};
use crate::{Material, MAX_PIECES};

const UNKNOWN: u8 = 0;
const TENTATIVE: u8 = 1;
const S_WIN: u8 = 2;
const S_LOSS: u8 = 3;
const S_DRAW: u8 = 4;
const S_UNUSED: u8 = 5;
const KIND: u8 = 0x07;
const NOLOSS: u8 = 0x40;
const DONE: u8 = 0x80;

/// Solver state of one index in one pass.
#[derive(Copy, Clone, Default, Debug)]
struct Entry {
    state: u8,
    /// Quiet same-split children not yet known to win for the opponent.
    count: u8,
    /// Distance of a win or loss (final or tentative).
    dist: u16,
    /// One more than the longest winning child so far (the loss distance if
    /// every child wins).
    maxw: u16,
}

impl Entry {
    fn fin(kind: u8, dist: u16) -> Entry {
        Entry {
            state: kind,
            count: 0,
            dist,
            maxw: 0,
        }
    }
}

/// What the generator reports while it works.
#[derive(Debug)]
pub enum Event<'a> {
    /// A split starts (`index` of `count`, with `entries` full indexes).
    Start {
        /// The split.
        material: Material,
        /// Its place in the order, from 0.
        index: usize,
        /// Splits in all.
        count: usize,
        /// Positions to initialise (full index, both sides to move).
        total: u64,
    },
    /// Positions initialised so far in the current split.
    Progress {
        /// The split.
        material: Material,
        /// Positions done.
        done: u64,
        /// Positions in all.
        total: u64,
    },
    /// A split is finished (or was found on disk).
    Finished(&'a SplitReport),
}

/// How one split went.
#[derive(Clone, Debug)]
pub struct SplitReport {
    /// The split.
    pub material: Material,
    /// The table file.
    pub path: PathBuf,
    /// Whether the file was already there (a resumed run).
    pub existed: bool,
    /// Seconds spent generating and writing (0 if it existed).
    pub secs: f64,
    /// Positions solved (full index, both sides to move, overlaps included).
    pub solved: u64,
    /// Entries stored (mirror-reduced).
    pub entries: u64,
    /// Bytes of the file.
    pub file_len: u64,
    /// Bytes in memory once loaded.
    pub memory_len: usize,
    /// Counts by value.
    pub stats: Stats,
}

/// Generates the tables of one rule set into a directory.
///
/// # Examples
///
/// ```no_run
/// use dama_engine::Rules;
/// use dama_tablebase::{Generator, Tablebase};
///
/// let dir = std::path::Path::new("tablebases");
/// Generator::new(dir, Rules::default()).generate(3, &|_| {})?;
/// let tb = Tablebase::open(dir)?;
/// assert_eq!(tb.max_pieces(), 3);
/// # Ok::<(), dama_tablebase::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Generator {
    dir: PathBuf,
    rules: Rules,
    threads: usize,
}

struct Solved<'a> {
    tables: &'a HashMap<Material, Table>,
    rules: Rules,
}

impl Lookup for Solved<'_> {
    fn table(&self, m: &Material) -> Option<&Table> {
        self.tables.get(m)
    }
    fn rules(&self) -> &Rules {
        &self.rules
    }
}

impl Generator {
    /// A generator writing into `dir` for `rules` (one thread per core).
    pub fn new(dir: impl Into<PathBuf>, rules: Rules) -> Generator {
        Generator {
            dir: dir.into(),
            rules: normalized(&rules),
            threads: 0,
        }
    }

    /// Worker threads for the parallel phase (0: one per core).
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Generator {
        self.threads = threads;
        self
    }

    /// Generates every table of up to `max_pieces` pieces that is not in the
    /// directory yet (tables already there are checked and kept, so a killed
    /// run resumes), calling `on_event` as it goes.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] beyond [`MAX_PIECES`]; a table already in the
    /// directory that cannot be read or has other rules (remove it to
    /// regenerate it); an I/O error writing.
    pub fn generate(
        &self,
        max_pieces: u32,
        on_event: &(dyn Fn(Event<'_>) + Sync),
    ) -> Result<Vec<SplitReport>> {
        self.generate_until(max_pieces, None, on_event)
    }

    /// Generates every table of at most `max_pieces` pieces (silently) and
    /// opens the directory.
    ///
    /// # Errors
    ///
    /// As [`Generator::generate`] and [`Tablebase::open`](crate::Tablebase::open).
    pub fn generate_and_open(&self, max_pieces: u32) -> Result<crate::Tablebase> {
        self.generate(max_pieces, &|_| {})?;
        crate::Tablebase::open(&self.dir)
    }

    /// As [`Generator::generate`], but stops after the split named `last`
    /// (`KKKvK`) if given: the splits it depends on come before it in the
    /// order, so this measures one split without generating all of its size.
    ///
    /// # Errors
    ///
    /// As [`Generator::generate`].
    pub fn generate_until(
        &self,
        max_pieces: u32,
        last: Option<&str>,
        on_event: &(dyn Fn(Event<'_>) + Sync),
    ) -> Result<Vec<SplitReport>> {
        if max_pieces > MAX_PIECES {
            return Err(Error::Unsupported {
                material: format!("{max_pieces} pieces"),
                reason: format!("at most {MAX_PIECES} pieces are supported"),
            });
        }
        // The file header and the generator's men indexing know Turkish
        // draughts only.
        if self.rules.variant != dama_engine::Variant::Turkish
            || self.rules.one_piece_each == dama_engine::OnePieceEachRule::PlayOn
        {
            return Err(Error::Unsupported {
                material: format!("{max_pieces} pieces"),
                reason: format!("tables are Turkish draughts only, not rules {}", self.rules),
            });
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .build()
            .map_err(|e| Error::Unsupported {
                material: "-".into(),
                reason: format!("cannot start {} threads: {e}", self.threads),
            })?;
        let order = Material::all_up_to(max_pieces);
        let mut tables: HashMap<Material, Table> = HashMap::new();
        let mut reports = Vec::new();
        for (index, &material) in order.iter().enumerate() {
            let path = self.dir.join(material.file_name());
            let start = Instant::now();
            let (table, existed) = if path.exists() {
                (Table::read(&path, Some(&self.rules))?.0, true)
            } else {
                let indexer = Indexer::new(material).ok_or_else(|| Error::Unsupported {
                    material: material.to_string(),
                    reason: "cannot be indexed".into(),
                })?;
                on_event(Event::Start {
                    material,
                    index,
                    count: order.len(),
                    total: indexer.full_size(),
                });
                let src = Solved {
                    tables: &tables,
                    rules: self.rules,
                };
                let mut table = pool.install(|| solve(indexer, &src, on_event))?;
                table.write(&path, &self.rules)?;
                (table, false)
            };
            let report = SplitReport {
                material,
                path,
                existed,
                secs: if existed {
                    0.0
                } else {
                    start.elapsed().as_secs_f64()
                },
                solved: if existed { 0 } else { 2 * table.entries() },
                entries: table.entries(),
                file_len: table.file_len(),
                memory_len: table.memory_len(),
                stats: *table.stats(),
            };
            on_event(Event::Finished(&report));
            reports.push(report);
            tables.insert(material, table);
            if last.is_some_and(|l| l == material.to_string()) {
                break;
            }
        }
        Ok(reports)
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

fn position(s: &Sets, stm: Color, rules: &Rules) -> Option<Position> {
    Position::from_bitboards(
        Bitboard(s[0] | s[1]),
        Bitboard(s[2] | s[3]),
        Bitboard(s[1] | s[3]),
        stm,
    )
    .ok()
    .map(|p| p.with_rules(*rules))
}

/// Initial entries (with the rule, without it) of one full index.
fn init(ix: &Indexer, src: &impl Lookup, i: u64) -> Result<(Entry, Entry)> {
    let rules = src.rules();
    let (s, stm) = ix.decode_full(i);
    let unused = (Entry::fin(S_UNUSED, 0), Entry::fin(S_UNUSED, 0));
    if overlap(&s) {
        return Ok(unused);
    }
    let Some(pos) = position(&s, stm, rules) else {
        return Ok(unused);
    };
    let missing = |child: &Position| Error::Inconsistent {
        material: ix.material.to_string(),
        reason: format!("no value for child {child} (a table is missing)"),
    };
    if let Some((outcome, _)) = pos.termination() {
        let e = match outcome.winner() {
            None => Entry::fin(S_DRAW, 0),
            Some(w) if w == stm => Entry::fin(S_WIN, 0),
            Some(_) => Entry::fin(S_LOSS, 0),
        };
        return Ok((e, e));
    }
    let moves = pos.legal_moves();
    if moves.first().is_some_and(|m| m.is_capture()) {
        let mut b = Backup::new(limit(rules));
        for m in &moves {
            let mut child = pos;
            child.play_unchecked(m);
            b.add(raw_value(src, &child).ok_or_else(|| missing(&child))?, true);
        }
        let r = b.finish();
        let a = match (r.code, r.dist) {
            (WIN, Some(d)) => Entry::fin(S_WIN, d),
            (LOSS, Some(d)) => Entry::fin(S_LOSS, d),
            _ => Entry::fin(S_DRAW, 0),
        };
        let b = match r.code {
            WIN => Entry::fin(S_WIN, 1),
            LOSS => Entry::fin(S_LOSS, 1),
            _ => Entry::fin(S_DRAW, 0),
        };
        return Ok((a, b));
    }
    let mut a = Entry::default();
    let mut b = Entry::default();
    let mut count = 0u8;
    for m in &moves {
        if !m.promotes() {
            count += 1;
            continue;
        }
        let mut child = pos;
        child.play_unchecked(m);
        let r: Raw = raw_value(src, &child).ok_or_else(|| missing(&child))?;
        // With the rule: the child's distance; without: any order will do.
        match (r.code, r.dist) {
            (LOSS, Some(k)) => tentative(&mut a, k.saturating_add(1)),
            (WIN, Some(k)) => a.maxw = a.maxw.max(k.saturating_add(1)),
            _ => a.state |= NOLOSS,
        }
        match r.code {
            LOSS => tentative(&mut b, 1),
            WIN => b.maxw = b.maxw.max(1),
            _ => b.state |= NOLOSS,
        }
    }
    for e in [&mut a, &mut b] {
        e.count = count;
        if e.state & KIND == UNKNOWN && count == 0 {
            *e = if e.state & NOLOSS != 0 {
                Entry::fin(S_DRAW, 0)
            } else {
                Entry::fin(S_LOSS, e.maxw)
            };
        }
    }
    Ok((a, b))
}

fn tentative(e: &mut Entry, d: u16) {
    if e.state & KIND != TENTATIVE || d < e.dist {
        e.state = (e.state & !KIND) | TENTATIVE;
        e.dist = d;
    }
}

/// The full indexes of the positions that reach `(s, stm)` by a quiet move
/// that does not promote: the side not to move steps back.
fn predecessors(ix: &Indexer, rules: &Rules, s: &Sets, stm: Color, out: &mut Vec<u64>) {
    out.clear();
    let mover = stm.other();
    let (men, kings) = match mover {
        Color::White => (0, 1),
        Color::Black => (2, 3),
    };
    let occ = s[0] | s[1] | s[2] | s[3];
    let mut push = |q: Sets| {
        if let Some(p) = position(&q, mover, rules) {
            if !p.has_capture() {
                out.push(ix.full_index(&q, mover));
            }
        }
    };
    for sq in Bitboard(s[kings]) {
        for dir in Direction::ALL {
            let mut t = sq;
            while let Some(n) = t.offset(dir) {
                if occ & (1 << n.index()) != 0 {
                    break;
                }
                t = n;
                let mut q = *s;
                q[kings] ^= (1 << sq.index()) | (1 << t.index());
                push(q);
            }
        }
    }
    let back = Direction::forward(mover).opposite();
    for sq in Bitboard(s[men]) {
        for dir in [back, Direction::East, Direction::West] {
            let Some(t): Option<Square> = sq.offset(dir) else {
                continue;
            };
            let bit = 1u64 << t.index();
            if occ & bit != 0 || MEN_SQUARES & bit == 0 {
                continue;
            }
            let mut q = *s;
            q[men] ^= (1 << sq.index()) | bit;
            push(q);
        }
    }
}

/// Runs the propagation of one pass over initialised entries.
fn propagate(ix: &Indexer, rules: &Rules, e: &mut [Entry]) {
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    let push = |buckets: &mut Vec<Vec<u32>>, d: u16, i: u64| {
        let d = usize::from(d);
        if buckets.len() <= d {
            buckets.resize_with(d + 1, Vec::new);
        }
        buckets[d].push(i as u32);
    };
    for (i, x) in e.iter().enumerate() {
        if matches!(x.state & KIND, S_WIN | S_LOSS | TENTATIVE) {
            push(&mut buckets, x.dist, i as u64);
        }
    }
    let mut preds = Vec::new();
    let mut d = 0;
    while d < buckets.len() {
        let bucket = std::mem::take(&mut buckets[d]);
        for &i in &bucket {
            let i = i as usize;
            let x = &mut e[i];
            if x.state & DONE != 0 || usize::from(x.dist) != d {
                continue;
            }
            let kind = match x.state & KIND {
                TENTATIVE => S_WIN,
                k @ (S_WIN | S_LOSS) => k,
                _ => continue,
            };
            x.state = kind | DONE;
            let (s, stm) = ix.decode_full(i as u64);
            predecessors(ix, rules, &s, stm, &mut preds);
            let next = (d as u16).saturating_add(1);
            for &q in &preds {
                let y = &mut e[q as usize];
                let k = y.state & KIND;
                if kind == S_LOSS {
                    if k == UNKNOWN || (k == TENTATIVE && y.dist > next) {
                        y.state = (y.state & !KIND) | S_WIN;
                        y.dist = next;
                        push(&mut buckets, next, q);
                    }
                } else if k == UNKNOWN && y.state & NOLOSS == 0 {
                    y.count -= 1;
                    y.maxw = y.maxw.max(next);
                    if y.count == 0 {
                        y.state = (y.state & !KIND) | S_LOSS;
                        y.dist = y.maxw;
                        push(&mut buckets, y.maxw, q);
                    }
                }
            }
        }
        d += 1;
    }
}

/// Solves one split; the children's tables must be in `src`.
fn solve(
    ix: Indexer,
    src: &(impl Lookup + Sync),
    on_event: &(dyn Fn(Event<'_>) + Sync),
) -> Result<Table> {
    let rules = *src.rules();
    let material = ix.material;
    let total = ix.full_size();
    if total > u64::from(u32::MAX) {
        return Err(Error::Unsupported {
            material: material.to_string(),
            reason: format!("{total} positions: more than the in-memory generator indexes"),
        });
    }
    let with_rule = limit(&rules).is_some();
    let n = total as usize;
    let mut a = vec![Entry::default(); n];
    let mut b = vec![Entry::default(); if with_rule { n } else { 0 }];
    let done = AtomicU64::new(0);
    const CHUNK: usize = 1 << 14;
    let init_chunk = |c: usize, ac: &mut [Entry], mut bc: Option<&mut [Entry]>| -> Result<()> {
        for (j, x) in ac.iter_mut().enumerate() {
            let i = (c * CHUNK + j) as u64;
            let (ea, eb) = init(&ix, src, i)?;
            *x = ea;
            if let Some(bc) = bc.as_deref_mut() {
                bc[j] = eb;
            }
        }
        let d = done.fetch_add(ac.len() as u64, Ordering::Relaxed) + ac.len() as u64;
        on_event(Event::Progress {
            material,
            done: d,
            total,
        });
        Ok(())
    };
    if with_rule {
        a.par_chunks_mut(CHUNK)
            .zip(b.par_chunks_mut(CHUNK))
            .enumerate()
            .try_for_each(|(c, (ac, bc))| init_chunk(c, ac, Some(bc)))?;
    } else {
        a.par_chunks_mut(CHUNK)
            .enumerate()
            .try_for_each(|(c, ac)| init_chunk(c, ac, None))?;
    }
    // The two passes are independent: run them side by side.
    if with_rule {
        rayon::join(
            || propagate(&ix, &rules, &mut a),
            || propagate(&ix, &rules, &mut b),
        );
    } else {
        propagate(&ix, &rules, &mut a);
    }
    let lim = limit(&rules);
    let stored: Vec<(u8, u16, bool)> = (0..ix.stored_size())
        .into_par_iter()
        .map(|si| {
            let (s, stm) = ix.decode_stored(si);
            let f = ix.full_index(&s, stm) as usize;
            let ka = a[f].state & KIND;
            let kb = if with_rule { b[f].state & KIND } else { ka };
            let code = match kb {
                S_WIN => WIN,
                S_LOSS => LOSS,
                S_UNUSED => UNUSED,
                _ => DRAW,
            };
            let (dist, agrees) = match ka {
                // A win (loss) under the rule is one without it.
                S_WIN | S_LOSS => (a[f].dist.saturating_add(1), ka == kb),
                _ => (0, true),
            };
            (code, dist, agrees)
        })
        .collect();
    let mut stats = Stats::default();
    for (si, &(code, dist, agrees)) in stored.iter().enumerate() {
        if !agrees {
            return Err(Error::Inconsistent {
                material: material.to_string(),
                reason: format!("stored index {si}: the passes with and without the rule disagree"),
            });
        }
        let side = usize::from(si as u64 >= ix.stored_size() / 2);
        let real = dist > 0 && lim.is_none_or(|l| dist - 1 <= l);
        let slot = match (code, real) {
            (WIN, true) => 0,
            (WIN, false) => 1,
            (DRAW, _) => 2,
            (LOSS, false) => 3,
            (LOSS, true) => 4,
            _ => 5,
        };
        stats.counts[side][slot] += 1;
    }
    let wdl = pack(stored.iter().map(|&(c, _, _)| c));
    let dist = stored.iter().map(|&(_, d, _)| d).collect();
    Ok(Table::new(ix, wdl, dist, stats))
}
