//! The quantized network: the feature transformer and L1 in integers, the
//! last two layers in `f32`; accumulators refreshed from a position or
//! updated from the previous one.

use std::marker::PhantomData;

use crate::features::MAX_ACTIVE;
use crate::float::crelu;
use crate::simd::{Level, Simd};
use crate::{Error, Features, FloatNet, HIDDEN, L1, L1_IN, L2, OUT_SCALE};

/// Scale of the feature transformer: an activation of 1.0 is `QA`.
const QA: i16 = 255;
/// Scale of L1's weights.
const QW: i32 = 1024;
/// Largest feature-transformer weight (quantized; 128 = 0.5): 49 of them
/// (the most active features, [`MAX_ACTIVE`], and the bias) still fit an
/// `i16`. Training clamps the float weights to ±2.5
/// ([`crate::FT_WEIGHT_LIMIT`]).
const FT_MAX: i32 = i16::MAX as i32 / (MAX_ACTIVE as i32 + 1);

/// One position's feature-transformer outputs, one row per perspective.
#[derive(Clone, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Accumulator {
    v: [[i16; HIDDEN]; 2],
}

/// The quantized network the search of the game whose features are `F`
/// plays with.
pub struct Network<F: Features> {
    rules: F::Rules,
    simd: Simd,
    /// One row per feature.
    ft_w: Box<[[i16; HIDDEN]]>,
    ft_b: [i16; HIDDEN],
    l1_w: Box<[[i16; L1_IN]; L1]>,
    l1_b: [i32; L1],
    /// L2's weights transposed, `[in][out]`, so that the layer is a sum of
    /// scaled rows (vectorized over the outputs) rather than 32 dot
    /// products (float sums, which the compiler may not reorder, would run
    /// one addition at a time).
    l2_wt: [[f32; L2]; L1],
    l2_b: [f32; L2],
    out_w: [f32; L2],
    out_b: f32,
    features: PhantomData<fn() -> F>,
}

impl<F: Features> Clone for Network<F> {
    fn clone(&self) -> Self {
        Network {
            rules: self.rules.clone(),
            simd: self.simd,
            ft_w: self.ft_w.clone(),
            ft_b: self.ft_b,
            l1_w: self.l1_w.clone(),
            l1_b: self.l1_b,
            l2_wt: self.l2_wt,
            l2_b: self.l2_b,
            out_w: self.out_w,
            out_b: self.out_b,
            features: PhantomData,
        }
    }
}

impl<F: Features> std::fmt::Debug for Network<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("features", &F::NAME)
            .field("rules", &self.rules.to_string())
            .field("simd", &self.simd)
            .finish_non_exhaustive()
    }
}

fn quantize(x: f32, scale: f32, max: i32) -> i32 {
    ((x * scale).round() as i32).clamp(-max, max)
}

impl<F: Features> Network<F> {
    /// Quantizes `net` for the best SIMD level of this CPU.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] if `net` is not a network of `F` (another feature
    /// set, or rules `F` does not read), an array has the wrong length or a
    /// weight is not finite.
    pub fn from_float(net: &FloatNet) -> Result<Network<F>, Error> {
        let rules = net.check::<F>().map_err(Error::Invalid)?;
        if let Some(problem) = net.shape_error() {
            return Err(Error::Invalid(problem));
        }
        let qa = f32::from(QA);
        let mut ft_w: Box<[[i16; HIDDEN]]> = vec![[0i16; HIDDEN]; F::COUNT].into_boxed_slice();
        for (f, row) in ft_w.iter_mut().enumerate() {
            for (h, w) in row.iter_mut().enumerate() {
                *w = quantize(net.ft_w[f * HIDDEN + h], qa, FT_MAX) as i16;
            }
        }
        let mut ft_b = [0i16; HIDDEN];
        for (b, x) in ft_b.iter_mut().zip(&net.ft_b) {
            *b = quantize(*x, qa, FT_MAX) as i16;
        }
        let mut l1_w: Box<[[i16; L1_IN]; L1]> = vec![[0i16; L1_IN]; L1]
            .into_boxed_slice()
            .try_into()
            .map_err(|_| Error::Invalid("L1 size".to_owned()))?;
        for (o, row) in l1_w.iter_mut().enumerate() {
            for (i, w) in row.iter_mut().enumerate() {
                *w = quantize(net.l1_w[o * L1_IN + i], QW as f32, i32::from(i16::MAX)) as i16;
            }
        }
        let mut l1_b = [0i32; L1];
        for (b, x) in l1_b.iter_mut().zip(&net.l1_b) {
            *b = quantize(*x, qa * QW as f32, 1 << 28);
        }
        let mut l2_wt = [[0f32; L2]; L1];
        for (i, row) in l2_wt.iter_mut().enumerate() {
            for (o, w) in row.iter_mut().enumerate() {
                *w = net.l2_w[o * L1 + i];
            }
        }
        let mut l2_b = [0f32; L2];
        l2_b.copy_from_slice(&net.l2_b);
        let mut out_w = [0f32; L2];
        out_w.copy_from_slice(&net.out_w);
        Ok(Network {
            rules,
            simd: Simd::detect(),
            ft_w,
            ft_b,
            l1_w,
            l1_b,
            l2_wt,
            l2_b,
            out_w,
            out_b: net.out_b,
            features: PhantomData,
        })
    }

