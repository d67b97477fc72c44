//! `metrics.jsonl`: one JSON object per line, appended as a run goes.
//!
//! Every line is a [`MetricsEvent`], tagged on `"kind"`: `"session"` (one
//! per `dama train` invocation), `"selfplay"`, `"train"` (every few
//! optimizer steps), `"eval"` (one per evaluation match) and `"generation"`
//! (the generation is finished). Every event carries the `"generation"` it
//! belongs to. `docs/run-directory.md` lists every field with its unit.
//!
//! Readers are lenient in the ways a run directory needs:
//!
//! - a run killed mid-write can leave a partial last line: [`read_metrics`]
//!   skips a last line that does not parse;
//! - a line of a kind this version does not know (written by a newer
//!   version) reads as [`MetricsEvent::Unknown`], and keys it does not know
//!   are ignored;
//! - a key missing from a line (written by an older version) reads as 0,
//!   `false` or an empty string, except the run totals of `"generation"`
//!   lines, which are `None` so that readers can recompute them;
//! - a number the writer could not represent (NaN or an infinite Elo, which
//!   JSON writes as `null`) reads as NaN.

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

use crate::files::write_atomic;
use crate::Error;

/// A `null` (what serde_json writes for NaN and ±∞) reads as NaN.
fn real<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// One line of `metrics.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MetricsEvent {
    /// A `dama train` invocation started (or resumed) the run.
    Session(SessionEvent),
    /// A generation's self-play finished.
    Selfplay(SelfplayEvent),
    /// Training progress: every few optimizer steps and the last one.
    Train(TrainEvent),
    /// One evaluation match of a generation's network.
    Eval(EvalEvent),
    /// A generation finished (its `state.json` follows).
    Generation(GenerationEvent),
    /// A distributed run's learner ingested a generation's chunks.
    Learner(LearnerEvent),
    /// One worker's share of a distributed run's generation.
    Worker(WorkerEvent),
    /// A line of a kind this version does not know (a newer writer's).
    /// Never written.
    #[serde(other)]
    Unknown,
}

impl MetricsEvent {
    /// The `"kind"` of every event this version writes, in the order of a
    /// generation.
    pub const KINDS: [&'static str; 5] = ["session", "selfplay", "train", "eval", "generation"];

    /// The kinds only a distributed run's learner writes (`dama learner`),
    /// before the generation's `"generation"` line.
    pub const DISTRIBUTED_KINDS: [&'static str; 2] = ["learner", "worker"];

    /// The generation the event belongs to (`None` for [`MetricsEvent::Unknown`]).
    pub fn generation(&self) -> Option<u32> {
        match self {
            MetricsEvent::Session(e) => Some(e.generation),
            MetricsEvent::Selfplay(e) => Some(e.generation),
            MetricsEvent::Train(e) => Some(e.generation),
            MetricsEvent::Eval(e) => Some(e.generation),
            MetricsEvent::Generation(e) => Some(e.generation),
            MetricsEvent::Learner(e) => Some(e.generation),
            MetricsEvent::Worker(e) => Some(e.generation),
            MetricsEvent::Unknown => None,
        }
    }

    /// The event's `"kind"` (`"unknown"` for [`MetricsEvent::Unknown`]).
    pub fn kind(&self) -> &'static str {
        match self {
            MetricsEvent::Session(_) => "session",
            MetricsEvent::Selfplay(_) => "selfplay",
            MetricsEvent::Train(_) => "train",
            MetricsEvent::Eval(_) => "eval",
            MetricsEvent::Generation(_) => "generation",
            MetricsEvent::Learner(_) => "learner",
            MetricsEvent::Worker(_) => "worker",
            MetricsEvent::Unknown => "unknown",
        }
    }

    /// The JSON keys of each kind of line, `"kind"` included, as this
    /// version writes them: the schema that `docs/run-directory.md`
    /// documents and the Python readers are checked against.
    pub fn schema() -> BTreeMap<&'static str, Vec<String>> {
        let examples = [
            MetricsEvent::Session(SessionEvent::default()),
            MetricsEvent::Selfplay(SelfplayEvent::default()),
            MetricsEvent::Train(TrainEvent::default()),
            MetricsEvent::Eval(EvalEvent {
                by_side: vec![SideResult::default()],
                ..EvalEvent::default()
            }),
            MetricsEvent::Generation(GenerationEvent {
                run_seconds: Some(0.0),
                run_positions: Some(0),
                run_games: Some(0),
                ..GenerationEvent::default()
            }),
        ];
        keys_of(&examples)
    }

