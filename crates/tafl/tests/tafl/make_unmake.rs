//! `Game::make` and `Game::unmake`, what the alpha-beta search plays moves
//! with, against `Game::play` on a copy (which checks every step) over the
//! positions of random games, under the default rules and the majority
//! rule.

#![allow(missing_docs, clippy::unwrap_used)]

use dama_tafl::{Game, TaflRules};
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// Everything a caller can see of a game.
fn seen(g: &Game) -> impl PartialEq + std::fmt::Debug {
    (
        *g.position(),
        g.outcome(),
        g.moves().to_vec(),
        g.repetitions(),
        g.hash(),
        g.legal_moves(),
    )
}

fn check(rules: TaflRules, seed: u64) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut positions = 0;
    for _ in 0..12 {
        let mut game = Game::new(rules);
        while game.outcome().is_none() {
            let before = seen(&game);
            let playable = game.playable_moves();
            let legal = game.legal_moves();
            assert_eq!(playable.len(), legal.len());
            let mut made = game.clone();
            for (p, m) in playable.iter().zip(&legal) {
                assert_eq!(&p.mv, m);
                let mut played = game.clone();
                played.play(m).unwrap();
                let undo = made.make(p);
                assert_eq!(seen(&made), seen(&played), "{m} in {}", game.position());
                made.unmake(undo);
                assert_eq!(seen(&made), before, "{m} taken back");
                // Nothing of the move stays behind (its position's hash
                // would count as a repetition the second time).
                let undo = made.make(p);
                assert_eq!(seen(&made), seen(&played), "{m} made again");
                made.unmake(undo);
            }
            positions += 1;
            let m = legal.choose(&mut rng).unwrap().clone();
            game.play(&m).unwrap();
        }
    }
    assert!(positions > 100, "{positions} positions");
}

#[test]
fn make_and_unmake_agree_with_play() {
    check(TaflRules::default(), 1);
}

#[test]
fn make_and_unmake_agree_with_play_under_the_majority_rule() {
    let rules: TaflRules = "majority=on".parse().unwrap();
    check(rules, 2);
}
