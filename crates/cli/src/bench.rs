//! `dama bench selfplay`: self-play throughput against pure inference.
//!
//! Plays a batch of self-play games with a freshly initialised network of
//! the config's shape, then times the same network on random positions at
//! the batch size self-play achieved. The ratio of the two evaluation rates
//! says what search, move generation and batching cost on top of the network.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use dama_engine::Game;
use dama_nn::encode::{self, PLANES_LEN};
use dama_nn::{Network, NnEvaluator, Precision};
use dama_selfplay::selfplay::{play_games, EvalCache, SelfplayJob};
use dama_selfplay::RunConfig;
use rand::seq::SliceRandom;
use rand::SeedableRng;

/// Arguments of `dama bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchKind,
}

#[derive(Subcommand, Debug)]
enum BenchKind {
    /// Network evaluations per second in self-play ÷ pure inference at the
    /// same batch size.
    Selfplay(SelfplayBenchArgs),
}

#[derive(Args, Debug)]
struct SelfplayBenchArgs {
    /// The run config whose model, search and self-play sections are used.
    #[arg(long)]
    config: std::path::PathBuf,
    /// Games to play.
    #[arg(long, default_value_t = 32)]
    games: usize,
    /// Thread settings to compare, as RAYON:TORCH pairs (e.g. `1:1,1:2,2:1,2:2`);
    /// default: the config's.
    #[arg(long, value_delimiter = ',')]
    threads: Vec<String>,
}

/// Runs `dama bench`.
pub fn run(args: &BenchArgs) -> Result<()> {
    match &args.what {
        BenchKind::Selfplay(a) => selfplay(a),
    }
}

fn parse_pair(s: &str) -> Result<(usize, usize)> {
    let (a, b) = s
        .split_once(':')
        .with_context(|| format!("`{s}`: expected RAYON:TORCH, e.g. 2:1"))?;
    Ok((
        a.parse()
            .with_context(|| format!("`{a}` is not a thread count"))?,
        b.parse()
            .with_context(|| format!("`{b}` is not a thread count"))?,
    ))
}

fn selfplay(args: &SelfplayBenchArgs) -> Result<()> {
    let mut cfg = RunConfig::load(&args.config)?;
    cfg.selfplay.games_per_generation = args.games;
    let settings: Vec<(usize, usize)> = if args.threads.is_empty() {
        vec![(cfg.run.threads, cfg.run.torch_threads)]
    } else {
        args.threads
            .iter()
            .map(|s| parse_pair(s))
            .collect::<Result<_>>()?
    };
    let device = dama_nn::device::parse_device(&cfg.run.device)?;
    dama_nn::device::manual_seed(cfg.run.seed);
    let net = Network::new(&cfg.model, device)?;
    println!(
        "self-play bench: {} games, model {}x{}, {} {} sims, {} games in flight, device {}",
        args.games,
        cfg.model.blocks,
        cfg.model.channels,
        cfg.search.simulations,
        format!("{:?}", cfg.search.algorithm).to_lowercase(),
        cfg.selfplay.parallel_games,
        dama_nn::device::describe(device)
    );
    println!(
        "{:>6} {:>6} {:>10} {:>12} {:>10} {:>14} {:>7}",
        "rayon", "torch", "games/h", "evals/s", "avg batch", "inference/s", "ratio"
    );
    for (rayon_threads, torch_threads) in settings {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(rayon_threads)
            .build()
            .context("cannot build the thread pool")?;
        dama_nn::device::set_torch_threads(torch_threads.max(1));
        let mut evaluator = NnEvaluator::new(&net, device, Precision::F32)?;
        let job = SelfplayJob {
            selfplay: &cfg.selfplay,
            search: &cfg.search,
            rules: cfg.rules,
            generation: 1,
            seed: cfg.run.seed,
        };
        // The cache is off: a hit is not a network evaluation, and the ratio
        // compares network evaluations.
        let mut cache = EvalCache::new(0);
        let stop = AtomicBool::new(false);
        let (_, stats) = pool.install(|| {
            play_games(
                &job,
                &mut evaluator,
                &mut cache,
                |_, _| Ok(()),
                || stop.load(std::sync::atomic::Ordering::Relaxed),
            )
        })?;
        let batch = stats.avg_batch().round().max(1.0) as usize;
        let pure = pure_inference(&evaluator, batch, cfg.run.seed)?;
        println!(
            "{:>6} {:>6} {:>10.0} {:>12.0} {:>10.1} {:>14.0} {:>7.3}",
            pool.current_num_threads(),
            torch_threads.max(1),
            stats.games_per_hour(),
            stats.evals_per_sec(),
            stats.avg_batch(),
            pure,
            stats.evals_per_sec() / pure
        );
    }
    Ok(())
}

/// Positions per second of the bare network at batch size `batch`, on
/// positions from random games, for about two seconds.
fn pure_inference(evaluator: &NnEvaluator, batch: usize, seed: u64) -> Result<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut planes = vec![0.0f32; batch * PLANES_LEN];
    for chunk in planes.chunks_exact_mut(PLANES_LEN) {
        let mut game = Game::new();
        for _ in 0..20 {
            if game.is_game_over() {
                break;
            }
            let moves = game.legal_moves();
            if let Some(m) = moves.as_slice().choose(&mut rng).copied() {
                game.play_unchecked(&m);
            }
        }
        encode::encode_planes(&game, chunk);
    }
    evaluator.infer(&planes, batch)?; // warm-up
    let start = Instant::now();
    let mut n = 0usize;
    while start.elapsed().as_secs_f64() < 2.0 {
        evaluator.infer(&planes, batch)?;
        n += batch;
    }
    Ok(n as f64 / start.elapsed().as_secs_f64())
}
