//! One run driver for every kind of run.
//!
//! A run directory is driven by one generation loop ([`drive`]), whatever
//! the run's kind (a network run, [`crate::run::TrainingRun`]; a
//! learned-evaluator run, [`crate::nnue::NnueRun`]) and wherever its games
//! come from (the trainer's own self-play; the chunks workers upload to a
//! store, read by [`crate::distributed`]'s learner). A kind supplies the
//! stages of a generation ([`Stages`]); what every run does the same way is
//! written here once:
//!
//! - opening a run directory ([`RunFiles::open`]): the checks, the lock, a
//!   killed writer's temporary files, the frozen config and the one rule
//!   for what a session may change on `--resume` ([`FrozenConfig`]), the
//!   metrics of an unfinished generation dropped, the run's totals, and the
//!   `"session"` line;
//! - the loop: one stop check before each generation (a stage that sees the
//!   stop returns `None`, and the generation is abandoned, not committed),
//!   one progress type ([`crate::progress::Progress`]), the `"selfplay"`
//!   line and the totals ([`RunFiles::add_selfplay`]), and the commit
//!   ([`RunFiles::commit`]: the `"generation"` line, then `state.json`);
//! - what a finished or stopped run did ([`RunSummary`]).
//!
//! [`train`] and [`learn`] are the entry points: they open the kind of run
//! the config is ([`AnyConfig`], read once by its typed `[run] kind`) and
//! drive it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dama_run::dist::ChunkName;
use dama_run::metrics::{GenerationEvent, SelfplayEvent, SessionEvent};
use dama_run::{LearnerEvent, LocalStore, MetricsEvent, MetricsWriter, RunDir, RunLock, RunState};
use dama_run::{Store, WorkerEvent};

use crate::config::{DistributedConfig, RunConfig, RunKind};
use crate::distributed::{store_err, ChunkRead, Learner};
use crate::nnue::NnueConfig;
use crate::progress::{GenerationReport, Progress, ProgressEvent};
use crate::run::EvalLine;
use crate::Error;

/// A run's config, of either kind: what `[run] kind` says the file is.
// One per run, read once: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum AnyConfig {
    /// A network run (`kind = "network"`, the default).
    Network(RunConfig),
    /// A learned-evaluator run (`kind = "nnue"`).
    Nnue(NnueConfig),
}

impl From<RunConfig> for AnyConfig {
    fn from(c: RunConfig) -> AnyConfig {
        AnyConfig::Network(c)
    }
}

impl From<NnueConfig> for AnyConfig {
    fn from(c: NnueConfig) -> AnyConfig {
        AnyConfig::Nnue(c)
    }
}

impl AnyConfig {
    /// Reads the config at `path` as the kind its `[run] kind` names.
    ///
    /// # Errors
    /// An unreadable file, an unknown kind, a config that does not parse or
    /// is invalid (each naming the file or the key).
    pub fn load(path: &Path) -> Result<AnyConfig, Error> {
        Ok(match RunKind::of_file(path)? {
            RunKind::Network => AnyConfig::Network(RunConfig::load(path)?),
            RunKind::Nnue => AnyConfig::Nnue(NnueConfig::load(path)?),
        })
    }

    /// The run's kind.
    pub fn kind(&self) -> RunKind {
        match self {
            AnyConfig::Network(_) => RunKind::Network,
            AnyConfig::Nnue(_) => RunKind::Nnue,
        }
    }

    /// `[game] name`.
    pub fn game(&self) -> dama_nn::GameName {
        match self {
            AnyConfig::Network(c) => c.game.name,
            AnyConfig::Nnue(c) => c.game.name,
        }
    }

    /// `[rules]`, the options of the config's game.
    pub fn rules(&self) -> dama_nn::GameRules {
        match self {
            AnyConfig::Network(c) => c.rules,
            AnyConfig::Nnue(c) => c.rules,
        }
    }

    /// Plays game `game` with `rules` (its options); a network run's model
    /// is fitted to the game's input.
    pub fn set_game(&mut self, game: dama_nn::GameName, rules: dama_nn::GameRules) {
        match self {
            AnyConfig::Network(c) => {
                c.game.name = game;
                c.rules = rules;
                c.fit_model_to_game();
            }
            AnyConfig::Nnue(c) => {
                c.game.name = game;
                c.rules = rules;
            }
        }
    }

