//! Game rules that need history, error messages, and the text formats.

#![allow(clippy::unwrap_used, missing_docs)]

use dama_engine::{
    Color, Game, GameRecord, OnePieceEachRule, Outcome, ParseMoveError, ParsePositionError,
    PlayError, Position, PositionError, Rules, Square, StepResult, Termination,
};

fn pos(s: &str) -> Position {
    s.parse().unwrap()
}

fn play(game: &mut Game, text: &str) {
    let m = game.position().parse_move(text).unwrap();
    game.play(&m).unwrap();
}

#[test]
fn threefold_repetition_is_a_draw() {
    let mut game = Game::from_position(pos("W:WKa1,b2:BKh8,g7"));
    for _ in 0..2 {
        assert_eq!(game.outcome(), None);
        play(&mut game, "a1-a2");
        play(&mut game, "h8-h7");
        play(&mut game, "a2-a1");
        play(&mut game, "h7-h8");
    }
    assert_eq!(game.repetitions(), 3);
    assert_eq!(
        game.termination(),
        Some((Outcome::Draw, Termination::Repetition))
    );
    assert_eq!(game.play(&game.legal_moves()[0]), Err(PlayError::GameOver));
    // Undo goes back before the third occurrence.
    game.undo().unwrap();
    assert_eq!(game.outcome(), None);
    assert_eq!(game.repetitions(), 2);
}

#[test]
fn repetition_needs_the_same_side_to_move() {
    // The same pieces with the other side to move do not count.
    let mut game = Game::from_position(pos("W:WKa1,b2:BKh8,g7"));
    play(&mut game, "a1-a2");
    play(&mut game, "h8-h7");
    play(&mut game, "a2-a1");
    assert_eq!(game.repetitions(), 1);
    play(&mut game, "h7-h8");
    assert_eq!(game.repetitions(), 2);
}

#[test]
fn no_capture_limit_counts_plies() {
    let rules = Rules {
        no_capture_limit: Some(4),
        ..Rules::default()
    };
    let mut game = Game::from_position(pos("W:WKa1,b2:BKh8,g7").with_rules(rules));
    for text in ["a1-a3", "h8-h6", "a3-a4", "h6-h5"] {
        assert_eq!(game.outcome(), None);
        play(&mut game, text);
    }
    assert_eq!(game.position().plies_since_capture(), 4);
    assert_eq!(
        game.termination(),
        Some((Outcome::Draw, Termination::NoCaptureLimit))
    );
    // Off: the game goes on.
    let off = Rules {
        no_capture_limit: None,
        ..Rules::default()
    };
    assert_eq!(game.position().with_rules(off).outcome(), None);
}

#[test]
fn a_capture_resets_the_counter() {
    let mut p = pos("W:Wd4,a2:Bd5,h7").with_counters(30, 60);
    let m = p.parse_move("d4xd6").unwrap();
    p.try_play(&m).unwrap();
    assert_eq!(p.plies_since_capture(), 0);
    assert_eq!(p.ply(), 61); // 60 is already even: White to move
}

#[test]
fn one_piece_each() {
    assert_eq!(
        pos("W:WKd4:Bf6").termination(),
        Some((Outcome::Draw, Termination::OnePieceEach))
    );
    let kbm = Rules {
        one_piece_each: OnePieceEachRule::KingBeatsMan,
        ..Rules::default()
    };
    assert_eq!(
        pos("B:WKd4:Bf6").with_rules(kbm).termination(),
        Some((
            Outcome::Decisive {
                winner: Color::White
            },
            Termination::KingBeatsMan
        ))
    );
    // King against king stays a draw.
    assert_eq!(
        pos("B:WKd4:BKf6").with_rules(kbm).outcome(),
        Some(Outcome::Draw)
    );
}

#[test]
fn blocked_and_no_pieces_lose() {
    assert_eq!(
        pos("W:Wa7:BKa8,b7,c7").termination(),
        Some((
            Outcome::Decisive {
                winner: Color::Black
            },
            Termination::Blocked
        ))
    );
    assert_eq!(
        pos("B:Wa2:B").outcome(),
        Some(Outcome::Decisive {
            winner: Color::White
        })
    );
    // A capture that takes the last piece wins.
    let mut game = Game::from_position(pos("W:Wd4,a2:Bd5"));
    play(&mut game, "d4xd6");
    assert_eq!(
        game.termination(),
        Some((
            Outcome::Decisive {
                winner: Color::White
            },
            Termination::NoPieces
        ))
    );
}

