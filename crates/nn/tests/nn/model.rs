//! Network, training and checkpoint tests (issue 5).

#![allow(clippy::unwrap_used)] // Test helpers outside #[test] functions.

use crate::common;

use dama_draughts::{encode, DamaState};
use dama_engine::Rules;
use dama_nn::{
    checkpoint, Batch, Error, GameName, GameRules, ModelConfig, Network, NnEvaluator,
    OptimizerConfig, Precision, TrainConfig, Trainer,
};
use tch::{Device, Kind, Tensor};

fn trainer(seed: i64, optimizer: OptimizerConfig, lr: f64) -> Trainer {
    tch::manual_seed(seed);
    let net = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    let cfg = TrainConfig {
        lr,
        warmup_steps: 5,
        optimizer,
        weight_decay: 1e-4,
        ..TrainConfig::default()
    };
    Trainer::new(net, cfg).unwrap()
}

fn outputs(net: &Network, batch: &Batch) -> (Tensor, Tensor) {
    let out = tch::no_grad(|| net.forward_t(&batch.planes, false));
    (out.policy, out.wdl)
}

fn masked_argmax(policy: &Tensor, mask: &Tensor) -> Vec<i64> {
    let p = policy
        .masked_fill(&mask.logical_not(), -1e9)
        .argmax(1, false);
    Vec::<i64>::try_from(&p).unwrap()
}

/// The network overfits a small fixed dataset and then predicts its targets.
///
/// Threshold: 48 distinct positions with one-hot targets have a minimum loss
/// of 0; a uniform guess over the legal steps costs ln(#legal) ≈ 2.3 nats of
/// policy loss and ln 3 ≈ 1.1 of value loss. A mean loss below 0.15 nats
/// means the targets get a geometric-mean probability above e^-0.15 ≈ 0.86,
/// i.e. the network has memorised the set (not just learned the marginal
/// statistics, which would leave the loss near 1 nat for random targets).
/// We also assert the consequence: every argmax is the target.
#[test]
fn overfits_a_small_dataset() {
    let (_, _, batch) = common::dataset(10, 48);
    let mut t = trainer(1, OptimizerConfig::adamw(), 3e-3);
    let first = t.train_step(&batch).unwrap();
    assert!(
        first.policy_loss > 1.0,
        "initial policy loss {}",
        first.policy_loss
    );
    let mut last = first.clone();
    // A fixed number of steps: the batch-norm running averages used in
    // evaluation mode need steps after the training loss has converged.
    for _ in 0..200 {
        last = t.train_step(&batch).unwrap();
    }
    assert!(last.lr > 0.0 && last.samples_per_sec > 0.0 && last.grad_norm.is_finite());
    let (p, v, acc) = t.evaluate(&batch).unwrap();
    assert!(
        p + v < 0.15,
        "eval-mode loss {p} + {v} after {} steps",
        last.step
    );
    assert_eq!(acc, 1.0);
    let (policy, _) = outputs(t.network(), &batch);
    let predicted = masked_argmax(&policy, &batch.mask);
    let target = Vec::<i64>::try_from(&batch.policy.argmax(1, false)).unwrap();
    assert_eq!(predicted, target);
}

#[test]
fn sgd_lowers_the_loss() {
    let (_, _, batch) = common::dataset(11, 32);
    let mut t = trainer(2, OptimizerConfig::default(), 0.05);
    let first = t.train_step(&batch).unwrap();
    let mut last = first.clone();
    for _ in 0..60 {
        last = t.train_step(&batch).unwrap();
    }
    assert!(
        last.loss < 0.5 * first.loss,
        "{} -> {}",
        first.loss,
        last.loss
    );
    assert!(last.policy_entropy < first.policy_entropy);
}

