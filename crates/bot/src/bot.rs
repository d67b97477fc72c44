//! [`Bot`]: a network (checkpoint or bundle) or a baseline that thinks
//! about a position and says what it found.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, Instant};

use dama_engine::{Game, Move, Rules, Step, StepResult};
use dama_eval::alphabeta::{AlphaBeta, SearchLimits};
use dama_eval::{AlphaBetaLimit, BuildOptions, Player, PlayerSpec, SearchBudget, SearchKind};
use dama_mcts::dama::DamaState;
use dama_mcts::{
    Algorithm, Evaluation, Evaluator, Leaf, NodeId, RolloutEvaluator, Search, SearchConfig, Tree,
};
use dama_nn::{NnEvaluator, Precision, TorchScriptEvaluator};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use crate::bundle::{Bundle, BundleMeta};
use crate::export::default_search;
use crate::Error;

/// Simulations per move when neither the spec, the bundle nor the caller
/// says.
pub const DEFAULT_SIMS: u32 = 200;

/// How long a bot may think about one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Search simulations per decision (ignored by players without search).
    Sims(u32),
    /// Wall-clock time per move.
    Time(Duration),
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Sims(n) => write!(f, "{n} simulations"),
            Limit::Time(d) => write!(f, "{} ms", d.as_millis()),
        }
    }
}

/// What the bot is.
#[derive(Clone, Debug, PartialEq)]
pub enum BotSpec {
    /// A bundle directory written by `dama export` (TorchScript).
    Bundle(PathBuf),
    /// A checkpoint with search.
    Checkpoint {
        /// The weights file.
        path: PathBuf,
        /// Simulations per decision or time per move (the bot's default
        /// limit).
        limit: Limit,
        /// Root search.
        algorithm: Algorithm,
    },
    /// MCTS with random rollouts (no network).
    Rollout {
        /// Simulations per decision.
        sims: u32,
    },
    /// The alpha-beta engine.
    AlphaBeta {
        /// Depth or time.
        limit: AlphaBetaLimit,
        /// Table size in MiB.
        tt_mb: usize,
    },
    /// Another player of `dama_eval` (random, greedy, policy).
    Player(PlayerSpec),
}

impl FromStr for BotSpec {
    type Err = Error;

    /// `bundle:DIR`, a bundle directory, a `.safetensors` checkpoint, or any
    /// player spec of `dama_eval` (`ckpt:PATH[,sims=N][,search=puct|gumbel]`,
    /// `mcts:sims=N`, `alphabeta:depth=N|time=MS`, `greedy`, `random`,
    /// `policy:PATH`).
    fn from_str(s: &str) -> Result<Self, Error> {
        let s = s.trim();
        if let Some(dir) = s.strip_prefix("bundle:") {
            if dir.is_empty() {
                return Err(Error::Input(
                    "`bundle` needs a directory: bundle:DIR".into(),
                ));
            }
            return Ok(BotSpec::Bundle(dir.into()));
        }
        let path = Path::new(s);
        if path.join("bundle.json").is_file() {
            return Ok(BotSpec::Bundle(path.into()));
        }
        if s.ends_with(".safetensors") && !s.contains(':') {
            return Ok(BotSpec::Checkpoint {
                path: path.into(),
                limit: Limit::Sims(DEFAULT_SIMS),
                algorithm: Algorithm::Puct,
            });
        }
        let spec: PlayerSpec = s.parse()?;
        Ok(match spec {
            PlayerSpec::Checkpoint {
                path,
                budget,
                search,
                ..
            } => BotSpec::Checkpoint {
                path,
                limit: match budget {
                    SearchBudget::Sims(n) => Limit::Sims(n),
                    SearchBudget::Time(d) => Limit::Time(d),
                },
                algorithm: match search {
                    SearchKind::Gumbel => Algorithm::Gumbel,
                    SearchKind::Puct => Algorithm::Puct,
                },
            },
            PlayerSpec::Mcts { sims } => BotSpec::Rollout { sims },
            PlayerSpec::AlphaBeta { limit, tt_mb } => BotSpec::AlphaBeta { limit, tt_mb },
            other => BotSpec::Player(other),
        })
    }
}

