//! Opening a directory of tables and probing it.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use dama_engine::{Move, Position, Rules};

use crate::error::{Error, Result};
use crate::index::overlap;
use crate::table::{normalized, rules_text, Table, DRAW, LOSS, UNUSED, WIN};
use crate::value::{limit, raw_value, Backup, Lookup, Raw};
use crate::{Material, MAX_PIECES};

/// A result for the side to move, with the no-capture rule applied to the
/// position's counter.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Wdl {
    /// Lost, whatever the counter does.
    Loss,
    /// Lost without the no-capture rule, but the rule saves it: a draw.
    BlessedLoss,
    /// Drawn.
    Draw,
    /// Won without the no-capture rule, but the rule spoils it: a draw.
    CursedWin,
    /// Won.
    Win,
}

impl Wdl {
    /// The score under the rules: 1 win, 0 draw (cursed and blessed
    /// included), -1 loss.
    pub fn score(self) -> i8 {
        match self {
            Wdl::Win => 1,
            Wdl::Loss => -1,
            _ => 0,
        }
    }

    /// The same result for the other side.
    #[must_use]
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Draw => Wdl::Draw,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Loss => Wdl::Win,
        }
    }

    /// Whether the no-capture rule turns this result into a draw.
    pub fn is_drawn_by_rule(self) -> bool {
        matches!(self, Wdl::CursedWin | Wdl::BlessedLoss)
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Win => "win",
            Wdl::CursedWin => "cursed win",
            Wdl::Draw => "draw",
            Wdl::BlessedLoss => "blessed loss",
            Wdl::Loss => "loss",
        })
    }
}

/// What a table says about a position.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Probe {
    /// The result for the side to move, the counter taken into account.
    pub wdl: Wdl,
    /// Plies to zeroing under best play: to the capture that keeps the
    /// result, or to the end of the game if no capture is needed (0 for a
    /// side with no move). `None` for draws, and for cursed wins and
    /// blessed losses that no counter value could make stand.
    pub dtz: Option<u16>,
}

impl Probe {
    fn from_raw(raw: Raw, counter: u16, lim: Option<u16>) -> Probe {
        let (win, drawn) = match raw.code {
            WIN => (true, false),
            LOSS => (false, false),
            _ => (false, true),
        };
        if drawn {
            return Probe {
                wdl: Wdl::Draw,
                dtz: None,
            };
        }
        let stands = match (raw.dist, lim) {
            (Some(0), _) => true,
            (Some(_), None) => true,
            (Some(k), Some(l)) => u32::from(counter) + u32::from(k) <= u32::from(l),
            (None, _) => false,
        };
        let wdl = match (win, stands) {
            (true, true) => Wdl::Win,
            (true, false) => Wdl::CursedWin,
            (false, true) => Wdl::Loss,
            (false, false) => Wdl::BlessedLoss,
        };
        Probe { wdl, dtz: raw.dist }
    }
}

impl fmt::Display for Probe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.dtz {
            Some(d) => write!(f, "{} (dtz {d})", self.wdl),
            None => write!(f, "{}", self.wdl),
        }
    }
}

/// A directory of tables for one rule set, loaded into memory.
///
/// # Examples
///
/// ```no_run
/// use dama_tablebase::{Tablebase, Wdl};
///
/// let tb = Tablebase::open("tablebases")?;
/// let pos = "W:WKd4,Ka8:BKd6".parse::<dama_engine::Position>().unwrap().with_rules(tb.rules());
/// let p = tb.probe(&pos).expect("a 3-piece position");
/// assert_eq!(p.wdl, Wdl::Win);
/// # Ok::<(), dama_tablebase::Error>(())
/// ```
#[derive(Debug)]
pub struct Tablebase {
    dir: PathBuf,
    rules: Rules,
    /// Tables by [`slot`] of their material: a lookup without hashing.
    slots: Vec<Option<Table>>,
    missing: Vec<Material>,
    max_pieces: u32,
}

impl Lookup for Tablebase {
    #[inline]
    fn table(&self, m: &Material) -> Option<&Table> {
        self.slots.get(slot(m)?)?.as_ref()
    }
    fn rules(&self) -> &Rules {
        &self.rules
    }
}

