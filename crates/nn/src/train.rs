//! Training: the [`Trainer`] (the optimizers, with their state owned here so
//! that checkpoints resume exactly, and the learning-rate schedule) and
//! [`StepMetrics`]. The batch is `crate::batch::Batch`, the loss `crate::loss`.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use tch::{Kind, Tensor};

use crate::batch::Batch;
use crate::config::{OptimizerConfig, TrainConfig};
use crate::error::{Error, Result};
use crate::loss::{value_accuracy, Losses};
use crate::model::Network;

/// What one optimizer step measured. Losses are batch means, in nats.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepMetrics {
    /// The optimizer step just taken (1 after the first step).
    pub step: u64,
    /// Learning rate used by this step.
    pub lr: f64,
    /// Samples in the batch.
    pub batch_size: usize,
    /// `policy_loss + value_loss_weight · value_loss + reg_loss`.
    pub loss: f64,
    /// Cross-entropy of the masked policy against the policy target.
    pub policy_loss: f64,
    /// Cross-entropy of the WDL prediction against the WDL target.
    pub value_loss: f64,
    /// `weight_decay / 2 · Σ‖w‖²` over decayed weights (before the step).
    pub reg_loss: f64,
    /// Mean entropy of the predicted (masked) policy.
    pub policy_entropy: f64,
    /// Fraction of samples whose most likely predicted WDL outcome is the
    /// target's most likely outcome.
    pub value_accuracy: f64,
    /// Global L2 norm of the gradient before clipping.
    pub grad_norm: f64,
    /// Samples per second of this step (wall clock, forward to update).
    pub samples_per_sec: f64,
}

/// Optimizer state, owned as plain tensors (not libtorch's optimizer) so it
/// can be checkpointed and restored exactly.
#[derive(Debug)]
enum OptState {
    Sgd {
        momentum: Vec<Tensor>,
    },
    AdamW {
        exp_avg: Vec<Tensor>,
        exp_avg_sq: Vec<Tensor>,
    },
}

/// One trainable tensor with its checkpoint name.
#[derive(Debug)]
struct Param {
    name: String,
    tensor: Tensor,
    decay: bool,
}

/// Owns a [`Network`], its optimizer state and the step counter.
#[derive(Debug)]
pub struct Trainer {
    net: Network,
    config: TrainConfig,
    params: Vec<Param>,
    state: OptState,
    step: u64,
}

impl Trainer {
    /// A trainer at step 0 with zeroed optimizer state.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] if `config` does not validate; libtorch errors.
    pub fn new(net: Network, config: TrainConfig) -> Result<Trainer> {
        config.validate()?;
        let mut named: Vec<(String, Tensor)> = net
            .var_store()
            .variables()
            .into_iter()
            .filter(|(_, t)| t.requires_grad())
            .collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let params: Vec<Param> = named
            .into_iter()
            .map(|(name, tensor)| Param {
                decay: tensor.dim() > 1,
                name,
                tensor,
            })
            .collect();
        let zeros = |params: &[Param]| -> Result<Vec<Tensor>> {
            params
                .iter()
                .map(|p| Ok(p.tensor.f_zeros_like()?.f_detach()?))
                .collect()
        };
        let state = match config.optimizer {
            OptimizerConfig::Sgd { .. } => OptState::Sgd {
                momentum: zeros(&params)?,
            },
            OptimizerConfig::AdamW { .. } => OptState::AdamW {
                exp_avg: zeros(&params)?,
                exp_avg_sq: zeros(&params)?,
            },
        };
        Ok(Trainer {
            net,
            config,
            params,
            state,
            step: 0,
        })
    }

    /// The network being trained.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// The training configuration.
    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// Optimizer steps taken so far.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The learning rate the next step will use.
    pub fn next_lr(&self) -> f64 {
        self.config.lr_at(self.step)
    }

    /// Computes the loss of `batch` in evaluation mode (running batch-norm
    /// statistics, no gradient, no update). Returns
    /// `(policy_loss, value_loss, value_accuracy)`.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] if the batch does not match the network.
    pub fn evaluate(&self, batch: &Batch) -> Result<(f64, f64, f64)> {
        batch.validate(self.net.config().shape())?;
        tch::no_grad(|| {
            let out = self.net.f_forward_t(&batch.planes, false)?;
            let l = Losses::new(&out.policy, &out.wdl, batch)?;
            Ok((
                l.policy.f_double_value(&[])?,
                l.value.f_double_value(&[])?,
                value_accuracy(&out.wdl, &batch.wdl)?,
            ))
        })
    }