/// Options for building a bot that the spec does not carry.
#[derive(Clone, Debug)]
pub struct BotOptions {
    /// `auto`, `cpu`, `cuda` or `cuda:N` (default `cpu`).
    pub device: String,
    /// Seed of the bot's random generator (default 0).
    pub seed: u64,
    /// Overrides the root search of network bots.
    pub algorithm: Option<Algorithm>,
    /// Endgame tables: a position they hold is played perfectly from them
    /// (fastest win, longest loss), and searches treat such positions as
    /// terminal with their exact result.
    pub tablebase: Option<std::sync::Arc<dama_tablebase::Tablebase>>,
}

impl Default for BotOptions {
    fn default() -> Self {
        BotOptions {
            device: "cpu".to_owned(),
            seed: 0,
            algorithm: None,
            tablebase: None,
        }
    }
}

enum NetEval {
    Native(Box<NnEvaluator>),
    Script(Box<TorchScriptEvaluator>),
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

enum Brain {
    Search(Box<NetEval>),
    AlphaBeta {
        engine: Box<AlphaBeta>,
        limit: AlphaBetaLimit,
    },
    Player(Box<dyn Player>),
}

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

/// A player that explains itself: see the [crate docs](crate).
pub struct Bot {
    name: String,
    brain: Brain,
    config: SearchConfig,
    default_limit: Limit,
    rng: ChaCha8Rng,
    bundle: Option<BundleMeta>,
    rules: Option<Rules>,
    tablebase: Option<std::sync::Arc<dama_tablebase::Tablebase>>,
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

impl fmt::Debug for Bot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bot")
            .field("name", &self.name)
            .field("default_limit", &self.default_limit)
            .finish_non_exhaustive()
    }
}

fn game_over(game: &Game) -> Option<String> {
    if game.pending_capture().is_some() {
        return None;
    }
    game.termination()
        .map(|(o, t)| format!("the game is over: {o} ({t:?})"))
}

impl Bot {
    /// Builds a bot from a spec (see [`BotSpec`]).
    ///
    /// # Errors
    ///
    /// [`Error::Input`]/[`Error::Eval`] for a malformed spec; loading
    /// errors of a checkpoint or bundle.
    pub fn from_spec(spec: &str, options: &BotOptions) -> Result<Bot, Error> {
        Bot::new(&spec.parse()?, options)
    }

    /// Builds a bot from a parsed spec.
    ///
    /// # Errors
    ///
    /// See [`Bot::from_spec`].
    pub fn new(spec: &BotSpec, options: &BotOptions) -> Result<Bot, Error> {
        let device = || dama_nn::device::parse_device(&options.device);
        let rng = ChaCha8Rng::seed_from_u64(options.seed);
        let mut config = default_search(DEFAULT_SIMS);
        let mut bundle = None;
        let mut rules = None;
        let mut spec_limit = None;
        let (name, brain) = match spec {
            BotSpec::Bundle(dir) => {
                let b = Bundle::load(dir)?;
                let eval = b.evaluator(device()?)?;
                config = b.meta.search.clone();
                rules = Some(b.meta.rules);
                let name = format!("bundle:{}", dir.display());
                bundle = Some(b.meta);
                (
                    name,
                    Brain::Search(Box::new(NetEval::Script(Box::new(eval)))),
                )
            }
            BotSpec::Checkpoint {
                path,
                limit,
                algorithm,
            } => {
                let (net, meta) = dama_nn::load_network(path, device()?, None)?;
                let eval = NnEvaluator::new(&net, device()?, Precision::F32)?;
                spec_limit = Some(*limit);
                if let Limit::Sims(n) = limit {
                    config.simulations = *n;
                }
                config.algorithm = *algorithm;
                rules = Some(meta.rules);
                (
                    format!("ckpt:{}", path.display()),
                    Brain::Search(Box::new(NetEval::Native(Box::new(eval)))),
                )
            }
            BotSpec::Rollout { sims } => {
                config.simulations = *sims;
                (
                    format!("mcts:sims={sims}"),
                    Brain::Search(Box::new(NetEval::Rollout(Box::new(RolloutEvaluator::new(
                        ChaCha8Rng::seed_from_u64(options.seed ^ 0x5eed),
                    ))))),
                )
            }
            BotSpec::AlphaBeta { limit, tt_mb } => {
                let spec = PlayerSpec::AlphaBeta {
                    limit: *limit,
                    tt_mb: *tt_mb,
                };
                (
                    spec.to_string(),
                    Brain::AlphaBeta {
                        engine: Box::new(
                            AlphaBeta::new(*tt_mb).with_tablebase(options.tablebase.clone()),
                        ),
                        limit: *limit,
                    },
                )
            }
            BotSpec::Player(spec) => {
                let factory = dama_eval::factory(
                    spec,
                    &BuildOptions {
                        device: Some(options.device.clone()),
                        tablebase: options.tablebase.clone(),
                    },
                )?;
                (spec.to_string(), Brain::Player(factory.build()?))
            }
        };
        if let Some(a) = options.algorithm {
            config.algorithm = a;
        }
        let default_limit = spec_limit.unwrap_or(Limit::Sims(config.simulations));
        Ok(Bot {
            name,
            brain,
            config,
            default_limit,
            rng,
            bundle,
            rules,
            tablebase: options.tablebase.clone(),
        })
    }

