//! Self-play is generic over games: Turkish Tafl games played by a Tafl
//! network through the same `play_games` as draughts, with records that
//! replay under the Tafl rules and samples in the Tafl encoding.

#![allow(clippy::unwrap_used)]

use dama_mcts::{Algorithm, SearchConfig};
use dama_nn::{ModelConfig, Network, NnEvaluator, Precision};
use dama_selfplay::config::SelfplayConfig;
use dama_selfplay::record::GameResult;
use dama_selfplay::selfplay::{play_games, EvalCache, SelfplayJob};
use dama_tafl::encode::TAFL_SHAPE;
use dama_tafl::{Position, Side, TaflRules};

#[test]
fn tafl_self_play_records_replay_and_samples_use_the_tafl_encoding() {
    let cpu = dama_nn::device::parse_device("cpu").unwrap();
    let net = Network::new(&ModelConfig::quick().with_shape(TAFL_SHAPE), cpu).unwrap();
    let mut eval = NnEvaluator::new(&net, cpu, Precision::F32).unwrap();
    let selfplay = SelfplayConfig {
        games_per_generation: 6,
        parallel_games: 6,
        max_plies: 80,
        random_opening_plies: 2,
        ..SelfplayConfig::default()
    };
    let search = SearchConfig {
        algorithm: Algorithm::Gumbel,
        simulations: 8,
        gumbel_considered_actions: 4,
        ..SearchConfig::default()
    };
    let rules: TaflRules = "ply_limit=60".parse().unwrap();
    let job: SelfplayJob<'_, dama_tafl::Tafl> = SelfplayJob {
        selfplay: &selfplay,
        search: &search,
        rules,
        tables: (),
        generation: 1,
        seed: 3,
    };
    let mut cache = EvalCache::new(10_000);
    let (games, stats) = play_games(&job, &mut eval, &mut cache, |_, _| Ok(()), || false).unwrap();
    assert_eq!(games.len(), 6);
    assert_eq!(stats.games, 6);
    let mut samples = 0;
    for g in &games {
        assert_eq!(g.rules.parse::<TaflRules>().unwrap(), rules);
        // The moves replay from the start under the Tafl rules, to the
        // recorded result.
        let start: Position = g.start.parse().unwrap();
        let mut game = dama_tafl::Game::from_position(start, rules);
        for m in &g.moves {
            let mv = game.parse_move(m).unwrap();
            game.play(&mv).unwrap();
        }
        if g.termination != "move cap" {
            let winner = game.outcome().unwrap().winner;
            let expected = match winner {
                Some(Side::Defender) => GameResult::WhiteWins,
                Some(Side::KingSide) => GameResult::BlackWins,
                None => GameResult::Draw,
            };
            assert_eq!(g.result, expected, "{}", g.termination);
        }
        for s in &g.samples {
            assert_eq!(s.planes.len(), TAFL_SHAPE.planes);
            assert!(s
                .legal
                .iter()
                .all(|&i| usize::from(i) < TAFL_SHAPE.policy_size()));
            assert!((s.policy.iter().sum::<f32>() - 1.0).abs() < 1e-3);
            assert!((s.outcome.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            samples += 1;
        }
    }
    assert!(samples > 20, "{samples} samples");
}
