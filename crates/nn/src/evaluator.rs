//! Batched network inference behind [`dama_mcts::Evaluator`].

use std::path::Path;

use dama_mcts::{Evaluation, Evaluator, Game as SearchGame, Leaf, Pov, Wdl};
use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor};

use crate::batch::BatchBuilder;
use crate::checkpoint;
use crate::error::{Error, Result};
use crate::model::Network;
use dama_game::{NnInput, Shape};

/// Numeric precision of inference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// 32-bit floats (default).
    #[default]
    F32,
    /// bfloat16 weights and activations (CPUs with AVX-512 BF16/AMX, or
    /// CUDA); outputs are converted back to f32.
    Bf16,
}

impl Precision {
    /// The tensor kind of this precision.
    pub(crate) fn kind(self) -> Kind {
        match self {
            Precision::F32 => Kind::Float,
            Precision::Bf16 => Kind::BFloat16,
        }
    }
}

/// Raw network outputs for a batch of `n` positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawOutput {
    /// Unmasked policy logits, `n · N` values, row-major `[n, N]` (`N` the
    /// policy size of the network's [`Shape`]).
    pub policy_logits: Vec<f32>,
    /// Win/draw/loss probabilities (softmaxed) for the player to move,
    /// `n · 3` values, row-major `[n, 3]`.
    pub wdl: Vec<f32>,
}

/// Runs a [`Network`] in evaluation mode on batches of positions; implements
/// the search's [`Evaluator`].
///
/// It holds its own copy of the weights (possibly in bf16 or on another
/// device), refreshed with [`NnEvaluator::load_weights_from`].
///
/// # Examples
///
/// ```
/// use dama_nn::{ModelConfig, Network, NnEvaluator, Precision};
///
/// let net = Network::new(&ModelConfig::quick(), tch::Device::Cpu)?;
/// let mut eval = NnEvaluator::new(&net, tch::Device::Cpu, Precision::F32)?;
/// let game = dama_draughts::DamaState::new(dama_engine::Game::new());
/// let actions: Vec<_> = game.game().legal_steps().into_iter().collect();
/// let out = eval.evaluate_states(&[(&game, actions.as_slice())])?;
/// assert_eq!(out[0].policy.len(), actions.len());
/// assert!((out[0].policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
/// # Ok::<(), dama_nn::Error>(())
/// ```
///
/// # Lanes
///
/// On a CPU, one libtorch call on a small batch keeps about one core busy
/// however many intra-op threads it has. An evaluator made
/// [`with_lanes`](NnEvaluator::with_lanes) holds `k` copies of the network,
/// each run by its own thread with one libtorch thread, and splits each
/// batch into `k` contiguous parts evaluated at the same time: the way to
/// keep every core busy in self-play, the arena and a search at play time.
/// Which positions share a call depends only on the batch and `k`, so the
/// results are as reproducible as with one lane.
#[derive(Debug)]
pub struct NnEvaluator {
    /// The network the calling thread runs (without lanes), and the one
    /// lanes copy.
    net: Network,
    precision: Precision,
    inputs: BatchBuilder,
    /// The lanes, when there are two or more.
    lanes: Option<crate::lanes::Lanes>,
}

/// The most lanes an evaluator accepts (each is a copy of the network and
/// a thread).
pub const MAX_LANES: usize = 64;

impl NnEvaluator {
    /// An evaluator running a copy of `net` on `device` with `precision`.
    ///
    /// # Errors
    ///
    /// libtorch errors (e.g. CUDA requested but unavailable).
    pub fn new(net: &Network, device: Device, precision: Precision) -> Result<NnEvaluator> {
        Ok(NnEvaluator {
            net: net.inference_copy(device, precision.kind())?,
            precision,
            inputs: BatchBuilder::for_shape(net.config().shape()),
            lanes: None,
        })
    }

