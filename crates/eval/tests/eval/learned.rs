//! The alpha-beta engine with a learned evaluation (`dama-nnue`): the
//! quantized network picks the moves the float network picks, and the
//! `eval=PATH` player spec builds, plays and refuses what it should.

use dama_draughts::Draughts;
use std::sync::Arc;

use dama_draughts::{AlphaBeta, Evaluation, Evaluator, SearchLimits};
use dama_draughts::{DraughtsFeatures as D, Network};
use dama_engine::{Game, Position, Rules};
use dama_eval::{factory, parse_player, BuildOptions, PlayerSpec};
use dama_nnue::{write_network, FloatNet};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The float network as an evaluator (the reference: no accumulators, no
/// integers).
struct FloatEval(FloatNet);

impl Evaluator for FloatEval {
    type State = ();
    fn root(&self, _: &Position) {}
    fn child(&self, _: &(), _: &Position, _: &Position) {}
    fn evaluate(&self, pos: &Position, _: &()) -> i32 {
        (self.0.evaluate::<D>(pos).round() as i32).clamp(-10_000, 10_000)
    }
}

/// An error and its sources, as `dama` prints them.
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(x) = src {
        s.push_str(&format!(": {x}"));
        src = x.source();
    }
    s
}

fn positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::startpos();
        for _ in 0..(4 + out.len() % 30) {
            let moves = pos.legal_moves();
            let Some(m) = moves.choose(&mut rng) else {
                break;
            };
            pos.play_unchecked(m);
        }
        if pos.legal_moves().len() > 2 && !pos.is_game_over() {
            out.push(pos);
        }
    }
    out
}

#[test]
fn the_quantized_network_picks_the_float_networks_moves() {
    let float = FloatNet::random::<D>(&Rules::default(), 21);
    let learned = Evaluation::Learned {
        evaluator: dama_game::EvalSource::File("test".into()),
        network: Arc::new(Network::from_float(&float).expect("network")),
    };
    let reference = FloatEval(float);
    let set = positions(40, 5);
    let mut same = 0;
    for pos in &set {
        // Exact searches (no reductions or pruning), so that the scores
        // differ by the evaluations' rounding alone, not by a cut that a
        // few centi-men decided one way in one search and the other in the
        // other.
        let mut a = AlphaBeta::new(4).with_reductions(false);
        let ra = a.search_with_evaluator(&reference, pos, &[], SearchLimits::depth(4));
        let mut b = AlphaBeta::new(4)
            .with_reductions(false)
            .with_evaluation(learned.clone());
        let rb = b.search(pos, &[], SearchLimits::depth(4));
        same += usize::from(ra.best == rb.best);
        assert!(
            (ra.score - rb.score).abs() <= 25,
            "{pos}: float {} quantized {}",
            ra.score,
            rb.score
        );
    }
    // Moves whose scores differ by less than the rounding may swap; a
    // broken network (wrong perspective, wrong feature order) agrees on
    // about a third.
    assert!(
        same * 10 >= set.len() * 9,
        "same best move in {same} of {}",
        set.len()
    );
}

#[test]
fn the_eval_spec_builds_plays_and_refuses_other_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("net.nnue");
    write_network(&path, &FloatNet::random::<D>(&Rules::default(), 3), &[]).expect("write");
    let spec = format!("alphabeta:depth=2,eval={}", path.display());
    let parsed: PlayerSpec = spec.parse().expect("spec");
    assert_eq!(parsed.to_string(), spec);
    let f = parse_player::<Draughts>(&spec, &BuildOptions::default()).expect("factory");
    let mut player = f.build().expect("player");
    let mut game = Game::new();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..20 {
        if game.is_game_over() {
            break;
        }
        let m = player.choose(&game, &mut rng).expect("move");
        game.play(&m).expect("legal");
    }
    assert!(game.moves().len() >= 10);

    // Other rules: refused when built for them, and in a game of them.
    let croda: Rules = "variant=croda".parse().expect("rules");
    let options = BuildOptions {
        rules: Some(croda.into()),
        ..BuildOptions::default()
    };
    let err = match factory::<Draughts>(&parsed, &options) {
        Ok(_) => panic!("a Turkish evaluator built for Croda"),
        Err(e) => chain(&e),
    };
    assert!(err.contains("variant=croda"), "{err}");
    let err = player
        .choose(&Game::with_rules(croda), &mut rng)
        .expect_err("a Turkish evaluator played Croda")
        .to_string();
    assert!(err.contains("trained for rules"), "{err}");

    // A missing or corrupt file is refused by name.
    for bad in ["missing.nnue", "corrupt.nnue"] {
        let p = dir.path().join(bad);
        if bad == "corrupt.nnue" {
            std::fs::write(&p, b"DAMANNUE garbage").expect("write");
        }
        let spec = format!("alphabeta:depth=2,eval={}", p.display());
        let err = match parse_player::<Draughts>(&spec, &BuildOptions::default()) {
            Ok(_) => panic!("{bad} was accepted"),
            Err(e) => chain(&e),
        };
        assert!(err.contains(bad), "{err}");
    }
    assert!("alphabeta:depth=2,eval=".parse::<PlayerSpec>().is_err());
}
