//! Mini Turkish draughts behind the game seam: [`MiniDama`] implements
//! [`GameDef`].

use dama_game::{
    DecisionSquares, Ending, GameDef, GameError, Geometry, IncompleteTurn, MoveSquares, Piece,
    PieceKind, SideInfo,
};
use dama_mcts::{Game as _, Outcome, Player};

use crate::game::player;
use crate::{Game, MiniRules, MiniState, Move, Position, Square, Step, SIDE};

/// Mini Turkish draughts (6 × 6), as every layer above the rules sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MiniDama;

impl GameDef for MiniDama {
    const NAME: &'static str = "minidama";
    const TITLE: &'static str = "Mini Turkish draughts (6×6)";
    const ENCODING_VERSION: u32 = crate::ENCODING_VERSION;

    type Rules = MiniRules;
    type Game = Game;
    type Move = Move;
    type State = MiniState;
    type Tables = ();

    fn start(rules: &MiniRules) -> Game {
        Game::new(*rules)
    }

    fn rules(game: &Game) -> MiniRules {
        *game.rules()
    }

    fn parse_rules(text: &str) -> Result<MiniRules, GameError> {
        Ok(text.parse::<MiniRules>()?)
    }

    fn to_play(game: &Game) -> Player {
        player(game.turn())
    }

    fn outcome(game: &Game) -> Option<Outcome> {
        game.outcome()
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

    fn parse_position(rules: &MiniRules, text: &str) -> Result<Game, GameError> {
        if text.trim() == "startpos" {
            return Ok(Game::new(*rules));
        }
        Ok(Game::from_position(*rules, text.parse::<Position>()?))
    }

    fn search_state(game: &Game) -> MiniState {
        MiniState::new(game.clone())
    }

    fn game_of(state: &MiniState) -> &Game {
        state.game()
    }

    fn start_text(game: &Game) -> String {
        game.start().to_string()
    }

    fn history(game: &Game) -> &[Move] {
        game.moves()
    }

    fn ending(game: &Game) -> Option<Ending> {
        game.termination()
            .map(|(_, reason, why)| Ending::new(reason, why))
    }

    fn complete_turn(game: &Game, decisions: &[Step]) -> Result<Move, GameError> {
        let mut state = MiniState::new(game.clone());
        let mut legal = Vec::new();
        for (i, &step) in decisions.iter().enumerate() {
            legal.clear();
            state.legal_actions(&mut legal);
            if !legal.contains(&step) || (i > 0 && state.steps().is_empty()) {
                return Err(IncompleteTurn.into());
            }
            state.apply(step);
        }
        match (state.steps().is_empty(), state.game().moves().last()) {
            (true, Some(m)) if state.game().moves().len() == game.moves().len() + 1 => {
                Ok(m.clone())
            }
            _ => Err(IncompleteTurn.into()),
        }
    }

    fn geometry() -> Geometry {
        let side = |name, key| SideInfo { name, key };
        Geometry {
            width: 6,
            height: 6,
            sides: [side("White", "white"), side("Black", "black")],
        }
    }

    /// White at the bottom: cell `(x, y)` is file `x`, rank `6 − y`.
    fn square_name(cell: usize) -> String {
        square_of(cell).map_or_else(String::new, |sq| sq.to_string())
    }

    /// The board as it stands mid-turn ([`MiniState::board`]).
    fn board(state: &MiniState) -> Vec<Option<Piece>> {
        let board = state.board();
        (0..usize::from(SIDE) * usize::from(SIDE))
            .map(|cell| {
                let p = board.get(square_of(cell)?)?;
                Some(Piece {
                    side: player(p.color),
                    kind: if p.king {
                        PieceKind::King
                    } else {
                        PieceKind::Man
                    },
                })
            })
            .collect()
    }

    fn decision_squares(_: &MiniState, step: &Step) -> DecisionSquares {
        DecisionSquares {
            from: cell_of(step.from),
            to: Some(cell_of(step.to)),
            captured: step.captured.map(cell_of),
        }
    }

    fn move_squares(mv: &Move) -> MoveSquares {
        MoveSquares {
            from: cell_of(mv.from()),
            path: mv.steps().iter().map(|s| Some(cell_of(s.to))).collect(),
            captured: mv
                .steps()
                .iter()
                .filter_map(|s| s.captured.map(cell_of))
                .collect(),
        }
    }

    fn mirror_planes(src: &[f32], dst: &mut [f32]) {
        crate::mirror_planes(src, dst);
    }

    fn mirror_policy_index(index: usize) -> usize {
        crate::mirror_policy_index(index)
    }
}

/// The square drawn at `cell` (White at the bottom).
fn square_of(cell: usize) -> Option<Square> {
    let side = usize::from(SIDE);
    let (x, y) = (cell % side, cell / side);
    if y >= side {
        return None;
    }
    Square::new(x as i8, (side - 1 - y) as i8)
}

/// The cell a square is drawn at.
fn cell_of(sq: Square) -> usize {
    let side = usize::from(SIDE);
    (side - 1 - sq.rank() as usize) * side + sq.file() as usize
}
