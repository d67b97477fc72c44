//! `dama evaluator fit`: a learned evaluator trained on sample files (a
//! learned-evaluator run's `games/gen-NNNN.samples`), outside any run.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use dama_nnue::LearnedGame;
use indicatif::{ProgressBar, ProgressStyle};

/// Arguments of `dama evaluator`.
#[derive(clap::Args, Debug)]
pub struct EvaluatorArgs {
    #[command(subcommand)]
    what: EvaluatorCommand,
}

#[derive(clap::Subcommand, Debug)]
enum EvaluatorCommand {
    /// Train an evaluator on sample files (a run's `games/gen-NNNN.samples`).
    Fit(FitArgs),
}

#[derive(clap::Args, Debug)]
struct FitArgs {
    /// Sample files to train on (all of one rules).
    #[arg(long, value_delimiter = ',', required = true)]
    samples: Vec<PathBuf>,
    /// Sample files to measure the loss on (not trained on).
    #[arg(long, value_delimiter = ',')]
    valid: Vec<PathBuf>,
    /// Start from this evaluator (default: a random network).
    #[arg(long)]
    init: Option<PathBuf>,
    /// Where to write the evaluator.
    #[arg(long)]
    out: PathBuf,
    /// Optimizer steps.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    steps: u64,
    /// Positions per step.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    batch: u64,
    /// Adam's first learning rate (cosine decay to a tenth).
    #[arg(long, default_value_t = 1e-3)]
    lr: f64,
    /// K, centi-men per logit.
    #[arg(long, default_value_t = 150.0)]
    score_scale: f32,
    /// Weight of the game result in the target.
    #[arg(long, default_value_t = 0.3)]
    result_weight: f32,
    /// Seed of the batches.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// libtorch threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// The game whose samples these are (`draughts`, `tafl`).
    #[arg(long, default_value = "draughts")]
    game: dama_nn::GameName,
}

/// Runs `dama evaluator`.
pub fn evaluator(args: &EvaluatorArgs) -> Result<()> {
    match &args.what {
        EvaluatorCommand::Fit(a) => {
            struct Fit<'a>(&'a FitArgs);
            impl dama_registry::WithLearnedGame for Fit<'_> {
                type Output = Result<()>;
                fn run<G: LearnedGame>(self) -> Result<()> {
                    fit::<G>(self.0)
                }
            }
            a.game.with_learned(Fit(a)).unwrap_or_else(|| {
                bail!("--game {}: its engine plays no learned evaluation", a.game)
            })
        }
    }
}

type Samples<G> = Vec<dama_nnue::Sample<<G as LearnedGame>::Features>>;

fn read_all<G: LearnedGame>(files: &[PathBuf]) -> Result<(Option<G::Rules>, Samples<G>)> {
    let mut rules = None;
    let mut all = Vec::new();
    for f in files {
        let (r, s) = dama_nnue::read_samples::<G::Features>(f, rules.as_ref(), 50_000_000)
            .with_context(|| format!("cannot read samples {}", f.display()))?;
        rules = Some(r);
        all.extend(s);
    }
    Ok((rules, all))
}

fn fit<G: LearnedGame>(args: &FitArgs) -> Result<()> {
    use rand::SeedableRng;
    let (rules, train) = read_all::<G>(&args.samples)?;
    let rules = rules.context("no samples")?;
    let (_, valid) = read_all::<G>(&args.valid)?;
    for f in &args.valid {
        dama_nnue::read_samples::<G::Features>(f, Some(&rules), 50_000_000)
            .with_context(|| format!("validation samples {}", f.display()))?;
    }
    let init = match &args.init {
        Some(p) => {
            dama_nnue::read_network::<G::Features>(p, Some(&rules))
                .with_context(|| format!("cannot read {}", p.display()))?
                .0
        }
        None => dama_nnue::FloatNet::random::<G::Features>(&rules, args.seed),
    };
    let threads = if args.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        crate::args::threads(&args.threads.to_string()).map_err(|e| anyhow::anyhow!(e))?
    };
    dama_nn::device::set_torch_threads(threads);
    let settings = dama_nn::NnueTrainSettings {
        lr: args.lr,
        batch_size: args.batch as usize,
        score_scale: args.score_scale,
        result_weight: args.result_weight,
        mirror: true,
    };
    let mut trainer = dama_nn::NnueTrainer::<G::Features>::new(&init, settings)?;
    if !valid.is_empty() {
        eprintln!("validation loss before: {:.6}", trainer.mean_loss(&valid)?);
    }
    let bar = ProgressBar::new(args.steps);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed}/{duration} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
    let stats = trainer.train(&train, args.steps as usize, &mut rng, |step, loss| {
        if step % 50 == 0 {
            bar.set_position(step as u64);
            bar.set_message(format!("loss {loss:.5}"));
        }
    })?;
    bar.finish_and_clear();
    let net = trainer.to_float()?;
    dama_nnue::write_network(&args.out, &net, &[("steps", args.steps.to_string())])
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let valid_loss = if valid.is_empty() {
        String::new()
    } else {
        format!(", validation loss {:.6}", trainer.mean_loss(&valid)?)
    };
    outln!(
        "dama evaluator fit: {} positions, {} steps, mean training loss {:.6}{valid_loss}; wrote {}",
        train.len(),
        stats.steps,
        stats.loss,
        args.out.display()
    );
    Ok(())
}
