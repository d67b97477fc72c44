//! `ckpt:PATH[,sims=N|time=MS][,search=gumbel|puct]` and `policy:PATH`:
//! players backed by a checkpoint, through `dama_nn`'s [`NnEvaluator`].
//!
//! The factory loads the network once; every player it builds gets its own
//! copy of the weights on the device (so parallel games do not contend for
//! one evaluator), and searches one step at a time like
//! [`MctsPlayer`](crate::MctsPlayer).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dama_engine::{Game, Move, StepResult};
use dama_mcts::{Algorithm, Evaluator, SearchConfig};
use dama_nn::{DeviceSpec, Network, NnEvaluator, Precision};
use rand::RngCore;

use crate::mcts_player::choose_by_steps;
use crate::player::{BuildOptions, Player, PlayerFactory};
use crate::searcher::{BatchedSearcher, NetworkError};
use crate::spec::{PlayerSpec, SearchBudget};
use crate::timed::{choose_by_steps_timed, SimRate};
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

pub(crate) fn factory(
    spec: &PlayerSpec,
    name: String,
    options: &BuildOptions,
) -> Result<Arc<dyn PlayerFactory>, Error> {
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
    let (net, _meta) = dama_nn::load_network(path, device, options.rules.as_ref())
        .map_err(|e| nn_error(&name, e))?;
    Ok(Arc::new(NetworkFactory {
        name,
        path: path.clone(),
        net: Mutex::new(net),
        device_spec,
        search,
        time,
        lanes,
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
/// temperature, no tree reuse), batch 1 on a CPU, [`DEFAULT_CUDA_BATCH`] on
/// a GPU (a spec's `batch=` replaces it).
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

struct NetworkFactory {
    name: String,
    path: PathBuf,
    net: Mutex<Network>,
    device_spec: DeviceSpec,
    search: Option<SearchConfig>,
    time: Option<Duration>,
    lanes: Lanes,
}

impl NetworkFactory {
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

impl PlayerFactory for NetworkFactory {
    fn name(&self) -> &str {
        &self.name
    }

    fn batched(&self) -> Result<Option<BatchedSearcher>, Error> {
        match (&self.search, self.time) {
            (Some(config), None) => Ok(Some(BatchedSearcher {
                evaluator: Box::new(Erased(self.evaluator(self.lanes.shared)?)),
                config: config.clone(),
            })),
            _ => Ok(None),
        }
    }

    fn build(&self) -> Result<Box<dyn Player>, Error> {
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
            let game = dama_draughts::DamaState::new(Game::new());
            let steps: Vec<_> = game.game().legal_steps().into_iter().collect();
            for _ in 0..2 {
                let t = std::time::Instant::now();
                evaluator
                    .evaluate_states(&[(&game, steps.as_slice())])
                    .map_err(|e| nn_error(&self.name, e))?;
                rate = SimRate::default();
                rate.observe(t.elapsed(), 1);
            }
        }
        Ok(Box::new(NetworkPlayer {
            name: self.name.clone(),
            evaluator,
            search: self.search.clone(),
            time: self.time,
            rate,
        }))
    }
}

/// A checkpoint player: search with the network, or its raw policy.
pub struct NetworkPlayer {
    name: String,
    evaluator: NnEvaluator,
    search: Option<SearchConfig>,
    /// Time per move (timed players).
    time: Option<Duration>,
    rate: SimRate,
}

impl NetworkPlayer {
    /// The checkpoint at `path` on `device`: with `search` it runs that search per decision, without it
    /// plays the most probable step of the raw policy.
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
        let evaluator = NnEvaluator::from_checkpoint(path, device, Precision::F32, None)
            .map_err(|e| nn_error(&name, e))?;
        Ok(Self {
            name,
            evaluator,
            search,
            time: None,
            rate: SimRate::default(),
        })
    }

    fn policy_move(&mut self, game: &Game) -> Result<Move, Error> {
        let mut state = game.clone();
        loop {
            let steps: Vec<_> = state.legal_steps().into_iter().collect();
            let step = match steps.len() {
                0 => {
                    return Err(Error::Player {
                        player: self.name.clone(),
                        message: "no legal step".to_owned(),
                    })
                }
                1 => steps[0],
                _ => {
                    let eval = self
                        .evaluator
                        .evaluate_states(&[(
                            &dama_draughts::DamaState::new(state.clone()),
                            steps.as_slice(),
                        )])
                        .map_err(|e| nn_error(&self.name, e))?;
                    let policy = eval.first().map(|e| e.policy.as_slice()).unwrap_or(&[]);
                    let p = |i: usize| policy.get(i).copied().unwrap_or(0.0);
                    let best = (0..steps.len())
                        .max_by(|&a, &b| p(a).total_cmp(&p(b)))
                        .unwrap_or(0);
                    steps[best]
                }
            };
            match state.play_step(step).map_err(|e| Error::Player {
                player: self.name.clone(),
                message: format!("illegal step {step}: {e}"),
            })? {
                StepResult::Completed(m) => return Ok(m),
                StepResult::InProgress => {}
            }
        }
    }
}

impl Player for NetworkPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, rng: &mut dyn RngCore) -> Result<Move, Error> {
        match &self.search {
            None => self.policy_move(game),
            Some(config) => match self.time {
                None => choose_by_steps(&self.name, game, config, &mut self.evaluator, rng),
                Some(budget) => choose_by_steps_timed(
                    &self.name,
                    game,
                    config,
                    &mut self.evaluator,
                    rng,
                    budget,
                    &mut self.rate,
                ),
            },
        }
    }
}

impl std::fmt::Debug for NetworkFactory {
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

/// The Turkish Tafl player a spec names: a baseline
/// ([`crate::tafl::baseline_of`]) or a checkpoint trained under `rules`
/// ([`tafl_network_player`]).
///
/// # Errors
///
/// As [`crate::tafl::baseline_of`] and [`tafl_network_player`].
pub fn tafl_player(
    spec: &PlayerSpec,
    options: &BuildOptions,
    rules: &dama_tafl::TaflRules,
) -> Result<crate::tafl::TaflPlayer, Error> {
    match crate::tafl::baseline_of(spec)? {
        Some(b) => Ok(crate::tafl::TaflPlayer::Baseline(b)),
        None => tafl_network_player(spec, options, rules),
    }
}

/// A Turkish Tafl checkpoint player for [`crate::tafl::play_tafl_match`]:
/// `ckpt:PATH[,sims=N][,search=…][,draw=D]` with a simulation budget, whose
/// checkpoint was trained under exactly `rules` (another game's, or other
/// rules', is refused by name).
///
/// # Errors
///
/// A spec that is not a checkpoint with a simulation budget, a missing or
/// incompatible checkpoint, the device.
pub fn tafl_network_player(
    spec: &PlayerSpec,
    options: &BuildOptions,
    rules: &dama_tafl::TaflRules,
) -> Result<crate::tafl::TaflPlayer, Error> {
    let name = spec.to_string();
    let PlayerSpec::Checkpoint {
        path,
        budget,
        search,
        draw_score,
        inference,
    } = spec
    else {
        return Err(Error::Spec(format!(
            "`{name}` is not a checkpoint player (ckpt:PATH)"
        )));
    };
    let SearchBudget::Sims(sims) = *budget else {
        return Err(Error::Spec(format!(
            "`{name}`: Turkish Tafl checkpoint players search to a simulation count (sims=N), not a time"
        )));
    };
    spec.check_files().map_err(|e| Error::Player {
        player: name.clone(),
        message: e.to_string(),
    })?;
    let device = dama_nn::device::resolve(options.device.unwrap_or_default())
        .map_err(|e| nn_error(&name, e))?;
    let (net, _meta) = dama_nn::load_network_for(path, device, &dama_nn::GameRules::Tafl(*rules))
        .map_err(|e| nn_error(&name, e))?;
    // The Tafl arena batches the searches of all games in flight through
    // this one evaluator: one lane per core, as draughts' batched arena.
    let cores = dama_nn::device::cores();
    let lanes = inference.lanes_or(cores);
    let evaluator = NnEvaluator::with_lanes(
        &net,
        device,
        net_precision(inference.precision_for(*budget), device),
        lanes,
    )
    .map_err(|e| nn_error(&name, e))?;
    let cuda = matches!(device, dama_nn::device::Device::Cuda(_));
    let config = SearchConfig {
        draw_score: *draw_score,
        batch_size: inference.leaves_for(*budget, *search, cuda, lanes),
        ..search_config(*search, sims, &device)
    };
    Ok(crate::tafl::TaflPlayer::Network {
        name,
        evaluator: Box::new(Erased(evaluator)),
        config,
        sims,
    })
}

/// A Turkish Tafl ladder: one match per pair of `pairs` between the players
/// (labels and specs; baselines or Tafl checkpoints trained under
/// `config.rules`), each with `config` (its seed varied per match, as
/// [`crate::run_ladder`] does), then one Elo fit over the labels.
/// `on_game` sees each match's progress, `on_match` each finished match
/// (index, count, result).
///
/// # Errors
///
/// A player that cannot be built, the matches, the fit.
pub fn run_tafl_ladder(
    players: &[(String, PlayerSpec)],
    pairs: &[(usize, usize)],
    config: &crate::tafl::TaflMatchConfig,
    options: &BuildOptions,
    fit: &crate::FitConfig,
    on_game: &(dyn Fn(&crate::tafl::TaflProgress) + Sync),
    on_match: &mut dyn FnMut(usize, usize, &crate::tafl::TaflMatchResult),
) -> Result<(Vec<crate::tafl::TaflMatchResult>, crate::RatingTable), Error> {
    let mut results = Vec::with_capacity(pairs.len());
    let mut matches = Vec::with_capacity(pairs.len());
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let (Some((la, sa)), Some((lb, sb))) = (players.get(i), players.get(j)) else {
            return Err(Error::Spec(format!(
                "pairing ({i}, {j}) names a player out of {}",
                players.len()
            )));
        };
        let mut a = tafl_player(sa, options, &config.rules)?;
        let mut b = tafl_player(sb, options, &config.rules)?;
        let mc = crate::tafl::TaflMatchConfig {
            seed: config
                .seed
                .wrapping_add((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            ..config.clone()
        };
        let r = crate::tafl::play_tafl_match(&mut a, &mut b, &mc, on_game)?;
        on_match(k, pairs.len(), &r);
        results.push(crate::PairResult::new(la.clone(), lb.clone(), r.total()));
        matches.push(r);
    }
    let table = crate::fit_elo(&results, fit)?;
    Ok((matches, table))
}
