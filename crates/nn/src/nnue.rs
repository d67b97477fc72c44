//! Training the learned evaluation of the alpha-beta engine (the NNUE-style
//! network of `dama-nnue`) with tch.
//!
//! The float network here computes exactly [`FloatNet::forward`]: each
//! perspective's features (dense 0/1 rows of `[B, F::COUNT]`, the game's
//! features: [`dama_nnue::Features`]) through the shared
//! feature transformer, the side to move's half first, clipped ReLU, L1, L2
//! and the output. The loss is the squared error between win probabilities:
//! `σ(output · OUT_SCALE / K)` against the target
//! `(1 − r) · σ(score / K) + r · (result + 1) / 2`, with `K` the score scale
//! and `r` the weight of the game's result (both config keys).

use std::marker::PhantomData;

use dama_nnue::{Features, FloatNet, Sample, FT_WEIGHT_LIMIT, HIDDEN, L1, L1_IN, L2, OUT_SCALE};
use rand::Rng;
use tch::nn::{self, Module, OptimizerConfig};
use tch::{Device, Kind, Tensor};

use crate::{Error, Result};

/// L1's weights are kept within this so that they quantize into `i16`.
const L1_WEIGHT_LIMIT: f64 = 31.0;

/// How an evaluator is trained.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NnueTrainSettings {
    /// Adam's learning rate at the first step; it decays along a cosine to
    /// a tenth of it at the last step of each [`NnueTrainer::train`] call
    /// (the last weights are then not one noisy step of a constant rate).
    pub lr: f64,
    /// Positions per step.
    pub batch_size: usize,
    /// `K`: centi-men of score per unit of logit in the win probability.
    pub score_scale: f32,
    /// `r`: the weight of the game's result in the target (0 = the search
    /// score only, 1 = the result only).
    pub result_weight: f32,
    /// Mirror each position left-right with probability 1/2.
    pub mirror: bool,
}

/// What some training steps did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NnueTrainStats {
    /// Steps taken.
    pub steps: usize,
    /// Mean loss over the steps.
    pub loss: f64,
}

/// The float network of the game whose features are `F`, as tch tensors,
/// with its optimizer.
pub struct NnueTrainer<F: Features> {
    vs: nn::VarStore,
    ft_w: Tensor,
    ft_b: Tensor,
    l1: nn::Linear,
    l2: nn::Linear,
    out: nn::Linear,
    opt: nn::Optimizer,
    rules: F::Rules,
    settings: NnueTrainSettings,
    features: PhantomData<fn() -> F>,
}

impl<F: Features> std::fmt::Debug for NnueTrainer<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NnueTrainer")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

fn set(t: &Tensor, values: &[f32], shape: &[i64]) -> Result<()> {
    let src = Tensor::from_slice(values).view(shape).to_device(t.device());
    let mut t = t.shallow_clone();
    tch::no_grad(|| t.f_copy_(&src))?;
    Ok(())
}

fn values(t: &Tensor) -> Result<Vec<f32>> {
    let flat = t
        .detach()
        .to_device(Device::Cpu)
        .to_kind(Kind::Float)
        .contiguous()
        .view([-1]);
    Ok(Vec::<f32>::try_from(&flat)?)
}

