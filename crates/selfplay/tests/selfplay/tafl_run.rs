//! A whole Turkish Tafl training run on a tiny config (`[game] name =
//! "tafl"`): the same loop as draughts, with the game's shapes, records,
//! checkpoints and a per-side evaluation; files of one game are refused by
//! the other by name.

#![allow(clippy::unwrap_used)] // Test helpers outside #[test] functions.

use crate::common::TINY;

use std::sync::atomic::AtomicBool;

use dama_nn::{GameName, GameRules};
use dama_selfplay::metrics::{read_metrics, MetricsEvent};
use dama_selfplay::record::{list_chunks, read_chunk};
use dama_selfplay::{train, NoProgress, RunConfig, RunDir, TrainOptions};

fn tafl_config(extra: &str) -> RunConfig {
    let text = format!("{TINY}\n[game]\nname = \"tafl\"\n{extra}");
    RunConfig::parse(&text).unwrap()
}

#[test]
fn a_tafl_run_trains_evaluates_per_side_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut config = tafl_config("[rules]\nply_limit = 120\n");
    assert_eq!(config.model.shape(), dama_tafl::encode::TAFL_SHAPE);
    let rules = config.rules.tafl().unwrap();
    assert_eq!(rules.ply_limit, Some(120));
    config.run.generations = 1;
    let run = tmp.path().join("t");
    let stop = AtomicBool::new(false);
    let opts = TrainOptions {
        config: config.clone().into(),
        run_dir: run.clone(),
        resume: false,
    };
    let summary = train(&opts, &stop, &NoProgress).unwrap();
    assert_eq!(summary.generation, 1);
    let paths = RunDir::new(&run);

    // The checkpoint names its game, encoding and rules.
    let meta = dama_nn::read_meta(&paths.model(1)).unwrap();
    assert_eq!(meta.game, GameName::Tafl);
    assert_eq!(
        meta.encoding_version,
        dama_tafl::encode::TAFL_ENCODING_VERSION
    );
    assert_eq!(meta.game_rules(), GameRules::Tafl(rules));
    let device = dama_nn::device::parse_device("cpu").unwrap();
    // A draughts loader refuses it by the game's name, and so does a Tafl
    // loader with other rules.
    let err = dama_nn::load_game_network(&paths.model(1), device, GameName::Draughts)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("Turkish Tafl"), "{err}");
    let other = dama_tafl::TaflRules {
        ply_limit: Some(200),
        ..rules
    };
    let err = dama_nn::load_network_for(&paths.model(1), device, &GameRules::Tafl(other))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("rules"), "{err}");
    dama_nn::load_network_for(&paths.model(1), device, &GameRules::Tafl(rules)).unwrap();

    // Records are Tafl games that replay under the run's rules to their
    // result, with samples in the Tafl encoding.
    let mut samples = 0;
    for chunk in list_chunks(&paths.games()).unwrap() {
        for g in read_chunk(&chunk).unwrap() {
            assert_eq!(g.game, GameName::Tafl);
            assert_eq!(g.rules::<dama_tafl::Tafl>().unwrap(), rules);
            assert!(g.rules::<dama_draughts::Draughts>().is_err());
            let start: dama_tafl::Position = g.start.parse().unwrap();
            let mut game = dama_tafl::Game::from_position(start, rules);
            for m in &g.moves {
                let mv = game.parse_move(m).unwrap();
                game.play(&mv).unwrap();
            }
            for s in &g.samples {
                assert_eq!(s.planes.len(), dama_tafl::encode::TAFL_SHAPE.planes);
                assert!(s
                    .legal
                    .iter()
                    .all(|&i| usize::from(i) < dama_tafl::encode::TAFL_SHAPE.policy_size()));
                samples += 1;
            }
        }
    }
    assert!(samples > 0);

    // The evaluation reports the network's results per side, which add up
    // to the match.
    let events = read_metrics(&paths.metrics()).unwrap();
    let evals: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            MetricsEvent::Eval(e) => Some(e),
            _ => None,
        })
        .collect();
    assert!(!evals.is_empty());
    for e in &evals {
        let sides: Vec<&str> = e.by_side.iter().map(|s| s.side.as_str()).collect();
        assert_eq!(sides, ["defender", "king_side"], "{e:?}");
        let sum = |f: fn(&dama_run::SideResult) -> u32| e.by_side.iter().map(f).sum::<u32>();
        assert_eq!(sum(|s| s.wins), e.wins);
        assert_eq!(sum(|s| s.draws), e.draws);
        assert_eq!(sum(|s| s.losses), e.losses);
        assert_eq!(e.wins + e.draws + e.losses, e.games);
    }

    // Resuming continues the Tafl run; resuming it as draughts is refused.
    let mut draughts = RunConfig::parse(TINY).unwrap();
    draughts.run.generations = 2;
    let err = train(
        &TrainOptions {
            config: draughts.into(),
            run_dir: run.clone(),
            resume: true,
        },
        &stop,
        &NoProgress,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("differs"), "{err}");
    config.run.generations = 2;
    let summary = train(
        &TrainOptions {
            config: config.into(),
            run_dir: run.clone(),
            resume: true,
        },
        &stop,
        &NoProgress,
    )
    .unwrap();
    assert_eq!(summary.generation, 2);

    // The learning curve of a Tafl run: its checkpoints against the Tafl
    // anchors (the default draughts anchors are replaced by Tafl's).
    let curve_config = dama_selfplay::curve::CurveConfig {
        games: 2,
        budget: dama_eval::SearchBudget::Sims(2),
        device: dama_run::DeviceSpec::Cpu,
        ..dama_selfplay::curve::CurveConfig::default()
    };
    let curve =
        dama_selfplay::curve::run_curve(&run, &curve_config, &|_| {}, &mut |_, _, _| {}).unwrap();
    let anchors: Vec<&str> = curve.anchors.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        anchors,
        [
            "random",
            "greedy",
            "alphabeta:depth=2",
            "alphabeta:depth=4",
            "alphabeta:time=100"
        ]
    );
    let generations: Vec<u32> = curve.points.iter().map(|p| p.generation).collect();
    assert_eq!(generations, [0, 1, 2]);
}

