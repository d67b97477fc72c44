//! The baseline players: alpha-beta finds the win in one and the only
//! defence, and beats the random player from both sides; the per-side
//! results of the arena example are measured by hand.

#![allow(clippy::unwrap_used)]

use dama_tafl::players::{best_move, play_out, timed_best_move_with, Baseline, TaflEvaluation};
use dama_tafl::{Game, Position, Side, TaflRules};
use rand::SeedableRng;

fn game(text: &str) -> Game {
    Game::from_position(text.parse::<Position>().unwrap(), TaflRules::default())
}

#[test]
fn alpha_beta_takes_the_exit_and_closes_the_surround() {
    let (m, score, _) = best_move(&game("B:Wa5,b6:Ba1,Kc8"), 2, None).unwrap();
    assert_eq!(m.to_string(), "c8-off");
    assert!(score >= dama_tafl::players::WIN);
    let (m, _, _) = best_move(&game("W:Wb4,d4,c3,b5:BKc4"), 2, None).unwrap();
    assert_eq!(m.to_string(), "b5-c5");
}

/// A search that reaches its depth where the side to move must capture
/// searches the captures on before it evaluates: at depth 1 the Defenders
/// see that a7-a6 hands their man to a5xa7, which a static evaluation of
/// the position after a7-a6 (material even, the same as after a7-b7)
/// cannot see; without the extension the tie went to a7-a6, the first
/// move generated.
#[test]
fn alpha_beta_follows_a_forced_capture_past_its_depth() {
    let g = game("W:Wa7:Ba5,Kd1");
    let moves: Vec<String> = g.legal_moves().iter().map(ToString::to_string).collect();
    assert_eq!(
        moves.first().map(String::as_str),
        Some("a7-a6"),
        "{moves:?}"
    );
    let (m, score, nodes) = best_move(&g, 1, None).unwrap();
    assert_eq!(m.to_string(), "a7-b7");
    assert!(score > -dama_tafl::players::WIN, "{score}");
    // The root's two moves and the capture after a7-a6.
    assert!(nodes >= 3, "{nodes}");
}

#[test]
fn alpha_beta_beats_random_from_both_sides() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    for side in Side::ALL {
        let mut wins = 0;
        // Depth 4: at depth 2 the Defenders won 16 of 20 and at depth 3
        // 18 of 20 (the arena example); depth 4 won 10 of 10 from each side.
        for _ in 0..6 {
            let (d, k) = match side {
                Side::Defender => (Baseline::AlphaBeta(4), Baseline::Random),
                Side::KingSide => (Baseline::Random, Baseline::AlphaBeta(4)),
            };
            let g = play_out(Game::new(TaflRules::default()), d, k, &mut rng);
            wins += usize::from(g.outcome().unwrap().winner == Some(side));
        }
        assert!(wins >= 5, "alpha-beta as {side}: {wins}/6");
    }
}

#[test]
fn a_timed_search_answers_with_its_last_complete_iteration() {
    let start = Game::new(TaflRules::default());
    let time = std::time::Duration::from_millis(300);
    let (m, score, nodes, depth) =
        timed_best_move_with(&start, time, &TaflEvaluation::Handcrafted, None).unwrap();
    assert!(depth >= 2, "depth {depth} in 300 ms");
    assert!(nodes > 0);
    // Deterministic without a generator: iteration `depth` is the
    // fixed-depth search to that depth.
    let (fixed, fixed_score, _) = best_move(&start, depth, None).unwrap();
    assert_eq!((m, score), (fixed, fixed_score));
    // A win in one is found at once, whatever the time.
    let (m, score, _, _) = timed_best_move_with(
        &game("B:Wa5,b6:Ba1,Kc8"),
        time,
        &TaflEvaluation::Handcrafted,
        None,
    )
    .unwrap();
    assert_eq!(m.to_string(), "c8-off");
    assert!(score >= dama_tafl::players::WIN);
}

#[test]
fn specs_name_a_depth_or_a_time() {
    use dama_game::{AlphaBetaLimit, AlphaBetaSpec, OwnSpec};
    let spec = |limit| {
        OwnSpec::AlphaBeta(AlphaBetaSpec {
            limit,
            tt_mb: 16,
            eval: None,
            threads: 1,
        })
    };
    let of = dama_tafl::players::baseline_of;
    assert_eq!(
        of(&spec(AlphaBetaLimit::TimeMs(100))).unwrap(),
        Baseline::AlphaBetaTime(100)
    );
    assert_eq!(
        Baseline::AlphaBetaTime(100).to_string(),
        "alphabeta:time=100"
    );
    assert!(of(&spec(AlphaBetaLimit::TimeMs(0))).is_err());
    assert_eq!(
        of(&spec(AlphaBetaLimit::Depth(3))).unwrap(),
        Baseline::AlphaBeta(3)
    );
}

/// The King's distance to column 8 by a breadth-first search over squares
/// (what `king_distance` computes with bitboards).
fn reference_distance(pos: &Position) -> Option<u32> {
    use dama_tafl::Dir;
    let occupied = pos.occupied().without(pos.king());
    let mut dist = std::collections::HashMap::from([(pos.king(), 0u32)]);
    let mut queue = std::collections::VecDeque::from([pos.king()]);
    while let Some(sq) = queue.pop_front() {
        let d = dist[&sq];
        if sq.column() == 7 {
            return Some(d);
        }
        for dir in Dir::ALL {
            if let Some(n) = sq.step(dir) {
                if !occupied.contains(n) && !dist.contains_key(&n) {
                    dist.insert(n, d + 1);
                    queue.push_back(n);
                }
            }
        }
    }
    None
}

#[test]
fn the_kings_distance_is_a_breadth_first_search() {
    use dama_tafl::{Bitboard, Square};
    for sq in Square::ALL {
        let by_step: Vec<Square> = dama_tafl::Dir::ALL
            .iter()
            .filter_map(|&d| sq.step(d))
            .collect();
        let by_shift = Bitboard::from_square(sq).neighbours();
        assert_eq!(by_shift.count() as usize, by_step.len(), "{sq}");
        assert!(by_step.iter().all(|&n| by_shift.contains(n)), "{sq}");
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let (mut found, mut none) = (0, 0);
    for _ in 0..40 {
        let mut g = Game::new(TaflRules::default());
        while g.outcome().is_none() {
            let pos = *g.position();
            let d = dama_tafl::players::king_distance(&pos);
            assert_eq!(d, reference_distance(&pos), "{pos}");
            if d.is_some() {
                found += 1;
            } else {
                none += 1;
            }
            g.play(&dama_tafl::players::random_move(&g, &mut rng).unwrap())
                .unwrap();
        }
    }
    assert!(
        found > 100 && none > 10,
        "{found} with a path, {none} without"
    );
}
