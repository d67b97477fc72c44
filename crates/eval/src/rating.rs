//! One Elo scale over many players: a maximum-likelihood Bradley–Terry fit.
//!
//! Each game counts as a Bradley–Terry comparison with a draw as half a win
//! for each side, so the likelihood of player `i` scoring `wᵢⱼ` points in
//! `nᵢⱼ` games against `j` is `pᵢⱼ^wᵢⱼ (1 - pᵢⱼ)^(nᵢⱼ - wᵢⱼ)` with
//! `pᵢⱼ = γᵢ / (γᵢ + γⱼ)` and `eloᵢ = 400 log10 γᵢ`.
//! The fit uses Hunter's minorisation–maximisation update
//! `γᵢ ← Wᵢ / Σⱼ nᵢⱼ / (γᵢ + γⱼ)`, with the anchor player (normally
//! `random`) held at Elo 0.
//! Standard errors come from the inverse Fisher information with the anchor
//! removed.
//!
//! The maximum-likelihood estimate is finite only when the "scored at least
//! half a point against" graph is strongly connected (a player that never
//! lost has Elo +∞).
//! [`FitConfig::prior_draws`] adds that many virtual draws to every pair that
//! played, which keeps all ratings finite; set it to 0 for the plain MLE.

use std::collections::BTreeMap;
use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::stats::{Wdl, Z95};
use crate::Error;

/// The games of one pair of players, from the point of view of `a`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// First player (spec or display name).
    pub a: String,
    /// Second player.
    pub b: String,
    /// Results of `a` against `b`.
    pub wdl: Wdl,
}

impl PairResult {
    /// The games of `a` against `b`.
    pub fn new(a: impl Into<String>, b: impl Into<String>, wdl: Wdl) -> Self {
        Self {
            a: a.into(),
            b: b.into(),
            wdl,
        }
    }
}

/// Settings of [`fit_elo`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitConfig {
    /// Player held at Elo 0 (default `random`).
    pub anchor: String,
    /// Virtual draws added to each pair that played (default 1; 0 = plain MLE).
    pub prior_draws: f64,
    /// Iteration cap of the MM updates (default 100 000).
    pub max_iters: usize,
    /// Stop when no log-strength moves more than this (default 1e-12).
    pub tolerance: f64,
}

impl Default for FitConfig {
    fn default() -> Self {
        Self {
            anchor: "random".to_owned(),
            prior_draws: 1.0,
            max_iters: 100_000,
            tolerance: 1e-12,
        }
    }
}

/// One player's place on the fitted scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// Player name.
    pub name: String,
    /// Elo relative to the anchor.
    pub elo: f64,
    /// Standard error of `elo` (0 for the anchor).
    pub se: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
    /// Games played (real games, not virtual draws).
    pub games: u32,
    /// Points scored in those games.
    pub points: f64,
}

/// The fitted scale, strongest player first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingTable {
    /// Player held at Elo 0.
    pub anchor: String,
    /// Virtual draws per pair used by the fit.
    pub prior_draws: f64,
    /// MM iterations used.
    pub iterations: usize,
    /// Ratings, sorted by decreasing Elo.
    pub ratings: Vec<Rating>,
    /// The results the fit was made from.
    pub pairs: Vec<PairResult>,
}

