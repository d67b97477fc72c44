//! `dama train` for a learned-evaluator run (`[run] kind = "nnue"`): the
//! alpha-beta engine's self-play trains an NNUE-style evaluation
//! (`dama_selfplay::nnue`).

use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use dama_nnue::LearnedGame;
use dama_selfplay::nnue::{run_nnue, NnueConfig, NnueProgress, NnueRunOptions};
use dama_selfplay::{learn_nnue, NnueLearnerOptions, RunDir};
use indicatif::{ProgressBar, ProgressStyle};

/// What `dama train` hands over for a learned-evaluator run.
pub struct NnueTrainArgs {
    /// The config file (or the run's own `config.toml` on a bare resume).
    pub config: PathBuf,
    /// Whether `config` is the run directory's frozen config.
    pub from_run_dir: bool,
    /// `--run`.
    pub run: Option<String>,
    /// `--resume`.
    pub resume: bool,
    /// `--checkpoints`.
    pub checkpoints: PathBuf,
    /// `--generations`.
    pub generations: Option<u32>,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `--game`: the game whose engine learns (the config's by default).
    pub game: Option<dama_nn::GameName>,
    /// `--rules`: the game's rules text.
    pub rules: Option<String>,
    /// `--quiet`.
    pub quiet: bool,
}

/// Draws a learned-evaluator run's progress on stderr: a bar per stage
/// (none with `--quiet`), and one line per generation, per learner
/// generation of a distributed run, and per warning.
pub(crate) struct NnueBars {
    bar: Mutex<Option<ProgressBar>>,
    quiet: bool,
}

impl NnueBars {
    pub(crate) fn new(quiet: bool) -> NnueBars {
        NnueBars {
            bar: Mutex::new(None),
            quiet,
        }
    }

    fn take_bar(&self) {
        if let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            b.finish_and_clear();
        }
    }

    /// Clears the bar of the last stage.
    pub(crate) fn finish(&self) {
        self.take_bar();
    }

    pub(crate) fn event(&self, p: NnueProgress) {
        match p {
            NnueProgress::Stage {
                generation,
                stage,
                total,
            } => {
                self.take_bar();
                if !self.quiet {
                    let b = ProgressBar::new(total);
                    b.set_style(
                        ProgressStyle::with_template(
                            "{prefix:>14} [{bar:30}] {pos}/{len} {elapsed}/{duration} {msg}",
                        )
                        .unwrap_or_else(|_| ProgressStyle::default_bar())
                        .progress_chars("=> "),
                    );
                    b.set_prefix(format!("gen {generation} {stage}"));
                    *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(b);
                }
            }
            NnueProgress::Tick { done, message } => {
                if let Some(b) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                    b.set_position(done);
                    b.set_message(message);
                }
            }
            NnueProgress::Generation(line) => {
                self.take_bar();
                eprintln!("{line}");
            }
            NnueProgress::Learner { learner, workers } => {
                self.take_bar();
                eprintln!("{}", crate::learner::learner_line(&learner, &workers));
            }
            NnueProgress::Warning(w) => eprintln!("warning: {w}"),
            NnueProgress::Note(n) => {
                if !self.quiet {
                    eprintln!("{n}");
                }
            }
        }
    }
}

/// What `dama learner` hands over for a learned-evaluator run.
pub struct NnueLearnerArgs {
    /// The config file (or the run's frozen `config.toml` on a bare resume).
    pub config: PathBuf,
    /// Whether `config` is the run directory's frozen config.
    pub from_run_dir: bool,
    /// `--store` as given.
    pub store: String,
    /// The store's URL when it is not the run directory (an object store).
    pub store_url: Option<String>,
    /// The learner's run directory.
    pub run_dir: PathBuf,
    /// `--resume`.
    pub resume: bool,
    /// `--generations`.
    pub generations: Option<u32>,
    /// `--max-staleness`.
    pub max_staleness: Option<u32>,
    /// `--poll-secs`.
    pub poll_secs: Option<f64>,
    /// `--quiet`.
    pub quiet: bool,
}

