//! `dama tablebase`: generate, probe and count endgame tables.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use dama_engine::{MidCapturePromotion, OnePieceEachRule, Position, Rules};
use dama_tablebase::{Event, Generator, Tablebase, MAX_PIECES};
use indicatif::{ProgressBar, ProgressStyle};

/// Arguments of `dama tablebase`.
#[derive(Args, Debug)]
pub struct TablebaseArgs {
    #[command(subcommand)]
    command: TablebaseCommand,
}

#[derive(Subcommand, Debug)]
enum TablebaseCommand {
    /// Generate every table of up to N pieces (tables already in the
    /// directory are kept, so a killed run resumes).
    Generate(GenerateArgs),
    /// The value of a position, its distance to zeroing and the best moves.
    Probe(ProbeArgs),
    /// Wins, draws and losses per material split, with sizes.
    Stats(DirArgs),
    /// Check every loaded table against its children (slow: move generation
    /// for every position).
    Verify(DirArgs),
    /// Probe speed on random positions of the loaded splits, from memory.
    Bench(BenchArgs),
}

#[derive(Args, Debug)]
struct DirArgs {
    /// The table directory.
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
}

#[derive(Args, Debug)]
struct GenerateArgs {
    /// Largest number of pieces on the board (3 to 6).
    #[arg(long)]
    pieces: u32,
    /// The table directory.
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
    /// Worker threads for the parallel phase (0 = one per core, at most 256).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Plies without a capture that draw (0 = the rule is off).
    #[arg(long, default_value_t = 50)]
    no_capture_limit: u16,
    /// A man reaching the last row mid-capture is crowned at once and
    /// continues as a king.
    #[arg(long)]
    crown_mid_capture: bool,
    /// A lone king beats a lone man (default: one piece each is a draw).
    #[arg(long)]
    king_beats_man: bool,
}

#[derive(Args, Debug)]
struct ProbeArgs {
    /// The position (`W:WKd4,Ke5:BKh8`).
    #[arg(long)]
    position: String,
    /// Plies already played without a capture.
    #[arg(long, default_value_t = 0)]
    counter: u16,
    /// The table directory.
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// The table directory.
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
    /// Probes to time (at most 1e9).
    #[arg(long, default_value_t = 10_000_000)]
    probes: u64,
}

/// Runs `dama tablebase`.
pub fn run(args: &TablebaseArgs) -> Result<()> {
    match &args.command {
        TablebaseCommand::Generate(a) => generate(a),
        TablebaseCommand::Probe(a) => probe(a),
        TablebaseCommand::Stats(a) => stats(a),
        TablebaseCommand::Verify(a) => verify(a),
        TablebaseCommand::Bench(a) => bench(a),
    }
}

fn open(dir: &std::path::Path) -> Result<Tablebase> {
    let tb = Tablebase::open(dir)
        .with_context(|| format!("cannot open the tablebase in {}", dir.display()))?;
    if tb.is_empty() {
        bail!(
            "no tables in {} (run `dama tablebase generate --pieces 4 --dir {}`)",
            dir.display(),
            dir.display()
        );
    }
    if !tb.missing().is_empty() {
        let names: Vec<String> = tb.missing().iter().map(|m| m.to_string()).collect();
        eprintln!("note: missing splits: {}", names.join(" "));
    }
    Ok(tb)
}

