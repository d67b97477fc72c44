//! Move generation for Croda and Dameo, the orthogonal-capture variants with
//! international-draughts capture rules.
//!
//! Like [`movegen`](crate::movegen), everything works on raw `u64` sets with
//! the side to move as a type parameter. What differs from Turkish draughts:
//!
//! * men step one square straight or diagonally forward (never sideways); in
//!   Dameo a straight unbroken line of men moves one square forward along its
//!   own line (straight or diagonal) when the square in front of it is empty,
//!   which leaves the same board as the rearmost man jumping over the others
//!   to that square, so a line move is a quiet [`Move`](crate::Move) from the
//!   rearmost man's square to the square in front of the line;
//! * men capture forward, sideways and (by default) backward;
//! * captured pieces stay on the board as obstacles until the move ends and
//!   cannot be jumped twice (Croda can switch to Turkish-style removal);
//! * kings slide like rooks (Croda) or queens (Dameo) and capture like
//!   flying rooks;
//! * a man is crowned only if its move ends on the last row.

use crate::movegen::{
    back, forward_dir, fwd, fwd_east, fwd_west, king_can_capture, king_jump, king_jump_exists,
    king_slides, nearest, opposite, promo_row, CompactList, Side, Sink, FILE_A, FILE_B, FILE_G,
    FILE_H, NONE, STEP,
};
use crate::mv::MAX_CAPTURES;
use crate::rules::{Rules, Variant};
use crate::{Role, Square};

/// The rules that matter to generation, read once from [`Rules`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Config {
    /// Dameo (line moves, queen-moving kings) rather than Croda.
    pub dameo: bool,
    /// Men capture backward too.
    pub men_backward: bool,
    /// Captured pieces leave at the end of the move.
    pub remove_at_end: bool,
}

impl Config {
    pub(crate) fn new(rules: &Rules) -> Config {
        Config {
            dameo: rules.variant == Variant::Dameo,
            men_backward: rules.men_capture_backward(),
            remove_at_end: rules.removes_at_end(),
        }
    }
}

/// `DIAG_RAYS[d][sq]`: the squares from `sq` (exclusive) to the edge along a
/// diagonal: 0 = north-east, 1 = north-west (growing indices), 2 = south-west,
/// 3 = south-east (shrinking indices).
static DIAG_RAYS: [[u64; 64]; 4] = crate::geometry::ray_table([(1, 1), (-1, 1), (-1, -1), (1, -1)]);

/// Squares a piece on `sq` slides to along the diagonals (stopping before `occ`).
#[inline(always)]
fn diag_slides(sq: usize, occ: u64) -> u64 {
    let mut out = 0;
    let mut d = 0;
    while d < 4 {
        let ray = DIAG_RAYS[d][sq];
        let blk = ray & occ;
        out |= if blk == 0 {
            ray
        } else {
            // The same positive/negative split as the orthogonal rays.
            let b = nearest(d, blk);
            ray ^ DIAG_RAYS[d][b] ^ (1 << b)
        };
        d += 1;
    }
    out
}

/// All squares a king on `sq` slides to: a rook in Croda, a queen in Dameo.
#[inline(always)]
fn king_moves(sq: usize, occ: u64, dameo: bool) -> u64 {
    let rook = king_slides(sq, occ);
    if dameo {
        rook | diag_slides(sq, occ)
    } else {
        rook
    }
}

/// The men of `us` that can jump right now (ignoring the maximum rule).
#[inline(always)]
fn man_capturers<S: Side>(men: u64, them: u64, empty: u64, backward: bool) -> u64 {
    let f = men & back::<S>(them) & back::<S>(back::<S>(empty));
    let e = men & !(FILE_G | FILE_H) & (them >> 1) & (empty >> 2);
    let w = men & !(FILE_A | FILE_B) & (them << 1) & (empty << 2);
    let b = if backward {
        men & fwd::<S>(them) & fwd::<S>(fwd::<S>(empty))
    } else {
        0
    };
    f | e | w | b
}

/// The pieces of `us` that can capture right now.
#[inline(always)]
fn capturers<S: Side>(us: u64, them: u64, kings: u64, backward: bool) -> u64 {
    let occ = us | them;
    let mut caps = man_capturers::<S>(us & !kings, them, !occ, backward);
    let mut k = us & kings;
    while k != 0 {
        let sq = k.trailing_zeros() as usize;
        k &= k - 1;
        if king_can_capture(sq, occ, them) {
            caps |= 1 << sq;
        }
    }
    caps
}

/// Whether the side to move has a capture.
#[inline]
pub(crate) fn has_capture<S: Side>(us: u64, them: u64, kings: u64, backward: bool) -> bool {
    let occ = us | them;
    if man_capturers::<S>(us & !kings, them, !occ, backward) != 0 {
        return true;
    }
    let mut k = us & kings;
    while k != 0 {
        let sq = k.trailing_zeros() as usize;
        k &= k - 1;
        if king_can_capture(sq, occ, them) {
            return true;
        }
    }
    false
}

