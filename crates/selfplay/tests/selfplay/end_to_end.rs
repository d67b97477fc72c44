//! A whole training run on a tiny config: generations run, files appear,
//! metrics parse, resume continues the step count, and an interrupted
//! generation leaves nothing corrupted behind.

#![allow(clippy::unwrap_used)] // Test helpers outside #[test] functions.

use crate::common::TINY;

use std::sync::atomic::AtomicBool;

use dama_selfplay::metrics::{read_metrics, MetricsEvent};
use dama_selfplay::record::{list_chunks, read_chunk};
use dama_selfplay::{train, NoProgress, RunConfig, RunDir, RunState, TrainOptions};

/// The lines of a metrics file as JSON, as written (the keys on disk), after
/// checking that the typed reader reads every line as a known event.
fn json_lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events = read_metrics(path).unwrap();
    assert_eq!(events.len(), lines.len());
    for (event, line) in events.iter().zip(&lines) {
        assert_eq!(event.kind(), line["kind"], "{line}");
        assert_ne!(*event, MetricsEvent::Unknown);
    }
    lines
}

fn options(dir: &std::path::Path, generations: u32, resume: bool) -> TrainOptions {
    let mut config = RunConfig::parse(TINY).expect("tiny config parses");
    config.run.generations = generations;
    TrainOptions {
        config: config.into(),
        run_dir: dir.join("tiny"),
        resume,
    }
}