    /// One optimizer step on `batch`: forward in training mode, loss,
    /// backward, gradient clipping, update with the scheduled learning rate.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] if the batch does not match the network; libtorch
    /// errors.
    pub fn train_step(&mut self, batch: &Batch) -> Result<StepMetrics> {
        let start = Instant::now();
        batch.validate(self.net.config().shape())?;
        let lr = self.config.lr_at(self.step);
        let out = self.net.f_forward_t(&batch.planes, true)?;
        let losses = Losses::new(&out.policy, &out.wdl, batch)?;
        let total = losses
            .policy
            .f_add(&losses.value.f_mul_scalar(self.config.value_loss_weight)?)?;
        for p in &mut self.params {
            p.tensor.zero_grad();
        }
        total.f_backward()?;
        let (grad_norm, reg) = tch::no_grad(|| self.update(lr))?;
        self.step += 1;
        let (policy_loss, value_loss, entropy, accuracy) = tch::no_grad(|| -> Result<_> {
            let probs = losses.logp.f_exp()?;
            let entropy = probs
                .f_mul(&losses.logp)?
                .f_sum_dim_intlist([1i64].as_slice(), false, None::<Kind>)?
                .f_mean(None::<Kind>)?
                .f_neg()?;
            Ok((
                losses.policy.f_double_value(&[])?,
                losses.value.f_double_value(&[])?,
                entropy.f_double_value(&[])?,
                value_accuracy(&out.wdl, &batch.wdl)?,
            ))
        })?;
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        let b = batch.len() as usize;
        Ok(StepMetrics {
            step: self.step,
            lr,
            batch_size: b,
            loss: policy_loss + self.config.value_loss_weight * value_loss + reg,
            policy_loss,
            value_loss,
            reg_loss: reg,
            policy_entropy: entropy,
            value_accuracy: accuracy,
            grad_norm,
            samples_per_sec: b as f64 / secs,
        })
    }

    /// Clips gradients and applies one optimizer update with rate `lr`.
    /// Returns the gradient norm before clipping and the L2 term.
    fn update(&mut self, lr: f64) -> Result<(f64, f64)> {
        let wd = self.config.weight_decay;
        let mut sq = Vec::with_capacity(self.params.len());
        let mut wsq = Vec::new();
        let mut grads = Vec::with_capacity(self.params.len());
        for p in &self.params {
            let g = p.tensor.f_grad()?;
            let g = if g.defined() {
                g
            } else {
                p.tensor.f_zeros_like()?
            };
            sq.push(g.f_square()?.f_sum(Kind::Float)?);
            if p.decay {
                wsq.push(p.tensor.f_square()?.f_sum(Kind::Float)?);
            }
            grads.push(g);
        }
        let grad_norm = Tensor::f_stack(&sq, 0)?
            .f_sum(Kind::Float)?
            .f_sqrt()?
            .f_double_value(&[])?;
        let reg = if wsq.is_empty() {
            0.0
        } else {
            0.5 * wd
                * Tensor::f_stack(&wsq, 0)?
                    .f_sum(Kind::Float)?
                    .f_double_value(&[])?
        };
        let max = self.config.grad_clip_norm;
        if max > 0.0 && grad_norm > max {
            let coef = max / (grad_norm + 1e-6);
            for g in &mut grads {
                let _ = g.f_mul_scalar_(coef)?;
            }
        }
        let t = (self.step + 1) as f64;
        match (&mut self.state, &self.config.optimizer) {
            (
                OptState::Sgd { momentum },
                OptimizerConfig::Sgd {
                    momentum: mu,
                    nesterov,
                },
            ) => {
                for ((p, g), buf) in self.params.iter_mut().zip(&mut grads).zip(momentum) {
                    if p.decay && wd > 0.0 {
                        let _ = g.f_add_(&p.tensor.f_mul_scalar(wd)?)?;
                    }
                    let _ = buf.f_mul_scalar_(*mu)?.f_add_(g)?;
                    let dir = if *nesterov {
                        g.f_add(&buf.f_mul_scalar(*mu)?)?
                    } else {
                        buf.shallow_clone()
                    };
                    let _ = p.tensor.f_sub_(&dir.f_mul_scalar(lr)?)?;
                }
            }
            (
                OptState::AdamW {
                    exp_avg,
                    exp_avg_sq,
                },
                OptimizerConfig::AdamW { beta1, beta2, eps },
            ) => {
                let bc1 = 1.0 - beta1.powf(t);
                let bc2 = 1.0 - beta2.powf(t);
                for (((p, g), m), v) in self
                    .params
                    .iter_mut()
                    .zip(&grads)
                    .zip(exp_avg)
                    .zip(exp_avg_sq)
                {
                    if p.decay && wd > 0.0 {
                        let _ = p.tensor.f_mul_scalar_(1.0 - lr * wd)?;
                    }
                    let _ = m.f_lerp_(g, 1.0 - beta1)?;
                    let _ = v
                        .f_mul_scalar_(*beta2)?
                        .f_add_(&g.f_square()?.f_mul_scalar(1.0 - beta2)?)?;
                    let denom = v.f_sqrt()?.f_div_scalar(bc2.sqrt())?.f_add_scalar(*eps)?;
                    let _ = p.tensor.f_sub_(&m.f_div(&denom)?.f_mul_scalar(lr / bc1)?)?;
                }
            }
            _ => {
                return Err(Error::Config(
                    "optimizer state does not match the optimizer config".into(),
                ))
            }
        }
        Ok((grad_norm, reg))
    }