    /// Sets `[rules]` (options of the config's game).
    pub fn set_rules(&mut self, rules: dama_nn::GameRules) {
        match self {
            AnyConfig::Network(c) => c.rules = rules,
            AnyConfig::Nnue(c) => c.rules = rules,
        }
    }

    /// `run.generations`.
    pub fn generations(&self) -> u32 {
        match self {
            AnyConfig::Network(c) => c.run.generations,
            AnyConfig::Nnue(c) => c.run.generations,
        }
    }

    /// `run.generations`, to change.
    pub fn generations_mut(&mut self) -> &mut u32 {
        match self {
            AnyConfig::Network(c) => &mut c.run.generations,
            AnyConfig::Nnue(c) => &mut c.run.generations,
        }
    }

    /// `run.seed`.
    pub fn seed_mut(&mut self) -> &mut u64 {
        match self {
            AnyConfig::Network(c) => &mut c.run.seed,
            AnyConfig::Nnue(c) => &mut c.run.seed,
        }
    }

    /// `[distributed]`.
    pub fn distributed_mut(&mut self) -> &mut DistributedConfig {
        match self {
            AnyConfig::Network(c) => &mut c.distributed,
            AnyConfig::Nnue(c) => &mut c.distributed,
        }
    }

    /// Sets `run.device`.
    ///
    /// # Errors
    /// A learned-evaluator run, which trains on the CPU and has no device.
    pub fn set_device(&mut self, device: dama_run::DeviceSpec) -> Result<(), Error> {
        match self {
            AnyConfig::Network(c) => {
                c.run.device = device;
                Ok(())
            }
            AnyConfig::Nnue(_) => Err(Error::Config(
                "a learned-evaluator run has no device: it trains on the CPU (run.device, --device)"
                    .into(),
            )),
        }
    }

    /// The device the run trains on: its `run.device`, or the CPU.
    pub fn device(&self) -> dama_run::DeviceSpec {
        match self {
            AnyConfig::Network(c) => c.run.device,
            AnyConfig::Nnue(_) => dama_run::DeviceSpec::Cpu,
        }
    }

    /// Checks every key.
    ///
    /// # Errors
    /// The first invalid key, named.
    pub fn validate(&self) -> Result<(), Error> {
        match self {
            AnyConfig::Network(c) => c.validate(),
            AnyConfig::Nnue(c) => c.validate(),
        }
    }
}

/// A run's config as its run directory freezes it (`config.toml`): what a
/// resumed session must keep.
pub(crate) trait FrozenConfig: Sized + PartialEq {
    /// Reads the frozen config.
    fn load_frozen(path: &Path) -> Result<Self, Error>;
    /// The config as TOML.
    fn frozen_text(&self) -> Result<String, Error>;
    /// The config with its session settings reset: `run.generations`, the
    /// device, the thread counts and `[distributed]`, which a session may
    /// change on `--resume` (they change how long and where the run works,
    /// not what it computes). Two configs of one run are equal so.
    fn without_session_settings(&self) -> Self;
}

/// Whether `given` may resume the run whose frozen config is `frozen`.
pub(crate) fn same_run<C: FrozenConfig>(frozen: &C, given: &C) -> bool {
    frozen.without_session_settings() == given.without_session_settings()
}

/// Self-play totals of a run's finished generations (the learning curve's
/// x axes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Training positions.
    pub positions: u64,
    /// Games.
    pub games: u64,
}

/// A run directory opened by its trainer: the lock, the state, the metrics
/// and the totals, which every kind of run keeps alike.
pub(crate) struct RunFiles {
    pub(crate) dir: RunDir,
    pub(crate) state: RunState,
    pub(crate) metrics: MetricsWriter,
    pub(crate) totals: Totals,
    _lock: RunLock,
}

impl std::fmt::Debug for RunFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunFiles")
            .field("dir", &self.dir)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// How [`RunFiles::open`] opens a run.
