//! [`BatchBuilder`]: the one place where positions become network input and
//! training batches, row by row, with the shapes spelled out by `ndarray`.
//!
//! Every row is a position: its input planes `[C, H, W]` and, for training,
//! its policy target `[N]`, legal-action mask `[N]` and WDL target `[3]`,
//! in the game's [`Shape`] (draughts: `[13, 8, 8]`, `N = 3584`). The
//! builder keeps one contiguous buffer per field, so the whole batch is
//! `[B, C, H, W]` (and `[B, N]`, `[B, 3]`) row-major, becomes a
//! tensor with a single copy, and is reused between batches without
//! reallocating (`clear` keeps the capacity): inference batches are built
//! thousands of times a second in self-play.

use ndarray::{ArrayView2, ArrayView4, ArrayViewMut1, ArrayViewMut3, Ix3};
use tch::{Device, Kind, Tensor};

use crate::error::{Error, Result};
use dama_game::NnInput;
use dama_game::Shape;

/// The shape of one position's input planes, `[C, H, W]`.
fn row(shape: Shape) -> Ix3 {
    Ix3(shape.planes, shape.height, shape.width)
}

/// One training row being filled in (all zero when handed out).
#[derive(Debug)]
pub struct SampleMut<'a> {
    /// Input planes `[C, H, W]`, the layout of the game's encoding
    /// ([`NnInput::encode_planes`](dama_game::NnInput::encode_planes)).
    pub planes: ArrayViewMut3<'a, f32>,
    /// Policy target `[N]`: a distribution over policy indices.
    pub policy: ArrayViewMut1<'a, f32>,
    /// Legal-action mask `[N]`.
    pub mask: ArrayViewMut1<'a, bool>,
    /// Win/draw/loss target `[3]` for the player to move.
    pub wdl: ArrayViewMut1<'a, f32>,
}

impl SampleMut<'_> {
    /// Marks policy index `index` legal with target probability `p`.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] if `index` is not below the policy size.
    pub fn set_action(&mut self, index: usize, p: f32) -> Result<()> {
        if index >= self.policy.len() {
            return Err(Error::Shape(format!(
                "policy index {index} is not below {}",
                self.policy.len()
            )));
        }
        self.policy[index] = p;
        self.mask[index] = true;
        Ok(())
    }
}

/// Assembles a batch of positions: network input only
/// ([`push_input`](BatchBuilder::push_input),
/// [`push_state`](BatchBuilder::push_state)) or training samples
/// ([`push_sample`](BatchBuilder::push_sample)).
///
/// # Examples
///
/// ```
/// use dama_draughts::encode;
/// use dama_nn::BatchBuilder;
///
/// let game = dama_engine::Game::new();
/// let mut builder = BatchBuilder::for_shape(encode::SHAPE);
/// let mut row = builder.push_sample();
/// encode::encode_planes(&game, row.planes.as_slice_mut().expect("contiguous"));
/// let steps = game.legal_steps();
/// for s in &steps {
///     row.set_action(encode::policy_index(*s, game.turn()), 1.0 / steps.len() as f32)?;
/// }
/// row.wdl[1] = 1.0;
/// assert_eq!(builder.planes().shape(), &[1, encode::NUM_PLANES, 8, 8]);
/// let batch = builder.to_batch(tch::Device::Cpu)?;
/// assert_eq!(batch.len(), 1);
/// # Ok::<(), dama_nn::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BatchBuilder {
    shape: Shape,
    len: usize,
    /// Rows pushed without training targets.
    inputs_only: usize,
    planes: Vec<f32>,
    policy: Vec<f32>,
    mask: Vec<bool>,
    wdl: Vec<f32>,
}

impl BatchBuilder {
    /// An empty builder for positions of `shape`.
    pub fn for_shape(shape: Shape) -> BatchBuilder {
        BatchBuilder {
            shape,
            len: 0,
            inputs_only: 0,
            planes: Vec::new(),
            policy: Vec::new(),
            mask: Vec::new(),
            wdl: Vec::new(),
        }
    }

    /// The shape of its rows.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Empties the builder and makes its rows of `shape`.
    pub fn reset(&mut self, shape: Shape) {
        self.clear();
        self.shape = shape;
    }

