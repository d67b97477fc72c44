//! What a bot reports: [`Thought`] (the move, evaluations, principal
//! variation, top moves) and how it is read off a search tree, for the
//! whole moves of any game whose search decides one step at a time
//! ([`StepGame`]).

use std::fmt::Display;
use std::time::Duration;

use dama_engine::{Game, Move, Step, StepResult};
use dama_mcts::{NodeId, Player, Tree};
use serde_json::{json, Value};

/// An evaluation for the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eval {
    /// Expected result in `[-1, 1]` (win − loss), for the side to move.
    pub value: f32,
    /// Win, draw, loss probabilities for the side to move.
    pub wdl: [f32; 3],
}

impl Eval {
    /// The evaluation of win, draw, loss probabilities.
    pub(crate) fn of_wdl(wdl: [f32; 3]) -> Eval {
        Eval {
            value: wdl[0] - wdl[2],
            wdl,
        }
    }

    fn to_json(self) -> Value {
        json!({"value": self.value, "wdl": self.wdl})
    }
}

/// One root move of a search (`M` a whole move, `S` one step of it).
#[derive(Clone, Debug, PartialEq)]
pub struct TopMove<M = Move, S = Step> {
    /// The whole move (a capture or chain completed along the most visited
    /// line).
    pub mv: M,
    /// Its first step (the root decision).
    pub step: S,
    /// Visits of its first step.
    pub visits: u32,
    /// Share of the root visits.
    pub share: f32,
    /// The network's prior of its first step.
    pub prior: f32,
    /// Its search value for the side to move, if visited.
    pub value: Option<f32>,
}

/// The raw network output for one position (no search).
#[derive(Clone, Debug, PartialEq)]
pub struct RawEval<S = Step> {
    /// Win, draw, loss for the side to move.
    pub wdl: [f32; 3],
    /// Each legal step with its policy index and prior (softmax over the
    /// legal steps), in legal-step order.
    pub priors: Vec<(S, usize, f32)>,
}

/// What the bot found.
#[derive(Clone, Debug, PartialEq)]
pub struct Thought {
    /// The move to play.
    pub best: Move,
    /// The search's evaluation of the position (searching bots).
    pub eval: Option<Eval>,
    /// The network's own evaluation of the position (network bots).
    pub network: Option<Eval>,
    /// Alpha-beta score in centi-men for the side to move, and depth.
    pub score_cm: Option<(i32, u32)>,
    /// Principal variation, starting with `best` (may be just `best`).
    pub pv: Vec<Move>,
    /// Root moves by visits, most visited first (searching bots).
    pub top: Vec<TopMove>,
    /// Simulations (or alpha-beta nodes) spent.
    pub nodes: u64,
    /// Thinking time.
    pub elapsed: Duration,
    /// The endgame tables' verdict, when they hold the position (then
    /// `best` is their best move).
    pub tablebase: Option<dama_tablebase::Probe>,
}

impl Thought {
    /// The thought as JSON (moves in notation).
    pub fn to_json(&self) -> Value {
        thought_json(
            &self.best,
            self.eval,
            self.network,
            &self.pv,
            self.nodes,
            self.elapsed,
            json!({
                "score_cm": self.score_cm.map(|s| s.0),
                "depth": self.score_cm.map(|s| s.1),
                "top": self.top.iter().map(|t| json!({
                    "move": t.mv.to_string(), "visits": t.visits, "share": t.share,
                    "prior": t.prior, "value": t.value,
                })).collect::<Vec<_>>(),
                "tablebase": self.tablebase.map(|p| json!({"wdl": p.wdl.to_string(), "dtz": p.dtz})),
            }),
        )
    }
}

/// A thought of any game as JSON: `best`, `eval`, `network`, `pv`,
/// `nodes` and `time_ms`, with the fields of the object `more`.
pub(crate) fn thought_json<M: Display>(
    best: &M,
    eval: Option<Eval>,
    network: Option<Eval>,
    pv: &[M],
    nodes: u64,
    elapsed: Duration,
    more: Value,
) -> Value {
    let mut out = json!({
        "best": best.to_string(),
        "eval": eval.map(Eval::to_json),
        "network": network.map(Eval::to_json),
        "pv": pv.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "nodes": nodes,
        "time_ms": elapsed.as_secs_f64() * 1000.0,
    });
    if let (Some(out), Value::Object(more)) = (out.as_object_mut(), more) {
        out.extend(more);
    }
    out
}

