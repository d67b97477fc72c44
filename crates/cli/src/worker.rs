//! `dama worker`: a distributed run's self-play worker (of a network run,
//! or of a learned-evaluator run: the store's config says which).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use dama_run::dist::WorkerId;
use dama_selfplay::WorkerOptions;

use crate::runs::{stop_on_interrupt, Bars};

/// The most chunks `--max-chunks` may ask for.
const MAX_CHUNKS: u64 = 1_000_000;

/// Arguments of `dama worker`.
#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// The run's store: a directory (local or shared, e.g. NFS),
    /// `file:///path`, or with the `object-store` feature `s3://bucket/run`,
    /// `gs://…`, `az://…`.
    #[arg(long)]
    store: String,
    /// This worker's id, unique in the run (1-64 of A-Z a-z 0-9 . _ -;
    /// default: host-pid-random).
    #[arg(long)]
    worker_id: Option<WorkerId>,
    /// Override `[distributed] games_per_chunk` (1..=4096).
    #[arg(long)]
    games_per_chunk: Option<usize>,
    /// Stop after this many chunks (default: when the learner is done;
    /// at most 1000000).
    #[arg(long)]
    max_chunks: Option<u64>,
    /// Override `[distributed] poll_secs` (0.05..=3600).
    #[arg(long)]
    poll_secs: Option<f64>,
    /// Override `run.device`: auto, cpu, cuda or cuda:N.
    #[arg(long)]
    device: Option<dama_run::DeviceSpec>,
    /// Override `run.torch_threads` (0: one per core). One worker per core
    /// runs best with 1. A learned-evaluator run's worker (no network)
    /// plays that many games at once instead (`run.threads`).
    #[arg(long)]
    torch_threads: Option<usize>,
    /// Where networks downloaded from an object store are kept (default:
    /// ~/.cache/dama/worker/<id>).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// No progress bars (one line per chunk only).
    #[arg(long)]
    quiet: bool,
}

/// The host name, reduced to the characters of a worker id.
fn host_name() -> String {
    let raw = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "host".into());
    let name: String = raw
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    if name.is_empty() {
        "host".into()
    } else {
        name
    }
}

/// `host-pid-random`: unique per process (the random part tells apart two
/// processes that get the same pid on one host, such as in containers).
fn default_worker_id(host: &str) -> Result<WorkerId> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let local = 0u8;
    let salt = format!("{nanos}/{}/{:p}", std::process::id(), &local);
    let random = dama_run::files::fnv1a64(salt.as_bytes()) & 0xFFFF_FFFF;
    Ok(format!("{host}-{}-{random:08x}", std::process::id()).parse()?)
}

/// Runs `dama worker`.
pub fn run(args: &WorkerArgs) -> Result<()> {
    if args.max_chunks.is_some_and(|m| m == 0 || m > MAX_CHUNKS) {
        bail!("--max-chunks must be in 1..={MAX_CHUNKS}");
    }
    let host = host_name();
    let worker = match &args.worker_id {
        Some(id) => id.clone(),
        None => default_worker_id(&host)?,
    };
    let cache_dir = match &args.cache_dir {
        Some(d) => d.clone(),
        None => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir)
            .join(".cache/dama/worker")
            .join(worker.as_str()),
    };
    let stop = stop_on_interrupt(
        "interrupt: stopping (the unfinished chunk is dropped)",
        "second interrupt: exiting now",
    )?;
    eprintln!("dama worker {worker}: store {}", args.store);
    let opts = WorkerOptions {
        store: args.store.clone(),
        worker,
        host,
        cache_dir,
        games_per_chunk: args.games_per_chunk,
        poll_secs: args.poll_secs,
        max_chunks: args.max_chunks,
        device: args.device,
        torch_threads: args.torch_threads,
    };
    let bars = Bars::new(args.quiet);
    let summary = dama_selfplay::run_worker(&opts, &stop, &bars)
        .with_context(|| format!("worker {} on {}", opts.worker, opts.store))?;
    let s = &summary.status;
    outln!(
        "worker {}: {} chunks, {} games, {:.0} games/h{}",
        opts.worker,
        s.chunks,
        s.games,
        s.games_per_hour,
        if summary.learner_done {
            " (the learner is done)"
        } else {
            ""
        }
    );
    Ok(())
}