#[test]
fn save_load_gives_identical_outputs() {
    let (_, _, batch) = common::dataset(12, 16);
    let mut t = trainer(3, OptimizerConfig::default(), 0.02);
    for _ in 0..3 {
        t.train_step(&batch).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.safetensors");
    checkpoint::save_network(t.network(), Rules::default(), t.step(), &path).unwrap();
    let (net, meta) =
        checkpoint::load_network_for(&path, Device::Cpu, &GameRules::Draughts(Rules::default()))
            .unwrap();
    assert_eq!(meta.step, 3);
    assert_eq!(meta.encoding_version, encode::ENCODING_VERSION);
    let (p1, v1) = outputs(t.network(), &batch);
    let (p2, v2) = outputs(&net, &batch);
    assert!(p1.equal(&p2) && v1.equal(&v2));
    // No temporary files are left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

/// Resuming from a checkpoint continues exactly: same step, same learning
/// rate, bit-identical weights after further steps.
#[test]
fn resume_is_exact() {
    for opt in [OptimizerConfig::default(), OptimizerConfig::adamw()] {
        let (_, _, batch) = common::dataset(13, 16);
        let mut a = trainer(4, opt.clone(), 0.01);
        for _ in 0..4 {
            a.train_step(&batch).unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.safetensors");
        checkpoint::save_trainer(&a, Rules::default(), &path).unwrap();
        let mut b = checkpoint::load_trainer(&path, Device::Cpu, None).unwrap();
        assert_eq!(b.step(), a.step());
        assert_eq!(b.next_lr(), a.next_lr());
        for _ in 0..3 {
            let ma = a.train_step(&batch).unwrap();
            let mb = b.train_step(&batch).unwrap();
            assert_eq!(ma.lr, mb.lr);
            assert_eq!(ma.loss, mb.loss, "{opt:?}");
        }
        let va = a.network().var_store().variables();
        let vb = b.network().var_store().variables();
        for (name, t) in &va {
            assert!(t.equal(&vb[name]), "{name} differs after resume ({opt:?})");
        }
    }
}

#[test]
fn truncated_and_mismatched_checkpoints_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.safetensors");
    tch::manual_seed(5);
    let net = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    checkpoint::save_network(&net, Rules::default(), 0, &path).unwrap();

    // Truncated weights.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let err = checkpoint::load_game_network(&path, Device::Cpu, GameName::Draughts).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("truncated"), "{err}");
    std::fs::write(&path, &bytes).unwrap();

    // Truncated sidecar.
    let side = checkpoint::sidecar_path(&path);
    let json = std::fs::read_to_string(&side).unwrap();
    std::fs::write(&side, &json[..json.len() / 2]).unwrap();
    let err = checkpoint::load_game_network(&path, Device::Cpu, GameName::Draughts).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err}");
    std::fs::write(&side, &json).unwrap();

    // Other rules.
    let rules = Rules {
        no_capture_limit: None,
        ..Rules::default()
    };
    let err =
        checkpoint::load_network_for(&path, Device::Cpu, &GameRules::Draughts(rules)).unwrap_err();
    assert!(err.to_string().contains("rules"), "{err}");

    // Loading into a network of another shape names each difference.
    let mut other = Network::new(&ModelConfig::default(), Device::Cpu).unwrap();
    let err = checkpoint::load_weights(&mut other, &path).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("model.blocks") && msg.contains("model.channels"),
        "{msg}"
    );

    // A weights file of another shape under a consistent sidecar: missing
    // and misshapen tensors are listed by name.
    let big = dir.path().join("big.safetensors");
    checkpoint::save_network(&other, Rules::default(), 0, &big).unwrap();
    let mut meta = checkpoint::read_meta(&path).unwrap();
    meta.weights = checkpoint::read_meta(&big).unwrap().weights;
    meta.weights.file = "big.safetensors".into();
    std::fs::write(&side, serde_json::to_string(&meta).unwrap()).unwrap();
    let err = checkpoint::load_game_network(&path, Device::Cpu, GameName::Draughts).unwrap_err();
    assert!(
        err.to_string().contains(" more"),
        "long lists are shortened: {err}"
    );
    let Error::Incompatible { problems, .. } = err else {
        panic!("{err}")
    };
    let has = |p: &str| problems.iter().any(|x| x.starts_with(p));
    assert!(
        has("unexpected tensor tower.5.conv1.weight"),
        "{problems:?}"
    );
    assert!(
        has(&format!(
            "tensor input.conv.weight has shape [64, {}, 3, 3]",
            dama_draughts::encode::NUM_PLANES
        )),
        "{problems:?}"
    );

    // A weights-only checkpoint cannot resume training.
    std::fs::write(&side, &json).unwrap();
    let err = checkpoint::load_trainer(&path, Device::Cpu, None).unwrap_err();
    assert!(err.to_string().contains("weights-only"), "{err}");
}

