//! [`Bot`]: a network (checkpoint or bundle), the alpha-beta engine (with
//! the handcrafted or a learned evaluation, the latter from a file or a
//! learned-evaluator bundle) or a baseline that thinks about a position and
//! says what it found.
//!
//! The bot is split by idea: [`BotSpec`](crate::BotSpec) and the options in
//! `spec.rs`, searching in `think.rs` (on the mcts driver), the reported
//! [`Thought`] in `report.rs`; this module builds a bot and dispatches to
//! its brain (search, alpha-beta or another player).

use std::fmt;
use std::time::{Duration, Instant};

use dama_draughts::DamaState;
use dama_engine::{Game, Rules, Step};
use dama_eval::alphabeta::{AlphaBeta, SearchLimits};
use dama_eval::{AlphaBetaLimit, BuildOptions, Player, PlayerSpec};
use dama_mcts::{RolloutEvaluator, SearchConfig};
use dama_nn::NnEvaluator;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::bundle::{Bundle, BundleContents, BundleKind, BundleMeta};
use crate::evaluator_bundle::{EvaluatorBundle, EvaluatorBundleMeta};
use crate::export::default_search;
use crate::report::{Eval, RawEval, Thought};
use crate::spec::{BotOptions, BotSpec, Limit, DEFAULT_SIMS};
use crate::think::{think_search, NetEval};
use crate::Error;

enum Brain {
    Search(Box<NetEval>),
    AlphaBeta {
        engine: Box<AlphaBeta>,
        limit: AlphaBetaLimit,
    },
    Player(Box<dyn Player<dama_draughts::Draughts>>),
}

/// How a checkpoint bot runs its network.
#[derive(Clone, Copy, Debug)]
struct NetRun {
    inference: dama_eval::Inference,
    cuda: bool,
    lanes: usize,
}

impl NetRun {
    /// Leaves per network call of a search within `limit` (a timed search
    /// is PUCT: see `Thinking::new`).
    fn leaves(&self, limit: Limit, algorithm: dama_mcts::Algorithm) -> u32 {
        let algorithm = match limit {
            Limit::Time(_) => dama_mcts::Algorithm::Puct,
            Limit::Sims(_) => algorithm,
        };
        self.inference
            .leaves_for(limit, algorithm, self.cuda, self.lanes)
    }
}

