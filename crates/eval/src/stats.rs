//! Match statistics: Elo from a score with a 95% interval, and the SPRT.
//!
//! Conventions (the same as cutechess-cli and fishtest):
//!
//! * The score of a player is `s = (W + D/2) / N`.
//! * The logistic Elo difference is `elo(s) = -400 log10(1/s - 1)`,
//!   so 75% is +190.8 Elo and 50% is 0.
//! * The 95% interval is computed on the score with the trinomial variance of
//!   one game, `var = (W (1-s)² + D (½-s)² + L s²) / N`, standard error
//!   `sqrt(var / N)`, and both ends are mapped through `elo`.
//! * The SPRT uses the generalised (normal-approximation) log-likelihood ratio
//!   `LLR = N (s₁ - s₀)(2s - s₀ - s₁) / (2 var)`, with `sᵢ` the expected score
//!   at `eloᵢ`, on single games (trinomial) or on game pairs (pentanomial).

use serde::{Deserialize, Serialize};

/// Two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Expected score of a player `elo` points stronger than its opponent.
///
/// # Examples
///
/// ```
/// let s = dama_eval::expected_score(0.0);
/// assert!((s - 0.5).abs() < 1e-12);
/// ```
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Logistic Elo difference of a score in `[0, 1]`.
///
/// Returns `+inf` for a score of 1 and `-inf` for 0.
///
/// # Examples
///
/// ```
/// let elo = dama_eval::elo_from_score(0.75);
/// assert!((elo - 190.848).abs() < 1e-3);
/// ```
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Wins, draws and losses from the point of view of one player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wdl {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Wdl {
    /// A record of `wins`, `draws` and `losses`.
    pub fn new(wins: u32, draws: u32, losses: u32) -> Self {
        Self {
            wins,
            draws,
            losses,
        }
    }

    /// Number of games.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points scored: a win is 1, a draw ½.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }

    /// Score in `[0, 1]`, or ½ when no game was played.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            0.5
        } else {
            self.points() / f64::from(n)
        }
    }

    /// The same record seen from the opponent.
    pub fn flipped(&self) -> Self {
        Self::new(self.losses, self.draws, self.wins)
    }

    /// Adds one game result (1, ½ or 0 points).
    pub fn add(&mut self, result: GameScore) {
        match result {
            GameScore::Win => self.wins += 1,
            GameScore::Draw => self.draws += 1,
            GameScore::Loss => self.losses += 1,
        }
    }

    /// Variance of the score of one game (trinomial), around the sample mean.
    pub fn per_game_variance(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.0;
        }
        let s = self.score();
        let n = f64::from(n);
        (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n
    }

    /// Elo difference with its 95% interval.
    ///
    /// A clean sweep (score 0 or 1) has no sample variance: its point
    /// estimate is infinite, and the finite end of its interval comes from
    /// the Wilson score interval, `n / (n + z²)` (so 20–0 is at least
    /// +287 Elo, not "+∞ to +∞"). A match of draws only gets its variance
    /// from half a game of prior per category, so 20 draws read
    /// 0 ± 56 Elo rather than exactly 0.
    pub fn elo(&self) -> EloEstimate {
        let n = self.games();
        let s = self.score();
        let se = if n == 0 {
            0.0
        } else {
            (self.per_game_variance() / f64::from(n)).sqrt()
        };
        if n > 0 && self.draws == n {
            // All draws: no sample variance either, but the interval is not a
            // point. Estimate the variance with half a game of prior in each
            // category (as the SPRT does, [`PSEUDO_COUNT`]).
            let (w, d, l) = (
                PSEUDO_COUNT,
                f64::from(self.draws) + PSEUDO_COUNT,
                PSEUDO_COUNT,
            );
            let var = (w * 0.25 + l * 0.25) / (w + d + l);
            return EloEstimate::from_score_and_se(0.5, (var / f64::from(n)).sqrt());
        }
        let mut est = EloEstimate::from_score_and_se(s, se);
        if n > 0 && (s == 0.0 || s == 1.0) {
            let n = f64::from(n);
            let bound = n / (n + Z95 * Z95);
            if s == 1.0 {
                est.lo = elo_from_score(bound);
            } else {
                est.hi = elo_from_score(1.0 - bound);
            }
        }
        est
    }

    /// Log-likelihood ratio of the trinomial GSPRT of `elo1` against `elo0`.
    ///
    /// Every category gets half a game as a prior (see [`PSEUDO_COUNT`]), so
    /// that a clean sweep has a small variance instead of none and two games
    /// cannot decide a test.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        if self.games() == 0 {
            return 0.0;
        }
        let counts = [self.losses, self.draws, self.wins];
        llr_of_counts(&counts, &[0.0, 0.5, 1.0], elo0, elo1)
    }
}