#[test]
fn jump_by_jump_and_pending_hash() {
    let p = pos("W:Wb3:Bc3,d4,h8");
    let mut game = Game::from_position(p);
    let steps = game.legal_steps();
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].to_string(), "b3xd3");
    let before = game.hash();
    assert_eq!(game.play_step(steps[0]).unwrap(), StepResult::InProgress);
    assert_ne!(game.hash(), before);
    let pending = game.pending_capture().unwrap();
    assert_eq!(pending.square(), Square::D3);
    assert_eq!(pending.remaining(), 1);
    assert!(pending.captured().contains(Square::C3));
    // Whole moves are refused in the middle of a capture.
    assert_eq!(
        game.play(&p.legal_moves()[0]),
        Err(PlayError::CaptureInProgress)
    );
    // An illegal step leaves the capture in progress.
    let bad = dama_engine::Step {
        from: Square::D3,
        to: Square::F3,
        captured: Some(Square::E3),
    };
    assert!(game.play_step(bad).is_err());
    assert!(game.pending_capture().is_some());
    let next = game.legal_steps()[0];
    match game.play_step(next).unwrap() {
        StepResult::Completed(m) => assert_eq!(m.to_string(), "b3xd3xd5"),
        other => panic!("{other:?}"),
    }
    assert_eq!(game.turn(), Color::Black);
    assert_eq!(game.moves().len(), 1);
}

#[test]
fn only_maximal_first_jumps_are_offered() {
    // d4 can take c4 then b3 (two) or e4 (one): only the first jump of the
    // two-piece capture is a legal step.
    let game = Game::from_position(pos("B:Wc4,b3,e4:Bd4"));
    let steps: Vec<String> = game.legal_steps().iter().map(|s| s.to_string()).collect();
    assert_eq!(steps, ["d4xb4"]);
}

#[test]
fn position_errors_name_the_problem() {
    let e = "W:Wa2,a2:Bh7".parse::<Position>().unwrap_err();
    assert_eq!(
        e,
        ParsePositionError::Invalid(PositionError::Overlap(Square::A2))
    );
    let e = "W:Wa2:Ba2".parse::<Position>().unwrap_err();
    assert!(e.to_string().contains("a2"), "{e}");
    let e = "W:Wa8:Bh7".parse::<Position>().unwrap_err();
    assert!(matches!(
        e,
        ParsePositionError::Invalid(PositionError::ManOnPromotionRow { .. })
    ));
    assert!(e.to_string().contains("a8"), "{e}");
    assert!("W:WKa8:Bh7".parse::<Position>().is_ok());
    let e = "B:Wh1:Bd1".parse::<Position>().unwrap_err();
    assert!(e.to_string().contains("d1"), "{e}");
    let e = "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3,e3,f3,g3,h3,a4:Bh7"
        .parse::<Position>()
        .unwrap_err();
    assert!(matches!(
        e,
        ParsePositionError::Invalid(PositionError::TooManyPieces { count: 17, .. })
    ));
    let e = "W:Wa2;b2:Bh7".parse::<Position>().unwrap_err();
    assert!(e.to_string().contains("';'"), "{e}");
    let e = "W:Wa9:Bh7".parse::<Position>().unwrap_err();
    assert!(e.to_string().contains("a9"), "{e}");
    let e = "X:Wa2:Bh7".parse::<Position>().unwrap_err();
    assert!(e.to_string().contains('X'), "{e}");
    assert_eq!(
        "".parse::<Position>().unwrap_err(),
        ParsePositionError::Empty
    );
    assert!("W:Wa2".parse::<Position>().is_err());
    assert!("W:Wa2:Wb2".parse::<Position>().is_err());
    // Whitespace and the empty side are fine.
    let p = pos(" W : W a2 , Kd4 : B ");
    assert_eq!(p.to_string(), "W:Wa2,Kd4:B");
    assert_eq!(pos("startpos"), Position::startpos());
}

