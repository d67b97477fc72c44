//! `dama device`: which device `dama` uses, proven by a forward pass.

use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use dama_game::GameDef;
use dama_mcts::{Evaluator, Game as _, Leaf};
use dama_nn::{GameName, ModelConfig, Network, NnEvaluator, Precision, WithGame};

/// Arguments of `dama device`.
#[derive(Args, Debug)]
pub struct DeviceArgs {
    /// auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    device: dama_run::DeviceSpec,
    /// The game whose start position the forward pass evaluates.
    #[arg(long, default_value_t)]
    game: GameName,
}

/// Runs `dama device`.
pub fn run(args: &DeviceArgs) -> Result<()> {
    let device = dama_nn::device::resolve(args.device)?;
    outln!("device: {}", dama_nn::device::describe(device));
    args.game.with(Forward { device })
}

/// A forward pass of a small network of the game on its start position.
struct Forward {
    device: dama_nn::device::Device,
}

impl WithGame for Forward {
    type Output = Result<()>;

    fn run<G: GameDef>(self) -> Result<()> {
        forward::<G>(self.device)
    }
}

fn forward<G: GameDef>(device: dama_nn::device::Device) -> Result<()> {
    let config = ModelConfig::quick().with_shape(G::shape());
    let net = Network::new(&config, device).context("cannot build a network")?;
    let mut eval = NnEvaluator::new(&net, device, Precision::F32)?;
    let state = G::search_state(&G::start(&G::Rules::default()));
    let mut actions = Vec::new();
    state.legal_actions(&mut actions);
    let start = Instant::now();
    let out = eval.evaluate(&[Leaf {
        state: &state,
        actions: &actions,
    }])?;
    let value = out[0].value;
    outln!(
        "forward pass of a {}-block {}-channel network ({} parameters) on {}'s initial position: \
         {} priors, value W/D/L {:.3}/{:.3}/{:.3} in {:.1} ms",
        config.blocks,
        config.channels,
        net.num_parameters(),
        G::TITLE,
        out[0].policy.len(),
        value.win,
        value.draw,
        value.loss,
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
