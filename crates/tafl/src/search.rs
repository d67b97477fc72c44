//! The Turkish Tafl adapter: [`TaflState`] implements [`Game`] for
//! [`crate::Game`], one [`Step`] per action (a slide, one jump of a
//! chain, or stopping a friendly chain), so a chain is decided jump by jump
//! by the same player, as a Turkish draughts capture is.
//!
//! The Defenders (White) are [`Player::First`], the King side
//! [`Player::Second`], whichever side the rules let move first.

use dama_mcts::{Game, Outcome, Player};

use crate::{Side, Step};

/// The side as a search player: the Defenders are [`Player::First`].
#[inline]
#[must_use]
pub fn player(side: Side) -> Player {
    match side {
        Side::Defender => Player::First,
        Side::KingSide => Player::Second,
    }
}

/// The search player as a side.
#[inline]
#[must_use]
pub fn side(player: Player) -> Side {
    match player {
        Player::First => Side::Defender,
        Player::Second => Side::KingSide,
    }
}

/// A game of Turkish Tafl as the search sees it.
#[derive(Clone, Debug)]
pub struct TaflState {
    game: crate::Game,
}

impl TaflState {
    /// Wraps a game (its history counts for repetition and the ply limit).
    #[must_use]
    pub fn new(game: crate::Game) -> Self {
        TaflState { game }
    }

    /// The wrapped game.
    #[must_use]
    pub fn game(&self) -> &crate::Game {
        &self.game
    }

    /// Unwraps the game.
    #[must_use]
    pub fn into_game(self) -> crate::Game {
        self.game
    }
}

impl From<crate::Game> for TaflState {
    fn from(game: crate::Game) -> Self {
        TaflState::new(game)
    }
}

impl Game for TaflState {
    type Action = Step;

    #[inline]
    fn to_play(&self) -> Player {
        player(self.game.turn())
    }

    fn legal_actions(&self, out: &mut Vec<Step>) {
        out.extend(self.game.legal_steps());
    }

    fn apply(&mut self, action: Step) {
        let played = self.game.play_step(action);
        debug_assert!(played.is_ok(), "illegal step {action:?}: {played:?}");
    }

    fn outcome(&self) -> Option<Outcome> {
        let o = self.game.outcome()?;
        Some(match o.winner {
            Some(s) => Outcome::Win(player(s)),
            None => Outcome::Draw,
        })
    }

    fn hash(&self) -> u64 {
        self.game.hash()
    }

    /// The hash with the counters an evaluator sees (repetitions and plies
    /// played, which bring the repetition and ply-limit ends nearer).
    fn eval_key(&self) -> u64 {
        let counters = (self.game.repetitions() as u64) << 16 | self.game.plies() as u64;
        self.game.hash() ^ counters.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Position, TaflRules};
    use dama_mcts::{Algorithm, RolloutEvaluator, Search, SearchConfig};
    use rand::SeedableRng;

    fn best(pos: &str, sims: u32) -> Step {
        let p: Position = pos.parse().expect("position");
        let state = TaflState::new(crate::Game::from_position(p, TaflRules::default()));
        let cfg = SearchConfig {
            algorithm: Algorithm::Puct,
            simulations: sims,
            ..SearchConfig::default()
        };
        let mut search = Search::new(cfg, state).expect("valid config");
        let mut eval = RolloutEvaluator::new(rand_chacha::ChaCha8Rng::seed_from_u64(1));
        let r = search
            .run(&mut eval, &mut rand_chacha::ChaCha8Rng::seed_from_u64(2))
            .expect("search runs");
        r.action
    }

    #[test]
    fn the_search_takes_the_exit_and_completes_a_surround() {
        // The King on c8 slides off the board.
        let exit = best("B:Wa5,b6:Ba1,Kc8", 200);
        assert_eq!(exit.to_string(), "c8-off");
        // The Defenders close the fourth side: the King is surrounded at
        // the start of its turn.
        let surround = best("W:Wb4,d4,c3,b5:BKc4", 200);
        assert_eq!(surround.to_string(), "b5-c5");
    }
}
