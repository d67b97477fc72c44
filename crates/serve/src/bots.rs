//! Bots: the catalogue a request chooses from ([`Catalogue`]) and the pool
//! of threads that think ([`BotPool`]).
//!
//! The catalogue is per game: a request names the game it plays (default
//! draughts), and is offered that game's baselines, its runs' networks and
//! its bundles; a network of another game is refused by name. Bots are
//! built and asked to think through the one per-game adapter
//! ([`crate::adapter`]).
//!
//! A request names a bot by id (`alphabeta`, `run:NAME/GEN`,
//! `bundle:NAME`, …) and a strength; ids are looked up, never taken as
//! paths. Thinking happens on a few worker threads, each with its own bots
//! (a network is loaded once per worker that uses it and kept while it is
//! used), fed by one bounded queue: every game and analysis of every tab
//! shares them, a full queue answers 429, and the async server never waits
//! on a search.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dama_bot::{BotOptions, BotSpec, Limit};
use dama_eval::{AlphaBetaLimit, PlayerSpec};
use dama_game::GameDef;
use dama_nn::GameName;
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use crate::adapter::{self, AnyBot, Thought};
use crate::error::ApiError;
use crate::runs::{checkpoints, valid_name, Runs};
use crate::Limits;

/// Default alpha-beta depth.
pub const DEFAULT_DEPTH: u32 = 4;
/// Default simulations of the rollout MCTS baseline.
pub const DEFAULT_MCTS_SIMS: u32 = 200;
/// Bots each worker keeps built (least recently used dropped first).
const BOTS_PER_WORKER: usize = 4;

/// How strong a bot plays, as a request gives it: at most one of the three.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Strength {
    /// Simulations per decision (network and MCTS bots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sims: Option<u32>,
    /// Thinking time per move in milliseconds (searching bots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// Depth in plies (alpha-beta).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
}

/// What the strength of a bot is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StrengthKind {
    /// Simulations or time.
    Sims,
    /// Depth or time.
    Depth,
    /// Nothing: the bot does not search.
    None,
}

/// One bot of the catalogue.
#[derive(Clone, Debug, Serialize)]
pub struct BotEntry {
    /// What requests name it by.
    pub id: String,
    /// A label for people.
    pub label: String,
    /// `baseline`, `network`, `evaluator` (a learned-evaluator run) or
    /// `bundle` (either kind of bundle).
    pub kind: &'static str,
    /// What its strength is measured in.
    pub strength: StrengthKind,
    /// Its default strength.
    pub default: Strength,
    /// For a network or bundle: the rules it was trained under, as rules
    /// text (it plays only that variant; the page sets its rule options from
    /// them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
}

/// A bot chosen by a request: what to build and how long to think.
#[derive(Clone, Debug, PartialEq)]
pub struct Chosen {
    /// The id it was chosen by.
    pub id: String,
    /// The game it plays.
    pub game: GameName,
    /// What to build (the pool's key).
    pub spec: BotSpec,
    /// How long to think (`None`: the bot's own default).
    pub limit: Option<Limit>,
    /// The strength as given (for the game's view).
    pub strength: Strength,
}

/// The bots a request may choose from.
#[derive(Debug)]
pub struct Catalogue {
    runs: Arc<Runs>,
    /// The bot of `--bot`/`--bundle`, if any (id `default`).
    default: Option<BotSpec>,
    limits: Limits,
}

fn baseline(id: &str, label: &str, strength: StrengthKind, default: Strength) -> BotEntry {
    BotEntry {
        id: id.into(),
        label: label.into(),
        kind: "baseline",
        strength,
        default,
        rules: None,
    }
}

/// Whether a bot's network (if it has one) plays another game than `game`.
fn other_game(spec: &BotSpec, game: GameName) -> Option<GameName> {
    adapter::network_game(spec).filter(|&g| g != game)
}

/// Whether a bot that plays the shipped network (`eval=shipped`, which
/// names no game) has one to play in `game`; every other bot does.
fn plays_shipped_of(spec: &BotSpec, game: GameName) -> bool {
    !matches!(
        spec,
        BotSpec::AlphaBeta {
            eval: Some(dama_game::EvalSource::Shipped),
            ..
        }
    ) || adapter::shipped_rules(game).is_some()
}