pub(crate) struct OpenOptions {
    /// Continue the run in the directory.
    pub(crate) resume: bool,
    /// Keep the temporary files of `games/` (a distributed run's workers
    /// write there while the learner runs).
    pub(crate) keep_games_temp: bool,
}

impl RunFiles {
    /// Opens the run in `dir` for `config`: checks the directory, takes the
    /// run's lock, removes a killed writer's temporary files, then starts a
    /// new run (`start` writes its generation 0; the config is frozen in
    /// `config.toml`, and `state.json` written) or resumes one (the config
    /// must be the frozen one but for the session settings, and the frozen
    /// file then records this session's). A resumed run with no
    /// `state.json` (stopped before its first) starts anew. Metrics of an
    /// unfinished generation are dropped.
    ///
    /// # Errors
    /// An empty directory name, nothing to resume, a run there without
    /// `resume`, a config that differs from the frozen one, another trainer
    /// holding the run, I/O.
    pub(crate) fn open<C: FrozenConfig>(
        dir: &RunDir,
        config: &C,
        options: &OpenOptions,
        start: impl FnOnce() -> Result<(), Error>,
    ) -> Result<RunFiles, Error> {
        if dir.root().as_os_str().is_empty() {
            return Err(Error::Config("the run directory must not be empty".into()));
        }
        if options.resume && !dir.config().exists() {
            return Err(Error::Config(format!(
                "nothing to resume: {} holds no run (no {})",
                dir.root().display(),
                dir.config().display()
            )));
        }
        for d in [dir.root().to_path_buf(), dir.models(), dir.games()] {
            std::fs::create_dir_all(&d).map_err(|e| Error::io(&d, e))?;
        }
        // One trainer per run: held until the run is dropped.
        let lock = RunLock::acquire(dir)?;
        remove_stale_temp_files(dir, options.keep_games_temp)?;
        let exists = dir.state().exists();
        if exists && !options.resume {
            return Err(Error::Config(format!(
                "run directory {} already holds a run: pass --resume to continue it, or choose another --run",
                dir.root().display()
            )));
        }
        if options.resume {
            let frozen = C::load_frozen(&dir.config())?;
            if !same_run(&frozen, config) {
                return Err(Error::Config(format!(
                    "the config differs from the one {} was started with ({}); only run.generations, run.device, the thread counts and [distributed] may change on --resume",
                    dir.root().display(),
                    dir.config().display()
                )));
            }
        }
        dama_run::files::write_atomic(&dir.config(), config.frozen_text()?.as_bytes())
            .map_err(|e| Error::io(&dir.config(), e))?;
        let state = if exists {
            RunState::load(&dir.state())?
        } else {
            // A new run, or one stopped before its first state.json
            // (whatever it left is not a finished generation): from
            // scratch.
            start()?;
            let state = RunState::new_run();
            state.save(&dir.state())?;
            state
        };
        // Forget metrics of an unfinished generation (it will be redone).
        dama_run::truncate_after_generation(&dir.metrics(), state.generation)?;
        let (positions, games) = dama_run::selfplay_totals(&dir.metrics())?;
        Ok(RunFiles {
            dir: dir.clone(),
            state,
            metrics: MetricsWriter::new(dir.metrics()),
            totals: Totals { positions, games },
            _lock: lock,
        })
    }

    /// Writes the `"session"` line: this session's machine and how it
    /// computes.
    pub(crate) fn session(&self, mut event: SessionEvent) -> Result<(), Error> {
        event.generation = self.state.generation;
        Ok(self.metrics.write(&MetricsEvent::Session(event))?)
    }

    /// Records a generation's games, however they were played: the
    /// `"selfplay"` line, and the run's totals.
    pub(crate) fn add_selfplay(&mut self, sp: &SelfplayEvent) -> Result<(), Error> {
        self.metrics.write(&MetricsEvent::Selfplay(sp.clone()))?;
        self.totals.positions += sp.samples;
        self.totals.games += sp.games;
        Ok(())
    }