#[test]
fn move_errors_name_the_problem() {
    let p = Position::startpos();
    let e = p.parse_move("d3-d9").unwrap_err();
    assert!(matches!(e, ParseMoveError::BadSquare { .. }), "{e}");
    assert!(e.to_string().contains("d9"), "{e}");
    let e = p.parse_move("d3+d4").unwrap_err();
    assert!(e.to_string().contains("'+'"), "{e}");
    let e = p.parse_move("d4-d5").unwrap_err();
    assert!(e.to_string().contains("no piece on d4"), "{e}");
    let e = p.parse_move("d6-d5").unwrap_err();
    assert!(e.to_string().contains("not white's"), "{e}");
    let e = p.parse_move("d3-d5").unwrap_err();
    assert!(matches!(e, ParseMoveError::Illegal { .. }), "{e}");
    let e = p.parse_move("d3xd5").unwrap_err();
    assert!(e.to_string().contains("no capture"), "{e}");
    assert_eq!(p.parse_move("").unwrap_err(), ParseMoveError::Empty);
    // Capture is mandatory.
    let c = pos("W:Wd4,a2:Bd5");
    let e = c.parse_move("a2-a3").unwrap_err();
    assert!(e.to_string().contains("mandatory"), "{e}");
    // Short form: ambiguous when two captures share from and to.
    let amb = pos("W:WKd4:Bd6,b7,f7,c8,e8");
    let shorts: Vec<_> = amb
        .legal_moves()
        .iter()
        .map(|m| (m.from(), m.to()))
        .collect();
    let dup = shorts
        .iter()
        .find(|x| shorts.iter().filter(|y| y == x).count() > 1);
    if let Some((f, t)) = dup {
        let e = amb.parse_move(&format!("{f}x{t}")).unwrap_err();
        assert!(matches!(e, ParseMoveError::Ambiguous { .. }), "{e}");
    }
    // Crowning mark.
    let q = pos("W:Wc7:Bh7");
    assert!(q.parse_move("c7-c8=K").unwrap().promotes());
    assert!(q.parse_move("c7-b7=K").is_err());
}

#[test]
fn move_paths_and_steps() {
    let p = pos("W:Wb3:Bc3,d4");
    let m = p.parse_move("b3xd3xd5").unwrap();
    assert_eq!(m.path().as_slice(), &[Square::D3, Square::D5]);
    let steps = m.steps();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].captured, Some(Square::C3));
    assert_eq!(steps[1].captured, Some(Square::D4));
    assert_eq!(format!("{m:?}"), "Move(b3xd3xd5)");
}

#[test]
fn game_record_reads_and_writes() {
    let text = "[Event \"test\"]\n1. d3-d4 d6-d5 2. d4xd6xd8 {crowned} c7-d7 *\n";
    let rec: GameRecord = text.parse().unwrap();
    assert_eq!(rec.tags, [("Event".to_owned(), "test".to_owned())]);
    assert_eq!(rec.game.moves().len(), 4);
    assert_eq!(rec.result, None);
    let out = rec.to_string();
    assert!(out.contains("1. d3-d4 d6-d5\n2. d4xd6xd8"), "{out}");
    // A start position tag and Black to move first.
    let text = "[Position \"B:Wa2,b2:Bg7,h7\"]\n1... h7-h6 2. a2-a3 1-0";
    let rec: GameRecord = text.parse().unwrap();
    assert_eq!(
        rec.result,
        Some(Outcome::Decisive {
            winner: Color::White
        })
    );
    let out = rec.to_string();
    assert!(
        out.starts_with("[Position \"B:Wa2,b2:Bg7,h7\"]\n1... h7-h6\n2. a2-a3 1-0"),
        "{out}"
    );
    // Errors name the move.
    let e = "1. d3-d4 d6-d6".parse::<GameRecord>().unwrap_err();
    assert!(e.to_string().contains("d6-d6"), "{e}");
    let e = "1. d3-d4 2. d6-d5".parse::<GameRecord>().unwrap_err();
    assert!(e.to_string().contains("2."), "{e}");
    let e = "1. d3-d4 1-0 d6-d5".parse::<GameRecord>().unwrap_err();
    assert!(e.to_string().contains("d6-d5"), "{e}");
    let e = "[Event test]\n1. d3-d4".parse::<GameRecord>().unwrap_err();
    assert!(e.to_string().contains("line 1"), "{e}");
}

/// Issue 19: records written by `dama play` under other rules carry a
/// `[Rules]` tag; the reader replays the moves under those rules.
#[test]
fn records_read_back_under_their_rules_tag() {
    let rules: Rules = "no_capture_limit=off promotion=continue_as_king"
        .parse()
        .unwrap();
    let mut game = Game::with_rules(rules);
    for m in ["d3-d4", "d6-d5"] {
        let mv = game.position().parse_move(m).unwrap();
        game.play(&mv).unwrap();
    }
    let text = GameRecord::from_game(&game).to_string();
    assert!(text.contains("[Rules \""), "{text}");
    let back: GameRecord = text.parse().unwrap();
    assert_eq!(*back.game.rules(), rules);
    assert_eq!(back.game.moves(), game.moves());
    assert_eq!(back.to_string(), text);
    let err = "[Rules \"promotion=sometimes\"]\n*"
        .parse::<GameRecord>()
        .unwrap_err()
        .to_string();
    assert!(err.contains("rules"), "{err}");
}
