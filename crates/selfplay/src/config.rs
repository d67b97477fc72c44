//! The run configuration: one TOML file, one section per concern.
//!
//! Parsing happens in two steps: serde into [`RunConfig`] (unknown keys are
//! rejected with their name), then [`RunConfig::validate`] checks every value
//! and names the first one that is out of range.

use std::path::Path;

use dama_mcts::SearchConfig;
use dama_nn::{GameName, GameRules, ModelConfig, PrecisionChoice, TrainConfig};
use serde::{Deserialize, Serialize};

use crate::Error;

/// Everything a training run needs. Each section has defaults, so a config
/// file only states what it changes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawRunConfig")]
pub struct RunConfig {
    /// Run-wide settings: generations, seed, device, threads.
    pub run: RunSection,
    /// The game (`[game] name = "tafl"`; draughts by default). Left out of
    /// `config.toml` for draughts, so a draughts run writes the config it
    /// always wrote.
    #[serde(skip_serializing_if = "GameSection::is_default")]
    pub game: GameSection,
    /// The rules of the game, `[rules]`: the rule options of the game named
    /// in `[game]`, in that game's own form (its crate's docs), so that a
    /// game's options need no section of their own.
    pub rules: GameRules,
    /// The network's shape.
    pub model: ModelConfig,
    /// The search used by self-play.
    pub search: SearchConfig,
    /// Self-play games.
    pub selfplay: SelfplayConfig,
    /// The replay window.
    pub buffer: BufferConfig,
    /// Optimizer and training steps.
    pub train: TrainConfig,
    /// Training steps per generation and batch size.
    pub schedule: ScheduleConfig,
    /// The evaluation after each generation.
    pub eval: EvalConfig,
    /// Teacher games: the first generations' games played by the alpha-beta
    /// engine instead of the network (off by default).
    pub teacher: TeacherConfig,
    /// Distributed runs (`dama learner`, `dama worker`): chunk size,
    /// staleness bound, polling. Left out of `config.toml` while it holds
    /// its defaults, so `dama train` writes the config it always wrote.
    #[serde(skip_serializing_if = "DistributedConfig::is_default")]
    pub distributed: DistributedConfig,
}

/// [`RunConfig`] as written, before `[rules]` is read as the rules of the
/// game `[game]` names: unknown keys are refused with their name.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawRunConfig {
    run: RunSection,
    game: GameSection,
    rules: Option<toml::Table>,
    /// The per-game rule sections of older configs (`[tafl]`), still read.
    #[serde(flatten)]
    legacy: dama_nn::LegacyRuleSections,
    model: ModelConfig,
    search: SearchConfig,
    selfplay: SelfplayConfig,
    buffer: BufferConfig,
    train: TrainConfig,
    schedule: ScheduleConfig,
    eval: EvalConfig,
    teacher: TeacherConfig,
    distributed: DistributedConfig,
}

impl TryFrom<RawRunConfig> for RunConfig {
    type Error = String;

    fn try_from(raw: RawRunConfig) -> Result<RunConfig, String> {
        Ok(RunConfig {
            rules: rules_of(raw.game.name, raw.rules, raw.legacy)?,
            run: raw.run,
            game: raw.game,
            model: raw.model,
            search: raw.search,
            selfplay: raw.selfplay,
            buffer: raw.buffer,
            train: raw.train,
            schedule: raw.schedule,
            eval: raw.eval,
            teacher: raw.teacher,
            distributed: raw.distributed,
        })
    }
}

/// `table` read as the rules of `game`.
fn game_rules_of(game: GameName, table: &toml::Table) -> Result<GameRules, toml::de::Error> {
    GameRules::deserialize_for(game, toml::Value::Table(table.clone()))
}

/// Whether `table` holds the default game's default rules, as every config
/// written before `[rules]` held the options of every game did, whatever
/// its game.
fn holds_older_defaults(table: &toml::Table) -> bool {
    let default = GameName::default();
    game_rules_of(default, table).is_ok_and(|r| r == GameRules::default_for(default))
}

