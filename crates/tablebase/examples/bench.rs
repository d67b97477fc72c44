//! Probe speed from memory on one thread, without the `dama` binary:
//! `cargo run --release -p dama-tablebase --example bench -- [DIR] [PROBES]`.
//! Random positions of every loaded split (men on ranks 2–7), probed in a
//! loop over 65536 of them (so the tables, not the position list, miss the
//! cache).

use std::time::Instant;

use dama_engine::{Bitboard, Color, Position};
use dama_tablebase::Tablebase;
use rand::{Rng, SeedableRng};

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
    let mats: Vec<_> = tb.tables().iter().map(|t| t.material()).collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut positions = Vec::with_capacity(1 << 16);
    while positions.len() < 1 << 16 {
        let m = mats[rng.gen_range(0..mats.len())];
        let mut occ = 0u64;
        let mut sets = [0u64; 4];
        for (g, k) in [m.white_men, m.white_kings, m.black_men, m.black_kings]
            .into_iter()
            .enumerate()
        {
            for _ in 0..k {
                loop {
                    let sq = if g % 2 == 0 {
                        rng.gen_range(8..56)
                    } else {
                        rng.gen_range(0..64)
                    };
                    if occ & (1 << sq) == 0 {
                        occ |= 1 << sq;
                        sets[g] |= 1 << sq;
                        break;
                    }
                }
            }
        }
        let turn = if rng.gen() {
            Color::White
        } else {
            Color::Black
        };
        if let Ok(p) = Position::from_bitboards(
            Bitboard(sets[0] | sets[1]),
            Bitboard(sets[2] | sets[3]),
            Bitboard(sets[1] | sets[3]),
            turn,
        ) {
            positions.push(p.with_rules(tb.rules()));
        }
    }
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