/// Runs `dama learner` for a learned-evaluator run.
pub fn learner(args: &NnueLearnerArgs) -> Result<()> {
    let mut config = NnueConfig::load(&args.config).context(if args.from_run_dir {
        "cannot read the run's frozen config"
    } else {
        "invalid config"
    })?;
    if let Some(g) = args.generations {
        config.run.generations = g;
    }
    if let Some(m) = args.max_staleness {
        config.distributed.max_staleness = m;
    }
    if let Some(p) = args.poll_secs {
        config.distributed.poll_secs = p;
    }
    config.validate().context("invalid config")?;
    eprintln!(
        "dama learner: learned-evaluator run {}, store {}, {} rules `{}`, {} generations",
        args.run_dir.display(),
        args.store,
        config.game.name.title(),
        config.rules.text(),
        config.run.generations
    );
    let stop = crate::train::stop_on_interrupt(
        "interrupt: stopping (continue with --resume)",
        "second interrupt: exiting now (the last finished generation is kept)",
    )?;
    let opts = NnueLearnerOptions {
        config,
        run_dir: args.run_dir.clone(),
        resume: args.resume,
        store: args.store_url.clone(),
    };
    let bars = NnueBars::new(args.quiet);
    let progress = |p: NnueProgress| bars.event(p);
    let summary = learn_nnue(&opts, &stop, &progress)?;
    bars.finish();
    if summary.stopped {
        eprintln!(
            "stopped at generation {}; continue with: dama learner --store {} --resume",
            summary.generation, args.store
        );
        return Ok(());
    }
    let dir = RunDir::new(&args.run_dir);
    let best = if summary.best_generation == 0 {
        "the handcrafted evaluation is still the best".to_owned()
    } else {
        format!(
            "best evaluator generation {} ({})",
            summary.best_generation,
            dir.best_evaluator().display()
        )
    };
    outln!("done: learner at generation {}, {best}", summary.generation);
    Ok(())
}

/// Runs a learned-evaluator training run.
pub fn train(args: &NnueTrainArgs) -> Result<()> {
    let mut config = NnueConfig::load(&args.config).context("invalid config")?;
    let mut stem = if args.from_run_dir {
        args.run.clone().unwrap_or_else(|| "nnue".to_owned())
    } else {
        args.config
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "nnue".into())
    };
    if let Some(g) = args.game {
        if g != config.game.name {
            if args.resume {
                bail!(
                    "--game cannot change on --resume: the run trains {}",
                    config.game.name.title()
                );
            }
            if config.rules != dama_nn::GameRules::default_for(config.game.name)
                && args.rules.is_none()
            {
                bail!(
                    "the config's [rules] hold rule options of {} ({}), and --game {g} plays {}: \
                     give its rules with --rules, or leave [rules] out of the config",
                    config.game.name.title(),
                    config.rules.text(),
                    g.title()
                );
            }
            stem = format!("{stem}-{g}");
            config.game.name = g;
            config.rules = dama_nn::GameRules::default_for(g);
        }
    }
    if let Some(text) = &args.rules {
        let r = crate::args::game_rules(config.game.name, text)?;
        if r != config.rules && !args.from_run_dir {
            if let Some(s) = crate::args::rules_stem(text) {
                stem = format!("{stem}-{s}");
            }
        }
        config.rules = r;
    }
    if let Some(g) = args.generations {
        config.run.generations = g;
    }
    if let Some(s) = args.seed {
        if args.resume {
            bail!("--seed cannot change on --resume (the run's random choices derive from it)");
        }
        config.run.seed = s;
    }
    config.validate().context("invalid config")?;
    let run_name =
        crate::train::run_name(args.run.as_deref(), args.resume, &args.checkpoints, &stem)?;
    let dir = RunDir::new(args.checkpoints.join(&run_name));
    eprintln!(
        "dama train: learned-evaluator run {run_name} ({}), {} rules `{}`, {} generations",
        dir.root().display(),
        config.game.name.title(),
        config.rules.text(),
        config.run.generations
    );
    let stop = crate::train::stop_on_interrupt(
        "interrupt: stopping after the current stage (Ctrl-C again to quit now)",
        "second interrupt: exiting now (the last finished generation is kept)",
    )?;
    let bars = NnueBars::new(args.quiet);
    let progress = |p: NnueProgress| bars.event(p);
    let summary = run_nnue(
        &config,
        &dir,
        NnueRunOptions {
            resume: args.resume,
        },
        &stop,
        &progress,
    )?;
    bars.finish();
    if summary.stopped {
        eprintln!(
            "stopped after generation {}; continue with: dama train --resume --run {run_name} --config <same config>",
            summary.generation
        );
        return Ok(());
    }
    let best = if summary.best_generation == 0 {
        "the handcrafted evaluation is still the best (no network passed the gate)".to_owned()
    } else {
        format!(
            "best network: generation {} ({}); play it with alphabeta:time=100,eval={}",
            summary.best_generation,
            dir.evaluator(summary.best_generation).display(),
            dir.best_evaluator().display()
        )
    };
    outln!(
        "dama train: {run_name} finished {} generations; {best}",
        summary.generation
    );
    if let Some((spec, score)) = summary.last_eval {
        outln!(
            "last evaluation: {:.1}% against the handcrafted {spec}",
            100.0 * score
        );
    }
    Ok(())
}

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
