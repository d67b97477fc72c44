//! Position encoding, policy/value network, training and checkpoints (the only crate linking tch).
