//! Turkish Tafl's side of the learned-evaluator run
//! ([`dama_nnue::LearnedGame`]): the alpha-beta engine plays itself by
//! iterative deepening within a depth (whole moves) and a node budget, and
//! every position where no capture is on offer is a sample.

use std::path::Path;

use dama_nnue::{LearnedGame, Scored, SelfPlayLimits, ShippedFile};

use crate::features::TaflFeatures;
use crate::game::{Game, MoveKind};
use crate::players::{budgeted_best_move_with, TaflEvaluation};
use crate::plugin::Tafl;
use crate::rules::TaflRules;
use crate::search::player;

impl LearnedGame for Tafl {
    type Features = TaflFeatures;
    type Evaluation = TaflEvaluation;

    fn handcrafted() -> TaflEvaluation {
        TaflEvaluation::Handcrafted
    }

    fn load_evaluation(path: &Path, rules: &TaflRules) -> Result<TaflEvaluation, dama_nnue::Error> {
        TaflEvaluation::load(path, Some(rules))
    }

    fn shipped_file() -> Option<ShippedFile> {
        Some(crate::shipped::SHIPPED)
    }

    fn self_play(
        mut game: Game,
        evaluation: &TaflEvaluation,
        limits: &SelfPlayLimits,
    ) -> (Vec<Scored<TaflFeatures>>, Game) {
        let mut scored = Vec::new();
        let mut plies = 0;
        while game.outcome().is_none() && plies < limits.max_plies {
            let Some((best, score, _, _)) =
                budgeted_best_move_with(&game, limits.depth, limits.nodes, evaluation)
            else {
                break;
            };
            let quiet = game
                .legal_moves()
                .iter()
                .all(|m| m.kind != MoveKind::Capture);
            if quiet {
                scored.push(Scored {
                    position: *game.position(),
                    score,
                    to_play: player(game.turn()),
                });
            }
            if game.play(&best).is_err() {
                break;
            }
            plies += 1;
        }
        (scored, game)
    }
}