/// The result of one game for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameScore {
    /// One point.
    Win,
    /// Half a point.
    Draw,
    /// No point.
    Loss,
}

impl GameScore {
    /// Points: 1, ½ or 0.
    pub fn points(self) -> f64 {
        match self {
            GameScore::Win => 1.0,
            GameScore::Draw => 0.5,
            GameScore::Loss => 0.0,
        }
    }

    /// Points in half-point units: 2, 1 or 0.
    pub fn half_points(self) -> usize {
        match self {
            GameScore::Win => 2,
            GameScore::Draw => 1,
            GameScore::Loss => 0,
        }
    }

    /// The result seen from the opponent.
    pub fn flipped(self) -> Self {
        match self {
            GameScore::Win => GameScore::Loss,
            GameScore::Draw => GameScore::Draw,
            GameScore::Loss => GameScore::Win,
        }
    }
}

/// Counts of game pairs (the same opening played with both colours) by the
/// points scored in the pair: index 0 = 0 points, 1 = ½, 2 = 1, 3 = 1½, 4 = 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    /// Adds one pair of games.
    pub fn add(&mut self, a: GameScore, b: GameScore) {
        self.0[a.half_points() + b.half_points()] += 1;
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }

    /// Mean score per game in `[0, 1]`, or ½ without pairs.
    pub fn score(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        let total: f64 = self
            .0
            .iter()
            .enumerate()
            .map(|(k, &c)| f64::from(c) * k as f64 / 4.0)
            .sum();
        total / f64::from(n)
    }

    /// Variance of the per-game score of one pair, around the sample mean.
    pub fn per_pair_variance(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.0;
        }
        let s = self.score();
        let v: f64 = self
            .0
            .iter()
            .enumerate()
            .map(|(k, &c)| f64::from(c) * (k as f64 / 4.0 - s).powi(2))
            .sum();
        v / f64::from(n)
    }

    /// Elo difference with a 95% interval from the pair variance (which
    /// accounts for the correlation of the two games of an opening).
    pub fn elo(&self) -> EloEstimate {
        let n = self.pairs();
        let se = if n == 0 {
            0.0
        } else {
            (self.per_pair_variance() / f64::from(n)).sqrt()
        };
        EloEstimate::from_score_and_se(self.score(), se)
    }

    /// Log-likelihood ratio of the pentanomial GSPRT of `elo1` against `elo0`
    /// (categories regularised as in [`Wdl::llr`]).
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        if self.pairs() == 0 {
            return 0.0;
        }
        llr_of_counts(&self.0, &[0.0, 0.25, 0.5, 0.75, 1.0], elo0, elo1)
    }
}

/// Prior samples added to every outcome category of the SPRT.
pub const PSEUDO_COUNT: f64 = 0.5;

/// GSPRT over outcome categories with per-sample scores `values`, each
/// category with [`PSEUDO_COUNT`] extra samples.
fn llr_of_counts(counts: &[u32], values: &[f64], elo0: f64, elo1: f64) -> f64 {
    let c: Vec<f64> = counts
        .iter()
        .map(|&k| f64::from(k) + PSEUDO_COUNT)
        .collect();
    let n: f64 = c.iter().sum();
    let mean = c.iter().zip(values).map(|(k, v)| k * v).sum::<f64>() / n;
    let var = c
        .iter()
        .zip(values)
        .map(|(k, v)| k * (v - mean).powi(2))
        .sum::<f64>()
        / n;
    gsprt_llr(n, mean, var, elo0, elo1)
}

