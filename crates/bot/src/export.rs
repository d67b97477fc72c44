//! `dama export`: a checkpoint → a self-contained bundle directory.
//!
//! TorchScript cannot be produced from `tch`, so the export runs
//! `scripts/export_torchscript.py` (embedded in the binary, with the
//! PyTorch twin of the network from `scripts/bench_torch.py`) with a Python
//! that has PyTorch. The Rust side writes the weights and a set of fixed
//! positions with the Rust network's outputs on them; the script rebuilds
//! the network, loads the weights, saves `model.ts`, loads it back and
//! compares. Rust then loads `model.ts` through libtorch and compares again.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use dama_engine::{Game, StepResult};
use dama_mcts::{Algorithm, SearchConfig};
use dama_nn::device::Device;
use dama_nn::encode::{self, ENCODING_VERSION, NUM_PLANES, PLANES_LEN, POLICY_SIZE};
use dama_nn::{NnEvaluator, Precision, RawOutput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::bundle::{Bundle, BundleMeta, EloEntry, ExportCheck, BUNDLE_FORMAT};
use crate::python::find_python;
use crate::Error;

const EXPORT_SCRIPT: &str = include_str!("../../../scripts/export_torchscript.py");
const TWIN_SCRIPT: &str = include_str!("../../../scripts/bench_torch.py");

/// Largest output difference accepted between the exported module and the
/// Rust network (policy logits and WDL probabilities, f32 on CPU).
pub const EXPORT_TOLERANCE: f64 = 1e-4;

/// What to export and how.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// The checkpoint's weights (`.safetensors`, with its `.json` sidecar).
    pub checkpoint: PathBuf,
    /// The bundle directory to write (created; existing bundle files are
    /// replaced).
    pub out: PathBuf,
    /// The Python interpreter (default: see [`find_python`]).
    pub python: Option<PathBuf>,
    /// Simulations per move recorded as the bundle's search default.
    pub sims: u32,
}

/// What an export produced.
#[derive(Clone, Debug, Serialize)]
pub struct ExportReport {
    /// The bundle directory.
    pub dir: PathBuf,
    /// Its metadata.
    pub meta: BundleMeta,
    /// The interpreter that ran the exporter.
    pub python: PathBuf,
}

fn python_error(msg: impl Into<String>) -> Error {
    Error::Python(msg.into())
}