    /// An evaluator running `lanes` copies of `net` at once (see [Lanes]),
    /// each on its own thread with one libtorch thread; 0 means one per
    /// core. On CUDA (one device, already parallel) it has one lane.
    ///
    /// [Lanes]: NnEvaluator#lanes
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for more than [`MAX_LANES`] lanes or a thread
    /// lane thread that cannot start; libtorch errors.
    ///
    /// # Examples
    ///
    /// ```
    /// use dama_nn::{ModelConfig, Network, NnEvaluator, Precision};
    ///
    /// let net = Network::new(&ModelConfig::quick(), tch::Device::Cpu)?;
    /// let mut two = NnEvaluator::with_lanes(&net, tch::Device::Cpu, Precision::F32, 2)?;
    /// let mut one = NnEvaluator::new(&net, tch::Device::Cpu, Precision::F32)?;
    /// let game = dama_draughts::DamaState::new(dama_engine::Game::new());
    /// let actions: Vec<_> = game.game().legal_steps().into_iter().collect();
    /// let batch = vec![(&game, actions.as_slice()); 5];
    /// let (a, b) = (two.evaluate_states(&batch)?, one.evaluate_states(&batch)?);
    /// assert_eq!(two.lanes(), 2);
    /// assert_eq!(a.len(), 5);
    /// assert!((a[4].value.win - b[4].value.win).abs() < 1e-5);
    /// # Ok::<(), dama_nn::Error>(())
    /// ```
    pub fn with_lanes(
        net: &Network,
        device: Device,
        precision: Precision,
        lanes: usize,
    ) -> Result<NnEvaluator> {
        let mut eval = NnEvaluator::new(net, device, precision)?;
        if device != Device::Cpu {
            return Ok(eval);
        }
        let lanes = if lanes == 0 {
            crate::device::cores().min(MAX_LANES)
        } else {
            lanes
        };
        if lanes > MAX_LANES {
            return Err(Error::Config(format!(
                "{lanes} inference lanes, more than the limit of {MAX_LANES}"
            )));
        }
        if lanes > 1 {
            eval.lanes = Some(crate::lanes::Lanes::start(net, device, precision, lanes)?);
        }
        Ok(eval)
    }

    /// Runs every lane on batches of every size up to the part of a batch
    /// of `batch` positions it would get, twice: libtorch prepares its
    /// kernels lazily, on the first calls of a network copy at each batch
    /// size (hundreds of milliseconds), which a timed search should not pay
    /// on its first move.
    ///
    /// # Errors
    ///
    /// libtorch errors.
    pub fn warm_up(&mut self, batch: usize) -> Result<()> {
        let per_lane = batch.div_ceil(self.lanes()).clamp(1, 256);
        match &self.lanes {
            Some(lanes) => lanes.warm_up(per_lane),
            None => crate::lanes::warm(&self.net, self.precision, self.shape(), per_lane),
        }
    }

    /// The number of network copies evaluating parts of a batch at once.
    pub fn lanes(&self) -> usize {
        self.lanes.as_ref().map_or(1, crate::lanes::Lanes::len)
    }

    /// An evaluator for the checkpoint of `game` (any of its rules) whose
    /// weights are at `path`; another game's checkpoint is refused by name.
    ///
    /// # Errors
    ///
    /// As [`checkpoint::load_game_network`].
    pub fn from_checkpoint(
        path: &Path,
        device: Device,
        precision: Precision,
        game: crate::GameName,
    ) -> Result<NnEvaluator> {
        let (net, _) = checkpoint::load_game_network(path, device, game)?;
        NnEvaluator::new(&net, device, precision)
    }

    /// Replaces the weights by those of `net` (same config), e.g. after
    /// training steps.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] if the configs differ; libtorch errors.
    pub fn load_weights_from(&mut self, net: &Network) -> Result<()> {
        self.net.check_same_config(net)?;
        self.net = net.inference_copy(self.net.device(), self.precision.kind())?;
        if let Some(lanes) = &self.lanes {
            lanes.load(net, self.net.device(), self.precision)?;
        }
        Ok(())
    }

    /// The network being run.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// The inference precision.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The encoding shapes of the network.
    pub fn shape(&self) -> Shape {
        self.net.config().shape()
    }