/// A 400 for a network of another game than the one asked for.
fn refuse_other_games(id: &str, spec: &BotSpec, game: GameName) -> Result<(), ApiError> {
    match other_game(spec, game) {
        Some(g) => Err(ApiError::bad_request(format!(
            "bot `{}` plays {}, not {} (choose a bot of that game, or start a {} game)",
            id.escape_default(),
            g.title(),
            game.title(),
            g.as_str()
        ))),
        None => Ok(()),
    }
}

/// The rules text a bot's network was trained under (`None` for a bot
/// without a network, or one whose files cannot be read: choosing it says
/// why).
fn trained_rules_text(spec: &BotSpec, game: GameName) -> Option<String> {
    adapter::trained(spec, game)
        .ok()
        .flatten()
        .map(|r| r.text())
}

/// The metadata of a learned-evaluator bundle (`None` for a network
/// bundle, or one whose `bundle.json` cannot be read: choosing it says why).
fn evaluator_bundle(dir: &std::path::Path) -> Option<dama_bot::EvaluatorBundleMeta> {
    match dama_bot::BundleContents::read(dir) {
        Ok(dama_bot::BundleContents::Evaluator(m)) => Some(*m),
        _ => None,
    }
}

/// The strength a learned-evaluator bundle plays at by default.
fn evaluator_default(meta: &dama_bot::EvaluatorBundleMeta) -> Strength {
    match meta.limit {
        AlphaBetaLimit::Depth(d) => Strength {
            depth: Some(d),
            ..Strength::default()
        },
        AlphaBetaLimit::TimeMs(ms) => Strength {
            time_ms: Some(ms),
            ..Strength::default()
        },
    }
}

/// What a learned-evaluator bundle plays as at `depth`: the bundle itself
/// (its default limit, or a time the request gives), or its evaluator in
/// the alpha-beta engine at the depth asked for (a [`Limit`] holds no
/// depth), once the bundle has loaded and checked its file.
fn evaluator_bundle_at(
    id: &str,
    dir: &std::path::Path,
    depth: Option<u32>,
) -> Result<BotSpec, ApiError> {
    let Some(d) = depth else {
        return Ok(BotSpec::Bundle(dir.to_path_buf()));
    };
    let bundle = dama_bot::EvaluatorBundle::load(dir)
        .map_err(|e| ApiError::unprocessable(format!("bot `{}`: {e}", id.escape_default())))?;
    bundle
        .alphabeta_spec(Some(AlphaBetaLimit::Depth(d)))
        .map_err(|e| ApiError::bad_request(format!("bot `{}`: {e}", id.escape_default())))
}

fn spec_kind(spec: &BotSpec) -> StrengthKind {
    match spec {
        BotSpec::Bundle(dir) if evaluator_bundle(dir).is_some() => StrengthKind::Depth,
        BotSpec::Bundle(_) | BotSpec::Checkpoint { .. } | BotSpec::Rollout { .. } => {
            StrengthKind::Sims
        }
        BotSpec::AlphaBeta { .. } => StrengthKind::Depth,
        BotSpec::Player(_) => StrengthKind::None,
    }
}

impl Catalogue {
    /// The catalogue over a runs directory, with the command line's bot.
    pub fn new(runs: Arc<Runs>, default: Option<BotSpec>, limits: Limits) -> Catalogue {
        Catalogue {
            runs,
            default,
            limits,
        }
    }

