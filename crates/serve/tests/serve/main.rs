//! The integration tests of `serve`, one test binary (each module was
//! a binary of its own: one link and one build of the generic code
//! instead of one per file).

// The shared helpers (`common`) unwrap, as the files that included them
// allowed.
#![allow(clippy::unwrap_used)]

mod api;
mod browser;
mod common;
