//! Progress of a training run, reported to the caller: the library prints
//! nothing and draws no bars; the binary (`dama train`) turns these events
//! into indicatif progress bars and lines on stderr.

use std::time::Duration;

use dama_eval::MatchProgress;
use dama_nn::StepMetrics;
use dama_run::dist::WorkerStatus;
use dama_run::metrics::SelfplayEvent;
use dama_run::{LearnerEvent, WorkerEvent};

use crate::run::EvalLine;
use crate::selfplay::SelfplayStats;

/// A stage of a generation that reports progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Self-play games (units: games).
    Selfplay,
    /// Training steps (units: optimizer steps).
    Train,
    /// One evaluation match (units: games).
    Eval,
    /// A distributed run's learner waits for and reads workers' chunks
    /// (units: games).
    Ingest,
}

/// One thing a training run reports while it runs.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProgressEvent<'a> {
    /// A note for the user (the inference precision, the endgame tables
    /// used or why none are).
    Note(&'a str),
    /// Something the user should act on (a precision setting that is slow
    /// on this CPU).
    Warning(&'a str),
    /// A stage of generation `generation` starts, with `total` units of
    /// work; `opponent` names the opponent of an evaluation match.
    StageStarted {
        /// The generation being made.
        generation: u32,
        /// The stage.
        stage: Stage,
        /// Units of work planned (games or steps).
        total: u64,
        /// The opponent's short name (`Stage::Eval` only).
        opponent: Option<&'a str>,
    },
    /// A self-play game finished; `stats` are the totals so far.
    SelfplayGame {
        /// Self-play counters so far.
        stats: &'a SelfplayStats,
    },
    /// A training step finished.
    TrainStep {
        /// What the step measured.
        metrics: &'a StepMetrics,
    },
    /// Training steps done so far and the loss (a learned-evaluator run's
    /// trainer, which reports every few steps).
    TrainSteps {
        /// Steps done in this stage.
        done: u64,
        /// The recent steps' mean loss.
        loss: f64,
    },
    /// A game of an evaluation match finished.
    EvalGame {
        /// The match so far.
        progress: &'a MatchProgress,
    },
    /// The current stage finished (or was stopped).
    StageFinished {
        /// The stage.
        stage: Stage,
    },
    /// A generation was committed.
    GenerationFinished(&'a GenerationReport),
    /// A distributed run's learner consumed chunks: `games` of `target`
    /// so far in this generation, from `chunks` chunks.
    Ingested {
        /// Games into the replay window so far.
        games: u64,
        /// Chunks consumed so far.
        chunks: u64,
    },
    /// A distributed run's learner finished a generation's ingest and
    /// training: its `"learner"` line and one `"worker"` line per worker.
    Learner {
        /// The learner's figures.
        learner: &'a LearnerEvent,
        /// Each worker's.
        workers: &'a [WorkerEvent],
    },
    /// A worker uploaded a chunk.
    ChunkUploaded {
        /// The chunk's name.
        chunk: &'a str,
        /// The worker's totals.
        status: &'a WorkerStatus,
    },
}

/// What a finished generation did, for the one-line summary the binary
/// prints; the same for every kind of run.
#[derive(Clone, Debug)]
pub struct GenerationReport {
    /// The generation.
    pub generation: u32,
    /// Its self-play figures (its `"selfplay"` line).
    pub selfplay: SelfplayEvent,
    /// The training loss (NaN when no step was taken).
    pub loss: f64,
    /// Positions in the window it trained on.
    pub window: u64,
    /// Its evaluation matches (empty when evaluation was not due).
    pub evals: Vec<EvalLine>,
    /// Whether the gate accepted its network.
    pub accepted: bool,
    /// Wall time of the generation.
    pub took: Duration,
}

/// Receives a training run's [`ProgressEvent`]s. Evaluation matches report
/// from the arena's worker threads, hence `Sync` and `&self`.
pub trait Progress: Sync {
    /// Called for each event, in order on any one thread.
    fn event(&self, event: ProgressEvent<'_>);
}

/// Ignores every event.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn event(&self, _: ProgressEvent<'_>) {}
}

impl<F: Fn(ProgressEvent<'_>) + Sync> Progress for F {
    fn event(&self, event: ProgressEvent<'_>) {
        self(event);
    }
}
