//! A learned-evaluator run (`[run] kind = "nnue"`) on a tiny config: it
//! plays, trains, gates and evaluates, writes versioned files that carry
//! their rules, resumes bit for bit, and refuses bad configs by key.

#![allow(clippy::unwrap_used)] // Test helpers outside #[test] functions.

use std::sync::atomic::AtomicBool;

use dama_run::metrics::{read_metrics, MetricsEvent};
use dama_selfplay::nnue::NnueConfig;
use dama_selfplay::{NoProgress, RunDir, RunKind, RunSummary, TrainOptions};

const TINY: &str = r#"
[run]
kind = "nnue"
generations = 2
seed = 7
threads = 2
torch_threads = 1
[selfplay]
games_per_generation = 12
depth = 3
nodes = 400
max_plies = 120
[train]
steps_per_generation = 30
batch_size = 64
window = 2
[gate]
games = 4
depth = 2
min_score = 0.0
[eval]
games = 2
depth = 2
"#;

fn config(text: &str) -> NnueConfig {
    let c: NnueConfig = toml::from_str(text).unwrap();
    c.validate().unwrap();
    c
}

/// One run at a time in this test process: a run seeds libtorch's one
/// process-wide generator (`manual_seed`) before it initialises a network,
/// so two runs training at once on the test harness's threads would draw
/// from each other's sequence and their networks would not be bit-for-bit
/// reproducible (a `dama train` process holds one run).
static ONE_RUN: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn try_run(
    config: &NnueConfig,
    dir: &RunDir,
    resume: bool,
) -> Result<RunSummary, dama_selfplay::Error> {
    let _one = ONE_RUN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let opts = TrainOptions {
        config: config.clone().into(),
        run_dir: dir.root().to_path_buf(),
        resume,
    };
    dama_selfplay::train(&opts, &AtomicBool::new(false), &NoProgress)
}

fn run(config: &NnueConfig, dir: &RunDir, resume: bool) -> RunSummary {
    try_run(config, dir, resume).unwrap()
}

#[test]
fn a_run_trains_gates_evaluates_and_resumes_bit_for_bit() {
    assert_eq!(RunKind::of_text(TINY).unwrap(), RunKind::Nnue);
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(TINY);

    // Uninterrupted: two generations.
    let whole = RunDir::new(tmp.path().join("whole"));
    let summary = run(&cfg, &whole, false);
    assert_eq!(summary.generation, 2);
    // min_score 0 accepts every network.
    assert_eq!(summary.best_generation, 2);
    assert!(whole.best_evaluator().exists());
    let (net, meta) = dama_nnue::read_network::<dama_draughts::DraughtsFeatures>(
        &whole.evaluator(2),
        Some(&cfg.rules.draughts().unwrap()),
    )
    .unwrap();
    assert!(meta.iter().any(|(k, v)| k == "generation" && v == "2"));
    assert!(net.shape_error().is_none());
    let (_, samples) = dama_nnue::read_samples::<dama_draughts::DraughtsFeatures>(
        &whole.samples(1),
        Some(&cfg.rules.draughts().unwrap()),
        1 << 20,
    )
    .unwrap();
    assert!(samples.len() > 100, "{} samples", samples.len());
    assert!(samples.iter().any(|s| s.result != 0) || samples.iter().all(|s| s.result == 0));

    let events = read_metrics(&whole.metrics()).unwrap();
    let kinds: Vec<&str> = events.iter().map(MetricsEvent::kind).collect();
    for k in ["selfplay", "train", "eval", "generation"] {
        assert!(kinds.contains(&k), "no {k} line in {kinds:?}");
    }
    let gates = events
        .iter()
        .filter(|e| matches!(e, MetricsEvent::Eval(x) if x.opponent.starts_with("gate")))
        .count();
    assert_eq!(gates, 2);

    // Interrupted after one generation, then resumed to two.
    let parts = RunDir::new(tmp.path().join("parts"));
    let mut one = cfg.clone();
    one.run.generations = 1;
    assert_eq!(run(&one, &parts, false).generation, 1);
    let err = try_run(&one, &parts, false).unwrap_err().to_string();
    assert!(err.contains("already holds a run"), "{err}");
    // A session setting (the games played at once) may change on resume,
    // as in a network run; the networks do not depend on it.
    let mut session = cfg.clone();
    session.run.threads = 1;
    assert_eq!(run(&session, &parts, true).generation, 2);
    let sessions = read_metrics(&parts.metrics())
        .unwrap()
        .into_iter()
        .filter(|e| matches!(e, MetricsEvent::Session(_)))
        .count();
    assert_eq!(sessions, 2, "one session line per invocation");
    for g in 1..=2 {
        assert_eq!(
            std::fs::read(whole.evaluator(g)).unwrap(),
            std::fs::read(parts.evaluator(g)).unwrap(),
            "generation {g}'s network differs after a resume"
        );
        assert_eq!(
            std::fs::read(whole.samples(g)).unwrap(),
            std::fs::read(parts.samples(g)).unwrap()
        );
    }

    // A resume with another config is refused.
    let mut other = cfg.clone();
    other.train.lr = 0.01;
    let err = try_run(&other, &parts, true).unwrap_err().to_string();
    assert!(err.contains("differs from the one"), "{err}");

    // Another variant's evaluator is refused by the engine's loader.
    let croda: dama_engine::Rules = "variant=croda".parse().unwrap();
    let err = dama_draughts::Evaluation::load(&whole.evaluator(2), Some(&croda)).unwrap_err();
    let chain = format!("{err}: {}", std::error::Error::source(&err).unwrap());
    assert!(chain.contains("not `variant=croda"), "{chain}");
}

