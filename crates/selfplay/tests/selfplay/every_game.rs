//! Self-play of every registered game: the records' endings and captures,
//! and the generation's statistics, agree with the game's own account of
//! each game, replayed move by move under its rules (as OpenSpiel's basic
//! tests run every game through the same checks). Short no-capture limits
//! make the draw counters count: Mini draughts' no-capture draws were
//! counted as none while its records said `no-capture limit` (issue 39).

#![allow(clippy::unwrap_used)]

use dama_game::{EndReason, GameDef};
use dama_mcts::{Algorithm, SearchConfig};
use dama_nn::{GameName, ModelConfig, Network, NnEvaluator, Precision, WithGame};
use dama_selfplay::config::SelfplayConfig;
use dama_selfplay::record::GameRecord;
use dama_selfplay::selfplay::{play_games, EvalCache, SelfplayJob, SelfplayStats};

/// Rules that end games early: a short no-capture limit where the game
/// has one.
fn short_rules(game: GameName) -> &'static str {
    match game {
        GameName::Tafl => "ply_limit=40",
        _ => "no_capture_limit=6",
    }
}

struct Check;

impl WithGame for Check {
    type Output = (usize, usize);

    fn run<G: GameDef>(self) -> (usize, usize) {
        let name = GameName::of::<G>().unwrap();
        let rules = G::parse_rules(short_rules(name)).unwrap();
        let cpu = dama_nn::device::parse_device("cpu").unwrap();
        // The same network, so the same games, on every run.
        dama_nn::device::manual_seed(11);
        let net = Network::new(&ModelConfig::quick().with_shape(G::shape()), cpu).unwrap();
        let mut eval = NnEvaluator::new(&net, cpu, Precision::F32).unwrap();
        let selfplay = SelfplayConfig {
            games_per_generation: 10,
            parallel_games: 10,
            max_plies: 60,
            random_opening_plies: 2,
            ..SelfplayConfig::default()
        };
        let search = SearchConfig {
            algorithm: Algorithm::Gumbel,
            simulations: 4,
            gumbel_considered_actions: 4,
            ..SearchConfig::default()
        };
        let job: SelfplayJob<'_, G> = SelfplayJob {
            selfplay: &selfplay,
            search: &search,
            rules,
            tables: G::Tables::default(),
            generation: 1,
            seed: 5,
        };
        let mut cache = EvalCache::new(10_000);
        let (games, stats) =
            play_games(&job, &mut eval, &mut cache, |_, _| Ok(()), || false).unwrap();
        assert_eq!(games.len(), 10, "{name}");
        let mut expected = SelfplayStats::default();
        for g in &games {
            check_record::<G>(g, &rules, &mut expected);
        }
        assert_eq!(stats.no_capture_draws, expected.no_capture_draws, "{name}");
        assert_eq!(stats.repetition_draws, expected.repetition_draws, "{name}");
        assert_eq!(stats.move_cap_draws, expected.move_cap_draws, "{name}");
        assert_eq!(stats.captures, expected.captures, "{name}");
        (games.len(), stats.no_capture_draws)
    }
}

/// Replays `g` under `rules` and counts what the game itself says of it
/// into `expected`.
fn check_record<G: GameDef>(g: &GameRecord, rules: &G::Rules, expected: &mut SelfplayStats) {
    let mut game = G::parse_position(rules, &g.start).unwrap();
    for m in &g.moves {
        let mv = G::parse_move(&game, m).unwrap();
        if !G::move_squares(&mv).captured.is_empty() {
            expected.captures += 1;
        }
        G::play(&mut game, &mv).unwrap();
    }
    match G::ending(&game) {
        Some(ending) => {
            assert_eq!(g.ending, ending.reason, "game {}", g.game_id);
            assert_eq!(g.termination, ending.text, "game {}", g.game_id);
            match ending.reason {
                EndReason::NoCaptureLimit => expected.no_capture_draws += 1,
                EndReason::Repetition => expected.repetition_draws += 1,
                _ => {}
            }
        }
        None => {
            assert_eq!(g.ending, EndReason::MoveCap, "game {}", g.game_id);
            expected.move_cap_draws += 1;
        }
    }
}

#[test]
fn every_games_self_play_statistics_agree_with_its_endings() {
    for &game in GameName::ALL {
        let (played, no_capture) = game.with(Check);
        assert_eq!(played, 10);
        if game != GameName::Tafl {
            assert!(
                no_capture > 0,
                "{game}: no game ended by the no-capture limit of {}",
                short_rules(game)
            );
        }
    }
}
