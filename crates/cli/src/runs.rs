//! What the run commands (`dama train`, `learner`, `worker`) share, for
//! runs of either kind: the progress bars and the one-line summaries of a
//! generation, a learner's generation and a worker's chunk, the end of a
//! run, and the interrupt that stops one. The commands import this module,
//! not each other.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use dama_run::dist::WorkerStatus;
use dama_run::{LearnerEvent, WorkerEvent};
use dama_selfplay::progress::GenerationReport;
use dama_selfplay::{Progress, ProgressEvent, RunKind, RunSummary, Stage};
use indicatif::{ProgressBar, ProgressStyle};

/// A run's kind, for people.
pub(crate) fn kind_name(kind: RunKind) -> &'static str {
    match kind {
        RunKind::Network => "network",
        RunKind::Nnue => "learned-evaluator",
    }
}

/// What a finished run's best network is, and how to play it.
pub(crate) fn best_line(summary: &RunSummary) -> String {
    match (summary.kind, &summary.best) {
        (RunKind::Network, _) => format!("checkpoint {}", summary.checkpoint.display()),
        (RunKind::Nnue, None) => {
            "the handcrafted evaluation is still the best (no network passed the gate)".to_owned()
        }
        (RunKind::Nnue, Some(best)) => format!(
            "best network: generation {}; play it with alphabeta:time=100,eval={}",
            summary.best_generation,
            best.display()
        ),
    }
}

/// The table of a run's last matches.
pub(crate) fn print_evals(evals: &[dama_selfplay::run::EvalLine]) -> Result<()> {
    if evals.is_empty() {
        return Ok(());
    }
    // An asymmetric game's matches have W/D/L per side.
    let sides: Vec<String> = evals
        .first()
        .map(|e| e.by_side.iter().map(|s| s.side.clone()).collect())
        .unwrap_or_default();
    let mut header = format!(
        "\n{:<24} {:>6} {:>12} {:>7} {:>22}",
        "opponent", "games", "W/D/L", "score", "Elo (95% CI)"
    );
    for side in &sides {
        header.push_str(&format!(" {:>14}", format!("as {side}")));
    }
    outln!("{header}");
    for e in evals {
        let mut line = format!(
            "{:<24} {:>6} {:>12} {:>6.1}% {:>+7.0} [{:+.0}, {:+.0}]",
            e.label,
            e.games,
            format!("{}/{}/{}", e.wdl[0], e.wdl[1], e.wdl[2]),
            100.0 * e.score,
            e.elo,
            e.elo_lo,
            e.elo_hi
        );
        for s in &e.by_side {
            line.push_str(&format!(
                " {:>14}",
                format!("{}/{}/{}", s.wins, s.draws, s.losses)
            ));
        }
        outln!("{line}");
    }
    Ok(())
}

/// Draws a training run's progress: one bar per stage on stderr, notes, and
/// a line per finished generation; with `--quiet`, the generation lines
/// and warnings only.
pub(crate) struct Bars {
    quiet: bool,
    /// The bar of the stage under way and the opponent of an evaluation.
    current: Mutex<Option<(ProgressBar, String)>>,
}

impl Bars {
    pub(crate) fn new(quiet: bool) -> Bars {
        Bars {
            quiet,
            current: Mutex::new(None),
        }
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar, &str)) {
        let current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((bar, opponent)) = current.as_ref() {
            f(bar, opponent);
        }
    }
}