/// Writes a bundle: see the [module docs](self) and [`Bundle`].
///
/// # Errors
///
/// Loading errors of the checkpoint, [`Error::Python`] when no interpreter
/// with PyTorch is found or the exporter fails (its message is passed on),
/// [`Error::Bundle`] when an output check fails, I/O errors.
pub fn export(opts: &ExportOptions) -> Result<ExportReport, Error> {
    let (net, ckpt) = dama_nn::load_network(&opts.checkpoint, Device::Cpu, None)?;
    let out = &opts.out;
    if out.is_file() {
        return Err(Error::Input(format!(
            "{} is a file, the bundle is a directory",
            out.display()
        )));
    }
    fs::create_dir_all(out).map_err(Error::file(out))?;
    let weights = out.join("weights.safetensors");
    dama_nn::save_network(&net, &ckpt.rules, ckpt.step, &weights)?;

    // Fixed positions and the Rust network's outputs on them.
    let check_dir = out.join(".export-check");
    fs::create_dir_all(&check_dir).map_err(Error::file(&check_dir))?;
    let games = check_positions();
    let n = games.len();
    let mut planes = vec![0f32; n * PLANES_LEN];
    for (g, chunk) in games.iter().zip(planes.chunks_exact_mut(PLANES_LEN)) {
        encode::encode_planes(g, chunk);
    }
    let reference = NnEvaluator::new(&net, Device::Cpu, Precision::F32)?.infer(&planes, n)?;
    write_f32(&check_dir.join("input.f32"), &planes)?;
    write_f32(&check_dir.join("policy.f32"), &reference.policy_logits)?;
    write_f32(&check_dir.join("wdl.f32"), &reference.wdl)?;
    for (name, text) in [
        ("export_torchscript.py", EXPORT_SCRIPT),
        ("bench_torch.py", TWIN_SCRIPT),
    ] {
        let path = check_dir.join(name);
        fs::write(&path, text).map_err(Error::file(&path))?;
    }

    let python = find_python(opts.python.as_deref()).ok_or_else(|| {
        python_error(
            "no Python interpreter found: run scripts/setup-torch.sh (or `source scripts/env.sh`), \
             set DAMA_VENV, or pass --python",
        )
    })?;
    let model_file = "model.ts";
    let output = Command::new(&python)
        .arg(check_dir.join("export_torchscript.py"))
        .arg("--weights")
        .arg(&weights)
        .arg("--model")
        .arg(serde_json::to_string(net.config())?)
        .arg("--out")
        .arg(out.join(model_file))
        .arg("--check")
        .arg(&check_dir)
        .arg("--tolerance")
        .arg(EXPORT_TOLERANCE.to_string())
        .output()
        .map_err(|e| python_error(format!("cannot run {}: {e}", python.display())))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        let hint = if stderr.contains("No module named") {
            " (this interpreter lacks PyTorch or numpy: run scripts/setup-torch.sh or pass --python)"
        } else {
            ""
        };
        return Err(python_error(format!(
            "{} export_torchscript.py failed{hint}: {}",
            python.display(),
            tail.join(" | ")
        )));
    }
    let report: serde_json::Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| python_error(format!("unexpected exporter output: {stdout}")))?;
    let f = |k: &str| report.get(k).and_then(serde_json::Value::as_f64);

    // libtorch from Rust on the file just written.
    let script = dama_nn::TorchScriptEvaluator::load(&out.join(model_file), Device::Cpu)?;
    let got = script.infer(&planes, n)?;
    let (lp, lw) = max_diffs(&got, &reference);
    let check = ExportCheck {
        positions: n,
        python_max_policy_logit_diff: f("max_policy_logit_diff").unwrap_or(f64::NAN),
        python_max_wdl_diff: f("max_wdl_diff").unwrap_or(f64::NAN),
        libtorch_max_policy_logit_diff: lp,
        libtorch_max_wdl_diff: lw,
        tolerance: EXPORT_TOLERANCE,
        torch: report
            .get("torch")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("?")
            .to_owned(),
    };
    if !(lp <= EXPORT_TOLERANCE && lw <= EXPORT_TOLERANCE) {
        return Err(Error::Bundle {
            path: out.clone(),
            problems: vec![format!(
                "model.ts run by libtorch differs from the Rust network: policy {lp:.3e}, wdl {lw:.3e}"
            )],
        });
    }
    fs::remove_dir_all(&check_dir).map_err(Error::file(&check_dir))?;

    let generation = generation_of(&opts.checkpoint);
    let meta = BundleMeta {
        format: BUNDLE_FORMAT,
        encoding_version: ENCODING_VERSION,
        input_planes: NUM_PLANES,
        policy_size: POLICY_SIZE,
        rules: ckpt.rules,
        model: ckpt.model.clone(),
        search: default_search(opts.sims),
        step: ckpt.step,
        generation,
        elo: generation
            .map(|g| elo_entries(&opts.checkpoint, g))
            .unwrap_or_default(),
        source: opts.checkpoint.display().to_string(),
        model_file: model_file.to_owned(),
        weights_file: "weights.safetensors".to_owned(),
        check: Some(check),
        dama_version: env!("CARGO_PKG_VERSION").to_owned(),
    };
    write_atomic(
        &out.join("bundle.json"),
        format!("{}\n", serde_json::to_string_pretty(&meta)?).as_bytes(),
    )?;
    write_atomic(&out.join("README.md"), readme(&meta).as_bytes())?;
    // Read back through the loader, so a bundle that would not load is
    // never reported as written.
    let bundle = Bundle::load(out)?;
    Ok(ExportReport {
        dir: bundle.dir,
        meta: bundle.meta,
        python,
    })
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