    /// The number of rows `B`.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no row was pushed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every row, keeping the buffers for the next batch.
    pub fn clear(&mut self) {
        self.len = 0;
        self.inputs_only = 0;
        self.planes.clear();
        self.policy.clear();
        self.mask.clear();
        self.wdl.clear();
    }

    fn grow_planes(&mut self) -> ArrayViewMut3<'_, f32> {
        let start = self.planes.len();
        self.planes.resize(start + self.shape.planes_len(), 0.0);
        self.len += 1;
        ArrayViewMut3::from_shape(row(self.shape), &mut self.planes[start..])
            .expect("invariant: a row holds C·H·W values")
    }

    /// Appends a row without training targets and returns its zeroed input
    /// planes `[C, H, W]` to fill.
    pub fn push_input(&mut self) -> ArrayViewMut3<'_, f32> {
        self.inputs_only += 1;
        self.grow_planes()
    }

    /// Appends the input planes of `state` (no training targets). The
    /// builder must be for `S`'s shape ([`BatchBuilder::reset`]).
    ///
    /// # Panics
    ///
    /// If it is not.
    pub fn push_state<S: NnInput + ?Sized>(&mut self, state: &S) {
        assert_eq!(
            self.shape,
            S::SHAPE,
            "push_state: a builder for another shape"
        );
        let mut row = self.push_input();
        state.encode_planes(
            row.as_slice_mut()
                .expect("invariant: a fresh row is contiguous"),
        );
    }

    /// Appends a training row, all zero, and returns it to fill.
    pub fn push_sample(&mut self) -> SampleMut<'_> {
        let start = self.len;
        let n = self.shape.policy_size();
        self.policy.resize((start + 1) * n, 0.0);
        self.mask.resize((start + 1) * n, false);
        self.wdl.resize((start + 1) * 3, 0.0);
        let planes_start = self.planes.len();
        self.planes
            .resize(planes_start + self.shape.planes_len(), 0.0);
        self.len += 1;
        SampleMut {
            planes: ArrayViewMut3::from_shape(row(self.shape), &mut self.planes[planes_start..])
                .expect("invariant: a row holds C·H·W values"),
            policy: ArrayViewMut1::from(&mut self.policy[start * n..]),
            mask: ArrayViewMut1::from(&mut self.mask[start * n..]),
            wdl: ArrayViewMut1::from(&mut self.wdl[start * 3..]),
        }
    }

    /// The input planes of all rows, `[B, C, H, W]`.
    pub fn planes(&self) -> ArrayView4<'_, f32> {
        let s = self.shape;
        ArrayView4::from_shape((self.len, s.planes, s.height, s.width), &self.planes)
            .expect("invariant: B rows of C·H·W values")
    }

    /// The input planes as one row-major slice of `B · C · H · W` values (what
    /// [`NnEvaluator::infer`](crate::NnEvaluator::infer) takes).
    pub fn planes_slice(&self) -> &[f32] {
        &self.planes
    }

    /// The policy targets, `[B, N]`; rows pushed without targets are zero.
    pub fn policy(&self) -> ArrayView2<'_, f32> {
        let n = self.shape.policy_size();
        let rows = self.policy.len() / n;
        ArrayView2::from_shape((rows, n), &self.policy).expect("invariant: whole rows of N values")
    }

    /// The training batch on `device`.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] if a row was pushed without training targets;
    /// libtorch errors.
    pub fn to_batch(&self, device: Device) -> Result<Batch> {
        if self.inputs_only > 0 {
            return Err(Error::Shape(format!(
                "{} of {} rows have no training targets (pushed with push_input or push_state)",
                self.inputs_only, self.len
            )));
        }
        Batch::from_slices(
            self.len,
            self.shape,
            &self.planes,
            &self.policy,
            &self.wdl,
            &self.mask,
            device,
        )
    }
}

