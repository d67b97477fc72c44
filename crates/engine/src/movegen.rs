//! Bitboard move generation.
//!
//! Everything here works on raw `u64` sets with the side to move as a type
//! parameter ([`Side`]), so the hot loops have no colour branches.

use arrayvec::ArrayVec;

use crate::geometry::RAYS;
use crate::mv::MAX_CAPTURES;
use crate::{Bitboard, Color, Direction, Move, MoveList, Role, Square, Step};

pub(crate) const FILE_A: u64 = 0x0101_0101_0101_0101;
pub(crate) const FILE_B: u64 = FILE_A << 1;
pub(crate) const FILE_G: u64 = FILE_A << 6;
pub(crate) const FILE_H: u64 = FILE_A << 7;
const RANK_1: u64 = 0xff;
const RANK_8: u64 = 0xff << 56;
pub(crate) const NONE: u8 = 4;

/// The side to move, as a type, so that generic code is compiled once per colour.
pub(crate) trait Side: Copy {
    /// Whether this is White.
    const WHITE: bool;
    /// The opponent.
    type Other: Side;
}

/// White to move.
#[derive(Copy, Clone)]
pub(crate) struct White;
/// Black to move.
#[derive(Copy, Clone)]
pub(crate) struct Black;

impl Side for White {
    const WHITE: bool = true;
    type Other = Black;
}

impl Side for Black {
    const WHITE: bool = false;
    type Other = White;
}

/// North and East rays grow with the square index; South and West shrink.
#[inline(always)]
pub(crate) const fn positive(d: usize) -> bool {
    d < 2
}

/// The nearest member of `blockers` (non-empty) seen from a square looking in `d`.
#[inline(always)]
pub(crate) fn nearest(d: usize, blockers: u64) -> usize {
    if positive(d) {
        blockers.trailing_zeros() as usize
    } else {
        63 - blockers.leading_zeros() as usize
    }
}

/// Squares a king on `sq` slides to in direction `d` (stopping before `occ`).
#[inline(always)]
pub(crate) fn slide(sq: usize, d: usize, occ: u64) -> u64 {
    let ray = RAYS[d][sq];
    let blk = ray & occ;
    if blk == 0 {
        ray
    } else {
        let b = nearest(d, blk);
        ray ^ RAYS[d][b] ^ (1 << b)
    }
}

/// All squares a king on `sq` slides to.
#[inline(always)]
pub(crate) fn king_slides(sq: usize, occ: u64) -> u64 {
    slide(sq, 0, occ) | slide(sq, 1, occ) | slide(sq, 2, occ) | slide(sq, 3, occ)
}

/// The king's landing squares after jumping in direction `d` from `sq`, or 0.
/// Also returns the captured square.
#[inline(always)]
pub(crate) fn king_jump(sq: usize, d: usize, occ: u64, them: u64) -> (u64, usize) {
    let blk = RAYS[d][sq] & occ;
    if blk == 0 {
        return (0, 0);
    }
    let first = nearest(d, blk);
    if them & (1 << first) == 0 {
        return (0, 0);
    }
    (slide(first, d, occ), first)
}

#[inline(always)]
pub(crate) const fn fwd<S: Side>(b: u64) -> u64 {
    if S::WHITE {
        b << 8
    } else {
        b >> 8
    }
}

#[inline(always)]
pub(crate) const fn back<S: Side>(b: u64) -> u64 {
    if S::WHITE {
        b >> 8
    } else {
        b << 8
    }
}

/// The squares diagonally forward-east of `b` (from the mover's side).
#[inline(always)]
pub(crate) const fn fwd_east<S: Side>(b: u64) -> u64 {
    if S::WHITE {
        (b & !FILE_H) << 9
    } else {
        (b & !FILE_H) >> 7
    }
}

/// The squares diagonally forward-west of `b` (from the mover's side).
#[inline(always)]
pub(crate) const fn fwd_west<S: Side>(b: u64) -> u64 {
    if S::WHITE {
        (b & !FILE_A) << 7
    } else {
        (b & !FILE_A) >> 9
    }
}

#[inline(always)]
pub(crate) const fn promo_row<S: Side>() -> u64 {
    if S::WHITE {
        RANK_8
    } else {
        RANK_1
    }
}

#[inline(always)]
pub(crate) const fn forward_dir<S: Side>() -> usize {
    if S::WHITE {
        0
    } else {
        2
    }
}

