//! TorchScript: tracing a [`Network`] into a module ([`trace`], [`save`]),
//! and running an exported module (`model.ts` of a bundle written by `dama
//! export`) behind [`dama_mcts::Evaluator`].
//!
//! The module is traced from Rust with `tch::CModule::create_by_tracing`
//! (tch-rs's `jit-trace` example): the forward pass in evaluation mode is
//! recorded on an example batch of [`TRACE_BATCH`] positions, with the
//! weights as constants. The network never reads the batch size from its
//! input, so the trace keeps the batch dimension free and the module takes
//! a batch of any size (checked by the tests on sizes 1, 3 and 64).
//!
//! The module's `forward` takes planes `[B, C, 8, 8]` (f32, the layout of
//! [`encode`](dama_draughts::encode)) and returns one tensor `[B, 3587]`, the policy
//! logits `[B, 3584]` followed by the WDL logits `[B, 3]` (a traced method
//! has a single return value), exactly what [`Network::forward_t`](crate::Network::forward_t)
//! computes in evaluation mode. [`TorchScriptEvaluator`] also runs modules
//! that return the tuple `(policy_logits, wdl_logits)` (bundles of format 1,
//! scripted in Python). Checking that the module was exported for
//! this build's encoding is the job of whoever reads the bundle's metadata
//! (`dama-bot`); this module checks the shapes it gets back.

use std::fs;
use std::path::Path;

use dama_mcts::{Evaluation, Evaluator, Game as SearchGame, Leaf};
use tch::{CModule, Device, IValue, Kind, Tensor};

use crate::batch::BatchBuilder;
use crate::error::{Error, Result};
use crate::evaluator::{check_shape, evaluate_with, input_tensor, raw_output, RawOutput};
use crate::files;
use crate::model::Network;
use dama_game::NnInput;
use dama_game::Shape;

/// Positions in the example batch a module is traced on. More than one, so
/// that nothing batch-size-specific (a squeezed dimension of size 1) can
/// slip into the trace unnoticed.
pub const TRACE_BATCH: i64 = 2;

/// Traces `net` in evaluation mode into a TorchScript module whose
/// `forward` takes planes `[B, C, H, W]` (f32, any `B`; the network's
/// [`Shape`], draughts `[B, 13, 8, 8]`) and returns one tensor `[B, N + 3]`:
/// the policy logits `[B, N]` in columns `0..N`, the WDL logits `[B, 3]` in
/// columns `N..N + 3` (draughts: `N = 3584`; what
/// [`tch::nn::ModuleT::forward_t`] of a [`Network`] computes). A traced
/// method must return a single value, so the two heads are concatenated.
///
/// The trace runs on an fp32 CPU copy of `net` with frozen weights, so the
/// module holds fp32 weights whatever `net`'s device or kind.
///
/// # Errors
///
/// libtorch errors.
pub fn trace(net: &Network) -> Result<CModule> {
    let mut copy = net.copy_to(Device::Cpu, Kind::Float)?;
    copy.var_store_mut().freeze();
    let s = net.config().shape();
    let example = Tensor::f_zeros(
        [
            TRACE_BATCH,
            s.planes as i64,
            s.height as i64,
            s.width as i64,
        ],
        (Kind::Float, Device::Cpu),
    )?;
    let mut forward =
        |inputs: &[Tensor]| vec![tch::nn::ModuleT::forward_t(&copy, &inputs[0], false)];
    let module = tch::no_grad(|| {
        CModule::create_by_tracing("DamaNet", "forward", &[example], &mut forward)
    })?;
    Ok(module)
}

