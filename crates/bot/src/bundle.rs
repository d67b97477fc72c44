//! The bundle written by [`export`](crate::export): its metadata and loading.
//!
//! A bundle is a directory whose `bundle.json` says what it holds
//! (`kind`, [`BundleKind`]; [`BundleContents`] reads either): a
//! policy/value network played with search ([`Bundle`], below), or a
//! learned evaluator played by the alpha-beta engine
//! ([`EvaluatorBundle`](crate::EvaluatorBundle), written by
//! [`export_evaluator`](crate::export_evaluator)). A network bundle:
//!
//! | file | contents |
//! |---|---|
//! | `bundle.json` | [`BundleMeta`]: format, kind, encoding version, rules, model, search defaults, step, Elo |
//! | `model.ts` | TorchScript traced from Rust: planes `[B, 13, 8, 8]` f32 → `[B, 3587]`, the policy logits `[B, 3584]` then the WDL logits `[B, 3]` |
//! | `weights.safetensors`, `weights.json` | the same network as a `dama-nn` checkpoint |
//! | `bundle_example.py` | runs `model.ts` from Python: PyTorch, and dama's Python module (`crates/python`, `pip install ./crates/python`) for positions, legal actions, policy indices and input planes |
//! | `README.md` | how to use it |
//!
//! Format 1 (written before `dama export` traced from Rust) had a
//! `model.ts` scripted in Python that returns the tuple `(policy_logits,
//! wdl_logits)` and no Python files; this build still loads it. Format 4
//! added `kind` (absent in older bundles, which are all network bundles)
//! and the learned-evaluator bundle.

use std::path::{Path, PathBuf};

use dama_engine::Rules;
use dama_mcts::SearchConfig;
use dama_nn::{
    GameName, GameRules, LegacyRuleFields, ModelConfig, RuleFieldsError, TorchScriptEvaluator,
};
use serde::{Deserialize, Serialize};

use crate::evaluator_bundle::EvaluatorBundleMeta;
use crate::Error;

/// Version of the bundle layout (this module) that this build writes.
pub const BUNDLE_FORMAT: u32 = 4;

/// The oldest bundle format this build reads.
pub const OLDEST_BUNDLE_FORMAT: u32 = 1;

/// What a bundle holds (`kind` in `bundle.json`, format 4; older bundles
/// have none and are network bundles).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BundleKind {
    /// A policy/value network (TorchScript and weights), played with
    /// search ([`Bundle`]).
    #[default]
    Network,
    /// A learned evaluator (`.nnue`), played by the alpha-beta engine
    /// ([`crate::EvaluatorBundle`]).
    Evaluator,
}

impl BundleKind {
    /// The kind a `bundle.json` names (absent: a network bundle).
    fn of(value: &serde_json::Value) -> Result<BundleKind, String> {
        match value.get("kind") {
            None => Ok(BundleKind::Network),
            Some(k) => serde_json::from_value(k.clone())
                .map_err(|_| format!("bundle.json: `kind` is {k}, not network or evaluator")),
        }
    }
}

impl std::fmt::Display for BundleKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BundleKind::Network => "network",
            BundleKind::Evaluator => "evaluator",
        })
    }
}

/// Checks the `format` of a `bundle.json`: a problem if this build cannot
/// read it.
pub(crate) fn format_problem(value: &serde_json::Value) -> Option<String> {
    match value.get("format").and_then(serde_json::Value::as_u64) {
        Some(f) if (u64::from(OLDEST_BUNDLE_FORMAT)..=u64::from(BUNDLE_FORMAT)).contains(&f) => {
            None
        }
        Some(f) => Some(format!(
            "bundle format {f}, this build reads formats {OLDEST_BUNDLE_FORMAT} to {BUNDLE_FORMAT}"
        )),
        None => Some("bundle.json has no `format`".into()),
    }
}

/// Whether `name` is a plain file name inside the bundle directory (no
/// separators, no `..`); a problem naming `key` if not.
pub(crate) fn file_name_problem(key: &str, name: &str) -> Option<String> {
    let plain = Path::new(name)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if name.is_empty() || !plain || name.contains('/') || name.contains('\\') {
        Some(format!(
            "`{key}` is {name:?}, not a file name inside the bundle directory"
        ))
    } else {
        None
    }
}

