//! The ten worked examples of Atila Zeybek's "Türk Daması"
//! (shared/rules/turkish-checkers-rules-zeybek.txt), rebuilt as positions.
//!
//! The diagrams are lost, so each position is reconstructed to fit the text.
//! Zeybek writes captures by the squares of the *captured* pieces
//! (`d4xc4xb3`: the man on d4 takes c4 and b3); this crate writes landing
//! squares (`d4xb4xb2`). Each test names the right and the wrong moves.

#![allow(clippy::unwrap_used, missing_docs)]

use dama_engine::{Bitboard, Game, MidCapturePromotion, Move, Position, Rules, Square};

fn pos(s: &str) -> Position {
    s.parse().unwrap()
}

fn moves(p: &Position) -> Vec<String> {
    p.legal_moves().iter().map(Move::to_string).collect()
}

fn squares(list: &[Square]) -> Bitboard {
    list.iter().copied().collect()
}

fn assert_illegal(p: &Position, text: &str) {
    assert!(
        p.parse_move(text).is_err(),
        "{text} should be illegal in {p}"
    );
}

/// Example 1: the black man on d4 can take two pieces on its left (c4, then
/// b3) or one on its right (e4): it must take two.
#[test]
fn example_1_maximum_capture() {
    let p = pos("B:Wc4,b3,e4:Bd4");
    assert_eq!(moves(&p), ["d4xb4xb2"]);
    let m = p.parse_move("d4xb4xb2").unwrap();
    assert_eq!(m.captured(), squares(&[Square::C4, Square::B3]));
    assert_illegal(&p, "d4xf4"); // the wrong capture: one piece
}

/// Example 2: a black man must take all five pieces (1st to 5th), not the
/// single piece on the other side.
#[test]
fn example_2_five_pieces() {
    let p = pos("B:Wh6,g5,f4,e3,d2,g7:Bh7");
    assert_eq!(moves(&p), ["h7xh5xf5xf3xd3xd1"]);
    let m = p.legal_moves()[0];
    assert_eq!(m.capture_count(), 5);
    assert!(m.promotes(), "it ends on d1, Black's crowning row");
    assert_illegal(&p, "h7xf7");
}

/// Example 3: the white king on f1 takes eight pieces with L-turns, and there
/// is more than one path for the same set; any may be played.
#[test]
fn example_3_eight_pieces_l_turns() {
    let p = pos("W:WKf1:BKd1,f3,d5,b3,Kg1,h3,e6,c7");
    let legal = p.legal_moves();
    assert!(legal.iter().all(|m| m.capture_count() == 8));
    assert!(legal.iter().all(|m| m.captured() == p.them()));
    // Two paths around the d1-f3-d5-b3 rectangle, clockwise and
    // counter-clockwise, then the same finish: the same move.
    let a = p.parse_move("f1xf5xb5xb1xe1xh1xh6xc6xc8").unwrap();
    let b = p.parse_move("f1xb1xb5xf5xf1xh1xh6xc6xc8").unwrap();
    assert_eq!(a, b);
    assert_eq!(a.capture_count(), 8);
    // And jump by jump, both paths can be played.
    for path in [
        &["f5", "b5", "b1", "e1", "h1", "h6", "c6", "c8"],
        &["b1", "b5", "f5", "f1", "h1", "h6", "c6", "c8"],
    ] {
        let mut game = Game::from_position(p);
        let mut at = Square::F1;
        for (i, to) in path.iter().enumerate() {
            let to: Square = to.parse().unwrap();
            let step = game
                .legal_steps()
                .into_iter()
                .find(|s| s.from == at && s.to == to)
                .unwrap_or_else(|| panic!("no step to {to} after {i} jumps"));
            game.play_step(step).unwrap();
            at = to;
        }
        assert_eq!(game.moves().last(), Some(&a));
        assert!(game.position().pieces(dama_engine::Color::Black).is_empty());
    }
}

