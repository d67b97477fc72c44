//! Turkish Tafl positions into input planes and steps into policy indices
//! (pure slice code, like draughts' encoding).
//!
//! The board is `[8, 4]`: plane row = column 1..8 (the long axis), plane
//! column = row A..D, so value `p·32 + square index` ([`dama_tafl::Square`]
//! indices are `4 · column + row`). The game is asymmetric, so the board is
//! never turned: a constant plane says who is to move.
//!
//! | plane | meaning |
//! |---|---|
//! | 0 | King-side men |
//! | 1 | the King |
//! | 2 | Defender men |
//! | 3 | Defender Kings |
//! | 4 | constant 1 if the King side is to move |
//! | 5 | the piece continuing a chain (its square) |
//! | 6 | constant 1 during a friendly chain |
//! | 7 | the squares a friendly chain has landed on (it may not again) |
//! | 8 | the pieces a capture chain has taken so far (their squares) |
//! | 9 | constant 1 if the position occurred before |
//! | 10 | constant `plies / limit`, clamped to 1 (limit: the rules' ply limit, or 200) |
//! | 11 | constant 1 |
//!
//! Policy, `[9, 8, 4]` = 288: plane `d` (0..4, [`Dir`] order Up, Down,
//! Right, Left) is the slide from a square in direction `d`, plane `4 + d`
//! the jump, plane 8 stopping a friendly chain on the square; index
//! `plane · 32 + square`. The King's exits are its slide or jump Up from
//! column 8 or 7, which point off the board.

use dama_game::{NnInput, Shape};

use crate::search::TaflState;
use crate::{Bitboard, Dir, Side, Square, Step};

/// Version of this module's layouts; bump it on any change.
pub const TAFL_ENCODING_VERSION: u32 = 1;

/// The shapes of the Turkish Tafl encoding.
pub const TAFL_SHAPE: Shape = Shape {
    planes: 12,
    height: 8,
    width: 4,
    policy_planes: 9,
};

const SQUARES: usize = crate::SQUARES;

fn fill(out: &mut [f32], plane: usize, bb: Bitboard) {
    for sq in bb {
        out[plane * SQUARES + usize::from(sq.index())] = 1.0;
    }
}

fn constant(out: &mut [f32], plane: usize, v: f32) {
    out[plane * SQUARES..(plane + 1) * SQUARES].fill(v);
}

/// Writes the input planes of `game` into `out` (`TAFL_SHAPE.planes_len()`
/// values; every value is overwritten).
///
/// # Panics
///
/// If `out` has another length.
pub fn encode_planes(game: &crate::Game, out: &mut [f32]) {
    assert_eq!(
        out.len(),
        TAFL_SHAPE.planes_len(),
        "tafl::encode_planes: output length"
    );
    out.fill(0.0);
    let pos = game.position();
    fill(out, 0, pos.king_side_men());
    fill(out, 1, Bitboard::from_square(pos.king()));
    fill(out, 2, pos.defender_men());
    fill(out, 3, pos.defender_kings());
    if game.turn() == Side::KingSide {
        constant(out, 4, 1.0);
    }
    if let Some(at) = game.chain_at() {
        fill(out, 5, Bitboard::from_square(at));
    }
    if game.in_friendly_chain() {
        constant(out, 6, 1.0);
    }
    fill(out, 7, game.chain_visited());
    fill(out, 8, game.captured_so_far());
    if game.repetitions() >= 2 {
        constant(out, 9, 1.0);
    }
    let limit = f32::from(game.rules().ply_limit.unwrap_or(200).max(1));
    constant(out, 10, (game.plies() as f32 / limit).min(1.0));
    constant(out, 11, 1.0);
}

fn dir_index(d: Dir) -> usize {
    d as usize
}

/// The policy index of `step`.
pub fn policy_index(step: Step) -> usize {
    let (plane, from) = match step {
        Step::Slide { from, dir } => (dir_index(dir), from),
        Step::Jump { from, dir } => (4 + dir_index(dir), from),
        Step::Stop { at } => (8, at),
    };
    plane * SQUARES + usize::from(from.index())
}

/// The step a policy index denotes (whether or not it is legal anywhere),
/// `None` out of range.
pub fn step_of_index(index: usize) -> Option<Step> {
    if index >= TAFL_SHAPE.policy_size() {
        return None;
    }
    let from = Square::new((index % SQUARES) as u8)?;
    Some(match index / SQUARES {
        p @ 0..=3 => Step::Slide {
            from,
            dir: Dir::ALL[p],
        },
        p @ 4..=7 => Step::Jump {
            from,
            dir: Dir::ALL[p - 4],
        },
        _ => Step::Stop { at: from },
    })
}

