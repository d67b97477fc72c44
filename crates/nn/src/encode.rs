//! Position → input planes and action ↔ policy index, as pure slice code
//! (no tensors), after lc0's `encoder` and kZero's mappers.
//!
//! # Point of view
//!
//! Everything is encoded from the side of the player to move. For White the
//! board is taken as it is; for Black it is flipped vertically (rank `r`
//! becomes rank `7 − r`, files are kept), so the player to move always
//! advances towards rank 8 ("North"). Directions are flipped the same way
//! (North ↔ South for Black). Keeping the files makes the left-right mirror
//! (the game's only symmetry, used as data augmentation) the same operation
//! for both colours.
//!
//! # Input planes, `[C, 8, 8]` with `C =` [`NUM_PLANES`]
//!
//! Plane-major, then rank, then file: value `p·64 + 8·rank + file` (ranks and
//! files in point-of-view coordinates).
//!
//! | plane | meaning |
//! |---|---|
//! | 0 | own men |
//! | 1 | own kings |
//! | 2 | opponent men |
//! | 3 | opponent kings |
//! | 4 | the piece that must continue a capture decided jump by jump (its current square) |
//! | 5..=8 | the direction the next jump may not take (the reverse of the last jump), one constant plane per point-of-view direction North, East, South, West; all zero outside a capture |
//! | 9 | constant 1 if the current position occurred before (a repetition; a third occurrence ends the game) |
//! | 10 | constant `plies_since_capture / limit`, clamped to 1 (limit: the no-capture draw limit of the rules, or 100 when the rule is off) |
//! | 11 | constant 1 (lets the convolutions see the board edge) |
//!
//! During a capture in progress the pieces are shown as they stand
//! mid-capture: the jumped pieces are already removed (Turkish rules) and the
//! moving piece stands on its current square, as a king if it captures as
//! one.
//!
//! # Policy index, `[1792]` = 28 planes × 64 squares
//!
//! An action is one step (a quiet move, or one jump of a capture). It is
//! identified by its from-square, its direction and its distance (1..=7), in
//! point-of-view coordinates:
//!
//! `index = (direction · 7 + distance − 1) · 64 + from`
//!
//! with directions numbered North 0, East 1, South 2, West 3. The layout is
//! plane-major so that the network's convolutional policy head, `[B, 28, 8,
//! 8]`, flattens to it directly. No two legal steps of a position share an
//! index: from-square and landing square determine the jumped piece (exactly
//! one opponent piece lies between them on a line).

use dama_engine::{Bitboard, Color, Direction, Game, Role, Square, Step};

/// Version of the plane and policy layouts; stored in checkpoints and
/// self-play records. Bump it on any change to this module's layouts.
pub const ENCODING_VERSION: u32 = 1;

/// Input planes per position, `C` in `[B, C, 8, 8]`.
pub const NUM_PLANES: usize = 12;

/// Values per encoded position, `C · 64`.
pub const PLANES_LEN: usize = NUM_PLANES * 64;

/// Policy planes: 4 directions × 7 distances.
pub const POLICY_PLANES: usize = 28;

/// Size of the policy vector: 28 planes × 64 from-squares.
pub const POLICY_SIZE: usize = POLICY_PLANES * 64;

/// Plane indices, see the module table.
pub mod plane {
    /// Own men.
    pub const OWN_MEN: usize = 0;
    /// Own kings.
    pub const OWN_KINGS: usize = 1;
    /// Opponent men.
    pub const THEIR_MEN: usize = 2;
    /// Opponent kings.
    pub const THEIR_KINGS: usize = 3;
    /// The piece that must continue a capture.
    pub const CAPTURER: usize = 4;
    /// First of the four forbidden-direction planes (North, East, South, West).
    pub const FORBIDDEN_DIR: usize = 5;
    /// Repetition flag.
    pub const REPETITION: usize = 9;
    /// No-capture counter.
    pub const NO_CAPTURE: usize = 10;
    /// Constant ones.
    pub const ONES: usize = 11;
}

/// Normaliser of the no-capture plane when the rules have no limit.
const NO_LIMIT_SCALE: f32 = 100.0;

/// A square index in point-of-view coordinates.
#[inline]
fn pov_square(sq: Square, turn: Color) -> usize {
    let i = usize::from(sq.index());
    match turn {
        Color::White => i,
        Color::Black => i ^ 56,
    }
}

/// A direction index (North 0, East 1, South 2, West 3) in point-of-view
/// coordinates.
#[inline]
fn pov_direction(d: Direction, turn: Color) -> usize {
    let d = match turn {
        Color::White => d,
        Color::Black => d.opposite().flip_horizontal(),
    };
    d as usize
}