/// Example 4: the king takes 1, 2, 3 and 4 and stops on a7; taking g7 would
/// need a 180-degree turn after the last jump, which is forbidden.
#[test]
fn example_4_no_reverse() {
    let p = pos("W:WKa2:Bd2,f4,d7,b7,g7");
    assert_eq!(moves(&p), ["a2xf2xf7xc7xa7"]);
    let m = p.legal_moves()[0];
    assert!(!m.captured().contains(Square::G7));
    assert_illegal(&p, "a2xf2xf7xc7xa7xh7");
}

/// Example 5: the black man takes two pieces, passing through the crowning
/// row as a man, stops on d1 and is crowned only at the end of the move.
#[test]
fn example_5_capture_through_the_dama_row() {
    let p = pos("B:Wb2,Kc1,d3:Bb3");
    assert_eq!(moves(&p), ["b3xb1xd1"]);
    let m = p.legal_moves()[0];
    assert!(m.promotes());
    // As a man it cannot fly on to take d3; under the other rule it can.
    let cak = p.with_rules(Rules {
        promotion_mid_capture: MidCapturePromotion::ContinueAsKing,
        ..Rules::default()
    });
    assert!(cak.legal_moves().iter().all(|m| m.capture_count() == 3));
}

/// Example 6: the black man on c2 steps to c1 without capturing (a quiet
/// move ends the turn, so it cannot take the king on d1). Then the white king
/// must take the three pieces d6, e7, g7, not c1 and a7 nor d6 and c7.
#[test]
fn example_6_moving_through_the_last_row() {
    let p = pos("B:WKd1:Bc2,d6,e7,g7,c7,a7");
    assert!(p.legal_moves().iter().all(|m| !m.is_capture()));
    let m = p.parse_move("c2-c1").unwrap();
    assert!(m.promotes() && !m.is_capture());
    let mut after = p;
    after.try_play(&m).unwrap();
    assert_eq!(moves(&after), ["d1xd7xf7xh7"]);
    assert_eq!(
        after.legal_moves()[0].captured(),
        squares(&[Square::D6, Square::E7, Square::G7])
    );
    assert_illegal(&after, "d1xb1"); // c1, then a7: two pieces
    assert_illegal(&after, "d1xa1xa8");
    assert_illegal(&after, "d1xd7xb7"); // d6, c7: two pieces
}

/// Example 7: the black man on c3 takes c2 and d1 as a man in the same move,
/// stops on e1 and is crowned after the move.
#[test]
fn example_7_capture_along_the_dama_row() {
    let p = pos("B:Wc2,Kd1:Bc3");
    assert_eq!(moves(&p), ["c3xc1xe1"]);
    assert!(p.legal_moves()[0].promotes());
}

/// Example 8: the man on d4 and the king on a8 can each take one piece: the
/// king has no priority, either may capture.
#[test]
fn example_8_equal_man_and_king() {
    let p = pos("B:Wc4,a3:Bd4,Ka8");
    let mut got = moves(&p);
    got.sort();
    assert_eq!(got, ["a8xa1", "a8xa2", "d4xb4"]);
}

/// Example 9: the man takes two (c4, b3), the king one (a3): the man must.
#[test]
fn example_9_man_takes_more() {
    let p = pos("B:Wc4,b3,a3:Bd4,Ka8");
    assert_eq!(moves(&p), ["d4xb4xb2"]);
    assert_illegal(&p, "a8xa2");
}

/// Example 10: the king takes two (a3, b2), the man one (e5): the king must,
/// although White then takes the king.
#[test]
fn example_10_king_takes_more() {
    let p = pos("B:We5,a3,b2,Kd2,e2:Bf5,Ka8");
    let legal = p.legal_moves();
    assert!(!legal.is_empty());
    for m in &legal {
        assert_eq!(m.from(), Square::A8);
        assert_eq!(m.captured(), squares(&[Square::A3, Square::B2]));
        let mut after = p;
        after.play_unchecked(m);
        assert!(
            after
                .legal_moves()
                .iter()
                .any(|w| w.captured().contains(m.to())),
            "White can take the king after {m}"
        );
    }
    assert_illegal(&p, "f5xd5");
}
