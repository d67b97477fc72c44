//! A training run: generations of self-play → training → checkpoint →
//! evaluation → gate → commit, with metrics and exact resume.
//!
//! The run directory ([`dama_run::RunDir`]) is the only state: `state.json`
//! names the last finished generation and is written last (atomically), so
//! a run stopped at any moment resumes from the last finished generation,
//! and the files of an unfinished one are overwritten by the same
//! deterministic work.
//!
//! The loop is [`crate::driver::drive`], the same for every kind of run;
//! each stage of a network run's generation is a method of [`TrainingRun`],
//! which holds what lives across generations (the network being trained,
//! the replay window, the run's files and lock):
//!
//! 1. `TrainingRun::open_with`: open a new run or resume one;
//! 2. [`TrainingRun::self_play`]: play the generation's games;
//! 3. [`TrainingRun::train_steps`]: optimizer steps on the replay window;
//! 4. [`TrainingRun::checkpoint`]: write the new network;
//! 5. [`TrainingRun::evaluate`]: matches against the previous network and
//!    the baselines, whose players are typed [`PlayerSpec`]s
//!    ([`TrainingRun::eval_players`]);
//! 6. [`TrainingRun::gate`]: keep the previous network if the new one
//!    scored too little;
//! 7. [`crate::driver::RunFiles::commit`]: the `"generation"` metrics line
//!    and `state.json`.
//!
//! Progress goes to a [`Progress`] the caller passes; the library prints
//! nothing.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dama_eval::{PlayerSpec, SearchBudget};
use dama_game::{AnyTables, GameDef, OpenedTables};
use dama_nn::device::{self, Device};
use dama_nn::{
    Batch, BatchBuilder, CpuFeatures, Encoding, GameRules, Network, NnEvaluator, Precision, Trainer,
};
use dama_run::dist::{ChunkKind, ChunkName};
use dama_run::metrics::SelfplayEvent;
use dama_run::{EvalEvent, LearnerEvent, MetricsEvent, RunDir, SessionEvent, Store};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::buffer::{ReplayBuffer, WindowLimits};
use crate::config::{DistributedConfig, RunConfig, RunKind};
use crate::distributed::{ChunkData, ChunkRead};
use crate::driver::{Judged, OpenOptions, RunFiles, Stages, TrainFigures};
use crate::metrics;
use crate::progress::{Progress, ProgressEvent, Stage};
use crate::record::{self, GameRecord, Sample};
use crate::selfplay::{self, EvalCache, SelfplayStats};
use crate::Error;

/// Games per chunk file.
const CHUNK_GAMES: usize = 64;
/// A training metrics line every this many steps (and the last step).
const TRAIN_LOG_EVERY: u64 = 10;

/// Where a run's replay window comes from when it is rebuilt on resume.
pub(crate) enum WindowSource<'a> {
    /// `dama train`: the run's own chunk files (`games/gen-NNNN-III.games`).
    SelfPlay,
    /// A distributed run's learner: the games of a generation, as its
    /// ledger lists them. Workers write `games/` while the learner runs:
    /// their temporary files are not the learner's to remove.
    Ledger(&'a dyn Fn(u32) -> Result<Vec<GameRecord>, Error>),
}

/// Removes the chunk files of `generation` (left by an unfinished attempt
/// at it, which the same deterministic work is about to redo).
fn remove_chunks_of(dir: &RunDir, generation: u32) -> Result<(), Error> {
    for chunk in record::list_chunks(&dir.games())? {
        if RunDir::is_chunk_of(&chunk, generation) {
            std::fs::remove_file(&chunk).map_err(|e| Error::io(&chunk, e))?;
        }
    }
    Ok(())
}

/// The games of `generation` from its chunk files, in game-id order: the
/// order self-play hands them to the replay buffer, whatever order they
/// finished (and were written) in.
fn games_of(dir: &RunDir, generation: u32) -> Result<Vec<GameRecord>, Error> {
    let mut games = Vec::new();
    for chunk in record::list_chunks(&dir.games())? {
        if RunDir::is_chunk_of(&chunk, generation) {
            games.extend(record::read_chunk(&chunk)?);
        }
    }
    games.sort_by_key(|g| g.game_id);
    Ok(games)
}

/// One evaluation match of a generation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvalLine {
    /// The opponent.
    pub opponent: PlayerSpec,
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
    /// An asymmetric game's results per side (see
    /// [`dama_run::SideResult`]); empty for draughts.
    pub by_side: Vec<dama_run::SideResult>,
}

impl EvalLine {
    /// The line of match `r`, played against `opponent` (called `label`).
    pub(crate) fn of_match<G: dama_game::GameDef>(
        opponent: &PlayerSpec,
        label: &str,
        r: &dama_eval::MatchResult,
    ) -> EvalLine {
        EvalLine {
            opponent: opponent.clone(),
            label: label.to_owned(),
            games: r.games,
            wdl: [r.wdl.wins, r.wdl.draws, r.wdl.losses],
            score: r.score(),
            elo: r.elo.elo,
            elo_lo: r.elo.lo,
            elo_hi: r.elo.hi,
            by_side: by_side::<G>(r),
        }
    }

