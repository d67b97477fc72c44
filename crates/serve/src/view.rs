//! What the API sends: boards, moves, thoughts and game records as JSON.
//!
//! Squares are written in the notation (`c4`), pieces as `W`, `WK`, `B`,
//! `BK`; a move carries its text and its squares, so the front end draws
//! it without knowing the rules.

use dama_bot::Eval;

/// What a bot of the page (Turkish draughts) found.
type Thought = dama_bot::Thought<dama_draughts::Draughts>;
use dama_engine::{Color, Game, Move, Outcome, Position, Role, Square, Termination};
use serde::Serialize;

/// A piece on a square.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PieceView {
    /// The square (`c4`).
    pub square: String,
    /// `W`, `WK`, `B` or `BK`.
    pub piece: &'static str,
}

/// A move with its squares.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MoveView {
    /// The move in notation (`c4xc6xe6`).
    pub text: String,
    /// Where the piece starts.
    pub from: String,
    /// The landing squares in order (one for a quiet move).
    pub path: Vec<String>,
    /// The squares of the captured pieces.
    pub captured: Vec<String>,
    /// Whether a man is crowned.
    pub promotes: bool,
}

impl MoveView {
    /// The view of `m`.
    pub fn of(m: &Move) -> MoveView {
        MoveView {
            text: m.to_string(),
            from: m.from().to_string(),
            path: m.path().iter().map(Square::to_string).collect(),
            captured: m.captured().into_iter().map(|s| s.to_string()).collect(),
            promotes: m.promotes(),
        }
    }
}

/// One legal step (a quiet move or one jump).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct StepView {
    /// From.
    pub from: String,
    /// To.
    pub to: String,
    /// The square jumped, for a jump.
    pub captured: Option<String>,
}

/// A capture half played.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PendingView {
    /// Where the piece started.
    pub origin: String,
    /// Where it stands.
    pub at: String,
    /// Its landing squares so far.
    pub path: Vec<String>,
    /// The pieces taken so far.
    pub captured: Vec<String>,
    /// Jumps still required by the maximum rule.
    pub remaining: u32,
}

fn piece_code(color: Color, role: Role) -> &'static str {
    match (color, role) {
        (Color::White, Role::Man) => "W",
        (Color::White, Role::King) => "WK",
        (Color::Black, Role::Man) => "B",
        (Color::Black, Role::King) => "BK",
    }
}

/// The pieces of a position, in square order.
pub fn board_of(pos: &Position) -> Vec<PieceView> {
    Square::ALL
        .iter()
        .filter_map(|&sq| {
            pos.piece_at(sq).map(|p| PieceView {
                square: sq.to_string(),
                piece: piece_code(p.color, p.role),
            })
        })
        .collect()
}

/// The pieces as they stand in a game, a capture in progress included
/// (the moving piece on its square, the pieces taken gone).
pub fn board_of_game(game: &Game) -> Vec<PieceView> {
    let Some(p) = game.pending_capture() else {
        return board_of(game.position());
    };
    let pos = game.position();
    let mut out = Vec::new();
    for sq in Square::ALL {
        if sq == p.square() {
            let role = if p.captures_as_king() {
                Role::King
            } else {
                p.role()
            };
            out.push(PieceView {
                square: sq.to_string(),
                piece: piece_code(p.color(), role),
            });
            continue;
        }
        if sq == p.origin() || p.captured().contains(sq) {
            continue;
        }
        if let Some(piece) = pos.piece_at(sq) {
            out.push(PieceView {
                square: sq.to_string(),
                piece: piece_code(piece.color, piece.role),
            });
        }
    }
    out
}

/// The legal steps of a game.
pub fn steps_of(game: &Game) -> Vec<StepView> {
    if game.pending_capture().is_none() && game.is_game_over() {
        return Vec::new();
    }
    game.legal_steps()
        .iter()
        .map(|s| StepView {
            from: s.from.to_string(),
            to: s.to.to_string(),
            captured: s.captured.map(|c| c.to_string()),
        })
        .collect()
}

/// The capture in progress.
pub fn pending_of(game: &Game) -> Option<PendingView> {
    game.pending_capture().map(|p| PendingView {
        origin: p.origin().to_string(),
        at: p.square().to_string(),
        path: p.path().iter().map(Square::to_string).collect(),
        captured: p.captured().into_iter().map(|s| s.to_string()).collect(),
        remaining: p.remaining(),
    })
}

/// Why a game ended, in words.
pub fn termination_text(t: Termination) -> &'static str {
    match t {
        Termination::NoPieces => "no pieces left",
        Termination::Blocked => "no legal move",
        Termination::MutualBlock => "neither side can move",
        Termination::OnePieceEach => "one piece each",
        Termination::KingBeatsMan => "a lone king against a lone man",
        Termination::Repetition => "threefold repetition",
        Termination::NoCaptureLimit => "no capture for too long",
    }
}

