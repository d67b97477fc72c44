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
                let other_game = g.game != dama_nn::GameName::default();
                if other_game {
                    outln!("[GameType \"{}\"]", g.game.title());
                }
                if let Some(rules) = g.game.with(RulesText {
                    record: &g,
                    always: other_game,
                })? {
                    outln!("[Rules \"{rules}\"]");
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

/// A record's rules as text, when `always` or they are not the defaults.
struct RulesText<'a> {
    record: &'a record::GameRecord,
    always: bool,
}

impl dama_nn::WithGame for RulesText<'_> {
    type Output = Result<Option<String>, dama_selfplay::Error>;

    fn run<G: dama_game::GameDef>(self) -> Self::Output {
        let rules = self.record.rules::<G>()?;
        Ok((self.always || rules != G::Rules::default()).then(|| rules.to_string()))
    }
}

fn numbered(moves: &[String], result: &str) -> String {
    let mut out = String::new();
    for (i, pair) in moves.chunks(2).enumerate() {
        out.push_str(&format!("{}. {} ", i + 1, pair.join(" ")));
    }
    out.push_str(result);
    out
}
