//! [`ModelConfig`] and [`TrainConfig`]: serde structs with documented defaults.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use dama_game::Shape;

/// Shape of the residual policy/value network.
///
/// A checkpoint records this struct; loading compares it field by field.
///
/// ```toml
/// [model]
/// blocks = 6
/// channels = 64
/// se_channels = 16
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelConfig {
    /// Input planes per position, `C` in `[B, C, H, W]`: set from the game by
    /// the trainer (default: the default game's, [`GameName::default`]'s
    /// encoding).
    ///
    /// [`GameName::default`]: dama_registry::GameName
    pub input_planes: usize,
    /// Residual blocks in the tower (default 6). The whole network is at
    /// most [`MAX_PARAMETERS`] parameters ([`ModelConfig::parameter_count`]).
    pub blocks: usize,
    /// Channels of every tower convolution (default 64).
    pub channels: usize,
    /// Hidden width of the squeeze-excitation layer in each block; 0 turns
    /// squeeze-excitation off (default 16).
    pub se_channels: usize,
    /// Channels of the policy head's 3×3 convolution (default 32).
    pub policy_channels: usize,
    /// Channels of the value head's 1×1 convolution (default 8).
    pub value_channels: usize,
    /// Width of the value head's hidden fully connected layer (default 128).
    pub value_hidden: usize,
    /// Board height `H` of the input planes `[C, H, W]`: set from the game
    /// by the trainer (default 8, the draughts board; configs leave it out).
    pub board_height: usize,
    /// Board width `W` (default 8).
    pub board_width: usize,
    /// Policy planes `P` of the output `[P, H, W]`: set from the game
    /// (default: the default game's encoding, as `input_planes`).
    pub policy_planes: usize,
}

/// The largest network [`ModelConfig::validate`] accepts, in parameters
/// (100 M: 400 MB of fp32 weights, about 1.6 GB with gradients and Adam's
/// moments). The default network has about 0.5 M.
pub const MAX_PARAMETERS: u64 = 100_000_000;

impl Default for ModelConfig {
    /// 6 blocks × 64 channels with squeeze-excitation: about 0.5 M
    /// parameters, sized for self-play on a few CPU cores.
    fn default() -> Self {
        let shape = dama_registry::GameName::default().encoding().shape;
        ModelConfig {
            input_planes: shape.planes,
            blocks: 6,
            channels: 64,
            se_channels: 16,
            policy_channels: 32,
            value_channels: 8,
            value_hidden: 128,
            board_height: shape.height,
            board_width: shape.width,
            policy_planes: shape.policy_planes,
        }
    }
}

impl ModelConfig {
    /// The encoding shapes this network is built for.
    pub fn shape(&self) -> Shape {
        Shape {
            planes: self.input_planes,
            height: self.board_height,
            width: self.board_width,
            policy_planes: self.policy_planes,
        }
    }

    /// The same network for the encoding `shape` (another game's).
    #[must_use]
    pub fn with_shape(mut self, shape: Shape) -> Self {
        self.input_planes = shape.planes;
        self.board_height = shape.height;
        self.board_width = shape.width;
        self.policy_planes = shape.policy_planes;
        self
    }

    /// A small network (2 blocks × 32 channels) for smoke runs and tests.
    pub fn quick() -> Self {
        ModelConfig {
            blocks: 2,
            channels: 32,
            se_channels: 8,
            policy_channels: 16,
            value_channels: 4,
            value_hidden: 32,
            ..ModelConfig::default()
        }
    }

