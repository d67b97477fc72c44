//! `ckpt:PATH[,sims=N|time=MS][,search=gumbel|puct]` and `policy:PATH`:
//! players backed by a checkpoint, through `dama_nn`'s [`NnEvaluator`],
//! for every game (its search state is the network's input).
//!
//! The factory loads the network once; every player it builds gets its own
//! copy of the weights on the device (so parallel games do not contend for
//! one evaluator), and searches one step at a time like
//! [`MctsPlayer`](crate::MctsPlayer).

use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dama_game::{GameDef, GameError};
use dama_mcts::{Algorithm, Evaluator, Game as SearchGame, SearchConfig};
use dama_nn::{DeviceSpec, GameName, Network, NnEvaluator, Precision};
use rand::RngCore;

use crate::mcts_player::choose_by_steps;
use crate::player::{BuildOptions, Player, PlayerFactory};
use crate::searcher::{BatchedSearcher, NetworkError};
use crate::spec::{PlayerSpec, SearchBudget};
use crate::timed::{choose_by_steps_timed, Carried, SimRate};
use crate::Error;

/// The precision a network runs at on `device` for `choice` (`auto`:
/// bf16 on a CPU that runs it fast, detected at run time).
#[must_use]
pub fn net_precision(choice: crate::NetPrecision, device: dama_nn::device::Device) -> Precision {
    let choice = match choice {
        crate::NetPrecision::Auto => dama_nn::PrecisionChoice::Auto,
        crate::NetPrecision::F32 => dama_nn::PrecisionChoice::F32,
        crate::NetPrecision::Bf16 => dama_nn::PrecisionChoice::Bf16,
    };
    choice.resolve(device, dama_nn::CpuFeatures::detect())
}

fn nn_error(name: &str, e: dama_nn::Error) -> Error {
    Error::Network {
        player: name.to_owned(),
        source: Box::new(e),
    }
}

/// A checkpoint trained for `G` (under `options.rules` when given: a
/// checkpoint of other rules, or of another game, is refused by name).
fn load_for<G: GameDef>(
    name: &str,
    path: &Path,
    device: dama_nn::device::Device,
    options: &BuildOptions,
) -> Result<Network, Error> {
    let game = GameName::of::<G>().ok_or_else(|| {
        Error::Spec(format!(
            "`{name}`: {} has no network players (it is not in the registry)",
            G::TITLE
        ))
    })?;
    let loaded = match &options.rules {
        Some(rules) if rules.name() != game => {
            return Err(Error::Spec(format!(
                "`{name}`: the players are built for {} but the rules given are {rules}",
                G::TITLE
            )))
        }
        Some(rules) => dama_nn::load_network_for(path, device, rules),
        None => dama_nn::load_game_network(path, device, game),
    };
    loaded
        .map(|(net, _meta)| net)
        .map_err(|e| nn_error(name, e))
}

pub(crate) fn factory<G: GameDef>(
    spec: &PlayerSpec,
    name: String,
    options: &BuildOptions,
) -> Result<Arc<dyn PlayerFactory<G>>, Error> {
    let device_spec = options.device.unwrap_or_default();
    let device = dama_nn::device::resolve(device_spec).map_err(|e| nn_error(&name, e))?;
    let cores = dama_nn::device::cores();
    let (path, search, time, lanes) = match spec {
        PlayerSpec::Checkpoint {
            path,
            budget,
            search,
            draw_score,
            inference,
        } => {
            // A timed player sets its simulations per decision itself.
            let (sims, time) = match *budget {
                SearchBudget::Sims(n) => (n, None),
                SearchBudget::Time(d) => (crate::mcts_player::MAX_TIMED_SIMS, Some(d)),
            };
            let cuda = matches!(device, dama_nn::device::Device::Cuda(_));
            let lanes = Lanes {
                player: inference.lanes_or(options.lanes.unwrap_or(1)),
                shared: inference.lanes_or(cores),
                precision: net_precision(inference.precision_for(*budget), device),
            };
            // A simulation budget searches one leaf at a time (batched
            // across games in the arena); a timed one as many as its lanes
            // take.
            let config = SearchConfig {
                draw_score: *draw_score,
                batch_size: inference.leaves_for(*budget, *search, cuda, lanes.player),
                reuse_tree: inference.reuse_for(*budget),
                ..search_config(*search, sims, &device)
            };
            (path, Some(config), time, lanes)
        }
        PlayerSpec::Policy { path } => (path, None, None, Lanes::default()),
        _ => return Err(Error::Spec(format!("`{name}` is not a checkpoint player"))),
    };
    spec.check_files().map_err(|e| Error::Player {
        player: name.clone(),
        message: e.to_string(),
    })?;
    let net = load_for::<G>(&name, path, device, options)?;
    Ok(Arc::new(NetworkFactory::<G> {
        name,
        path: path.clone(),
        net: Mutex::new(net),
        device_spec,
        search,
        time,
        lanes,
        game: PhantomData,
    }))
}

