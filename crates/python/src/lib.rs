//! dama from Python (`import dama`): every game of the registry, written
//! once against the game seam ([`GameDef`]) and reached through
//! [`GameName::with`], so a registered game is in the module with no
//! Python and no Rust written for it here.
//!
//! * [`PyGame`] (`dama.Game`): a game of any registered kind under its
//!   rules, from the start or a position: legal moves and playing them in
//!   the game's notation, the position's text, the end of the game and
//!   why, perft, the network's input planes as a NumPy array (the tensor
//!   Rust feeds the network), each legal action's policy index and the
//!   encoding's version: what running a bundle's network from Python
//!   needs (`scripts/bundle_example.py`).
//! * [`PyPlayer`] (`dama.Player`): the arena's players from a spec
//!   (`random`, `greedy`, `alphabeta:depth=N|time=MS[,eval=shipped|PATH]`,
//!   `mcts:sims=N`, `engine:PATH`).
//! * `dama.play_match`: the arena, its result (wins, draws, losses per
//!   side, Elo with its interval) as a dict.
//! * `dama.read_run`: a run directory's metrics, state and config, read by
//!   the Rust types that write them (`dama_run`).
//!
//! The module links no libtorch (`dama-eval` without its `network`
//! feature): checkpoint players are the `dama` binary's. Every error is a
//! `ValueError` with the engine's message; long work releases the GIL.

use std::any::Any;
use std::sync::{Arc, Mutex};

use dama_eval::{BuildOptions, MatchConfig, PlayerFactory};
use dama_game::player::Player;
use dama_game::{GameDef, NnInput};
use dama_mcts::{Outcome, Player as Side};
use dama_registry::{GameName, GameRules, WithGame};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The largest perft depth accepted (a depth beyond it would run for days).
const MAX_PERFT_DEPTH: u32 = 12;
/// The most games one `play_match` plays.
const MAX_MATCH_GAMES: u32 = 100_000;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Game `G`'s rules from their text, its default rules without one.
fn rules_of<G: GameDef>(text: Option<&str>) -> Result<G::Rules, String> {
    match text {
        Some(t) => G::parse_rules(t).map_err(|e| format!("rules `{t}`: {e}")),
        None => Ok(G::Rules::default()),
    }
}

/// A JSON text as Python objects (`json.loads`).
fn from_json(py: Python<'_>, json: &str) -> PyResult<Py<PyAny>> {
    let loads = py.import("json")?.getattr("loads")?;
    Ok(loads.call1((json,))?.unbind())
}

fn game_name(name: &str) -> PyResult<GameName> {
    name.parse::<GameName>().map_err(value_error)
}

/// A game of any kind, behind one object-safe trait.
trait DynGame: Send + Sync {
    fn name(&self) -> GameName;
    fn title(&self) -> &'static str;
    fn rules_text(&self) -> String;
    fn legal_moves(&self) -> Vec<String>;
    fn play(&mut self, text: &str) -> Result<(), String>;
    fn position(&self) -> String;
    fn moves(&self) -> Vec<String>;
    fn to_play(&self) -> Side;
    fn plies(&self) -> usize;
    fn outcome(&self) -> Option<Outcome>;
    fn ending(&self) -> Option<(String, String)>;
    fn perft(&self, depth: u32) -> u64;
    fn planes(&self) -> (Vec<f32>, [usize; 3]);
    fn actions(&self) -> (Vec<(String, usize)>, usize);
    fn encoding_version(&self) -> u32;
    fn board_text(&self) -> String;
    fn boxed_clone(&self) -> Box<dyn DynGame>;
    fn as_any(&self) -> &dyn Any;
}

/// Game `G`'s game.
struct Typed<G: GameDef>(G::Game);

