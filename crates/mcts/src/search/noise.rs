//! Random draws of a search: Dirichlet noise, Gumbel samples and
//! tempered sampling of the played action.

use rand::Rng;
use rand_distr::{Distribution, Gamma};

/// A Dirichlet(α, …, α) sample of dimension `k`, via normalized Gamma draws.
pub(super) fn dirichlet(rng: &mut impl Rng, alpha: f32, k: usize) -> Vec<f32> {
    let mut out: Vec<f32> = match Gamma::new(alpha, 1.0) {
        Ok(g) => (0..k).map(|_| g.sample(rng)).collect(),
        Err(_) => vec![1.0; k],
    };
    let sum: f32 = out.iter().sum();
    if sum.is_finite() && sum > 0.0 {
        for x in &mut out {
            *x /= sum;
        }
    } else {
        // All draws underflowed (tiny α): put the mass on one random action.
        out.iter_mut().for_each(|x| *x = 0.0);
        out[rng.gen_range(0..k)] = 1.0;
    }
    out
}

/// A standard Gumbel sample: `−ln(−ln U)`.
pub(super) fn sample_gumbel(rng: &mut impl Rng) -> f32 {
    let u: f32 = rng.gen_range(f32::MIN_POSITIVE..1.0);
    -(-u.ln()).ln()
}

/// Samples an index `∝ visits^(1/τ)`.
pub(super) fn sample_tempered(rng: &mut impl Rng, visits: &[u32], temperature: f32) -> usize {
    let max = visits.iter().copied().max().unwrap_or(0).max(1) as f64;
    let inv = 1.0 / temperature as f64;
    let weights: Vec<f64> = visits.iter().map(|&n| (n as f64 / max).powf(inv)).collect();
    let total: f64 = weights.iter().sum();
    if !(total.is_finite() && total > 0.0) {
        return 0;
    }
    let mut x = rng.gen::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
}
