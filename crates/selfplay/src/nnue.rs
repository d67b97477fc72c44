//! Learned-evaluator runs (`[run] kind = "nnue"`): the alpha-beta engine
//! plays itself, and an NNUE-style network (`dama-nnue`) learns to
//! evaluate the positions of its games, generation after generation.
//!
//! One generation:
//! 1. **Self-play**: `games_per_generation` games from distinct random
//!    openings, in parallel with rayon, each move an alpha-beta search to a
//!    fixed depth and node budget with the best evaluation so far (the
//!    handcrafted one in generation 1). Every searched position where the
//!    side to move has no capture becomes a [`Sample`]: the position, the
//!    search's score and, once the game ends, its result.
//! 2. **Training**: the previous generation's network (a random one at
//!    first) trains on the last `window` generations' samples with tch
//!    ([`dama_nn::NnueTrainer`]), to a target that blends the score and the
//!    result; it is written as `models/gen-NNNN.nnue`.
//! 3. **Gate**: the new network plays the best one (or the handcrafted
//!    evaluation) at a fixed depth; it becomes the best (`best.nnue`) if it
//!    scores at least `[gate] min_score`.
//! 4. **Evaluation**: the best network against the handcrafted evaluation at
//!    `[eval]`'s depth or time per move.
//!
//! Every random choice derives from `[run] seed` and the generation, and
//! games use node and depth budgets (never the clock), so a resumed run
//! writes the same networks as an uninterrupted one.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use dama_eval::{
    random_openings, AlphaBetaLimit, BuildOptions, MatchConfig, Opening, OpeningSource, PlayerSpec,
};
use dama_game::GameDef;
use dama_mcts::{Outcome, Player};
use dama_nn::GameRules;
use dama_nn::{NnueTrainSettings, NnueTrainer};
use dama_nnue::{
    label, read_network, read_samples, write_network, write_samples, FloatNet, LearnedGame, Sample,
    SelfPlayLimits,
};
use dama_registry::WithLearnedGame;
use dama_run::dist::ChunkName;
use dama_run::metrics::{MetricsEvent, SelfplayEvent, SessionEvent, TrainEvent};
use dama_run::{LearnerEvent, RunDir, Store};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::config::{DistributedConfig, GameSection, RunKind};
use crate::distributed::{ChunkRead, Learner};
use crate::driver::{drive, Judged, OpenOptions, RunFiles, RunSummary, Stages, TrainFigures};
use crate::progress::{Progress, ProgressEvent, Stage};
use crate::run::EvalLine;
use crate::selfplay::SelfplayStats;
use crate::Error;

/// The most samples one generation's file may hold when read back.
const MAX_SAMPLES_PER_FILE: usize = 50_000_000;

/// The largest evaluator file read whole (a network of this architecture
/// is about 150 KB).
pub(crate) const MAX_EVALUATOR_FILE: u64 = 64 << 20;

/// A learned-evaluator run's config (`configs/nnue-quick.toml`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawNnueConfig")]
pub struct NnueConfig {
    /// `[run]`.
    pub run: NnueRunSection,
    /// `[game]`: the game whose engine learns (draughts by default; any
    /// game of `GameName::with_learned`). Left out of `config.toml` for
    /// draughts.
    #[serde(skip_serializing_if = "GameSection::is_default")]
    pub game: GameSection,
    /// `[rules]`: the rule options of the game the network is trained for
    /// (draughts: the variant and its options), in that game's own form.
    pub rules: GameRules,
    /// `[selfplay]`.
    pub selfplay: NnueSelfplay,
    /// `[train]`.
    pub train: NnueTrain,
    /// `[gate]`.
    pub gate: NnueGate,
    /// `[eval]`.
    pub eval: NnueEval,
    /// `[adjudicate]`: when the gates' and evaluations' games end early.
    pub adjudicate: NnueAdjudicate,
    /// `[distributed]`: chunks, staleness and polling of a distributed run
    /// (`dama learner`, `dama worker`; the same keys as a network run's).
    /// Session settings: they may change on `--resume`.
    #[serde(skip_serializing_if = "DistributedConfig::is_default")]
    pub distributed: DistributedConfig,
}

/// [`NnueConfig`] as written, before `[rules]` is read as the rules of the
/// game `[game]` names: unknown keys are refused with their name.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawNnueConfig {
    run: NnueRunSection,
    game: GameSection,
    rules: Option<toml::Table>,
    selfplay: NnueSelfplay,
    train: NnueTrain,
    gate: NnueGate,
    eval: NnueEval,
    adjudicate: NnueAdjudicate,
    distributed: DistributedConfig,
}

impl TryFrom<RawNnueConfig> for NnueConfig {
    type Error = String;

    fn try_from(raw: RawNnueConfig) -> Result<NnueConfig, String> {
        Ok(NnueConfig {
            rules: crate::config::rules_of(raw.game.name, raw.rules, Default::default())?,
            run: raw.run,
            game: raw.game,
            selfplay: raw.selfplay,
            train: raw.train,
            gate: raw.gate,
            eval: raw.eval,
            adjudicate: raw.adjudicate,
            distributed: raw.distributed,
        })
    }
}

/// `[run]` of a learned-evaluator run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NnueRunSection {
    /// Always `"nnue"` (what tells `dama train` the run's kind).
    pub kind: RunKind,
    /// Generations to run (default 4).
    pub generations: u32,
    /// Seed of every random choice (default 1).
    pub seed: u64,
    /// Games played in parallel, one per rayon worker; 0 = one per core.
    pub threads: usize,
    /// libtorch threads for training; 0 = one per core.
    pub torch_threads: usize,
}

impl Default for NnueRunSection {
    fn default() -> Self {
        NnueRunSection {
            kind: RunKind::Nnue,
            generations: 4,
            seed: 1,
            threads: 0,
            torch_threads: 0,
        }
    }
}

