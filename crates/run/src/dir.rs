//! The paths of a run directory and the lock of its trainer.
//!
//! ```text
//! checkpoints/<run>/
//! ├── config.toml                  the resolved config, frozen at the start
//! ├── state.json                   RunState: the last finished generation
//! ├── metrics.jsonl                MetricsEvent lines, appended
//! ├── lock                         the trainer's OS lock, with its pid
//! ├── models/gen-NNNN.safetensors  weights of generation N (0: initial)
//! ├── models/gen-NNNN.json         their sidecar (written last)
//! ├── models/gen-NNNN.optim.safetensors  the optimizer state
//! ├── games/gen-NNNN-III.games     self-play game chunks
//! ├── eval/ladder.{csv,json}       `dama ladder --run`
//! └── curve.{json,csv}             `dama curve --run`
//! ```

use std::path::{Path, PathBuf};

use crate::Error;

/// The paths of a run directory (`checkpoints/<run>`).
///
/// The one place that knows the names of a run's files: writers and readers
/// ask it instead of joining names themselves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

/// `gen-NNNN`: the stem of generation `g`'s files.
fn gen_stem(generation: u32) -> String {
    format!("gen-{generation:04}")
}

impl RunDir {
    /// The run at `root` (`checkpoints/<run>`).
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }
    /// The run directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// `config.toml`: the resolved config, written when the run starts and
    /// compared with the command line's on `--resume`.
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    /// `metrics.jsonl`: one [`crate::MetricsEvent`] per line.
    pub fn metrics(&self) -> PathBuf {
        self.root.join("metrics.jsonl")
    }
    /// `state.json`: [`crate::RunState`], written last in a generation.
    pub fn state(&self) -> PathBuf {
        self.root.join("state.json")
    }
    /// `lock`: locked by the trainer that owns the run, holding its
    /// process id ([`RunLock`]).
    pub fn lock(&self) -> PathBuf {
        self.root.join("lock")
    }
    /// `models/gen-NNNN.nnue`: a learned-evaluator run's network of a
    /// generation (`dama-nnue`'s evaluator file).
    pub fn evaluator(&self, generation: u32) -> PathBuf {
        self.models().join(format!("{}.nnue", gen_stem(generation)))
    }
    /// `best.nnue`: a learned-evaluator run's newest accepted network, the
    /// one its self-play plays with (absent while the handcrafted
    /// evaluation is still the best).
    pub fn best_evaluator(&self) -> PathBuf {
        self.root.join("best.nnue")
    }
    /// `games/gen-NNNN.samples`: a learned-evaluator run's training
    /// positions of a generation.
    pub fn samples(&self, generation: u32) -> PathBuf {
        self.games()
            .join(format!("{}.samples", gen_stem(generation)))
    }
    /// `models/`: the checkpoints.
    pub fn models(&self) -> PathBuf {
        self.root.join("models")
    }
    /// `models/gen-NNNN.safetensors`: the weights of a generation
    /// (generation 0 is the initial network).
    pub fn model(&self, generation: u32) -> PathBuf {
        self.models()
            .join(format!("{}.safetensors", gen_stem(generation)))
    }
    /// `models/gen-NNNN.json`: the sidecar of a generation's weights
    /// (encoding version, model config, rules, step), written after the
    /// weights: a checkpoint without it is not finished.
    pub fn model_sidecar(&self, generation: u32) -> PathBuf {
        self.models().join(format!("{}.json", gen_stem(generation)))
    }
    /// `models/gen-NNNN.optim.safetensors`: the optimizer state saved with a
    /// generation's weights (what `--resume` continues from).
    pub fn optimizer(&self, generation: u32) -> PathBuf {
        self.models()
            .join(format!("{}.optim.safetensors", gen_stem(generation)))
    }
    /// `games/`: the self-play game chunks.
    pub fn games(&self) -> PathBuf {
        self.root.join("games")
    }
    /// `games/gen-NNNN-III.games`: the `index`th chunk file of a
    /// generation's games.
    pub fn chunk(&self, generation: u32, index: usize) -> PathBuf {
        self.games()
            .join(format!("{}-{index:03}.games", gen_stem(generation)))
    }
    /// Whether `path` names a chunk file of `generation`
    /// (`gen-NNNN-*.games`).
    pub fn is_chunk_of(path: &Path, generation: u32) -> bool {
        let prefix = format!("{}-", gen_stem(generation));
        path.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
    }
    /// `eval/`: evaluation results written after the run (the ladder).
    pub fn eval(&self) -> PathBuf {
        self.root.join("eval")
    }
    /// `eval/ladder`: the stem of the ladder's results (`.csv`, `.json`).
    pub fn ladder_stem(&self) -> PathBuf {
        self.eval().join("ladder")
    }
    /// `curve.json`: the learning curve (`dama curve`).
    pub fn curve_json(&self) -> PathBuf {
        self.root.join("curve.json")
    }
    /// `curve.csv`: the learning curve as a table.
    pub fn curve_csv(&self) -> PathBuf {
        self.root.join("curve.csv")
    }
    /// The directories where writers leave temporary files (`*.tmp`).
    pub fn writable_dirs(&self) -> [PathBuf; 4] {
        [self.root.clone(), self.models(), self.games(), self.eval()]
    }
    /// The run directory of a checkpoint in its `models/` directory
    /// (`<run>/models/gen-NNNN.safetensors` → `<run>`), if it has one.
    pub fn of_checkpoint(checkpoint: &Path) -> Option<RunDir> {
        let models = checkpoint.parent()?;
        if models.file_name()? != "models" {
            return None;
        }
        Some(RunDir::new(models.parent()?))
    }
}