#[test]
fn the_shipped_learned_evaluator_configs_load() {
    use dama_selfplay::nnue::TrainInit;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    for (name, init) in [
        ("nnue-quick.toml", TrainInit::Random),
        ("nnue.toml", TrainInit::Random),
        (
            "nnue-continue.toml",
            TrainInit::Start(dama_game::EvalSource::Shipped),
        ),
        ("nnue-quick-tafl.toml", TrainInit::Random),
        (
            "nnue-quick-tafl-deep.toml",
            TrainInit::Start(dama_game::EvalSource::File(
                "checkpoints/nnue-quick-tafl/best.nnue".into(),
            )),
        ),
    ] {
        let config = NnueConfig::load(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(config.train.init, init, "{name}");
    }
}

#[test]
fn gates_and_evaluations_can_play_balanced_openings() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cfg = config(TINY);
    cfg.run.generations = 1;
    cfg.gate.balanced = Some(100);
    cfg.eval.balanced = Some(100);
    let dir = RunDir::new(tmp.path().join("balanced"));
    assert_eq!(run(&cfg, &dir, false).generation, 1);
    let evals: Vec<_> = read_metrics(&dir.metrics())
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            MetricsEvent::Eval(x) => Some(x),
            _ => None,
        })
        .collect();
    assert_eq!(evals.len(), 2, "the gate and the evaluation");
    assert!(evals.iter().all(|x| x.games > 0));
}