#[inline(always)]
pub(crate) const fn opposite(d: usize) -> usize {
    d ^ 2
}

/// The men of `us` that can jump right now (ignoring the maximum rule).
#[inline(always)]
fn man_capturers<S: Side>(men: u64, them: u64, empty: u64) -> u64 {
    let f = men & back::<S>(them) & back::<S>(back::<S>(empty));
    let e = men & !(FILE_G | FILE_H) & (them >> 1) & (empty >> 2);
    let w = men & !(FILE_A | FILE_B) & (them << 1) & (empty << 2);
    f | e | w
}

/// Whether a king on `sq` can jump right now.
#[inline(always)]
pub(crate) fn king_can_capture(sq: usize, occ: u64, them: u64) -> bool {
    let mut d = 0;
    while d < 4 {
        let blk = RAYS[d][sq] & occ;
        if blk != 0 {
            let first = nearest(d, blk);
            if them & (1 << first) != 0 && (RAYS[d][first] & !occ & STEP[d][first]) != 0 {
                return true;
            }
        }
        d += 1;
    }
    false
}

/// `STEP[d][sq]`: the neighbour of `sq` in direction `d` as a set (empty at the edge).
pub(crate) static STEP: [[u64; 64]; 4] = {
    let mut t = [[0u64; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let mut sq = 0;
        while sq < 64 {
            let ray = RAYS[d][sq];
            t[d][sq] = if ray == 0 {
                0
            } else if d < 2 {
                ray & ray.wrapping_neg()
            } else {
                1 << (63 - ray.leading_zeros())
            };
            sq += 1;
        }
        d += 1;
    }
    t
};

/// Whether the side to move has a capture.
#[inline(always)]
pub(crate) fn has_capture<S: Side>(us: u64, them: u64, kings: u64) -> bool {
    let occ = us | them;
    if man_capturers::<S>(us & !kings, them, !occ) != 0 {
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

/// Where generated moves go: a public [`MoveList`] of full [`Move`]s, or a
/// [`CompactList`] for perft.
pub(crate) trait Sink {
    /// Forgets everything recorded.
    fn clear(&mut self);
    /// A quiet move.
    fn quiet(&mut self, from: u8, to: u8, role: Role, promotes: bool);
    /// A complete capture sequence of maximal length so far; equal
    /// `(from, to, captured, promotes)` keys are recorded once.
    fn capture(
        &mut self,
        from: Square,
        to: Square,
        captured: u64,
        role: Role,
        promotes: bool,
        path: &[Square],
    );
}

impl Sink for MoveList {
    #[inline(always)]
    fn clear(&mut self) {
        ArrayVec::clear(self);
    }

    #[inline(always)]
    fn quiet(&mut self, from: u8, to: u8, role: Role, promotes: bool) {
        let _ = self.try_push(Move::new_quiet(
            Square::new_unchecked(from),
            Square::new_unchecked(to),
            role,
            promotes,
        ));
    }

    #[inline]
    fn capture(
        &mut self,
        from: Square,
        to: Square,
        captured: u64,
        role: Role,
        promotes: bool,
        path: &[Square],
    ) {
        for m in self.iter() {
            if m.to() == to
                && m.captured().0 == captured
                && m.from() == from
                && m.promotes() == promotes
            {
                return;
            }
        }
        if let Some(m) = Move::new_capture(from, path, Bitboard(captured), role, promotes) {
            let _ = self.try_push(m);
        }
    }
}

/// A move without its path, for perft.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Compact {
    /// Captured squares.
    pub captured: u64,
    /// `from | to << 6 | king << 12 | promotes << 13`.
    pub bits: u16,
}

impl Compact {
    #[inline(always)]
    pub(crate) fn from(self) -> u32 {
        u32::from(self.bits & 63)
    }

    #[inline(always)]
    pub(crate) fn to(self) -> u32 {
        u32::from((self.bits >> 6) & 63)
    }

    #[inline(always)]
    pub(crate) fn is_king(self) -> bool {
        self.bits & (1 << 12) != 0
    }

    #[inline(always)]
    pub(crate) fn promotes(self) -> bool {
        self.bits & (1 << 13) != 0
    }
}

/// A list of [`Compact`] moves.
pub(crate) type CompactList = ArrayVec<Compact, { crate::mv::MAX_MOVES }>;

#[inline(always)]
fn compact_bits(from: u8, to: u8, role: Role, promotes: bool) -> u16 {
    u16::from(from)
        | (u16::from(to) << 6)
        | (u16::from(role == Role::King) << 12)
        | (u16::from(promotes) << 13)
}

impl Sink for CompactList {
    #[inline(always)]
    fn clear(&mut self) {
        ArrayVec::clear(self);
    }

    #[inline(always)]
    fn quiet(&mut self, from: u8, to: u8, role: Role, promotes: bool) {
        let _ = self.try_push(Compact {
            captured: 0,
            bits: compact_bits(from, to, role, promotes),
        });
    }

    #[inline]
    fn capture(
        &mut self,
        from: Square,
        to: Square,
        captured: u64,
        role: Role,
        promotes: bool,
        _path: &[Square],
    ) {
        let bits = compact_bits(from.index(), to.index(), role, promotes);
        for m in self.iter() {
            if m.captured == captured && m.bits == bits {
                return;
            }
        }
        let _ = self.try_push(Compact { captured, bits });
    }
}

/// Depth-first search over capture sequences of one piece, keeping only the
/// longest (the maximum rule), deduplicated by `(from, to, captured, promotes)`.
struct CaptureSearch<'a, S: Side, K: Sink> {
    out: &'a mut K,
    best: u8,
    from: Square,
    role: Role,
    continue_as_king: bool,
    path: [Square; MAX_CAPTURES],
    side: std::marker::PhantomData<S>,
}

impl<S: Side, K: Sink> CaptureSearch<'_, S, K> {
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

    /// Jumps of a man on `sq`, found with shifts: forward, east, west.
    fn man(&mut self, sq: usize, occ: u64, them: u64, captured: u64, depth: u8, last: u8) {
        let b = 1u64 << sq;
        let empty = !occ;
        let lf = fwd::<S>(fwd::<S>(b) & them) & empty;
        let le = if last == 3 {
            0
        } else {
            ((((b & !(FILE_G | FILE_H)) << 1) & them) << 1) & empty
        };
        let lw = if last == 1 {
            0
        } else {
            ((((b & !(FILE_A | FILE_B)) >> 1) & them) >> 1) & empty
        };
        if lf | le | lw == 0 {
            if depth > 0 {
                let promotes = b & promo_row::<S>() != 0;
                self.record(sq, captured, depth, promotes);
            }
            return;
        }
        if lf != 0 {
            let c = back::<S>(lf);
            self.man_jump(lf, c, occ, them, captured, depth, forward_dir::<S>() as u8);
        }
        if le != 0 {
            self.man_jump(le, le >> 1, occ, them, captured, depth, 1);
        }
        if lw != 0 {
            self.man_jump(lw, lw << 1, occ, them, captured, depth, 3);
        }
    }

    /// A man lands on `l` after taking `c`; continue the search from there.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn man_jump(&mut self, l: u64, c: u64, occ: u64, them: u64, captured: u64, depth: u8, dir: u8) {
        let l_sq = l.trailing_zeros() as usize;
        if (depth as usize) < MAX_CAPTURES {
            self.path[depth as usize] = Square::new_unchecked(l_sq as u8);
        }
        if self.continue_as_king && l & promo_row::<S>() != 0 {
            self.king(
                l_sq,
                occ & !c,
                them & !c,
                captured | c,
                depth + 1,
                dir,
                true,
            );
        } else if man_capturers::<S>(l, them, !occ) == 0 {
            // No further jump (checked on the board before this jump: the
            // square left and the piece taken lie behind the man): a leaf.
            self.record(l_sq, captured | c, depth + 1, l & promo_row::<S>() != 0);
        } else {
            self.man(l_sq, occ & !c, them & !c, captured | c, depth + 1, dir);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn king(
        &mut self,
        sq: usize,
        occ: u64,
        them: u64,
        captured: u64,
        depth: u8,
        last: u8,
        crowned: bool,
    ) {
        let mut any = false;
        for d in 0..4 {
            if last != NONE && d == opposite(last as usize) {
                continue;
            }
            let (land, first) = king_jump(sq, d, occ, them);
            if land == 0 {
                continue;
            }
            any = true;
            let fb = 1u64 << first;
            let (occ2, them2, cap2) = (occ & !fb, them & !fb, captured | fb);
            // Only from the far end of the landing run can the king go on in
            // direction `d`; from every landing square it may turn.
            let far = nearest(opposite(d), land);
            let (p1, p2) = ((d + 1) & 3, (d + 3) & 3);
            let mut rest = land;
            while rest != 0 {
                let l = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if (depth as usize) < MAX_CAPTURES {
                    self.path[depth as usize] = Square::new_unchecked(l as u8);
                }
                let more = king_jump_exists(l, p1, occ2, them2)
                    || king_jump_exists(l, p2, occ2, them2)
                    || (l == far && king_jump_exists(l, d, occ2, them2));
                if more {
                    self.king(l, occ2, them2, cap2, depth + 1, d as u8, crowned);
                } else {
                    self.record(l, cap2, depth + 1, crowned);
                }
            }
        }
        if !any && depth > 0 {
            self.record(sq, captured, depth, crowned);
        }
    }
}

/// Whether a king on `sq` can jump in direction `d`.
#[inline(always)]
pub(crate) fn king_jump_exists(sq: usize, d: usize, occ: u64, them: u64) -> bool {
    let blk = RAYS[d][sq] & occ;
    if blk == 0 {
        return false;
    }
    let first = nearest(d, blk);
    them & (1 << first) != 0 && STEP[d][first] & !occ != 0
}

/// Generates the legal moves for the side to move into `out` (cleared first).
/// `ARM`: Armenian rules (men also step diagonally forward).
#[inline(always)]
pub(crate) fn generate<S: Side, K: Sink, const ARM: bool>(
    us: u64,
    them: u64,
    kings: u64,
    continue_as_king: bool,
    out: &mut K,
) {
    out.clear();
    let occ = us | them;
    let empty = !occ;
    let men = us & !kings;
    let our_kings = us & kings;

    let mut capturers = man_capturers::<S>(men, them, empty);
    let mut k = our_kings;
    while k != 0 {
        let sq = k.trailing_zeros() as usize;
        k &= k - 1;
        if king_can_capture(sq, occ, them) {
            capturers |= 1 << sq;
        }
    }

    if capturers != 0 {
        gen_captures::<S, K>(capturers, occ, them, kings, continue_as_king, out);
        return;
    }

    // Quiet moves: men forward and sideways, kings slide.
    let promo = promo_row::<S>();
    let mut t = fwd::<S>(men) & empty;
    while t != 0 {
        let to = t.trailing_zeros() as u8;
        t &= t - 1;
        let from = if S::WHITE { to - 8 } else { to + 8 };
        out.quiet(from, to, Role::Man, (1u64 << to) & promo != 0);
    }
    let mut t = ((men & !FILE_H) << 1) & empty;
    while t != 0 {
        let to = t.trailing_zeros() as u8;
        t &= t - 1;
        out.quiet(to - 1, to, Role::Man, false);
    }
    let mut t = ((men & !FILE_A) >> 1) & empty;
    while t != 0 {
        let to = t.trailing_zeros() as u8;
        t &= t - 1;
        out.quiet(to + 1, to, Role::Man, false);
    }
    if ARM {
        // Diagonal steps: the source is `to` minus the step.
        let (de, dw): (i8, i8) = if S::WHITE { (9, 7) } else { (-7, -9) };
        for (mut t, delta) in [
            (fwd_east::<S>(men) & empty, de),
            (fwd_west::<S>(men) & empty, dw),
        ] {
            while t != 0 {
                let to = t.trailing_zeros() as u8;
                t &= t - 1;
                let from = (to as i8 - delta) as u8;
                out.quiet(from, to, Role::Man, (1u64 << to) & promo != 0);
            }
        }
    }
    let mut k = our_kings;
    while k != 0 {
        let from = k.trailing_zeros() as u8;
        k &= k - 1;
        let mut t = king_slides(from as usize, occ);
        while t != 0 {
            let to = t.trailing_zeros() as u8;
            t &= t - 1;
            out.quiet(from, to, Role::King, false);
        }
    }
}

#[inline(never)]
fn gen_captures<S: Side, K: Sink>(
    mut capturers: u64,
    occ: u64,
    them: u64,
    kings: u64,
    continue_as_king: bool,
    out: &mut K,
) {
    out.clear();
    let mut search = CaptureSearch::<S, K> {
        out,
        best: 1,
        from: Square::A1,
        role: Role::Man,
        continue_as_king,
        path: [Square::A1; MAX_CAPTURES],
        side: std::marker::PhantomData,
    };
    while capturers != 0 {
        let sq = capturers.trailing_zeros() as usize;
        capturers &= capturers - 1;
        let bit = 1u64 << sq;
        search.from = Square::new_unchecked(sq as u8);
        if kings & bit != 0 {
            search.role = Role::King;
            search.king(sq, occ & !bit, them, 0, 0, NONE, false);
        } else {
            search.role = Role::Man;
            search.man(sq, occ & !bit, them, 0, 0, NONE);
        }
    }
}

/// The number of legal moves, without building quiet moves (bulk counting).
#[inline(always)]
pub(crate) fn count<S: Side, const ARM: bool>(
    us: u64,
    them: u64,
    kings: u64,
    continue_as_king: bool,
    scratch: &mut CompactList,
) -> u64 {
    let occ = us | them;
    let empty = !occ;
    let men = us & !kings;
    let our_kings = us & kings;
    // Landing squares of single man jumps, one set per direction.
    let lf = fwd::<S>(fwd::<S>(men) & them) & empty;
    let le = ((((men & !(FILE_G | FILE_H)) << 1) & them) << 1) & empty;
    let lw = ((((men & !(FILE_A | FILE_B)) >> 1) & them) >> 1) & empty;
    let mut king_capturers = 0u64;
    let mut k = our_kings;
    while k != 0 {
        let sq = k.trailing_zeros() as usize;
        k &= k - 1;
        if king_can_capture(sq, occ, them) {
            king_capturers |= 1 << sq;
        }
    }
    let landings = lf | le | lw;
    if landings | king_capturers != 0 {
        // Fast path: only men capture, and no jump can be continued. A man's
        // continuation never involves the square it came from or the piece it
        // took (both lie behind it), so it can be checked on the board as it
        // is. Then every single jump is a distinct maximal capture.
        if king_capturers == 0
            && !(continue_as_king && landings & promo_row::<S>() != 0)
            && man_capturers::<S>(landings, them, empty) == 0
        {
            return u64::from(lf.count_ones() + le.count_ones() + lw.count_ones());
        }
        let capturers = back::<S>(back::<S>(lf)) | (le >> 2) | (lw << 2) | king_capturers;
        gen_captures::<S, CompactList>(capturers, occ, them, kings, continue_as_king, scratch);
        return scratch.len() as u64;
    }
    // The target sets of the men (three directions) and of each king are
    // added square by square in a 3-bit bit-sliced counter (a square is the
    // target of at most 3 men and 4 kings), so that only three popcounts are
    // needed however many kings there are (popcount is slow without the
    // hardware instruction).
    let a = fwd::<S>(men) & empty;
    let b = ((men & !FILE_H) << 1) & empty;
    let c = ((men & !FILE_A) >> 1) & empty;
    let mut ones = a ^ b ^ c;
    let mut twos = (a & b) | (c & (a ^ b));
    let mut fours = 0u64;
    let mut k = our_kings;
    while k != 0 {
        let from = k.trailing_zeros() as usize;
        k &= k - 1;
        let x = king_slides(from, occ);
        let carry1 = ones & x;
        ones ^= x;
        let carry2 = twos & carry1;
        twos ^= carry1;
        fours |= carry2;
    }
    let diag = if ARM {
        (fwd_east::<S>(men) & empty).count_ones() + (fwd_west::<S>(men) & empty).count_ones()
    } else {
        0
    };
    u64::from(ones.count_ones() + 2 * twos.count_ones() + 4 * fours.count_ones() + diag)
}

/// Calls `visit(us, kings)` with the position after each quiet move (the
/// caller has checked that there is no capture).
#[inline(always)]
pub(crate) fn for_each_quiet<S: Side, const ARM: bool>(
    us: u64,
    them: u64,
    kings: u64,
    mut visit: impl FnMut(u64, u64),
) {
    let occ = us | them;
    let empty = !occ;
    let men = us & !kings;
    let promo = promo_row::<S>();
    let mut t = fwd::<S>(men) & empty;
    while t != 0 {
        let to = t & t.wrapping_neg();
        t &= t - 1;
        let k = if to & promo != 0 { kings | to } else { kings };
        visit(us ^ to ^ back::<S>(to), k);
    }
    let mut t = ((men & !FILE_H) << 1) & empty;
    while t != 0 {
        let to = t & t.wrapping_neg();
        t &= t - 1;
        visit(us ^ to ^ (to >> 1), kings);
    }
    let mut t = ((men & !FILE_A) >> 1) & empty;
    while t != 0 {
        let to = t & t.wrapping_neg();
        t &= t - 1;
        visit(us ^ to ^ (to << 1), kings);
    }
    if ARM {
        let (de, dw) = if S::WHITE { (9, 7) } else { (-7i32, -9i32) };
        for (mut t, delta) in [
            (fwd_east::<S>(men) & empty, de),
            (fwd_west::<S>(men) & empty, dw),
        ] {
            while t != 0 {
                let to = t & t.wrapping_neg();
                t &= t - 1;
                let from = if delta > 0 { to >> delta } else { to << -delta };
                let k = if to & promo != 0 { kings | to } else { kings };
                visit(us ^ to ^ from, k);
            }
        }
    }
    let mut k = us & kings;
    while k != 0 {
        let from = k & k.wrapping_neg();
        k &= k - 1;
        let mut t = king_slides(from.trailing_zeros() as usize, occ);
        while t != 0 {
            let to = t & t.wrapping_neg();
            t &= t - 1;
            let mv = from | to;
            visit(us ^ mv, kings ^ mv);
        }
    }
}

// ---------------------------------------------------------------------------
// Jump-by-jump play: slower, general helpers over a partial capture.
// ---------------------------------------------------------------------------

/// How jumps work under the rules in force (see [`JumpRules::new`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct JumpRules {
    /// A man landing on its promotion row is crowned at once and goes on as a king.
    pub continue_as_king: bool,
    /// Men also jump backward.
    pub men_backward: bool,
    /// Captured pieces stay on the board (as obstacles that cannot be jumped
    /// again) until the move ends; otherwise they leave at once and a jump may
    /// not reverse the previous one.
    pub remove_at_end: bool,
}

