//! Perft of Turkish Tafl from the initial position (or a position given as
//! the first argument), and how random games end.
//!
//! `cargo run --release -p dama-tafl --example tafl_perft -- [POSITION] [DEPTH]`

use std::collections::BTreeMap;

use dama_tafl::{perft, Game, Position, TaflRules};
use rand::{Rng, SeedableRng};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rules = TaflRules::default();
    let game = match args.first().filter(|a| a.contains(':') || *a == "startpos") {
        Some(text) => match text.parse::<Position>() {
            Ok(p) => Game::from_position(p, rules),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        },
        None => Game::new(rules),
    };
    let depth: u32 = args.last().and_then(|a| a.parse().ok()).unwrap_or(5);
    for d in 1..=depth {
        let t = std::time::Instant::now();
        let n = perft(&game, d);
        let s = t.elapsed().as_secs_f64();
        println!("perft {d}: {n} ({:.0} nodes/s)", n as f64 / s.max(1e-9));
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut ends: BTreeMap<String, usize> = BTreeMap::new();
    let mut plies = 0;
    let n = 2000;
    for _ in 0..n {
        let mut g = Game::new(rules);
        while g.outcome().is_none() {
            let moves = g.legal_moves();
            let m = &moves[rng.gen_range(0..moves.len())];
            g.play(m).expect("legal");
        }
        plies += g.plies();
        let o = g.outcome().expect("over");
        *ends
            .entry(format!("{:?} by {}", o.winner, o.termination))
            .or_default() += 1;
    }
    println!(
        "{n} random games, {:.1} plies on average:",
        plies as f64 / n as f64
    );
    for (k, v) in ends {
        println!("  {v:5} {k}");
    }
}
