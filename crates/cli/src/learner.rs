//! `dama learner`: a distributed run's learner.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use dama_run::RunDir;
use dama_selfplay::{AnyConfig, LearnerOptions, TrainOptions};

use crate::runs::{best_line, kind_name, stop_on_interrupt, Bars};

/// Arguments of `dama learner`.
#[derive(Args, Debug)]
pub struct LearnerArgs {
    /// The run's store, where workers upload chunks and read networks: a
    /// directory (local or shared, e.g. NFS; it is then also the run
    /// directory), `file:///path`, or with the `object-store` feature
    /// `s3://bucket/run`, `gs://…`, `az://…` (then give --local-dir).
    #[arg(long)]
    store: String,
    /// The learner's own run directory (state, checkpoints, metrics) when
    /// the store is an object store.
    #[arg(long)]
    local_dir: Option<PathBuf>,
    /// The run's config (TOML; see configs/): a network run's, or a
    /// learned-evaluator run's (`[run] kind = "nnue"`). With --resume,
    /// default: the run's frozen config.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Continue the run where it stopped (no chunk is consumed twice).
    #[arg(long)]
    resume: bool,
    /// Override `run.generations`.
    #[arg(long)]
    generations: Option<u32>,
    /// Override `run.device`: auto, cpu, cuda or cuda:N.
    #[arg(long)]
    device: Option<dama_run::DeviceSpec>,
    /// Override `[distributed] max_staleness` (0..=1000 generations).
    #[arg(long)]
    max_staleness: Option<u32>,
    /// Override `[distributed] poll_secs` (0.05..=3600).
    #[arg(long)]
    poll_secs: Option<f64>,
    /// No progress bars (one line per generation only).
    #[arg(long)]
    quiet: bool,
}

/// Runs `dama learner`.
pub fn run(args: &LearnerArgs) -> Result<()> {
    let store = dama_run::open_store(&args.store).context("invalid --store")?;
    let (run_dir, store_url) = match (store.local_path("config.toml"), &args.local_dir) {
        (Some(path), None) => (
            path.parent()
                .map(PathBuf::from)
                .context("the store has no directory")?,
            None,
        ),
        (_, Some(dir)) => (dir.clone(), Some(args.store.clone())),
        (None, None) => bail!(
            "--store {} is an object store: give the learner's own run directory with --local-dir",
            args.store
        ),
    };
    let dir = RunDir::new(&run_dir);
    let mut config = match (&args.config, args.resume) {
        (Some(path), _) => AnyConfig::load(path).context("invalid config")?,
        (None, true) => {
            AnyConfig::load(&dir.config()).context("cannot read the run's frozen config")?
        }
        (None, false) => bail!("--config is required (or --resume to continue a run)"),
    };
    if let Some(g) = args.generations {
        *config.generations_mut() = g;
    }
    if let Some(d) = args.device {
        if config.set_device(d).is_err() {
            // scripts/ray_driver.py names a device for every learner.
            eprintln!(
                "dama learner: --device {d} is not used: a learned-evaluator run trains on the CPU"
            );
        }
    }
    if let Some(m) = args.max_staleness {
        config.distributed_mut().max_staleness = m;
    }
    if let Some(p) = args.poll_secs {
        config.distributed_mut().poll_secs = p;
    }
    config.validate().context("invalid config")?;
    let device = dama_nn::device::resolve(config.device())?;
    eprintln!(
        "dama learner: {} run {}, store {}, {} rules `{}`, {} generations, device {}",
        kind_name(config.kind()),
        run_dir.display(),
        args.store,
        config.game().title(),
        config.rules().text(),
        config.generations(),
        dama_nn::device::describe(device),
    );
    let stop = stop_on_interrupt(
        "interrupt: stopping (continue with --resume)",
        "second interrupt: exiting now (the last finished generation is kept)",
    )?;
    let opts = LearnerOptions {
        train: TrainOptions {
            config,
            run_dir: run_dir.clone(),
            resume: args.resume,
        },
        store: store_url,
    };
    let bars = Bars::new(args.quiet);
    let summary = dama_selfplay::learn(&opts, &stop, &bars)?;
    if summary.stopped {
        eprintln!(
            "stopped at generation {} (step {}); continue with: dama learner --store {} --resume",
            summary.generation, summary.step, args.store
        );
        return Ok(());
    }
    outln!(
        "done: learner at generation {} (step {}); {}",
        summary.generation,
        summary.step,
        best_line(&summary)
    );
    Ok(())
}
