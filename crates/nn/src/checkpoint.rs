//! Checkpoints: weights as `.safetensors`, optimizer state in a second
//! `.optim.safetensors`, and a JSON sidecar that describes both.
//!
//! For weights `models/x.safetensors` the files are
//!
//! * `models/x.safetensors`: every variable of the network (weights and
//!   batch-norm running statistics) under its stable name;
//! * `models/x.optim.safetensors` (trainer checkpoints only): the optimizer
//!   state, `<param>/momentum` or `<param>/exp_avg` and `<param>/exp_avg_sq`;
//! * `models/x.json`: [`CheckpointMeta`] (the game, its encoding version
//!   and rules, model config, step, training config, and the size and FNV-1a hash of each
//!   tensor file).
//!
//! Each file is written to `*.tmp`, synced and renamed; the sidecar is
//! written last, so a checkpoint whose sidecar exists is complete. Loading
//! checks sizes and hashes first (a truncated file is reported as such),
//! then names and shapes, and names every mismatch.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use dama_engine::Rules;
use serde::{Deserialize, Serialize};
use tch::{Device, Tensor};

use crate::config::{ModelConfig, TrainConfig};
use crate::error::{Error, Result};
use crate::files::{fnv1a64, tmp_path, write_atomic};
use crate::model::Network;
use crate::train::Trainer;
use dama_registry::{GameName, GameRules, LegacyRuleFields, RuleFieldsError};

/// Version of the checkpoint layout (this module).
pub const CHECKPOINT_FORMAT: u32 = 1;

/// One tensor file of a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// File name, relative to the sidecar's directory.
    pub file: String,
    /// Size in bytes.
    pub bytes: u64,
    /// FNV-1a 64-bit hash of the contents, as 16 hex digits.
    pub fnv1a64: String,
}

/// The optimizer part of a trainer checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptimizerEntry {
    /// `sgd` or `adam_w` (see [`crate::OptimizerConfig::name`]).
    pub kind: String,
    /// The state file.
    pub state: FileEntry,
}

/// The JSON sidecar of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointMeta {
    /// [`CHECKPOINT_FORMAT`] of the writer.
    pub format: u32,
    /// The game the network plays (absent in checkpoints written before
    /// Turkish Tafl: draughts).
    #[serde(default)]
    pub game: GameName,
    /// The version of the game's encoding the network was trained with
    /// ([`Encoding::version`](dama_registry::Encoding::version)).
    pub encoding_version: u32,
    /// Network shape.
    pub model: ModelConfig,
    /// Rules of the draughts games the network was trained on (the
    /// defaults for another game: see [`CheckpointMeta::game_rules`]).
    pub rules: Rules,
    /// The rules of a game other than the default (draughts), as their
    /// text (`first=defender,…`): present exactly when the game is not the
    /// default (or, in older checkpoints of some games, a legacy field
    /// instead: [`LegacyRuleFields`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_rules_text: Option<String>,
    /// The per-game rule fields of older checkpoints (read, never written).
    #[serde(flatten)]
    pub legacy: LegacyRuleFields,
    /// Optimizer steps taken.
    pub step: u64,
    /// Training configuration (trainer checkpoints).
    pub train: Option<TrainConfig>,
    /// The weights file.
    pub weights: FileEntry,
    /// The optimizer state (trainer checkpoints).
    pub optimizer: Option<OptimizerEntry>,
}

impl CheckpointMeta {
    /// The game and rules the network was trained under (a sidecar that
    /// [`parse_meta`] accepted has rules that parse).
    pub fn game_rules(&self) -> GameRules {
        self.try_game_rules()
            .unwrap_or_else(|_| GameRules::default_for(self.game))
    }

    fn try_game_rules(&self) -> std::result::Result<GameRules, String> {
        GameRules::from_file_fields(
            self.game,
            self.rules,
            self.game_rules_text.as_deref(),
            &self.legacy,
        )
        .map_err(|e| match e {
            RuleFieldsError::Text { text, error } => format!("game_rules_text `{text}`: {error}"),
            RuleFieldsError::Misplaced => format!(
                "game_rules_text (or, in older checkpoints, {}) must be present exactly in a checkpoint of a game other than {}, with that game's rules (game {})",
                LegacyRuleFields::FIELDS,
                GameName::default().title(),
                self.game
            ),
        })
    }

    /// Checks that the network plays `game`.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`] naming both games.
    pub fn expect_game(&self, game: GameName, path: &Path) -> Result<()> {
        if self.game == game {
            return Ok(());
        }
        Err(Error::Incompatible {
            path: sidecar_path(path),
            problems: vec![format!(
                "the network was trained for {} ({}), not {} ({})",
                self.game.title(),
                self.game,
                game.title(),
                game
            )],
        })
    }
}

