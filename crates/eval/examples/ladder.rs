//! A small ladder from the command line: every player against every other,
//! one Elo scale anchored at `random` = 0.
//!
//! ```text
//! cargo run --release -p dama-eval --example ladder -- GAMES SPEC SPEC...
//! cargo run --release -p dama-eval --example ladder -- 20 random greedy mcts:sims=200 alphabeta:depth=2 alphabeta:depth=4
//! ```

use dama_draughts::Draughts;
use std::sync::Arc;

use dama_eval::{parse_player, run_ladder, BuildOptions, LadderConfig, MatchConfig, PlayerFactory};

fn main() -> Result<(), dama_eval::Error> {
    let mut args = std::env::args().skip(1);
    let games: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let mut specs: Vec<String> = args.collect();
    if specs.is_empty() {
        specs = vec!["random".into(), "greedy".into(), "alphabeta:depth=2".into()];
    }
    let players: Vec<Arc<dyn PlayerFactory<dama_draughts::Draughts>>> = specs
        .iter()
        .map(|s| parse_player::<Draughts>(s, &BuildOptions::default()))
        .collect::<Result<_, _>>()?;
    let config = LadderConfig {
        matches: MatchConfig {
            games,
            seed: 1,
            ..MatchConfig::default()
        },
        ..LadderConfig::default()
    };
    let result = run_ladder(&players, &config, &|_| {}, &mut |k, n, r| {
        eprintln!("[{}/{}] {}", k + 1, n, r);
    })?;
    println!("{}", result.table);
    Ok(())
}