    /// The bot's name (its spec).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The bundle's metadata, for a bundle bot.
    pub fn bundle(&self) -> Option<&BundleMeta> {
        self.bundle.as_ref()
    }

    /// The rules the network was trained under (network bots).
    pub fn trained_rules(&self) -> Option<Rules> {
        self.rules
    }

    /// Whether the bot has a network (so [`Bot::network_eval`] answers).
    pub fn has_network(&self) -> bool {
        match &self.brain {
            Brain::Search(e) => matches!(**e, NetEval::Native(_) | NetEval::Script(_)),
            _ => false,
        }
    }

    /// Whether the bot searches (so its limit matters and it evaluates).
    pub fn searches(&self) -> bool {
        matches!(self.brain, Brain::Search(_) | Brain::AlphaBeta { .. })
    }

    /// The limit used when [`Bot::think`] gets none.
    pub fn default_limit(&self) -> Limit {
        self.default_limit
    }

    /// Changes the limit used when [`Bot::think`] gets none.
    pub fn set_default_limit(&mut self, limit: Limit) {
        self.default_limit = limit;
    }

    /// The network's evaluation of the position of `game` without search
    /// (`None` for bots without a network).
    ///
    /// # Errors
    ///
    /// [`Error::GameOver`] in a position without legal steps; network errors.
    pub fn network_eval(&mut self, game: &Game) -> Result<Option<RawEval>, Error> {
        let steps: Vec<Step> = game.legal_steps().into_iter().collect();
        if steps.is_empty() {
            return Err(Error::GameOver(
                game_over(game).unwrap_or_else(|| "no legal move".into()),
            ));
        }
        let Brain::Search(eval) = &mut self.brain else {
            return Ok(None);
        };
        let evals = match eval.as_mut() {
            NetEval::Native(e) => e.evaluate_states(&[(game, steps.as_slice())])?,
            NetEval::Script(e) => e.evaluate_states(&[(game, steps.as_slice())])?,
            NetEval::Rollout(_) => return Ok(None),
        };
        let Some(ev) = evals.into_iter().next() else {
            return Ok(None);
        };
        let turn = game.turn();
        Ok(Some(RawEval {
            wdl: [ev.value.win, ev.value.draw, ev.value.loss],
            priors: steps
                .iter()
                .zip(ev.policy)
                .map(|(&s, p)| (s, dama_nn::encode::policy_index(s, turn), p))
                .collect(),
        }))
    }

    /// The tables' move at a move boundary of a position they hold.
    fn think_tablebase(&self, game: &Game, network: Option<Eval>) -> Option<Thought> {
        let tb = self.tablebase.as_ref()?;
        let probe = DamaState::new(game.clone())
            .with_tablebase(Some(tb.clone()))
            .probe()?;
        let (best, _) = tb.best_moves(game.position())?.first().copied()?;
        Some(Thought {
            best,
            eval: None,
            network,
            score_cm: None,
            pv: vec![best],
            top: Vec::new(),
            nodes: 0,
            elapsed: Duration::ZERO,
            tablebase: Some(probe),
        })
    }

