//! Perft of one position, with nodes per second.
//!
//! `cargo run --release -p dama-engine --example perft -- [DEPTH] [POSITION] [RULES]`
//!
//! RULES is rules text (`variant=dameo`, quoted if it has spaces); POSITION
//! is read under it (`startpos` is the variant's initial position).

use std::time::Instant;

use dama_engine::{perft, Position, Rules};

fn main() {
    let mut args = std::env::args().skip(1);
    let depth: u32 = args.next().and_then(|s| s.parse().ok()).unwrap_or(8);
    let text = args.next().unwrap_or_else(|| "startpos".to_owned());
    let rules: Rules = match args.next().unwrap_or_default().parse() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bad rules: {e}");
            std::process::exit(2);
        }
    };
    let pos = match Position::from_str_with_rules(&text, rules) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bad position: {e}");
            std::process::exit(2);
        }
    };
    let t = Instant::now();
    let nodes = perft(&pos, &rules, depth);
    let s = t.elapsed().as_secs_f64();
    println!(
        "perft {depth}: {nodes} nodes in {s:.3} s, {:.1} M nodes/s",
        nodes as f64 / s / 1e6
    );
}