/// An evaluation for the side to move.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EvalView {
    /// Win − loss, in `[-1, 1]`.
    pub value: f32,
    /// Win, draw, loss.
    pub wdl: [f32; 3],
}

impl EvalView {
    fn of(e: &Eval) -> EvalView {
        EvalView {
            value: e.value,
            wdl: e.wdl,
        }
    }
}

/// A root move of a search.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TopView {
    /// The move.
    #[serde(rename = "move")]
    pub mv: MoveView,
    /// Visits of its first step.
    pub visits: u32,
    /// Share of the root's visits.
    pub share: f32,
    /// The network's prior (or the search's uniform prior).
    pub prior: f32,
    /// Its search value for the side to move.
    pub value: Option<f32>,
}

/// What a bot found about a position.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ThoughtView {
    /// The bot's id.
    pub bot: String,
    /// The move it plays.
    pub best: MoveView,
    /// The search's evaluation for the side to move.
    pub eval: Option<EvalView>,
    /// The network's own evaluation (network bots).
    pub network: Option<EvalView>,
    /// Alpha-beta score in hundredths of a man, for the side to move.
    pub score_cm: Option<i32>,
    /// Alpha-beta depth.
    pub depth: Option<u32>,
    /// The principal variation.
    pub pv: Vec<MoveView>,
    /// The root moves, most visited first.
    pub top: Vec<TopView>,
    /// Simulations or nodes.
    pub nodes: u64,
    /// Thinking time in milliseconds.
    pub time_ms: f64,
    /// The endgame tables' verdict, if they hold the position.
    pub tablebase: Option<String>,
}

impl ThoughtView {
    /// The view of what bot `bot` thought.
    pub fn of(bot: &str, t: &Thought) -> ThoughtView {
        ThoughtView {
            bot: bot.to_owned(),
            best: MoveView::of(&t.best),
            eval: t.eval.as_ref().map(EvalView::of),
            network: t.network.as_ref().map(EvalView::of),
            score_cm: t.score_cm.map(|s| s.0),
            depth: t.score_cm.map(|s| s.1),
            pv: t.pv.iter().map(MoveView::of).collect(),
            top: t
                .top
                .iter()
                .map(|m| TopView {
                    mv: MoveView::of(&m.mv),
                    visits: m.visits,
                    share: m.share,
                    prior: m.prior,
                    value: m.value,
                })
                .collect(),
            nodes: t.nodes,
            time_ms: t.elapsed.as_secs_f64() * 1000.0,
            tablebase: t.tablebase.as_ref().map(dama_bot::describe_tablebase),
        }
    }
}

/// A position of a game being replayed.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FrameView {
    /// Moves played before it.
    pub ply: usize,
    /// The position in text.
    pub position: String,
    /// Its pieces.
    pub board: Vec<PieceView>,
    /// The side to move (`white`, `black`).
    pub turn: String,
    /// The move that led to it.
    pub last: Option<MoveView>,
}

/// Every position of `game`, from its start.
pub fn frames_of(game: &Game) -> Vec<FrameView> {
    let mut pos = *game.start_position();
    let mut out = Vec::with_capacity(game.moves().len() + 1);
    out.push(FrameView {
        ply: 0,
        position: pos.to_string(),
        board: board_of(&pos),
        turn: pos.turn().to_string(),
        last: None,
    });
    for (i, m) in game.moves().iter().enumerate() {
        pos.play_unchecked(m);
        out.push(FrameView {
            ply: i + 1,
            position: pos.to_string(),
            board: board_of(&pos),
            turn: pos.turn().to_string(),
            last: Some(MoveView::of(m)),
        });
    }
    out
}

/// The result token of an outcome.
pub fn result_text(o: Option<Outcome>) -> &'static str {
    o.map_or("*", Outcome::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capture_in_progress_shows_the_piece_moved_and_the_taken_gone() {
        let pos: Position = "W:Wc4:Bc5,d6,h8".parse().unwrap();
        let mut game = Game::from_position(pos);
        let first = game.legal_steps()[0];
        game.play_step(first).unwrap();
        let board = board_of_game(&game);
        let squares: Vec<(&str, &str)> =
            board.iter().map(|p| (p.square.as_str(), p.piece)).collect();
        assert_eq!(squares, [("c6", "W"), ("d6", "B"), ("h8", "B")]);
        let pending = pending_of(&game).unwrap();
        assert_eq!(pending.remaining, 1);
        assert_eq!(steps_of(&game).len(), 1);
    }
}