/// After training on a dataset and its mirror image, the network's outputs
/// for a position and for its mirror are mirrored.
#[test]
fn mirror_equivariance_after_training_on_mirrored_data() {
    let (_, _, batch) = common::dataset(14, 32);
    let both = common::concat(&batch, &common::mirrored(&batch));
    let mut t = trainer(6, OptimizerConfig::adamw(), 3e-3);
    for _ in 0..200 {
        t.train_step(&both).unwrap();
    }
    let mirrored = common::mirrored(&batch);
    let (p, v) = outputs(t.network(), &batch);
    let (pm, vm) = outputs(t.network(), &mirrored);
    let a = masked_argmax(&p, &batch.mask);
    let b = masked_argmax(&pm, &mirrored.mask);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(encode::mirror_policy_index(*x as usize), *y as usize);
    }
    let dv = (v.softmax(1, Kind::Float) - vm.softmax(1, Kind::Float))
        .abs()
        .max()
        .double_value(&[]);
    assert!(dv < 0.1, "value difference {dv}");
}

#[test]
fn evaluator_priors_follow_legal_actions_and_bf16_is_close() {
    let states: Vec<DamaState> = common::random_states(15, 64, 4)
        .into_iter()
        .map(DamaState::new)
        .collect();
    tch::manual_seed(7);
    let net = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    let mut f32e = NnEvaluator::new(&net, Device::Cpu, Precision::F32).unwrap();
    let mut bf16 = NnEvaluator::new(&net, Device::Cpu, Precision::Bf16).unwrap();
    let actions: Vec<Vec<_>> = states
        .iter()
        .map(|g| g.game().legal_steps().to_vec())
        .collect();
    let batch: Vec<_> = states
        .iter()
        .zip(&actions)
        .map(|(g, a)| (g, a.as_slice()))
        .collect();
    let e1 = f32e.evaluate_states(&batch).unwrap();
    let e2 = bf16.evaluate_states(&batch).unwrap();
    let mut worst = 0f32;
    for ((a, b), acts) in e1.iter().zip(&e2).zip(&actions) {
        assert_eq!(a.policy.len(), acts.len());
        assert!((a.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        let v = a.value;
        assert!((v.win + v.draw + v.loss - 1.0).abs() < 1e-4);
        for (x, y) in a.policy.iter().zip(&b.policy) {
            worst = worst.max((x - y).abs());
        }
        worst = worst.max((a.value.win - b.value.win).abs());
    }
    assert!(worst < 0.05, "bf16 differs from fp32 by {worst}");
    // Single evaluations agree with batched ones.
    let one = f32e.evaluate_states(&batch[..1]).unwrap();
    for (x, y) in one[0].policy.iter().zip(&e1[0].policy) {
        assert!((x - y).abs() < 1e-5);
    }
}

#[test]
fn batch_shapes_are_checked() {
    let err = Batch::from_slices(
        2,
        dama_draughts::encode::SHAPE,
        &[0.0; 10],
        &[],
        &[],
        &[],
        Device::Cpu,
    )
    .unwrap_err();
    assert!(matches!(err, Error::Shape(_)), "{err}");
    let net = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    let bad = Tensor::zeros([2, 3, 8, 8], (Kind::Float, Device::Cpu));
    assert!(net.f_forward_t(&bad, false).is_err());
}

/// The evaluator behind the search's trait, on the search's state type.
#[test]
fn evaluator_implements_the_search_trait_for_dama_state() {
    use dama_mcts::{Evaluator, Game as _, Leaf};
    let net = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    let mut eval = NnEvaluator::new(&net, Device::Cpu, Precision::F32).unwrap();
    let states: Vec<DamaState> = common::random_states(16, 8, 10)
        .into_iter()
        .map(DamaState::new)
        .collect();
    let actions: Vec<Vec<_>> = states
        .iter()
        .map(|s| {
            let mut v = Vec::new();
            s.legal_actions(&mut v);
            v
        })
        .collect();
    let leaves: Vec<Leaf<'_, DamaState>> = states
        .iter()
        .zip(&actions)
        .map(|(state, a)| Leaf { state, actions: a })
        .collect();
    let out = eval.evaluate(&leaves).unwrap();
    assert_eq!(out.len(), leaves.len());
    // Same numbers as the direct path.
    let pairs: Vec<_> = states
        .iter()
        .zip(&actions)
        .map(|(g, a)| (g, a.as_slice()))
        .collect();
    let direct = eval.evaluate_states(&pairs).unwrap();
    for ((e, d), a) in out.iter().zip(&direct).zip(&actions) {
        assert_eq!(e.policy.len(), a.len());
        assert_eq!(e.policy, d.policy);
        assert_eq!(e.value, d.value);
    }
    let none: &[Leaf<'_, DamaState>] = &[];
    assert!(eval.evaluate(none).unwrap().is_empty());
}

/// The parameter count computed from the config (used to refuse networks too
/// large for memory, issue 19) is the built network's.
#[test]
fn parameter_count_matches_the_built_network() {
    for m in [
        ModelConfig::quick(),
        ModelConfig::default(),
        ModelConfig {
            se_channels: 0,
            blocks: 1,
            ..ModelConfig::quick()
        },
    ] {
        let net = Network::new(&m, Device::Cpu).unwrap();
        assert_eq!(m.parameter_count(), net.num_parameters() as u128, "{m:?}");
    }
}

/// Issue 29: an evaluator with several lanes (network copies on their own
/// threads) gives every position of a batch the evaluation one lane gives,
/// in the batch's order, for every split of the batch; weights loaded later
/// reach every lane; an absurd lane count is refused.
#[test]
fn lanes_split_a_batch_without_changing_it() {
    let net = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    let games: Vec<DamaState> = common::random_states(23, 8, 11)
        .into_iter()
        .map(DamaState::new)
        .collect();
    let actions: Vec<Vec<_>> = games
        .iter()
        .map(|g| g.game().legal_steps().into_iter().collect())
        .collect();
    let pairs: Vec<_> = games
        .iter()
        .zip(&actions)
        .map(|(g, a)| (g, a.as_slice()))
        .collect();
    let mut one = NnEvaluator::new(&net, Device::Cpu, Precision::F32).unwrap();
    let reference = one.evaluate_states(&pairs).unwrap();
    for lanes in [2, 3, 5] {
        let mut many = NnEvaluator::with_lanes(&net, Device::Cpu, Precision::F32, lanes).unwrap();
        assert_eq!(many.lanes(), lanes);
        for n in [1, 2, lanes, pairs.len()] {
            let out = many.evaluate_states(&pairs[..n]).unwrap();
            assert_eq!(out.len(), n, "{lanes} lanes, batch {n}");
            for (i, (a, b)) in out.iter().zip(&reference).enumerate() {
                assert_eq!(a.policy.len(), b.policy.len());
                for (x, y) in a.policy.iter().zip(&b.policy) {
                    assert!(
                        (x - y).abs() < 1e-4,
                        "{lanes} lanes, position {i}: {x} vs {y}"
                    );
                }
                assert!((a.value.win - b.value.win).abs() < 1e-4);
                assert!((a.value.loss - b.value.loss).abs() < 1e-4);
            }
        }
    }
    // New weights reach every lane: the last position is evaluated by the
    // last lane.
    let other = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    let mut fresh = NnEvaluator::new(&other, Device::Cpu, Precision::F32).unwrap();
    let want = fresh.evaluate_states(&pairs).unwrap();
    let mut many = NnEvaluator::with_lanes(&net, Device::Cpu, Precision::F32, 3).unwrap();
    many.load_weights_from(&other).unwrap();
    let got = many.evaluate_states(&pairs).unwrap();
    let last = pairs.len() - 1;
    assert!((got[last].value.win - want[last].value.win).abs() < 1e-4);
    assert!((got[0].value.win - want[0].value.win).abs() < 1e-4);
    let err = NnEvaluator::with_lanes(&net, Device::Cpu, Precision::F32, 10_000).unwrap_err();
    assert!(err.to_string().contains("10000 inference lanes"), "{err}");
}

/// An inference copy folds its batch norms into the convolutions and, on
/// the CPU, stores them channels-last (a faster layout for oneDNN); it
/// computes the same outputs as the network it copies, in f32 to
/// rounding, after the batch norms have learned statistics of their own.
/// It is refused as the source or target of a weight copy, and an
/// evaluator given new weights makes a new one.
#[test]
fn inference_copies_compute_the_same_outputs() {
    tch::manual_seed(11);
    let mut t = trainer(11, OptimizerConfig::default(), 0.05);
    let (_, _, batch) = common::dataset(12, 32);
    // Training steps move the batch norms' running statistics and affine
    // parameters away from their identity start, so folding them matters.
    for _ in 0..5 {
        t.train_step(&batch).unwrap();
    }
    let net = t.network();
    let copy = net.inference_copy(Device::Cpu, Kind::Float).unwrap();
    assert!(!net.is_inference_copy() && !net.is_channels_last());
    assert!(copy.is_inference_copy());
    if std::env::var_os("DAMA_CHANNELS_LAST").is_none_or(|v| v != "0") {
        assert!(copy.is_channels_last());
    }
    let max_diff = |a: &Network, b: &Network| {
        tch::no_grad(|| {
            let (x, y) = (
                a.forward_t(&batch.planes, false),
                b.forward_t(&batch.planes, false),
            );
            let p = (x.policy - y.policy).abs().max().double_value(&[]);
            let w = (x.wdl - y.wdl).abs().max().double_value(&[]);
            p.max(w)
        })
    };
    assert!(max_diff(net, &copy) < 1e-4, "{}", max_diff(net, &copy));
    let fresh = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    assert!(max_diff(&fresh, &copy) > 1e-3, "two networks agree");
    // bf16: close.
    let bf16 = net.inference_copy(Device::Cpu, Kind::BFloat16).unwrap();
    let out = tch::no_grad(|| bf16.forward_t(&batch.planes.to_kind(Kind::BFloat16), false));
    let reference = tch::no_grad(|| net.forward_t(&batch.planes, false));
    let wdl = |t: &Tensor| t.to_kind(Kind::Float).softmax(1, Kind::Float);
    let d = (wdl(&out.wdl) - wdl(&reference.wdl))
        .abs()
        .max()
        .double_value(&[]);
    assert!(d < 0.05, "bf16 WDL differs by {d}");
    // Copies of an inference copy are refused.
    assert!(copy.copy_to(Device::Cpu, Kind::Float).is_err());
    let mut other = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    assert!(other.copy_weights_from(&copy).is_err());
    // An evaluator given new weights evaluates with them.
    let mut eval = NnEvaluator::new(&fresh, Device::Cpu, Precision::F32).unwrap();
    eval.load_weights_from(net).unwrap();
    assert!(max_diff(net, eval.network()) < 1e-4);
}

/// The scheduling policy (`/proc/<pid>/task/<tid>/stat`, field 41) of
/// every thread of this process named `name`.
#[cfg(target_os = "linux")]
fn policies_of_threads_named(name: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap() {
        let dir = task.unwrap().path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if comm.trim() != name {
            continue;
        }
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap();
        // Fields after the command (which may hold spaces) start at 3.
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let policy = rest.split(' ').nth(41 - 3).unwrap();
        out.push(policy.parse().unwrap());
    }
    out
}

/// Lanes run under `SCHED_BATCH` (3), so that waking one never preempts
/// the thread handing out a batch (docs/benchmarks.md, issue 29); the
/// caller keeps the default policy (0).
#[cfg(target_os = "linux")]
#[test]
fn lanes_never_preempt_the_thread_that_wakes_them() {
    const SCHED_OTHER: u32 = 0;
    const SCHED_BATCH: u32 = 3;
    let net = Network::new(&ModelConfig::quick(), Device::Cpu).unwrap();
    let _many = NnEvaluator::with_lanes(&net, Device::Cpu, Precision::F32, 2).unwrap();
    let lanes = [
        policies_of_threads_named("dama-infer-0"),
        policies_of_threads_named("dama-infer-1"),
    ]
    .concat();
    // Other tests of this binary may run lanes at the same time: at least
    // this evaluator's two, and every one under the batch policy.
    assert!(lanes.len() >= 2, "lane threads found: {lanes:?}");
    assert!(lanes.iter().all(|&p| p == SCHED_BATCH), "{lanes:?}");
    let own = std::fs::read_to_string("/proc/thread-self/stat").unwrap();
    let rest = &own[own.rfind(')').unwrap() + 2..];
    assert_eq!(rest.split(' ').nth(41 - 3), Some(&*SCHED_OTHER.to_string()));
}
