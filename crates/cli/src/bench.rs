//! `dama bench selfplay`: self-play throughput against pure inference.
//! `dama bench search`: the alpha-beta engine's nodes/s with the handcrafted
//! and a learned evaluation on the same positions, in one run.
//!
//! Plays a batch of self-play games with a freshly initialised network of
//! the config's shape, then times the same network on random positions at
//! the batch size self-play achieved. The ratio of the two evaluation rates
//! says what search, move generation and batching cost on top of the network.

use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use dama_nn::{BatchBuilder, Network, NnEvaluator};
use dama_selfplay::selfplay::EvalCache;
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
    /// Network evaluations per second in self-play ÷ pure inference over
    /// the same batch sizes.
    Selfplay(SelfplayBenchArgs),
    /// Alpha-beta nodes per second with the handcrafted evaluation and with
    /// a learned one, alternated over the same positions.
    Search(SearchBenchArgs),
}

#[derive(Args, Debug)]
struct SearchBenchArgs {
    /// The learned evaluation, `shipped` or a file (default: a random network of the same
    /// architecture: speed does not depend on the weights).
    #[arg(long)]
    eval: Option<String>,
    /// Positions, taken from seeded random games.
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    positions: u32,
    /// Depth of each search.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// Rounds; each searches every position with both evaluations, in
    /// alternating order.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    rounds: u32,
}

#[derive(Args, Debug)]
struct SelfplayBenchArgs {
    /// The run config whose model, search and self-play sections are used.
    #[arg(long)]
    config: std::path::PathBuf,
    /// Games to play, 1 to 100000.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    games: u32,
    /// Thread settings to compare, as RAYON:TORCH[:LANES] (search workers,
    /// libtorch threads per call, network copies evaluating each batch at
    /// once, 0 = one per core; e.g. `1:2:1,1:1:2`); default: the config's
    /// `threads`, `torch_threads` and `inference_threads`.
    #[arg(long, value_delimiter = ',')]
    threads: Vec<String>,
}

/// Runs `dama bench`.
pub fn run(args: &BenchArgs) -> Result<()> {
    match &args.what {
        BenchKind::Selfplay(a) => selfplay(a),
        BenchKind::Search(a) => search(a),
    }
}

fn search(args: &SearchBenchArgs) -> Result<()> {
    use dama_draughts::{AlphaBeta, Evaluation, SearchLimits};
    let learned = match &args.eval {
        Some(text) => {
            let source = dama_game::EvalSource::parse(text);
            Evaluation::of_spec(Some(&source), None)
                .with_context(|| format!("cannot load the evaluator {source}"))?
        }
        None => {
            let net = dama_draughts::Network::from_float(&dama_nnue::FloatNet::random::<
                dama_draughts::DraughtsFeatures,
            >(
                &dama_engine::Rules::default(), 1
            ))?;
            Evaluation::Learned {
                evaluator: dama_game::EvalSource::File("random network".into()),
                network: std::sync::Arc::new(net),
            }
        }
    };
    let rules = learned.rules().copied().unwrap_or_default();
    let simd = match &learned {
        Evaluation::Learned { network, .. } => network.simd().to_string(),
        Evaluation::Handcrafted => String::new(),
    };
    // Positions from seeded random games, a few plies into each.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
    let mut positions = Vec::new();
    while positions.len() < args.positions as usize {
        let mut pos = dama_engine::Position::startpos_with_rules(rules);
        let plies = 6 + positions.len() % 40;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            let Some(m) = moves.choose(&mut rng) else {
                break;
            };
            pos.play_unchecked(m);
        }
        if pos.legal_moves().len() > 1 && !pos.is_game_over() {
            positions.push(pos);
        }
    }
    let cpu = dama_nn::cpu::cpu_model().unwrap_or_else(|| "unknown CPU".into());
    outln!(
        "dama bench search: {} positions × {} rounds at depth {}, one thread, {cpu}, learned evaluation on {simd}",
        positions.len(),
        args.rounds,
        args.depth
    );
    let evaluations = [
        ("handcrafted", Evaluation::Handcrafted),
        ("learned", learned),
    ];
    let mut totals = [(0u64, 0f64); 2];
    for round in 0..args.rounds {
        for k in 0..2 {
            let i = (k + round as usize) % 2;
            let mut engine = AlphaBeta::new(16).with_evaluation(evaluations[i].1.clone());
            for pos in &positions {
                engine.clear();
                let r = engine.search(pos, &[], SearchLimits::depth(args.depth));
                totals[i].0 += r.nodes;
                totals[i].1 += r.elapsed.as_secs_f64();
            }
        }
    }
    outln!(
        "{:<12} {:>14} {:>10} {:>12}",
        "evaluation",
        "nodes",
        "seconds",
        "nodes/s"
    );
    let nps: Vec<f64> = totals
        .iter()
        .map(|(n, s)| *n as f64 / s.max(1e-9))
        .collect();
    for ((name, _), ((n, s), v)) in evaluations.iter().zip(totals.iter().zip(&nps)) {
        outln!("{name:<12} {n:>14} {s:>10.2} {v:>12.0}");
    }
    outln!(
        "learned / handcrafted nodes/s: {:.2}",
        nps[1] / nps[0].max(1e-9)
    );
    Ok(())
}

