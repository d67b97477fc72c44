//! A network for another board: Turkish Tafl's `[12, 8, 4]` planes and
//! 288 policy indices. It evaluates Tafl states behind the search's
//! evaluator, learns a fixed set of Tafl positions, traces to TorchScript;
//! a draughts network refuses Tafl states and the other way round.

#![allow(clippy::unwrap_used)]

use dama_mcts::{Algorithm, Search, SearchConfig};
use dama_nn::{BatchBuilder, ModelConfig, Network, NnEvaluator, Precision, TrainConfig, Trainer};
use dama_tafl::encode::{self as tafl, TAFL_SHAPE};
use dama_tafl::search::TaflState;
use dama_tafl::{Game, TaflRules};
use rand::{Rng, SeedableRng};
use tch::Device;

fn tafl_net(seed: i64) -> Network {
    tch::manual_seed(seed);
    Network::new(&ModelConfig::quick().with_shape(TAFL_SHAPE), Device::Cpu).unwrap()
}

fn states(n: usize, seed: u64) -> Vec<Game> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut g = Game::new(TaflRules::default());
        for _ in 0..rng.gen_range(0..40) {
            let steps = g.legal_steps();
            if steps.is_empty() {
                break;
            }
            g.play_step(steps[rng.gen_range(0..steps.len())]).unwrap();
        }
        if g.outcome().is_none() {
            out.push(g);
        }
    }
    out
}

/// Each state with its legal steps, the evaluators' input.
fn with_steps(games: &[Game]) -> Vec<(Game, Vec<dama_tafl::Step>)> {
    games.iter().map(|g| (g.clone(), g.legal_steps())).collect()
}

fn pairs(v: &[(Game, Vec<dama_tafl::Step>)]) -> Vec<(&Game, &[dama_tafl::Step])> {
    v.iter().map(|(g, a)| (g, a.as_slice())).collect()
}

