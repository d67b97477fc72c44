//! The integration tests of `nn`, one test binary (each module was
//! a binary of its own: one link and one build of the generic code
//! instead of one per file).

// The shared helpers (`common`) unwrap, as the files that included them
// allowed.
#![allow(clippy::unwrap_used)]

mod common;
mod encode;
mod model;
mod nnue;
mod tafl;
mod tch_smoke;
mod torchscript;
