//! Metrics as JSON lines: the typed events of [`dama_run::metrics`] (the
//! schema of `metrics.jsonl`, documented in `docs/run-directory.md`), and
//! their construction from this crate's counters.

pub use dama_run::metrics::*;

use dama_nn::StepMetrics;

use crate::selfplay::SelfplayStats;

/// The `"selfplay"` event of generation `generation`'s self-play.
pub fn selfplay_event(generation: u32, sp: &SelfplayStats) -> SelfplayEvent {
    let secs = sp.elapsed.as_secs_f64().max(1e-9);
    SelfplayEvent {
        generation,
        games: sp.games as u64,
        samples: sp.samples as u64,
        moves: sp.moves,
        steps: sp.steps,
        seconds: sp.elapsed.as_secs_f64(),
        games_per_hour: sp.games_per_hour(),
        positions_per_sec: sp.samples as f64 / secs,
        net_evals: sp.net_evals,
        evals_per_sec: sp.evals_per_sec(),
        net_evals_per_net_sec: sp.evals_per_net_sec(),
        net_time_share: sp.net_time.as_secs_f64() / secs,
        cores_busy: sp.cores_busy(),
        cache_hits: sp.cache_hits,
        avg_batch: sp.avg_batch(),
        avg_game_length: sp.avg_length(),
        draw_rate: sp.draw_rate(),
        first_player_score: sp.first_player_score(),
        white_wins: sp.white_wins as u64,
        black_wins: sp.black_wins as u64,
        draws: sp.draws as u64,
        resignations: sp.resignations as u64,
        playthrough_games: sp.playthrough_games as u64,
        false_resignations: sp.false_resignations as u64,
        false_resignation_rate: sp.false_resignation_rate(),
        no_capture_draws: sp.no_capture_draws as u64,
        repetition_draws: sp.repetition_draws as u64,
        move_cap_draws: sp.move_cap_draws as u64,
        captures_per_game: sp.captures_per_game(),
        tablebase_endings: sp.tablebase_endings as u64,
    }
}

/// The `"train"` event of a training step of generation `generation`, with
/// `buffer_positions` positions in the replay window.
pub fn train_event(generation: u32, m: &StepMetrics, buffer_positions: usize) -> TrainEvent {
    TrainEvent {
        generation,
        step: m.step,
        lr: m.lr,
        loss: m.loss,
        policy_loss: m.policy_loss,
        value_loss: m.value_loss,
        reg_loss: m.reg_loss,
        policy_entropy: m.policy_entropy,
        value_accuracy: m.value_accuracy,
        grad_norm: m.grad_norm,
        samples_per_sec: m.samples_per_sec,
        buffer_positions: buffer_positions as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_selfplay_event_carries_the_counters_and_rates() {
        let sp = SelfplayStats {
            games: 4,
            samples: 100,
            white_wins: 2,
            draws: 2,
            playthrough_games: 2,
            false_resignations: 1,
            elapsed: Duration::from_secs(2),
            ..SelfplayStats::default()
        };
        let e = selfplay_event(3, &sp);
        assert_eq!((e.generation, e.games, e.samples), (3, 4, 100));
        assert_eq!(e.positions_per_sec, 50.0);
        assert_eq!(e.games_per_hour, 7200.0);
        assert_eq!(e.first_player_score, 0.75);
        assert_eq!(e.false_resignation_rate, 0.5);
        let v = serde_json::to_value(MetricsEvent::Selfplay(e)).unwrap();
        assert_eq!(v["kind"], "selfplay");
        assert_eq!(v["draw_rate"], 0.5);
    }
}