    /// Thinks about the position of `game` within `limit` (default: the
    /// bot's) and returns the move to play with what the bot found.
    ///
    /// # Errors
    ///
    /// [`Error::GameOver`] if the game is over; search, network and player
    /// errors.
    pub fn think(&mut self, game: &Game, limit: Option<Limit>) -> Result<Thought, Error> {
        if let Some(over) = game_over(game) {
            return Err(Error::GameOver(over));
        }
        if game.legal_steps().is_empty() {
            return Err(Error::GameOver("no legal move".into()));
        }
        let limit = limit.unwrap_or(self.default_limit);
        let start = Instant::now();
        let network = match self.network_eval(game)? {
            Some(raw) => Some(Eval {
                value: raw.wdl[0] - raw.wdl[2],
                wdl: raw.wdl,
            }),
            None => None,
        };
        // A position the tables hold: their best move, no search.
        if let Some(thought) = self.think_tablebase(game, network) {
            return Ok(Thought {
                elapsed: start.elapsed(),
                ..thought
            });
        }
        let tablebase = self.tablebase.clone();
        let mut thought = match &mut self.brain {
            Brain::Search(eval) => think_search(
                eval,
                &self.config,
                &mut self.rng,
                game,
                limit,
                start,
                tablebase,
            )?,
            Brain::AlphaBeta { engine, limit: own } => {
                let limits = match (limit, *own) {
                    (Limit::Time(d), _) => SearchLimits::time(d),
                    (Limit::Sims(_), AlphaBetaLimit::Depth(d)) => SearchLimits::depth(d),
                    (Limit::Sims(_), AlphaBetaLimit::TimeMs(ms)) => {
                        SearchLimits::time(Duration::from_millis(ms))
                    }
                };
                let history = dama_eval::game_history_hashes(game);
                let report = engine.search(game.position(), &history, limits);
                let best = report
                    .best
                    .ok_or_else(|| Error::GameOver("no legal move".into()))?;
                let mut pv = report.pv.clone();
                if pv.first() != Some(&best) {
                    pv = vec![best];
                }
                Thought {
                    best,
                    eval: None,
                    network: None,
                    score_cm: Some((report.score, report.depth)),
                    pv,
                    top: Vec::new(),
                    nodes: report.nodes,
                    elapsed: Duration::ZERO,
                    tablebase: None,
                }
            }
            Brain::Player(p) => {
                let best = p.choose(game, &mut self.rng)?;
                Thought {
                    best,
                    eval: None,
                    network: None,
                    score_cm: None,
                    pv: vec![best],
                    top: Vec::new(),
                    nodes: 0,
                    elapsed: Duration::ZERO,
                    tablebase: None,
                }
            }
        };
        thought.network = network;
        thought.elapsed = start.elapsed();
        Ok(thought)
    }
}

/// Runs one search until its budget is spent or `deadline` passes (after
/// at least two rounds, so that the root is evaluated and expanded).
fn run_until(
    search: &mut Search<DamaState>,
    eval: &mut NetEval,
    deadline: Option<Instant>,
    rng: &mut ChaCha8Rng,
) -> Result<(), Error> {
    search.begin(rng)?;
    let mut rounds = 0u32;
    while !search.is_done() {
        if rounds >= 2 && deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        search.gather()?;
        let leaves: Vec<Leaf<'_, DamaState>> = search.pending_leaves().collect();
        let evals = eval.evaluate(&leaves)?;
        drop(leaves);
        search.apply(&evals)?;
        rounds += 1;
    }
    Ok(())
}

