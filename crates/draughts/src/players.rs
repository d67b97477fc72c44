//! Turkish draughts' simple baseline: [`GreedyPlayer`] (the random one is
//! every game's, [`dama_game::player::RandomPlayer`]; the alpha-beta
//! engine is `dama_eval`'s).

use dama_engine::{Color, Game, Move, Position};
use dama_game::player::{NoMove, Player};
use dama_game::GameError;
use rand::{Rng, RngCore};

use crate::Draughts;

/// Material in the greedy player's units: a man is 1, a king 3.
fn greedy_material(pos: &Position, color: Color) -> i32 {
    let ours = pos.pieces(color);
    let kings = (ours & pos.kings()).count() as i32;
    let men = ours.count() as i32 - kings;
    men + 3 * kings
}

/// Plays the move that leaves the best material balance (man 1, king 3) after
/// the opponent's best capture in reply; ties are broken at random.
///
/// A move that wins at once (the opponent has no move left) is always taken.
#[derive(Clone, Debug)]
pub struct GreedyPlayer {
    name: String,
}

impl GreedyPlayer {
    /// A greedy player called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        GreedyPlayer { name: name.into() }
    }
}

impl Default for GreedyPlayer {
    fn default() -> Self {
        GreedyPlayer::new("greedy")
    }
}

impl Player<Draughts> for GreedyPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, rng: &mut dyn RngCore) -> Result<Move, GameError> {
        let pos = game.position();
        let me = pos.turn();
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Err(NoMove.into());
        }
        let mut best = i32::MIN;
        let mut best_moves: Vec<Move> = Vec::new();
        for m in &moves {
            let mut after = *pos;
            after.play_unchecked(m);
            let replies = after.legal_moves();
            let value = if replies.is_empty() {
                // The opponent is blocked or has no pieces: a win.
                i32::MAX
            } else if replies[0].is_capture() {
                replies
                    .iter()
                    .map(|r| {
                        let mut next = after;
                        next.play_unchecked(r);
                        greedy_material(&next, me) - greedy_material(&next, !me)
                    })
                    .min()
                    .unwrap_or(i32::MIN)
            } else {
                greedy_material(&after, me) - greedy_material(&after, !me)
            };
            if value > best {
                best = value;
                best_moves.clear();
            }
            if value == best {
                best_moves.push(*m);
            }
        }
        Ok(best_moves[rng.gen_range(0..best_moves.len())])
    }
}
