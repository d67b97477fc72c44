//! Tactical test positions for the alpha-beta engine (issue 7).
//!
//! Each position is checked two ways: the engine must find the move, and a
//! plain minimax over material (no pruning, no tables, written here) must
//! agree that the move wins material, so the positions are known to be right
//! independently of the engine.

use dama_draughts::alphabeta::{material, MATE_BOUND};
use dama_draughts::{AlphaBeta, AlphaBetaPlayer, SearchLimits};
use dama_engine::{Game, Position};
use dama_eval::{AlphaBetaLimit, Player};
use rand::SeedableRng;

/// Material minimax for the side to move, extended while captures are
/// forced; a side with no move loses everything.
fn minimax(pos: &Position, depth: u32) -> i32 {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return -100_000;
    }
    if depth == 0 && !moves[0].is_capture() {
        return material(pos);
    }
    moves
        .iter()
        .map(|m| {
            let mut p = *pos;
            p.play_unchecked(m);
            -minimax(&p, depth.saturating_sub(1))
        })
        .max()
        .expect("at least one move")
}

fn best(fen: &str, depth: u32) -> (String, i32) {
    let pos: Position = fen.parse().expect("valid position");
    let mut engine = AlphaBeta::new(4);
    let r = engine.search(&pos, &[], SearchLimits::depth(depth));
    (r.best.expect("a move").to_string(), r.score)
}

/// White sacrifices the man on e7; Black's only move is c7xe7, which opens
/// the e-file; the king then takes five pieces in one flying capture
/// (e8xe5xa5xa7xh7xh1) and Black has nothing left.
///
/// ```text
///   8 . . . . K . . .
///   7 . b b . w . . .
///   6 b . . . . . . b
///   5 . . b . . . . .
///   4 . . . . . . . .
///   3 . . . . . . . .
///   2 w . . . . . . .
///   1 . . . . . . . .
///     a b c d e f g h
/// ```
#[test]
fn finds_a_sacrifice_then_a_five_piece_flying_capture() {
    let fen = "W:Wa2,e7,Ke8:Bc5,a6,b7,c7,h6";
    let pos: Position = fen.parse().unwrap();
    let m = pos.parse_move("e7-d7").unwrap();
    let mut after = pos;
    after.play_unchecked(&m);
    let replies = after.legal_moves();
    assert_eq!(replies.len(), 1, "the sacrifice must be taken");
    assert_eq!(replies[0].to_string(), "c7xe7");
    // Every other first move is worse by plain minimax.
    let value = |mv: &dama_engine::Move| {
        let mut p = pos;
        p.play_unchecked(mv);
        -minimax(&p, 3)
    };
    let sac = value(&m);
    assert!(sac > 50_000, "wins everything: {sac}");
    for other in pos.legal_moves().iter().filter(|x| **x != m) {
        assert!(value(other) < sac, "{other}");
    }
    for depth in [1, 3, 5] {
        let (mv, score) = best(fen, depth);
        assert_eq!(mv, "e7-d7", "depth {depth}");
        assert!(score > MATE_BOUND, "depth {depth}: {score}");
    }
}

/// The maximum-capture rule forces a losing capture: after b5-c5 Black
/// could take g5 safely (h5xf5) but must take two (c6xc4xc2), which opens
/// the second rank to the king: a2xe2xe7xh7xh1 takes four.
///
/// ```text
///   8 . . . . . . . .
///   7 . . . . . . b .
///   6 . . b . . . . .
///   5 . w . . b . w b
///   4 . . . . . . . .
///   3 . . w . . . . .
///   2 K . . . . . . .
///   1 . . . . . . . .
///     a b c d e f g h
/// ```
#[test]
fn exploits_a_capture_forced_by_the_maximum_rule() {
    let fen = MAX_RULE_FEN;
    let pos: Position = fen.parse().unwrap();
    let m = pos.parse_move(MAX_RULE_MOVE).unwrap();
    let mut after = pos;
    after.play_unchecked(&m);
    let replies = after.legal_moves();
    assert!(
        replies.iter().all(|r| r.capture_count() >= 2),
        "the maximum rule forces a multiple capture: {replies:?}"
    );
    assert!(
        has_single_jump(&after),
        "a one-piece capture exists but is not allowed"
    );
    let value = |mv: &dama_engine::Move| {
        let mut p = pos;
        p.play_unchecked(mv);
        -minimax(&p, 3)
    };
    let gain = value(&m) - material(&pos);
    assert!(gain >= 100, "the combination wins material: {gain}");
    for other in pos.legal_moves().iter().filter(|x| **x != m) {
        assert!(value(other) < value(&m), "{other}");
    }
    for depth in [3, 5] {
        let (mv, _) = best(fen, depth);
        assert_eq!(mv, MAX_RULE_MOVE, "depth {depth}");
    }
}

const MAX_RULE_FEN: &str = "W:WKa2,c3,b5,g5:Bc6,e5,g7,h5";
const MAX_RULE_MOVE: &str = "b5-c5";