    /// The same network running the kernels of `simd`.
    #[must_use]
    pub fn with_simd(mut self, simd: Simd) -> Network<F> {
        self.simd = simd;
        self
    }

    /// The SIMD level the kernels run with.
    pub fn simd(&self) -> Simd {
        self.simd
    }

    /// The rules the network was trained for.
    pub fn rules(&self) -> &F::Rules {
        &self.rules
    }

    /// The accumulator of `pos`, computed from scratch.
    pub fn refresh(&self, pos: &F::Position) -> Accumulator {
        match self.simd.0 {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => kernels::refresh_avx512(self, pos),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => kernels::refresh_avx2(self, pos),
            Level::Scalar => refresh_impl(self, pos),
        }
    }

    /// The accumulator of `after` from `acc`, the accumulator of `before`:
    /// only the pieces that differ are added or removed (a move, its
    /// captures and a promotion change a few).
    pub fn update(
        &self,
        acc: &Accumulator,
        before: &F::Position,
        after: &F::Position,
    ) -> Accumulator {
        match self.simd.0 {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => kernels::update_avx512(self, acc, before, after),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => kernels::update_avx2(self, acc, before, after),
            Level::Scalar => update_impl(self, acc, before, after),
        }
    }

    /// The score (in the game's units: centi-men for draughts) for `stm`,
    /// the side to move (perspective 0 or 1) of the position `acc` belongs
    /// to.
    pub fn evaluate(&self, acc: &Accumulator, stm: usize) -> i32 {
        match self.simd.0 {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => kernels::evaluate_avx512(self, acc, stm),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => kernels::evaluate_avx2(self, acc, stm),
            Level::Scalar => evaluate_impl(self, acc, stm),
        }
    }

    /// The score of `pos` in centi-men for the side to move, from a fresh
    /// accumulator.
    pub fn evaluate_position(&self, pos: &F::Position) -> i32 {
        self.evaluate(&self.refresh(pos), F::side_to_move(pos))
    }
}

#[inline(always)]
fn add_row(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(*w);
    }
}

#[inline(always)]
fn sub_row(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(*w);
    }
}

#[inline(always)]
fn refresh_impl<F: Features>(net: &Network<F>, pos: &F::Position) -> Accumulator {
    let mut acc = Accumulator { v: [net.ft_b; 2] };
    for (p, row) in acc.v.iter_mut().enumerate() {
        F::for_each_feature(pos, p, |f| add_row(row, &net.ft_w[f]));
    }
    acc
}

#[inline(always)]
fn update_impl<F: Features>(
    net: &Network<F>,
    acc: &Accumulator,
    before: &F::Position,
    after: &F::Position,
) -> Accumulator {
    let mut out = acc.clone();
    F::for_each_change(before, after, |p, f, added| {
        let row = &mut out.v[p & 1];
        if added {
            add_row(row, &net.ft_w[f]);
        } else {
            sub_row(row, &net.ft_w[f]);
        }
    });
    out
}

