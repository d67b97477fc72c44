//! [`Bot`]: a player of any game ([`GameDef`]) that thinks about a
//! position and says what it found: a network (checkpoint or bundle) with
//! search, `mcts:` rollouts, or one of the game's own players (its
//! baselines, an alpha-beta engine, a learned-evaluator bundle: see
//! [`crate::own_player`]).
//!
//! The bot is split by idea: [`BotSpec`](crate::BotSpec) and the options in
//! `spec.rs`, searching in `think.rs` (on the mcts driver), the reported
//! [`Thought`] in `report.rs`, the own players in `own.rs`; this module
//! builds a bot and dispatches to its brain.

use std::fmt;
use std::time::{Duration, Instant};

use dama_eval::AlphaBetaLimit;
use dama_game::{GameDef, NnInput};
use dama_mcts::{Evaluator, Game as SearchGame, Leaf, RolloutEvaluator, Search, SearchConfig};
use dama_nn::{GameName, NnEvaluator};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::bundle::{Bundle, BundleContents, BundleKind, BundleMeta};
use crate::evaluator_bundle::EvaluatorBundleMeta;
use crate::export::default_search;
use crate::own::{own_player, think_own};
use crate::report::{Action, Eval, RawEval, Thought};
use crate::spec::{BotOptions, BotSpec, Limit, DEFAULT_SIMS};
use crate::think::{think_search, NetEval, Thinking};
use crate::Error;

enum Brain<G: GameDef> {
    Search(Box<NetEval>),
    Own(Box<dyn dama_game::player::Player<G>>),
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

/// A player of game `G` that explains itself: see the [crate docs](crate).
pub struct Bot<G: GameDef> {
    name: String,
    brain: Brain<G>,
    config: SearchConfig,
    /// A checkpoint bot's network options, for the leaves per network call
    /// of each search (per limit; see [`dama_eval::Inference::leaves_for`]).
    net: Option<NetRun>,
    default_limit: Limit,
    /// The depth or time an own player (alpha-beta) searches to.
    own_limit: Option<AlphaBetaLimit>,
    /// Whether the bot's limit changes how it plays.
    searches: bool,
    rng: ChaCha8Rng,
    bundle: Option<BundleMeta>,
    evaluator_bundle: Option<EvaluatorBundleMeta>,
    rules: Option<G::Rules>,
    tables: G::Tables,
    /// The tree of the last timed search, which the next one starts from
    /// where it holds the position (tree reuse).
    kept: Option<Search<G::State>>,
}

impl<G: GameDef> fmt::Debug for Bot<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bot")
            .field("game", &G::NAME)
            .field("name", &self.name)
            .field("default_limit", &self.default_limit)
            .finish_non_exhaustive()
    }
}

/// Why `game` cannot be thought about, if it cannot: over, or no legal
/// move.
pub(crate) fn not_playable<G: GameDef>(game: &G::Game) -> Option<Error> {
    if let Some(end) = G::end_text(game) {
        return Some(Error::GameOver(format!("the game is over: {end}")));
    }
    if G::outcome(game).is_some() || G::legal_moves(game).is_empty() {
        return Some(Error::GameOver("no legal move".into()));
    }
    None
}

/// The name of game `G` in the registry.
fn game_name<G: GameDef>() -> Result<GameName, Error> {
    GameName::of::<G>()
        .ok_or_else(|| Error::Input(format!("{} is not in the registry of games", G::TITLE)))
}

impl<G: GameDef> Bot<G> {
    /// Builds a bot from a spec (see [`BotSpec`]).
    ///
    /// # Errors
    ///
    /// [`Error::Input`]/[`Error::Eval`] for a malformed spec or a player
    /// the game does not have; loading errors of a checkpoint or bundle (a
    /// network of another game is refused by name).
    pub fn from_spec(spec: &str, options: &BotOptions) -> Result<Bot<G>, Error> {
        Bot::new(&spec.parse()?, options)
    }

