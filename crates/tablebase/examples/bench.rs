//! Probe speed from memory on one thread, without the `dama` binary:
//! `cargo run --release -p dama-tablebase --example bench -- [DIR] [PROBES]`.
//! Random positions of every loaded split (men on ranks 2–7), probed in a
//! loop over 65536 of them (so the tables, not the position list, miss the
//! cache).

use std::time::Instant;

use dama_tablebase::Tablebase;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "tablebases".into());
    let probes: u64 = args
        .next()
        .map(|p| p.parse())
        .transpose()?
        .unwrap_or(20_000_000);
    let t = Instant::now();
    let tb = Tablebase::open(&dir)?;
    let mem: usize = tb.tables().iter().map(|t| t.memory_len()).sum();
    println!(
        "opened {} tables ({mem} bytes in memory) in {:.2} s",
        tb.tables().len(),
        t.elapsed().as_secs_f64()
    );
    let positions = dama_tablebase::sample_positions(&tb, 1 << 16, 1);
    let start = Instant::now();
    let cpu0 = cpu_ns();
    let mut decisive = 0u64;
    for i in 0..probes {
        let p = &positions[(i as usize) & ((1 << 16) - 1)];
        if let Some(v) = tb.probe(std::hint::black_box(p)) {
            decisive += u64::from(v.wdl.score() != 0);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{probes} probes in {secs:.3} s wall: {:.2} M probes/s, {:.0} ns each ({decisive} decisive)",
        probes as f64 / secs / 1e6,
        secs * 1e9 / probes as f64
    );
    if let (Some(a), Some(b)) = (cpu0, cpu_ns()) {
        let cpu = (b - a) as f64 / 1e9;
        println!(
            "on-CPU time of this thread {cpu:.3} s: {:.2} M probes/s per core, {:.0} ns each",
            probes as f64 / cpu / 1e6,
            cpu * 1e9 / probes as f64
        );
    }
    Ok(())
}

/// Nanoseconds this thread has run on a CPU (Linux), so a busy machine's
/// waiting time does not count.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}