fn fill_bitboard(out: &mut [f32], plane: usize, bb: Bitboard, turn: Color) {
    let base = plane * 64;
    for sq in bb {
        out[base + pov_square(sq, turn)] = 1.0;
    }
}

fn fill_constant(out: &mut [f32], plane: usize, v: f32) {
    out[plane * 64..(plane + 1) * 64].fill(v);
}

/// Writes the [`NUM_PLANES`] input planes of `game` (see the module table)
/// into `out`, which must hold [`PLANES_LEN`] values; every value is
/// overwritten.
///
/// # Panics
///
/// If `out.len() != PLANES_LEN`.
pub fn encode_planes(game: &Game, out: &mut [f32]) {
    assert_eq!(out.len(), PLANES_LEN, "encode_planes: output length");
    out.fill(0.0);
    let pos = game.position();
    let us = game.turn();
    let them = us.other();
    match game.pending_capture() {
        None => {
            fill_bitboard(out, plane::OWN_MEN, pos.pieces_of(us, Role::Man), us);
            fill_bitboard(out, plane::OWN_KINGS, pos.pieces_of(us, Role::King), us);
        }
        Some(p) => {
            let at = p.square();
            let rest = pos.pieces(us).without(p.origin());
            let kings = pos.kings() & rest;
            let (mut men, mut kings) = (rest - kings, kings);
            if p.captures_as_king() {
                kings.add(at);
            } else {
                men.add(at);
            }
            fill_bitboard(out, plane::OWN_MEN, men, us);
            fill_bitboard(out, plane::OWN_KINGS, kings, us);
            fill_bitboard(out, plane::CAPTURER, Bitboard::from_square(at), us);
            if let Some(last) = p.last_direction() {
                let d = pov_direction(last.opposite(), us);
                fill_constant(out, plane::FORBIDDEN_DIR + d, 1.0);
            }
        }
    }
    let gone = game
        .pending_capture()
        .map_or(Bitboard::EMPTY, |p| p.captured());
    fill_bitboard(
        out,
        plane::THEIR_MEN,
        pos.pieces_of(them, Role::Man) - gone,
        us,
    );
    fill_bitboard(
        out,
        plane::THEIR_KINGS,
        pos.pieces_of(them, Role::King) - gone,
        us,
    );
    if game.repetitions() >= 2 {
        fill_constant(out, plane::REPETITION, 1.0);
    }
    let limit = pos
        .rules()
        .no_capture_limit
        .map_or(NO_LIMIT_SCALE, |l| f32::from(l.max(1)));
    let counter = (f32::from(pos.plies_since_capture()) / limit).min(1.0);
    fill_constant(out, plane::NO_CAPTURE, counter);
    fill_constant(out, plane::ONES, 1.0);
}

/// The policy index of `step`, a step the player `turn` can take (see the
/// module docs for the layout). Use [`Game::turn`] for `turn`.
///
/// # Panics
///
/// If `step.from` and `step.to` are not distinct squares on one rank or
/// file (no legal step is).
pub fn policy_index(step: Step, turn: Color) -> usize {
    let dir = Direction::between(step.from, step.to)
        .expect("invariant: a step moves along a rank or a file");
    let (f0, r0) = (i32::from(step.from.file()), i32::from(step.from.rank()));
    let (f1, r1) = (i32::from(step.to.file()), i32::from(step.to.rank()));
    let dist = (f1 - f0).abs().max((r1 - r0).abs()) as usize;
    let plane = pov_direction(dir, turn) * 7 + dist - 1;
    plane * 64 + pov_square(step.from, turn)
}

/// The from-square and landing square encoded by policy index `index` for
/// player `turn`, or `None` if the index is out of range or points off the
/// board.
pub fn decode_index(index: usize, turn: Color) -> Option<(Square, Square)> {
    if index >= POLICY_SIZE {
        return None;
    }
    let (plane, from_pov) = (index / 64, index % 64);
    let (dir_pov, dist) = (plane / 7, plane % 7 + 1);
    let from = Square::new(pov_index_to_abs(from_pov, turn))?;
    let dir = Direction::ALL[dir_pov];
    let dir = match turn {
        Color::White => dir,
        Color::Black => dir.opposite().flip_horizontal(),
    };
    let (df, dr) = dir.delta();
    let f = i32::from(from.file()) + i32::from(df) * dist as i32;
    let r = i32::from(from.rank()) + i32::from(dr) * dist as i32;
    if !(0..8).contains(&f) || !(0..8).contains(&r) {
        return None;
    }
    let to = Square::from_coords(f as u8, r as u8)?;
    Some((from, to))
}

