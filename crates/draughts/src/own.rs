//! Turkish draughts' own players behind the seam ([`GameDef::check_own`],
//! [`GameDef::own_players`]): the greedy player and the alpha-beta engine,
//! with the handcrafted or a learned evaluation and the endgame tables.
//!
//! [`GameDef::check_own`]: dama_game::GameDef::check_own
//! [`GameDef::own_players`]: dama_game::GameDef::own_players

use std::sync::Arc;

use dama_engine::Rules;
use dama_game::own::{MAX_MOVE_TIME_MS, MAX_SEARCH_DEPTH, MAX_SEARCH_TT_MB as MAX_TT_MB};
use dama_game::player::Player;
use dama_game::{AlphaBetaLimit, AlphaBetaSpec, OwnError, OwnFactory, OwnSpec};
use dama_tablebase::Tablebase;

use crate::alphabeta::{AlphaBetaPlayer, MAX_THREADS};
use crate::evaluator::Evaluation;
use crate::players::GreedyPlayer;
use crate::Draughts;

/// Checks an own-player spec (no file read).
pub(crate) fn check(spec: &OwnSpec) -> Result<(), OwnError> {
    match spec {
        OwnSpec::Greedy => Ok(()),
        OwnSpec::AlphaBeta(a) if !(1..=MAX_THREADS).contains(&a.threads) => {
            Err(OwnError::Settings(format!(
                "threads={} is out of range (1..={MAX_THREADS})",
                a.threads
            )))
        }
        OwnSpec::AlphaBeta(AlphaBetaSpec {
            limit: AlphaBetaLimit::Depth(d),
            ..
        }) if !(1..=MAX_SEARCH_DEPTH).contains(d) => Err(OwnError::Settings(format!(
            "depth={d} is out of range (1..={MAX_SEARCH_DEPTH} plies)"
        ))),
        OwnSpec::AlphaBeta(AlphaBetaSpec {
            limit: AlphaBetaLimit::TimeMs(ms),
            ..
        }) if !(1..=MAX_MOVE_TIME_MS).contains(ms) => Err(OwnError::Settings(format!(
            "time={ms} is out of range (1..={MAX_MOVE_TIME_MS} ms)"
        ))),
        OwnSpec::AlphaBeta(a) if !(1..=MAX_TT_MB).contains(&a.tt_mb) => Err(OwnError::Settings(
            format!("tt={} is out of range (1..={MAX_TT_MB} MiB)", a.tt_mb),
        )),
        OwnSpec::AlphaBeta(_) => Ok(()),
    }
}

/// The factory of an own-player spec.
pub(crate) fn factory(
    spec: &OwnSpec,
    tables: &Option<Arc<Tablebase>>,
) -> Result<Arc<dyn OwnFactory<Draughts>>, OwnError> {
    check(spec)?;
    Ok(match spec {
        OwnSpec::Greedy => Arc::new(Greedy),
        OwnSpec::AlphaBeta(a) => {
            let evaluation = Evaluation::of_spec(a.eval.as_ref(), None)
                .map_err(|e| OwnError::Load(Box::new(e)))?;
            Arc::new(AlphaBetaFactory {
                spec: a.clone(),
                tablebase: tables.clone(),
                evaluation,
            })
        }
    })
}

struct Greedy;

impl OwnFactory<Draughts> for Greedy {
    fn build(&self, name: &str) -> Box<dyn Player<Draughts>> {
        Box::new(GreedyPlayer::new(name))
    }
}

/// Alpha-beta players with one evaluation, loaded once.
pub struct AlphaBetaFactory {
    spec: AlphaBetaSpec,
    tablebase: Option<Arc<Tablebase>>,
    evaluation: Evaluation,
}

impl AlphaBetaFactory {
    /// A player as [`OwnFactory::build`] makes it, with its own type.
    #[must_use]
    pub fn player(&self, name: &str) -> AlphaBetaPlayer {
        AlphaBetaPlayer::new(name, self.spec.limit, self.spec.tt_mb)
            .with_tablebase(self.tablebase.clone())
            .with_evaluation(self.evaluation.clone())
            .with_threads(self.spec.threads)
    }
}

impl OwnFactory<Draughts> for AlphaBetaFactory {
    fn build(&self, name: &str) -> Box<dyn Player<Draughts>> {
        Box::new(self.player(name))
    }

    fn trained_rules(&self) -> Option<Rules> {
        self.evaluation.rules().copied()
    }
}
