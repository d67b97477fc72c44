//! The files of a distributed run (issue 18): self-play workers feed one
//! learner through the run directory.
//!
//! ```text
//! <run>/
//! ├── games/w-<worker>-g<MMMM>-<SSSSSS>.games  a worker's chunk: model generation M, sequence S
//! ├── games/w-<worker>-g<MMMM>-<SSSSSS>-n<NNNN>.samples
//! │                                            the same in a learned-evaluator run: N games' samples
//! ├── models/latest.json                       ModelPointer: the network workers play with
//! ├── workers/<worker>.json                    WorkerStatus: a worker's progress
//! ├── learner/gen-NNNN.json                    Ledger: the chunks generation N consumed
//! └── desired-workers                          the driver's wanted number of workers (text)
//! ```
//!
//! Every name here is a *key*: a path relative to the run directory with
//! `/` separators, the same on a local disk and in an object store
//! ([`crate::store`]).

use serde::{Deserialize, Serialize};

/// The longest worker id (bytes).
pub const MAX_WORKER_ID: usize = 64;

/// The largest chunk sequence number (six digits).
pub const MAX_SEQUENCE: u64 = 999_999;

/// `config.toml`: the frozen config, which workers read.
pub const CONFIG_KEY: &str = "config.toml";
/// `games/`: the prefix of every chunk.
pub const GAMES_PREFIX: &str = "games/";
/// `models/latest.json`: the model pointer.
pub const POINTER_KEY: &str = "models/latest.json";
/// `workers/`: the prefix of the workers' status files.
pub const WORKERS_PREFIX: &str = "workers/";
/// `desired-workers`: how many workers the driver should keep running.
pub const DESIRED_WORKERS_KEY: &str = "desired-workers";

/// `models/gen-NNNN.safetensors`: the key of a generation's weights.
pub fn model_key(generation: u32) -> String {
    format!("models/gen-{generation:04}.safetensors")
}

/// `models/gen-NNNN.nnue`: the key of a learned-evaluator run's network of
/// a generation (generation 0, the handcrafted evaluation, has none).
pub fn evaluator_key(generation: u32) -> String {
    format!("models/gen-{generation:04}.nnue")
}

/// `models/gen-NNNN.json`: the key of a generation's sidecar.
pub fn sidecar_key(generation: u32) -> String {
    format!("models/gen-{generation:04}.json")
}

/// `workers/<worker>.json`: the key of a worker's status file.
pub fn status_key(worker: &WorkerId) -> String {
    format!("{WORKERS_PREFIX}{worker}.json")
}

/// `learner/gen-NNNN.json`: the key of a generation's ledger.
pub fn ledger_key(generation: u32) -> String {
    format!("learner/gen-{generation:04}.json")
}

/// A worker's id: 1 to [`MAX_WORKER_ID`] characters of `A-Z a-z 0-9 . _ -`
/// (`hostname-pid-random`), unique per worker process, so that the chunk
/// names of two workers never collide.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct WorkerId(String);

/// A worker id that is empty, too long or has a character outside
/// `A-Z a-z 0-9 . _ -`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("worker id `{0}`: must be 1 to 64 characters of A-Z a-z 0-9 . _ -")]
pub struct BadWorkerId(pub String);

impl WorkerId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for WorkerId {
    type Err = BadWorkerId;
    fn from_str(s: &str) -> Result<WorkerId, BadWorkerId> {
        let ok = !s.is_empty()
            && s.len() <= MAX_WORKER_ID
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if ok {
            Ok(WorkerId(s.to_owned()))
        } else {
            Err(BadWorkerId(s.chars().take(80).collect()))
        }
    }
}

impl TryFrom<String> for WorkerId {
    type Error = BadWorkerId;
    fn try_from(s: String) -> Result<WorkerId, BadWorkerId> {
        s.parse()
    }
}

impl From<WorkerId> for String {
    fn from(w: WorkerId) -> String {
        w.0
    }
}

impl std::fmt::Display for WorkerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a chunk holds, which its name's extension tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChunkKind {
    /// `.games`: game records of a network run (`dama_selfplay::record`),
    /// which count their games themselves.
    Games,
    /// `.samples`: a learned-evaluator run's training positions (a
    /// `dama_nnue` sample file) of `games` games; the sample file does not
    /// record its games, so the name does (`-n<games>`).
    Samples {
        /// Games played for the chunk.
        games: u32,
    },
}

