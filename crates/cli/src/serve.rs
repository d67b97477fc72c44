//! `dama serve`: the web front end (play, analyse, watch training).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use dama_bot::{Bot, BotOptions, BotSpec};
use dama_serve::{bounds, Limits, ServeOptions, Server};

/// Arguments of `dama serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The bot offered first (id `default`): a bot spec as for `dama play`
    /// (`ckpt:PATH[,sims=N]`, `alphabeta:depth=N`, `mcts:sims=N`, …).
    /// Every checkpoint and bundle under --runs and the baselines are
    /// offered as well.
    #[arg(long, conflicts_with = "bundle")]
    bot: Option<String>,
    /// A bundle directory (`dama export`) offered first.
    #[arg(long)]
    bundle: Option<PathBuf>,
    /// The runs directory: its runs are shown on the training page, and
    /// their checkpoints and bundles are bots.
    #[arg(long, default_value = "checkpoints")]
    runs: PathBuf,
    /// The address to listen on. The default answers only this machine;
    /// `0.0.0.0` answers every network this machine is on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// auto, cpu, cuda or cuda:N, for the network bots.
    #[arg(long, default_value = "cpu")]
    device: dama_run::DeviceSpec,
    /// Threads that think for the bots of every game (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=bounds::MAX_WORKERS as u64))]
    workers: Option<u64>,
    /// Most simulations per decision a player may ask a bot for.
    #[arg(long, default_value_t = Limits::default().max_sims, value_parser = crate::args::sims)]
    max_sims: u32,
    /// Most thinking time per move a player may ask for, in milliseconds.
    #[arg(long, default_value_t = Limits::default().max_time_ms,
          value_parser = clap::value_parser!(u64).range(1..=bounds::MAX_TIME_MS))]
    max_time_ms: u64,
    /// Most alpha-beta depth a player may ask for.
    #[arg(long, default_value_t = Limits::default().max_depth,
          value_parser = clap::value_parser!(u32).range(1..=bounds::MAX_DEPTH as i64))]
    max_depth: u32,
    /// Most games held at once (idle games are dropped after an hour).
    #[arg(long, default_value_t = Limits::default().max_games as u64,
          value_parser = clap::value_parser!(u64).range(1..=bounds::MAX_GAMES as u64))]
    max_games: u64,
    /// Requests per second each client may send (0: no limit).
    #[arg(long, default_value_t = Limits::default().rate_per_sec,
          value_parser = clap::value_parser!(u32).range(0..=bounds::MAX_RATE as i64))]
    rate_limit: u32,
    /// Seed of the bots' random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Runs `dama serve` until Ctrl-C.
pub fn run(args: &ServeArgs) -> Result<()> {
    let spec: Option<BotSpec> = if let Some(s) = &args.bot {
        Some(s.parse().with_context(|| format!("bad --bot `{s}`"))?)
    } else {
        args.bundle.as_ref().map(|d| BotSpec::Bundle(d.clone()))
    };
    let bot_options = BotOptions {
        device: args.device,
        seed: args.seed,
        // The bot workers share the cores: one network copy each.
        lanes: Some(1),
        ..BotOptions::default()
    };
    if let Some(spec) = &spec {
        // Load it once now, as the game its network plays (any game for a
        // bot without one), so that a bad bot stops the server at the start.
        struct Load<'a>(&'a BotSpec, &'a BotOptions);
        impl dama_nn::WithGame for Load<'_> {
            type Output = Result<(), dama_bot::Error>;
            fn run<G: dama_game::GameDef>(self) -> Self::Output {
                Bot::<G>::new(self.0, self.1).map(drop)
            }
        }
        let game = spec
            .game()
            .with_context(|| format!("cannot load bot `{spec}`"))?
            .unwrap_or_default();
        game.with(Load(spec, &bot_options))
            .with_context(|| format!("cannot load bot `{spec}`"))?;
    }
    let mut limits = Limits {
        max_sims: args.max_sims,
        max_time_ms: args.max_time_ms,
        max_depth: args.max_depth,
        max_games: args.max_games as usize,
        rate_per_sec: args.rate_limit,
        ..Limits::default()
    };
    limits.rate_burst = limits.rate_per_sec.saturating_mul(2).max(limits.rate_burst);
    if let Some(w) = args.workers {
        limits.bot_workers = w as usize;
    }
    let options = ServeOptions {
        runs: args.runs.clone(),
        bot: spec,
        bot_options,
        limits,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let addr = if args.host.contains(':') && !args.host.starts_with('[') {
            format!("[{}]:{}", args.host, args.port)
        } else {
            format!("{}:{}", args.host, args.port)
        };
        let server = Server::bind(&addr, options).await?;
        let local = server.local_addr();
        outln!(
            "dama serve: http://{local}/ (runs from {})",
            args.runs.display()
        );
        if !local.ip().is_loopback() {
            outln!(
                "note: listening beyond this machine ({}); anyone who can reach it can play",
                local.ip()
            );
        }
        outln!("Ctrl-C stops the server.");
        server
            .run(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok::<(), anyhow::Error>(())
    })
}