/// Reads the `bundle.json` of the bundle `dir` (or `dir` itself if it
/// names the file): the bundle directory and the text.
pub(crate) fn read_bundle_json(dir: &Path) -> Result<(PathBuf, String), Error> {
    let (dir, file) = if dir.is_file() {
        let parent = dir.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        (parent, dir.to_path_buf())
    } else {
        (dir.to_path_buf(), dir.join("bundle.json"))
    };
    if !dir.is_dir() {
        return Err(Error::Bundle {
            path: dir,
            problems: vec!["no such directory".into()],
        });
    }
    match dama_nn::files::read_bounded_string(&file, dama_nn::files::MAX_TEXT_FILE) {
        Ok(text) => Ok((dir, text)),
        Err(e) => Err(Error::Bundle {
            path: dir,
            problems: vec![format!(
                "cannot read {}: {e} (is this a directory written by `dama export`?)",
                file.display()
            )],
        }),
    }
}

/// The game's rules that a `bundle.json`'s rule fields hold (`rules`,
/// `game_rules_text`, and an older network bundle's legacy fields), or the
/// problem in words.
pub(crate) fn rules_of_fields(
    game: GameName,
    rules: Rules,
    text: Option<&str>,
    legacy: &LegacyRuleFields,
) -> Result<GameRules, String> {
    GameRules::from_file_fields(game, rules, text, legacy).map_err(|e| match e {
        RuleFieldsError::Text { text, error } => {
            format!("`game_rules_text` `{text}`: {error}")
        }
        RuleFieldsError::Misplaced => format!(
            "`game_rules_text` (or, in older bundles, {}) must be present exactly in a bundle of a game other than {}, with that game's rules (game {game})",
            LegacyRuleFields::FIELDS,
            GameName::default().title(),
        ),
    })
}

/// What a `bundle.json` describes, of either kind.
#[derive(Clone, Debug, PartialEq)]
pub enum BundleContents {
    /// A network bundle (boxed, as the other: metadata of some size).
    Network(Box<BundleMeta>),
    /// A learned-evaluator bundle.
    Evaluator(Box<EvaluatorBundleMeta>),
}

impl BundleContents {
    /// Parses a `bundle.json` of either kind and checks that this build can
    /// use it ([`BundleMeta::parse`], [`EvaluatorBundleMeta::parse`]).
    ///
    /// # Errors
    ///
    /// Every problem found, in words.
    pub fn parse(text: &str) -> Result<BundleContents, Vec<String>> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| vec![format!("bundle.json does not parse: {e}")])?;
        match BundleKind::of(&value).map_err(|p| vec![p])? {
            BundleKind::Network => {
                BundleMeta::parse(text).map(|m| BundleContents::Network(Box::new(m)))
            }
            BundleKind::Evaluator => {
                EvaluatorBundleMeta::parse(text).map(|m| BundleContents::Evaluator(Box::new(m)))
            }
        }
    }

    /// Reads and checks the `bundle.json` of the bundle `dir` (or `dir`
    /// itself if it names the file), without loading what the bundle holds.
    ///
    /// # Errors
    ///
    /// [`Error::Bundle`] naming every problem.
    pub fn read(dir: &Path) -> Result<BundleContents, Error> {
        let (dir, text) = read_bundle_json(dir)?;
        BundleContents::parse(&text).map_err(|problems| Error::Bundle {
            path: dir,
            problems,
        })
    }

    /// What the bundle holds.
    pub fn kind(&self) -> BundleKind {
        match self {
            BundleContents::Network(_) => BundleKind::Network,
            BundleContents::Evaluator(_) => BundleKind::Evaluator,
        }
    }

    /// The game the bundle plays.
    pub fn game(&self) -> GameName {
        match self {
            BundleContents::Network(m) => m.game,
            BundleContents::Evaluator(m) => m.game,
        }
    }

    /// The game and rules the bundle was trained under.
    pub fn game_rules(&self) -> GameRules {
        match self {
            BundleContents::Network(m) => m.game_rules(),
            BundleContents::Evaluator(m) => m.game_rules(),
        }
    }
}

