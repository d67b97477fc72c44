//! A training run: generations of self-play → training → checkpoint →
//! evaluation, with metrics, progress bars and exact resume.
//!
//! The run directory is the only state: `state.json` names the last
//! finished generation and is written last (atomically), so a run stopped at
//! any moment resumes from the last finished generation, and the files of an
//! unfinished one are overwritten by the same deterministic work.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dama_engine::Rules;
use dama_nn::device::{self, Device};
use dama_nn::encode::{self, NUM_PLANES, PLANES_LEN, POLICY_SIZE};
use dama_nn::{Batch, BatchBuilder, CpuFeatures, Network, NnEvaluator, Precision, Trainer};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::buffer::{ReplayBuffer, WindowLimits};
use crate::config::RunConfig;
use crate::metrics::{self, MetricsWriter};
use crate::record::{self, GameRecord, Sample};
use crate::selfplay::{self, EvalCache, SelfplayJob, SelfplayStats};
use crate::Error;

/// Games per chunk file.
const CHUNK_GAMES: usize = 64;
/// A training metrics line every this many steps (and the last step).
const TRAIN_LOG_EVERY: u64 = 10;

/// The files of a run directory.
#[derive(Clone, Debug)]
pub struct RunPaths {
    root: PathBuf,
}

impl RunPaths {
    /// The run at `root` (`checkpoints/<run>`).
    pub fn new(root: impl Into<PathBuf>) -> RunPaths {
        RunPaths { root: root.into() }
    }
    /// The run directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The frozen, resolved config.
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    /// The metrics file.
    pub fn metrics(&self) -> PathBuf {
        self.root.join("metrics.jsonl")
    }
    /// Where the run stands.
    pub fn state(&self) -> PathBuf {
        self.root.join("state.json")
    }
    /// The checkpoint (weights) of a generation.
    pub fn model(&self, generation: u32) -> PathBuf {
        self.root
            .join("models")
            .join(format!("gen-{generation:04}.safetensors"))
    }
    /// The directory of game chunks.
    pub fn games(&self) -> PathBuf {
        self.root.join("games")
    }
    /// A chunk file of a generation.
    pub fn chunk(&self, generation: u32, index: usize) -> PathBuf {
        self.games()
            .join(format!("gen-{generation:04}-{index:03}.games"))
    }
    /// The evaluation results directory.
    pub fn eval(&self) -> PathBuf {
        self.root.join("eval")
    }
    /// The lock file: locked by the trainer that owns the run, holding its
    /// process id.
    pub fn lock(&self) -> PathBuf {
        self.root.join("lock")
    }
}

/// An exclusive OS lock on a run directory, held while the value lives.
///
/// The lock is `flock`-style on the file `lock` in the run directory, so
/// the operating system releases it when the process ends, however it ends
/// (a crash or `kill -9` leaves no stale lock). The file holds the process
/// id of the holder, for the error message of the next trainer.
#[derive(Debug)]
pub struct RunLock {
    _file: std::fs::File,
}