impl JumpRules {
    /// The jump rules of `rules`.
    pub(crate) fn new(rules: &crate::Rules) -> JumpRules {
        JumpRules {
            continue_as_king: rules.continue_as_king(),
            men_backward: rules.men_capture_backward(),
            remove_at_end: rules.removes_at_end(),
        }
    }
}

/// The state of a capture in progress, as raw sets.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct JumpState {
    /// Colour of the moving piece.
    pub color: Color,
    /// Current square of the moving piece.
    pub at: Square,
    /// Whether the piece now captures as a king.
    pub king: bool,
    /// Occupied squares, without the moving piece; without the captured
    /// pieces when they leave at once, with them when they stay to the end.
    pub occ: u64,
    /// Opponent pieces not yet captured.
    pub them: u64,
    /// Direction of the last jump, if any.
    pub last: Option<Direction>,
}

/// The jumps available from `s` (ignoring the maximum rule), with the state
/// after each.
pub(crate) fn jumps_from(s: &JumpState, jr: JumpRules) -> ArrayVec<(Step, JumpState), 32> {
    let mut out = ArrayVec::new();
    let sq = s.at.index() as usize;
    for dir in Direction::ALL {
        if !jr.remove_at_end && s.last == Some(dir.opposite()) {
            continue;
        }
        let d = dir as usize;
        let (land, first) = if s.king {
            king_jump(sq, d, s.occ, s.them)
        } else {
            if !jr.men_backward && !dir.is_man_direction(s.color) {
                continue;
            }
            let n = STEP[d][sq];
            if n & s.them == 0 {
                continue;
            }
            let n_sq = n.trailing_zeros() as usize;
            (STEP[d][n_sq] & !s.occ, n_sq)
        };
        let fb = 1u64 << first;
        for l in Bitboard(land) {
            let crowned = !s.king && jr.continue_as_king && l.is_promotion_row(s.color);
            let step = Step {
                from: s.at,
                to: l,
                captured: Some(Square::new_unchecked(first as u8)),
            };
            let next = JumpState {
                color: s.color,
                at: l,
                king: s.king || crowned,
                occ: if jr.remove_at_end { s.occ } else { s.occ & !fb },
                them: s.them & !fb,
                last: Some(dir),
            };
            let _ = out.try_push((step, next));
        }
    }
    out
}

/// The most further captures reachable from `s`.
pub(crate) fn max_further(s: &JumpState, jr: JumpRules) -> u32 {
    jumps_from(s, jr)
        .iter()
        .map(|(_, next)| 1 + max_further(next, jr))
        .max()
        .unwrap_or(0)
}
