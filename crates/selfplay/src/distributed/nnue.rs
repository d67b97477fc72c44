//! A learned-evaluator run (`[run] kind = "nnue"`, [`crate::nnue`]) on many
//! machines: the same two roles, store, pointer, ledgers and status files
//! as a network run's (the parent module), with the alpha-beta engine's
//! games in place of the network's.
//!
//! - A **worker** (`EvaluatorPlayer`, run by [`super::run_worker`] when
//!   the store's config is a learned-evaluator run's) reads the pointer,
//!   loads the evaluation it names (generation 0: the handcrafted one,
//!   which has no file; a later one: `models/gen-NNNN.nnue`, whose
//!   checksum and rules are checked as it loads), plays
//!   `[distributed] games_per_chunk` games with the run's `[selfplay]`
//!   settings from random openings seeded by the run, the worker and the
//!   chunk's sequence, and uploads their samples as one sample file
//!   (`games/w-<worker>-g<MMMM>-<SSSSSS>-n<games>.samples`).
//! - The **learner** ([`learn_nnue`]) is [`NnueRun`]'s stages with an
//!   ingest stage in place of self-play: it consumes new chunks until
//!   `selfplay.games_per_generation` games are in (skipping those played
//!   with an evaluator more than `[distributed] max_staleness` generations
//!   older than the best, and unreadable ones, with a warning naming
//!   them), writes them as the generation's `games/gen-NNNN.samples`, then
//!   trains, gates and evaluates as `dama train` does, writes the ledger
//!   and `state.json`, and publishes the best evaluator (its file first,
//!   then the pointer).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use dama_eval::random_openings;
use dama_nnue::{decode_samples, encode_samples, samples_file_bound, LearnedGame, Sample};
use dama_registry::WithLearnedGame;
use dama_run::dist::{self, ChunkKind, ChunkName};
use dama_run::metrics::SelfplayEvent;
use dama_run::{LocalStore, MetricsEvent, RunDir, Store, StoreError};

use super::{
    fetch_files, store_err, ChunkData, ChunkPlan, ChunkPlayer, ChunkRead, Learner, Uploaded,
    WorkerOptions,
};
use crate::config::{DistributedConfig, MAX_GAMES_PER_CHUNK};
use crate::nnue::{
    play_openings, NnueConfig, NnueProgress, NnueRun, NnueRunOptions, NnueSummary,
    MAX_EVALUATOR_FILE,
};
use crate::progress::{Progress, ProgressEvent, Stage};
use crate::selfplay::SelfplayStats;
use crate::Error;

/// How `dama learner` runs a learned-evaluator run.
#[derive(Clone, Debug)]
pub struct NnueLearnerOptions {
    /// The run's config.
    pub config: NnueConfig,
    /// The learner's run directory (state, networks, samples, metrics).
    pub run_dir: PathBuf,
    /// Continue the run there (its `config.toml` must match `config` but
    /// for `run.generations` and `[distributed]`).
    pub resume: bool,
    /// The store workers write to; `None`: the run directory itself.
    pub store: Option<String>,
}

/// Forwards the shared stages' events (ingest, notes, warnings) to a
/// learned-evaluator run's progress.
struct Forward<'a>(&'a (dyn Fn(NnueProgress) + Sync));

impl Progress for Forward<'_> {
    fn event(&self, event: ProgressEvent<'_>) {
        let report = self.0;
        match event {
            ProgressEvent::Note(n) => report(NnueProgress::Note(n.to_owned())),
            ProgressEvent::Warning(w) => report(NnueProgress::Warning(w.to_owned())),
            ProgressEvent::StageStarted {
                generation,
                stage: Stage::Ingest,
                total,
                ..
            } => report(NnueProgress::Stage {
                generation,
                stage: "ingest",
                total,
            }),
            ProgressEvent::Ingested { games, chunks } => report(NnueProgress::Tick {
                done: games,
                message: format!("from {chunks} chunks"),
            }),
            _ => {}
        }
    }
}