    /// Runs the network on `n` encoded positions: `planes` holds `n · C · H
    /// · W` values (`[n, C, H, W]`, row-major, the network's [`Shape`]).
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] if `planes` has the wrong length; libtorch errors.
    pub fn infer(&self, planes: &[f32], n: usize) -> Result<RawOutput> {
        match &self.lanes {
            Some(lanes) => lanes.infer(planes, n),
            None => infer_on(&self.net, self.precision, planes, n),
        }
    }

    /// Evaluates states with explicit action lists: encodes them, runs one
    /// forward pass, softmaxes the logits of the legal actions only (in the
    /// order given) and returns their priors with the WDL value.
    ///
    /// # Errors
    ///
    /// As [`NnEvaluator::infer`].
    pub fn evaluate_states<S: NnInput>(
        &mut self,
        batch: &[(&S, &[S::Action])],
    ) -> Result<Vec<Evaluation>> {
        let shape = self.shape();
        check_shape::<S>(shape)?;
        let mut inputs = std::mem::replace(&mut self.inputs, BatchBuilder::for_shape(shape));
        let out = match &self.lanes {
            Some(lanes) => evaluate_on_lanes(&mut inputs, batch, lanes),
            None => evaluate_with(&mut inputs, batch, |p, n| {
                infer_on(&self.net, self.precision, p, n)
            }),
        };
        self.inputs = inputs;
        out
    }
}

/// [`NnEvaluator::evaluate_states`] on lanes: the caller encodes the batch
/// and lists each position's legal actions' policy indices; the lanes run
/// the network and softmax their own positions' legal logits.
fn evaluate_on_lanes<S: NnInput>(
    inputs: &mut BatchBuilder,
    batch: &[(&S, &[S::Action])],
    lanes: &crate::lanes::Lanes,
) -> Result<Vec<Evaluation>> {
    inputs.reset(S::SHAPE);
    let mut legal = Vec::new();
    let mut ends = Vec::with_capacity(batch.len());
    for (state, actions) in batch {
        inputs.push_state(*state);
        legal.extend(actions.iter().map(|&a| state.policy_index(a) as u32));
        ends.push(legal.len() as u32);
    }
    let parts = lanes.priors(inputs.planes_slice(), inputs.len(), &legal, &ends)?;
    // The parts hold the batch's positions in order, each position's
    // priors as many as its actions.
    let mut out = Vec::with_capacity(batch.len());
    let mut rows = batch.iter();
    for part in &parts {
        let mut from = 0;
        for w in part.wdl.chunks_exact(3) {
            let (_, actions) = rows.next().ok_or_else(|| too_many(batch.len()))?;
            let to = from + actions.len();
            let policy = part
                .probs
                .get(from..to)
                .ok_or_else(|| too_many(batch.len()))?;
            out.push(Evaluation {
                policy: policy.to_vec(),
                value: Wdl::<Pov>::new(w[0], w[1], w[2]),
            });
            from = to;
        }
    }
    if out.len() != batch.len() {
        return Err(too_many(batch.len()));
    }
    Ok(out)
}

fn too_many(asked: usize) -> Error {
    Error::Shape(format!(
        "the lanes answered another number of positions or priors than the {asked} asked"
    ))
}

/// [`NnEvaluator::infer`] on one network.
pub(crate) fn infer_on(
    net: &Network,
    precision: Precision,
    planes: &[f32],
    n: usize,
) -> Result<RawOutput> {
    let shape = net.config().shape();
    let Some(xs) = input_tensor(planes, n, shape, net.device())? else {
        return Ok(RawOutput::default());
    };
    tch::no_grad(|| {
        let xs = xs.f_to_kind(precision.kind())?;
        let out = net.f_forward_t(&xs, false)?;
        raw_output(&out.policy, &out.wdl, n, shape.policy_size())
    })
}

/// Checks that a network of `net` shape can evaluate states of `S`.
pub(crate) fn check_shape<S: NnInput>(net: Shape) -> Result<()> {
    if net != S::SHAPE {
        return Err(Error::Shape(format!(
            "the network is built for {net}, these positions encode as {}",
            S::SHAPE
        )));
    }
    Ok(())
}