    /// Its `"eval"` line: generation `generation`'s match at training step
    /// `step` against the opponent called `name` in metrics, whose spec
    /// reads `spec_text`.
    pub(crate) fn event(
        &self,
        generation: u32,
        step: u64,
        name: &str,
        spec_text: &str,
    ) -> EvalEvent {
        EvalEvent {
            generation,
            step,
            opponent: name.to_owned(),
            opponent_spec: spec_text.to_owned(),
            games: self.games,
            wins: self.wdl[0],
            draws: self.wdl[1],
            losses: self.wdl[2],
            score: self.score,
            elo: self.elo,
            elo_lo: self.elo_lo,
            elo_hi: self.elo_hi,
            by_side: self.by_side.clone(),
        }
    }
}

/// An opponent of a generation's evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalOpponent {
    /// The player.
    pub spec: PlayerSpec,
    /// The `opponent` of its metrics line: `previous` for the previous best
    /// network, otherwise the baseline as the config writes it.
    pub name: String,
    /// The `opponent_spec` of its metrics line: the baseline as the config
    /// writes it, or the previous network's spec in canonical form.
    pub spec_text: String,
    /// Its short name in tables (`previous (gen-0002)`, `greedy`).
    pub label: String,
}

impl crate::driver::FrozenConfig for RunConfig {
    fn load_frozen(path: &Path) -> Result<RunConfig, Error> {
        RunConfig::load(path)
    }

    fn frozen_text(&self) -> Result<String, Error> {
        self.to_toml()
    }

    fn without_session_settings(&self) -> RunConfig {
        let mut c = self.clone();
        c.run.generations = 0;
        c.run.device = dama_run::DeviceSpec::Auto;
        c.run.threads = 0;
        c.run.torch_threads = 0;
        c.run.inference_threads = 0;
        c.run.eval_threads = 0;
        c.distributed = crate::config::DistributedConfig::default();
        c
    }
}

/// Writes chunk files as games finish.
struct ChunkWriter {
    dir: RunDir,
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
        record::write_chunk(&self.dir.chunk(self.generation, self.next), &self.pending)?;
        self.pending.clear();
        self.next += 1;
        Ok(())
    }
}

/// Assembles a training batch in `encoding` (the run's game's) from
/// buffer samples (mirrored where flagged).
///
/// # Errors
/// A corrupt sample (wrong plane count, an index out of range).
pub fn make_batch(
    samples: &[(&Sample, bool)],
    encoding: Encoding,
    q_weight: f32,
    device: Device,
) -> Result<Batch, Error> {
    let shape = encoding.shape;
    let squares = shape.squares();
    let mut builder = BatchBuilder::for_shape(shape);
    let mut tmp = vec![0.0f32; shape.planes_len()];
    for (s, mirror) in samples {
        if s.planes.len() != shape.planes || s.legal.len() != s.policy.len() {
            return Err(Error::Corrupt(format!(
                "sample with {} planes (expected {} for {}) and {} legal actions for {} policy values",
                s.planes.len(),
                shape.planes,
                encoding.game.title(),
                s.legal.len(),
                s.policy.len()
            )));
        }
        for (p, packed) in s.planes.iter().enumerate() {
            packed.unpack_into(&mut tmp[p * squares..(p + 1) * squares])?;
        }
        let mut row = builder.push_sample();
        let dst = row
            .planes
            .as_slice_mut()
            .expect("invariant: a fresh row is contiguous");
        if *mirror {
            encoding.mirror_planes(&tmp, dst);
        } else {
            dst.copy_from_slice(&tmp);
        }
        for (&idx, &p) in s.legal.iter().zip(&s.policy) {
            let idx = usize::from(idx);
            if idx >= shape.policy_size() {
                return Err(Error::Corrupt(format!("policy index {idx} out of range")));
            }
            let idx = if *mirror {
                encoding.mirror_policy_index(idx)
            } else {
                idx
            };
            row.set_action(idx, p).map_err(nn_err)?;
        }
        for k in 0..3 {
            row.wdl[k] = (1.0 - q_weight) * s.outcome[k] + q_weight * s.search_value[k];
        }
    }
    builder.to_batch(device).map_err(Error::Network)
}

fn nn_err(e: dama_nn::Error) -> Error {
    Error::Network(e)
}

/// What the training stage of a generation did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrainOutcome {
    /// Optimizer steps taken (0 while the window is under
    /// `schedule.min_positions`).
    pub steps: u64,
    /// Total loss of the last step (NaN when none was taken).
    pub last_loss: f64,
    /// Wall time of the steps, in seconds.
    pub seconds: f64,
}

