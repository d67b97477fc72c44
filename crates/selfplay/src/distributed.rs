//! Self-play on many machines feeding one learner (issue 18).
//!
//! The training loop's stages split into two roles that talk only through
//! the run directory, addressed by a URL ([`dama_run::store`]):
//!
//! - a **worker** ([`run_worker`]) is the self-play stage in a loop: read
//!   the model pointer (`models/latest.json`), load that network, play
//!   `[distributed] games_per_chunk` games, upload them as one chunk named
//!   by the worker's id, the network's generation and a sequence number,
//!   repeat; it stops when the pointer says the learner is done;
//! - the **learner** ([`crate::learn`]) is the one run driver
//!   ([`crate::driver::drive`]) with an ingest stage in place of self-play:
//!   it consumes new chunks until a generation's games
//!   are there (skipping those played by a network more than
//!   `[distributed] max_staleness` generations old), then trains,
//!   checkpoints, evaluates and gates as `dama train` does, writes the
//!   generation's ledger (the chunks it consumed) and `state.json`, and
//!   publishes the accepted network by rewriting the pointer.
//!
//! Chunks are written whole and published atomically, the pointer is
//! written after the network it names, and the ledger makes every chunk
//! consumed exactly once across restarts of the learner (`--resume`).
//!
//! A learned-evaluator run (`[run] kind = "nnue"`) is distributed the same
//! way ([`nnue`]): the worker loop and the learner's ingest, ledgers and
//! pointer are this module's, the learner's loop is the driver's; what a
//! worker plays (`ChunkPlayer`) and how the learner reads a chunk
//! (`Stages::read_chunk`) and trains differ.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dama_nn::device;
use dama_nn::{CpuFeatures, Network, NnEvaluator};
use dama_run::dist::{
    self, ChunkKind, ChunkName, ChunkUse, Ledger, LedgerEntry, ModelPointer, WorkerId, WorkerStatus,
};
use dama_run::files::{fnv1a64, write_atomic, MAX_TEXT_FILE};
use dama_run::store::{get_json, put_json};
use dama_run::{DeviceSpec, LearnerEvent, RunDir, Store, StoreError, WorkerEvent};

use crate::config::{DistributedConfig, RunConfig, TeacherConfig};
use crate::progress::{Progress, ProgressEvent, Stage};
use crate::record::{self, GameRecord};
use crate::run::open_tables;
use crate::selfplay::{self, EvalCache};
use crate::Error;

pub mod nnue;

/// The largest network file a worker downloads (1 GiB: a network of
/// 100 M parameters in fp32 is 400 MB).
const MAX_MODEL_FILE: u64 = 1 << 30;

pub(crate) fn store_err(e: StoreError) -> Error {
    Error::Run(dama_run::Error::Store(e))
}

/// Sleeps `secs` seconds, or less if `stop` is set.
fn nap(secs: f64, stop: &AtomicBool) {
    let until = Instant::now() + Duration::from_secs_f64(secs);
    while !stop.load(Ordering::SeqCst) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

/// How `dama worker` was asked to run.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The run's store URL.
    pub store: String,
    /// This worker's unique id (`host-pid-random`).
    pub worker: WorkerId,
    /// The host name, for the status file.
    pub host: String,
    /// Where networks downloaded from an object store are kept.
    pub cache_dir: PathBuf,
    /// Override `[distributed] games_per_chunk`.
    pub games_per_chunk: Option<usize>,
    /// Override `[distributed] poll_secs`.
    pub poll_secs: Option<f64>,
    /// Stop after this many chunks (`None`: when the learner is done).
    pub max_chunks: Option<u64>,
    /// Override `run.device`.
    pub device: Option<DeviceSpec>,
    /// Override `run.torch_threads` (0: one per core): the worker then runs
    /// one network call at a time on that many libtorch threads
    /// (`run.inference_threads = 1`), as when many workers share a machine.
    pub torch_threads: Option<usize>,
}

/// What a worker did.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkerSummary {
    /// Its totals.
    pub status: WorkerStatus,
    /// True when it stopped because the learner is done.
    pub learner_done: bool,
}

