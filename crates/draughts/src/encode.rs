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
//! | 5..=8 | the direction the next jump may not take (the reverse of the last jump), one constant plane per point-of-view direction North, East, South, West; all zero outside a capture (captures are orthogonal in every variant) |
//! | 9 | constant 1 if the current position occurred before (a repetition; a third occurrence ends the game) |
//! | 10 | constant `plies_since_capture / limit`, clamped to 1 (limit: the no-capture draw limit of the rules, or 100 when the rule is off) |
//! | 11 | constant 1 (lets the convolutions see the board edge) |
//! | 12 | the pieces captured so far by a capture in progress |
//!
//! During a capture in progress the pieces are shown as they stand
//! mid-capture: the moving piece stands on its current square, as a king if
//! it captures as one. Where captured pieces leave the board at once (Turkish,
//! Armenian) they are gone from planes 2 and 3; where they stay as obstacles
//! until the move ends (Croda, Dameo) they are still in planes 2 and 3. Either
//! way plane 12 marks them (they cannot be jumped again).
//!
//! # Policy index, `[3584]` = 56 planes × 64 squares
//!
//! An action is one step (a quiet move, or one jump of a capture). It is
//! identified by its from-square, its direction and its distance (1..=7), in
//! point-of-view coordinates:
//!
//! `index = (direction · 7 + distance − 1) · 64 + from`
//!
//! with the eight compass directions numbered clockwise from North: North 0,
//! North-East 1, East 2, South-East 3, South 4, South-West 5, West 6,
//! North-West 7 ([`Compass`]). The diagonals carry the steps of the variants
//! (Armenian and Croda men, Dameo's men, line moves and queen-moving kings);
//! Turkish draughts uses the four orthogonal directions only. The layout is
//! plane-major so that the network's convolutional policy head, `[B, 56, 8,
//! 8]`, flattens to it directly. No two legal steps of a position share an
//! index: a quiet step's path is empty (a king's slide) or a line of the
//! mover's own men (a Dameo line move, from the rear man), and a jump's path
//! holds exactly one opponent piece, so from-square and landing square
//! determine the step.

use dama_engine::{Bitboard, Color, Direction, Game, Role, Square, Step};
use dama_game::{NnInput, Shape};

use crate::DamaState;

/// Version of the plane and policy layouts; stored in checkpoints, bundles
/// and self-play records. Bump it on any change to this module's layouts.
///
/// Version 1 had 12 planes and 28 policy planes (the four orthogonal
/// directions only, Turkish draughts); version 2 added the captured-pieces
/// plane and the four diagonal directions of the variants.
pub const ENCODING_VERSION: u32 = 2;

/// The shapes of the encoding: planes `[13, 8, 8]`, policy `[56, 8, 8]`.
pub const SHAPE: Shape = Shape {
    planes: NUM_PLANES,
    height: 8,
    width: 8,
    policy_planes: POLICY_PLANES,
};

impl NnInput for DamaState {
    type Action = Step;
    const SHAPE: Shape = SHAPE;

    fn encode_planes(&self, out: &mut [f32]) {
        encode_planes(self.game(), out);
    }

    fn policy_index(&self, action: Step) -> usize {
        policy_index(action, self.game().turn())
    }
}

/// Input planes per position, `C` in `[B, C, 8, 8]`.
pub const NUM_PLANES: usize = 13;

/// Values per encoded position, `C · 64`.
pub const PLANES_LEN: usize = NUM_PLANES * 64;

/// Policy planes: 8 directions × 7 distances.
pub const POLICY_PLANES: usize = 56;

/// Size of the policy vector: 56 planes × 64 from-squares.
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
    /// The pieces captured so far by a capture in progress.
    pub const CAPTURED: usize = 12;
}

/// The eight directions of the policy layout, clockwise from North, as
/// `(file, rank)` deltas.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Compass {
    /// Towards rank 8.
    North = 0,
    /// Towards rank 8 and the h-file.
    NorthEast = 1,
    /// Towards the h-file.
    East = 2,
    /// Towards rank 1 and the h-file.
    SouthEast = 3,
    /// Towards rank 1.
    South = 4,
    /// Towards rank 1 and the a-file.
    SouthWest = 5,
    /// Towards the a-file.
    West = 6,
    /// Towards rank 8 and the a-file.
    NorthWest = 7,
}

impl Compass {
    /// All eight, in index order.
    pub const ALL: [Compass; 8] = [
        Compass::North,
        Compass::NorthEast,
        Compass::East,
        Compass::SouthEast,
        Compass::South,
        Compass::SouthWest,
        Compass::West,
        Compass::NorthWest,
    ];