    /// Checks that every size is usable.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let positive = [
            ("input_planes", self.input_planes),
            ("channels", self.channels),
            ("policy_channels", self.policy_channels),
            ("value_channels", self.value_channels),
            ("value_hidden", self.value_hidden),
        ];
        for (name, v) in positive {
            if v == 0 {
                return Err(Error::Config(format!("model.{name} must be positive")));
            }
        }
        self.shape()
            .validate()
            .map_err(|e| Error::Config(format!("model: {e}")))?;
        let params = self.parameter_count();
        if params > MAX_PARAMETERS as u128 {
            return Err(Error::Config(format!(
                "model of {} blocks × {} channels (se {}, policy {}, value {}, hidden {}) has about {params} parameters, more than the limit of {MAX_PARAMETERS}",
                self.blocks,
                self.channels,
                self.se_channels,
                self.policy_channels,
                self.value_channels,
                self.value_hidden
            )));
        }
        Ok(())
    }

    /// The number of trainable parameters of a network of this shape
    /// (weights and biases of every layer, batch-norm scales and shifts),
    /// computed without building it; saturates instead of overflowing.
    pub fn parameter_count(&self) -> u128 {
        let [i, b, c, s, p, v, h] = [
            self.input_planes,
            self.blocks,
            self.channels,
            self.se_channels,
            self.policy_channels,
            self.value_channels,
            self.value_hidden,
        ]
        .map(|x| x as u128);
        let conv_bn = |cin: u128, cout: u128, k: u128| {
            cin.saturating_mul(cout)
                .saturating_mul(k * k)
                .saturating_add(cout.saturating_mul(2))
        };
        let se = if s == 0 {
            0
        } else {
            c.saturating_mul(s)
                .saturating_add(s)
                .saturating_add(s.saturating_mul(2).saturating_mul(c))
                .saturating_add(c.saturating_mul(2))
        };
        let block = conv_bn(c, c, 3).saturating_mul(2).saturating_add(se);
        let policy_planes = self.policy_planes as u128;
        let squares = (self.board_height as u128).saturating_mul(self.board_width as u128);
        conv_bn(i, c, 3)
            .saturating_add(block.saturating_mul(b))
            .saturating_add(conv_bn(c, p, 3))
            .saturating_add(
                p.saturating_mul(policy_planes)
                    .saturating_add(policy_planes),
            )
            .saturating_add(conv_bn(c, v, 1))
            .saturating_add(
                v.saturating_mul(squares)
                    .saturating_mul(h)
                    .saturating_add(h),
            )
            .saturating_add(h.saturating_mul(3).saturating_add(3))
    }

    /// Differences from `other`, one sentence per field (empty when equal).
    pub fn differences(&self, other: &ModelConfig) -> Vec<String> {
        let mut out = Vec::new();
        let mut cmp = |name: &str, a: usize, b: usize| {
            if a != b {
                out.push(format!("model.{name}: {a} here, {b} in the checkpoint"));
            }
        };
        cmp("input_planes", self.input_planes, other.input_planes);
        cmp("blocks", self.blocks, other.blocks);
        cmp("channels", self.channels, other.channels);
        cmp("se_channels", self.se_channels, other.se_channels);
        cmp(
            "policy_channels",
            self.policy_channels,
            other.policy_channels,
        );
        cmp("value_channels", self.value_channels, other.value_channels);
        cmp("value_hidden", self.value_hidden, other.value_hidden);
        out
    }
}

/// Which optimizer updates the weights, with its hyper-parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum OptimizerConfig {
    /// SGD with heavy-ball (or Nesterov) momentum, PyTorch's convention
    /// `buf = μ·buf + g; w -= lr·buf`; weight decay is an L2 term added to
    /// the gradient (`g += wd·w`), i.e. `wd/2·‖w‖²` in the loss.
    Sgd {
        /// Momentum μ (default 0.9).
        momentum: f64,
        /// Nesterov momentum (default false).
        nesterov: bool,
    },
    /// AdamW (Loshchilov & Hutter) with decoupled weight decay
    /// `w -= lr·wd·w`.
    AdamW {
        /// β₁ (default 0.9).
        beta1: f64,
        /// β₂ (default 0.999).
        beta2: f64,
        /// ε added to the denominator (default 1e-8).
        eps: f64,
    },
}

impl Default for OptimizerConfig {
    fn default() -> Self {
        OptimizerConfig::Sgd {
            momentum: 0.9,
            nesterov: false,
        }
    }
}

impl OptimizerConfig {
    /// AdamW with the usual β₁ = 0.9, β₂ = 0.999, ε = 1e-8.
    pub fn adamw() -> Self {
        OptimizerConfig::AdamW {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
        }
    }

    /// A short name, stored in checkpoints: `sgd` or `adam_w`.
    pub fn name(&self) -> &'static str {
        match self {
            OptimizerConfig::Sgd { .. } => "sgd",
            OptimizerConfig::AdamW { .. } => "adam_w",
        }
    }
}

