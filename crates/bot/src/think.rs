//! Thinking with a search: the evaluators a searching bot may have
//! ([`NetEval`]), the turn policy of a searching bot of any game
//! ([`Thinking`]), which reports what the first decision's search saw, and
//! the search of a whole move of Turkish draughts on the mcts driver
//! ([`think_search`]).

use std::time::{Duration, Instant};

use dama_draughts::{search_move, DamaState};
use dama_engine::Game;
use dama_mcts::{
    Algorithm, Budget, Evaluation, Evaluator, Leaf, RolloutEvaluator, Search, SearchConfig,
    SearchResult, TurnPolicy,
};
use rand_chacha::ChaCha8Rng;

use crate::report::{principal_variation, top_moves, Eval, StepGame, Thought, TopMove};
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

/// What the first decision's search of a move saw: the report of a
/// searching bot.
pub(crate) struct Report<S: StepGame> {
    /// The search's evaluation of the position.
    pub eval: Eval,
    /// Root moves by visits, most visited first.
    pub top: Vec<TopMove<S::Move, S::Step>>,
    /// Principal variation, starting with the move played.
    pub pv: Vec<S::Move>,
    /// Simulations of every search of the move (set by
    /// [`Thinking::report`]).
    pub nodes: u64,
}

/// A searching bot's turn policy, for any game (`G` the search's state,
/// holding a game `S`): every decision within one budget (the first one
/// searched even when forced, so that there is something to report), and
/// the report of the first search kept.
pub(crate) struct Thinking<G, S: StepGame> {
    budget: Budget,
    /// The game of a search state.
    game: fn(&G) -> &S,
    /// What the first decision's search saw.
    first: Option<Report<S>>,
    /// Simulations of every search of the move.
    nodes: u64,
}

impl<G, S: StepGame> Thinking<G, S> {
    /// The policy of a move searched within `limit` (started at `start`)
    /// with `config`: a simulation limit applies to every decision of the
    /// move; a time limit is one deadline for the move, which each search
    /// honours once it has evaluated its root and run one simulation.
    pub(crate) fn new(
        limit: Limit,
        start: Instant,
        config: &mut SearchConfig,
        game: fn(&G) -> &S,
    ) -> Thinking<G, S> {
        let budget = match limit {
            Limit::Sims(n) => Budget::simulations(n.max(1)),
            Limit::Time(d) => {
                // Sequential halving needs its budget up front: a timed
                // search is PUCT, stopped when the time is up (or at the
                // most simulations a tree may hold, which bounds its
                // memory).
                config.algorithm = Algorithm::Puct;
                Budget::until(start + d)
                    .with_simulations(dama_mcts::MAX_SIMULATIONS)
                    .with_min_simulations(1)
            }
        };
        Thinking {
            budget,
            game,
            first: None,
            nodes: 0,
        }
    }

    /// The report of the search of a move that played `best` (the
    /// principal variation just `best` if it did not start with it).
    pub(crate) fn report(self, best: &S::Move) -> Result<Report<S>, Error>
    where
        S::Move: Clone + PartialEq,
    {
        let mut report = self
            .first
            .ok_or_else(|| Error::GameOver("no search ran".into()))?;
        if report.pv.first() != Some(best) {
            report.pv = vec![best.clone()];
        }
        report.nodes = self.nodes;
        Ok(report)
    }
}

impl<G, S> TurnPolicy<G> for Thinking<G, S>
where
    G: dama_mcts::Game,
    S: StepGame<Step = G::Action>,
{
    fn plan(&mut self, _: &G, actions: &[G::Action], decision: u32) -> Option<Budget> {
        (decision == 0 || actions.len() > 1).then_some(self.budget)
    }

    fn searched(&mut self, search: &Search<G>, r: &SearchResult<G::Action>) {
        self.nodes += u64::from(r.simulations);
        if self.first.is_none() {
            let value = r.value.normalized();
            let root = search.root_state();
            let game = (self.game)(root);
            self.first = Some(Report {
                eval: Eval::of_wdl([value.win, value.draw, value.loss]),
                top: top_moves(search.tree(), game, root.to_play()),
                pv: principal_variation(search.tree(), game),
                nodes: 0,
            });
        }
    }
}

/// Searches the whole move of `game` within `limit` (started at `start`;
/// see [`Thinking::new`]).
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
    let mut thinking = Thinking::new(limit, start, &mut config, DamaState::game);
    let root = DamaState::new(game.clone()).with_tablebase(tablebase);
    let best = search_move(&config, root, eval, &mut thinking, rng)?;
    let report = thinking.report(&best)?;
    Ok(Thought {
        best,
        eval: Some(report.eval),
        network: None,
        score_cm: None,
        pv: report.pv,
        top: report.top,
        nodes: report.nodes,
        elapsed: Duration::ZERO,
        tablebase: None,
    })
}
