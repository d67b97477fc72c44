//! Teacher games: the alpha-beta engine plays the first generations' games.
//!
//! A network trained from nothing spends its first generations learning
//! what a two-ply search knows: material, mandatory captures, promotion.
//! On a CPU those generations are most of a short run. Teacher games give
//! the network the engine's knowledge at the price of a fast search: every
//! decision of a game between two copies of [`AlphaBeta`] at a fixed depth
//! becomes a [`Sample`] whose policy target is the engine's step (one-hot)
//! and whose search value is its score, squashed to a win/draw/loss triple;
//! the outcome is the game's result as usual. Later generations are
//! ordinary self-play and improve on the teacher (or not: the curve says).
//!
//! Games are independent (each has its own engine and RNG, seeded from the
//! run's seed, the generation and the game's index), played in parallel on
//! the caller's rayon pool, and returned in game-id order, so a run with
//! teacher games is as reproducible as one without.

use std::sync::Arc;
use std::time::Instant;

use dama_draughts::alphabeta::{AlphaBeta, SearchLimits, MATE_BOUND};
use dama_draughts::encode::{self, PLANES_LEN};
use dama_draughts::Draughts;
use dama_engine::{Color, Game, Move, Rules};
use dama_game::{EndReason, Ending, GameDef};
use dama_tablebase::Tablebase;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::config::{SelfplayConfig, TeacherConfig};
use crate::record::{GameRecord, GameResult, PackedPlane, Sample};
use crate::selfplay::{update_stats, SelfplayStats, MOVE_CAP, TABLEBASE};
use crate::Error;

/// The deepest teacher search a config may ask for (depth 12 takes seconds
/// a move in the middle game on one core).
pub const MAX_DEPTH: u32 = 12;

/// Transposition table of each teacher engine, MiB.
const TT_MB: usize = 8;

/// What one teacher generation plays.
pub struct TeacherJob<'a> {
    /// The teacher's settings.
    pub teacher: &'a TeacherConfig,
    /// Self-play settings used as they are: random opening plies, move cap.
    pub selfplay: &'a SelfplayConfig,
    /// The rules.
    pub rules: Rules,
    /// The generation (names the games and seeds their RNGs).
    pub generation: u32,
    /// The run's seed.
    pub seed: u64,
    /// Endgame tables: the engine probes them, and a game ends on them.
    pub tablebase: Option<Arc<Tablebase>>,
}

/// The engine's score (centi-men for the side to move) as a WDL triple.
fn score_to_wdl(score: i32, scale: f32) -> [f32; 3] {
    let v = if score > MATE_BOUND {
        1.0
    } else if score < -MATE_BOUND {
        -1.0
    } else {
        (score as f32 / scale).tanh()
    };
    [v.max(0.0), 1.0 - v.abs(), (-v).max(0.0)]
}

fn result_of(winner: Option<Color>) -> GameResult {
    match winner {
        Some(Color::White) => GameResult::WhiteWins,
        Some(Color::Black) => GameResult::BlackWins,
        None => GameResult::Draw,
    }
}

/// The tables' verdict on a game's position (White's result), when they
/// hold it.
fn probe(game: &Game, tb: Option<&Tablebase>) -> Option<Option<Color>> {
    let tb = tb?;
    let pos = game.position();
    if game.pending_capture().is_some() || pos.occupied().count() > tb.max_pieces() {
        return None;
    }
    let p = tb.probe(pos)?;
    Some(match p.wdl.score() {
        1 => Some(game.turn()),
        -1 => Some(game.turn().other()),
        _ => None,
    })
}

struct Pending {
    planes: Vec<PackedPlane>,
    legal: Vec<u16>,
    policy: Vec<f32>,
    search_value: [f32; 3],
    color: Color,
    ply: u32,
}

/// Records the decisions of `best` played from `game` (every step with
/// more than one legal choice), the target being `best`'s own step.
fn record_move(game: &Game, best: &Move, value: [f32; 3], ply: u32, out: &mut Vec<Pending>) {
    let mut g = game.clone();
    let color = g.turn();
    let mut planes = vec![0.0f32; PLANES_LEN];
    for (i, step) in best.steps().into_iter().enumerate() {
        let legal = g.legal_steps();
        if legal.len() > 1 {
            planes.fill(0.0);
            encode::encode_planes(&g, &mut planes);
            out.push(Pending {
                planes: planes.chunks(64).map(PackedPlane::pack).collect(),
                legal: legal
                    .iter()
                    .map(|&a| encode::policy_index(a, color) as u16)
                    .collect(),
                policy: legal
                    .iter()
                    .map(|&a| if a == step { 1.0 } else { 0.0 })
                    .collect(),
                search_value: value,
                color,
                ply: ply + i as u32,
            });
        }
        if g.play_step(step).is_err() {
            // Cannot happen for a legal move; stop recording its steps.
            break;
        }
    }
}

