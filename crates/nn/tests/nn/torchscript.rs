//! Issue 14: the TorchScript module traced from Rust computes what the Rust
//! network computes, on batches of any size.

#![allow(clippy::unwrap_used)] // Test helpers outside #[test] functions.

use crate::common;

use dama_nn::{torchscript, ModelConfig, Network, NnEvaluator, Precision, TorchScriptEvaluator};
use tch::Device;

/// A small network with squeeze-excitation, with trained-looking (not
/// freshly initialised) batch-norm statistics: a few training steps.
fn network() -> Network {
    tch::manual_seed(14);
    let config = ModelConfig {
        blocks: 2,
        channels: 16,
        se_channels: 4,
        policy_channels: 8,
        value_channels: 2,
        value_hidden: 16,
        ..ModelConfig::default()
    };
    let net = Network::new(&config, Device::Cpu).unwrap();
    let mut trainer = dama_nn::Trainer::new(net, dama_nn::TrainConfig::default()).unwrap();
    let (_, _, batch) = common::dataset(3, 32);
    for _ in 0..3 {
        trainer.train_step(&batch).unwrap();
    }
    trainer.into_network()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn traced_module_matches_the_network_on_any_batch_size() {
    let net = network();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.ts");
    torchscript::save(&net, &path).unwrap();
    assert!(!dama_nn::files::tmp_path(&path).exists());
    let script =
        TorchScriptEvaluator::load_for(&path, Device::Cpu, dama_draughts::encode::SHAPE).unwrap();
    let rust = NnEvaluator::new(&net, Device::Cpu, Precision::F32).unwrap();
    let states = common::random_states(5, 64, 4);
    for n in [1, 3, torchscript::TRACE_BATCH as usize, 64] {
        let mut planes = vec![0.0; n * dama_draughts::encode::PLANES_LEN];
        for (g, chunk) in states
            .iter()
            .zip(planes.chunks_exact_mut(dama_draughts::encode::PLANES_LEN))
        {
            dama_draughts::encode::encode_planes(g, chunk);
        }
        let want = rust.infer(&planes, n).unwrap();
        let got = script.infer(&planes, n).unwrap();
        let (dp, dw) = (
            max_diff(&got.policy_logits, &want.policy_logits),
            max_diff(&got.wdl, &want.wdl),
        );
        assert!(dp < 1e-5 && dw < 1e-5, "batch {n}: policy {dp}, wdl {dw}");
        // Not a constant function: some position of the batch gets other
        // outputs than the first. (Policy logits, not WDL: a tiny network
        // whose value hidden units are all dead for these positions is a
        // constant on WDL, and the tests of this binary share libtorch's
        // seed, so its weights vary from run to run.)
        let width = dama_draughts::encode::POLICY_SIZE;
        let first = &got.policy_logits[..width];
        assert!(
            n == 1
                || got
                    .policy_logits
                    .chunks_exact(width)
                    .skip(1)
                    .any(|row| row != first),
            "batch {n}: every position got the same policy"
        );
    }
}

#[test]
fn save_into_a_missing_directory_creates_it_and_a_bad_path_is_an_error() {
    let net = network();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/model.ts");
    torchscript::save(&net, &path).unwrap();
    assert!(path.is_file());
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"x").unwrap();
    assert!(torchscript::save(&net, &blocker.join("model.ts")).is_err());
}
