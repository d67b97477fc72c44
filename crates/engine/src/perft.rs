//! Perft: counting the leaves of the move tree.

#[cfg(feature = "parallel")]
use rayon::prelude::*;

use crate::movegen::{self, Black, Compact, CompactList, Side, White};
use crate::rules::Variant;
use crate::{ortho, Color, Move, Position, Rules};

/// The number of leaf positions `depth` plies below `pos` (move-generation
/// test). Each legal move counts once, with capture paths that share
/// `from`, `to` and the captured set counted once (see [`Move`]); a position
/// with no legal move above the last ply contributes no leaves; `perft(pos, 0)`
/// is 1. Draw rules are ignored: the tree follows legal moves only.
///
/// The tree follows `rules` (which replace the rules stored in `pos`; the
/// variant and its capture options matter, the draw rules do not). The last
/// ply is counted without playing the moves (bulk counting).
///
/// # Examples
///
/// ```
/// use dama_engine::{perft, Position, Rules};
///
/// let pos = Position::startpos();
/// let rules = Rules::default();
/// assert_eq!(perft(&pos, &rules, 1), 8);
/// assert_eq!(perft(&pos, &rules, 2), 64);
/// assert_eq!(perft(&pos, &rules, 3), 708);
/// ```
pub fn perft(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    let (us, them, kings) = (pos.us().0, pos.them().0, pos.kings().0);
    let white = pos.turn() == Color::White;
    match rules.variant {
        Variant::Turkish => {
            let g = Turkish::<false>(rules.continue_as_king());
            if white {
                perft_raw::<White, _>(g, us, them, kings, depth)
            } else {
                perft_raw::<Black, _>(g, us, them, kings, depth)
            }
        }
        Variant::Armenian => {
            let g = Turkish::<true>(rules.continue_as_king());
            if white {
                perft_raw::<White, _>(g, us, them, kings, depth)
            } else {
                perft_raw::<Black, _>(g, us, them, kings, depth)
            }
        }
        Variant::Croda | Variant::Dameo => {
            let g = Ortho(ortho::Config::new(rules));
            if white {
                perft_raw::<White, _>(g, us, them, kings, depth)
            } else {
                perft_raw::<Black, _>(g, us, them, kings, depth)
            }
        }
    }
}

/// Perft split by the first move: each legal move with the leaf count below it
/// (the counts sum to [`perft`]`(pos, rules, depth)`). Empty if `depth == 0`.
///
/// # Examples
///
/// ```
/// use dama_engine::{perft, perft_divide, Position, Rules};
///
/// let pos = Position::startpos();
/// let rules = Rules::default();
/// let div = perft_divide(&pos, &rules, 3);
/// assert_eq!(div.len(), 8);
/// assert_eq!(div.iter().map(|(_, n)| n).sum::<u64>(), perft(&pos, &rules, 3));
/// ```
pub fn perft_divide(pos: &Position, rules: &Rules, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let pos = pos.with_rules(*rules);
    pos.legal_moves()
        .iter()
        .map(|m| {
            let mut child = pos;
            child.play_unchecked(m);
            (*m, perft(&child, rules, depth - 1))
        })
        .collect()
}

#[cfg(feature = "parallel")]
/// [`perft`], with the subtrees of the root moves counted in parallel on the
/// current rayon thread pool (run it inside `ThreadPool::install` to choose
/// the number of threads).
///
/// # Examples
///
/// ```
/// use dama_engine::{perft, perft_parallel, Position, Rules};
///
/// let pos = Position::startpos();
/// let rules = Rules::default();
/// assert_eq!(perft_parallel(&pos, &rules, 4), perft(&pos, &rules, 4));
/// ```
pub fn perft_parallel(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    if depth <= 2 {
        return perft(pos, rules, depth);
    }
    perft_divide_parallel(pos, rules, depth)
        .iter()
        .map(|(_, n)| n)
        .sum()
}

#[cfg(feature = "parallel")]
/// [`perft_divide`], with the root moves counted in parallel on the current
/// rayon thread pool.
pub fn perft_divide_parallel(pos: &Position, rules: &Rules, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let pos = pos.with_rules(*rules);
    let moves: Vec<Move> = pos.legal_moves().to_vec();
    moves
        .par_iter()
        .map(|m| {
            let mut child = pos;
            child.play_unchecked(m);
            (*m, perft(&child, rules, depth - 1))
        })
        .collect()
}