    /// The keys of the [`MetricsEvent::DISTRIBUTED_KINDS`], as
    /// [`MetricsEvent::schema`] gives those of the kinds every run writes.
    pub fn distributed_schema() -> BTreeMap<&'static str, Vec<String>> {
        keys_of(&[
            MetricsEvent::Learner(LearnerEvent::default()),
            MetricsEvent::Worker(WorkerEvent::default()),
        ])
    }
}

fn keys_of(examples: &[MetricsEvent]) -> BTreeMap<&'static str, Vec<String>> {
    examples
        .iter()
        .map(|e| {
            let keys = match serde_json::to_value(e) {
                Ok(serde_json::Value::Object(map)) => map.keys().cloned().collect(),
                _ => Vec::new(),
            };
            (e.kind(), keys)
        })
        .collect()
}

/// `"session"`: a `dama train` invocation started or resumed the run; the
/// machine and the inference precision it chose.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionEvent {
    /// The last finished generation when the session started.
    pub generation: u32,
    /// The CPU model (`unknown CPU` when it cannot be read).
    pub cpu: String,
    /// Whether the CPU has fast bf16 instructions (AMX-BF16 or AVX-512-BF16).
    pub cpu_bf16: bool,
    /// `[selfplay] precision` as configured (`auto`, `f32`, `bf16`).
    pub precision_setting: String,
    /// The precision self-play inference runs at (`f32`, `bf16`).
    pub precision: String,
    /// The device, in Rust debug form (`Cpu`, `Cuda(0)`).
    pub device: String,
}

/// `"selfplay"`: the self-play of one generation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SelfplayEvent {
    /// The generation being made.
    pub generation: u32,
    /// Games played.
    pub games: u64,
    /// Training samples recorded (positions searched in full).
    pub samples: u64,
    /// Whole moves played.
    pub moves: u64,
    /// Actions played (jump-by-jump steps of the search), searched or
    /// forced.
    pub steps: u64,
    /// Wall time of self-play, in seconds.
    #[serde(deserialize_with = "real")]
    pub seconds: f64,
    /// Games per hour.
    #[serde(deserialize_with = "real")]
    pub games_per_hour: f64,
    /// Training samples per second.
    #[serde(deserialize_with = "real")]
    pub positions_per_sec: f64,
    /// Positions the network evaluated (cache misses).
    pub net_evals: u64,
    /// Network evaluations per second of self-play.
    #[serde(deserialize_with = "real")]
    pub evals_per_sec: f64,
    /// Network evaluations per second spent in the network.
    #[serde(deserialize_with = "real")]
    pub net_evals_per_net_sec: f64,
    /// Share of self-play time spent in the network (0–1).
    #[serde(deserialize_with = "real")]
    pub net_time_share: f64,
    /// Cores kept busy: the process's CPU time during self-play ÷ its wall
    /// time (0 where the platform cannot measure CPU time).
    #[serde(deserialize_with = "real")]
    pub cores_busy: f64,
    /// Evaluations answered by the evaluation cache.
    pub cache_hits: u64,
    /// Mean positions per network call.
    #[serde(deserialize_with = "real")]
    pub avg_batch: f64,
    /// Mean game length in whole moves.
    #[serde(deserialize_with = "real")]
    pub avg_game_length: f64,
    /// Share of games drawn (0–1).
    #[serde(deserialize_with = "real")]
    pub draw_rate: f64,
    /// White's score (wins plus half the draws) per game, 0–1.
    #[serde(deserialize_with = "real")]
    pub first_player_score: f64,
    /// Games White won.
    pub white_wins: u64,
    /// Games Black won.
    pub black_wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games ended by resignation.
    pub resignations: u64,
    /// Games with resignation disabled (to measure false resignations).
    pub playthrough_games: u64,
    /// Playthrough games in which the side that did not lose had fallen
    /// under the resignation threshold (resigning would have been wrong).
    pub false_resignations: u64,
    /// `false_resignations` over `playthrough_games` (0–1).
    #[serde(deserialize_with = "real")]
    pub false_resignation_rate: f64,
    /// Draws by the no-capture rule.
    pub no_capture_draws: u64,
    /// Draws by repetition.
    pub repetition_draws: u64,
    /// Games stopped at `max_plies` (scored as draws).
    pub move_cap_draws: u64,
    /// Mean captures per game.
    #[serde(deserialize_with = "real")]
    pub captures_per_game: f64,
    /// Games ended by an endgame table's result.
    pub tablebase_endings: u64,
}