/// The rules of `game` from `[rules]` and, in older configs, a game's own
/// section (`[tafl]`).
pub(crate) fn rules_of(
    game: GameName,
    rules: Option<toml::Table>,
    legacy: dama_nn::LegacyRuleSections,
) -> Result<GameRules, String> {
    if let Some((section, old)) = legacy.rules() {
        if old.name() != game {
            return Err(format!(
                "`{section}`: [{section}] holds {}'s rule options, and the run's game is {}                  (`[game] name = \"{}\"`); the rules of every game go in [rules]",
                old.name().title(),
                game.title(),
                game
            ));
        }
        return match rules {
            Some(table) if !table.is_empty() && !holds_older_defaults(&table) => Err(format!(
                "`{section}`: [{section}] (an older config's section for {}'s options) and                  [rules] both set rules; put them in [rules] alone",
                game.title()
            )),
            _ => Ok(old),
        };
    }
    let Some(table) = rules else {
        return Ok(GameRules::default_for(game));
    };
    match game_rules_of(game, &table) {
        Ok(r) => Ok(r),
        Err(_) if game != GameName::default() && holds_older_defaults(&table) => {
            Ok(GameRules::default_for(game))
        }
        Err(e) => {
            let message = e.message().trim().to_owned();
            let other = GameName::ALL
                .iter()
                .copied()
                .find(|&g| g != game && game_rules_of(g, &table).is_ok());
            Err(match other {
                Some(other) => format!(
                    "`rules`: [rules] holds the rule options of the run's game, {}                      (`[game] name = \"{game}\"`), and these are {}'s ({message})",
                    game.title(),
                    other.title()
                ),
                None => format!("`rules`: {}'s rules: {message}", game.title()),
            })
        }
    }
}

/// `[game]`: which game the run trains.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameSection {
    /// The game (`draughts`, Turkish draughts and its variants; `tafl`,
    /// Turkish Tafl; any registered game), whose options `[rules]` holds.
    pub name: GameName,
}

impl GameSection {
    pub(crate) fn is_default(&self) -> bool {
        *self == GameSection::default()
    }
}

/// The largest `distributed.games_per_chunk`.
pub const MAX_GAMES_PER_CHUNK: usize = 4096;
/// The largest `distributed.max_staleness`.
pub const MAX_STALENESS: u32 = 1000;

/// Settings of a distributed run: workers play chunks of games with the
/// newest published network; the learner trains on them
/// (docs/distributed.md). Session settings: they may change on `--resume`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DistributedConfig {
    /// Games a worker plays per chunk (one upload), in 1..=4096. A worker
    /// killed mid-chunk loses at most these games. Default 8.
    pub games_per_chunk: usize,
    /// The learner skips chunks played by a network more than this many
    /// generations older than the one it publishes (0: only the newest
    /// network's games), at most 1000. Default 4.
    pub max_staleness: u32,
    /// Seconds between the learner's looks for new chunks and a waiting
    /// worker's looks for a network, in 0.05..=3600. Default 1.
    pub poll_secs: f64,
}

impl Default for DistributedConfig {
    fn default() -> Self {
        DistributedConfig {
            games_per_chunk: 8,
            max_staleness: 4,
            poll_secs: 1.0,
        }
    }
}

impl DistributedConfig {
    /// True when every value is its default (the section is then not
    /// written to `config.toml`).
    pub fn is_default(&self) -> bool {
        *self == DistributedConfig::default()
    }

    /// Checks every value; names the first one that is wrong.
    ///
    /// # Errors
    /// [`Error::Config`] naming the key and its bounds.
    pub fn validate(&self) -> Result<(), Error> {
        if !(1..=MAX_GAMES_PER_CHUNK).contains(&self.games_per_chunk) {
            return Err(invalid(
                "distributed.games_per_chunk",
                format!("must be in 1..={MAX_GAMES_PER_CHUNK}"),
            ));
        }
        if self.max_staleness > MAX_STALENESS {
            return Err(invalid(
                "distributed.max_staleness",
                format!("must be at most {MAX_STALENESS}"),
            ));
        }
        if !(0.05..=3600.0).contains(&self.poll_secs) {
            return Err(invalid(
                "distributed.poll_secs",
                "must be in 0.05..=3600 seconds",
            ));
        }
        Ok(())
    }
}