/// The game, rules and encoding fields of a new sidecar: draughts rules in
/// `rules`, another game's as text in `game_rules_text`.
fn game_fields(rules: &GameRules) -> (GameName, u32, Rules, Option<String>) {
    let game = rules.name();
    let (draughts, text) = rules.file_fields();
    (game, game.encoding().version, draughts, text)
}

/// The sidecar path for a weights path: `x.safetensors` → `x.json`.
pub fn sidecar_path(weights: &Path) -> PathBuf {
    dama_run::sidecar_of(weights)
}

/// The optimizer-state path for a weights path: `x.safetensors` →
/// `x.optim.safetensors`.
pub fn optimizer_path(weights: &Path) -> PathBuf {
    weights.with_extension("optim.safetensors")
}

/// Saves a network (weights and sidecar, no optimizer state) at `path`
/// (which should end in `.safetensors`).
///
/// # Errors
///
/// I/O and libtorch errors.
pub fn save_network(
    net: &Network,
    rules: impl Into<GameRules>,
    step: u64,
    path: &Path,
) -> Result<CheckpointMeta> {
    let (game, encoding_version, rules, game_rules_text) = game_fields(&rules.into());
    let weights = write_tensors(path, &net_tensors(net))?;
    let meta = CheckpointMeta {
        format: CHECKPOINT_FORMAT,
        game,
        encoding_version,
        model: net.config().clone(),
        rules,
        game_rules_text,
        legacy: LegacyRuleFields::default(),
        step,
        train: None,
        weights,
        optimizer: None,
    };
    write_sidecar(path, &meta)?;
    Ok(meta)
}

/// Saves a trainer: weights, optimizer state and sidecar, so that
/// [`load_trainer`] continues exactly where it stopped.
///
/// # Errors
///
/// I/O and libtorch errors.
pub fn save_trainer(
    trainer: &Trainer,
    rules: impl Into<GameRules>,
    path: &Path,
) -> Result<CheckpointMeta> {
    let (game, encoding_version, rules, game_rules_text) = game_fields(&rules.into());
    let weights = write_tensors(path, &net_tensors(trainer.network()))?;
    let state = write_tensors(&optimizer_path(path), &trainer.optimizer_tensors())?;
    let meta = CheckpointMeta {
        format: CHECKPOINT_FORMAT,
        game,
        encoding_version,
        model: trainer.network().config().clone(),
        rules,
        game_rules_text,
        legacy: LegacyRuleFields::default(),
        step: trainer.step(),
        train: Some(trainer.config().clone()),
        weights,
        optimizer: Some(OptimizerEntry {
            kind: trainer.config().optimizer.name().to_string(),
            state,
        }),
    };
    write_sidecar(path, &meta)?;
    Ok(meta)
}

/// Reads and parses the sidecar of the checkpoint whose weights are at
/// `path` (`path` may also name the sidecar itself).
///
/// # Errors
///
/// [`Error::Io`] if it cannot be read, [`Error::Corrupt`] if it does not
/// parse, [`Error::Incompatible`] if its format or encoding version differs
/// from this build's.
pub fn read_meta(path: &Path) -> Result<CheckpointMeta> {
    let side = sidecar_path(path);
    let text = crate::files::read_bounded_string(&side, crate::files::MAX_TEXT_FILE)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", side.display())))?;
    parse_meta(&text, &side)
}

/// Parses the text of a sidecar read from `side` (named in errors) and
/// checks it: format and encoding version, and a network shape within
/// [`ModelConfig::validate`]'s bounds (a crafted sidecar must not make the
/// loader allocate a network larger than memory).
///
/// # Errors
///
/// As [`read_meta`], without the I/O.
pub fn parse_meta(text: &str, side: &Path) -> Result<CheckpointMeta> {
    let side = side.to_path_buf();
    let meta: CheckpointMeta = serde_json::from_str(text).map_err(|e| Error::Corrupt {
        path: side.clone(),
        reason: format!("sidecar does not parse: {e}"),
    })?;
    let mut problems = Vec::new();
    if meta.format != CHECKPOINT_FORMAT {
        problems.push(format!(
            "checkpoint format {} but this build reads {CHECKPOINT_FORMAT}",
            meta.format
        ));
    }
    let encoding = meta.game.encoding();
    if meta.encoding_version != encoding.version {
        problems.push(format!(
            "{} encoding version {} but this build encodes version {}",
            meta.game.title(),
            meta.encoding_version,
            encoding.version
        ));
    }
    if let Err(e) = meta.model.validate() {
        problems.push(e.to_string());
    } else if meta.model.shape() != encoding.shape {
        problems.push(format!(
            "a network of {} does not fit {}'s encoding ({})",
            meta.model.shape(),
            meta.game.title(),
            encoding.shape
        ));
    }
    if let Err(e) = meta.try_game_rules() {
        problems.push(e);
    }
    let files =
        std::iter::once(&meta.weights.file).chain(meta.optimizer.as_ref().map(|o| &o.state.file));
    for file in files {
        let plain = !file.is_empty()
            && Path::new(file)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
            && !file.contains('/')
            && !file.contains('\\');
        if !plain {
            problems.push(format!(
                "file {file:?} is not a file name next to the sidecar"
            ));
        }
    }
    if !problems.is_empty() {
        return Err(Error::Incompatible {
            path: side,
            problems,
        });
    }
    Ok(meta)
}

