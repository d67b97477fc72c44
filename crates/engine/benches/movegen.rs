//! Move generation and perft over a fixed list of positions, ours and kish's
//! (crates.io 1.1.7, an independent Turkish draughts engine) in the same run.
//!
//! Run with `cargo bench -p dama-engine --bench movegen` (`-- perft-variants`
//! for the variants' perft beside the standard game's). Criterion reports
//! throughput in elements (perft leaf nodes) per second; compare the
//! `ours/…` and `kish/…` lines of each group. kish counts every capture path
//! and counts a node without moves as a leaf, so its node counts can be a
//! little larger on the same tree (see the crate README).

#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dama_engine::{perft, MoveList, Position, Rules};

/// (name, position, perft depth, our node count at that depth).
const POSITIONS: &[(&str, &str, u32, u64)] = &[
    ("startpos", "startpos", 7, 10_782_308),
    (
        "kings-4v4",
        "W:WKa1,Kc3,Ke5,Kg7:BKb8,Kd6,Kf4,Kh2",
        4,
        1_371_766,
    ),
    (
        "midgame",
        "W:Wa2,b2,c2,e2,f2,g2,h2,a3,c3,d3,f3,h3,e4:Ba5,d5,a6,b6,c6,e6,g6,h6,a7,c7,d7,e7,f7,h7",
        6,
        0,
    ),
    (
        "kings-and-men",
        "B:Wa2,c3,d3,f2,g3,Kh1,Kb6:Bb7,c6,e6,f7,g6,Ka8,Kd4",
        6,
        0,
    ),
];

/// Perft from each variant's initial position, the standard game's first
/// (rules text, depth, node count).
const VARIANTS: &[(&str, u32, u64)] = &[
    ("variant=turkish", 6, 931_312),
    ("variant=armenian", 5, 6_280_482),
    ("variant=croda", 5, 3_624_616),
    ("variant=dameo", 4, 6_253_934),
];

#[path = "../tests/support/kish_board.rs"]
mod kish_support;
use kish_support::kish_board;

fn bench_perft(c: &mut Criterion) {
    let rules = Rules::default();
    for &(name, fen, depth, expected) in POSITIONS {
        let pos: Position = fen.parse().unwrap();
        let nodes = perft(&pos, &rules, depth);
        if expected != 0 {
            assert_eq!(nodes, expected, "{name}");
        }
        let board = kish_board(&pos);
        let kish_nodes = board.perft(u64::from(depth));
        let mut group = c.benchmark_group(format!("perft/{name}/d{depth}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function("ours", |b| b.iter(|| perft(black_box(&pos), &rules, depth)));
        group.throughput(Throughput::Elements(kish_nodes));
        group.bench_function("kish", |b| {
            b.iter(|| black_box(&board).perft(u64::from(depth)))
        });
        group.finish();
    }
}

fn bench_variants(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft-variants");
    group.sample_size(10);
    for &(text, depth, expected) in VARIANTS {
        let rules: Rules = text.parse().unwrap();
        let pos = Position::startpos_with_rules(rules);
        assert_eq!(perft(&pos, &rules, depth), expected, "{text}");
        group.throughput(Throughput::Elements(expected));
        let name = format!("{}/d{depth}", rules.variant);
        group.bench_function(name, |b| b.iter(|| perft(black_box(&pos), &rules, depth)));
    }
    group.finish();
}

fn bench_movegen(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves");
    for &(name, fen, _, _) in POSITIONS {
        let pos: Position = fen.parse().unwrap();
        let board = kish_board(&pos);
        let mut list = MoveList::new();
        let mut actions = Vec::with_capacity(64);
        group.bench_with_input(BenchmarkId::new("ours", name), &pos, |b, p| {
            b.iter(|| {
                black_box(p).legal_moves_into(&mut list);
                list.len()
            })
        });
        group.bench_with_input(BenchmarkId::new("kish", name), &board, |b, k| {
            b.iter(|| {
                black_box(k).actions_into(&mut actions);
                actions.len()
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = bench_perft, bench_variants, bench_movegen
}
criterion_main!(benches);