#[test]
fn a_tafl_network_evaluates_tafl_states_and_guides_a_search() {
    let net = tafl_net(1);
    assert_eq!(net.config().shape(), TAFL_SHAPE);
    let mut eval = NnEvaluator::new(&net, Device::Cpu, Precision::F32).unwrap();
    let inputs = with_steps(&states(8, 2));
    let out = eval.evaluate_states(&pairs(&inputs)).unwrap();
    for (o, (_, a)) in out.iter().zip(&inputs) {
        assert_eq!(o.policy.len(), a.len());
        assert!((o.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
    // A search over Tafl states with the network as its evaluator.
    let cfg = SearchConfig {
        algorithm: Algorithm::Gumbel,
        simulations: 16,
        ..SearchConfig::default()
    };
    let mut search = Search::new(cfg, TaflState::new(Game::new(TaflRules::default()))).unwrap();
    let r = search
        .run(&mut eval, &mut rand::rngs::StdRng::seed_from_u64(3))
        .unwrap();
    assert!(Game::new(TaflRules::default())
        .legal_steps()
        .contains(&r.action));
}

#[test]
fn networks_refuse_the_other_games_positions() {
    let draughts = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    let mut eval = NnEvaluator::new(&draughts, Device::Cpu, Precision::F32).unwrap();
    let g = Game::new(TaflRules::default());
    let a = g.legal_steps();
    let err = eval
        .evaluate_states(&[(&g, a.as_slice())])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("[12, 8, 4]") && err.contains("[13, 8, 8]"),
        "{err}"
    );
    let mut eval = NnEvaluator::new(&tafl_net(1), Device::Cpu, Precision::F32).unwrap();
    let d = dama_draughts::DamaState::new(dama_engine::Game::new());
    let s: Vec<_> = d.game().legal_steps().into_iter().collect();
    assert!(eval.evaluate_states(&[(&d, s.as_slice())]).is_err());
}

/// The network memorises 32 Tafl positions with one-hot policy targets:
/// from about ln(#legal) + ln 3 nats to well under half of that.
#[test]
fn a_tafl_network_learns_tafl_positions() {
    let games = states(32, 4);
    let mut builder = BatchBuilder::for_shape(TAFL_SHAPE);
    for (i, g) in games.iter().enumerate() {
        let steps = g.legal_steps();
        let mut row = builder.push_sample();
        tafl::encode_planes(g, row.planes.as_slice_mut().unwrap());
        for (k, s) in steps.iter().enumerate() {
            let p = if k == i % steps.len() { 1.0 } else { 0.0 };
            row.set_action(tafl::policy_index(*s), p).unwrap();
        }
        row.wdl[i % 3] = 1.0;
    }
    let batch = builder.to_batch(Device::Cpu).unwrap();
    let cfg = TrainConfig {
        lr: 0.01,
        warmup_steps: 0,
        optimizer: dama_nn::OptimizerConfig::AdamW {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        },
        ..TrainConfig::default()
    };
    let mut trainer = Trainer::new(tafl_net(5), cfg).unwrap();
    let first = trainer.train_step(&batch).unwrap().loss;
    let mut last = first;
    for _ in 0..150 {
        last = trainer.train_step(&batch).unwrap().loss;
    }
    assert!(last < first * 0.4, "loss {first} -> {last}");
}

#[test]
fn a_tafl_network_traces_to_torchscript_and_loads_for_its_shape() {
    let net = tafl_net(6);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tafl.ts");
    dama_nn::torchscript::save(&net, &path).unwrap();
    let mut script =
        dama_nn::TorchScriptEvaluator::load_for(&path, Device::Cpu, TAFL_SHAPE).unwrap();
    let mut native = NnEvaluator::new(&net, Device::Cpu, Precision::F32).unwrap();
    let inputs = with_steps(&states(5, 7));
    let a = script.evaluate_states(&pairs(&inputs)).unwrap();
    let b = native.evaluate_states(&pairs(&inputs)).unwrap();
    for (x, y) in a.iter().zip(&b) {
        for (p, q) in x.policy.iter().zip(&y.policy) {
            assert!((p - q).abs() < 1e-4);
        }
    }
    // Loaded as a draughts module, its outputs do not fit.
    assert!(dama_nn::TorchScriptEvaluator::load_for(
        &path,
        Device::Cpu,
        dama_draughts::encode::SHAPE
    )
    .is_err());
}

/// A Tafl checkpoint stores its rules as `game_rules_text`; one written
/// before that field (its rules in `tafl_rules`) still loads with its
/// rules, and a sidecar with both, or `tafl_rules` in a draughts
/// checkpoint, is refused by name.
#[test]
fn tafl_checkpoints_store_rules_as_text_and_older_sidecars_still_load() {
    let net = tafl_net(8);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gen-0001.safetensors");
    let rules = dama_nn::GameRules::Tafl("first=defender".parse::<TaflRules>().unwrap());
    dama_nn::save_network(&net, rules, 3, &path).unwrap();
    let side = dama_nn::checkpoint::sidecar_path(&path);
    let new: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&side).unwrap()).unwrap();
    assert_eq!(new["game_rules_text"], rules.text().as_str());
    assert!(new.get("tafl_rules").is_none(), "{new}");
    let (_, meta) = dama_nn::load_network_for(&path, Device::Cpu, &rules).unwrap();
    assert_eq!(meta.game_rules(), rules);

    let mut old = new.clone();
    old.as_object_mut().unwrap().remove("game_rules_text");
    old["tafl_rules"] = serde_json::to_value(rules.tafl().unwrap()).unwrap();
    std::fs::write(&side, old.to_string()).unwrap();
    let (_, meta) = dama_nn::load_network_for(&path, Device::Cpu, &rules).unwrap();
    assert_eq!(meta.game_rules(), rules);
    assert_eq!(meta.game_rules_text, None);

    let parse = |v: &serde_json::Value| {
        dama_nn::checkpoint::parse_meta(&v.to_string(), &side)
            .unwrap_err()
            .to_string()
    };
    let mut both = old.clone();
    both["game_rules_text"] = rules.text().into();
    let e = parse(&both);
    assert!(
        e.contains("game_rules_text") && e.contains("tafl_rules"),
        "{e}"
    );
    let mut draughts = old.clone();
    draughts["game"] = "draughts".into();
    let e = parse(&draughts);
    assert!(e.contains("tafl_rules"), "{e}");
    let mut unknown = old;
    unknown["tafl_colour"] = 1.into();
    let e = parse(&unknown);
    assert!(e.contains("tafl_colour"), "{e}");
}