/// Fits one Elo scale to pairwise results (see the module docs).
///
/// Several entries for the same pair (in either order) are merged.
///
/// # Errors
///
/// [`Error::Fit`] when the anchor played no game, when a player cannot be
/// connected to the anchor, when the MLE is infinite (with
/// `prior_draws == 0`), or when the iteration does not converge.
///
/// # Examples
///
/// ```
/// use dama_eval::{fit_elo, FitConfig, PairResult, Wdl};
///
/// // B scores 75% against random: 400 log10(3) = 190.8 Elo.
/// let results = [PairResult::new("random", "b", Wdl::new(2, 0, 6))];
/// let config = FitConfig { prior_draws: 0.0, ..FitConfig::default() };
/// let table = fit_elo(&results, &config).unwrap();
/// assert_eq!(table.ratings[0].name, "b");
/// assert!((table.ratings[0].elo - 190.85).abs() < 0.01);
/// ```
pub fn fit_elo(results: &[PairResult], config: &FitConfig) -> Result<RatingTable, Error> {
    // Index players in order of first appearance.
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut names: Vec<&str> = Vec::new();
    for r in results {
        for name in [r.a.as_str(), r.b.as_str()] {
            if !index.contains_key(name) {
                index.insert(name, names.len());
                names.push(name);
            }
        }
    }
    let n = names.len();
    let anchor = *index
        .get(config.anchor.as_str())
        .ok_or_else(|| Error::Fit(format!("anchor `{}` played no game", config.anchor)))?;

    // games[i][j] and points[i][j] (points of i against j), real games only.
    let mut games = vec![vec![0.0f64; n]; n];
    let mut points = vec![vec![0.0f64; n]; n];
    for r in results {
        let (i, j) = (index[r.a.as_str()], index[r.b.as_str()]);
        if i == j {
            return Err(Error::Fit(format!("`{}` is paired with itself", r.a)));
        }
        let g = f64::from(r.wdl.games());
        games[i][j] += g;
        games[j][i] += g;
        points[i][j] += r.wdl.points();
        points[j][i] += g - r.wdl.points();
    }
    let real_games: Vec<u32> = (0..n)
        .map(|i| games[i].iter().sum::<f64>().round() as u32)
        .collect();
    let real_points: Vec<f64> = (0..n).map(|i| points[i].iter().sum()).collect();

    // Add the prior: virtual draws on every pair that played.
    if config.prior_draws > 0.0 {
        for i in 0..n {
            for j in 0..n {
                if games[i][j] > 0.0 {
                    games[i][j] += config.prior_draws;
                    points[i][j] += config.prior_draws / 2.0;
                }
            }
        }
    }

    check_connected(&names, &games, &points, anchor)?;

    let wins: Vec<f64> = (0..n).map(|i| points[i].iter().sum()).collect();
    let mut gamma = vec![1.0f64; n];
    let mut iterations = 0;
    let mut converged = false;
    while iterations < config.max_iters {
        iterations += 1;
        let mut next = gamma.clone();
        for i in 0..n {
            let denom: f64 = (0..n)
                .filter(|&j| games[i][j] > 0.0)
                .map(|j| games[i][j] / (gamma[i] + gamma[j]))
                .sum();
            next[i] = wins[i] / denom;
        }
        let scale = next[anchor];
        let mut delta = 0.0f64;
        for i in 0..n {
            next[i] /= scale;
            delta = delta.max((next[i].ln() - gamma[i].ln()).abs());
        }
        gamma = next;
        if delta < config.tolerance {
            converged = true;
            break;
        }
    }
    if !converged || gamma.iter().any(|g| !g.is_finite() || *g <= 0.0) {
        return Err(Error::Fit(format!(
            "Elo fit did not converge in {iterations} iterations"
        )));
    }

    let variances = anchored_variances(&games, &gamma, anchor)?;
    let to_elo = 400.0 / std::f64::consts::LN_10;
    let mut ratings: Vec<Rating> = (0..n)
        .map(|i| {
            let elo = to_elo * gamma[i].ln();
            let se = to_elo * variances[i].max(0.0).sqrt();
            Rating {
                name: names[i].to_owned(),
                elo,
                se,
                lo: elo - Z95 * se,
                hi: elo + Z95 * se,
                games: real_games[i],
                points: real_points[i],
            }
        })
        .collect();
    ratings.sort_by(|x, y| y.elo.total_cmp(&x.elo));
    Ok(RatingTable {
        anchor: config.anchor.clone(),
        prior_draws: config.prior_draws,
        iterations,
        ratings,
        pairs: results.to_vec(),
    })
}

