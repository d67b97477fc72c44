//! What the API sends: boards, moves, thoughts and game records as JSON,
//! written once for every game ([`GameDef`]).
//!
//! Squares are written by name (`c4`, Tafl's `b3`), pieces as `W`, `WK`,
//! `B`, `BK` (`W` the first side of the game's geometry, `B` the second,
//! `K` a king); a move carries its text and its squares, and a view carries
//! the board's geometry (its size, every square's name, the sides' names),
//! so the front end draws any game without knowing its rules.

use dama_game::{GameDef, MoveSquares, Piece, PieceKind};
use dama_mcts::{Game as SearchGame, Outcome, Player};
use serde::Serialize;

use crate::adapter::{Eval, Thought};

/// The name written for a landing off the board (a Tafl King's exit).
pub const OFF: &str = "off";

/// One side of a game.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct SideView {
    /// Its name in sentences (`White`, `Defenders`).
    pub name: &'static str,
    /// Its name in requests and views (`white`, `defender`).
    pub key: &'static str,
}

/// A game's board and sides, for drawing.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GeometryView {
    /// The game's name (`draughts`, `tafl`).
    pub game: &'static str,
    /// The game's name in sentences.
    pub title: &'static str,
    /// Columns.
    pub width: u8,
    /// Rows.
    pub height: u8,
    /// Every square's name, row-major from the top-left corner as the
    /// first side sees the board.
    pub squares: Vec<String>,
    /// The two sides: the first (pieces `W…`), then the second (`B…`).
    pub sides: [SideView; 2],
}

/// The geometry of game `G`.
pub fn geometry_of<G: GameDef>() -> GeometryView {
    let g = G::geometry();
    let cells = usize::from(g.width) * usize::from(g.height);
    GeometryView {
        game: G::NAME,
        title: G::TITLE,
        width: g.width,
        height: g.height,
        squares: (0..cells).map(G::square_name).collect(),
        sides: g.sides.map(|s| SideView {
            name: s.name,
            key: s.key,
        }),
    }
}

/// The key of a side (`white`, `defender`).
pub fn side_key<G: GameDef>(p: Player) -> &'static str {
    let sides = G::geometry().sides;
    match p {
        Player::First => sides[0].key,
        Player::Second => sides[1].key,
    }
}

/// The name of a side in sentences (`White`, `Defenders`).
pub fn side_name<G: GameDef>(p: Player) -> &'static str {
    let sides = G::geometry().sides;
    match p {
        Player::First => sides[0].name,
        Player::Second => sides[1].name,
    }
}

/// The name of a cell, or [`OFF`] for a landing off the board.
pub fn name_of<G: GameDef>(cell: Option<usize>) -> String {
    cell.map_or_else(|| OFF.to_owned(), G::square_name)
}

/// A piece on a square.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct PieceView {
    /// The square (`c4`).
    pub square: String,
    /// `W`, `WK`, `B` or `BK`.
    pub piece: &'static str,
}

fn piece_code(p: Piece) -> &'static str {
    match (p.side, p.kind) {
        (Player::First, PieceKind::Man) => "W",
        (Player::First, PieceKind::King) => "WK",
        (Player::Second, PieceKind::Man) => "B",
        (Player::Second, PieceKind::King) => "BK",
    }
}

/// The pieces of a search state (mid-turn as it stands), in cell order.
pub fn board_of_state<G: GameDef>(state: &G::State) -> Vec<PieceView> {
    G::board(state)
        .into_iter()
        .enumerate()
        .filter_map(|(cell, p)| {
            p.map(|p| PieceView {
                square: G::square_name(cell),
                piece: piece_code(p),
            })
        })
        .collect()
}

/// The pieces of a game.
pub fn board_of<G: GameDef>(game: &G::Game) -> Vec<PieceView> {
    board_of_state::<G>(&G::search_state(game))
}

/// A move with its squares.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MoveView {
    /// The move in notation (`c4xc6xe6`).
    pub text: String,
    /// Where the piece starts.
    pub from: String,
    /// The landing squares in order (one for a quiet move; `off` for a
    /// landing off the board).
    pub path: Vec<String>,
    /// The squares of the captured pieces.
    pub captured: Vec<String>,
    /// Whether a man is crowned (known where the position before the move
    /// is: a game's last move, a replay's moves).
    pub promotes: bool,
}

impl MoveView {
    /// The view of `m`.
    pub fn of<G: GameDef>(m: &G::Move) -> MoveView {
        let MoveSquares {
            from,
            path,
            captured,
        } = G::move_squares(m);
        MoveView {
            text: m.to_string(),
            from: G::square_name(from),
            path: path.into_iter().map(name_of::<G>).collect(),
            captured: captured.into_iter().map(G::square_name).collect(),
            promotes: false,
        }
    }

    /// The view of `m`, played from `before`: whether it crowns a man is
    /// read off the boards before and after.
    pub fn played<G: GameDef>(before: &G::Game, after: &G::Game, m: &G::Move) -> MoveView {
        let mut view = MoveView::of::<G>(m);
        let sq = G::move_squares(m);
        let was = G::board(&G::search_state(before))
            .get(sq.from)
            .copied()
            .flatten();
        let end = sq.path.last().copied().flatten();
        let now = end.and_then(|c| G::board(&G::search_state(after)).get(c).copied().flatten());
        view.promotes = matches!(
            (was, now),
            (
                Some(Piece {
                    kind: PieceKind::Man,
                    ..
                }),
                Some(Piece {
                    kind: PieceKind::King,
                    ..
                })
            )
        );
        view
    }
}