    /// The id game `game` gets when the request names no bot: the
    /// command line's bot, else the strongest (the alpha-beta engine with
    /// the learned evaluator the game ships, `shipped`), else `alphabeta`.
    pub fn default_id(&self, game: GameName) -> &'static str {
        if self.default.is_some() {
            "default"
        } else if adapter::shipped_rules(game).is_some() {
            "shipped"
        } else {
            "alphabeta"
        }
    }

    /// As [`Catalogue::default_id`] for a game of `G` under `rules`: the
    /// shipped evaluator only for the rules it was trained for.
    pub fn default_id_for<G: GameDef>(&self, rules: &G::Rules) -> &'static str {
        let plays = G::shipped_evaluator_rules()
            .is_some_and(|shipped| G::refuse_network_rules(&shipped, rules).is_none());
        if self.default.is_none() && !plays {
            "alphabeta"
        } else {
            self.default_id(GameName::of::<G>().unwrap_or_default())
        }
    }

    /// Every bot of game `game`: the command line's, the game's
    /// baselines, each finished checkpoint of each of its runs (newest
    /// first) and each of its bundles.
    pub fn list(&self, game: GameName) -> Vec<BotEntry> {
        let mut out = Vec::new();
        if let Some(spec) = self
            .default
            .as_ref()
            .filter(|s| other_game(s, game).is_none() && plays_shipped_of(s, game))
        {
            out.push(BotEntry {
                id: "default".into(),
                label: format!("{spec} (command line)"),
                kind: match spec {
                    BotSpec::Checkpoint { .. } => "network",
                    BotSpec::Bundle(_) => "bundle",
                    _ => "baseline",
                },
                strength: spec_kind(spec),
                default: match spec {
                    BotSpec::Bundle(dir) => evaluator_bundle(dir)
                        .map(|m| evaluator_default(&m))
                        .unwrap_or_default(),
                    _ => Strength::default(),
                },
                rules: trained_rules_text(spec, game),
            });
        }
        if let Some(rules) = adapter::shipped_rules(game) {
            out.push(BotEntry {
                id: "shipped".into(),
                label: "alpha-beta with the learned evaluation dama ships (the strongest)".into(),
                kind: "evaluator",
                strength: StrengthKind::Depth,
                default: Strength {
                    depth: Some(DEFAULT_DEPTH),
                    ..Strength::default()
                },
                rules: Some(rules),
            });
        }
        let offered = adapter::baselines(game);
        let baselines = vec![
            baseline(
                "alphabeta",
                "alpha-beta",
                StrengthKind::Depth,
                Strength {
                    depth: Some(DEFAULT_DEPTH),
                    ..Strength::default()
                },
            ),
            baseline(
                "mcts",
                "MCTS with random rollouts",
                StrengthKind::Sims,
                Strength {
                    sims: Some(DEFAULT_MCTS_SIMS),
                    ..Strength::default()
                },
            ),
            baseline(
                "greedy",
                "greedy (material)",
                StrengthKind::None,
                Strength::default(),
            ),
            baseline("random", "random", StrengthKind::None, Strength::default()),
        ];
        out.extend(
            baselines
                .into_iter()
                .filter(|b| offered.contains(&b.id.as_str())),
        );
        for run in self.runs.list() {
            // Every checkpoint of a run is trained under the run's rules.
            let last = run.checkpoints.last().and_then(|&g| {
                Some(BotSpec::Checkpoint {
                    path: self.runs.run(&run.name).ok()?.model(g),
                    limit: Limit::Sims(dama_eval::DEFAULT_CKPT_SIMS),
                    algorithm: dama_eval::DEFAULT_CKPT_SEARCH,
                    inference: dama_eval::Inference::default(),
                })
            });
            if last.as_ref().map(adapter::network_game) != Some(Some(game)) {
                continue;
            }
            let rules = last.as_ref().and_then(|s| trained_rules_text(s, game));
            for generation in run.checkpoints.iter().rev() {
                out.push(BotEntry {
                    id: format!("run:{}/{generation}", run.name),
                    label: format!("{} generation {generation}", run.name),
                    kind: "network",
                    strength: StrengthKind::Sims,
                    default: Strength {
                        sims: Some(dama_eval::DEFAULT_CKPT_SIMS),
                        ..Strength::default()
                    },
                    rules: rules.clone(),
                });
            }
        }
        // Learned-evaluator runs: the alpha-beta engine with the run's best
        // network.
        for run in self.runs.list() {
            if !adapter::has_evaluators(game) {
                break;
            }
            let Ok(dir) = self.runs.run(&run.name) else {
                continue;
            };
            let path = dir.best_evaluator();
            if !path.is_file() {
                continue;
            }
            // Only this game's evaluators (another game's network has
            // another feature set).
            let Some(rules) = dama_bot::evaluator_rules(game, &path.clone().into()) else {
                continue;
            };
            out.push(BotEntry {
                id: format!("nnue:{}", run.name),
                label: format!("alpha-beta with {}'s learned evaluation", run.name),
                kind: "evaluator",
                strength: StrengthKind::Depth,
                default: Strength {
                    depth: Some(DEFAULT_DEPTH),
                    ..Strength::default()
                },
                rules,
            });
        }
        for (name, dir) in self.runs.bundles() {
            if adapter::network_game(&BotSpec::Bundle(dir.clone())) != Some(game) {
                continue;
            }
            // A learned-evaluator bundle is the alpha-beta engine: depth or
            // time, from its own default.
            let (label, strength, default) = match evaluator_bundle(&dir) {
                Some(m) => (
                    format!("bundle {name} (alpha-beta, learned evaluation)"),
                    StrengthKind::Depth,
                    evaluator_default(&m),
                ),
                None => (
                    format!("bundle {name}"),
                    StrengthKind::Sims,
                    Strength::default(),
                ),
            };
            out.push(BotEntry {
                id: format!("bundle:{name}"),
                label,
                kind: "bundle",
                strength,
                default,
                rules: trained_rules_text(&BotSpec::Bundle(dir), game),
            });
        }
        out
    }

    /// The limit a strength asks for, checked against the server's bounds
    /// and against what the bot's strength is measured in.
    fn limit(&self, id: &str, kind: StrengthKind, s: &Strength) -> Result<Option<Limit>, ApiError> {
        let given = [s.sims.is_some(), s.time_ms.is_some(), s.depth.is_some()]
            .iter()
            .filter(|&&b| b)
            .count();
        if given > 1 {
            return Err(ApiError::bad_request(
                "give at most one of sims, time_ms and depth",
            ));
        }
        let l = &self.limits;
        if let Some(n) = s.sims {
            if n == 0 || n > l.max_sims {
                return Err(ApiError::bad_request(format!(
                    "sims must be in 1..={}, got {n}",
                    l.max_sims
                )));
            }
        }
        if let Some(ms) = s.time_ms {
            if ms == 0 || ms > l.max_time_ms {
                return Err(ApiError::bad_request(format!(
                    "time_ms must be in 1..={}, got {ms}",
                    l.max_time_ms
                )));
            }
        }
        if let Some(d) = s.depth {
            if d == 0 || d > l.max_depth {
                return Err(ApiError::bad_request(format!(
                    "depth must be in 1..={}, got {d}",
                    l.max_depth
                )));
            }
        }
        match kind {
            StrengthKind::None if given > 0 => Err(ApiError::bad_request(format!(
                "the bot `{id}` does not search: give it no strength"
            ))),
            StrengthKind::Sims if s.depth.is_some() => Err(ApiError::bad_request(format!(
                "the bot `{id}` takes sims or time_ms, not depth"
            ))),
            StrengthKind::Depth if s.sims.is_some() => Err(ApiError::bad_request(format!(
                "the bot `{id}` takes depth or time_ms, not sims"
            ))),
            _ => Ok(match (s.sims, s.time_ms) {
                (Some(n), _) => Some(Limit::Sims(n)),
                (_, Some(ms)) => Some(Limit::Time(Duration::from_millis(ms))),
                _ => None,
            }),
        }
    }

    /// The bot a request names, at the strength it asks for.
    ///
    /// # Errors
    ///
    /// 400 for an unknown id or a strength out of bounds; 404 for a run,
    /// checkpoint or bundle that is not there.
    pub fn choose(
        &self,
        game: GameName,
        id: &str,
        strength: &Strength,
    ) -> Result<Chosen, ApiError> {
        let with = |spec: BotSpec, limit: Option<Limit>| Chosen {
            id: id.to_owned(),
            game,
            spec,
            limit,
            strength: *strength,
        };
        // The alpha-beta engine at the strength asked for (a depth, else
        // the server's default), with `eval` as its evaluation.
        let alphabeta = |eval: Option<dama_game::EvalSource>| BotSpec::AlphaBeta {
            limit: AlphaBetaLimit::Depth(strength.depth.unwrap_or(DEFAULT_DEPTH)),
            tt_mb: dama_eval::DEFAULT_TT_MB,
            eval,
            threads: 1,
        };
        match id {
            "default" => {
                let Some(spec) = &self.default else {
                    return self.choose(game, "alphabeta", strength);
                };
                refuse_other_games(id, spec, game)?;
                let kind = spec_kind(spec);
                let limit = self.limit(id, kind, strength)?;
                if let BotSpec::Bundle(dir) = spec {
                    if kind == StrengthKind::Depth {
                        return Ok(with(evaluator_bundle_at(id, dir, strength.depth)?, limit));
                    }
                }
                let spec = match (spec, strength.depth) {
                    (
                        BotSpec::AlphaBeta {
                            tt_mb,
                            eval,
                            threads,
                            ..
                        },
                        Some(d),
                    ) => BotSpec::AlphaBeta {
                        limit: AlphaBetaLimit::Depth(d),
                        tt_mb: *tt_mb,
                        eval: eval.clone(),
                        threads: *threads,
                    },
                    _ => spec.clone(),
                };
                Ok(with(spec, limit))
            }
            "shipped" if adapter::shipped_rules(game).is_some() => {
                let limit = self.limit(id, StrengthKind::Depth, strength)?;
                Ok(with(alphabeta(Some(dama_game::EvalSource::Shipped)), limit))
            }
            "alphabeta" | "mcts" | "greedy" | "random"
                if !adapter::baselines(game).contains(&id) =>
            {
                Err(ApiError::bad_request(format!(
                    "{} has no `{id}` bot; its baselines are {}",
                    game.title(),
                    adapter::baselines(game).join(", ")
                )))
            }
            "alphabeta" => {
                let limit = self.limit(id, StrengthKind::Depth, strength)?;
                if let (Some(max), Some(d)) = (
                    adapter::max_depth(game, self.limits.max_depth),
                    strength.depth,
                ) {
                    if d > max {
                        return Err(ApiError::bad_request(format!(
                            "depth must be in 1..={max} for {}, got {d}",
                            game.title()
                        )));
                    }
                }
                Ok(with(alphabeta(None), limit))
            }
            "mcts" => {
                let limit = self.limit(id, StrengthKind::Sims, strength)?;
                let limit = limit.or(Some(Limit::Sims(DEFAULT_MCTS_SIMS)));
                Ok(with(
                    BotSpec::Rollout {
                        sims: DEFAULT_MCTS_SIMS,
                    },
                    limit,
                ))
            }
            "greedy" | "random" => {
                self.limit(id, StrengthKind::None, strength)?;
                let spec = if id == "greedy" {
                    PlayerSpec::Greedy
                } else {
                    PlayerSpec::Random
                };
                Ok(with(BotSpec::Player(spec), None))
            }
            _ => {
                if let Some(name) = id
                    .strip_prefix("nnue:")
                    .filter(|_| adapter::has_evaluators(game))
                {
                    let run = self.runs.run(name)?;
                    let path = run.best_evaluator();
                    if !path.is_file() {
                        return Err(ApiError::not_found(format!(
                            "run `{name}` has no learned evaluator (best.nnue) yet"
                        )));
                    }
                    let path = dama_game::EvalSource::File(path);
                    if dama_bot::evaluator_rules(game, &path).is_none() {
                        return Err(ApiError::not_found(format!(
                            "run `{name}`'s learned evaluator is not one of {}",
                            game.title()
                        )));
                    }
                    let limit = self.limit(id, StrengthKind::Depth, strength)?;
                    return Ok(with(alphabeta(Some(path)), limit));
                }
                if let Some(rest) = id.strip_prefix("run:") {
                    let (name, generation) = rest.rsplit_once('/').ok_or_else(|| {
                        ApiError::bad_request(format!(
                            "bot `{}`: a run's bot is run:NAME/GENERATION",
                            id.escape_default()
                        ))
                    })?;
                    let generation: u32 = generation.parse().map_err(|_| {
                        ApiError::bad_request(format!(
                            "bot `{}`: `{}` is not a generation number",
                            id.escape_default(),
                            generation.escape_default()
                        ))
                    })?;
                    let run = self.runs.run(name)?;
                    if !checkpoints(&run).contains(&generation) {
                        return Err(ApiError::not_found(format!(
                            "run `{name}` has no finished checkpoint of generation {generation}"
                        )));
                    }
                    let limit = self.limit(id, StrengthKind::Sims, strength)?;
                    let limit = limit.or(Some(Limit::Sims(dama_eval::DEFAULT_CKPT_SIMS)));
                    let spec = BotSpec::Checkpoint {
                        path: run.model(generation),
                        limit: Limit::Sims(dama_eval::DEFAULT_CKPT_SIMS),
                        algorithm: dama_eval::DEFAULT_CKPT_SEARCH,
                        inference: dama_eval::Inference::default(),
                    };
                    refuse_other_games(id, &spec, game)?;
                    return Ok(with(spec, limit));
                }
                if let Some(name) = id.strip_prefix("bundle:") {
                    if !name.split('/').all(valid_name) {
                        return Err(ApiError::bad_request(format!(
                            "`{}` is not a bundle name",
                            name.escape_default()
                        )));
                    }
                    let Some((_, dir)) = self.runs.bundles().into_iter().find(|(n, _)| n == name)
                    else {
                        return Err(ApiError::not_found(format!("no bundle `{name}`")));
                    };
                    let spec = BotSpec::Bundle(dir.clone());
                    refuse_other_games(id, &spec, game)?;
                    if evaluator_bundle(&dir).is_some() {
                        let limit = self.limit(id, StrengthKind::Depth, strength)?;
                        return Ok(with(evaluator_bundle_at(id, &dir, strength.depth)?, limit));
                    }
                    let limit = self.limit(id, StrengthKind::Sims, strength)?;
                    return Ok(with(spec, limit));
                }
                Err(ApiError::bad_request(format!(
                    "unknown bot `{}` (GET /api/bots lists them)",
                    id.escape_default()
                )))
            }
        }
    }
}

