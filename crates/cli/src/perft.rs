//! `dama perft`: node counts and speed of the move generator, for Turkish
//! draughts and its variants (`--rules variant=...`) or Turkish Tafl
//! (`--game tafl`).

use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use dama_engine::{MidCapturePromotion, Position, Rules};
use dama_nn::GameName;
use dama_tafl::TaflRules;
use rayon::prelude::*;

use crate::bot::{parse_rules, parse_tafl_rules, tafl_position};

/// Arguments of `dama perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Depth in plies (whole moves; a multi-capture is one ply, as is a
    /// Turkish Tafl chain of jumps).
    #[arg(long, short)]
    depth: u32,
    /// Start position: `startpos` (the initial position of the game, or of
    /// the variant --rules names) or position text: Turkish draughts
    /// `W:Wa2,b2,Kd4:Ba7,Kh8`; Turkish Tafl `W:Wb5,c5,Kd1:Ba1,Kb3` (side to
    /// move, then the Defenders' and the King side's squares).
    #[arg(long, default_value = "startpos")]
    position: String,
    /// The game: `draughts` (Turkish draughts and its variants) or `tafl`
    /// (Turkish Tafl).
    #[arg(long, default_value_t = GameName::Draughts)]
    game: GameName,
    /// Rules (`default` or key=value pairs, as the other commands take
    /// them): Turkish draughts', e.g. `variant=croda` or
    /// `variant=dameo,promotion=continue_as_king`; Turkish Tafl's, e.g.
    /// `first=king_side,defender_man_chain=on`. Default: the game's default
    /// rules (standard Turkish draughts).
    #[arg(long)]
    rules: Option<String>,
    /// Print the node count below each root move.
    #[arg(long)]
    divide: bool,
    /// Worker threads splitting the root moves (0 = one per core, 1 = serial).
    #[arg(long, default_value_t = 1, value_parser = crate::args::threads)]
    threads: usize,
    /// Turkish draughts: a man reaching the last row mid-capture is crowned
    /// at once and continues as a king (default: crowned at the end of the
    /// move); the same as `promotion=continue_as_king` in --rules.
    #[arg(long)]
    crown_mid_capture: bool,
}

/// The position to count from, read under the game's rules.
enum Start {
    /// Turkish draughts (any variant).
    Draughts(Position, Rules),
    /// Turkish Tafl.
    Tafl(dama_tafl::Game),
}

/// The leaf count, and the count below each root move if `--divide` asked
/// for it.
struct Count {
    nodes: u64,
    divide: Option<Vec<(String, u64)>>,
}

/// Runs `dama perft`; the last line printed is the node count.
pub fn run(args: &PerftArgs) -> Result<()> {
    let start_from = start(args)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .context("cannot start the thread pool")?;
    let start = Instant::now();
    let count = match &start_from {
        Start::Draughts(pos, rules) => count_draughts(args, &pool, pos, rules),
        Start::Tafl(game) => count_tafl(args, &pool, game)?,
    };
    let secs = start.elapsed().as_secs_f64();
    for (mv, n) in count.divide.iter().flatten() {
        outln!("{mv}: {n}");
    }
    let threads = pool.current_num_threads();
    eprintln!(
        "depth {} in {:.3} s: {:.1} M nodes/s ({threads} thread{})",
        args.depth,
        secs,
        count.nodes as f64 / secs.max(1e-9) / 1e6,
        if threads == 1 { "" } else { "s" }
    );
    outln!("{}", count.nodes);
    Ok(())
}

/// The game, its rules (--rules, --crown-mid-capture) and the position.
fn start(args: &PerftArgs) -> Result<Start> {
    match args.game {
        GameName::Draughts => {
            let mut rules = match &args.rules {
                Some(text) => parse_rules(text)?,
                None => Rules::default(),
            };
            if args.crown_mid_capture {
                rules.promotion_mid_capture = MidCapturePromotion::ContinueAsKing;
            }
            // `startpos` is the variant's own initial position.
            let pos = Position::from_str_with_rules(&args.position, rules)
                .with_context(|| format!("bad --position `{}`", args.position))?;
            Ok(Start::Draughts(pos, rules))
        }
        GameName::Tafl => {
            if args.crown_mid_capture {
                bail!("--crown-mid-capture is a Turkish draughts rule, not one of Turkish Tafl's");
            }
            let rules = match &args.rules {
                Some(text) => parse_tafl_rules(text)?,
                None => TaflRules::default(),
            };
            let pos = tafl_position(&args.position, &rules)
                .with_context(|| format!("bad --position `{}`", args.position))?;
            Ok(Start::Tafl(dama_tafl::Game::from_position(pos, rules)))
        }
    }
}

/// Turkish draughts: the engine's perft, serial with one thread.
fn count_draughts(
    args: &PerftArgs,
    pool: &rayon::ThreadPool,
    pos: &Position,
    rules: &Rules,
) -> Count {
    let (depth, serial) = (args.depth, args.threads == 1);
    if args.divide && depth > 0 {
        let divide = if serial {
            dama_engine::perft_divide(pos, rules, depth)
        } else {
            pool.install(|| dama_engine::perft_divide_parallel(pos, rules, depth))
        };
        return Count {
            nodes: divide.iter().map(|(_, n)| n).sum(),
            divide: Some(divide.iter().map(|(m, n)| (m.to_string(), *n)).collect()),
        };
    }
    let nodes = if serial {
        dama_engine::perft(pos, rules, depth)
    } else {
        pool.install(|| dama_engine::perft_parallel(pos, rules, depth))
    };
    Count {
        nodes,
        divide: args.divide.then(Vec::new),
    }
}

/// Turkish Tafl: [`dama_tafl::perft`] (whole moves, each counted once)
/// below each root move, the root moves split over the pool's threads.
fn count_tafl(args: &PerftArgs, pool: &rayon::ThreadPool, game: &dama_tafl::Game) -> Result<Count> {
    let depth = args.depth;
    if depth == 0 || (!args.divide && (args.threads == 1 || depth == 1)) {
        return Ok(Count {
            nodes: dama_tafl::perft(game, depth),
            divide: args.divide.then(Vec::new),
        });
    }
    let moves = game.legal_moves();
    let counts = pool.install(|| {
        moves
            .par_iter()
            .map(|m| {
                let mut child = game.clone();
                child
                    .play(m)
                    .with_context(|| format!("legal move {m} does not play"))?;
                Ok(dama_tafl::perft(&child, depth - 1))
            })
            .collect::<Result<Vec<u64>>>()
    })?;
    Ok(Count {
        nodes: counts.iter().sum(),
        divide: args.divide.then(|| {
            moves
                .iter()
                .map(ToString::to_string)
                .zip(counts.iter().copied())
                .collect()
        }),
    })
}
