//! Draughts' side of the learned-evaluator run ([`dama_nnue::LearnedGame`]):
//! the alpha-beta engine plays itself to a depth and node budget, and every
//! searched position without a capture pending is a sample.

use std::path::Path;
use std::sync::Arc;

use dama_engine::{Game, Rules};
use dama_game::EvalSource;
use dama_nnue::{LearnedGame, Scored, SelfPlayLimits, ShippedFile};

use crate::alphabeta::{game_history_hashes, AlphaBeta, SearchLimits};
use crate::evaluator::{Evaluation, Network};
use crate::features::DraughtsFeatures;
use crate::plugin::Draughts;
use crate::state::player;

impl LearnedGame for Draughts {
    type Features = DraughtsFeatures;
    type Evaluation = Evaluation;

    fn handcrafted() -> Evaluation {
        Evaluation::Handcrafted
    }

    fn load_evaluation(path: &Path, rules: &Rules) -> Result<Evaluation, dama_nnue::Error> {
        let (float, _) = dama_nnue::read_network::<DraughtsFeatures>(path, Some(rules))?;
        Ok(Evaluation::Learned {
            evaluator: EvalSource::File(path.to_path_buf()),
            network: Arc::new(Network::from_float(&float)?),
        })
    }

    fn shipped_file() -> Option<ShippedFile> {
        Some(crate::shipped::SHIPPED)
    }

    fn self_play(
        mut game: Game,
        evaluation: &Evaluation,
        limits: &SelfPlayLimits,
    ) -> (Vec<Scored<DraughtsFeatures>>, Game) {
        let mut engine = AlphaBeta::new(limits.tt_mb).with_evaluation(evaluation.clone());
        let search = SearchLimits {
            depth: Some(limits.depth),
            nodes: Some(limits.nodes),
            time: None,
        };
        let mut scored = Vec::new();
        let mut plies = 0;
        while !game.is_game_over() && plies < limits.max_plies {
            let pos = *game.position();
            let history = game_history_hashes(&game);
            let report = engine.search(&pos, &history, search);
            let Some(best) = report.best else {
                break;
            };
            if report.depth > 0 && !pos.has_capture() {
                scored.push(Scored {
                    position: pos,
                    score: report.score,
                    to_play: player(pos.turn()),
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
