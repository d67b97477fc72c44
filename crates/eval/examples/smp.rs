//! Lazy SMP: nodes per second and depth reached with one thread and with
//! more, over the same positions at the same time per position (default 20
//! positions from random games, 200 ms each, 1 thread against 2).
//!
//! ```text
//! cargo run --release -p dama-eval --example smp [-- MS [POSITIONS [THREADS...]]]
//! ```
//!
//! Each position gets a fresh engine (16 MiB table) per thread count, so no
//! run profits from another's table. Timings depend on the machine's load.

use std::time::Duration;

use dama_draughts::{AlphaBeta, SearchLimits};
use dama_engine::{Game, Position};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = vec![Position::startpos()];
    while out.len() < count {
        let mut game = Game::new();
        for _ in 0..rng.gen_range(4..60) {
            if game.outcome().is_some() {
                break;
            }
            let moves = game.legal_moves();
            let m = moves[rng.gen_range(0..moves.len())];
            game.play_unchecked(&m);
        }
        let pos = *game.position();
        if game.outcome().is_none() && pos.legal_moves().len() > 1 {
            out.push(pos);
        }
    }
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let count: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let mut threads: Vec<usize> = args.filter_map(|a| a.parse().ok()).collect();
    if threads.is_empty() {
        threads = vec![1, 2];
    }
    let limits = SearchLimits::time(Duration::from_millis(ms));
    let set = positions(count, 2024);

    print!("{:>3} {:>6}", "#", "moves");
    for t in &threads {
        print!(
            " | {:>9} {:>5} {:>9}",
            format!("nodes T{t}"),
            "depth",
            "knps"
        );
    }
    println!();
    // Per thread count: total nodes, total depth, total seconds, same move
    // as the first thread count.
    let mut totals = vec![(0u64, 0u64, 0f64, 0usize); threads.len()];
    for (i, pos) in set.iter().enumerate() {
        print!("{i:>3} {:>6}", pos.legal_moves().len());
        let mut first_move = None;
        for (k, &t) in threads.iter().enumerate() {
            let mut engine = AlphaBeta::new(16).with_threads(t);
            let r = engine.search(pos, &[], limits);
            print!(" | {:>9} {:>5} {:>9.0}", r.nodes, r.depth, r.nps() / 1e3);
            let total = &mut totals[k];
            total.0 += r.nodes;
            total.1 += u64::from(r.depth);
            total.2 += r.elapsed.as_secs_f64();
            if k == 0 {
                first_move = r.best;
            }
            total.3 += usize::from(r.best == first_move);
        }
        println!();
    }
    println!();
    for (k, t) in threads.iter().enumerate() {
        let (nodes, depth, secs, same) = totals[k];
        println!(
            "threads {t}: {:.0} knodes/s, mean depth {:.2}, same move as {} thread(s) in {same}/{}",
            nodes as f64 / secs / 1e3,
            depth as f64 / set.len() as f64,
            threads[0],
            set.len()
        );
    }
}