/// A built bot's work: runs on a worker with the bot the job names.
type Work = Box<dyn FnOnce(&mut AnyBot) + Send>;

struct Job {
    game: GameName,
    spec: BotSpec,
    work: Work,
}

/// The threads that think, fed by one bounded queue.
#[derive(Debug, Clone)]
pub struct BotPool {
    tx: SyncSender<Job>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("game", &self.game)
            .field("spec", &self.spec)
            .finish()
    }
}

impl BotPool {
    /// Starts `workers` threads with a queue of `queue` jobs.
    pub fn start(workers: usize, queue: usize, options: &BotOptions) -> BotPool {
        let (tx, rx) = mpsc::sync_channel::<Job>(queue.max(1));
        let rx = Arc::new(Mutex::new(rx));
        for w in 0..workers.max(1) {
            let rx = rx.clone();
            let options = BotOptions {
                seed: options.seed.wrapping_add(w as u64),
                ..options.clone()
            };
            // A worker that cannot start leaves the others; with none,
            // jobs are answered with an error when the queue drops them.
            let _ = std::thread::Builder::new()
                .name(format!("dama-bot-{w}"))
                .spawn(move || worker(&rx, &options));
        }
        BotPool { tx }
    }

    /// Thinks about `game` (of game `G`) with the bot `spec` within
    /// `limit`. The job is queued now; the future answers when it is done.
    ///
    /// # Errors
    ///
    /// 429 when the queue is full (at once); 500 when the bot cannot be
    /// built or fails.
    pub fn think<G: GameDef>(
        &self,
        spec: BotSpec,
        game: G::Game,
        limit: Option<Limit>,
    ) -> impl std::future::Future<Output = Result<Thought<G::Move>, ApiError>> + Send + 'static
    {
        let (reply, answer) = oneshot::channel::<Result<Thought<G::Move>, String>>();
        let queued = match G::NAME.parse::<GameName>() {
            Err(_) => Err(ApiError::bad_request(format!(
                "no bot plays {} yet",
                G::TITLE
            ))),
            Ok(name) => {
                let work: Work = Box::new(move |bot: &mut AnyBot| {
                    // The requester may have gone away: nothing to do then.
                    let _ = reply.send(adapter::think::<G>(bot, &game, limit));
                });
                match self.tx.try_send(Job {
                    game: name,
                    spec,
                    work,
                }) {
                    Ok(()) => Ok(()),
                    Err(TrySendError::Full(_)) => Err(ApiError::too_many(
                        "the bots are busy with other games: try again in a moment",
                    )),
                    Err(TrySendError::Disconnected(_)) => {
                        Err(ApiError::internal("no bot worker is running"))
                    }
                }
            }
        };
        async move {
            queued?;
            match answer.await {
                Ok(Ok(thought)) => Ok(thought),
                Ok(Err(message)) => Err(ApiError::internal(message)),
                Err(_) => Err(ApiError::internal("the bot failed unexpectedly")),
            }
        }
    }
}

