//! Batched PUCT and Gumbel MCTS over a small Game trait; no tensors.
