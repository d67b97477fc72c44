//! Turkish draughts positions solved by the search with a material-counting
//! evaluator (issue 4), and checks of the engine adapter.

use dama_draughts::{DamaState, MaterialEvaluator};
use dama_engine::{Color, Position};
use dama_mcts::{Algorithm, Game, Player, Search, SearchConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Material for the side to move: men 1, kings 3.
fn material(p: &Position) -> i32 {
    let side = |c: Color| p.pieces(c).count() as i32 + 2 * (p.pieces(c) & p.kings()).count() as i32;
    side(p.turn()) - side(p.turn().other())
}

/// Plain material negamax over whole moves (an independent check that the
/// test positions have the property claimed for them).
fn negamax(p: &Position, depth: u32) -> i32 {
    let moves = p.legal_moves();
    if moves.is_empty() {
        return -100;
    }
    if depth == 0 {
        return material(p);
    }
    moves
        .iter()
        .map(|m| -negamax(&p.play(m).expect("legal"), depth - 1))
        .max()
        .expect("non-empty")
}

/// The unique best whole move by depth-`depth` negamax, and its margin
/// over the second best.
fn best_move(p: &Position, depth: u32) -> (String, i32, i32) {
    let mut scored: Vec<(i32, String)> = p
        .legal_moves()
        .iter()
        .map(|m| (-negamax(&p.play(m).expect("legal"), depth), m.to_string()))
        .collect();
    scored.sort();
    let (best, name) = scored.pop().expect("moves");
    let second = scored.last().map_or(-1000, |s| s.0);
    (name, best - material(p), second - material(p))
}

fn search(
    fen: &str,
    algorithm: Algorithm,
    simulations: u32,
    seed: u64,
) -> dama_mcts::SearchResult<dama_engine::Step> {
    let position: Position = fen.parse().expect("valid position");
    let cfg = SearchConfig {
        algorithm,
        simulations,
        ..SearchConfig::default()
    };
    let mut s = Search::new(cfg, DamaState::from_position(position)).expect("valid config");
    s.run(
        &mut MaterialEvaluator::default(),
        &mut ChaCha8Rng::seed_from_u64(seed),
    )
    .expect("search runs")
}

/// Forced wins by a sacrifice and a multi-capture: White gives a man, the
/// capture is compulsory, and White's king takes several pieces in one move.
#[test]
fn finds_multi_capture_combinations() {
    let cases = [
        // f2-g2! h2xf2 is forced, then Kb2xh2xh7xa7 takes everything.
        ("W:WKb2,f2:Bh2,h4,d7", "f2-g2"),
        // Kd6-c6! e6xg6 is forced, then Kc6xc2xg2xg5xg7.
        ("W:WKd6,f6,f7:Be2,g3,c4,e6,b7", "d6-c6"),
        // b6-c6! c7xc5 is forced, then Kh5xb5xb2xf2xf5.
        ("W:WKh5,b6,f6:Bd2,b4,f4,c7,d7", "b6-c6"),
    ];
    for (fen, expected) in cases {
        let position: Position = fen.parse().expect("valid");
        // The position is what we claim: the sacrifice is the unique best
        // move, and at once it loses material.
        let (best, gain, second) = best_move(&position, 3);
        assert_eq!(best, expected, "{fen}");
        assert!(
            gain >= 2 && second <= 0,
            "{fen}: gain {gain}, second {second}"
        );
        for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
            let r = search(fen, algorithm, 3000, 1);
            assert_eq!(
                r.action.to_string(),
                expected,
                "{fen} {algorithm:?}: {:?}",
                r.visits
            );
            assert!(r.value.scalar() > 0.3, "{fen} {algorithm:?}: {:?}", r.value);
        }
    }
}

/// The maximum-capture rule forces a losing capture. In each position
/// White's move offers Black a one-piece capture that would be safe, but
/// Black has a two-piece capture elsewhere and the rule makes it compulsory;
/// White's answer is a multi-capture.
#[test]
fn exploits_the_maximum_capture_rule() {
    let cases = [
        // b5-b6: Black wants c6xa6 but must play h6xf6xf4; then b6xd6xd8
        // takes two and crowns.
        ("W:Wb2,b5,f5,g6:Bh3,c6,h6,d7", "b5-b6", "h6xf6xf4", "c6xa6"),
        // Ke5-e2: Black wants d2xf2 (the king!) but must play g6xe6xc6;
        // then the king takes four.
        (
            "W:WKe5,d6,f6,h6:Bd2,a4,c4,d4,g6",
            "e5-e2",
            "g6xe6xc6",
            "d2xf2",
        ),
    ];
    for (fen, expected, forced_reply, wanted_reply) in cases {
        let position: Position = fen.parse().expect("valid");
        let (best, gain, second) = best_move(&position, 3);
        assert_eq!(best, expected, "{fen}");
        assert!(
            gain >= 2 && second <= 0,
            "{fen}: gain {gain}, second {second}"
        );
        let m = position
            .legal_moves()
            .iter()
            .find(|m| m.to_string() == expected)
            .copied()
            .expect("legal");
        let after = position.play(&m).expect("legal");
        // Only the maximum capture is legal...
        let replies: Vec<String> = after.legal_moves().iter().map(|m| m.to_string()).collect();
        assert_eq!(replies, vec![forced_reply], "{fen}");
        // ...although the smaller capture is on the board: without the
        // piece that makes the big capture, it is legal.
        let origin = &forced_reply[..2];
        let without = remove_piece(&after.to_string(), origin);
        let without: Position = without.parse().expect("valid");
        let moves: Vec<String> = without
            .legal_moves()
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert!(
            moves.contains(&wanted_reply.to_string()),
            "{fen}: {moves:?}"
        );
        for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
            let r = search(fen, algorithm, 3000, 2);
            assert_eq!(
                r.action.to_string(),
                expected,
                "{fen} {algorithm:?}: {:?}",
                r.visits
            );
            assert!(r.value.scalar() > 0.2, "{fen} {algorithm:?}: {:?}", r.value);
        }
        // Black, searching after White's move, plays the forced capture
        // jump by jump and knows it is losing.
        let r = search(&after.to_string(), Algorithm::Puct, 1000, 3);
        assert_eq!(r.to_play, Player::Second);
        assert!(
            forced_reply.starts_with(&r.action.to_string()),
            "{}",
            r.action
        );
        assert!(r.value.scalar() < -0.2, "{fen}: {:?}", r.value);
    }
}