/// Generalised SPRT log-likelihood ratio (normal approximation) for `n`
/// samples of mean `score` and per-sample variance `var`.
///
/// Returns 0 when the variance is zero (no information yet, or all samples
/// equal: the test then waits for a differing sample).
pub fn gsprt_llr(n: f64, score: f64, var: f64, elo0: f64, elo1: f64) -> f64 {
    if n <= 0.0 || var <= 0.0 {
        return 0.0;
    }
    let s0 = expected_score(elo0);
    let s1 = expected_score(elo1);
    n * (s1 - s0) * (2.0 * score - s0 - s1) / (2.0 * var)
}

/// An Elo difference with its 95% interval `[lo, hi]`.
///
/// Infinite values mean a score of 0 or 1 (they serialise to `null` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Point estimate.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
}

impl EloEstimate {
    /// Maps `score ± 1.96 se` through [`elo_from_score`].
    pub fn from_score_and_se(score: f64, se: f64) -> Self {
        Self {
            elo: elo_from_score(score),
            lo: elo_from_score(score - Z95 * se),
            hi: elo_from_score(score + Z95 * se),
        }
    }

    /// Half the width of the interval (the "±" figure), infinite if either
    /// end is.
    pub fn margin(&self) -> f64 {
        (self.hi - self.lo) / 2.0
    }
}

impl std::fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = self.margin();
        if m.is_finite() {
            write!(f, "{:+.1} ± {:.1}", self.elo, m)
        } else {
            write!(f, "{:+.1} [{:.1}, {:.1}]", self.elo, self.lo, self.hi)
        }
    }
}

/// Parameters of a sequential probability ratio test: H0 `elo = elo0`
/// against H1 `elo = elo1`, error rates `alpha` (false accept of H1) and
/// `beta` (false accept of H0).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative hypothesis.
    pub elo1: f64,
    /// Type I error rate.
    pub alpha: f64,
    /// Type II error rate.
    pub beta: f64,
}

/// The state of an SPRT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtDecision {
    /// Not enough evidence yet.
    Continue,
    /// H1 accepted: the player is at least `elo1` stronger.
    AcceptH1,
    /// H0 accepted: the player is at most `elo0` stronger.
    AcceptH0,
}

impl Sprt {
    /// A test with `alpha = beta = 0.05`.
    pub fn new(elo0: f64, elo1: f64) -> Self {
        Self {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        }
    }

    /// Lower bound `ln(β / (1 - α))`: below it H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// Upper bound `ln((1 - β) / α)`: above it H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// Decision for a log-likelihood ratio.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

impl std::str::FromStr for Sprt {
    type Err = crate::Error;

