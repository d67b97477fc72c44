//! The worked examples of the rules text (their diagrams are lost; the
//! squares are those the text names) and a hand-built position for every
//! other rule: friendly chains, capture chains of each side, the King's
//! exit by slide and by capture, the forbidden exit by a friendly jump,
//! surrounding, the locked board, promotion, the limits.

#![allow(clippy::unwrap_used)]

use dama_tafl::{Game, MoveKind, Position, Side, TaflRules, Termination};

fn game(text: &str, rules: &str) -> Game {
    let pos: Position = text.parse().unwrap();
    Game::from_position(pos, rules.parse().unwrap())
}

/// The legal moves in notation, sorted.
fn moves(g: &Game) -> Vec<String> {
    let mut v: Vec<String> = g.legal_moves().iter().map(ToString::to_string).collect();
    v.sort();
    v
}

/// The legal moves of the piece on `from` of one kind: their end squares
/// (`off` for an exit), sorted.
fn ends(g: &Game, from: &str, kind: MoveKind) -> Vec<String> {
    let mut v: Vec<String> = g
        .legal_moves()
        .iter()
        .filter(|m| m.from.to_string() == from && m.kind == kind)
        .map(|m| m.to().map_or("off".into(), |s| s.to_string()))
        .collect();
    v.sort();
    v
}

#[test]
fn t1_a_man_chains_friendly_jumps_and_may_stop_after_any() {
    // "the Black checker at B1 can leap to B3. After leaping there, it can
    // either continue to B5, or leap to D3. After leaping to D3, the checker
    // has the option to leap to D5."
    let g = game("B:Wd8:Bb2,b4,c3,d4,b1,Ka5", "");
    assert_eq!(ends(&g, "b1", MoveKind::Friendly), ["b3", "b5", "d3", "d5"]);
    assert_eq!(ends(&g, "b1", MoveKind::Slide), ["a1", "c1"]);
    // Nothing leaped is removed.
    let mut g2 = g.clone();
    let m = g.parse_move("b1-b3-d3-d5").unwrap();
    g2.play(&m).unwrap();
    assert_eq!(g2.position().pieces(Side::KingSide).count(), 6);
}

#[test]
fn t2_the_king_leaps_backwards_too_and_not_back_to_its_square() {
    // "The King piece at B3, could leap backwards to B1. The King piece
    // could also leap to B5. The King piece, lastly could leap to D3 with
    // the option D5."
    let g = game("B:Wd8:Bb2,b4,c3,d4,Kb3", "");
    assert_eq!(ends(&g, "b3", MoveKind::Friendly), ["b1", "b5", "d3", "d5"]);
}

#[test]
fn t3_the_king_never_leaves_by_a_friendly_jump() {
    // "the Black King on A7, leaping over the Black piece at A8 to exit the
    // board, is not a legal move."
    let g = game("B:Wd2:Ba8,Ka7", "");
    assert_eq!(ends(&g, "a7", MoveKind::Friendly), Vec::<String>::new());
    assert_eq!(ends(&g, "a7", MoveKind::Slide), ["a6", "b7"]);
}

#[test]
fn t4_a_man_captures_in_a_chain_with_free_choice_of_length() {
    // "the Black checker at B1 … can leap to B3. After leaping there, it can
    // either continue to B5, or leap to D3 … All pieces leaped are removed".
    let g = game("B:Wb2,b4,c3,d4:Bb1,Ka1", "");
    assert_eq!(moves(&g), ["b1xb3xb5", "b1xb3xd3xd5"]);
    let g = game("B:Wb2,b4,c3,d4:Bb1,Ka1", "majority=on");
    assert_eq!(moves(&g), ["b1xb3xd3xd5"]);
}

#[test]
fn t5_the_king_captures_in_every_direction() {
    // "The King piece at B3, could leap backwards to B1 … could also leap to
    // B5 … could leap to D3 and then must leap to D5."
    let g = game("B:Wb2,b4,c3,d4:Ba8,Kb3", "");
    assert_eq!(moves(&g), ["b3xb1", "b3xb5", "b3xd3xd5"]);
    let g = game("B:Wb2,b4,c3,d4:Ba8,Kb3", "majority=on");
    assert_eq!(moves(&g), ["b3xd3xd5"]);
}

