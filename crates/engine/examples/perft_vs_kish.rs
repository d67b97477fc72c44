//! Times our perft and kish's on the same positions in one run, alternating
//! them, and prints nodes per second and the ratio.
//!
//! `cargo run --release -p dama-engine --example perft_vs_kish [ROUNDS]`

#![allow(clippy::unwrap_used)]

use std::time::Instant;

use dama_engine::{perft, Position, Rules};

const CASES: &[(&str, &str, u32)] = &[
    ("startpos", "startpos", 8),
    ("kings-4v4", "W:WKa1,Kc3,Ke5,Kg7:BKb8,Kd6,Kf4,Kh2", 5),
    (
        "midgame",
        "W:Wa2,b2,c2,e2,f2,g2,h2,a3,c3,d3,f3,h3,e4:Ba5,d5,a6,b6,c6,e6,g6,h6,a7,c7,d7,e7,f7,h7",
        7,
    ),
    (
        "kings-and-men",
        "B:Wa2,c3,d3,f2,g3,Kh1,Kb6:Bb7,c6,e6,f7,g6,Ka8,Kd4",
        8,
    ),
];

#[path = "../tests/support/kish_board.rs"]
mod kish_support;
use kish_support::kish_board;

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let rules = Rules::default();
    println!(
        "position       depth        ours nodes   ours Mn/s        kish nodes   kish Mn/s  ratio"
    );
    for &(name, fen, depth) in CASES {
        let pos: Position = fen.parse().unwrap();
        let board = kish_board(&pos);
        let (mut best_ours, mut best_kish) = (f64::MAX, f64::MAX);
        let (mut n_ours, mut n_kish) = (0, 0);
        for _ in 0..rounds {
            let t = Instant::now();
            n_ours = perft(&pos, &rules, depth);
            best_ours = best_ours.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            n_kish = board.perft(u64::from(depth));
            best_kish = best_kish.min(t.elapsed().as_secs_f64());
        }
        let (a, b) = (
            n_ours as f64 / best_ours / 1e6,
            n_kish as f64 / best_kish / 1e6,
        );
        println!(
            "{name:<14} {depth:>5} {n_ours:>17} {a:>11.1} {n_kish:>17} {b:>11.1} {:>6.2}",
            a / b
        );
    }
}