/// One evaluation result of the checkpoint's generation, from the run's
/// `metrics.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEntry {
    /// The opponent (`previous` or a player spec).
    pub opponent: String,
    /// Games played.
    pub games: u32,
    /// Score of the network.
    pub score: f64,
    /// Elo difference, network − opponent.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub elo_lo: f64,
    /// Upper end of the 95% interval.
    pub elo_hi: f64,
}

/// How closely the exported module reproduces the Rust network, measured at
/// export on fixed positions.
///
/// (Bundles of format 1 also hold `python_max_*` figures of a check through
/// PyTorch at export; that check is now the Python test of the bundle,
/// `bundle_example.py --dama`, and the fields are ignored when read.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportCheck {
    /// Positions compared.
    pub positions: usize,
    /// The batch sizes the positions were run in (empty in format 1).
    #[serde(default)]
    pub batch_sizes: Vec<usize>,
    /// Largest |policy logit difference|, `model.ts` run by libtorch from
    /// Rust ([`TorchScriptEvaluator`]) vs the Rust network.
    pub libtorch_max_policy_logit_diff: f64,
    /// Largest |WDL probability difference|, libtorch vs the Rust network.
    pub libtorch_max_wdl_diff: f64,
    /// The tolerance both had to meet.
    pub tolerance: f64,
    /// The libtorch version that wrote `model.ts`.
    pub torch: String,
}

/// `bundle.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BundleMeta {
    /// [`BUNDLE_FORMAT`] of the writer (this build reads
    /// [`OLDEST_BUNDLE_FORMAT`] up to it).
    pub format: u32,
    /// [`BundleKind::Network`] (format 4; absent before).
    #[serde(default)]
    pub kind: BundleKind,
    /// The game the network plays (format 3; older bundles are draughts).
    #[serde(default)]
    pub game: GameName,
    /// The version of the game's position encoding the network expects
    /// ([`dama_nn::Encoding::version`]).
    pub encoding_version: u32,
    /// Input planes `C` of `[B, C, H, W]`.
    pub input_planes: usize,
    /// Length of the policy output (draughts: 56 planes × 64 squares;
    /// Turkish Tafl: 9 planes × 32 squares).
    pub policy_size: usize,
    /// Draughts rules the network was trained under (the defaults for
    /// another game).
    pub rules: Rules,
    /// The rules of a game other than the default (draughts), as their
    /// text: present exactly when the game is not the default (or, in older
    /// bundles of some games, a legacy field instead: [`LegacyRuleFields`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_rules_text: Option<String>,
    /// The per-game rule fields of older bundles (read, never written).
    #[serde(flatten)]
    pub legacy: LegacyRuleFields,
    /// The network's shape.
    pub model: ModelConfig,
    /// Search settings a player should start from.
    pub search: SearchConfig,
    /// Optimizer steps of the checkpoint.
    pub step: u64,
    /// The generation, when the checkpoint is `gen-NNNN.safetensors` of a run.
    pub generation: Option<u32>,
    /// Evaluation results of that generation (empty if none were found).
    pub elo: Vec<EloEntry>,
    /// The checkpoint the bundle was exported from.
    pub source: String,
    /// The TorchScript file.
    pub model_file: String,
    /// The weights file (a `dama-nn` checkpoint, with its `.json` sidecar).
    pub weights_file: String,
    /// The export's self-check.
    pub check: Option<ExportCheck>,
    /// The wheel of dama's Python module the bundle carries
    /// (`dama export --wheel`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python_wheel: Option<crate::wheel::WheelEntry>,
    /// Version of `dama` that exported it.
    pub dama_version: String,
}

/// A bundle read from disk, its metadata checked against this build.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// The bundle directory.
    pub dir: PathBuf,
    /// Its `bundle.json`.
    pub meta: BundleMeta,
}

