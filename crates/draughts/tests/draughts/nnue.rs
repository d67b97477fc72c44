//! The quantized network against its float reference, incremental
//! accumulators against a refresh, and the evaluator and sample files.

use dama_draughts::{DraughtsFeatures as D, Network, Sample};
use dama_engine::{Position, Rules};
use dama_nnue::{
    check_features, read_network, read_samples, write_network, write_samples, Error, Features,
    FloatNet, Simd,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rules(text: &str) -> Rules {
    text.parse().expect("rules")
}

const VARIANTS: [&str; 4] = [
    "promotion=end_of_move",
    "variant=armenian",
    "variant=croda",
    "variant=dameo",
];

/// Positions of random games under `rules`, with the move that led to each.
fn random_games(rules: Rules, games: usize, seed: u64) -> Vec<(Position, Position)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pairs = Vec::new();
    for _ in 0..games {
        let mut pos = Position::startpos_with_rules(rules);
        for _ in 0..200 {
            let moves = pos.legal_moves();
            let Some(m) = moves.choose(&mut rng) else {
                break;
            };
            let before = pos;
            pos.play_unchecked(m);
            pairs.push((before, pos));
            if pos.is_game_over() {
                break;
            }
        }
    }
    pairs
}

#[test]
fn incremental_accumulators_equal_a_refresh_in_every_variant_and_simd_level() {
    for (i, text) in VARIANTS.iter().enumerate() {
        let r = rules(text);
        let float = FloatNet::random::<D>(&r, i as u64);
        for simd in Simd::available() {
            let net = Network::from_float(&float).expect("net").with_simd(simd);
            let mut acc = None;
            let mut captures = 0;
            let mut promotions = 0;
            for (before, after) in random_games(r, 6, 7 + i as u64) {
                let start = acc.take().filter(|(p, _)| *p == before);
                let parent = match start {
                    Some((_, a)) => a,
                    None => net.refresh(&before),
                };
                let child = net.update(&parent, &before, &after);
                assert_eq!(
                    child,
                    net.refresh(&after),
                    "{text}, {simd}: {before} → {after}"
                );
                captures += usize::from(after.occupied().count() < before.occupied().count());
                promotions += usize::from(after.kings().count() > before.kings().count());
                acc = Some((after, child));
            }
            assert!(
                captures > 10,
                "{text}: the games captured only {captures} times"
            );
            assert!(promotions > 0, "{text}: no promotion in the games");
        }
    }
}

#[test]
fn every_simd_level_gives_the_same_scores() {
    let r = Rules::default();
    let float = FloatNet::random::<D>(&r, 3);
    let levels = Simd::available();
    let nets: Vec<Network> = levels
        .iter()
        .map(|s| Network::from_float(&float).expect("net").with_simd(*s))
        .collect();
    for (_, pos) in random_games(r, 4, 11) {
        let scores: Vec<i32> = nets.iter().map(|n| n.evaluate_position(&pos)).collect();
        assert!(
            scores.windows(2).all(|w| w[0] == w[1]),
            "{pos}: {levels:?} gave {scores:?}"
        );
    }
}

/// The quantized network stays close to the float one: on random networks
/// (whose scores spread about as widely as a trained one's, ±75 centi-men on
/// average) the mean difference is under 2.5 centi-men and none is over 20
/// (a fifth of a man). The error comes from rounding the feature transformer
/// to 1/255 and L1's weights to 1/1024.
#[test]
fn quantized_scores_agree_with_the_float_network() {
    let r = Rules::default();
    let mut worst: f32 = 0.0;
    let mut total = 0.0;
    let mut n = 0;
    for seed in 0..3 {
        let float = FloatNet::random::<D>(&r, 100 + seed);
        let net = Network::from_float(&float).expect("net");
        for (_, pos) in random_games(r, 4, seed) {
            let f = float.evaluate::<D>(&pos);
            let q = net.evaluate_position(&pos) as f32;
            let err = (q - f).abs();
            worst = worst.max(err);
            assert!(err <= 20.0, "{pos}: float {f}, quantized {q}");
            total += err;
            n += 1;
        }
    }
    assert!(n > 300);
    let mean = total / n as f32;
    assert!(
        mean < 2.5,
        "mean difference {mean:.2} centi-men over {n} positions"
    );
    eprintln!("over {n} positions: mean difference {mean:.2}, largest {worst:.2} centi-men");
}

#[test]
fn scores_are_not_constant() {
    // A network whose output ignores the position would pass the tests
    // above; a random one tells positions apart.
    let net = Network::from_float(&FloatNet::random::<D>(&Rules::default(), 5)).expect("net");
    let mut scores: Vec<i32> = random_games(Rules::default(), 2, 1)
        .iter()
        .map(|(_, p)| net.evaluate_position(p))
        .collect();
    scores.sort_unstable();
    scores.dedup();
    assert!(scores.len() > 20, "only {} distinct scores", scores.len());
}