impl<G: GameDef> DynGame for Typed<G> {
    fn name(&self) -> GameName {
        GameName::of::<G>().expect("a registered game")
    }
    fn title(&self) -> &'static str {
        G::TITLE
    }
    fn rules_text(&self) -> String {
        G::rules(&self.0).to_string()
    }
    fn legal_moves(&self) -> Vec<String> {
        G::legal_moves(&self.0)
            .iter()
            .map(ToString::to_string)
            .collect()
    }
    fn play(&mut self, text: &str) -> Result<(), String> {
        if let Some(end) = G::end_text(&self.0) {
            return Err(format!("the game is over: {end}"));
        }
        let m = G::parse_move(&self.0, text).map_err(|e| e.to_string())?;
        G::play(&mut self.0, &m).map_err(|e| e.to_string())
    }
    fn position(&self) -> String {
        G::position_text(&self.0)
    }
    fn moves(&self) -> Vec<String> {
        G::history(&self.0)
            .iter()
            .map(ToString::to_string)
            .collect()
    }
    fn to_play(&self) -> Side {
        G::to_play(&self.0)
    }
    fn plies(&self) -> usize {
        G::plies(&self.0)
    }
    fn outcome(&self) -> Option<Outcome> {
        G::outcome(&self.0)
    }
    fn ending(&self) -> Option<(String, String)> {
        G::ending(&self.0).map(|e| (format!("{:?}", e.reason), e.text))
    }
    fn perft(&self, depth: u32) -> u64 {
        G::perft(&self.0, depth)
    }
    fn planes(&self) -> (Vec<f32>, [usize; 3]) {
        let shape = G::shape();
        let mut out = vec![0.0; shape.planes_len()];
        G::search_state(&self.0).encode_planes(&mut out);
        (out, [shape.planes, shape.height, shape.width])
    }
    fn actions(&self) -> (Vec<(String, usize)>, usize) {
        let state = G::search_state(&self.0);
        let mut actions = Vec::new();
        dama_mcts::Game::legal_actions(&state, &mut actions);
        let listed = actions
            .into_iter()
            .map(|a| (a.to_string(), state.policy_index(a)))
            .collect();
        (listed, G::shape().policy_size())
    }
    fn encoding_version(&self) -> u32 {
        G::ENCODING_VERSION
    }
    fn board_text(&self) -> String {
        G::board_text(&self.0, Side::First)
    }
    fn boxed_clone(&self) -> Box<dyn DynGame> {
        Box::new(Typed::<G>(self.0.clone()))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Builds a game of the kind a name stands for.
struct NewGame<'a> {
    rules: Option<&'a str>,
    position: Option<&'a str>,
}

impl WithGame for NewGame<'_> {
    type Output = Result<Box<dyn DynGame>, String>;

    fn run<G: GameDef>(self) -> Self::Output {
        let rules = rules_of::<G>(self.rules)?;
        let game = match self.position {
            Some(p) => G::parse_position(&rules, p).map_err(|e| format!("position `{p}`: {e}"))?,
            None => G::start(&rules),
        };
        Ok(Box::new(Typed::<G>(game)))
    }
}

