//! Player specs: the short strings that name a player on the command line.
//!
//! | spec | player |
//! |------|--------|
//! | `random` | a uniformly random legal move |
//! | `greedy` | best material after the reply's best capture |
//! | `alphabeta:depth=N` | alpha-beta to `N` plies |
//! | `alphabeta:time=MS` | alpha-beta, iterative deepening for `MS` ms per move |
//! | `alphabeta:…,eval=PATH` | alpha-beta with a learned evaluator file (`dama nnue`) |
//! | `alphabeta:…,eval=shipped` | alpha-beta with the learned evaluator dama ships (`networks/`) |
//! | `alphabeta:…,threads=N` | alpha-beta on `N` threads (Lazy SMP, `1..=64`, default 1) |
//! | `mcts:sims=N` | pure MCTS with random rollouts, `N` simulations per decision |
//! | `ckpt:PATH[,sims=N\|time=MS][,search=gumbel\|puct]` | a checkpoint with search, `N` simulations per decision or `MS` ms per move |
//! | `policy:PATH` | a checkpoint's raw policy, no search |
//! | `engine:PATH[,time=MS]` | another program speaking dama's line protocol (`docs/protocol.md`), `go time MS` per move (default: its own limit) |
//!
//! Options after the colon are `key=value` pairs separated by commas
//! (`alphabeta:depth=6,tt=64`); a `ckpt:`/`policy:` spec starts with the path.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use dama_mcts::{Algorithm, MAX_SIMULATIONS};
use serde::{Deserialize, Serialize};

use crate::Error;
use dama_game::own::{
    EvalSource, MAX_SEARCH_DEPTH, MAX_SEARCH_THREADS as MAX_THREADS, MAX_SEARCH_TT_MB,
};
pub use dama_game::AlphaBetaLimit;

/// How much a checkpoint player searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchBudget {
    /// Simulations per decision (one search per jump-by-jump step that has a
    /// choice).
    Sims(u32),
    /// Wall-clock time per whole move: every decision of the move (the jumps
    /// of a capture included) shares it; forced steps cost nothing.
    /// At most [`MAX_MOVE_TIME`].
    Time(Duration),
}

impl SearchBudget {
    /// The simulations, if the budget is a simulation count.
    #[must_use]
    pub fn sims(self) -> Option<u32> {
        match self {
            SearchBudget::Sims(n) => Some(n),
            SearchBudget::Time(_) => None,
        }
    }
}

impl fmt::Display for SearchBudget {
    /// `200 simulations` or `100 ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchBudget::Sims(n) => write!(f, "{n} simulations"),
            SearchBudget::Time(d) => write!(f, "{} ms", d.as_millis()),
        }
    }
}

/// The longest time per move a spec may ask for (`time=3600000`, an hour).
pub const MAX_MOVE_TIME: Duration = Duration::from_millis(MAX_MOVE_TIME_MS);

/// A parsed player spec. [`fmt::Display`] writes it back in canonical form,
/// which is also the player's name in results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayerSpec {
    /// A uniformly random legal move.
    Random,
    /// The move that leaves the best material balance after the reply's best
    /// capture.
    Greedy,
    /// The classical alpha-beta engine.
    AlphaBeta {
        /// Depth or time per move.
        limit: AlphaBetaLimit,
        /// Transposition table size in MiB (default 16).
        tt_mb: usize,
        /// A learned evaluation (`eval=shipped`, the network dama ships,
        /// or `eval=PATH`, an evaluator file) instead of the handcrafted
        /// one.
        #[serde(default)]
        eval: Option<EvalSource>,
        /// Search threads (`threads=N`, Lazy SMP; default 1, at most
        /// [`dama_game::own::MAX_SEARCH_THREADS`]).
        #[serde(default = "default_threads")]
        threads: usize,
    },
    /// Pure MCTS with random rollouts.
    Mcts {
        /// Simulations per decision.
        sims: u32,
    },
    /// A checkpoint with search.
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// Simulations per decision (default 200) or time per move.
        budget: SearchBudget,
        /// Root search (default [`DEFAULT_CKPT_SEARCH`]).
        search: Algorithm,
        /// What a draw is worth to the player in its search
        /// ([`dama_mcts::SearchConfig::draw_score`]; default 0, neutral;
        /// negative values are contempt for draws).
        draw_score: f32,
        /// How the search feeds the network (`batch=N`, `threads=N`).
        #[serde(default)]
        inference: Inference,
    },
    /// A checkpoint's raw policy (the most probable move).
    Policy {
        /// The checkpoint file.
        path: PathBuf,
    },
    /// Another program speaking dama's line protocol (`docs/protocol.md`)
    /// on its standard input and output: a frozen build of an earlier
    /// commit, or another engine.
    Engine {
        /// The program (a wrapper script for one that needs arguments).
        path: PathBuf,
        /// Milliseconds per move (`go time MS`); `None`: the engine's own
        /// limit (`go`).
        #[serde(default)]
        time_ms: Option<u64>,
    },
}

