//! Speed of the learned evaluation at each SIMD level: an incremental
//! update plus an evaluation (what the search pays per leaf), an evaluation
//! alone, and a refresh. `cargo bench -p dama-draughts --bench nnue`.

#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use dama_draughts::{DraughtsFeatures, Network};
use dama_engine::{Position, Rules};
use dama_nnue::{FloatNet, Simd};

fn positions() -> Vec<(Position, Position)> {
    let mut out = Vec::new();
    let mut pos = Position::startpos();
    for i in 0..60 {
        let moves = pos.legal_moves();
        let Some(m) = moves.get(i % moves.len().max(1)) else {
            break;
        };
        let before = pos;
        pos.play_unchecked(m);
        out.push((before, pos));
        if pos.is_game_over() {
            break;
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let float = FloatNet::random::<DraughtsFeatures>(&Rules::default(), 1);
    let pairs = positions();
    for simd in Simd::available() {
        let net = Network::from_float(&float).expect("net").with_simd(simd);
        let accs: Vec<_> = pairs.iter().map(|(b, _)| net.refresh(b)).collect();
        c.bench_function(&format!("nnue update+evaluate {simd}"), |b| {
            b.iter(|| {
                let mut s = 0;
                for ((before, after), acc) in pairs.iter().zip(&accs) {
                    let child = net.update(acc, before, after);
                    s += net.evaluate(&child, after.turn().index());
                }
                s
            })
        });
        let children: Vec<_> = pairs
            .iter()
            .zip(&accs)
            .map(|((b, a), acc)| net.update(acc, b, a))
            .collect();
        c.bench_function(&format!("nnue evaluate {simd}"), |b| {
            b.iter(|| {
                children
                    .iter()
                    .zip(&pairs)
                    .map(|(acc, (_, after))| net.evaluate(acc, after.turn().index()))
                    .sum::<i32>()
            })
        });
        c.bench_function(&format!("nnue refresh {simd}"), |b| {
            b.iter(|| {
                pairs
                    .iter()
                    .map(|(_, a)| net.refresh(a))
                    .fold(0i64, |s, acc| s + i64::from(net.evaluate(&acc, 0)))
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