/// Loads a network of `game` (any rules of it), saved by [`save_network`]
/// or [`save_trainer`], onto `device` (fp32); another game's is refused by
/// name.
///
/// # Errors
///
/// [`Error::Corrupt`] for a truncated or damaged file,
/// [`Error::Incompatible`] naming every mismatch (game, encoding version,
/// missing, unexpected or misshapen tensors), I/O and libtorch errors.
pub fn load_game_network(
    path: &Path,
    device: Device,
    game: GameName,
) -> Result<(Network, CheckpointMeta)> {
    let meta = read_meta(path)?;
    meta.expect_game(game, path)?;
    Ok((network_of(&meta, path, device)?, meta))
}

/// Loads a network trained under exactly `rules` (their game and every
/// option).
///
/// # Errors
///
/// As [`load_game_network`], and [`Error::Incompatible`] naming the rules
/// when they differ.
pub fn load_network_for(
    path: &Path,
    device: Device,
    rules: &GameRules,
) -> Result<(Network, CheckpointMeta)> {
    let meta = read_meta(path)?;
    meta.expect_game(rules.name(), path)?;
    let trained = meta.game_rules();
    if trained != *rules {
        let show = |r: &GameRules| match r.draughts() {
            Some(r) => format!("{r:?}"),
            None => r.text(),
        };
        return Err(Error::Incompatible {
            path: sidecar_path(path),
            problems: vec![format!(
                "rules: {} expected, checkpoint trained with {}",
                show(rules),
                show(&trained)
            )],
        });
    }
    Ok((network_of(&meta, path, device)?, meta))
}

/// The network `meta` describes, with the weights of the checkpoint at
/// `path`, on `device`.
fn network_of(meta: &CheckpointMeta, path: &Path, device: Device) -> Result<Network> {
    let mut net = Network::new(&meta.model, device)?;
    load_weights_into(&mut net, path, meta)?;
    Ok(net)
}

/// Loads the weights of the checkpoint at `path` into an existing network,
/// whose config must match the checkpoint's.
///
/// # Errors
///
/// As [`load_game_network`]; a config mismatch is [`Error::Incompatible`] with
/// one entry per differing field.
pub fn load_weights(net: &mut Network, path: &Path) -> Result<CheckpointMeta> {
    let meta = read_meta(path)?;
    let diff = net.config().differences(&meta.model);
    if !diff.is_empty() {
        return Err(Error::Incompatible {
            path: sidecar_path(path),
            problems: diff,
        });
    }
    load_weights_into(net, path, &meta)?;
    Ok(meta)
}

/// Resumes training from a checkpoint written by [`save_trainer`]: same
/// weights, optimizer state, step and therefore learning rate. `train`
/// overrides the stored training config (its optimizer kind must match);
/// `None` keeps the stored one.
///
/// # Errors
///
/// As [`load_game_network`], plus [`Error::Incompatible`] when the checkpoint has
/// no optimizer state or a different optimizer.
pub fn load_trainer(path: &Path, device: Device, train: Option<TrainConfig>) -> Result<Trainer> {
    // Any game: the run that resumes it knows its game from its config.
    let meta = read_meta(path)?;
    let net = network_of(&meta, path, device)?;
    let side = sidecar_path(path);
    let incompatible = |p: String| Error::Incompatible {
        path: side.clone(),
        problems: vec![p],
    };
    let config = match (train, &meta.train) {
        (Some(t), _) => t,
        (None, Some(t)) => t.clone(),
        (None, None) => {
            return Err(incompatible(
                "no training config stored (weights-only checkpoint)".into(),
            ))
        }
    };
    let opt = meta.optimizer.as_ref().ok_or_else(|| {
        incompatible("no optimizer state stored (weights-only checkpoint)".into())
    })?;
    if opt.kind != config.optimizer.name() {
        return Err(incompatible(format!(
            "optimizer: {} requested, checkpoint holds {} state",
            config.optimizer.name(),
            opt.kind
        )));
    }
    let state_path = resolve(path, &opt.state.file);
    let tensors = read_tensors(&state_path, &opt.state)?;
    let mut trainer = Trainer::new(net, config)?;
    trainer.restore(meta.step, &tensors, &state_path)?;
    Ok(trainer)
}