/// The message of a sample file's error, without the (local, perhaps
/// temporary) path that the warning's store key replaces.
fn samples_reason(path: &Path, e: &dama_nnue::Error) -> String {
    let text = e.to_string();
    match text.strip_prefix(&format!("{}: ", path.display())) {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}

/// Reads the samples chunk `name`: its samples, or why it is unusable.
fn read_samples_chunk<G: LearnedGame>(
    store: &dyn Store,
    name: &ChunkName,
    config: &NnueConfig,
    rules: &G::Rules,
) -> ChunkRead<Sample<G::Features>> {
    let ChunkKind::Samples { games } = name.kind else {
        return Ok(Err(
            "a network run's games, not a learned-evaluator run's samples".to_owned(),
        ));
    };
    if games == 0 || games as usize > MAX_GAMES_PER_CHUNK {
        return Ok(Err(format!(
            "its name counts {games} games, not 1..={MAX_GAMES_PER_CHUNK}"
        )));
    }
    // No game has more samples than plies.
    let max_samples = games as usize * config.selfplay.max_plies as usize;
    let key = name.key();
    let bytes = match store.get(&key, samples_file_bound::<G::Features>(max_samples)) {
        Ok(bytes) => bytes,
        Err(StoreError::Invalid { reason, .. }) => return Ok(Err(reason)),
        Err(e) => return Err(store_err(e)),
    };
    let path = Path::new(&key);
    match decode_samples::<G::Features>(path, &bytes, Some(rules), max_samples) {
        Ok((_, samples)) => Ok(Ok(ChunkData {
            games: u64::from(games),
            samples: samples.len() as u64,
            items: samples,
        })),
        Err(e) => Ok(Err(samples_reason(path, &e))),
    }
}

/// Runs (or resumes) a learned-evaluator run's learner until
/// `run.generations` are done or `stop` is set: [`NnueRun`]'s stages with
/// an ingest stage in place of self-play (see the module's documentation).
///
/// # Errors
/// As [`crate::nnue::run_nnue`], and the store's errors.
pub fn learn_nnue(
    opts: &NnueLearnerOptions,
    stop: &AtomicBool,
    progress: &(dyn Fn(NnueProgress) + Sync),
) -> Result<NnueSummary, Error> {
    struct Learn<'a> {
        opts: &'a NnueLearnerOptions,
        stop: &'a AtomicBool,
        progress: &'a (dyn Fn(NnueProgress) + Sync),
    }
    impl WithLearnedGame for Learn<'_> {
        type Output = Result<NnueSummary, Error>;
        fn run<G: LearnedGame>(self) -> Self::Output {
            learn_game::<G>(self.opts, self.stop, self.progress)
        }
    }
    opts.config.with_game(Learn {
        opts,
        stop,
        progress,
    })
}