/// How a checkpoint player runs its network: leaves gathered per network
/// call of its search (`batch=N`, kept apart by virtual loss, as lc0 and
/// KataGo do), copies of the network evaluating parts of each call at once
/// (`threads=N`, one core each; see `dama_nn::NnEvaluator::with_lanes`)
/// the numbers they compute with (`precision=auto|f32|bf16`) and whether
/// a move's search starts from the last move's tree (`reuse=on|off`).
/// `None` takes the player's default: see [`Inference::leaves_for`],
/// [`Inference::lanes_or`], [`Inference::precision_for`] and
/// [`Inference::reuse_for`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inference {
    /// Leaves per network call of one search (1..=[`MAX_LEAF_BATCH`]).
    pub leaves: Option<u32>,
    /// Network copies (threads) evaluating a call (1..=[`MAX_LANES`]).
    pub lanes: Option<usize>,
    /// Numbers the network computes with (`precision=auto|f32|bf16`).
    #[serde(default)]
    pub precision: Option<NetPrecision>,
    /// Whether a move's search starts from the subtree of the player's
    /// last search that holds the position (`reuse=on|off`).
    #[serde(default)]
    pub reuse: Option<bool>,
}

/// The numbers a checkpoint player's network computes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetPrecision {
    /// bfloat16 on a CPU that runs it fast (AMX-BF16 or AVX-512-BF16,
    /// detected at run time), else 32-bit floats.
    Auto,
    /// 32-bit floats.
    F32,
    /// bfloat16 (slow on CPUs without the instructions above).
    Bf16,
}

impl FromStr for NetPrecision {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "auto" => Ok(NetPrecision::Auto),
            "f32" => Ok(NetPrecision::F32),
            "bf16" => Ok(NetPrecision::Bf16),
            _ => Err(Error::Spec(format!(
                "`ckpt`: precision must be auto, f32 or bf16, got `{s}`"
            ))),
        }
    }
}

impl fmt::Display for NetPrecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NetPrecision::Auto => "auto",
            NetPrecision::F32 => "f32",
            NetPrecision::Bf16 => "bf16",
        })
    }
}

/// The most leaves one search gathers per network call.
pub const MAX_LEAF_BATCH: u32 = 256;

/// The most network copies (threads) one player evaluates with.
pub const MAX_LANES: usize = 64;

/// Leaves per network call and lane of a timed PUCT search on a CPU when
/// the spec does not say (`batch=`): 32 leaves on the 2 lanes of a 2-core
/// AMD EPYC, measured with the networks of `configs/quick.toml` and
/// `configs/strong.toml` (docs/benchmarks.md). A round of leaves is one
/// network call, and the clock is read between rounds, so the batch grows
/// with the lanes that share it rather than the time a call takes.
pub const DEFAULT_CPU_TIMED_BATCH_PER_LANE: u32 = 16;

/// Leaves per network call of a search on a GPU when the spec does not say.
pub const DEFAULT_CUDA_BATCH: u32 = 8;

impl Inference {
    /// The leaves per call of a search to `budget` with `algorithm` on a
    /// GPU (`cuda`) or a CPU with `lanes` network copies: the spec's, else
    /// [`DEFAULT_CUDA_BATCH`] on a GPU, [`DEFAULT_CPU_TIMED_BATCH_PER_LANE`]
    /// per lane for a timed PUCT search on a CPU, and 1 otherwise: a
    /// simulation budget is exactly the sequential search (the batched
    /// arena batches across games instead), and timed Gumbel sequential
    /// halving decides each phase on the values its simulations brought
    /// back, which leaves still in flight would not have. Never more than
    /// the simulations.
    #[must_use]
    pub fn leaves_for(
        &self,
        budget: SearchBudget,
        algorithm: Algorithm,
        cuda: bool,
        lanes: usize,
    ) -> u32 {
        let n = match (self.leaves, budget, cuda, algorithm) {
            (Some(n), ..) => n,
            (None, _, true, _) => DEFAULT_CUDA_BATCH,
            (None, SearchBudget::Time(_), false, Algorithm::Puct) => {
                DEFAULT_CPU_TIMED_BATCH_PER_LANE.saturating_mul(lanes.clamp(1, MAX_LANES) as u32)
            }
            (None, ..) => 1,
        };
        match budget {
            SearchBudget::Sims(sims) => n.min(sims).max(1),
            SearchBudget::Time(_) => n.max(1),
        }
    }

