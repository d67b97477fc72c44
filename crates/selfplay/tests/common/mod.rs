//! What the integration tests share.

/// A tiny run: two generations of four games with a 1-block, 8-channel
/// network, evaluated against `random`. Seconds on one core.
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