/// Traces `net` ([`trace`]) and saves the module to `path` atomically (a
/// synced temporary file renamed into place).
///
/// # Errors
///
/// libtorch errors; [`Error::Io`] when the file cannot be written.
pub fn save(net: &Network, path: &Path) -> Result<()> {
    let module = trace(net)?;
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            fs::create_dir_all(dir)?;
        }
    }
    let tmp = files::tmp_path(path);
    let result = (|| -> Result<()> {
        module.save(&tmp)?;
        fs::File::open(&tmp)?.sync_all()?;
        files::commit_point(path);
        fs::rename(&tmp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The policy logits `[B, N]` and WDL logits `[B, 3]` of a module's
/// output (`N = policy_size`): a traced module's `[B, N + 3]` tensor (see
/// [`trace`]), or the tuple `(policy_logits, wdl_logits)` of a module
/// scripted in Python (bundles of format 1).
fn split_output(out: IValue, policy_size: usize) -> Result<(Tensor, Tensor)> {
    let width = policy_size + 3;
    match out {
        IValue::Tensor(t) => {
            let size = t.size();
            if size.len() != 2 || size[1] != width as i64 {
                return Err(Error::Shape(format!(
                    "the module returned a tensor of shape {size:?}, expected [B, {width}]"
                )));
            }
            Ok((
                t.f_narrow(1, 0, policy_size as i64)?,
                t.f_narrow(1, policy_size as i64, 3)?,
            ))
        }
        IValue::Tuple(mut v) if v.len() == 2 => {
            let w = v.pop();
            let p = v.pop();
            match (p, w) {
                (Some(IValue::Tensor(p)), Some(IValue::Tensor(w))) => Ok((p, w)),
                _ => Err(Error::Shape(
                    "the module must return a tuple of two tensors".into(),
                )),
            }
        }
        _ => Err(Error::Shape(format!(
            "the module must return policy and WDL logits as one tensor [B, {width}] \
             or a tuple (policy_logits, wdl_logits)"
        ))),
    }
}

/// A TorchScript policy/value network on a device, in evaluation mode.
#[derive(Debug)]
pub struct TorchScriptEvaluator {
    module: CModule,
    device: Device,
    shape: Shape,
    inputs: BatchBuilder,
}

impl TorchScriptEvaluator {
    /// Loads the TorchScript module at `path` onto `device`, for positions
    /// of `shape`, and runs it once on an empty position to check its output
    /// shapes.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] if libtorch cannot load the file or the module
    /// does not answer with policy logits `[B, N]` and WDL logits `[B, 3]`.
    pub fn load_for(path: &Path, device: Device, shape: Shape) -> Result<TorchScriptEvaluator> {
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
            shape,
            inputs: BatchBuilder::for_shape(shape),
        };
        eval.infer(&vec![0.0; shape.planes_len()], 1)
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

    /// The encoding shapes the module was loaded for.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Runs the module on `n` encoded positions (`planes`: `n · C · H · W`
    /// values, `[n, C, H, W]` row-major): policy logits `[n, N]` and
    /// softmaxed WDL `[n, 3]`, as [`NnEvaluator::infer`](crate::NnEvaluator::infer).
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] for a wrong input length or output shape; libtorch
    /// errors.
    pub fn infer(&self, planes: &[f32], n: usize) -> Result<RawOutput> {
        let Some(xs) = input_tensor(planes, n, self.shape, self.device)? else {
            return Ok(RawOutput::default());
        };
        let np = self.shape.policy_size();
        tch::no_grad(|| {
            let out = self.module.forward_is(&[IValue::Tensor(xs)])?;
            let (policy, wdl) = split_output(out, np)?;
            if policy.size() != [n as i64, np as i64] || wdl.size() != [n as i64, 3] {
                return Err(Error::Shape(format!(
                    "the module returned policy {:?} and wdl {:?}, expected [{n}, {np}] and [{n}, 3]",
                    policy.size(),
                    wdl.size()
                )));
            }
            raw_output(&policy, &wdl, n, np)
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
        check_shape::<S>(self.shape)?;
        let mut inputs = std::mem::replace(&mut self.inputs, BatchBuilder::for_shape(self.shape));
        let out = evaluate_with(&mut inputs, batch, |p, n| self.infer(p, n));
        self.inputs = inputs;
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