    /// The precision of a search to `budget`: the spec's, else
    /// [`NetPrecision::Auto`] for a timed search (speed is its strength)
    /// and [`NetPrecision::F32`] for a simulation budget (the same numbers
    /// on every machine).
    #[must_use]
    pub fn precision_for(&self, budget: SearchBudget) -> NetPrecision {
        match (self.precision, budget) {
            (Some(p), _) => p,
            (None, SearchBudget::Time(_)) => NetPrecision::Auto,
            (None, SearchBudget::Sims(_)) => NetPrecision::F32,
        }
    }

    /// Whether a search to `budget` starts from the player's last tree:
    /// the spec's, else on for a timed search (the visits spent on the
    /// move played and the reply expected are time already paid) and off
    /// for a simulation budget (each move then searches exactly its
    /// simulations from a fresh tree, whatever came before).
    #[must_use]
    pub fn reuse_for(&self, budget: SearchBudget) -> bool {
        self.reuse
            .unwrap_or(matches!(budget, SearchBudget::Time(_)))
    }

    /// The network copies to evaluate with: the spec's, else `default`.
    #[must_use]
    pub fn lanes_or(&self, default: usize) -> usize {
        self.lanes.unwrap_or(default).clamp(1, MAX_LANES)
    }

    fn write_options(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = self.leaves {
            write!(f, ",batch={n}")?;
        }
        if let Some(n) = self.lanes {
            write!(f, ",threads={n}")?;
        }
        if let Some(p) = self.precision {
            write!(f, ",precision={p}")?;
        }
        if let Some(r) = self.reuse {
            write!(f, ",reuse={}", if r { "on" } else { "off" })?;
        }
        Ok(())
    }
}

/// Default transposition table size of `alphabeta` in MiB.
pub const DEFAULT_TT_MB: usize = 16;

fn default_threads() -> usize {
    1
}

/// The longest thinking time per move a player accepts, in milliseconds
/// (one hour).
pub use dama_game::own::MAX_MOVE_TIME_MS;

/// Default simulations of a checkpoint player (`ckpt:PATH`, a bare
/// checkpoint given to `dama bot`/`play`/`analyse`, a bundle without settings).
pub const DEFAULT_CKPT_SIMS: u32 = 200;
/// Default root search of a checkpoint player. PUCT: it searches to a
/// deadline as well as to a simulation count, and in evaluation it converts
/// won positions where deterministic Gumbel search drifts into 50-ply draws
/// (see the README's strength figures).
pub const DEFAULT_CKPT_SEARCH: Algorithm = Algorithm::Puct;

fn options(kind: &str, rest: &str) -> Result<Vec<(String, String)>, Error> {
    rest.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| Error::Spec(format!("`{kind}`: option `{p}` is not key=value")))?;
            Ok((k.trim().to_owned(), v.trim().to_owned()))
        })
        .collect()
}

fn number<T: FromStr>(kind: &str, key: &str, v: &str) -> Result<T, Error> {
    v.parse()
        .map_err(|_| Error::Spec(format!("`{kind}`: `{key}={v}` is not a valid number")))
}

/// A `time=MS` option of the `alphabeta`/`ab` and `engine` players: at
/// least 1 ms, at most an hour.
fn move_time_ms(kind: &str, key: &str, v: &str) -> Result<u64, Error> {
    let ms: u64 = number(kind, key, v)?;
    let kind = if kind == "ab" { "alphabeta" } else { kind };
    if ms == 0 || ms > MAX_MOVE_TIME_MS {
        return Err(Error::Spec(format!(
            "`{kind}`: time must be in 1..={MAX_MOVE_TIME_MS} ms (one hour), got {ms}"
        )));
    }
    Ok(ms)
}

fn unknown(kind: &str, key: &str, allowed: &str) -> Error {
    Error::Spec(format!(
        "`{kind}`: unknown option `{key}` (allowed: {allowed})"
    ))
}

