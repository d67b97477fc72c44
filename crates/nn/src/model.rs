//! The residual policy/value network.
//!
//! ```text
//! planes [B, C, H, W]                  (draughts: [B, 13, 8, 8])
//!   └─ input:  conv3x3(C→F) + BN + ReLU
//!   └─ tower/{i} for i in 0..blocks:
//!        conv3x3 + BN + ReLU, conv3x3 + BN, [squeeze-excitation], + skip, ReLU
//!   ├─ policy: conv3x3(F→Pc) + BN + ReLU, conv1x1(Pc→P) + bias → [B, P·H·W]
//!   └─ value:  conv1x1(F→V) + BN + ReLU, fc(H·W·V→Vh) + ReLU, fc(Vh→3) → [B, 3]
//! ```
//!
//! The shapes `C`, `H`, `W`, `P` are the game's ([`Shape`](crate::Shape),
//! from [`ModelConfig::shape`]). The policy head is fully convolutional:
//! output plane `k` at square `s` is the logit of policy index
//! `k·H·W + s`, which is the layout of
//! [`encode::policy_index`](dama_draughts::encode::policy_index) for draughts.
//!
//! Parameter names are the checkpoint keys and must stay stable. They are
//! built from `nn::Path` components joined by dots, as in a PyTorch
//! `state_dict`: `input.conv.weight`,
//! `input.bn.{weight,bias,running_mean,running_var}`,
//! `tower.{i}.{conv1,bn1,conv2,bn2}.…`, `tower.{i}.se.{fc1,fc2}.{weight,bias}`,
//! `policy.{conv,bn,out}.…`, `value.{conv,bn,fc1,fc2}.…`.

use tch::nn::{self, ConvConfig, ModuleT};
use tch::{Device, Kind, Tensor};

use crate::config::ModelConfig;
use crate::error::{Error, Result};

/// Output of a forward pass.
#[derive(Debug)]
pub struct Output {
    /// Policy logits, `[B, 3584]`, unmasked.
    pub policy: Tensor,
    /// Win/draw/loss logits for the player to move, `[B, 3]`.
    pub wdl: Tensor,
}

#[derive(Debug)]
struct ConvBn {
    conv: nn::Conv2D,
    bn: nn::BatchNorm,
    /// The batch norm is folded into the convolution's weights and bias
    /// (an inference copy: see [`Network::inference_copy`]).
    folded: bool,
}

impl ConvBn {
    fn new(p: &nn::Path, conv: &str, bn: &str, cin: i64, cout: i64, k: i64) -> ConvBn {
        let cfg = ConvConfig {
            padding: k / 2,
            bias: false,
            ..Default::default()
        };
        ConvBn {
            conv: nn::conv2d(p / conv, cin, cout, k, cfg),
            bn: nn::batch_norm2d(p / bn, cout, Default::default()),
            folded: false,
        }
    }

    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        if self.folded {
            xs.apply(&self.conv)
        } else {
            xs.apply(&self.conv).apply_t(&self.bn, train)
        }
    }

    /// Folds the batch norm's running statistics and affine parameters
    /// into the convolution: `γ (conv(x) − μ) / √(σ² + ε) + β` is
    /// `conv'(x) + b'` with each output channel's weights scaled by
    /// `s = γ / √(σ² + ε)` and `b' = β − μ s`. Inference only: the
    /// running statistics stop mattering, and the bias lives outside the
    /// variable store.
    fn fold(&mut self) -> Result<()> {
        let eps = nn::BatchNormConfig::default().eps;
        tch::no_grad(|| -> Result<()> {
            let bn = &self.bn;
            let scale = bn.running_var.f_add_scalar(eps)?.f_rsqrt()?;
            let scale = match &bn.ws {
                Some(g) => scale.f_mul(g)?,
                None => scale,
            };
            let shift = bn.running_mean.f_mul(&scale)?.f_neg()?;
            let shift = match &bn.bs {
                Some(b) => shift.f_add(b)?,
                None => shift,
            };
            let w = self.conv.ws.f_mul(&scale.f_view([-1, 1, 1, 1])?)?;
            self.conv.ws.f_copy_(&w)?;
            self.conv.bs = Some(shift);
            Ok(())
        })?;
        self.folded = true;
        Ok(())
    }

    /// The folded bias in `kind` (the variable store's `set_kind` does
    /// not see it).
    fn set_bias_kind(&mut self, kind: Kind) -> Result<()> {
        if let Some(b) = &self.conv.bs {
            self.conv.bs = Some(b.f_to_kind(kind)?);
        }
        Ok(())
    }
}