/// One legal step (a quiet move, one jump, or the end of a chain: `to`
/// equal to `from`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct StepView {
    /// From.
    pub from: String,
    /// To (`off` off the board).
    pub to: String,
    /// The square jumped, for a capture.
    pub captured: Option<String>,
}

/// The legal decisions of a state, as steps (in the state's order, each
/// once).
pub fn steps_of<G: GameDef>(state: &G::State) -> Vec<StepView> {
    let mut actions = Vec::new();
    state.legal_actions(&mut actions);
    let mut out: Vec<StepView> = Vec::with_capacity(actions.len());
    for a in &actions {
        let d = G::decision_squares(state, a);
        let view = StepView {
            from: G::square_name(d.from),
            to: name_of::<G>(d.to),
            captured: d.captured.map(G::square_name),
        };
        if !out.contains(&view) {
            out.push(view);
        }
    }
    out
}

/// A move half played (a capture or chain decided step by step).
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
    /// The fewest steps that complete the move (jumps still required by a
    /// maximum-capture rule).
    pub remaining: u32,
}

/// Why a game ended, in words: the game's own word for it (`NoPieces`,
/// `KingEscaped`) spelt out (`no pieces`, `king escaped`).
pub fn termination_text(t: &str) -> String {
    let mut out = String::with_capacity(t.len() + 4);
    for (i, c) in t.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push(' ');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
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
    pub fn of<G: GameDef>(bot: &str, t: &Thought<G::Move>) -> ThoughtView {
        ThoughtView {
            bot: bot.to_owned(),
            best: MoveView::of::<G>(&t.best),
            eval: t.eval.as_ref().map(EvalView::of),
            network: t.network.as_ref().map(EvalView::of),
            score_cm: t.score.map(|s| s.0),
            depth: t.score.map(|s| s.1),
            pv: t.pv.iter().map(MoveView::of::<G>).collect(),
            top: t
                .top
                .iter()
                .map(|m| TopView {
                    mv: MoveView::of::<G>(&m.mv),
                    visits: m.visits,
                    share: m.share,
                    prior: m.prior,
                    value: m.value,
                })
                .collect(),
            nodes: t.nodes,
            time_ms: t.elapsed.as_secs_f64() * 1000.0,
            tablebase: t.tablebase.clone(),
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
    /// The side to move (`white`, `black`; `defender`, `king_side`).
    pub turn: String,
    /// The move that led to it.
    pub last: Option<MoveView>,
}

/// Every position of `game`, from its start.
///
/// # Errors
///
/// The game's words if its start or a move cannot be replayed (a bug).
pub fn frames_of<G: GameDef>(game: &G::Game) -> Result<Vec<FrameView>, String> {
    let mut g = G::parse_position(&G::rules(game), &G::start_text(game))
        .map_err(|e| format!("the game's start cannot be read: {e}"))?;
    let frame = |g: &G::Game, ply, last| FrameView {
        ply,
        position: G::position_text(g),
        board: board_of::<G>(g),
        turn: side_key::<G>(G::to_play(g)).to_owned(),
        last,
    };
    let mut out = Vec::with_capacity(G::plies(game) + 1);
    out.push(frame(&g, 0, None));
    for (i, m) in G::history(game).iter().enumerate() {
        let before = g.clone();
        G::play(&mut g, m).map_err(|e| format!("the game's move `{m}` cannot be replayed: {e}"))?;
        out.push(frame(
            &g,
            i + 1,
            Some(MoveView::played::<G>(&before, &g, m)),
        ));
    }
    Ok(out)
}

/// The result token of an outcome: `1-0` (the first side won), `0-1`,
/// `1/2-1/2`, `*` (not over).
pub fn result_text(o: Option<Outcome>) -> &'static str {
    match o {
        None => "*",
        Some(Outcome::Win(Player::First)) => "1-0",
        Some(Outcome::Win(Player::Second)) => "0-1",
        Some(Outcome::Draw) => "1/2-1/2",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_draughts::Draughts;
    use dama_tafl::Tafl;

    #[test]
    fn a_capture_in_progress_shows_the_piece_moved_and_the_taken_gone() {
        let game = Draughts::parse_position(&Default::default(), "W:Wc4:Bc5,d6,h8").unwrap();
        let mut state = Draughts::search_state(&game);
        let mut actions = Vec::new();
        state.legal_actions(&mut actions);
        state.apply(actions[0]);
        let board = board_of_state::<Draughts>(&state);
        let mut squares: Vec<(&str, &str)> =
            board.iter().map(|p| (p.square.as_str(), p.piece)).collect();
        squares.sort_unstable();
        assert_eq!(squares, [("c6", "W"), ("d6", "B"), ("h8", "B")]);
        assert_eq!(steps_of::<Draughts>(&state).len(), 1);
    }

    #[test]
    fn geometries_name_every_square_once() {
        let d = geometry_of::<Draughts>();
        assert_eq!((d.width, d.height, d.squares.len()), (8, 8, 64));
        assert_eq!(
            (d.squares[0].as_str(), d.squares[63].as_str()),
            ("a8", "h1")
        );
        let t = geometry_of::<Tafl>();
        assert_eq!((t.width, t.height, t.squares.len()), (8, 4, 32));
        let mut names = t.squares.clone();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 32);
        assert_eq!(t.sides[0].key, "defender");
        assert_eq!(
            board_of::<Tafl>(&Tafl::start(&Default::default())).len(),
            23
        );
        assert_eq!(termination_text("KingEscaped"), "king escaped");
    }
}
