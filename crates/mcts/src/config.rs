//! [`SearchConfig`]: every knob of the search, with its default.

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// Which root search to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// AlphaZero (Silver et al., 2018): PUCT everywhere, Dirichlet noise at
    /// the root, the move chosen from visit counts with a temperature, the
    /// visit distribution as the policy target.
    #[default]
    Puct,
    /// Gumbel AlphaZero (Danihelka et al., 2022): Gumbel top-k sampling and
    /// sequential halving at the root, the deterministic "completed-Q"
    /// selection below it, and the improved policy
    /// `softmax(logits + σ(completedQ))` as the policy target.
    /// Learns with few simulations (the paper: as few as 2).
    Gumbel,
}

impl Algorithm {
    /// Every algorithm, in the order `--help` lists them.
    pub const ALL: [Algorithm; 2] = [Algorithm::Puct, Algorithm::Gumbel];

    /// The name configs, specs and command lines use: `puct` or `gumbel`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Puct => "puct",
            Algorithm::Gumbel => "gumbel",
        }
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Algorithm {
    type Err = Error;

    /// Parses `puct` or `gumbel`.
    ///
    /// # Examples
    ///
    /// ```
    /// use dama_mcts::Algorithm;
    ///
    /// assert_eq!("gumbel".parse::<Algorithm>()?, Algorithm::Gumbel);
    /// assert_eq!(Algorithm::Puct.to_string(), "puct");
    /// assert!("alphabeta".parse::<Algorithm>().is_err());
    /// # Ok::<(), dama_mcts::Error>(())
    /// ```
    fn from_str(text: &str) -> Result<Algorithm, Error> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == text)
            .ok_or_else(|| Error::UnknownAlgorithm(text.to_owned()))
    }
}