/// Teacher games ([`crate::teacher`]): in generations `1..=generations`
/// the self-play stage has the alpha-beta engine play `games` games against
/// itself and records every decision with the engine's best step as the
/// policy target and its score as the search value. A network trained on
/// them starts from the engine's knowledge instead of from nothing; the
/// generations after them are ordinary self-play, and the teacher's games
/// leave the replay window like any others.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TeacherConfig {
    /// Generations whose games the teacher plays. Default 0 (off).
    pub generations: u32,
    /// Games per teacher generation. Default 1000.
    pub games: usize,
    /// The teacher's search depth in plies. Default 4.
    pub depth: u32,
    /// Probability that a move of a teacher game is a uniformly random
    /// legal move instead of the engine's (the recorded target stays the
    /// engine's move), for positions the engine would not reach alone.
    /// Default 0.05.
    pub random_move_prob: f64,
    /// Centi-men of the engine's score per unit of `tanh` when the score
    /// becomes a value: `v = tanh(score / value_scale)`, WDL `[max(v,0),
    /// 1 − |v|, max(−v,0)]`. Default 200 (two men up: v = 0.76).
    pub value_scale: f32,
}

impl Default for TeacherConfig {
    fn default() -> TeacherConfig {
        TeacherConfig {
            generations: 0,
            games: 1000,
            depth: 4,
            random_move_prob: 0.05,
            value_scale: 200.0,
        }
    }
}

/// What a run trains (`[run] kind`): read once, typed, by every command
/// that takes a config or a run directory ([`RunKind::of_text`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunKind {
    /// A policy/value network for MCTS (the default).
    #[default]
    Network,
    /// A learned evaluation for the alpha-beta engine (`crate::nnue`).
    Nnue,
}

impl RunKind {
    /// The kind of the run whose config is the TOML `text` (`[run] kind`,
    /// the other keys left to the kind's own parser).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] if the text is not TOML or the kind is unknown.
    pub fn of_text(text: &str) -> Result<RunKind, Error> {
        #[derive(Deserialize)]
        struct Peek {
            #[serde(default)]
            run: PeekRun,
        }
        #[derive(Default, Deserialize)]
        struct PeekRun {
            #[serde(default)]
            kind: RunKind,
        }
        toml::from_str::<Peek>(text)
            .map(|p| p.run.kind)
            .map_err(|e| Error::Config(format!("run.kind: {}", e.message().trim())))
    }

    /// The kind of the run whose config file is `path`.
    ///
    /// # Errors
    ///
    /// As [`RunKind::of_text`], naming the file, and an unreadable file.
    pub fn of_file(path: &Path) -> Result<RunKind, Error> {
        let text = dama_run::files::read_bounded_string(path, dama_run::files::MAX_TEXT_FILE)
            .map_err(|e| Error::io(path, e))?;
        RunKind::of_text(&text).map_err(|e| Error::Config(format!("{}: {e}", path.display())))
    }

    fn is_network(&self) -> bool {
        *self == RunKind::Network
    }
}

impl std::fmt::Display for RunKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RunKind::Network => "network",
            RunKind::Nnue => "nnue",
        })
    }
}

