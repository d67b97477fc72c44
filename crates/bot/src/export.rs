//! `dama export`: a checkpoint → a self-contained bundle directory.
//!
//! Everything happens in Rust, without Python: the network is traced into
//! TorchScript by [`dama_nn::torchscript::save`] (`tch`'s
//! `CModule::create_by_tracing`), the traced `model.ts` is loaded back
//! through libtorch and compared with the Rust network on fixed positions,
//! in one batch and in smaller ones, and only then are `bundle.json` and the
//! README written. The bundle also carries `bundle_example.py`, which runs
//! `model.ts` from Python with PyTorch and dama's Python module
//! (`crates/python`: positions, legal actions, policy indices, input
//! planes; the README says how to install it), for every game;
//! `crates/python/tests` runs that example from a bundle and checks that
//! `torch.jit.load` reproduces `dama analyse --json`.

use std::fs;
use std::path::{Path, PathBuf};

use dama_mcts::{Algorithm, SearchConfig};
use dama_nn::device::Device;
use dama_nn::{
    BatchBuilder, GameRules, NnEvaluator, NnInput, Precision, RawOutput, TorchScriptEvaluator,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::bundle::{Bundle, BundleKind, BundleMeta, EloEntry, ExportCheck, BUNDLE_FORMAT};
use crate::Error;

/// Largest output difference accepted between the exported module and the
/// Rust network (policy logits and WDL probabilities, f32 on CPU).
pub const EXPORT_TOLERANCE: f64 = 1e-4;

/// The libtorch version `tch` 0.26 links (see `scripts/setup-torch.sh`),
/// recorded in the bundle as the version that traced `model.ts`.
const LIBTORCH_VERSION: &str = "2.13.0";

/// The Python file every network bundle carries, by its path inside the
/// bundle: the example, which runs `model.ts` with PyTorch on positions,
/// legal actions and input planes from dama's Python module
/// (`crates/python`, which the bundle's README says how to install).
const PYTHON_FILES: &[(&str, &str)] = &[(
    "bundle_example.py",
    include_str!("../../../scripts/bundle_example.py"),
)];

/// What to export and how.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// The checkpoint's weights (`.safetensors`, with its `.json` sidecar).
    pub checkpoint: PathBuf,
    /// The bundle directory to write (created; existing bundle files are
    /// replaced).
    pub out: PathBuf,
    /// Simulations per move recorded as the bundle's search default.
    pub sims: u32,
    /// A wheel of dama's Python module to carry (`python/…whl`).
    pub wheel: Option<PathBuf>,
}

/// What an export produced.
#[derive(Clone, Debug, Serialize)]
pub struct ExportReport {
    /// The bundle directory.
    pub dir: PathBuf,
    /// Its metadata.
    pub meta: BundleMeta,
}

