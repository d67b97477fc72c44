//! Training the learned evaluation: the tch network computes what
//! `dama_nnue::FloatNet` computes, weights survive the round trip, and
//! training fits a target.

use dama_draughts::{DraughtsFeatures as D, Sample};
use dama_engine::{Position, Rules};
use dama_nn::{NnueTrainSettings, NnueTrainer};
use dama_nnue::FloatNet;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn settings() -> NnueTrainSettings {
    NnueTrainSettings {
        lr: 1e-3,
        batch_size: 256,
        score_scale: 150.0,
        result_weight: 0.0,
        mirror: false,
    }
}

fn samples(n: usize, seed: u64, score: impl Fn(&Position) -> i32) -> Vec<Sample> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = Position::startpos();
        for _ in 0..120 {
            let moves = pos.legal_moves();
            let Some(m) = moves.choose(&mut rng) else {
                break;
            };
            pos.play_unchecked(m);
            if pos.is_game_over() {
                break;
            }
            out.push(Sample::new(&pos, score(&pos), 0));
        }
    }
    out.truncate(n);
    out
}

#[test]
fn the_tch_network_computes_the_float_network() {
    let float = FloatNet::random::<D>(&Rules::default(), 4);
    let trainer = NnueTrainer::<D>::new(&float, settings()).expect("trainer");
    assert_eq!(trainer.to_float().expect("weights"), float);
    let set = samples(200, 1, |_| 0);
    let outputs = trainer.outputs(&set).expect("outputs");
    for (s, out) in set.iter().zip(outputs) {
        let pos = s.position;
        let want = float.forward::<D>(&pos);
        assert!(
            (out - want).abs() < 1e-4,
            "{pos}: tch {out}, FloatNet {want}"
        );
    }
}

#[test]
fn training_fits_material_and_keeps_weights_quantizable() {
    // Material for the side to move, in centi-men: a target the network can
    // learn exactly from its piece features.
    let material = |p: &Position| {
        let v = |c| {
            let all = p.pieces(c);
            let kings = (all & p.kings()).count() as i32;
            100 * (all.count() as i32 - kings) + 300 * kings
        };
        v(p.turn()) - v(!p.turn())
    };
    let train = samples(4000, 2, material);
    let test = samples(500, 3, material);
    let mut trainer =
        NnueTrainer::<D>::new(&FloatNet::random::<D>(&Rules::default(), 5), settings())
            .expect("trainer");
    let before = trainer.mean_loss(&test).expect("loss");
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let stats = trainer
        .train(&train, 400, &mut rng, |_, _| {})
        .expect("train");
    assert_eq!(stats.steps, 400);
    let after = trainer.mean_loss(&test).expect("loss");
    assert!(after < before / 4.0, "test loss {before} → {after}");
    let net = trainer.to_float().expect("weights");
    let limit = dama_nnue::FT_WEIGHT_LIMIT;
    assert!(net.ft_w.iter().chain(&net.ft_b).all(|w| w.abs() <= limit));
    // The quantized network agrees with the trained float one, within the
    // bounds dama-nnue's tests state: under 2.5 centi-men on average, never
    // over 20.
    let q = dama_draughts::Network::from_float(&net).expect("quantized");
    let mut total = 0.0;
    for s in test.iter().take(200) {
        let pos = s.position;
        let (f, i) = (net.evaluate::<D>(&pos), q.evaluate_position(&pos) as f32);
        assert!((f - i).abs() <= 20.0, "{pos}: float {f}, quantized {i}");
        total += (f - i).abs();
    }
    assert!(total / 200.0 < 2.5, "mean difference {}", total / 200.0);
    assert!(NnueTrainer::<D>::new(
        &net,
        NnueTrainSettings {
            lr: 0.0,
            ..settings()
        }
    )
    .is_err());
    assert!(trainer.train(&[], 1, &mut rng, |_, _| {}).is_err());
}
