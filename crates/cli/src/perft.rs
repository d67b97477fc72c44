//! `dama perft`: node counts and speed of the move generator.

use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use dama_engine::{Position, Rules};

/// Arguments of `dama perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Depth in plies (full moves; a multi-capture is one ply).
    #[arg(long, short)]
    depth: u32,
    /// Start position (`startpos` or `W:Wa2,b2,Kd4:Ba7,Kh8`).
    #[arg(long, default_value = "startpos")]
    position: String,
    /// Print the node count below each root move.
    #[arg(long)]
    divide: bool,
    /// Worker threads splitting the root moves (0 = one per core, 1 = serial).
    #[arg(long, default_value_t = 1, value_parser = crate::args::threads)]
    threads: usize,
    /// A man reaching the last row mid-capture is crowned at once and
    /// continues as a king (default: crowned at the end of the move).
    #[arg(long)]
    crown_mid_capture: bool,
}

/// Runs `dama perft`; the last line printed is the node count.
pub fn run(args: &PerftArgs) -> Result<()> {
    let pos: Position = args
        .position
        .parse()
        .with_context(|| format!("bad --position `{}`", args.position))?;
    let mut rules = Rules::default();
    if args.crown_mid_capture {
        rules.promotion_mid_capture = dama_engine::MidCapturePromotion::ContinueAsKing;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .context("cannot start the thread pool")?;
    let start = Instant::now();
    let nodes = if args.divide {
        let mut total = 0;
        let divide = if args.threads == 1 {
            dama_engine::perft_divide(&pos, &rules, args.depth)
        } else {
            pool.install(|| dama_engine::perft_divide_parallel(&pos, &rules, args.depth))
        };
        for (mv, n) in divide {
            outln!("{mv}: {n}");
            total += n;
        }
        total
    } else if args.threads == 1 {
        dama_engine::perft(&pos, &rules, args.depth)
    } else {
        pool.install(|| dama_engine::perft_parallel(&pos, &rules, args.depth))
    };
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "depth {} in {:.3} s: {:.1} M nodes/s ({} thread{})",
        args.depth,
        secs,
        nodes as f64 / secs.max(1e-9) / 1e6,
        pool.current_num_threads(),
        if pool.current_num_threads() == 1 {
            ""
        } else {
            "s"
        }
    );
    outln!("{nodes}");
    Ok(())
}
