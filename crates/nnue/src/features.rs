//! The input features: one per (own or their, man or king, square), seen
//! from one side ("perspective"). Black's view mirrors the rows, so that both
//! sides' men advance up the board and one set of weights serves both.

use dama_engine::{Color, Position};

/// Features per perspective: 2 owners × 2 roles × 64 squares.
pub const PERSPECTIVE_FEATURES: usize = 256;

/// The feature of a piece of `owner` (a king if `king`) on square `square`
/// (0 = a1 … 63 = h8) seen by `perspective`.
#[inline]
pub fn feature_index(perspective: Color, owner: Color, king: bool, square: u32) -> usize {
    let kind = usize::from(owner != perspective) * 2 + usize::from(king);
    let sq = match perspective {
        Color::White => square,
        Color::Black => square ^ 56,
    } as usize;
    kind * 64 + sq
}

/// Calls `f` with every active feature of `pos` seen by `perspective`.
#[inline]
pub fn for_each_feature(pos: &Position, perspective: Color, mut f: impl FnMut(usize)) {
    let kings = pos.kings().0;
    for owner in Color::ALL {
        let ours = pos.pieces(owner).0;
        for (set, king) in [(ours & !kings, false), (ours & kings, true)] {
            let mut bb = set;
            while bb != 0 {
                let sq = bb.trailing_zeros();
                bb &= bb - 1;
                f(feature_index(perspective, owner, king, sq));
            }
        }
    }
}

/// The four piece sets of a position: (owner, king, squares).
#[inline]
pub(crate) fn piece_sets(pos: &Position) -> [(Color, bool, u64); 4] {
    let kings = pos.kings().0;
    let w = pos.pieces(Color::White).0;
    let b = pos.pieces(Color::Black).0;
    [
        (Color::White, false, w & !kings),
        (Color::White, true, w & kings),
        (Color::Black, false, b & !kings),
        (Color::Black, true, b & kings),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_are_distinct_and_in_range() {
        for p in Color::ALL {
            let mut seen = vec![false; PERSPECTIVE_FEATURES];
            for owner in Color::ALL {
                for king in [false, true] {
                    for sq in 0..64 {
                        let i = feature_index(p, owner, king, sq);
                        assert!(!seen[i], "feature {i} twice");
                        seen[i] = true;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn black_sees_the_start_as_white_does() {
        // The initial position is symmetric under a row mirror and a colour
        // swap, so both perspectives see the same features.
        let pos = Position::startpos();
        let mut w = Vec::new();
        let mut b = Vec::new();
        for_each_feature(&pos, Color::White, |i| w.push(i));
        for_each_feature(&pos, Color::Black, |i| b.push(i));
        w.sort_unstable();
        b.sort_unstable();
        assert_eq!(w, b);
        assert_eq!(w.len(), 32);
    }
}
