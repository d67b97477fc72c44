//! A deliberately naive move generator for Turkish Tafl, written from the
//! rules text (the crate docs list the readings): a 4 × 8 array of squares,
//! whole moves by plain recursion, no bitboards and nothing shared with the
//! engine but the position's text form.

#![allow(dead_code)]

use std::collections::BTreeSet;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum P {
    BlackMan,
    BlackKing,
    WhiteMan,
    WhiteKing,
}

impl P {
    fn black(self) -> bool {
        matches!(self, P::BlackMan | P::BlackKing)
    }
    /// (row, column) deltas this piece moves and jumps in.
    fn dirs(self) -> Vec<(i32, i32)> {
        match self {
            P::BlackMan => vec![(0, 1), (1, 0), (-1, 0)],
            P::WhiteMan => vec![(0, -1), (1, 0), (-1, 0)],
            _ => vec![(0, 1), (0, -1), (1, 0), (-1, 0)],
        }
    }
}

/// `board[row][column]`, rows A..D, columns 1..8 (0-based).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Board {
    pub sq: [[Option<P>; 8]; 4],
    pub black_to_move: bool,
}

/// A whole move: kind (0 slide, 1 friendly, 2 capture), from, to (`None`
/// off the board), captured squares sorted.
pub type NaiveMove = (u8, (i32, i32), Option<(i32, i32)>, Vec<(i32, i32)>);

pub struct Opts {
    pub defender_man_chain: bool,
    pub majority: bool,
    pub exit_goal: bool,
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            defender_man_chain: false,
            majority: false,
            exit_goal: true,
        }
    }
}

fn on(r: i32, c: i32) -> bool {
    (0..4).contains(&r) && (0..8).contains(&c)
}

fn name(r: i32, c: i32) -> String {
    format!("{}{}", (b'a' + r as u8) as char, c + 1)
}

impl Board {
    /// From position text `W:Wb5,Kd1:Ba1,Kb3`.
    pub fn parse(text: &str) -> Board {
        let parts: Vec<&str> = text.split(':').collect();
        let mut sq = [[None; 8]; 4];
        for (part, black) in [(parts[1], false), (parts[2], true)] {
            for item in part[1..].split(',').filter(|s| !s.is_empty()) {
                let (king, n) = match item.strip_prefix('K') {
                    Some(n) => (true, n),
                    None => (false, item),
                };
                let b = n.as_bytes();
                let (r, c) = ((b[0] - b'a') as usize, (b[1] - b'1') as usize);
                sq[r][c] = Some(match (black, king) {
                    (true, true) => P::BlackKing,
                    (true, false) => P::BlackMan,
                    (false, true) => P::WhiteKing,
                    (false, false) => P::WhiteMan,
                });
            }
        }
        Board {
            sq,
            black_to_move: parts[0] == "B",
        }
    }

    fn at(&self, r: i32, c: i32) -> Option<P> {
        if on(r, c) {
            self.sq[r as usize][c as usize]
        } else {
            None
        }
    }

    fn set(&mut self, r: i32, c: i32, p: Option<P>) {
        self.sq[r as usize][c as usize] = p;
    }

    fn mine(&self, p: P) -> bool {
        p.black() == self.black_to_move
    }

    /// Every capture sequence of the piece at (r, c), as it stands in
    /// `self` (already lifted and with pieces removed as captured).
    #[allow(clippy::too_many_arguments)] // Plain recursion, kept naive.
    fn captures_from(
        &self,
        piece: P,
        from: (i32, i32),
        r: i32,
        c: i32,
        taken: &mut Vec<(i32, i32)>,
        opts: &Opts,
        out: &mut Vec<NaiveMove>,
    ) {
        let mut any = false;
        let chain_ok = taken.is_empty() || piece != P::WhiteMan || opts.defender_man_chain;
        if chain_ok {
            for (dr, dc) in piece.dirs() {
                let (mr, mc) = (r + dr, c + dc);
                let Some(victim) = self.at(mr, mc) else {
                    continue;
                };
                // Only enemy pieces, and never the King side's King.
                if victim.black() == piece.black() || victim == P::BlackKing {
                    continue;
                }
                let (lr, lc) = (mr + dr, mc + dc);
                if !on(lr, lc) {
                    // Only the King leaves, over column 8.
                    if piece == P::BlackKing && dc == 1 && opts.exit_goal {
                        any = true;
                        let mut t = taken.clone();
                        t.push((mr, mc));
                        t.sort();
                        out.push((2, from, None, t));
                    }
                    continue;
                }
                if self.at(lr, lc).is_some() {
                    continue;
                }
                any = true;
                let mut b = self.clone();
                b.set(mr, mc, None);
                taken.push((mr, mc));
                b.captures_from(piece, from, lr, lc, taken, opts, out);
                taken.pop();
            }
        }
        if !any && !taken.is_empty() {
            let mut t = taken.clone();
            t.sort();
            out.push((2, from, Some((r, c)), t));
        }
    }