/// Depth-first search over the capture sequences of one piece, keeping only
/// the longest, deduplicated by `(from, to, captured, promotes)`.
struct Search<'a, S: Side, K: Sink> {
    out: &'a mut K,
    best: u8,
    from: Square,
    role: Role,
    cfg: Config,
    path: [Square; MAX_CAPTURES],
    side: std::marker::PhantomData<S>,
}

impl<S: Side, K: Sink> Search<'_, S, K> {
    #[inline]
    fn record(&mut self, to: usize, captured: u64, depth: u8, promotes: bool) {
        if depth < self.best {
            return;
        }
        if depth > self.best {
            self.out.clear();
            self.best = depth;
        }
        let n = (depth as usize).min(MAX_CAPTURES);
        self.out.capture(
            self.from,
            Square::new_unchecked(to as u8),
            captured,
            self.role,
            promotes,
            &self.path[..n],
        );
    }

    #[inline(always)]
    fn set_path(&mut self, depth: u8, sq: usize) {
        if (depth as usize) < MAX_CAPTURES {
            self.path[depth as usize] = Square::new_unchecked(sq as u8);
        }
    }

    /// Jumps of a man on `sq`. `occ` holds every piece but the mover (captured
    /// ones too while they stay to the end); `them` the opponents not yet
    /// captured.
    #[allow(clippy::needless_range_loop)]
    fn man(&mut self, sq: usize, occ: u64, them: u64, captured: u64, depth: u8, last: u8) {
        let backward = opposite(forward_dir::<S>());
        let mut any = false;
        for d in 0..4 {
            if d == backward && !self.cfg.men_backward {
                continue;
            }
            if !self.cfg.remove_at_end && last != NONE && d == opposite(last as usize) {
                continue;
            }
            let n = STEP[d][sq];
            if n & them == 0 {
                continue;
            }
            let l = STEP[d][n.trailing_zeros() as usize] & !occ;
            if l == 0 {
                continue;
            }
            any = true;
            let l_sq = l.trailing_zeros() as usize;
            self.set_path(depth, l_sq);
            let occ2 = if self.cfg.remove_at_end {
                occ
            } else {
                occ & !n
            };
            self.man(l_sq, occ2, them & !n, captured | n, depth + 1, d as u8);
        }
        if !any && depth > 0 {
            let promotes = (1u64 << sq) & promo_row::<S>() != 0;
            self.record(sq, captured, depth, promotes);
        }
    }

    /// Jumps of a king on `sq` (flying, orthogonal).
    fn king(&mut self, sq: usize, occ: u64, them: u64, captured: u64, depth: u8, last: u8) {
        let mut any = false;
        for d in 0..4 {
            if !self.cfg.remove_at_end && last != NONE && d == opposite(last as usize) {
                continue;
            }
            let (land, first) = king_jump(sq, d, occ, them);
            if land == 0 {
                continue;
            }
            any = true;
            let fb = 1u64 << first;
            let occ2 = if self.cfg.remove_at_end {
                occ
            } else {
                occ & !fb
            };
            let (them2, cap2) = (them & !fb, captured | fb);
            // Going on in direction `d` from any landing square jumps the same
            // piece as from the far end: only the far end continues that way
            // (the other paths are the same moves). Reversing is impossible
            // (the captured piece still stands) or forbidden.
            let far = nearest(opposite(d), land);
            let (p1, p2) = ((d + 1) & 3, (d + 3) & 3);
            let mut rest = land;
            while rest != 0 {
                let l = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                self.set_path(depth, l);
                let more = king_jump_exists(l, p1, occ2, them2)
                    || king_jump_exists(l, p2, occ2, them2)
                    || (l == far && king_jump_exists(l, d, occ2, them2));
                if more {
                    self.king(l, occ2, them2, cap2, depth + 1, d as u8);
                } else {
                    self.record(l, cap2, depth + 1, false);
                }
            }
        }
        if !any && depth > 0 {
            self.record(sq, captured, depth, false);
        }
    }
}

#[inline(never)]
fn gen_captures<S: Side, K: Sink>(
    mut caps: u64,
    occ: u64,
    them: u64,
    kings: u64,
    cfg: Config,
    out: &mut K,
) {
    out.clear();
    let mut search = Search::<S, K> {
        out,
        best: 1,
        from: Square::A1,
        role: Role::Man,
        cfg,
        path: [Square::A1; MAX_CAPTURES],
        side: std::marker::PhantomData,
    };
    while caps != 0 {
        let sq = caps.trailing_zeros() as usize;
        caps &= caps - 1;
        let bit = 1u64 << sq;
        search.from = Square::new_unchecked(sq as u8);
        if kings & bit != 0 {
            search.role = Role::King;
            search.king(sq, occ & !bit, them, 0, 0, NONE);
        } else {
            search.role = Role::Man;
            search.man(sq, occ & !bit, them, 0, 0, NONE);
        }
    }
}

/// A shift of a whole set by one step in a direction.
type Shift = fn(u64) -> u64;

