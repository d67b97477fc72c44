//! The learning curve of a run: the strength of its checkpoints on one Elo
//! scale, fixed by anchor players, against the time and the self-play
//! positions the run had spent to make them.
//!
//! [`run_curve`] plays every (or every K-th) checkpoint of a run against each
//! anchor (default [`DEFAULT_ANCHORS`]), and the anchors against each other
//! in a chain (`random`–`greedy`, `greedy`–`alphabeta:depth=2`, …) so that
//! the scale does not depend on the checkpoints; one maximum-likelihood fit
//! ([`dama_eval::fit_elo`]) with `random` pinned at 0 rates everyone.
//! Each checkpoint's x values come from the run's `metrics.jsonl`
//! ([`run_axes`]): hours spent in generations (summed over sessions, so a
//! paused and resumed run is not charged for the pause) and self-play
//! positions and games so far. [`Curve::save`] writes `curve.json` and
//! `curve.csv` in the run directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dama_eval::{
    LadderConfig, MatchConfig, MatchProgress, MatchResult, OpeningSource, Pairing, PlayerFactory,
    PlayerSpec, Rating, RatingTable, SearchBudget,
};
use dama_mcts::Algorithm;
use dama_run::{GenerationEvent, MetricsEvent, RunDir};
use serde::{Deserialize, Serialize};

use crate::metrics;
use crate::Error;

/// The anchors of the default curve, weakest first: a scale from random play
/// to the alpha-beta engine at 100 ms per move.
pub const DEFAULT_ANCHORS: [&str; 5] = [
    "random",
    "greedy",
    "alphabeta:depth=2",
    "alphabeta:depth=4",
    "alphabeta:time=100",
];

/// Where a generation's checkpoint stands in its run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Axes {
    /// Seconds spent in generations up to and including this one (all
    /// stages, summed over sessions).
    pub seconds: f64,
    /// Self-play positions (training samples) recorded so far.
    pub positions: u64,
    /// Self-play games played so far.
    pub games: u64,
}

/// Each generation's [`Axes`] from the events of a metrics file
/// (generation 0, the initial network, is at zero).
///
/// The `"generation"` events carry `run_seconds`, `run_positions` and
/// `run_games`; for runs written before those keys existed, the totals are
/// summed from the generations' `seconds` and the `"selfplay"` events.
pub fn run_axes(events: &[MetricsEvent]) -> BTreeMap<u32, Axes> {
    let mut selfplay: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    let mut generations: BTreeMap<u32, &GenerationEvent> = BTreeMap::new();
    for event in events {
        match event {
            MetricsEvent::Selfplay(sp) => {
                selfplay.insert(sp.generation, (sp.samples, sp.games));
            }
            MetricsEvent::Generation(g) => {
                generations.insert(g.generation, g);
            }
            _ => {}
        }
    }
    let mut out = BTreeMap::from([(0, Axes::default())]);
    let mut acc = Axes::default();
    for (&g, e) in &generations {
        let (samples, games) = selfplay.get(&g).copied().unwrap_or((0, 0));
        if e.seconds.is_finite() {
            acc.seconds += e.seconds;
        }
        acc.positions += samples;
        acc.games += games;
        let axes = Axes {
            seconds: e
                .run_seconds
                .filter(|s| s.is_finite())
                .unwrap_or(acc.seconds),
            positions: e.run_positions.unwrap_or(acc.positions),
            games: e.run_games.unwrap_or(acc.games),
        };
        out.insert(g, axes);
    }
    out
}

/// The generation of a checkpoint file named `gen-NNNN.safetensors`
/// ([`dama_run::generation_of`]).
pub fn checkpoint_generation(path: &Path) -> Option<u32> {
    dama_run::generation_of(path)
}

/// What a curve plays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurveConfig {
    /// Anchor player specs, weakest first (the first must be `random`,
    /// pinned at Elo 0).
    pub anchors: Vec<String>,
    /// The checkpoints' search budget: simulations per decision or time per
    /// move.
    pub budget: SearchBudget,
    /// The checkpoints' root search.
    pub search: Algorithm,
    /// Games per pairing (each opening with both colours).
    pub games: u32,
    /// Rate every K-th checkpoint (the last one always).
    pub every: usize,
    /// Seed of the openings.
    pub seed: u64,
    /// Where the matches' openings come from (default: random 4-ply
    /// starts; curves written before this field read as that).
    #[serde(default)]
    pub openings: OpeningSource,
    /// Device of the network players.
    pub device: dama_run::DeviceSpec,
    /// Arena threads (default: rayon's pool).
    pub threads: Option<usize>,
}

