//! A naive reference generator for every variant (arrays and recursion, no
//! bitboards), written from the rules as the crate docs state them and
//! sharing no code with the engine's generators. Boards are [`Naive`] values
//! (64 cells and the side to move); a move is the board it leaves behind.
//!
//! * Turkish: men step forward or sideways; Armenian adds the diagonal
//!   forward step; Croda: forward or diagonally forward; Dameo: a straight
//!   unbroken line of men (one or more) moves one square forward along its
//!   own line (straight or diagonal) if the square in front of it is empty.
//! * Kings slide like rooks, in Dameo like queens.
//! * Captures are orthogonal: a man jumps an adjacent enemy to the empty
//!   square beyond (forward and sideways; backward too in Dameo and, by
//!   default, Croda), a king jumps the first piece on a line at any distance
//!   and lands on any empty square beyond.
//! * Turkish and Armenian (and Croda with immediate removal) take captured
//!   pieces off at once and forbid a 180-degree turn between two jumps;
//!   Croda and Dameo leave them on the board as obstacles until the end and
//!   never jump a piece twice.
//! * Maximum capture; a man is crowned if its move ends on the last row (or,
//!   in Turkish/Armenian with continue-as-king, as soon as a jump lands there).

#![allow(dead_code)]

use std::collections::BTreeSet;

use dama_engine::{
    CaptureRemoval, ManCaptureDirections, MidCapturePromotion, Position, Rules, Variant,
};

use super::Naive;

/// What the naive generator needs to know, read from the public fields of
/// [`Rules`].
#[derive(Copy, Clone, Debug)]
pub struct VRules {
    pub variant: Variant,
    pub continue_as_king: bool,
    pub men_backward: bool,
    pub remove_at_end: bool,
}

impl VRules {
    pub fn of(rules: &Rules) -> VRules {
        let variant = rules.variant;
        let turkish_family = matches!(variant, Variant::Turkish | Variant::Armenian);
        VRules {
            variant,
            continue_as_king: turkish_family
                && rules.promotion_mid_capture == MidCapturePromotion::ContinueAsKing,
            men_backward: match variant {
                Variant::Turkish | Variant::Armenian => false,
                Variant::Croda => rules.croda_man_captures == ManCaptureDirections::AllOrthogonal,
                Variant::Dameo => true,
            },
            remove_at_end: match variant {
                Variant::Turkish | Variant::Armenian => false,
                Variant::Croda => rules.croda_removal == CaptureRemoval::EndOfMove,
                Variant::Dameo => true,
            },
        }
    }
}

const EMPTY: u8 = 0;
/// A captured piece still on the board (end-of-move removal).
const DEAD: u8 = 9;

fn color_of(c: u8) -> Option<bool> {
    match c {
        1 | 2 => Some(true),
        3 | 4 => Some(false),
        _ => None,
    }
}

fn is_king(c: u8) -> bool {
    c == 2 || c == 4
}

fn at(f: i32, r: i32) -> usize {
    (r * 8 + f) as usize
}

fn inside(f: i32, r: i32) -> bool {
    (0..8).contains(&f) && (0..8).contains(&r)
}

const ORTHO: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
const DIAG: [(i32, i32); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];

/// The children of `pos` under its own rules.
pub fn children_of(pos: &Position) -> BTreeSet<Naive> {
    Naive::from_position(pos).children_v(&VRules::of(pos.rules()))
}

impl Naive {
    /// The boards reachable in one legal move under `r`.
    pub fn children_v(&self, r: &VRules) -> BTreeSet<Naive> {
        let mut best = 0usize;
        let mut caps = BTreeSet::new();
        for rank in 0..8 {
            for file in 0..8 {
                let c = self.cells[at(file, rank)];
                if color_of(c) != Some(self.white) {
                    continue;
                }
                let mut board = self.cells;
                board[at(file, rank)] = EMPTY;
                self.jumps(
                    r,
                    &mut board,
                    file,
                    rank,
                    is_king(c),
                    is_king(c),
                    None,
                    0,
                    &mut best,
                    &mut caps,
                );
            }
        }
        if best > 0 {
            return caps;
        }
        self.quiet_v(r)
    }

