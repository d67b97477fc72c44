//! Search overhead: simulations per second with a constant evaluator from
//! Turkish draughts positions, one thread (issue 4).
//!
//! `cargo bench -p dama-mcts --bench search`

use criterion::{criterion_main, BenchmarkId, Criterion, Throughput};
use dama_draughts::DamaState;
use dama_engine::Position;
use dama_mcts::{Algorithm, Search, SearchConfig, UniformEvaluator};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Positions after 30 random plies from the start (seeded), with their
/// number of legal steps, asserted below.
const POSITIONS: &[(&str, &str, usize)] = &[
    (
        "middlegame",
        "W:Wa2,b2,c2,d2,f2,h2,a3,b3,d3,e3,f3,e4:Bh4,a5,b5,c5,f5,g5,a6,b6,c6,e6,c7,e7,f7,g7,h7",
        16,
    ),
    (
        "kings",
        "W:Wa2,b2,g2,h2,b3,c3,e3,h3,Kh5,Kg8:Bb6,c6,d6,e6,Kh6,b7,c7,d7,e7",
        2,
    ),
];

const SIMULATIONS: u32 = 1600;

fn bench_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.throughput(Throughput::Elements(u64::from(SIMULATIONS)));
    group.sample_size(20);
    for &(name, fen, steps) in POSITIONS {
        let position: Position = fen.parse().expect("valid position");
        let root = DamaState::from_position(position);
        let mut actions = Vec::new();
        dama_mcts::Game::legal_actions(&root, &mut actions);
        assert_eq!(actions.len(), steps, "{name}");
        for (label, algorithm, batch_size) in [
            ("puct", Algorithm::Puct, 1),
            ("puct-batch16", Algorithm::Puct, 16),
            ("gumbel", Algorithm::Gumbel, 1),
        ] {
            let config = SearchConfig {
                algorithm,
                batch_size,
                simulations: SIMULATIONS,
                ..SearchConfig::default()
            };
            group.bench_with_input(BenchmarkId::new(label, name), &root, |b, root| {
                let mut rng = ChaCha8Rng::seed_from_u64(0);
                b.iter(|| {
                    let mut search = Search::new(config.clone(), root.clone()).expect("valid");
                    let r = search
                        .run(&mut UniformEvaluator::default(), &mut rng)
                        .expect("search runs");
                    assert_eq!(r.simulations, SIMULATIONS);
                    r.action
                });
            });
        }
    }
    group.finish();
}

#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench_search);
}
criterion_main!(group::benches);