    /// Finishes generation `gen`: its `"generation"` line, then
    /// `state.json` (the commit point). The run's time is the sum of its
    /// generations' (`took`), pauses and abandoned attempts excluded.
    pub(crate) fn commit(
        &mut self,
        gen: u32,
        selfplay: &SelfplayEvent,
        trained: &TrainFigures,
        judged: Judged,
        took: Duration,
    ) -> Result<GenerationReport, Error> {
        self.state.generation = gen;
        self.state.elapsed_secs += took.as_secs_f64();
        self.metrics
            .write(&MetricsEvent::Generation(GenerationEvent {
                generation: gen,
                step: self.state.step,
                best_generation: self.state.best_generation,
                accepted: judged.accepted,
                seconds: took.as_secs_f64(),
                train_seconds: trained.seconds,
                selfplay_seconds: selfplay.seconds,
                buffer_positions: trained.window,
                loss: trained.loss,
                run_seconds: Some(self.state.elapsed_secs),
                run_positions: Some(self.totals.positions),
                run_games: Some(self.totals.games),
            }))?;
        self.state.save(&self.dir.state())?;
        Ok(GenerationReport {
            generation: gen,
            selfplay: selfplay.clone(),
            loss: trained.loss,
            window: trained.window,
            evals: judged.evals,
            accepted: judged.accepted,
            took,
        })
    }
}

/// Removes the temporary files (`*.tmp`) a killed writer left in the run
/// directory and its subdirectories. Only the lock holder may call it.
fn remove_stale_temp_files(dir: &RunDir, keep_games: bool) -> Result<(), Error> {
    for dir in dir.writable_dirs() {
        if keep_games && dir.file_name().is_some_and(|n| n == "games") {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.map_err(|e| Error::io(&dir, e))?.path();
            if path.extension().is_some_and(|e| e == "tmp") && path.is_file() {
                std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            }
        }
    }
    Ok(())
}

/// What a generation's training stage did, in every kind of run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainFigures {
    /// Optimizer steps taken.
    pub steps: u64,
    /// The training loss (a network run: its last step's; a
    /// learned-evaluator run: the last steps' mean); NaN when no step was
    /// taken.
    pub loss: f64,
    /// Positions in the window trained on.
    pub window: u64,
    /// Wall time of the stage, in seconds.
    pub seconds: f64,
    /// Training positions per second.
    pub samples_per_sec: f64,
}

/// What a generation's evaluation and gate decided.
#[derive(Clone, Debug)]
pub(crate) struct Judged {
    /// The matches played, the gate's first when it played one.
    pub(crate) evals: Vec<EvalLine>,
    /// Whether the generation's network became the best.
    pub(crate) accepted: bool,
}

/// The stages of a generation, as a kind of run makes them. [`drive`] calls
/// them in order; a stage that sees the stop flag returns `Ok(None)`.
pub(crate) trait Stages {
    /// What a worker's chunk holds: game records (a network run) or
    /// training samples (a learned-evaluator run).
    type Item;

    /// The run directory's files.
    fn files(&self) -> &RunFiles;
    /// The run directory's files, to change.
    fn files_mut(&mut self) -> &mut RunFiles;
    /// The run's kind.
    fn kind(&self) -> RunKind;
    /// `run.generations`.
    fn generations(&self) -> u32;
    /// `[distributed]`.
    fn distributed(&self) -> &DistributedConfig;
    /// Games generation `gen` is made of.
    fn games_wanted(&self, gen: u32) -> u64;