/// A network run opened by its trainer: the state that lives across
/// generations, and one method per stage of a generation (the stages of
/// [`crate::driver::Stages`], which [`crate::driver::drive`] runs).
///
/// Holds the run's lock for as long as it lives. A stage that sees the
/// stop flag returns `Ok(None)`; the generation is then abandoned (not
/// committed), and a later `--resume` redoes it.
pub struct TrainingRun {
    pub(crate) cfg: RunConfig,
    pub(crate) files: RunFiles,
    pub(crate) device: Device,
    precision: Precision,
    torch_threads: usize,
    search_pool: rayon::ThreadPool,
    pub(crate) trainer: Trainer,
    pub(crate) buffer: ReplayBuffer,
    limits: WindowLimits,
    /// The network of `state.best_generation` when it is not the one being
    /// trained (the gate rejected newer ones).
    self_play_net: Option<Network>,
    tables: AnyTables,
    cache: EvalCache,
}

impl std::fmt::Debug for TrainingRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrainingRun")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl TrainingRun {
    /// Stage 1, open or resume ([`RunFiles::open`]: the checks, the lock,
    /// the frozen config): a new run gets its generation-0 network; a
    /// resumed one continues with the network, optimizer, step and replay
    /// window of its last finished generation, the window rebuilt from
    /// `source`. Writes the `"session"` line.
    ///
    /// # Errors
    /// Bad run directories (an existing run without `resume`, a resumed run
    /// with a different config, nothing to resume), a locked run, I/O, the
    /// network.
    pub(crate) fn open_with(
        cfg: &RunConfig,
        dir: &RunDir,
        resume: bool,
        progress: &dyn Progress,
        source: &WindowSource<'_>,
    ) -> Result<TrainingRun, Error> {
        cfg.validate()?;
        let device = device::resolve(cfg.run.device).map_err(nn_err)?;
        let cpu = CpuFeatures::detect();
        let precision: Precision = cfg.selfplay.precision.resolve(device, cpu);
        let torch_threads = device::or_cores(cfg.run.torch_threads);
        device::set_torch_threads(torch_threads);
        let search_pool = rayon::ThreadPoolBuilder::new()
            .num_threads(device::or_cores(cfg.run.threads))
            .build()
            .map_err(|e| {
                Error::Config(format!(
                    "cannot start {} search threads: {e}",
                    cfg.run.threads
                ))
            })?;
        let game_rules: GameRules = cfg.game_rules();

        // A new run's generation-0 trainer, kept rather than read back.
        let mut fresh = None;
        let files = RunFiles::open(
            dir,
            cfg,
            &OpenOptions {
                resume,
                keep_games_temp: matches!(source, WindowSource::Ledger(_)),
            },
            || {
                device::manual_seed(cfg.run.seed);
                let net = Network::new(&cfg.model, device).map_err(nn_err)?;
                let trainer = Trainer::new(net, cfg.train.clone()).map_err(nn_err)?;
                dama_nn::save_trainer(&trainer, game_rules, &dir.model(0)).map_err(nn_err)?;
                fresh = Some(trainer);
                Ok(())
            },
        )?;
        let state = &files.state;
        let trainer = match fresh {
            Some(trainer) => trainer,
            None => dama_nn::load_trainer(
                &dir.model(state.generation),
                device,
                Some(cfg.train.clone()),
            )
            .map_err(nn_err)?,
        };
        let cpu_model = dama_nn::cpu::cpu_model().unwrap_or_else(|| "unknown CPU".to_owned());
        let warning = cfg.selfplay.precision.warning(device, cpu);
        files.session(SessionEvent {
            generation: state.generation,
            cpu: cpu_model.clone(),
            cpu_bf16: cpu.bf16_fast(),
            precision_setting: cfg.selfplay.precision.to_string(),
            precision: precision.to_string(),
            device: format!("{device:?}"),
        })?;
        progress.event(ProgressEvent::Note(&format!(
            "self-play inference: {precision} (precision = \"{}\"; {cpu_model}, bf16 instructions: {})",
            cfg.selfplay.precision,
            if cpu.bf16_fast() { "yes" } else { "no" }
        )));
        if let Some(w) = warning {
            progress.event(ProgressEvent::Warning(&w));
        }
        if trainer.step() != state.step {
            return Err(Error::BadFile {
                path: dir.model(state.generation),
                reason: format!(
                    "checkpoint is at training step {}, state.json says {}",
                    trainer.step(),
                    state.step
                ),
            });
        }

        // The replay window, rebuilt from the game files of finished
        // generations.
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
            let games = match source {
                WindowSource::SelfPlay => games_of(dir, g)?,
                WindowSource::Ledger(games_of) => games_of(g)?,
            };
            buffer.add_games(g, &games, limits);
        }

        let self_play_net = if state.best_generation == state.generation {
            None
        } else {
            Some(
                dama_nn::load_network_for(&dir.model(state.best_generation), device, &game_rules)
                    .map_err(nn_err)?
                    .0,
            )
        };
        let tables = open_tables(&cfg.selfplay.tablebase, &game_rules, progress)?;
        Ok(TrainingRun {
            cfg: cfg.clone(),
            files,
            device,
            precision,
            torch_threads,
            search_pool,
            trainer,
            buffer,
            limits,
            self_play_net,
            tables,
            cache: EvalCache::new(cfg.selfplay.eval_cache_entries),
        })
    }

    /// Stage 2, self-play: plays generation `gen`'s games with the best
    /// network, writes them as chunk files (replacing those of an
    /// unfinished attempt), writes the `"selfplay"` line and adds the games
    /// to the replay window. `Ok(None)` when stopped.
    ///
    /// # Errors
    /// The network, the search, I/O.
    pub fn self_play(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<SelfplayEvent>, Error> {
        let cfg = &self.cfg;
        let net_for_play = self
            .self_play_net
            .as_ref()
            .unwrap_or(self.trainer.network());
        let mut evaluator = NnEvaluator::with_lanes(
            net_for_play,
            self.device,
            self.precision,
            device::or_cores(cfg.run.inference_threads),
        )
        .map_err(nn_err)?;
        self.cache.clear();
        progress.event(ProgressEvent::StageStarted {
            generation: gen,
            stage: Stage::Selfplay,
            total: Stages::games_wanted(self, gen),
            opponent: None,
        });
        remove_chunks_of(&self.files.dir, gen)?;
        let mut writer = ChunkWriter {
            dir: self.files.dir.clone(),
            generation: gen,
            pending: Vec::new(),
            next: 0,
        };
        let cache = &mut self.cache;
        let result = if gen <= cfg.teacher.generations {
            let job = crate::teacher::TeacherJob {
                teacher: &cfg.teacher,
                selfplay: &cfg.selfplay,
                rules: cfg.rules.draughts().unwrap_or_default(),
                generation: gen,
                seed: cfg.run.seed,
                tablebase: self.tables.get::<dama_draughts::Draughts>(),
            };
            self.search_pool.install(|| {
                crate::teacher::play_games(
                    &job,
                    |g, s| {
                        progress.event(ProgressEvent::SelfplayGame { stats: s });
                        writer.push(g.clone())
                    },
                    || stop.load(Ordering::SeqCst),
                )
            })
        } else {
            let on_game = |g: &GameRecord, s: &SelfplayStats| {
                progress.event(ProgressEvent::SelfplayGame { stats: s });
                writer.push(g.clone())
            };
            let stopped = || stop.load(Ordering::SeqCst);
            let run = selfplay::RunGames {
                selfplay: &cfg.selfplay,
                search: &cfg.search,
                rules: cfg.game_rules(),
                tables: self.tables.clone(),
                generation: gen,
                seed: cfg.run.seed,
                net: &mut evaluator,
                cache,
                on_game,
                stop: stopped,
            };
            self.search_pool.install(|| selfplay::play_run_games(run))
        };
        progress.event(ProgressEvent::StageFinished {
            stage: Stage::Selfplay,
        });
        let (games, sp) = result?;
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        writer.flush()?;
        let sp = metrics::selfplay_event(gen, &sp);
        self.add_games(gen, &games, &sp)?;
        Ok(Some(sp))
    }

    /// The end of self-play (stage 2) for games played by self-play or, in
    /// a distributed run, by workers: writes the `"selfplay"` line, counts
    /// the games in the run's totals and adds them to the replay window.
    ///
    /// # Errors
    /// I/O.
    pub(crate) fn add_games(
        &mut self,
        gen: u32,
        games: &[GameRecord],
        sp: &SelfplayEvent,
    ) -> Result<(), Error> {
        self.files.add_selfplay(sp)?;
        self.buffer.add_games(gen, games, self.limits);
        Ok(())
    }

    /// Stage 3, training: `schedule.steps_per_generation` optimizer steps
    /// on batches drawn from the replay window (none while it holds fewer
    /// than `schedule.min_positions`), with a `"train"` line every 10 steps
    /// and at the last. `Ok(None)` when stopped.
    ///
    /// # Errors
    /// A corrupt sample, the network, I/O.
    pub fn train_steps(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<TrainOutcome>, Error> {
        let cfg = &self.cfg;
        let mut rng = ChaCha8Rng::seed_from_u64(
            cfg.run.seed ^ u64::from(gen).wrapping_mul(0xA24B_AED4_963E_E407),
        );
        let steps = if self.buffer.len() >= cfg.schedule.min_positions {
            cfg.schedule.steps_per_generation
        } else {
            0
        };
        progress.event(ProgressEvent::StageStarted {
            generation: gen,
            stage: Stage::Train,
            total: steps,
            opponent: None,
        });
        let mut last_loss = f64::NAN;
        let train_start = Instant::now();
        let result = (|| {
            for i in 0..steps {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let drawn = self
                    .buffer
                    .sample(cfg.train.batch_size, cfg.buffer.mirror, &mut rng);
                let batch = make_batch(
                    &drawn,
                    cfg.game.name.encoding(),
                    cfg.schedule.value_q_weight,
                    self.device,
                )?;
                let m = self.trainer.train_step(&batch).map_err(nn_err)?;
                last_loss = m.loss;
                progress.event(ProgressEvent::TrainStep { metrics: &m });
                if (i + 1).is_multiple_of(TRAIN_LOG_EVERY) || i + 1 == steps {
                    self.files
                        .metrics
                        .write(&MetricsEvent::Train(metrics::train_event(
                            gen,
                            &m,
                            self.buffer.len(),
                        )))?;
                }
            }
            Ok::<(), Error>(())
        })();
        progress.event(ProgressEvent::StageFinished {
            stage: Stage::Train,
        });
        result?;
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        Ok(Some(TrainOutcome {
            steps,
            last_loss,
            seconds: train_start.elapsed().as_secs_f64(),
        }))
    }

    /// Stage 4, checkpoint: writes the trained network, its sidecar and
    /// optimizer state as generation `gen`'s checkpoint.
    ///
    /// # Errors
    /// The network, I/O.
    pub fn checkpoint(&self, gen: u32) -> Result<PathBuf, Error> {
        let ckpt = self.files.dir.model(gen);
        dama_nn::save_trainer(&self.trainer, self.cfg.game_rules(), &ckpt).map_err(nn_err)?;
        Ok(ckpt)
    }

    /// Whether generation `gen` is evaluated: `[eval] games > 0`, and `gen`
    /// is a multiple of `[eval] every` or the run's last generation.
    pub fn eval_due(&self, gen: u32) -> bool {
        let e = &self.cfg.eval;
        e.games > 0 && (gen.is_multiple_of(e.every) || gen == self.cfg.run.generations)
    }

    /// The players of generation `gen`'s evaluation: the new network and
    /// its opponents (the previous best network first, with
    /// `[eval] against_previous`, then the baselines), as typed specs.
    ///
    /// # Errors
    /// A baseline that is not a player spec (the config's validation
    /// refuses those first).
    pub fn eval_players(&self, gen: u32) -> Result<(PlayerSpec, Vec<EvalOpponent>), Error> {
        eval_players(
            &self.cfg,
            &self.files.dir,
            gen,
            self.files.state.best_generation,
        )
    }

    /// Stage 5, evaluation: when due, plays generation `gen`'s network
    /// against each opponent of [`TrainingRun::eval_players`] in the
    /// batched arena (with one libtorch thread) and writes one `"eval"`
    /// line per match. `Ok(Some(vec![]))` when not due, `Ok(None)` when
    /// stopped.
    ///
    /// # Errors
    /// A player that cannot be built (a checkpoint), the arena, I/O.
    pub fn evaluate(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<Vec<EvalLine>>, Error> {
        if !self.eval_due(gen) {
            return Ok(Some(Vec::new()));
        }
        let (me, opponents) = self.eval_players(gen)?;
        // The network player's searches share batched network calls across
        // the games in flight (dama_eval's batched arena), with one libtorch
        // thread: the arena's rayon workers hold the other cores, and
        // spinning OpenMP threads beside them were 48x slower on this
        // loaded 2-core machine (issue 12).
        device::set_torch_threads(1);
        let mut evals = Vec::new();
        let result = (|| {
            for (k, opp) in opponents.iter().enumerate() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let line = self.cfg.game.name.with(EvalMatch {
                    me: &me,
                    opponent: opp,
                    cfg: &self.cfg,
                    gen,
                    k: k as u64,
                    progress,
                    tables: &self.tables,
                })?;
                self.files.metrics.write(&MetricsEvent::Eval(line.event(
                    gen,
                    self.trainer.step(),
                    &opp.name,
                    &opp.spec_text,
                )))?;
                evals.push(line);
            }
            Ok::<(), Error>(())
        })();
        device::set_torch_threads(self.torch_threads);
        result?;
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        Ok(Some(evals))
    }

    /// Stage 6, gate: whether generation `gen`'s network plays the next
    /// self-play. With `[eval] gate_score` > 0 and `against_previous`, an
    /// evaluated network must score at least `gate_score` against the
    /// previous best; otherwise every network is accepted. A rejected
    /// network's predecessor is loaded for self-play.
    ///
    /// # Errors
    /// Loading the previous best network.
    pub fn gate(&mut self, gen: u32, evals: &[EvalLine]) -> Result<bool, Error> {
        let accepted = gate_accepts(&self.cfg, self.eval_due(gen), evals);
        if accepted {
            self.files.state.best_generation = gen;
            self.self_play_net = None;
        } else if self.self_play_net.is_none() {
            self.self_play_net = Some(
                dama_nn::load_network_for(
                    &self.files.dir.model(self.files.state.best_generation),
                    self.device,
                    &self.cfg.game_rules(),
                )
                .map_err(nn_err)?
                .0,
            );
        }
        Ok(accepted)
    }
}

impl Stages for TrainingRun {
    type Item = GameRecord;

    fn files(&self) -> &RunFiles {
        &self.files
    }

    fn files_mut(&mut self) -> &mut RunFiles {
        &mut self.files
    }

    fn kind(&self) -> RunKind {
        RunKind::Network
    }

    fn generations(&self) -> u32 {
        self.cfg.run.generations
    }

    fn distributed(&self) -> &DistributedConfig {
        &self.cfg.distributed
    }

    fn games_wanted(&self, gen: u32) -> u64 {
        (if gen <= self.cfg.teacher.generations {
            self.cfg.teacher.games
        } else {
            self.cfg.selfplay.games_per_generation
        }) as u64
    }

    fn self_play(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<SelfplayEvent>, Error> {
        TrainingRun::self_play(self, gen, stop, progress)
    }

    fn read_chunk(&self, store: &dyn Store, name: &ChunkName) -> ChunkRead<GameRecord> {
        if name.kind != ChunkKind::Games {
            return Ok(Err(
                "a learned-evaluator run's samples, not a network run's games".to_owned(),
            ));
        }
        Ok(
            crate::distributed::read_chunk(store, &name.key())?.map(|games| ChunkData {
                games: games.len() as u64,
                samples: games.iter().map(|g| g.samples.len() as u64).sum(),
                items: games,
            }),
        )
    }

    fn ingested(
        &self,
        gen: u32,
        items: &[GameRecord],
        _: &LearnerEvent,
        seconds: f64,
    ) -> SelfplayEvent {
        metrics::selfplay_event(
            gen,
            &selfplay::stats_of_games(items, Duration::from_secs_f64(seconds)),
        )
    }

    fn add_ingested(
        &mut self,
        gen: u32,
        items: Vec<GameRecord>,
        sp: &SelfplayEvent,
    ) -> Result<(), Error> {
        self.add_games(gen, &items, sp)
    }

    fn train(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<TrainFigures>, Error> {
        let Some(t) = self.train_steps(gen, stop, progress)? else {
            return Ok(None);
        };
        self.checkpoint(gen)?;
        self.files.state.step = self.trainer.step();
        Ok(Some(TrainFigures {
            steps: t.steps,
            loss: t.last_loss,
            window: self.buffer.len() as u64,
            seconds: t.seconds,
            samples_per_sec: (t.steps as f64 * self.cfg.train.batch_size as f64)
                / t.seconds.max(1e-9),
        }))
    }

    fn judge(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<Judged>, Error> {
        let Some(evals) = self.evaluate(gen, stop, progress)? else {
            return Ok(None);
        };
        let accepted = self.gate(gen, &evals)?;
        Ok(Some(Judged { evals, accepted }))
    }

    fn published(&self, g: u32) -> Vec<(PathBuf, String)> {
        vec![
            (self.files.dir.model(g), dama_run::dist::model_key(g)),
            (
                self.files.dir.model_sidecar(g),
                dama_run::dist::sidecar_key(g),
            ),
        ]
    }

    fn network_file(&self, g: u32) -> PathBuf {
        self.files.dir.model(g)
    }

    fn best_file(&self) -> Option<PathBuf> {
        Some(self.files.dir.model(self.files.state.best_generation))
    }
}

/// The gate's decision (see [`TrainingRun::gate`]).
fn gate_accepts(cfg: &RunConfig, eval_due: bool, evals: &[EvalLine]) -> bool {
    match evals.first() {
        Some(prev) if cfg.eval.gate_score > 0.0 && cfg.eval.against_previous && eval_due => {
            prev.score >= cfg.eval.gate_score
        }
        _ => true,
    }
}

/// The evaluation players of generation `gen` (see
/// [`TrainingRun::eval_players`]).
fn eval_players(
    cfg: &RunConfig,
    dir: &RunDir,
    gen: u32,
    best_generation: u32,
) -> Result<(PlayerSpec, Vec<EvalOpponent>), Error> {
    let network = |path: PathBuf| PlayerSpec::Checkpoint {
        path,
        budget: SearchBudget::Sims(cfg.eval.sims),
        search: cfg.eval.search,
        draw_score: cfg.eval.draw_score,
        // The network computes as in self-play (`[selfplay] precision`).
        inference: dama_eval::Inference {
            precision: Some(match cfg.selfplay.precision {
                dama_nn::PrecisionChoice::Auto => dama_eval::NetPrecision::Auto,
                dama_nn::PrecisionChoice::F32 => dama_eval::NetPrecision::F32,
                dama_nn::PrecisionChoice::Bf16 => dama_eval::NetPrecision::Bf16,
            }),
            ..dama_eval::Inference::default()
        },
    };
    let mut opponents = Vec::new();
    if cfg.eval.against_previous {
        let previous = dir.model(best_generation);
        let stem = short_name(&previous);
        let spec = network(previous);
        opponents.push(EvalOpponent {
            spec_text: spec.to_string(),
            spec,
            name: "previous".into(),
            label: format!("previous ({stem})"),
        });
    }
    for baseline in &cfg.eval.baselines {
        let spec: PlayerSpec = baseline.parse().map_err(|e: dama_eval::Error| {
            Error::Config(format!("eval.baselines: `{baseline}`: {e}"))
        })?;
        let label = match &spec {
            PlayerSpec::Checkpoint { path, .. } | PlayerSpec::Policy { path } => short_name(path),
            _ => baseline.clone(),
        };
        opponents.push(EvalOpponent {
            spec,
            name: baseline.clone(),
            spec_text: baseline.clone(),
            label,
        });
    }
    Ok((network(dir.model(gen)), opponents))
}

/// The endgame tables named by `[selfplay] tablebase` for the run's game
/// and rules ([`GameDef::open_tables`]): none if the key is empty, or (with
/// a note) if the directory is missing, holds no tables or tables of other
/// rules, or the game has none. A damaged table file is an error.
///
/// # Errors
/// [`Error::Tables`] for an unreadable directory or a bad table file.
pub fn open_tables(
    dir: &str,
    rules: &GameRules,
    progress: &dyn Progress,
) -> Result<AnyTables, Error> {
    struct Open<'a> {
        dir: &'a Path,
        rules: &'a GameRules,
        progress: &'a dyn Progress,
    }
    impl dama_nn::WithGame for Open<'_> {
        type Output = Result<AnyTables, Error>;
        fn run<G: GameDef>(self) -> Self::Output {
            let Some(rules) = self.rules.get::<G>() else {
                return Ok(AnyTables::none());
            };
            let note = |text: String| self.progress.event(ProgressEvent::Note(&text));
            match G::open_tables(self.dir, &rules)? {
                OpenedTables::Found { tables, about } => {
                    note(format!("endgame tables: {about}"));
                    Ok(AnyTables::of::<G>(tables))
                }
                OpenedTables::Absent(why) => {
                    note(format!("note: {why}"));
                    Ok(AnyTables::none())
                }
            }
        }
    }
    if dir.is_empty() {
        return Ok(AnyTables::none());
    }
    rules.name().with(Open {
        dir: Path::new(dir),
        rules,
        progress,
    })
}

/// One evaluation match of the run's game (see [`eval_match`]).
struct EvalMatch<'a> {
    me: &'a PlayerSpec,
    opponent: &'a EvalOpponent,
    cfg: &'a RunConfig,
    gen: u32,
    k: u64,
    progress: &'a dyn Progress,
    tables: &'a AnyTables,
}

impl dama_nn::WithGame for EvalMatch<'_> {
    type Output = Result<EvalLine, Error>;
    fn run<G: dama_game::GameDef>(self) -> Result<EvalLine, Error> {
        eval_match::<G>(
            self.me,
            self.opponent,
            self.cfg,
            self.gen,
            self.k,
            self.progress,
            self.tables,
        )
    }
}

