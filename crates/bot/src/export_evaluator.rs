//! `dama export --evaluator`: a learned evaluator (`.nnue`, or a
//! learned-evaluator run's `best.nnue`) of any game whose alpha-beta engine
//! learns its evaluation (its feature set names the game) → a bundle that
//! plays it with that engine ([`EvaluatorBundle`]).
//!
//! The evaluator file is read once, written into the bundle, read back and
//! compared byte for byte (size and FNV-1a 64), loaded as the search would
//! load it, and only then are `bundle.json` and the README written; the
//! bundle is finally loaded through [`EvaluatorBundle::load`], so a bundle
//! that would not load is never reported as written.

use std::fs;
use std::path::{Path, PathBuf};

use dama_eval::{AlphaBetaLimit, DEFAULT_TT_MB};
use dama_nn::{GameName, GameRules};
use dama_nnue::LearnedGame;
use dama_registry::WithLearnedGame;
use serde::Serialize;

use crate::bundle::{BundleKind, BUNDLE_FORMAT};
use crate::evaluator_bundle::{
    check_evaluator, fnv_hex, EvaluatorBundle, EvaluatorBundleMeta, MAX_EVALUATOR_FILE,
};
use crate::export::{elo_entries_of_run, elo_text};
use crate::Error;

/// The evaluator file's name inside the bundle.
const EVALUATOR_FILE: &str = "evaluator.nnue";

/// What to export and how.
#[derive(Clone, Debug)]
pub struct EvaluatorExportOptions {
    /// The evaluator file (`.nnue`), or a learned-evaluator run's directory
    /// (its `best.nnue`).
    pub evaluator: PathBuf,
    /// The bundle directory to write (created; existing bundle files are
    /// replaced).
    pub out: PathBuf,
    /// The bundle's default limit: depth or time per move.
    pub limit: AlphaBetaLimit,
    /// Search threads (Lazy SMP).
    pub threads: usize,
    /// A wheel of dama's Python module to carry (`python/…whl`).
    pub wheel: Option<PathBuf>,
}

/// What an evaluator export produced.
#[derive(Clone, Debug, Serialize)]
pub struct EvaluatorExportReport {
    /// The bundle directory.
    pub dir: PathBuf,
    /// Its metadata.
    pub meta: EvaluatorBundleMeta,
}

/// The evaluator file `path` names: the file itself, or the `best.nnue` of
/// a run directory (`shipped`, the built-in network, is the caller's).
fn source_file(path: &Path) -> Result<PathBuf, Error> {
    if path.is_dir() {
        let best = dama_run::RunDir::new(path).best_evaluator();
        if best.is_file() {
            return Ok(best);
        }
        return Err(Error::Input(format!(
            "{} is a directory without best.nnue: give an evaluator file (.nnue) or a \
             learned-evaluator run that has accepted a network",
            path.display()
        )));
    }
    Ok(path.to_path_buf())
}

/// The run directory an evaluator file belongs to: `RUN/best.nnue` or
/// `RUN/models/gen-NNNN.nnue` (where a `metrics.jsonl` is beside).
fn run_of(file: &Path) -> Option<PathBuf> {
    let parent = file.parent()?;
    let run = if parent.file_name().is_some_and(|n| n == "models") {
        parent.parent()?
    } else {
        parent
    };
    dama_run::RunDir::new(run)
        .metrics()
        .is_file()
        .then(|| run.to_path_buf())
}