impl BundleMeta {
    /// Parses the text of a `bundle.json` and checks that this build can use
    /// it: format, encoding version, input planes, policy size, a network
    /// shape within bounds, and file names that stay inside the bundle.
    ///
    /// # Errors
    ///
    /// Every problem found, in words.
    pub fn parse(text: &str) -> Result<BundleMeta, Vec<String>> {
        // Version fields first, so a bundle from another build is named as
        // such even if the rest of its layout changed.
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| vec![format!("bundle.json does not parse: {e}")])?;
        let mut problems = Vec::new();
        let num = |k: &str| value.get(k).and_then(serde_json::Value::as_u64);
        problems.extend(format_problem(&value));
        match BundleKind::of(&value) {
            Ok(BundleKind::Network) => {}
            Ok(BundleKind::Evaluator) => {
                problems.push(
                    "a learned-evaluator bundle (`kind` evaluator), not a network bundle".into(),
                );
                return Err(problems);
            }
            Err(p) => {
                problems.push(p);
                return Err(problems);
            }
        }
        let game = match value.get("game") {
            None => GameName::Draughts,
            Some(g) => match g.as_str().map(str::parse::<GameName>) {
                Some(Ok(g)) => g,
                _ => {
                    let names: Vec<&str> = GameName::ALL.iter().map(|g| g.as_str()).collect();
                    return Err(vec![format!(
                        "bundle.json: `game` is {g}, not one of {}",
                        names.join(", ")
                    )]);
                }
            },
        };
        let encoding = game.encoding();
        let (version, planes, policy) = (
            encoding.version,
            encoding.shape.planes,
            encoding.shape.policy_size(),
        );
        match num("encoding_version") {
            Some(v) if v == u64::from(version) => {}
            Some(v) => problems.push(format!(
                "encoding version mismatch: the network was exported for {} encoding version {v}, \
                 this build encodes its positions with version {version}",
                game.title()
            )),
            None => problems.push("bundle.json has no `encoding_version`".into()),
        }
        match num("input_planes") {
            Some(v) if v == planes as u64 => {}
            Some(v) => problems.push(format!(
                "the network takes {v} input planes, this build encodes {} with {planes}",
                game.title()
            )),
            None => problems.push("bundle.json has no `input_planes`".into()),
        }
        match num("policy_size") {
            Some(v) if v == policy as u64 => {}
            Some(v) => problems.push(format!(
                "the network has {v} policy outputs, this build uses {policy} for {}",
                game.title()
            )),
            None => problems.push("bundle.json has no `policy_size`".into()),
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let meta: BundleMeta = serde_json::from_value(value)
            .map_err(|e| vec![format!("bundle.json is malformed: {e}")])?;
        if let Err(e) = meta.model.validate() {
            problems.push(format!("bundle.json: {e}"));
        } else if meta.model.shape() != encoding.shape {
            problems.push(format!(
                "bundle.json: a network of {} does not fit {}'s encoding ({})",
                meta.model.shape(),
                game.title(),
                encoding.shape
            ));
        }
        if let Err(e) = meta.try_game_rules() {
            problems.push(format!("bundle.json: {e}"));
        }
        for (key, name) in [
            ("model_file", &meta.model_file),
            ("weights_file", &meta.weights_file),
        ] {
            problems.extend(file_name_problem(key, name));
        }
        if problems.is_empty() {
            Ok(meta)
        } else {
            Err(problems)
        }
    }
}

impl Bundle {
    /// Reads `dir/bundle.json` (or `dir` itself if it names the file) and
    /// checks that this build can use the bundle.
    ///
    /// # Errors
    ///
    /// [`Error::Bundle`] naming every problem: no such directory or file,
    /// JSON that does not parse, another bundle format, a learned-evaluator
    /// bundle, another encoding version, input planes or policy size, a
    /// missing model file.
    pub fn load(dir: &Path) -> Result<Bundle, Error> {
        let (dir, text) = read_bundle_json(dir)?;
        let fail = |p: String| Error::Bundle {
            path: dir.clone(),
            problems: vec![p],
        };
        let meta = BundleMeta::parse(&text).map_err(|problems| Error::Bundle {
            path: dir.clone(),
            problems,
        })?;
        if !dir.join(&meta.model_file).is_file() {
            return Err(fail(format!("model file {} is missing", meta.model_file)));
        }
        if let Some(w) = &meta.python_wheel {
            crate::wheel::check_wheel(&dir, w).map_err(fail)?;
        }
        Ok(Bundle { dir, meta })
    }

    /// The TorchScript file.
    pub fn model_path(&self) -> PathBuf {
        self.dir.join(&self.meta.model_file)
    }

    /// The weights file (a `dama-nn` checkpoint).
    pub fn weights_path(&self) -> PathBuf {
        self.dir.join(&self.meta.weights_file)
    }

