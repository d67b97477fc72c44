//! `dama train`: the main job.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use dama_selfplay::{AnyConfig, RunDir, TrainOptions};

use crate::runs::{best_line, kind_name, print_evals, stop_on_interrupt, Bars};

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