/// The forward man directions as (shift, index delta of one step): straight,
/// diagonally east, diagonally west.
#[inline(always)]
fn man_dirs<S: Side>() -> [(Shift, i8); 3] {
    if S::WHITE {
        [(fwd::<S>, 8), (fwd_east::<S>, 9), (fwd_west::<S>, 7)]
    } else {
        [(fwd::<S>, -8), (fwd_east::<S>, -7), (fwd_west::<S>, -9)]
    }
}

/// Calls `visit(from, to)` for every quiet man move: single steps in Croda,
/// line moves (a single step being a line of one) in Dameo.
#[inline(always)]
fn for_each_man_move<S: Side>(men: u64, empty: u64, dameo: bool, mut visit: impl FnMut(u8, u8)) {
    for (shift, delta) in man_dirs::<S>() {
        // `cur`: the squares k steps ahead of a man with men on the k - 1
        // squares between (the front of a line of k men moving up).
        let mut cur = men;
        let mut k: i8 = 1;
        loop {
            let moved = shift(cur);
            let mut t = moved & empty;
            while t != 0 {
                let to = t.trailing_zeros() as u8;
                t &= t - 1;
                visit((to as i8 - k * delta) as u8, to);
            }
            if !dameo {
                break;
            }
            cur = moved & men;
            if cur == 0 {
                break;
            }
            k += 1;
        }
    }
}

/// Generates the legal moves into `out` (cleared first).
#[inline]
pub(crate) fn generate<S: Side, K: Sink>(us: u64, them: u64, kings: u64, cfg: Config, out: &mut K) {
    out.clear();
    let caps = capturers::<S>(us, them, kings, cfg.men_backward);
    let occ = us | them;
    if caps != 0 {
        gen_captures::<S, K>(caps, occ, them, kings, cfg, out);
        return;
    }
    let empty = !occ;
    let promo = promo_row::<S>();
    for_each_man_move::<S>(us & !kings, empty, cfg.dameo, |from, to| {
        out.quiet(from, to, Role::Man, (1u64 << to) & promo != 0);
    });
    let mut k = us & kings;
    while k != 0 {
        let from = k.trailing_zeros() as u8;
        k &= k - 1;
        let mut t = king_moves(from as usize, occ, cfg.dameo);
        while t != 0 {
            let to = t.trailing_zeros() as u8;
            t &= t - 1;
            out.quiet(from, to, Role::King, false);
        }
    }
}

/// The number of legal moves (bulk counting for perft).
#[inline]
pub(crate) fn count<S: Side>(
    us: u64,
    them: u64,
    kings: u64,
    cfg: Config,
    scratch: &mut CompactList,
) -> u64 {
    let caps = capturers::<S>(us, them, kings, cfg.men_backward);
    let occ = us | them;
    if caps != 0 {
        gen_captures::<S, CompactList>(caps, occ, them, kings, cfg, scratch);
        return scratch.len() as u64;
    }
    let empty = !occ;
    let men = us & !kings;
    let mut n = 0u32;
    for (shift, _) in man_dirs::<S>() {
        let mut cur = men;
        loop {
            let moved = shift(cur);
            n += (moved & empty).count_ones();
            if !cfg.dameo {
                break;
            }
            cur = moved & men;
            if cur == 0 {
                break;
            }
        }
    }
    let mut k = us & kings;
    while k != 0 {
        let from = k.trailing_zeros() as usize;
        k &= k - 1;
        n += king_moves(from, occ, cfg.dameo).count_ones();
    }
    u64::from(n)
}

/// Calls `visit(us, kings)` with the position after each quiet move (the
/// caller has checked that there is no capture).
#[inline]
pub(crate) fn for_each_quiet<S: Side>(
    us: u64,
    them: u64,
    kings: u64,
    cfg: Config,
    mut visit: impl FnMut(u64, u64),
) {
    let occ = us | them;
    let promo = promo_row::<S>();
    for_each_man_move::<S>(us & !kings, !occ, cfg.dameo, |from, to| {
        let t = 1u64 << to;
        let k = if t & promo != 0 { kings | t } else { kings };
        visit(us ^ t ^ (1u64 << from), k);
    });
    let mut k = us & kings;
    while k != 0 {
        let from = k & k.wrapping_neg();
        k &= k - 1;
        let mut t = king_moves(from.trailing_zeros() as usize, occ, cfg.dameo);
        while t != 0 {
            let to = t & t.wrapping_neg();
            t &= t - 1;
            let mv = from | to;
            visit(us ^ mv, kings ^ mv);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonal_rays_match_the_orthogonal_convention() {
        // North-east and north-west grow with the index, like North and East.
        assert_eq!(DIAG_RAYS[0][0], 0x8040_2010_0804_0200);
        assert_eq!(DIAG_RAYS[2][63], 0x0040_2010_0804_0201);
        assert_eq!(DIAG_RAYS[1][7] & (1 << 14), 1 << 14);
        assert_eq!(DIAG_RAYS[3][56] & (1 << 49), 1 << 49);
        // A queen in the corner of an empty board reaches 21 squares.
        assert_eq!(king_moves(0, 1, true).count_ones(), 21);
        assert_eq!(king_moves(0, 1, false).count_ones(), 14);
    }
}