impl RunLock {
    /// Locks the run directory `paths.root()`, creating it if needed.
    ///
    /// # Errors
    /// [`Error::Locked`] when another process holds the lock, naming its
    /// process id; I/O errors naming the file.
    pub fn acquire(paths: &RunPaths) -> Result<RunLock, Error> {
        use std::io::{Read, Seek, Write};
        std::fs::create_dir_all(paths.root()).map_err(|e| Error::io(paths.root(), e))?;
        let path = paths.lock();
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(Error::Locked {
                    dir: paths.root().to_path_buf(),
                    holder: if holder.is_empty() {
                        "a process that has not written its id yet".into()
                    } else {
                        format!("process {holder}")
                    },
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
        }
        (|| {
            file.set_len(0)?;
            file.seek(std::io::SeekFrom::Start(0))?;
            writeln!(file, "{}", std::process::id())?;
            file.sync_all()
        })()
        .map_err(|e| Error::io(&path, e))?;
        Ok(RunLock { _file: file })
    }
}

/// Removes the temporary files (`*.tmp`) a killed writer left in the run
/// directory and its subdirectories. Only the lock holder may call it.
fn remove_stale_temp_files(paths: &RunPaths) -> Result<(), Error> {
    for dir in [
        paths.root().to_path_buf(),
        paths.root().join("models"),
        paths.games(),
        paths.eval(),
    ] {
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

/// Removes the chunk files of `generation` (left by an unfinished attempt
/// at it, which the same deterministic work is about to redo).
fn remove_chunks_of(paths: &RunPaths, generation: u32) -> Result<(), Error> {
    let prefix = format!("gen-{generation:04}-");
    for chunk in record::list_chunks(&paths.games())? {
        if chunk
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        {
            std::fs::remove_file(&chunk).map_err(|e| Error::io(&chunk, e))?;
        }
    }
    Ok(())
}

/// The games of `generation` from its chunk files, in game-id order: the
/// order self-play hands them to the replay buffer, whatever order they
/// finished (and were written) in.
fn games_of(paths: &RunPaths, generation: u32) -> Result<Vec<GameRecord>, Error> {
    let prefix = format!("gen-{generation:04}-");
    let mut games = Vec::new();
    for chunk in record::list_chunks(&paths.games())? {
        if chunk
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        {
            games.extend(record::read_chunk(&chunk)?);
        }
    }
    games.sort_by_key(|g| g.game_id);
    Ok(games)
}

/// Where a run stands (`state.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunState {
    /// Format version of this file.
    pub version: u32,
    /// The last finished generation (0: only the initial network exists).
    pub generation: u32,
    /// Training steps taken.
    pub step: u64,
    /// The generation whose network plays self-play (differs from
    /// `generation` when gating rejected newer networks).
    pub best_generation: u32,
    /// Wall time spent in the run, over all sessions, in seconds.
    pub elapsed_secs: f64,
}

impl RunState {
    fn load(path: &Path) -> Result<RunState, Error> {
        let text = dama_nn::files::read_bounded_string(path, dama_nn::files::MAX_TEXT_FILE)
            .map_err(|e| Error::io(path, e))?;
        serde_json::from_str(&text).map_err(|e| Error::BadFile {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    }

    fn save(&self, path: &Path) -> Result<(), Error> {
        let text = serde_json::to_string_pretty(self).map_err(|e| Error::Corrupt(e.to_string()))?;
        record::write_atomic(path, text.as_bytes())
    }
}

/// How `train` was asked to run.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The config (for a resumed run: the one given on the command line,
    /// which must agree with the frozen one except for `run.generations`,
    /// `run.device` and the thread counts).
    pub config: RunConfig,
    /// The run directory.
    pub run_dir: PathBuf,
    /// Continue an existing run.
    pub resume: bool,
    /// Show progress bars.
    pub progress: bool,
}

/// What a finished (or stopped) `train` call did.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    /// The last finished generation.
    pub generation: u32,
    /// Training steps taken.
    pub step: u64,
    /// True when stopped by the stop flag before the last generation.
    pub stopped: bool,
    /// The last generation's evaluation matches.
    pub last_eval: Vec<EvalLine>,
    /// The final checkpoint.
    pub checkpoint: PathBuf,
}

/// One evaluation match of a generation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvalLine {
    /// The opponent's spec.
    pub opponent: String,
    /// A short name of the opponent for tables (`previous (gen-0002)`, `greedy`).
    pub label: String,
    /// Games played.
    pub games: u32,
    /// Wins, draws, losses of the network.
    pub wdl: [u32; 3],
    /// The network's score.
    pub score: f64,
    /// Elo difference (network − opponent).
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub elo_lo: f64,
    /// Upper end of the 95% interval.
    pub elo_hi: f64,
}

fn differs_only_in_session_settings(a: &RunConfig, b: &RunConfig) -> bool {
    let mut a = a.clone();
    let mut b = b.clone();
    for c in [&mut a, &mut b] {
        c.run.generations = 0;
        c.run.device.clear();
        c.run.threads = 0;
        c.run.torch_threads = 0;
        c.run.eval_threads = 0;
    }
    a == b
}

fn bar(progress: bool, len: u64, template: &str) -> ProgressBar {
    if !progress {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb
}

/// Writes chunk files as games finish.
struct ChunkWriter {
    paths: RunPaths,
    generation: u32,
    pending: Vec<GameRecord>,
    next: usize,
}

impl ChunkWriter {
    fn push(&mut self, game: GameRecord) -> Result<(), Error> {
        self.pending.push(game);
        if self.pending.len() >= CHUNK_GAMES {
            self.flush()?;
        }
        Ok(())
    }
    fn flush(&mut self) -> Result<(), Error> {
        if self.pending.is_empty() {
            return Ok(());
        }
        record::write_chunk(&self.paths.chunk(self.generation, self.next), &self.pending)?;
        self.pending.clear();
        self.next += 1;
        Ok(())
    }
}

/// Assembles a training batch from buffer samples (mirrored where flagged).
///
/// # Errors
/// A corrupt sample (wrong plane count, an index out of range).
pub fn make_batch(
    samples: &[(&Sample, bool)],
    q_weight: f32,
    device: Device,
) -> Result<Batch, Error> {
    let mut builder = BatchBuilder::new();
    let mut tmp = vec![0.0f32; PLANES_LEN];
    for (s, mirror) in samples {
        if s.planes.len() != NUM_PLANES || s.legal.len() != s.policy.len() {
            return Err(Error::Corrupt(format!(
                "sample with {} planes (expected {NUM_PLANES}) and {} legal actions for {} policy values",
                s.planes.len(),
                s.legal.len(),
                s.policy.len()
            )));
        }
        for (p, packed) in s.planes.iter().enumerate() {
            packed.unpack_into(&mut tmp[p * 64..(p + 1) * 64])?;
        }
        let mut row = builder.push_sample();
        let dst = row
            .planes
            .as_slice_mut()
            .expect("invariant: a fresh row is contiguous");
        if *mirror {
            encode::mirror_planes(&tmp, dst);
        } else {
            dst.copy_from_slice(&tmp);
        }
        for (&idx, &p) in s.legal.iter().zip(&s.policy) {
            let idx = usize::from(idx);
            if idx >= POLICY_SIZE {
                return Err(Error::Corrupt(format!("policy index {idx} out of range")));
            }
            let idx = if *mirror {
                encode::mirror_policy_index(idx)
            } else {
                idx
            };
            row.set_action(idx, p).map_err(nn_err)?;
        }
        for k in 0..3 {
            row.wdl[k] = (1.0 - q_weight) * s.outcome[k] + q_weight * s.search_value[k];
        }
    }
    builder
        .to_batch(device)
        .map_err(|e| Error::Network(e.to_string()))
}

fn nn_err(e: dama_nn::Error) -> Error {
    Error::Network(e.to_string())
}

/// Runs (or resumes) a training run until `config.run.generations` are done
/// or `stop` is set. Stopping abandons the unfinished generation; the run
/// resumes from the last finished one.
///
/// # Errors
/// Bad run directories (an existing run without `resume`, a resumed run
/// with a different config), I/O, the network, the search.
pub fn train(opts: &TrainOptions, stop: &AtomicBool) -> Result<RunSummary, Error> {
    let paths = RunPaths::new(&opts.run_dir);
    let cfg = &opts.config;
    cfg.validate()?;
    let device = device::parse_device(&cfg.run.device).map_err(nn_err)?;
    let cpu = CpuFeatures::detect();
    let precision: Precision = cfg.selfplay.precision.resolve(device, cpu);
    let torch_threads = or_cores(cfg.run.torch_threads);
    device::set_torch_threads(torch_threads);
    let search_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(or_cores(cfg.run.threads))
        .build()
        .map_err(|e| {
            Error::Config(format!(
                "cannot start {} search threads: {e}",
                cfg.run.threads
            ))
        })?;
    let rules: Rules = cfg.rules;

    if paths.root().as_os_str().is_empty() {
        return Err(Error::Config("the run directory must not be empty".into()));
    }
    if opts.resume && !paths.config().exists() {
        return Err(Error::Config(format!(
            "nothing to resume: {} holds no run (no {})",
            paths.root().display(),
            paths.config().display()
        )));
    }
    // One trainer per run: held until this function returns.
    let _lock = RunLock::acquire(&paths)?;
    remove_stale_temp_files(&paths)?;

    let exists = paths.state().exists();
    if exists && !opts.resume {
        return Err(Error::Config(format!(
            "run directory {} already holds a run: pass --resume to continue it, or choose another --run",
            paths.root().display()
        )));
    }
    if opts.resume {
        let frozen = RunConfig::load(&paths.config())?;
        if !differs_only_in_session_settings(&frozen, cfg) {
            return Err(Error::Config(format!(
                "the config differs from the one {} was started with ({}); only run.generations, run.device and the thread counts may change on --resume",
                paths.root().display(),
                paths.config().display()
            )));
        }
    }
    let (mut state, mut trainer) = if exists {
        let state = RunState::load(&paths.state())?;
        let trainer = dama_nn::load_trainer(
            &paths.model(state.generation),
            device,
            Some(cfg.train.clone()),
        )
        .map_err(nn_err)?;
        (state, trainer)
    } else {
        // A new run, or one stopped before its first state.json (whatever
        // it left, such as a generation-0 weights file without its
        // sidecar, is not a finished checkpoint): start it from scratch.
        if !opts.resume {
            record::write_atomic(&paths.config(), cfg.to_toml()?.as_bytes())?;
        }
        let state = RunState {
            version: 1,
            generation: 0,
            step: 0,
            best_generation: 0,
            elapsed_secs: 0.0,
        };
        device::manual_seed(cfg.run.seed);
        let net = Network::new(&cfg.model, device).map_err(nn_err)?;
        let trainer = Trainer::new(net, cfg.train.clone()).map_err(nn_err)?;
        dama_nn::save_trainer(&trainer, &rules, &paths.model(0)).map_err(nn_err)?;
        (state, trainer)
    };
    // Forget metrics of an unfinished generation (they will be redone).
    metrics::truncate_after_generation(&paths.metrics(), state.generation)?;
    let metrics = MetricsWriter::new(paths.metrics());
    // Self-play positions and games of the finished generations: the
    // learning curve's x axes continue from them.
    let (mut run_positions, mut run_games) = metrics::selfplay_totals(&paths.metrics())?;
    let cpu_model = dama_nn::cpu::cpu_model().unwrap_or_else(|| "unknown CPU".to_owned());
    let warning = cfg.selfplay.precision.warning(device, cpu);
    metrics.write(&json!({
        "kind": "session", "generation": state.generation, "cpu": cpu_model,
        "cpu_bf16": cpu.bf16_fast(), "precision_setting": cfg.selfplay.precision.to_string(),
        "precision": precision.to_string(), "device": format!("{device:?}"),
    }))?;
    if opts.progress {
        eprintln!(
            "self-play inference: {precision} (precision = \"{}\"; {cpu_model}, bf16 instructions: {})",
            cfg.selfplay.precision,
            if cpu.bf16_fast() { "yes" } else { "no" }
        );
    }
    if let Some(w) = warning {
        eprintln!("warning: {w}");
    }

    if !exists {
        state.save(&paths.state())?;
    }
    if trainer.step() != state.step {
        return Err(Error::BadFile {
            path: paths.model(state.generation),
            reason: format!(
                "checkpoint is at training step {}, state.json says {}",
                trainer.step(),
                state.step
            ),
        });
    }

    // The replay window, rebuilt from the game files of finished generations.
    let limits = WindowLimits {
        max_positions: cfg.buffer.max_positions,
        max_generations: cfg.buffer.max_generations,
    };
    let mut buffer = ReplayBuffer::new();
    let first = state
        .generation
        .saturating_sub(cfg.buffer.max_generations as u32)
        + 1;
    for g in first..=state.generation {
        buffer.add_games(g, &games_of(&paths, g)?, limits);
    }

    let mut self_play_net = if state.best_generation == state.generation {
        None
    } else {
        Some(
            dama_nn::load_network(&paths.model(state.best_generation), device, Some(&rules))
                .map_err(nn_err)?
                .0,
        )
    };
    let tablebase = open_tablebase(&cfg.selfplay.tablebase, &rules, opts.progress)?;
    let mut cache = EvalCache::new(cfg.selfplay.eval_cache_entries);
    let mut last_eval = Vec::new();
    let mut stopped = false;

    while state.generation < cfg.run.generations {
        if stop.load(Ordering::SeqCst) {
            stopped = true;
            break;
        }
        let gen = state.generation + 1;
        let gen_start = Instant::now();

        // 1. Self-play with the current best network.
        let net_for_play = self_play_net.as_ref().unwrap_or(trainer.network());
        let mut evaluator = NnEvaluator::new(net_for_play, device, precision).map_err(nn_err)?;
        cache.clear();
        let job = SelfplayJob {
            selfplay: &cfg.selfplay,
            search: &cfg.search,
            rules,
            generation: gen,
            seed: cfg.run.seed,
            tablebase: tablebase.clone(),
        };
        let pb = bar(
            opts.progress,
            cfg.selfplay.games_per_generation as u64,
            "gen {prefix} self-play [{bar:30}] {pos}/{len} games {msg} ({elapsed})",
        );
        pb.set_prefix(gen.to_string());
        remove_chunks_of(&paths, gen)?;
        let mut writer = ChunkWriter {
            paths: paths.clone(),
            generation: gen,
            pending: Vec::new(),
            next: 0,
        };
        let (games, sp) = search_pool.install(|| {
            selfplay::play_games(
                &job,
                &mut evaluator,
                &mut cache,
                |g, s| {
                    pb.inc(1);
                    pb.set_message(format!(
                        "{:.0} games/h, {:.0} evals/s, batch {:.1}",
                        s.games_per_hour(),
                        s.evals_per_sec(),
                        s.avg_batch()
                    ));
                    writer.push(g.clone())
                },
                || stop.load(Ordering::SeqCst),
            )
        })?;
        pb.finish_and_clear();
        if stop.load(Ordering::SeqCst) {
            stopped = true;
            break;
        }
        writer.flush()?;
        metrics.write(&selfplay_metrics(gen, &sp))?;
        run_positions += sp.samples as u64;
        run_games += sp.games as u64;
        buffer.add_games(gen, &games, limits);

        // 2. Training.
        let mut rng = ChaCha8Rng::seed_from_u64(
            cfg.run.seed ^ u64::from(gen).wrapping_mul(0xA24B_AED4_963E_E407),
        );
        let steps = if buffer.len() >= cfg.schedule.min_positions {
            cfg.schedule.steps_per_generation
        } else {
            0
        };
        let pb = bar(
            opts.progress,
            steps,
            "gen {prefix} training  [{bar:30}] {pos}/{len} steps {msg} ({elapsed})",
        );
        pb.set_prefix(gen.to_string());
        let mut last_loss = f64::NAN;
        let train_start = Instant::now();
        for i in 0..steps {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let drawn = buffer.sample(cfg.train.batch_size, cfg.buffer.mirror, &mut rng);
            let batch = make_batch(&drawn, cfg.schedule.value_q_weight, device)?;
            let m = trainer.train_step(&batch).map_err(nn_err)?;
            last_loss = m.loss;
            pb.inc(1);
            pb.set_message(format!(
                "loss {:.3} (p {:.3} v {:.3})",
                m.loss, m.policy_loss, m.value_loss
            ));
            if (i + 1).is_multiple_of(TRAIN_LOG_EVERY) || i + 1 == steps {
                metrics.write(&json!({
                    "kind": "train", "generation": gen, "step": m.step, "lr": m.lr,
                    "loss": m.loss, "policy_loss": m.policy_loss, "value_loss": m.value_loss,
                    "reg_loss": m.reg_loss, "policy_entropy": m.policy_entropy,
                    "value_accuracy": m.value_accuracy, "grad_norm": m.grad_norm,
                    "samples_per_sec": m.samples_per_sec, "buffer_positions": buffer.len(),
                }))?;
            }
        }
        pb.finish_and_clear();
        if stop.load(Ordering::SeqCst) {
            stopped = true;
            break;
        }
        let train_secs = train_start.elapsed().as_secs_f64();

        // 3. Checkpoint.
        let ckpt = paths.model(gen);
        dama_nn::save_trainer(&trainer, &rules, &ckpt).map_err(nn_err)?;

        // 4. Evaluation.
        let mut evals = Vec::new();
        let eval_due = cfg.eval.games > 0
            && (gen.is_multiple_of(cfg.eval.every) || gen == cfg.run.generations);
        if eval_due {
            // The network player's searches share batched network calls
            // across the games in flight (dama_eval's batched arena), with
            // one libtorch thread: the arena's rayon workers hold the other
            // cores, and spinning OpenMP threads beside them were 48x
            // slower on this loaded 2-core machine (issue 12).
            device::set_torch_threads(1);
            let mut search_opts = if cfg.eval.draw_score != 0.0 {
                format!(",draw={}", cfg.eval.draw_score)
            } else {
                String::new()
            };
            if cfg.eval.search == dama_eval::SearchKind::Puct {
                search_opts.push_str(",search=puct");
            }
            let me = format!(
                "ckpt:{},sims={}{search_opts}",
                ckpt.display(),
                cfg.eval.sims
            );
            let mut opponents: Vec<String> = cfg.eval.baselines.clone();
            if cfg.eval.against_previous {
                opponents.insert(
                    0,
                    format!(
                        "ckpt:{},sims={}{search_opts}",
                        paths.model(state.best_generation).display(),
                        cfg.eval.sims
                    ),
                );
            }
            for (k, opp) in opponents.iter().enumerate() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let mut line = eval_match(&me, opp, cfg, gen, k as u64, opts.progress, &tablebase)?;
                if k == 0 && cfg.eval.against_previous {
                    line.label = format!("previous ({})", line.label);
                }
                metrics.write(&json!({
                    "kind": "eval", "generation": gen, "step": trainer.step(),
                    "opponent": if k == 0 && cfg.eval.against_previous { "previous".to_string() } else { opp.clone() },
                    "opponent_spec": opp, "games": line.games,
                    "wins": line.wdl[0], "draws": line.wdl[1], "losses": line.wdl[2],
                    "score": line.score, "elo": line.elo, "elo_lo": line.elo_lo, "elo_hi": line.elo_hi,
                }))?;
                evals.push(line);
            }
            device::set_torch_threads(torch_threads);
            if stop.load(Ordering::SeqCst) {
                stopped = true;
                break;
            }
        }

        // 5. Gate: keep the previous best network unless the new one is
        //    good enough against it.
        let accepted = match evals.first() {
            Some(prev) if cfg.eval.gate_score > 0.0 && cfg.eval.against_previous && eval_due => {
                prev.score >= cfg.eval.gate_score
            }
            _ => true,
        };
        if accepted {
            state.best_generation = gen;
            self_play_net = None;
        } else if self_play_net.is_none() {
            self_play_net = Some(
                dama_nn::load_network(&paths.model(state.best_generation), device, Some(&rules))
                    .map_err(nn_err)?
                    .0,
            );
        }

        // 6. Commit the generation.
        state.generation = gen;
        state.step = trainer.step();
        state.elapsed_secs += gen_start.elapsed().as_secs_f64();
        metrics.write(&json!({
            "kind": "generation", "generation": gen, "step": state.step,
            "best_generation": state.best_generation, "accepted": accepted,
            "seconds": gen_start.elapsed().as_secs_f64(), "train_seconds": train_secs,
            "selfplay_seconds": sp.elapsed.as_secs_f64(), "buffer_positions": buffer.len(),
            "loss": last_loss,
            // The learning curve's axes: time spent in generations (summed
            // over sessions, pauses excluded) and self-play totals so far.
            "run_seconds": state.elapsed_secs, "run_positions": run_positions,
            "run_games": run_games,
        }))?;
        state.save(&paths.state())?;
        if opts.progress {
            eprintln!(
                "{}",
                generation_line(gen, &sp, last_loss, &evals, accepted, gen_start.elapsed())
            );
        }
        last_eval = evals;
    }
    Ok(RunSummary {
        generation: state.generation,
        step: state.step,
        stopped,
        last_eval,
        checkpoint: paths.model(state.generation),
    })
}

/// The endgame tables named by `[selfplay] tablebase`: `None` if the key is
/// empty, or (with a note) if the directory is missing, holds no tables or
/// tables of other rules. A damaged table file is an error.
///
/// # Errors
/// [`Error::Tablebase`] for an unreadable directory or a bad table file.
pub fn open_tablebase(
    dir: &str,
    rules: &Rules,
    notes: bool,
) -> Result<Option<std::sync::Arc<dama_tablebase::Tablebase>>, Error> {
    if dir.is_empty() {
        return Ok(None);
    }
    let path = Path::new(dir);
    if !path.is_dir() {
        if notes {
            eprintln!("note: no endgame tables: {} is not a directory (run `dama tablebase generate --dir {}`)", path.display(), path.display());
        }
        return Ok(None);
    }
    let tb = dama_tablebase::Tablebase::open(path)?;
    if tb.max_pieces() == 0 {
        if notes {
            eprintln!("note: no endgame tables in {}", path.display());
        }
        return Ok(None);
    }
    if tb.rules() != *rules {
        if notes {
            eprintln!(
                "note: the endgame tables in {} are for other rules ({}); not used",
                path.display(),
                tb.rules_text()
            );
        }
        return Ok(None);
    }
    if notes {
        eprintln!(
            "endgame tables: {} pieces from {}",
            tb.max_pieces(),
            path.display()
        );
    }
    Ok(Some(std::sync::Arc::new(tb)))
}

fn eval_match(
    me: &str,
    opponent: &str,
    cfg: &RunConfig,
    gen: u32,
    k: u64,
    progress: bool,
    tablebase: &Option<std::sync::Arc<dama_tablebase::Tablebase>>,
) -> Result<EvalLine, Error> {
    // Players that use endgame tables (alpha-beta) get the run's.
    let options = dama_eval::BuildOptions {
        device: Some(cfg.run.device.clone()),
        tablebase: tablebase.clone(),
    };
    let a = dama_eval::parse_player(me, &options).map_err(|e| Error::Eval(e.to_string()))?;
    let b = dama_eval::parse_player(opponent, &options).map_err(|e| Error::Eval(e.to_string()))?;
    let config = dama_eval::MatchConfig {
        games: cfg.eval.games as u32,
        threads: Some(or_cores(cfg.run.eval_threads)),
        seed: cfg.run.seed ^ (u64::from(gen) << 16) ^ k,
        ..dama_eval::MatchConfig::default()
    };
    let pb = bar(
        progress,
        u64::from(config.games),
        "gen {prefix} eval      [{bar:30}] {pos}/{len} games {msg}",
    );
    pb.set_prefix(gen.to_string());
    let short = short_name(opponent);
    let on_progress = |p: &dama_eval::MatchProgress| {
        pb.set_position(u64::from(p.done));
        pb.set_message(format!("vs {short}: {}", p.summary()));
    };
    let r = dama_eval::play_match(a.as_ref(), b.as_ref(), &config, &on_progress)
        .map_err(|e| Error::Eval(e.to_string()))?;
    pb.finish_and_clear();
    Ok(EvalLine {
        opponent: opponent.to_string(),
        label: short_name(opponent),
        games: r.games,
        wdl: [r.wdl.wins, r.wdl.draws, r.wdl.losses],
        score: r.score(),
        elo: r.elo.elo,
        elo_lo: r.elo.lo,
        elo_hi: r.elo.hi,
    })
}

/// `n`, or the number of cores when `n` is 0.
fn or_cores(n: usize) -> usize {
    if n > 0 {
        n
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

fn short_name(spec: &str) -> String {
    match spec.strip_prefix("ckpt:") {
        Some(rest) => Path::new(rest.split(',').next().unwrap_or(rest))
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| spec.to_string()),
        None => spec.to_string(),
    }
}

fn selfplay_metrics(gen: u32, sp: &SelfplayStats) -> serde_json::Value {
    json!({
        "kind": "selfplay", "generation": gen, "games": sp.games, "samples": sp.samples,
        "moves": sp.moves, "steps": sp.steps, "seconds": sp.elapsed.as_secs_f64(),
        "games_per_hour": sp.games_per_hour(), "positions_per_sec": sp.samples as f64 / sp.elapsed.as_secs_f64().max(1e-9),
        "net_evals": sp.net_evals, "evals_per_sec": sp.evals_per_sec(),
        "net_evals_per_net_sec": sp.evals_per_net_sec(), "net_time_share": sp.net_time.as_secs_f64() / sp.elapsed.as_secs_f64().max(1e-9),
        "cache_hits": sp.cache_hits, "avg_batch": sp.avg_batch(), "avg_game_length": sp.avg_length(),
        "draw_rate": sp.draw_rate(), "first_player_score": sp.first_player_score(),
        "white_wins": sp.white_wins, "black_wins": sp.black_wins, "draws": sp.draws,
        "resignations": sp.resignations, "playthrough_games": sp.playthrough_games,
        "false_resignations": sp.false_resignations, "false_resignation_rate": sp.false_resignation_rate(),
        "no_capture_draws": sp.no_capture_draws, "repetition_draws": sp.repetition_draws,
        "move_cap_draws": sp.move_cap_draws, "captures_per_game": sp.captures_per_game(),
        "tablebase_endings": sp.tablebase_endings,
    })
}

fn generation_line(
    gen: u32,
    sp: &SelfplayStats,
    loss: f64,
    evals: &[EvalLine],
    accepted: bool,
    took: Duration,
) -> String {
    let mut s = format!(
        "gen {gen:>3}: {} games ({:.0}/h, {:.0} evals/s, len {:.0}, draws {:.0}% ({:.0}% no-capture), {:.1} captures/game), loss {:.3}",
        sp.games,
        sp.games_per_hour(),
        sp.evals_per_sec(),
        sp.avg_length(),
        100.0 * sp.draw_rate(),
        100.0 * sp.no_capture_draw_rate(),
        sp.captures_per_game(),
        loss
    );
    for e in evals {
        s.push_str(&format!(
            ", vs {} {:.0}% (Elo {:+.0} [{:+.0}, {:+.0}])",
            e.label,
            100.0 * e.score,
            e.elo,
            e.elo_lo,
            e.elo_hi
        ));
    }
    if !accepted {
        s.push_str(", rejected by the gate");
    }
    s.push_str(&format!(" [{:.0}s]", took.as_secs_f64()));
    s
}
