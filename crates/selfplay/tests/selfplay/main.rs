//! The integration tests of `selfplay`, one test binary (each module was
//! a binary of its own: one link and one build of the generic code
//! instead of one per file).

// The shared helpers (`common`) unwrap, as the files that included them
// allowed.
#![allow(clippy::unwrap_used)]

mod common;
mod end_to_end;
mod every_game;
mod nnue_dist;
mod nnue_run;
#[cfg(feature = "object-store")]
mod object_store;
mod python_reader;
mod reliability;
mod tafl;
mod tafl_run;