/// The largest game count a samples chunk's name may carry.
pub const MAX_CHUNK_GAMES: u32 = 999_999;

/// The name of a worker's chunk: `w-<worker>-g<MMMM>-<SSSSSS>.games` (or
/// `w-<worker>-g<MMMM>-<SSSSSS>-n<NNNN>.samples`, [`ChunkKind`]), the
/// worker, the generation of the network (or learned evaluator) that played
/// its games, and the worker's sequence number (from 0, one per chunk).
///
/// Names sort by worker, then sequence.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChunkName {
    /// The worker that wrote it.
    pub worker: WorkerId,
    /// The generation of the network that played its games.
    pub generation: u32,
    /// The worker's sequence number.
    pub sequence: u64,
    /// What it holds.
    pub kind: ChunkKind,
}

/// `s` is `min..=max` ASCII digits.
fn digits(s: &str, min: usize, max: usize) -> bool {
    (min..=max).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
}

impl ChunkName {
    /// The file name.
    pub fn file_name(&self) -> String {
        let stem = format!(
            "w-{}-g{:04}-{:06}",
            self.worker, self.generation, self.sequence
        );
        match self.kind {
            ChunkKind::Games => format!("{stem}.games"),
            ChunkKind::Samples { games } => format!("{stem}-n{games:04}.samples"),
        }
    }

    /// The key (`games/<file name>`).
    pub fn key(&self) -> String {
        format!("{GAMES_PREFIX}{}", self.file_name())
    }

    /// Parses a file name (or a key: the part after the last `/`); `None`
    /// for anything else, such as a `dama train` chunk or a temporary file.
    pub fn parse(name: &str) -> Option<ChunkName> {
        let name = name.rsplit('/').next()?;
        let (rest, kind) = if let Some(rest) = name.strip_suffix(".games") {
            (rest, ChunkKind::Games)
        } else {
            let (rest, games) = name.strip_suffix(".samples")?.rsplit_once("-n")?;
            if !digits(games, 4, 6) {
                return None;
            }
            (
                rest,
                ChunkKind::Samples {
                    games: games.parse().ok()?,
                },
            )
        };
        let rest = rest.strip_prefix("w-")?;
        let (rest, seq) = rest.rsplit_once('-')?;
        let (worker, generation) = rest.rsplit_once("-g")?;
        if !digits(seq, 6, 6) || !digits(generation, 4, 9) {
            return None;
        }
        Some(ChunkName {
            worker: worker.parse().ok()?,
            generation: generation.parse().ok()?,
            sequence: seq.parse().ok()?,
            kind,
        })
    }
}

impl std::fmt::Display for ChunkName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.file_name())
    }
}

/// `models/latest.json`: the network workers play with. The learner writes
/// it after the network's files (and after `state.json`), so a reader that
/// sees a pointer finds the whole network it names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPointer {
    /// Format version, [`ModelPointer::VERSION`].
    pub version: u32,
    /// The generation whose network plays self-play (the learner's
    /// `best_generation`). In a learned-evaluator run, generation 0 is the
    /// handcrafted evaluation, which has no file; a later one's file is
    /// [`evaluator_key`].
    pub generation: u32,
    /// The learner's last finished generation.
    pub learner_generation: u32,
    /// True once the learner has finished its last generation: workers
    /// stop.
    pub done: bool,
}

impl ModelPointer {
    /// The format version written today.
    pub const VERSION: u32 = 1;
}

/// `workers/<worker>.json`: a worker's progress, rewritten after each chunk
/// it uploads (the driver prints it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkerStatus {
    /// Format version, 1.
    pub version: u32,
    /// The worker's id.
    pub worker: String,
    /// The host it runs on.
    pub host: String,
    /// Its process id.
    pub pid: u32,
    /// The generation of the network it plays with.
    pub model_generation: u32,
    /// Chunks uploaded.
    pub chunks: u64,
    /// Games played and uploaded.
    pub games: u64,
    /// Training samples in them.
    pub samples: u64,
    /// Seconds since it started.
    pub seconds: f64,
    /// Seconds spent playing (the rest: waiting, loading, uploading).
    pub play_seconds: f64,
    /// Games per hour of wall time since it started.
    pub games_per_hour: f64,
    /// Unix time of this update, in seconds.
    pub updated_unix: f64,
}