/// Writes a learned-evaluator bundle: see the [module docs](self).
///
/// # Errors
///
/// [`Error::Input`] for a run without `best.nnue` or an output that is a
/// file; [`Error::Bundle`] for an evaluator file that does not read, a
/// copy that does not read back the same, limits out of bounds; I/O
/// errors.
pub fn export_evaluator(opts: &EvaluatorExportOptions) -> Result<EvaluatorExportReport, Error> {
    let out = &opts.out;
    let fail = |path: &Path, p: String| Error::Bundle {
        path: path.to_path_buf(),
        problems: vec![p],
    };
    // `shipped` (unless a file of that name is there): the network built
    // into the program.
    let shipped =
        opts.evaluator.as_os_str() == dama_game::EvalSource::SHIPPED && !opts.evaluator.exists();
    let (source, bytes) = if shipped {
        let file = shipped_file().ok_or_else(|| {
            Error::Input("this build ships no learned evaluator (`shipped`)".into())
        })?;
        (PathBuf::from(file.path), file.bytes.to_vec())
    } else {
        let source = source_file(&opts.evaluator)?;
        let bytes = dama_nn::files::read_bounded(&source, MAX_EVALUATOR_FILE)
            .map_err(|e| fail(&source, format!("cannot read the evaluator file: {e}")))?;
        (source, bytes)
    };
    // The source is read whole before anything is written, so the bundle
    // holds one version of a file that training may be replacing.
    let (rules, header) = decode(&source, &bytes).map_err(|e| fail(&source, e))?;
    let (draughts_rules, game_rules_text) = rules.file_fields();
    if out.is_file() {
        return Err(Error::Input(format!(
            "{} is a file, the bundle is a directory",
            out.display()
        )));
    }
    let value = |k: &str| {
        header
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let generation = value("generation")
        .and_then(|g| g.parse().ok())
        .or_else(|| dama_run::generation_of(&source));
    let mut meta = EvaluatorBundleMeta {
        format: BUNDLE_FORMAT,
        kind: BundleKind::Evaluator,
        game: rules.name(),
        rules: draughts_rules,
        game_rules_text,
        limit: opts.limit,
        threads: opts.threads,
        tt_mb: DEFAULT_TT_MB,
        evaluator_file: EVALUATOR_FILE.to_owned(),
        evaluator_bytes: bytes.len() as u64,
        evaluator_fnv1a64: fnv_hex(&bytes),
        generation,
        step: value("step").and_then(|s| s.parse().ok()),
        elo: Vec::new(),
        source: if shipped {
            format!("shipped ({})", source.display())
        } else {
            source.display().to_string()
        },
        python_wheel: None,
        dama_version: env!("CARGO_PKG_VERSION").to_owned(),
    };
    // The limits are checked, by the spec's bounds and by the game's
    // engine, before anything is written.
    meta.player_spec(meta.limit, None)
        .map_err(|e| Error::Input(format!("cannot export with these limits: {e}")))?;
    if let Some(problem) = meta.settings_problem() {
        return Err(Error::Input(format!(
            "cannot export with these limits: {problem}"
        )));
    }
    if let (Some(run), Some(g), false) = (run_of(&source), generation, shipped) {
        meta.elo = elo_entries_of_run(&run, g);
    }

    fs::create_dir_all(out).map_err(Error::file(out))?;
    let copy = out.join(EVALUATOR_FILE);
    write_atomic(&copy, &bytes)?;
    // Read back: the same bytes, and an evaluator the search loads under
    // the rules the bundle records.
    let back =
        dama_nn::files::read_bounded(&copy, MAX_EVALUATOR_FILE).map_err(Error::file(&copy))?;
    if back.len() != bytes.len() || fnv_hex(&back) != meta.evaluator_fnv1a64 {
        return Err(fail(
            out,
            format!(
                "{EVALUATOR_FILE} does not read back as written ({} bytes, checksum {}; wrote {} bytes, checksum {})",
                back.len(),
                fnv_hex(&back),
                bytes.len(),
                meta.evaluator_fnv1a64
            ),
        ));
    }
    check_evaluator(&copy, &rules).map_err(|e| fail(out, e))?;
    meta.python_wheel = opts
        .wheel
        .as_deref()
        .map(|w| crate::wheel::copy_wheel(out, w))
        .transpose()?;

    write_atomic(
        &out.join("bundle.json"),
        format!("{}\n", serde_json::to_string_pretty(&meta)?).as_bytes(),
    )?;
    write_atomic(&out.join("README.md"), readme(&meta).as_bytes())?;
    let bundle = EvaluatorBundle::load(out)?;
    Ok(EvaluatorExportReport {
        dir: bundle.dir,
        meta: bundle.meta,
    })
}

/// The evaluator file built into the program (the first learned game's
/// that ships one).
fn shipped_file() -> Option<dama_nnue::ShippedFile> {
    struct Shipped;
    impl WithLearnedGame for Shipped {
        type Output = Option<dama_nnue::ShippedFile>;
        fn run<G: LearnedGame>(self) -> Self::Output {
            G::shipped_file()
        }
    }
    GameName::learned()
        .into_iter()
        .find_map(|g| g.with_learned(Shipped).flatten())
}

/// The game and rules of the evaluator file `bytes` (read from `path`) and
/// its header's metadata: the game whose feature set it is decodes it.
///
/// # Errors
///
/// The file's problem in words: the game's own, or, for a file of no
/// game's feature set, the first game's.
fn decode(path: &Path, bytes: &[u8]) -> Result<(GameRules, Vec<(String, String)>), String> {
    struct Decode<'a>(&'a Path, &'a [u8]);
    impl WithLearnedGame for Decode<'_> {
        type Output = Result<(GameRules, Vec<(String, String)>), (bool, String)>;
        fn run<G: LearnedGame>(self) -> Self::Output {
            let (net, header) = dama_nnue::decode_network::<G::Features>(self.0, self.1, None)
                .map_err(|e| {
                    let other_game = matches!(e, dama_nnue::Error::OtherFeatureSet { .. });
                    (other_game, e.to_string())
                })?;
            let rules = net.check::<G::Features>().map_err(|e| (false, e))?;
            let rules = GameRules::new::<G>(rules)
                .ok_or_else(|| (false, format!("{} is not in the registry", G::TITLE)))?;
            Ok((rules, header))
        }
    }
    let mut first = None;
    for game in GameName::learned() {
        match game.with_learned(Decode(path, bytes)) {
            Some(Ok(found)) => return Ok(found),
            Some(Err((false, e))) => return Err(e),
            Some(Err((true, e))) => {
                first.get_or_insert(e);
            }
            None => {}
        }
    }
    Err(first.unwrap_or_else(|| "no game of this build plays learned evaluations".into()))
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    dama_nn::files::write_atomic(path, bytes).map_err(Error::file(path))?;
    Ok(())
}