/// Search parameters. Every field has a default (see [`SearchConfig::default`]);
/// a TOML table may give any subset, and unknown keys are rejected.
///
/// Symbols are those of the papers: AlphaZero (Silver et al.,
/// 2018, pseudocode), Gumbel AlphaZero (Danihelka et al., 2022), KataGo (Wu,
/// 2019).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Root search algorithm. Default: `puct`.
    pub algorithm: Algorithm,
    /// Simulations per full search (symbol n; KataGo's "full" playouts).
    /// New simulations per move: visits reused from the previous move's tree
    /// come on top. The root's own evaluation is not counted (as in mctx).
    /// Default: 800 (AlphaZero).
    pub simulations: u32,
    /// Leaves one search gathers per gather/apply round, kept apart by
    /// virtual loss. With many searches sharing one batch, 1 is best (no
    /// virtual-loss distortion); a lone search on a GPU wants 8–32.
    /// Default: 1.
    pub batch_size: u32,
    /// PUCT exploration base (symbol c_base, `pb_c_base` in the AlphaZero
    /// pseudocode): `C(s) = ln((1 + N(s) + c_base) / c_base) + c_init`.
    /// Default: 19652.
    pub c_puct_base: f32,
    /// PUCT exploration constant (symbol c_init, `pb_c_init`): the exploration
    /// weight while `N(s) ≪ c_base`. Default: 1.25.
    pub c_puct_init: f32,
    /// First-play urgency below the root: an unvisited child's Q is the
    /// parent's Q minus this times `sqrt(Σ prior of visited children)`
    /// (Leela Zero / KataGo "FPU reduction"; values in [-1, 1]).
    /// Default: 0.2 (KataGo).
    pub fpu_reduction: f32,
    /// First-play urgency reduction at the root. Default: 0.1 (KataGo).
    pub fpu_reduction_root: f32,
    /// Dirichlet noise concentration (symbol α) at the root (PUCT only). AlphaZero
    /// used α ≈ 10 / (typical number of legal moves): 0.3 chess, 0.03 Go;
    /// Turkish draughts has about 10–20 legal steps. Default: 0.5.
    pub dirichlet_alpha: f32,
    /// Weight of the Dirichlet noise in the root priors (symbol ε):
    /// `P = (1 − ε) p + ε η`. AlphaZero self-play used 0.25; 0 turns noise off
    /// (evaluation, play). Fast searches (playout cap) never get noise.
    /// Default: 0.
    pub dirichlet_epsilon: f32,
    /// Move-choice temperature (symbol τ) (PUCT only): 0 plays the most visited
    /// move, else samples `∝ N(a)^(1/τ)`. The self-play crate schedules it
    /// per move. Gumbel search ignores it (its Gumbel noise explores).
    /// Default: 0.
    pub temperature: f32,
    /// Virtual loss per in-flight simulation, in value units: each adds one
    /// visit worth this loss (for the player choosing) to every node on its
    /// path until its evaluation is applied. Default: 1.
    pub virtual_loss: f32,
    /// Reuse the subtree of the played action on the next move.
    /// Default: true.
    pub reuse_tree: bool,
    /// Gumbel: actions sampled without replacement at the root by Gumbel
    /// top-k (symbol m). Default: 16 (the paper's choice for Go and chess).
    pub gumbel_considered_actions: u32,
    /// Gumbel: scale of the Gumbel noise (symbol g); 0 makes the search
    /// deterministic (evaluation play). Default: 1.
    pub gumbel_scale: f32,
    /// Gumbel: σ(q̂) = (c_visit + max_b N(b)) · c_scale · q̂ (symbol c_visit).
    /// Default: 50.
    pub c_visit: f32,
    /// Gumbel: see `c_visit` (symbol c_scale). Default: 0.1.
    pub c_scale: f32,
    /// Gumbel: how Q values are mapped to q̂ ∈ [0, 1] before σ. `false`:
    /// the fixed map `q̂ = (q + 1) / 2` (values are bounded in [-1, 1]);
    /// `true`: mctx's per-node min-max rescaling over the children's
    /// completed Q, which is meant for unbounded rewards and amplifies tiny
    /// differences into a full-range σ, so that the deterministic interior
    /// selection can starve children after a noisy value estimate.
    /// Both are monotone, so the policy-improvement guarantee holds either
    /// way. Default: false.
    pub gumbel_rescale_q: bool,
    /// Playout cap randomization (KataGo): probability (symbol p) that a search is a
    /// full search (`simulations`, noise on, recorded as a training target);
    /// otherwise it is a fast search (`fast_simulations`, no noise, not a
    /// training target). 1 disables the cap. KataGo used 0.25.
    /// Default: 1.
    pub full_search_prob: f32,
    /// Simulations of a fast search (symbol KataGo's "cheap" playouts).
    /// Default: 100 (KataGo: 100 against 600 full).
    pub fast_simulations: u32,
    /// What a draw is worth to the player choosing, in value units
    /// (win = 1, loss = −1): the search's utility is `P(win) − P(loss) +
    /// draw_score · P(draw)` for whichever player chooses. Negative values
    /// are "contempt" for both sides, as KataGo varies its draw utility and
    /// komi in self-play: each side prefers a risky line to a sure draw, so
    /// self-play makes contact instead of drifting into the no-capture draw.
    /// It changes which moves the search prefers, not the values it reports
    /// or the training targets. In `[-1, 1]`. Default: 0 (neutral).
    pub draw_score: f32,
    /// MCTS-Solver (Winands, Björnsson and Saito, 2008): proven wins and
    /// losses are backed up through the tree. A node is proven won for its
    /// player to move when one child is a win for that player, and lost
    /// when every child is won by the opponent; a proven node counts as a
    /// win or loss of exactly ±1 in selection and is not searched below
    /// again, and a proven win at the root is always played. Draws are not
    /// proven. Default: true.
    pub solver: bool,
}

