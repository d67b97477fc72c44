//! `dama games`: print or export recorded self-play games.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use dama_selfplay::record;

/// Arguments of `dama games`.
#[derive(Args, Debug)]
pub struct GamesArgs {
    /// Game chunk files (`*.games`) or directories of them.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Export as PDN-like text (headers, numbered moves, result) instead of
    /// one line per game.
    #[arg(long)]
    pdn: bool,
    /// Print at most this many games.
    #[arg(long)]
    limit: Option<usize>,
}

/// Runs `dama games`.
pub fn run(args: &GamesArgs) -> Result<()> {
    let mut files = Vec::new();
    for f in &args.files {
        if f.is_dir() {
            files.extend(record::list_chunks(f)?);
        } else {
            files.push(f.clone());
        }
    }
    let mut printed = 0;
    for file in files {
        // The error names the file already.
        let games = record::read_chunk(&file)?;
        for g in games {
            if args.limit.is_some_and(|l| printed >= l) {
                return Ok(());
            }
            printed += 1;
            if args.pdn {
                outln!("[Event \"dama self-play\"]");
                outln!("[Round \"{}\"]", g.generation);
                outln!("[Game \"{}\"]", g.game_id);
                // The game and its options, unless standard Turkish draughts.
                if g.game == dama_nn::GameName::Tafl {
                    outln!("[GameType \"Turkish Tafl\"]");
                    outln!("[Rules \"{}\"]", g.tafl_rules()?);
                } else {
                    let rules = g.game_rules()?;
                    if rules != dama_engine::Rules::default() {
                        outln!("[Rules \"{rules}\"]");
                    }
                }
                if g.start != "startpos" {
                    outln!("[FEN \"{}\"]", g.start);
                }
                outln!("[Result \"{}\"]", g.result.as_pdn());
                outln!("[Termination \"{}\"]", g.termination);
                outln!();
                outln!("{}\n", numbered(&g.moves, g.result.as_pdn()));
            } else {
                outln!(
                    "game {} (gen {}, {} moves, {} samples, {}): {}",
                    g.game_id,
                    g.generation,
                    g.moves.len(),
                    g.samples.len(),
                    g.termination,
                    numbered(&g.moves, g.result.as_pdn())
                );
            }
        }
    }
    Ok(())
}

fn numbered(moves: &[String], result: &str) -> String {
    let mut out = String::new();
    for (i, pair) in moves.chunks(2).enumerate() {
        out.push_str(&format!("{}. {} ", i + 1, pair.join(" ")));
    }
    out.push_str(result);
    out
}
