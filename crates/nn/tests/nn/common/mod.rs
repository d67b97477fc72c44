//! Shared test helpers: random playouts and small datasets.
#![allow(dead_code, clippy::unwrap_used)]

use dama_draughts::encode;
use dama_engine::{Game, Step};
use dama_nn::{Batch, BatchBuilder};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tch::{Device, Tensor};

/// States visited by random playouts (jump by jump), `n` states in all,
/// skipping the first `skip` plies of each game.
pub fn random_states(seed: u64, n: usize, skip: usize) -> Vec<Game> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut game = Game::new();
    let mut ply = 0;
    while out.len() < n {
        let steps = game.legal_steps();
        if steps.is_empty()
            || (game.pending_capture().is_none() && game.outcome().is_some())
            || ply > 300
        {
            game = Game::new();
            ply = 0;
            continue;
        }
        if ply >= skip {
            out.push(game.clone());
        }
        let s = steps[rng.gen_range(0..steps.len())];
        game.play_step(s).expect("legal step");
        ply += 1;
    }
    out
}

/// A fixed dataset: distinct random states, each with a one-hot policy
/// target on a random legal step and a one-hot WDL target.
pub fn dataset(seed: u64, n: usize) -> (Vec<Game>, Vec<Step>, Batch) {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
    let mut seen = std::collections::HashSet::new();
    let mut games = Vec::new();
    for g in random_states(seed, 20 * n, 6) {
        if games.len() == n {
            break;
        }
        if seen.insert(g.hash()) && rng.gen_bool(0.2) {
            games.push(g);
        }
    }
    assert_eq!(games.len(), n, "not enough distinct states");
    let mut builder = BatchBuilder::for_shape(encode::SHAPE);
    let mut targets = Vec::new();
    for g in &games {
        let mut row = builder.push_sample();
        encode::encode_planes(g, row.planes.as_slice_mut().unwrap());
        let steps = g.legal_steps();
        for s in &steps {
            row.set_action(encode::policy_index(*s, g.turn()), 0.0)
                .unwrap();
        }
        let t = steps[rng.gen_range(0..steps.len())];
        row.policy[encode::policy_index(t, g.turn())] = 1.0;
        targets.push(t);
        row.wdl[rng.gen_range(0..3)] = 1.0;
    }
    let batch = builder.to_batch(Device::Cpu).unwrap();
    (games, targets, batch)
}

/// Concatenates two batches.
pub fn concat(a: &Batch, b: &Batch) -> Batch {
    Batch {
        planes: Tensor::cat(&[&a.planes, &b.planes], 0),
        policy: Tensor::cat(&[&a.policy, &b.policy], 0),
        wdl: Tensor::cat(&[&a.wdl, &b.wdl], 0),
        mask: Tensor::cat(&[&a.mask, &b.mask], 0),
    }
}

/// `batch` mirrored left to right (the board's one symmetry): planes
/// permuted by [`encode::mirror_plane`] and flipped along files, policy and
/// mask permuted by [`encode::mirror_policy_index`]; the value targets are
/// unchanged.
pub fn mirrored(batch: &Batch) -> Batch {
    let perm: Vec<i64> = (0..encode::POLICY_SIZE)
        .map(|i| encode::mirror_policy_index(i) as i64)
        .collect();
    let perm = Tensor::from_slice(&perm);
    let plane_perm: Vec<i64> = (0..encode::NUM_PLANES)
        .map(|p| encode::mirror_plane(p) as i64)
        .collect();
    let plane_perm = Tensor::from_slice(&plane_perm);
    Batch {
        planes: batch
            .planes
            .index_select(1, &plane_perm)
            .flip([3i64].as_slice()),
        policy: batch.policy.index_select(1, &perm),
        wdl: batch.wdl.shallow_clone(),
        mask: batch.mask.index_select(1, &perm),
    }
}
