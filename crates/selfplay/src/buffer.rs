//! The replay buffer: a sliding window over the most recent self-play games.

use std::collections::VecDeque;

use rand::Rng;

use crate::record::{GameRecord, Sample};

/// Bounds of the replay window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowLimits {
    /// Keep at most this many positions (the oldest generations drop first).
    pub max_positions: usize,
    /// Keep at most this many generations of games.
    pub max_generations: usize,
}

/// Positions from the newest generations, sampled uniformly.
///
/// Sampling draws positions, not games, each with the same probability:
/// a position from a long game is as likely as one from a short game, and a
/// long game contributes more positions only because it has more of them.
/// (Drawing a game first and then a position inside it would over-weight the
/// positions of short games.)
#[derive(Debug, Default)]
pub struct ReplayBuffer {
    /// Oldest generation first.
    generations: VecDeque<(u32, Vec<Sample>)>,
    len: usize,
}

impl ReplayBuffer {
    /// An empty buffer.
    pub fn new() -> ReplayBuffer {
        ReplayBuffer::default()
    }

    /// Adds the samples of finished games from `generation`, then trims the
    /// window to `limits`.
    pub fn add_games(&mut self, generation: u32, games: &[GameRecord], limits: WindowLimits) {
        let samples: Vec<Sample> = games
            .iter()
            .flat_map(|g| g.samples.iter().cloned())
            .collect();
        self.len += samples.len();
        match self.generations.back_mut() {
            Some((g, existing)) if *g == generation => existing.extend(samples),
            _ => self.generations.push_back((generation, samples)),
        }
        self.trim(limits);
    }

    fn trim(&mut self, limits: WindowLimits) {
        while self.generations.len() > limits.max_generations.max(1)
            || (self.generations.len() > 1 && self.len > limits.max_positions)
        {
            if let Some((_, old)) = self.generations.pop_front() {
                self.len -= old.len();
            }
        }
        // Within the single newest generation, drop its oldest positions.
        if self.len > limits.max_positions {
            if let Some((_, newest)) = self.generations.front_mut() {
                let excess = self.len - limits.max_positions;
                newest.drain(..excess.min(newest.len()));
                self.len = limits.max_positions;
            }
        }
    }

    /// Number of positions in the window.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the window holds no position.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The generations in the window, oldest first.
    pub fn generations(&self) -> impl Iterator<Item = u32> + '_ {
        self.generations.iter().map(|(g, _)| *g)
    }

    /// The position with global index `i` (oldest first).
    fn get(&self, mut i: usize) -> Option<&Sample> {
        for (_, samples) in &self.generations {
            if i < samples.len() {
                return samples.get(i);
            }
            i -= samples.len();
        }
        None
    }

    /// Draws `n` positions uniformly with replacement, each paired with a
    /// coin flip saying whether to mirror it (left-right augmentation), when
    /// `mirror` is set.
    pub fn sample(&self, n: usize, mirror: bool, rng: &mut impl Rng) -> Vec<(&Sample, bool)> {
        if self.len == 0 {
            return Vec::new();
        }
        (0..n)
            .filter_map(|_| {
                let s = self.get(rng.gen_range(0..self.len))?;
                Some((s, mirror && rng.gen_bool(0.5)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{GameResult, PackedPlane};
    use rand::SeedableRng;

    fn game(generation: u32, positions: usize) -> GameRecord {
        GameRecord {
            game: dama_nn::GameName::Draughts,
            game_id: u64::from(generation),
            generation,
            rules: String::new(),
            start: "startpos".into(),
            moves: vec![],
            result: GameResult::Draw,
            termination: "test".into(),
            ending: dama_game::EndReason::Other,
            captures: 0,
            resigned: false,
            resign_disabled: false,
            would_have_resigned_wrongly: false,
            samples: (0..positions)
                .map(|i| Sample {
                    planes: vec![PackedPlane::Constant(generation as f32)],
                    legal: vec![0],
                    policy: vec![1.0],
                    search_value: [0.0, 1.0, 0.0],
                    outcome: [0.0, 1.0, 0.0],
                    ply: i as u32,
                })
                .collect(),
        }
    }

    #[test]
    fn window_keeps_newest_generations() {
        let limits = WindowLimits {
            max_positions: 25,
            max_generations: 3,
        };
        let mut b = ReplayBuffer::new();
        for g in 0..5 {
            b.add_games(g, &[game(g, 10)], limits);
        }
        assert_eq!(b.generations().collect::<Vec<_>>(), vec![3, 4]);
        assert_eq!(b.len(), 20);
        let limits = WindowLimits {
            max_positions: 1000,
            max_generations: 3,
        };
        b.add_games(5, &[game(5, 1)], limits);
        b.add_games(6, &[game(6, 1)], limits);
        assert_eq!(b.generations().collect::<Vec<_>>(), vec![4, 5, 6]);
    }

    #[test]
    fn sampling_is_uniform_over_positions_not_games() {
        // One long game (90 positions) and nine short ones (1 position each):
        // uniform over positions means ~90% of draws come from the long game.
        let limits = WindowLimits {
            max_positions: 10_000,
            max_generations: 10,
        };
        let mut b = ReplayBuffer::new();
        b.add_games(1, &[game(1, 90)], limits);
        for _ in 0..9 {
            b.add_games(2, &[game(2, 1)], limits);
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let draws = b.sample(20_000, true, &mut rng);
        let long = draws
            .iter()
            .filter(|(s, _)| s.planes[0] == PackedPlane::Constant(1.0))
            .count();
        let share = long as f64 / draws.len() as f64;
        assert!((share - 0.9).abs() < 0.02, "share {share}");
        let mirrored = draws.iter().filter(|(_, m)| *m).count() as f64 / draws.len() as f64;
        assert!((mirrored - 0.5).abs() < 0.02, "mirrored {mirrored}");
    }
}