/// Reads `key`, waiting (every `poll` seconds) while it does not exist;
/// `None` when stopped first.
fn wait_for(
    store: &dyn Store,
    key: &str,
    max: u64,
    poll: f64,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Option<Vec<u8>>, Error> {
    let mut told = false;
    loop {
        match store.get(key, max) {
            Ok(bytes) => return Ok(Some(bytes)),
            Err(StoreError::NotFound { .. }) => {
                if !told {
                    progress.event(ProgressEvent::Note(&format!(
                        "waiting for the learner to write {key} in {}",
                        store.url()
                    )));
                    told = true;
                }
            }
            Err(e) => return Err(store_err(e)),
        }
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        nap(poll, stop);
    }
}

/// The pointer, or `None` when stopped while waiting for it.
fn read_pointer(
    store: &dyn Store,
    poll: f64,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<Option<ModelPointer>, Error> {
    let Some(bytes) = wait_for(
        store,
        dist::POINTER_KEY,
        MAX_TEXT_FILE,
        poll,
        stop,
        progress,
    )?
    else {
        return Ok(None);
    };
    let pointer: ModelPointer = serde_json::from_slice(&bytes).map_err(|e| {
        store_err(StoreError::Invalid {
            store: store.url().to_owned(),
            key: dist::POINTER_KEY.to_owned(),
            reason: format!("not a model pointer: {e}"),
        })
    })?;
    if pointer.version != ModelPointer::VERSION {
        return Err(store_err(StoreError::Invalid {
            store: store.url().to_owned(),
            key: dist::POINTER_KEY.to_owned(),
            reason: format!(
                "pointer format version {}, this build reads version {}",
                pointer.version,
                ModelPointer::VERSION
            ),
        }));
    }
    Ok(Some(pointer))
}

/// The first of generation `g`'s model `files` (key, largest size, where
/// to keep it) on this machine: in place for a directory store; for an
/// object store each is downloaded, in order, to its place.
fn fetch_files(
    store: &dyn Store,
    g: u32,
    files: &[(String, u64, PathBuf)],
) -> Result<PathBuf, Error> {
    let missing = |e: StoreError| {
        match e {
        StoreError::NotFound { store, key } => Error::Config(format!(
            "{store}: {} names generation {g}, but `{key}` does not exist (a run directory copied in part, or models removed?)",
            dist::POINTER_KEY
        )),
        e => store_err(e),
    }
    };
    let Some((first, _, _)) = files.first() else {
        return Err(Error::Config(format!("generation {g} has no model file")));
    };
    if let Some(path) = store.local_path(first) {
        if !path.exists() {
            return Err(missing(StoreError::NotFound {
                store: store.url().to_owned(),
                key: first.clone(),
            }));
        }
        return Ok(path);
    }
    let mut downloaded = Vec::new();
    for (key, max, _) in files {
        downloaded.push(store.get(key, *max).map_err(missing)?);
    }
    for ((_, _, path), bytes) in files.iter().zip(&downloaded) {
        write_atomic(path, bytes).map_err(|e| Error::io(path, e))?;
    }
    Ok(files[0].2.clone())
}

/// The weights file of generation `g` on this machine: in place for a
/// directory store, downloaded (weights, then sidecar) into `cache` for an
/// object store.
fn fetch_model(store: &dyn Store, g: u32, cache: &Path) -> Result<PathBuf, Error> {
    let path = RunDir::new(cache).model(g);
    fetch_files(
        store,
        g,
        &[
            (dist::model_key(g), MAX_MODEL_FILE, path.clone()),
            (
                dist::sidecar_key(g),
                MAX_TEXT_FILE,
                dama_run::sidecar_of(&path),
            ),
        ],
    )
}

/// The next sequence number of `worker`: after its chunks already in the
/// store (a worker restarted with the same id never overwrites a chunk).
fn next_sequence(store: &dyn Store, worker: &WorkerId) -> Result<u64, Error> {
    let mut next = 0;
    for key in store.list(dist::GAMES_PREFIX).map_err(store_err)? {
        if let Some(name) = ChunkName::parse(&key) {
            if name.worker == *worker {
                next = next.max(name.sequence + 1);
            }
        }
    }
    Ok(next)
}

fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// One chunk a worker is to play: the pointer it plays for, its sequence
/// number and its seed.
pub(crate) struct ChunkPlan<'a> {
    /// The worker.
    pub(crate) worker: &'a WorkerId,
    /// The pointer read before the chunk.
    pub(crate) pointer: &'a ModelPointer,
    /// The worker's sequence number of the chunk.
    pub(crate) sequence: u64,
    /// The seed of its games (the run's seed, the worker and the sequence).
    pub(crate) seed: u64,
}

impl ChunkPlan<'_> {
    /// The chunk's name, for a chunk of `kind`.
    pub(crate) fn name(&self, kind: ChunkKind) -> ChunkName {
        ChunkName {
            worker: self.worker.clone(),
            generation: self.pointer.generation,
            sequence: self.sequence,
            kind,
        }
    }
}

