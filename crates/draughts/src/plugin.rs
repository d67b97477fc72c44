//! Turkish draughts behind the game seam: [`Draughts`] implements
//! [`dama_game::GameDef`].

use dama_engine::{Game, Move, Position, Rules, Step};
use dama_game::{GameDef, GameError, Geometry, SideInfo};
use dama_mcts::{Outcome, Player};

use crate::state::{complete_turn, player, DamaState};

/// Turkish draughts and its variants, as every layer above the rules sees
/// them. The variant is a rule option ([`Rules::variant`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Draughts;

impl GameDef for Draughts {
    const NAME: &'static str = "draughts";
    const TITLE: &'static str = "Turkish draughts";
    const ENCODING_VERSION: u32 = crate::encode::ENCODING_VERSION;

    type Rules = Rules;
    type Game = Game;
    type Move = Move;
    type State = DamaState;

    fn start(rules: &Rules) -> Game {
        Game::with_rules(*rules)
    }

    fn rules(game: &Game) -> Rules {
        *game.rules()
    }

    fn parse_rules(text: &str) -> Result<Rules, GameError> {
        Ok(text.parse::<Rules>()?)
    }

    fn to_play(game: &Game) -> Player {
        player(game.turn())
    }

    fn outcome(game: &Game) -> Option<Outcome> {
        Some(match game.outcome()?.winner() {
            Some(c) => Outcome::Win(player(c)),
            None => Outcome::Draw,
        })
    }

    fn plies(game: &Game) -> usize {
        game.moves().len()
    }

    fn legal_moves(game: &Game) -> Vec<Move> {
        game.legal_moves().into_iter().collect()
    }

    fn play(game: &mut Game, mv: &Move) -> Result<(), GameError> {
        Ok(game.play(mv)?)
    }

    fn parse_move(game: &Game, text: &str) -> Result<Move, GameError> {
        Ok(game.position().parse_move(text)?)
    }

    fn position_text(game: &Game) -> String {
        game.position().to_string()
    }

    fn parse_position(rules: &Rules, text: &str) -> Result<Game, GameError> {
        let position = Position::from_str_with_rules(text, *rules)?;
        Ok(Game::from_position(position))
    }

    fn search_state(game: &Game) -> DamaState {
        DamaState::new(game.clone())
    }

    fn complete_turn(game: &Game, decisions: &[Step]) -> Result<Move, GameError> {
        Ok(complete_turn(game, decisions)?)
    }

    fn geometry() -> Geometry {
        Geometry {
            width: 8,
            height: 8,
            sides: [
                SideInfo {
                    name: "White",
                    key: "white",
                },
                SideInfo {
                    name: "Black",
                    key: "black",
                },
            ],
        }
    }

    fn termination(game: &Game) -> Option<String> {
        game.termination().map(|(_, t)| format!("{t:?}"))
    }

    fn mirror_planes(src: &[f32], dst: &mut [f32]) {
        crate::encode::mirror_planes(src, dst);
    }

    fn mirror_policy_index(index: usize) -> usize {
        crate::encode::mirror_policy_index(index)
    }
}
