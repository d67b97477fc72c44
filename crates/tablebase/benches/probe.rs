//! Probe latency: random positions of the loaded splits, from memory.
//!
//! `DAMA_TB_DIR=tablebases cargo bench -p dama-tablebase` probes an existing
//! directory; without it the bench generates the 3-piece tables first.

#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use dama_engine::{Bitboard, Color, Position, Rules};
use dama_tablebase::{Generator, Tablebase};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Random legal positions with the material of the loaded tables.
fn positions(tb: &Tablebase, n: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mats: Vec<_> = tb.tables().iter().map(|t| t.material()).collect();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let m = mats[rng.gen_range(0..mats.len())];
        let mut occ = 0u64;
        let mut place = |k: u8, men: bool, rng: &mut ChaCha8Rng| {
            let mut bb = 0u64;
            for _ in 0..k {
                loop {
                    let sq = if men {
                        rng.gen_range(8..56)
                    } else {
                        rng.gen_range(0..64)
                    };
                    if occ & (1 << sq) == 0 {
                        occ |= 1 << sq;
                        bb |= 1 << sq;
                        break;
                    }
                }
            }
            bb
        };
        let wm = place(m.white_men, true, &mut rng);
        let wk = place(m.white_kings, false, &mut rng);
        let bm = place(m.black_men, true, &mut rng);
        let bk = place(m.black_kings, false, &mut rng);
        let turn = if rng.gen() {
            Color::White
        } else {
            Color::Black
        };
        if let Ok(p) = Position::from_bitboards(
            Bitboard(wm | wk),
            Bitboard(bm | bk),
            Bitboard(wk | bk),
            turn,
        ) {
            out.push(p.with_rules(tb.rules()));
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = match std::env::var_os("DAMA_TB_DIR") {
        Some(d) => d.into(),
        None => {
            Generator::new(tmp.path(), Rules::default())
                .generate(3, &|_| {})
                .expect("generate");
            tmp.path().to_owned()
        }
    };
    let tb = Tablebase::open(&dir).expect("open");
    let pos = positions(&tb, 4096);
    let mut g = c.benchmark_group("probe");
    g.throughput(Throughput::Elements(pos.len() as u64));
    g.bench_function(format!("random {}-piece", tb.max_pieces()), |b| {
        b.iter(|| {
            let mut n = 0u32;
            for p in &pos {
                if tb.probe(black_box(p)).is_some() {
                    n += 1;
                }
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