#[test]
fn tafl_configs_refuse_draughts_only_settings_by_name() {
    let base = format!("{TINY}\n[game]\nname = \"tafl\"\n");
    for (text, key) in [
        (format!("{base}[rules]\nvariant = \"croda\"\n"), "rules"),
        (
            format!("{base}[teacher]\ngenerations = 1\n"),
            "teacher.generations",
        ),
        (
            base.replace("[selfplay]\n", "[selfplay]\ntablebase = \"tb\"\n"),
            "selfplay.tablebase",
        ),
        (
            base.replace(
                "baselines = [\"random\"]",
                "baselines = [\"alphabeta:threads=2,depth=2\"]",
            ),
            "eval.baselines",
        ),
    ] {
        assert_ne!(text, base, "{key}");
        let err = RunConfig::parse(&text).unwrap_err().to_string();
        assert!(err.contains(key), "{key}: {err}");
    }
    // Tafl options without the game are refused too, by name.
    let err = RunConfig::parse(&format!("{TINY}\n[tafl]\nmajority = true\n"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("tafl"), "{err}");
    let err = RunConfig::parse(&format!("{TINY}\n[rules]\nmajority = true\n"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("majority") && err.contains("Turkish Tafl"),
        "{err}"
    );
    // An unknown key of [rules] is named.
    let err = RunConfig::parse(&format!("{base}[rules]\ncolour = \"green\"\n"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("colour"), "{err}");
    let err = RunConfig::parse(&format!("{TINY}\n[game]\nname = \"chess\"\n"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("chess"), "{err}");
}

/// `[rules]` holds Tafl's options; older configs (and run directories'
/// `config.toml`, which `--resume` reads) gave them in `[tafl]` with the
/// draughts defaults in `[rules]`: they still read the same, and write the
/// new way.
#[test]
fn older_tafl_sections_still_read() {
    let base = format!("{TINY}\n[game]\nname = \"tafl\"\n");
    let new =
        RunConfig::parse(&format!("{base}[rules]\nmajority = true\nply_limit = 90\n")).unwrap();
    let rules = new.rules.tafl().unwrap();
    assert!(rules.majority);
    assert_eq!(rules.ply_limit, Some(90));
    let draughts_defaults = RunConfig::parse(TINY).unwrap().to_toml().unwrap();
    let draughts_defaults = draughts_defaults
        .split("\n[")
        .find(|s| s.starts_with("rules]"))
        .map(|s| format!("[{s}\n"))
        .unwrap();
    assert!(
        draughts_defaults.contains("one_piece_each"),
        "{draughts_defaults}"
    );
    for older in [
        format!("{base}[tafl]\nmajority = true\nply_limit = 90\n"),
        format!("{base}{draughts_defaults}[tafl]\nmajority = true\nply_limit = 90\n"),
    ] {
        let old = RunConfig::parse(&older).unwrap();
        assert_eq!(old, new, "{older}");
        let written = old.to_toml().unwrap();
        assert!(!written.contains("[tafl]"), "{written}");
        assert_eq!(RunConfig::parse(&written).unwrap(), new);
    }
    // An older default Tafl config: draughts defaults in [rules], no [tafl].
    let old = RunConfig::parse(&format!("{base}{draughts_defaults}")).unwrap();
    assert_eq!(old.rules, GameRules::Tafl(dama_tafl::TaflRules::default()));
    // [tafl] and Tafl options in [rules] at once are refused.
    let err = RunConfig::parse(&format!(
        "{base}[rules]\nmajority = true\n[tafl]\nmajority = true\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(err.contains("[rules]") && err.contains("[tafl]"), "{err}");
}

#[test]
fn quick_tafl_config_parses() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let text = std::fs::read_to_string(dir.join("quick-tafl.toml")).unwrap();
    let cfg = RunConfig::parse(&text).unwrap();
    assert_eq!(cfg.game.name, GameName::Tafl);
    assert_eq!(cfg.model.shape(), dama_tafl::encode::TAFL_SHAPE);
}
