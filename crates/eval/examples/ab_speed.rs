//! Alpha-beta speed: nodes per second and depth reached from the initial
//! position in a time budget (default 100 ms), and a fixed-depth search.
//!
//! ```text
//! cargo run --release -p dama-eval --example ab_speed [-- MS [DEPTH]]
//! ```

use std::time::Duration;

use dama_draughts::{AlphaBeta, SearchLimits};
use dama_engine::Position;

fn main() {
    let mut args = std::env::args().skip(1);
    let ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let depth: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(8);
    let pos = Position::startpos();

    for run in 0..3 {
        let mut engine = AlphaBeta::new(16);
        let r = engine.search(&pos, &[], SearchLimits::time(Duration::from_millis(ms)));
        println!(
            "time {ms} ms (run {run}): depth {} nodes {} in {:.1} ms = {:.0} nodes/s, best {}, score {}, pv {}",
            r.depth,
            r.nodes,
            r.elapsed.as_secs_f64() * 1e3,
            r.nps(),
            r.best.map(|m| m.to_string()).unwrap_or_default(),
            r.score,
            r.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")
        );
    }
    let mut engine = AlphaBeta::new(16);
    let r = engine.search(&pos, &[], SearchLimits::depth(depth));
    println!(
        "depth {depth}: nodes {} in {:.1} ms = {:.0} nodes/s, best {}, score {}",
        r.nodes,
        r.elapsed.as_secs_f64() * 1e3,
        r.nps(),
        r.best.map(|m| m.to_string()).unwrap_or_default(),
        r.score
    );
}