/// A training batch of `B` samples, all on one device.
#[derive(Debug)]
pub struct Batch {
    /// Input planes, `[B, C, H, W]` f32, as the game's encoding writes them
    /// ([`NnInput::encode_planes`](dama_game::NnInput::encode_planes)).
    pub planes: Tensor,
    /// Policy targets, `[B, N]` f32: a probability distribution over
    /// policy indices (MCTS visit fractions), zero on illegal actions.
    pub policy: Tensor,
    /// Value targets, `[B, 3]` f32: win/draw/loss probabilities for the
    /// player to move (one-hot game results, or soft targets).
    pub wdl: Tensor,
    /// Legal-action mask, `[B, N]` bool: true where the policy index is a
    /// legal action. Illegal logits are set to [`MASKED_LOGIT`](crate::MASKED_LOGIT) before the
    /// softmax, in training as in inference.
    pub mask: Tensor,
}

impl Batch {
    /// The number of samples `B`.
    pub fn len(&self) -> i64 {
        self.planes.size().first().copied().unwrap_or(0)
    }

    /// Whether the batch holds no sample.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Builds a batch from flat row-major slices of `n` samples of `shape`:
    /// `planes` `n·C·H·W` values, `policy` `n·N`, `wdl` `n·3`, `mask` `n·N`.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] if a slice length does not match `n`.
    pub fn from_slices(
        n: usize,
        shape: Shape,
        planes: &[f32],
        policy: &[f32],
        wdl: &[f32],
        mask: &[bool],
        device: Device,
    ) -> Result<Batch> {
        let np = shape.policy_size();
        let check = |name: &str, len: usize, per: usize| {
            if len != n * per {
                Err(Error::Shape(format!(
                    "{name}: {len} values for {n} samples of {per}"
                )))
            } else {
                Ok(())
            }
        };
        check("planes", planes.len(), shape.planes_len())?;
        check("policy", policy.len(), np)?;
        check("wdl", wdl.len(), 3)?;
        check("mask", mask.len(), np)?;
        let n = n as i64;
        let (c, h, w) = (shape.planes as i64, shape.height as i64, shape.width as i64);
        Ok(Batch {
            planes: Tensor::f_from_slice(planes)?
                .f_view([n, c, h, w])?
                .f_to_device(device)?,
            policy: Tensor::f_from_slice(policy)?
                .f_view([n, np as i64])?
                .f_to_device(device)?,
            wdl: Tensor::f_from_slice(wdl)?
                .f_view([n, 3])?
                .f_to_device(device)?,
            mask: Tensor::f_from_slice(mask)?
                .f_view([n, np as i64])?
                .f_to_device(device)?,
        })
    }

    /// Checks the documented shapes and kinds.
    ///
    /// # Errors
    ///
    /// [`Error::Shape`] naming the first tensor that does not fit.
    pub fn validate(&self, shape: Shape) -> Result<()> {
        let b = self.len();
        let np = shape.policy_size() as i64;
        let expect = [
            (
                "planes",
                &self.planes,
                vec![
                    b,
                    shape.planes as i64,
                    shape.height as i64,
                    shape.width as i64,
                ],
                Kind::Float,
            ),
            ("policy", &self.policy, vec![b, np], Kind::Float),
            ("wdl", &self.wdl, vec![b, 3], Kind::Float),
            ("mask", &self.mask, vec![b, np], Kind::Bool),
        ];
        for (name, t, shape, kind) in expect {
            if t.size() != shape || t.kind() != kind {
                return Err(Error::Shape(format!(
                    "batch.{name} must be {kind:?} {shape:?}, got {:?} {:?}",
                    t.kind(),
                    t.size()
                )));
            }
        }
        Ok(())
    }