fn pov_index_to_abs(i: usize, turn: Color) -> u8 {
    let i = match turn {
        Color::White => i,
        Color::Black => i ^ 56,
    };
    i as u8
}

/// The legal step of `steps` that policy index `index` denotes, if any.
pub fn step_for_index(steps: &[Step], index: usize, turn: Color) -> Option<Step> {
    let (from, to) = decode_index(index, turn)?;
    steps.iter().copied().find(|s| s.from == from && s.to == to)
}

/// The policy index of the left-right mirror of the action at `index`
/// (files `f ↦ 7 − f`, East ↔ West). An involution.
pub fn mirror_policy_index(index: usize) -> usize {
    let (plane, sq) = (index / 64, index % 64);
    let (dir, dist) = (plane / 7, plane % 7);
    let dir = match dir {
        1 => 3,
        3 => 1,
        d => d,
    };
    (dir * 7 + dist) * 64 + (sq ^ 7)
}

/// The input plane that plane `p` becomes under the left-right mirror (the
/// East and West forbidden-direction planes swap; all others stay).
pub fn mirror_plane(p: usize) -> usize {
    match p {
        p if p == plane::FORBIDDEN_DIR + 1 => plane::FORBIDDEN_DIR + 3,
        p if p == plane::FORBIDDEN_DIR + 3 => plane::FORBIDDEN_DIR + 1,
        p => p,
    }
}

/// Writes the left-right mirror of one position's planes `src` into `dst`
/// (both [`PLANES_LEN`] long).
///
/// # Panics
///
/// If a slice has the wrong length.
pub fn mirror_planes(src: &[f32], dst: &mut [f32]) {
    assert_eq!(src.len(), PLANES_LEN, "mirror_planes: source length");
    assert_eq!(dst.len(), PLANES_LEN, "mirror_planes: destination length");
    for p in 0..NUM_PLANES {
        let q = mirror_plane(p);
        for sq in 0..64 {
            dst[q * 64 + (sq ^ 7)] = src[p * 64 + sq];
        }
    }
}

/// Writes the left-right mirror of a policy vector `src` into `dst` (both
/// [`POLICY_SIZE`] long), moving each value to its mirrored index.
///
/// # Panics
///
/// If a slice has the wrong length.
pub fn mirror_policy(src: &[f32], dst: &mut [f32]) {
    assert_eq!(src.len(), POLICY_SIZE, "mirror_policy: source length");
    assert_eq!(dst.len(), POLICY_SIZE, "mirror_policy: destination length");
    for (i, &v) in src.iter().enumerate() {
        dst[mirror_policy_index(i)] = v;
    }
}

/// The left-right mirror of a step (for playing a mirrored game alongside).
pub fn mirror_step(step: Step) -> Step {
    Step {
        from: step.from.flip_horizontal(),
        to: step.to.flip_horizontal(),
        captured: step.captured.map(Square::flip_horizontal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_index_is_an_involution_and_a_permutation() {
        let mut seen = vec![false; POLICY_SIZE];
        for i in 0..POLICY_SIZE {
            let j = mirror_policy_index(i);
            assert_eq!(mirror_policy_index(j), i);
            assert!(!seen[j]);
            seen[j] = true;
        }
    }

    #[test]
    fn decode_inverts_index_for_every_on_board_step() {
        for turn in [Color::White, Color::Black] {
            let mut hits = 0;
            for from in Square::ALL {
                for to in Square::ALL {
                    if Direction::between(from, to).is_none() {
                        continue;
                    }
                    let s = Step {
                        from,
                        to,
                        captured: None,
                    };
                    let i = policy_index(s, turn);
                    assert!(i < POLICY_SIZE);
                    assert_eq!(decode_index(i, turn), Some((from, to)));
                    hits += 1;
                }
            }
            // 64 squares × 14 squares on the same rank or file.
            assert_eq!(hits, 64 * 14);
        }
    }

    #[test]
    fn startpos_planes() {
        let game = Game::new();
        let mut planes = vec![0.0; PLANES_LEN];
        encode_planes(&game, &mut planes);
        let count = |p: usize| planes[p * 64..(p + 1) * 64].iter().sum::<f32>();
        assert_eq!(count(plane::OWN_MEN), 16.0);
        assert_eq!(count(plane::THEIR_MEN), 16.0);
        assert_eq!(count(plane::OWN_KINGS), 0.0);
        assert_eq!(count(plane::ONES), 64.0);
        // White men on ranks 2 and 3 (indices 8..24).
        assert!(planes[8..24].iter().all(|&v| v == 1.0));
    }
}
