//! The integration tests of `mcts`, one test binary (each module was
//! a binary of its own: one link and one build of the generic code
//! instead of one per file).

// Test code unwraps, as each file did.
#![allow(clippy::unwrap_used, missing_docs)]

mod driver;
mod toy_games;