/// The generation of a checkpoint file named `gen-NNNN.safetensors` (or of
/// any file whose stem is `gen-NNNN`).
pub fn generation_of(path: &Path) -> Option<u32> {
    path.file_stem()?
        .to_str()?
        .strip_prefix("gen-")?
        .parse()
        .ok()
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
    /// Locks the run directory `dir.root()`, creating it if needed.
    ///
    /// # Errors
    /// [`Error::Locked`] when another process holds the lock, naming its
    /// process id; I/O errors naming the file.
    pub fn acquire(dir: &RunDir) -> Result<RunLock, Error> {
        use std::io::{Read, Seek, Write};
        std::fs::create_dir_all(dir.root()).map_err(|e| Error::io(dir.root(), e))?;
        let path = dir.lock();
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
                    dir: dir.root().to_path_buf(),
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

/// The sidecar of a weights file: `x.safetensors` → `x.json` (model
/// config, rules, step, sizes and hashes of the files; written last).
pub fn sidecar_of(weights: &Path) -> PathBuf {
    weights.with_extension("json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_the_documented_layout() {
        let run = RunDir::new("ck/r");
        let rel = |p: PathBuf| {
            p.strip_prefix("ck/r")
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        };
        assert_eq!(rel(run.config()), "config.toml");
        assert_eq!(rel(run.state()), "state.json");
        assert_eq!(rel(run.metrics()), "metrics.jsonl");
        assert_eq!(rel(run.lock()), "lock");
        assert_eq!(rel(run.model(12)), "models/gen-0012.safetensors");
        assert_eq!(rel(run.model_sidecar(12)), "models/gen-0012.json");
        assert_eq!(rel(run.optimizer(12)), "models/gen-0012.optim.safetensors");
        assert_eq!(rel(run.chunk(3, 7)), "games/gen-0003-007.games");
        assert_eq!(rel(run.ladder_stem()), "eval/ladder");
        assert_eq!(rel(run.curve_json()), "curve.json");
        assert_eq!(rel(run.curve_csv()), "curve.csv");
    }

    #[test]
    fn generations_and_chunks_are_recognised_by_name() {
        let run = RunDir::new("r");
        assert_eq!(generation_of(&run.model(7)), Some(7));
        assert_eq!(generation_of(&run.model_sidecar(7)), Some(7));
        assert_eq!(generation_of(Path::new("best.safetensors")), None);
        assert!(RunDir::is_chunk_of(&run.chunk(3, 0), 3));
        assert!(!RunDir::is_chunk_of(&run.chunk(13, 0), 3));
        assert!(!RunDir::is_chunk_of(&run.chunk(3, 0), 30));
        assert_eq!(RunDir::of_checkpoint(&run.model(2)), Some(run));
        assert_eq!(
            RunDir::of_checkpoint(Path::new("x/gen-0001.safetensors")),
            None
        );
    }

    #[test]
    fn the_lock_is_exclusive_and_names_its_holder() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path().join("run"));
        let held = RunLock::acquire(&run).unwrap();
        let err = RunLock::acquire(&run).unwrap_err();
        assert!(matches!(err, Error::Locked { .. }), "{err}");
        assert!(
            err.to_string()
                .contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        drop(held);
        RunLock::acquire(&run).unwrap();
    }
}