impl FromStr for PlayerSpec {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        let s = s.trim();
        let (kind, rest) = s.split_once(':').unwrap_or((s, ""));
        match kind {
            "random" | "greedy" => {
                if !rest.is_empty() {
                    return Err(Error::Spec(format!("`{kind}` takes no options")));
                }
                Ok(if kind == "random" {
                    PlayerSpec::Random
                } else {
                    PlayerSpec::Greedy
                })
            }
            "alphabeta" | "ab" => {
                let mut limit = None;
                let mut tt_mb = DEFAULT_TT_MB;
                let mut eval = None;
                let mut threads = 1;
                for (k, v) in options(kind, rest)? {
                    match k.as_str() {
                        "depth" => {
                            let d: u32 = number(kind, &k, &v)?;
                            if d == 0 || d > MAX_SEARCH_DEPTH {
                                return Err(Error::Spec(format!(
                                    "`alphabeta`: depth must be in 1..={MAX_SEARCH_DEPTH}, got {d}"
                                )));
                            }
                            limit = Some(AlphaBetaLimit::Depth(d));
                        }
                        "time" => limit = Some(AlphaBetaLimit::TimeMs(move_time_ms(kind, &k, &v)?)),
                        "tt" => {
                            tt_mb = number(kind, &k, &v)?;
                            if tt_mb == 0 || tt_mb > MAX_SEARCH_TT_MB {
                                return Err(Error::Spec(format!(
                                    "`alphabeta`: tt must be in 1..={MAX_SEARCH_TT_MB} MiB, got {tt_mb}"
                                )));
                            }
                        }
                        "eval" => {
                            if v.is_empty() {
                                return Err(Error::Spec(
                                    "`alphabeta`: eval needs `shipped` or the path of an evaluator file"
                                        .to_owned(),
                                ));
                            }
                            eval = Some(EvalSource::parse(&v));
                        }
                        "threads" => {
                            threads = number(kind, &k, &v)?;
                            if threads == 0 || threads > MAX_THREADS {
                                return Err(Error::Spec(format!(
                                    "`alphabeta`: threads must be in 1..={MAX_THREADS}, got {threads}"
                                )));
                            }
                        }
                        _ => return Err(unknown(kind, &k, "depth, time, tt, eval, threads")),
                    }
                }
                let limit = limit.ok_or_else(|| {
                    Error::Spec("`alphabeta` needs depth=N or time=MS".to_owned())
                })?;
                Ok(PlayerSpec::AlphaBeta {
                    limit,
                    tt_mb,
                    eval,
                    threads,
                })
            }
            "mcts" => {
                let mut sims = None;
                for (k, v) in options(kind, rest)? {
                    match k.as_str() {
                        "sims" => sims = Some(number::<u32>(kind, &k, &v)?),
                        _ => return Err(unknown(kind, &k, "sims")),
                    }
                }
                match sims {
                    Some(sims) if sims > 0 && sims <= MAX_SIMULATIONS => {
                        Ok(PlayerSpec::Mcts { sims })
                    }
                    _ => Err(Error::Spec(format!(
                        "`mcts` needs sims=N with N in 1..={MAX_SIMULATIONS}"
                    ))),
                }
            }
            "engine" => {
                let mut parts = rest.splitn(2, ',');
                let path = parts.next().unwrap_or("").trim();
                if path.is_empty() {
                    return Err(Error::Spec(
                        "`engine` needs the program's path: engine:PATH[,time=MS]".to_owned(),
                    ));
                }
                let mut time_ms = None;
                for (k, v) in options(kind, parts.next().unwrap_or(""))? {
                    match k.as_str() {
                        "time" => time_ms = Some(move_time_ms(kind, &k, &v)?),
                        _ => return Err(unknown(kind, &k, "time")),
                    }
                }
                Ok(PlayerSpec::Engine {
                    path: path.into(),
                    time_ms,
                })
            }
            "ckpt" | "policy" => {
                let mut parts = rest.splitn(2, ',');
                let path = parts.next().unwrap_or("").trim();
                if path.is_empty() {
                    return Err(Error::Spec(format!("`{kind}` needs a path: {kind}:PATH")));
                }
                let opts = options(kind, parts.next().unwrap_or(""))?;
                if kind == "policy" {
                    if let Some((k, _)) = opts.first() {
                        return Err(unknown(kind, k, "none"));
                    }
                    return Ok(PlayerSpec::Policy { path: path.into() });
                }
                let mut budget = None;
                let mut search = DEFAULT_CKPT_SEARCH;
                let mut draw_score = 0.0f32;
                let mut inference = Inference::default();
                for (k, v) in opts {
                    match k.as_str() {
                        "sims" | "time" if budget.is_some() => {
                            return Err(Error::Spec(
                                "`ckpt`: give one of sims=N and time=MS".into(),
                            ));
                        }
                        "sims" => {
                            let sims: u32 = number(kind, &k, &v)?;
                            if sims == 0 || sims > MAX_SIMULATIONS {
                                return Err(Error::Spec(format!(
                                    "`ckpt`: sims must be in 1..={MAX_SIMULATIONS}, got {sims}"
                                )));
                            }
                            budget = Some(SearchBudget::Sims(sims));
                        }
                        "time" => {
                            let ms: u64 = number(kind, &k, &v)?;
                            let max = MAX_MOVE_TIME.as_millis();
                            if ms == 0 || u128::from(ms) > max {
                                return Err(Error::Spec(format!(
                                    "`ckpt`: time must be in 1..={max} ms (an hour), got {ms}"
                                )));
                            }
                            budget = Some(SearchBudget::Time(Duration::from_millis(ms)));
                        }
                        "search" => {
                            search = v.parse().map_err(|_| {
                                Error::Spec(format!(
                                    "`ckpt`: search must be gumbel or puct, got `{v}`"
                                ))
                            })?;
                        }
                        "draw" => {
                            draw_score = number(kind, &k, &v)?;
                            if !(-1.0..=1.0).contains(&draw_score) {
                                return Err(Error::Spec(format!(
                                    "`ckpt`: draw must be in [-1, 1], got {v}"
                                )));
                            }
                        }
                        "batch" => {
                            let n: u32 = number(kind, &k, &v)?;
                            if n == 0 || n > MAX_LEAF_BATCH {
                                return Err(Error::Spec(format!(
                                    "`ckpt`: batch must be in 1..={MAX_LEAF_BATCH}, got {n}"
                                )));
                            }
                            inference.leaves = Some(n);
                        }
                        "threads" => {
                            let n: usize = number(kind, &k, &v)?;
                            if n == 0 || n > MAX_LANES {
                                return Err(Error::Spec(format!(
                                    "`ckpt`: threads must be in 1..={MAX_LANES}, got {n}"
                                )));
                            }
                            inference.lanes = Some(n);
                        }
                        "precision" => inference.precision = Some(v.parse()?),
                        "reuse" => {
                            inference.reuse = Some(match v.as_str() {
                                "on" => true,
                                "off" => false,
                                _ => {
                                    return Err(Error::Spec(format!(
                                        "`ckpt`: reuse must be on or off, got `{v}`"
                                    )))
                                }
                            });
                        }
                        _ => {
                            return Err(unknown(
                                kind,
                                &k,
                                "sims, time, search, draw, batch, threads, precision, reuse",
                            ))
                        }
                    }
                }
                Ok(PlayerSpec::Checkpoint {
                    path: path.into(),
                    budget: budget.unwrap_or(SearchBudget::Sims(DEFAULT_CKPT_SIMS)),
                    search,
                    draw_score,
                    inference,
                })
            }
            _ => Err(Error::Spec(format!(
                "unknown player `{s}` (random, greedy, alphabeta:depth=N|time=MS, mcts:sims=N, \
                 ckpt:PATH[,sims=N|time=MS][,search=gumbel|puct][,draw=D][,batch=N][,threads=N][,precision=P][,reuse=on|off], policy:PATH, engine:PATH[,time=MS])"
            ))),
        }
    }
}

