//! Turkish Tafl's input features for a learned evaluation
//! ([`dama_nnue::Features`]): one per (perspective, piece kind, square),
//! and a few that see the whole board: the King's free path to column 8
//! (its length, one-hot, or none) and the Defenders beside it (0 to 4).
//!
//! The path features give the network what single squares cannot: the
//! handcrafted evaluation's strongest term is that path (a breadth-first
//! search through empty squares), and a network of piece-square features
//! alone, trained on the same games, scored 35–54% against it at equal
//! depth (`configs/nnue-quick-tafl.toml`'s gates).
//!
//! The game is asymmetric (8 men and a King against 14 Defenders, each
//! side with its own goal), so, unlike draughts, the two perspectives share
//! no weights: perspective 0 (the Defenders) and perspective 1 (the King
//! side) each have their own block of 4 kinds (King-side man, the King,
//! Defender man, Defender King) × 32 squares. The network's
//! `[side to move, other]` order of the two accumulators then tells it who
//! moves. The board's one symmetry (rows A ↔ D, B ↔ C) is the training
//! mirror.

use dama_nnue::Features;

use crate::board::{Bitboard, Square, SQUARES};
use crate::position::{Position, Side};
use crate::rules::TaflRules;

/// Turkish Tafl's feature set: 2 perspectives × (4 kinds × 32 squares +
/// [`PATH_FEATURES`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaflFeatures;

/// The perspective of `side`: 0 for the Defenders, 1 for the King side.
pub const fn perspective(side: Side) -> usize {
    match side {
        Side::Defender => 0,
        Side::KingSide => 1,
    }
}

/// The piece kinds: King-side men, the King, Defender men, Defender Kings.
fn kinds(pos: &Position) -> [Bitboard; 4] {
    [
        pos.king_side_men(),
        Bitboard::from_square(pos.king()),
        pos.defender_men(),
        pos.defender_kings(),
    ]
}

/// The King's path length to column 8 (0 to 7, one-hot) or none (8), then
/// the Defenders beside the King (0 to 4).
pub const PATH_FEATURES: usize = 9 + 5;

/// The piece-square features of one perspective.
const PSQ: usize = 4 * SQUARES;

/// The whole-board features of `pos`: the path feature's and the guards'
/// offsets within [`PATH_FEATURES`].
fn board_features(pos: &Position) -> [usize; 2] {
    let path = crate::players::king_distance(pos).map_or(8, |d| (d as usize).min(7));
    [path, 9 + crate::players::king_guards(pos).min(4)]
}

impl Features for TaflFeatures {
    type Position = Position;
    type Rules = TaflRules;

    const NAME: &'static str = "tafl-psq-path";
    const COUNT: usize = 2 * (PSQ + PATH_FEATURES);
    /// King-side men, Defender men and Defender Kings (`u32` each), the
    /// King's square and the side to move.
    const POSITION_BYTES: usize = 14;

    fn side_to_move(pos: &Position) -> usize {
        perspective(pos.turn())
    }

    fn for_each_feature(pos: &Position, p: usize, mut f: impl FnMut(usize)) {
        for (kind, set) in kinds(pos).into_iter().enumerate() {
            for sq in set {
                f((p * 4 + kind) * SQUARES + usize::from(sq.index()));
            }
        }
        for x in board_features(pos) {
            f(2 * PSQ + p * PATH_FEATURES + x);
        }
    }

    /// The pieces that moved, were taken or crowned, by kind (a bitboard
    /// difference), and the whole-board features if they changed.
    fn for_each_change(before: &Position, after: &Position, mut f: impl FnMut(usize, usize, bool)) {
        for (kind, (b, a)) in kinds(before).into_iter().zip(kinds(after)).enumerate() {
            for (set, added) in [(b - a, false), (a - b, true)] {
                for sq in set {
                    for p in 0..2 {
                        f(p, (p * 4 + kind) * SQUARES + usize::from(sq.index()), added);
                    }
                }
            }
        }
        let (b, a) = (board_features(before), board_features(after));
        for (x, y) in b.into_iter().zip(a) {
            if x != y {
                for p in 0..2 {
                    let base = 2 * PSQ + p * PATH_FEATURES;
                    f(p, base + x, false);
                    f(p, base + y, true);
                }
            }
        }
    }

    fn mirrored(pos: &Position) -> Option<Position> {
        Some(pos.mirror())
    }

    fn encode(pos: &Position, out: &mut Vec<u8>) {
        out.extend_from_slice(&pos.king_side_men().0.to_le_bytes());
        out.extend_from_slice(&pos.defender_men().0.to_le_bytes());
        out.extend_from_slice(&pos.defender_kings().0.to_le_bytes());
        out.push(pos.king().index());
        out.push(perspective(pos.turn()) as u8);
    }