#[test]
fn bad_configs_are_refused_by_key() {
    for (text, key) in [
        (
            "[run]\nkind = \"nnue\"\ngenerations = 0\n",
            "run.generations",
        ),
        (
            "[run]\nkind = \"nnue\"\n[selfplay]\ndepth = 0\n",
            "selfplay.depth",
        ),
        (
            "[run]\nkind = \"nnue\"\n[selfplay]\ngames_per_generation = 0\n",
            "selfplay.games_per_generation",
        ),
        (
            "[run]\nkind = \"nnue\"\n[train]\nresult_weight = 1.5\n",
            "train.result_weight",
        ),
        ("[run]\nkind = \"nnue\"\n[train]\nlr = 0.0\n", "train.lr"),
        (
            "[run]\nkind = \"nnue\"\n[train]\nscore_scale = 0.0\n",
            "train.score_scale",
        ),
        ("[run]\nkind = \"nnue\"\n[run.extra]\n", "unknown field"),
        (
            "[run]\nkind = \"nnue\"\n[gate]\nmin_score = 2.0\n",
            "gate.min_score",
        ),
        (
            "[run]\nkind = \"nnue\"\n[gate]\nbalanced = 0\n",
            "gate.balanced",
        ),
        (
            "[run]\nkind = \"nnue\"\n[eval]\nbalanced = 20000\n",
            "eval.balanced",
        ),
        (
            "[run]\nkind = \"alphazero\"\n",
            "unknown variant `alphazero`",
        ),
        (
            "[run]\nkind = \"nnue\"\n[game]\nname = \"minidama\"\n",
            "has no alpha-beta engine",
        ),
        (
            "[run]\nkind = \"nnue\"\n[game]\nname = \"tafl\"\n[rules]\nvariant = \"croda\"\n",
            "Turkish draughts's",
        ),
        ("[run]\nkind = \"nnue\"\nthreads = 100000\n", "run.threads"),
        (
            "[run]\nkind = \"nnue\"\n[adjudicate]\nscore = -5\n",
            "adjudicate.score",
        ),
        (
            "[run]\nkind = \"nnue\"\n[adjudicate]\nmoves = 0\n",
            "adjudicate.moves",
        ),
        (
            "[run]\nkind = \"nnue\"\n[adjudicate]\nply = 3\n",
            "unknown field `ply`",
        ),
    ] {
        let tmp = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(tmp.path(), text).unwrap();
        let err = NnueConfig::load(tmp.path()).unwrap_err().to_string();
        assert!(err.contains(key), "{text}: {err}");
    }
    // The kind is read once, typed: a network run's config by default.
    assert_eq!(
        RunKind::of_text("[run]\ngenerations = 3\n").unwrap(),
        RunKind::Network
    );
    assert_eq!(
        RunKind::of_text("[run]\nkind = \"network\"\n").unwrap(),
        RunKind::Network
    );
    assert!(RunKind::of_text("not toml [").is_err());
    let err = RunKind::of_text("[run]\nkind = \"nnu\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("run.kind") && err.contains("nnu"), "{err}");
}

/// The largest difference between two networks' feature weights.
fn max_ft_diff(a: &dama_nnue::FloatNet, b: &dama_nnue::FloatNet) -> f32 {
    a.ft_w
        .iter()
        .zip(&b.ft_w)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn a_run_starts_from_a_network_and_trains_on_from_it() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cfg = config(TINY);
    cfg.run.generations = 1;
    let first = RunDir::new(tmp.path().join("first"));
    run(&cfg, &first, false);
    let parent = first.evaluator(1);
    let read = |p: &std::path::Path| {
        dama_nnue::read_network::<dama_draughts::DraughtsFeatures>(
            p,
            Some(&cfg.rules.draughts().unwrap()),
        )
        .unwrap()
        .0
    };

    // `init = PATH`: generation 0 is that network, generation 1 trains on
    // from it (one step moves no weight far) and is gated against it.
    let started = config(&TINY.replace(
        "[train]\n",
        &format!("[train]\ninit = {:?}\n", parent.display().to_string()),
    ));
    use dama_selfplay::nnue::TrainInit;
    assert_eq!(
        started.train.init,
        TrainInit::Start(dama_game::EvalSource::File(parent.clone()))
    );
    let mut started = started;
    started.run.generations = 1;
    started.train.steps_per_generation = 1;
    let second = RunDir::new(tmp.path().join("second"));
    run(&started, &second, false);
    let (p, zero, one) = (
        read(&parent),
        read(&second.evaluator(0)),
        read(&second.evaluator(1)),
    );
    assert_eq!(
        max_ft_diff(&p, &zero),
        0.0,
        "generation 0 is the start network"
    );
    let moved = max_ft_diff(&p, &one);
    assert!(
        moved > 0.0 && moved < 0.01,
        "one step from the parent moved {moved}"
    );
    let fresh = dama_nnue::FloatNet::random::<dama_draughts::DraughtsFeatures>(
        &cfg.rules.draughts().unwrap(),
        1,
    );
    assert!(max_ft_diff(&fresh, &one) > 0.05);
    let events = read_metrics(&second.metrics()).unwrap();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, MetricsEvent::Eval(x) if x.opponent == "gate: gen-0")),
        "the first gate is against the start network"
    );

    // A start network of other rules, or a missing file, is refused by key.
    for (init, want) in [
        (
            TrainInit::Start(dama_game::EvalSource::Shipped),
            "the shipped network plays the rules",
        ),
        (
            TrainInit::Start(dama_game::EvalSource::File("no/such.nnue".into())),
            "train.init",
        ),
    ] {
        let mut croda = started.clone();
        croda.train.init = init.clone();
        croda.rules =
            dama_nn::GameRules::parse(dama_nn::GameName::Draughts, "variant=croda").unwrap();
        let err = try_run(
            &croda,
            &RunDir::new(
                tmp.path()
                    .join(format!("bad-{}", String::from(init.clone()).len())),
            ),
            false,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains(want), "{init:?}: {err}");
    }
    for (text, want) in [
        ("random", TrainInit::Random),
        ("previous", TrainInit::Previous),
        ("shipped", TrainInit::Start(dama_game::EvalSource::Shipped)),
        (
            "nets/a.nnue",
            TrainInit::Start(dama_game::EvalSource::File("nets/a.nnue".into())),
        ),
    ] {
        let c = config(&TINY.replace("[train]\n", &format!("[train]\ninit = {text:?}\n")));
        assert_eq!(c.train.init, want);
        assert!(c.to_toml().unwrap().contains(&format!("init = {text:?}")));
    }
}

