//! The short, deterministic fuzz run of the test suite: every target, from
//! the committed seed corpus, a fixed number of mutations, fixed seed.
//! A long run is `cargo run --release -p dama-fuzz -- --iters 10000000`.

use dama_fuzz::{default_corpus_dir, load_corpus, run, Limits, TARGETS};

#[test]
fn every_target_survives_a_short_run() {
    let mut failures = Vec::new();
    for t in TARGETS {
        let seeds = load_corpus(&default_corpus_dir(), t);
        assert!(!seeds.is_empty(), "{}: no seed corpus", t.name);
        let report = run(
            t,
            seeds,
            &Limits {
                iters: 3_000,
                time: None,
                seed: 19,
            },
        );
        eprintln!(
            "{}: {} inputs, {} accepted, {:.0}/s",
            t.name,
            report.inputs,
            report.accepted,
            report.per_sec()
        );
        assert!(report.accepted > 0, "{}: no seed is accepted", t.name);
        for c in report.crashes {
            failures.push(format!(
                "{}: {} on {:?}",
                t.name,
                c.message,
                String::from_utf8_lossy(&c.input)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The harness itself: a target that panics on some input is caught and
/// reported, not propagated.
#[test]
fn the_harness_catches_panics() {
    fn bomb(data: &[u8]) -> bool {
        assert!(!data.contains(&b'!'), "boom");
        true
    }
    let t = dama_fuzz::Target {
        name: "bomb",
        tokens: &["!"],
        run: bomb,
    };
    let report = run(
        &t,
        vec![b"abc".to_vec()],
        &Limits {
            iters: 2_000,
            time: None,
            seed: 1,
        },
    );
    assert!(!report.crashes.is_empty());
    assert!(report.crashes[0].message.contains("boom"));
    assert!(report.crashes[0].input.contains(&b'!'));
}

/// Two runs on parallel threads (as two tests of one binary are) each record
/// their own panics: the panic hook is process-global, and a hook set per
/// run let one run's panic message land in the other's report.
#[test]
fn parallel_runs_record_their_own_panics() {
    fn bomb(data: &[u8]) -> bool {
        assert!(!data.contains(&b'!'), "bomb went off");
        true
    }
    fn mine(data: &[u8]) -> bool {
        assert!(!data.contains(&b'?'), "mine went off");
        true
    }
    let fuzz = |name: &'static str, token: &'static [&'static str], run: fn(&[u8]) -> bool| {
        let t = dama_fuzz::Target {
            name,
            tokens: token,
            run,
        };
        dama_fuzz::run(
            &t,
            vec![b"abc".to_vec()],
            &Limits {
                iters: 5_000,
                time: None,
                seed: 3,
            },
        )
    };
    let other = std::thread::spawn(move || fuzz("mine", &["?"], mine));
    let bombs = fuzz("bomb", &["!"], bomb);
    let mines = other.join().expect("the other run finishes");
    assert!(!bombs.crashes.is_empty() && !mines.crashes.is_empty());
    for c in &bombs.crashes {
        assert!(c.message.contains("bomb went off"), "{}", c.message);
    }
    for c in &mines.crashes {
        assert!(c.message.contains("mine went off"), "{}", c.message);
    }
}
