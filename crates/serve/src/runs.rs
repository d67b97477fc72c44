//! The runs directory, read only: runs, their config, metrics, ladder,
//! checkpoints and self-play games, and the bundles beside them.
//!
//! Nothing here joins a name from a request onto a path: a run or bundle
//! named by a request is looked up among the directories actually listed,
//! by a name that is one plain path component, and its canonical path must
//! lie inside the canonical runs directory (so neither `../` nor a symbolic
//! link leads out of it). Files inside a run are named by [`RunDir`].

use std::collections::HashMap;
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use dama_run::{MetricsEvent, RunDir, RunState};
use dama_selfplay::record;
use serde::Serialize;

use crate::error::ApiError;

/// The most bytes of metrics one request or one live update reads.
pub const MAX_METRICS_READ: u64 = 4 << 20;
/// The most bytes of a run's `config.toml` or ladder read.
const MAX_TEXT: u64 = dama_run::files::MAX_TEXT_FILE;
/// Chunk files whose game summaries are kept decoded.
const SUMMARY_CACHE: usize = 32;

/// Whether `name` is one plain path component: 1 to 128 ASCII letters,
/// digits, `.`, `_` or `-`, not starting with a dot (so never `.` or `..`).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// One self-play game, without its training samples.
#[derive(Clone, Debug, Serialize)]
pub struct GameSummary {
    /// Index of the game in its generation (across its chunk files).
    pub index: usize,
    /// The run's id of the game.
    pub game_id: u64,
    /// The game and rules it was played under.
    #[serde(skip)]
    pub rules: dama_nn::GameRules,
    /// Start position (`startpos` or position text).
    pub start: String,
    /// The moves in notation.
    #[serde(skip)]
    pub moves: Vec<String>,
    /// Number of moves.
    pub length: usize,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// Why it ended.
    pub termination: String,
}

type SummaryKey = (PathBuf, SystemTime, u64);

/// The runs directory.
#[derive(Debug)]
pub struct Runs {
    root: PathBuf,
    canonical: Option<PathBuf>,
    summaries: Mutex<HashMap<SummaryKey, Arc<Vec<GameSummary>>>>,
}

/// A run in the list of runs.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    /// The run's directory name.
    pub name: String,
    /// The last finished generation (`state.json`), if any.
    pub generation: Option<u32>,
    /// Generations with a finished checkpoint.
    pub checkpoints: Vec<u32>,
    /// Seconds since the metrics file last changed.
    pub idle_seconds: Option<f64>,
    /// Whether the metrics changed in the last two minutes (a trainer is
    /// probably writing them; the lock is not probed, since probing it could
    /// make a trainer starting at that instant fail).
    pub active: bool,
}

impl Runs {
    /// The runs directory at `root` (it may not exist yet: then there are
    /// no runs until it does).
    pub fn new(root: impl Into<PathBuf>) -> Runs {
        let root = root.into();
        let canonical = fs::canonicalize(&root).ok();
        Runs {
            root,
            canonical,
            summaries: Mutex::new(HashMap::new()),
        }
    }

