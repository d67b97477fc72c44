//! The baseline players: alpha-beta finds the win in one and the only
//! defence, and beats the random player from both sides; the per-side
//! results of the arena example are measured by hand.

#![allow(clippy::unwrap_used)]

use dama_tafl::players::{best_move, play_out, Baseline};
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
