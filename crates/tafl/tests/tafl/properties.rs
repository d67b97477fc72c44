//! Properties over random games: notation round-trips, position text
//! round-trips, the mirror maps legal moves to legal moves, steps and whole
//! moves describe the same moves, and no parser panics on any input.

#![allow(clippy::unwrap_used)]

use dama_tafl::{Game, Position, Step, TaflRules};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

fn random_games(seed: u64, games: usize) -> Vec<Game> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut g = Game::new(TaflRules::default());
        while g.outcome().is_none() {
            out.push(g.clone());
            let moves = g.legal_moves();
            let m = &moves[rng.gen_range(0..moves.len())];
            g.play(m).unwrap();
        }
    }
    out
}

#[test]
fn notation_and_position_text_round_trip() {
    for g in random_games(3, 60) {
        let pos = *g.position();
        assert_eq!(pos.to_string().parse::<Position>().unwrap(), pos);
        for m in g.legal_moves() {
            let back = g.parse_move(&m.to_string()).unwrap();
            assert_eq!(back.key(), m.key(), "{m}");
        }
    }
}

#[test]
fn the_mirror_maps_legal_moves_to_legal_moves() {
    for g in random_games(4, 60) {
        let pos = g.position();
        let mirrored = Game::from_position(pos.mirror(), *g.rules());
        let mut a: Vec<_> = g
            .legal_moves()
            .iter()
            .map(|m| {
                let (k, f, t, c) = m.key();
                (k, f.mirror(), t.map(|s| s.mirror()), c.mirror())
            })
            .collect();
        let mut b: Vec<_> = mirrored.legal_moves().iter().map(|m| m.key()).collect();
        a.sort_by_key(|x| format!("{x:?}"));
        b.sort_by_key(|x| format!("{x:?}"));
        assert_eq!(a, b, "{pos}");
        assert_eq!(g.outcome(), mirrored.outcome());
    }
}

#[test]
fn playing_steps_at_random_reaches_only_legal_whole_moves() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let mut stops = 0;
    for g in random_games(6, 40) {
        let legal: Vec<_> = g.legal_moves().iter().map(|m| m.key()).collect();
        let mut s = g.clone();
        let n = s.moves().len();
        while s.moves().len() == n {
            let steps = s.legal_steps();
            assert!(!steps.is_empty());
            let step = steps[rng.gen_range(0..steps.len())];
            stops += usize::from(matches!(step, Step::Stop { .. }));
            s.play_step(step).unwrap();
        }
        let played = s.moves().last().unwrap();
        assert!(
            legal.contains(&played.key()),
            "{played} at {}",
            g.position()
        );
    }
    assert!(stops > 0);
}

proptest! {
    #[test]
    fn parsers_never_panic(s in "\\PC{0,40}") {
        let _ = s.parse::<Position>();
        let _ = s.parse::<TaflRules>();
        let _ = s.parse::<dama_tafl::Square>();
        let g = Game::new(TaflRules::default());
        let _ = g.parse_move(&s);
    }

    #[test]
    fn position_like_text_never_panics(s in "[WB]:[WK]?([a-e][0-9],?){0,16}:[BK]?(K?[a-e][0-9],?){0,12}") {
        if let Ok(p) = s.parse::<Position>() {
            prop_assert_eq!(p.to_string().parse::<Position>().unwrap(), p);
            let g = Game::from_position(p, TaflRules::default());
            for m in g.legal_moves() {
                let mut h = g.clone();
                h.play(&m).unwrap();
            }
        }
    }
}
