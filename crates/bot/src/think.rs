//! Thinking with a search: the evaluators a searching bot may have
//! ([`NetEval`]) and the search of a whole move on the mcts driver
//! ([`think_search`]), which reports what the first decision's search saw.

use std::time::{Duration, Instant};

use dama_engine::{Game, Move};
use dama_mcts::dama::{search_move, DamaState};
use dama_mcts::{
    Algorithm, Budget, Evaluation, Evaluator, Leaf, RolloutEvaluator, Search, SearchConfig,
    SearchResult, TurnPolicy,
};
use rand_chacha::ChaCha8Rng;

use crate::report::{principal_variation, top_moves, Eval, Thought, TopMove};
use crate::spec::Limit;
use crate::Error;

/// The evaluator of a searching bot.
pub(crate) enum NetEval {
    Native(Box<dama_nn::NnEvaluator>),
    Script(Box<dama_nn::TorchScriptEvaluator>),
    Rollout(Box<RolloutEvaluator<ChaCha8Rng>>),
}

impl Evaluator<DamaState> for NetEval {
    type Error = dama_nn::Error;

    fn evaluate(&mut self, batch: &[Leaf<'_, DamaState>]) -> Result<Vec<Evaluation>, Self::Error> {
        match self {
            NetEval::Native(e) => Evaluator::<DamaState>::evaluate(e.as_mut(), batch),
            NetEval::Script(e) => Evaluator::<DamaState>::evaluate(e.as_mut(), batch),
            NetEval::Rollout(e) => match Evaluator::<DamaState>::evaluate(e.as_mut(), batch) {
                Ok(v) => Ok(v),
                Err(never) => match never {},
            },
        }
    }
}

/// The bot's turn policy: every decision within one budget (the first one
/// searched even when forced, so that there is something to report), and
/// the report of the first search kept.
struct Thinking {
    budget: Budget,
    /// The search's evaluation, top moves and principal variation at the
    /// first decision.
    first: Option<(Eval, Vec<TopMove>, Vec<Move>)>,
    /// Simulations of every search of the move.
    nodes: u64,
}

impl TurnPolicy<DamaState> for Thinking {
    fn plan(
        &mut self,
        _: &DamaState,
        actions: &[dama_engine::Step],
        decision: u32,
    ) -> Option<Budget> {
        (decision == 0 || actions.len() > 1).then_some(self.budget)
    }

    fn searched(&mut self, search: &Search<DamaState>, r: &SearchResult<dama_engine::Step>) {
        self.nodes += u64::from(r.simulations);
        if self.first.is_none() {
            let value = r.value.normalized();
            let game = search.root_state().game();
            self.first = Some((
                Eval {
                    value: value.scalar(),
                    wdl: [value.win, value.draw, value.loss],
                },
                top_moves(search.tree(), game),
                principal_variation(search.tree(), game),
            ));
        }
    }
}

/// Searches the whole move of `game` within `limit` (started at `start`):
/// a simulation limit applies to every decision of the move; a time limit
/// is one deadline for the move, which each search honours once it has
/// evaluated its root and run one simulation.
pub(crate) fn think_search(
    eval: &mut NetEval,
    base: &SearchConfig,
    rng: &mut ChaCha8Rng,
    game: &Game,
    limit: Limit,
    start: Instant,
    tablebase: Option<std::sync::Arc<dama_tablebase::Tablebase>>,
) -> Result<Thought, Error> {
    let mut config = base.clone();
    let budget = match limit {
        Limit::Sims(n) => Budget::simulations(n.max(1)),
        Limit::Time(d) => {
            // Sequential halving needs its budget up front: a timed search
            // is PUCT, stopped when the time is up (or at the most
            // simulations a tree may hold, which bounds its memory).
            config.algorithm = Algorithm::Puct;
            Budget::until(start + d)
                .with_simulations(dama_mcts::MAX_SIMULATIONS)
                .with_min_simulations(1)
        }
    };
    let mut thinking = Thinking {
        budget,
        first: None,
        nodes: 0,
    };
    let root = DamaState::new(game.clone()).with_tablebase(tablebase);
    let best = search_move(&config, root, eval, &mut thinking, rng)?;
    let (eval, top, mut pv) = thinking
        .first
        .ok_or_else(|| Error::GameOver("no search ran".into()))?;
    if pv.first() != Some(&best) {
        pv = vec![best];
    }
    Ok(Thought {
        best,
        eval: Some(eval),
        network: None,
        score_cm: None,
        pv,
        top,
        nodes: thinking.nodes,
        elapsed: Duration::ZERO,
        tablebase: None,
    })
}