/// Writes a bundle: see the [module docs](self) and [`Bundle`].
///
/// # Errors
///
/// Loading errors of the checkpoint, tracing errors, [`Error::Bundle`] when
/// the traced module does not reproduce the Rust network, I/O errors.
pub fn export(opts: &ExportOptions) -> Result<ExportReport, Error> {
    // A network of any game: the bundle records which.
    let game = dama_nn::read_meta(&opts.checkpoint)?.game;
    let (net, ckpt) = dama_nn::load_game_network(&opts.checkpoint, Device::Cpu, game)?;
    let game_rules = ckpt.game_rules();
    let encoding = game.encoding();
    let out = &opts.out;
    if out.is_file() {
        return Err(Error::Input(format!(
            "{} is a file, the bundle is a directory",
            out.display()
        )));
    }
    fs::create_dir_all(out).map_err(Error::file(out))?;
    let weights_file = "weights.safetensors";
    dama_nn::save_network(&net, game_rules, ckpt.step, &out.join(weights_file))?;
    let model_file = "model.ts";
    let model_path = out.join(model_file);
    dama_nn::torchscript::save(&net, &model_path)?;

    // The traced module, run by libtorch from the file just written, against
    // the Rust network, on fixed positions in batches of several sizes.
    let inputs = game.with(CheckStates(game_rules));
    let reference = NnEvaluator::new(&net, Device::Cpu, Precision::F32)?;
    let script = TorchScriptEvaluator::load_for(&model_path, Device::Cpu, encoding.shape)?;
    let (mut lp, mut lw) = (0.0f64, 0.0f64);
    let batch_sizes = check_batch_sizes(inputs.len());
    let positions = inputs.len();
    let plane_len = encoding.shape.planes_len();
    for &size in &batch_sizes {
        for chunk in inputs.planes_slice().chunks(size * plane_len) {
            let n = chunk.len() / plane_len;
            let want = reference.infer(chunk, n)?;
            let got = script.infer(chunk, n)?;
            let (p, w) = max_diffs(&got, &want);
            lp = lp.max(p);
            lw = lw.max(w);
        }
    }
    let check = ExportCheck {
        positions,
        batch_sizes,
        libtorch_max_policy_logit_diff: lp,
        libtorch_max_wdl_diff: lw,
        tolerance: EXPORT_TOLERANCE,
        torch: LIBTORCH_VERSION.to_owned(),
    };
    if !(lp <= EXPORT_TOLERANCE && lw <= EXPORT_TOLERANCE) {
        return Err(Error::Bundle {
            path: out.clone(),
            problems: vec![format!(
                "model.ts run by libtorch differs from the Rust network: policy {lp:.3e}, wdl {lw:.3e}"
            )],
        });
    }
    for (name, text) in PYTHON_FILES {
        write_atomic(&out.join(name), text.as_bytes())?;
    }

    let generation = generation_of(&opts.checkpoint);
    let (rules, game_rules_text) = BundleMeta::rule_fields(&game_rules);
    let meta = BundleMeta {
        format: BUNDLE_FORMAT,
        kind: BundleKind::Network,
        game,
        encoding_version: encoding.version,
        input_planes: encoding.shape.planes,
        policy_size: encoding.shape.policy_size(),
        rules,
        game_rules_text,
        legacy: dama_nn::LegacyRuleFields::default(),
        model: ckpt.model.clone(),
        search: default_search(opts.sims),
        step: ckpt.step,
        generation,
        elo: generation
            .map(|g| elo_entries(&opts.checkpoint, g))
            .unwrap_or_default(),
        source: opts.checkpoint.display().to_string(),
        model_file: model_file.to_owned(),
        weights_file: weights_file.to_owned(),
        check: Some(check),
        python_wheel: opts
            .wheel
            .as_deref()
            .map(|w| crate::wheel::copy_wheel(out, w))
            .transpose()?,
        dama_version: env!("CARGO_PKG_VERSION").to_owned(),
    };
    write_atomic(
        &out.join("bundle.json"),
        format!("{}\n", serde_json::to_string_pretty(&meta)?).as_bytes(),
    )?;
    let text = game.with(Readme(&meta));
    write_atomic(&out.join("README.md"), text.as_bytes())?;
    // Read back through the loader, so a bundle that would not load is
    // never reported as written.
    let bundle = Bundle::load(out)?;
    Ok(ExportReport {
        dir: bundle.dir,
        meta: bundle.meta,
    })
}

/// The batch sizes the export compares on: all positions at once, one at a
/// time, and a size that divides neither (a ragged last batch).
fn check_batch_sizes(n: usize) -> Vec<usize> {
    let mut sizes = vec![n.max(1), 1, 5];
    sizes.dedup();
    sizes
}

/// Positions the export compares on, for any game: the start and states
/// along seeded random games, decision by decision (so captures and chains
/// in progress are among them), spread over the games, encoded.
struct CheckStates(GameRules);

/// How many positions the export compares on.
const CHECK_POSITIONS: usize = 24;

impl dama_nn::WithGame for CheckStates {
    type Output = BatchBuilder;

    fn run<G: dama_game::GameDef>(self) -> BatchBuilder {
        use dama_mcts::Game as _;
        let rules = self.0.get::<G>().unwrap_or_default();
        let start = G::search_state(&G::start(&rules));
        let mut seen = Vec::new();
        let mut rng = ChaCha8Rng::seed_from_u64(2024);
        let mut actions = Vec::new();
        for _ in 0..4 {
            let mut state = start.clone();
            for i in 0..300 {
                if state.outcome().is_some() {
                    break;
                }
                actions.clear();
                state.legal_actions(&mut actions);
                let Some(&a) = actions.get(rng.gen_range(0..actions.len().max(1))) else {
                    break;
                };
                state.apply(a);
                if i % 5 == 4 {
                    seen.push(state.clone());
                }
            }
        }
        // The start, then positions spread evenly over the games.
        let mut out = vec![start];
        let want = CHECK_POSITIONS - 1;
        if seen.len() <= want {
            out.extend(seen);
        } else {
            out.extend((0..want).map(|k| seen[k * seen.len() / want].clone()));
        }
        encode_all(&out)
    }
}

