//! The learned-evaluator bundle (format 4, `"kind": "evaluator"`), written
//! by [`export_evaluator`](crate::export_evaluator): the alpha-beta engine
//! with a learned evaluation, ready to play.
//!
//! | file | contents |
//! |---|---|
//! | `bundle.json` | [`EvaluatorBundleMeta`]: format, kind, game, rules, the default limit (depth or time), threads, table size, the evaluator file with its size and FNV-1a 64 checksum, generation, step, Elo |
//! | `evaluator.nnue` | the learned evaluator, a copy of the run's file (`dama_nnue::read_network`), of any game whose alpha-beta engine learns its evaluation (`dama_nnue::LearnedGame`: Turkish draughts and its variants, Turkish Tafl) |
//! | `README.md` | how to use it |
//!
//! Loading ([`EvaluatorBundle::load`]) checks the file against the size and
//! checksum `bundle.json` records, then has the game read it (its own
//! checksum, its feature set and architecture) and refuses one made for
//! another game or other rules than the bundle's.

use std::path::{Path, PathBuf};

use dama_engine::Rules;
use dama_eval::{AlphaBetaLimit, PlayerSpec};
use dama_game::{AlphaBetaSpec, OwnSpec};
use dama_nn::{GameName, GameRules, LegacyRuleFields};
use dama_nnue::LearnedGame;
use dama_registry::WithLearnedGame;
use serde::{Deserialize, Serialize};

use crate::bundle::{
    file_name_problem, format_problem, read_bundle_json, rules_of_fields, BundleKind, EloEntry,
};
use crate::{BotSpec, Error};

/// The first bundle format with learned-evaluator bundles.
pub const EVALUATOR_BUNDLE_FORMAT: u32 = 4;

/// The largest evaluator file a bundle may hold (this build's network is
/// about 150 KB; a huge file in its place must not exhaust memory).
pub const MAX_EVALUATOR_FILE: u64 = 64 << 20;

/// `bundle.json` of a learned-evaluator bundle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvaluatorBundleMeta {
    /// [`crate::BUNDLE_FORMAT`] of the writer (at least
    /// [`EVALUATOR_BUNDLE_FORMAT`]).
    pub format: u32,
    /// [`BundleKind::Evaluator`].
    pub kind: BundleKind,
    /// The game: one whose alpha-beta engine learns its evaluation
    /// ([`GameName::learned`]).
    pub game: GameName,
    /// The Turkish draughts rules the evaluator was trained under (its file
    /// records the same; the bundle plays this variant); the defaults in a
    /// bundle of another game, whose rules are `game_rules_text`.
    pub rules: Rules,
    /// The rules of a game other than the default (draughts), as their
    /// text (absent in a draughts bundle).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_rules_text: Option<String>,
    /// How long the engine searches a move by default: `{"depth": N}` plies
    /// or `{"time_ms": MS}`.
    pub limit: AlphaBetaLimit,
    /// Search threads (Lazy SMP; 1 searches on the bot's thread alone).
    pub threads: usize,
    /// The transposition table in MiB.
    pub tt_mb: usize,
    /// The evaluator file, inside the bundle.
    pub evaluator_file: String,
    /// Its size in bytes.
    pub evaluator_bytes: u64,
    /// Its FNV-1a 64 checksum, 16 hexadecimal digits.
    pub evaluator_fnv1a64: String,
    /// The generation of the run that trained it, if known.
    pub generation: Option<u32>,
    /// Training steps of the run when it was written, if known.
    pub step: Option<u64>,
    /// Evaluation results of that generation (empty if none were found).
    pub elo: Vec<EloEntry>,
    /// The evaluator file the bundle was exported from.
    pub source: String,
    /// The wheel of dama's Python module the bundle carries
    /// (`dama export --wheel`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python_wheel: Option<crate::wheel::WheelEntry>,
    /// Version of `dama` that exported it.
    pub dama_version: String,
}

