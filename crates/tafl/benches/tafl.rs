//! Turkish Tafl's move generation: perft from the initial position (whole
//! moves), the step generator over positions of random games, and the
//! baseline alpha-beta at depth 3, with the handcrafted evaluation and
//! with a (random) learned one.
//!
//! `cargo bench -p dama-tafl --bench tafl`. Criterion reports perft leaves
//! (and steps) per second.

#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::sync::Arc;

use dama_nnue::{FloatNet, Network};
use dama_tafl::players::{best_move, best_move_with, TaflEvaluation};
use dama_tafl::{perft, Game, TaflFeatures, TaflRules};
use rand::{Rng, SeedableRng};

fn positions() -> Vec<Game> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut out = Vec::new();
    for _ in 0..20 {
        let mut g = Game::new(TaflRules::default());
        while g.outcome().is_none() {
            out.push(g.clone());
            let steps = g.legal_steps();
            g.play_step(steps[rng.gen_range(0..steps.len())]).unwrap();
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let start = Game::new(TaflRules::default());
    let mut group = c.benchmark_group("tafl-perft");
    group.sample_size(10);
    group.throughput(Throughput::Elements(30_329));
    group.bench_function("startpos-d5", |b| {
        b.iter(|| assert_eq!(perft(black_box(&start), 5), 30_329))
    });
    group.finish();

    let games = positions();
    let steps: u64 = games.iter().map(|g| g.legal_steps().len() as u64).sum();
    let mut group = c.benchmark_group("tafl-steps");
    group.throughput(Throughput::Elements(steps));
    group.bench_function("legal_steps", |b| {
        b.iter(|| {
            games
                .iter()
                .map(|g| black_box(g).legal_steps().len())
                .sum::<usize>()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("tafl-alphabeta");
    group.sample_size(10);
    group.bench_function("startpos-depth3", |b| {
        b.iter(|| best_move(black_box(&start), 3, None).unwrap().2)
    });
    let float = FloatNet::random::<TaflFeatures>(&TaflRules::default(), 1);
    let learned = TaflEvaluation::Learned {
        path: "random".into(),
        network: Arc::new(Network::from_float(&float).unwrap()),
    };
    // Middle-game positions: the 30th ply of each random game.
    let middle: Vec<&Game> = games.iter().skip(30).step_by(40).take(8).collect();
    // The two evaluations search different trees: the throughput is in
    // nodes, so criterion's elements/s is nodes/s.
    for (name, eval) in [
        ("handcrafted", TaflEvaluation::Handcrafted),
        ("learned", learned),
    ] {
        let search = |g: &Game| best_move_with(black_box(g), 4, &eval, None).map_or(0, |r| r.2);
        let nodes: u64 = middle.iter().map(|g| search(g)).sum();
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("middle-depth4-{name}"), |b| {
            b.iter(|| middle.iter().map(|g| search(g)).sum::<u64>())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