/// Squeeze-excitation as in lc0: a per-channel sigmoid gate and bias
/// computed from the channel means.
#[derive(Debug)]
struct SqueezeExcite {
    fc1: nn::Linear,
    fc2: nn::Linear,
    channels: i64,
}

impl SqueezeExcite {
    fn forward(&self, xs: &Tensor) -> Tensor {
        let (gate, bias) = self.gate_and_bias(xs);
        xs * gate + bias
    }

    /// The gate (after its sigmoid) and the bias, `[B, C, 1, 1]` each.
    fn gate_and_bias(&self, xs: &Tensor) -> (Tensor, Tensor) {
        // `unflatten`, not a view with the batch size read from `xs`: a
        // traced module (`torchscript::trace`) must keep the batch
        // dimension free.
        let pooled = xs.mean_dim([2i64, 3].as_slice(), false, None::<Kind>);
        let g = pooled.apply(&self.fc1).relu().apply(&self.fc2);
        let parts = g.unflatten(1, [2, self.channels, 1, 1]);
        (parts.select(1, 0).sigmoid(), parts.select(1, 1))
    }
}

#[derive(Debug)]
struct ResBlock {
    a: ConvBn,
    b: ConvBn,
    se: Option<SqueezeExcite>,
}

impl ResBlock {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        if self.a.folded {
            return self.forward_inference(xs);
        }
        let ys = self.a.forward_t(xs, train).relu();
        let mut ys = self.b.forward_t(&ys, train);
        if let Some(se) = &self.se {
            ys = se.forward(&ys);
        }
        (ys + xs).relu()
    }

    /// The forward pass of an inference copy (no gradients, no batch
    /// statistics): the same function with fewer operations and
    /// allocations (each costs libtorch several microseconds, as much as
    /// the arithmetic of a few positions on small networks): activations
    /// in place, and the squeeze-excitation's scale and shift as one
    /// `addcmul`.
    fn forward_inference(&self, xs: &Tensor) -> Tensor {
        let mut ys = self.a.forward_t(xs, false);
        let _ = ys.relu_();
        let mut ys = self.b.forward_t(&ys, false);
        if let Some(se) = &self.se {
            let (gate, bias) = se.gate_and_bias(&ys);
            ys = bias.addcmul(&ys, &gate);
        }
        let _ = ys.g_add_(xs);
        let _ = ys.relu_();
        ys
    }
}

/// The policy/value network and the [`nn::VarStore`] that owns its weights.
#[derive(Debug)]
pub struct Network {
    vs: nn::VarStore,
    config: ModelConfig,
    /// Whether the convolution weights are stored channels-last (NHWC
    /// strides) and inputs are converted to it: see
    /// [`Network::inference_copy`].
    channels_last: bool,
    input: ConvBn,
    tower: Vec<ResBlock>,
    policy_a: ConvBn,
    policy_out: nn::Conv2D,
    value_a: ConvBn,
    value_fc1: nn::Linear,
    value_fc2: nn::Linear,
}

impl Network {
    /// A freshly initialised network on `device` (fp32). Initialisation
    /// draws from libtorch's generator: call `tch::manual_seed` first for
    /// reproducible weights.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] if the config does not validate.
    pub fn new(config: &ModelConfig, device: Device) -> Result<Network> {
        config.validate()?;
        let vs = nn::VarStore::new(device);
        let p = vs.root();
        let c = to_i64(config.channels)?;
        let input = ConvBn::new(
            &(&p / "input"),
            "conv",
            "bn",
            to_i64(config.input_planes)?,
            c,
            3,
        );
        let mut tower = Vec::with_capacity(config.blocks);
        for i in 0..config.blocks {
            let bp = &p / "tower" / i;
            let se = if config.se_channels > 0 {
                let s = to_i64(config.se_channels)?;
                Some(SqueezeExcite {
                    fc1: nn::linear(&bp / "se" / "fc1", c, s, Default::default()),
                    fc2: nn::linear(&bp / "se" / "fc2", s, 2 * c, Default::default()),
                    channels: c,
                })
            } else {
                None
            };
            tower.push(ResBlock {
                a: ConvBn::new(&bp, "conv1", "bn1", c, c, 3),
                b: ConvBn::new(&bp, "conv2", "bn2", c, c, 3),
                se,
            });
        }
        let pp = &p / "policy";
        let pc = to_i64(config.policy_channels)?;
        let policy_a = ConvBn::new(&pp, "conv", "bn", c, pc, 3);
        let policy_out = nn::conv2d(
            &pp / "out",
            pc,
            to_i64(config.policy_planes)?,
            1,
            Default::default(),
        );
        let vp = &p / "value";
        let vc = to_i64(config.value_channels)?;
        let vh = to_i64(config.value_hidden)?;
        let value_a = ConvBn::new(&vp, "conv", "bn", c, vc, 1);
        let squares = to_i64(config.shape().squares())?;
        let value_fc1 = nn::linear(&vp / "fc1", squares * vc, vh, Default::default());
        let value_fc2 = nn::linear(&vp / "fc2", vh, 3, Default::default());
        Ok(Network {
            vs,
            config: config.clone(),
            channels_last: false,
            input,
            tower,
            policy_a,
            policy_out,
            value_a,
            value_fc1,
            value_fc2,
        })
    }

