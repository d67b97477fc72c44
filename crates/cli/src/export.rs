//! `dama export`: a checkpoint → a bundle (TorchScript, weights, metadata,
//! README).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use dama_bot::{export, ExportOptions};

/// Arguments of `dama export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The checkpoint's weights (`.safetensors`, with its `.json` sidecar).
    #[arg(long)]
    checkpoint: PathBuf,
    /// The bundle directory to write.
    #[arg(long)]
    out: PathBuf,
    /// Simulations per move recorded as the bundle's default strength
    /// (1 to 1000000).
    #[arg(long, default_value_t = 200, value_parser = crate::args::sims)]
    sims: u32,
    /// Print the bundle's metadata as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `dama export`.
pub fn run(args: &ExportArgs) -> Result<()> {
    let report = export(&ExportOptions {
        checkpoint: args.checkpoint.clone(),
        out: args.out.clone(),
        sims: args.sims,
    })
    .with_context(|| format!("cannot export {}", args.checkpoint.display()))?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report.meta)?);
        return Ok(());
    }
    let m = &report.meta;
    outln!("bundle written to {}", report.dir.display());
    outln!(
        "  model.ts (TorchScript), {} + weights.json, bundle.json, README.md{}",
        m.weights_file,
        if m.game == dama_nn::GameName::Draughts {
            ", dama_py/, bundle_example.py"
        } else {
            ""
        }
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
    for e in &m.elo {
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