    /// Self-play: plays generation `gen`'s games with the best network and
    /// records them (their files, [`RunFiles::add_selfplay`], the window).
    fn self_play(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<SelfplayEvent>, Error>;

    /// Reads a worker's chunk: its items, or why it is unusable.
    fn read_chunk(&self, store: &dyn Store, name: &ChunkName) -> ChunkRead<Self::Item>;

    /// The self-play figures of the items a learner ingested for
    /// generation `gen`, which arrived over `seconds`.
    fn ingested(
        &self,
        gen: u32,
        items: &[Self::Item],
        learner: &LearnerEvent,
        seconds: f64,
    ) -> SelfplayEvent;

    /// Records ingested items as [`Stages::self_play`] records its games.
    fn add_ingested(
        &mut self,
        gen: u32,
        items: Vec<Self::Item>,
        sp: &SelfplayEvent,
    ) -> Result<(), Error>;

    /// Training: generation `gen`'s network, trained on the window and
    /// written as its file.
    fn train(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<TrainFigures>, Error>;

    /// Evaluation and gate: the matches of generation `gen` (written as
    /// `"eval"` lines) and whether its network becomes the best.
    fn judge(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<Judged>, Error>;

    /// The file of generation `g`'s network and their store keys: what a
    /// learner publishes for workers. Empty when the generation has no file
    /// (a learned-evaluator run's handcrafted generation 0).
    fn published(&self, g: u32) -> Vec<(PathBuf, String)>;

    /// The file of generation `g`'s network.
    fn network_file(&self, g: u32) -> PathBuf;

    /// The best network's file to play; `None` when the best is no network
    /// (the handcrafted evaluation).
    fn best_file(&self) -> Option<PathBuf>;
}

/// What a finished (or stopped) run did.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// The run's kind.
    pub kind: RunKind,
    /// The last finished generation.
    pub generation: u32,
    /// Optimizer steps so far.
    pub step: u64,
    /// The best generation (the one self-play plays).
    pub best_generation: u32,
    /// Whether a stop request ended the run early.
    pub stopped: bool,
    /// The last generation's matches (empty when none was due).
    pub last_eval: Vec<EvalLine>,
    /// The last finished generation's network.
    pub checkpoint: PathBuf,
    /// The best network's file to play (a learned-evaluator run's
    /// `best.nnue`); `None` when it is no network.
    pub best: Option<PathBuf>,
}

fn summary<S: Stages>(run: &S, stopped: bool, last_eval: Vec<EvalLine>) -> RunSummary {
    let state = &run.files().state;
    RunSummary {
        kind: run.kind(),
        generation: state.generation,
        step: state.step,
        best_generation: state.best_generation,
        stopped,
        last_eval,
        checkpoint: run.network_file(state.generation),
        best: run.best_file(),
    }
}

/// The one generation loop: runs generations until `run.generations` are
/// done or `stop` is set. Each takes its games from self-play, or with a
/// `learner` from the chunks workers upload (then it also writes the
/// `"learner"` and `"worker"` lines and the ledger, and publishes the best
/// network for the workers).
pub(crate) fn drive<S: Stages>(
    run: &mut S,
    mut learner: Option<&mut Learner<'_>>,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<RunSummary, Error> {
    let generations = run.generations();
    if let Some(l) = learner.as_deref_mut() {
        let (best, finished) = (
            run.files().state.best_generation,
            run.files().state.generation,
        );
        l.publish(
            &run.published(best),
            best,
            finished,
            finished >= generations,
        )?;
    }
    let mut last_eval = Vec::new();
    while run.files().state.generation < generations {
        if stop.load(Ordering::SeqCst) {
            return Ok(summary(run, true, last_eval));
        }
        let gen = run.files().state.generation + 1;
        let gen_start = Instant::now();
        let (sp, ingest) = match learner.as_deref_mut() {
            None => match run.self_play(gen, stop, progress)? {
                Some(sp) => (sp, None),
                None => return Ok(summary(run, true, last_eval)),
            },
            Some(l) => {
                let distributed = run.distributed().clone();
                let mut read = |store: &dyn Store, name: &ChunkName| run.read_chunk(store, name);
                let Some(ingest) = l.ingest(
                    gen,
                    run.games_wanted(gen),
                    run.files().state.best_generation,
                    distributed.max_staleness,
                    distributed.poll_secs,
                    stop,
                    progress,
                    &mut read,
                )?
                else {
                    return Ok(summary(run, true, last_eval));
                };
                let t = Instant::now();
                // How fast the games arrived (the session's first
                // generation: over its ingest stage).
                let window = if ingest.window_seconds.is_finite() {
                    ingest.window_seconds
                } else {
                    ingest.learner.ingest_seconds
                }
                .max(1e-9);
                let sp = run.ingested(gen, &ingest.items, &ingest.learner, window);
                run.add_ingested(gen, ingest.items, &sp)?;
                let mut line = ingest.learner;
                line.read_seconds += t.elapsed().as_secs_f64();
                line.seconds_per_chunk = line.read_seconds / (line.chunks.max(1) as f64);
                (sp, Some((line, ingest.workers, ingest.ledger)))
            }
        };
        let Some(trained) = run.train(gen, stop, progress)? else {
            return Ok(summary(run, true, last_eval));
        };
        let Some(judged) = run.judge(gen, stop, progress)? else {
            return Ok(summary(run, true, last_eval));
        };
        let mut learned: Option<(LearnerEvent, Vec<WorkerEvent>)> = None;
        if let (Some(l), Some((mut line, workers, ledger))) = (learner.as_deref_mut(), ingest) {
            line.samples_per_sec = trained.samples_per_sec;
            run.files()
                .metrics
                .write(&MetricsEvent::Learner(line.clone()))?;
            for w in &workers {
                run.files()
                    .metrics
                    .write(&MetricsEvent::Worker(w.clone()))?;
            }
            l.write_ledger(gen, ledger)?;
            learned = Some((line, workers));
        }
        let report = run
            .files_mut()
            .commit(gen, &sp, &trained, judged, gen_start.elapsed())?;
        if let (Some(l), Some((line, workers))) = (learner.as_deref_mut(), learned) {
            let best = run.files().state.best_generation;
            l.publish(&run.published(best), best, gen, gen >= generations)?;
            progress.event(ProgressEvent::Learner {
                learner: &line,
                workers: &workers,
            });
        }
        progress.event(ProgressEvent::GenerationFinished(&report));
        last_eval = report.evals;
    }
    Ok(summary(run, false, last_eval))
}

/// How a run is asked to run.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The run's config, of its kind.
    pub config: AnyConfig,
    /// The run directory.
    pub run_dir: PathBuf,
    /// Continue the run there (its frozen config must match `config` but
    /// for the session settings).
    pub resume: bool,
}

/// Runs (or resumes) a run of any kind until `run.generations` are done or
/// `stop` is set. Stopping abandons the unfinished generation; the run
/// resumes from the last finished one.
///
/// # Errors
/// Bad run directories (an existing run without `resume`, a resumed run
/// with a different config), I/O, the network, the search, the matches.
pub fn train(
    opts: &TrainOptions,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<RunSummary, Error> {
    let dir = RunDir::new(&opts.run_dir);
    match &opts.config {
        AnyConfig::Network(config) => {
            let mut run = crate::run::TrainingRun::open_with(
                config,
                &dir,
                opts.resume,
                progress,
                &crate::run::WindowSource::SelfPlay,
            )?;
            drive(&mut run, None, stop, progress)
        }
        AnyConfig::Nnue(config) => {
            crate::nnue::drive_nnue(config, &dir, opts.resume, None, stop, progress)
        }
    }
}

/// How `dama learner` runs a distributed run.
#[derive(Clone, Debug)]
pub struct LearnerOptions {
    /// The run (config, the learner's run directory, resume).
    pub train: TrainOptions,
    /// The store workers write to; `None`: the run directory itself.
    pub store: Option<String>,
}

/// Runs (or resumes) a distributed run's learner until `run.generations`
/// are done or `stop` is set: the run's stages with an ingest stage (the
/// chunks workers upload) in place of self-play (see
/// [`crate::distributed`]).
///
/// # Errors
/// As [`train`], and the store's errors.
pub fn learn(
    opts: &LearnerOptions,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<RunSummary, Error> {
    let dir = RunDir::new(&opts.train.run_dir);
    let store: Box<dyn Store> = match &opts.store {
        Some(url) => dama_run::open_store(url).map_err(store_err)?,
        None => Box::new(LocalStore::new(dir.root())),
    };
    match &opts.train.config {
        AnyConfig::Network(config) => {
            let reader = |g: u32| crate::distributed::ledger_games(store.as_ref(), &dir, g);
            let mut run = crate::run::TrainingRun::open_with(
                config,
                &dir,
                opts.train.resume,
                progress,
                &crate::run::WindowSource::Ledger(&reader),
            )?;
            let mut learner = Learner::open(store.as_ref(), &dir, run.files().state.generation)?;
            drive(&mut run, Some(&mut learner), stop, progress)
        }
        AnyConfig::Nnue(config) => crate::nnue::drive_nnue(
            config,
            &dir,
            opts.train.resume,
            Some(store.as_ref()),
            stop,
            progress,
        ),
    }
}
