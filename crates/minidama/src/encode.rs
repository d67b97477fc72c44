//! The network encoding: [`MiniState`] implements [`NnInput`].
//!
//! Everything is seen from the side to move: for Black the ranks are
//! flipped (rank `r` becomes `5 − r`, files kept), so the side to move
//! always advances up the board; the left-right mirror is then the same for
//! both sides.
//!
//! Input planes `[9, 6, 6]` (value `plane · 36 + 6 · rank + file`):
//!
//! | plane | meaning |
//! |---|---|
//! | 0, 1 | own men, own kings |
//! | 2, 3 | their men, their kings (mid-capture: as the board stands, jumped pieces gone) |
//! | 4 | the piece in the middle of a capture (its square) |
//! | 5 | the square its last jump started from (the way it may not turn back) |
//! | 6 | constant 1 if the position occurred before |
//! | 7 | constant plies without capture / the limit (100 when off), at most 1 |
//! | 8 | constant 1 |
//!
//! Policy `[20, 6, 6]`: a step is its from-square, direction (North, East,
//! South, West, seen from the side to move) and distance (1..=5):
//! `index = (5 · direction + distance − 1) · 36 + from`. A jump's path holds exactly one piece, so the from-square and
//! landing square tell apart every legal step.

use dama_game::{NnInput, Shape};

use crate::board::{Color, Square};
use crate::moves::{Step, DIRECTIONS};
use crate::search::MiniState;

/// Version of the plane and policy layouts above.
pub const ENCODING_VERSION: u32 = 1;

/// The shapes: planes `[9, 6, 6]`, policy `[20, 6, 6]`.
pub const SHAPE: Shape = Shape {
    planes: 9,
    height: 6,
    width: 6,
    policy_planes: 20,
};

/// The index of `sq` seen from `side`.
fn pov(sq: Square, side: Color) -> usize {
    let rank = if side == Color::White {
        sq.rank()
    } else {
        5 - sq.rank()
    };
    (rank * 6 + sq.file()) as usize
}

impl NnInput for MiniState {
    type Action = Step;
    const SHAPE: Shape = SHAPE;

    fn encode_planes(&self, out: &mut [f32]) {
        out[..SHAPE.planes_len()].fill(0.0);
        let game = self.game();
        let us = game.turn();
        let board = self.board();
        for sq in Square::all() {
            if let Some(p) = board.get(sq) {
                let plane = 2 * usize::from(p.color != us) + usize::from(p.king);
                out[plane * 36 + pov(sq, us)] = 1.0;
            }
        }
        if let Some((at, came)) = self.capturing() {
            out[4 * 36 + pov(at, us)] = 1.0;
            out[5 * 36 + pov(came, us)] = 1.0;
        }
        let limit = game.rules().no_capture_limit.unwrap_or(100);
        let progress = (f32::from(game.plies_since_capture()) / f32::from(limit)).min(1.0);
        let repeated = if game.repetitions() > 1 { 1.0 } else { 0.0 };
        out[6 * 36..7 * 36].fill(repeated);
        out[7 * 36..8 * 36].fill(progress);
        out[8 * 36..9 * 36].fill(1.0);
    }

    fn policy_index(&self, step: Step) -> usize {
        let (df, dr) = step.direction();
        let forward = self.game().turn().forward();
        let dir = DIRECTIONS.iter().position(|&d| d == (df, dr * forward));
        let plane = 5 * dir.unwrap_or(0) + usize::from(step.distance()).clamp(1, 5) - 1;
        plane * 36 + pov(step.from, self.game().turn())
    }
}

/// Writes the left-right mirror of encoded planes `src` into `dst`.
pub fn mirror_planes(src: &[f32], dst: &mut [f32]) {
    for (s, d) in src.chunks(6).zip(dst.chunks_mut(6)) {
        for (i, v) in s.iter().rev().enumerate() {
            d[i] = *v;
        }
    }
}

/// The policy index of the left-right mirror of the step at `index`
/// (East and West swap); an involution. Indices out of range are kept.
#[must_use]
pub fn mirror_policy_index(index: usize) -> usize {
    if index >= SHAPE.policy_size() {
        return index;
    }
    let (plane, sq) = (index / 36, index % 36);
    let dir = [0, 3, 2, 1][plane / 5];
    (5 * dir + plane % 5) * 36 + sq - sq % 6 + (5 - sq % 6)
}