impl<F: Features> NnueTrainer<F> {
    /// A trainer starting from `init`'s weights, with a fresh Adam, on the
    /// CPU (the network is small: a batch of 1 024 positions is about 70
    /// MFLOP).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for out-of-range settings or a malformed `init`
    /// (another game's network included); libtorch's errors.
    pub fn new(init: &FloatNet, settings: NnueTrainSettings) -> Result<Self> {
        let device = Device::Cpu;
        let rules = init
            .check::<F>()
            .map_err(|e| Error::Config(format!("initial evaluator: {e}")))?;
        if let Some(problem) = init.shape_error() {
            return Err(Error::Config(format!("initial evaluator: {problem}")));
        }
        if !(settings.lr > 0.0 && settings.lr < 1.0) {
            return Err(Error::Config(format!(
                "lr must be in (0, 1), got {}",
                settings.lr
            )));
        }
        if settings.batch_size == 0 || settings.batch_size > 1 << 16 {
            return Err(Error::Config(format!(
                "batch_size must be in 1..=65536, got {}",
                settings.batch_size
            )));
        }
        if !(settings.score_scale > 0.0 && settings.score_scale.is_finite()) {
            return Err(Error::Config("score_scale must be positive".to_owned()));
        }
        if !(0.0..=1.0).contains(&settings.result_weight) {
            return Err(Error::Config("result_weight must be in [0, 1]".to_owned()));
        }
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let count = F::COUNT as i64;
        let ft_w = root.zeros("ft_w", &[count, HIDDEN as i64]);
        let ft_b = root.zeros("ft_b", &[HIDDEN as i64]);
        let l1 = nn::linear(&root / "l1", L1_IN as i64, L1 as i64, Default::default());
        let l2 = nn::linear(&root / "l2", L1 as i64, L2 as i64, Default::default());
        let out = nn::linear(&root / "out", L2 as i64, 1, Default::default());
        set(&ft_w, &init.ft_w, &[count, HIDDEN as i64])?;
        set(&ft_b, &init.ft_b, &[HIDDEN as i64])?;
        set(&l1.ws, &init.l1_w, &[L1 as i64, L1_IN as i64])?;
        set(
            l1.bs
                .as_ref()
                .ok_or_else(|| Error::Shape("l1 bias".into()))?,
            &init.l1_b,
            &[L1 as i64],
        )?;
        set(&l2.ws, &init.l2_w, &[L2 as i64, L1 as i64])?;
        set(
            l2.bs
                .as_ref()
                .ok_or_else(|| Error::Shape("l2 bias".into()))?,
            &init.l2_b,
            &[L2 as i64],
        )?;
        set(&out.ws, &init.out_w, &[1, L2 as i64])?;
        set(
            out.bs
                .as_ref()
                .ok_or_else(|| Error::Shape("out bias".into()))?,
            &[init.out_b],
            &[1],
        )?;
        let opt = nn::Adam::default().build(&vs, settings.lr)?;
        Ok(NnueTrainer {
            vs,
            ft_w,
            ft_b,
            l1,
            l2,
            out,
            opt,
            rules,
            settings,
            features: PhantomData,
        })
    }

    /// The raw outputs `[B]` for dense feature rows of the side to move and
    /// the other side (`[B, F::COUNT]` each).
    fn forward(&self, stm: &Tensor, other: &Tensor) -> Tensor {
        let a = stm.matmul(&self.ft_w) + &self.ft_b;
        let b = other.matmul(&self.ft_w) + &self.ft_b;
        let x = Tensor::cat(&[a, b], 1).clamp(0.0, 1.0);
        let h1 = self.l1.forward(&x).clamp(0.0, 1.0);
        let h2 = self.l2.forward(&h1).clamp(0.0, 1.0);
        self.out.forward(&h2).view([-1])
    }

    /// Dense inputs and targets of `batch`, each position mirrored with
    /// probability 1/2 if `mirror`.
    fn tensors(
        &self,
        batch: &[&Sample<F>],
        mirror: bool,
        rng: &mut impl Rng,
    ) -> (Tensor, Tensor, Tensor) {
        let n = batch.len();
        let count = F::COUNT;
        let mut stm = vec![0f32; n * count];
        let mut other = vec![0f32; n * count];
        let mut target = Vec::with_capacity(n);
        let k = self.settings.score_scale;
        let r = self.settings.result_weight;
        for (i, s) in batch.iter().enumerate() {
            let mirror = mirror && rng.gen::<bool>();
            let row = &mut stm[i * count..(i + 1) * count];
            s.for_each_feature(true, mirror, |f| row[f] = 1.0);
            let row = &mut other[i * count..(i + 1) * count];
            s.for_each_feature(false, mirror, |f| row[f] = 1.0);
            let p_score = 1.0 / (1.0 + (-f32::from(s.score) / k).exp());
            let p_result = (f32::from(s.result) + 1.0) / 2.0;
            target.push((1.0 - r) * p_score + r * p_result);
        }
        let device = self.vs.device();
        let dense = |v: Vec<f32>| {
            Tensor::from_slice(&v)
                .view([n as i64, count as i64])
                .to_device(device)
        };
        (
            dense(stm),
            dense(other),
            Tensor::from_slice(&target).to_device(device),
        )
    }

    fn loss(&self, stm: &Tensor, other: &Tensor, target: &Tensor) -> Tensor {
        let scale = f64::from(OUT_SCALE / self.settings.score_scale);
        let p = (self.forward(stm, other) * scale).sigmoid();
        (p - target).square().mean(Kind::Float)
    }