/// The network against one opponent in the arena, each opening played
/// once from each side, with the network's results per side.
fn eval_match<G: dama_game::GameDef>(
    me: &PlayerSpec,
    opponent: &EvalOpponent,
    cfg: &RunConfig,
    gen: u32,
    k: u64,
    progress: &dyn Progress,
    tables: &AnyTables,
) -> Result<EvalLine, Error> {
    let game_rules = cfg.game_rules();
    let rules = game_rules.get::<G>().ok_or_else(|| {
        Error::Config(format!(
            "the run's rules ({game_rules}) are not {}'s",
            G::TITLE
        ))
    })?;
    // Players that use endgame tables (alpha-beta) get the run's.
    let options = dama_eval::BuildOptions {
        device: Some(cfg.run.device),
        tables: tables.clone(),
        rules: Some(game_rules),
        lanes: None,
    };
    let a = dama_eval::factory::<G>(me, &options).map_err(Error::Eval)?;
    let b = dama_eval::factory::<G>(&opponent.spec, &options).map_err(Error::Eval)?;
    let config = dama_eval::MatchConfig {
        games: cfg.eval.games as u32,
        threads: Some(device::or_cores(cfg.run.eval_threads)),
        seed: eval_seed(cfg, gen, k),
        rules,
        ..dama_eval::MatchConfig::default()
    };
    eval_started(progress, gen, config.games, &opponent.label);
    let on_progress = |p: &dama_eval::MatchProgress| {
        progress.event(ProgressEvent::EvalGame { progress: p });
    };
    let r =
        dama_eval::play_match(a.as_ref(), b.as_ref(), &config, &on_progress).map_err(Error::Eval);
    progress.event(ProgressEvent::StageFinished { stage: Stage::Eval });
    Ok(EvalLine::of_match::<G>(
        &opponent.spec,
        &opponent.label,
        &r?,
    ))
}