#[test]
fn network_files_round_trip_and_refuse_corruption_and_other_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("eval.nnue");
    let float = FloatNet::random::<D>(&rules("variant=armenian"), 9);
    write_network(&path, &float, &[("generation", "3".to_owned())]).expect("write");
    let (back, meta) = read_network::<D>(&path, Some(&rules("variant=armenian"))).expect("read");
    assert_eq!(back, float);
    assert_eq!(meta, vec![("generation".to_owned(), "3".to_owned())]);

    let err = read_network::<D>(&path, Some(&Rules::default())).unwrap_err();
    assert!(matches!(err, Error::OtherRules { .. }), "{err}");
    assert!(err.to_string().contains("variant=armenian"), "{err}");

    let bytes = std::fs::read(&path).expect("bytes");
    let mut corrupt = bytes.clone();
    let mid = corrupt.len() / 2;
    corrupt[mid] ^= 0x40;
    std::fs::write(&path, &corrupt).expect("write");
    let err = read_network::<D>(&path, None).unwrap_err().to_string();
    assert!(err.contains("checksum"), "{err}");

    std::fs::write(&path, &bytes[..bytes.len() - 100]).expect("write");
    let err = read_network::<D>(&path, None).unwrap_err().to_string();
    assert!(err.contains("truncated"), "{err}");

    std::fs::write(&path, b"hello").expect("write");
    let err = read_network::<D>(&path, None).unwrap_err().to_string();
    assert!(err.contains("not an evaluator file"), "{err}");

    let mut nan = float.clone();
    nan.l1_b[0] = f32::NAN;
    assert!(write_network(&path, &nan, &[]).is_err());
}

#[test]
fn sample_files_round_trip_and_refuse_corruption() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("gen.samples");
    let r = Rules::default();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let samples: Vec<Sample> = random_games(r, 2, 3)
        .iter()
        .map(|(_, p)| Sample::new(p, rng.gen_range(-40_000..40_000), rng.gen_range(-1..=1)))
        .collect();
    write_samples(&path, &r, &samples).expect("write");
    let (back_rules, back) = read_samples::<D>(&path, Some(&r), 1 << 20).expect("read");
    assert_eq!(back_rules, r);
    let bytes = |s: &[Sample]| -> Vec<(Vec<u8>, i16, i8)> {
        s.iter()
            .map(|s| {
                let mut b = Vec::new();
                D::encode(&s.position, &mut b);
                (b, s.score, s.result)
            })
            .collect()
    };
    assert_eq!(bytes(&back), bytes(&samples));
    assert!(back
        .iter()
        .any(|s| s.score == i16::MAX || s.score == i16::MIN));
    let err = read_samples::<D>(&path, Some(&r), 3)
        .unwrap_err()
        .to_string();
    assert!(err.contains("more than the 3 allowed"), "{err}");
    let err = read_samples::<D>(&path, Some(&rules("variant=croda")), 1 << 20).unwrap_err();
    assert!(matches!(err, Error::OtherRules { .. }), "{err}");

    let bytes = std::fs::read(&path).expect("bytes");
    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 20;
    corrupt[last] ^= 1;
    std::fs::write(&path, &corrupt).expect("write");
    let err = read_samples::<D>(&path, None, 1 << 20)
        .unwrap_err()
        .to_string();
    assert!(err.contains("checksum"), "{err}");
    std::fs::write(&path, &bytes[..bytes.len() - 9]).expect("write");
    let err = read_samples::<D>(&path, None, 1 << 20)
        .unwrap_err()
        .to_string();
    assert!(err.contains("truncated"), "{err}");
}

#[test]
fn the_features_keep_the_contract_in_every_variant() {
    for (i, text) in VARIANTS.iter().enumerate() {
        let pairs = random_games(rules(text), 4, 40 + i as u64);
        check_features::<D>(&pairs).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}

#[test]
fn the_default_difference_of_the_seam_gives_the_same_changes() {
    // `Features::for_each_change`'s default (two sorted lists) against
    // draughts' bitboard difference: a game that keeps the default gets the
    // same accumulators.
    struct Listed;
    impl Features for Listed {
        type Position = Position;
        type Rules = Rules;
        const NAME: &'static str = "listed";
        const COUNT: usize = D::COUNT;
        const POSITION_BYTES: usize = D::POSITION_BYTES;
        fn side_to_move(pos: &Position) -> usize {
            D::side_to_move(pos)
        }
        fn for_each_feature(pos: &Position, p: usize, f: impl FnMut(usize)) {
            D::for_each_feature(pos, p, f);
        }
        fn encode(pos: &Position, out: &mut Vec<u8>) {
            D::encode(pos, out);
        }
        fn decode(b: &[u8], rules: &Rules) -> Result<Position, String> {
            D::decode(b, rules)
        }
    }
    let pairs = random_games(Rules::default(), 4, 5);
    check_features::<Listed>(&pairs).expect("the default difference");
    for (before, after) in &pairs {
        let mut a = Vec::new();
        let mut b = Vec::new();
        D::for_each_change(before, after, |p, f, added| a.push((p, f, added)));
        Listed::for_each_change(before, after, |p, f, added| b.push((p, f, added)));
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "{before} → {after}");
    }
}

#[test]
fn another_games_network_or_samples_are_refused_by_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("other.nnue");
    let mut float = FloatNet::random::<D>(&Rules::default(), 1);
    float.feature_set = "tafl-psq".to_owned();
    write_network(&path, &float, &[]).expect("write");
    let err = read_network::<D>(&path, None).unwrap_err().to_string();
    assert!(err.contains("feature set `tafl-psq`"), "{err}");
    assert!(Network::from_float(&float).is_err());
}
