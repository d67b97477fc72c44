//! What a bot reports: [`Thought`] (the move, evaluations, principal
//! variation, top moves) and how it is read off a search tree.

use std::time::Duration;

use dama_engine::{Game, Move, Step, StepResult};
use dama_mcts::dama::DamaState;
use dama_mcts::{NodeId, Tree};
use serde_json::json;

/// An evaluation for the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eval {
    /// Expected result in `[-1, 1]` (win − loss), for the side to move.
    pub value: f32,
    /// Win, draw, loss probabilities for the side to move.
    pub wdl: [f32; 3],
}

/// One root move of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct TopMove {
    /// The whole move (a capture completed along the most visited line).
    pub mv: Move,
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
pub struct RawEval {
    /// Win, draw, loss for the side to move.
    pub wdl: [f32; 3],
    /// Each legal step with its policy index and prior (softmax over the
    /// legal steps).
    pub priors: Vec<(Step, usize, f32)>,
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
    pub fn to_json(&self) -> serde_json::Value {
        let eval = |e: &Eval| json!({"value": e.value, "wdl": e.wdl});
        json!({
            "best": self.best.to_string(),
            "eval": self.eval.as_ref().map(eval),
            "network": self.network.as_ref().map(eval),
            "score_cm": self.score_cm.map(|s| s.0),
            "depth": self.score_cm.map(|s| s.1),
            "pv": self.pv.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "top": self.top.iter().map(|t| json!({
                "move": t.mv.to_string(), "visits": t.visits, "share": t.share,
                "prior": t.prior, "value": t.value,
            })).collect::<Vec<_>>(),
            "nodes": self.nodes,
            "time_ms": self.elapsed.as_secs_f64() * 1000.0,
            "tablebase": self.tablebase.map(|p| json!({"wdl": p.wdl.to_string(), "dtz": p.dtz})),
        })
    }
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

/// The child of `node` with the most visits, ties broken by prior.
fn best_child(tree: &Tree<DamaState>, node: NodeId) -> Option<NodeId> {
    tree.children(node).max_by(|&a, &b| {
        (tree.visits(a), tree.prior(a))
            .partial_cmp(&(tree.visits(b), tree.prior(b)))
            .unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// The whole move that starts with the step into `child`, completed along
/// the most visited line (or the first legal step where the tree ends).
fn complete_move(tree: &Tree<DamaState>, game: &Game, child: NodeId) -> Option<Move> {
    let mut g = game.clone();
    let mut node = child;
    let mut step = tree.action(child)?;
    for _ in 0..64 {
        match g.play_step(step).ok()? {
            StepResult::Completed(m) => return Some(m),
            StepResult::InProgress => match best_child(tree, node) {
                Some(c) => {
                    node = c;
                    step = tree.action(c)?;
                }
                None => step = *g.legal_steps().first()?,
            },
        }
    }
    None
}

pub(crate) fn top_moves(tree: &Tree<DamaState>, game: &Game) -> Vec<TopMove> {
    let total: u32 = tree.children(NodeId::ROOT).map(|c| tree.visits(c)).sum();
    let me = dama_mcts::dama::player(game.turn());
    let mut out: Vec<TopMove> = tree
        .children(NodeId::ROOT)
        .filter_map(|c| {
            Some(TopMove {
                mv: complete_move(tree, game, c)?,
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

pub(crate) fn principal_variation(tree: &Tree<DamaState>, game: &Game) -> Vec<Move> {
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
        match g.play_step(step) {
            Ok(StepResult::Completed(m)) => pv.push(m),
            Ok(StepResult::InProgress) => {}
            Err(_) => break,
        }
        node = c;
    }
    pv
}