/// The position text `fen` without the piece on `square`.
fn remove_piece(fen: &str, square: &str) -> String {
    fen.split(':')
        .map(|part| {
            let (side, list) = part.split_at(1);
            if list.is_empty() || !(side == "W" || side == "B") || part.len() == 1 {
                return part.to_string();
            }
            let kept: Vec<&str> = list
                .split(',')
                .filter(|t| t.trim_start_matches('K') != square)
                .collect();
            format!("{side}{}", kept.join(","))
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// The adapter plays whole games step by step: the player to move stays
/// the same through a multi-jump, every completed move is a legal move of
/// the position before it, and hashes differ mid-capture.
#[test]
fn random_step_games_are_legal() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut multi_jumps = 0;
    for _ in 0..50 {
        let mut state = DamaState::new(dama_engine::Game::new());
        let mut actions = Vec::new();
        for _ in 0..400 {
            if state.outcome().is_some() {
                break;
            }
            actions.clear();
            state.legal_actions(&mut actions);
            assert!(!actions.is_empty());
            let a = actions[rng.gen_range(0..actions.len())];
            let before = state.clone();
            state.apply(a);
            let mid_capture = state.game().pending_capture().is_some();
            if mid_capture {
                multi_jumps += 1;
                assert_eq!(state.to_play(), before.to_play());
                assert_ne!(state.hash(), before.hash());
                assert!(state.outcome().is_none());
            } else {
                let m = state
                    .game()
                    .moves()
                    .last()
                    .copied()
                    .expect("a move was completed");
                assert!(
                    before.game().position().legal_moves().contains(&m)
                        || before.game().pending_capture().is_some()
                );
                assert_eq!(state.to_play(), before.to_play().other());
            }
        }
    }
    assert!(multi_jumps > 10, "only {multi_jumps} multi-jump steps");
}

/// Self-play with the material evaluator and tree reuse reaches the end of
/// a game (or a move cap) without errors, both algorithms.
#[test]
fn self_play_with_tree_reuse() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let cfg = SearchConfig {
            algorithm,
            simulations: 64,
            dirichlet_epsilon: 0.25,
            temperature: 1.0,
            ..SearchConfig::default()
        };
        let mut s = Search::new(cfg, DamaState::new(dama_engine::Game::new())).expect("valid");
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut eval = MaterialEvaluator::default();
        for _ in 0..150 {
            if s.is_terminal() {
                break;
            }
            let r = s.run(&mut eval, &mut rng).expect("runs");
            assert!((r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            s.advance(r.action).expect("legal");
        }
    }
}

/// Self-play runs searches on rayon workers: the search must be `Send`.
#[test]
fn search_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Search<DamaState>>();
    assert_send_sync::<dama_mcts::SearchResult<dama_engine::Step>>();
    assert_send_sync::<MaterialEvaluator>();
}

/// A forced step (one legal action) is searched like any other and gets
/// the whole policy.
#[test]
fn forced_step_gets_the_whole_policy() {
    // After b5-b6 Black's only legal step is h6xf6.
    let fen = "B:Wb2,b6,f5,g6:Bh3,c6,h6,d7";
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let r = search(fen, algorithm, 50, 0);
        assert_eq!(r.actions.len(), 1);
        assert_eq!(r.policy, vec![1.0]);
        assert_eq!(r.action.to_string(), "h6xf6");
    }
}

#[test]
fn complete_turn_needs_a_whole_move() {
    let game = dama_engine::Game::from_position("W:Wb3:Bc3,d4".parse().unwrap());
    let steps = game.legal_steps();
    // The first jump alone does not finish the capture.
    assert!(matches!(
        dama_draughts::complete_turn(&game, &steps[..1]),
        Err(dama_mcts::Error::IncompleteTurn)
    ));
    assert!(matches!(
        dama_draughts::complete_turn(&game, &[]),
        Err(dama_mcts::Error::IncompleteTurn)
    ));
}