/// A bundle's README, one template for every game: the game's names, the
/// encoding's shapes and the game's own notes on its layout
/// ([`GameDef::encoding_notes`](dama_game::GameDef::encoding_notes)), the
/// Python side (PyTorch and dama's module, `crates/python`), the export
/// check, Elo and the rules.
struct Readme<'a>(&'a BundleMeta);

impl dama_nn::WithGame for Readme<'_> {
    type Output = String;

    fn run<G: dama_game::GameDef>(self) -> String {
        let meta = self.0;
        let game = meta.game;
        let shape = meta.model.shape();
        let rules = meta.game_rules();
        let input = format!("[B, {}, {}, {}]", shape.planes, shape.height, shape.width);
        let policy = meta.policy_size;
        let width = policy + 3;
        let dir = "BUNDLE_DIR";
        let later = {
            let mut g = G::start(&G::Rules::default());
            for _ in 0..2 {
                let Some(first) = G::legal_moves(&g).into_iter().next() else {
                    break;
                };
                if G::play(&mut g, &first).is_err() {
                    break;
                }
            }
            G::position_text(&g)
        };
        let usage = format!(
            r#"Positions, legal actions, their policy indices and the input planes come from dama's Python module (`import dama`), compiled from the same Rust code as the `dama` binary. {wheel}{checkout} from a dama checkout, best of the version that wrote this bundle ({version}); maturin builds it, which needs a Rust toolchain:

```sh
pip install ./crates/python          # in the dama repository
```

Then, with PyTorch:

```python
import torch, dama

model = torch.jit.load("{dir}/model.ts")
g = dama.Game("{name}", rules="{rules_text}")   # or position="{later}"
assert g.encoding_version == {enc}                  # the encoding this network reads
out = model(torch.from_numpy(g.encode())[None])     # float32 {one} -> [1, {width}]
actions = g.actions()                               # [(action, policy index)]: the decisions of the turn
priors = torch.softmax(out[0, [i for _, i in actions]], 0)
win, draw, loss = torch.softmax(out[0, {policy}:], 0)   # for the side to move
g.play(g.legal_moves()[0])                          # whole moves, in the game's notation
```

An action is a move's first decision (a capture's first jump); `g.legal_moves()` lists the whole moves and `g.play(move)` plays one. `python {dir}/bundle_example.py` does this for a few positions and prints the evaluations; with `--dama BIN` it also checks them against `BIN analyse` (the Rust network).

"#,
            version = meta.dama_version,
            wheel = crate::wheel::readme_lines(meta.python_wheel.as_ref()),
            checkout = if meta.python_wheel.is_some() {
                "Otherwise, install it"
            } else {
                "Install it"
            },
            name = game.as_str(),
            rules_text = rules.text(),
            enc = meta.encoding_version,
            one = format_args!("[1, {}, {}, {}]", shape.planes, shape.height, shape.width),
        );
        let notes = G::encoding_notes();
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("{notes}\n")
        };
        format!(
            r#"# dama bot bundle ({title})

A {title} policy/value network exported by `dama export` (dama {version}) from `{source}` (step {step}).

## Files

- `model.ts`: the network as TorchScript (traced from the Rust network).
- `weights.safetensors` + `weights.json`: the same network as a dama checkpoint.
- `bundle.json`: metadata: the game (`{name}`), encoding version {enc}, rules, model shape, search defaults, training step, Elo.
- `bundle_example.py`: runs the bundle on a few positions from Python (PyTorch and dama's Python module, below).

## Playing it

```
dama play --bot bundle:{dir}            # in the terminal
dama bot --bot bundle:{dir}             # line protocol (docs/protocol.md)
dama analyse --bundle {dir} --position startpos
```

The bundle's search defaults: {sims} simulations per move, PUCT, no noise.
Loading checks the game and the encoding version: a network of another game or another encoding is refused by name.

## Using the network from Python or C++

{usage}`model.ts` itself needs only PyTorch, whatever makes the planes (the layout is below):

```python
import torch
model = torch.jit.load("model.ts")
out = model(planes)          # planes: float32 {input} -> float32 [B, {width}]
policy_logits, wdl_logits = out[:, :{policy}], out[:, {policy}:]
```

From C++: `torch::jit::load("model.ts")`, then `forward({{planes}})` returns the same `[B, {width}]` tensor.

- Input: float32 `{input}`, any batch size `B` (encoding version {enc}).
- Output: one tensor `[B, {width}]`: columns `0..{policy}` are the policy logits (softmax over the legal actions only), columns `{policy}..{width}` the WDL logits for the side to move (softmax gives win, draw, loss; the value is win − loss).
{notes}
{check}
## Strength

{elo}

## Rules

`{rules_text}` (`--rules` text of {title}; `bundle.json` records them).
"#,
            title = G::TITLE,
            name = G::NAME,
            version = meta.dama_version,
            source = meta.source,
            step = meta.step,
            enc = meta.encoding_version,
            sims = meta.search.simulations,
            check = check_text(meta),
            elo = elo_text_of(meta),
            rules_text = rules.text(),
        )
    }
}