    /// The configuration this network was built from.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The device holding the weights.
    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// The floating-point kind of the weights (`Float` or `BFloat16`).
    pub fn kind(&self) -> Kind {
        self.vs.kind()
    }

    /// The variable store (weights and batch-norm statistics).
    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    /// Mutable access to the variable store (loading weights, changing kind).
    pub fn var_store_mut(&mut self) -> &mut nn::VarStore {
        &mut self.vs
    }

    /// Number of trainable scalars.
    pub fn num_parameters(&self) -> i64 {
        self.vs
            .trainable_variables()
            .iter()
            .map(Tensor::numel)
            .map(|n| n as i64)
            .sum()
    }

    /// A copy of this network with the same weights, on `device` and with
    /// weights of `kind` (`Kind::Float` or `Kind::BFloat16`).
    ///
    /// # Errors
    ///
    /// Any libtorch error while copying.
    pub fn copy_to(&self, device: Device, kind: Kind) -> Result<Network> {
        self.refuse_inference_copy()?;
        let mut net = Network::new(&self.config, device)?;
        net.vs.copy(&self.vs)?;
        if kind != Kind::Float {
            net.vs.set_kind(kind);
        }
        Ok(net)
    }

    /// A copy for inference on `device` with weights of `kind`: its batch
    /// norms are folded into the convolutions before (in f32) it takes
    /// `kind` (one pass over the activations fewer per layer), and on a
    /// CPU its convolution weights are stored channels-last, and its
    /// inputs converted to that layout, which oneDNN's CPU convolutions
    /// run faster (docs/benchmarks.md). The outputs are the same numbers
    /// up to rounding. An inference copy evaluates only: it cannot be
    /// copied, trained or take other weights (make a new one).
    ///
    /// # Errors
    ///
    /// Any libtorch error while copying; [`Error::Config`] for a copy of
    /// an inference copy.
    pub fn inference_copy(&self, device: Device, kind: Kind) -> Result<Network> {
        let mut net = self.copy_to(device, Kind::Float)?;
        for cb in net.conv_bns() {
            cb.fold()?;
        }
        if kind != Kind::Float {
            net.vs.set_kind(kind);
            for cb in net.conv_bns() {
                cb.set_bias_kind(kind)?;
            }
        }
        if device == Device::Cpu && channels_last_enabled() {
            net.store_channels_last();
        }
        Ok(net)
    }

    /// Whether this is an inference copy (batch norms folded).
    pub fn is_inference_copy(&self) -> bool {
        self.input.folded
    }

    /// Every convolution with its batch norm.
    fn conv_bns(&mut self) -> Vec<&mut ConvBn> {
        let mut all = vec![&mut self.input];
        for block in &mut self.tower {
            all.push(&mut block.a);
            all.push(&mut block.b);
        }
        all.push(&mut self.policy_a);
        all.push(&mut self.value_a);
        all
    }

    /// Stores every 4-dimensional weight channels-last (same values, NHWC
    /// strides) and marks the network so that `forward_t` converts its
    /// input likewise.
    fn store_channels_last(&mut self) {
        tch::no_grad(|| {
            for (_, mut v) in self.vs.variables() {
                if v.dim() == 4 {
                    let cl = channels_last(&v);
                    v.set_data(&cl);
                }
            }
            // The folded convolutions' weights are variables too (changed
            // in place), so the loop above covered them.
        });
        self.channels_last = true;
    }

