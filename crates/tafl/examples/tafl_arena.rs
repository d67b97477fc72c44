//! Baseline players against each other, with results per side:
//! `cargo run --release -p dama-tafl --example tafl_arena -- [GAMES] [A] [B]`
//! where A and B are `random`, `greedy` or `ab:N`; A plays the Defenders
//! in the first half of the games and the King side in the second.

use dama_tafl::players::{play_out, Baseline};
use dama_tafl::{Game, Side, TaflRules};
use rand::SeedableRng;

fn parse(s: &str) -> Baseline {
    match s {
        "random" => Baseline::Random,
        "greedy" => Baseline::Greedy,
        _ => Baseline::AlphaBeta(
            s.strip_prefix("ab:")
                .and_then(|d| d.parse().ok())
                .unwrap_or_else(|| {
                    eprintln!("a player is random, greedy or ab:N, not `{s}`");
                    std::process::exit(2)
                }),
        ),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: usize = args.first().and_then(|g| g.parse().ok()).unwrap_or(40);
    let a = parse(args.get(1).map_or("ab:2", String::as_str));
    let b = parse(args.get(2).map_or("random", String::as_str));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let t = std::time::Instant::now();
    for a_side in Side::ALL {
        let (mut won, mut drawn, mut plies) = (0, 0, 0);
        let n = games / 2;
        for _ in 0..n {
            let (d, k) = match a_side {
                Side::Defender => (a, b),
                Side::KingSide => (b, a),
            };
            let g = play_out(Game::new(TaflRules::default()), d, k, &mut rng);
            let o = g.outcome().expect("over");
            won += usize::from(o.winner == Some(a_side));
            drawn += usize::from(o.winner.is_none());
            plies += g.plies();
        }
        println!(
            "{a} as {a_side} vs {b}: +{won} ={drawn} -{} of {n} ({:.0} plies/game)",
            n - won - drawn,
            plies as f64 / n.max(1) as f64
        );
    }
    println!("{:.1} s", t.elapsed().as_secs_f64());
}
