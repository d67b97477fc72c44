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
//! - The **learner** ([`crate::learn`]) is the one run driver over
//!   [`crate::nnue::NnueRun`]'s stages, with an ingest stage in place of
//!   self-play: it consumes new chunks until
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
use dama_run::{RunDir, Store, StoreError};

use super::{
    fetch_files, store_err, ChunkData, ChunkPlan, ChunkPlayer, ChunkRead, Uploaded, WorkerOptions,
};
use crate::config::{DistributedConfig, MAX_GAMES_PER_CHUNK};
use crate::nnue::{play_openings, NnueConfig, MAX_EVALUATOR_FILE};
use crate::progress::{Progress, ProgressEvent};
use crate::Error;

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
pub(crate) fn read_samples_chunk<G: LearnedGame>(
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
/// A config that does not parse or is invalid (naming `config_path`),
/// overrides out of bounds (naming the key), a game whose engine learns no
/// evaluation, the threads cannot start.
pub(crate) fn evaluator_player(
    text: &str,
    config_path: &Path,
    opts: &WorkerOptions,
    progress: &dyn Progress,
) -> Result<(Box<dyn ChunkPlayer>, DistributedConfig, u64), Error> {
    struct New<'a> {
        config: NnueConfig,
        opts: &'a WorkerOptions,
    }
    impl WithLearnedGame for New<'_> {
        type Output = Result<(Box<dyn ChunkPlayer>, DistributedConfig, u64), Error>;
        fn run<G: LearnedGame>(self) -> Self::Output {
            let (player, distributed, seed) = EvaluatorPlayer::<G>::new(self.config, self.opts)?;
            Ok((Box::new(player), distributed, seed))
        }
    }
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
    // No network: the engine's games in parallel are this worker's threads
    // (`--torch-threads 1`: one worker per core).
    if let Some(t) = opts.torch_threads {
        config.run.threads = t;
    }
    if opts.device.is_some() {
        progress.event(ProgressEvent::Note(
            "a learned-evaluator run's worker plays on the CPU: --device is not used",
        ));
    }
    config.validate()?;
    config.clone().with_game(New { config, opts })
}

impl<G: LearnedGame> EvaluatorPlayer<G> {
    /// The player of the run whose config (with the worker's overrides) is
    /// `config`; with the run's distributed settings and seed.
    ///
    /// # Errors
    /// Rules of another game, the threads cannot start.
    fn new(
        config: NnueConfig,
        opts: &WorkerOptions,
    ) -> Result<(EvaluatorPlayer<G>, DistributedConfig, u64), Error> {
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
        let start = Instant::now();
        let (samples, event) = play_openings(
            &self.config,
            g,
            &openings,
            &self.evaluation,
            &self.pool,
            &|| stop.load(Ordering::SeqCst),
            progress,
        );
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
