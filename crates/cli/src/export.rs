//! `dama export`: a checkpoint → a bundle (TorchScript, weights, metadata,
//! README); a learned evaluator → a bundle that the alpha-beta engine plays
//! (`--evaluator`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use dama_bot::{export, export_evaluator, EvaluatorExportOptions, ExportOptions};
use dama_eval::AlphaBetaLimit;

/// Default time per move of a learned-evaluator bundle, in milliseconds.
const DEFAULT_EVALUATOR_TIME_MS: u64 = 1000;

/// Arguments of `dama export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The checkpoint's weights (`.safetensors`, with its `.json` sidecar):
    /// a network bundle.
    #[arg(
        long,
        required_unless_present = "evaluator",
        conflicts_with = "evaluator"
    )]
    checkpoint: Option<PathBuf>,
    /// A learned evaluator (`.nnue`) of any game whose alpha-beta engine
    /// learns its evaluation (Turkish draughts and its variants, Turkish
    /// Tafl; the file's feature set names the game), a learned-evaluator
    /// run's directory (its `best.nnue`), or `shipped` (the network built
    /// into dama): a bundle that the game's alpha-beta engine plays with it.
    #[arg(long)]
    evaluator: Option<PathBuf>,
    /// The bundle directory to write.
    #[arg(long)]
    out: PathBuf,
    /// Simulations per move recorded as a network bundle's default strength
    /// (1 to 1000000).
    #[arg(long, default_value_t = 200, conflicts_with = "evaluator", value_parser = crate::args::sims)]
    sims: u32,
    /// Time per move in milliseconds recorded as a learned-evaluator
    /// bundle's default (default 1000).
    #[arg(long, requires = "evaluator", conflicts_with = "depth", value_parser = crate::args::move_time_ms)]
    time: Option<u64>,
    /// Depth in plies recorded as a learned-evaluator bundle's default,
    /// instead of a time (1 to 64).
    #[arg(long, requires = "evaluator")]
    depth: Option<u32>,
    /// Search threads of a learned-evaluator bundle (Lazy SMP, 1 to 64).
    #[arg(long, requires = "evaluator")]
    threads: Option<usize>,
    /// A wheel of dama's Python module for the bundle to carry
    /// (`python/dama-….whl`; `scripts/build-wheel.sh` builds one), so its
    /// Python side installs without a dama checkout.
    #[arg(long)]
    wheel: Option<PathBuf>,
    /// Print the bundle's metadata as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `dama export`.
pub fn run(args: &ExportArgs) -> Result<()> {
    if let Some(evaluator) = &args.evaluator {
        return run_evaluator(args, evaluator);
    }
    let Some(checkpoint) = &args.checkpoint else {
        anyhow::bail!("give --checkpoint PATH or --evaluator PATH");
    };
    let report = export(&ExportOptions {
        checkpoint: checkpoint.clone(),
        out: args.out.clone(),
        sims: args.sims,
        wheel: args.wheel.clone(),
    })
    .with_context(|| format!("cannot export {}", checkpoint.display()))?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report.meta)?);
        return Ok(());
    }
    let m = &report.meta;
    outln!("bundle written to {}", report.dir.display());
    outln!(
        "  model.ts (TorchScript), {} + weights.json, bundle.json, README.md, bundle_example.py",
        m.weights_file,
    );
    outln!(
        "  {} ({}), encoding version {}, model {} blocks x {} channels, step {}, {} sims by default",
        m.game.title(),
        m.game_rules(),
        m.encoding_version,
        m.model.blocks,
        m.model.channels,
        m.step,
        m.search.simulations
    );
    print_wheel(m.python_wheel.as_ref())?;
    if let Some(c) = &m.check {
        outln!(
            "  check on {} positions in batches of {:?}: model.ts run by libtorch vs the Rust network \
             max |diff| {:.1e} (policy logits), {:.1e} (wdl) (tolerance {:.0e}, libtorch {})",
            c.positions,
            c.batch_sizes,
            c.libtorch_max_policy_logit_diff,
            c.libtorch_max_wdl_diff,
            c.tolerance,
            c.torch
        );
    }
    print_elo(&m.elo)
}

fn print_elo(elo: &[dama_bot::EloEntry]) -> Result<()> {
    for e in elo {
        outln!(
            "  Elo vs {}: {:+.0} [{:+.0}, {:+.0}] ({} games)",
            e.opponent,
            e.elo,
            e.elo_lo,
            e.elo_hi,
            e.games
        );
    }
    Ok(())
}

/// `dama export --evaluator`.
fn run_evaluator(args: &ExportArgs, evaluator: &std::path::Path) -> Result<()> {
    let limit = match (args.depth, args.time) {
        (Some(d), _) => AlphaBetaLimit::Depth(d),
        (None, ms) => AlphaBetaLimit::TimeMs(ms.unwrap_or(DEFAULT_EVALUATOR_TIME_MS)),
    };
    let report = export_evaluator(&EvaluatorExportOptions {
        evaluator: evaluator.to_path_buf(),
        out: args.out.clone(),
        limit,
        threads: args.threads.unwrap_or(1),
        wheel: args.wheel.clone(),
    })
    .with_context(|| format!("cannot export {}", evaluator.display()))?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report.meta)?);
        return Ok(());
    }
    let m = &report.meta;
    outln!("bundle written to {}", report.dir.display());
    outln!(
        "  {} ({} bytes, checksum {}, read back and checked), bundle.json, README.md",
        m.evaluator_file,
        m.evaluator_bytes,
        m.evaluator_fnv1a64
    );
    let limit = match m.limit {
        AlphaBetaLimit::Depth(d) => format!("depth {d}"),
        AlphaBetaLimit::TimeMs(ms) => format!("{ms} ms per move"),
    };
    let generation = m
        .generation
        .map_or_else(String::new, |g| format!(", generation {g}"));
    outln!(
        "  {}'s alpha-beta with a learned evaluation, rules {}{generation}; {limit}, {} thread{} by default",
        m.game.title(),
        m.game_rules().text(),
        m.threads,
        if m.threads == 1 { "" } else { "s" }
    );
    print_wheel(m.python_wheel.as_ref())?;
    print_elo(&m.elo)
}

fn print_wheel(wheel: Option<&dama_bot::WheelEntry>) -> Result<()> {
    if let Some(w) = wheel {
        outln!(
            "  {} ({} bytes, read back and checked): pip install BUNDLE/{}",
            w.file,
            w.bytes,
            w.file
        );
    }
    Ok(())
}