/// A game of any registered kind: `dama.Game(game="draughts", rules=None,
/// position=None)`. `rules` is the game's rules text (`variant=croda`,
/// `no_capture_limit=off`; Tafl's `ply_limit=300`), `position` its
/// position text (`startpos`, `W:Wa3,b3:Bc6`).
#[pyclass(name = "Game", module = "dama")]
struct PyGame {
    inner: Box<dyn DynGame>,
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (game = "draughts", rules = None, position = None))]
    fn new(game: &str, rules: Option<&str>, position: Option<&str>) -> PyResult<PyGame> {
        let inner = game_name(game)?
            .with(NewGame { rules, position })
            .map_err(value_error)?;
        Ok(PyGame { inner })
    }

    /// The game's registry name (`draughts`, `tafl`, `minidama`).
    #[getter]
    fn game(&self) -> String {
        self.inner.name().to_string()
    }

    /// The game's title (`Turkish draughts`).
    #[getter]
    fn title(&self) -> &'static str {
        self.inner.title()
    }

    /// The rules in force, as rules text.
    #[getter]
    fn rules(&self) -> String {
        self.inner.rules_text()
    }

    /// The legal moves in the game's notation.
    fn legal_moves(&self) -> Vec<String> {
        self.inner.legal_moves()
    }

    /// Plays a move given in the game's notation (a `ValueError` names an
    /// illegal or malformed one, or a finished game).
    fn play(&mut self, text: &str) -> PyResult<()> {
        self.inner.play(text).map_err(value_error)
    }

    /// The position's text (what `position=` reads back).
    #[getter]
    fn position(&self) -> String {
        self.inner.position()
    }

    /// The moves played since the start.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.inner.moves()
    }

    /// 0 when the first side (White, the Defenders) is to move, else 1.
    #[getter]
    fn turn(&self) -> u8 {
        match self.inner.to_play() {
            Side::First => 0,
            Side::Second => 1,
        }
    }

    /// Plies played.
    #[getter]
    fn plies(&self) -> usize {
        self.inner.plies()
    }

    /// Whether the game is over.
    fn is_over(&self) -> bool {
        self.inner.outcome().is_some()
    }

    /// The result when over: 0 (the first side won), 1 (the second side
    /// won) or `None` for a draw; also `None` while the game goes on (see
    /// `is_over`).
    fn winner(&self) -> Option<u8> {
        match self.inner.outcome()? {
            Outcome::Win(Side::First) => Some(0),
            Outcome::Win(Side::Second) => Some(1),
            Outcome::Draw => None,
        }
    }

    /// Why the game ended, `(reason, text)`: the reason shared by every
    /// game (`NoMoves`, `Repetition`, `NoCaptureLimit`, `Other`, ...) and
    /// the game's own words; `None` while it goes on.
    fn ending(&self) -> Option<(String, String)> {
        self.inner.ending()
    }

    /// Leaf nodes of the move tree `depth` whole moves deep (at most 12).
    fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
        if depth > MAX_PERFT_DEPTH {
            return Err(value_error(format!(
                "depth {depth} is too deep for perft (at most {MAX_PERFT_DEPTH})"
            )));
        }
        let game = &self.inner;
        Ok(py.detach(|| game.perft(depth)))
    }

    /// The network's input planes of the position, float32 `[C, H, W]`:
    /// the tensor the Rust trainer and bundles feed the network.
    fn encode<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray3<f32>>> {
        let (planes, [c, h, w]) = self.inner.planes();
        PyArray1::from_vec(py, planes).reshape([c, h, w])
    }

    /// The first decision of the move to play, as the network's policy
    /// sees it: `[(action, index)]`, each legal action (a quiet move or a
    /// capture's first jump, in the game's notation) with its index in the
    /// policy output (see `policy_size`). A bundle's `model.ts` scores a
    /// position's `encode()` planes; these indices read its policy.
    fn actions(&self) -> Vec<(String, usize)> {
        self.inner.actions().0
    }

    /// The length of the network's policy output for this game.
    #[getter]
    fn policy_size(&self) -> usize {
        self.inner.actions().1
    }

    /// The version of the game's network encoding (`encode()` and the
    /// policy indices of `actions()`): a bundle's `bundle.json` records the
    /// version its network reads.
    #[getter]
    fn encoding_version(&self) -> u32 {
        self.inner.encoding_version()
    }

    /// The board as text, the first side at the bottom.
    fn board(&self) -> String {
        self.inner.board_text()
    }

    /// An independent copy.
    fn copy(&self) -> PyGame {
        PyGame {
            inner: self.inner.boxed_clone(),
        }
    }

    fn __copy__(&self) -> PyGame {
        self.copy()
    }

    fn __repr__(&self) -> String {
        format!(
            "dama.Game({:?}, rules={:?}, position={:?})",
            self.inner.name().to_string(),
            self.inner.rules_text(),
            self.inner.position()
        )
    }
}

/// What a player found ([`Player::think`]), in text.
struct Thought {
    best: String,
    pv: Vec<String>,
    score: Option<(i32, u32)>,
    nodes: u64,
    seconds: f64,
}

/// A player of any kind, behind one object-safe trait.
trait DynPlayer: Send {
    fn think(&mut self, game: &dyn DynGame) -> Result<Thought, String>;
}

/// Game `G`'s player and its random generator.
struct TypedPlayer<G: GameDef> {
    player: Box<dyn Player<G>>,
    rng: ChaCha8Rng,
}

impl<G: GameDef> DynPlayer for TypedPlayer<G> {
    fn think(&mut self, game: &dyn DynGame) -> Result<Thought, String> {
        let game = game
            .as_any()
            .downcast_ref::<Typed<G>>()
            .ok_or_else(|| format!("this player plays {}, not {}", G::TITLE, game.title()))?;
        if let Some(end) = G::end_text(&game.0) {
            return Err(format!("the game is over: {end}"));
        }
        let start = std::time::Instant::now();
        let choice = self
            .player
            .think(&game.0, None, &mut self.rng)
            .map_err(|e| e.to_string())?;
        Ok(Thought {
            best: choice.best.to_string(),
            pv: choice.pv.iter().map(ToString::to_string).collect(),
            score: choice.score,
            nodes: choice.nodes,
            seconds: start.elapsed().as_secs_f64(),
        })
    }
}

