//! Encoding tests over random playouts (issue 5): policy indices are exact
//! (round trip, no collisions), the mirror maps legal steps to legal steps
//! and planes to planes, and Black's point of view is White's flipped.

#![allow(clippy::unwrap_used)] // Test helpers outside #[test] functions.

use crate::common;

use dama_draughts::encode::{self, PLANES_LEN, POLICY_SIZE};
use dama_engine::{Game, Rules, StepResult, Variant};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Plays `plies` random steps, restarting finished games, and checks every
/// visited state. A mirrored game is played alongside with mirrored steps.
fn check_random_playouts(variant: Variant, seed: u64, plies: usize, planes_every: usize) {
    let rules = Rules::for_variant(variant);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut game = Game::with_rules(rules);
    let mut mirror = Game::with_rules(rules);
    let mut stamp = vec![usize::MAX; POLICY_SIZE];
    let mut mirror_stamp = vec![usize::MAX; POLICY_SIZE];
    let mut planes = vec![0.0; PLANES_LEN];
    let mut mplanes = vec![0.0; PLANES_LEN];
    let mut mirrored = vec![0.0; PLANES_LEN];
    let (mut captures, mut pending, mut black) = (0usize, 0usize, 0usize);
    let mut diagonal = 0usize;
    for ply in 0..plies {
        let steps = game.legal_steps();
        if steps.is_empty()
            || (game.pending_capture().is_none() && game.outcome().is_some())
            || ply % 2000 == 1999
        {
            game = Game::with_rules(rules);
            mirror = Game::with_rules(rules);
            continue;
        }
        let turn = game.turn();
        let msteps = mirror.legal_steps();
        assert_eq!(steps.len(), msteps.len(), "mirror has as many legal steps");
        for s in &msteps {
            mirror_stamp[encode::policy_index(*s, mirror.turn())] = ply;
        }
        for s in &steps {
            let i = encode::policy_index(*s, turn);
            assert!(i < POLICY_SIZE);
            assert_ne!(
                stamp[i],
                ply,
                "two legal steps share index {i} in {:?}",
                game.position()
            );
            stamp[i] = ply;
            assert_eq!(
                encode::step_for_index(&steps, i, turn),
                Some(*s),
                "round trip"
            );
            assert_eq!(
                mirror_stamp[encode::mirror_policy_index(i)],
                ply,
                "mirrored step {s} is not legal in the mirrored game"
            );
        }
        if ply.is_multiple_of(planes_every) {
            encode::encode_planes(&game, &mut planes);
            encode::encode_planes(&mirror, &mut mplanes);
            encode::mirror_planes(&planes, &mut mirrored);
            assert_eq!(
                mirrored, mplanes,
                "planes of the mirrored game are the mirrored planes"
            );
        }
        captures += usize::from(steps[0].is_capture());
        diagonal += steps
            .iter()
            .filter(|s| s.from.file() != s.to.file() && s.from.rank() != s.to.rank())
            .count();
        pending += usize::from(game.pending_capture().is_some());
        black += usize::from(turn == dama_engine::Color::Black);
        let s = steps[rng.gen_range(0..steps.len())];
        let r = game.play_step(s).expect("legal step");
        let mr = mirror
            .play_step(encode::mirror_step(s))
            .expect("mirrored step is legal");
        assert_eq!(
            matches!(r, StepResult::InProgress),
            matches!(mr, StepResult::InProgress)
        );
    }
    // The walk must have exercised captures, multi-jump captures and both colours.
    assert!(captures > plies / 50, "captures: {captures}");
    assert!(pending > plies / 500, "pending captures: {pending}");
    assert!(black > plies / 3, "black to move: {black}");
    if variant != Variant::Turkish {
        assert!(diagonal > plies, "{variant}: diagonal steps: {diagonal}");
    }
}

#[test]
fn policy_index_is_exact_and_mirror_maps_legal_to_legal() {
    // Debug builds: 200k plies here, 1M in the ignored test below.
    check_random_playouts(Variant::Turkish, 1, 200_000, 7);
}

#[test]
fn policy_index_is_exact_for_every_variant() {
    for (i, v) in [Variant::Armenian, Variant::Croda, Variant::Dameo]
        .into_iter()
        .enumerate()
    {
        check_random_playouts(v, 10 + i as u64, 60_000, 7);
    }
}

