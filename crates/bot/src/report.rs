//! What a bot reports: [`Thought`] (the move, evaluations, principal
//! variation, top moves) and how it is read off a search tree, for the
//! whole moves of any game ([`GameDef`]) whose search decides one step at
//! a time.

use std::fmt::{self, Display};
use std::time::Duration;

use dama_game::GameDef;
use dama_mcts::{Game as SearchGame, NodeId, Tree};
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
}

/// One root move of a search (`M` a whole move, `S` one step of it).
#[derive(Clone, Debug, PartialEq)]
pub struct TopMove<M, S> {
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
pub struct RawEval<S> {
    /// Win, draw, loss for the side to move.
    pub wdl: [f32; 3],
    /// Each legal step with its policy index and prior (softmax over the
    /// legal steps), in legal-step order.
    pub priors: Vec<(S, usize, f32)>,
}

/// The search's decisions of game `G` (one step of a whole move).
pub type Action<G> = <<G as GameDef>::State as SearchGame>::Action;

/// What the bot found, in game `G`.
pub struct Thought<G: GameDef> {
    /// The move to play.
    pub best: G::Move,
    /// The search's evaluation of the position (searching bots).
    pub eval: Option<Eval>,
    /// The network's own evaluation of the position (network bots).
    pub network: Option<Eval>,
    /// Alpha-beta's score in hundredths of a man for the side to move,
    /// and its depth (whole moves).
    pub score_cm: Option<(i32, u32)>,
    /// Principal variation, starting with `best` (may be just `best`).
    pub pv: Vec<G::Move>,
    /// Root moves by visits, most visited first (searching bots).
    pub top: Vec<TopMove<G::Move, Action<G>>>,
    /// Simulations (or alpha-beta nodes) spent.
    pub nodes: u64,
    /// Visits the first search started with, kept from the bot's last
    /// search (tree reuse of a timed search; 0 for a fresh tree).
    pub reused: u64,
    /// Thinking time.
    pub elapsed: Duration,
    /// The endgame tables' verdict, when they hold the position (then
    /// `best` is their best move).
    pub tablebase: Option<dama_game::TableVerdict>,
}

impl<G: GameDef> Clone for Thought<G> {
    fn clone(&self) -> Self {
        Thought {
            best: self.best.clone(),
            eval: self.eval,
            network: self.network,
            score_cm: self.score_cm,
            pv: self.pv.clone(),
            top: self.top.clone(),
            nodes: self.nodes,
            reused: self.reused,
            elapsed: self.elapsed,
            tablebase: self.tablebase.clone(),
        }
    }
}

impl<G: GameDef> fmt::Debug for Thought<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Thought")
            .field("best", &self.best)
            .field("eval", &self.eval)
            .field("network", &self.network)
            .field("score_cm", &self.score_cm)
            .field("pv", &self.pv)
            .field("top", &self.top)
            .field("nodes", &self.nodes)
            .field("reused", &self.reused)
            .field("elapsed", &self.elapsed)
            .field("tablebase", &self.tablebase)
            .finish()
    }
}

impl<G: GameDef> Thought<G> {
    /// The thought of a player that only says its move (and maybe an
    /// alpha-beta score): the principal variation is the move.
    pub fn of_move(best: G::Move, score_cm: Option<(i32, u32)>) -> Thought<G> {
        Thought {
            pv: vec![best.clone()],
            best,
            eval: None,
            network: None,
            score_cm,
            top: Vec::new(),
            nodes: 0,
            reused: 0,
            elapsed: Duration::ZERO,
            tablebase: None,
        }
    }
}

impl<G: GameDef> Thought<G>
where
    Action<G>: Display,
{
    /// The thought as JSON (moves and steps in notation): `best`, `eval`,
    /// `network`, `pv`, `nodes`, `time_ms`, `score_cm`, `depth`, `top`
    /// and `tablebase`.
    pub fn to_json(&self) -> Value {
        let value = |e: Option<Eval>| e.map(|e| json!({"value": e.value, "wdl": e.wdl}));
        json!({
            "best": self.best.to_string(),
            "eval": value(self.eval),
            "network": value(self.network),
            "pv": self.pv.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "nodes": self.nodes,
            "time_ms": self.elapsed.as_secs_f64() * 1000.0,
            "score_cm": self.score_cm.map(|s| s.0),
            "depth": self.score_cm.map(|s| s.1),
            "top": self.top.iter().map(|t| json!({
                "move": t.mv.to_string(), "step": t.step.to_string(), "visits": t.visits,
                "share": t.share, "prior": t.prior, "value": t.value,
            })).collect::<Vec<_>>(),
            "tablebase": self.tablebase.as_ref().map(|p| json!({"wdl": p.result, "dtz": p.dtz})),
        })
    }
}

