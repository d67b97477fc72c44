//! `dama train`: the main job.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{bail, Context, Result};
use clap::Args;
use dama_selfplay::progress::GenerationReport;
use dama_selfplay::{Progress, ProgressEvent, RunConfig, RunDir, Stage, TrainOptions};
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

/// Runs `dama train`.
pub fn run(args: &TrainArgs) -> Result<()> {
    // A learned-evaluator run (`[run] kind = "nnue"`) has its own loop.
    let nnue_config = match (&args.config, &args.run, args.resume) {
        (Some(path), _, _) => Some(path.clone()),
        (None, Some(run), true) => Some(RunDir::new(args.checkpoints.join(run)).config()),
        _ => None,
    }
    .filter(|p| p.exists())
    .map(|p| dama_selfplay::RunKind::of_file(&p).map(|kind| (p, kind)))
    .transpose()?
    .and_then(|(p, kind)| (kind == dama_selfplay::RunKind::Nnue).then_some(p));
    if let Some(path) = nnue_config {
        if args.device.is_some() {
            bail!("--device is not an option of a learned-evaluator run (it trains on the CPU)");
        }
        return crate::nnue::train(&crate::nnue::NnueTrainArgs {
            config: path,
            from_run_dir: args.config.is_none(),
            run: args.run.clone(),
            resume: args.resume,
            checkpoints: args.checkpoints.clone(),
            generations: args.generations,
            seed: args.seed,
            game: args.game,
            rules: args.rules.clone(),
            quiet: args.quiet,
        });
    }
    let (mut config, stem) = match (&args.config, &args.run, args.resume) {
        (Some(path), _, _) => {
            let cfg = RunConfig::load(path).context("invalid config")?;
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "run".into());
            (cfg, stem)
        }
        (None, Some(run), true) => {
            let frozen = RunDir::new(args.checkpoints.join(run)).config();
            let cfg = RunConfig::load(&frozen).context("cannot read the run's frozen config")?;
            (cfg, run.clone())
        }
        _ => bail!(
            "--config is required (or --resume --run NAME to continue a run with its own config)"
        ),
    };
    let mut stem = stem;
    if let Some(g) = args.game {
        if g != config.game.name && args.config.is_some() {
            stem = format!("{stem}-{g}");
        }
        config.game.name = g;
        if config.rules.name() != g {
            let old = config.rules;
            if old != dama_nn::GameRules::default_for(old.name()) && args.rules.is_none() {
                bail!(
                    "the config's [rules] hold rule options of {} ({}), and --game {g} plays {}: \
                     give its rules with --rules, or leave [rules] out of the config",
                    old.name().title(),
                    old.text(),
                    g.title()
                );
            }
            config.rules = dama_nn::GameRules::default_for(g);
        }
        config.fit_model_to_game();
    }
    if let Some(text) = &args.rules {
        let r = crate::args::game_rules(config.game.name, text)?;
        if r != config.rules && args.config.is_some() {
            if let Some(s) = crate::args::rules_stem(text) {
                stem = format!("{stem}-{s}");
            }
        }
        config.rules = r;
    }
    if let Some(g) = args.generations {
        config.run.generations = g;
    }
    if let Some(d) = args.device {
        config.run.device = d;
    }
    if let Some(s) = args.seed {
        if args.resume {
            bail!("--seed cannot change on --resume (the run's RNG streams derive from it)");
        }
        config.run.seed = s;
    }
    config.validate().context("invalid config")?;

    let run_name = run_name(args.run.as_deref(), args.resume, &args.checkpoints, &stem)?;
    let run_dir = args.checkpoints.join(&run_name);

    let device = dama_nn::device::resolve(config.run.device)?;
    eprintln!(
        "dama train: run {} ({}), device {}",
        run_name,
        run_dir.display(),
        dama_nn::device::describe(device),
    );

    let stop = stop_on_interrupt(
        "interrupt: stopping after a clean checkpoint (Ctrl-C again to quit now)",
        "second interrupt: exiting now (the last finished generation is kept)",
    )?;

    let opts = TrainOptions {
        config,
        run_dir: run_dir.clone(),
        resume: args.resume,
    };
    let bars = Bars::new(args.quiet);
    let summary = dama_selfplay::train(&opts, &stop, &bars)?;
    if summary.stopped {
        eprintln!(
            "stopped at generation {} (step {}); continue with: dama train --resume --run {} --config <same config>",
            summary.generation, summary.step, run_name
        );
        return Ok(());
    }
    if !summary.last_eval.is_empty() {
        // An asymmetric game's evaluation has the network's W/D/L per side.
        let sides: Vec<String> = summary
            .last_eval
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
        for e in &summary.last_eval {
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
    }
    outln!(
        "done: run {} at generation {} (step {}), checkpoint {}",
        run_name,
        summary.generation,
        summary.step,
        summary.checkpoint.display()
    );
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
                bar.inc(1);
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

/// The line `dama train` prints for a finished generation.
fn generation_line(r: &GenerationReport) -> String {
    let sp = &r.selfplay;
    let mut s = format!(
        "gen {:>3}: {} games ({:.0}/h, {:.0} evals/s, {:.1} cores, len {:.0}, draws {:.0}% ({:.0}% no-capture), {:.1} captures/game), loss {:.3}",
        r.generation,
        sp.games,
        sp.games_per_hour(),
        sp.evals_per_sec(),
        sp.cores_busy(),
        sp.avg_length(),
        100.0 * sp.draw_rate(),
        100.0 * sp.no_capture_draw_rate(),
        sp.captures_per_game(),
        r.loss
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