/// Plays one teacher game.
fn play_one(job: &TeacherJob<'_>, index: usize) -> Result<(GameRecord, u32), Error> {
    let mut rng = ChaCha8Rng::seed_from_u64(
        job.seed
            ^ 0x7EAC_4E25_0000_0000
            ^ (u64::from(job.generation) << 32).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03),
    );
    let mut game = Game::with_rules(job.rules);
    for _ in 0..job.selfplay.random_opening_plies {
        let moves = game.legal_moves();
        match moves.as_slice().choose(&mut rng) {
            Some(m) if !game.is_game_over() => game.play_unchecked(m),
            _ => break,
        }
    }
    if game.is_game_over() {
        game = Game::with_rules(job.rules);
    }
    let start = game.start_position().to_string();
    let mut engine = AlphaBeta::new(TT_MB).with_tablebase(job.tablebase.clone());
    let limits = SearchLimits::depth(job.teacher.depth);
    let mut pending = Vec::new();
    let mut steps = 0u32;
    let (winner, ending) = loop {
        if let (Some((outcome, _)), Some(ending)) = (game.termination(), Draughts::ending(&game)) {
            break (outcome.winner(), ending);
        }
        if let Some(winner) = probe(&game, job.tablebase.as_deref()) {
            break (winner, Ending::new(EndReason::Tablebase, TABLEBASE));
        }
        if game.moves().len() as u32 >= job.selfplay.max_plies {
            break (None, Ending::new(EndReason::MoveCap, MOVE_CAP));
        }
        let history = dama_draughts::game_history_hashes(&game);
        let report = engine.search(game.position(), &history, limits);
        let Some(best) = report.best else {
            // No legal move: `termination` says so on the next turn.
            return Err(Error::Corrupt(format!(
                "teacher game {index}: the engine found no move in a position the rules do not end"
            )));
        };
        let value = score_to_wdl(report.score, job.teacher.value_scale);
        record_move(&game, &best, value, steps, &mut pending);
        let played = if rng.gen_bool(job.teacher.random_move_prob) {
            let moves = game.legal_moves();
            moves.as_slice().choose(&mut rng).copied().unwrap_or(best)
        } else {
            best
        };
        steps += played.steps().len() as u32;
        game.play_unchecked(&played);
    };
    let samples = pending
        .into_iter()
        .map(|s| Sample {
            planes: s.planes,
            legal: s.legal,
            policy: s.policy,
            search_value: s.search_value,
            outcome: crate::selfplay::outcome_wdl(winner, s.color),
            ply: s.ply,
        })
        .collect();
    let record = GameRecord {
        game: dama_nn::GameName::Draughts,
        game_id: u64::from(job.generation) * 1_000_000 + index as u64,
        generation: job.generation,
        rules: toml::to_string(&job.rules).unwrap_or_default(),
        start,
        moves: game.moves().iter().map(ToString::to_string).collect(),
        result: result_of(winner),
        termination: ending.text,
        ending: ending.reason,
        captures: game
            .moves()
            .iter()
            .filter(|m| !Draughts::move_squares(m).captured.is_empty())
            .count() as u32,
        resigned: false,
        resign_disabled: false,
        would_have_resigned_wrongly: false,
        samples,
    };
    Ok((record, steps))
}