fn net_tensors(net: &Network) -> Vec<(String, Tensor)> {
    let mut v: Vec<(String, Tensor)> = net.var_store().variables().into_iter().collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn load_weights_into(net: &mut Network, path: &Path, meta: &CheckpointMeta) -> Result<()> {
    let wpath = resolve(path, &meta.weights.file);
    let tensors = read_tensors(&wpath, &meta.weights)?;
    let vars = net.var_store().variables();
    let mut problems = Vec::new();
    for (name, var) in &vars {
        match tensors.get(name) {
            None => problems.push(format!("missing tensor {name}")),
            Some(t) if t.size() != var.size() => problems.push(format!(
                "tensor {name} has shape {:?}, the network expects {:?}",
                t.size(),
                var.size()
            )),
            Some(_) => {}
        }
    }
    for name in tensors.keys() {
        if !vars.contains_key(name) {
            problems.push(format!("unexpected tensor {name}"));
        }
    }
    if !problems.is_empty() {
        problems.sort();
        return Err(Error::Incompatible {
            path: wpath,
            problems,
        });
    }
    let device = net.device();
    tch::no_grad(|| -> Result<()> {
        for (name, mut var) in vars {
            if let Some(src) = tensors.get(&name) {
                var.f_copy_(&src.f_to_device(device)?)?;
            }
        }
        Ok(())
    })
}

/// The path of `file` next to the weights/sidecar at `path`.
fn resolve(path: &Path, file: &str) -> PathBuf {
    match path.parent() {
        Some(dir) => dir.join(file),
        None => PathBuf::from(file),
    }
}

fn read_tensors(path: &Path, entry: &FileEntry) -> Result<HashMap<String, Tensor>> {
    let named =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    // The size first: a file grown past the sidecar's record is not read
    // into memory.
    let size = fs::metadata(path).map_err(named)?.len();
    if size != entry.bytes {
        return Err(Error::Corrupt {
            path: path.to_path_buf(),
            reason: format!(
                "{size} bytes, but the sidecar records {} ({})",
                entry.bytes,
                if size < entry.bytes {
                    "truncated"
                } else {
                    "overwritten or appended to"
                }
            ),
        });
    }
    let bytes = fs::read(path).map_err(named)?;
    let hash = format!("{:016x}", fnv1a64(&bytes));
    if hash != entry.fnv1a64 {
        return Err(Error::Corrupt {
            path: path.to_path_buf(),
            reason: format!(
                "contents hash {hash}, but the sidecar records {} (file damaged or replaced)",
                entry.fnv1a64
            ),
        });
    }
    let named = Tensor::read_safetensors(path).map_err(|e| Error::Corrupt {
        path: path.to_path_buf(),
        reason: format!("not a readable safetensors file: {e}"),
    })?;
    Ok(named.into_iter().collect())
}

/// Writes named tensors to `path` atomically and describes the file.
fn write_tensors(path: &Path, tensors: &[(String, Tensor)]) -> Result<FileEntry> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            fs::create_dir_all(dir)?;
        }
    }
    let tmp = tmp_path(path);
    let result = (|| {
        // safetensors stores contiguous CPU data; move everything there first.
        let cpu: Vec<(String, Tensor)> = tensors
            .iter()
            .map(|(n, t)| Ok((n.clone(), t.f_to_device(Device::Cpu)?.f_contiguous()?)))
            .collect::<Result<_>>()?;
        Tensor::write_safetensors(&cpu, &tmp)?;
        let bytes = fs::read(&tmp)?;
        fs::File::open(&tmp)?.sync_all()?;
        crate::files::commit_point(path);
        fs::rename(&tmp, path)?;
        Ok(FileEntry {
            file: file_name(path),
            bytes: bytes.len() as u64,
            fnv1a64: format!("{:016x}", fnv1a64(&bytes)),
        })
    })();
    if result.is_err() {
        // A failed write leaves no temporary file behind (issue 19).
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(|e| match e {
        Error::Io(io) => Error::Io(std::io::Error::new(
            io.kind(),
            format!("{}: {io}", path.display()),
        )),
        other => other,
    })
}

fn write_sidecar(path: &Path, meta: &CheckpointMeta) -> Result<()> {
    let mut text = serde_json::to_string_pretty(meta)?;
    text.push('\n');
    let side = sidecar_path(path);
    write_atomic(&side, text.as_bytes())
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", side.display())))?;
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