/// The most simulations per move a search accepts: a tree grows by a node
/// per simulation, and a million nodes with their children is already
/// hundreds of megabytes.
pub const MAX_SIMULATIONS: u32 = 1_000_000;

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            algorithm: Algorithm::Puct,
            simulations: 800,
            batch_size: 1,
            c_puct_base: 19652.0,
            c_puct_init: 1.25,
            fpu_reduction: 0.2,
            fpu_reduction_root: 0.1,
            dirichlet_alpha: 0.5,
            dirichlet_epsilon: 0.0,
            temperature: 0.0,
            virtual_loss: 1.0,
            reuse_tree: true,
            gumbel_considered_actions: 16,
            gumbel_scale: 1.0,
            c_visit: 50.0,
            c_scale: 0.1,
            gumbel_rescale_q: false,
            full_search_prob: 1.0,
            fast_simulations: 100,
            draw_score: 0.0,
            solver: true,
        }
    }
}

impl SearchConfig {
    /// Checks that every value is in range.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] naming the first bad field.
    pub fn validate(&self) -> Result<(), Error> {
        fn bad(field: &'static str, why: &'static str) -> Result<(), Error> {
            Err(Error::InvalidConfig { field, why })
        }
        let finite_nonneg = |x: f32| x.is_finite() && x >= 0.0;
        if self.simulations == 0 {
            return bad("simulations", "must be at least 1");
        }
        // The bound is spelled out because `why` is a static string.
        const _: () = assert!(MAX_SIMULATIONS == 1_000_000);
        if self.simulations > MAX_SIMULATIONS {
            return bad(
                "simulations",
                "must be at most 1000000 (the search tree would not fit in memory)",
            );
        }
        if self.fast_simulations > MAX_SIMULATIONS {
            return bad(
                "fast_simulations",
                "must be at most 1000000 (the search tree would not fit in memory)",
            );
        }
        if self.batch_size == 0 {
            return bad("batch_size", "must be at least 1");
        }
        if !(self.c_puct_base.is_finite() && self.c_puct_base > 0.0) {
            return bad("c_puct_base", "must be positive");
        }
        if !finite_nonneg(self.c_puct_init) {
            return bad("c_puct_init", "must be finite and non-negative");
        }
        if !finite_nonneg(self.fpu_reduction) {
            return bad("fpu_reduction", "must be finite and non-negative");
        }
        if !finite_nonneg(self.fpu_reduction_root) {
            return bad("fpu_reduction_root", "must be finite and non-negative");
        }
        if !(self.dirichlet_alpha.is_finite() && self.dirichlet_alpha > 0.0) {
            return bad("dirichlet_alpha", "must be positive");
        }
        if !(0.0..=1.0).contains(&self.dirichlet_epsilon) {
            return bad("dirichlet_epsilon", "must be in [0, 1]");
        }
        if !finite_nonneg(self.temperature) {
            return bad("temperature", "must be finite and non-negative");
        }
        if !finite_nonneg(self.virtual_loss) {
            return bad("virtual_loss", "must be finite and non-negative");
        }
        if self.gumbel_considered_actions == 0 {
            return bad("gumbel_considered_actions", "must be at least 1");
        }
        if !finite_nonneg(self.gumbel_scale) {
            return bad("gumbel_scale", "must be finite and non-negative");
        }
        if !finite_nonneg(self.c_visit) {
            return bad("c_visit", "must be finite and non-negative");
        }
        if !finite_nonneg(self.c_scale) {
            return bad("c_scale", "must be finite and non-negative");
        }
        if !(0.0..=1.0).contains(&self.full_search_prob) {
            return bad("full_search_prob", "must be in [0, 1]");
        }
        if self.fast_simulations == 0 {
            return bad("fast_simulations", "must be at least 1");
        }
        if !(-1.0..=1.0).contains(&self.draw_score) {
            return bad("draw_score", "must be in [-1, 1]");
        }
        Ok(())
    }
}
