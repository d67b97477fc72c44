//! The integration tests of `eval`, one test binary (each module was
//! a binary of its own: one link and one build of the generic code
//! instead of one per file).

mod arena;
mod games;
mod learned;
#[cfg(feature = "network")]
mod network;
mod smp;
mod tablebase;
mod tactics;