    /// The batch moved to `device`.
    ///
    /// # Errors
    ///
    /// libtorch errors (e.g. CUDA unavailable).
    pub fn to_device(&self, device: Device) -> Result<Batch> {
        Ok(Batch {
            planes: self.planes.f_to_device(device)?,
            policy: self.policy.f_to_device(device)?,
            wdl: self.wdl.f_to_device(device)?,
            mask: self.mask.f_to_device(device)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_draughts::encode::{self, NUM_PLANES, PLANES_LEN, POLICY_SIZE};

    #[test]
    fn rows_land_where_their_shape_says() {
        let mut b = BatchBuilder::for_shape(encode::SHAPE);
        b.push_input()[[2, 3, 4]] = 1.0;
        let mut s = b.push_sample();
        s.planes[[11, 7, 7]] = 2.0;
        s.set_action(5, 0.5).unwrap();
        s.wdl[2] = 1.0;
        assert!(s.set_action(POLICY_SIZE, 1.0).is_err());
        assert_eq!(b.len(), 2);
        let flat = b.planes_slice();
        assert_eq!(flat[2 * 64 + 3 * 8 + 4], 1.0);
        assert_eq!(flat[PLANES_LEN + 11 * 64 + 63], 2.0);
        assert_eq!(flat.iter().sum::<f32>(), 3.0);
        assert_eq!(b.planes()[[1, 11, 7, 7]], 2.0);
        // The input-only first row has zero targets; the second its own.
        let policy = b.policy();
        assert_eq!(policy.shape(), &[2, POLICY_SIZE]);
        assert_eq!(policy[[0, 5]], 0.0);
        assert_eq!(policy[[1, 5]], 0.5);
        assert!(b.mask[POLICY_SIZE + 5] && !b.mask[5]);
        assert_eq!(&b.wdl, &[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
        let err = b.to_batch(Device::Cpu).unwrap_err().to_string();
        assert!(
            err.contains("1 of 2 rows have no training targets"),
            "{err}"
        );
    }

    #[test]
    fn clear_keeps_nothing_but_capacity_and_states_encode_as_encode_does() {
        let mut b = BatchBuilder::for_shape(encode::SHAPE);
        b.push_sample().wdl[0] = 1.0;
        b.push_input();
        b.clear();
        assert!(b.is_empty() && b.planes_slice().is_empty() && b.policy().is_empty());
        let game = dama_engine::Game::new();
        b.push_state(&dama_draughts::DamaState::new(game.clone()));
        b.push_state(&dama_draughts::DamaState::new(game.clone()));
        let mut want = vec![0.0; PLANES_LEN];
        encode::encode_planes(&game, &mut want);
        assert_eq!(&b.planes_slice()[PLANES_LEN..], want.as_slice());
        assert_eq!(b.planes().shape(), &[2, NUM_PLANES, 8, 8]);

        let mut t = BatchBuilder::for_shape(encode::SHAPE);
        for k in 0..3 {
            let mut s = t.push_sample();
            s.planes.fill(k as f32);
            s.set_action(k, 1.0).unwrap();
            s.wdl[k] = 1.0;
        }
        let batch = t.to_batch(Device::Cpu).unwrap();
        batch.validate(dama_draughts::encode::SHAPE).unwrap();
        assert!(batch
            .validate(Shape {
                height: 4,
                ..dama_draughts::encode::SHAPE
            })
            .is_err());
        assert_eq!(batch.len(), 3);
        let wdl: Vec<f32> = Vec::try_from(&batch.wdl.flatten(0, 1)).unwrap();
        assert_eq!(wdl, [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
        let planes: Vec<f32> = Vec::try_from(&batch.planes.select(0, 2).flatten(0, 2)).unwrap();
        assert!(planes.iter().all(|&v| v == 2.0));
    }

    #[test]
    fn a_builder_for_another_board_sizes_its_rows_by_its_shape() {
        let shape = Shape {
            planes: 3,
            height: 8,
            width: 4,
            policy_planes: 9,
        };
        let mut b = BatchBuilder::for_shape(shape);
        let mut s = b.push_sample();
        s.planes[[2, 7, 3]] = 1.0;
        s.set_action(9 * 32 - 1, 1.0).unwrap();
        assert!(s.set_action(9 * 32, 1.0).is_err());
        s.wdl[0] = 1.0;
        assert_eq!(b.planes_slice().len(), 96);
        assert_eq!(b.planes_slice()[95], 1.0);
        let batch = b.to_batch(Device::Cpu).unwrap();
        batch.validate(shape).unwrap();
        assert_eq!(batch.policy.size(), [1, 288]);
        b.reset(dama_draughts::encode::SHAPE);
        assert!(b.is_empty());
        b.push_state(&dama_draughts::DamaState::new(dama_engine::Game::new()));
        assert_eq!(b.planes_slice().len(), PLANES_LEN);
    }
}