#[test]
fn t6_the_king_leaves_by_a_capture_over_column_8() {
    // "the King piece on A7 leaps over the White piece on A8 to exit the
    // board and the King side wins the game."
    let mut g = game("B:Wa8,d2:BKa7", "");
    assert_eq!(moves(&g), ["a7xoff"]);
    let m = g.parse_move("a7xoff").unwrap();
    g.play(&m).unwrap();
    let o = g.outcome().unwrap();
    assert_eq!(o.winner, Some(Side::KingSide));
    assert_eq!(o.termination, Termination::KingEscaped);
}

#[test]
fn t7_a_defender_man_takes_one_piece_and_never_the_king() {
    // "the White checker piece at C4 would jump to C2 and then onto A2,
    // removing the piece at C3 and B2 from the board. The White checker is
    // not permitted to jump over the Black King" (the King on B4: the text's
    // "C4" is the checker's own square).
    let g = game("W:Wc4:Bc3,b2,Kb4", "");
    assert_eq!(moves(&g), ["c4xc2"]);
    let g = game("W:Wc4:Bc3,b2,Kb4", "defender_man_chain=on");
    assert_eq!(moves(&g), ["c4xc2xa2"]);
}

#[test]
fn t8_a_defender_king_chains_but_never_jumps_the_king() {
    // "the White King at D1 could jump to D1, or it could jump to D5 and then
    // to B5, or it could jump to B3 and then B1. The White King would not be
    // permitted to jump over the King piece at B4" (the White King on D3).
    let g = game("W:WKd3:Bd2,d4,c5,c3,b2,Kb4", "");
    assert_eq!(moves(&g), ["d3xb3xb1", "d3xd1", "d3xd5xb5"]);
}

#[test]
fn t9_a_defender_man_is_crowned_on_column_1_and_then_moves_back() {
    let mut g = game("W:Wb2:BKd7", "");
    let m = g.parse_move("b2-b1").unwrap();
    g.play(&m).unwrap();
    assert!(g
        .position()
        .defender_kings()
        .contains("b1".parse().unwrap()));
    let m = g.parse_move("d7-d6").unwrap();
    g.play(&m).unwrap();
    assert!(moves(&g).contains(&"b1-b2".to_owned()));
}

#[test]
fn t10_the_king_is_never_captured() {
    let g = game("W:Wc4:Ba1,Kc3", "");
    assert!(g.legal_moves().iter().all(|m| m.kind == MoveKind::Slide));
    assert!(moves(&g).contains(&"c4-b4".to_owned()));
}

#[test]
fn t11_a_capture_forbids_the_exit_slide() {
    let g = game("B:Wc7,b8:BKc8", "");
    assert_eq!(moves(&g), ["c8xa8", "c8xc6"]);
    let g = game("B:Wa2:BKc8", "");
    assert!(moves(&g).contains(&"c8-off".to_owned()));
    // Reaching column 8 wins at once under goal=column8.
    let mut g = game("B:Wa2:BKc7", "goal=column8");
    assert!(!moves(&g).iter().any(|m| m.ends_with("off")));
    let m = g.parse_move("c7-c8").unwrap();
    g.play(&m).unwrap();
    assert_eq!(g.outcome().unwrap().winner, Some(Side::KingSide));
}

#[test]
fn t12_a_board_locked_for_good_is_a_defender_win() {
    // Column 8 full of King-side men: they can never move or be taken, and
    // the King may not leave over them.
    let g = game("B:Wa2:Ba8,b8,c8,d8,Kb7", "");
    let o = g.outcome().unwrap();
    assert_eq!(o.termination, Termination::Locked);
    assert_eq!(o.winner, Some(Side::Defender));
    let g = game("B:Wa2:Ba8,b8,c8,d8,Kb7", "lockup=off");
    assert!(g.outcome().is_none());
    assert_eq!(moves(&g), ["b7-a7", "b7-b6", "b7-c7"]);
    // One gap in the wall and the board is not locked.
    let g = game("B:Wa2:Ba8,b8,c8,Kb7", "");
    assert!(g.outcome().is_none());
    // The initial position is not locked (a Defender wall is not permanent).
    let g = Game::new(TaflRules {
        first: Side::KingSide,
        ..TaflRules::default()
    });
    assert!(g.outcome().is_none());
    assert!(!dama_tafl::lockup::locked(g.position()));
}

