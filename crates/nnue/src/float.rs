//! The network in `f32`: what training produces and files store, and the
//! reference the quantized [`crate::Network`] is tested against.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Features, HIDDEN, L1, L1_IN, L2, OUT_SCALE};

/// The network's weights in `f32`, row-major (`[out][in]`) for the dense
/// layers, `[feature][hidden]` for the feature transformer.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// The game's feature set ([`Features::NAME`]).
    pub feature_set: String,
    /// Features per perspective ([`Features::COUNT`]).
    pub features: usize,
    /// The rules the network was trained for, as text.
    pub rules: String,
    /// Feature transformer weights, `features × HIDDEN`.
    pub ft_w: Vec<f32>,
    /// Feature transformer bias, `HIDDEN`.
    pub ft_b: Vec<f32>,
    /// L1 weights, `L1 × L1_IN` (inputs: side to move's accumulator, then
    /// the other side's).
    pub l1_w: Vec<f32>,
    /// L1 bias, `L1`.
    pub l1_b: Vec<f32>,
    /// L2 weights, `L2 × L1`.
    pub l2_w: Vec<f32>,
    /// L2 bias, `L2`.
    pub l2_b: Vec<f32>,
    /// Output weights, `L2`.
    pub out_w: Vec<f32>,
    /// Output bias.
    pub out_b: f32,
}

/// The clipped ReLU of every hidden layer.
#[inline]
pub(crate) fn crelu(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

impl FloatNet {
    /// The names and lengths of the weight arrays, in file order.
    pub fn shapes(&self) -> [(&'static str, usize); 7] {
        shapes(self.features)
    }

    /// A network for `F` under `rules` with small random weights (the
    /// start of training, tests, benchmarks), the same for the same seed.
    pub fn random<F: Features>(rules: &F::Rules, seed: u64) -> FloatNet {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut v = |n: usize, scale: f32| -> Vec<f32> {
            (0..n).map(|_| rng.gen_range(-scale..scale)).collect()
        };
        let ft_w = v(F::COUNT * HIDDEN, 0.15);
        let ft_b = v(HIDDEN, 0.3);
        let l1_w = v(L1 * L1_IN, 0.2);
        let l1_b = v(L1, 0.3);
        let l2_w = v(L2 * L1, 0.5);
        let l2_b = v(L2, 0.3);
        let out_w = v(L2, 2.0);
        FloatNet {
            feature_set: F::NAME.to_owned(),
            features: F::COUNT,
            rules: rules.to_string(),
            ft_w,
            ft_b,
            l1_w,
            l1_b,
            l2_w,
            l2_b,
            out_w,
            out_b: 0.1,
        }
    }

    /// The weight arrays in [`FloatNet::shapes`] order (file order; the
    /// output bias follows them).
    pub fn arrays(&self) -> [&[f32]; 7] {
        [
            &self.ft_w,
            &self.ft_b,
            &self.l1_w,
            &self.l1_b,
            &self.l2_w,
            &self.l2_b,
            &self.out_w,
        ]
    }

    /// Checks the lengths of the arrays; `None` if they are right, else
    /// which one is wrong.
    pub fn shape_error(&self) -> Option<String> {
        for ((name, want), a) in self.shapes().iter().zip(self.arrays()) {
            if *want != a.len() {
                return Some(format!("{name} has {} weights, expected {want}", a.len()));
            }
        }
        let finite = self
            .arrays()
            .iter()
            .all(|a| a.iter().all(|x| x.is_finite()))
            && self.out_b.is_finite();
        (!finite).then(|| "a weight is not a finite number".to_owned())
    }

    /// Whether the network is one of `F`'s, and its rules as `F`'s rules.
    ///
    /// # Errors
    ///
    /// What differs: the feature set, the number of features, or rules
    /// that are not `F`'s.
    pub fn check<F: Features>(&self) -> Result<F::Rules, String> {
        if self.feature_set != F::NAME {
            return Err(format!(
                "a network of the feature set `{}`, not `{}`",
                self.feature_set,
                F::NAME
            ));
        }
        if self.features != F::COUNT {
            return Err(format!(
                "{} features, the feature set `{}` has {}",
                self.features,
                F::NAME,
                F::COUNT
            ));
        }
        self.rules
            .parse()
            .map_err(|e| format!("rules `{}` do not parse: {e}", self.rules))
    }

    /// The feature transformer's output for `perspective`, before the
    /// clipped ReLU.
    pub fn accumulator<F: Features>(&self, pos: &F::Position, perspective: usize) -> Vec<f32> {
        let mut acc = self.ft_b.clone();
        F::for_each_feature(pos, perspective, |f| {
            let row = &self.ft_w[f * HIDDEN..(f + 1) * HIDDEN];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        });
        acc
    }

    /// The raw output (before [`OUT_SCALE`]) for the side to move.
    pub fn forward<F: Features>(&self, pos: &F::Position) -> f32 {
        let stm = F::side_to_move(pos);
        let mut x: Vec<f32> = self.accumulator::<F>(pos, stm);
        x.extend(self.accumulator::<F>(pos, 1 - stm));
        x.iter_mut().for_each(|v| *v = crelu(*v));
        let h1: Vec<f32> = (0..L1)
            .map(|o| {
                let row = &self.l1_w[o * L1_IN..(o + 1) * L1_IN];
                crelu(self.l1_b[o] + row.iter().zip(&x).map(|(w, x)| w * x).sum::<f32>())
            })
            .collect();
        let h2: Vec<f32> = (0..L2)
            .map(|o| {
                let row = &self.l2_w[o * L1..(o + 1) * L1];
                crelu(self.l2_b[o] + row.iter().zip(&h1).map(|(w, x)| w * x).sum::<f32>())
            })
            .collect();
        self.out_b + self.out_w.iter().zip(&h2).map(|(w, x)| w * x).sum::<f32>()
    }

    /// The score of `pos` in centi-men for the side to move, in `f32`.
    pub fn evaluate<F: Features>(&self, pos: &F::Position) -> f32 {
        self.forward::<F>(pos) * OUT_SCALE
    }
}

/// The names and lengths of the weight arrays of a network with `features`
/// features per perspective, in file order.
pub(crate) fn shapes(features: usize) -> [(&'static str, usize); 7] {
    [
        ("ft_w", features * HIDDEN),
        ("ft_b", HIDDEN),
        ("l1_w", L1 * L1_IN),
        ("l1_b", L1),
        ("l2_w", L2 * L1),
        ("l2_b", L2),
        ("out_w", L2),
    ]
}
