//! The network in `f32`: what training produces and files store, and the
//! reference the quantized [`crate::Network`] is tested against.

use dama_engine::{Color, Position, Rules};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{for_each_feature, FEATURES, HIDDEN, L1, L1_IN, L2, OUT_SCALE};

/// The network's weights in `f32`, row-major (`[out][in]`) for the dense
/// layers, `[feature][hidden]` for the feature transformer.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// The rules the network was trained for.
    pub rules: Rules,
    /// Feature transformer weights, `FEATURES × HIDDEN`.
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
    /// The lengths of the weight arrays, in file order.
    pub const SHAPES: [(&'static str, usize); 7] = [
        ("ft_w", FEATURES * HIDDEN),
        ("ft_b", HIDDEN),
        ("l1_w", L1 * L1_IN),
        ("l1_b", L1),
        ("l2_w", L2 * L1),
        ("l2_b", L2),
        ("out_w", L2),
    ];

    /// A network with small random weights (tests, benchmarks), the same for
    /// the same seed.
    pub fn random(rules: Rules, seed: u64) -> FloatNet {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut v = |n: usize, scale: f32| -> Vec<f32> {
            (0..n).map(|_| rng.gen_range(-scale..scale)).collect()
        };
        let ft_w = v(FEATURES * HIDDEN, 0.15);
        let ft_b = v(HIDDEN, 0.3);
        let l1_w = v(L1 * L1_IN, 0.2);
        let l1_b = v(L1, 0.3);
        let l2_w = v(L2 * L1, 0.5);
        let l2_b = v(L2, 0.3);
        let out_w = v(L2, 2.0);
        FloatNet {
            rules,
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

    /// The weight arrays in [`FloatNet::SHAPES`] order (file order; the
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
        for ((name, want), a) in Self::SHAPES.iter().zip(self.arrays()) {
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

    /// The feature transformer's output for `perspective`, before the
    /// clipped ReLU.
    pub fn accumulator(&self, pos: &Position, perspective: Color) -> Vec<f32> {
        let mut acc = self.ft_b.clone();
        for_each_feature(pos, perspective, |f| {
            let row = &self.ft_w[f * HIDDEN..(f + 1) * HIDDEN];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        });
        acc
    }

    /// The raw output (before [`OUT_SCALE`]) for the side to move.
    pub fn forward(&self, pos: &Position) -> f32 {
        let stm = pos.turn();
        let mut x: Vec<f32> = self.accumulator(pos, stm);
        x.extend(self.accumulator(pos, !stm));
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
    pub fn evaluate(&self, pos: &Position) -> f32 {
        self.forward(pos) * OUT_SCALE
    }
}
