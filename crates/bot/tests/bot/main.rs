//! The integration tests of `bot`, one test binary (each module was
//! a binary of its own: one link and one build of the generic code
//! instead of one per file).

mod sessions;
mod tablebase;
mod tafl;
