//! Thinking with a search, for any game: the evaluators a searching bot
//! may have ([`NetEval`]), the turn policy of a searching bot
//! ([`Thinking`]), which reports what the first decision's search saw, and
//! the search of a whole move on the mcts driver ([`think_search`]).

use std::time::Instant;

use dama_game::{GameDef, NnInput};
use dama_mcts::{
    search_turn_reusing, Algorithm, Budget, Evaluation, Evaluator, Game as SearchGame, Leaf,
    RolloutEvaluator, Search, SearchConfig, SearchResult, TurnPolicy,
};
use rand_chacha::ChaCha8Rng;

use crate::report::{principal_variation, top_moves, Action, Eval, Thought, TopMove};
use crate::spec::Limit;
use crate::Error;

/// The evaluator of a searching bot (any game: the networks check the
/// shapes of the game's encoding).
pub(crate) enum NetEval {
    Native(Box<dama_nn::NnEvaluator>),
    Script(Box<dama_nn::TorchScriptEvaluator>),
    Rollout(Box<RolloutEvaluator<ChaCha8Rng>>),
}

impl<S> Evaluator<S> for NetEval
where
    S: SearchGame + NnInput<Action = <S as SearchGame>::Action>,
{
    type Error = dama_nn::Error;

    fn evaluate(&mut self, batch: &[Leaf<'_, S>]) -> Result<Vec<Evaluation>, Self::Error> {
        match self {
            NetEval::Native(e) => Evaluator::<S>::evaluate(e.as_mut(), batch),
            NetEval::Script(e) => Evaluator::<S>::evaluate(e.as_mut(), batch),
            NetEval::Rollout(e) => match Evaluator::<S>::evaluate(e.as_mut(), batch) {
                Ok(v) => Ok(v),
                Err(never) => match never {},
            },
        }
    }
}

impl NetEval {
    /// Whether this is a network (so its raw output means something).
    pub(crate) fn is_network(&self) -> bool {
        matches!(self, NetEval::Native(_) | NetEval::Script(_))
    }
}

/// What the first decision's search of a move saw: the report of a
/// searching bot.
struct Report<G: GameDef> {
    /// The search's evaluation of the position.
    eval: Eval,
    /// Root moves by visits, most visited first.
    top: Vec<TopMove<G::Move, Action<G>>>,
    /// Principal variation, starting with the move played.
    pv: Vec<G::Move>,
}

/// A searching bot's turn policy, for any game: every decision within one
/// budget (the first one searched even when forced, so that there is
/// something to report), and the report of the first search kept.
pub(crate) struct Thinking<G: GameDef> {
    budget: Budget,
    /// The game at the root of the move.
    game: G::Game,
    /// What the first decision's search saw.
    first: Option<Report<G>>,
    /// Simulations of every search of the move.
    nodes: u64,
    /// Visits the first search started with (tree reuse).
    reused: u64,
}

impl<G: GameDef> Thinking<G> {
    /// The policy of a move of `game` searched within `limit` (started at
    /// `start`) with `config`: a simulation limit applies to every decision
    /// of the move; a time limit is one deadline for the move, which each
    /// search honours once it has evaluated its root and run one
    /// simulation.
    pub(crate) fn new(
        limit: Limit,
        start: Instant,
        config: &mut SearchConfig,
        game: &G::Game,
    ) -> Thinking<G> {
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
            game: game.clone(),
            first: None,
            nodes: 0,
            reused: 0,
        }
    }
}

impl<G: GameDef> TurnPolicy<G::State> for Thinking<G> {
    fn plan(&mut self, _: &G::State, actions: &[Action<G>], decision: u32) -> Option<Budget> {
        (decision == 0 || actions.len() > 1).then_some(self.budget)
    }

    fn searched(&mut self, search: &Search<G::State>, r: &SearchResult<Action<G>>) {
        self.nodes += u64::from(r.simulations);
        if self.first.is_none() {
            self.reused = u64::from(search.kept_visits());
            let value = r.value.normalized();
            let root = search.root_state();
            self.first = Some(Report {
                eval: Eval::of_wdl([value.win, value.draw, value.loss]),
                top: top_moves::<G>(search.tree(), &self.game, root),
                pv: principal_variation::<G>(search.tree(), &self.game, root),
            });
        }
    }
}

/// Searches the whole move of `thinking`'s game from `root` (its search
/// state) with `config`, as `thinking` plans it (see [`Thinking::new`]),
/// starting from the tree in `kept` where it holds the position (with
/// [`SearchConfig::reuse_tree`]) and leaving the last search there, and
/// reports what the first decision's search saw.
pub(crate) fn think_search<G: GameDef>(
    eval: &mut NetEval,
    config: &SearchConfig,
    rng: &mut ChaCha8Rng,
    root: G::State,
    mut thinking: Thinking<G>,
    kept: &mut Option<Search<G::State>>,
) -> Result<Thought<G>, Error> {
    let (steps, last) = search_turn_reusing(config, root, kept.take(), eval, &mut thinking, rng)?;
    *kept = last;
    let game = &thinking.game;
    let best = G::complete_turn(game, &steps).map_err(|source| Error::Game {
        context: format!("the search's {} decisions make no legal move", steps.len()),
        source,
    })?;
    let report = thinking
        .first
        .ok_or_else(|| Error::GameOver("no search ran".into()))?;
    let mut thought = Thought::of_move(best, None);
    if report.pv.first() == Some(&thought.best) {
        thought.pv = report.pv;
    }
    thought.eval = Some(report.eval);
    thought.top = report.top;
    thought.nodes = thinking.nodes;
    thought.reused = thinking.reused;
    Ok(thought)
}