impl Default for CurveConfig {
    fn default() -> Self {
        CurveConfig {
            anchors: DEFAULT_ANCHORS.iter().map(|s| (*s).to_owned()).collect(),
            budget: SearchBudget::Sims(32),
            search: dama_eval::DEFAULT_CKPT_SEARCH,
            games: 20,
            every: 1,
            seed: 1,
            openings: OpeningSource::default(),
            device: dama_run::DeviceSpec::Auto,
            threads: None,
        }
    }
}

/// One checkpoint on the curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The generation (0: the initial network).
    pub generation: u32,
    /// The checkpoint file.
    pub checkpoint: PathBuf,
    /// Hours spent in the run up to this checkpoint.
    pub hours: f64,
    /// Self-play positions recorded up to this checkpoint.
    pub positions: u64,
    /// Self-play games played up to this checkpoint.
    pub selfplay_games: u64,
    /// Elo on the anchors' scale (random = 0).
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub lo95: f64,
    /// Upper end of the 95% interval.
    pub hi95: f64,
    /// Curve games this checkpoint played.
    pub games: u32,
    /// Points it scored in them.
    pub points: f64,
}

/// A run's learning curve (what `curve.json` holds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// The run directory.
    pub run: PathBuf,
    /// How the checkpoints played: the spec options after the path
    /// (`sims=32`, `time=100,search=puct`).
    pub checkpoint_settings: String,
    /// The settings of the curve.
    pub config: CurveConfig,
    /// The anchors' ratings on the fitted scale.
    pub anchors: Vec<Rating>,
    /// The checkpoints, by generation.
    pub points: Vec<CurvePoint>,
    /// The whole fit, with every pairwise result.
    pub table: RatingTable,
}

fn eval_err(e: dama_eval::Error) -> Error {
    Error::Eval(e)
}

/// The options of a checkpoint spec for `budget` and `search`, as written
/// after `ckpt:PATH,` (canonical: what the spec prints).
fn checkpoint_settings(budget: SearchBudget, search: Algorithm) -> String {
    let spec = PlayerSpec::Checkpoint {
        path: PathBuf::from("X"),
        budget,
        search,
        draw_score: 0.0,
        inference: Default::default(),
    }
    .to_string();
    let rest = spec.strip_prefix("ckpt:X").unwrap_or("");
    let rest = rest.strip_prefix(',').unwrap_or(rest);
    if rest.is_empty() {
        // The defaults print nothing: say them.
        format!("sims={}", dama_eval::DEFAULT_CKPT_SIMS)
    } else {
        rest.to_owned()
    }
}

/// Plays the curve's matches for the run in `run_dir` and fits the scale.
///
/// `on_match` is called after each match (index, count, result) and
/// `on_progress` during it, as in [`dama_eval::run_ladder`].
///
/// # Errors
/// No checkpoints or metrics in `run_dir`, a bad anchor spec, anchors that do
/// not start with `random`, and the errors of the matches and of the fit.
pub fn run_curve(
    run_dir: &Path,
    config: &CurveConfig,
    on_progress: &(dyn Fn(&MatchProgress) + Sync),
    on_match: &mut dyn FnMut(usize, usize, &MatchResult),
) -> Result<Curve, Error> {
    if config.anchors.first().map(String::as_str) != Some("random") {
        return Err(Error::Config(
            "the curve's anchors must start with `random` (pinned at Elo 0)".to_owned(),
        ));
    }
    let axes = run_axes(&metrics::read_metrics(&RunDir::new(run_dir).metrics())?);
    if let Some((run, nets)) = learned_evaluators(run_dir, &axes)? {
        struct ForGame<'a> {
            run: &'a crate::nnue::NnueConfig,
            run_dir: &'a Path,
            config: &'a CurveConfig,
            nets: Vec<(u32, PathBuf)>,
            axes: &'a BTreeMap<u32, Axes>,
            on_progress: &'a (dyn Fn(&MatchProgress) + Sync),
            on_match: &'a mut dyn FnMut(usize, usize, &MatchResult),
        }
        impl dama_registry::WithLearnedGame for ForGame<'_> {
            type Output = Result<Curve, Error>;
            fn run<G: dama_nnue::LearnedGame>(self) -> Self::Output {
                nnue_curve::<G>(
                    self.run.rules_of::<G>()?,
                    self.run_dir,
                    self.config,
                    self.nets,
                    self.axes,
                    self.on_progress,
                    self.on_match,
                )
            }
        }
        return run.with_game(ForGame {
            run: &run,
            run_dir,
            config,
            nets,
            axes: &axes,
            on_progress,
            on_match,
        });
    }
    let mut ckpts: Vec<(u32, PathBuf)> = dama_eval::run_checkpoints(run_dir)
        .map_err(eval_err)?
        .into_iter()
        .filter_map(|p| Some((checkpoint_generation(&p)?, p)))
        .filter(|(g, _)| axes.contains_key(g))
        .collect();
    let Some(last) = ckpts.last().cloned() else {
        return Err(Error::Config(format!(
            "{} has no gen-NNNN.safetensors checkpoint of a finished generation",
            run_dir.display()
        )));
    };
    ckpts = every_kth(ckpts, config.every, last);

    // The run's game: the rules its checkpoints were trained under.
    let last_ckpt = std::slice::from_ref(&ckpts[ckpts.len() - 1].1);
    let trained = dama_eval::checkpoint_game(last_ckpt).map_err(eval_err)?;
    let game = trained.map(|r| r.name()).unwrap_or_default();
    game.with(CheckpointCurve {
        run_dir,
        config,
        ckpts: &ckpts,
        axes: &axes,
        trained,
        on_progress,
        on_match,
    })
}

