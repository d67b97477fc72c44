//! The integration tests of `cli`, one test binary (each module was
//! a binary of its own: one link and one build of the generic code
//! instead of one per file).

// The shared helpers (`common`) unwrap, as the files that included them
// allowed.
#![allow(clippy::unwrap_used)]

mod bot;
mod common;
mod device;
mod distributed;
mod engine;
mod evaluator_bundle;
mod faults;
mod hub;
mod minidama;
mod nnue;
mod perft;
mod shipped;
mod tafl;
mod tafl_bot;