/// `"train"`: one optimizer step's figures (every 10 steps and the last
/// step of a generation).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainEvent {
    /// The generation being trained.
    pub generation: u32,
    /// Optimizer steps taken in the run, this one included.
    pub step: u64,
    /// Learning rate of the step.
    #[serde(deserialize_with = "real")]
    pub lr: f64,
    /// Total loss (policy + value + regularisation).
    #[serde(deserialize_with = "real")]
    pub loss: f64,
    /// Policy cross-entropy, in nats.
    #[serde(deserialize_with = "real")]
    pub policy_loss: f64,
    /// Value (win/draw/loss) cross-entropy, in nats.
    #[serde(deserialize_with = "real")]
    pub value_loss: f64,
    /// L2 regularisation term.
    #[serde(deserialize_with = "real")]
    pub reg_loss: f64,
    /// Entropy of the predicted policy over legal moves, in nats.
    #[serde(deserialize_with = "real")]
    pub policy_entropy: f64,
    /// Share of samples whose most likely predicted result is the target's
    /// (0–1).
    #[serde(deserialize_with = "real")]
    pub value_accuracy: f64,
    /// Gradient norm before clipping.
    #[serde(deserialize_with = "real")]
    pub grad_norm: f64,
    /// Training samples per second of the step.
    #[serde(deserialize_with = "real")]
    pub samples_per_sec: f64,
    /// Positions in the replay window.
    pub buffer_positions: u64,
}

/// `"eval"`: one evaluation match of a generation's network.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EvalEvent {
    /// The generation evaluated.
    pub generation: u32,
    /// Optimizer steps taken when it was evaluated.
    pub step: u64,
    /// `previous` for the match against the previous best network,
    /// otherwise the opponent's spec (`random`, `greedy`, …).
    pub opponent: String,
    /// The opponent's full player spec.
    pub opponent_spec: String,
    /// Games played.
    pub games: u32,
    /// Games the network won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the network lost.
    pub losses: u32,
    /// The network's score (win 1, draw ½), 0–1.
    #[serde(deserialize_with = "real")]
    pub score: f64,
    /// Elo difference, network minus opponent (`null`, read as NaN, for a
    /// score of 0 or 1).
    #[serde(deserialize_with = "real")]
    pub elo: f64,
    /// Lower end of the Elo difference's 95% interval.
    #[serde(deserialize_with = "real")]
    pub elo_lo: f64,
    /// Upper end of the Elo difference's 95% interval.
    #[serde(deserialize_with = "real")]
    pub elo_hi: f64,
    /// The network's results per side (`white` then `black`; Turkish Tafl:
    /// `defender` then `king_side`), summing to the totals; absent in runs
    /// written before every game's evaluation kept them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub by_side: Vec<SideResult>,
}

/// The network's results when it played one side of an asymmetric game.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SideResult {
    /// The side (`defender`, `king_side`).
    pub side: String,
    /// Games the network won playing it.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// `"generation"`: a generation finished.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GenerationEvent {
    /// The generation finished.
    pub generation: u32,
    /// Optimizer steps taken in the run.
    pub step: u64,
    /// The generation whose network plays self-play next.
    pub best_generation: u32,
    /// Whether the gate accepted this generation's network.
    pub accepted: bool,
    /// Wall time of the generation (all stages), in seconds.
    #[serde(deserialize_with = "real")]
    pub seconds: f64,
    /// Wall time of its training steps, in seconds.
    #[serde(deserialize_with = "real")]
    pub train_seconds: f64,
    /// Wall time of its self-play, in seconds.
    #[serde(deserialize_with = "real")]
    pub selfplay_seconds: f64,
    /// Positions in the replay window.
    pub buffer_positions: u64,
    /// Total loss of the last training step (`null`, read as NaN, when the
    /// generation took no step).
    #[serde(deserialize_with = "real")]
    pub loss: f64,
    /// Seconds spent in generations so far, summed over sessions (the
    /// learning curve's time axis; `None` in runs older than the key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_seconds: Option<f64>,
    /// Self-play positions (training samples) so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_positions: Option<u64>,
    /// Self-play games so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_games: Option<u64>,
}