impl EvaluatorBundleMeta {
    /// Parses the text of a learned-evaluator bundle's `bundle.json` and
    /// checks that this build can use it: format, kind, game, a limit,
    /// threads and table size within the `alphabeta` player's bounds, a file
    /// name inside the bundle and a checksum of 16 hex digits.
    ///
    /// # Errors
    ///
    /// Every problem found, in words.
    pub fn parse(text: &str) -> Result<EvaluatorBundleMeta, Vec<String>> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| vec![format!("bundle.json does not parse: {e}")])?;
        let mut problems: Vec<String> = format_problem(&value).into_iter().collect();
        let format = value.get("format").and_then(serde_json::Value::as_u64);
        if format.is_some_and(|f| f < u64::from(EVALUATOR_BUNDLE_FORMAT)) {
            problems.push(format!(
                "a learned-evaluator bundle needs format {EVALUATOR_BUNDLE_FORMAT} or newer"
            ));
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let meta: EvaluatorBundleMeta = serde_json::from_value(value)
            .map_err(|e| vec![format!("bundle.json is malformed: {e}")])?;
        if meta.kind != BundleKind::Evaluator {
            problems.push(format!(
                "bundle.json: `kind` is {}, not evaluator",
                meta.kind
            ));
        }
        match meta.try_game_rules() {
            Err(e) => problems.push(format!("bundle.json: {e}")),
            Ok(_) => {
                if let Err(e) = meta.player_spec(meta.limit, None) {
                    problems.push(format!("bundle.json: {e}"));
                } else if let Some(problem) = meta.settings_problem() {
                    problems.push(format!("bundle.json: {problem}"));
                }
            }
        }
        problems.extend(file_name_problem("evaluator_file", &meta.evaluator_file));
        if meta.evaluator_fnv1a64.len() != 16
            || u64::from_str_radix(&meta.evaluator_fnv1a64, 16).is_err()
        {
            problems.push(format!(
                "bundle.json: `evaluator_fnv1a64` is {:?}, not 16 hexadecimal digits",
                meta.evaluator_fnv1a64
            ));
        }
        if problems.is_empty() {
            Ok(meta)
        } else {
            Err(problems)
        }
    }

    /// The game and rules the evaluator was trained under (a `bundle.json`
    /// that [`EvaluatorBundleMeta::parse`] accepted has rules that parse).
    pub fn game_rules(&self) -> GameRules {
        self.try_game_rules()
            .unwrap_or_else(|_| GameRules::default_for(self.game))
    }

    fn try_game_rules(&self) -> Result<GameRules, String> {
        rules_of_fields(
            self.game,
            self.rules,
            self.game_rules_text.as_deref(),
            &LegacyRuleFields::default(),
        )
    }

    /// Whether the game's alpha-beta engine takes the bundle's settings: a
    /// game without learned evaluations, or one whose engine refuses the
    /// limit or the threads, is a problem in words.
    pub(crate) fn settings_problem(&self) -> Option<String> {
        struct Check(AlphaBetaSpec);
        impl WithLearnedGame for Check {
            type Output = Option<String>;
            fn run<G: LearnedGame>(self) -> Option<String> {
                G::check_own(&OwnSpec::AlphaBeta(self.0))
                    .err()
                    .map(|e| format!("{}'s alpha-beta engine: {e}", G::TITLE))
            }
        }
        let spec = AlphaBetaSpec {
            limit: self.limit,
            tt_mb: self.tt_mb,
            eval: None,
            threads: self.threads,
        };
        self.game.with_learned(Check(spec)).unwrap_or_else(|| {
            Some(format!(
                "{}'s engine plays no learned evaluation (games that do: {})",
                self.game.title(),
                GameName::learned()
                    .iter()
                    .map(|g| g.title())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }

    /// The `alphabeta` player this bundle is, searching to `limit`, with the
    /// evaluator at `eval`; checked like a player spec of the command line
    /// (so a bundle cannot ask for more threads, time or depth than one).
    ///
    /// # Errors
    ///
    /// The spec's bounds, in words.
    pub fn player_spec(
        &self,
        limit: AlphaBetaLimit,
        eval: Option<dama_game::EvalSource>,
    ) -> Result<PlayerSpec, Error> {
        let spec = PlayerSpec::AlphaBeta {
            limit,
            tt_mb: self.tt_mb,
            eval: None,
            threads: self.threads,
        };
        // The spec's parser holds the bounds: what it reads back is valid.
        let mut spec: PlayerSpec = spec.to_string().parse()?;
        if let PlayerSpec::AlphaBeta { eval: e, .. } = &mut spec {
            *e = eval;
        }
        Ok(spec)
    }
}

/// A learned-evaluator bundle read from disk, its evaluator loaded and
/// checked.
#[derive(Clone, Debug)]
pub struct EvaluatorBundle {
    /// The bundle directory.
    pub dir: PathBuf,
    /// Its `bundle.json`.
    pub meta: EvaluatorBundleMeta,
    /// The game and rules it plays (the evaluator file's, checked).
    pub rules: GameRules,
}

impl EvaluatorBundle {
    /// Reads `dir/bundle.json` (or `dir` itself if it names the file), then
    /// the evaluator file: its size and checksum must be the ones
    /// `bundle.json` records, it must read as an evaluator of this build's
    /// architecture, and it must have been trained under the bundle's rules.
    ///
    /// # Errors
    ///
    /// [`Error::Bundle`] naming every problem: those of
    /// [`EvaluatorBundleMeta::parse`], a missing, corrupt or replaced
    /// evaluator file, one of another game or for other rules.
    pub fn load(dir: &Path) -> Result<EvaluatorBundle, Error> {
        let (dir, text) = read_bundle_json(dir)?;
        let fail = |p: String| Error::Bundle {
            path: dir.clone(),
            problems: vec![p],
        };
        let meta = EvaluatorBundleMeta::parse(&text).map_err(|problems| Error::Bundle {
            path: dir.clone(),
            problems,
        })?;
        let path = dir.join(&meta.evaluator_file);
        if !path.is_file() {
            return Err(fail(format!(
                "evaluator file {} is missing",
                meta.evaluator_file
            )));
        }
        let bytes = dama_nn::files::read_bounded(&path, MAX_EVALUATOR_FILE).map_err(|e| {
            fail(format!(
                "cannot read the evaluator file {}: {e}",
                meta.evaluator_file
            ))
        })?;
        let sum = fnv_hex(&bytes);
        if bytes.len() as u64 != meta.evaluator_bytes || sum != meta.evaluator_fnv1a64 {
            return Err(fail(format!(
                "evaluator file {} is corrupt or was replaced: {} bytes with checksum {sum}, \
                 bundle.json records {} bytes with checksum {}",
                meta.evaluator_file,
                bytes.len(),
                meta.evaluator_bytes,
                meta.evaluator_fnv1a64
            )));
        }
        let rules = meta.game_rules();
        check_evaluator(&path, &rules).map_err(fail)?;
        if let Some(w) = &meta.python_wheel {
            crate::wheel::check_wheel(&dir, w).map_err(fail)?;
        }
        Ok(EvaluatorBundle { dir, meta, rules })
    }

    /// The evaluator file.
    pub fn evaluator_path(&self) -> PathBuf {
        self.dir.join(&self.meta.evaluator_file)
    }

    /// The bundle as an `alphabeta` bot searching to `limit` (the bundle's
    /// default if `None`) with its evaluator file, its threads and table
    /// size: for a caller that sets a depth (a [`crate::Limit`] holds
    /// simulations or time only).
    ///
    /// # Errors
    ///
    /// A limit out of the player's bounds.
    pub fn alphabeta_spec(&self, limit: Option<AlphaBetaLimit>) -> Result<BotSpec, Error> {
        let spec = self.meta.player_spec(
            limit.unwrap_or(self.meta.limit),
            Some(self.evaluator_path().into()),
        )?;
        let PlayerSpec::AlphaBeta {
            limit,
            tt_mb,
            eval,
            threads,
        } = spec
        else {
            return Err(Error::Input("not an alphabeta spec".into()));
        };
        Ok(BotSpec::AlphaBeta {
            limit,
            tt_mb,
            eval,
            threads,
        })
    }
}

/// Has the game of `rules` load the evaluator file at `path` as its
/// alpha-beta engine would: a file of another game (another feature set) or
/// trained under other rules is refused, in words.
pub(crate) fn check_evaluator(path: &Path, rules: &GameRules) -> Result<(), String> {
    struct Load<'a>(&'a Path, &'a GameRules);
    impl WithLearnedGame for Load<'_> {
        type Output = Result<(), String>;
        fn run<G: LearnedGame>(self) -> Result<(), String> {
            let rules = self
                .1
                .get::<G>()
                .ok_or_else(|| format!("rules of {}, not {}", self.1.name().title(), G::TITLE))?;
            G::load_evaluation(self.0, &rules)
                .map(drop)
                .map_err(|e| crate::error::chain(&e))
        }
    }
    rules
        .name()
        .with_learned(Load(path, rules))
        .unwrap_or_else(|| {
            Err(format!(
                "{}'s engine plays no learned evaluation",
                rules.name().title()
            ))
        })
}

/// The FNV-1a 64 checksum of `bytes` as `bundle.json` writes it.
pub(crate) fn fnv_hex(bytes: &[u8]) -> String {
    format!("{:016x}", dama_run::files::fnv1a64(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BundleContents;

    fn meta() -> EvaluatorBundleMeta {
        EvaluatorBundleMeta {
            format: crate::BUNDLE_FORMAT,
            kind: BundleKind::Evaluator,
            game: GameName::Draughts,
            rules: Rules::default(),
            game_rules_text: None,
            limit: AlphaBetaLimit::Depth(3),
            threads: 1,
            tt_mb: 4,
            evaluator_file: "evaluator.nnue".into(),
            evaluator_bytes: 0,
            evaluator_fnv1a64: fnv_hex(&[]),
            generation: None,
            step: None,
            elo: Vec::new(),
            source: "x.nnue".into(),
            python_wheel: None,
            dama_version: "0".into(),
        }
    }

    /// Writes a bundle of a random network under `rules` into `dir`.
    fn write(dir: &Path, rules: Rules) -> EvaluatorBundleMeta {
        let net = dama_nnue::FloatNet::random::<dama_draughts::DraughtsFeatures>(&rules, 5);
        let file = dir.join("evaluator.nnue");
        dama_nnue::write_network(&file, &net, &[]).unwrap();
        let bytes = std::fs::read(&file).unwrap();
        let mut m = meta();
        m.evaluator_bytes = bytes.len() as u64;
        m.evaluator_fnv1a64 = fnv_hex(&bytes);
        std::fs::write(dir.join("bundle.json"), serde_json::to_string(&m).unwrap()).unwrap();
        m
    }

    #[test]
    fn meta_round_trips_and_bounds_are_checked() {
        let m = meta();
        let text = serde_json::to_string(&m).unwrap();
        assert!(text.contains(r#""limit":{"depth":3}"#), "{text}");
        assert!(text.contains(r#""kind":"evaluator""#), "{text}");
        assert_eq!(EvaluatorBundleMeta::parse(&text).unwrap(), m);
        assert!(matches!(
            BundleContents::parse(&text).unwrap(),
            BundleContents::Evaluator(_)
        ));
        // The network reader names the other kind.
        let problems = crate::BundleMeta::parse(&text).unwrap_err().join("; ");
        assert!(problems.contains("learned-evaluator bundle"), "{problems}");

        let mut bad = meta();
        bad.threads = 0;
        bad.limit = AlphaBetaLimit::TimeMs(0);
        bad.evaluator_file = "../best.nnue".into();
        bad.evaluator_fnv1a64 = "xyz".into();
        let all = EvaluatorBundleMeta::parse(&serde_json::to_string(&bad).unwrap())
            .unwrap_err()
            .join("; ");
        for want in ["not a file name inside", "16 hexadecimal"] {
            assert!(all.contains(want), "{want}: {all}");
        }
        assert!(
            all.contains("time must be") || all.contains("threads must"),
            "{all}"
        );
        // Every game: one whose engine learns is taken with its rules as
        // text; one without learned evaluations, or without its rules, is
        // refused by name.
        let learned = GameName::learned();
        for &game in GameName::ALL {
            let mut m = meta();
            m.game = game;
            (m.rules, m.game_rules_text) = GameRules::default_for(game).file_fields();
            let text = serde_json::to_string(&m).unwrap();
            if learned.contains(&game) {
                let read = EvaluatorBundleMeta::parse(&text).unwrap();
                assert_eq!(read.game_rules(), GameRules::default_for(game), "{game}");
            } else {
                let all = EvaluatorBundleMeta::parse(&text).unwrap_err().join("; ");
                assert!(all.contains("plays no learned evaluation"), "{game}: {all}");
            }
            if game != GameName::default() {
                m.game_rules_text = None;
                let all = EvaluatorBundleMeta::parse(&serde_json::to_string(&m).unwrap())
                    .unwrap_err()
                    .join("; ");
                assert!(all.contains("game_rules_text"), "{game}: {all}");
            }
        }
        let mut v = serde_json::to_value(meta()).unwrap();
        v["format"] = 3.into();
        let all = BundleContents::parse(&v.to_string())
            .unwrap_err()
            .join("; ");
        assert!(all.contains("format 4 or newer"), "{all}");
        v["format"] = 4.into();
        v["kind"] = "teapot".into();
        let all = BundleContents::parse(&v.to_string())
            .unwrap_err()
            .join("; ");
        assert!(all.contains("not network or evaluator"), "{all}");
    }

    #[test]
    fn load_checks_the_file_against_bundle_json_and_the_rules() {
        let dir = tempfile::tempdir().unwrap();
        let m = write(dir.path(), Rules::default());
        let b = EvaluatorBundle::load(dir.path()).unwrap();
        assert_eq!(b.meta, m);
        assert_eq!(b.rules, GameRules::from(Rules::default()));
        let spec = b.alphabeta_spec(Some(AlphaBetaLimit::Depth(2))).unwrap();
        assert!(
            spec.to_string().starts_with("alphabeta:depth=2,tt=4,eval="),
            "{spec}"
        );
        assert!(b.alphabeta_spec(Some(AlphaBetaLimit::Depth(99))).is_err());

        // A corrupt file: another size, then the same size with one byte
        // changed.
        let file = dir.path().join("evaluator.nnue");
        let good = std::fs::read(&file).unwrap();
        std::fs::write(&file, &good[..100]).unwrap();
        let e = EvaluatorBundle::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("corrupt or was replaced"), "{e}");
        let mut flipped = good.clone();
        flipped[200] ^= 1;
        std::fs::write(&file, &flipped).unwrap();
        let e = EvaluatorBundle::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("corrupt or was replaced"), "{e}");
        std::fs::remove_file(&file).unwrap();
        let e = EvaluatorBundle::load(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("evaluator file evaluator.nnue is missing"),
            "{e}"
        );

        // A file for other rules than bundle.json's, its checksum updated.
        let croda = Rules::for_variant(dama_engine::Variant::Croda);
        let mut m = write(dir.path(), croda);
        m.rules = Rules::default();
        std::fs::write(
            dir.path().join("bundle.json"),
            serde_json::to_string(&m).unwrap(),
        )
        .unwrap();
        let e = EvaluatorBundle::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("trained for rules"), "{e}");
    }

    /// A Turkish Tafl evaluator bundle loads through Tafl's engine, and a
    /// draughts file in its place is refused as another game's.
    #[test]
    fn a_tafl_bundle_loads_with_tafl_rules_and_refuses_a_draughts_file() {
        let dir = tempfile::tempdir().unwrap();
        let rules = dama_tafl::TaflRules::default();
        let net = dama_nnue::FloatNet::random::<dama_tafl::TaflFeatures>(&rules, 5);
        let file = dir.path().join("evaluator.nnue");
        dama_nnue::write_network(&file, &net, &[]).unwrap();
        let bytes = std::fs::read(&file).unwrap();
        let mut m = meta();
        m.game = GameName::Tafl;
        (m.rules, m.game_rules_text) = GameRules::Tafl(rules).file_fields();
        m.evaluator_bytes = bytes.len() as u64;
        m.evaluator_fnv1a64 = fnv_hex(&bytes);
        std::fs::write(
            dir.path().join("bundle.json"),
            serde_json::to_string(&m).unwrap(),
        )
        .unwrap();
        let b = EvaluatorBundle::load(dir.path()).unwrap();
        assert_eq!(b.rules, GameRules::Tafl(rules));

        let draughts = write(dir.path(), Rules::default());
        m.evaluator_bytes = draughts.evaluator_bytes;
        m.evaluator_fnv1a64 = draughts.evaluator_fnv1a64;
        std::fs::write(
            dir.path().join("bundle.json"),
            serde_json::to_string(&m).unwrap(),
        )
        .unwrap();
        let e = EvaluatorBundle::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("another game's network"), "{e}");
    }
}