    /// The learning rate of step `step` (from 0) of a `train` call of
    /// `steps` steps: a cosine from `lr` down to a tenth of it.
    pub fn lr_at(&self, step: usize, steps: usize) -> f64 {
        let t = step as f64 / steps.max(2).saturating_sub(1) as f64;
        self.settings.lr * (0.1 + 0.9 * 0.5 * (1.0 + (std::f64::consts::PI * t.min(1.0)).cos()))
    }

    /// `steps` optimizer steps on batches drawn uniformly from `samples`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] if `samples` is empty; libtorch's errors.
    pub fn train(
        &mut self,
        samples: &[Sample<F>],
        steps: usize,
        rng: &mut impl Rng,
        mut on_step: impl FnMut(usize, f64),
    ) -> Result<NnueTrainStats> {
        if samples.is_empty() {
            return Err(Error::Config("no samples to train on".to_owned()));
        }
        let mut total = 0.0;
        for step in 0..steps {
            self.opt.set_lr(self.lr_at(step, steps));
            let batch: Vec<&Sample<F>> = (0..self.settings.batch_size)
                .map(|_| &samples[rng.gen_range(0..samples.len())])
                .collect();
            let (stm, other, target) = self.tensors(&batch, self.settings.mirror, rng);
            let loss = self.loss(&stm, &other, &target);
            self.opt.backward_step(&loss);
            tch::no_grad(|| {
                let limit = f64::from(FT_WEIGHT_LIMIT);
                let _ = self.ft_w.clamp_(-limit, limit);
                let _ = self.ft_b.clamp_(-limit, limit);
                let _ = self.l1.ws.clamp_(-L1_WEIGHT_LIMIT, L1_WEIGHT_LIMIT);
            });
            let l = loss.f_double_value(&[])?;
            total += l;
            on_step(step + 1, l);
        }
        Ok(NnueTrainStats {
            steps,
            loss: if steps == 0 {
                0.0
            } else {
                total / steps as f64
            },
        })
    }

    /// The mean loss over `samples` (no mirroring, no training).
    ///
    /// # Errors
    ///
    /// libtorch's errors.
    pub fn mean_loss(&self, samples: &[Sample<F>]) -> Result<f64> {
        let mut total = 0.0;
        let mut n = 0usize;
        let mut rng = rand::rngs::mock::StepRng::new(0, 0);
        for chunk in samples.chunks(4096) {
            let chunk: Vec<&Sample<F>> = chunk.iter().collect();
            let (stm, other, target) = self.tensors(&chunk, false, &mut rng);
            let l = tch::no_grad(|| self.loss(&stm, &other, &target)).f_double_value(&[])?;
            total += l * chunk.len() as f64;
            n += chunk.len();
        }
        Ok(if n == 0 { 0.0 } else { total / n as f64 })
    }

    /// The network's weights as a [`FloatNet`].
    ///
    /// # Errors
    ///
    /// libtorch's errors.
    pub fn to_float(&self) -> Result<FloatNet> {
        let bias = |l: &nn::Linear| -> Result<Vec<f32>> {
            values(l.bs.as_ref().ok_or_else(|| Error::Shape("bias".into()))?)
        };
        Ok(FloatNet {
            feature_set: F::NAME.to_owned(),
            features: F::COUNT,
            rules: self.rules.to_string(),
            ft_w: values(&self.ft_w)?,
            ft_b: values(&self.ft_b)?,
            l1_w: values(&self.l1.ws)?,
            l1_b: bias(&self.l1)?,
            l2_w: values(&self.l2.ws)?,
            l2_b: bias(&self.l2)?,
            out_w: values(&self.out.ws)?,
            out_b: bias(&self.out)?.first().copied().unwrap_or(0.0),
        })
    }

    /// The raw outputs for `samples` (as [`FloatNet::forward`] computes
    /// them; for tests).
    ///
    /// # Errors
    ///
    /// libtorch's errors.
    pub fn outputs(&self, samples: &[Sample<F>]) -> Result<Vec<f32>> {
        let mut rng = rand::rngs::mock::StepRng::new(0, 0);
        let samples: Vec<&Sample<F>> = samples.iter().collect();
        let (stm, other, _) = self.tensors(&samples, false, &mut rng);
        values(&tch::no_grad(|| self.forward(&stm, &other)))
    }
}