/// Run-wide settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSection {
    /// `"network"`, the default: this config is a network run's (a
    /// learned-evaluator run's is [`crate::nnue::NnueConfig`]). Left out of
    /// `config.toml`.
    #[serde(skip_serializing_if = "RunKind::is_network")]
    pub kind: RunKind,
    /// Number of generations (self-play + training + evaluation) to run.
    /// Default 10.
    pub generations: u32,
    /// Seed of every random choice in the run. Default 1.
    pub seed: u64,
    /// `"auto"` (CUDA when present, else CPU), `"cpu"`, `"cuda"` or
    /// `"cuda:N"`. Default `"auto"`.
    #[serde(deserialize_with = "run_device")]
    pub device: dama_run::DeviceSpec,
    /// Rayon workers for self-play's search (gather/apply); 0 = one per
    /// core. Default 1: on 2 cores with a small network the search is under
    /// a tenth of self-play time, and a second worker only competes with
    /// libtorch's threads (measured with `dama bench selfplay`). Every
    /// thread count is at most `dama_nn::device::max_threads()` (4 per
    /// core, 8..=256).
    pub threads: usize,
    /// libtorch intra-op threads for training (and for self-play's network
    /// calls when `inference_threads` is 1); 0 = one per core. Default 0.
    pub torch_threads: usize,
    /// Copies of the network evaluating parts of each self-play batch at
    /// the same time, each on its own thread with one libtorch thread
    /// (`dama_nn::NnEvaluator::with_lanes`); 0 = one per core. On a CPU a
    /// small network's call keeps about one core busy however many
    /// intra-op threads it has, so one copy per core is what keeps every
    /// core busy (measured with `dama bench selfplay`: docs/benchmarks.md).
    /// 1 = one call per batch with `torch_threads` threads. A GPU always
    /// has one. Default 0.
    pub inference_threads: usize,
    /// Evaluation games played in parallel, each with one libtorch thread;
    /// 0 = one per core. Default 0.
    pub eval_threads: usize,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            kind: RunKind::Network,
            generations: 10,
            seed: 1,
            device: dama_run::DeviceSpec::Auto,
            threads: 1,
            torch_threads: 0,
            inference_threads: 0,
            eval_threads: 0,
        }
    }
}

/// Self-play settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplayConfig {
    /// Games played per generation. Default 64.
    pub games_per_generation: usize,
    /// Games in flight at once, whose searches share one network batch.
    /// Default 32.
    pub parallel_games: usize,
    /// Plies (full moves) after which a game is stopped and scored a draw.
    /// Default 300.
    pub max_plies: u32,
    /// Full moves at the start of each game played uniformly at random,
    /// for opening diversity (their positions are not recorded). Default 2.
    pub random_opening_plies: u32,
    /// Move choice temperature for the first `temperature_plies` plies.
    /// Default 1.0.
    pub temperature: f32,
    /// Plies played with `temperature`; later moves take the best. Default 16.
    pub temperature_plies: u32,
    /// Resign when the root value's loss probability exceeds this for
    /// `resign_consecutive` of the player's consecutive moves; 1.0 disables.
    /// Default 0.95.
    pub resign_loss_threshold: f32,
    /// Consecutive moves under the threshold before resigning. Default 3.
    pub resign_consecutive: u32,
    /// Share of games with resignation disabled, played out to count false
    /// resignations. Default 0.2.
    pub resign_playthrough: f64,
    /// Entries of the network evaluation cache (keyed by position hash);
    /// 0 disables it. Default 200000.
    pub eval_cache_entries: usize,
    /// Directory of endgame tables (`dama tablebase generate`), relative to
    /// the working directory; empty: none. With tables, a game ends as soon
    /// as it reaches a position they hold, scored exactly (a cursed win or
    /// blessed loss is a draw), so the positions before it learn the exact
    /// outcome, and the search treats such positions as terminal. A
    /// directory without tables (or of other rules) only prints a note.
    /// Default `""`.
    pub tablebase: String,
    /// Precision of self-play inference: `"auto"` (bf16 on a CPU with
    /// AMX-BF16 or AVX-512-BF16, fp32 elsewhere), `"f32"` or `"bf16"`
    /// (works everywhere, but slower than fp32 without those instructions).
    /// Training and evaluation stay fp32. Default `"auto"`.
    pub precision: PrecisionChoice,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            games_per_generation: 64,
            parallel_games: 32,
            max_plies: 300,
            random_opening_plies: 2,
            temperature: 1.0,
            temperature_plies: 16,
            resign_loss_threshold: 0.95,
            resign_consecutive: 3,
            resign_playthrough: 0.2,
            eval_cache_entries: 200_000,
            tablebase: String::new(),
            precision: PrecisionChoice::Auto,
        }
    }
}