fn think_search(
    eval: &mut NetEval,
    base: &SearchConfig,
    rng: &mut ChaCha8Rng,
    game: &Game,
    limit: Limit,
    start: Instant,
    tablebase: Option<std::sync::Arc<dama_tablebase::Tablebase>>,
) -> Result<Thought, Error> {
    let mut config = base.clone();
    let deadline = match limit {
        Limit::Sims(n) => {
            config.simulations = n.max(1);
            None
        }
        Limit::Time(d) => {
            // Sequential halving needs its budget up front: a timed search
            // is PUCT, stopped when the time is up (or at the most
            // simulations a tree may hold, which bounds its memory).
            config.algorithm = Algorithm::Puct;
            config.simulations = dama_mcts::MAX_SIMULATIONS;
            Some(start + d)
        }
    };
    let mut state = game.clone();
    let mut first: Option<(Eval, Vec<TopMove>, Vec<Move>)> = None;
    let mut nodes = 0u64;
    let best = loop {
        let steps = state.legal_steps();
        let step = if steps.is_empty() {
            return Err(Error::GameOver("no legal step".into()));
        } else if first.is_some() && steps.len() == 1 {
            steps[0]
        } else {
            let mut search = Search::new(
                config.clone(),
                DamaState::new(state.clone()).with_tablebase(tablebase.clone()),
            )?;
            run_until(&mut search, eval, deadline, rng)?;
            let r = search.result(rng)?;
            nodes += u64::from(r.simulations);
            if first.is_none() {
                let value = r.value.normalized();
                first = Some((
                    Eval {
                        value: value.scalar(),
                        wdl: [value.win, value.draw, value.loss],
                    },
                    top_moves(search.tree(), &state),
                    principal_variation(search.tree(), &state),
                ));
            }
            r.action
        };
        match state
            .play_step(step)
            .map_err(|e| Error::Input(format!("search chose an illegal step {step}: {e}")))?
        {
            StepResult::Completed(m) => break m,
            StepResult::InProgress => {}
        }
    };
    let (eval, top, mut pv) = first.ok_or_else(|| Error::GameOver("no search ran".into()))?;
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
        nodes,
        elapsed: Duration::ZERO,
        tablebase: None,
    })
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

fn top_moves(tree: &Tree<DamaState>, game: &Game) -> Vec<TopMove> {
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

fn principal_variation(tree: &Tree<DamaState>, game: &Game) -> Vec<Move> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!(
            "mcts:sims=30".parse::<BotSpec>().unwrap(),
            BotSpec::Rollout { sims: 30 }
        );
        assert!(matches!(
            "bundle:/x".parse::<BotSpec>().unwrap(),
            BotSpec::Bundle(_)
        ));
        assert!(matches!(
            "x/gen-0001.safetensors".parse::<BotSpec>().unwrap(),
            BotSpec::Checkpoint { .. }
        ));
        assert!(matches!(
            "ckpt:x.safetensors,sims=7,search=gumbel"
                .parse::<BotSpec>()
                .unwrap(),
            BotSpec::Checkpoint {
                limit: Limit::Sims(7),
                algorithm: Algorithm::Gumbel,
                ..
            }
        ));
        assert!(matches!(
            "ckpt:x.safetensors,time=80".parse::<BotSpec>().unwrap(),
            BotSpec::Checkpoint {
                limit: Limit::Time(d),
                ..
            } if d == Duration::from_millis(80)
        ));
        assert!("bundle:".parse::<BotSpec>().is_err());
        assert!("nonsense".parse::<BotSpec>().is_err());
    }

    #[test]
    fn baseline_bots_think() {
        let game = Game::new();
        for spec in ["mcts:sims=40", "alphabeta:depth=3", "greedy", "random"] {
            let mut bot = Bot::from_spec(spec, &BotOptions::default()).unwrap();
            let t = bot.think(&game, None).unwrap();
            assert!(game.legal_moves().contains(&t.best), "{spec}");
            assert_eq!(t.pv.first(), Some(&t.best), "{spec}");
            if spec.starts_with("mcts") {
                assert!(t.eval.is_some());
                let share: f32 = t.top.iter().map(|m| m.share).sum();
                assert!((share - 1.0).abs() < 1e-3, "{share}");
            }
        }
    }

    #[test]
    fn timed_search_stops_and_a_capture_is_completed() {
        // White must capture twice: b3xd3xd5 (a man jumping sideways then forward).
        let pos = "W:Wb3:Bc3,d4".parse().unwrap();
        let game = Game::from_position(pos);
        let mut bot = Bot::from_spec("mcts:sims=10", &BotOptions::default()).unwrap();
        let t = bot
            .think(&game, Some(Limit::Time(Duration::from_millis(50))))
            .unwrap();
        assert_eq!(t.best.to_string(), "b3xd3xd5");
        assert!(t.elapsed < Duration::from_secs(5));
        let over = Game::from_position("B:Wa1:B".parse().unwrap());
        assert!(matches!(bot.think(&over, None), Err(Error::GameOver(_))));
    }
}
