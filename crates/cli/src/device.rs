//! `dama device`: which device `dama` uses, proven by a forward pass.

use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use dama_mcts::{Evaluator, Leaf};
use dama_nn::{ModelConfig, Network, NnEvaluator, Precision};

/// Arguments of `dama device`.
#[derive(Args, Debug)]
pub struct DeviceArgs {
    /// auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    device: dama_run::DeviceSpec,
}

/// Runs `dama device`.
pub fn run(args: &DeviceArgs) -> Result<()> {
    let device = dama_nn::device::resolve(args.device)?;
    outln!("device: {}", dama_nn::device::describe(device));
    let config = ModelConfig::quick();
    let net = Network::new(&config, device).context("cannot build a network")?;
    let mut eval = NnEvaluator::new(&net, device, Precision::F32)?;
    let game = dama_draughts::DamaState::new(dama_engine::Game::new());
    let actions: Vec<_> = game.game().legal_steps().into_iter().collect();
    let start = Instant::now();
    let out = eval.evaluate(&[Leaf {
        state: &game,
        actions: &actions,
    }])?;
    let value = out[0].value;
    outln!(
        "forward pass of a {}-block {}-channel network ({} parameters) on the initial position: \
         {} priors, value W/D/L {:.3}/{:.3}/{:.3} in {:.1} ms",
        config.blocks,
        config.channels,
        net.num_parameters(),
        out[0].policy.len(),
        value.win,
        value.draw,
        value.loss,
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
