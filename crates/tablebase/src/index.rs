//! Position ↔ index maps of one material split.
//!
//! A position is four sets of squares (white men, white kings, black men,
//! black kings) and the side to move. Each set is ranked in the
//! combinatorial number system (colex order) over the squares its pieces can
//! stand on: men over ranks 2–7 (a man never stands on its first rank, since
//! men only move forward or sideways from ranks 2–3, nor on its last rank,
//! where it is crowned), kings over all 64 squares. Overlapping sets get an
//! index too and are marked unused; for four pieces they are a few percent.
//!
//! The *full* index (used while solving) is mixed radix over the four ranks.
//! The *stored* index keeps only one of each left–right mirror pair: the
//! first non-empty set (the *lead*) must be no greater than its mirror image
//! as a `u64`, and positions are mirrored before lookup when it is not. When
//! the lead set is its own mirror image both the position and its mirror are
//! stored (they are rare: no single square is its own mirror).

use dama_engine::{Bitboard, Color};

use crate::Material;

/// Squares men can stand on: ranks 2–7 (both colours).
pub(crate) const MEN_SQUARES: u64 = 0x00ff_ffff_ffff_ff00;

/// `BINOM[n][k]` = n choose k for n ≤ 64, k ≤ 8.
const BINOM: [[u64; 9]; 65] = {
    let mut t = [[0u64; 9]; 65];
    let mut n = 0;
    while n <= 64 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= 8 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

/// The largest number of pieces of one kind in one table that the index
/// supports.
pub(crate) const MAX_GROUP: usize = 8;

/// All subsets of `k` squares of one domain, by colex rank.
#[derive(Debug)]
struct Group {
    /// Squares of the domain below this are not in it (8 for men, 0 for kings).
    base: u8,
    k: usize,
    /// Bitboard of each rank.
    sets: Vec<u64>,
}

impl Group {
    fn new(men: bool, k: usize) -> Group {
        let (base, n) = if men { (8u8, 48usize) } else { (0, 64) };
        let size = BINOM[n][k] as usize;
        let mut sets = vec![0u64; size];
        // Enumerate combinations c0 < c1 < … < c(k-1) in colex order: the
        // rank of each is sum C(c_j, j + 1), which walks 0, 1, 2, … here.
        let mut c: Vec<usize> = (0..k).collect();
        for set in sets.iter_mut() {
            *set = c
                .iter()
                .fold(0u64, |bb, &s| bb | 1 << (s + usize::from(base)));
            // Next combination in colex order.
            let mut j = 0;
            while j < k {
                if j + 1 < k && c[j] + 1 == c[j + 1] {
                    c[j] = j;
                    j += 1;
                } else {
                    c[j] += 1;
                    break;
                }
            }
        }
        Group { base, k, sets }
    }

    fn size(&self) -> u64 {
        self.sets.len() as u64
    }

    /// The rank of `bb` (which must hold `k` squares of the domain).
    #[inline]
    fn rank(&self, bb: u64) -> u64 {
        let mut r = 0;
        let mut b = bb;
        let mut j = 1;
        while b != 0 {
            let sq = b.trailing_zeros() as usize - usize::from(self.base);
            r += BINOM[sq][j];
            j += 1;
            b &= b - 1;
        }
        r
    }
}

/// The index maps of one material split.
#[derive(Debug)]
pub(crate) struct Indexer {
    pub material: Material,
    groups: [Group; 4],
    lead: usize,
    /// Full rank of the lead set → its rank among the stored lead sets.
    lead_to_stored: Vec<u32>,
    /// Stored lead rank → full rank.
    stored_to_lead: Vec<u32>,
    full_per_side: u64,
    stored_per_side: u64,
}

/// Four sets: white men, white kings, black men, black kings.
pub(crate) type Sets = [u64; 4];

fn mirror(bb: u64) -> u64 {
    Bitboard(bb).flip_horizontal().0
}

impl Indexer {
    /// The maps of `material`, or `None` if a kind of piece is more than
    /// [`MAX_GROUP`] strong or the indexes overflow `u64`.
    pub fn new(material: Material) -> Option<Indexer> {
        let counts = [
            material.white_men,
            material.white_kings,
            material.black_men,
            material.black_kings,
        ];
        if counts.iter().any(|&k| usize::from(k) > MAX_GROUP) || counts.iter().all(|&k| k == 0) {
            return None;
        }
        let groups = [
            Group::new(true, counts[0].into()),
            Group::new(false, counts[1].into()),
            Group::new(true, counts[2].into()),
            Group::new(false, counts[3].into()),
        ];
        let lead = counts.iter().position(|&k| k > 0)?;
        let mut lead_to_stored = vec![u32::MAX; groups[lead].sets.len()];
        let mut stored_to_lead = Vec::new();
        for (r, &bb) in groups[lead].sets.iter().enumerate() {
            if bb <= mirror(bb) {
                lead_to_stored[r] = u32::try_from(stored_to_lead.len()).ok()?;
                stored_to_lead.push(u32::try_from(r).ok()?);
            }
        }
        let mut full_per_side: u64 = 1;
        let mut stored_per_side: u64 = 1;
        for (g, group) in groups.iter().enumerate() {
            full_per_side = full_per_side.checked_mul(group.size())?;
            let n = if g == lead {
                stored_to_lead.len() as u64
            } else {
                group.size()
            };
            stored_per_side = stored_per_side.checked_mul(n)?;
        }
        full_per_side.checked_mul(2)?;
        Some(Indexer {
            material,
            groups,
            lead,
            lead_to_stored,
            stored_to_lead,
            full_per_side,
            stored_per_side,
        })
    }

    /// Entries of the full index (both sides to move).
    pub fn full_size(&self) -> u64 {
        2 * self.full_per_side
    }

    /// Entries of the stored index (both sides to move).
    pub fn stored_size(&self) -> u64 {
        2 * self.stored_per_side
    }

    /// The sets of a position given by its colour bitboards and kings.
    #[inline]
    pub fn sets(white: u64, black: u64, kings: u64) -> Sets {
        [white & !kings, white & kings, black & !kings, black & kings]
    }

    /// Whether the sets fit this material and the men stand on ranks 2–7.
    #[inline]
    pub fn fits(&self, s: &Sets) -> bool {
        (s[0] | s[2]) & !MEN_SQUARES == 0
            && self
                .groups
                .iter()
                .zip(s)
                .all(|(g, bb)| bb.count_ones() as usize == g.k)
    }

    /// The full index of a position whose sets [`fit`](Indexer::fits).
    #[inline]
    pub fn full_index(&self, s: &Sets, stm: Color) -> u64 {
        let mut i = 0;
        for (g, &bb) in self.groups.iter().zip(s) {
            i = i * g.size() + g.rank(bb);
        }
        stm.index() as u64 * self.full_per_side + i
    }

    /// The sets and side to move of a full index.
    #[inline]
    pub fn decode_full(&self, index: u64) -> (Sets, Color) {
        let stm = if index >= self.full_per_side {
            Color::Black
        } else {
            Color::White
        };
        let mut i = index % self.full_per_side;
        let mut s = [0u64; 4];
        for g in (0..4).rev() {
            let n = self.groups[g].size();
            s[g] = self.groups[g].sets[(i % n) as usize];
            i /= n;
        }
        (s, stm)
    }

    /// The stored index of a position whose sets [`fit`](Indexer::fits)
    /// (mirrored first if its lead set is not canonical).
    #[inline]
    pub fn stored_index(&self, s: &Sets, stm: Color) -> u64 {
        let lead = s[self.lead];
        let m;
        let s = if lead > mirror(lead) {
            m = [mirror(s[0]), mirror(s[1]), mirror(s[2]), mirror(s[3])];
            &m
        } else {
            s
        };
        let mut i = 0;
        for (g, (group, &bb)) in self.groups.iter().zip(s).enumerate() {
            let r = group.rank(bb);
            i = if g == self.lead {
                i * self.stored_to_lead.len() as u64 + u64::from(self.lead_to_stored[r as usize])
            } else {
                i * group.size() + r
            };
        }
        stm.index() as u64 * self.stored_per_side + i
    }

    #[cfg(test)]
    /// The stored index of a full index, or `None` if the full index is the
    /// mirror image of a stored one.
    #[inline]
    pub fn full_to_stored(&self, index: u64) -> Option<u64> {
        let (s, stm) = self.decode_full(index);
        let lead = s[self.lead];
        (lead <= mirror(lead)).then(|| self.stored_index(&s, stm))
    }

    /// The sets and side to move of a stored index.
    pub fn decode_stored(&self, index: u64) -> (Sets, Color) {
        let stm = if index >= self.stored_per_side {
            Color::Black
        } else {
            Color::White
        };
        let mut i = index % self.stored_per_side;
        let mut s = [0u64; 4];
        for g in (0..4).rev() {
            let group = &self.groups[g];
            if g == self.lead {
                let n = self.stored_to_lead.len() as u64;
                s[g] = group.sets[self.stored_to_lead[(i % n) as usize] as usize];
                i /= n;
            } else {
                let n = group.size();
                s[g] = group.sets[(i % n) as usize];
                i /= n;
            }
        }
        (s, stm)
    }
}

/// Whether four sets overlap (then the index is unused).
#[inline]
pub(crate) fn overlap(s: &Sets) -> bool {
    let all = s[0] | s[1] | s[2] | s[3];
    all.count_ones() != s.iter().map(|b| b.count_ones()).sum::<u32>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colex_ranks_round_trip() {
        for (men, k) in [(true, 1), (true, 2), (false, 1), (false, 2), (false, 3)] {
            let g = Group::new(men, k);
            for (r, &bb) in g.sets.iter().enumerate() {
                assert_eq!(bb.count_ones() as usize, k);
                assert_eq!(g.rank(bb), r as u64);
                if men {
                    assert_eq!(bb & !MEN_SQUARES, 0);
                }
            }
        }
    }

    #[test]
    fn stored_index_round_trips_and_halves() {
        let m = Material {
            white_men: 1,
            white_kings: 1,
            black_men: 0,
            black_kings: 1,
        };
        let ix = Indexer::new(m).unwrap();
        assert_eq!(ix.stored_size() * 2, ix.full_size());
        for i in 0..ix.stored_size() {
            let (s, stm) = ix.decode_stored(i);
            assert_eq!(ix.stored_index(&s, stm), i);
            let mirrored = s.map(mirror);
            assert_eq!(ix.stored_index(&mirrored, stm), i);
            let f = ix.full_index(&s, stm);
            assert_eq!(ix.full_to_stored(f), Some(i));
            assert_eq!(ix.decode_full(f), (s, stm));
        }
    }
}