/// The policy index of the mirrored step (rows A ↔ D): an involution.
pub fn mirror_policy_index(index: usize) -> usize {
    step_of_index(index).map_or(index, |s| policy_index(s.mirror()))
}

/// Writes the mirror image (rows A ↔ D) of encoded planes `src` into `dst`
/// (both `TAFL_SHAPE.planes_len()` long): every plane is the same kind of
/// plane after the mirror, its squares reflected across the long axis.
///
/// # Panics
///
/// If a slice has another length.
pub fn mirror_planes(src: &[f32], dst: &mut [f32]) {
    let n = TAFL_SHAPE.planes_len();
    assert_eq!(src.len(), n, "tafl::mirror_planes: source length");
    assert_eq!(dst.len(), n, "tafl::mirror_planes: destination length");
    let rows = usize::from(crate::ROWS);
    for (d, s) in dst.chunks_exact_mut(rows).zip(src.chunks_exact(rows)) {
        for r in 0..rows {
            d[rows - 1 - r] = s[r];
        }
    }
}

impl NnInput for crate::Game {
    type Action = Step;
    const SHAPE: Shape = TAFL_SHAPE;

    fn encode_planes(&self, out: &mut [f32]) {
        encode_planes(self, out);
    }

    fn policy_index(&self, action: Step) -> usize {
        policy_index(action)
    }
}

impl NnInput for TaflState {
    type Action = Step;
    const SHAPE: Shape = TAFL_SHAPE;

    fn encode_planes(&self, out: &mut [f32]) {
        encode_planes(self.game(), out);
    }

    fn policy_index(&self, action: Step) -> usize {
        policy_index(action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, TaflRules};
    use rand::{Rng, SeedableRng};

    #[test]
    fn indices_round_trip_and_the_mirror_is_an_involution() {
        for i in 0..TAFL_SHAPE.policy_size() {
            let s = step_of_index(i).unwrap();
            assert_eq!(policy_index(s), i);
            assert_eq!(mirror_policy_index(mirror_policy_index(i)), i);
        }
        assert_eq!(step_of_index(TAFL_SHAPE.policy_size()), None);
    }

    #[test]
    fn mirrored_planes_hold_the_mirrored_pieces() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        let mut g = Game::new(TaflRules::default());
        let (mut planes, mut mirrored, mut expected) = (
            vec![0.0; TAFL_SHAPE.planes_len()],
            vec![0.0; TAFL_SHAPE.planes_len()],
            vec![0.0; TAFL_SHAPE.planes_len()],
        );
        for _ in 0..40 {
            if g.outcome().is_some() {
                break;
            }
            let moves = g.legal_moves();
            let m = moves[rng.gen_range(0..moves.len())].clone();
            g.play(&m).unwrap();
            encode_planes(&g, &mut planes);
            mirror_planes(&planes, &mut mirrored);
            let pos = g.position();
            expected.fill(0.0);
            fill(&mut expected, 0, pos.king_side_men().mirror());
            fill(&mut expected, 1, Bitboard::from_square(pos.king()).mirror());
            fill(&mut expected, 2, pos.defender_men().mirror());
            fill(&mut expected, 3, pos.defender_kings().mirror());
            assert_eq!(mirrored[..4 * 32], expected[..4 * 32], "at {pos}");
            // Constant planes stay constant.
            assert_eq!(mirrored[4 * 32..5 * 32], planes[4 * 32..5 * 32]);
        }
    }

    #[test]
    fn legal_steps_have_distinct_indices_and_planes_mark_the_state() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let mut planes = vec![0.0; TAFL_SHAPE.planes_len()];
        let (mut chains, mut positions) = (0, 0);
        for _ in 0..100 {
            let mut g = Game::new(TaflRules::default());
            while g.outcome().is_none() {
                let steps = g.legal_steps();
                let mut seen = std::collections::HashSet::new();
                for s in &steps {
                    assert!(
                        seen.insert(policy_index(*s)),
                        "{s} twice at {}",
                        g.position()
                    );
                }
                encode_planes(&g, &mut planes);
                let count = |p: usize| planes[p * 32..(p + 1) * 32].iter().sum::<f32>() as u32;
                assert_eq!(count(0), g.position().king_side_men().count());
                assert_eq!(count(1), 1);
                assert_eq!(
                    count(2) + count(3),
                    g.position().pieces(Side::Defender).count()
                );
                assert_eq!(count(5), u32::from(g.chain_at().is_some()));
                chains += usize::from(g.chain_at().is_some());
                positions += 1;
                let s = steps[rng.gen_range(0..steps.len())];
                g.play_step(s).unwrap();
            }
        }
        assert!(positions > 5000 && chains > 100, "{positions} {chains}");
    }
}