/// The tables' verdict in words: "tablebase win in 17 plies" (plies to the
/// capture that keeps the result, or to the end).
#[must_use]
pub fn describe_tablebase(probe: &dama_game::TableVerdict) -> String {
    match probe.dtz {
        Some(d) if probe.decisive => {
            format!("tablebase {} in {d} plies", probe.result)
        }
        _ => format!("tablebase {}", probe.result),
    }
}

/// Whole moves of game `G` read off its search's decisions: a game and
/// its search state, played one decision at a time.
struct Walker<G: GameDef> {
    game: G::Game,
    state: G::State,
    /// The decisions of the move in progress.
    decisions: Vec<Action<G>>,
    legal: Vec<Action<G>>,
}

impl<G: GameDef> Clone for Walker<G> {
    fn clone(&self) -> Self {
        Walker {
            game: self.game.clone(),
            state: self.state.clone(),
            decisions: self.decisions.clone(),
            legal: Vec::new(),
        }
    }
}

/// The most decisions one move may take (a bound on walking a tree).
const MAX_STEPS: usize = 256;

impl<G: GameDef> Walker<G> {
    fn new(game: &G::Game, state: &G::State) -> Walker<G> {
        Walker {
            game: game.clone(),
            state: state.clone(),
            decisions: Vec::new(),
            legal: Vec::new(),
        }
    }

    /// Plays `step`: `Some(Some(m))` if it completed the move `m`,
    /// `Some(None)` mid-move, `None` if it is not legal. A move ends when
    /// the other side is to act or the game is over.
    fn advance(&mut self, step: Action<G>) -> Option<Option<G::Move>> {
        self.legal.clear();
        self.state.legal_actions(&mut self.legal);
        if !self.legal.contains(&step) {
            return None;
        }
        let mover = self.state.to_play();
        self.state.apply(step);
        self.decisions.push(step);
        if self.state.outcome().is_none() && self.state.to_play() == mover {
            return Some(None);
        }
        let mv = G::complete_turn(&self.game, &self.decisions).ok()?;
        G::play(&mut self.game, &mv).ok()?;
        self.decisions.clear();
        Some(Some(mv))
    }

    /// The first legal step.
    fn first_step(&mut self) -> Option<Action<G>> {
        self.legal.clear();
        self.state.legal_actions(&mut self.legal);
        self.legal.first().copied()
    }
}

/// The child of `node` with the most visits, ties broken by prior.
fn best_child<S: SearchGame>(tree: &Tree<S>, node: NodeId) -> Option<NodeId> {
    tree.children(node).max_by(|&a, &b| {
        (tree.visits(a), tree.prior(a))
            .partial_cmp(&(tree.visits(b), tree.prior(b)))
            .unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// The whole move that starts with the step into `child`, completed along
/// the most visited line (or the first legal step where the tree ends).
fn complete_move<G: GameDef>(
    tree: &Tree<G::State>,
    start: &Walker<G>,
    child: NodeId,
) -> Option<G::Move> {
    let mut w = start.clone();
    let mut node = Some(child);
    let mut step = tree.action(child)?;
    for _ in 0..MAX_STEPS {
        if let Some(m) = w.advance(step)? {
            return Some(m);
        }
        match node.and_then(|n| best_child(tree, n)) {
            Some(c) => {
                node = Some(c);
                step = tree.action(c)?;
            }
            None => {
                node = None;
                step = w.first_step()?;
            }
        }
    }
    None
}

/// The root moves of a search from `root` (the state of `game`), most
/// visited first, their values for the side to move.
pub(crate) fn top_moves<G: GameDef>(
    tree: &Tree<G::State>,
    game: &G::Game,
    root: &G::State,
) -> Vec<TopMove<G::Move, Action<G>>> {
    let start = Walker::<G>::new(game, root);
    let me = root.to_play();
    let total: u32 = tree.children(NodeId::ROOT).map(|c| tree.visits(c)).sum();
    let mut out: Vec<TopMove<G::Move, Action<G>>> = tree
        .children(NodeId::ROOT)
        .filter_map(|c| {
            Some(TopMove {
                mv: complete_move(tree, &start, c)?,
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

/// The whole moves along the most visited line of a search from `root`
/// (the state of `game`; 32 moves at the most).
pub(crate) fn principal_variation<G: GameDef>(
    tree: &Tree<G::State>,
    game: &G::Game,
    root: &G::State,
) -> Vec<G::Move> {
    let mut w = Walker::<G>::new(game, root);
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
        match w.advance(step) {
            Some(Some(m)) => pv.push(m),
            Some(None) => {}
            None => break,
        }
        node = c;
    }
    pv
}
