//! Generates tables without the `dama` binary (no libtorch needed):
//! `cargo run --release -p dama-tablebase --example generate -- PIECES [DIR] [THREADS] [ONLY]`.
//! `ONLY` (a split name such as `KKKvK`) stops after that split; the splits
//! it needs are generated first.

use std::time::Instant;

use dama_engine::Rules;
use dama_tablebase::{Event, Generator};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let pieces: u32 = args
        .next()
        .ok_or("usage: generate PIECES [DIR] [THREADS] [ONLY]")?
        .parse()?;
    let dir = args.next().unwrap_or_else(|| "tablebases".into());
    let threads: usize = args.next().map(|t| t.parse()).transpose()?.unwrap_or(0);
    let only = args.next();
    let start = Instant::now();
    let reports = Generator::new(&dir, Rules::default())
        .threads(threads)
        .generate_until(pieces, only.as_deref(), &|e| {
            if let Event::Finished(r) = e {
                let c = r.stats.counts;
                let sum = |k: usize| c[0][k] + c[1][k];
                println!(
                    "{:>8} {:>8.2} s {:>11} solved {:>11} entries {:>10} bytes  W {} CW {} D {} BL {} L {}{}",
                    r.material.to_string(),
                    r.secs,
                    r.solved,
                    r.entries,
                    r.file_len,
                    sum(0),
                    sum(1),
                    sum(2),
                    sum(3),
                    sum(4),
                    if r.existed { " (existed)" } else { "" }
                );
            }
        })?;
    let secs = start.elapsed().as_secs_f64();
    let solved: u64 = reports.iter().map(|r| r.solved).sum();
    let bytes: u64 = reports.iter().map(|r| r.file_len).sum();
    println!(
        "{} splits, {bytes} bytes, {solved} positions solved in {secs:.1} s ({:.2} M/s)",
        reports.len(),
        solved as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}