    /// The optimizer state as named tensors (`<param>/momentum`, or
    /// `<param>/exp_avg` and `<param>/exp_avg_sq`), for checkpoints.
    pub fn optimizer_tensors(&self) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        match &self.state {
            OptState::Sgd { momentum } => {
                for (p, m) in self.params.iter().zip(momentum) {
                    out.push((format!("{}/momentum", p.name), m.shallow_clone()));
                }
            }
            OptState::AdamW {
                exp_avg,
                exp_avg_sq,
            } => {
                for ((p, m), v) in self.params.iter().zip(exp_avg).zip(exp_avg_sq) {
                    out.push((format!("{}/exp_avg", p.name), m.shallow_clone()));
                    out.push((format!("{}/exp_avg_sq", p.name), v.shallow_clone()));
                }
            }
        }
        out
    }

    /// Restores optimizer state and step counter (from a checkpoint).
    /// Every tensor must be present with its exact shape.
    pub(crate) fn restore(
        &mut self,
        step: u64,
        tensors: &std::collections::HashMap<String, Tensor>,
        path: &std::path::Path,
    ) -> Result<()> {
        let mut problems = Vec::new();
        let wanted: Vec<(String, Vec<i64>)> = self
            .optimizer_tensors()
            .into_iter()
            .map(|(n, t)| (n, t.size()))
            .collect();
        for (name, shape) in &wanted {
            match tensors.get(name) {
                None => problems.push(format!("missing optimizer tensor {name}")),
                Some(t) if &t.size() != shape => problems.push(format!(
                    "optimizer tensor {name} has shape {:?}, expected {shape:?}",
                    t.size()
                )),
                Some(_) => {}
            }
        }
        for name in tensors.keys() {
            if !wanted.iter().any(|(n, _)| n == name) {
                problems.push(format!("unexpected optimizer tensor {name}"));
            }
        }
        if !problems.is_empty() {
            problems.sort();
            return Err(Error::Incompatible {
                path: path.to_path_buf(),
                problems,
            });
        }
        let device = self.net.device();
        tch::no_grad(|| -> Result<()> {
            let slots: Vec<&mut Tensor> = match &mut self.state {
                OptState::Sgd { momentum } => momentum.iter_mut().collect(),
                OptState::AdamW {
                    exp_avg,
                    exp_avg_sq,
                } => exp_avg
                    .iter_mut()
                    .zip(exp_avg_sq.iter_mut())
                    .flat_map(|(a, b)| [a, b])
                    .collect(),
            };
            for ((name, _), slot) in wanted.iter().zip(slots) {
                if let Some(src) = tensors.get(name) {
                    slot.f_copy_(&src.f_to_device(device)?)?;
                }
            }
            Ok(())
        })?;
        self.step = step;
        Ok(())
    }

    /// Consumes the trainer and returns the network.
    pub fn into_network(self) -> Network {
        self.net
    }
}
