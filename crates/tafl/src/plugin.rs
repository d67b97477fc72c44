//! Turkish Tafl behind the game seam: [`Tafl`] implements
//! [`dama_game::GameDef`].

use dama_game::{GameDef, GameError, Geometry, IncompleteTurn, SideInfo};
use dama_mcts::{Outcome, Player};

use crate::search::{player, TaflState};
use crate::{Game, Move, Position, Step, TaflRules};

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

    fn mirror_planes(src: &[f32], dst: &mut [f32]) {
        crate::encode::mirror_planes(src, dst);
    }

    fn mirror_policy_index(index: usize) -> usize {
        crate::encode::mirror_policy_index(index)
    }
}
