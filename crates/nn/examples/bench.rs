//! Inference and training throughput of the network on this machine.
//!
//! ```text
//! cargo run --release -p dama-nn --example bench -- [--threads N] [--model default|quick]
//!     [--batches 1,2,4,...] [--train-batches 64,256] [--seconds S] [--json FILE] [--export DIR]
//!     [--closeness N]
//! ```
//!
//! `--closeness N` compares bf16 with fp32 evaluations on N positions.
//!
//! Prints one line per measurement and, with `--json`, writes them as JSON
//! lines for `scripts/bench-nn.sh`, which runs `scripts/bench_torch.py` on the
//! same figures. `--export DIR` also writes the network's weights, a random
//! input and the outputs, so the Python script can check that it builds the
//! same function.

use std::io::Write;
use std::time::Instant;

use dama_draughts::encode;
use dama_nn::{
    Batch, BatchBuilder, ModelConfig, Network, NnEvaluator, Precision, TrainConfig, Trainer,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tch::{Device, Kind, Tensor};

struct Args {
    threads: usize,
    model: String,
    batches: Vec<usize>,
    train_batches: Vec<usize>,
    seconds: f64,
    json: Option<String>,
    export: Option<String>,
    closeness: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        threads: 2,
        model: "default".into(),
        batches: vec![1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
        train_batches: vec![64, 256],
        seconds: 1.0,
        json: None,
        export: None,
        closeness: 0,
    };
    let mut it = std::env::args().skip(1);
    let list = |s: String| -> Result<Vec<usize>, String> {
        s.split(',')
            .map(|x| x.trim().parse().map_err(|e| format!("{x}: {e}")))
            .collect()
    };
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--threads" => a.threads = val()?.parse().map_err(|e| format!("{e}"))?,
            "--model" => a.model = val()?,
            "--batches" => a.batches = list(val()?)?,
            "--train-batches" => a.train_batches = list(val()?)?,
            "--seconds" => a.seconds = val()?.parse().map_err(|e| format!("{e}"))?,
            "--json" => a.json = Some(val()?),
            "--export" => a.export = Some(val()?),
            "--closeness" => a.closeness = val()?.parse().map_err(|e| format!("{e}"))?,
            "--bench" => {} // passed by `cargo bench`
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

/// CPU time (user + system) of this process so far, in seconds, from
/// `/proc/self/stat` (clock ticks of 10 ms; `scripts/bench_torch.py` reads
/// the same counters).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(") ").map_or("", |(_, r)| r);
    let f: Vec<f64> = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<f64>() / 100.0
}

/// Runs `f` (which processes `per_call` items) after a warm-up until it has
/// used `seconds` of CPU time (and at least 3 calls), and returns items per
/// wall-clock second and items per CPU second. On a loaded machine the
/// second figure is the steadier one.
fn throughput(seconds: f64, per_call: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    f();
    let start = Instant::now();
    let cpu0 = cpu_seconds();
    let mut calls = 0usize;
    while calls < 3 || cpu_seconds() - cpu0 < seconds {
        f();
        calls += 1;
    }
    let items = (calls * per_call) as f64;
    (
        items / start.elapsed().as_secs_f64(),
        items / (cpu_seconds() - cpu0).max(0.01),
    )
}

fn random_planes(rng: &mut StdRng, n: usize) -> Vec<f32> {
    (0..n * encode::PLANES_LEN)
        .map(|_| if rng.gen_bool(0.2) { 1.0 } else { 0.0 })
        .collect()
}

fn random_batch(rng: &mut StdRng, n: usize) -> Result<Batch, dama_nn::Error> {
    let mut builder = BatchBuilder::for_shape(encode::SHAPE);
    for _ in 0..n {
        let mut row = builder.push_sample();
        row.planes
            .mapv_inplace(|_| if rng.gen_bool(0.2) { 1.0 } else { 0.0 });
        let legal: std::collections::BTreeSet<usize> = (0..10)
            .map(|_| rng.gen_range(0..encode::POLICY_SIZE))
            .collect();
        for &j in &legal {
            row.set_action(j, 1.0 / legal.len() as f32)?;
        }
        row.wdl[rng.gen_range(0..3)] = 1.0;
    }
    builder.to_batch(Device::Cpu)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    tch::set_num_threads(args.threads as i32);
    tch::manual_seed(0);
    let config = match args.model.as_str() {
        "default" => ModelConfig::default(),
        "quick" => ModelConfig::quick(),
        other => return Err(format!("unknown model {other}").into()),
    };
    let mut rng = StdRng::seed_from_u64(0);
    let net = Network::new(&config, Device::Cpu)?;
    eprintln!(
        "rust/tch: model {} ({} blocks x {} channels, {} parameters), {} torch threads",
        args.model,
        config.blocks,
        config.channels,
        net.num_parameters(),
        tch::get_num_threads()
    );
    let mut rows = Vec::new();
    let mut record = |kind: &str, precision: &str, batch: usize, (per_sec, per_cpu): (f64, f64)| {
        println!(
            "rust  {kind:<6} {precision:<5} batch {batch:>4}  {per_sec:>10.1} /s  {per_cpu:>10.1} /cpu-s"
        );
        rows.push(format!(
            r#"{{"impl":"rust","kind":"{kind}","precision":"{precision}","batch":{batch},"per_sec":{per_sec:.3},"per_cpu_sec":{per_cpu:.3}}}"#
        ));
    };

    for precision in [Precision::F32, Precision::Bf16] {
        let eval = NnEvaluator::new(&net, Device::Cpu, precision)?;
        let name = match precision {
            Precision::F32 => "fp32",
            Precision::Bf16 => "bf16",
        };
        for &b in &args.batches {
            let planes = random_planes(&mut rng, b);
            let mut err = None;
            let r = throughput(args.seconds, b, || {
                if let Err(e) = eval.infer(&planes, b) {
                    err = Some(e);
                }
            });
            if let Some(e) = err {
                return Err(e.into());
            }
            record("infer", name, b, r);
        }
    }

    for &b in &args.train_batches {
        let batch = random_batch(&mut rng, b)?;
        let mut trainer = Trainer::new(
            net.copy_to(Device::Cpu, Kind::Float)?,
            TrainConfig::default(),
        )?;
        let mut err = None;
        let r = throughput(args.seconds, b, || {
            if let Err(e) = trainer.train_step(&batch) {
                err = Some(e);
            }
        });
        if let Some(e) = err {
            return Err(e.into());
        }
        record("train", "fp32", b, r);
    }

    if let Some(path) = &args.json {
        let mut f = std::fs::File::create(path)?;
        for r in &rows {
            writeln!(f, "{r}")?;
        }
    }
    if let Some(dir) = &args.export {
        export(&net, dir, &mut rng)?;
    }
    if args.closeness > 0 {
        closeness(&net, args.closeness, &mut rng)?;
    }
    Ok(())
}

/// Compares bf16 with fp32 evaluations (priors over legal steps and WDL) on
/// `n` positions from random playouts, after briefly fitting the network to
/// random targets on those positions so that its outputs are far from
/// uniform.
fn closeness(net: &Network, n: usize, rng: &mut StdRng) -> Result<(), Box<dyn std::error::Error>> {
    let mut states = Vec::with_capacity(n);
    let mut game = dama_engine::Game::new();
    while states.len() < n {
        let steps = game.legal_steps();
        if steps.is_empty() || (game.pending_capture().is_none() && game.outcome().is_some()) {
            game = dama_engine::Game::new();
            continue;
        }
        if rng.gen_bool(0.1) {
            states.push(game.clone());
        }
        game.play_step(steps[rng.gen_range(0..steps.len())])?;
    }
    let mut builder = BatchBuilder::for_shape(encode::SHAPE);
    for g in &states {
        let mut row = builder.push_sample();
        encode::encode_planes(g, row.planes.as_slice_mut().expect("contiguous row"));
        let steps = g.legal_steps();
        for s in &steps {
            row.set_action(encode::policy_index(*s, g.turn()), 0.0)?;
        }
        let t = steps[rng.gen_range(0..steps.len())];
        row.policy[encode::policy_index(t, g.turn())] = 1.0;
        row.wdl[rng.gen_range(0..3)] = 1.0;
    }
    let batch = builder.to_batch(Device::Cpu)?;
    let cfg = TrainConfig {
        optimizer: dama_nn::OptimizerConfig::adamw(),
        lr: 2e-3,
        warmup_steps: 0,
        ..TrainConfig::default()
    };
    let mut trainer = Trainer::new(net.copy_to(Device::Cpu, Kind::Float)?, cfg)?;
    let mut last = None;
    for _ in 0..40 {
        last = Some(trainer.train_step(&batch)?);
    }
    let mut f32e = NnEvaluator::new(trainer.network(), Device::Cpu, Precision::F32)?;
    let mut bf16 = NnEvaluator::new(trainer.network(), Device::Cpu, Precision::Bf16)?;
    let states: Vec<_> = states
        .iter()
        .map(|g| dama_draughts::DamaState::new(g.clone()))
        .collect();
    let actions: Vec<Vec<_>> = states
        .iter()
        .map(|g| g.game().legal_steps().to_vec())
        .collect();
    let pairs: Vec<_> = states
        .iter()
        .zip(&actions)
        .map(|(g, a)| (g, a.as_slice()))
        .collect();
    let a = f32e.evaluate_states(&pairs)?;
    let b = bf16.evaluate_states(&pairs)?;
    let (mut max_p, mut sum_p, mut count, mut max_v, mut same_best) =
        (0f32, 0f64, 0usize, 0f32, 0usize);
    let argmax = |v: &[f32]| {
        v.iter()
            .enumerate()
            .fold((0, f32::MIN), |m, (i, &x)| if x > m.1 { (i, x) } else { m })
            .0
    };
    for (x, y) in a.iter().zip(&b) {
        for (p, q) in x.policy.iter().zip(&y.policy) {
            max_p = max_p.max((p - q).abs());
            sum_p += f64::from((p - q).abs());
            count += 1;
        }
        max_v = max_v.max((x.value.scalar() - y.value.scalar()).abs());
        same_best += usize::from(argmax(&x.policy) == argmax(&y.policy));
    }
    println!(
        "bf16 vs fp32 on {n} random-playout positions (network fitted 40 steps, loss {:.2}): \
         max |prior diff| {max_p:.4}, mean |prior diff| {:.5}, max |value diff| {max_v:.4} \
         (value = win - loss), same best step {:.1}%",
        last.map_or(f64::NAN, |m| m.loss),
        sum_p / count.max(1) as f64,
        100.0 * same_best as f64 / n as f64
    );
    Ok(())
}

/// Writes `net.safetensors`, a random input `[8, C, 8, 8]` and the
/// evaluation-mode outputs as raw little-endian f32 files.
fn export(net: &Network, dir: &str, rng: &mut StdRng) -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir)?;
    // Give the batch-norm statistics non-trivial values first.
    let mut trainer = Trainer::new(
        net.copy_to(Device::Cpu, Kind::Float)?,
        TrainConfig::default(),
    )?;
    for _ in 0..3 {
        trainer.train_step(&random_batch(rng, 32)?)?;
    }
    let net = trainer.network();
    let vars: Vec<(String, Tensor)> = net.var_store().variables().into_iter().collect();
    Tensor::write_safetensors(&vars, dir.join("net.safetensors"))?;
    let n = 8;
    let planes = random_planes(rng, n);
    let out = NnEvaluator::new(net, Device::Cpu, Precision::F32)?;
    let xs = Tensor::from_slice(&planes).view([n as i64, encode::NUM_PLANES as i64, 8, 8]);
    let o = tch::no_grad(|| out.network().forward_t(&xs, false));
    let write = |name: &str, t: &Tensor| -> Result<(), Box<dyn std::error::Error>> {
        let v = Vec::<f32>::try_from(&t.flatten(0, -1))?;
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(dir.join(name), bytes)?;
        Ok(())
    };
    write("input.f32", &xs)?;
    write("policy.f32", &o.policy)?;
    write("wdl.f32", &o.wdl)?;
    std::fs::write(
        dir.join("config.json"),
        serde_json::to_string(net.config())?,
    )?;
    Ok(())
}
