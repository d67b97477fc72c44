//! Self-play, game records, replay buffer and the training loop.