/// Checks that every player reaches and is reached from the anchor in the
/// "scored against" graph, which makes the MLE finite.
fn check_connected(
    names: &[&str],
    games: &[Vec<f64>],
    points: &[Vec<f64>],
    anchor: usize,
) -> Result<(), Error> {
    let n = names.len();
    // Edge i -> j when i scored against j, edge j -> i when j scored.
    let reach = |forward: bool| {
        let mut seen = vec![false; n];
        let mut stack = vec![anchor];
        seen[anchor] = true;
        while let Some(i) = stack.pop() {
            for j in 0..n {
                let scored = if forward {
                    points[i][j] > 0.0
                } else {
                    games[j][i] > 0.0 && points[j][i] > 0.0
                };
                if !seen[j] && scored {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        seen
    };
    let fwd = reach(true);
    let bwd = reach(false);
    for i in 0..n {
        if !fwd[i] || !bwd[i] {
            let connected_at_all = {
                // Undirected reachability tells "no games" from "sweeps".
                let mut seen = vec![false; n];
                let mut stack = vec![anchor];
                seen[anchor] = true;
                while let Some(k) = stack.pop() {
                    for j in 0..n {
                        if !seen[j] && games[k][j] > 0.0 {
                            seen[j] = true;
                            stack.push(j);
                        }
                    }
                }
                seen[i]
            };
            let why = if !connected_at_all {
                "has no chain of games to the anchor".to_owned()
            } else if !bwd[i] {
                "never lost a point on its side of the scale (Elo +inf); use prior_draws > 0"
                    .to_owned()
            } else {
                "never scored on its side of the scale (Elo -inf); use prior_draws > 0".to_owned()
            };
            return Err(Error::Fit(format!("`{}` {why}", names[i])));
        }
    }
    Ok(())
}

/// Diagonal of the inverse Fisher information in natural-log units, with the
/// anchor fixed (its variance is 0).
fn anchored_variances(games: &[Vec<f64>], gamma: &[f64], anchor: usize) -> Result<Vec<f64>, Error> {
    let n = gamma.len();
    let free: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
    let m = free.len();
    let mut info = vec![vec![0.0f64; m]; m];
    for (a, &i) in free.iter().enumerate() {
        for j in 0..n {
            if i == j || games[i][j] <= 0.0 {
                continue;
            }
            let p = gamma[i] / (gamma[i] + gamma[j]);
            let w = games[i][j] * p * (1.0 - p);
            info[a][a] += w;
            if let Some(b) = free.iter().position(|&k| k == j) {
                info[a][b] -= w;
            }
        }
    }
    let inv = invert(info).ok_or_else(|| Error::Fit("singular information matrix".to_owned()))?;
    let mut var = vec![0.0; n];
    for (a, &i) in free.iter().enumerate() {
        var[i] = inv[a][a];
    }
    Ok(var)
}

/// Gauss–Jordan inverse with partial pivoting; `None` if singular.
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        for k in 0..n {
            a[col][k] /= d;
            inv[col][k] /= d;
        }
        for row in 0..n {
            if row != col {
                let f = a[row][col];
                if f != 0.0 {
                    for k in 0..n {
                        a[row][k] -= f * a[col][k];
                        inv[row][k] -= f * inv[col][k];
                    }
                }
            }
        }
    }
    Some(inv)
}

impl RatingTable {
    /// Writes the table as CSV: `rank,name,elo,se,lo95,hi95,games,points,score`.
    ///
    /// # Errors
    ///
    /// I/O errors of `w`.
    pub fn write_csv(&self, mut w: impl Write) -> Result<(), Error> {
        writeln!(w, "rank,name,elo,se,lo95,hi95,games,points,score")?;
        for (k, r) in self.ratings.iter().enumerate() {
            let score = if r.games == 0 {
                0.5
            } else {
                r.points / f64::from(r.games)
            };
            writeln!(
                w,
                "{},{},{:.2},{:.2},{:.2},{:.2},{},{},{:.4}",
                k + 1,
                csv_field(&r.name),
                r.elo,
                r.se,
                r.lo,
                r.hi,
                r.games,
                r.points,
                score
            )?;
        }
        Ok(())
    }

    /// Writes the whole table (ratings and the pairwise results) as pretty JSON.
    ///
    /// # Errors
    ///
    /// I/O and serialisation errors.
    pub fn write_json(&self, w: impl Write) -> Result<(), Error> {
        serde_json::to_writer_pretty(w, self)?;
        Ok(())
    }

    /// Writes `<stem>.csv` and `<stem>.json` (each to a `.tmp` file first, then
    /// renamed).
    ///
    /// # Errors
    ///
    /// I/O and serialisation errors.
    pub fn save(&self, stem: &std::path::Path) -> Result<(), Error> {
        let csv = stem.with_extension("csv");
        let json = stem.with_extension("json");
        crate::io::write_atomic(&csv, |w| self.write_csv(w))?;
        crate::io::write_atomic(&json, |w| self.write_json(w))?;
        Ok(())
    }
}

impl std::fmt::Display for RatingTable {
    /// A fixed-width table for the terminal.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let width = self
            .ratings
            .iter()
            .map(|r| r.name.chars().count())
            .max()
            .unwrap_or(4)
            .max(4);
        writeln!(
            f,
            "{:>4}  {:<width$}  {:>8}  {:>7}  {:>6}  {:>7}  {:>6}",
            "rank", "name", "elo", "± 95%", "games", "points", "score"
        )?;
        for (k, r) in self.ratings.iter().enumerate() {
            let score = if r.games == 0 {
                0.5
            } else {
                r.points / f64::from(r.games)
            };
            writeln!(
                f,
                "{:>4}  {:<width$}  {:>8.1}  {:>7.1}  {:>6}  {:>7.1}  {:>5.1}%",
                k + 1,
                r.name,
                r.elo,
                Z95 * r.se,
                r.games,
                r.points,
                100.0 * score
            )?;
        }
        write!(
            f,
            "(anchor {} = 0; {} virtual draws per pair)",
            self.anchor, self.prior_draws
        )
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mle() -> FitConfig {
        FitConfig {
            prior_draws: 0.0,
            ..FitConfig::default()
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn elo_of(t: &RatingTable, name: &str) -> f64 {
        t.ratings.iter().find(|r| r.name == name).unwrap().elo
    }

    /// Two players: the MLE is the match Elo, 400 log10(3) for 75%, and the
    /// standard error is 1/sqrt(n p (1-p)) in log units:
    /// 1/sqrt(40 · 0.1875) = 0.365148 → 0.365148 · 400/ln 10 = 63.43 Elo.
    #[test]
    fn two_players_match_hand_computation() {
        let r = [PairResult::new("b", "random", Wdl::new(25, 10, 5))];
        let t = fit_elo(&r, &mle()).unwrap();
        assert!(close(elo_of(&t, "b"), 400.0 * 3f64.log10(), 1e-6));
        assert_eq!(elo_of(&t, "random"), 0.0);
        let se_hand = 400.0 / std::f64::consts::LN_10 / (40.0f64 * 0.1875).sqrt();
        assert!(close(t.ratings[0].se, se_hand, 1e-6), "{:?}", t.ratings[0]);
        assert!(close(se_hand, 63.43, 0.01));
        assert_eq!(t.ratings[0].games, 40);
        assert_eq!(t.ratings[0].points, 30.0);
    }

    /// A consistent triangle: odds 3:1 on each step and 9:1 across, so
    /// b = 400 log10 3 = 190.85 and c = 400 log10 9 = 381.70 exactly.
    #[test]
    fn consistent_triangle_is_exact() {
        let r = [
            PairResult::new("random", "b", Wdl::new(10, 0, 30)),
            PairResult::new("b", "c", Wdl::new(10, 0, 30)),
            PairResult::new("c", "random", Wdl::new(36, 0, 4)),
        ];
        let t = fit_elo(&r, &mle()).unwrap();
        assert!(close(elo_of(&t, "b"), 190.848_501_887, 1e-6));
        assert!(close(elo_of(&t, "c"), 381.697_003_774, 1e-6));
        let names: Vec<&str> = t.ratings.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["c", "b", "random"]);
    }

    /// A chain without the long edge adds up: 75% twice is 2·190.85.
    #[test]
    fn chain_adds_up_and_pairs_merge() {
        let r = [
            PairResult::new("random", "b", Wdl::new(5, 0, 10)),
            PairResult::new("b", "random", Wdl::new(10, 10, 0)),
            PairResult::new("c", "b", Wdl::new(15, 0, 5)),
        ];
        let t = fit_elo(&r, &mle()).unwrap();
        // 15, then 5 of 20 (draws) → 10 of 35; b scored 25 of 35.
        let b = 400.0 * (25.0f64 / 10.0).log10();
        assert!(close(elo_of(&t, "b"), b, 1e-6));
        assert!(close(elo_of(&t, "c"), b + 400.0 * 3f64.log10(), 1e-6));
    }

    /// A sweep has an infinite MLE: refused without a prior, finite with one.
    #[test]
    fn sweeps_need_a_prior() {
        let r = [
            PairResult::new("random", "greedy", Wdl::new(0, 0, 20)),
            PairResult::new("greedy", "ab", Wdl::new(3, 4, 13)),
        ];
        let err = fit_elo(&r, &mle()).unwrap_err();
        assert!(err.to_string().contains("greedy"), "{err}");
        let t = fit_elo(&r, &FitConfig::default()).unwrap();
        // One virtual draw: greedy scores 20.5 of 21 → 400 log10(41) = 645.1.
        assert!(close(elo_of(&t, "greedy"), 400.0 * 41f64.log10(), 1e-6));
        assert!(elo_of(&t, "ab") > elo_of(&t, "greedy"));
        assert!(t
            .ratings
            .iter()
            .all(|r| r.elo.is_finite() && r.se.is_finite()));
    }

    #[test]
    fn missing_anchor_and_disconnected_players_are_errors() {
        let r = [PairResult::new("a", "b", Wdl::new(1, 1, 1))];
        assert!(fit_elo(&r, &mle()).is_err());
        let r = [
            PairResult::new("random", "b", Wdl::new(1, 1, 1)),
            PairResult::new("c", "d", Wdl::new(1, 1, 1)),
        ];
        let err = fit_elo(&r, &FitConfig::default()).unwrap_err();
        assert!(err.to_string().contains("no chain"), "{err}");
    }

    #[test]
    fn csv_json_and_table_output() {
        let r = [
            PairResult::new("random", "b", Wdl::new(10, 0, 30)),
            PairResult::new("b", "x,y", Wdl::new(10, 0, 30)),
        ];
        let t = fit_elo(&r, &mle()).unwrap();
        let mut csv = Vec::new();
        t.write_csv(&mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "rank,name,elo,se,lo95,hi95,games,points,score");
        assert!(lines[1].starts_with("1,\"x,y\",381.70,"), "{csv}");
        assert_eq!(lines.len(), 4);
        let mut json = Vec::new();
        t.write_json(&mut json).unwrap();
        let back: RatingTable = serde_json::from_slice(&json).unwrap();
        assert_eq!(back.ratings.len(), 3);
        assert_eq!(back.pairs, t.pairs);
        let shown = t.to_string();
        assert!(
            shown.contains("random") && shown.contains("381.7"),
            "{shown}"
        );
    }

    #[test]
    fn invert_small_matrix() {
        let inv = invert(vec![vec![4.0, 7.0], vec![2.0, 6.0]]).unwrap();
        let want = [[0.6, -0.7], [-0.2, 0.4]];
        for i in 0..2 {
            for j in 0..2 {
                assert!(close(inv[i][j], want[i][j], 1e-12));
            }
        }
        assert!(invert(vec![vec![1.0, 2.0], vec![2.0, 4.0]]).is_none());
    }
}