fn generate(a: &GenerateArgs) -> Result<()> {
    if !(3..=MAX_PIECES).contains(&a.pieces) {
        bail!("--pieces must be 3 to {MAX_PIECES}, not {}", a.pieces);
    }
    if a.threads > 256 {
        bail!("--threads must be at most 256, not {}", a.threads);
    }
    let rules = Rules {
        promotion_mid_capture: if a.crown_mid_capture {
            MidCapturePromotion::ContinueAsKing
        } else {
            MidCapturePromotion::EndOfMove
        },
        one_piece_each: if a.king_beats_man {
            OnePieceEachRule::KingBeatsMan
        } else {
            OnePieceEachRule::Draw
        },
        no_capture_limit: Some(a.no_capture_limit).filter(|&l| l > 0),
        ..Rules::default()
    };
    let style = ProgressStyle::with_template(
        "{prefix:>10} [{bar:30}] {pos}/{len} positions ({per_sec}, eta {eta})",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    let bar: Mutex<Option<ProgressBar>> = Mutex::new(None);
    let start = Instant::now();
    let on_event = |e: Event<'_>| {
        let mut bar = bar.lock().unwrap_or_else(|p| p.into_inner());
        match e {
            Event::Start {
                material,
                index,
                count,
                total,
            } => {
                let b = ProgressBar::new(total).with_style(style.clone());
                b.set_prefix(format!("{}/{} {material}", index + 1, count));
                *bar = Some(b);
            }
            Event::Progress { done, .. } => {
                if let Some(b) = bar.as_ref() {
                    b.set_position(done);
                }
            }
            Event::Finished(r) => {
                if let Some(b) = bar.take() {
                    b.finish_and_clear();
                }
                let c = r.stats.counts;
                let sum = |k: usize| c[0][k] + c[1][k];
                // (Inside the generator's callback: a closed stdout only
                // loses these lines; the generation goes on.)
                let _ = writeln!(
                    std::io::stdout().lock(),
                    "{:>8} {:>8.2} s {:>12} entries {:>10} bytes  win {} cursed {} draw {} blessed {} loss {}{}",
                    r.material.to_string(),
                    r.secs,
                    r.entries,
                    r.file_len,
                    sum(0),
                    sum(1),
                    sum(2),
                    sum(3),
                    sum(4),
                    if r.existed { "  (already there)" } else { "" }
                );
            }
        }
    };
    let reports = Generator::new(&a.dir, rules)
        .threads(a.threads)
        .generate(a.pieces, &on_event)
        .with_context(|| format!("generating tables in {}", a.dir.display()))?;
    let bytes: u64 = reports.iter().map(|r| r.file_len).sum();
    let solved: u64 = reports.iter().map(|r| r.solved).sum();
    let secs = start.elapsed().as_secs_f64();
    outln!(
        "{} splits, {bytes} bytes, {solved} positions solved in {secs:.1} s ({:.2} M positions/s)",
        reports.len(),
        solved as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}

fn probe(a: &ProbeArgs) -> Result<()> {
    let tb = open(&a.dir)?;
    let pos: Position = a
        .position
        .parse()
        .with_context(|| format!("bad --position `{}`", a.position))?;
    let pos = pos
        .with_rules(tb.rules())
        .with_counters(a.counter, pos.ply());
    let Some(p) = tb.probe(&pos) else {
        bail!(
            "no table for {pos} (loaded: up to {} pieces complete)",
            tb.max_pieces()
        );
    };
    outln!("{pos}  counter {}  {}", a.counter, tb.rules_text());
    outln!("value: {p}");
    if let Some(moves) = tb.best_moves(&pos) {
        for (m, v) in moves {
            outln!("  {m:<12} {v}");
        }
    }
    Ok(())
}

fn stats(a: &DirArgs) -> Result<()> {
    let tb = open(&a.dir)?;
    outln!("{}: {}", tb.dir().display(), tb.rules_text());
    outln!(
        "{:>8} {:>12} {:>10} {:>10}  side  {:>10} {:>10} {:>10} {:>10} {:>10}",
        "split",
        "entries",
        "file",
        "memory",
        "win",
        "cursed",
        "draw",
        "blessed",
        "loss"
    );
    let (mut file, mut mem) = (0u64, 0usize);
    for t in tb.tables() {
        let c = t.stats().counts;
        for (side, color) in [(0, "white"), (1, "black")] {
            outln!(
                "{:>8} {:>12} {:>10} {:>10}  {color}  {:>10} {:>10} {:>10} {:>10} {:>10}",
                if side == 0 {
                    t.material().to_string()
                } else {
                    String::new()
                },
                if side == 0 {
                    t.entries().to_string()
                } else {
                    String::new()
                },
                if side == 0 {
                    t.file_len().to_string()
                } else {
                    String::new()
                },
                if side == 0 {
                    t.memory_len().to_string()
                } else {
                    String::new()
                },
                c[side][0],
                c[side][1],
                c[side][2],
                c[side][3],
                c[side][4]
            );
        }
        file += t.file_len();
        mem += t.memory_len();
    }
    outln!(
        "{} tables, {file} bytes on disk, {mem} bytes in memory, complete up to {} pieces",
        tb.tables().len(),
        tb.max_pieces()
    );
    Ok(())
}

fn verify(a: &DirArgs) -> Result<()> {
    let tb = open(&a.dir)?;
    for t in tb.tables() {
        let start = Instant::now();
        let n = tb
            .verify(t.material())
            .with_context(|| format!("verifying {}", t.material()))?;
        outln!(
            "{:>8}: {n} positions agree with their children ({:.1} s)",
            t.material().to_string(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

fn bench(a: &BenchArgs) -> Result<()> {
    if a.probes == 0 || a.probes > 1_000_000_000 {
        bail!("--probes must be 1 to 1e9, not {}", a.probes);
    }
    let tb = open(&a.dir)?;
    let positions = dama_tablebase::sample_positions(&tb, 1 << 16, 1);
    let start = Instant::now();
    let mut found = 0u64;
    for i in 0..a.probes {
        let p = &positions[(i as usize) & ((1 << 16) - 1)];
        if let Some(v) = tb.probe(std::hint::black_box(p)) {
            found += u64::from(v.wdl.score() != 0);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    outln!(
        "{} probes in {secs:.3} s: {:.2} M probes/s, {:.0} ns each (one thread, {} splits, {found} decisive)",
        a.probes,
        a.probes as f64 / secs.max(1e-9) / 1e6,
        secs * 1e9 / a.probes as f64,
        tb.tables().len()
    );
    Ok(())
}
