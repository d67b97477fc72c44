//! Values at a zero counter, looked up in tables or backed up from children.
//!
//! Two numbers describe a position for the side to move:
//!
//! * `code`: win, draw or loss when the no-capture rule is ignored (with the
//!   rule off, the real result).
//! * `dist`: for positions the side to move wins (or loses) *with* the rule
//!   given enough budget, the plies to zeroing `k`: plies until the capture
//!   that keeps the win (into a position won at counter 0 under the rule) or
//!   until the loser has no move, the winner minimising and the loser
//!   maximising. From a counter `c` the result stands exactly when
//!   `c + k <= limit`: the zeroing capture is played from counter `c + k - 1`,
//!   which must be below the limit, and a side left without a move at counter
//!   `c + k` loses before the limit is checked (the engine's order in
//!   [`Position::termination`]). Terminal losses have `k = 0` and stand at any
//!   counter.
//!
//! Backing up a child: a capture zeroes, so it counts (as 1 ply) only if its
//! child stands at counter 0, i.e. has `k <= limit`; a quiet move adds one
//! ply to the child's `k`.

use dama_engine::{Color, Outcome, Position, Rules};

use crate::index::Indexer;
use crate::table::{Table, DRAW, LOSS, UNUSED, WIN};
use crate::Material;

/// The value of a position at counter 0 for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Raw {
    /// [`WIN`], [`DRAW`] or [`LOSS`] with the no-capture rule ignored.
    pub code: u8,
    /// Plies to zeroing of a win or loss that holds under the rule given
    /// enough counter budget; `None` otherwise.
    pub dist: Option<u16>,
}

impl Raw {
    pub const DRAW: Raw = Raw {
        code: DRAW,
        dist: None,
    };
}

/// Somewhere to look tables up.
pub(crate) trait Lookup {
    /// The table of a canonical material, if present.
    fn table(&self, m: &Material) -> Option<&Table>;
    /// The rules the tables are for.
    fn rules(&self) -> &Rules;
}

/// The limit in force: `None` when the rule is off.
pub(crate) fn limit(rules: &Rules) -> Option<u16> {
    rules.no_capture_limit.filter(|&l| l > 0)
}

/// The value of `pos` at counter 0, from tables (or from the rules for
/// positions without a table). `None` if a table is missing or the position
/// cannot occur (a man on its first row).
pub(crate) fn raw_value(src: &impl Lookup, pos: &Position) -> Option<Raw> {
    let m = Material::of(pos);
    if !m.has_table() {
        return small_value(src, pos);
    }
    let flip = !m.is_canonical();
    let (white, black, kings, stm, m) = if flip {
        // Colours swapped and the board turned: what flip_colors does,
        // without building a position.
        (
            pos.pieces(Color::Black).rotate_180(),
            pos.pieces(Color::White).rotate_180(),
            pos.kings().rotate_180(),
            pos.turn().other(),
            m.flipped(),
        )
    } else {
        (
            pos.pieces(Color::White),
            pos.pieces(Color::Black),
            pos.kings(),
            pos.turn(),
            m,
        )
    };
    let t = src.table(&m)?;
    let s = Indexer::sets(white.0, black.0, kings.0);
    if !t.indexer.fits(&s) {
        return None;
    }
    let (code, d) = t.get(t.indexer.stored_index(&s, stm));
    if code == UNUSED {
        return None;
    }
    Some(Raw {
        code,
        dist: d.checked_sub(1),
    })
}

/// A position with fewer than three pieces or a bare side: decided by
/// [`Position::termination`], or (a lone king or man that must capture the
/// other lone piece, under `KingBeatsMan`) by its captures.
fn small_value(src: &impl Lookup, pos: &Position) -> Option<Raw> {
    let p0 = pos.with_counters(0, pos.ply());
    match p0.termination() {
        Some((Outcome::Draw, _)) => Some(Raw::DRAW),
        Some((Outcome::Decisive { winner }, _)) => Some(Raw {
            code: if winner == pos.turn() { WIN } else { LOSS },
            dist: Some(0),
        }),
        None => {
            let mut b = Backup::new(limit(src.rules()));
            for m in p0.legal_moves() {
                let mut child = p0;
                child.play_unchecked(&m);
                b.add(raw_value(src, &child)?, m.is_capture());
            }
            Some(b.finish())
        }
    }
}

/// One-ply backup of children values into the parent's [`Raw`].
#[derive(Clone, Debug)]
pub(crate) struct Backup {
    limit: Option<u16>,
    children: u32,
    // Rule ignored.
    any_loss: bool,
    all_win: bool,
    // Under the rule.
    best_win: Option<u16>,
    all_real_win: bool,
    max_win: u16,
}

impl Backup {
    pub fn new(limit: Option<u16>) -> Backup {
        Backup {
            limit,
            children: 0,
            any_loss: false,
            all_win: true,
            best_win: None,
            all_real_win: true,
            max_win: 0,
        }
    }

    /// Adds the value of a child (for the side to move there), reached by a
    /// capture or a quiet move.
    pub fn add(&mut self, child: Raw, capture: bool) {
        self.children += 1;
        match child.code {
            LOSS => self.any_loss = true,
            WIN => {}
            _ => self.all_win = false,
        }
        let real = match child.dist {
            Some(k) if capture => self.limit.is_none_or(|l| k <= l).then_some(1),
            Some(k) => Some(k.saturating_add(1)),
            None => None,
        };
        match (child.code, real) {
            (LOSS, Some(d)) => self.best_win = Some(self.best_win.map_or(d, |b| b.min(d))),
            (WIN, Some(d)) => self.max_win = self.max_win.max(d),
            _ => self.all_real_win = false,
        }
    }

    /// The parent's value.
    pub fn finish(&self) -> Raw {
        let code = if self.any_loss {
            WIN
        } else if self.all_win && self.children > 0 {
            LOSS
        } else {
            DRAW
        };
        let dist = if self.best_win.is_some() {
            self.best_win
        } else if self.all_real_win && self.children > 0 {
            Some(self.max_win)
        } else {
            None
        };
        Raw { code, dist }
    }
}