/// `[selfplay]` of a learned-evaluator run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NnueSelfplay {
    /// Games per generation (default 400).
    pub games_per_generation: u32,
    /// Search depth per move in plies (default 8).
    pub depth: u32,
    /// Node budget per move (default 4000): whichever of depth and nodes
    /// comes first ends the search.
    pub nodes: u64,
    /// Uniformly random plies before the engine takes over (default 6); the
    /// openings of a generation are distinct.
    pub random_opening_plies: u32,
    /// A game still running after this many plies is a draw (default 300).
    pub max_plies: u32,
    /// Transposition table per game in MiB (default 4).
    pub tt_mb: usize,
}

impl Default for NnueSelfplay {
    fn default() -> Self {
        NnueSelfplay {
            games_per_generation: 400,
            depth: 8,
            nodes: 4000,
            random_opening_plies: 6,
            max_plies: 300,
            tt_mb: 4,
        }
    }
}

/// `[train]` of a learned-evaluator run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NnueTrain {
    /// Optimizer steps per generation (default 1500).
    pub steps_per_generation: usize,
    /// Positions per step (default 1024).
    pub batch_size: usize,
    /// Adam's learning rate (default 0.001).
    pub lr: f64,
    /// `K`: centi-men of score per unit of logit of the win probability
    /// (default 150).
    pub score_scale: f32,
    /// Weight of the game's result in the target, the rest is the search
    /// score (default 0.3).
    pub result_weight: f32,
    /// Generations of samples trained on (default 4).
    pub window: u32,
    /// Mirror positions left-right at random (default true).
    pub mirror: bool,
    /// Where each generation's training starts: `"random"` (a fresh
    /// network, the default), `"previous"` (the previous generation's), or
    /// a network the run starts from: `"shipped"` (the one dama ships,
    /// `eval=shipped`) or the path of an evaluator file. A run that starts
    /// from a network copies it in as generation 0 (`models/gen-0000.nnue`):
    /// it is the best evaluation until a generation beats it at the gate
    /// (self-play plays with it, the first gate is against it), and each
    /// generation trains on from the best network so far (generation 1
    /// from the start network's weights; a generation the gate rejected is
    /// not trained on from), so training goes on across machines and days.
    /// Measured here: training on from the previous network made each
    /// generation weaker at a fixed depth while the loss fell (issue 27's
    /// note), and a fresh network per generation trained on the window does
    /// not drift.
    pub init: TrainInit,
}

/// Where a generation's training starts (`[train] init`).
///
/// Written in the config as one string: `"random"`, `"previous"`,
/// `"shipped"`, or a path.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum TrainInit {
    /// A fresh random network (seeded by the run and the generation).
    #[default]
    Random,
    /// The previous generation's network.
    Previous,
    /// The run starts from a network (generation 0): the shipped one or a
    /// file; later generations train on from the previous one.
    Start(dama_game::EvalSource),
}

impl TrainInit {
    /// The generation whose network generation `generation`'s training
    /// starts from, when the best network so far is generation `best`
    /// (`None`: a fresh random network). A run that started from a network
    /// trains on from the best one, not from a generation its gate
    /// rejected: fine-tuning network 4 on two generations of its own
    /// self-play from the rejected generation 1 gated at -160 Elo against
    /// it, from network 4 itself at -40 (docs/nnue.md).
    #[must_use]
    pub fn trained_from(&self, generation: u32, best: u32) -> Option<u32> {
        match self {
            TrainInit::Random => None,
            TrainInit::Previous => (generation > 1).then(|| generation - 1),
            // Generation 0 is the start network.
            TrainInit::Start(_) => Some(best),
        }
    }

    /// The network the run starts from, if any.
    #[must_use]
    pub fn start(&self) -> Option<&dama_game::EvalSource> {
        match self {
            TrainInit::Start(s) => Some(s),
            _ => None,
        }
    }
}

impl From<String> for TrainInit {
    fn from(s: String) -> Self {
        match s.as_str() {
            "random" => TrainInit::Random,
            "previous" => TrainInit::Previous,
            _ => TrainInit::Start(dama_game::EvalSource::parse(&s)),
        }
    }
}

impl From<TrainInit> for String {
    fn from(t: TrainInit) -> Self {
        match t {
            TrainInit::Random => "random".to_owned(),
            TrainInit::Previous => "previous".to_owned(),
            TrainInit::Start(s) => s.to_string(),
        }
    }
}

impl Default for NnueTrain {
    fn default() -> Self {
        NnueTrain {
            steps_per_generation: 1500,
            batch_size: 1024,
            lr: 1e-3,
            score_scale: 150.0,
            result_weight: 0.3,
            window: 4,
            mirror: true,
            init: TrainInit::Random,
        }
    }
}

/// `[gate]`: the new network against the best so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NnueGate {
    /// Games at most (default 100; 0 accepts every network): the match
    /// stops once the rest of its games could not change the decision.
    pub games: u32,
    /// Depth of both players (default 6).
    pub depth: u32,
    /// The score the new network needs (default 0.5).
    pub min_score: f64,
    /// Play only the random openings that the handcrafted engine at
    /// `depth` scores within this many centi-men of even (1 to 10000;
    /// default: every random opening), as `dama eval --balanced` does.
    pub balanced: Option<i32>,
}

impl Default for NnueGate {
    fn default() -> Self {
        NnueGate {
            games: 100,
            depth: 6,
            min_score: 0.5,
            balanced: None,
        }
    }
}

/// `[eval]`: the best network against the handcrafted evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NnueEval {
    /// Games (default 100; 0 skips the evaluation).
    pub games: u32,
    /// Milliseconds per move for both players (default 0: use `depth`).
    pub time_ms: u64,
    /// Depth of both players when `time_ms` is 0 (default 6).
    pub depth: u32,
    /// Evaluate every this many generations, and always the last (default 1).
    pub every: u32,
    /// Play only the random openings that the handcrafted engine at
    /// `depth` scores within this many centi-men of even (1 to 10000;
    /// default: every random opening).
    pub balanced: Option<i32>,
}