/// A chunk a worker played and uploaded.
pub(crate) struct Uploaded {
    /// Its name.
    pub(crate) name: ChunkName,
    /// Games in it.
    pub(crate) games: u64,
    /// Training samples in them.
    pub(crate) samples: u64,
    /// Seconds spent playing its games.
    pub(crate) play_seconds: f64,
}

/// The game-playing half of a worker: what differs between a network run
/// ([`NetworkPlayer`]) and a learned-evaluator run
/// ([`nnue::EvaluatorPlayer`]). [`run_worker`]'s loop around it reads the
/// pointer, numbers and seeds the chunks and keeps the status file.
pub(crate) trait ChunkPlayer {
    /// Makes generation `g`'s model (the one the pointer names) the one to
    /// play with.
    fn load(&mut self, store: &dyn Store, g: u32, progress: &dyn Progress) -> Result<(), Error>;

    /// Plays the chunk `plan` with the loaded model and uploads it
    /// atomically; `None` when `stop` was set first (nothing is uploaded).
    fn play(
        &mut self,
        store: &dyn Store,
        plan: &ChunkPlan<'_>,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<Uploaded>, Error>;
}

/// The player of a network run's worker: the pointer's network plays
/// self-play (or the alpha-beta engine teacher games, while the learner's
/// next generation is a teacher generation).
struct NetworkPlayer {
    cfg: RunConfig,
    device: dama_nn::device::Device,
    precision: dama_nn::Precision,
    pool: rayon::ThreadPool,
    tables: dama_game::AnyTables,
    /// The rules of teacher games (draughts'; the defaults for another
    /// game, which has none).
    draughts_rules: dama_engine::Rules,
    selfplay_cfg: crate::config::SelfplayConfig,
    cache_dir: PathBuf,
    net: Option<Network>,
    cache: EvalCache,
}

impl NetworkPlayer {
    /// The player of `cfg` (a worker's overrides applied).
    fn new(
        cfg: RunConfig,
        cache_dir: PathBuf,
        progress: &dyn Progress,
    ) -> Result<NetworkPlayer, Error> {
        let device = device::resolve(cfg.run.device).map_err(Error::Network)?;
        let precision = cfg
            .selfplay
            .precision
            .resolve(device, CpuFeatures::detect());
        device::set_torch_threads(device::or_cores(cfg.run.torch_threads));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(device::or_cores(cfg.run.threads))
            .build()
            .map_err(|e| Error::Config(format!("cannot start the search threads: {e}")))?;
        // Teacher games are draughts'; another game has none.
        let draughts_rules = cfg.rules.draughts().unwrap_or_default();
        let tables = open_tables(&cfg.selfplay.tablebase, &cfg.game_rules(), progress)?;
        let mut selfplay_cfg = cfg.selfplay.clone();
        selfplay_cfg.games_per_generation = cfg.distributed.games_per_chunk;
        Ok(NetworkPlayer {
            cache: EvalCache::new(cfg.selfplay.eval_cache_entries),
            cfg,
            device,
            precision,
            pool,
            tables,
            draughts_rules,
            selfplay_cfg,
            cache_dir,
            net: None,
        })
    }
}

impl ChunkPlayer for NetworkPlayer {
    fn load(&mut self, store: &dyn Store, g: u32, _: &dyn Progress) -> Result<(), Error> {
        let path = fetch_model(store, g, &self.cache_dir)?;
        let (network, _) = dama_nn::load_network_for(&path, self.device, &self.cfg.game_rules())
            .map_err(Error::Network)?;
        self.net = Some(network);
        self.cache.clear();
        Ok(())
    }

