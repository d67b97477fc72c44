//! Draughts' input features for the learned evaluation
//! ([`dama_nnue::Features`]): one per (own or their, man or king, square),
//! seen from one side ("perspective": 0 White, 1 Black). Black's view
//! mirrors the rows, so that both sides' men advance up the board and one
//! set of weights serves both. The same features serve every 8×8 variant
//! (one network per rules).

use dama_engine::{Bitboard, Color, Position, Rules};
use dama_nnue::Features;

/// Draughts' feature set: 2 owners × 2 roles × 64 squares per perspective.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DraughtsFeatures;

/// The feature of a piece of `owner` (a king if `king`) on square `square`
/// (0 = a1 … 63 = h8) seen by `perspective`.
#[inline(always)]
pub fn feature_index(perspective: Color, owner: Color, king: bool, square: u32) -> usize {
    let kind = usize::from(owner != perspective) * 2 + usize::from(king);
    let sq = match perspective {
        Color::White => square,
        Color::Black => square ^ 56,
    } as usize;
    kind * 64 + sq
}

/// The four piece sets of a position: (owner, king, squares).
#[inline(always)]
fn piece_sets(pos: &Position) -> [(Color, bool, u64); 4] {
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

#[inline(always)]
fn color(perspective: usize) -> Color {
    if perspective == 0 {
        Color::White
    } else {
        Color::Black
    }
}

impl Features for DraughtsFeatures {
    type Position = Position;
    type Rules = Rules;

    const NAME: &'static str = "draughts-psq";
    const COUNT: usize = 256;
    /// White's, Black's and the kings' bitboards, then the side to move.
    const POSITION_BYTES: usize = 25;
    const READS_UNNAMED_FILES: bool = true;

    #[inline(always)]
    fn side_to_move(pos: &Position) -> usize {
        pos.turn().index()
    }

    #[inline(always)]
    fn for_each_feature(pos: &Position, perspective: usize, mut f: impl FnMut(usize)) {
        let p = color(perspective);
        for (owner, king, set) in piece_sets(pos) {
            let mut bb = set;
            while bb != 0 {
                let sq = bb.trailing_zeros();
                bb &= bb - 1;
                f(feature_index(p, owner, king, sq));
            }
        }
    }

    #[inline(always)]
    fn for_each_change(before: &Position, after: &Position, mut f: impl FnMut(usize, usize, bool)) {
        for ((owner, king, was), (_, _, is)) in
            piece_sets(before).into_iter().zip(piece_sets(after))
        {
            for (mut bb, added) in [(was & !is, false), (is & !was, true)] {
                while bb != 0 {
                    let sq = bb.trailing_zeros();
                    bb &= bb - 1;
                    f(0, feature_index(Color::White, owner, king, sq), added);
                    f(1, feature_index(Color::Black, owner, king, sq), added);
                }
            }
        }
    }

    /// The position mirrored left-right (files a ↔ h), which the rules of
    /// every 8×8 variant treat alike.
    fn mirrored(pos: &Position) -> Option<Position> {
        Some(pos.flip_horizontal())
    }

    fn encode(pos: &Position, out: &mut Vec<u8>) {
        out.extend_from_slice(&pos.pieces(Color::White).0.to_le_bytes());
        out.extend_from_slice(&pos.pieces(Color::Black).0.to_le_bytes());
        out.extend_from_slice(&pos.kings().0.to_le_bytes());
        out.push(pos.turn().index() as u8);
    }

    fn decode(b: &[u8], rules: &Rules) -> Result<Position, String> {
        if b.len() != Self::POSITION_BYTES {
            return Err(format!("{} bytes, a position has 25", b.len()));
        }
        let u = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            Bitboard(u64::from_le_bytes(a))
        };
        let turn = match b[24] {
            0 => Color::White,
            1 => Color::Black,
            t => return Err(format!("side to move {t}")),
        };
        Position::from_bitboards_with_rules(u(0), u(8), u(16), turn, *rules)
            .map_err(|e| format!("not a position: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_are_distinct_and_in_range() {
        for p in Color::ALL {
            let mut seen = vec![false; DraughtsFeatures::COUNT];
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
        DraughtsFeatures::for_each_feature(&pos, 0, |i| w.push(i));
        DraughtsFeatures::for_each_feature(&pos, 1, |i| b.push(i));
        w.sort_unstable();
        b.sort_unstable();
        assert_eq!(w, b);
        assert_eq!(w.len(), 32);
    }

    #[test]
    fn a_position_survives_encoding() {
        let pos = Position::startpos();
        let mut bytes = Vec::new();
        DraughtsFeatures::encode(&pos, &mut bytes);
        assert_eq!(bytes.len(), DraughtsFeatures::POSITION_BYTES);
        let back = DraughtsFeatures::decode(&bytes, pos.rules()).expect("decodes");
        assert_eq!(back.pieces(Color::White), pos.pieces(Color::White));
        assert_eq!(back.pieces(Color::Black), pos.pieces(Color::Black));
        assert_eq!(back.turn(), pos.turn());
        bytes[24] = 2;
        assert!(DraughtsFeatures::decode(&bytes, pos.rules()).is_err());
    }
}