/// A player that explains itself: see the [crate docs](crate).
pub struct Bot {
    name: String,
    brain: Brain,
    config: SearchConfig,
    /// A checkpoint bot's network options, for the leaves per network call
    /// of each search (per limit; see [`dama_eval::Inference::leaves_for`]).
    net: Option<NetRun>,
    default_limit: Limit,
    rng: ChaCha8Rng,
    bundle: Option<BundleMeta>,
    evaluator_bundle: Option<EvaluatorBundleMeta>,
    rules: Option<Rules>,
    tablebase: Option<std::sync::Arc<dama_tablebase::Tablebase>>,
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
        let device = || dama_nn::device::resolve(options.device);
        let rng = ChaCha8Rng::seed_from_u64(options.seed);
        let mut config = default_search(DEFAULT_SIMS);
        let mut bundle = None;
        let mut evaluator_bundle = None;
        let mut rules = None;
        let mut spec_limit = None;
        let mut net_run = None;
        let alphabeta = |limit: AlphaBetaLimit,
                         tt_mb: usize,
                         evaluation: dama_eval::Evaluation,
                         threads: usize| Brain::AlphaBeta {
            engine: Box::new(
                AlphaBeta::new(tt_mb)
                    .with_tablebase(options.tablebase.clone())
                    .with_evaluation(evaluation)
                    .with_threads(threads),
            ),
            limit,
        };
        let (name, brain) = match spec {
            BotSpec::Bundle(dir) if BundleContents::read(dir)?.kind() == BundleKind::Evaluator => {
                let b = EvaluatorBundle::load(dir)?;
                rules = Some(b.meta.rules);
                // A time limit is the bot's default limit (so `--time`
                // replaces it); a depth is the engine's own.
                if let AlphaBetaLimit::TimeMs(ms) = b.meta.limit {
                    spec_limit = Some(Limit::Time(Duration::from_millis(ms)));
                }
                let brain = alphabeta(b.meta.limit, b.meta.tt_mb, b.evaluation, b.meta.threads);
                evaluator_bundle = Some(b.meta);
                (format!("bundle:{}", dir.display()), brain)
            }
            BotSpec::Bundle(dir) => {
                let b = Bundle::load(dir)?;
                if b.meta.game != dama_nn::GameName::Draughts {
                    return Err(Error::Input(format!(
                        "{}: the bundle's network plays {}, not Turkish draughts",
                        dir.display(),
                        b.meta.game.title()
                    )));
                }
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
                inference: spec_inference,
            } => {
                let device = device()?;
                let (net, meta) = dama_nn::load_network(path, device, None)?;
                let lanes =
                    spec_inference.lanes_or(options.lanes.unwrap_or_else(dama_nn::device::cores));
                // The precision of the spec's limit: a timed bot computes
                // in bf16 where this CPU runs it fast, a bot at a
                // simulation count in f32 (the same numbers everywhere).
                let precision =
                    dama_eval::net_precision(spec_inference.precision_for(*limit), device);
                let mut eval = NnEvaluator::with_lanes(&net, device, precision, lanes)?;
                let run = NetRun {
                    inference: *spec_inference,
                    cuda: matches!(device, dama_nn::device::Device::Cuda(_)),
                    lanes,
                };
                if let Limit::Time(_) = limit {
                    // libtorch prepares its kernels on a copy's first calls
                    // at each batch size: not on the first move's clock.
                    eval.warm_up(run.leaves(*limit, *algorithm) as usize)?;
                }
                net_run = Some(run);
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
            BotSpec::AlphaBeta {
                limit,
                tt_mb,
                eval,
                threads,
            } => {
                let spec = PlayerSpec::AlphaBeta {
                    limit: *limit,
                    tt_mb: *tt_mb,
                    eval: eval.clone(),
                    threads: *threads,
                };
                let evaluation = match eval {
                    None => dama_eval::Evaluation::Handcrafted,
                    Some(path) => dama_eval::Evaluation::load(path, None)?,
                };
                // A learned evaluation plays the rules it was trained for.
                rules = evaluation.rules().copied();
                (
                    spec.to_string(),
                    alphabeta(*limit, *tt_mb, evaluation, *threads),
                )
            }
            BotSpec::Player(spec) => {
                let factory = dama_eval::factory(
                    spec,
                    &BuildOptions {
                        device: Some(options.device),
                        tablebase: options.tablebase.clone(),
                        rules: None,
                        lanes: None,
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
            net: net_run,
            default_limit,
            rng,
            bundle,
            evaluator_bundle,
            rules,
            tablebase: options.tablebase.clone(),
        })
    }

    /// The bot's name (its spec).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The bundle's metadata, for a network bundle's bot.
    pub fn bundle(&self) -> Option<&BundleMeta> {
        self.bundle.as_ref()
    }

    /// The bundle's metadata, for a learned-evaluator bundle's bot.
    pub fn evaluator_bundle(&self) -> Option<&EvaluatorBundleMeta> {
        self.evaluator_bundle.as_ref()
    }

    /// The limit the alpha-beta engine searches to when [`Bot::think`] gets
    /// a simulation count (none: [`Limit`] has no depth), for an alpha-beta
    /// bot.
    pub fn alphabeta_limit(&self) -> Option<AlphaBetaLimit> {
        match &self.brain {
            Brain::AlphaBeta { limit, .. } => Some(*limit),
            _ => None,
        }
    }

    /// The default limit in words: `200 simulations`, `100 ms`, or
    /// `depth 6` for an alpha-beta bot searching to its own depth.
    pub fn describe_limit(&self) -> String {
        match (self.default_limit, self.alphabeta_limit()) {
            (Limit::Sims(_), Some(AlphaBetaLimit::Depth(d))) => format!("depth {d}"),
            (Limit::Sims(_), Some(AlphaBetaLimit::TimeMs(ms))) => format!("{ms} ms"),
            (limit, _) => limit.to_string(),
        }
    }

    /// The rules the network (or learned evaluation) was trained under.
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
        let state = DamaState::new(game.clone());
        let evals = match eval.as_mut() {
            NetEval::Native(e) => e.evaluate_states(&[(&state, steps.as_slice())])?,
            NetEval::Script(e) => e.evaluate_states(&[(&state, steps.as_slice())])?,
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
                .map(|(&s, p)| (s, dama_draughts::encode::policy_index(s, turn), p))
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
                &SearchConfig {
                    batch_size: self.net.map_or(self.config.batch_size, |n| {
                        n.leaves(limit, self.config.algorithm)
                    }),
                    ..self.config.clone()
                },
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
                let best = p
                    .choose(game, &mut self.rng)
                    .map_err(|e| dama_eval::Error::from_move(p.name(), e))?;
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Issue 27: a learned-evaluator bundle is the alpha-beta engine with
    /// its evaluator, limit, threads and rules.
    #[test]
    fn a_learned_evaluator_bundle_plays_alpha_beta() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("n.nnue");
        let net = dama_nnue::FloatNet::random(Rules::default(), 4);
        dama_nnue::write_network(&file, &net, &[]).unwrap();
        let out = tmp.path().join("b");
        crate::export_evaluator(&crate::EvaluatorExportOptions {
            evaluator: file,
            out: out.clone(),
            limit: AlphaBetaLimit::Depth(2),
            threads: 2,
        })
        .unwrap();
        let spec = format!("bundle:{}", out.display());
        let mut bot = Bot::from_spec(&spec, &BotOptions::default()).unwrap();
        assert_eq!(bot.name(), spec);
        assert_eq!(bot.trained_rules(), Some(Rules::default()));
        assert_eq!(bot.describe_limit(), "depth 2");
        assert!(bot.bundle().is_none() && !bot.has_network() && bot.searches());
        assert_eq!(bot.evaluator_bundle().unwrap().threads, 2);
        let game = Game::new();
        let t = bot.think(&game, None).unwrap();
        assert!(game.legal_moves().contains(&t.best));
        assert_eq!(t.score_cm.map(|(_, d)| d), Some(2));
        let mut session = crate::Session::new(bot);
        let hello = session.handle("hello").lines.join("\n");
        assert!(hello.contains("id evaluator threads 2"), "{hello}");
        assert!(hello.contains("id limit depth 2"), "{hello}");
        let go = session.handle("go time 30").lines.join("\n");
        assert!(go.contains("bestmove "), "{go}");
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