/// [`run_curve`] for a run of networks with search, in the run's game.
struct CheckpointCurve<'a, 'm> {
    run_dir: &'a Path,
    config: &'a CurveConfig,
    ckpts: &'a [(u32, PathBuf)],
    axes: &'a BTreeMap<u32, Axes>,
    trained: Option<dama_nn::GameRules>,
    on_progress: &'a (dyn Fn(&MatchProgress) + Sync),
    on_match: &'m mut dyn FnMut(usize, usize, &MatchResult),
}

impl dama_nn::WithGame for CheckpointCurve<'_, '_> {
    type Output = Result<Curve, Error>;

    fn run<G: dama_game::GameDef>(self) -> Result<Curve, Error> {
        let CheckpointCurve {
            run_dir,
            config,
            ckpts,
            axes,
            trained,
            on_progress,
            on_match,
        } = self;
        let rules = trained.and_then(|r| r.get::<G>()).unwrap_or_default();
        // The default anchors a game has (draughts' timed alpha-beta has no
        // counterpart in every game).
        let anchors: Vec<String> = if config.anchors == CurveConfig::default().anchors {
            config
                .anchors
                .iter()
                .filter(|a| {
                    a.parse::<PlayerSpec>()
                        .is_ok_and(|s| dama_eval::games::check_spec::<G>(&s).is_ok())
                })
                .cloned()
                .collect()
        } else {
            config.anchors.clone()
        };
        let config = &CurveConfig {
            anchors,
            ..config.clone()
        };
        let options = dama_eval::BuildOptions {
            device: Some(config.device),
            rules: trained,
            ..dama_eval::BuildOptions::default()
        };
        let mut players = anchor_players::<G>(&config.anchors, &options)?;
        let na = players.len();
        for (g, path) in ckpts {
            let spec = PlayerSpec::Checkpoint {
                path: path.clone(),
                budget: config.budget,
                search: config.search,
                draw_score: 0.0,
                inference: Default::default(),
            };
            let f = dama_eval::factory::<G>(&spec, &options).map_err(eval_err)?;
            players.push(dama_eval::named(f, format!("gen-{g:04}")));
        }
        let table = anchored_ladder(&players, na, config, rules, on_progress, on_match)?;
        Ok(curve_of(run_dir, config, ckpts, axes, table))
    }
}

/// The anchors' players, in order.
fn anchor_players<G: dama_game::GameDef>(
    anchors: &[String],
    options: &dama_eval::BuildOptions,
) -> Result<Vec<Arc<dyn PlayerFactory<G>>>, Error> {
    anchors
        .iter()
        .map(|a| {
            dama_eval::parse_player(a, options)
                .map_err(|e| Error::Config(format!("anchor `{a}`: {e}")))
        })
        .collect()
}

/// Every `every`-th of `items`, and `last` at the end.
fn every_kth<T: PartialEq>(items: Vec<T>, every: usize, last: T) -> Vec<T> {
    let every = every.max(1);
    let mut out: Vec<T> = items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % every == 0)
        .map(|(_, c)| c)
        .collect();
    if out.last() != Some(&last) {
        out.push(last);
    }
    out
}