impl Progress for Bars {
    fn event(&self, event: ProgressEvent<'_>) {
        match event {
            ProgressEvent::Warning(w) => eprintln!("warning: {w}"),
            // `--quiet` keeps the one line per generation.
            ProgressEvent::GenerationFinished(report) => eprintln!("{}", generation_line(report)),
            // And the one line per generation of a distributed run's
            // learner, and per chunk of a worker.
            ProgressEvent::Learner { learner, workers } => {
                eprintln!("{}", learner_line(learner, workers));
            }
            ProgressEvent::ChunkUploaded { chunk, status } => {
                self.with_bar(|bar, _| bar.finish_and_clear());
                eprintln!("{}", chunk_line(chunk, status));
            }
            _ if self.quiet => {}
            ProgressEvent::Note(note) => eprintln!("{note}"),
            ProgressEvent::StageStarted {
                generation,
                stage,
                total,
                opponent,
            } => {
                let template = match stage {
                    Stage::Selfplay => {
                        "gen {prefix} self-play [{bar:30}] {pos}/{len} games {msg} ({elapsed})"
                    }
                    Stage::Train => {
                        "gen {prefix} training  [{bar:30}] {pos}/{len} steps {msg} ({elapsed})"
                    }
                    Stage::Eval => "gen {prefix} eval      [{bar:30}] {pos}/{len} games {msg}",
                    Stage::Ingest => {
                        "gen {prefix} ingest    [{bar:30}] {pos}/{len} games {msg} ({elapsed})"
                    }
                };
                let bar = ProgressBar::new(total);
                if let Ok(style) = ProgressStyle::with_template(template) {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar.set_prefix(generation.to_string());
                let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
                if let Some((old, _)) = current.replace((bar, opponent.unwrap_or("").to_owned())) {
                    old.finish_and_clear();
                }
            }
            ProgressEvent::SelfplayGame { stats: s } => self.with_bar(|bar, _| {
                bar.set_position(s.games as u64);
                // No network calls: a learned-evaluator run's engine games.
                bar.set_message(if s.batches == 0 {
                    format!("{:.0} games/h, {} positions", s.games_per_hour(), s.samples)
                } else {
                    format!(
                        "{:.0} games/h, {:.0} evals/s, batch {:.1}",
                        s.games_per_hour(),
                        s.evals_per_sec(),
                        s.avg_batch()
                    )
                });
            }),
            ProgressEvent::TrainStep { metrics: m } => self.with_bar(|bar, _| {
                bar.inc(1);
                bar.set_message(format!(
                    "loss {:.3} (p {:.3} v {:.3})",
                    m.loss, m.policy_loss, m.value_loss
                ));
            }),
            ProgressEvent::TrainSteps { done, loss } => self.with_bar(|bar, _| {
                bar.set_position(done);
                bar.set_message(format!("loss {loss:.5}"));
            }),
            ProgressEvent::Ingested { games, chunks } => self.with_bar(|bar, _| {
                bar.set_position(games);
                bar.set_message(format!("from {chunks} chunks"));
            }),
            ProgressEvent::EvalGame { progress: p } => self.with_bar(|bar, opponent| {
                bar.set_position(u64::from(p.done));
                bar.set_message(format!("vs {opponent}: {}", p.summary()));
            }),
            ProgressEvent::StageFinished { .. } => {
                let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
                if let Some((bar, _)) = current.take() {
                    bar.finish_and_clear();
                }
            }
            _ => {}
        }
    }
}

/// The line `dama train` prints for a finished generation, of any kind of
/// run.
fn generation_line(r: &GenerationReport) -> String {
    let sp = &r.selfplay;
    let games = sp.games.max(1) as f64;
    let played = if sp.net_evals > 0 {
        format!(
            "{:.0}/h, {:.0} evals/s, {:.1} cores, len {:.0}, draws {:.0}% ({:.0}% no-capture), {:.1} captures/game",
            sp.games_per_hour,
            sp.evals_per_sec,
            sp.cores_busy,
            sp.avg_game_length,
            100.0 * sp.draw_rate,
            100.0 * sp.no_capture_draws as f64 / games,
            sp.captures_per_game
        )
    } else {
        // No network plays: the alpha-beta engine's games, whose samples
        // are the positions searched.
        format!(
            "{:.0}/h, {} positions, {:.0}/s, len {:.0}, draws {:.0}%",
            sp.games_per_hour,
            sp.samples,
            sp.positions_per_sec,
            sp.avg_game_length,
            100.0 * sp.draw_rate
        )
    };
    let mut s = format!(
        "gen {:>3}: {} games ({played}), window {}, loss {:.4}",
        r.generation, sp.games, r.window, r.loss
    );
    for e in &r.evals {
        s.push_str(&format!(
            ", vs {} {:.0}% (Elo {:+.0} [{:+.0}, {:+.0}]",
            e.label,
            100.0 * e.score,
            e.elo,
            e.elo_lo,
            e.elo_hi
        ));
        for side in &e.by_side {
            s.push_str(&format!(
                "; as {} {}/{}/{}",
                side.side, side.wins, side.draws, side.losses
            ));
        }
        s.push(')');
    }
    if !r.accepted {
        s.push_str(", rejected by the gate");
    }
    s.push_str(&format!(" [{:.0}s]", r.took.as_secs_f64()));
    s
}

/// The line the learner prints per generation, beside the generation line.
pub(crate) fn learner_line(l: &LearnerEvent, workers: &[WorkerEvent]) -> String {
    let mut s = format!(
        "gen {:>3}: learner: {} games from {} chunks of {} workers, {:.0} games/h in total, stale {:.0}% ({} games over the bound skipped), {:.1} ms a chunk, training {:.0} samples/s",
        l.generation,
        l.games,
        l.chunks,
        l.workers,
        l.games_per_hour,
        100.0 * l.stale_share,
        l.stale_games,
        1000.0 * l.seconds_per_chunk,
        l.samples_per_sec
    );
    for w in workers {
        s.push_str(&format!(
            "\n         worker {}: {} games, {:.0} games/h",
            w.worker, w.games, w.games_per_hour
        ));
    }
    s
}

/// The one line a worker prints per chunk.
pub(crate) fn chunk_line(chunk: &str, s: &WorkerStatus) -> String {
    format!(
        "worker {}: uploaded {chunk} (generation {}): {} chunks, {} games, {:.0} games/h ({:.0}% of the time playing)",
        s.worker,
        s.model_generation,
        s.chunks,
        s.games,
        s.games_per_hour,
        100.0 * s.play_seconds / s.seconds.max(1e-9)
    )
}

/// A stop flag that the first Ctrl-C sets (saying `first`); a second one
/// exits at once with status 130 (saying `second`).
///
/// An interrupt within [`INTERRUPT_ECHO`] of the first is taken for the same
/// one delivered twice (`timeout -s INT` signals its child and then the
/// child's process group), not for a second Ctrl-C.
///
/// The exit skips the process's exit handlers (`_exit`): libtorch's static
/// destructors would otherwise run while other threads are still inside
/// the network (on a GPU that aborts with a C++ exception). Every file of a
/// run is written atomically, so nothing already written is lost.
pub(crate) fn stop_on_interrupt(
    first: &'static str,
    second: &'static str,
) -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let first_at = Mutex::new(None::<std::time::Instant>);
    ctrlc::set_handler(move || {
        let mut at = first_at
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match *at {
            None => {
                *at = Some(std::time::Instant::now());
                flag.store(true, Ordering::SeqCst);
                eprintln!("\n{first}");
            }
            Some(t) if t.elapsed() < INTERRUPT_ECHO => {}
            Some(_) => {
                eprintln!("\n{second}");
                exit_now(130);
            }
        }
    })
    .context("cannot install the Ctrl-C handler")?;
    Ok(stop)
}

/// How soon after a first interrupt another one counts as the same.
const INTERRUPT_ECHO: std::time::Duration = std::time::Duration::from_millis(500);

/// Ends the process at once with `code`, without running exit handlers.
#[cfg(unix)]
#[allow(unsafe_code)]
fn exit_now(code: i32) -> ! {
    // SAFETY: `_exit` takes no pointers and does not return; skipping the
    // exit handlers is the point (see `stop_on_interrupt`).
    unsafe { libc::_exit(code) }
}

/// Ends the process at once with `code`.
#[cfg(not(unix))]
fn exit_now(code: i32) -> ! {
    std::process::exit(code)
}
