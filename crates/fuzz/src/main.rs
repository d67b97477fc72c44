//! `dama-fuzz`: runs the fuzz targets (see the crate README).
//!
//! ```text
//! dama-fuzz [--target NAME|all] [--iters N] [--seconds S] [--seed N]
//!           [--corpus DIR] [--write-corpus] [--list]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use dama_fuzz::{builtin_seeds, default_corpus_dir, fnv, load_corpus, run, Limits, TARGETS};

fn usage() -> &'static str {
    "usage: dama-fuzz [--target NAME|all] [--iters N] [--seconds S] [--seed N] [--corpus DIR] [--write-corpus] [--list]"
}

fn main() -> ExitCode {
    let mut target = "all".to_string();
    let mut iters: u64 = 100_000;
    let mut seconds: Option<f64> = None;
    let mut seed: u64 = 0;
    let mut corpus = default_corpus_dir();
    let mut write_corpus = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .ok_or_else(|| format!("{name} needs a value\n{}", usage()))
        };
        let parsed: Result<(), String> = (|| {
            match a.as_str() {
                "--target" => target = value("--target")?,
                "--iters" => {
                    iters = value("--iters")?
                        .parse()
                        .map_err(|_| "--iters: not a number".to_string())?
                }
                "--seconds" => {
                    seconds = Some(
                        value("--seconds")?
                            .parse()
                            .map_err(|_| "--seconds: not a number".to_string())?,
                    )
                }
                "--seed" => {
                    seed = value("--seed")?
                        .parse()
                        .map_err(|_| "--seed: not a number".to_string())?
                }
                "--corpus" => corpus = PathBuf::from(value("--corpus")?),
                "--write-corpus" => write_corpus = true,
                "--list" => {
                    for t in TARGETS {
                        println!("{}", t.name);
                    }
                    std::process::exit(0);
                }
                "-h" | "--help" => {
                    println!("{}", usage());
                    std::process::exit(0);
                }
                other => return Err(format!("unknown argument `{other}`\n{}", usage())),
            }
            Ok(())
        })();
        if let Err(e) = parsed {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
    let targets: Vec<_> = TARGETS
        .iter()
        .filter(|t| target == "all" || t.name == target)
        .collect();
    if targets.is_empty() {
        eprintln!("error: no target `{target}` (--list shows them)");
        return ExitCode::FAILURE;
    }
    if write_corpus {
        for t in &targets {
            let dir = corpus.join(t.name);
            if let Err(e) = std::fs::create_dir_all(&dir) {
                eprintln!("error: {}: {e}", dir.display());
                return ExitCode::FAILURE;
            }
            for (i, s) in builtin_seeds(t.name).iter().enumerate() {
                let path = dir.join(format!("seed-{i:02}"));
                if let Err(e) = std::fs::write(&path, s) {
                    eprintln!("error: {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
            println!(
                "{}: {} seeds in {}",
                t.name,
                builtin_seeds(t.name).len(),
                dir.display()
            );
        }
        return ExitCode::SUCCESS;
    }
    let limits = Limits {
        iters,
        time: seconds.map(Duration::from_secs_f64),
        seed,
    };
    let mut failed = false;
    let mut total = 0u64;
    println!(
        "{:<14} {:>12} {:>10} {:>8} {:>12} {:>10} {:>8}",
        "target", "inputs", "accepted", "corpus", "inputs/s", "slowest", "panics"
    );
    for t in targets {
        let report = run(t, load_corpus(&corpus, t), &limits);
        total += report.inputs;
        println!(
            "{:<14} {:>12} {:>10} {:>8} {:>12.0} {:>8.1}ms {:>8}",
            report.target,
            report.inputs,
            report.accepted,
            report.corpus,
            report.per_sec(),
            report.slowest.as_secs_f64() * 1e3,
            report.crashes.len()
        );
        for c in &report.crashes {
            failed = true;
            let dir = corpus.join("../crashes");
            let path = dir.join(format!("{}-{:016x}", t.name, fnv(&c.input)));
            let _ = std::fs::create_dir_all(&dir);
            let _ = std::fs::write(&path, &c.input);
            eprintln!(
                "PANIC in {}: {}\n  input ({} bytes) saved to {}: {:?}",
                t.name,
                c.message,
                c.input.len(),
                path.display(),
                String::from_utf8_lossy(&c.input)
            );
        }
    }
    println!("total {total} inputs");
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