    /// The directory as given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn canonical_root(&self) -> Option<PathBuf> {
        self.canonical
            .clone()
            .or_else(|| fs::canonicalize(&self.root).ok())
    }

    /// The directories directly below the root with valid names, sorted.
    fn child_dirs(dir: &Path) -> Vec<(String, PathBuf)> {
        let Ok(entries) = fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut out: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                valid_name(&name).then(|| (name, e.path()))
            })
            .take(10_000)
            .collect();
        out.sort();
        out
    }

    /// Whether `path` lies inside the runs directory once links are
    /// resolved.
    fn inside(&self, path: &Path) -> bool {
        match (self.canonical_root(), fs::canonicalize(path)) {
            (Some(root), Ok(p)) => p.starts_with(root),
            _ => false,
        }
    }

    /// The run called `name`.
    ///
    /// # Errors
    ///
    /// 400 for a name that is not one plain path component, 404 for a run
    /// that is not there.
    pub fn run(&self, name: &str) -> Result<RunDir, ApiError> {
        if !valid_name(name) {
            return Err(ApiError::bad_request(format!(
                "`{}` is not a run name (letters, digits, `.`, `_`, `-`; no path)",
                name.escape_default()
            )));
        }
        let found = Runs::child_dirs(&self.root)
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
            .filter(|p| self.inside(p) && is_run(p));
        match found {
            Some(p) => Ok(RunDir::new(p)),
            None => Err(ApiError::not_found(format!("no run `{name}`"))),
        }
    }

    /// Every run (a directory with a config or metrics file).
    pub fn list(&self) -> Vec<RunInfo> {
        Runs::child_dirs(&self.root)
            .into_iter()
            .filter(|(_, p)| is_run(p) && self.inside(p))
            .map(|(name, p)| info(name, &RunDir::new(p)))
            .collect()
    }

    /// The bundles (directories with a `bundle.json`) directly below the
    /// runs directory or one level further, by name (`NAME` or
    /// `PARENT/NAME`).
    pub fn bundles(&self) -> Vec<(String, PathBuf)> {
        let mut out = Vec::new();
        for (name, p) in Runs::child_dirs(&self.root) {
            if p.join("bundle.json").is_file() {
                out.push((name, p));
                continue;
            }
            for (sub, q) in Runs::child_dirs(&p) {
                if q.join("bundle.json").is_file() {
                    out.push((format!("{name}/{sub}"), q));
                }
            }
        }
        out.retain(|(_, p)| self.inside(p));
        out
    }

    /// The decoded summaries of one chunk file (cached while the file is
    /// unchanged).
    fn chunk_summaries(&self, path: &Path) -> Result<Arc<Vec<GameSummary>>, ApiError> {
        let meta = fs::metadata(path)
            .map_err(|e| ApiError::internal(format!("cannot read a game file: {e}")))?;
        let key = (
            path.to_path_buf(),
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
        );
        if let Some(s) = lock(&self.summaries).get(&key) {
            return Ok(s.clone());
        }
        let games = record::read_chunk(path)
            .map_err(|e| ApiError::internal(format!("cannot read a game file: {e}")))?;
        let summaries: Arc<Vec<GameSummary>> = Arc::new(
            games
                .into_iter()
                .map(|g| {
                    Ok(GameSummary {
                        index: 0,
                        game_id: g.game_id,
                        rules: g.game.with(RulesOf(&g)).map_err(|e| {
                            ApiError::internal(format!("cannot read a game file: {e}"))
                        })?,
                        start: g.start,
                        length: g.moves.len(),
                        moves: g.moves,
                        result: g.result.as_pdn(),
                        termination: g.termination,
                    })
                })
                .collect::<Result<_, ApiError>>()?,
        );
        let mut cache = lock(&self.summaries);
        if cache.len() >= SUMMARY_CACHE {
            cache.clear();
        }
        cache.insert(key, summaries.clone());
        Ok(summaries)
    }

    /// The self-play games of one generation of a run, in game order.
    ///
    /// # Errors
    ///
    /// 500 for a game file that cannot be read.
    pub fn games(&self, run: &RunDir, generation: u32) -> Result<Vec<GameSummary>, ApiError> {
        let chunks = record::list_chunks(&run.games())
            .map_err(|e| ApiError::internal(format!("cannot list the games: {e}")))?;
        let mut out = Vec::new();
        for chunk in chunks.iter().filter(|c| RunDir::is_chunk_of(c, generation)) {
            out.extend(self.chunk_summaries(chunk)?.iter().cloned());
        }
        out.sort_by_key(|g| g.game_id);
        for (i, g) in out.iter_mut().enumerate() {
            g.index = i;
        }
        Ok(out)
    }

    /// The generations of a run that have game files, with their counts of
    /// chunk files.
    pub fn game_generations(&self, run: &RunDir) -> Vec<u32> {
        let mut gens: Vec<u32> = record::list_chunks(&run.games())
            .unwrap_or_default()
            .iter()
            .filter_map(|p| {
                let name = p.file_name()?.to_str()?;
                name.strip_prefix("gen-")?.get(..4)?.parse().ok()
            })
            .collect();
        gens.sort_unstable();
        gens.dedup();
        gens
    }
}

/// A self-play game's rules, as its game reads them.
struct RulesOf<'a>(&'a record::GameRecord);