/// A dense key of materials with at most [`MAX_PIECES`] of each kind.
#[inline]
fn slot(m: &Material) -> Option<usize> {
    let n = MAX_PIECES as usize + 1;
    let k = [m.white_men, m.white_kings, m.black_men, m.black_kings];
    k.iter().try_fold(0usize, |acc, &x| {
        (usize::from(x) < n).then_some(acc * n + usize::from(x))
    })
}

/// Why a table directory gives no tables (see [`Tablebase::open_if_present`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unusable {
    /// The path is not a directory.
    NotADirectory(std::path::PathBuf),
    /// The directory holds no `.dtb` file.
    Empty(std::path::PathBuf),
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::NotADirectory(dir) => write!(
                f,
                "no endgame tables: {} is not a directory (`dama tablebase generate --dir {}` makes them)",
                dir.display(),
                dir.display()
            ),
            Unusable::Empty(dir) => write!(f, "no endgame tables in {}", dir.display()),
        }
    }
}

impl Tablebase {
    /// Opens the tables in `dir` where there are some: `Ok(Err(why))` when
    /// `dir` is not a directory or holds no table (a note for the caller to
    /// show or not), `Err` when a table is damaged or unreadable.
    ///
    /// # Errors
    ///
    /// As [`Tablebase::open`], for a directory that holds tables.
    pub fn open_if_present(
        dir: impl AsRef<Path>,
    ) -> Result<std::result::Result<Tablebase, Unusable>> {
        let dir = dir.as_ref();
        if !dir.is_dir() {
            return Ok(Err(Unusable::NotADirectory(dir.to_owned())));
        }
        let tb = Tablebase::open(dir)?;
        if tb.max_pieces() == 0 {
            return Ok(Err(Unusable::Empty(dir.to_owned())));
        }
        Ok(Ok(tb))
    }