/// Builds a player of the kind a name stands for.
struct NewPlayer<'a> {
    spec: &'a str,
    seed: u64,
}

impl WithGame for NewPlayer<'_> {
    type Output = Result<Box<dyn DynPlayer>, String>;

    fn run<G: GameDef>(self) -> Self::Output {
        let factory = dama_eval::parse_player::<G>(self.spec, &BuildOptions::default())
            .map_err(|e| format!("player `{}`: {e}", self.spec))?;
        let player = factory
            .build()
            .map_err(|e| format!("player `{}`: {e}", self.spec))?;
        Ok(Box::new(TypedPlayer::<G> {
            player,
            rng: ChaCha8Rng::seed_from_u64(self.seed),
        }))
    }
}

/// A player from a spec: `dama.Player(spec, game="draughts", seed=0)`.
/// Specs: `random`, `greedy`, `alphabeta:depth=N` or `alphabeta:time=MS`
/// (with `,eval=shipped` or `,eval=PATH` a learned evaluation, `,threads=N`),
/// `mcts:sims=N`, `engine:PATH[,time=MS]`.
#[pyclass(name = "Player", module = "dama")]
struct PyPlayer {
    game: GameName,
    spec: String,
    inner: Mutex<Box<dyn DynPlayer>>,
}

impl PyPlayer {
    fn thought(&self, py: Python<'_>, game: &PyGame) -> PyResult<Thought> {
        let inner = &self.inner;
        let g = &game.inner;
        py.detach(|| {
            let mut player = inner
                .lock()
                .map_err(|_| "the player failed in an earlier call".to_string())?;
            player.think(g.as_ref())
        })
        .map_err(value_error)
    }
}

#[pymethods]
impl PyPlayer {
    #[new]
    #[pyo3(signature = (spec, game = "draughts", seed = 0))]
    fn new(spec: &str, game: &str, seed: u64) -> PyResult<PyPlayer> {
        let name = game_name(game)?;
        let inner = name.with(NewPlayer { spec, seed }).map_err(value_error)?;
        Ok(PyPlayer {
            game: name,
            spec: spec.to_string(),
            inner: Mutex::new(inner),
        })
    }

    /// The move the player chooses in `game`, in the game's notation.
    fn choose(&self, py: Python<'_>, game: &PyGame) -> PyResult<String> {
        Ok(self.thought(py, game)?.best)
    }

    /// The move and what the player found: a dict of `move`, `pv` (the
    /// expected line, the move first; empty if not known), `score_cm`
    /// (centi-men for the side to move) and `depth` (whole moves) of a
    /// search, or `None`, `nodes` searched and `seconds` taken.
    fn think<'py>(&self, py: Python<'py>, game: &PyGame) -> PyResult<Bound<'py, PyDict>> {
        let t = self.thought(py, game)?;
        let d = PyDict::new(py);
        d.set_item("move", t.best)?;
        d.set_item("pv", t.pv)?;
        d.set_item("score_cm", t.score.map(|(s, _)| s))?;
        d.set_item("depth", t.score.map(|(_, d)| d))?;
        d.set_item("nodes", t.nodes)?;
        d.set_item("seconds", t.seconds)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "dama.Player({:?}, game={:?})",
            self.spec,
            self.game.to_string()
        )
    }
}

/// Plays a match in the arena.
struct Match<'a> {
    a: &'a str,
    b: &'a str,
    games: u32,
    rules: Option<&'a str>,
    seed: u64,
    threads: Option<usize>,
}