/// One thread setting of `dama bench selfplay`.
#[derive(Clone, Copy, Debug)]
struct ThreadSetting {
    rayon: usize,
    torch: usize,
    lanes: usize,
}

fn parse_setting(s: &str) -> Result<ThreadSetting> {
    let parts: Vec<&str> = s.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        anyhow::bail!("`{s}`: expected RAYON:TORCH[:LANES], e.g. 1:1:2");
    }
    let n = |p: &str| crate::args::threads(p).map_err(|e| anyhow::anyhow!("`{s}`: {e}"));
    Ok(ThreadSetting {
        rayon: n(parts[0])?,
        torch: n(parts[1])?,
        lanes: match parts.get(2) {
            Some(p) => n(p)?,
            None => 1,
        },
    })
}

fn selfplay(args: &SelfplayBenchArgs) -> Result<()> {
    let mut cfg = RunConfig::load(&args.config)?;
    cfg.selfplay.games_per_generation = args.games as usize;
    let settings: Vec<ThreadSetting> = if args.threads.is_empty() {
        vec![ThreadSetting {
            rayon: cfg.run.threads,
            torch: cfg.run.torch_threads,
            lanes: cfg.run.inference_threads,
        }]
    } else {
        args.threads
            .iter()
            .map(|s| parse_setting(s))
            .collect::<Result<_>>()?
    };
    let device = dama_nn::device::resolve(cfg.run.device)?;
    dama_nn::device::manual_seed(cfg.run.seed);
    let net = Network::new(&cfg.model, device)?;
    // The precision self-play runs at (`[selfplay] precision`: `auto` is
    // bf16 where this CPU runs it fast).
    let precision = cfg
        .selfplay
        .precision
        .resolve(device, dama_nn::CpuFeatures::detect());
    outln!(
        "self-play bench: {} games, model {}x{}, {} {} sims, {} games in flight, device {}",
        args.games,
        cfg.model.blocks,
        cfg.model.channels,
        cfg.search.simulations,
        format!("{:?}", cfg.search.algorithm).to_lowercase(),
        cfg.selfplay.parallel_games,
        dama_nn::device::describe(device)
    );
    let cpu = dama_nn::cpu::cpu_model().unwrap_or_else(|| "unknown CPU".into());
    outln!("cpu: {cpu}, precision {precision:?}");
    outln!(
        "{:>6} {:>6} {:>6} {:>10} {:>12} {:>10} {:>14} {:>7} {:>10} {:>6}",
        "rayon",
        "torch",
        "lanes",
        "games/h",
        "evals/s",
        "avg batch",
        "inference/s",
        "ratio",
        "net share",
        "cores"
    );
    for setting in settings {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(dama_nn::device::or_cores(setting.rayon))
            .build()
            .context("cannot build the thread pool")?;
        let torch_threads = dama_nn::device::or_cores(setting.torch);
        dama_nn::device::set_torch_threads(torch_threads);
        let mut evaluator = NnEvaluator::with_lanes(
            &net,
            device,
            precision,
            dama_nn::device::or_cores(setting.lanes),
        )?;
        // The cache is off: a hit is not a network evaluation, and the ratio
        // compares network evaluations.
        let mut cache = EvalCache::new(0);
        let run = dama_selfplay::selfplay::RunGames {
            selfplay: &cfg.selfplay,
            search: &cfg.search,
            rules: cfg.game_rules(),
            tables: dama_game::AnyTables::none(),
            generation: 1,
            seed: cfg.run.seed,
            net: &mut evaluator,
            cache: &mut cache,
            on_game: |_: &_, _: &_| Ok(()),
            stop: || false,
        };
        let (_, stats) = pool.install(|| dama_selfplay::selfplay::play_run_games(run))?;
        let pure = pure_inference(
            &evaluator,
            &stats.batch_histogram,
            cfg.run.seed,
            &cfg.game_rules(),
        )?;
        outln!(
            "{:>6} {:>6} {:>6} {:>10.0} {:>12.0} {:>10.1} {:>14.0} {:>7.3} {:>10.3} {:>6.2}",
            pool.current_num_threads(),
            torch_threads,
            evaluator.lanes(),
            stats.games_per_hour(),
            stats.evals_per_sec(),
            stats.avg_batch(),
            pure,
            stats.evals_per_sec() / pure,
            stats.net_time.as_secs_f64() / stats.elapsed.as_secs_f64().max(1e-9),
            stats.cores_busy()
        );
    }
    Ok(())
}