/// Network copies of a checkpoint player's evaluators, and their
/// precision.
#[derive(Clone, Copy, Debug)]
struct Lanes {
    /// A player of one game.
    player: usize,
    /// The batched arena's evaluator, shared by the games in flight.
    shared: usize,
    precision: Precision,
}

impl Default for Lanes {
    fn default() -> Self {
        Lanes {
            player: 1,
            shared: 1,
            precision: Precision::F32,
        }
    }
}

/// The search of a checkpoint player: deterministic (no noise, no
/// temperature, no tree reuse: a timed player's spec turns it on), batch
/// 1 on a CPU, [`DEFAULT_CUDA_BATCH`] on a GPU (a spec's `batch=`
/// replaces it).
///
/// [`DEFAULT_CUDA_BATCH`]: crate::spec::DEFAULT_CUDA_BATCH
pub(crate) fn search_config(
    search: Algorithm,
    sims: u32,
    device: &dama_nn::device::Device,
) -> SearchConfig {
    SearchConfig {
        algorithm: search,
        simulations: sims,
        // On a GPU one search gathers several leaves per network call
        // (kept apart by virtual loss); on a CPU parallel games keep
        // the cores busy and batch 1 is exact.
        batch_size: if matches!(device, dama_nn::device::Device::Cuda(_)) {
            crate::spec::DEFAULT_CUDA_BATCH.min(sims)
        } else {
            1
        },
        reuse_tree: false,
        temperature: 0.0,
        dirichlet_epsilon: 0.0,
        // Evaluation plays the search's best move: no Gumbel noise
        // (with a flat prior and few simulations the noise would
        // choose the move; games still differ by their openings).
        gumbel_scale: 0.0,
        ..SearchConfig::default()
    }
}

struct NetworkFactory<G> {
    name: String,
    path: PathBuf,
    net: Mutex<Network>,
    device_spec: DeviceSpec,
    search: Option<SearchConfig>,
    time: Option<Duration>,
    lanes: Lanes,
    game: PhantomData<fn() -> G>,
}

impl<G> NetworkFactory<G> {
    fn evaluator(&self, lanes: usize) -> Result<NnEvaluator, Error> {
        let net = match self.net.lock() {
            Ok(n) => n,
            Err(poisoned) => poisoned.into_inner(),
        };
        let device =
            dama_nn::device::resolve(self.device_spec).map_err(|e| nn_error(&self.name, e))?;
        NnEvaluator::with_lanes(&net, device, self.lanes.precision, lanes)
            .map_err(|e| nn_error(&self.name, e))
    }
}

impl<G: GameDef> PlayerFactory<G> for NetworkFactory<G> {
    fn name(&self) -> &str {
        &self.name
    }

    fn batched(&self) -> Result<Option<BatchedSearcher<G::State>>, Error> {
        match (&self.search, self.time) {
            (Some(config), None) => Ok(Some(BatchedSearcher {
                evaluator: Box::new(Erased(self.evaluator(self.lanes.shared)?)),
                config: config.clone(),
            })),
            _ => Ok(None),
        }
    }

    fn build(&self) -> Result<Box<dyn Player<G>>, Error> {
        let mut evaluator = self.evaluator(self.lanes.player)?;
        let mut rate = SimRate::default();
        if let (Some(config), Some(_)) = (&self.search, self.time) {
            // libtorch initialises lazily on the first forward passes of a
            // network copy at each batch size (hundreds of ms): pay that
            // here, not on the first move's clock, and time one evaluation
            // for the first timed Gumbel search.
            evaluator
                .warm_up(config.batch_size as usize)
                .map_err(|e| nn_error(&self.name, e))?;
            let state = G::search_state(&G::start(&G::Rules::default()));
            let mut actions = Vec::new();
            state.legal_actions(&mut actions);
            for _ in 0..2 {
                let t = std::time::Instant::now();
                evaluator
                    .evaluate_states(&[(&state, actions.as_slice())])
                    .map_err(|e| nn_error(&self.name, e))?;
                rate = SimRate::default();
                rate.observe(t.elapsed(), 1);
            }
        }
        Ok(Box::new(NetworkPlayer::<G> {
            name: self.name.clone(),
            evaluator,
            search: self.search.clone(),
            time: self.time,
            carried: Carried { rate, kept: None },
        }))
    }
}

/// A checkpoint player of a game of `G`: search with the network, or its
/// raw policy.
pub struct NetworkPlayer<G: GameDef> {
    name: String,
    evaluator: NnEvaluator,
    search: Option<SearchConfig>,
    /// Time per move (timed players).
    time: Option<Duration>,
    /// The rate and the tree a timed player carries from move to move.
    carried: Carried<G::State>,
}

