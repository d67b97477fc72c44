//! Child selection: PUCT with first-play urgency, and the Gumbel
//! AlphaZero pieces (completed Q, σ, sequential halving).
//!
//! Q values here are always from the point of view of the player choosing
//! at the parent (`sign` = that player's [`Player::sign`](crate::Player::sign)).

use crate::config::SearchConfig;
use crate::tree::Node;

/// Smallest prior used when taking logarithms.
pub(crate) const TINY: f32 = 1e-30;

/// Visits of a child including virtual ones, and its Q for the chooser with
/// virtual loss counted as losses; `None` if it has no visit at all.
/// A draw is worth `draw_score` to the chooser (0: neutral; see
/// [`SearchConfig::draw_score`]).
#[inline]
fn q_with_virtual(c: &Node, sign: f32, vl: f32, draw_score: f32) -> (f32, Option<f32>) {
    let n = (c.visits + c.virtual_visits) as f32;
    if let Some(winner) = c.proven {
        return (n, Some(sign * winner.sign()));
    }
    if n > 0.0 {
        (
            n,
            Some((sign * c.w_abs + draw_score * c.d_sum - vl * c.virtual_visits as f32) / n),
        )
    } else {
        (0.0, None)
    }
}

/// AlphaZero's PUCT at `parent` over `children`:
/// `argmax Q(s,a) + C(s) P(s,a) √N(s) / (1 + N(s,a))` with
/// `C(s) = ln((1 + N(s) + c_base) / c_base) + c_init`; unvisited children
/// get the first-play-urgency value `Q(s) − fpu · √(Σ_visited P)`.
/// Returns the index of the chosen child within `children`.
pub(crate) fn puct(parent: &Node, children: &[Node], cfg: &SearchConfig, fpu: f32) -> usize {
    let sign = parent.to_play.sign();
    let vl = cfg.virtual_loss;
    let parent_n = (parent.visits + parent.virtual_visits) as f32;
    let c = ((1.0 + parent_n + cfg.c_puct_base) / cfg.c_puct_base).ln() + cfg.c_puct_init;
    let explore = c * parent_n.sqrt();
    let ds = cfg.draw_score;
    let parent_q = if parent.visits > 0 {
        (sign * parent.w_abs + ds * parent.d_sum) / parent.visits as f32
    } else {
        0.0
    };
    let mut visited_prior = 0.0;
    for ch in children {
        if ch.visits + ch.virtual_visits > 0 {
            visited_prior += ch.prior;
        }
    }
    let fpu_q = parent_q - fpu * visited_prior.sqrt();
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (i, ch) in children.iter().enumerate() {
        let (n, q) = q_with_virtual(ch, sign, vl, ds);
        let score = q.unwrap_or(fpu_q) + explore * ch.prior / (1.0 + n);
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best
}

/// Scratch buffers for the Gumbel computations, reused between calls.
#[derive(Clone, Debug, Default)]
pub(crate) struct GumbelScratch {
    pub(crate) q: Vec<f32>,
    pub(crate) n: Vec<f32>,
    pub(crate) logits: Vec<f32>,
}

impl GumbelScratch {
    /// Fills `logits` (log priors), `n` (visits, virtual included if
    /// `virtual_loss`) and `q` with σ(completed Q) for the chooser at
    /// `parent`, as in mctx's `qtransform_completed_by_mix_value`:
    /// unvisited children get the mixed value
    /// `(v̂ + Σ N · Σ_visited π q / Σ_visited π) / (1 + Σ N)`, all completed
    /// values are mapped to q̂ ∈ [0, 1] (by `(q + 1) / 2`, or by their min
    /// and max with `gumbel_rescale_q`), and
    /// `σ(q̂) = (c_visit + max N) · c_scale · q̂`.
    pub(crate) fn sigma_completed_q(
        &mut self,
        parent: &Node,
        children: &[Node],
        cfg: &SearchConfig,
        virtual_loss: bool,
    ) {
        let sign = parent.to_play.sign();
        let vl = if virtual_loss { cfg.virtual_loss } else { 0.0 };
        let ds = cfg.draw_score;
        self.q.clear();
        self.n.clear();
        self.logits.clear();
        let (mut sum_n, mut max_n, mut sum_p, mut sum_pq) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        for ch in children {
            let p = ch.prior;
            let (n, q) = if virtual_loss {
                q_with_virtual(ch, sign, vl, ds)
            } else if let Some(winner) = ch.proven {
                (ch.visits as f32, Some(sign * winner.sign()))
            } else if ch.visits > 0 {
                let n = ch.visits as f32;
                (n, Some((sign * ch.w_abs + ds * ch.d_sum) / n))
            } else {
                (0.0, None)
            };
            self.logits.push(ch.logit);
            self.n.push(n);
            sum_n += n;
            max_n = max_n.max(n);
            if let Some(q) = q {
                sum_p += p.max(TINY);
                sum_pq += p.max(TINY) * q;
                self.q.push(q);
            } else {
                self.q.push(f32::NAN);
            }
        }
        // The parent's own raw value is for its player to move: the chooser.
        let raw = parent.raw_value + ds * parent.raw_draw;
        let mixed = if sum_p > 0.0 {
            (raw + sum_n * (sum_pq / sum_p)) / (1.0 + sum_n)
        } else {
            raw
        };
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for q in &mut self.q {
            if q.is_nan() {
                *q = mixed;
            }
            lo = lo.min(*q);
            hi = hi.max(*q);
        }
        let sigma = (cfg.c_visit + max_n) * cfg.c_scale;
        let (offset, scale) = if cfg.gumbel_rescale_q {
            (lo, sigma / (hi - lo).max(1e-8))
        } else {
            (-1.0, sigma * 0.5)
        };
        for q in &mut self.q {
            *q = (*q - offset) * scale;
        }
    }
}

/// Gumbel AlphaZero's deterministic selection below the root (mctx
/// `gumbel_muzero_interior_action_selection`):
/// `argmax π'(a) − N(a) / (1 + Σ N)` with `π' = softmax(logits + σ(completedQ))`.
pub(crate) fn gumbel_interior(
    parent: &Node,
    children: &[Node],
    cfg: &SearchConfig,
    scratch: &mut GumbelScratch,
) -> usize {
    scratch.sigma_completed_q(parent, children, cfg, true);
    let mut max = f32::NEG_INFINITY;
    for (l, q) in scratch.logits.iter().zip(&scratch.q) {
        max = max.max(l + q);
    }
    let mut z = 0.0;
    for (l, q) in scratch.logits.iter_mut().zip(&scratch.q) {
        *l = (*l + q - max).exp();
        z += *l;
    }
    let sum_n: f32 = scratch.n.iter().sum();
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (i, (p, n)) in scratch.logits.iter().zip(&scratch.n).enumerate() {
        let score = p / z - n / (1.0 + sum_n);
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best
}

/// The sequential-halving schedule of mctx
/// (`get_sequence_of_considered_visits`): entry `k` is the visit count a
/// root action must have to be eligible for simulation `k`, when `m`
/// actions are considered and `n` simulations are run.
pub(crate) fn considered_visits(m: u32, n: u32) -> Vec<u32> {
    let n = n as usize;
    if m <= 1 {
        return (0..n as u32).collect();
    }
    let log2max = (m as f64).log2().ceil() as usize;
    let mut seq = Vec::with_capacity(n + m as usize);
    let mut visits = vec![0u32; m as usize];
    let mut considered = m as usize;
    while seq.len() < n {
        let extra = (n / (log2max * considered)).max(1);
        for _ in 0..extra {
            seq.extend_from_slice(&visits[..considered]);
            for v in &mut visits[..considered] {
                *v += 1;
            }
        }
        considered = (considered / 2).max(2);
    }
    seq.truncate(n);
    seq
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_halving_schedule_matches_mctx() {
        // mctx: get_sequence_of_considered_visits(4, 16).
        assert_eq!(
            considered_visits(4, 16),
            vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
        );
        assert_eq!(considered_visits(16, 2), vec![0, 0]);
        assert_eq!(considered_visits(1, 3), vec![0, 1, 2]);
        assert_eq!(considered_visits(2, 4), vec![0, 0, 1, 1]);
    }
}