    fn decode(b: &[u8], _: &TaflRules) -> Result<Position, String> {
        if b.len() != Self::POSITION_BYTES {
            return Err(format!("{} bytes, a position has 14", b.len()));
        }
        let u = |i: usize| Bitboard(u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]));
        let king = Square::new(b[12]).ok_or_else(|| format!("the King on square {}", b[12]))?;
        let turn = match b[13] {
            0 => Side::Defender,
            1 => Side::KingSide,
            t => return Err(format!("side to move {t}")),
        };
        Position::from_pieces(u(0), king, u(4), u(8), turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Game;
    use dama_nnue::{check_features, FloatNet, Network, Sample};
    use rand::seq::IteratorRandom;
    use rand::SeedableRng;

    /// Positions of random games, with the move that led to each.
    fn random_games(games: usize, seed: u64) -> Vec<(Position, Position)> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut pairs = Vec::new();
        for _ in 0..games {
            let mut game = Game::new(TaflRules::default());
            for _ in 0..150 {
                let Some(m) = game.legal_moves().into_iter().choose(&mut rng) else {
                    break;
                };
                let before = *game.position();
                game.play(&m).expect("a legal move plays");
                pairs.push((before, *game.position()));
                if game.outcome().is_some() {
                    break;
                }
            }
        }
        pairs
    }

    #[test]
    fn the_features_keep_the_contract() {
        let pairs = random_games(20, 1);
        let captured = pairs
            .iter()
            .filter(|(b, a)| a.occupied().count() < b.occupied().count())
            .count();
        assert!(captured > 10, "only {captured} captures in the games");
        check_features::<TaflFeatures>(&pairs).expect("Tafl's features");
    }

    #[test]
    fn the_start_has_one_feature_per_piece_and_two_of_the_board_in_each_perspective() {
        let pos = Position::startpos(Side::Defender);
        for p in 0..2 {
            let mut v = Vec::new();
            TaflFeatures::for_each_feature(&pos, p, |f| v.push(f));
            let pieces = pos.occupied().count() as usize;
            assert_eq!(v.len(), pieces + 2);
            assert!(v[..pieces]
                .iter()
                .all(|f| (p * PSQ..(p + 1) * PSQ).contains(f)));
            let board = 2 * PSQ + p * PATH_FEATURES;
            let path = crate::players::king_distance(&pos).map_or(8, |d| d as usize);
            assert_eq!(v[pieces], board + path);
            assert!((board + 9..board + PATH_FEATURES).contains(&v[pieces + 1]));
        }
    }

    #[test]
    fn the_board_features_follow_the_kings_path_and_guards() {
        // Every distinct path length and guard count of random games maps
        // to its own feature.
        let mut seen = std::collections::HashSet::new();
        for (_, pos) in random_games(20, 5) {
            let [path, guards] = board_features(&pos);
            let d = crate::players::king_distance(&pos);
            assert_eq!(path, d.map_or(8, |d| (d as usize).min(7)));
            assert!((9..PATH_FEATURES).contains(&guards));
            seen.insert(path);
        }
        assert!(seen.len() > 2, "{seen:?}");
    }

    #[test]
    fn a_network_plays_incrementally_and_files_round_trip() {
        let rules = TaflRules::default();
        let float = FloatNet::random::<TaflFeatures>(&rules, 7);
        let net = Network::<TaflFeatures>::from_float(&float).expect("network");
        let pairs = random_games(4, 2);
        let mut scores = Vec::new();
        for (before, after) in &pairs {
            let acc = net.update(&net.refresh(before), before, after);
            assert_eq!(acc, net.refresh(after));
            let q = net.evaluate(&acc, TaflFeatures::side_to_move(after));
            let f = float.evaluate::<TaflFeatures>(after);
            assert!((q as f32 - f).abs() < 20.0, "quantized {q}, float {f}");
            scores.push(q);
        }
        scores.sort_unstable();
        scores.dedup();
        assert!(scores.len() > 10, "only {} distinct scores", scores.len());

        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("tafl.samples");
        let samples: Vec<Sample<TaflFeatures>> =
            pairs.iter().map(|(_, p)| Sample::new(p, 120, 1)).collect();
        dama_nnue::write_samples(&path, &rules, &samples).expect("write");
        let (_, back) =
            dama_nnue::read_samples::<TaflFeatures>(&path, Some(&rules), 1 << 20).expect("read");
        assert_eq!(back, samples);
        let path = dir.path().join("tafl.nnue");
        dama_nnue::write_network(&path, &float, &[]).expect("write");
        let (back, _) = dama_nnue::read_network::<TaflFeatures>(&path, Some(&rules)).expect("read");
        assert_eq!(back, float);
    }
}
