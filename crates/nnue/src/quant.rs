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
    /// L1's weights by input pair: row `p` holds, for each output `o`,
    /// the weights of inputs `2p` and `2p + 1` side by side (`[o][0]`,
    /// `[o][1]`), so that one multiply-add of a pair of inputs against a
    /// row gives all 16 outputs' sums at once (what `vpmaddwd` computes),
    /// with no horizontal sums.
    l1_wt: Box<[[[i16; 2]; L1]; L1_IN / 2]>,
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
            l1_wt: self.l1_wt.clone(),
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
        let mut l1_wt: Box<[[[i16; 2]; L1]; L1_IN / 2]> = vec![[[0i16; 2]; L1]; L1_IN / 2]
            .into_boxed_slice()
            .try_into()
            .map_err(|_| Error::Invalid("L1 size".to_owned()))?;
        for (p, row) in l1_wt.iter_mut().enumerate() {
            for (o, pair) in row.iter_mut().enumerate() {
                for (k, w) in pair.iter_mut().enumerate() {
                    let i = 2 * p + k;
                    *w = quantize(net.l1_w[o * L1_IN + i], QW as f32, i32::from(i16::MAX)) as i16;
                }
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
            l1_wt,
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
            Level::Scalar => evaluate_impl(self, acc, stm, l1_sums_impl, l2_impl),
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

/// L1's input: both accumulators clipped to `[0, QA]`, the side to
/// move's first.
#[inline(always)]
fn l1_input(acc: &Accumulator, stm: usize) -> [i16; L1_IN] {
    let mut x = [0i16; L1_IN];
    let (ours, theirs) = x.split_at_mut(HIDDEN);
    for (x, a) in ours.iter_mut().zip(&acc.v[stm & 1]) {
        *x = (*a).clamp(0, QA);
    }
    for (x, a) in theirs.iter_mut().zip(&acc.v[(stm & 1) ^ 1]) {
        *x = (*a).clamp(0, QA);
    }
    x
}

/// L1's sums (before the bias), input pair by input pair: the portable
/// kernel. Integer sums wrap, so every kernel's order of additions gives
/// the same sums.
#[inline(always)]
fn l1_sums_impl(x: &[i16; L1_IN], wt: &[[[i16; 2]; L1]; L1_IN / 2]) -> [i32; L1] {
    let mut sums = [0i32; L1];
    for (pair, row) in x.chunks_exact(2).zip(wt.iter()) {
        let (x0, x1) = (i32::from(pair[0]), i32::from(pair[1]));
        if x0 == 0 && x1 == 0 {
            continue;
        }
        for (s, w) in sums.iter_mut().zip(row) {
            *s = s
                .wrapping_add(x0 * i32::from(w[0]))
                .wrapping_add(x1 * i32::from(w[1]));
        }
    }
    sums
}

/// L2's outputs before the clipping: the bias plus each input times its
/// row, input by input (a multiplication, then an addition: every kernel
/// rounds the same way in the same order, so the scores are the same).
#[inline(always)]
fn l2_impl(h1: &[f32; L1], wt: &[[f32; L2]; L1], bias: &[f32; L2]) -> [f32; L2] {
    let mut h2 = *bias;
    for (x, row) in h1.iter().zip(wt.iter()) {
        for (s, w) in h2.iter_mut().zip(row) {
            *s += x * w;
        }
    }
    h2
}

#[inline(always)]
fn evaluate_impl<F: Features>(
    net: &Network<F>,
    acc: &Accumulator,
    stm: usize,
    l1_sums: impl Fn(&[i16; L1_IN], &[[[i16; 2]; L1]; L1_IN / 2]) -> [i32; L1],
    l2: impl Fn(&[f32; L1], &[[f32; L2]; L1], &[f32; L2]) -> [f32; L2],
) -> i32 {
    let x = l1_input(acc, stm);
    let sums = l1_sums(&x, &net.l1_wt);
    let scale = 1.0 / (f32::from(QA) * QW as f32);
    let mut h1 = [0f32; L1];
    for ((h, s), b) in h1.iter_mut().zip(sums).zip(&net.l1_b) {
        *h = crelu(s.wrapping_add(*b) as f32 * scale);
    }
    let h2 = l2(&h1, &net.l2_wt, &net.l2_b);
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

    // The kernels' layout: a row of L1's transposed weights is 16 outputs
    // × 2 inputs of i16 (one 512-bit register), and the input pairs come
    // in groups of 4.
    const _: () = assert!(L1 == 16 && L1_IN.is_multiple_of(8) && L2 == 32);

    macro_rules! level {
        ($feature:literal, $refresh:ident, $update:ident, $evaluate:ident, $sums:ident, $l2:ident) => {
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
                // The closures inherit `$feature`, which `$sums` and `$l2`
                // need.
                evaluate_impl(
                    net,
                    acc,
                    stm,
                    |x, wt| $sums(x, wt),
                    |h, wt, b| $l2(h, wt, b),
                )
            }
        };
    }
    level!(
        "avx2,fma",
        refresh_avx2_tf,
        update_avx2_tf,
        evaluate_avx2_tf,
        l1_sums_avx2,
        l2_avx2
    );
    level!(
        "avx512f,avx512bw",
        refresh_avx512_tf,
        update_avx512_tf,
        evaluate_avx512_tf,
        l1_sums_avx512,
        l2_avx512
    );

    /// [`l1_sums_impl`] with AVX2: per input pair, the pair broadcast
    /// and one `vpmaddwd` against each half of its row (8 outputs each),
    /// in two chains of sums that run side by side.
    #[target_feature(enable = "avx2,fma")]
    fn l1_sums_avx2(x: &[i16; L1_IN], wt: &[[[i16; 2]; L1]; L1_IN / 2]) -> [i32; L1] {
        use std::arch::x86_64::*;
        let xp = x.as_ptr().cast::<i32>();
        let wp = wt.as_ptr().cast::<__m256i>();
        let mut acc = [_mm256_setzero_si256(); 4];
        for p in (0..L1_IN / 2).step_by(2) {
            for k in 0..2 {
                // SAFETY: `p + k` < L1_IN / 2: the input pair is 4 bytes
                // inside `x`, and its row 64 bytes (two 32-byte halves)
                // inside `wt`; unaligned reads.
                let (xv, w0, w1) = unsafe {
                    (
                        _mm256_set1_epi32(xp.add(p + k).read_unaligned()),
                        _mm256_loadu_si256(wp.add(2 * (p + k))),
                        _mm256_loadu_si256(wp.add(2 * (p + k) + 1)),
                    )
                };
                acc[2 * k] = _mm256_add_epi32(acc[2 * k], _mm256_madd_epi16(xv, w0));
                acc[2 * k + 1] = _mm256_add_epi32(acc[2 * k + 1], _mm256_madd_epi16(xv, w1));
            }
        }
        let lo = _mm256_add_epi32(acc[0], acc[2]);
        let hi = _mm256_add_epi32(acc[1], acc[3]);
        let mut sums = [0i32; L1];
        let out = sums.as_mut_ptr().cast::<__m256i>();
        // SAFETY: 16 i32 are 64 bytes: two unaligned 32-byte stores.
        unsafe {
            _mm256_storeu_si256(out, lo);
            _mm256_storeu_si256(out.add(1), hi);
        }
        sums
    }

    /// [`l2_impl`] with AVX2: the 32 outputs in four registers, each input
    /// broadcast, multiplied by its row and added (no fused multiply-add,
    /// which would round differently).
    #[target_feature(enable = "avx2,fma")]
    fn l2_avx2(h1: &[f32; L1], wt: &[[f32; L2]; L1], bias: &[f32; L2]) -> [f32; L2] {
        use std::arch::x86_64::*;
        let mut h2 = [0f32; L2];
        let bp = bias.as_ptr();
        // SAFETY: `bias`, each row of `wt` and `h2` are 32 f32 (four
        // 8-float registers); unaligned loads and stores inside them.
        unsafe {
            let mut acc = [
                _mm256_loadu_ps(bp),
                _mm256_loadu_ps(bp.add(8)),
                _mm256_loadu_ps(bp.add(16)),
                _mm256_loadu_ps(bp.add(24)),
            ];
            for (x, row) in h1.iter().zip(wt.iter()) {
                let xv = _mm256_set1_ps(*x);
                for (k, a) in acc.iter_mut().enumerate() {
                    let w = _mm256_loadu_ps(row.as_ptr().add(8 * k));
                    *a = _mm256_add_ps(*a, _mm256_mul_ps(xv, w));
                }
            }
            for (k, a) in acc.iter().enumerate() {
                _mm256_storeu_ps(h2.as_mut_ptr().add(8 * k), *a);
            }
        }
        h2
    }

    /// [`l2_impl`] with AVX-512: the 32 outputs in two registers.
    #[target_feature(enable = "avx512f,avx512bw")]
    fn l2_avx512(h1: &[f32; L1], wt: &[[f32; L2]; L1], bias: &[f32; L2]) -> [f32; L2] {
        use std::arch::x86_64::*;
        let mut h2 = [0f32; L2];
        let bp = bias.as_ptr();
        // SAFETY: `bias`, each row of `wt` and `h2` are 32 f32 (two
        // 16-float registers); unaligned loads and stores inside them.
        unsafe {
            let mut acc = [_mm512_loadu_ps(bp), _mm512_loadu_ps(bp.add(16))];
            for (x, row) in h1.iter().zip(wt.iter()) {
                let xv = _mm512_set1_ps(*x);
                for (k, a) in acc.iter_mut().enumerate() {
                    let w = _mm512_loadu_ps(row.as_ptr().add(16 * k));
                    *a = _mm512_add_ps(*a, _mm512_mul_ps(xv, w));
                }
            }
            for (k, a) in acc.iter().enumerate() {
                _mm512_storeu_ps(h2.as_mut_ptr().add(16 * k), *a);
            }
        }
        h2
    }

    /// [`l1_sums_impl`] with AVX-512: per input pair, the pair broadcast
    /// and one `vpmaddwd` against its row (all 16 outputs), in four chains
    /// of sums that run side by side.
    #[target_feature(enable = "avx512f,avx512bw")]
    fn l1_sums_avx512(x: &[i16; L1_IN], wt: &[[[i16; 2]; L1]; L1_IN / 2]) -> [i32; L1] {
        use std::arch::x86_64::*;
        let xp = x.as_ptr().cast::<i32>();
        let wp = wt.as_ptr().cast::<__m512i>();
        let mut acc = [_mm512_setzero_si512(); 4];
        for p in (0..L1_IN / 2).step_by(4) {
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: `p + k` < L1_IN / 2: the input pair is 4 bytes
                // inside `x`, its row 64 bytes inside `wt`; unaligned reads.
                let (xv, w) = unsafe {
                    (
                        _mm512_set1_epi32(xp.add(p + k).read_unaligned()),
                        _mm512_loadu_si512(wp.add(p + k)),
                    )
                };
                *a = _mm512_add_epi32(*a, _mm512_madd_epi16(xv, w));
            }
        }
        let sums = _mm512_add_epi32(
            _mm512_add_epi32(acc[0], acc[1]),
            _mm512_add_epi32(acc[2], acc[3]),
        );
        let mut out = [0i32; L1];
        // SAFETY: 16 i32 are 64 bytes: one unaligned store.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), sums) };
        out
    }

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

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::features::tests::{NoRules, RowFeatures};

    /// L1 as it was first written (row by row, one dot product per
    /// output, from the untransposed float weights quantized the same
    /// way): the kernels must give its sums exactly, so that a search with
    /// them is the same search.
    fn reference_sums(float: &FloatNet, x: &[i16; L1_IN]) -> [i32; L1] {
        let mut sums = [0i32; L1];
        for (o, s) in sums.iter_mut().enumerate() {
            for (i, x) in x.iter().enumerate() {
                let w = quantize(float.l1_w[o * L1_IN + i], QW as f32, i32::from(i16::MAX));
                *s = s.wrapping_add(i32::from(*x) * w);
            }
        }
        sums
    }

    #[test]
    fn every_level_computes_the_reference_l1_sums_and_scores() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for seed in 0..3 {
            let mut float = FloatNet::random::<RowFeatures>(&NoRules, seed);
            // Large weights too, so that sums wrap as they may in a real
            // network at the edge of its range.
            for w in float.l1_w.iter_mut().step_by(7) {
                *w *= 40.0;
            }
            let nets: Vec<Network<RowFeatures>> = Simd::available()
                .into_iter()
                .map(|s| Network::from_float(&float).unwrap().with_simd(s))
                .collect();
            for _ in 0..200 {
                let mut acc = Accumulator {
                    v: [[0; HIDDEN]; 2],
                };
                // About half the inputs clip to zero, as in a search.
                for v in acc.v.iter_mut().flatten() {
                    *v = rng.gen_range(-300..400);
                }
                let stm = rng.gen_range(0..2);
                let x = l1_input(&acc, stm);
                let want = reference_sums(&float, &x);
                assert_eq!(l1_sums_impl(&x, &nets[0].l1_wt), want);
                let scores: Vec<i32> = nets.iter().map(|n| n.evaluate(&acc, stm)).collect();
                let scalar = evaluate_impl(&nets[0], &acc, stm, |_, _| want, l2_impl);
                assert!(
                    scores.iter().all(|&s| s == scalar),
                    "{:?} gave {scores:?}, the reference {scalar}",
                    Simd::available()
                );
            }
        }
    }
}