/// Whether any piece of the side to move could jump exactly one adjacent
/// man (forward or sideways) onto an empty square: a capture the rules would
/// allow if it were the longest.
fn has_single_jump(pos: &Position) -> bool {
    let us = pos.us();
    let them = pos.them();
    let occupied = pos.occupied();
    let black = pos.turn() == dama_engine::Color::Black;
    for from in us - pos.kings() {
        let (f, r) = (from.file() as i8, from.rank() as i8);
        let fwd = if black { -1 } else { 1 };
        for (df, dr) in [(0, fwd), (1, 0), (-1, 0)] {
            let over = dama_engine::Square::from_coords((f + df) as u8, (r + dr) as u8);
            let to = dama_engine::Square::from_coords((f + 2 * df) as u8, (r + 2 * dr) as u8);
            if let (Some(over), Some(to)) = (over, to) {
                if (0..8).contains(&(f + 2 * df))
                    && (0..8).contains(&(r + 2 * dr))
                    && them.contains(over)
                    && !occupied.contains(to)
                {
                    return true;
                }
            }
        }
    }
    false
}

/// Through the [`Player`] interface, with the game's history.
#[test]
fn player_interface_finds_the_combination() {
    let game = Game::from_position("W:Wa2,e7,Ke8:Bc5,a6,b7,c7,h6".parse().unwrap());
    let mut p = AlphaBetaPlayer::new("ab", AlphaBetaLimit::Depth(3), 1);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let m = p.choose(&game, &mut rng).unwrap();
    assert_eq!(m.to_string(), "e7-d7");
    let report = p.last_report().unwrap();
    assert!(report.nodes > 0 && report.depth >= 1);
}

/// A lone king against a lone man is a draw by rule: the engine must not
/// think it is winning.
#[test]
fn one_piece_each_is_a_draw() {
    let (_, score) = best("W:WKd4:Ba7,h7", 6);
    // Two black men against a king: capturing one leaves one each (draw).
    assert!(score.abs() < MATE_BOUND, "{score}");
}

/// Timed search reaches some depth and respects the budget.
#[test]
fn timed_search_respects_its_budget() {
    let mut engine = AlphaBeta::new(4);
    let r = engine.search(
        &Position::startpos(),
        &[],
        SearchLimits::time(std::time::Duration::from_millis(50)),
    );
    assert!(r.depth >= 3, "{}", r.depth);
    assert!(r.elapsed.as_millis() < 500, "{:?}", r.elapsed);
    assert!(r.best.is_some());
    assert!(!r.pv.is_empty());
}

/// Plain negamax with the same rules, extensions and evaluation as the
/// engine but no pruning, no table and no move ordering.
fn reference(pos: &Position, depth: i32, ply: i32, path: &mut Vec<u64>) -> i32 {
    use dama_draughts::alphabeta::{evaluate, MATE};
    if let Some(limit) = pos.rules().no_capture_limit {
        if pos.plies_since_capture() >= limit {
            return 0;
        }
    }
    if pos.us().count() == 1 && pos.them().count() == 1 {
        return 0;
    }
    let reversible = usize::from(pos.plies_since_capture());
    if reversible >= 4
        && path
            .iter()
            .rev()
            .take(reversible)
            .skip(1)
            .step_by(2)
            .any(|&h| h == pos.hash())
    {
        return 0;
    }
    if ply >= 127 {
        return evaluate(pos);
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return match pos.outcome().and_then(|o| o.winner()) {
            None if pos.outcome().is_some() => 0,
            Some(w) if w == pos.turn() => MATE - ply,
            _ => -MATE + ply,
        };
    }
    if depth <= 0 && !moves[0].is_capture() {
        return evaluate(pos);
    }
    let child_depth = if moves.len() == 1 { depth } else { depth - 1 }.max(0);
    path.push(pos.hash());
    let best = moves
        .iter()
        .map(|m| {
            let mut p = *pos;
            p.play_unchecked(m);
            -reference(&p, child_depth, ply + 1, path)
        })
        .max()
        .expect("at least one move");
    path.pop();
    best
}

/// Pruning, the table, ordering, the null-window re-searches and the
/// root's aspiration windows (from depth 4) change nothing: without
/// late-move reductions, ProbCut and the pruning (which search some moves
/// shallower, or not at all, by design) the engine's score equals plain
/// negamax on random positions; with them, it still does at depth 1, where
/// none of them acts (reverse futility and late-move pruning act at the
/// root's children of a depth-2 search already).
#[test]
fn alphabeta_score_equals_plain_negamax() {
    use rand::Rng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
    let mut checked = 0;
    while checked < 40 {
        let mut game = Game::new();
        let plies = rng.gen_range(4..60);
        for _ in 0..plies {
            if game.outcome().is_some() {
                break;
            }
            let moves = game.legal_moves();
            let m = moves[rng.gen_range(0..moves.len())];
            game.play_unchecked(&m);
        }
        if game.outcome().is_some() {
            continue;
        }
        // The engine only sees the position, so start the counters afresh.
        let pos = game.position().with_counters(0, 0);
        if pos.legal_moves().len() < 2 {
            continue;
        }
        for depth in 1..=4 {
            let want = reference(&pos, depth as i32, 0, &mut Vec::new());
            let mut exact = AlphaBeta::new(1).with_reductions(false);
            let r = exact.search(&pos, &[], SearchLimits::depth(depth));
            assert_eq!(r.score, want, "{pos} depth {depth}");
            if depth < 2 {
                let r = AlphaBeta::new(1).search(&pos, &[], SearchLimits::depth(depth));
                assert_eq!(r.score, want, "{pos} depth {depth}, reductions on");
            }
        }
        checked += 1;
    }
}