/// The replay window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BufferConfig {
    /// Most positions kept. Default 200000.
    pub max_positions: usize,
    /// Most generations kept. Default 8.
    pub max_generations: usize,
    /// Left-right mirror augmentation of sampled positions. Default true.
    pub mirror: bool,
}

impl Default for BufferConfig {
    fn default() -> Self {
        BufferConfig {
            max_positions: 200_000,
            max_generations: 8,
            mirror: true,
        }
    }
}

/// Training steps per generation (the batch size is `train.batch_size`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScheduleConfig {
    /// Training steps per generation. Default 200.
    pub steps_per_generation: u64,
    /// Skip training until the window holds this many positions.
    /// Default 1000.
    pub min_positions: usize,
    /// Value target = (1 − w) · game outcome + w · search value at the
    /// position (0: AlphaZero's outcome only). Default 0.
    pub value_q_weight: f32,
}

impl Default for ScheduleConfig {
    fn default() -> Self {
        ScheduleConfig {
            steps_per_generation: 200,
            min_positions: 1000,
            value_q_weight: 0.0,
        }
    }
}

/// The evaluation run after each generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalConfig {
    /// Games against each opponent (even; colours alternate). 0 disables.
    /// Default 20.
    pub games: usize,
    /// Baseline player specs played every `every` generations
    /// (see `dama eval --help`). Default `["random", "greedy"]`.
    pub baselines: Vec<String>,
    /// Also play the previous generation's network. Default true.
    pub against_previous: bool,
    /// Evaluate every this many generations (the last one always). Default 1.
    pub every: u32,
    /// Simulations per move of the network player in evaluation games.
    /// Default 32.
    pub sims: u32,
    /// Gate: keep the new network only if it scores at least this against
    /// the previous one; 0 disables gating. Default 0.
    pub gate_score: f64,
    /// What a draw is worth to the network players of evaluation games
    /// (`ckpt:…,draw=D`; see the search's `draw_score`). Default 0 (neutral).
    pub draw_score: f32,
    /// Root search of the network players of evaluation games: `"gumbel"`
    /// (deterministic, no Gumbel noise) or `"puct"`. Default `"puct"`
    /// (`dama_eval::DEFAULT_CKPT_SEARCH`, the default of every checkpoint player).
    pub search: dama_mcts::Algorithm,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            games: 20,
            baselines: vec!["random".into(), "greedy".into()],
            against_previous: true,
            every: 1,
            sims: 32,
            gate_score: 0.0,
            draw_score: 0.0,
            search: dama_eval::DEFAULT_CKPT_SEARCH,
        }
    }
}

fn invalid(key: &str, why: impl std::fmt::Display) -> Error {
    Error::Config(format!("`{key}`: {why}"))
}