/// `"learner"`: what a distributed run's learner ingested for one
/// generation, and how fast (written before the generation's
/// `"generation"` line).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LearnerEvent {
    /// The generation being made.
    pub generation: u32,
    /// Chunks consumed (used, stale and bad).
    pub chunks: u64,
    /// Games that entered the replay window.
    pub games: u64,
    /// Training samples in them.
    pub samples: u64,
    /// Chunks skipped as too stale.
    pub stale_chunks: u64,
    /// Games in them.
    pub stale_games: u64,
    /// Chunks that did not decode, skipped.
    pub bad_chunks: u64,
    /// Share of the consumed games played by a network older than the one
    /// published when they were consumed (0–1; used and skipped games).
    #[serde(deserialize_with = "real")]
    pub stale_share: f64,
    /// Mean staleness of the used games, in generations.
    #[serde(deserialize_with = "real")]
    pub mean_staleness: f64,
    /// The bound: games more than this many generations behind are skipped.
    pub max_staleness: u32,
    /// Workers whose chunks were consumed.
    pub workers: u64,
    /// Wall time of the ingest stage (waiting for and reading chunks).
    #[serde(deserialize_with = "real")]
    pub ingest_seconds: f64,
    /// Wall time spent reading and decoding chunks.
    #[serde(deserialize_with = "real")]
    pub read_seconds: f64,
    /// Learner time per consumed chunk: reading, decoding and adding it to
    /// the window.
    #[serde(deserialize_with = "real")]
    pub seconds_per_chunk: f64,
    /// Games per hour arriving from all workers, since the previous
    /// generation's ingest.
    #[serde(deserialize_with = "real")]
    pub games_per_hour: f64,
    /// Training samples per second of the generation's training steps.
    #[serde(deserialize_with = "real")]
    pub samples_per_sec: f64,
}

/// `"worker"`: one worker's chunks in a generation of a distributed run
/// (one line per worker whose chunks the generation consumed).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkerEvent {
    /// The learner generation.
    pub generation: u32,
    /// The worker's id.
    pub worker: String,
    /// Its chunks consumed.
    pub chunks: u64,
    /// Their games (used and stale).
    pub games: u64,
    /// The newest network generation that played them.
    pub model_generation: u32,
    /// Its games per hour arriving at the learner since the previous
    /// generation's ingest.
    #[serde(deserialize_with = "real")]
    pub games_per_hour: f64,
    /// Its games per hour as it reports them (`workers/<id>.json`; `null`
    /// when it wrote none).
    #[serde(deserialize_with = "real")]
    pub reported_games_per_hour: f64,
}

/// Appends events to a metrics file.
#[derive(Debug)]
pub struct MetricsWriter {
    path: PathBuf,
}