    /// Loads every table file (`*.dtb`) in `dir`. All must share one rule
    /// set; splits that are absent are listed by [`Tablebase::missing`]. An
    /// empty directory gives an empty tablebase (default rules, nothing to
    /// probe).
    ///
    /// # Errors
    ///
    /// The directory cannot be read; a table file is unreadable, truncated,
    /// of another format version, damaged, of other rules than the first, or
    /// a second file of the same split. Each error names the file.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase> {
        let dir = dir.as_ref();
        let io = |source| Error::Io {
            path: dir.to_owned(),
            source,
        };
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            if path.extension().is_some_and(|e| e == "dtb") {
                paths.push(path);
            }
        }
        paths.sort();
        let mut rules: Option<Rules> = None;
        let mut tables = HashMap::new();
        for path in paths {
            let (table, r) = Table::read(&path, rules.as_ref())?;
            rules = Some(r);
            let m = table.material();
            if tables.insert(m, table).is_some() {
                return Err(Error::Corrupt {
                    path,
                    reason: format!("a second table of {m}"),
                });
            }
        }
        Ok(Tablebase::from_tables(
            dir.to_owned(),
            rules.unwrap_or_default(),
            tables,
        ))
    }

    fn from_tables(dir: PathBuf, rules: Rules, tables: HashMap<Material, Table>) -> Tablebase {
        let top = tables.keys().map(Material::pieces).max().unwrap_or(0);
        let missing: Vec<Material> = Material::all_up_to(top)
            .into_iter()
            .filter(|m| !tables.contains_key(m))
            .collect();
        let max_pieces = (3..=MAX_PIECES)
            .take_while(|&n| {
                n <= top
                    && Material::all_up_to(n)
                        .iter()
                        .all(|m| tables.contains_key(m))
            })
            .last()
            .unwrap_or(if tables.is_empty() { 0 } else { 2 });
        let mut slots: Vec<Option<Table>> = Vec::new();
        slots.resize_with((MAX_PIECES as usize + 1).pow(4), || None);
        for (m, t) in tables {
            // Materials beyond MAX_PIECES were refused when reading.
            if let Some(i) = slot(&m) {
                slots[i] = Some(t);
            }
        }
        Tablebase {
            dir,
            rules,
            slots,
            missing,
            max_pieces,
        }
    }

    /// The directory the tables came from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The rules the tables were generated for (the default rules if there
    /// are none). Positions under other rules are not probed.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Whether the tables hold positions played under `rules` (those
    /// they were generated for; a no-capture limit of 0 is none).
    pub fn holds_rules(&self, rules: &Rules) -> bool {
        normalized(rules) == self.rules
    }

    /// The rules as text (for messages).
    pub fn rules_text(&self) -> String {
        rules_text(&self.rules)
    }

    /// The largest `n` such that every split of at most `n` pieces is
    /// loaded (0 if there are no tables).
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// Whether no table is loaded.
    pub fn is_empty(&self) -> bool {
        self.slots.iter().all(Option::is_none)
    }

    /// Splits up to the largest loaded piece count that have no file.
    pub fn missing(&self) -> &[Material] {
        &self.missing
    }

    /// The loaded tables, in generation order.
    pub fn tables(&self) -> Vec<&Table> {
        let mut t: Vec<&Table> = self.slots.iter().flatten().collect();
        t.sort_by_key(|t| {
            let m = t.material();
            (m.pieces(), m.men(), m)
        });
        t
    }

    /// The value of `pos` for the side to move, with its no-capture counter
    /// ([`Position::plies_since_capture`]) applied. `None` if the position's
    /// rules are not the tables', its split is not loaded, or it cannot
    /// occur in a game (a man on its own first row). Positions with fewer
    /// than three pieces or a bare side are answered from the rules.
    ///
    /// This is two array reads after computing the index: cheap enough for
    /// every node of a search.
    pub fn probe(&self, pos: &Position) -> Option<Probe> {
        if !self.holds_rules(pos.rules()) {
            return None;
        }
        let raw = raw_value(self, pos)?;
        Some(Probe::from_raw(
            raw,
            pos.plies_since_capture(),
            limit(&self.rules),
        ))
    }

    /// Every legal move of `pos` with the result it keeps for the side to
    /// move (the counter taken into account), best first: wins by fewest
    /// plies to zeroing, then cursed wins, draws, blessed losses, and
    /// losses by most plies. A move's `dtz` is 1 for a capture and one more
    /// than the child's otherwise. `None` if a child cannot be probed or
    /// there are no moves.
    pub fn best_moves(&self, pos: &Position) -> Option<Vec<(Move, Probe)>> {
        if normalized(pos.rules()) != self.rules {
            return None;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.is_game_over() {
            return None;
        }
        let mut out = Vec::with_capacity(moves.len());
        for m in &moves {
            let mut child = *pos;
            child.play_unchecked(m);
            let c = self.probe(&child)?;
            let dtz = match c.wdl {
                Wdl::Draw => None,
                _ if m.is_capture() => Some(1),
                _ => c.dtz.map(|d| d.saturating_add(1)),
            };
            out.push((
                *m,
                Probe {
                    wdl: c.wdl.flip(),
                    dtz,
                },
            ));
        }
        let key = |p: &Probe| {
            let d = i32::from(p.dtz.unwrap_or(u16::MAX));
            match p.wdl {
                Wdl::Win | Wdl::CursedWin => (p.wdl, -d),
                Wdl::Draw => (p.wdl, 0),
                Wdl::BlessedLoss | Wdl::Loss => (p.wdl, d),
            }
        };
        out.sort_by_key(|(_, p)| std::cmp::Reverse(key(p)));
        Some(out)
    }

    /// Checks every position of one loaded split against its children: the
    /// stored value must be the best over the moves (captures read from the
    /// smaller tables, promotions from other splits) and the distance one
    /// more than the best child's (1 for a capture). Returns the positions
    /// checked.
    ///
    /// # Errors
    ///
    /// [`Error::Inconsistent`] with the first position that disagrees, or a
    /// missing child table.
    pub fn verify(&self, material: Material) -> Result<u64> {
        let bad = |reason: String| Error::Inconsistent {
            material: material.to_string(),
            reason,
        };
        let table = self
            .table(&material)
            .ok_or_else(|| bad("not loaded".into()))?;
        let ix = &table.indexer;
        let lim = limit(&self.rules);
        let mut checked = 0;
        for si in 0..ix.stored_size() {
            let (s, stm) = ix.decode_stored(si);
            let (code, d) = table.get(si);
            let stored = Raw {
                code,
                dist: d.checked_sub(1),
            };
            let pos = (!overlap(&s))
                .then(|| {
                    Position::from_bitboards(
                        dama_engine::Bitboard(s[0] | s[1]),
                        dama_engine::Bitboard(s[2] | s[3]),
                        dama_engine::Bitboard(s[1] | s[3]),
                        stm,
                    )
                    .ok()
                })
                .flatten()
                .map(|p| p.with_rules(self.rules));
            let Some(pos) = pos else {
                if code != UNUSED {
                    return Err(bad(format!("index {si}: no position but value {code}")));
                }
                continue;
            };
            let expected = match pos.termination() {
                Some((o, _)) => match o.winner() {
                    None => Raw {
                        code: DRAW,
                        dist: None,
                    },
                    Some(w) if w == stm => Raw {
                        code: WIN,
                        dist: Some(0),
                    },
                    Some(_) => Raw {
                        code: LOSS,
                        dist: Some(0),
                    },
                },
                None => {
                    let mut b = Backup::new(lim);
                    for m in pos.legal_moves() {
                        let mut child = pos;
                        child.play_unchecked(&m);
                        let r = raw_value(self, &child)
                            .ok_or_else(|| bad(format!("no value for {child}")))?;
                        b.add(r, m.is_capture());
                    }
                    b.finish()
                }
            };
            if expected != stored {
                return Err(bad(format!(
                    "{pos}: stored {stored:?}, children give {expected:?}"
                )));
            }
            checked += 1;
        }
        Ok(checked)
    }
}

