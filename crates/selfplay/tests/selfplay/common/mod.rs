//! What the integration tests share.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use dama_selfplay::WorkerOptions;

/// A tiny run: two generations of four games with a 1-block, 8-channel
/// network, evaluated against `random`. Seconds on one core.
#[allow(dead_code)] // Not every test binary runs a network run.
pub const TINY: &str = r#"
[run]
generations = 2
seed = 7
device = "cpu"
torch_threads = 1

[model]
blocks = 1
channels = 8
se_channels = 0
policy_channels = 4
value_channels = 2
value_hidden = 8

[search]
algorithm = "gumbel"
simulations = 4
gumbel_considered_actions = 4

[selfplay]
games_per_generation = 4
parallel_games = 4
max_plies = 30
random_opening_plies = 2

[buffer]
max_positions = 5000
max_generations = 2

[train]
batch_size = 16
warmup_steps = 0

[schedule]
steps_per_generation = 3
min_positions = 1

[eval]
games = 2
baselines = ["random"]
sims = 2
"#;

/// The options of worker `id` of the run whose store is `store` (a
/// directory or a URL), keeping downloaded networks under `cache/id`, one
/// libtorch thread, the config's other settings.
#[allow(dead_code)] // Not every test binary runs workers.
pub fn worker(store: &str, id: &str, cache: &Path) -> WorkerOptions {
    WorkerOptions {
        store: store.to_owned(),
        worker: id.parse().expect("a valid worker id"),
        host: "test".into(),
        cache_dir: cache.join(id),
        games_per_chunk: None,
        poll_secs: None,
        max_chunks: None,
        device: None,
        torch_threads: Some(1),
    }
}

/// Sets its flag when dropped: a worker thread that ends, returning or
/// panicking, stops the learner (which would otherwise wait for its
/// chunks for ever), and the learner's end stops the workers.
#[allow(dead_code)] // Not every test binary runs workers.
pub struct SetOnDrop<'a>(pub &'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}