    fn quiet_v(&self, r: &VRules) -> BTreeSet<Naive> {
        let fwd = if self.white { 1 } else { -1 };
        let last = if self.white { 7 } else { 0 };
        let me_man = if self.white { 1 } else { 3 };
        let mut out = BTreeSet::new();
        let mut push = |cells: [u8; 64]| {
            out.insert(Naive {
                cells,
                white: !self.white,
            });
        };
        for rank in 0..8 {
            for file in 0..8 {
                let c = self.cells[at(file, rank)];
                if color_of(c) != Some(self.white) {
                    continue;
                }
                if is_king(c) {
                    let mut dirs: Vec<(i32, i32)> = ORTHO.to_vec();
                    if r.variant == Variant::Dameo {
                        dirs.extend(DIAG);
                    }
                    for (df, dr) in dirs {
                        let (mut f, mut k) = (file + df, rank + dr);
                        while inside(f, k) && self.cells[at(f, k)] == EMPTY {
                            let mut b = self.cells;
                            b[at(file, rank)] = EMPTY;
                            b[at(f, k)] = c;
                            push(b);
                            f += df;
                            k += dr;
                        }
                    }
                    continue;
                }
                let steps: Vec<(i32, i32)> = match r.variant {
                    Variant::Turkish => vec![(0, fwd), (1, 0), (-1, 0)],
                    Variant::Armenian => vec![(0, fwd), (1, 0), (-1, 0), (1, fwd), (-1, fwd)],
                    Variant::Croda | Variant::Dameo => vec![(0, fwd), (1, fwd), (-1, fwd)],
                };
                for (df, dr) in steps {
                    // The line starting at this man: it and the men of our
                    // colour directly ahead of it (Dameo), or just the man.
                    let mut line = vec![(file, rank)];
                    if r.variant == Variant::Dameo {
                        let (mut f, mut k) = (file + df, rank + dr);
                        while inside(f, k) && self.cells[at(f, k)] == me_man {
                            line.push((f, k));
                            f += df;
                            k += dr;
                        }
                    }
                    let &(hf, hk) = line.last().unwrap();
                    let (tf, tk) = (hf + df, hk + dr);
                    if !inside(tf, tk) || self.cells[at(tf, tk)] != EMPTY {
                        continue;
                    }
                    // Every man of the line moves one square along it.
                    let mut b = self.cells;
                    for &(f, k) in &line {
                        b[at(f, k)] = EMPTY;
                    }
                    for &(f, k) in &line {
                        b[at(f + df, k + dr)] = me_man;
                    }
                    if tk == last {
                        b[at(tf, tk)] = me_man + 1;
                    }
                    push(b);
                }
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn jumps(
        &self,
        r: &VRules,
        board: &mut [u8; 64],
        f: i32,
        k: i32,
        king_now: bool,
        was_king: bool,
        last: Option<(i32, i32)>,
        count: usize,
        best: &mut usize,
        out: &mut BTreeSet<Naive>,
    ) {
        let fwd = if self.white { 1 } else { -1 };
        let last_rank = if self.white { 7 } else { 0 };
        let mut jumped = false;
        for (df, dr) in ORTHO {
            if !r.remove_at_end && last == Some((-df, -dr)) {
                continue;
            }
            if !king_now && dr == -fwd && !r.men_backward {
                continue;
            }
            let (mut tf, mut tk) = (f + df, k + dr);
            if king_now {
                while inside(tf, tk) && board[at(tf, tk)] == EMPTY {
                    tf += df;
                    tk += dr;
                }
            }
            if !inside(tf, tk) || color_of(board[at(tf, tk)]) != Some(!self.white) {
                continue;
            }
            let target = board[at(tf, tk)];
            let mut landings = Vec::new();
            let (mut lf, mut lk) = (tf + df, tk + dr);
            while inside(lf, lk) && board[at(lf, lk)] == EMPTY {
                landings.push((lf, lk));
                if !king_now {
                    break;
                }
                lf += df;
                lk += dr;
            }
            for (lf, lk) in landings {
                jumped = true;
                board[at(tf, tk)] = if r.remove_at_end { DEAD } else { EMPTY };
                let crowned = !king_now && r.continue_as_king && lk == last_rank;
                self.jumps(
                    r,
                    board,
                    lf,
                    lk,
                    king_now || crowned,
                    was_king,
                    Some((df, dr)),
                    count + 1,
                    best,
                    out,
                );
                board[at(tf, tk)] = target;
            }
        }
        if !jumped && count > 0 {
            if count < *best {
                return;
            }
            if count > *best {
                *best = count;
                out.clear();
            }
            let mut b = *board;
            for cell in b.iter_mut() {
                if *cell == DEAD {
                    *cell = EMPTY;
                }
            }
            let me = if self.white { 1 } else { 3 };
            let king = was_king || king_now || k == last_rank;
            b[at(f, k)] = if king { me + 1 } else { me };
            out.insert(Naive {
                cells: b,
                white: !self.white,
            });
        }
    }

    /// Naive perft under `r`: distinct boards at each ply.
    pub fn perft_v(&self, depth: u32, r: &VRules) -> u64 {
        if depth == 0 {
            return 1;
        }
        let children = self.children_v(r);
        if depth == 1 {
            return children.len() as u64;
        }
        children.iter().map(|c| c.perft_v(depth - 1, r)).sum()
    }
}