#[inline(always)]
fn evaluate_impl<F: Features>(net: &Network<F>, acc: &Accumulator, stm: usize) -> i32 {
    let mut x = [0i16; L1_IN];
    let (ours, theirs) = x.split_at_mut(HIDDEN);
    for (x, a) in ours.iter_mut().zip(&acc.v[stm & 1]) {
        *x = (*a).clamp(0, QA);
    }
    for (x, a) in theirs.iter_mut().zip(&acc.v[(stm & 1) ^ 1]) {
        *x = (*a).clamp(0, QA);
    }
    let scale = 1.0 / (f32::from(QA) * QW as f32);
    let mut h1 = [0f32; L1];
    for ((h, row), b) in h1.iter_mut().zip(net.l1_w.iter()).zip(&net.l1_b) {
        let mut s = 0i32;
        for (x, w) in x.iter().zip(row) {
            s = s.wrapping_add(i32::from(*x) * i32::from(*w));
        }
        *h = crelu(s.wrapping_add(*b) as f32 * scale);
    }
    let mut h2 = net.l2_b;
    for (x, row) in h1.iter().zip(net.l2_wt.iter()) {
        for (s, w) in h2.iter_mut().zip(row) {
            *s += x * w;
        }
    }
    let mut out = net.out_b;
    for (s, w) in h2.iter().zip(&net.out_w) {
        out += w * crelu(*s);
    }
    (out * OUT_SCALE).round() as i32
}

/// The kernels compiled for each x86-64 level. `Simd` values are only made
/// for levels the CPU reported (`Simd::available`), which is what makes the
/// calls below sound.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod kernels {
    use super::*;

    macro_rules! level {
        ($feature:literal, $refresh:ident, $update:ident, $evaluate:ident) => {
            #[target_feature(enable = $feature)]
            fn $refresh<F: Features>(net: &Network<F>, pos: &F::Position) -> Accumulator {
                refresh_impl(net, pos)
            }
            #[target_feature(enable = $feature)]
            fn $update<F: Features>(
                net: &Network<F>,
                acc: &Accumulator,
                before: &F::Position,
                after: &F::Position,
            ) -> Accumulator {
                update_impl(net, acc, before, after)
            }
            #[target_feature(enable = $feature)]
            fn $evaluate<F: Features>(net: &Network<F>, acc: &Accumulator, stm: usize) -> i32 {
                evaluate_impl(net, acc, stm)
            }
        };
    }
    level!(
        "avx2,fma",
        refresh_avx2_tf,
        update_avx2_tf,
        evaluate_avx2_tf
    );
    level!(
        "avx512f,avx512bw",
        refresh_avx512_tf,
        update_avx512_tf,
        evaluate_avx512_tf
    );

    pub(super) fn refresh_avx2<F: Features>(net: &Network<F>, pos: &F::Position) -> Accumulator {
        // SAFETY: `net.simd` is AVX2 only if the CPU reported avx2 and fma.
        unsafe { refresh_avx2_tf(net, pos) }
    }
    pub(super) fn update_avx2<F: Features>(
        net: &Network<F>,
        acc: &Accumulator,
        before: &F::Position,
        after: &F::Position,
    ) -> Accumulator {
        // SAFETY: as `refresh_avx2`.
        unsafe { update_avx2_tf(net, acc, before, after) }
    }
    pub(super) fn evaluate_avx2<F: Features>(
        net: &Network<F>,
        acc: &Accumulator,
        stm: usize,
    ) -> i32 {
        // SAFETY: as `refresh_avx2`.
        unsafe { evaluate_avx2_tf(net, acc, stm) }
    }
    pub(super) fn refresh_avx512<F: Features>(net: &Network<F>, pos: &F::Position) -> Accumulator {
        // SAFETY: `net.simd` is AVX-512 only if the CPU reported avx512f and
        // avx512bw.
        unsafe { refresh_avx512_tf(net, pos) }
    }
    pub(super) fn update_avx512<F: Features>(
        net: &Network<F>,
        acc: &Accumulator,
        before: &F::Position,
        after: &F::Position,
    ) -> Accumulator {
        // SAFETY: as `refresh_avx512`.
        unsafe { update_avx512_tf(net, acc, before, after) }
    }
    pub(super) fn evaluate_avx512<F: Features>(
        net: &Network<F>,
        acc: &Accumulator,
        stm: usize,
    ) -> i32 {
        // SAFETY: as `refresh_avx512`.
        unsafe { evaluate_avx512_tf(net, acc, stm) }
    }
}