/// `n` random positions of the loaded splits (men on ranks 2–7, either
/// side to move, under the tables' rules), for probe benchmarks: seeded,
/// so two runs probe the same positions.
pub fn sample_positions(tb: &Tablebase, n: usize, seed: u64) -> Vec<Position> {
    use dama_engine::{Bitboard, Color};
    use rand::{Rng, SeedableRng};
    let mats: Vec<_> = tb.tables().iter().map(|t| t.material()).collect();
    let mut positions = Vec::with_capacity(n);
    if mats.is_empty() {
        return positions;
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    while positions.len() < n {
        let m = mats[rng.gen_range(0..mats.len())];
        let mut occ = 0u64;
        let mut sets = [0u64; 4];
        for (g, k) in [m.white_men, m.white_kings, m.black_men, m.black_kings]
            .into_iter()
            .enumerate()
        {
            for _ in 0..k {
                loop {
                    let sq = if g % 2 == 0 {
                        rng.gen_range(8..56)
                    } else {
                        rng.gen_range(0..64)
                    };
                    if occ & (1 << sq) == 0 {
                        occ |= 1 << sq;
                        sets[g] |= 1 << sq;
                        break;
                    }
                }
            }
        }
        let turn = if rng.gen() {
            Color::White
        } else {
            Color::Black
        };
        if let Ok(p) = Position::from_bitboards(
            Bitboard(sets[0] | sets[1]),
            Bitboard(sets[2] | sets[3]),
            Bitboard(sets[1] | sets[3]),
            turn,
        ) {
            positions.push(p.with_rules(tb.rules()));
        }
    }
    positions
}

#[cfg(test)]
mod open_tests {
    use super::*;

    #[test]
    fn open_if_present_tells_missing_and_empty_from_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nothing-here");
        let why = Tablebase::open_if_present(&missing).unwrap().unwrap_err();
        assert_eq!(why, Unusable::NotADirectory(missing.clone()));
        assert!(why.to_string().contains("not a directory"), "{why}");
        let why = Tablebase::open_if_present(dir.path()).unwrap().unwrap_err();
        assert_eq!(why, Unusable::Empty(dir.path().to_owned()));
        std::fs::write(dir.path().join("KvK.dtb"), b"not a table").unwrap();
        assert!(Tablebase::open_if_present(dir.path()).is_err());
    }
}