/// The curve's matches: the first `na` players (the anchors) in a chain,
/// each of the others against every anchor, fitted on one scale.
fn anchored_ladder<G: dama_game::GameDef>(
    players: &[Arc<dyn PlayerFactory<G>>],
    na: usize,
    config: &CurveConfig,
    rules: G::Rules,
    on_progress: &(dyn Fn(&MatchProgress) + Sync),
    on_match: &mut dyn FnMut(usize, usize, &MatchResult),
) -> Result<RatingTable, Error> {
    let mut pairs: Vec<(usize, usize)> = (1..na).map(|i| (i - 1, i)).collect();
    for c in na..players.len() {
        pairs.extend((0..na).map(|a| (c, a)));
    }
    let ladder = LadderConfig {
        matches: MatchConfig {
            games: config.games,
            seed: config.seed,
            openings: config.openings.clone(),
            threads: config.threads,
            rules,
            ..MatchConfig::default()
        },
        pairing: Pairing::Pairs(pairs),
        ..LadderConfig::default()
    };
    let result =
        dama_eval::run_ladder(players, &ladder, on_progress, on_match).map_err(eval_err)?;
    Ok(result.table)
}

/// A learned-evaluator run's config and its networks by generation.
type LearnedRun = (crate::nnue::NnueConfig, Vec<(u32, PathBuf)>);

/// The config and the networks of finished generations of a
/// learned-evaluator run (`[run] kind = "nnue"`), or `None` for another
/// kind of run.
fn learned_evaluators(
    run_dir: &Path,
    axes: &BTreeMap<u32, Axes>,
) -> Result<Option<LearnedRun>, Error> {
    let dir = RunDir::new(run_dir);
    let text =
        match dama_run::files::read_bounded_string(&dir.config(), dama_run::files::MAX_TEXT_FILE) {
            Ok(t) => t,
            Err(_) => return Ok(None),
        };
    if crate::RunKind::of_text(&text)? != crate::RunKind::Nnue {
        return Ok(None);
    }
    let run: crate::nnue::NnueConfig = toml::from_str(&text)
        .map_err(|e| Error::Config(format!("{}: {e}", dir.config().display())))?;
    let nets: Vec<(u32, PathBuf)> = axes
        .keys()
        .map(|&g| (g, dir.evaluator(g)))
        .filter(|(_, p)| p.exists())
        .collect();
    if nets.is_empty() {
        return Err(Error::Config(format!(
            "{} has no network of a finished generation",
            run_dir.display()
        )));
    }
    Ok(Some((run, nets)))
}

/// [`run_curve`] for a learned-evaluator run: each generation's network in
/// the alpha-beta engine (`alphabeta:time=MS,eval=PATH`, at the curve's time
/// per move, or 100 ms when it gives simulations) against the anchors.
fn nnue_curve<G: dama_nnue::LearnedGame>(
    rules: G::Rules,
    run_dir: &Path,
    config: &CurveConfig,
    nets: Vec<(u32, PathBuf)>,
    axes: &BTreeMap<u32, Axes>,
    on_progress: &(dyn Fn(&MatchProgress) + Sync),
    on_match: &mut dyn FnMut(usize, usize, &MatchResult),
) -> Result<Curve, Error> {
    let last = nets[nets.len() - 1].clone();
    let nets = every_kth(nets, config.every, last);
    let ms = match config.budget {
        SearchBudget::Time(d) => d.as_millis().max(1) as u64,
        SearchBudget::Sims(_) => 100,
    };
    let options = dama_eval::BuildOptions {
        rules: dama_nn::GameRules::new::<G>(rules),
        ..dama_eval::BuildOptions::default()
    };
    let mut players = anchor_players::<G>(&config.anchors, &options)?;
    let na = players.len();
    for (g, path) in &nets {
        let spec = format!("alphabeta:time={ms},eval={}", path.display());
        let f = dama_eval::parse_player(&spec, &options).map_err(eval_err)?;
        players.push(dama_eval::named(f, format!("gen-{g:04}")));
    }
    let table = anchored_ladder(&players, na, config, rules, on_progress, on_match)?;
    let mut curve = curve_of(run_dir, config, &nets, axes, table);
    curve.checkpoint_settings = format!("alphabeta:time={ms},eval=…");
    Ok(curve)
}

