//! Position encoding, policy/value network, training and checkpoints: the
//! only crate of the workspace that links libtorch (through `tch`).
//!
//! * Encodings are each game's own (`dama_game::NnInput`, `dama_draughts::encode`,
//!   `dama_tafl::encode`): position → input planes and action ↔ policy index
//!   (pure slice code); this crate batches them for any [`Shape`].
//! * [`Network`]: residual tower with a convolutional policy head (`[B,
//!   3584]` logits) and a win/draw/loss value head (`[B, 3]` logits).
//! * [`BatchBuilder`]: positions → network input `[B, C, 8, 8]` and
//!   training [`Batch`]es, row by row as `ndarray` views; the one place
//!   batches are assembled, for inference and training.
//! * [`torchscript`]: tracing the network into TorchScript from Rust, and
//!   running a traced module ([`TorchScriptEvaluator`]).
//! * [`Trainer`]: loss, SGD/AdamW with owned state, learning-rate schedule,
//!   gradient clipping, [`StepMetrics`].
//! * [`checkpoint`]: `.safetensors` weights and optimizer state with a JSON
//!   sidecar, written atomically, loaded with compatibility checks.
//! * [`NnEvaluator`]: batched inference implementing
//!   [`dama_mcts::Evaluator`], fp32 or bf16, CPU or CUDA.
//! * [`cpu`]: whether this CPU runs bf16 fast (AMX-BF16, AVX-512-BF16) and
//!   the `auto | f32 | bf16` precision setting resolved from it.
//!
//! # Examples
//!
//! ```
//! use dama_draughts::encode;
//! use dama_nn::{Batch, BatchBuilder, ModelConfig, Network, TrainConfig, Trainer};
//! use tch::Device;
//!
//! // One self-play sample: planes, visit distribution, result.
//! let game = dama_engine::Game::new();
//! let mut builder = BatchBuilder::for_shape(encode::SHAPE);
//! let mut sample = builder.push_sample();
//! encode::encode_planes(&game, sample.planes.as_slice_mut().expect("contiguous"));
//! let steps = game.legal_steps();
//! for s in &steps {
//!     sample.set_action(encode::policy_index(*s, game.turn()), 1.0 / steps.len() as f32)?;
//! }
//! sample.wdl[1] = 1.0; // a draw
//! let batch: Batch = builder.to_batch(Device::Cpu)?;
//!
//! let net = Network::new(&ModelConfig::quick(), Device::cuda_if_available())?;
//! let mut trainer = Trainer::new(net, TrainConfig::default())?;
//! let metrics = trainer.train_step(&batch.to_device(trainer.network().device())?)?;
//! assert_eq!(metrics.step, 1);
//! # Ok::<(), dama_nn::Error>(())
//! ```

mod batch;
pub mod checkpoint;
mod config;
pub mod cpu;
pub mod device;
mod error;
mod evaluator;
pub mod files;
mod lanes;
mod loss;
mod model;
pub mod nnue;
pub mod torchscript;
mod train;

pub use batch::{Batch, BatchBuilder, SampleMut};
pub use checkpoint::{
    load_game_network, load_network_for, load_trainer, read_meta, save_network, save_trainer,
    CheckpointMeta,
};
pub use config::{LrSchedule, ModelConfig, OptimizerConfig, TrainConfig};
pub use cpu::{cpu_bf16_fast, CpuFeatures, PrecisionChoice};
pub use dama_game::{NnInput, Shape};
pub use dama_registry::{
    Encoding, GameName, GameRules, LegacyRuleFields, LegacyRuleSections, RuleFieldsError,
    UnknownGame, WithGame,
};
pub use device::DeviceSpec;
pub use error::{Error, Result};
pub use evaluator::{masked_softmax, NnEvaluator, Precision, RawOutput, MAX_LANES};
pub use loss::MASKED_LOGIT;
pub use model::{Network, Output};
pub use nnue::{NnueTrainSettings, NnueTrainStats, NnueTrainer};
pub use torchscript::TorchScriptEvaluator;
pub use train::{StepMetrics, Trainer};