/// Positions per second of the bare network over the same mix of batch
/// sizes as self-play had (`histogram[b]` calls of `b` positions), on
/// positions from random games: each size is timed on its own, and the rate
/// is Σ calls·b / Σ calls·time(b).
fn pure_inference(
    evaluator: &NnEvaluator,
    histogram: &[u64],
    seed: u64,
    rules: &dama_nn::GameRules,
) -> Result<f64> {
    let max = histogram.len().saturating_sub(1).max(1);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let shape = rules.name().encoding().shape;
    let mut inputs = BatchBuilder::for_shape(shape);
    // Positions after 20 random whole moves of the game.
    struct Positions<'a> {
        rules: &'a dama_nn::GameRules,
        inputs: &'a mut BatchBuilder,
        rng: &'a mut rand_chacha::ChaCha8Rng,
        n: usize,
    }
    impl dama_nn::WithGame for Positions<'_> {
        type Output = ();
        fn run<G: dama_game::GameDef>(self) {
            let rules = self.rules.get::<G>().unwrap_or_default();
            for _ in 0..self.n {
                let game = dama_selfplay::selfplay::opening::<G>(&rules, 20, self.rng);
                self.inputs.push_state(&G::search_state(&game));
            }
        }
    }
    rules.name().with(Positions {
        rules,
        inputs: &mut inputs,
        rng: &mut rng,
        n: max,
    });
    let (mut positions, mut seconds) = (0.0f64, 0.0f64);
    for (b, &calls) in histogram.iter().enumerate() {
        if b == 0 || calls == 0 {
            continue;
        }
        let input = &inputs.planes_slice()[..b * shape.planes_len()];
        evaluator.infer(input, b)?; // warm-up
        let reps = calls.clamp(3, 30);
        let start = Instant::now();
        for _ in 0..reps {
            evaluator.infer(input, b)?;
        }
        let per_call = start.elapsed().as_secs_f64() / reps as f64;
        positions += (calls * b as u64) as f64;
        seconds += calls as f64 * per_call;
    }
    Ok(positions / seconds.max(1e-12))
}