/// A learned-evaluator run of Turkish Tafl: the same loop, written once,
/// with the game's features, engine and rules; resumed bit for bit, its
/// files Tafl's (refused as draughts'), its matches reported by side.
#[test]
fn a_tafl_run_trains_its_own_evaluator_and_resumes_bit_for_bit() {
    const TAFL: &str = r#"
[run]
kind = "nnue"
generations = 2
seed = 3
threads = 2
torch_threads = 1
[game]
name = "tafl"
[selfplay]
games_per_generation = 6
depth = 2
nodes = 300
max_plies = 60
random_opening_plies = 4
[train]
steps_per_generation = 20
batch_size = 32
window = 2
[gate]
games = 4
depth = 1
min_score = 0.0
[eval]
games = 2
depth = 1
"#;
    let cfg = config(TAFL);
    let rules = cfg.rules.tafl().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let whole = RunDir::new(tmp.path().join("whole"));
    assert_eq!(run(&cfg, &whole, false).generation, 2);
    let (net, _) =
        dama_nnue::read_network::<dama_tafl::TaflFeatures>(&whole.evaluator(2), Some(&rules))
            .unwrap();
    assert!(net.shape_error().is_none());
    let (_, samples) = dama_nnue::read_samples::<dama_tafl::TaflFeatures>(
        &whole.samples(1),
        Some(&rules),
        1 << 20,
    )
    .unwrap();
    assert!(!samples.is_empty());
    // A Tafl evaluator is not a draughts one.
    assert!(
        dama_nnue::read_network::<dama_draughts::DraughtsFeatures>(&whole.evaluator(2), None)
            .is_err()
    );
    // Its engine plays with it.
    let eval =
        dama_tafl::players::TaflEvaluation::load(&whole.best_evaluator(), Some(&rules)).unwrap();
    let game = dama_tafl::Game::new(rules);
    assert!(dama_tafl::players::best_move_with(&game, 2, &eval, None).is_some());
    // Matches keep the asymmetric game's sides.
    let events = read_metrics(&whole.metrics()).unwrap();
    let eval_line = events
        .iter()
        .find_map(|e| match e {
            MetricsEvent::Eval(x) if x.opponent == "handcrafted" => Some(x.clone()),
            _ => None,
        })
        .expect("an eval line");
    let sides: Vec<&str> = eval_line.by_side.iter().map(|s| s.side.as_str()).collect();
    assert_eq!(sides.len(), 2, "{sides:?}");

    let parts = RunDir::new(tmp.path().join("parts"));
    let mut one = cfg.clone();
    one.run.generations = 1;
    assert_eq!(run(&one, &parts, false).generation, 1);
    assert_eq!(run(&cfg, &parts, true).generation, 2);
    for g in 1..=2 {
        assert_eq!(
            std::fs::read(whole.evaluator(g)).unwrap(),
            std::fs::read(parts.evaluator(g)).unwrap(),
            "generation {g}'s network differs after a resume"
        );
    }
    // Tafl's shipped network starts a run of its rules, not of others.
    let mut shipped = config(&TAFL.replace("[selfplay]", "[rules]\nply_limit = 120\n[selfplay]"));
    shipped.train.init = dama_selfplay::nnue::TrainInit::Start(dama_game::EvalSource::Shipped);
    let err = try_run(&shipped, &RunDir::new(tmp.path().join("shipped")), false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the shipped network plays the rules") && err.contains("ply_limit=120"),
        "{err}"
    );
}
