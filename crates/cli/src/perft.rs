//! `dama perft`: node counts and speed of the move generator of any game
//! (`--game`, with its rules: `--rules variant=croda`), written once
//! against the game seam ([`GameDef::perft`]).

use std::time::Instant;

use anyhow::{anyhow, Result};
use clap::Args;
use dama_game::GameDef;
use dama_nn::{GameName, WithGame};
use rayon::prelude::*;

/// Arguments of `dama perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Depth in plies (whole moves; a multi-capture is one ply, as is a
    /// Turkish Tafl chain of jumps).
    #[arg(long, short)]
    depth: u32,
    /// Start position: `startpos` (the initial position of the game under
    /// --rules) or the game's position text: Turkish draughts
    /// `W:Wa2,b2,Kd4:Ba7,Kh8`; Turkish Tafl `W:Wb5,c5,Kd1:Ba1,Kb3` (side to
    /// move, then the Defenders' and the King side's squares).
    #[arg(long, default_value = "startpos")]
    position: String,
    /// The game (`draughts`: Turkish draughts and its variants; `tafl`:
    /// Turkish Tafl).
    #[arg(long, default_value_t = GameName::default())]
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

/// Runs `dama perft`; the last line printed is the node count.
pub fn run(args: &PerftArgs) -> Result<()> {
    args.game.with(Perft(args))
}

struct Perft<'a>(&'a PerftArgs);

impl WithGame for Perft<'_> {
    type Output = Result<()>;

    fn run<G: GameDef>(self) -> Result<()> {
        let args = self.0;
        let game = start::<G>(args)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads)
            .build()
            .map_err(|e| anyhow!("cannot start the thread pool: {e}"))?;
        let started = Instant::now();
        let (nodes, divide) = count::<G>(args, &pool, &game)?;
        let secs = started.elapsed().as_secs_f64();
        for (mv, n) in divide.iter().flatten() {
            outln!("{mv}: {n}");
        }
        let threads = pool.current_num_threads();
        eprintln!(
            "depth {} in {:.3} s: {:.1} M nodes/s ({threads} thread{})",
            args.depth,
            secs,
            nodes as f64 / secs.max(1e-9) / 1e6,
            if threads == 1 { "" } else { "s" }
        );
        outln!("{nodes}");
        Ok(())
    }
}

/// The game under its rules (--rules, --crown-mid-capture) at --position.
fn start<G: GameDef>(args: &PerftArgs) -> Result<G::Game> {
    let mut text = args.rules.clone().unwrap_or_default();
    if args.crown_mid_capture {
        if !text.is_empty() {
            text.push(',');
        }
        text.push_str("promotion=continue_as_king");
    }
    let rules = if text.is_empty() {
        G::Rules::default()
    } else {
        G::parse_rules(&text).map_err(|e| {
            let why = match GameName::whose_rules(&text) {
                Some(other) if other.as_str() != G::NAME => format!(
                    "--rules `{text}` are {} rules, not rules of {} (--game {other} plays it): {e}",
                    other.title(),
                    G::TITLE
                ),
                _ => format!("--rules `{text}`: bad {} rules: {e}", G::TITLE),
            };
            if args.crown_mid_capture {
                anyhow!("{why} (--crown-mid-capture is `promotion=continue_as_king`)")
            } else {
                anyhow!("{why}")
            }
        })?
    };
    G::parse_position(&rules, &args.position)
        .map_err(|e| anyhow!("bad --position `{}`: {e}", args.position))
}

/// The count below each root move, by the move's text (`--divide`).
type Divide = Option<Vec<(String, u64)>>;

/// The leaf count, and the count below each root move if `--divide` asked
/// for it: the game's perft, its root moves split over the pool's threads
/// unless serial.
fn count<G: GameDef>(
    args: &PerftArgs,
    pool: &rayon::ThreadPool,
    game: &G::Game,
) -> Result<(u64, Divide)> {
    let depth = args.depth;
    if depth == 0 || (!args.divide && (args.threads == 1 || depth == 1)) {
        return Ok((G::perft(game, depth), args.divide.then(Vec::new)));
    }
    let moves = G::legal_moves(game);
    let counts = pool.install(|| {
        moves
            .par_iter()
            .map(|m| {
                let mut child = game.clone();
                G::play(&mut child, m).map_err(|e| anyhow!("legal move {m} does not play: {e}"))?;
                Ok(G::perft(&child, depth - 1))
            })
            .collect::<Result<Vec<u64>>>()
    })?;
    let divide = args.divide.then(|| {
        moves
            .iter()
            .map(ToString::to_string)
            .zip(counts.iter().copied())
            .collect()
    });
    Ok((counts.iter().sum(), divide))
}