impl Default for NnueEval {
    fn default() -> Self {
        NnueEval {
            games: 100,
            time_ms: 0,
            depth: 6,
            every: 1,
            balanced: None,
        }
    }
}

impl NnueEval {
    /// The engines' limit: `time_ms` a move, or `depth` when it is 0.
    pub fn limit(&self) -> AlphaBetaLimit {
        if self.time_ms > 0 {
            AlphaBetaLimit::TimeMs(self.time_ms)
        } else {
            AlphaBetaLimit::Depth(self.depth)
        }
    }
}

/// `[adjudicate]`: the gates' and evaluations' games end once both engines'
/// searches agree that one side has won: the winner's score at least
/// `score`, the loser's at most `-score`, for `moves` searched moves of
/// each in a row (cutechess-cli's two-sided resign rule, with which
/// Stockfish's fishtest plays). A won ending is then not played out,
/// which is where much of a match's time went. Games of a game with a
/// tournament scoring (Turkish Tafl, whose points count how each game was
/// won) are always played out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NnueAdjudicate {
    /// Centi-men (default 500); 0 plays every game out.
    pub score: i32,
    /// Searched moves of each side in a row (default 3).
    pub moves: u32,
}

impl Default for NnueAdjudicate {
    fn default() -> Self {
        NnueAdjudicate {
            score: 500,
            moves: 3,
        }
    }
}

impl NnueAdjudicate {
    /// The arena's rule for game `G`'s matches.
    fn rule<G: GameDef>(&self) -> dama_eval::Adjudication {
        if self.score == 0 || G::tournament().is_some() {
            return dama_eval::Adjudication::default();
        }
        dama_eval::Adjudication {
            resign: Some(dama_eval::ScoreRun {
                score: self.score,
                moves: self.moves,
            }),
            draw: None,
        }
    }
}

fn range<T: PartialOrd + std::fmt::Display>(key: &str, v: T, lo: T, hi: T) -> Result<(), Error> {
    if v < lo || v > hi {
        return Err(Error::Config(format!(
            "{key} must be in {lo}..={hi}, got {v}"
        )));
    }
    Ok(())
}

impl NnueConfig {
    /// Reads and validates a config file.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the file and the problem.
    pub fn load(path: &Path) -> Result<NnueConfig, Error> {
        let text = dama_run::files::read_bounded_string(path, dama_run::files::MAX_TEXT_FILE)
            .map_err(|e| Error::io(path, e))?;
        let config: NnueConfig =
            toml::from_str(&text).map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
        config
            .validate()
            .map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
        Ok(config)
    }

    /// Checks every key's range.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the key.
    pub fn validate(&self) -> Result<(), Error> {
        if self.run.kind != RunKind::Nnue {
            return Err(Error::Config(format!(
                "run.kind must be \"nnue\" for a learned-evaluator run, got \"{}\"",
                self.run.kind
            )));
        }
        if !dama_nn::GameName::learned().contains(&self.game.name) {
            return Err(self.not_learned());
        }
        range("run.generations", self.run.generations, 1, 10_000)?;
        range("run.threads", self.run.threads, 0, 1024)?;
        range("run.torch_threads", self.run.torch_threads, 0, 1024)?;
        let sp = &self.selfplay;
        range(
            "selfplay.games_per_generation",
            sp.games_per_generation,
            1,
            1_000_000,
        )?;
        range("selfplay.depth", sp.depth, 1, 64)?;
        range("selfplay.nodes", sp.nodes, 1, 1_000_000_000)?;
        range(
            "selfplay.random_opening_plies",
            sp.random_opening_plies,
            0,
            40,
        )?;
        range("selfplay.max_plies", sp.max_plies, 1, 10_000)?;
        range("selfplay.tt_mb", sp.tt_mb, 1, 1024)?;
        let t = &self.train;
        range(
            "train.steps_per_generation",
            t.steps_per_generation,
            1,
            10_000_000,
        )?;
        range("train.batch_size", t.batch_size, 1, 65_536)?;
        if !(t.lr > 0.0 && t.lr < 1.0) {
            return Err(Error::Config(format!(
                "train.lr must be in (0, 1), got {}",
                t.lr
            )));
        }
        if !(t.score_scale.is_finite() && t.score_scale >= 1.0 && t.score_scale <= 100_000.0) {
            return Err(Error::Config(format!(
                "train.score_scale must be in 1..=100000 centi-men, got {}",
                t.score_scale
            )));
        }
        if !(0.0..=1.0).contains(&t.result_weight) {
            return Err(Error::Config(format!(
                "train.result_weight must be in [0, 1], got {}",
                t.result_weight
            )));
        }
        range("train.window", t.window, 1, 1000)?;
        range("gate.games", self.gate.games, 0, 100_000)?;
        range("gate.depth", self.gate.depth, 1, 64)?;
        if !(0.0..=1.0).contains(&self.gate.min_score) {
            return Err(Error::Config(format!(
                "gate.min_score must be in [0, 1], got {}",
                self.gate.min_score
            )));
        }
        range("eval.games", self.eval.games, 0, 100_000)?;
        range(
            "eval.time_ms",
            self.eval.time_ms,
            0,
            dama_eval::MAX_MOVE_TIME_MS,
        )?;
        range("eval.depth", self.eval.depth, 1, 64)?;
        range("eval.every", self.eval.every, 1, 10_000)?;
        for (key, margin) in [
            ("gate.balanced", self.gate.balanced),
            ("eval.balanced", self.eval.balanced),
        ] {
            if let Some(m) = margin {
                range(key, m, 1, 10_000)?;
            }
        }
        range("adjudicate.score", self.adjudicate.score, 0, 1_000_000)?;
        range(
            "adjudicate.moves",
            self.adjudicate.moves,
            1,
            dama_eval::Adjudication::MAX_MOVES,
        )?;
        self.distributed.validate()?;
        Ok(())
    }

