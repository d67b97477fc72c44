//! Running an exported TorchScript network (`model.ts` of a bundle written
//! by `dama export`) behind [`dama_mcts::Evaluator`].
//!
//! The module's `forward` takes planes `[B, C, 8, 8]` (f32, the layout of
//! [`encode`](crate::encode)) and returns the tuple `(policy_logits [B,
//! 1792], wdl_logits [B, 3])`, exactly what [`Network::forward_t`](crate::Network::forward_t)
//! computes in evaluation mode. Checking that the module was exported for
//! this build's encoding is the job of whoever reads the bundle's metadata
//! (`dama-bot`); this module checks the shapes it gets back.

use std::path::Path;

use dama_mcts::{Evaluation, Evaluator, Game as SearchGame, Leaf};
use tch::{CModule, Device, IValue};

use crate::encode::{PLANES_LEN, POLICY_SIZE};
use crate::error::{Error, Result};
use crate::evaluator::{evaluate_with, input_tensor, raw_output, NnInput, RawOutput};

/// A TorchScript policy/value network on a device, in evaluation mode.
#[derive(Debug)]
pub struct TorchScriptEvaluator {
    module: CModule,
    device: Device,
    planes: Vec<f32>,
}

impl TorchScriptEvaluator {
    /// Loads the TorchScript module at `path` onto `device` and runs it once
    /// on an empty position to check its output shapes.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] if libtorch cannot load the file or the module
    /// does not answer with `(policy [B, 1792], wdl [B, 3])`.
    pub fn load(path: &Path, device: Device) -> Result<TorchScriptEvaluator> {
        // The profiling executor and the tensor-expression fuser re-optimize
        // the graph during the first calls with each new batch shape, which
        // costs seconds on a CPU; a search calls with many small batches.
        tch::jit::set_profiling_mode(false);
        tch::jit::set_tensor_expr_fuser_enabled(false);
        let mut module = CModule::load_on_device(path, device).map_err(|e| Error::Corrupt {
            path: path.to_path_buf(),
            reason: format!("not a loadable TorchScript module: {e}"),
        })?;
        module.set_eval();
        let eval = TorchScriptEvaluator {
            module,
            device,
            planes: Vec::new(),
        };
        eval.infer(&vec![0.0; PLANES_LEN], 1)
            .map_err(|e| Error::Corrupt {
                path: path.to_path_buf(),
                reason: format!("the module does not behave like a dama network: {e}"),
            })?;
        Ok(eval)
    }

    /// The device the module runs on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// Runs the module on `n` encoded positions (`planes`: `n · PLANES_LEN`
    /// values, `[n, C, 8, 8]` row-major): policy logits `[n, 1792]` and
    /// softmaxed WDL `[n, 3]`, as [`NnEvaluator::infer`](crate::NnEvaluator::infer).
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] for a wrong input length or output shape; libtorch
    /// errors.
    pub fn infer(&self, planes: &[f32], n: usize) -> Result<RawOutput> {
        let Some(xs) = input_tensor(planes, n, self.device)? else {
            return Ok(RawOutput::default());
        };
        tch::no_grad(|| {
            let out = self.module.forward_is(&[IValue::Tensor(xs)])?;
            let (policy, wdl) = match out {
                IValue::Tuple(mut v) if v.len() == 2 => {
                    let w = v.pop();
                    let p = v.pop();
                    match (p, w) {
                        (Some(IValue::Tensor(p)), Some(IValue::Tensor(w))) => (p, w),
                        _ => {
                            return Err(Error::Shape(
                                "the module must return a tuple of two tensors".into(),
                            ))
                        }
                    }
                }
                _ => {
                    return Err(Error::Shape(
                        "the module must return a tuple (policy_logits, wdl_logits)".into(),
                    ))
                }
            };
            if policy.size() != [n as i64, POLICY_SIZE as i64] || wdl.size() != [n as i64, 3] {
                return Err(Error::Shape(format!(
                    "the module returned policy {:?} and wdl {:?}, expected [{n}, {POLICY_SIZE}] and [{n}, 3]",
                    policy.size(),
                    wdl.size()
                )));
            }
            raw_output(&policy, &wdl, n)
        })
    }

    /// Evaluates states with explicit action lists, as
    /// [`NnEvaluator::evaluate_states`](crate::NnEvaluator::evaluate_states).
    ///
    /// # Errors
    ///
    /// As [`TorchScriptEvaluator::infer`].
    pub fn evaluate_states<S: NnInput>(
        &mut self,
        batch: &[(&S, &[S::Action])],
    ) -> Result<Vec<Evaluation>> {
        let mut planes = std::mem::take(&mut self.planes);
        let out = evaluate_with(&mut planes, batch, |p, n| self.infer(p, n));
        self.planes = planes;
        out
    }
}

impl<G> Evaluator<G> for TorchScriptEvaluator
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