fn encode_all<S: NnInput>(states: &[S]) -> BatchBuilder {
    let mut inputs = BatchBuilder::for_shape(S::SHAPE);
    for s in states {
        inputs.push_state(s);
    }
    inputs
}

/// The search a bundle recommends: PUCT without noise, most-visited move.
pub(crate) fn default_search(sims: u32) -> SearchConfig {
    SearchConfig {
        algorithm: Algorithm::Puct,
        simulations: sims.max(1),
        dirichlet_epsilon: 0.0,
        temperature: 0.0,
        reuse_tree: false,
        ..SearchConfig::default()
    }
}

fn max_diffs(a: &RawOutput, b: &RawOutput) -> (f64, f64) {
    let d = |x: &[f32], y: &[f32]| {
        x.iter()
            .zip(y)
            .map(|(p, q)| f64::from((p - q).abs()))
            .fold(0.0, f64::max)
    };
    (d(&a.policy_logits, &b.policy_logits), d(&a.wdl, &b.wdl))
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    dama_nn::files::write_atomic(path, bytes).map_err(Error::file(path))?;
    Ok(())
}

/// `gen-0012.safetensors` → 12.
fn generation_of(checkpoint: &Path) -> Option<u32> {
    dama_run::generation_of(checkpoint)
}

/// The `eval` events of generation `gen` in the run's `metrics.jsonl`
/// (`<run>/models/gen-N.safetensors` → `<run>/metrics.jsonl`); none when
/// the checkpoint is not in a run or its metrics do not read. Matches
/// without a finite Elo (a score of 0 or 1) are left out.
fn elo_entries(checkpoint: &Path, gen: u32) -> Vec<EloEntry> {
    let Some(run) = checkpoint.parent().and_then(Path::parent) else {
        return Vec::new();
    };
    elo_entries_of_run(run, gen)
}

/// The `eval` events of generation `gen` in the `metrics.jsonl` of the run
/// directory `run`, as [`elo_entries`] reads them.
pub(crate) fn elo_entries_of_run(run: &Path, gen: u32) -> Vec<EloEntry> {
    let run = dama_run::RunDir::new(run);
    let Ok(events) = dama_run::read_metrics(&run.metrics()) else {
        return Vec::new();
    };
    events
        .into_iter()
        .filter_map(|e| match e {
            dama_run::MetricsEvent::Eval(e)
                if e.generation == gen
                    && [e.score, e.elo, e.elo_lo, e.elo_hi]
                        .iter()
                        .all(|x| x.is_finite()) =>
            {
                Some(EloEntry {
                    opponent: e.opponent,
                    games: e.games,
                    score: e.score,
                    elo: e.elo,
                    elo_lo: e.elo_lo,
                    elo_hi: e.elo_hi,
                })
            }
            _ => None,
        })
        .collect()
}

fn elo_text_of(meta: &BundleMeta) -> String {
    if meta.elo.is_empty() {
        "No evaluation results were found for this checkpoint.".to_owned()
    } else {
        elo_text(&meta.elo)
    }
}

/// One line per evaluation result.
pub(crate) fn elo_text(elo: &[EloEntry]) -> String {
    elo.iter()
        .map(|e| {
            format!(
                "- against `{}`: score {:.3} over {} games, Elo {:+.0} [{:+.0}, {:+.0}]",
                e.opponent, e.score, e.games, e.elo, e.elo_lo, e.elo_hi
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_text(meta: &BundleMeta) -> String {
    meta.check.as_ref().map_or_else(String::new, |c| {
        let sizes: Vec<String> = c.batch_sizes.iter().map(ToString::to_string).collect();
        format!(
            "At export, on {} fixed positions in batches of {}, `model.ts` run by libtorch reproduced the Rust network to within {:.1e} (policy logits) and {:.1e} (WDL probabilities) (tolerance {:.0e}; libtorch {}).\n",
            c.positions,
            sizes.join(", "),
            c.libtorch_max_policy_logit_diff,
            c.libtorch_max_wdl_diff,
            c.tolerance,
            c.torch
        )
    })
}