/// How the learning rate evolves after warm-up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LrSchedule {
    /// The peak rate forever.
    Constant,
    /// Cosine decay from the peak rate to `final_fraction` × peak over
    /// `total_steps` optimizer steps (counted from step 0, warm-up included),
    /// then flat.
    Cosine {
        /// Steps until the end of the decay.
        total_steps: u64,
        /// Final rate as a fraction of the peak (e.g. 0.01).
        final_fraction: f64,
    },
    /// Multiply the rate by `gamma` at each step listed in `milestones`.
    Step {
        /// Steps (ascending) at which the rate drops.
        milestones: Vec<u64>,
        /// Factor applied at each milestone (e.g. 0.1).
        gamma: f64,
    },
}

/// Optimization hyper-parameters.
///
/// ```toml
/// [train]
/// lr = 0.02
/// warmup_steps = 200
/// weight_decay = 1e-4
/// [train.optimizer]
/// kind = "sgd"
/// momentum = 0.9
/// nesterov = false
/// [train.schedule]
/// kind = "cosine"
/// total_steps = 100000
/// final_fraction = 0.01
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Samples per optimizer step; used by whoever assembles batches
    /// (default 256).
    pub batch_size: usize,
    /// Peak learning rate, reached at the end of warm-up (default 0.02).
    pub lr: f64,
    /// Steps of linear warm-up from `lr / warmup_steps` to `lr`; 0 for none
    /// (default 100).
    pub warmup_steps: u64,
    /// Decay after warm-up (default constant).
    pub schedule: LrSchedule,
    /// Optimizer and its parameters (default SGD, momentum 0.9).
    pub optimizer: OptimizerConfig,
    /// Weight decay, applied to convolution and linear weights only (not to
    /// batch-norm parameters or biases); see [`OptimizerConfig`] for how
    /// (default 1e-4).
    pub weight_decay: f64,
    /// Weight of the value cross-entropy relative to the policy
    /// cross-entropy (default 1.0).
    pub value_loss_weight: f64,
    /// Clip the global gradient L2 norm to this value; 0 turns clipping off
    /// (default 10.0).
    pub grad_clip_norm: f64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            batch_size: 256,
            lr: 0.02,
            warmup_steps: 100,
            schedule: LrSchedule::Constant,
            optimizer: OptimizerConfig::default(),
            weight_decay: 1e-4,
            value_loss_weight: 1.0,
            grad_clip_norm: 10.0,
        }
    }
}

