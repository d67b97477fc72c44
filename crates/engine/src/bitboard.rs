//! A set of squares packed into a `u64`.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

use crate::Square;

/// A set of squares, one bit per square: bit `8 * rank + file`, so `a1` is bit 0
/// and `h8` is bit 63.
///
/// ```text
///     a  b  c  d  e  f  g  h
///  8 56 57 58 59 60 61 62 63
///  7 48 49 50 51 52 53 54 55
///  6 40 41 42 43 44 45 46 47
///  5 32 33 34 35 36 37 38 39
///  4 24 25 26 27 28 29 30 31
///  3 16 17 18 19 20 21 22 23
///  2  8  9 10 11 12 13 14 15
///  1  0  1  2  3  4  5  6  7
/// ```
///
/// # Examples
///
/// ```
/// use dama_engine::{Bitboard, Square};
///
/// let bb = Bitboard::RANK_2 | Bitboard::from_square(Square::D4);
/// assert_eq!(bb.count(), 9);
/// assert!(bb.contains(Square::D4));
/// assert_eq!(bb.into_iter().next(), Some(Square::A2));
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);
    /// The a-file.
    pub const FILE_A: Bitboard = Bitboard(0x0101_0101_0101_0101);
    /// The h-file.
    pub const FILE_H: Bitboard = Bitboard(0x8080_8080_8080_8080);
    /// Rank 1: White's back row, where Black's men are crowned.
    pub const RANK_1: Bitboard = Bitboard(0xff);
    /// Rank 2: half of White's starting men.
    pub const RANK_2: Bitboard = Bitboard(0xff << 8);
    /// Rank 3: half of White's starting men.
    pub const RANK_3: Bitboard = Bitboard(0xff << 16);
    /// Rank 6: half of Black's starting men.
    pub const RANK_6: Bitboard = Bitboard(0xff << 40);
    /// Rank 7: half of Black's starting men.
    pub const RANK_7: Bitboard = Bitboard(0xff << 48);
    /// Rank 8: Black's back row, where White's men are crowned.
    pub const RANK_8: Bitboard = Bitboard(0xff << 56);

    /// The set holding only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// The squares of file `file` (0 = a … 7 = h); empty if `file > 7`.
    #[inline]
    pub const fn file(file: u8) -> Bitboard {
        if file > 7 {
            Bitboard::EMPTY
        } else {
            Bitboard(Bitboard::FILE_A.0 << file)
        }
    }

    /// The squares of rank `rank` (0 = rank 1 … 7 = rank 8); empty if `rank > 7`.
    #[inline]
    pub const fn rank(rank: u8) -> Bitboard {
        if rank > 7 {
            Bitboard::EMPTY
        } else {
            Bitboard(0xff << (8 * rank))
        }
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set has at least one square.
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// The number of squares in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    /// The set with `sq` added.
    #[inline]
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | (1 << sq.index()))
    }

    /// The set with `sq` removed.
    #[inline]
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    /// Adds `sq` to the set.
    #[inline]
    pub fn add(&mut self, sq: Square) {
        self.0 |= 1 << sq.index();
    }

    /// Removes `sq` from the set.
    #[inline]
    pub fn remove(&mut self, sq: Square) {
        self.0 &= !(1 << sq.index());
    }

    /// The lowest square (a1 first, then b1, …), if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::new_unchecked(self.0.trailing_zeros() as u8))
        }
    }

    /// The highest square (h8 first, then g8, …), if any.
    #[inline]
    pub const fn last(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::new_unchecked(63 - self.0.leading_zeros() as u8))
        }
    }

    /// Removes and returns the lowest square, if any.
    #[inline]
    pub fn pop_first(&mut self) -> Option<Square> {
        let sq = self.first();
        self.0 &= self.0.wrapping_sub(1);
        sq
    }

    /// Mirrors the set left to right (file a ↔ file h).
    #[inline]
    #[must_use]
    pub const fn flip_horizontal(self) -> Bitboard {
        let mut x = self.0;
        x = ((x >> 1) & 0x5555_5555_5555_5555) | ((x & 0x5555_5555_5555_5555) << 1);
        x = ((x >> 2) & 0x3333_3333_3333_3333) | ((x & 0x3333_3333_3333_3333) << 2);
        x = ((x >> 4) & 0x0f0f_0f0f_0f0f_0f0f) | ((x & 0x0f0f_0f0f_0f0f_0f0f) << 4);
        Bitboard(x)
    }

    /// Mirrors the set top to bottom (rank 1 ↔ rank 8).
    #[inline]
    #[must_use]
    pub const fn flip_vertical(self) -> Bitboard {
        Bitboard(self.0.swap_bytes())
    }

    /// Rotates the set by 180 degrees (a1 ↔ h8).
    #[inline]
    #[must_use]
    pub const fn rotate_180(self) -> Bitboard {
        Bitboard(self.0.reverse_bits())
    }
}

impl fmt::Debug for Bitboard {
    /// Prints the set as an 8×8 diagram, rank 8 first, `1` for a member.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        for rank in (0..8).rev() {
            for file in 0..8 {
                let bit = (self.0 >> (8 * rank + file)) & 1;
                f.write_str(if bit == 1 { "1" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl From<Square> for Bitboard {
    #[inline]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

impl From<u64> for Bitboard {
    #[inline]
    fn from(bits: u64) -> Bitboard {
        Bitboard(bits)
    }
}

impl From<Bitboard> for u64 {
    #[inline]
    fn from(bb: Bitboard) -> u64 {
        bb.0
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Sub for Bitboard {
    type Output = Bitboard;
    /// Set difference: the squares of `self` not in `rhs`.
    #[inline]
    fn sub(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & !rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest first.
#[derive(Debug, Clone)]
pub struct IntoIter(u64);

impl Iterator for IntoIter {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = Square::new_unchecked(self.0.trailing_zeros() as u8);
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for IntoIter {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = IntoIter;
    #[inline]
    fn into_iter(self) -> IntoIter {
        IntoIter(self.0)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for sq in iter {
            bb.add(sq);
        }
        bb
    }
}