/// The full million-ply run (`cargo test -p dama-nn --release -- --ignored`).
#[test]
#[ignore]
fn one_million_random_plies() {
    for v in Variant::ALL {
        check_random_playouts(v, 2, 1_000_000, 3);
    }
}

#[test]
fn black_sees_the_board_as_white_does() {
    // flip_colors turns the board by 180° and swaps colours; with our
    // vertical-flip point of view this is exactly the left-right mirror.
    for g in common::random_states(3, 3000, 0) {
        if g.pending_capture().is_some() {
            continue;
        }
        let pos = *g.position();
        let a = Game::from_position(pos);
        let b = Game::from_position(pos.flip_colors());
        let mut pa = vec![0.0; PLANES_LEN];
        let mut pb = vec![0.0; PLANES_LEN];
        let mut ma = vec![0.0; PLANES_LEN];
        encode::encode_planes(&a, &mut pa);
        encode::encode_planes(&b, &mut pb);
        encode::mirror_planes(&pa, &mut ma);
        assert_eq!(ma, pb);
        for s in a.legal_steps() {
            let i = encode::mirror_policy_index(encode::policy_index(s, a.turn()));
            assert!(b
                .legal_steps()
                .iter()
                .any(|t| encode::policy_index(*t, b.turn()) == i));
        }
    }
}

#[test]
fn planes_mark_a_capture_in_progress() {
    let states = common::random_states(4, 20_000, 0);
    let mid: Vec<_> = states
        .iter()
        .filter(|g| g.pending_capture().is_some())
        .collect();
    assert!(!mid.is_empty());
    let mut planes = vec![0.0; PLANES_LEN];
    for g in mid {
        encode::encode_planes(g, &mut planes);
        let p = g.pending_capture().unwrap();
        let capturer = &planes[encode::plane::CAPTURER * 64..][..64];
        assert_eq!(capturer.iter().sum::<f32>(), 1.0);
        // Every legal continuation starts from the marked square.
        for s in g.legal_steps() {
            assert_eq!(s.from, p.square());
            let i = encode::policy_index(s, g.turn()) % 64;
            assert_eq!(capturer[i], 1.0);
        }
        let dirs: f32 = (0..4)
            .map(|d| planes[(encode::plane::FORBIDDEN_DIR + d) * 64])
            .sum();
        assert_eq!(
            dirs,
            if p.last_direction().is_some() {
                1.0
            } else {
                0.0
            }
        );
    }
}

#[test]
fn captured_pieces_stand_until_the_end_where_the_rules_say_so() {
    for variant in Variant::ALL {
        let rules = Rules::for_variant(variant);
        let mut rng = StdRng::seed_from_u64(5);
        let mut game = Game::with_rules(rules);
        let mut planes = vec![0.0; PLANES_LEN];
        let mut seen = 0;
        for _ in 0..40_000 {
            let steps = game.legal_steps();
            if steps.is_empty() || (game.pending_capture().is_none() && game.outcome().is_some()) {
                game = Game::with_rules(rules);
                continue;
            }
            if let Some(p) = game.pending_capture() {
                encode::encode_planes(&game, &mut planes);
                let them = game.turn().other();
                let theirs = |sq: dama_engine::Square| {
                    let i = if game.turn() == dama_engine::Color::White {
                        usize::from(sq.index())
                    } else {
                        usize::from(sq.index()) ^ 56
                    };
                    let on = |pl: usize| planes[pl * 64 + i] == 1.0;
                    (
                        on(encode::plane::THEIR_MEN) || on(encode::plane::THEIR_KINGS),
                        on(encode::plane::CAPTURED),
                    )
                };
                let captured: Vec<_> = p.captured().into_iter().collect();
                assert!(!captured.is_empty());
                let marked: f32 = planes[encode::plane::CAPTURED * 64..][..64].iter().sum();
                assert_eq!(marked as usize, captured.len());
                for sq in captured {
                    assert!(game.position().pieces(them).contains(sq));
                    let (standing, marked) = theirs(sq);
                    assert!(marked);
                    assert_eq!(standing, p.removes_at_end(), "{variant}");
                }
                seen += 1;
            }
            let s = steps[rng.gen_range(0..steps.len())];
            game.play_step(s).unwrap();
        }
        assert!(seen > 20, "{variant}: {seen} positions mid-capture");
    }
}