impl TrainConfig {
    /// Checks ranges.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::Config(format!("train.{m}")));
        if self.batch_size == 0 {
            return bad("batch_size must be positive");
        }
        // A batch is batch_size × (input planes + policy + mask) floats:
        // 65536 positions are already about 1.5 GB.
        if self.batch_size > 65_536 {
            return bad("batch_size must be at most 65536");
        }
        if !(self.lr.is_finite() && self.lr > 0.0) {
            return bad("lr must be positive");
        }
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return bad("weight_decay must be non-negative");
        }
        if !(self.value_loss_weight.is_finite() && self.value_loss_weight >= 0.0) {
            return bad("value_loss_weight must be non-negative");
        }
        if !(self.grad_clip_norm.is_finite() && self.grad_clip_norm >= 0.0) {
            return bad("grad_clip_norm must be non-negative (0 = off)");
        }
        match &self.optimizer {
            OptimizerConfig::Sgd { momentum, .. } if !(0.0..1.0).contains(momentum) => {
                return bad("optimizer.momentum must be in [0, 1)");
            }
            OptimizerConfig::AdamW { beta1, beta2, eps } => {
                if !(0.0..1.0).contains(beta1) || !(0.0..1.0).contains(beta2) {
                    return bad("optimizer.beta1 and beta2 must be in [0, 1)");
                }
                if !(eps.is_finite() && *eps > 0.0) {
                    return bad("optimizer.eps must be positive");
                }
            }
            OptimizerConfig::Sgd { .. } => {}
        }
        match &self.schedule {
            LrSchedule::Constant => {}
            LrSchedule::Cosine {
                total_steps,
                final_fraction,
            } => {
                if *total_steps == 0 {
                    return bad("schedule.total_steps must be positive");
                }
                if !(0.0..=1.0).contains(final_fraction) {
                    return bad("schedule.final_fraction must be in [0, 1]");
                }
            }
            LrSchedule::Step { milestones, gamma } => {
                if milestones.windows(2).any(|w| w[0] > w[1]) {
                    return bad("schedule.milestones must be ascending");
                }
                if !(gamma.is_finite() && *gamma > 0.0) {
                    return bad("schedule.gamma must be positive");
                }
            }
        }
        Ok(())
    }

    /// The learning rate used by optimizer step `step` (0-based): linear
    /// warm-up, then the schedule. A pure function of `step`, which is why a
    /// resumed run continues with the same rate.
    pub fn lr_at(&self, step: u64) -> f64 {
        if step < self.warmup_steps {
            return self.lr * (step + 1) as f64 / self.warmup_steps as f64;
        }
        match &self.schedule {
            LrSchedule::Constant => self.lr,
            LrSchedule::Cosine {
                total_steps,
                final_fraction,
            } => {
                let span = total_steps.saturating_sub(self.warmup_steps).max(1);
                let t = ((step - self.warmup_steps) as f64 / span as f64).min(1.0);
                let lo = self.lr * final_fraction;
                lo + (self.lr - lo) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
            LrSchedule::Step { milestones, gamma } => {
                let drops = milestones.iter().filter(|&&m| m <= step).count();
                self.lr * gamma.powi(drops as i32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 19: `channels = 200000` used to panic inside libtorch when
    /// memory ran out; now the config check refuses it, naming the limit.
    #[test]
    fn huge_networks_are_refused_with_the_bound() {
        let m = ModelConfig {
            channels: 200_000,
            ..ModelConfig::default()
        };
        let err = m.validate().unwrap_err().to_string();
        assert!(err.contains("100000000"), "{err}");
        let m = ModelConfig {
            blocks: usize::MAX,
            channels: usize::MAX,
            ..ModelConfig::default()
        };
        assert!(m.validate().is_err());
        ModelConfig::default().validate().unwrap();
    }

    #[test]
    fn warmup_then_cosine() {
        let c = TrainConfig {
            lr: 1.0,
            warmup_steps: 10,
            schedule: LrSchedule::Cosine {
                total_steps: 110,
                final_fraction: 0.0,
            },
            ..TrainConfig::default()
        };
        assert!((c.lr_at(0) - 0.1).abs() < 1e-12);
        assert!((c.lr_at(9) - 1.0).abs() < 1e-12);
        assert!((c.lr_at(10) - 1.0).abs() < 1e-12);
        assert!((c.lr_at(60) - 0.5).abs() < 1e-12);
        assert!(c.lr_at(110).abs() < 1e-12);
        assert!(c.lr_at(1000).abs() < 1e-12);
    }

    #[test]
    fn step_schedule() {
        let c = TrainConfig {
            lr: 1.0,
            warmup_steps: 0,
            schedule: LrSchedule::Step {
                milestones: vec![5, 8],
                gamma: 0.1,
            },
            ..TrainConfig::default()
        };
        assert_eq!(c.lr_at(4), 1.0);
        assert!((c.lr_at(5) - 0.1).abs() < 1e-12);
        assert!((c.lr_at(8) - 0.01).abs() < 1e-12);
    }

    #[test]
    fn configs_round_trip_through_json_and_reject_unknown_fields() {
        let t = TrainConfig {
            optimizer: OptimizerConfig::adamw(),
            ..TrainConfig::default()
        };
        let s = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<TrainConfig>(&s).unwrap(), t);
        assert!(serde_json::from_str::<ModelConfig>(r#"{"blockz": 3}"#).is_err());
        let m: ModelConfig = serde_json::from_str(r#"{"blocks": 3}"#).unwrap();
        m.validate().unwrap();
        assert_eq!(m.blocks, 3);
        assert_eq!(m.channels, ModelConfig::default().channels);
        t.validate().unwrap();
        ModelConfig::default().validate().unwrap();
        ModelConfig::quick().validate().unwrap();
    }
}