/// The curve from the fitted table: the anchors' ratings and each
/// checkpoint's, placed on the run's axes.
fn curve_of(
    run_dir: &Path,
    config: &CurveConfig,
    ckpts: &[(u32, PathBuf)],
    axes: &BTreeMap<u32, Axes>,
    table: dama_eval::RatingTable,
) -> Curve {
    let rating = |name: &str| table.ratings.iter().find(|r| r.name == name).cloned();
    let anchors = config.anchors.iter().filter_map(|a| rating(a)).collect();
    let points = ckpts
        .iter()
        .filter_map(|(g, path)| {
            let r = rating(&format!("gen-{g:04}"))?;
            let ax = axes.get(g).copied().unwrap_or_default();
            Some(CurvePoint {
                generation: *g,
                checkpoint: path.clone(),
                hours: ax.seconds / 3600.0,
                positions: ax.positions,
                selfplay_games: ax.games,
                elo: r.elo,
                lo95: r.lo,
                hi95: r.hi,
                games: r.games,
                points: r.points,
            })
        })
        .collect();
    Curve {
        run: run_dir.to_path_buf(),
        checkpoint_settings: checkpoint_settings(config.budget, config.search),
        config: config.clone(),
        anchors,
        points,
        table,
    }
}

impl Curve {
    /// The curve as CSV: one line per checkpoint, then one per anchor (with
    /// an empty generation), the checkpoints' settings in a column.
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "generation,name,hours,positions,selfplay_games,elo,lo95,hi95,games,points,settings\n",
        );
        for p in &self.points {
            s.push_str(&format!(
                "{},gen-{:04},{:.6},{},{},{:.2},{:.2},{:.2},{},{},{}\n",
                p.generation,
                p.generation,
                p.hours,
                p.positions,
                p.selfplay_games,
                p.elo,
                p.lo95,
                p.hi95,
                p.games,
                p.points,
                self.checkpoint_settings
            ));
        }
        for a in &self.anchors {
            s.push_str(&format!(
                ",{},,,,{:.2},{:.2},{:.2},{},{},anchor\n",
                a.name, a.elo, a.lo, a.hi, a.games, a.points
            ));
        }
        s
    }

    /// Writes `curve.json` and `curve.csv` into the run directory `dir`
    /// (atomically).
    ///
    /// # Errors
    /// I/O and serialisation errors.
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        let run = RunDir::new(dir);
        let json = serde_json::to_string_pretty(self).map_err(|e| Error::Corrupt(e.to_string()))?;
        crate::record::write_atomic(&run.curve_json(), json.as_bytes())?;
        crate::record::write_atomic(&run.curve_csv(), self.to_csv().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn axes_come_from_generation_lines_or_are_summed() {
        let lines = vec![
            json!({"kind": "session", "generation": 0}),
            json!({"kind": "selfplay", "generation": 1, "samples": 100, "games": 4}),
            json!({"kind": "generation", "generation": 1, "seconds": 60.0}),
            json!({"kind": "selfplay", "generation": 2, "samples": 50, "games": 2}),
            json!({"kind": "generation", "generation": 2, "seconds": 30.0}),
            json!({"kind": "selfplay", "generation": 3, "samples": 10, "games": 1}),
            json!({"kind": "generation", "generation": 3, "seconds": 5.0,
                   "run_seconds": 100.0, "run_positions": 170, "run_games": 8}),
        ];
        let events: Vec<MetricsEvent> = lines
            .into_iter()
            .map(|l| serde_json::from_value(l).unwrap())
            .collect();
        let axes = run_axes(&events);
        assert_eq!(axes[&0], Axes::default());
        assert_eq!(
            axes[&2],
            Axes {
                seconds: 90.0,
                positions: 150,
                games: 6
            }
        );
        assert_eq!(
            axes[&3],
            Axes {
                seconds: 100.0,
                positions: 170,
                games: 8
            }
        );
    }

    #[test]
    fn generations_from_file_names() {
        assert_eq!(
            checkpoint_generation(Path::new("m/gen-0012.safetensors")),
            Some(12)
        );
        assert_eq!(checkpoint_generation(Path::new("m/best.safetensors")), None);
    }

    #[test]
    fn settings_are_spelled_out() {
        assert_eq!(
            checkpoint_settings(SearchBudget::Sims(32), Algorithm::Puct),
            "sims=32"
        );
        assert_eq!(
            checkpoint_settings(SearchBudget::Sims(200), Algorithm::Puct),
            "sims=200"
        );
        assert_eq!(
            checkpoint_settings(
                SearchBudget::Time(std::time::Duration::from_millis(100)),
                Algorithm::Gumbel
            ),
            "time=100,search=gumbel"
        );
    }
}
