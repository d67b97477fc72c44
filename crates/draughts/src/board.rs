//! A text board for terminals.

use dama_engine::{Color, Position, Role, Square};

/// Draws `pos` as text with file letters and rank numbers, `w`/`b` for men
/// and `W`/`B` for kings, `.` for empty squares. `bottom` is the side drawn
/// nearest to the viewer (White: rank 1 at the bottom).
///
/// ```
/// let board = dama_draughts::board::draw_board(&dama_engine::Position::startpos(), dama_engine::Color::White);
/// assert!(board.contains(" 2 | w w w w w w w w | 2"));
/// assert!(board.lines().next().unwrap().contains("a b c d e f g h"));
/// ```
pub fn draw_board(pos: &Position, bottom: Color) -> String {
    let files: Vec<u8> = match bottom {
        Color::White => (0..8).collect(),
        Color::Black => (0..8).rev().collect(),
    };
    let ranks: Vec<u8> = match bottom {
        Color::White => (0..8).rev().collect(),
        Color::Black => (0..8).collect(),
    };
    let letters: String = files
        .iter()
        .map(|&f| char::from(b'a' + f).to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let edge = format!("   +{}+\n", "-".repeat(17));
    let mut out = format!("     {letters}\n{edge}");
    for &r in &ranks {
        out.push_str(&format!(" {} |", r + 1));
        for &f in &files {
            let c = match Square::from_coords(f, r).and_then(|sq| pos.piece_at(sq)) {
                None => '.',
                Some(p) => match (p.color, p.role) {
                    (Color::White, Role::Man) => 'w',
                    (Color::White, Role::King) => 'W',
                    (Color::Black, Role::Man) => 'b',
                    (Color::Black, Role::King) => 'B',
                },
            };
            out.push(' ');
            out.push(c);
        }
        out.push_str(&format!(" | {}\n", r + 1));
    }
    out.push_str(&edge);
    out.push_str(&format!("     {letters}\n"));
    out
}
