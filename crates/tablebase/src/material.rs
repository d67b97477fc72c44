//! Material splits: how many men and kings each side has.

use std::fmt;

use dama_engine::{Color, Position, Role};

/// The pieces on the board by colour and role: one material split, one table.
///
/// Names read like Syzygy's: White's pieces, `v`, Black's pieces, kings
/// (`K`) before men (`M`), so `KMvK` is a white king and man against a black
/// king.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Material {
    /// White men.
    pub white_men: u8,
    /// White kings.
    pub white_kings: u8,
    /// Black men.
    pub black_men: u8,
    /// Black kings.
    pub black_kings: u8,
}

impl Material {
    /// The material of `pos`.
    pub fn of(pos: &Position) -> Material {
        let n = |c, r| pos.pieces_of(c, r).count() as u8;
        Material {
            white_men: n(Color::White, Role::Man),
            white_kings: n(Color::White, Role::King),
            black_men: n(Color::Black, Role::Man),
            black_kings: n(Color::Black, Role::King),
        }
    }

    /// All pieces on the board.
    pub fn pieces(&self) -> u32 {
        u32::from(self.white_men + self.white_kings + self.black_men + self.black_kings)
    }

    /// The pieces of one side.
    pub fn side(&self, color: Color) -> u32 {
        match color {
            Color::White => u32::from(self.white_men + self.white_kings),
            Color::Black => u32::from(self.black_men + self.black_kings),
        }
    }

    /// All men on the board.
    pub fn men(&self) -> u32 {
        u32::from(self.white_men + self.black_men)
    }

    /// The material with the colours swapped (what
    /// [`Position::flip_colors`] does to it).
    #[must_use]
    pub fn flipped(&self) -> Material {
        Material {
            white_men: self.black_men,
            white_kings: self.black_kings,
            black_men: self.white_men,
            black_kings: self.white_kings,
        }
    }

    /// Whether positions of this material are stored as they are (otherwise
    /// they are looked up with the colours flipped): White has more pieces,
    /// or as many and at least as many kings.
    pub fn is_canonical(&self) -> bool {
        let w = (self.side(Color::White), self.white_kings);
        let b = (self.side(Color::Black), self.black_kings);
        w >= b
    }

    /// Whether the material has a table: both sides have a piece and there
    /// are at least three pieces (with fewer, or with a side bare, the game
    /// is decided by the rules at once; see [`Position::termination`]).
    pub fn has_table(&self) -> bool {
        self.side(Color::White) >= 1 && self.side(Color::Black) >= 1 && self.pieces() >= 3
    }

    /// Every canonical material with a table and at most `max_pieces`
    /// pieces, in an order where each table's children come first: fewer
    /// pieces first (captures), then fewer men (promotions turn a man into a
    /// king and keep the piece count).
    pub fn all_up_to(max_pieces: u32) -> Vec<Material> {
        let mut out = Vec::new();
        let n = max_pieces.min(32) as u8;
        for wm in 0..=n {
            for wk in 0..=n - wm {
                for bm in 0..=n - wm - wk {
                    for bk in 0..=n - wm - wk - bm {
                        let m = Material {
                            white_men: wm,
                            white_kings: wk,
                            black_men: bm,
                            black_kings: bk,
                        };
                        if m.has_table() && m.is_canonical() {
                            out.push(m);
                        }
                    }
                }
            }
        }
        out.sort_by_key(|m| (m.pieces(), m.men(), *m));
        out
    }

    /// The file name of this material's table: `KMvK.dtb`.
    pub fn file_name(&self) -> String {
        format!("{self}.dtb")
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |k: u8, m: u8| "K".repeat(k.into()) + &"M".repeat(m.into());
        write!(
            f,
            "{}v{}",
            side(self.white_kings, self.white_men),
            side(self.black_kings, self.black_men)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_puts_children_first() {
        let all = Material::all_up_to(4);
        let pos = |m: &Material| all.iter().position(|x| x == m).unwrap();
        for m in &all {
            // A promotion (one man fewer, one king more) is solved earlier.
            if m.white_men > 0 {
                let mut p = *m;
                p.white_men -= 1;
                p.white_kings += 1;
                let p = if p.is_canonical() { p } else { p.flipped() };
                assert!(pos(&p) < pos(m), "{p} after {m}");
            }
        }
        assert_eq!(all[0].to_string(), "KKvK");
        assert!(all.iter().all(|m| m.is_canonical() && m.has_table()));
        // 3 pieces: 2v1 with 3 role splits for White and 2 for Black = 6.
        assert_eq!(all.iter().filter(|m| m.pieces() == 3).count(), 6);
    }
}