impl PlayerSpec {
    /// For a `ckpt:` or `policy:` player, checks that its checkpoint exists
    /// (the weights file and its sidecar), so that a mistyped path fails
    /// when a config or a command line is checked, not when the player is
    /// first needed; other players have no files.
    ///
    /// # Errors
    ///
    /// [`Error::Spec`] naming the path: missing, a directory, no sidecar.
    pub fn check_files(&self) -> Result<(), Error> {
        let Some(path) = self.checkpoint_path() else {
            return Ok(());
        };
        if path.is_dir() {
            return Err(Error::Spec(format!(
                "checkpoint {} is a directory, not a checkpoint: give its weights file (e.g. {}/models/gen-0001.safetensors)",
                path.display(),
                path.display()
            )));
        }
        if !path.is_file() {
            return Err(Error::Spec(format!(
                "checkpoint {} does not exist",
                path.display()
            )));
        }
        let sidecar = dama_run::sidecar_of(path);
        if !sidecar.is_file() {
            return Err(Error::Spec(format!(
                "checkpoint {} has no sidecar {} (not a finished checkpoint)",
                path.display(),
                sidecar.display()
            )));
        }
        Ok(())
    }

    /// The checkpoint of a `ckpt:` or `policy:` player; `None` for others.
    pub fn checkpoint_path(&self) -> Option<&std::path::Path> {
        match self {
            PlayerSpec::Checkpoint { path, .. } | PlayerSpec::Policy { path } => Some(path),
            _ => None,
        }
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Random => f.write_str("random"),
            PlayerSpec::Greedy => f.write_str("greedy"),
            PlayerSpec::AlphaBeta {
                limit,
                tt_mb,
                eval,
                threads,
            } => {
                match limit {
                    AlphaBetaLimit::Depth(d) => write!(f, "alphabeta:depth={d}")?,
                    AlphaBetaLimit::TimeMs(ms) => write!(f, "alphabeta:time={ms}")?,
                }
                if *tt_mb != DEFAULT_TT_MB {
                    write!(f, ",tt={tt_mb}")?;
                }
                if *threads != 1 {
                    write!(f, ",threads={threads}")?;
                }
                if let Some(path) = eval {
                    write!(f, ",eval={path}")?;
                }
                Ok(())
            }
            PlayerSpec::Mcts { sims } => write!(f, "mcts:sims={sims}"),
            PlayerSpec::Checkpoint {
                path,
                budget,
                search,
                draw_score,
                inference,
            } => {
                write!(f, "ckpt:{}", path.display())?;
                match budget {
                    SearchBudget::Sims(DEFAULT_CKPT_SIMS) => {}
                    SearchBudget::Sims(n) => write!(f, ",sims={n}")?,
                    SearchBudget::Time(d) => write!(f, ",time={}", d.as_millis())?,
                }
                if *search != DEFAULT_CKPT_SEARCH {
                    write!(f, ",search={search}")?;
                }
                if *draw_score != 0.0 {
                    write!(f, ",draw={draw_score}")?;
                }
                inference.write_options(f)
            }
            PlayerSpec::Policy { path } => write!(f, "policy:{}", path.display()),
            PlayerSpec::Engine { path, time_ms } => {
                write!(f, "engine:{}", path.display())?;
                if let Some(ms) = time_ms {
                    write!(f, ",time={ms}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        for s in [
            "random",
            "greedy",
            "alphabeta:depth=4",
            "alphabeta:time=100",
            "alphabeta:depth=6,tt=64",
            "alphabeta:time=100,threads=2",
            "alphabeta:depth=6,tt=64,threads=64,eval=nets/x.nnue",
            "mcts:sims=800",
            "ckpt:runs/a/models/x.safetensors",
            "ckpt:x.safetensors,sims=64,search=gumbel",
            "ckpt:x.safetensors,sims=64,draw=-0.25",
            "ckpt:x.safetensors,time=100",
            "ckpt:x.safetensors,time=3600000,search=gumbel",
            "policy:x.safetensors",
        ] {
            let spec: PlayerSpec = s.parse().unwrap();
            assert_eq!(spec.to_string(), s);
        }
        assert_eq!(
            "ab:depth=3".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::AlphaBeta {
                limit: AlphaBetaLimit::Depth(3),
                tt_mb: DEFAULT_TT_MB,
                eval: None,
                threads: 1,
            }
        );
        assert_eq!(
            "alphabeta:threads=4,time=50".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::AlphaBeta {
                limit: AlphaBetaLimit::TimeMs(50),
                tt_mb: DEFAULT_TT_MB,
                eval: None,
                threads: 4,
            }
        );
        // Specs saved before `threads` existed read as one thread.
        let old: PlayerSpec =
            serde_json::from_str(r#"{"alpha_beta":{"limit":{"depth":3},"tt_mb":16,"eval":null}}"#)
                .unwrap();
        assert_eq!(old, "alphabeta:depth=3".parse().unwrap());
        // `eval=shipped` names the network dama ships; any other value is
        // a file, written in files as the path alone, as before.
        let shipped: PlayerSpec = "alphabeta:time=100,eval=shipped".parse().unwrap();
        assert!(matches!(
            &shipped,
            PlayerSpec::AlphaBeta {
                eval: Some(EvalSource::Shipped),
                ..
            }
        ));
        assert_eq!(shipped.to_string(), "alphabeta:time=100,eval=shipped");
        let file: PlayerSpec = "alphabeta:depth=3,eval=nets/a.nnue".parse().unwrap();
        assert!(matches!(
            &file,
            PlayerSpec::AlphaBeta { eval: Some(EvalSource::File(p)), .. } if p.as_os_str() == "nets/a.nnue"
        ));
        let json = serde_json::to_string(&file).unwrap();
        assert!(json.contains(r#""eval":"nets/a.nnue""#), "{json}");
        for spec in [shipped, file] {
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(serde_json::from_str::<PlayerSpec>(&json).unwrap(), spec);
        }
        let two: PlayerSpec = "alphabeta:depth=3,threads=2".parse().unwrap();
        let json = serde_json::to_string(&two).unwrap();
        assert_eq!(serde_json::from_str::<PlayerSpec>(&json).unwrap(), two);
        // `threads=1` is the default, not written back.
        assert_eq!(
            "alphabeta:depth=3,threads=1"
                .parse::<PlayerSpec>()
                .unwrap()
                .to_string(),
            "alphabeta:depth=3"
        );
        assert_eq!(
            "ckpt:m.safetensors,search=puct,sims=200"
                .parse::<PlayerSpec>()
                .unwrap()
                .to_string(),
            "ckpt:m.safetensors"
        );
    }

    /// Issue 19: a `ckpt:` that is a directory says so; a missing one is
    /// named; a weights file without its sidecar is not a checkpoint.
    #[test]
    fn checkpoint_files_are_checked() {
        let dir = std::env::temp_dir().join(format!("dama-spec-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let spec = |p: &std::path::Path| {
            format!("ckpt:{}", p.display())
                .parse::<PlayerSpec>()
                .unwrap()
        };
        let err = spec(&dir).check_files().unwrap_err().to_string();
        assert!(err.contains("is a directory"), "{err}");
        let weights = dir.join("gen-0001.safetensors");
        let err = spec(&weights).check_files().unwrap_err().to_string();
        assert!(
            err.contains("does not exist") && err.contains("gen-0001"),
            "{err}"
        );
        std::fs::write(&weights, b"w").unwrap();
        let err = spec(&weights).check_files().unwrap_err().to_string();
        assert!(err.contains("sidecar"), "{err}");
        std::fs::write(dir.join("gen-0001.json"), b"{}").unwrap();
        spec(&weights).check_files().unwrap();
        PlayerSpec::Random.check_files().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_specs_are_errors() {
        for s in [
            "",
            "randomx",
            "random:depth=3",
            "alphabeta",
            "alphabeta:depth=0",
            "alphabeta:depth=x",
            "alphabeta:nodes=5",
            "alphabeta:depth",
            "alphabeta:depth=3,threads=0",
            "alphabeta:depth=3,threads=65",
            "alphabeta:depth=3,threads=-1",
            "alphabeta:depth=3,threads=x",
            "mcts",
            "mcts:sims=0",
            "mcts:sims=4294967295",
            "alphabeta:time=18446744073709551615",
            "alphabeta:time=3600001",
            "ckpt:x,sims=1000001",
            "ckpt:",
            "ckpt:x,sims=0",
            "ckpt:x,search=alphazero",
            "ckpt:x,draw=-2",
            "ckpt:x,draw=nan",
            "ckpt:x,time=0",
            "ckpt:x,time=3600001",
            "ckpt:x,time=-5",
            "ckpt:x,sims=10,time=100",
            "ckpt:x,time=100,sims=10",
            "policy:x,sims=3",
        ] {
            assert!(s.parse::<PlayerSpec>().is_err(), "{s:?} parsed");
        }
        let err = "ckpt:x,time=3600001".parse::<PlayerSpec>().unwrap_err();
        assert!(err.to_string().contains("3600000 ms (an hour)"), "{err}");
        let err = "ckpt:x,sims=10,time=100".parse::<PlayerSpec>().unwrap_err();
        assert!(
            err.to_string().contains("one of sims=N and time=MS"),
            "{err}"
        );
        assert_eq!(
            "ckpt:m,time=250".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Checkpoint {
                path: "m".into(),
                budget: SearchBudget::Time(Duration::from_millis(250)),
                search: DEFAULT_CKPT_SEARCH,
                draw_score: 0.0,
                inference: Inference::default(),
            }
        );
        let err = "alphabeta:nodes=5".parse::<PlayerSpec>().unwrap_err();
        assert!(err.to_string().contains("depth, time, tt"), "{err}");
        for s in [
            "alphabeta:depth=3,threads=0",
            "alphabeta:depth=3,threads=65",
        ] {
            let err = s.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(err.contains("threads must be in 1..=64"), "{err}");
        }
    }

    /// Issue 29: how a checkpoint player runs its network, parsed, printed
    /// back, defaulted per budget and bounded.
    #[test]
    fn checkpoint_inference_options() {
        let spec: PlayerSpec = "ckpt:m,time=100,batch=16,threads=2,precision=f32,reuse=off"
            .parse()
            .unwrap();
        let PlayerSpec::Checkpoint { inference, .. } = &spec else {
            panic!("{spec:?}");
        };
        assert_eq!(
            *inference,
            Inference {
                leaves: Some(16),
                lanes: Some(2),
                precision: Some(NetPrecision::F32),
                reuse: Some(false),
            }
        );
        assert_eq!(spec.to_string().parse::<PlayerSpec>().unwrap(), spec);
        assert_eq!(
            spec.to_string(),
            "ckpt:m,time=100,batch=16,threads=2,precision=f32,reuse=off"
        );
        let json = serde_json::to_string(&spec).unwrap();
        assert_eq!(serde_json::from_str::<PlayerSpec>(&json).unwrap(), spec);
        // Defaults: a timed search batches and may use bf16; a simulation
        // budget is the sequential search in f32 (never more leaves than
        // simulations); a GPU batches either way.
        let none = Inference::default();
        let time = SearchBudget::Time(Duration::from_millis(100));
        let puct = Algorithm::Puct;
        let per_lane = DEFAULT_CPU_TIMED_BATCH_PER_LANE;
        assert_eq!(none.leaves_for(time, puct, false, 1), per_lane);
        assert_eq!(none.leaves_for(time, puct, false, 2), 2 * per_lane);
        assert_eq!(none.leaves_for(time, Algorithm::Gumbel, false, 2), 1);
        assert_eq!(none.leaves_for(SearchBudget::Sims(400), puct, false, 2), 1);
        assert_eq!(none.leaves_for(SearchBudget::Sims(4), puct, true, 1), 4);
        assert_eq!(
            none.leaves_for(SearchBudget::Sims(400), puct, true, 1),
            DEFAULT_CUDA_BATCH
        );
        assert_eq!(none.precision_for(time), NetPrecision::Auto);
        assert_eq!(none.precision_for(SearchBudget::Sims(9)), NetPrecision::F32);
        assert_eq!(none.lanes_or(3), 3);
        // A timed search starts from its last tree, a simulation budget
        // from a fresh one, unless the spec says.
        assert!(none.reuse_for(time));
        assert!(!none.reuse_for(SearchBudget::Sims(9)));
        let on: PlayerSpec = "ckpt:m,sims=9,reuse=on".parse().unwrap();
        let PlayerSpec::Checkpoint { inference: on, .. } = on else {
            panic!("{on:?}");
        };
        assert!(on.reuse_for(SearchBudget::Sims(9)));
        assert_eq!(
            Inference {
                leaves: Some(64),
                ..none
            }
            .leaves_for(SearchBudget::Sims(10), puct, false, 1),
            10
        );
        for (s, why) in [
            ("ckpt:m,batch=0", "batch must be in 1..=256"),
            ("ckpt:m,batch=257", "batch must be in 1..=256"),
            ("ckpt:m,threads=0", "threads must be in 1..=64"),
            ("ckpt:m,threads=100000", "threads must be in 1..=64"),
            (
                "ckpt:m,precision=f16",
                "precision must be auto, f32 or bf16",
            ),
            ("ckpt:m,reuse=yes", "reuse must be on or off"),
        ] {
            let err = s.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(err.contains(why), "{s}: {err}");
        }
        // Specs saved before these options read as the defaults.
        let old: PlayerSpec = serde_json::from_str(
            r#"{"checkpoint":{"path":"m","budget":{"sims":8},"search":"puct","draw_score":0.0}}"#,
        )
        .unwrap();
        assert_eq!(old, "ckpt:m,sims=8".parse().unwrap());
    }
}
