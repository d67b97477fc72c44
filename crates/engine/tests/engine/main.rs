//! The integration tests of `engine`, one test binary (each module was
//! a binary of its own: one link and one build of the generic code
//! instead of one per file).

// The shared helpers (`common`) unwrap, as the files that included them
// allowed.
#![allow(clippy::unwrap_used, missing_docs)]

mod common;
mod game;
mod kish;
mod perft;
mod properties;
mod reference;
#[cfg(feature = "serde")]
mod serde;
mod variants;
mod zeybek;
