//! `dama train`: the main job.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};
use clap::Args;
use dama_selfplay::progress::GenerationReport;
use dama_selfplay::{
    AnyConfig, Progress, ProgressEvent, RunDir, RunKind, RunSummary, Stage, TrainOptions,
};
use indicatif::{ProgressBar, ProgressStyle};

/// Arguments of `dama train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The run's config (TOML; see configs/).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Name of the run directory under --checkpoints (default: the config's
    /// name and the start time, e.g. `quick-20261121-1805`; with --resume:
    /// the newest run of that config).
    #[arg(long)]
    run: Option<String>,
    /// Continue the run where it stopped (same step, buffer, optimizer and
    /// RNG streams).
    #[arg(long)]
    resume: bool,
    /// Where runs live.
    #[arg(long, default_value = "checkpoints")]
    checkpoints: PathBuf,
    /// Override `run.generations` (e.g. to extend a resumed run).
    #[arg(long)]
    generations: Option<u32>,
    /// Override `run.device`: auto, cpu, cuda or cuda:N.
    #[arg(long)]
    device: Option<dama_run::DeviceSpec>,
    /// Override `run.seed` (new runs only).
    #[arg(long)]
    seed: Option<u64>,
    /// Override `[rules]`: the game's rule options as its rules text, read
    /// by the game (`--game`, else the config's), e.g. `variant=croda` or
    /// `variant=dameo,no_capture_limit=off` for draughts (options not named
    /// take their defaults). A new run's name then carries the first
    /// option's value (`quick-croda-…`); a resumed run must have the same
    /// rules.
    #[arg(long)]
    rules: Option<String>,
    /// Override `[game] name`: `draughts`, `tafl` (Turkish Tafl), or any
    /// other registered game (`minidama`); `[rules]` holds its options. A
    /// new run's name then carries the game (`quick-tafl-…`).
    #[arg(long)]
    game: Option<dama_nn::GameName>,
    /// No progress bars (one line per generation only).
    #[arg(long)]
    quiet: bool,
}

fn newest_run(checkpoints: &Path, stem: &str) -> Result<String> {
    let mut runs: Vec<String> = std::fs::read_dir(checkpoints)
        .with_context(|| format!("cannot list {}", checkpoints.display()))?
        .filter_map(|e| e.ok())
        .filter(|e| RunDir::new(e.path()).state().exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("{stem}-")) || n == stem)
        .collect();
    runs.sort();
    runs.pop()
        .with_context(|| format!("no run of `{stem}` to resume in {}", checkpoints.display()))
}

/// Runs `dama train`: a run of either kind (`[run] kind`), the same way.
pub fn run(args: &TrainArgs) -> Result<()> {
    let (path, from_run_dir) = match (&args.config, &args.run, args.resume) {
        (Some(path), _, _) => (path.clone(), false),
        (None, Some(run), true) => (RunDir::new(args.checkpoints.join(run)).config(), true),
        _ => bail!(
            "--config is required (or --resume --run NAME to continue a run with its own config)"
        ),
    };
    let mut config = AnyConfig::load(&path).context(if from_run_dir {
        "cannot read the run's frozen config"
    } else {
        "invalid config"
    })?;
    let mut stem = match (&args.run, from_run_dir) {
        (Some(run), true) => run.clone(),
        _ => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "run".into()),
    };
    if let Some(g) = args.game {
        if g != config.game() {
            if !from_run_dir {
                stem = format!("{stem}-{g}");
            }
            let old = config.rules();
            if old != dama_nn::GameRules::default_for(old.name()) && args.rules.is_none() {
                bail!(
                    "the config's [rules] hold rule options of {} ({}), and --game {g} plays {}: \
                     give its rules with --rules, or leave [rules] out of the config",
                    old.name().title(),
                    old.text(),
                    g.title()
                );
            }
            config.set_game(g, dama_nn::GameRules::default_for(g));
        }
    }
    if let Some(text) = &args.rules {
        let r = crate::args::game_rules(config.game(), text)?;
        if r != config.rules() && !from_run_dir {
            if let Some(s) = crate::args::rules_stem(text) {
                stem = format!("{stem}-{s}");
            }
        }
        config.set_rules(r);
    }
    if let Some(g) = args.generations {
        *config.generations_mut() = g;
    }
    if let Some(d) = args.device {
        if config.set_device(d).is_err() {
            bail!("--device is not an option of a learned-evaluator run (it trains on the CPU)");
        }
    }
    if let Some(s) = args.seed {
        if args.resume {
            bail!("--seed cannot change on --resume (the run's random choices derive from it)");
        }
        *config.seed_mut() = s;
    }
    config.validate().context("invalid config")?;

    let run_name = run_name(args.run.as_deref(), args.resume, &args.checkpoints, &stem)?;
    let run_dir = args.checkpoints.join(&run_name);
    let device = dama_nn::device::resolve(config.device())?;
    eprintln!(
        "dama train: {} run {run_name} ({}), {} rules `{}`, {} generations, device {}",
        kind_name(config.kind()),
        run_dir.display(),
        config.game().title(),
        config.rules().text(),
        config.generations(),
        dama_nn::device::describe(device),
    );
    let stop = stop_on_interrupt(
        "interrupt: stopping after a clean checkpoint (Ctrl-C again to quit now)",
        "second interrupt: exiting now (the last finished generation is kept)",
    )?;
    let opts = TrainOptions {
        config,
        run_dir,
        resume: args.resume,
    };
    let bars = Bars::new(args.quiet);
    let summary = dama_selfplay::train(&opts, &stop, &bars)?;
    if summary.stopped {
        eprintln!(
            "stopped at generation {} (step {}); continue with: dama train --resume --run {run_name}",
            summary.generation, summary.step
        );
        return Ok(());
    }
    print_evals(&summary.last_eval)?;
    outln!(
        "dama train: run {run_name} done at generation {} (step {}); {}",
        summary.generation,
        summary.step,
        best_line(&summary)
    );
    Ok(())
}

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
fn print_evals(evals: &[dama_selfplay::run::EvalLine]) -> Result<()> {
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
                eprintln!("{}", crate::learner::learner_line(learner, workers));
            }
            ProgressEvent::ChunkUploaded { chunk, status } => {
                self.with_bar(|bar, _| bar.finish_and_clear());
                eprintln!("{}", crate::worker::chunk_line(chunk, status));
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

/// `YYYYMMDD-HHMMSS` in UTC, without a date library.
/// The run a `dama train` works on: `--run` (one plain path component),
/// the newest run of `stem` on `--resume`, or `stem` and the time.
pub(crate) fn run_name(
    run: Option<&str>,
    resume: bool,
    checkpoints: &Path,
    stem: &str,
) -> Result<String> {
    if let Some(r) = run {
        let plain = Path::new(r)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if r.is_empty() || !plain {
            bail!(
                "--run `{r}` is not a run name: give the name of a directory under {} (e.g. `smoke`)",
                checkpoints.display()
            );
        }
    }
    Ok(match (run, resume) {
        (Some(r), _) => r.to_owned(),
        (None, true) => newest_run(checkpoints, stem)?,
        (None, false) => format!("{stem}-{}", timestamp()),
    })
}

fn timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
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