/// The limit as a player spec writes it (`depth=6`, `time=1000`).
fn limit_key(limit: AlphaBetaLimit) -> String {
    match limit {
        AlphaBetaLimit::Depth(d) => format!("depth={d}"),
        AlphaBetaLimit::TimeMs(ms) => format!("time={ms}"),
    }
}

/// The limit in words.
fn limit_words(limit: AlphaBetaLimit) -> String {
    match limit {
        AlphaBetaLimit::Depth(d) => format!("{d} plies deep"),
        AlphaBetaLimit::TimeMs(ms) => format!("{ms} ms per move"),
    }
}

/// The README of a learned-evaluator bundle.
fn readme(meta: &EvaluatorBundleMeta) -> String {
    let trained = match (meta.generation, meta.step) {
        (Some(g), Some(s)) => format!(", generation {g}, step {s}"),
        (Some(g), None) => format!(", generation {g}"),
        _ => String::new(),
    };
    let elo = if meta.elo.is_empty() {
        "No evaluation results were found for this evaluator.".to_owned()
    } else {
        elo_text(&meta.elo)
    };
    let threads = if meta.threads == 1 {
        "1 search thread".to_owned()
    } else {
        format!("{} search threads (Lazy SMP)", meta.threads)
    };
    let spec_threads = if meta.threads == 1 {
        String::new()
    } else {
        format!(",threads={}", meta.threads)
    };
    format!(
        r#"# dama bot bundle (learned evaluator)

The alpha-beta engine of dama with a learned evaluation (an NNUE-style network, crate `dama-nnue`), exported by `dama export --evaluator` (dama {version}) from `{source}`{trained}.

## Files

- `{file}`: the learned evaluator ({bytes} bytes, FNV-1a 64 `{sum}`), a copy of the file above.
- `bundle.json`: metadata: the kind (`evaluator`), the game and rules, the default limit, threads and table size, the evaluator file's size and checksum, generation, step, Elo.

## Playing it

```
dama play --bundle {dir_hint}                          # in the terminal
dama analyse --bundle {dir_hint} --position startpos   # the engine's move, score and line
dama bot --bundle {dir_hint}                           # line protocol (docs/protocol.md)
dama serve --bundle {dir_hint}                         # the web page (or put the bundle in --runs)
```

The bundle searches {limit} by default, with {threads} and a {tt} MiB table; `--time MS` sets another time per move (and `go time MS` in the protocol).
The same player as a spec: `alphabeta:{limit_key},tt={tt}{spec_threads},eval={dir_hint}/{file}`, for `dama eval`, `dama ladder` and `dama curve`.
Loading checks the evaluator file against the size and checksum in `bundle.json`, its own checksum and architecture, and the rules, and refuses a missing, corrupt or replaced file, or one trained for other rules, by name.

## Python

{wheel}dama's Python module (`import dama`; or `pip install ./crates/python` in the dama repository) plays this bundle through the same spec: `dama.Player("alphabeta:{limit_key},tt={tt}{spec_threads},eval={dir_hint}/{file}"{game_arg})`, or in `dama.play_match`; nothing in Python evaluates the file itself (its format is in `crates/nnue/src/file.rs`).

## Strength

{elo}

## Rules

{game}: `{rules}`
"#,
        game = meta.game.title(),
        game_arg = if meta.game == GameName::default() {
            String::new()
        } else {
            format!(", game=\"{}\"", meta.game)
        },
        version = meta.dama_version,
        wheel = crate::wheel::readme_lines(meta.python_wheel.as_ref()),
        source = meta.source,
        file = meta.evaluator_file,
        bytes = meta.evaluator_bytes,
        sum = meta.evaluator_fnv1a64,
        limit = limit_words(meta.limit),
        limit_key = limit_key(meta.limit),
        tt = meta.tt_mb,
        dir_hint = "BUNDLE_DIR",
        rules = meta.game_rules().text(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exports_a_file_or_a_runs_best_and_refuses_what_does_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let run = dama_run::RunDir::new(tmp.path().join("run"));
        fs::create_dir_all(run.root()).unwrap();
        let net = dama_nnue::FloatNet::random::<dama_draughts::DraughtsFeatures>(
            &dama_engine::Rules::default(),
            3,
        );
        dama_nnue::write_network(
            &run.best_evaluator(),
            &net,
            &[("generation", "2".to_owned())],
        )
        .unwrap();
        let out = tmp.path().join("bundle");
        let opts = EvaluatorExportOptions {
            evaluator: run.root().to_path_buf(),
            out: out.clone(),
            limit: AlphaBetaLimit::TimeMs(50),
            threads: 2,
            wheel: None,
        };
        let report = export_evaluator(&opts).unwrap();
        assert_eq!(report.meta.generation, Some(2));
        assert_eq!(report.meta.limit, AlphaBetaLimit::TimeMs(50));
        assert_eq!(
            fs::read(out.join(EVALUATOR_FILE)).unwrap(),
            fs::read(run.best_evaluator()).unwrap()
        );
        let readme = fs::read_to_string(out.join("README.md")).unwrap();
        assert!(
            readme.contains("dama.Player(\"alphabeta:time=50,tt=16,threads=2,eval=")
                && readme.contains("nothing in Python evaluates the file itself"),
            "{readme}"
        );
        assert!(
            readme.contains("alphabeta:time=50,tt=16,threads=2,eval="),
            "{readme}"
        );
        let b = EvaluatorBundle::load(&out).unwrap();
        assert_eq!(b.meta, report.meta);

        // Bad limits write nothing; a directory without best.nnue and a
        // corrupt file are refused.
        let e = export_evaluator(&EvaluatorExportOptions {
            threads: 0,
            out: tmp.path().join("nothing"),
            ..opts.clone()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("threads must be"), "{e}");
        assert!(!tmp.path().join("nothing").exists());
        let e = export_evaluator(&EvaluatorExportOptions {
            evaluator: tmp.path().to_path_buf(),
            ..opts.clone()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("without best.nnue"), "{e}");
        let bad = tmp.path().join("bad.nnue");
        fs::write(&bad, b"DAMANNUE\x01\0\0\0garbage").unwrap();
        let e = export_evaluator(&EvaluatorExportOptions {
            evaluator: bad,
            ..opts
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("bad.nnue"), "{e}");
    }

    /// A Turkish Tafl evaluator exports as a Tafl bundle (its rules as
    /// text) that loads and plays through Tafl's engine.
    #[test]
    fn a_tafl_evaluator_exports_as_a_tafl_bundle() {
        let tmp = tempfile::tempdir().unwrap();
        let rules = dama_tafl::TaflRules::default();
        let net = dama_nnue::FloatNet::random::<dama_tafl::TaflFeatures>(&rules, 4);
        let file = tmp.path().join("tafl.nnue");
        dama_nnue::write_network(&file, &net, &[]).unwrap();
        let out = tmp.path().join("bundle");
        let report = export_evaluator(&EvaluatorExportOptions {
            evaluator: file,
            out: out.clone(),
            limit: AlphaBetaLimit::Depth(2),
            threads: 1,
            wheel: None,
        })
        .unwrap();
        assert_eq!(report.meta.game, GameName::Tafl);
        assert_eq!(report.meta.game_rules(), GameRules::Tafl(rules));
        assert_eq!(report.meta.game_rules_text, Some(rules.to_string()));
        let readme = fs::read_to_string(out.join("README.md")).unwrap();
        assert!(readme.contains("Turkish Tafl: `"), "{readme}");
        assert!(
            readme.contains("/evaluator.nnue\", game=\"tafl\")"),
            "{readme}"
        );
        let spec = crate::BotSpec::Bundle(out.clone());
        let mut bot =
            crate::Bot::<dama_tafl::Tafl>::new(&spec, &crate::BotOptions::default()).unwrap();
        assert_eq!(bot.trained_rules(), Some(rules));
        let game = dama_tafl::Game::new(rules);
        let t = bot.think(&game, None).unwrap();
        assert!(game.legal_moves().contains(&t.best));
        let e = crate::Bot::<dama_draughts::Draughts>::new(&spec, &crate::BotOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("plays Turkish Tafl, not Turkish draughts"),
            "{e}"
        );
    }
}
