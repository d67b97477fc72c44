//! Our position as a `kish` board: shared by the kish differential test,
//! the criterion bench and the `perft_vs_kish` example (included with
//! `#[path]`, since tests, benches and examples are separate crates).

use dama_engine::{Color, Position};

/// The same pieces, kings and side to move as a `kish::Board`.
pub fn kish_board(pos: &Position) -> kish::Board {
    let team = match pos.turn() {
        Color::White => kish::Team::White,
        Color::Black => kish::Team::Black,
    };
    kish::Board::new(
        team,
        kish::State::new(
            [pos.pieces(Color::White).0, pos.pieces(Color::Black).0],
            pos.kings().0,
        ),
    )
}