/// A match's results by the side the first player (`a`) played, named by
/// the game's side keys: what `metrics.jsonl` keeps of an asymmetric game.
pub(crate) fn by_side<G: dama_game::GameDef>(
    r: &dama_eval::MatchResult,
) -> Vec<dama_run::SideResult> {
    let [first, second] = G::geometry().sides;
    let side = |key: &str, w: dama_eval::Wdl| dama_run::SideResult {
        side: key.to_owned(),
        wins: w.wins,
        draws: w.draws,
        losses: w.losses,
    };
    vec![side(first.key, r.a_first), side(second.key, r.a_second)]
}

/// The seed of generation `gen`'s `k`th evaluation match.
fn eval_seed(cfg: &RunConfig, gen: u32, k: u64) -> u64 {
    cfg.run.seed ^ (u64::from(gen) << 16) ^ k
}

/// Reports the start of an evaluation match of `games` games.
fn eval_started(progress: &dyn Progress, gen: u32, games: u32, label: &str) {
    progress.event(ProgressEvent::StageStarted {
        generation: gen,
        stage: Stage::Eval,
        total: u64::from(games),
        opponent: Some(label),
    });
}

/// A checkpoint's short name: its file stem (`gen-0002`).
fn short_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(toml: &str) -> RunConfig {
        RunConfig::parse(toml).unwrap()
    }

    #[test]
    fn eval_players_are_the_specs_the_old_strings_named() {
        let dir = RunDir::new("ck/run");
        for (eval, opts) in [
            ("sims = 8", ",sims=8"),
            ("sims = 8\ndraw_score = -0.25", ",sims=8,draw=-0.25"),
            (
                "sims = 8\ndraw_score = 0.1\nsearch = \"puct\"",
                ",sims=8,draw=0.1,search=puct",
            ),
        ] {
            let cfg = config(&format!(
                "[eval]\ngames = 2\nbaselines = [\"random\", \"ab:depth=2\"]\n{eval}\n"
            ));
            let (me, opponents) = eval_players(&cfg, &dir, 3, 2).unwrap();
            // What the loop used to format and parse again, at self-play's
            // precision (`[selfplay] precision`, default auto).
            let old = |g: u32| -> PlayerSpec {
                format!("ckpt:{}{opts},precision=auto", dir.model(g).display())
                    .parse()
                    .unwrap()
            };
            assert_eq!(me, old(3));
            assert_eq!(opponents.len(), 3);
            assert_eq!(opponents[0].spec, old(2));
            assert_eq!(opponents[0].name, "previous");
            assert_eq!(opponents[0].label, "previous (gen-0002)");
            assert_eq!(opponents[1].spec, PlayerSpec::Random);
            assert_eq!(
                (
                    opponents[2].name.as_str(),
                    opponents[2].label.as_str(),
                    opponents[2].spec_text.as_str()
                ),
                ("ab:depth=2", "ab:depth=2", "ab:depth=2")
            );
            assert_eq!(opponents[2].spec, "alphabeta:depth=2".parse().unwrap());
        }
        let cfg = config("[eval]\ngames = 2\nagainst_previous = false\nbaselines = [\"greedy\"]\n");
        let (_, opponents) = eval_players(&cfg, &dir, 1, 0).unwrap();
        assert_eq!(opponents.len(), 1);
        assert_eq!(opponents[0].spec, PlayerSpec::Greedy);
    }

    fn line(score: f64) -> EvalLine {
        EvalLine {
            opponent: PlayerSpec::Random,
            label: "previous (gen-0001)".into(),
            games: 10,
            wdl: [0, 0, 0],
            score,
            elo: 0.0,
            elo_lo: 0.0,
            elo_hi: 0.0,
            by_side: Vec::new(),
        }
    }

    #[test]
    fn the_gate_needs_the_score_against_the_previous_network() {
        let gated = config("[eval]\ngames = 2\ngate_score = 0.55\n");
        assert!(gate_accepts(&gated, true, &[line(0.55), line(0.0)]));
        assert!(!gate_accepts(&gated, true, &[line(0.5), line(1.0)]));
        // Not evaluated, or no matches: accepted.
        assert!(gate_accepts(&gated, false, &[line(0.5)]));
        assert!(gate_accepts(&gated, true, &[]));
        // No gate, or no match against the previous network: accepted.
        let ungated = config("[eval]\ngames = 2\n");
        assert!(gate_accepts(&ungated, true, &[line(0.0)]));
        let no_previous =
            config("[eval]\ngames = 2\ngate_score = 0.55\nagainst_previous = false\n");
        assert!(gate_accepts(&no_previous, true, &[line(0.0)]));
    }

    #[test]
    fn only_session_settings_may_change_on_resume() {
        let a = config("[run]\ngenerations = 2\n");
        let mut b = a.clone();
        b.run.generations = 9;
        b.run.device = dama_run::DeviceSpec::Cpu;
        b.run.torch_threads = 1;
        b.run.inference_threads = 3;
        assert!(crate::driver::same_run(&a, &b));
        b.run.seed += 1;
        assert!(!crate::driver::same_run(&a, &b));
    }
}