impl WithGame for Match<'_> {
    type Output = Result<String, String>;

    fn run<G: GameDef>(self) -> Self::Output {
        let rules = rules_of::<G>(self.rules)?;
        let options = BuildOptions {
            rules: GameRules::new::<G>(rules),
            ..BuildOptions::default()
        };
        let build = |spec: &str| -> Result<Arc<dyn PlayerFactory<G>>, String> {
            dama_eval::parse_player::<G>(spec, &options)
                .map_err(|e| format!("player `{spec}`: {e}"))
        };
        let (a, b) = (build(self.a)?, build(self.b)?);
        let config = MatchConfig {
            games: self.games,
            rules,
            seed: self.seed,
            threads: self.threads,
            ..MatchConfig::default()
        };
        let result = dama_eval::play_match(a.as_ref(), b.as_ref(), &config, &|_| {})
            .map_err(|e| e.to_string())?;
        serde_json::to_string(&result).map_err(|e| e.to_string())
    }
}

/// Plays `games` games between the players `a` and `b` (specs, as
/// `dama.Player` takes), each opening from both sides, and returns the
/// arena's result as a dict: `wdl` (A's wins, draws, losses), `a_first`
/// and `a_second` (A's results on each side), `elo` (`elo`, `lo`, `hi`:
/// A's Elo over B with its 95% interval), `elo_pairs`, `games`, `sides`.
#[pyfunction]
#[pyo3(signature = (a, b, game = "draughts", games = 10, rules = None, seed = 0, threads = None))]
#[allow(clippy::too_many_arguments)]
fn play_match(
    py: Python<'_>,
    a: &str,
    b: &str,
    game: &str,
    games: u32,
    rules: Option<&str>,
    seed: u64,
    threads: Option<usize>,
) -> PyResult<Py<PyAny>> {
    if games == 0 || games > MAX_MATCH_GAMES {
        return Err(value_error(format!(
            "games={games}: a match plays 1 to {MAX_MATCH_GAMES} games"
        )));
    }
    let threads = threads.map(|t| t.clamp(1, 256));
    let name = game_name(game)?;
    let json = py
        .detach(|| {
            name.with(Match {
                a,
                b,
                games,
                rules,
                seed,
                threads,
            })
        })
        .map_err(value_error)?;
    from_json(py, &json)
}

/// Leaf nodes `depth` whole moves deep from the start (or `position`) of
/// `game` under `rules`.
#[pyfunction]
#[pyo3(signature = (depth, game = "draughts", rules = None, position = None))]
fn perft(
    py: Python<'_>,
    depth: u32,
    game: &str,
    rules: Option<&str>,
    position: Option<&str>,
) -> PyResult<u64> {
    PyGame::new(game, rules, position)?.perft(py, depth)
}

/// A run directory as its Rust types read it (`docs/run-directory.md`):
/// a dict of `metrics` (every `metrics.jsonl` event of a kind this build
/// knows, as a dict with its `kind`; lines of other kinds are left out),
/// `state` (`state.json`, or `None` before the first generation ends) and
/// `config` (the run's stored config text, or `None`).
#[pyfunction]
fn read_run(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Py<PyAny>> {
    let dir = dama_run::RunDir::new(path);
    if !dir.root().is_dir() {
        return Err(value_error(format!(
            "{} is not a run directory",
            dir.root().display()
        )));
    }
    let json = py
        .detach(|| -> Result<String, String> {
            let metrics = if dir.metrics().exists() {
                dama_run::metrics::read_metrics(&dir.metrics()).map_err(|e| e.to_string())?
            } else {
                Vec::new()
            };
            let events: Vec<&dama_run::MetricsEvent> = metrics
                .iter()
                .filter(|e| !matches!(e, dama_run::MetricsEvent::Unknown))
                .collect();
            let state = if dir.state().exists() {
                Some(dama_run::RunState::load(&dir.state()).map_err(|e| e.to_string())?)
            } else {
                None
            };
            let config = std::fs::read_to_string(dir.config()).ok();
            serde_json::to_string(&serde_json::json!({
                "metrics": events,
                "state": state,
                "config": config,
            }))
            .map_err(|e| e.to_string())
        })
        .map_err(value_error)?;
    from_json(py, &json)
}

/// The registered games' names.
#[pyfunction]
fn games() -> Vec<String> {
    GameName::ALL.iter().map(ToString::to_string).collect()
}

#[pymodule]
fn _dama(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGame>()?;
    m.add_class::<PyPlayer>()?;
    m.add_function(wrap_pyfunction!(play_match, m)?)?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(read_run, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