    fn play(
        &mut self,
        store: &dyn Store,
        plan: &ChunkPlan<'_>,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<Uploaded>, Error> {
        let Some(network) = self.net.as_ref() else {
            return Err(Error::Config(
                "invariant: a network is loaded before play".into(),
            ));
        };
        let cfg = &self.cfg;
        let selfplay_cfg = &self.selfplay_cfg;
        let g = plan.pointer.generation;
        let mut evaluator = NnEvaluator::with_lanes(
            network,
            self.device,
            self.precision,
            device::or_cores(cfg.run.inference_threads),
        )
        .map_err(Error::Network)?;
        progress.event(ProgressEvent::StageStarted {
            generation: g,
            stage: Stage::Selfplay,
            total: selfplay_cfg.games_per_generation as u64,
            opponent: None,
        });
        let play_start = Instant::now();
        // While the learner's next generation is a teacher generation, the
        // alpha-beta engine plays the chunk (as `dama train` does).
        let result = if plan.pointer.learner_generation < cfg.teacher.generations {
            let teacher = TeacherConfig {
                games: selfplay_cfg.games_per_generation,
                ..cfg.teacher.clone()
            };
            let job = crate::teacher::TeacherJob {
                teacher: &teacher,
                selfplay: selfplay_cfg,
                rules: self.draughts_rules,
                generation: g,
                seed: plan.seed,
                tablebase: self.tables.get::<dama_draughts::Draughts>(),
            };
            self.pool.install(|| {
                crate::teacher::play_games(
                    &job,
                    |_, s| {
                        progress.event(ProgressEvent::SelfplayGame { stats: s });
                        Ok(())
                    },
                    || stop.load(Ordering::SeqCst),
                )
            })
        } else {
            let on_game = |_: &crate::record::GameRecord, s: &crate::selfplay::SelfplayStats| {
                progress.event(ProgressEvent::SelfplayGame { stats: s });
                Ok(())
            };
            let stopped = || stop.load(Ordering::SeqCst);
            let run = selfplay::RunGames {
                selfplay: selfplay_cfg,
                search: &cfg.search,
                rules: cfg.game_rules(),
                tables: self.tables.clone(),
                generation: g,
                seed: plan.seed,
                net: &mut evaluator,
                cache: &mut self.cache,
                on_game,
                stop: stopped,
            };
            self.pool.install(|| selfplay::play_run_games(run))
        };
        progress.event(ProgressEvent::StageFinished {
            stage: Stage::Selfplay,
        });
        let (mut games, sp) = result?;
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let play_seconds = play_start.elapsed().as_secs_f64();
        let name = plan.name(ChunkKind::Games);
        // Ids unique in the run: the chunk's name and the game's index.
        for (i, game) in games.iter_mut().enumerate() {
            game.game_id = fnv1a64(format!("{}/{i}", name.file_name()).as_bytes());
        }
        let bytes = record::encode_chunk(&games).map_err(|reason| Error::BadFile {
            path: PathBuf::from(name.key()),
            reason,
        })?;
        store.put_atomic(&name.key(), &bytes).map_err(store_err)?;
        Ok(Some(Uploaded {
            name,
            games: games.len() as u64,
            samples: sp.samples as u64,
            play_seconds,
        }))
    }
}

/// Runs a self-play worker until the learner is done, `max_chunks` chunks
/// are uploaded, or `stop` is set (the unfinished chunk is then lost: at
/// most `games_per_chunk` games). The run's config in the store says what
/// it plays: a network run's games, or a learned-evaluator run's
/// (`[run] kind = "nnue"`) alpha-beta games and their samples.
///
/// # Errors
/// A bad store URL or an unreachable store, a config or pointer that does
/// not parse, a pointer to a missing network, the network, the search.
pub fn run_worker(
    opts: &WorkerOptions,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<WorkerSummary, Error> {
    let store = dama_run::open_store(&opts.store).map_err(store_err)?;
    let store = store.as_ref();
    // An unreachable store is an error now, not a wait for ever.
    store.list(dist::GAMES_PREFIX).map_err(store_err)?;
    let poll = opts.poll_secs.unwrap_or(1.0);
    let Some(text) = wait_for(store, dist::CONFIG_KEY, MAX_TEXT_FILE, poll, stop, progress)? else {
        return Ok(WorkerSummary {
            status: WorkerStatus::default(),
            learner_done: false,
        });
    };
    let config_path = || PathBuf::from(format!("{}/{}", store.url(), dist::CONFIG_KEY));
    let text = String::from_utf8(text).map_err(|_| Error::BadFile {
        path: config_path(),
        reason: "not UTF-8 text".into(),
    })?;
    let kind = crate::RunKind::of_text(&text).map_err(|e| Error::BadFile {
        path: config_path(),
        reason: e.to_string(),
    })?;
    if kind == crate::RunKind::Nnue {
        let (mut player, distributed, seed) =
            nnue::evaluator_player(&text, &config_path(), opts, progress)?;
        return worker_loop(
            store,
            opts,
            &distributed,
            seed,
            player.as_mut(),
            stop,
            progress,
        );
    }
    let mut cfg = RunConfig::parse(&text).map_err(|e| Error::BadFile {
        path: config_path(),
        reason: e.to_string(),
    })?;
    if let Some(n) = opts.games_per_chunk {
        cfg.distributed.games_per_chunk = n;
    }
    if let Some(p) = opts.poll_secs {
        cfg.distributed.poll_secs = p;
    }
    if let Some(d) = opts.device {
        cfg.run.device = d;
    }
    if let Some(t) = opts.torch_threads {
        cfg.run.torch_threads = t;
        cfg.run.inference_threads = 1;
    }
    cfg.validate()?;
    let distributed = cfg.distributed.clone();
    let seed = cfg.run.seed;
    let mut player = NetworkPlayer::new(cfg, opts.cache_dir.clone(), progress)?;
    worker_loop(store, opts, &distributed, seed, &mut player, stop, progress)
}

/// The loop of [`run_worker`] around a [`ChunkPlayer`]: read the pointer,
/// load its model when it changed, play and upload a chunk, update the
/// status file, until the learner is done, `max_chunks` or `stop`.
fn worker_loop(
    store: &dyn Store,
    opts: &WorkerOptions,
    distributed: &DistributedConfig,
    run_seed: u64,
    player: &mut dyn ChunkPlayer,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<WorkerSummary, Error> {
    let poll = distributed.poll_secs;
    let started = Instant::now();
    let mut status = WorkerStatus {
        version: 1,
        worker: opts.worker.to_string(),
        host: opts.host.clone(),
        pid: std::process::id(),
        ..WorkerStatus::default()
    };
    let mut sequence = next_sequence(store, &opts.worker)?;
    let mut loaded: Option<u32> = None;
    let mut learner_done = false;
    loop {
        if stop.load(Ordering::SeqCst) || opts.max_chunks.is_some_and(|m| status.chunks >= m) {
            break;
        }
        let Some(pointer) = read_pointer(store, poll, stop, progress)? else {
            break;
        };
        if pointer.done {
            learner_done = true;
            break;
        }
        let g = pointer.generation;
        if loaded != Some(g) {
            player.load(store, g, progress)?;
            loaded = Some(g);
            progress.event(ProgressEvent::Note(&format!(
                "worker {}: playing with generation {g}",
                opts.worker
            )));
        }
        if sequence > dist::MAX_SEQUENCE {
            return Err(Error::Config(format!(
                "worker {} has written {} chunks, the most one id may write: start it with a new id",
                opts.worker,
                dist::MAX_SEQUENCE + 1
            )));
        }
        let plan = ChunkPlan {
            worker: &opts.worker,
            pointer: &pointer,
            sequence,
            seed: run_seed
                ^ fnv1a64(opts.worker.as_str().as_bytes())
                ^ sequence.wrapping_mul(0x94D0_49BB_1331_11EB),
        };
        let Some(chunk) = player.play(store, &plan, stop, progress)? else {
            break;
        };
        status.play_seconds += chunk.play_seconds;
        sequence += 1;
        status.model_generation = g;
        status.chunks += 1;
        status.games += chunk.games;
        status.samples += chunk.samples;
        status.seconds = started.elapsed().as_secs_f64();
        status.games_per_hour = status.games as f64 * 3600.0 / status.seconds.max(1e-9);
        status.updated_unix = unix_now();
        put_json(store, &dist::status_key(&opts.worker), &status).map_err(store_err)?;
        progress.event(ProgressEvent::ChunkUploaded {
            chunk: &chunk.name.file_name(),
            status: &status,
        });
    }
    Ok(WorkerSummary {
        status,
        learner_done,
    })
}

/// What a learner reads from one chunk: its items (game records or
/// samples), with its games and training samples counted.
pub(crate) struct ChunkData<T> {
    pub(crate) items: Vec<T>,
    pub(crate) games: u64,
    pub(crate) samples: u64,
}

/// What reading a chunk gives: its data, or why it is unusable (the chunk
/// is then skipped, with a warning naming it); an error of the store stops
/// the learner.
pub(crate) type ChunkRead<T> = Result<Result<ChunkData<T>, String>, Error>;

/// What one generation's ingest stage consumed: the items of the chunks it
/// used, in the order they entered the window.
pub(crate) struct Ingest<T> {
    pub(crate) items: Vec<T>,
    pub(crate) ledger: Vec<LedgerEntry>,
    pub(crate) learner: LearnerEvent,
    pub(crate) workers: Vec<WorkerEvent>,
    /// Seconds since the previous generation's ingest: the time over which
    /// the games arrived.
    pub(crate) window_seconds: f64,
}

/// The learner's view of the store.
pub(crate) struct Learner<'a> {
    store: &'a dyn Store,
    /// Whether the store is another place than the run directory (network
    /// files must be uploaded before the pointer names them).
    remote: bool,
    dir: RunDir,
    /// Chunks consumed by finished generations or queued for this one.
    seen: HashSet<String>,
    /// Chunks listed but not yet consumed, in the order they were found.
    queue: VecDeque<ChunkName>,
    /// When the previous ingest ended (rates are over the time since);
    /// `None` before the session's first (chunks that waited for a
    /// restarted learner arrived over an unknown time).
    last_ingest: Option<Instant>,
}

/// `learner/gen-NNNN.json` of the run directory `dir`.
fn ledger_path(dir: &RunDir, g: u32) -> PathBuf {
    dir.root().join(dist::ledger_key(g))
}

/// Reads generation `g`'s ledger.
fn read_ledger(dir: &RunDir, g: u32) -> Result<Ledger, Error> {
    let path = ledger_path(dir, g);
    let text =
        dama_run::files::read_bounded_string(&path, 64 << 20).map_err(|e| Error::io(&path, e))?;
    let ledger: Ledger = serde_json::from_str(&text).map_err(|e| Error::BadFile {
        path: path.clone(),
        reason: format!("not a ledger: {e}"),
    })?;
    if ledger.version != Ledger::VERSION || ledger.generation != g {
        return Err(Error::BadFile {
            path,
            reason: format!(
                "ledger of version {} for generation {}, expected version {} for generation {g}",
                ledger.version,
                ledger.generation,
                Ledger::VERSION
            ),
        });
    }
    Ok(ledger)
}

/// The games of a chunk, or why it is unusable.
pub(crate) fn read_chunk(
    store: &dyn Store,
    key: &str,
) -> Result<Result<Vec<GameRecord>, String>, Error> {
    match store.get(key, record::MAX_CHUNK_FILE) {
        Ok(bytes) => Ok(record::decode_chunk(&bytes)),
        Err(StoreError::Invalid { reason, .. }) => Ok(Err(reason)),
        Err(e) => Err(store_err(e)),
    }
}

/// The games a finished generation used, as its ledger lists them.
pub(crate) fn ledger_games(
    store: &dyn Store,
    dir: &RunDir,
    g: u32,
) -> Result<Vec<GameRecord>, Error> {
    let mut games = Vec::new();
    for entry in read_ledger(dir, g)?.chunks {
        if entry.usage != ChunkUse::Used {
            continue;
        }
        let key = format!("{}{}", dist::GAMES_PREFIX, entry.chunk);
        match read_chunk(store, &key)? {
            Ok(g) => games.extend(g),
            Err(reason) => {
                return Err(Error::BadFile {
                    path: PathBuf::from(format!("{}/{key}", store.url())),
                    reason,
                })
            }
        }
    }
    Ok(games)
}

impl<'a> Learner<'a> {
    /// The learner of the run in `dir` on `store`, whose last finished
    /// generation is `finished`: every chunk the finished generations'
    /// ledgers name is consumed; the ledgers of an unfinished attempt are
    /// removed (its chunks are consumed again). A store elsewhere than the
    /// run directory gets the run's config.
    ///
    /// # Errors
    /// Unreadable ledgers or config, the store.
    pub(crate) fn open(
        store: &'a dyn Store,
        dir: &RunDir,
        finished: u32,
    ) -> Result<Learner<'a>, Error> {
        // Whether the store is another place than the run directory: then
        // the network files are uploaded before the pointer names them.
        let remote = match store.local_path(dist::POINTER_KEY) {
            None => true,
            Some(p) => {
                let there = p.parent().and_then(|m| std::fs::canonicalize(m).ok());
                there.is_none() || there != std::fs::canonicalize(dir.models()).ok()
            }
        };
        let mut learner = Learner {
            store,
            remote,
            dir: dir.clone(),
            seen: HashSet::new(),
            queue: VecDeque::new(),
            last_ingest: None,
        };
        for g in 1..=finished {
            for entry in read_ledger(dir, g)?.chunks {
                learner.seen.insert(entry.chunk);
            }
        }
        for g in finished + 1.. {
            let path = ledger_path(dir, g);
            if !path.exists() {
                break;
            }
            std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
        }
        if remote {
            let config = dir.config();
            let bytes = dama_run::files::read_bounded(&config, MAX_TEXT_FILE)
                .map_err(|e| Error::io(&config, e))?;
            store
                .put_atomic(dist::CONFIG_KEY, &bytes)
                .map_err(store_err)?;
        }
        Ok(learner)
    }

    /// Publishes generation `best`'s model: its `files` (local path, key;
    /// uploaded to a remote store), then the pointer.
    pub(crate) fn publish(
        &self,
        files: &[(PathBuf, String)],
        best: u32,
        learner_generation: u32,
        done: bool,
    ) -> Result<(), Error> {
        if self.remote {
            for (path, key) in files {
                let bytes = dama_run::files::read_bounded(path, MAX_MODEL_FILE)
                    .map_err(|e| Error::io(path, e))?;
                self.store.put_atomic(key, &bytes).map_err(store_err)?;
            }
        }
        let pointer = ModelPointer {
            version: ModelPointer::VERSION,
            generation: best,
            learner_generation,
            done,
        };
        put_json(self.store, dist::POINTER_KEY, &pointer).map_err(store_err)
    }

    /// Writes generation `gen`'s ledger (before its `state.json`).
    pub(crate) fn write_ledger(&self, gen: u32, chunks: Vec<LedgerEntry>) -> Result<(), Error> {
        let ledger = Ledger {
            version: Ledger::VERSION,
            generation: gen,
            chunks,
        };
        let path = ledger_path(&self.dir, gen);
        let text = serde_json::to_vec_pretty(&ledger)
            .map_err(|e| Error::Corrupt(format!("cannot encode the ledger: {e}")))?;
        write_atomic(&path, &text).map_err(|e| Error::io(&path, e))
    }

    /// Consumes new chunks until `target` games entered the window (or
    /// `stop`): the ingest stage of generation `gen`, whose published
    /// network is `published`. `read` reads a chunk: its items, or why it
    /// is unusable (the chunk is then skipped with a warning naming it).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ingest<T>(
        &mut self,
        gen: u32,
        target: u64,
        published: u32,
        max_staleness: u32,
        poll: f64,
        stop: &AtomicBool,
        progress: &dyn Progress,
        read: &mut dyn FnMut(&dyn Store, &ChunkName) -> ChunkRead<T>,
    ) -> Result<Option<Ingest<T>>, Error> {
        let start = Instant::now();
        let mut items = Vec::new();
        let mut ledger = Vec::new();
        let mut ev = LearnerEvent {
            generation: gen,
            max_staleness,
            ..LearnerEvent::default()
        };
        let mut per_worker: BTreeMap<String, WorkerEvent> = BTreeMap::new();
        let mut staleness_sum = 0u64;
        let mut consumed_games = 0u64;
        let mut stale_by_age = 0u64;
        let mut read_time = Duration::ZERO;
        progress.event(ProgressEvent::StageStarted {
            generation: gen,
            stage: Stage::Ingest,
            total: target,
            opponent: None,
        });
        let mut waiting_told = false;
        let done = loop {
            let mut found = Vec::new();
            for key in self.store.list(dist::GAMES_PREFIX).map_err(store_err)? {
                if let Some(name) = ChunkName::parse(&key) {
                    if self.seen.insert(name.file_name()) {
                        found.push(name);
                    }
                }
            }
            found.sort_by(|a, b| (a.sequence, &a.worker).cmp(&(b.sequence, &b.worker)));
            self.queue.extend(found);
            // Every chunk found is consumed: workers faster than the
            // learner make bigger generations, not a backlog of ever
            // staler games.
            while let Some(name) = self.queue.pop_front() {
                let t = Instant::now();
                let key = name.key();
                let age = published.saturating_sub(name.generation);
                let (usage, n) = match read(self.store, &name)? {
                    Err(reason) => {
                        progress.event(ProgressEvent::Warning(&format!(
                            "skipping chunk {}/{key}: {reason}",
                            self.store.url()
                        )));
                        ev.bad_chunks += 1;
                        (ChunkUse::Bad, 0)
                    }
                    Ok(chunk) => {
                        let n = chunk.games;
                        consumed_games += n;
                        if age > 0 {
                            stale_by_age += n;
                        }
                        if age > max_staleness {
                            ev.stale_chunks += 1;
                            ev.stale_games += n;
                            (ChunkUse::Stale, n)
                        } else {
                            ev.games += n;
                            ev.samples += chunk.samples;
                            staleness_sum += n * u64::from(age);
                            items.extend(chunk.items);
                            (ChunkUse::Used, n)
                        }
                    }
                };
                read_time += t.elapsed();
                ev.chunks += 1;
                let w = per_worker
                    .entry(name.worker.to_string())
                    .or_insert_with(|| WorkerEvent {
                        generation: gen,
                        worker: name.worker.to_string(),
                        ..WorkerEvent::default()
                    });
                w.chunks += 1;
                w.games += n;
                w.model_generation = w.model_generation.max(name.generation);
                ledger.push(LedgerEntry {
                    chunk: name.file_name(),
                    games: n,
                    usage,
                });
                progress.event(ProgressEvent::Ingested {
                    games: ev.games,
                    chunks: ev.chunks,
                });
            }
            if ev.games >= target {
                break true;
            }
            if stop.load(Ordering::SeqCst) {
                break false;
            }
            if !waiting_told && ev.games == 0 {
                progress.event(ProgressEvent::Note(&format!(
                    "generation {gen}: waiting for workers' chunks in {}",
                    self.store.url()
                )));
                waiting_told = true;
            }
            nap(poll, stop);
        };
        progress.event(ProgressEvent::StageFinished {
            stage: Stage::Ingest,
        });
        if !done {
            return Ok(None);
        }
        let now = Instant::now();
        // Rates over the time since the previous ingest; not a number for
        // the session's first.
        let window = self
            .last_ingest
            .map_or(f64::NAN, |t| now.duration_since(t).as_secs_f64().max(1e-9));
        self.last_ingest = Some(now);
        ev.ingest_seconds = start.elapsed().as_secs_f64();
        ev.read_seconds = read_time.as_secs_f64();
        ev.seconds_per_chunk = ev.read_seconds / (ev.chunks.max(1) as f64);
        ev.stale_share = stale_by_age as f64 / consumed_games.max(1) as f64;
        ev.mean_staleness = staleness_sum as f64 / ev.games.max(1) as f64;
        ev.workers = per_worker.len() as u64;
        ev.games_per_hour = (ev.games + ev.stale_games) as f64 * 3600.0 / window;
        let mut workers: Vec<WorkerEvent> = per_worker.into_values().collect();
        for w in &mut workers {
            w.games_per_hour = w.games as f64 * 3600.0 / window;
            w.reported_games_per_hour = match w.worker.parse::<WorkerId>() {
                Ok(id) => get_json::<WorkerStatus>(self.store, &dist::status_key(&id))
                    .map_or(f64::NAN, |s| s.games_per_hour),
                Err(_) => f64::NAN,
            };
        }
        Ok(Some(Ingest {
            items,
            ledger,
            learner: ev,
            workers,
            window_seconds: window,
        }))
    }
}