impl RunConfig {
    /// Reads and validates a config file.
    ///
    /// # Errors
    /// A missing file, TOML syntax, an unknown key, or an invalid value, each
    /// named with the file.
    pub fn load(path: &Path) -> Result<RunConfig, Error> {
        let text = dama_run::files::read_bounded_string(path, dama_run::files::MAX_TEXT_FILE)
            .map_err(|e| Error::io(path, e))?;
        RunConfig::parse(&text).map_err(|e| Error::BadFile {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    }

    /// Parses and validates a config from TOML text.
    ///
    /// # Errors
    /// TOML syntax, an unknown key, or an invalid value.
    pub fn parse(text: &str) -> Result<RunConfig, Error> {
        let mut cfg: RunConfig = toml::from_str(text).map_err(|e| Error::Config(e.to_string()))?;
        cfg.fit_model_to_game();
        cfg.validate()?;
        Ok(cfg)
    }

    /// Gives `[model]` the game's shapes when it holds the defaults
    /// (draughts') or another game's: a config leaves the shapes out, and
    /// the game decides them.
    pub fn fit_model_to_game(&mut self) {
        let shape = self.model.shape();
        if GameName::ALL.iter().any(|g| g.encoding().shape == shape) {
            self.model = self
                .model
                .clone()
                .with_shape(self.game.name.encoding().shape);
        }
    }

    /// The game and the rules its games are played under.
    pub fn game_rules(&self) -> GameRules {
        self.rules
    }

    /// The config as TOML (what `config.toml` of a run holds).
    ///
    /// # Errors
    /// Only if a value cannot be represented in TOML.
    pub fn to_toml(&self) -> Result<String, Error> {
        toml::to_string_pretty(self).map_err(|e| Error::Config(e.to_string()))
    }

    /// Checks every value; names the first one that is wrong.
    ///
    /// # Errors
    /// [`Error::Config`] naming the key and the reason.
    pub fn validate(&self) -> Result<(), Error> {
        let r = &self.run;
        if r.kind != RunKind::Network {
            return Err(invalid(
                "run.kind",
                format!("\"{}\" is not a network run's kind (its config is read as a learned-evaluator run's)", r.kind),
            ));
        }
        if r.generations == 0 {
            return Err(invalid("run.generations", "must be at least 1"));
        }
        for (key, n) in [
            ("run.threads", r.threads),
            ("run.torch_threads", r.torch_threads),
            ("run.inference_threads", r.inference_threads),
            ("run.eval_threads", r.eval_threads),
        ] {
            dama_nn::device::check_threads(key, n).map_err(|err| invalid(key, err))?;
        }
        if r.inference_threads > dama_nn::MAX_LANES {
            return Err(invalid(
                "run.inference_threads",
                format!("must be at most {}", dama_nn::MAX_LANES),
            ));
        }
        let s = &self.selfplay;
        if s.games_per_generation == 0 {
            return Err(invalid(
                "selfplay.games_per_generation",
                "must be at least 1",
            ));
        }
        if s.parallel_games == 0 || s.parallel_games > 65_536 {
            return Err(invalid(
                "selfplay.parallel_games",
                "must be in 1..=65536 (each game in flight holds a search tree)",
            ));
        }
        if s.eval_cache_entries > 100_000_000 {
            return Err(invalid(
                "selfplay.eval_cache_entries",
                "must be at most 100000000",
            ));
        }
        if s.max_plies == 0 {
            return Err(invalid("selfplay.max_plies", "must be at least 1"));
        }
        if !(s.temperature >= 0.0 && s.temperature.is_finite()) {
            return Err(invalid("selfplay.temperature", "must be a number >= 0"));
        }
        if !(0.0..=1.0).contains(&s.resign_loss_threshold) {
            return Err(invalid(
                "selfplay.resign_loss_threshold",
                "must be in [0, 1]",
            ));
        }
        if !(0.0..=1.0).contains(&s.resign_playthrough) {
            return Err(invalid("selfplay.resign_playthrough", "must be in [0, 1]"));
        }
        let tc = &self.teacher;
        if tc.generations > 0 {
            if tc.games == 0 || tc.games > 1_000_000 {
                return Err(invalid("teacher.games", "must be in 1..=1000000"));
            }
            if tc.depth == 0 || tc.depth > crate::teacher::MAX_DEPTH {
                return Err(invalid(
                    "teacher.depth",
                    format!("must be in 1..={}", crate::teacher::MAX_DEPTH),
                ));
            }
        }
        if !(0.0..=1.0).contains(&tc.random_move_prob) {
            return Err(invalid("teacher.random_move_prob", "must be in [0, 1]"));
        }
        if !(tc.value_scale > 0.0 && tc.value_scale.is_finite()) {
            return Err(invalid("teacher.value_scale", "must be a number > 0"));
        }
        let b = &self.buffer;
        if b.max_positions == 0 || b.max_generations == 0 {
            return Err(invalid(
                "buffer.max_positions / buffer.max_generations",
                "must be at least 1",
            ));
        }
        let t = &self.schedule;
        if !(0.0..=1.0).contains(&t.value_q_weight) {
            return Err(invalid("schedule.value_q_weight", "must be in [0, 1]"));
        }
        let e = &self.eval;
        if e.games % 2 == 1 {
            return Err(invalid(
                "eval.games",
                "must be even (each opening is played with both colours)",
            ));
        }
        if e.every == 0 {
            return Err(invalid("eval.every", "must be at least 1"));
        }
        if !(-1.0..=1.0).contains(&e.draw_score) {
            return Err(invalid("eval.draw_score", "must be in [-1, 1]"));
        }
        if !(0.0..=1.0).contains(&e.gate_score) {
            return Err(invalid("eval.gate_score", "must be in [0, 1]"));
        }
        if e.sims == 0 || e.sims > dama_mcts::MAX_SIMULATIONS {
            return Err(invalid(
                "eval.sims",
                format!("must be in 1..={}", dama_mcts::MAX_SIMULATIONS),
            ));
        }
        for spec in &e.baselines {
            spec.parse::<dama_eval::PlayerSpec>()
                .and_then(|p| p.check_files())
                .map_err(|err| invalid("eval.baselines", format!("`{spec}`: {err}")))?;
        }
        self.model.validate().map_err(|err| invalid("model", err))?;
        // The shapes come from the game (draughts: its variants share one
        // encoding); a config has no reason to set them.
        let shape = self.game.name.encoding().shape;
        if self.model.shape() != shape {
            return Err(invalid(
                "model",
                format!(
                    "input_planes, board_height, board_width and policy_planes are the game's \
                     ({}: {shape}); leave them out",
                    self.game.name.title()
                ),
            ));
        }
        let game = self.game.name;
        if self.rules.name() != game {
            return Err(invalid(
                "rules",
                format!(
                    "{} rules for a run of {}",
                    self.rules.name().title(),
                    game.title()
                ),
            ));
        }
        // Teacher games are played by the draughts alpha-beta engine.
        if game != GameName::Draughts && self.teacher.generations > 0 {
            return Err(invalid(
                "teacher.generations",
                format!(
                    "teacher games are played by the draughts alpha-beta engine; \
                     {} has none (leave [teacher] out)",
                    game.title()
                ),
            ));
        }
        if !self.selfplay.tablebase.is_empty() && !game.has_tables() {
            return Err(invalid(
                "selfplay.tablebase",
                format!("{} has no endgame tables", game.title()),
            ));
        }
        struct Baselines<'a>(&'a [String]);
        impl dama_nn::WithGame for Baselines<'_> {
            type Output = Result<(), Error>;
            fn run<G: dama_game::GameDef>(self) -> Result<(), Error> {
                for spec in self.0 {
                    let parsed: dama_eval::PlayerSpec = spec
                        .parse()
                        .map_err(|err| invalid("eval.baselines", format!("`{spec}`: {err}")))?;
                    dama_eval::games::check_spec::<G>(&parsed)
                        .map_err(|err| invalid("eval.baselines", format!("`{spec}`: {err}")))?;
                }
                Ok(())
            }
        }
        game.with(Baselines(&self.eval.baselines))?;
        self.train.validate().map_err(|err| invalid("train", err))?;
        self.search
            .validate()
            .map_err(|err| invalid("search", err))?;
        self.distributed.validate()?;
        Ok(())
    }
}

/// `[run] device`, with the key in the error (TOML errors name the line,
/// not the key).
fn run_device<'de, D: serde::Deserializer<'de>>(d: D) -> Result<dama_run::DeviceSpec, D::Error> {
    let text = String::deserialize(d)?;
    text.parse()
        .map_err(|e| serde::de::Error::custom(format!("run.device: {e}")))
}