#[test]
fn t14_the_king_surrounded_on_four_sides_loses_even_with_a_capture() {
    let g = game("B:Wb4,d4,c3,c5:Ba1,Kc4", "");
    let o = g.outcome().unwrap();
    assert_eq!(o.termination, Termination::KingSurrounded);
    assert_eq!(o.winner, Some(Side::Defender));
    // On an edge only with edge_counts.
    let g = game("B:Wb4,a3,a5:Bd1,Ka4", "");
    assert!(g.outcome().is_none());
    assert_eq!(moves(&g), ["a4xa2", "a4xa6", "a4xc4"]);
    let g = game("B:Wb4,a3,a5:Bd1,Ka4", "surround=edge_counts");
    assert_eq!(
        g.outcome().unwrap().termination,
        Termination::KingSurrounded
    );
    // The exit side is never a wall.
    let g = game("B:Wb8,a7:Bd1,Ka8", "surround=edge_counts");
    assert!(g.outcome().is_none());
}

#[test]
fn t15_t16_a_side_without_a_legal_move_loses() {
    let g = game("B:Wa2,Kb1,a3,Kc1:BKa1", "surround=four_pieces");
    let o = g.outcome().unwrap();
    assert_eq!(o.termination, Termination::NoMoves);
    assert_eq!(o.winner, Some(Side::Defender));
    let g = game("W:Wb5:Bb4,b3,a5,c5,d5,Kd1", "");
    let o = g.outcome().unwrap();
    assert_eq!(o.termination, Termination::NoMoves);
    assert_eq!(o.winner, Some(Side::KingSide));
}

#[test]
fn t17_a_capture_chain_may_end_on_its_own_square() {
    let g = game("B:Wb4,c5,d4,c3:BKb3", "");
    // Two paths, one move: the same start, end and captured pieces.
    assert_eq!(g.legal_moves().len(), 1);
    let m = &g.legal_moves()[0];
    assert_eq!(m.to().unwrap().to_string(), "b3");
    assert_eq!(m.captured.count(), 4);
}

#[test]
fn t18_repetition_and_the_ply_limit_end_the_game() {
    let mut g = game("W:WKd5:Ba1,Kb6", "ply_limit=off");
    for _ in 0..2 {
        for m in ["d5-d4", "b6-b7", "d4-d5", "b7-b6"] {
            let mv = g.parse_move(m).unwrap();
            g.play(&mv).unwrap();
        }
    }
    let o = g.outcome().unwrap();
    assert_eq!(o.termination, Termination::Repetition);
    assert_eq!(o.winner, Some(Side::Defender));
    let mut g = game("W:WKd5:Ba1,Kb6", "ply_limit=3,limit_result=draw");
    for m in ["d5-d4", "b6-b7", "d4-d3"] {
        let mv = g.parse_move(m).unwrap();
        g.play(&mv).unwrap();
    }
    let o = g.outcome().unwrap();
    assert_eq!(o.termination, Termination::PlyLimit);
    assert_eq!(o.winner, None);
}

#[test]
fn steps_play_a_chain_jump_by_jump_and_stop_ends_a_friendly_chain() {
    use dama_tafl::{Dir, Step};
    let mut g = game("B:Wd8:Bb2,b4,c3,d4,b1,Ka5", "");
    let b1 = "b1".parse().unwrap();
    g.play_step(Step::Jump {
        from: b1,
        dir: Dir::Up,
    })
    .unwrap();
    assert_eq!(g.chain_at().unwrap().to_string(), "b3");
    assert!(g.in_friendly_chain());
    let steps = g.legal_steps();
    assert!(steps.contains(&Step::Stop {
        at: "b3".parse().unwrap()
    }));
    // A slide is not a continuation.
    assert!(g
        .play_step(Step::Slide {
            from: "a5".parse().unwrap(),
            dir: Dir::Up
        })
        .is_err());
    g.play_step(Step::Stop {
        at: "b3".parse().unwrap(),
    })
    .unwrap();
    assert_eq!(g.turn(), Side::Defender);
    assert_eq!(g.moves().last().unwrap().to_string(), "b1-b3");
}

#[test]
fn tournament_score_counts_own_pieces_and_captures() {
    let mut g = game("B:Wa8,d2:BKa7", "");
    let m = g.parse_move("a7xoff").unwrap();
    g.play(&m).unwrap();
    // The King (escaped) counts as its side's one piece; one capture.
    assert_eq!(dama_tafl::tournament_score(&g), Some((Side::KingSide, 2)));
}
