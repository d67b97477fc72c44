//! Turkish Tafl behind the game seam: [`Tafl`] implements
//! [`dama_game::GameDef`].

use dama_game::{
    DecisionSquares, GameDef, GameError, Geometry, IncompleteTurn, MoveSquares, Piece, PieceKind,
    SideInfo,
};
use dama_mcts::{Outcome, Player};

use crate::search::{player, TaflState};
use crate::{Game, Move, MoveKind, Position, Square, Step, TaflRules};

/// Turkish Tafl, as every layer above the rules sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tafl;

impl GameDef for Tafl {
    const NAME: &'static str = "tafl";
    const TITLE: &'static str = "Turkish Tafl";
    const ENCODING_VERSION: u32 = crate::encode::TAFL_ENCODING_VERSION;

    type Rules = TaflRules;
    type Game = Game;
    type Move = Move;
    type State = TaflState;
    type Tables = ();

    fn start(rules: &TaflRules) -> Game {
        Game::new(*rules)
    }

    fn rules(game: &Game) -> TaflRules {
        *game.rules()
    }

    fn parse_rules(text: &str) -> Result<TaflRules, GameError> {
        Ok(text.parse::<TaflRules>()?)
    }

    fn to_play(game: &Game) -> Player {
        player(game.turn())
    }

    fn outcome(game: &Game) -> Option<Outcome> {
        let o = game.outcome()?;
        Some(match o.winner {
            Some(s) => Outcome::Win(player(s)),
            None => Outcome::Draw,
        })
    }

    fn plies(game: &Game) -> usize {
        game.moves().len()
    }

    fn legal_moves(game: &Game) -> Vec<Move> {
        game.legal_moves()
    }

    fn play(game: &mut Game, mv: &Move) -> Result<(), GameError> {
        Ok(game.play(mv)?)
    }

    fn parse_move(game: &Game, text: &str) -> Result<Move, GameError> {
        Ok(game.parse_move(text)?)
    }

    fn position_text(game: &Game) -> String {
        game.position().to_string()
    }

    /// `startpos` is the start under `rules` (whichever side they let move
    /// first).
    fn parse_position(rules: &TaflRules, text: &str) -> Result<Game, GameError> {
        if text.trim() == "startpos" {
            return Ok(Game::new(*rules));
        }
        let position: Position = text.parse()?;
        Ok(Game::from_position(position, *rules))
    }

    fn search_state(game: &Game) -> TaflState {
        TaflState::new(game.clone())
    }

    fn game_of(state: &TaflState) -> &Game {
        state.game()
    }

    fn start_text(game: &Game) -> String {
        game.start_position().to_string()
    }

    fn history(game: &Game) -> &[Move] {
        game.moves()
    }

    fn termination(game: &Game) -> Option<String> {
        Some(format!("{:?}", game.outcome()?.termination))
    }

    fn complete_turn(game: &Game, decisions: &[Step]) -> Result<Move, GameError> {
        let mut g = game.clone();
        let before = g.moves().len();
        for &step in decisions {
            g.play_step(step)?;
        }
        if g.moves().len() != before + 1 {
            return Err(IncompleteTurn.into());
        }
        Ok(g.moves()[before].clone())
    }

    fn perft(game: &Game, depth: u32) -> u64 {
        crate::perft(game, depth)
    }

    fn geometry() -> Geometry {
        Geometry {
            width: crate::COLUMNS,
            height: crate::ROWS,
            sides: [
                SideInfo {
                    name: "Defenders",
                    key: "defender",
                },
                SideInfo {
                    name: "King side",
                    key: "king_side",
                },
            ],
        }
    }

    fn tournament() -> Option<dama_game::TournamentPoints<Self>> {
        Some(|game| crate::tournament_score(game).map(|(_, points)| points))
    }

