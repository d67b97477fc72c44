//! The `dama` command line: a thin layer over the workspace's libraries.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `println!` that returns an error instead of panicking when stdout is
/// closed (`dama games DIR | head`): `main` ends quietly on a broken pipe.
/// Use it in functions returning `anyhow::Result`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

/// `print!` (flushed) with the error handling of [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        write!(stdout, $($arg)*)?;
        stdout.flush()?
    }};
}

mod analyse;
mod args;
mod bench;
mod bot;
mod device;
mod eval;
mod export;
mod games;
mod learner;
mod nnue;
mod perft;
mod play;
mod report;
mod runs;
mod serve;
mod tablebase;
mod train;
mod worker;

/// mimalloc serves every allocation of the process: Rust's through this
/// declaration and, with the crate's `override` feature, libtorch's and the
/// C libraries' through malloc and free. libtorch allocates and frees
/// every intermediate tensor of every network call; under glibc's
/// allocator a profile of self-play spent about a fifth of its time in
/// malloc, free and the page faults of memory mapped and unmapped again
/// (docs/benchmarks.md, "The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Train, evaluate and play Turkish draughts networks.
#[derive(Parser, Debug)]
#[command(name = "dama", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Self-play, training, checkpoints and evaluation, generation after generation.
    Train(train::TrainArgs),
    /// A distributed run's self-play worker: fetch the newest network, play
    /// games, upload them as chunks, repeat (docs/distributed.md).
    Worker(worker::WorkerArgs),
    /// A distributed run's learner: read workers' chunks into the replay
    /// window, train, publish checkpoints, evaluate (docs/distributed.md).
    Learner(learner::LearnerArgs),
    /// Play a match between two players: score, Elo with a 95% interval, SPRT.
    Eval(eval::EvalArgs),
    /// Every checkpoint of a run and the baselines on one Elo scale.
    Ladder(eval::LadderArgs),
    /// A run's learning curve: its checkpoints against fixed anchors, Elo
    /// against hours and self-play positions (curve.json, curve.csv).
    Curve(eval::CurveArgs),
    /// Print or export recorded self-play games.
    Games(games::GamesArgs),
    /// Count leaf nodes of the legal-move tree (move-generation check and speed).
    Perft(perft::PerftArgs),
    /// Show the device `dama` uses and run a forward pass on it.
    Device(device::DeviceArgs),
    /// Measure self-play throughput against pure network inference.
    Bench(bench::BenchArgs),
    /// Learned evaluators for the alpha-beta engine: train one from sample
    /// files (`dama train` with `[run] kind = "nnue"` runs the whole loop).
    Evaluator(nnue::EvaluatorArgs),
    /// Plot a run (PNG files) and summarise it (report.md) in its directory.
    Report(report::ReportArgs),
    /// Export a checkpoint as a bundle (TorchScript, weights, metadata,
    /// README), or a learned evaluator as a bundle the alpha-beta engine
    /// plays (--evaluator).
    Export(export::ExportArgs),
    /// Play against the bot in the terminal.
    Play(play::PlayArgs),
    /// The bot on a line protocol over stdin/stdout (docs/protocol.md).
    Bot(bot::BotCmdArgs),
    /// The bot's evaluation of a position and its top moves.
    Analyse(analyse::AnalyseArgs),
    /// Endgame tablebases: generate, probe, stats, verify, bench.
    Tablebase(tablebase::TablebaseArgs),
    /// The web front end: play, analyse and watch training in the browser.
    Serve(serve::ServeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Train(args) => train::run(&args),
        Command::Worker(args) => worker::run(&args),
        Command::Learner(args) => learner::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Play(args) => play::run(&args),
        Command::Bot(args) => bot::run(&args),
        Command::Analyse(args) => analyse::run(&args),
        Command::Games(args) => games::run(&args),
        Command::Eval(args) => eval::run_eval(&args),
        Command::Ladder(args) => eval::run_ladder(&args),
        Command::Curve(args) => eval::run_curve(&args),
        Command::Perft(args) => perft::run(&args),
        Command::Device(args) => device::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Evaluator(args) => nnue::evaluator(&args),
        Command::Report(args) => report::run(&args),
        Command::Tablebase(args) => tablebase::run(&args),
        Command::Serve(args) => serve::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`| head`): stop quietly, like any Unix tool.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// True when `err` comes from writing to a closed pipe.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