impl dama_nn::WithGame for RulesOf<'_> {
    type Output = Result<dama_nn::GameRules, String>;

    fn run<G: dama_game::GameDef>(self) -> Self::Output {
        let rules = self.0.rules::<G>().map_err(|e| e.to_string())?;
        dama_nn::GameRules::new::<G>(rules)
            .ok_or_else(|| format!("{} is not in the registry", G::TITLE))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn is_run(p: &Path) -> bool {
    let dir = RunDir::new(p);
    dir.config().is_file() || dir.metrics().is_file()
}

/// The finished checkpoints of a run (weights and sidecar both there).
pub fn checkpoints(run: &RunDir) -> Vec<u32> {
    let Ok(entries) = fs::read_dir(run.models()) else {
        return Vec::new();
    };
    let mut gens: Vec<u32> = entries
        .filter_map(Result::ok)
        .filter_map(|e| dama_run::generation_of(&e.path()))
        .filter(|&g| run.model(g).is_file() && run.model_sidecar(g).is_file())
        .collect();
    gens.sort_unstable();
    gens.dedup();
    gens
}

fn info(name: String, run: &RunDir) -> RunInfo {
    let generation = RunState::load(&run.state()).ok().map(|s| s.generation);
    let idle_seconds = fs::metadata(run.metrics())
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .map(|d| d.as_secs_f64());
    RunInfo {
        name,
        generation,
        checkpoints: checkpoints(run),
        idle_seconds,
        active: idle_seconds.is_some_and(|s| s < 120.0),
    }
}

/// A run's `config.toml` as text (empty if missing).
pub fn config_text(run: &RunDir) -> Result<String, ApiError> {
    match dama_run::files::read_bounded_string(&run.config(), MAX_TEXT) {
        Ok(t) => Ok(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(ApiError::internal(format!("cannot read the config: {e}"))),
    }
}

/// The ladder's table (`eval/ladder.json`), if the run has one.
pub fn ladder(run: &RunDir) -> Option<dama_eval::RatingTable> {
    let mut path = run.ladder_stem();
    path.set_extension("json");
    let text = dama_run::files::read_bounded_string(&path, MAX_TEXT).ok()?;
    serde_json::from_str(&text).ok()
}

/// New complete lines of a metrics file from byte `from`: the events and
/// the offset to read from next. A partial last line (a write in
/// progress) is left for the next read; a line that does not parse is
/// skipped. Reads at most [`MAX_METRICS_READ`] bytes.
///
/// # Errors
///
/// 500 for a metrics file that exists but cannot be read.
pub fn metrics_since(run: &RunDir, from: u64) -> Result<(Vec<MetricsEvent>, u64), ApiError> {
    let path = run.metrics();
    let mut file = match fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(ApiError::internal(format!("cannot read the metrics: {e}"))),
    };
    let len = file
        .metadata()
        .map_err(|e| ApiError::internal(format!("cannot read the metrics: {e}")))?
        .len();
    // A file shorter than the offset was rewritten (a resumed run drops
    // an unfinished generation's lines): start again.
    let from = if from > len { 0 } else { from };
    let want = (len - from).min(MAX_METRICS_READ);
    file.seek(SeekFrom::Start(from))
        .map_err(|e| ApiError::internal(format!("cannot read the metrics: {e}")))?;
    let mut bytes = Vec::with_capacity(want as usize);
    file.take(want)
        .read_to_end(&mut bytes)
        .map_err(|e| ApiError::internal(format!("cannot read the metrics: {e}")))?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut events = Vec::new();
    for line in bytes[..complete].split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Ok(event) = serde_json::from_slice::<MetricsEvent>(line) {
            if !matches!(event, MetricsEvent::Unknown) {
                events.push(event);
            }
        }
    }
    Ok((events, from + complete as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_components() {
        for good in ["run1", "smoke-2", "a.b_c"] {
            assert!(valid_name(good), "{good}");
        }
        for bad in [
            "", ".", "..", "../x", "a/b", "a\\b", ".hidden", "x\0", "é", "a b",
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert!(!valid_name(&"a".repeat(129)));
    }

    #[test]
    fn runs_outside_or_missing_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("runs");
        fs::create_dir_all(root.join("r1")).unwrap();
        fs::write(root.join("r1/config.toml"), "[run]\n").unwrap();
        fs::create_dir_all(tmp.path().join("outside")).unwrap();
        fs::write(tmp.path().join("outside/config.toml"), "secret").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(tmp.path().join("outside"), root.join("link")).unwrap();
        let runs = Runs::new(&root);
        assert!(runs.run("r1").is_ok());
        assert_eq!(runs.run("../outside").unwrap_err().status.as_u16(), 400);
        assert_eq!(runs.run("nope").unwrap_err().status.as_u16(), 404);
        #[cfg(unix)]
        assert_eq!(runs.run("link").unwrap_err().status.as_u16(), 404);
        let names: Vec<String> = runs.list().into_iter().map(|r| r.name).collect();
        assert_eq!(names, ["r1"]);
    }

    #[test]
    fn metrics_are_read_line_by_line_and_a_partial_line_waits() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        let line = r#"{"kind":"train","generation":1,"step":3,"loss":2.5}"#;
        fs::write(
            run.metrics(),
            format!("{line}\nnot json\n{{\"kind\":\"future\"}}\n{{\"kind\":\"tr"),
        )
        .unwrap();
        let (events, next) = metrics_since(&run, 0).unwrap();
        assert_eq!(events.len(), 1);
        let text = fs::read_to_string(run.metrics()).unwrap();
        assert_eq!(next as usize, text.rfind('\n').unwrap() + 1);
        let (again, same) = metrics_since(&run, next).unwrap();
        assert!(again.is_empty() && same == next);
        let (restart, _) = metrics_since(&run, 1 << 40).unwrap();
        assert_eq!(restart.len(), 1);
    }
}