/// Checks that `planes` holds `n` encoded positions of `shape` and makes the
/// network input `[n, C, H, W]` on `device`; `None` for an empty batch.
pub(crate) fn input_tensor(
    planes: &[f32],
    n: usize,
    shape: Shape,
    device: Device,
) -> Result<Option<Tensor>> {
    let per = shape.planes_len();
    if planes.len() != n * per {
        return Err(Error::Shape(format!(
            "infer: {} plane values for {n} positions of {per}",
            planes.len()
        )));
    }
    if n == 0 {
        return Ok(None);
    }
    Ok(Some(
        Tensor::f_from_slice(planes)?
            .f_view([
                n as i64,
                shape.planes as i64,
                shape.height as i64,
                shape.width as i64,
            ])?
            .f_to_device(device)?,
    ))
}

/// Copies a forward pass's outputs to the CPU: policy logits as they are
/// (`[n, policy_size]`), the WDL logits (`[n, 3]`) softmaxed.
pub(crate) fn raw_output(
    policy: &Tensor,
    wdl_logits: &Tensor,
    n: usize,
    policy_size: usize,
) -> Result<RawOutput> {
    let policy = policy
        .f_to_kind(Kind::Float)?
        .f_to_device(Device::Cpu)?
        .f_contiguous()?;
    let wdl = wdl_logits
        .f_to_kind(Kind::Float)?
        .f_softmax(1, Kind::Float)?
        .f_to_device(Device::Cpu)?
        .f_contiguous()?;
    let mut policy_logits = vec![0f32; n * policy_size];
    policy.f_copy_data(&mut policy_logits, n * policy_size)?;
    let mut wdl_v = vec![0f32; n * 3];
    wdl.f_copy_data(&mut wdl_v, n * 3)?;
    Ok(RawOutput {
        policy_logits,
        wdl: wdl_v,
    })
}

/// Encodes `batch` into `inputs` (reused between calls), runs `infer` once
/// and turns its raw outputs into evaluations: a softmax over each state's
/// legal actions, in the order given, and its WDL.
pub(crate) fn evaluate_with<S: NnInput>(
    inputs: &mut BatchBuilder,
    batch: &[(&S, &[S::Action])],
    infer: impl FnOnce(&[f32], usize) -> Result<RawOutput>,
) -> Result<Vec<Evaluation>> {
    inputs.reset(S::SHAPE);
    for (state, _) in batch {
        inputs.push_state(*state);
    }
    let raw = infer(inputs.planes_slice(), inputs.len())?;
    let np = S::SHAPE.policy_size();
    let rows = raw.wdl.len() / 3;
    if rows != batch.len() || raw.policy_logits.len() != np * rows {
        return Err(Error::Shape(format!(
            "the network answered {rows} positions of {} asked",
            batch.len()
        )));
    }
    let rows = raw
        .policy_logits
        .chunks_exact(np)
        .zip(raw.wdl.chunks_exact(3));
    Ok(batch
        .iter()
        .zip(rows)
        .map(|((state, actions), (logits, w))| Evaluation {
            policy: masked_softmax(logits, actions.iter().map(|&a| state.policy_index(a))),
            value: Wdl::<Pov>::new(w[0], w[1], w[2]),
        })
        .collect())
}

/// Softmax over the logits at `indices` (the legal actions), in that order.
pub fn masked_softmax(logits: &[f32], indices: impl Iterator<Item = usize>) -> Vec<f32> {
    let mut p = Vec::new();
    softmax_into(logits, indices, &mut p);
    p
}

/// [`masked_softmax`], appended to `out`.
pub(crate) fn softmax_into(
    logits: &[f32],
    indices: impl Iterator<Item = usize>,
    out: &mut Vec<f32>,
) {
    let start = out.len();
    out.extend(indices.map(|i| logits[i]));
    let p = &mut out[start..];
    let max = p.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in p.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    if sum > 0.0 && sum.is_finite() {
        for v in p.iter_mut() {
            *v /= sum;
        }
    }
}

impl<G> Evaluator<G> for NnEvaluator
where
    G: SearchGame + NnInput<Action = <G as SearchGame>::Action>,
{
    type Error = Error;

    fn evaluate(&mut self, batch: &[Leaf<'_, G>]) -> Result<Vec<Evaluation>> {
        let pairs: Vec<(&G, &[<G as SearchGame>::Action])> =
            batch.iter().map(|l| (l.state, l.actions)).collect();
        self.evaluate_states(&pairs)
    }
}