/// [`learn_nnue`] for game `G`, the config's.
fn learn_game<G: LearnedGame>(
    opts: &NnueLearnerOptions,
    stop: &AtomicBool,
    progress: &(dyn Fn(NnueProgress) + Sync),
) -> Result<NnueSummary, Error> {
    let dir = RunDir::new(&opts.run_dir);
    let store: Box<dyn Store> = match &opts.store {
        Some(url) => dama_run::open_store(url).map_err(store_err)?,
        None => Box::new(LocalStore::new(dir.root())),
    };
    let mut run = NnueRun::<G>::open(
        &opts.config,
        &dir,
        NnueRunOptions {
            resume: opts.resume,
        },
    )?;
    let config = run.config().clone();
    let rules = config.rules_of::<G>()?;
    let generations = config.run.generations;
    let mut learner = Learner::open(store.as_ref(), &dir, run.state().generation)?;
    // Generation 0, the handcrafted evaluation, has no file (a network
    // the run starts from has).
    let starts_from_network = run.starts_from_network();
    let evaluator_files = |g: u32| {
        if g == 0 && !starts_from_network {
            Vec::new()
        } else {
            vec![(dir.evaluator(g), dist::evaluator_key(g))]
        }
    };
    let (best, finished) = (run.state().best_generation, run.state().generation);
    learner.publish(
        &evaluator_files(best),
        best,
        finished,
        finished >= generations,
    )?;
    let forward = Forward(progress);
    let mut read =
        |store: &dyn Store, name: &ChunkName| read_samples_chunk::<G>(store, name, &config, &rules);
    let stopped = || stop.load(Ordering::SeqCst);
    while run.state().generation < generations {
        if stopped() {
            return Ok(run.summary(true));
        }
        let gen = run.state().generation + 1;
        let gen_start = Instant::now();
        let Some(ingest) = learner.ingest(
            gen,
            u64::from(config.selfplay.games_per_generation),
            run.state().best_generation,
            config.distributed.max_staleness,
            config.distributed.poll_secs,
            stop,
            &forward,
            &mut read,
        )?
        else {
            return Ok(run.summary(true));
        };
        let t = Instant::now();
        // How fast the games arrived (the session's first generation: over
        // its ingest stage). Chunks record samples, not the games' ends, so
        // the line has no results or lengths.
        let window = if ingest.window_seconds.is_finite() {
            ingest.window_seconds
        } else {
            ingest.learner.ingest_seconds
        }
        .max(1e-9);
        let sp = SelfplayEvent {
            generation: gen,
            games: ingest.learner.games,
            samples: ingest.learner.samples,
            seconds: window,
            games_per_hour: ingest.learner.games as f64 * 3600.0 / window,
            positions_per_sec: ingest.learner.samples as f64 / window,
            ..SelfplayEvent::default()
        };
        run.add_samples(gen, &ingest.items, &sp)?;
        let mut learner_line = ingest.learner;
        learner_line.read_seconds += t.elapsed().as_secs_f64();
        learner_line.seconds_per_chunk =
            learner_line.read_seconds / (learner_line.chunks.max(1) as f64);
        if stopped() {
            return Ok(run.summary(true));
        }
        let trained = run.train(gen, &ingest.items, progress)?;
        learner_line.samples_per_sec =
            (trained.steps * config.train.batch_size) as f64 / trained.seconds.max(1e-9);
        if stopped() {
            // The network is written; the generation is not finished.
            return Ok(run.summary(true));
        }
        let accepted = run.gate(gen, &trained, progress)?;
        let evaluated = run.evaluate(gen, progress)?;
        run.write_metrics(&MetricsEvent::Learner(learner_line.clone()))?;
        for w in &ingest.workers {
            run.write_metrics(&MetricsEvent::Worker(w.clone()))?;
        }
        learner.write_ledger(gen, ingest.ledger)?;
        let line = run.commit(
            gen,
            &sp,
            &trained,
            accepted,
            evaluated.as_ref(),
            gen_start.elapsed().as_secs_f64(),
        )?;
        let best = run.state().best_generation;
        learner.publish(&evaluator_files(best), best, gen, gen >= generations)?;
        progress(NnueProgress::Learner {
            learner: learner_line,
            workers: ingest.workers,
        });
        progress(NnueProgress::Generation(line));
    }
    Ok(run.summary(false))
}

/// The player of a learned-evaluator run's worker: the alpha-beta engine
/// with the pointer's evaluation plays chunks of games, whose samples it
/// uploads as one sample file.
pub(crate) struct EvaluatorPlayer<G: LearnedGame> {
    config: NnueConfig,
    rules: G::Rules,
    games_per_chunk: usize,
    pool: rayon::ThreadPool,
    evaluation: G::Evaluation,
    cache_dir: PathBuf,
}

/// The player of the learned-evaluator run whose config is `text` (read
/// from `config_path`), for the run's game, with `opts`' overrides; with
/// the run's distributed settings and seed.
///
/// # Errors
/// As [`EvaluatorPlayer::new`], and a game whose engine learns no
/// evaluation.
pub(crate) fn evaluator_player(
    text: &str,
    config_path: &Path,
    opts: &WorkerOptions,
    progress: &dyn Progress,
) -> Result<(Box<dyn ChunkPlayer>, DistributedConfig, u64), Error> {
    struct New<'a> {
        text: &'a str,
        config_path: &'a Path,
        opts: &'a WorkerOptions,
        progress: &'a dyn Progress,
    }
    impl WithLearnedGame for New<'_> {
        type Output = Result<(Box<dyn ChunkPlayer>, DistributedConfig, u64), Error>;
        fn run<G: LearnedGame>(self) -> Self::Output {
            let (player, distributed, seed) =
                EvaluatorPlayer::<G>::new(self.text, self.config_path, self.opts, self.progress)?;
            Ok((Box::new(player), distributed, seed))
        }
    }
    let config: NnueConfig = toml::from_str(text).map_err(|e| Error::BadFile {
        path: config_path.to_path_buf(),
        reason: e.to_string(),
    })?;
    config.with_game(New {
        text,
        config_path,
        opts,
        progress,
    })
}