#[test]
fn tiny_run_writes_files_and_resumes_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let summary = train(&options(tmp.path(), 2, false), &stop, &NoProgress).unwrap();
    assert_eq!(summary.generation, 2);
    assert_eq!(summary.step, 6);
    assert!(!summary.stopped);
    assert_eq!(summary.last_eval.len(), 2, "previous + random");

    let paths = RunDir::new(tmp.path().join("tiny"));
    for g in 0..=2 {
        assert!(paths.model(g).exists(), "checkpoint of generation {g}");
    }
    assert!(paths.config().exists());
    let frozen = RunConfig::load(&paths.config()).unwrap();
    assert_eq!(frozen.run.seed, 7);

    let chunks = list_chunks(&paths.games()).unwrap();
    assert_eq!(chunks.len(), 2, "one chunk per generation");
    let games: Vec<_> = chunks.iter().flat_map(|c| read_chunk(c).unwrap()).collect();
    assert_eq!(games.len(), 8);
    for g in &games {
        assert!(!g.moves.is_empty());
        // Every recorded move replays legally from the start.
        let mut game = dama_engine::Game::from_position(g.start.parse().unwrap());
        for m in &g.moves {
            let mv = game.position().parse_move(m).unwrap();
            game.play(&mv).unwrap();
        }
        for s in &g.samples {
            assert_eq!(s.legal.len(), s.policy.len());
            assert!((s.policy.iter().sum::<f32>() - 1.0).abs() < 1e-3);
        }
    }

    let lines = json_lines(&paths.metrics());
    let kinds = |k: &str| lines.iter().filter(|l| l["kind"] == k).count();
    assert_eq!(kinds("selfplay"), 2);
    assert_eq!(kinds("generation"), 2);
    assert_eq!(kinds("eval"), 4);
    assert!(kinds("train") >= 2);
    assert!(lines
        .iter()
        .filter(|l| l["kind"] == "train")
        .all(|l| l["loss"].as_f64().unwrap().is_finite()));

    // A new run in the same directory without --resume is refused.
    let err = train(&options(tmp.path(), 3, false), &stop, &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("--resume"), "{err}");

    // Simulate a crash in generation 3: a half-written temp file and a
    // stale chunk of the unfinished generation.
    std::fs::write(
        paths.games().join(".gen-0003-000.games.999.tmp"),
        b"partial",
    )
    .unwrap();
    std::fs::write(paths.chunk(3, 0), b"DAMAGAME garbage").unwrap();

    // Resume to generation 3: the step count continues.
    let summary = train(&options(tmp.path(), 3, true), &stop, &NoProgress).unwrap();
    assert_eq!(summary.generation, 3);
    assert_eq!(summary.step, 9);
    let state: RunState =
        serde_json::from_str(&std::fs::read_to_string(paths.state()).unwrap()).unwrap();
    assert_eq!(state.generation, 3);
    // The unfinished generation's chunk was rewritten and reads cleanly.
    assert_eq!(read_chunk(&paths.chunk(3, 0)).unwrap().len(), 4);
    let lines = json_lines(&paths.metrics());
    assert_eq!(
        lines.iter().filter(|l| l["kind"] == "generation").count(),
        3
    );

    // Issue 12: each generation line carries the run's running totals,
    // continued across the resume; one session line per session.
    assert_eq!(lines.iter().filter(|l| l["kind"] == "session").count(), 2);
    let session = lines.iter().find(|l| l["kind"] == "session").unwrap();
    assert_eq!(session["precision_setting"], "auto");
    assert!(["f32", "bf16"].contains(&session["precision"].as_str().unwrap()));
    let gens: Vec<_> = lines.iter().filter(|l| l["kind"] == "generation").collect();
    let (mut positions, mut games, mut seconds) = (0, 0, 0.0);
    for (g, sp) in gens
        .iter()
        .zip(lines.iter().filter(|l| l["kind"] == "selfplay"))
    {
        positions += sp["samples"].as_u64().unwrap();
        games += sp["games"].as_u64().unwrap();
        assert_eq!(g["run_positions"].as_u64().unwrap(), positions);
        assert_eq!(g["run_games"].as_u64().unwrap(), games);
        let s = g["run_seconds"].as_f64().unwrap();
        assert!(s > seconds, "run_seconds increases: {s} after {seconds}");
        seconds = s;
    }
    assert_eq!(games, 12);
    assert!((seconds - state.elapsed_secs).abs() < 1e-6);

    // Issue 12: the learning curve of the run, on a tiny scale.
    let config = dama_selfplay::curve::CurveConfig {
        anchors: vec!["random".into(), "greedy".into()],
        budget: dama_eval::SearchBudget::Sims(2),
        games: 2,
        device: dama_run::DeviceSpec::Cpu,
        ..Default::default()
    };
    let curve =
        dama_selfplay::curve::run_curve(paths.root(), &config, &|_| {}, &mut |_, _, _| {}).unwrap();
    assert_eq!(
        curve
            .points
            .iter()
            .map(|p| p.generation)
            .collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    assert_eq!(curve.checkpoint_settings, "sims=2");
    assert_eq!(curve.anchors.len(), 2);
    assert_eq!(curve.points[0].positions, 0);
    assert_eq!(curve.points[3].positions, positions);
    for w in curve.points.windows(2) {
        assert!(w[1].hours > w[0].hours && w[1].positions > w[0].positions);
    }
    for p in &curve.points {
        assert!(p.lo95 <= p.elo && p.elo <= p.hi95 && p.games == 4);
    }
    curve.save(paths.root()).unwrap();
    let csv = std::fs::read_to_string(paths.root().join("curve.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4 + 2, "{csv}");
    assert!(csv
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("0,gen-0000,0.000000,0,0,"));
    assert!(csv.lines().any(|l| l.starts_with(",random,")));
    let json: dama_selfplay::curve::Curve =
        serde_json::from_str(&std::fs::read_to_string(paths.root().join("curve.json")).unwrap())
            .unwrap();
    assert_eq!(json.points.len(), 4);
}

#[test]
fn resume_with_a_changed_config_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    train(&options(tmp.path(), 1, false), &stop, &NoProgress).unwrap();
    let mut changed = options(tmp.path(), 2, true);
    let dama_selfplay::AnyConfig::Network(c) = &mut changed.config else {
        panic!("a network run")
    };
    c.search.simulations = 8;
    let err = train(&changed, &stop, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("differs"), "{err}");
}

#[test]
fn bad_configs_name_the_key() {
    let unknown = format!("{TINY}\n[bogus]\nx = 1\n");
    let err = RunConfig::parse(&unknown).unwrap_err().to_string();
    assert!(err.contains("bogus"), "{err}");
    let odd = TINY.replace("games = 2\n", "games = 3\n");
    let err = RunConfig::parse(&odd).unwrap_err().to_string();
    assert!(err.contains("eval.games"), "{err}");
    let bad_device = TINY.replace("device = \"cpu\"", "device = \"tpu\"");
    let err = RunConfig::parse(&bad_device).unwrap_err().to_string();
    assert!(err.contains("run.device"), "{err}");
    let bad_baseline = TINY.replace("baselines = [\"random\"]", "baselines = [\"stockfish\"]");
    let err = RunConfig::parse(&bad_baseline).unwrap_err().to_string();
    assert!(err.contains("stockfish"), "{err}");
}

/// Issue 19: values that used to pass the config check and fail (or
/// exhaust the machine) later.
#[test]
fn late_failures_fail_at_the_config_check() {
    let cases = [
        ("sims = 2", "sims = 0", "eval.sims"),
        (
            "baselines = [\"random\"]",
            "baselines = [\"ckpt:no/such/gen-0001.safetensors\"]",
            "does not exist",
        ),
        (
            "baselines = [\"random\"]",
            "baselines = [\"ckpt:.\"]",
            "is a directory",
        ),
        (
            "torch_threads = 1",
            "torch_threads = 1000",
            "run.torch_threads",
        ),
        ("torch_threads = 1", "threads = 100000", "run.threads"),
        ("channels = 8", "channels = 200000", "parameters"),
        (
            "simulations = 4",
            "simulations = 4000000000",
            "at most 1000000",
        ),
        (
            "parallel_games = 4",
            "parallel_games = 1000000000",
            "parallel_games",
        ),
        ("batch_size = 16", "batch_size = 1000000000", "batch_size"),
    ];
    for (from, to, expect) in cases {
        let text = TINY.replace(from, to);
        assert_ne!(text, TINY, "{from}");
        let err = RunConfig::parse(&text).unwrap_err().to_string();
        assert!(err.contains(expect), "{to}: {err}");
    }
}

#[test]
fn shipped_configs_parse_and_validate() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    for name in ["smoke.toml", "quick.toml", "default.toml", "gpu.toml"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        // gpu.toml asks for CUDA, which validation does not check (the
        // device is resolved when the run starts).
        RunConfig::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn every_variant_trains_and_its_records_and_checkpoints_carry_its_rules() {
    for variant in dama_engine::Variant::ALL {
        let tmp = tempfile::tempdir().unwrap();
        let text = format!("{TINY}\n[rules]\nvariant = \"{variant}\"\n");
        let mut config = RunConfig::parse(&text).unwrap();
        config.run.generations = 1;
        let rules = config.rules.draughts().unwrap();
        assert_eq!(rules.variant, variant);
        let options = TrainOptions {
            config: config.into(),
            run_dir: tmp.path().join("v"),
            resume: false,
        };
        let stop = AtomicBool::new(false);
        let summary = train(&options, &stop, &NoProgress).unwrap();
        assert_eq!(summary.generation, 1, "{variant}");
        let paths = RunDir::new(tmp.path().join("v"));
        let meta = dama_nn::read_meta(&paths.model(1)).unwrap();
        assert_eq!(meta.rules, rules);
        // A checkpoint of one variant is refused under another.
        let other = dama_engine::Rules::for_variant(if variant == dama_engine::Variant::Turkish {
            dama_engine::Variant::Dameo
        } else {
            dama_engine::Variant::Turkish
        });
        let device = dama_nn::device::parse_device("cpu").unwrap();
        let err = dama_nn::load_network_for(
            &paths.model(1),
            device,
            &dama_nn::GameRules::Draughts(other),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(err.contains("rules"), "{variant}: {err}");
        // Every record replays under the variant's rules from its own setup,
        // and every sample's policy indices are the legal steps there.
        let start = dama_engine::Position::startpos_with_rules(rules);
        let mut samples = 0;
        for chunk in list_chunks(&paths.games()).unwrap() {
            for g in read_chunk(&chunk).unwrap() {
                assert_eq!(g.rules::<dama_draughts::Draughts>().unwrap(), rules);
                let pos = dama_engine::Position::from_str_with_rules(&g.start, rules).unwrap();
                assert_eq!(
                    pos.pieces(dama_engine::Color::White).count(),
                    start.pieces(dama_engine::Color::White).count()
                );
                let mut game = dama_engine::Game::from_position(pos);
                for m in &g.moves {
                    let mv = game.position().parse_move(m).unwrap();
                    game.play(&mv).unwrap();
                }
                for s in &g.samples {
                    assert!(s
                        .legal
                        .iter()
                        .all(|&i| usize::from(i) < dama_draughts::encode::POLICY_SIZE));
                    samples += 1;
                }
            }
        }
        assert!(samples > 0, "{variant}");
    }
}

#[test]
fn teacher_generations_play_alpha_beta_games_then_self_play_takes_over() {
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path(), 2, false);
    let dama_selfplay::AnyConfig::Network(c) = &mut opts.config else {
        panic!("a network run")
    };
    c.teacher.generations = 1;
    c.teacher.games = 6;
    c.teacher.depth = 2;
    opts.config.validate().unwrap();
    let stop = AtomicBool::new(false);
    let summary = train(&opts, &stop, &NoProgress).unwrap();
    assert_eq!(summary.generation, 2);
    let paths = RunDir::new(tmp.path().join("tiny"));
    let mut per_gen = [0usize; 3];
    for chunk in list_chunks(&paths.games()).unwrap() {
        for g in read_chunk(&chunk).unwrap() {
            per_gen[g.generation as usize] += 1;
            if g.generation == 1 {
                // The teacher's targets are one-hot: the engine's step.
                for s in &g.samples {
                    assert_eq!(s.policy.iter().filter(|&&p| p == 1.0).count(), 1);
                }
            }
        }
    }
    // Generation 1: the teacher's 6 games; generation 2: 4 self-play games.
    assert_eq!(per_gen, [0, 6, 4]);
    let selfplay: Vec<_> = json_lines(&paths.metrics())
        .into_iter()
        .filter(|l| l["kind"] == "selfplay")
        .collect();
    assert_eq!(selfplay[0]["games"], 6);
    assert_eq!(selfplay[1]["games"], 4);
}

#[test]
fn a_config_cannot_give_the_network_another_games_shape() {
    let text = TINY.replace("[model]\n", "[model]\nboard_width = 4\n");
    let err = RunConfig::parse(&text).unwrap_err().to_string();
    assert!(
        err.contains("board_width") && err.contains("leave them out"),
        "{err}"
    );
}