    /// Builds a bot from a parsed spec.
    ///
    /// # Errors
    ///
    /// See [`Bot::from_spec`].
    pub fn new(spec: &BotSpec, options: &BotOptions) -> Result<Bot<G>, Error> {
        let device = || dama_nn::device::resolve(options.device);
        let game = game_name::<G>()?;
        let mut config = default_search(DEFAULT_SIMS);
        let mut bot = Bot {
            name: spec.to_string(),
            brain: Brain::Search(Box::new(NetEval::Rollout(Box::new(RolloutEvaluator::new(
                ChaCha8Rng::seed_from_u64(options.seed ^ 0x5eed),
            ))))),
            config: SearchConfig::default(),
            net: None,
            default_limit: Limit::Sims(DEFAULT_SIMS),
            own_limit: None,
            searches: true,
            rng: ChaCha8Rng::seed_from_u64(options.seed),
            bundle: None,
            evaluator_bundle: None,
            rules: None,
            tables: options.tables.get::<G>(),
            kept: None,
        };
        let mut spec_limit = None;
        match spec {
            BotSpec::Bundle(dir) if BundleContents::read(dir)?.kind() == BundleKind::Network => {
                let b = Bundle::load(dir)?;
                if b.meta.game != game {
                    return Err(Error::Input(format!(
                        "{}: the bundle's network plays {}, not {}",
                        dir.display(),
                        b.meta.game.title(),
                        G::TITLE
                    )));
                }
                let eval = b.evaluator(device()?)?;
                config = b.meta.search.clone();
                bot.rules = b.meta.game_rules().get::<G>();
                bot.name = format!("bundle:{}", dir.display());
                bot.brain = Brain::Search(Box::new(NetEval::Script(Box::new(eval))));
                bot.bundle = Some(b.meta);
            }
            BotSpec::Checkpoint {
                path,
                limit,
                algorithm,
                inference: spec_inference,
            } => {
                let device = device()?;
                let (net, meta) = dama_nn::load_game_network(path, device, game)?;
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
                bot.net = Some(run);
                spec_limit = Some(*limit);
                if let Limit::Sims(n) = limit {
                    config.simulations = *n;
                }
                config.algorithm = *algorithm;
                bot.rules = meta.game_rules().get::<G>();
                bot.name = format!("ckpt:{}", path.display());
                bot.brain = Brain::Search(Box::new(NetEval::Native(Box::new(eval))));
            }
            BotSpec::Rollout { sims } => config.simulations = *sims,
            _ => {
                let own = own_player::<G>(spec, options)?;
                bot.name = own.name;
                bot.brain = Brain::Own(own.player);
                bot.own_limit = own.own_limit;
                bot.searches = own.timed;
                bot.rules = own.trained;
                bot.evaluator_bundle = own.evaluator_bundle;
                // A time limit of its own is the bot's default limit (so
                // `--time` replaces it); a depth is the engine's own.
                if let Some(AlphaBetaLimit::TimeMs(ms)) = own.own_limit {
                    spec_limit = Some(Limit::Time(Duration::from_millis(ms)));
                }
            }
        }
        if let Some(a) = options.algorithm {
            config.algorithm = a;
        }
        bot.default_limit = spec_limit.unwrap_or(Limit::Sims(config.simulations));
        bot.config = config;
        Ok(bot)
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

    /// The limit an alpha-beta bot searches to when [`Bot::think`] gets a
    /// simulation count (none: [`Limit`] has no depth).
    pub fn alphabeta_limit(&self) -> Option<AlphaBetaLimit> {
        self.own_limit
    }

    /// The default limit in words: `200 simulations`, `100 ms`, or
    /// `depth 6` for an alpha-beta bot searching to its own depth.
    pub fn describe_limit(&self) -> String {
        match (self.default_limit, self.own_limit) {
            (Limit::Sims(_), Some(AlphaBetaLimit::Depth(d))) => format!("depth {d}"),
            (Limit::Sims(_), Some(AlphaBetaLimit::TimeMs(ms))) => format!("{ms} ms"),
            (limit, _) => limit.to_string(),
        }
    }

    /// The rules the network (or learned evaluation) was trained under.
    pub fn trained_rules(&self) -> Option<G::Rules> {
        self.rules
    }

    /// Whether the bot has a network (so [`Bot::network_eval`] answers).
    pub fn has_network(&self) -> bool {
        matches!(&self.brain, Brain::Search(e) if e.is_network())
    }

    /// Whether the bot searches (so its limit matters and it evaluates).
    pub fn searches(&self) -> bool {
        self.searches
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
    /// (`None` for bots without a network): WDL and each legal step's
    /// prior with its policy index.
    ///
    /// # Errors
    ///
    /// [`Error::GameOver`] in a finished game; network errors.
    pub fn network_eval(&mut self, game: &G::Game) -> Result<Option<RawEval<Action<G>>>, Error> {
        if let Some(e) = not_playable::<G>(game) {
            return Err(e);
        }
        let Brain::Search(eval) = &mut self.brain else {
            return Ok(None);
        };
        if !eval.is_network() {
            return Ok(None);
        }
        let state = G::search_state(game);
        let mut steps = Vec::new();
        state.legal_actions(&mut steps);
        let evals = Evaluator::<G::State>::evaluate(
            eval.as_mut(),
            &[Leaf {
                state: &state,
                actions: &steps,
            }],
        )?;
        let Some(ev) = evals.into_iter().next() else {
            return Ok(None);
        };
        Ok(Some(RawEval {
            wdl: [ev.value.win, ev.value.draw, ev.value.loss],
            priors: steps
                .iter()
                .zip(ev.policy)
                .map(|(&s, p)| (s, state.policy_index(s), p))
                .collect(),
        }))
    }

    /// Thinks about the position of `game` within `limit` (default: the
    /// bot's) and returns the whole move to play with what the bot found.
    ///
    /// # Errors
    ///
    /// [`Error::GameOver`] if the game is over; search, network and player
    /// errors.
    pub fn think(&mut self, game: &G::Game, limit: Option<Limit>) -> Result<Thought<G>, Error> {
        if let Some(e) = not_playable::<G>(game) {
            return Err(e);
        }
        let limit = limit.unwrap_or(self.default_limit);
        let start = Instant::now();
        let network = self.network_eval(game)?.map(|raw| Eval::of_wdl(raw.wdl));
        // A position the tables hold: their best move, no search.
        if let Some((best, probe)) = G::table_move(game, &self.tables) {
            let mut thought = Thought::of_move(best, None);
            thought.network = network;
            thought.tablebase = Some(probe);
            thought.elapsed = start.elapsed();
            return Ok(thought);
        }
        let mut thought = match &mut self.brain {
            Brain::Search(eval) => {
                // A timed search starts from the last one's tree where it
                // holds the position; a search to a simulation count from
                // a fresh tree (the same answer whatever came before),
                // unless a checkpoint spec says otherwise (`reuse=`).
                let reuse = self
                    .net
                    .map(|n| n.inference)
                    .unwrap_or_default()
                    .reuse_for(limit);
                let mut config = SearchConfig {
                    batch_size: self.net.map_or(self.config.batch_size, |n| {
                        n.leaves(limit, self.config.algorithm)
                    }),
                    reuse_tree: reuse,
                    ..self.config.clone()
                };
                let thinking = Thinking::new(limit, start, &mut config, game);
                let root = G::search_state_with(game, &self.tables);
                think_search::<G>(eval, &config, &mut self.rng, root, thinking, &mut self.kept)?
            }
            Brain::Own(p) => think_own(p.as_mut(), game, limit, &mut self.rng)?,
        };
        thought.network = network;
        thought.elapsed = start.elapsed();
        Ok(thought)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_draughts::Draughts;
    use dama_engine::{Game, Rules};

    type Bot = super::Bot<Draughts>;

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
        let net =
            dama_nnue::FloatNet::random::<dama_draughts::DraughtsFeatures>(&Rules::default(), 4);
        dama_nnue::write_network(&file, &net, &[]).unwrap();
        let out = tmp.path().join("b");
        crate::export_evaluator(&crate::EvaluatorExportOptions {
            evaluator: file,
            out: out.clone(),
            limit: AlphaBetaLimit::Depth(2),
            threads: 2,
            wheel: None,
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
        let mut session = crate::Session::<Draughts>::new(bot);
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