/// Positions the export compares on: the start, a few hand-picked ones
/// (Black to move, kings, a capture), and states of seeded random games,
/// including captures in progress.
fn check_positions() -> Vec<Game> {
    let mut out = vec![Game::new()];
    for text in [
        "B:Wa2,b2,c3,d3,Kd4:Ba7,b6,c6,Kh8",
        "W:Wb3,Kh1:Bc3,d4,e6,Ka8",
        "B:Wc4,Kf5:Bc5,d7,Kb8",
    ] {
        if let Ok(pos) = text.parse() {
            out.push(Game::from_position(pos));
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    for _ in 0..4 {
        let mut g = Game::new();
        for i in 0..80 {
            if g.is_game_over() && g.pending_capture().is_none() {
                break;
            }
            let steps = g.legal_steps();
            if steps.is_empty() {
                break;
            }
            let s = steps[rng.gen_range(0..steps.len())];
            if matches!(g.play_step(s), Ok(StepResult::InProgress)) || i % 20 == 19 {
                out.push(g.clone());
            }
        }
    }
    out.truncate(24);
    out
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

fn write_f32(path: &Path, values: &[f32]) -> Result<(), Error> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    fs::write(path, bytes).map_err(Error::file(path))?;
    Ok(())
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

fn readme(meta: &BundleMeta) -> String {
    let elo = if meta.elo.is_empty() {
        "No evaluation results were found for this checkpoint.".to_owned()
    } else {
        meta.elo
            .iter()
            .map(|e| {
                format!(
                    "- against `{}`: score {:.3} over {} games, Elo {:+.0} [{:+.0}, {:+.0}]",
                    e.opponent, e.score, e.games, e.elo, e.elo_lo, e.elo_hi
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let check = meta.check.as_ref().map_or_else(String::new, |c| {
        format!(
            "At export, on {} fixed positions, `torch.jit.load` reproduced the Rust network to within {:.1e} (policy logits) and {:.1e} (WDL probabilities), and libtorch called from Rust to within {:.1e} and {:.1e} (tolerance {:.0e}; PyTorch {}).\n",
            c.positions,
            c.python_max_policy_logit_diff,
            c.python_max_wdl_diff,
            c.libtorch_max_policy_logit_diff,
            c.libtorch_max_wdl_diff,
            c.tolerance,
            c.torch
        )
    });
    format!(
        r#"# dama bot bundle

A Turkish draughts policy/value network exported by `dama export` (dama {version}) from `{source}` (step {step}).

## Files

- `model.ts`: the network as TorchScript.
- `weights.safetensors` + `weights.json`: the same network as a dama checkpoint.
- `bundle.json`: metadata: encoding version {enc}, rules, model shape, search defaults, training step, Elo.

## Playing it

```
dama play --bot bundle:{dir_hint}            # in the terminal
dama bot --bot bundle:{dir_hint}             # line protocol (docs/protocol.md)
dama analyse --bundle {dir_hint} --position startpos
```

The bundle's search defaults: {sims} simulations per move, PUCT, no noise.
Loading checks the encoding version and refuses a bundle made for another one.

## Using the network from Python or C++

```python
import torch
model = torch.jit.load("model.ts")
policy_logits, wdl_logits = model(planes)   # planes: float32 [B, {planes}, 8, 8]
```

From C++: `torch::jit::load("model.ts")`, then `forward({{planes}})` returns the same tuple.

- Input: float32 `[B, {planes}, 8, 8]`, encoded from the side to move (encoding version {enc}; see `crates/nn/src/encode.rs`, ported to Python in `scripts/bundle_example.py`).
  For Black to move the board is flipped vertically (rank r → 7 − r).
  Planes: 0 own men, 1 own kings, 2 opponent men, 3 opponent kings, 4 the piece continuing a capture, 5–8 the forbidden jump direction (N, E, S, W), 9 repetition, 10 plies since the last capture / limit, 11 ones.
- Output: `policy_logits` `[B, {policy}]`, index `(direction · 7 + distance − 1) · 64 + from` (directions N, E, S, W from the mover's side); softmax over the legal steps only.
  `wdl_logits` `[B, 3]`: softmax gives win, draw, loss for the side to move; the value is win − loss.

`python scripts/bundle_example.py {dir_hint}` encodes positions, runs the module and prints the evaluation.

{check}
## Strength

{elo}

## Rules

```json
{rules}
```
"#,
        version = meta.dama_version,
        source = meta.source,
        step = meta.step,
        enc = meta.encoding_version,
        sims = meta.search.simulations,
        planes = meta.input_planes,
        policy = meta.policy_size,
        dir_hint = "BUNDLE_DIR",
        rules = serde_json::to_string_pretty(&meta.rules).unwrap_or_default(),
    )
}