    /// Parses `ELO0,ELO1` or `ELO0,ELO1,ALPHA,BETA`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || crate::Error::Spec(format!("bad SPRT `{s}`: want ELO0,ELO1[,ALPHA,BETA]"));
        let parts: Vec<f64> = s
            .split(',')
            .map(|p| p.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let sprt = match parts[..] {
            [elo0, elo1] => Sprt::new(elo0, elo1),
            [elo0, elo1, alpha, beta] => Sprt {
                elo0,
                elo1,
                alpha,
                beta,
            },
            _ => return Err(bad()),
        };
        let ok_rate = |x: f64| x > 0.0 && x < 0.5;
        if sprt.elo1.partial_cmp(&sprt.elo0) != Some(std::cmp::Ordering::Greater)
            || !ok_rate(sprt.alpha)
            || !ok_rate(sprt.beta)
        {
            return Err(bad());
        }
        Ok(sprt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn all_draws_have_a_real_interval() {
        // Prior counts (0.5, 20.5, 0.5): variance = 0.25 / 21.5 per game,
        // se = sqrt(0.01163 / 20) = 0.02411, score 0.5 ± 1.96 se = 0.54726,
        // 400 · log10(0.54726 / 0.45274) = +32.94.
        let e = Wdl::new(0, 20, 0).elo();
        assert_eq!(e.elo, 0.0);
        let se = (0.25 / 21.5 / 20.0f64).sqrt();
        assert!(close(e.hi, elo_from_score(0.5 + Z95 * se), 1e-9));
        assert!(close(e.lo, -e.hi, 1e-9));
        assert!(close(e.hi, 32.94, 0.01), "{}", e.hi);
    }

    #[test]
    fn clean_sweeps_have_a_finite_wilson_bound() {
        // 20-0: lower end at score 20 / (20 + 1.96^2) = 0.8389 -> +286.8 Elo.
        let e = Wdl::new(20, 0, 0).elo();
        assert!(e.elo.is_infinite() && e.elo > 0.0 && e.hi.is_infinite());
        let expected = elo_from_score(20.0 / (20.0 + Z95 * Z95));
        assert!(close(e.lo, expected, 1e-9), "{}", e.lo);
        assert!(close(e.lo, 286.8, 0.5), "{}", e.lo);
        let e = Wdl::new(0, 0, 20).elo();
        assert!(close(e.hi, -expected, 1e-9) && e.lo.is_infinite());
    }

    #[test]
    fn elo_of_scores() {
        assert!(close(elo_from_score(0.5), 0.0, 1e-12));
        // 400 log10(3) = 190.848...
        assert!(close(elo_from_score(0.75), 190.848_501_887, 1e-6));
        assert!(close(elo_from_score(0.25), -190.848_501_887, 1e-6));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        for elo in [-500.0, -100.0, 0.0, 35.0, 400.0] {
            assert!(close(elo_from_score(expected_score(elo)), elo, 1e-9));
        }
    }

    /// W=60, D=20, L=20 by hand: s = 0.7, var = 0.6·0.09 + 0.2·0.04 + 0.2·0.49
    /// = 0.16, se = sqrt(0.16/100) = 0.04, score interval 0.7 ± 0.0784 =
    /// [0.62160, 0.77840]; Elo 400·log10(7/3) = 147.19,
    /// lo = 400·log10(0.62160/0.37840) = 86.23, hi = 400·log10(0.7784/0.2216)
    /// = 218.25.
    #[test]
    fn elo_interval_matches_hand_computation() {
        let wdl = Wdl::new(60, 20, 20);
        assert!(close(wdl.score(), 0.7, 1e-12));
        assert!(close(wdl.per_game_variance(), 0.16, 1e-12));
        let e = wdl.elo();
        assert!(close(e.elo, 147.19, 0.01), "{e:?}");
        let z = Z95 * 0.04;
        let lo_hand = 400.0 * ((0.7 - z) / (0.3 + z)).log10();
        let hi_hand = 400.0 * ((0.7 + z) / (0.3 - z)).log10();
        assert!(
            close(e.lo, lo_hand, 1e-9) && close(e.lo, 86.23, 0.01),
            "{e:?}"
        );
        assert!(
            close(e.hi, hi_hand, 1e-9) && close(e.hi, 218.25, 0.01),
            "{e:?}"
        );
        let f = wdl.flipped().elo();
        assert!(close(f.elo, -e.elo, 1e-9) && close(f.lo, -e.hi, 1e-9));
    }

    /// All draws: Elo 0 with an interval from the prior counts
    /// (0.5, 10.5, 0.5): se = sqrt(0.25 / 11.5 / 10) = 0.04663, so the upper
    /// end is elo(0.5 + 1.96 · 0.04663) = elo(0.59139) = +64.22.
    #[test]
    fn elo_of_draws_and_sweeps() {
        let e = Wdl::new(0, 10, 0).elo();
        assert_eq!(e.elo, 0.0);
        assert!(
            close(e.hi, 64.22, 0.01) && close(e.lo, -64.22, 0.01),
            "{e:?}"
        );
        let e = Wdl::new(10, 0, 0).elo();
        assert_eq!(e.elo, f64::INFINITY);
        // Empty record: score ½, zero interval.
        assert_eq!(Wdl::default().elo().elo, 0.0);
    }

    /// Trinomial LLR by hand for W=60 D=20 L=20 with elo0=0, elo1=10:
    /// s0 = 0.5, s1 = 1/(1+10^(-1/40)) = 0.514387, LLR = 100 · 0.014387 ·
    /// (1.4 - 1.014387) / (2 · 0.16) = 1.7337.
    #[test]
    fn trinomial_llr_matches_hand_computation() {
        let wdl = Wdl::new(60, 20, 20);
        let s1 = 1.0 / (1.0 + 10f64.powf(-10.0 / 400.0));
        assert!(close(s1, 0.514_387, 1e-6));
        let hand = 100.0 * (s1 - 0.5) * (1.4 - 0.5 - s1) / (2.0 * 0.16);
        assert!(close(gsprt_llr(100.0, 0.7, 0.16, 0.0, 10.0), hand, 1e-12));
        assert!(close(hand, 1.7337, 1e-3));
        // With the prior: W=60.5, D=20.5, L=20.5, n=101.5, s = 70.75/101.5.
        let (n, s): (f64, f64) = (101.5, 70.75 / 101.5);
        let var = (60.5 * (1.0 - s).powi(2) + 20.5 * (0.5 - s).powi(2) + 20.5 * s * s) / n;
        let reg = n * (s1 - 0.5) * (2.0 * s - 0.5 - s1) / (2.0 * var);
        assert!(close(wdl.llr(0.0, 10.0), reg, 1e-12));
        assert!(close(reg, hand, 0.05));
    }

    #[test]
    fn sprt_bounds_and_decisions() {
        let sprt = Sprt::new(0.0, 10.0);
        // ln(0.05/0.95) = -2.944, ln(0.95/0.05) = 2.944.
        assert!(close(sprt.lower_bound(), -2.944_438_979, 1e-6));
        assert!(close(sprt.upper_bound(), 2.944_438_979, 1e-6));
        assert_eq!(sprt.decide(0.0), SprtDecision::Continue);
        assert_eq!(sprt.decide(3.0), SprtDecision::AcceptH1);
        assert_eq!(sprt.decide(-3.0), SprtDecision::AcceptH0);
        // A clear winner is accepted, a clear loser rejected.
        assert_eq!(
            sprt.decide(Wdl::new(300, 100, 100).llr(0.0, 10.0)),
            SprtDecision::AcceptH1
        );
        assert_eq!(
            sprt.decide(Wdl::new(100, 100, 300).llr(0.0, 10.0)),
            SprtDecision::AcceptH0
        );
        // A clean sweep decides too, but not after two games.
        assert_eq!(
            sprt.decide(Wdl::new(30, 0, 0).llr(0.0, 10.0)),
            SprtDecision::AcceptH1
        );
        assert_eq!(
            sprt.decide(Wdl::new(2, 0, 0).llr(0.0, 10.0)),
            SprtDecision::Continue
        );
        assert_eq!(Wdl::default().llr(0.0, 10.0), 0.0);
        assert_eq!(
            sprt.decide(Pentanomial([0, 0, 0, 0, 20]).llr(0.0, 10.0)),
            SprtDecision::AcceptH1
        );
        let parsed: Sprt = "0,10".parse().unwrap();
        assert_eq!(parsed, sprt);
        let parsed: Sprt = "-5, 5, 0.1, 0.2".parse().unwrap();
        assert_eq!((parsed.alpha, parsed.beta), (0.1, 0.2));
        assert!("10,0".parse::<Sprt>().is_err());
        assert!("1".parse::<Sprt>().is_err());
        assert!("a,b".parse::<Sprt>().is_err());
    }

    /// Pairs (pentanomial) by hand: 10 pairs with points [0,½,1,1½,2] counts
    /// [1,2,3,2,2] → per-game scores 0, .25, .5, .75, 1; mean =
    /// (0 + .5 + 1.5 + 1.5 + 2)/10 = 0.55; variance = (1·.3025 + 2·.09 +
    /// 3·.0025 + 2·.04 + 2·.2025)/10 = 0.0975.
    #[test]
    fn pentanomial_matches_hand_computation() {
        let p = Pentanomial([1, 2, 3, 2, 2]);
        assert_eq!(p.pairs(), 10);
        assert!(close(p.score(), 0.55, 1e-12));
        assert!(close(p.per_pair_variance(), 0.0975, 1e-12));
        let e = p.elo();
        let se = (0.0975f64 / 10.0).sqrt();
        assert!(close(e.lo, elo_from_score(0.55 - Z95 * se), 1e-9));
        let mut q = Pentanomial::default();
        q.add(GameScore::Win, GameScore::Draw);
        q.add(GameScore::Loss, GameScore::Loss);
        assert_eq!(q.0, [1, 0, 0, 1, 0]);
    }
}