#[inline(always)]
fn apply(us: u64, them: u64, kings: u64, m: Compact) -> (u64, u64, u64) {
    let mv = (1u64 << m.from()) ^ (1u64 << m.to());
    let captured = m.captured;
    let us = us ^ mv;
    let mut kings = kings & !captured;
    if m.is_king() {
        kings ^= mv;
    }
    if m.promotes() {
        kings |= 1u64 << m.to();
    }
    (us, them & !captured, kings)
}

/// One variant's generator, as perft needs it.
trait Gen: Copy {
    fn has_capture<S: Side>(self, us: u64, them: u64, kings: u64) -> bool;
    fn generate<S: Side>(self, us: u64, them: u64, kings: u64, out: &mut CompactList);
    fn count<S: Side>(self, us: u64, them: u64, kings: u64, scratch: &mut CompactList) -> u64;
    fn for_each_quiet<S: Side>(self, us: u64, them: u64, kings: u64, visit: impl FnMut(u64, u64));
}

/// Turkish (`ARM = false`) and Armenian draughts; the flag is
/// [`MidCapturePromotion::ContinueAsKing`](crate::MidCapturePromotion::ContinueAsKing).
#[derive(Copy, Clone)]
struct Turkish<const ARM: bool>(bool);

impl<const ARM: bool> Gen for Turkish<ARM> {
    #[inline(always)]
    fn has_capture<S: Side>(self, us: u64, them: u64, kings: u64) -> bool {
        movegen::has_capture::<S>(us, them, kings)
    }
    #[inline(always)]
    fn generate<S: Side>(self, us: u64, them: u64, kings: u64, out: &mut CompactList) {
        movegen::generate::<S, CompactList, ARM>(us, them, kings, self.0, out);
    }
    #[inline(always)]
    fn count<S: Side>(self, us: u64, them: u64, kings: u64, scratch: &mut CompactList) -> u64 {
        movegen::count::<S, ARM>(us, them, kings, self.0, scratch)
    }
    #[inline(always)]
    fn for_each_quiet<S: Side>(self, us: u64, them: u64, kings: u64, visit: impl FnMut(u64, u64)) {
        movegen::for_each_quiet::<S, ARM>(us, them, kings, visit);
    }
}

/// Croda and Dameo.
#[derive(Copy, Clone)]
struct Ortho(ortho::Config);

impl Gen for Ortho {
    #[inline(always)]
    fn has_capture<S: Side>(self, us: u64, them: u64, kings: u64) -> bool {
        ortho::has_capture::<S>(us, them, kings, self.0.men_backward)
    }
    #[inline(always)]
    fn generate<S: Side>(self, us: u64, them: u64, kings: u64, out: &mut CompactList) {
        ortho::generate::<S, CompactList>(us, them, kings, self.0, out);
    }
    #[inline(always)]
    fn count<S: Side>(self, us: u64, them: u64, kings: u64, scratch: &mut CompactList) -> u64 {
        ortho::count::<S>(us, them, kings, self.0, scratch)
    }
    #[inline(always)]
    fn for_each_quiet<S: Side>(self, us: u64, them: u64, kings: u64, visit: impl FnMut(u64, u64)) {
        ortho::for_each_quiet::<S>(us, them, kings, self.0, visit);
    }
}

fn perft_raw<S: Side, G: Gen>(g: G, us: u64, them: u64, kings: u64, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => {
            let mut scratch = CompactList::new();
            g.count::<S>(us, them, kings, &mut scratch)
        }
        _ => perft_inner::<S, G>(g, us, them, kings, depth),
    }
}

fn perft_inner<S: Side, G: Gen>(g: G, us: u64, them: u64, kings: u64, depth: u32) -> u64 {
    let mut nodes = 0;
    if !g.has_capture::<S>(us, them, kings) {
        if depth == 2 {
            let mut scratch = CompactList::new();
            g.for_each_quiet::<S>(us, them, kings, |u, k| {
                nodes += g.count::<S::Other>(them, u, k, &mut scratch);
            });
        } else {
            g.for_each_quiet::<S>(us, them, kings, |u, k| {
                nodes += perft_inner::<S::Other, G>(g, them, u, k, depth - 1);
            });
        }
        return nodes;
    }
    let mut list = CompactList::new();
    g.generate::<S>(us, them, kings, &mut list);
    if depth == 2 {
        let mut scratch = CompactList::new();
        for &m in &list {
            let (u, t, k) = apply(us, them, kings, m);
            nodes += g.count::<S::Other>(t, u, k, &mut scratch);
        }
    } else {
        for &m in &list {
            let (u, t, k) = apply(us, them, kings, m);
            nodes += perft_inner::<S::Other, G>(g, t, u, k, depth - 1);
        }
    }
    nodes
}