impl MetricsWriter {
    /// A writer appending to `path` (created when first written).
    pub fn new(path: impl Into<PathBuf>) -> MetricsWriter {
        MetricsWriter { path: path.into() }
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line (the file is append-only: a line is never changed
    /// once written; resume drops whole lines with
    /// [`truncate_after_generation`]).
    ///
    /// # Errors
    /// I/O errors, naming the file; [`Error::Encode`] for
    /// [`MetricsEvent::Unknown`], which is never written.
    pub fn write(&self, event: &MetricsEvent) -> Result<(), Error> {
        if *event == MetricsEvent::Unknown {
            return Err(Error::Encode {
                what: "a metrics event of unknown kind",
                source: serde::ser::Error::custom("MetricsEvent::Unknown is never written"),
            });
        }
        let mut line = serde_json::to_string(event).map_err(|source| Error::Encode {
            what: "a metrics event",
            source,
        })?;
        line.push('\n');
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| Error::io(&self.path, e))?;
        f.write_all(line.as_bytes())
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// The non-blank lines of a metrics file, each with its parse; a last line
/// that does not parse (a killed writer's) is dropped.
fn parsed_lines<T>(
    path: &Path,
    text: &str,
    parse: impl Fn(&str) -> Result<T, serde_json::Error>,
) -> Result<Vec<(String, T)>, Error> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        match parse(line) {
            Ok(v) => out.push(((*line).to_owned(), v)),
            Err(_) if i + 1 == lines.len() => {}
            Err(source) => {
                return Err(Error::MetricsLine {
                    path: path.to_path_buf(),
                    line: i + 1,
                    source,
                })
            }
        }
    }
    Ok(out)
}

/// One line: a JSON object without a `"kind"` is [`MetricsEvent::Unknown`]
/// (like one of an unknown kind); a known kind must have the known types.
fn parse_event(line: &str) -> Result<MetricsEvent, serde_json::Error> {
    let value: serde_json::Value = serde_json::from_str(line)?;
    match &value {
        serde_json::Value::Object(map) if !map.contains_key("kind") => Ok(MetricsEvent::Unknown),
        _ => serde_json::from_value(value),
    }
}

/// Reads every event of a metrics file.
///
/// # Errors
/// I/O errors, or a line other than the last that is not a JSON object or
/// not a valid event of its kind.
pub fn read_metrics(path: &Path) -> Result<Vec<MetricsEvent>, Error> {
    let text = fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    Ok(parsed_lines(path, &text, parse_event)?
        .into_iter()
        .map(|(_, e)| e)
        .collect())
}

/// Self-play positions (training samples) and games recorded in the
/// `"selfplay"` lines of a metrics file (0 and 0 if it does not exist): the
/// totals a resumed run continues from.
///
/// # Errors
/// As [`read_metrics`].
pub fn selfplay_totals(path: &Path) -> Result<(u64, u64), Error> {
    if !path.exists() {
        return Ok((0, 0));
    }
    let mut positions = 0;
    let mut games = 0;
    for event in read_metrics(path)? {
        if let MetricsEvent::Selfplay(sp) = event {
            positions += sp.samples;
            games += sp.games;
        }
    }
    Ok((positions, games))
}

/// Drops the lines of generations after `generation` (used by resume, so a
/// generation interrupted before its checkpoint is not counted twice), and
/// a partial last line. The lines kept are kept byte for byte, whatever
/// their kind.
///
/// # Errors
/// I/O errors, or a line other than the last that is not a JSON object.
pub fn truncate_after_generation(path: &Path, generation: u32) -> Result<(), Error> {
    /// The one key every line shares.
    #[derive(Deserialize)]
    struct Line {
        generation: Option<u64>,
    }
    if !path.exists() {
        return Ok(());
    }
    let text = fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let kept: String = parsed_lines(path, &text, |l| serde_json::from_str::<Line>(l))?
        .into_iter()
        .filter(|(_, l)| l.generation.is_none_or(|g| g <= u64::from(generation)))
        .map(|(raw, _)| raw + "\n")
        .collect();
    write_atomic(path, kept.as_bytes()).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn train(generation: u32, loss: f64) -> MetricsEvent {
        MetricsEvent::Train(TrainEvent {
            generation,
            loss,
            ..TrainEvent::default()
        })
    }

    #[test]
    fn lines_round_trip_and_partial_last_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.jsonl");
        let w = MetricsWriter::new(&path);
        w.write(&train(1, 2.5)).unwrap();
        w.write(&train(2, 2.0)).unwrap();
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"kind\": \"tr").unwrap();
        let lines = read_metrics(&path).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1], train(2, 2.0));
        truncate_after_generation(&path, 1).unwrap();
        assert_eq!(read_metrics(&path).unwrap(), [train(1, 2.5)]);
    }

    #[test]
    fn truncation_keeps_unknown_kinds_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.jsonl");
        let future = r#"{"kind":"future","generation":1,"x":[1,2]}"#;
        let later = r#"{"kind":"future","generation":2,"x":3}"#;
        fs::write(&path, format!("{future}\n{later}\n")).unwrap();
        assert_eq!(
            read_metrics(&path).unwrap(),
            [MetricsEvent::Unknown, MetricsEvent::Unknown]
        );
        truncate_after_generation(&path, 1).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), format!("{future}\n"));
    }

    #[test]
    fn selfplay_totals_sum_the_selfplay_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.jsonl");
        assert_eq!(selfplay_totals(&path).unwrap(), (0, 0));
        // Lines of an older writer, with few keys, and a train line with a
        // key named like a self-play one.
        fs::write(
            &path,
            concat!(
                r#"{"kind": "selfplay", "generation": 1, "samples": 100, "games": 4}"#,
                "\n",
                r#"{"kind": "train", "generation": 1, "samples": 7}"#,
                "\n",
                r#"{"kind": "selfplay", "generation": 2, "samples": 50, "games": 2}"#,
                "\n"
            ),
        )
        .unwrap();
        assert_eq!(selfplay_totals(&path).unwrap(), (150, 6));
    }

    #[test]
    fn a_bad_line_in_the_middle_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.jsonl");
        fs::write(&path, "{\"a\":1}\nnot json\n{\"a\":2}\n").unwrap();
        let err = read_metrics(&path).unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
        assert!(std::error::Error::source(&err).is_some());
        // A known kind with a value of the wrong type is an error too.
        fs::write(
            &path,
            "{\"kind\":\"train\",\"generation\":\"one\"}\n{\"a\":2}\n",
        )
        .unwrap();
        assert!(read_metrics(&path).is_err());
    }

    #[test]
    fn events_are_tagged_on_kind_and_null_reads_as_nan() {
        let e = MetricsEvent::Eval(EvalEvent {
            generation: 3,
            opponent: "previous".into(),
            elo: f64::INFINITY,
            ..EvalEvent::default()
        });
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["kind"], "eval");
        assert_eq!(v["generation"], 3);
        assert!(v["elo"].is_null(), "an infinite Elo is written as null");
        let back: MetricsEvent = serde_json::from_value(v).unwrap();
        let MetricsEvent::Eval(back) = back else {
            panic!("not an eval event: {back:?}")
        };
        assert!(back.elo.is_nan());
        assert_eq!(back.opponent, "previous");
    }

    #[test]
    fn the_run_totals_are_absent_in_old_generation_lines() {
        let old: MetricsEvent =
            serde_json::from_str(r#"{"kind":"generation","generation":2,"seconds":4.0}"#).unwrap();
        let MetricsEvent::Generation(g) = old else {
            panic!("{old:?}")
        };
        assert_eq!((g.generation, g.seconds, g.run_seconds), (2, 4.0, None));
    }

    #[test]
    fn the_unknown_kind_is_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("metrics.jsonl");
        assert!(MetricsWriter::new(&path)
            .write(&MetricsEvent::Unknown)
            .is_err());
        assert!(!path.exists());
    }

    #[test]
    fn the_schema_names_every_kind_and_key() {
        let schema = MetricsEvent::schema();
        assert_eq!(
            schema.keys().copied().collect::<Vec<_>>(),
            ["eval", "generation", "selfplay", "session", "train"]
        );
        for (kind, keys) in &schema {
            assert!(keys.iter().any(|k| k == "kind"), "{kind}");
            assert!(keys.iter().any(|k| k == "generation"), "{kind}");
        }
        assert!(schema["generation"].iter().any(|k| k == "run_games"));
        assert!(schema["selfplay"].iter().any(|k| k == "cores_busy"));
        assert_eq!(schema["selfplay"].len(), 31);
    }

    /// docs/run-directory.md documents every key of every kind.
    #[test]
    fn the_documentation_names_every_key() {
        let doc = fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/run-directory.md"),
        )
        .unwrap();
        for (kind, keys) in MetricsEvent::schema()
            .into_iter()
            .chain(MetricsEvent::distributed_schema())
        {
            let section = doc
                .split("\n### ")
                .find(|s| s.starts_with(&format!("`{kind}`")))
                .unwrap_or_else(|| panic!("docs/run-directory.md has no section ### `{kind}`"));
            for key in keys {
                assert!(
                    section.contains(&format!("| `{key}` |")),
                    "docs/run-directory.md: section `{kind}` does not document `{key}`"
                );
            }
        }
    }
}