impl<G: GameDef> NetworkPlayer<G> {
    /// The checkpoint at `path` on `device`: with `search` it runs that
    /// search per decision, without it plays the most probable decision of
    /// the raw policy.
    ///
    /// # Errors
    ///
    /// Loading errors of the checkpoint.
    pub fn load(
        name: impl Into<String>,
        path: &Path,
        device: DeviceSpec,
        search: Option<SearchConfig>,
    ) -> Result<Self, Error> {
        let name = name.into();
        let device = dama_nn::device::resolve(device).map_err(|e| nn_error(&name, e))?;
        let game = GameName::of::<G>()
            .ok_or_else(|| Error::Spec(format!("{name}: {} is not a registered game", G::TITLE)))?;
        let evaluator = NnEvaluator::from_checkpoint(path, device, Precision::F32, game)
            .map_err(|e| nn_error(&name, e))?;
        Ok(Self {
            name,
            evaluator,
            search,
            time: None,
            carried: Carried::default(),
        })
    }

    /// The whole move of the raw policy: each decision of the turn its most
    /// probable one (a forced one without asking the network).
    fn policy_move(&mut self, game: &G::Game) -> Result<G::Move, Error> {
        let mut state = G::search_state(game);
        let me = state.to_play();
        let mut decisions = Vec::new();
        let mut actions = Vec::new();
        loop {
            actions.clear();
            state.legal_actions(&mut actions);
            let action = match actions.len() {
                0 => return Err(Error::player(&self.name, "no legal decision".to_owned())),
                1 => actions[0],
                _ => {
                    let eval = self
                        .evaluator
                        .evaluate_states(&[(&state, actions.as_slice())])
                        .map_err(|e| nn_error(&self.name, e))?;
                    let policy = eval.first().map(|e| e.policy.as_slice()).unwrap_or(&[]);
                    let p = |i: usize| policy.get(i).copied().unwrap_or(0.0);
                    let best = (0..actions.len())
                        .max_by(|&a, &b| p(a).total_cmp(&p(b)))
                        .unwrap_or(0);
                    actions[best]
                }
            };
            state.apply(action);
            decisions.push(action);
            if state.outcome().is_some() || state.to_play() != me {
                break;
            }
        }
        G::complete_turn(game, &decisions).map_err(|source| Error::Move {
            player: self.name.clone(),
            source,
        })
    }
}

impl<G: GameDef> Player<G> for NetworkPlayer<G> {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &G::Game, rng: &mut dyn RngCore) -> Result<G::Move, GameError> {
        Ok(match &self.search {
            None => self.policy_move(game)?,
            Some(config) => match self.time {
                None => {
                    choose_by_steps::<G, _>(&self.name, game, config, &mut self.evaluator, rng)?
                }
                Some(budget) => choose_by_steps_timed::<G, _>(
                    &self.name,
                    game,
                    config,
                    &mut self.evaluator,
                    rng,
                    budget,
                    &mut self.carried,
                )?,
            },
        })
    }
}

impl<G> std::fmt::Debug for NetworkFactory<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkFactory")
            .field("name", &self.name)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// An [`NnEvaluator`] behind the arena's type-erased evaluator.
struct Erased(NnEvaluator);

impl<G> Evaluator<G> for Erased
where
    NnEvaluator: Evaluator<G, Error = dama_nn::Error>,
    G: dama_mcts::Game,
{
    type Error = NetworkError;

    fn evaluate(
        &mut self,
        batch: &[dama_mcts::Leaf<'_, G>],
    ) -> Result<Vec<dama_mcts::Evaluation>, NetworkError> {
        Evaluator::<G>::evaluate(&mut self.0, batch).map_err(|e| NetworkError(Box::new(e)))
    }
}

/// The game and rules the checkpoints at `paths` were trained under (from
/// their sidecars): `None` for no paths.
///
/// # Errors
///
/// A sidecar that cannot be read, or checkpoints of different games or
/// rules (naming both), since one match plays one game.
pub fn checkpoint_game(paths: &[PathBuf]) -> Result<Option<dama_nn::GameRules>, Error> {
    let mut found: Option<(dama_nn::GameRules, &PathBuf)> = None;
    for p in paths {
        let name = p.display().to_string();
        let meta = dama_nn::read_meta(p).map_err(|e| nn_error(&name, e))?;
        let rules = meta.game_rules();
        match &found {
            Some((r, q)) if *r != rules => {
                return Err(Error::Spec(format!(
                    "{} was trained for {r} but {} for {rules}: one match plays one game",
                    q.display(),
                    p.display(),
                )))
            }
            Some(_) => {}
            None => found = Some((rules, p)),
        }
    }
    Ok(found.map(|(r, _)| r))
}