    fn encoding_notes() -> &'static str {
        "- The board is never turned (`crates/tafl/src/encode.rs`; `dama_py/tafl.py`, its Python port): plane row = column 1..8, plane column = row A..D.\n\
         - Planes: 0 King-side men, 1 the King, 2 Defender men, 3 Defender Kings, 4 ones if the King side is to move, 5 the piece continuing a chain, 6 ones during a friendly chain, 7 squares a friendly chain has landed on, 8 pieces captured so far in the chain, 9 repetition, 10 plies / limit, 11 ones.\n\
         - Policy index `plane · 32 + square` (square = 4 · column + row; planes 0–3 slide Up, Down, Right, Left, 4–7 jump in those directions, 8 stop a friendly chain)."
    }

    /// Columns 1 to 8 from left to right (the King side moves right, the
    /// Defenders left), rows A to D from the top: cell `(x, y)` is row `y`,
    /// column `x + 1`.
    fn square_name(cell: usize) -> String {
        square_of(cell).map_or_else(String::new, |sq| sq.to_string())
    }

    /// The position (a chain in progress is played on it as it goes).
    fn board(state: &TaflState) -> Vec<Option<Piece>> {
        let pos = state.game().position();
        let cells = usize::from(crate::COLUMNS) * usize::from(crate::ROWS);
        (0..cells)
            .map(|cell| {
                let sq = square_of(cell)?;
                let (side, kind) = if sq == pos.king {
                    (crate::Side::KingSide, PieceKind::King)
                } else if pos.black_men.contains(sq) {
                    (crate::Side::KingSide, PieceKind::Man)
                } else if pos.white_men.contains(sq) {
                    (crate::Side::Defender, PieceKind::Man)
                } else if pos.white_kings.contains(sq) {
                    (crate::Side::Defender, PieceKind::King)
                } else {
                    return None;
                };
                Some(Piece {
                    side: player(side),
                    kind,
                })
            })
            .collect()
    }

    fn decision_squares(state: &TaflState, step: &Step) -> DecisionSquares {
        match *step {
            Step::Slide { from, dir } => DecisionSquares {
                from: cell_of(from),
                to: from.step(dir).map(cell_of),
                captured: None,
            },
            Step::Jump { from, dir } => {
                let over = from.step(dir);
                let mover = state.game().position().turn;
                let enemy =
                    over.filter(|&sq| state.game().position().pieces(mover.other()).contains(sq));
                DecisionSquares {
                    from: cell_of(from),
                    to: over.and_then(|sq| sq.step(dir)).map(cell_of),
                    captured: enemy.map(cell_of),
                }
            }
            Step::Stop { at } => DecisionSquares {
                from: cell_of(at),
                to: Some(cell_of(at)),
                captured: None,
            },
        }
    }

    fn move_squares(mv: &Move) -> MoveSquares {
        let mut path: Vec<Option<usize>> = mv.path.iter().map(|&sq| Some(cell_of(sq))).collect();
        if mv.exit {
            path.push(None);
        }
        MoveSquares {
            from: cell_of(mv.from),
            path,
            captured: if mv.kind == MoveKind::Capture {
                mv.captured.into_iter().map(cell_of).collect()
            } else {
                Vec::new()
            },
        }
    }

    fn mirror_planes(src: &[f32], dst: &mut [f32]) {
        crate::encode::mirror_planes(src, dst);
    }

    fn mirror_policy_index(index: usize) -> usize {
        crate::encode::mirror_policy_index(index)
    }
}

/// The square drawn at `cell`: row `y`, column `x + 1`.
fn square_of(cell: usize) -> Option<Square> {
    let columns = usize::from(crate::COLUMNS);
    let (x, y) = (cell % columns, cell / columns);
    Square::at(u8::try_from(y).ok()?, u8::try_from(x).ok()?)
}

/// The cell a square is drawn at.
fn cell_of(sq: Square) -> usize {
    usize::from(sq.row()) * usize::from(crate::COLUMNS) + usize::from(sq.column())
}