fn worker(rx: &Mutex<Receiver<Job>>, options: &BotOptions) {
    // libtorch's intra-op threads are set per thread: one per worker, so
    // the workers share the cores instead of fighting over them.
    dama_nn::device::set_torch_threads(1);
    let mut bots: HashMap<String, (AnyBot, Instant)> = HashMap::new();
    loop {
        let job = {
            let rx = rx.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            match rx.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        let key = format!("{}:{}", job.game, job.spec);
        let Job { game, spec, work } = job;
        let built = catch_unwind(AssertUnwindSafe(|| {
            if !bots.contains_key(&key) {
                if bots.len() >= BOTS_PER_WORKER {
                    if let Some(oldest) = bots
                        .iter()
                        .min_by_key(|(_, (_, used))| *used)
                        .map(|(k, _)| k.clone())
                    {
                        bots.remove(&oldest);
                    }
                }
                let bot = adapter::build(game, &spec, options)
                    .map_err(|e| format!("cannot build the bot `{spec}`: {e}"))?;
                bots.insert(key.clone(), (bot, Instant::now()));
            }
            Ok::<(), String>(())
        }));
        let Some((bot, used)) = (match built {
            Ok(Ok(())) => bots.get_mut(&key),
            // The job's reply is dropped with it: the requester hears that
            // the bot failed; a build error is answered by the work below
            // never running, so say it through a failing bot instead.
            Ok(Err(message)) => {
                fail(work, message);
                continue;
            }
            Err(_) => {
                fail(work, "the bot failed unexpectedly".to_owned());
                continue;
            }
        }) else {
            continue;
        };
        *used = Instant::now();
        if catch_unwind(AssertUnwindSafe(|| work(bot))).is_err() {
            // A bot that panicked may be in any state: build it again.
            bots.remove(&key);
        }
    }
}

/// Answers a job whose bot cannot be built with `message`.
fn fail(work: Work, message: String) {
    let mut failing = AnyBot::Failed(message);
    let _ = catch_unwind(AssertUnwindSafe(|| work(&mut failing)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--bot alphabeta:…,eval=shipped` is offered in each game that ships
    /// a network (it names no game of its own), and not in one that
    /// ships none, where it could only fail.
    #[test]
    fn a_shipped_default_bot_is_listed_where_a_network_is_shipped() {
        let runs = tempfile::tempdir().expect("a temporary directory");
        let spec: BotSpec = "alphabeta:time=100,eval=shipped"
            .parse()
            .expect("a bot spec");
        let catalogue = Catalogue::new(
            Arc::new(crate::runs::Runs::new(runs.path())),
            Some(spec),
            crate::Limits::default(),
        );
        let listed = |game| catalogue.list(game).iter().any(|b| b.id == "default");
        assert!(listed(GameName::Draughts));
        assert!(listed(GameName::Tafl));
        assert!(!listed(GameName::MiniDama));
    }
}