    /// Loads the TorchScript network onto `device`.
    ///
    /// # Errors
    ///
    /// [`Error::Bundle`] if libtorch cannot load `model.ts` or it does not
    /// answer like a dama network.
    pub fn evaluator(
        &self,
        device: dama_nn::device::Device,
    ) -> Result<TorchScriptEvaluator, Error> {
        let shape = self.meta.game.encoding().shape;
        TorchScriptEvaluator::load_for(&self.model_path(), device, shape).map_err(|e| {
            Error::Bundle {
                path: self.dir.clone(),
                problems: vec![e.to_string()],
            }
        })
    }
}

impl BundleMeta {
    /// The game and rules the network was trained under (a `bundle.json`
    /// that [`BundleMeta::parse`] accepted has rules that parse).
    pub fn game_rules(&self) -> GameRules {
        self.try_game_rules()
            .unwrap_or_else(|_| GameRules::default_for(self.game))
    }

    fn try_game_rules(&self) -> Result<GameRules, String> {
        rules_of_fields(
            self.game,
            self.rules,
            self.game_rules_text.as_deref(),
            &self.legacy,
        )
    }

    /// The `rules` and `game_rules_text` fields of a new `bundle.json` for
    /// `rules`: the default game's rules in `rules`, another game's as text.
    pub fn rule_fields(rules: &GameRules) -> (Rules, Option<String>) {
        rules.file_fields()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_draughts::encode::{ENCODING_VERSION, NUM_PLANES, POLICY_SIZE};

    fn meta() -> BundleMeta {
        BundleMeta {
            format: BUNDLE_FORMAT,
            kind: BundleKind::Network,
            game: GameName::Draughts,
            game_rules_text: None,
            legacy: LegacyRuleFields::default(),
            encoding_version: ENCODING_VERSION,
            input_planes: NUM_PLANES,
            policy_size: POLICY_SIZE,
            rules: Rules::default(),
            model: ModelConfig::quick(),
            search: SearchConfig::default(),
            step: 1,
            generation: None,
            elo: Vec::new(),
            source: "x.safetensors".into(),
            model_file: "model.ts".into(),
            weights_file: "weights.safetensors".into(),
            check: None,
            python_wheel: None,
            dama_version: "0".into(),
        }
    }

    #[test]
    fn load_names_every_mismatch() {
        let dir = tempfile::tempdir().unwrap();
        let err = Bundle::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("cannot read"), "{err}");
        let mut v = serde_json::to_value(meta()).unwrap();
        v["encoding_version"] = 7.into();
        v["input_planes"] = 12.into();
        std::fs::write(dir.path().join("bundle.json"), v.to_string()).unwrap();
        let err = Bundle::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("encoding version mismatch") && err.contains("version 7"),
            "{err}"
        );
        assert!(err.contains("12 input planes"), "{err}");
        std::fs::write(
            dir.path().join("bundle.json"),
            serde_json::to_string(&meta()).unwrap(),
        )
        .unwrap();
        let err = Bundle::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("model file model.ts is missing"), "{err}");
        std::fs::write(dir.path().join("model.ts"), b"junk").unwrap();
        let b = Bundle::load(&dir.path().join("bundle.json")).unwrap();
        assert_eq!(b.meta, meta());
        let err = b
            .evaluator(dama_nn::device::Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(err.contains("TorchScript"), "{err}");
        std::fs::write(dir.path().join("bundle.json"), "[1, 2").unwrap();
        let err = Bundle::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("does not parse"), "{err}");
    }

    /// Issue 14: bundles of format 1 (a `model.ts` scripted in Python, with
    /// the PyTorch figures in its check) still load; a newer format does
    /// not.
    #[test]
    fn format_1_bundles_load_and_newer_formats_are_refused() {
        let mut v = serde_json::to_value(meta()).unwrap();
        v["format"] = 1.into();
        v["check"] = serde_json::json!({
            "positions": 24,
            "python_max_policy_logit_diff": 1e-6,
            "python_max_wdl_diff": 1e-7,
            "libtorch_max_policy_logit_diff": 2e-6,
            "libtorch_max_wdl_diff": 3e-7,
            "tolerance": 1e-4,
            "torch": "2.13.0"
        });
        let m = BundleMeta::parse(&v.to_string()).unwrap();
        let check = m.check.unwrap();
        assert_eq!(check.libtorch_max_policy_logit_diff, 2e-6);
        assert!(check.batch_sizes.is_empty());
        // Format 3 had no `kind`: a network bundle.
        let mut v3 = serde_json::to_value(meta()).unwrap();
        v3["format"] = 3.into();
        v3.as_object_mut().unwrap().remove("kind");
        let m3 = BundleMeta::parse(&v3.to_string()).unwrap();
        assert_eq!(m3.kind, BundleKind::Network);
        assert_eq!(
            BundleContents::parse(&v3.to_string()).unwrap(),
            BundleContents::Network(Box::new(m3))
        );
        v["format"] = (BUNDLE_FORMAT + 1).into();
        let problems = BundleMeta::parse(&v.to_string()).unwrap_err().join("; ");
        assert!(problems.contains("reads formats 1 to 4"), "{problems}");
        v["format"] = 0.into();
        assert!(BundleMeta::parse(&v.to_string()).is_err());
    }

    /// A bundle of every game records its rules (another game than the
    /// default's as `game_rules_text`); an older bundle whose game kept
    /// them in a legacy field still loads with them; a game this build
    /// does not know is refused with the games it knows.
    #[test]
    fn every_game_records_its_rules_and_older_rule_fields_still_load() {
        for &game in GameName::ALL {
            let rules = GameRules::default_for(game);
            let encoding = game.encoding();
            let mut m = meta();
            m.game = game;
            m.encoding_version = encoding.version;
            m.input_planes = encoding.shape.planes;
            m.policy_size = encoding.shape.policy_size();
            m.model = ModelConfig::quick().with_shape(encoding.shape);
            (m.rules, m.game_rules_text) = BundleMeta::rule_fields(&rules);
            let read = BundleMeta::parse(&serde_json::to_string(&m).unwrap()).unwrap();
            assert_eq!(read.game_rules(), rules, "{game}");
            if game != GameName::default() {
                let mut none = m.clone();
                none.game_rules_text = None;
                let problems =
                    BundleMeta::parse(&serde_json::to_string(&none).unwrap()).unwrap_err();
                assert!(
                    problems.join("; ").contains("game_rules_text"),
                    "{problems:?}"
                );
                let mut bad = m.clone();
                bad.game_rules_text = Some("colour=green".into());
                let problems =
                    BundleMeta::parse(&serde_json::to_string(&bad).unwrap()).unwrap_err();
                assert!(problems.join("; ").contains("colour=green"), "{problems:?}");
            }
            if let Some(legacy) = dama_nn::LegacyRuleFields::holding(&rules) {
                let mut old = m.clone();
                old.game_rules_text = None;
                old.legacy = legacy;
                let text = serde_json::to_string(&old).unwrap();
                assert_eq!(BundleMeta::parse(&text).unwrap().game_rules(), rules);
                old.game_rules_text = m.game_rules_text.clone();
                let text = serde_json::to_string(&old).unwrap();
                assert!(BundleMeta::parse(&text).is_err(), "both forms: {text}");
            }
        }
        let mut v = serde_json::to_value(meta()).unwrap();
        v["game"] = "chess".into();
        let problems = BundleMeta::parse(&v.to_string()).unwrap_err().join("; ");
        for g in GameName::ALL {
            assert!(problems.contains(g.as_str()), "{problems}");
        }
    }

    /// Issue 19: a bundle's file names must stay inside the bundle, its
    /// network must be of a sane size, and bundle.json itself is bounded.
    #[test]
    fn parse_rejects_escaping_file_names_huge_networks_and_huge_files() {
        let mut m = meta();
        m.model_file = "../../etc/passwd".into();
        m.model.channels = 1 << 40;
        let problems = BundleMeta::parse(&serde_json::to_string(&m).unwrap()).unwrap_err();
        let all = problems.join("; ");
        assert!(all.contains("not a file name inside"), "{all}");
        assert!(all.contains("channels"), "{all}");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bundle.json"), vec![b' '; 2 << 20]).unwrap();
        let err = Bundle::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("limit"), "{err}");
    }
}