/// Plays the teacher's games of one generation on the current rayon pool,
/// calling `on_game` for each finished game (in completion order, from the
/// calling thread), and returns them in game-id order with their stats.
/// `stop` is polled between games; when it returns true the finished games
/// are returned.
///
/// # Errors
///
/// The error of `on_game`.
pub fn play_games(
    job: &TeacherJob<'_>,
    mut on_game: impl FnMut(&GameRecord, &SelfplayStats) -> Result<(), Error>,
    stop: impl Fn() -> bool + Sync,
) -> Result<(Vec<GameRecord>, SelfplayStats), Error> {
    let started = Instant::now();
    let mut stats = SelfplayStats::default();
    let total = job.teacher.games;
    // Rounds of a few games per thread keep `on_game` (progress, chunk
    // writing) on this thread and `stop` responsive.
    let round = 4 * rayon::current_num_threads().max(1);
    let mut finished = Vec::with_capacity(total);
    let mut next = 0;
    while next < total && !stop() {
        let end = (next + round).min(total);
        let games: Vec<Result<(GameRecord, u32), Error>> = (next..end)
            .into_par_iter()
            .map(|i| play_one(job, i))
            .collect();
        for game in games {
            let (record, steps) = game?;
            update_stats(&mut stats, &record, steps);
            stats.elapsed = started.elapsed();
            on_game(&record, &stats)?;
            finished.push(record);
        }
        next = end;
    }
    stats.elapsed = started.elapsed();
    Ok((finished, stats))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job<'a>(teacher: &'a TeacherConfig, selfplay: &'a SelfplayConfig) -> TeacherJob<'a> {
        TeacherJob {
            teacher,
            selfplay,
            rules: Rules::default(),
            generation: 1,
            seed: 7,
            tablebase: None,
        }
    }

    #[test]
    fn scores_become_wdl_triples_that_sum_to_one() {
        for (score, want) in [
            (0, [0.0, 1.0, 0.0]),
            (MATE_BOUND + 5, [1.0, 0.0, 0.0]),
            (-MATE_BOUND - 5, [0.0, 0.0, 1.0]),
        ] {
            assert_eq!(score_to_wdl(score, 200.0), want);
        }
        let up = score_to_wdl(200, 200.0);
        assert!((up[0] - 1f32.tanh()).abs() < 1e-6 && up[2] == 0.0);
        let down = score_to_wdl(-200, 200.0);
        assert_eq!(down, [up[2], up[1], up[0]]);
        for s in [-5000, -150, -1, 1, 37, 900] {
            let w = score_to_wdl(s, 150.0);
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{s}: {w:?}");
        }
    }

    #[test]
    fn teacher_games_record_the_engines_step_at_every_choice() {
        let teacher = TeacherConfig {
            generations: 1,
            games: 3,
            depth: 2,
            random_move_prob: 0.0,
            ..TeacherConfig::default()
        };
        let selfplay = SelfplayConfig {
            max_plies: 60,
            random_opening_plies: 2,
            ..SelfplayConfig::default()
        };
        let job = job(&teacher, &selfplay);
        let mut seen = 0;
        let (games, stats) = play_games(
            &job,
            |_, _| {
                seen += 1;
                Ok(())
            },
            || false,
        )
        .unwrap();
        assert_eq!((games.len(), seen, stats.games), (3, 3, 3));
        for (i, g) in games.iter().enumerate() {
            assert_eq!(g.game_id, 1_000_000 + i as u64);
            assert!(!g.samples.is_empty());
            // Replay the game: past the two random opening moves, each full
            // move is the engine's best (no random moves), so every sample's
            // target is the step the game actually took at its ply.
            let start: dama_engine::Position = g.start.parse().unwrap();
            let mut game = Game::from_position(start);
            let mut ply = 0u32;
            let mut checked = 0;
            for (n, text) in g.moves.iter().enumerate() {
                let m = game
                    .legal_moves()
                    .into_iter()
                    .find(|m| m.to_string() == *text)
                    .unwrap();
                for step in m.steps() {
                    if n >= 2 {
                        if let Some(s) = g.samples.iter().find(|s| s.ply == ply) {
                            let target = s.policy.iter().position(|&p| p == 1.0).unwrap();
                            assert_eq!(s.policy.iter().sum::<f32>(), 1.0);
                            assert_eq!(
                                usize::from(s.legal[target]),
                                encode::policy_index(step, game.turn()),
                                "game {i} ply {ply}"
                            );
                            assert_eq!(s.legal.len(), game.legal_steps().len());
                            let sum: f32 = s.search_value.iter().sum();
                            assert!((sum - 1.0).abs() < 1e-5);
                            checked += 1;
                        }
                        ply += 1;
                    }
                    game.play_step(step).unwrap();
                }
            }
            assert_eq!(checked, g.samples.len(), "game {i}");
        }
        // The same seed plays the same games.
        let (again, _) = play_games(&job, |_, _| Ok(()), || false).unwrap();
        assert_eq!(again, games);
    }

    #[test]
    fn stop_returns_the_games_finished_so_far() {
        let teacher = TeacherConfig {
            generations: 1,
            games: 100,
            depth: 1,
            ..TeacherConfig::default()
        };
        let selfplay = SelfplayConfig {
            max_plies: 20,
            ..SelfplayConfig::default()
        };
        let (games, _) = play_games(&job(&teacher, &selfplay), |_, _| Ok(()), || true).unwrap();
        assert!(games.is_empty());
    }
}