    /// The `(file, rank)` delta of one square in this direction.
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Compass::North => (0, 1),
            Compass::NorthEast => (1, 1),
            Compass::East => (1, 0),
            Compass::SouthEast => (1, -1),
            Compass::South => (0, -1),
            Compass::SouthWest => (-1, -1),
            Compass::West => (-1, 0),
            Compass::NorthWest => (-1, 1),
        }
    }

    /// The direction and distance from `from` to `to`, if they are distinct
    /// squares on one rank, file or diagonal.
    pub fn between(from: Square, to: Square) -> Option<(Compass, usize)> {
        let df = i32::from(to.file()) - i32::from(from.file());
        let dr = i32::from(to.rank()) - i32::from(from.rank());
        if (df == 0 && dr == 0) || (df != 0 && dr != 0 && df.abs() != dr.abs()) {
            return None;
        }
        let unit = (df.signum(), dr.signum());
        let dir = Compass::ALL.into_iter().find(|c| c.delta() == unit)?;
        Some((dir, df.abs().max(dr.abs()) as usize))
    }

    /// The direction seen from `turn`'s point of view (for Black, ranks are
    /// flipped: North ↔ South, North-East ↔ South-East, ...). An involution.
    pub const fn pov(self, turn: Color) -> Compass {
        match turn {
            Color::White => self,
            Color::Black => Compass::ALL[(12 - self as usize) % 8],
        }
    }

    /// The left-right mirror (files flipped: East ↔ West, North-East ↔
    /// North-West, ...). An involution.
    pub const fn mirror(self) -> Compass {
        Compass::ALL[(8 - self as usize) % 8]
    }
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

/// A jump direction index (North 0, East 1, South 2, West 3) in
/// point-of-view coordinates, for the forbidden-direction planes.
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
    let mut gone = Bitboard::EMPTY;
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
            fill_bitboard(out, plane::CAPTURED, p.captured(), us);
            if !p.removes_at_end() {
                gone = p.captured();
            }
        }
    }
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
/// If `step.from` and `step.to` are not distinct squares on one rank, file
/// or diagonal (no legal step of any variant is).
pub fn policy_index(step: Step, turn: Color) -> usize {
    let (dir, dist) = Compass::between(step.from, step.to)
        .expect("invariant: a step moves along a rank, a file or a diagonal");
    let plane = dir.pov(turn) as usize * 7 + dist - 1;
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
    let (df, dr) = Compass::ALL[dir_pov].pov(turn).delta();
    let f = i32::from(from.file()) + df * dist as i32;
    let r = i32::from(from.rank()) + dr * dist as i32;
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
/// (files `f ↦ 7 − f`, East ↔ West, North-East ↔ North-West, South-East ↔
/// South-West). An involution.
pub fn mirror_policy_index(index: usize) -> usize {
    let (plane, sq) = (index / 64, index % 64);
    let (dir, dist) = (plane / 7, plane % 7);
    let dir = Compass::ALL[dir].mirror() as usize;
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
                    if Compass::between(from, to).is_none() {
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
            // A queen's moves from every square of the empty board: 64 × 14
            // along ranks and files, 560 along diagonals.
            assert_eq!(hits, 64 * 14 + 560);
        }
    }

    #[test]
    fn compass_pov_and_mirror_are_involutions_that_flip_the_right_axis() {
        for c in Compass::ALL {
            let (df, dr) = c.delta();
            assert_eq!(c.pov(Color::Black).delta(), (df, -dr));
            assert_eq!(c.pov(Color::White), c);
            assert_eq!(c.mirror().delta(), (-df, dr));
            assert_eq!(c.pov(Color::Black).pov(Color::Black), c);
            assert_eq!(c.mirror().mirror(), c);
        }
        // The orthogonal directions agree with the engine's.
        for d in Direction::ALL {
            let (df, dr) = d.delta();
            let c = Compass::ALL
                .into_iter()
                .find(|c| c.delta() == (i32::from(df), i32::from(dr)))
                .unwrap();
            for turn in Color::ALL {
                let (pf, pr) = c.pov(turn).delta();
                let e = Direction::ALL[pov_direction(d, turn)].delta();
                assert_eq!((pf, pr), (i32::from(e.0), i32::from(e.1)));
            }
        }
    }

    #[test]
    fn diagonal_steps_have_their_own_planes() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        let step = |a: &str, b: &str| Step {
            from: sq(a),
            to: sq(b),
            captured: None,
        };
        // d3-e4 for White: North-East (1), distance 1 -> plane 7, from d3 = 19.
        assert_eq!(policy_index(step("d3", "e4"), Color::White), 7 * 64 + 19);
        // d6-e5 for Black is North-East in its point of view, from d3 (pov).
        assert_eq!(policy_index(step("d6", "e5"), Color::Black), 7 * 64 + 19);
        // a1-h8 for White: North-East, distance 7 -> plane 13, from a1 = 0.
        assert_eq!(policy_index(step("a1", "h8"), Color::White), 13 * 64);
        // The mirror of d3-e4 is e3-d4 (North-West, plane 49, from e3 = 20).
        assert_eq!(mirror_policy_index(7 * 64 + 19), 49 * 64 + 20);
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