/// The tables' verdict in words: "tablebase win in 17 plies" (plies to the
/// capture that keeps the result, or to the end).
#[must_use]
pub fn describe_tablebase(probe: &dama_tablebase::Probe) -> String {
    match probe.dtz {
        Some(d) if probe.wdl.score() != 0 => {
            format!("tablebase {} in {d} plies", probe.wdl)
        }
        _ => format!("tablebase {}", probe.wdl),
    }
}

/// A game that the search plays one step at a time (a capture or a chain
/// is several steps of one move): what reading whole moves off a search
/// tree needs.
pub(crate) trait StepGame: Clone {
    /// One step (the search's action).
    type Step: Copy;
    /// A whole move.
    type Move;
    /// The most steps one move may take.
    const MAX_STEPS: usize;

    /// Plays `step`: `Some(Some(m))` if it completed the move `m`,
    /// `Some(None)` mid-move, `None` if it is not legal.
    fn advance(&mut self, step: Self::Step) -> Option<Option<Self::Move>>;

    /// The first legal step.
    fn first_step(&self) -> Option<Self::Step>;
}

impl StepGame for Game {
    type Step = Step;
    type Move = Move;
    const MAX_STEPS: usize = 64;

    fn advance(&mut self, step: Step) -> Option<Option<Move>> {
        match self.play_step(step).ok()? {
            StepResult::Completed(m) => Some(Some(m)),
            StepResult::InProgress => Some(None),
        }
    }

    fn first_step(&self) -> Option<Step> {
        self.legal_steps().first().copied()
    }
}

/// The child of `node` with the most visits, ties broken by prior.
fn best_child<G: dama_mcts::Game>(tree: &Tree<G>, node: NodeId) -> Option<NodeId> {
    tree.children(node).max_by(|&a, &b| {
        (tree.visits(a), tree.prior(a))
            .partial_cmp(&(tree.visits(b), tree.prior(b)))
            .unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// The whole move that starts with the step into `child`, completed along
/// the most visited line (or the first legal step where the tree ends).
fn complete_move<G, S>(tree: &Tree<G>, game: &S, child: NodeId) -> Option<S::Move>
where
    G: dama_mcts::Game,
    S: StepGame<Step = G::Action>,
{
    let mut g = game.clone();
    let mut node = Some(child);
    let mut step = tree.action(child)?;
    for _ in 0..S::MAX_STEPS {
        if let Some(m) = g.advance(step)? {
            return Some(m);
        }
        match node.and_then(|n| best_child(tree, n)) {
            Some(c) => {
                node = Some(c);
                step = tree.action(c)?;
            }
            None => {
                node = None;
                step = g.first_step()?;
            }
        }
    }
    None
}

/// The root moves of a search of `game` by `me`, most visited first.
pub(crate) fn top_moves<G, S>(
    tree: &Tree<G>,
    game: &S,
    me: Player,
) -> Vec<TopMove<S::Move, S::Step>>
where
    G: dama_mcts::Game,
    S: StepGame<Step = G::Action>,
{
    let total: u32 = tree.children(NodeId::ROOT).map(|c| tree.visits(c)).sum();
    let mut out: Vec<TopMove<S::Move, S::Step>> = tree
        .children(NodeId::ROOT)
        .filter_map(|c| {
            Some(TopMove {
                mv: complete_move(tree, game, c)?,
                step: tree.action(c)?,
                visits: tree.visits(c),
                share: if total > 0 {
                    tree.visits(c) as f32 / total as f32
                } else {
                    0.0
                },
                prior: tree.prior(c),
                value: tree.value(c).map(|v| v.to_pov(me).scalar()),
            })
        })
        .collect();
    out.sort_by(|a, b| {
        (b.visits, b.prior)
            .partial_cmp(&(a.visits, a.prior))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

/// The whole moves along the most visited line of a search of `game` (32
/// at the most).
pub(crate) fn principal_variation<G, S>(tree: &Tree<G>, game: &S) -> Vec<S::Move>
where
    G: dama_mcts::Game,
    S: StepGame<Step = G::Action>,
{
    let mut g = game.clone();
    let mut node = NodeId::ROOT;
    let mut pv = Vec::new();
    while pv.len() < 32 {
        let Some(c) = best_child(tree, node) else {
            break;
        };
        if tree.visits(c) == 0 {
            break;
        }
        let Some(step) = tree.action(c) else { break };
        match g.advance(step) {
            Some(Some(m)) => pv.push(m),
            Some(None) => {}
            None => break,
        }
        node = c;
    }
    pv
}