impl<G: LearnedGame> EvaluatorPlayer<G> {
    /// The player of the run whose config is `text` (read from
    /// `config_path`), with `opts`' overrides; with the run's distributed
    /// settings and seed.
    ///
    /// # Errors
    /// A config that does not parse (naming `config_path`), overrides out
    /// of bounds (naming the key), the threads cannot start.
    pub(crate) fn new(
        text: &str,
        config_path: &Path,
        opts: &WorkerOptions,
        progress: &dyn Progress,
    ) -> Result<(EvaluatorPlayer<G>, DistributedConfig, u64), Error> {
        let bad = |reason: String| Error::BadFile {
            path: config_path.to_path_buf(),
            reason,
        };
        let mut config: NnueConfig = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        config.validate().map_err(|e| bad(e.to_string()))?;
        if let Some(n) = opts.games_per_chunk {
            config.distributed.games_per_chunk = n;
        }
        if let Some(p) = opts.poll_secs {
            config.distributed.poll_secs = p;
        }
        // No network: the engine's games in parallel are this worker's
        // threads (`--torch-threads 1`: one worker per core).
        if let Some(t) = opts.torch_threads {
            config.run.threads = t;
        }
        if opts.device.is_some() {
            progress.event(ProgressEvent::Note(
                "a learned-evaluator run's worker plays on the CPU: --device is not used",
            ));
        }
        config.validate()?;
        let threads = dama_nn::device::or_cores(config.run.threads);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Config(format!("cannot start {threads} threads: {e}")))?;
        let distributed = config.distributed.clone();
        let seed = config.run.seed;
        let rules = config.rules_of::<G>()?;
        Ok((
            EvaluatorPlayer {
                games_per_chunk: distributed.games_per_chunk,
                config,
                rules,
                pool,
                evaluation: G::handcrafted(),
                cache_dir: opts.cache_dir.clone(),
            },
            distributed,
            seed,
        ))
    }

    /// Writes `samples` as the chunk `key`, atomically, as a sample file.
    fn upload(
        &self,
        store: &dyn Store,
        key: &str,
        samples: &[Sample<G::Features>],
    ) -> Result<(), Error> {
        let bytes = encode_samples(&self.rules, samples)?;
        store.put_atomic(key, &bytes).map_err(store_err)
    }
}

impl<G: LearnedGame> ChunkPlayer for EvaluatorPlayer<G> {
    fn load(&mut self, store: &dyn Store, g: u32, _: &dyn Progress) -> Result<(), Error> {
        self.evaluation = if g == 0 && self.config.train.init.start().is_none() {
            G::handcrafted()
        } else {
            let path = fetch_files(
                store,
                g,
                &[(
                    dist::evaluator_key(g),
                    MAX_EVALUATOR_FILE,
                    RunDir::new(&self.cache_dir).evaluator(g),
                )],
            )?;
            // Checks the file's checksum and that it is for the run's rules.
            G::load_evaluation(&path, &self.rules)?
        };
        Ok(())
    }

    fn play(
        &mut self,
        store: &dyn Store,
        plan: &ChunkPlan<'_>,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<Uploaded>, Error> {
        let g = plan.pointer.generation;
        let openings = random_openings::<G>(
            &self.rules,
            self.games_per_chunk,
            self.config.selfplay.random_opening_plies,
            plan.seed,
        );
        progress.event(ProgressEvent::StageStarted {
            generation: g,
            stage: Stage::Selfplay,
            total: openings.len() as u64,
            opponent: None,
        });
        let start = Instant::now();
        let on_game = |games: u64, samples: u64| {
            let stats = SelfplayStats {
                games: games as usize,
                samples: samples as usize,
                elapsed: start.elapsed(),
                ..SelfplayStats::default()
            };
            progress.event(ProgressEvent::SelfplayGame { stats: &stats });
        };
        let (samples, event) = play_openings(
            &self.config,
            g,
            &openings,
            &self.evaluation,
            &self.pool,
            &|| stop.load(Ordering::SeqCst),
            &on_game,
        );
        progress.event(ProgressEvent::StageFinished {
            stage: Stage::Selfplay,
        });
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let play_seconds = start.elapsed().as_secs_f64();
        let games = u32::try_from(event.games)
            .map_err(|_| Error::Config(format!("{} games in one chunk", event.games)))?;
        let name = plan.name(ChunkKind::Samples { games });
        self.upload(store, &name.key(), &samples)?;
        Ok(Some(Uploaded {
            name,
            games: event.games,
            samples: samples.len() as u64,
            play_seconds,
        }))
    }
}