    /// The config as TOML (what `config.toml` of the run holds).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] if it does not serialize.
    pub fn to_toml(&self) -> Result<String, Error> {
        toml::to_string(self).map_err(|e| Error::Config(format!("config does not serialize: {e}")))
    }

    /// Runs `code` with the run's game (`[game]`).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] if the game's engine learns no evaluation, and
    /// `code`'s own errors.
    pub fn with_game<T, W: WithLearnedGame<Output = Result<T, Error>>>(
        &self,
        code: W,
    ) -> Result<T, Error> {
        self.game
            .name
            .with_learned(code)
            .unwrap_or_else(|| Err(self.not_learned()))
    }

    /// The error of a run whose game's engine learns no evaluation.
    fn not_learned(&self) -> Error {
        Error::Config(format!(
            "game.name: {} has no alpha-beta engine that plays a learned evaluation (learned-evaluator runs train {})",
            self.game.name.title(),
            dama_nn::GameName::learned()
                .iter()
                .map(|g| g.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    /// The run's rules as game `G`'s (the game `[game]` names).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] if `G` is not the run's game.
    pub fn rules_of<G: GameDef>(&self) -> Result<G::Rules, Error> {
        self.rules.get::<G>().ok_or_else(|| {
            Error::Config(format!(
                "the run trains {}, not {}",
                self.game.name.title(),
                G::TITLE
            ))
        })
    }
}

fn generation_seed(seed: u64, generation: u32, stream: u64) -> u64 {
    seed ^ (u64::from(generation) << 32) ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A stage's samples of game `G` and its self-play figures.
pub type Played<G> = (Vec<Sample<<G as LearnedGame>::Features>>, SelfplayEvent);

/// One self-play game from `opening`: its samples, winner and plies.
fn play_game<G: LearnedGame>(
    evaluation: &G::Evaluation,
    sp: &NnueSelfplay,
    opening: &Opening<G>,
) -> (Vec<Sample<G::Features>>, Option<Player>, u32) {
    let mut game = opening.start.clone();
    for m in &opening.moves {
        if G::play(&mut game, m).is_err() {
            break;
        }
    }
    let before = G::plies(&game);
    let limits = SelfPlayLimits {
        depth: sp.depth,
        nodes: sp.nodes,
        max_plies: sp.max_plies,
        tt_mb: sp.tt_mb,
    };
    let (scored, end) = G::self_play(game, evaluation, &limits);
    let winner = match G::outcome(&end) {
        Some(Outcome::Win(p)) => Some(p),
        _ => None,
    };
    let plies = (G::plies(&end) - before) as u32;
    (label(scored, winner), winner, plies)
}

/// Plays `openings` with `evaluation`, in parallel on `pool`, one game per
/// opening, as generation `generation`'s self-play stage (reported to
/// `progress`: the stage, each game); returns the samples in game order and
/// the self-play figures. `stopped` is asked before each game: once it is
/// true, the games not yet started are not played (the caller drops the
/// result).
pub(crate) fn play_openings<G: LearnedGame>(
    config: &NnueConfig,
    generation: u32,
    openings: &[Opening<G>],
    evaluation: &G::Evaluation,
    pool: &rayon::ThreadPool,
    stopped: &(dyn Fn() -> bool + Sync),
    progress: &dyn Progress,
) -> Played<G> {
    let sp = &config.selfplay;
    progress.event(ProgressEvent::StageStarted {
        generation,
        stage: Stage::Selfplay,
        total: openings.len() as u64,
        opponent: None,
    });
    let start = Instant::now();
    let on_game = |games: u64, samples: u64| {
        let stats = SelfplayStats {
            games: games as usize,
            samples: samples as usize,
            elapsed: start.elapsed(),
            ..SelfplayStats::default()
        };
        progress.event(ProgressEvent::SelfplayGame { stats: &stats });
    };
    let done = AtomicU64::new(0);
    let positions = AtomicU64::new(0);
    type Played<F> = (Vec<Sample<F>>, Option<Player>, u32);
    let games: Vec<Played<G::Features>> = pool.install(|| {
        openings
            .par_iter()
            .filter_map(|o| {
                if stopped() {
                    return None;
                }
                let g = play_game::<G>(evaluation, sp, o);
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                let p = positions.fetch_add(g.0.len() as u64, Ordering::Relaxed) + g.0.len() as u64;
                on_game(d, p);
                Some(g)
            })
            .collect()
    });
    progress.event(ProgressEvent::StageFinished {
        stage: Stage::Selfplay,
    });
    let seconds = start.elapsed().as_secs_f64();
    let mut event = SelfplayEvent {
        generation,
        games: games.len() as u64,
        seconds,
        ..SelfplayEvent::default()
    };
    let mut samples = Vec::new();
    let mut plies = 0u64;
    for (s, winner, p) in games {
        samples.extend(s);
        plies += u64::from(p);
        match winner {
            Some(Player::First) => event.white_wins += 1,
            Some(Player::Second) => event.black_wins += 1,
            None => event.draws += 1,
        }
    }
    let n = event.games.max(1) as f64;
    event.samples = samples.len() as u64;
    event.moves = plies;
    event.games_per_hour = event.games as f64 * 3600.0 / seconds.max(1e-9);
    event.positions_per_sec = samples.len() as f64 / seconds.max(1e-9);
    event.avg_game_length = plies as f64 / n;
    event.draw_rate = event.draws as f64 / n;
    event.first_player_score = (event.white_wins as f64 + 0.5 * event.draws as f64) / n;
    (samples, event)
}

/// Copies the network a run starts from into `dir` as generation 0
/// (`models/gen-0000.nnue`) and as `best.nnue`, refusing one trained for
/// other rules than the run's.
fn copy_start<G: LearnedGame>(
    start: &dama_game::EvalSource,
    rules: &G::Rules,
    dir: &RunDir,
) -> Result<(), Error> {
    let named = |e: dama_nnue::Error| Error::Config(format!("train.init = \"{start}\": {e}"));
    let (net, meta) = match start {
        dama_game::EvalSource::Shipped => {
            let Some(shipped) = G::shipped_network() else {
                return Err(Error::Config(format!(
                    "train.init = \"shipped\": dama ships no learned evaluator for {}",
                    G::TITLE
                )));
            };
            let (net, meta) = shipped.map_err(named)?;
            let trained = G::parse_rules(&net.rules)
                .map_err(|e| Error::Config(format!("the shipped network's rules: {e}")))?;
            if trained != *rules {
                return Err(Error::Config(format!(
                    "train.init = \"shipped\": the shipped network plays the rules `{trained}`, not the run's `{rules}`"
                )));
            }
            (net, meta)
        }
        dama_game::EvalSource::File(path) => {
            read_network::<G::Features>(path, Some(rules)).map_err(named)?
        }
    };
    let mut keep: Vec<(&str, String)> = vec![("started_from", start.to_string())];
    if let Some((_, g)) = meta.iter().find(|(k, _)| k == "generation") {
        keep.push(("start_generation", g.clone()));
    }
    for path in [dir.evaluator(0), dir.best_evaluator()] {
        write_network(&path, &net, &keep)?;
    }
    Ok(())
}

/// A match's openings: random 4-ply starts, with `balanced` only those
/// that the handcrafted engine at `depth` scores within it of even.
fn openings(balanced: Option<i32>, depth: u32) -> OpeningSource {
    match balanced {
        Some(margin) => OpeningSource::Balanced {
            plies: 4,
            margin,
            judge: alphabeta(AlphaBetaLimit::Depth(depth), None),
        },
        None => OpeningSource::Random { plies: 4 },
    }
}

fn alphabeta(limit: AlphaBetaLimit, eval: Option<&Path>) -> PlayerSpec {
    PlayerSpec::AlphaBeta {
        limit,
        tt_mb: dama_eval::DEFAULT_TT_MB,
        eval: eval.map(|p| p.to_path_buf().into()),
        threads: 1,
    }
}

/// A match of `a` against `b` under the run's rules, reported as an
/// evaluation stage against `label`: its line (for `a`). Its games are
/// adjudicated by `[adjudicate]`; `decide_at`: stop once A's score is sure
/// to end on one side of it (a gate's threshold).
#[allow(clippy::too_many_arguments)]
fn play<G: LearnedGame>(
    config: &NnueConfig,
    rules: &G::Rules,
    generation: u32,
    stream: u64,
    a: &PlayerSpec,
    b: &PlayerSpec,
    label: &str,
    games: u32,
    openings: OpeningSource,
    decide_at: Option<f64>,
    threads: usize,
    progress: &dyn Progress,
) -> Result<EvalLine, Error> {
    let options = BuildOptions {
        rules: Some(config.rules),
        ..BuildOptions::default()
    };
    let fa = dama_eval::factory::<G>(a, &options)?;
    let fb = dama_eval::factory::<G>(b, &options)?;
    progress.event(ProgressEvent::StageStarted {
        generation,
        stage: Stage::Eval,
        total: u64::from(games),
        opponent: Some(label),
    });
    let match_config = MatchConfig {
        games,
        openings,
        rules: *rules,
        seed: generation_seed(config.run.seed, generation, stream),
        threads: Some(threads),
        batch_games: 0,
        adjudication: config.adjudicate.rule::<G>(),
        decide_at,
        ..MatchConfig::default()
    };
    let r = dama_eval::play_match(fa.as_ref(), fb.as_ref(), &match_config, &|p| {
        progress.event(ProgressEvent::EvalGame { progress: p })
    });
    progress.event(ProgressEvent::StageFinished { stage: Stage::Eval });
    Ok(EvalLine::of_match::<G>(b, label, &r?))
}

impl crate::driver::FrozenConfig for NnueConfig {
    fn load_frozen(path: &Path) -> Result<NnueConfig, Error> {
        let text = dama_run::files::read_bounded_string(path, dama_run::files::MAX_TEXT_FILE)
            .map_err(|e| Error::io(path, e))?;
        toml::from_str(&text).map_err(|e| Error::Config(format!("{}: {e}", path.display())))
    }

    fn frozen_text(&self) -> Result<String, Error> {
        self.to_toml()
    }

    fn without_session_settings(&self) -> NnueConfig {
        let mut c = self.clone();
        c.run.generations = 0;
        c.run.threads = 0;
        c.run.torch_threads = 0;
        c.distributed = DistributedConfig::default();
        c
    }
}

/// A learned-evaluator run open in its directory (config frozen, lock
/// held, state read), whose methods are the stages of a generation
/// ([`crate::driver::Stages`], run by the one driver): self-play, training,
/// the gate and the evaluation.
pub(crate) struct NnueRun<G: LearnedGame> {
    config: NnueConfig,
    /// The run's rules, as its game's.
    rules: G::Rules,
    files: RunFiles,
    pool: rayon::ThreadPool,
    /// Games of an evaluation match played at once.
    threads: usize,
    /// The generation's samples, once played or ingested (the newest part
    /// of the training window).
    pending: Vec<Sample<G::Features>>,
    /// The generation's trained network, once trained.
    trained: Option<FloatNet>,
}

impl<G: LearnedGame> NnueRun<G> {
    /// Opens the run in `dir` ([`RunFiles::open`]: a new run, or with
    /// `resume` the run there, whose config must be `config` but for the
    /// session settings). A new run that starts from a network
    /// (`[train] init`) gets it as generation 0. Writes the `"session"`
    /// line.
    ///
    /// # Errors
    ///
    /// An invalid config, a config that differs from the run's on resume,
    /// a new run in a directory that holds one, another trainer holding the
    /// run, unreadable run files.
    pub(crate) fn open(
        config: &NnueConfig,
        dir: &RunDir,
        resume: bool,
        keep_games_temp: bool,
    ) -> Result<NnueRun<G>, Error> {
        config.validate()?;
        let rules = config.rules_of::<G>()?;
        // The game's engine must take the gate's and the evaluation's
        // settings (Tafl's deepest search is shallower than draughts').
        let build = BuildOptions {
            rules: Some(config.rules),
            ..BuildOptions::default()
        };
        for (key, limit) in [
            ("gate.depth", AlphaBetaLimit::Depth(config.gate.depth)),
            ("eval", config.eval.limit()),
        ] {
            dama_eval::factory::<G>(&alphabeta(limit, None), &build)
                .map_err(|e| Error::Config(format!("{key}: {e}")))?;
        }
        let files = RunFiles::open(
            dir,
            config,
            &OpenOptions {
                resume,
                keep_games_temp,
            },
            || match config.train.init.start() {
                Some(start) => copy_start::<G>(start, &rules, dir),
                None => Ok(()),
            },
        )?;
        // `best.nnue` as the state names it: a session stopped between
        // writing it and `state.json` may have left a network the resumed
        // generation does not accept.
        let state = &files.state;
        if state.best_generation == 0 && config.train.init.start().is_none() {
            match std::fs::remove_file(dir.best_evaluator()) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::io(&dir.best_evaluator(), e))
                }
                _ => {}
            }
        } else {
            let best = dir.evaluator(state.best_generation);
            let bytes = dama_run::files::read_bounded(&best, MAX_EVALUATOR_FILE)
                .map_err(|e| Error::io(&best, e))?;
            dama_run::files::write_atomic(&dir.best_evaluator(), &bytes)
                .map_err(|e| Error::io(&dir.best_evaluator(), e))?;
        }
        let cpu_model = dama_nn::cpu::cpu_model().unwrap_or_else(|| "unknown CPU".to_owned());
        files.session(SessionEvent {
            generation: state.generation,
            cpu: cpu_model,
            cpu_bf16: dama_nn::CpuFeatures::detect().bf16_fast(),
            // The engine's integer network; training in f32 on the CPU.
            precision_setting: "int16".into(),
            precision: "int16".into(),
            device: "Cpu".into(),
        })?;
        let threads = dama_nn::device::or_cores(config.run.threads);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Config(format!("cannot start {threads} threads: {e}")))?;
        dama_nn::device::set_torch_threads(dama_nn::device::or_cores(config.run.torch_threads));
        Ok(NnueRun {
            config: config.clone(),
            rules,
            files,
            pool,
            threads,
            pending: Vec::new(),
            trained: None,
        })
    }

    /// Whether the run started from a network (`[train] init = "shipped"`
    /// or a path), its generation 0.
    fn starts_from_network(&self) -> bool {
        self.config.train.init.start().is_some()
    }

    /// The best evaluation so far: the handcrafted one (or the network
    /// the run started from) until a network passes the gate.
    ///
    /// # Errors
    ///
    /// The best network's file cannot be read.
    fn best_evaluation(&self) -> Result<G::Evaluation, Error> {
        let best = self.files.state.best_generation;
        Ok(if best == 0 && !self.starts_from_network() {
            G::handcrafted()
        } else {
            G::load_evaluation(&self.files.dir.evaluator(best), &self.rules)?
        })
    }

    /// Records generation `generation`'s samples (however they were
    /// played): `games/gen-NNNN.samples`, the `selfplay` line, the totals;
    /// they become the newest part of the window.
    fn add_samples(
        &mut self,
        generation: u32,
        samples: Vec<Sample<G::Features>>,
        event: &SelfplayEvent,
    ) -> Result<(), Error> {
        write_samples(&self.files.dir.samples(generation), &self.rules, &samples)?;
        self.files.add_selfplay(event)?;
        self.pending = samples;
        Ok(())
    }

    /// Trains generation `generation`'s network on the window (the earlier
    /// generations' sample files and this generation's samples) and writes
    /// it as `models/gen-NNNN.nnue`.
    fn train_network(
        &mut self,
        generation: u32,
        progress: &dyn Progress,
    ) -> Result<TrainFigures, Error> {
        let config = &self.config;
        let rules = &self.rules;
        let dir = &self.files.dir;
        let train_start = Instant::now();
        let first = generation.saturating_sub(config.train.window - 1).max(1);
        // Earlier generations from their files, this one from memory (the
        // same samples: the file was just written from them).
        let mut window = Vec::new();
        for g in first..generation {
            let (_, s) =
                read_samples::<G::Features>(&dir.samples(g), Some(rules), MAX_SAMPLES_PER_FILE)?;
            window.extend(s);
        }
        window.extend_from_slice(&self.pending);
        let init = if let Some(from) = config
            .train
            .init
            .trained_from(generation, self.files.state.best_generation)
        {
            read_network::<G::Features>(&dir.evaluator(from), Some(rules))?.0
        } else {
            FloatNet::random::<G::Features>(rules, generation_seed(config.run.seed, generation, 4))
        };
        let settings = NnueTrainSettings {
            lr: config.train.lr,
            batch_size: config.train.batch_size,
            score_scale: config.train.score_scale,
            result_weight: config.train.result_weight,
            mirror: config.train.mirror,
        };
        let mut trainer = NnueTrainer::<G::Features>::new(&init, settings)?;
        let mut rng = ChaCha8Rng::seed_from_u64(generation_seed(config.run.seed, generation, 5));
        let steps = config.train.steps_per_generation;
        progress.event(ProgressEvent::StageStarted {
            generation,
            stage: Stage::Train,
            total: steps as u64,
            opponent: None,
        });
        let step0 = self.files.state.step;
        let mut recent = 0.0;
        let mut metrics_error = None;
        let lrs: Vec<f64> = (0..steps).map(|i| trainer.lr_at(i, steps)).collect();
        let metrics = &self.files.metrics;
        let stats = trainer.train(&window, steps, &mut rng, |step, loss| {
            recent = if step == 1 {
                loss
            } else {
                0.98 * recent + 0.02 * loss
            };
            if step % 50 == 0 || step == steps {
                progress.event(ProgressEvent::TrainSteps {
                    done: step as u64,
                    loss: recent,
                });
            }
            if step % 250 == 0 || step == steps {
                let event = MetricsEvent::Train(TrainEvent {
                    generation,
                    step: step0 + step as u64,
                    lr: lrs[step - 1],
                    loss: recent,
                    value_loss: recent,
                    samples_per_sec: (step * settings.batch_size) as f64
                        / train_start.elapsed().as_secs_f64().max(1e-9),
                    buffer_positions: window.len() as u64,
                    ..TrainEvent::default()
                });
                if let Err(e) = metrics.write(&event) {
                    metrics_error.get_or_insert(e);
                }
            }
        });
        progress.event(ProgressEvent::StageFinished {
            stage: Stage::Train,
        });
        let stats = stats?;
        if let Some(e) = metrics_error {
            return Err(e.into());
        }
        self.files.state.step += steps as u64;
        let net = trainer.to_float()?;
        write_network(
            &dir.evaluator(generation),
            &net,
            &[
                ("generation", generation.to_string()),
                ("step", self.files.state.step.to_string()),
                ("samples", window.len().to_string()),
            ],
        )?;
        self.trained = Some(net);
        let seconds = train_start.elapsed().as_secs_f64();
        Ok(TrainFigures {
            steps: steps as u64,
            loss: stats.loss,
            window: window.len() as u64,
            seconds,
            samples_per_sec: (steps * settings.batch_size) as f64 / seconds.max(1e-9),
        })
    }

    /// The gate: generation `generation`'s network against the best so far
    /// at the gate's depth; accepted, it becomes the best (`best.nnue`).
    /// Its match, if one was played, and whether it was accepted.
    fn gate(
        &mut self,
        generation: u32,
        progress: &dyn Progress,
    ) -> Result<(Option<EvalLine>, bool), Error> {
        let config = &self.config;
        let best = self.files.state.best_generation;
        let new_path = self.files.dir.evaluator(generation);
        let best_path =
            (best > 0 || self.starts_from_network()).then(|| self.files.dir.evaluator(best));
        let gate_limit = AlphaBetaLimit::Depth(config.gate.depth);
        let line = if config.gate.games == 0 {
            None
        } else {
            let a = alphabeta(gate_limit, Some(&new_path));
            let b = alphabeta(gate_limit, best_path.as_deref());
            let name = if best_path.is_none() {
                "gate: handcrafted".to_owned()
            } else {
                format!("gate: gen-{best}")
            };
            let line = play::<G>(
                config,
                &self.rules,
                generation,
                2,
                &a,
                &b,
                &name,
                config.gate.games,
                openings(config.gate.balanced, config.gate.depth),
                Some(config.gate.min_score),
                self.threads,
                progress,
            )?;
            self.files.metrics.write(&MetricsEvent::Eval(line.event(
                generation,
                self.files.state.step,
                &name,
                &b.to_string(),
            )))?;
            Some(line)
        };
        let accepted = line
            .as_ref()
            .is_none_or(|l| l.score >= config.gate.min_score);
        if accepted {
            self.files.state.best_generation = generation;
            let net = self.trained.as_ref().ok_or_else(|| {
                Error::Config(format!("generation {generation} has no trained network"))
            })?;
            write_network(
                &self.files.dir.best_evaluator(),
                net,
                &[("generation", generation.to_string())],
            )?;
        }
        Ok((line, accepted))
    }

    /// The evaluation: the best network against the handcrafted evaluation,
    /// when `[eval]` asks for it in generation `generation` (every `every`
    /// generations and the last, once a network passed the gate).
    fn evaluate(
        &mut self,
        generation: u32,
        progress: &dyn Progress,
    ) -> Result<Option<EvalLine>, Error> {
        let config = &self.config;
        let last = generation == config.run.generations;
        let best = self.files.state.best_generation;
        if config.eval.games == 0
            || best == 0
            || (!generation.is_multiple_of(config.eval.every) && !last)
        {
            return Ok(None);
        }
        let limit = config.eval.limit();
        let a = alphabeta(limit, Some(&self.files.dir.evaluator(best)));
        let b = alphabeta(limit, None);
        let line = play::<G>(
            config,
            &self.rules,
            generation,
            3,
            &a,
            &b,
            &format!("handcrafted ({b})"),
            config.eval.games,
            openings(config.eval.balanced, config.eval.depth),
            None,
            self.threads,
            progress,
        )?;
        self.files.metrics.write(&MetricsEvent::Eval(line.event(
            generation,
            self.files.state.step,
            "handcrafted",
            &b.to_string(),
        )))?;
        Ok(Some(line))
    }
}

impl<G: LearnedGame> Stages for NnueRun<G> {
    type Item = Sample<G::Features>;