    /// [`Error::Config`] naming the differences if `other` was built from
    /// another config than this network.
    pub(crate) fn check_same_config(&self, other: &Network) -> Result<()> {
        let diff = self.config.differences(&other.config);
        if diff.is_empty() {
            Ok(())
        } else {
            Err(Error::Config(diff.join("; ")))
        }
    }

    fn refuse_inference_copy(&self) -> Result<()> {
        if self.is_inference_copy() {
            return Err(Error::Config(
                "an inference copy (batch norms folded) is not copied or given weights: \
                 make a new one from the trained network"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Whether the weights are stored channels-last (see
    /// [`Network::inference_copy`]).
    pub fn is_channels_last(&self) -> bool {
        self.channels_last
    }

    /// Copies the weights of `other` (same config) into this network,
    /// keeping this network's device and kind.
    ///
    /// # Errors
    ///
    /// [`Error::Incompatible`]-like config differences as [`Error::Config`],
    /// or libtorch errors.
    pub fn copy_weights_from(&mut self, other: &Network) -> Result<()> {
        self.refuse_inference_copy()?;
        other.refuse_inference_copy()?;
        self.check_same_config(other)?;
        let kind = self.vs.kind();
        self.vs.copy(&other.vs)?;
        self.vs.set_kind(kind);
        Ok(())
    }

    /// Forward pass. `xs` is `[B, C, 8, 8]` of this network's kind and
    /// device; `train` selects batch statistics (and updates the running
    /// averages) instead of the running averages.
    ///
    /// # Panics
    ///
    /// If `xs` has the wrong shape; use [`Network::f_forward_t`] for input
    /// that was not checked.
    pub fn forward_t(&self, xs: &Tensor, train: bool) -> Output {
        let cl;
        let xs = if self.channels_last {
            cl = channels_last(xs);
            &cl
        } else {
            xs
        };
        // An inference copy computes its activations in place.
        let relu = |mut t: Tensor| {
            if self.is_inference_copy() {
                let _ = t.relu_();
                t
            } else {
                t.relu()
            }
        };
        let mut h = relu(self.input.forward_t(xs, train));
        for block in &self.tower {
            h = block.forward_t(&h, train);
        }
        let policy = relu(self.policy_a.forward_t(&h, train))
            .apply(&self.policy_out)
            // [B, P, H, W] → [B, P·H·W]; no batch size read from `xs`, so a
            // traced module keeps the batch dimension free.
            .flatten(1, 3);
        let wdl = relu(
            relu(self.value_a.forward_t(&h, train))
                .flatten(1, 3)
                .apply(&self.value_fc1),
        )
        .apply(&self.value_fc2);
        Output { policy, wdl }
    }

    /// [`Network::forward_t`] after checking that `xs` is `[B, C, H, W]` of
    /// this network's [`Shape`](crate::Shape).
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] if it is not.
    pub fn f_forward_t(&self, xs: &Tensor, train: bool) -> Result<Output> {
        let size = xs.size();
        let s = self.config.shape();
        if size.len() != 4
            || size[1] != s.planes as i64
            || size[2] != s.height as i64
            || size[3] != s.width as i64
        {
            return Err(Error::Shape(format!(
                "network input must be [B, {}, {}, {}], got {size:?}",
                s.planes, s.height, s.width
            )));
        }
        Ok(self.forward_t(xs, train))
    }
}

impl ModuleT for Network {
    /// The policy logits `[B, 3584]` and WDL logits `[B, 3]`, concatenated
    /// to `[B, 3587]` (for `tch` code that wants a single tensor).
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let out = Network::forward_t(self, xs, train);
        Tensor::cat(&[out.policy, out.wdl], 1)
    }
}

/// `t` (`[N, C, H, W]`) with the same values stored channels-last: NHWC
/// strides, the layout libtorch's `channels_last` memory format names.
fn channels_last(t: &Tensor) -> Tensor {
    t.permute([0, 2, 3, 1]).contiguous().permute([0, 3, 1, 2])
}

/// Whether inference copies on a CPU store their weights channels-last:
/// yes unless the environment sets `DAMA_CHANNELS_LAST=0` (to measure the
/// other layout, or on a CPU where it turns out slower).
fn channels_last_enabled() -> bool {
    std::env::var_os("DAMA_CHANNELS_LAST").is_none_or(|v| v != "0")
}

pub(crate) fn to_i64(v: usize) -> Result<i64> {
    i64::try_from(v).map_err(|_| Error::Config(format!("{v} does not fit in i64")))
}