/// What the learner did with a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkUse {
    /// Its games went into the replay window.
    Used,
    /// Played by a network older than the staleness bound allows: skipped.
    Stale,
    /// It did not decode (truncated, altered, another format): skipped.
    Bad,
}

/// One chunk of a ledger.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerEntry {
    /// The chunk's file name (`w-…-g….games`).
    pub chunk: String,
    /// Games in it (0 for a bad chunk).
    pub games: u64,
    /// What the learner did with it.
    #[serde(rename = "use")]
    pub usage: ChunkUse,
}

/// `learner/gen-NNNN.json`: the chunks the learner consumed in a generation,
/// in the order their games entered the replay window. Written before the
/// generation's `state.json`; ledgers of generations after `state.json`'s
/// are an unfinished attempt's and are ignored (its chunks are consumed
/// again). The union of the finished generations' ledgers is every chunk
/// ever consumed, so a resumed learner counts no game twice and loses none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// Format version, [`Ledger::VERSION`].
    pub version: u32,
    /// The learner generation.
    pub generation: u32,
    /// Its chunks.
    pub chunks: Vec<LedgerEntry>,
}

impl Ledger {
    /// The format version written today.
    pub const VERSION: u32 = 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_names_round_trip_and_reject_other_files() {
        let name = ChunkName {
            worker: "host-a.b_c-123-9f3e".parse().unwrap(),
            generation: 12,
            sequence: 7,
            kind: ChunkKind::Games,
        };
        assert_eq!(name.file_name(), "w-host-a.b_c-123-9f3e-g0012-000007.games");
        assert_eq!(ChunkName::parse(&name.key()), Some(name.clone()));
        assert_eq!(ChunkName::parse(&name.file_name()), Some(name));
        // A worker id may hold `-n` and `-g`: the name is read from the right.
        let samples = ChunkName {
            worker: "h-n1-g2-x".parse().unwrap(),
            generation: 3,
            sequence: 41,
            kind: ChunkKind::Samples { games: 16 },
        };
        assert_eq!(
            samples.file_name(),
            "w-h-n1-g2-x-g0003-000041-n0016.samples"
        );
        assert_eq!(ChunkName::parse(&samples.key()), Some(samples));
        for other in [
            "gen-0001-000.games",
            "w-x-g0001-000001.games.tmp",
            "w--g0001-000001.games",
            "w-x-g01-000001.games",
            "w-x-g0001-1.games",
            "w-x y-g0001-000001.games",
            "w-x-g0001-000001.samples",
            "w-x-g0001-000001-n16.samples",
            "w-x-g0001-000001-n0016.samples.tmp",
            "w-x-g0001-000001-n1234567.samples",
        ] {
            assert_eq!(ChunkName::parse(other), None, "{other}");
        }
    }

    #[test]
    fn worker_ids_are_bounded() {
        assert!("a".parse::<WorkerId>().is_ok());
        assert!("".parse::<WorkerId>().is_err());
        assert!("a/b".parse::<WorkerId>().is_err());
        assert!("x".repeat(65).parse::<WorkerId>().is_err());
        assert!(serde_json::from_str::<WorkerId>("\"a b\"").is_err());
    }

    #[test]
    fn pointer_and_ledger_round_trip() {
        let p = ModelPointer {
            version: 1,
            generation: 3,
            learner_generation: 4,
            done: false,
        };
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<ModelPointer>(&text).unwrap(), p);
        let l = Ledger {
            version: 1,
            generation: 2,
            chunks: vec![LedgerEntry {
                chunk: "w-a-g0001-000000.games".into(),
                games: 4,
                usage: ChunkUse::Stale,
            }],
        };
        let text = serde_json::to_string(&l).unwrap();
        assert!(text.contains("\"use\":\"stale\""), "{text}");
        assert_eq!(serde_json::from_str::<Ledger>(&text).unwrap(), l);
    }
}