    fn files(&self) -> &RunFiles {
        &self.files
    }

    fn files_mut(&mut self) -> &mut RunFiles {
        &mut self.files
    }

    fn kind(&self) -> RunKind {
        RunKind::Nnue
    }

    fn generations(&self) -> u32 {
        self.config.run.generations
    }

    fn distributed(&self) -> &DistributedConfig {
        &self.config.distributed
    }

    fn games_wanted(&self, _: u32) -> u64 {
        u64::from(self.config.selfplay.games_per_generation)
    }

    /// Plays generation `generation`'s games with the best evaluation so
    /// far, from distinct random openings seeded by the run and the
    /// generation.
    fn self_play(
        &mut self,
        generation: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<SelfplayEvent>, Error> {
        let best = self.best_evaluation()?;
        let sp = &self.config.selfplay;
        let openings = random_openings::<G>(
            &self.rules,
            sp.games_per_generation as usize,
            sp.random_opening_plies,
            generation_seed(self.config.run.seed, generation, 1),
        );
        let (samples, event) = play_openings(
            &self.config,
            generation,
            &openings,
            &best,
            &self.pool,
            &|| stop.load(Ordering::SeqCst),
            progress,
        );
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        self.add_samples(generation, samples, &event)?;
        Ok(Some(event))
    }

    fn read_chunk(&self, store: &dyn Store, name: &ChunkName) -> ChunkRead<Self::Item> {
        crate::distributed::nnue::read_samples_chunk::<G>(store, name, &self.config, &self.rules)
    }

    /// Chunks record samples, not the games' ends, so the line has no
    /// results or lengths.
    fn ingested(
        &self,
        gen: u32,
        _: &[Self::Item],
        learner: &LearnerEvent,
        seconds: f64,
    ) -> SelfplayEvent {
        SelfplayEvent {
            generation: gen,
            games: learner.games,
            samples: learner.samples,
            seconds,
            games_per_hour: learner.games as f64 * 3600.0 / seconds,
            positions_per_sec: learner.samples as f64 / seconds,
            ..SelfplayEvent::default()
        }
    }

    fn add_ingested(
        &mut self,
        gen: u32,
        items: Vec<Self::Item>,
        sp: &SelfplayEvent,
    ) -> Result<(), Error> {
        self.add_samples(gen, items, sp)
    }

    fn train(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<TrainFigures>, Error> {
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let figures = self.train_network(gen, progress)?;
        // The network is written; the generation is not finished.
        Ok((!stop.load(Ordering::SeqCst)).then_some(figures))
    }

    fn judge(
        &mut self,
        gen: u32,
        stop: &AtomicBool,
        progress: &dyn Progress,
    ) -> Result<Option<Judged>, Error> {
        let (gate, accepted) = self.gate(gen, progress)?;
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        let eval = self.evaluate(gen, progress)?;
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        Ok(Some(Judged {
            evals: gate.into_iter().chain(eval).collect(),
            accepted,
        }))
    }

    /// Generation 0, the handcrafted evaluation, has no file (a network the
    /// run starts from has).
    fn published(&self, g: u32) -> Vec<(PathBuf, String)> {
        if g == 0 && !self.starts_from_network() {
            Vec::new()
        } else {
            vec![(
                self.files.dir.evaluator(g),
                dama_run::dist::evaluator_key(g),
            )]
        }
    }

    fn network_file(&self, g: u32) -> PathBuf {
        self.files.dir.evaluator(g)
    }

    fn best_file(&self) -> Option<PathBuf> {
        (self.files.state.best_generation > 0 || self.starts_from_network())
            .then(|| self.files.dir.best_evaluator())
    }
}

/// Opens the learned-evaluator run of `config` in `dir` for its game and
/// drives it: with `store`, as a distributed run's learner on the chunks
/// workers upload there.
pub(crate) fn drive_nnue(
    config: &NnueConfig,
    dir: &RunDir,
    resume: bool,
    store: Option<&dyn Store>,
    stop: &AtomicBool,
    progress: &dyn Progress,
) -> Result<RunSummary, Error> {
    struct Drive<'a> {
        config: &'a NnueConfig,
        dir: &'a RunDir,
        resume: bool,
        store: Option<&'a dyn Store>,
        stop: &'a AtomicBool,
        progress: &'a dyn Progress,
    }
    impl WithLearnedGame for Drive<'_> {
        type Output = Result<RunSummary, Error>;
        fn run<G: LearnedGame>(self) -> Self::Output {
            let mut run =
                NnueRun::<G>::open(self.config, self.dir, self.resume, self.store.is_some())?;
            match self.store {
                None => drive(&mut run, None, self.stop, self.progress),
                Some(store) => {
                    let mut learner = Learner::open(store, self.dir, run.files.state.generation)?;
                    drive(&mut run, Some(&mut learner), self.stop, self.progress)
                }
            }
        }
    }
    config.with_game(Drive {
        config,
        dir,
        resume,
        store,
        stop,
        progress,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_from_a_network_trains_on_from_the_best_not_a_rejected_generation() {
        let shipped = TrainInit::from("shipped".to_owned());
        // Generation 1 from the start network (generation 0).
        assert_eq!(shipped.trained_from(1, 0), Some(0));
        // Generation 1 rejected: generation 2 starts from generation 0 again.
        assert_eq!(shipped.trained_from(2, 0), Some(0));
        // Generation 2 accepted: generation 3 starts from it.
        assert_eq!(shipped.trained_from(3, 2), Some(2));
        let previous = TrainInit::Previous;
        assert_eq!(previous.trained_from(1, 0), None);
        assert_eq!(previous.trained_from(3, 0), Some(2));
        assert_eq!(TrainInit::Random.trained_from(3, 2), None);
    }

    #[test]
    fn balanced_matches_are_judged_by_the_handcrafted_engine_at_their_depth() {
        assert_eq!(openings(None, 5), OpeningSource::Random { plies: 4 });
        let OpeningSource::Balanced {
            plies,
            margin,
            judge,
        } = openings(Some(120), 5)
        else {
            panic!("not balanced");
        };
        assert_eq!((plies, margin), (4, 120));
        assert_eq!(judge.to_string(), "alphabeta:depth=5");
    }
}
