//! Worked examples of the rules on 6 × 6, the draw rules, notation, the
//! encoding and the `GameDef` contract.

use dama_game::{GameDef, NnInput};
use dama_mcts::{Game as _, Outcome, Player};
use dama_minidama::{
    Color, Game, MiniDama, MiniError, MiniRules, MiniState, Piece, Position, Square, Step, SHAPE,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn pos(text: &str) -> Position {
    text.parse().expect("valid position")
}

fn texts<T: ToString>(items: &[T]) -> Vec<String> {
    items.iter().map(ToString::to_string).collect()
}

fn moves(text: &str) -> Vec<String> {
    texts(&pos(text).legal_moves())
}

fn play(game: &mut Game, moves: &[&str]) {
    for text in moves {
        assert_eq!(game.outcome(), None);
        game.play(&game.parse_move(text).expect("legal"))
            .expect("legal");
    }
}

const WHITE_WINS: Option<Outcome> = Some(Outcome::Win(Player::First));

#[test]
fn the_maximum_capture_must_be_taken() {
    // b2 could take c2 alone (b2xd2), but b2xb4xd4 takes two (rules 6.6;
    // the official example b3xd3xd5, turned).
    let p = pos("W:Wb2,f2:Bc2,b3,c4,f6");
    assert_eq!(moves("W:Wb2,f2:Bc2,b3,c4,f6"), ["b2xb4xd4"]);
    assert!(matches!(p.parse_move("b2xd2"), Err(MiniError::Illegal(_))));
    assert!(matches!(p.parse_move("f2-f3"), Err(MiniError::Illegal(_))));
}

#[test]
fn a_king_captures_at_a_distance_and_lands_anywhere_beyond() {
    assert_eq!(moves("W:WKa1:Ba4,f6"), ["a1xa5", "a1xa6"]);
    // Only the landing square that goes on capturing keeps the maximum.
    assert_eq!(moves("W:WKa1:Ba4,c5"), ["a1xa5xd5", "a1xa5xe5", "a1xa5xf5"]);
    // A piece of its own, or two pieces in a row, stop it.
    for text in ["W:WKa1,a2:Ba4", "W:WKa1:Ba4,a5"] {
        assert!(moves(text).iter().all(|m| !m.contains('x')), "{text}");
    }
}

#[test]
fn captured_pieces_leave_at_once_and_no_180_degree_turn() {
    // The king goes round and crosses its own start square (rule 6.4).
    assert_eq!(moves("W:WKd1:Bd3,b4,a2,Ke1"), ["d1xd4xa4xa1xf1"]);
    // After c3xc1 the way up to c5 is clear, but it would be a 180° turn.
    assert_eq!(moves("W:WKc3:Bc2,c5"), ["c3xc6", "c3xc1"]);
    // A man jumps forward and sideways, never backward.
    assert_eq!(moves("W:Wc3:Bc2,b3,d3"), ["c3xe3", "c3xa3"]);
}

#[test]
fn a_man_is_crowned_at_the_end_of_its_move() {
    let p = pos("W:Wc5:Bf3");
    let m = p.parse_move("c5-c6").expect("legal");
    assert_eq!(p.after_move(&m).to_string(), "B:WKc6:Bf3");
    // Reaching b6 mid-capture, it goes on as a man (sideways, not down the
    // d file as a king would) and is crowned where it stops.
    let p = pos("W:Wb4:Bb5,c6,d3");
    assert_eq!(moves("W:Wb4:Bb5,c6,d3"), ["b4xb6xd6"]);
    let m = p.parse_move("b4xb6xd6").expect("legal");
    assert_eq!(p.after_move(&m).to_string(), "B:WKd6:Bd3");
    // Black is crowned on rank 1.
    let p = pos("B:Wf5:Bc2");
    let m = p.parse_move("c2-c1").expect("legal");
    assert_eq!(p.after_move(&m).to_string(), "W:Wf5:BKc1");
}

#[test]
fn wins_and_draws() {
    let rules = MiniRules::default();
    let outcome = |text: &str| Game::from_position(rules, pos(text)).outcome();
    assert_eq!(outcome("W:Wa2:B"), WHITE_WINS);
    assert_eq!(outcome("B:Wa2:B"), WHITE_WINS);
    // One piece each is a draw unless the rule is off.
    assert_eq!(outcome("W:Wa2:Bf5"), Some(Outcome::Draw));
    let play_on = MiniRules {
        one_piece_each: false,
        ..rules
    };
    assert_eq!(
        Game::from_position(play_on, pos("W:Wa2:Bf5")).outcome(),
        None
    );
    // Black's man on a3 can neither step nor jump: Black loses...
    assert_eq!(outcome("B:Wa1,a2,b3,c3:Ba3"), WHITE_WINS);
    assert_eq!(outcome("W:Wa1,a2,b3,c3:Ba3"), None);
    // ...and if White could not move either, it is a draw (more men than
    // a game can have, so built square by square).
    let mut p = Position::empty(Color::Black);
    for sq in Square::all().filter(|s| s.rank() >= 3) {
        let color = [Color::White, Color::Black][usize::from(sq.rank() == 5)];
        p.set(sq, Some(Piece { color, king: false }));
    }
    assert!(p.legal_moves().is_empty());
    assert_eq!(Game::from_position(rules, p).outcome(), Some(Outcome::Draw));
}

#[test]
fn the_no_capture_limit_and_threefold_repetition_draw() {
    let shuffle = ["a1-b1", "f6-e6", "b1-a1", "e6-f6"];
    let start = pos("W:WKa1,Kc3:BKf6,Kd4");
    let mut game = Game::from_position(MiniRules::default(), start);
    play(&mut game, &[shuffle, shuffle].concat());
    assert_eq!(game.repetitions(), 3);
    assert_eq!(game.outcome(), Some(Outcome::Draw));
    assert!(game.legal_moves().is_empty());
    // Without repetition: kings walk up and down until the limit.
    let rules: MiniRules = "no_capture_limit=5".parse().expect("rules");
    let mut game = Game::from_position(rules, start);
    play(&mut game, &["a1-a2", "f6-f5", "a2-a3", "f5-f4", "a3-a4"]);
    assert_eq!(game.plies_since_capture(), 5);
    assert_eq!(game.outcome(), Some(Outcome::Draw));
    assert!(matches!(
        game.parse_move("f4-f3"),
        Err(MiniError::Illegal(_))
    ));
}

#[test]
fn rules_text_round_trips_and_refuses_what_it_does_not_know() {
    let default = MiniRules::default();
    assert_eq!(
        default.to_string(),
        "no_capture_limit=40 one_piece_each=draw"
    );
    assert_eq!("".parse::<MiniRules>(), Ok(default));
    assert_eq!("default".parse::<MiniRules>(), Ok(default));
    let r: MiniRules = "no_capture_limit=off,one_piece_each=play_on"
        .parse()
        .expect("rules");
    assert_eq!(
        r,
        MiniRules {
            no_capture_limit: None,
            one_piece_each: false
        }
    );
    assert_eq!(r.to_string().parse::<MiniRules>(), Ok(r));
    for bad in [
        "no_capture_limit=0",
        "no_capture_limit=x",
        "variant=croda",
        "one_piece_each",
    ] {
        let err = bad.parse::<MiniRules>().expect_err(bad);
        assert!(err.to_string().contains(bad), "{err}");
    }
}

#[test]
fn malformed_text_is_refused_with_the_problem_named() {
    for (text, why) in [
        ("W:Wa2", "three fields"),
        ("X:Wa2:Bb5", "side to move"),
        ("W:Wa2:Wb5", "listed twice"),
        ("W:Wa2,a2:B", "twice"),
        ("W:Wa6:B", "crowning row"),
        ("W:Wa1,b1,c1,d1,e1,f1,a2:B", "six pieces"),
        ("W:Qa1:B", "start with W or B"),
    ] {
        let err = text.parse::<Position>().expect_err(text).to_string();
        assert!(err.contains(why), "{text}: {err}");
    }
    assert!(matches!("W:Wg1:B".parse::<Position>(), Err(MiniError::Square(s)) if s == "g1"));
    let start = Position::start();
    for bad in ["", "a2", "a2-a3xa4", "a2-z9", "a2-"] {
        assert!(start.parse_move(bad).is_err(), "{bad}");
    }
}

proptest! {
    #[test]
    fn no_text_makes_it_panic(text in "\\PC{0,24}", ascii in "[WBKa-h0-9:,x= -]{0,24}") {
        for t in [&text, &ascii] {
            let _ = t.parse::<Position>();
            let _ = t.parse::<MiniRules>();
            let _ = Position::start().parse_move(t);
        }
    }
}

/// The state reached from a fresh game at `p` by `steps`.
fn state(p: Position, steps: &[Step]) -> MiniState {
    let mut s = MiniState::new(Game::from_position(MiniRules::default(), p));
    steps.iter().for_each(|&step| s.apply(step));
    s
}

fn actions(s: &MiniState) -> Vec<Step> {
    let mut out = Vec::new();
    s.legal_actions(&mut out);
    out
}

/// Checks the encoding at `s`, a state built by [`state`] from `p`.
fn check_encoding(p: Position, steps: &[Step]) {
    let s = state(p, steps);
    let m = state(
        p.mirrored(),
        &steps.iter().map(Step::mirrored).collect::<Vec<_>>(),
    );
    let indices = |s: &MiniState| {
        let mut v: Vec<usize> = actions(s).into_iter().map(|a| s.policy_index(a)).collect();
        v.sort_unstable();
        v
    };
    let mut seen = indices(&s);
    let n = seen.len();
    seen.dedup();
    assert_eq!(
        seen.len(),
        n,
        "two actions share an index at {p} after {steps:?}"
    );
    assert!(seen.iter().all(|&i| i < SHAPE.policy_size()));
    let mut mirrored: Vec<usize> = seen
        .iter()
        .map(|&i| MiniDama::mirror_policy_index(i))
        .collect();
    mirrored.sort_unstable();
    assert_eq!(mirrored, indices(&m), "mirror of {p} after {steps:?}");
    let (mut a, mut b, mut c) = (vec![9.0; 324], vec![0.0; 324], vec![0.0; 324]);
    s.encode_planes(&mut a);
    m.encode_planes(&mut b);
    MiniDama::mirror_planes(&a, &mut c);
    assert_eq!(b, c, "planes of the mirror of {p} after {steps:?}");
    assert!(a.iter().all(|v| (0.0..=1.0).contains(v)));
}

#[test]
fn the_mirror_is_an_involution_and_maps_legal_steps_to_legal_steps() {
    assert_eq!(MiniDama::shape(), SHAPE);
    for i in 0..SHAPE.policy_size() {
        assert_eq!(
            MiniDama::mirror_policy_index(MiniDama::mirror_policy_index(i)),
            i
        );
    }
    let planes: Vec<f32> = (0..324).map(|i| i as f32).collect();
    let (mut once, mut twice) = (vec![0.0; 324], vec![0.0; 324]);
    MiniDama::mirror_planes(&planes, &mut once);
    MiniDama::mirror_planes(&once, &mut twice);
    assert_ne!(once, planes);
    assert_eq!(twice, planes);
    // Every state of random games, mid-capture included.
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    for _ in 0..100 {
        let mut s = MiniState::new(Game::new(MiniRules::default()));
        let mut turn = (*s.game().position(), Vec::new());
        while s.outcome().is_none() {
            check_encoding(turn.0, &turn.1);
            let a = actions(&s)[rng.gen_range(0..actions(&s).len())];
            s.apply(a);
            turn = (*s.game().position(), s.steps().to_vec());
        }
    }
}

#[test]
fn the_encoding_sees_the_side_to_move_and_the_capture_in_progress() {
    let p = pos("B:Wd4,c3:Bd5,Kb6");
    let s = state(p, &[]);
    let mut planes = vec![0.0; 324];
    s.encode_planes(&mut planes);
    // Black is seen from its side: its man d5 is on rank 2 (index 6+3).
    assert_eq!(planes[9], 1.0);
    assert_eq!(planes[36 + 1], 1.0); // its king b6 is on rank 1, file b
    assert_eq!(planes[2 * 36 + 2 * 6 + 3], 1.0); // White's d4 on rank 3
    assert_eq!(planes[8 * 36], 1.0);
    let jump = actions(&s)[0];
    assert_eq!(jump.to_string(), "d5xd3");
    // South for Black is North from its side: direction 0, distance 2.
    assert_eq!(s.policy_index(jump), 36 + 9);
    let mid = state(p, &[jump]);
    assert_eq!(texts(&actions(&mid)), ["d3xb3"]);
    mid.encode_planes(&mut planes);
    assert_eq!(planes[4 * 36 + 3 * 6 + 3], 1.0); // d3, seen as rank 4
    assert_eq!(planes[5 * 36 + 6 + 3], 1.0); // it came from d5
    assert_ne!(mid.hash(), state(p, &[]).hash());
}

#[test]
fn the_game_def_contract_holds_over_random_games() {
    let rules = MiniDama::parse_rules("no_capture_limit=30").expect("rules");
    assert_eq!(MiniDama::geometry().width, 6);
    assert_eq!(MiniDama::geometry().sides[1].name, "Black");
    let mut rng = ChaCha8Rng::seed_from_u64(28);
    let mut results = [0; 3];
    for _ in 0..300 {
        let mut game = MiniDama::start(&rules);
        let mut captures = 0;
        loop {
            let legal = MiniDama::legal_moves(&game);
            assert_eq!(legal.is_empty(), MiniDama::outcome(&game).is_some());
            let text = MiniDama::position_text(&game);
            let back = MiniDama::parse_position(&rules, &text).expect("own text");
            assert_eq!(MiniDama::position_text(&back), text);
            if legal.is_empty() {
                break;
            }
            // The search decides the move step by step at random.
            let mut s = MiniDama::search_state(&game);
            assert_eq!(s.to_play(), MiniDama::to_play(&game));
            let mut decisions = Vec::new();
            while decisions.is_empty() || !s.steps().is_empty() {
                assert_eq!(s.outcome(), None);
                let a = actions(&s)[rng.gen_range(0..actions(&s).len())];
                assert_eq!(s.to_play(), MiniDama::to_play(&game), "one player per turn");
                decisions.push(a);
                s.apply(a);
            }
            let m = MiniDama::complete_turn(&game, &decisions).expect("a whole move");
            assert!(legal.contains(&m));
            assert!(MiniDama::complete_turn(&game, &decisions[..decisions.len() - 1]).is_err());
            assert_eq!(
                MiniDama::parse_move(&game, &m.to_string()).expect("own text"),
                m
            );
            captures += usize::from(m.is_capture());
            MiniDama::play(&mut game, &m).expect("legal");
            assert_eq!(s.game().position(), game.position());
            assert!(
                MiniDama::plies(&game) <= 30 * (captures + 1),
                "the limit ends games"
            );
        }
        let outcome = MiniDama::outcome(&game);
        results
            [usize::from(outcome != WHITE_WINS) + usize::from(outcome == Some(Outcome::Draw))] += 1;
    }
    assert!(
        results.iter().all(|&n| n > 0),
        "wins, losses and draws: {results:?}"
    );
}