    fn friendly_from(
        &self,
        piece: P,
        from: (i32, i32),
        r: i32,
        c: i32,
        visited: &mut Vec<(i32, i32)>,
        out: &mut Vec<NaiveMove>,
    ) {
        for (dr, dc) in piece.dirs() {
            let (mr, mc) = (r + dr, c + dc);
            let Some(over) = self.at(mr, mc) else {
                continue;
            };
            if !over.black() {
                continue;
            }
            let (lr, lc) = (mr + dr, mc + dc);
            // Never off the board, never onto a square landed on before.
            if !on(lr, lc) || self.at(lr, lc).is_some() || visited.contains(&(lr, lc)) {
                continue;
            }
            out.push((1, from, Some((lr, lc)), vec![]));
            visited.push((lr, lc));
            self.friendly_from(piece, from, lr, lc, visited, out);
            visited.pop();
        }
    }

    /// Every legal whole move, once per identity.
    pub fn moves(&self, opts: &Opts) -> BTreeSet<NaiveMove> {
        let mut caps = Vec::new();
        let mut quiet = Vec::new();
        for r in 0..4 {
            for c in 0..8 {
                let Some(p) = self.at(r, c) else { continue };
                if !self.mine(p) {
                    continue;
                }
                let mut lifted = self.clone();
                lifted.set(r, c, None);
                lifted.captures_from(p, (r, c), r, c, &mut vec![], opts, &mut caps);
                for (dr, dc) in p.dirs() {
                    let (tr, tc) = (r + dr, c + dc);
                    if on(tr, tc) {
                        if self.at(tr, tc).is_none() {
                            quiet.push((0, (r, c), Some((tr, tc)), vec![]));
                        }
                    } else if p == P::BlackKing && dc == 1 && opts.exit_goal {
                        quiet.push((0, (r, c), None, vec![]));
                    }
                }
                if p.black() {
                    lifted.friendly_from(p, (r, c), r, c, &mut vec![(r, c)], &mut quiet);
                }
            }
        }
        if caps.is_empty() {
            return quiet.into_iter().collect();
        }
        if opts.majority {
            let best = caps.iter().map(|m| m.3.len()).max().unwrap_or(0);
            caps.retain(|m| m.3.len() == best);
        }
        caps.into_iter().collect()
    }

    /// The board after `m` (promotion included; an exit leaves the King
    /// off the board).
    pub fn play(&self, m: &NaiveMove) -> Board {
        let mut b = self.clone();
        let (fr, fc) = m.1;
        let p = b.at(fr, fc).expect("a piece moves");
        b.set(fr, fc, None);
        for &(r, c) in &m.3 {
            b.set(r, c, None);
        }
        if let Some((tr, tc)) = m.2 {
            let p = if p == P::WhiteMan && tc == 0 {
                P::WhiteKing
            } else {
                p
            };
            b.set(tr, tc, Some(p));
        }
        b.black_to_move = !b.black_to_move;
        b
    }

    /// Perft counting only the exit and having no move as ends (positions
    /// where the King cannot yet be surrounded or locked in).
    pub fn perft(&self, depth: u32, opts: &Opts) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves(opts);
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            // An exit ends the game: no sequence goes on from it.
            .map(|m| {
                if m.2.is_none() {
                    0
                } else {
                    self.play(m).perft(depth - 1, opts)
                }
            })
            .sum()
    }
}

/// A naive move as the engine writes it: (kind, from, to, captured) with
/// square names.
pub fn describe(m: &NaiveMove) -> String {
    let kind = ["slide", "friendly", "capture"][m.0 as usize];
    let to = m.2.map_or("off".to_owned(), |(r, c)| name(r, c));
    let caps: Vec<String> = m.3.iter().map(|&(r, c)| name(r, c)).collect();
    format!("{kind} {}-{to} [{}]", name(m.1 .0, m.1 .1), caps.join(","))
}
