//! The integration tests of `minidama`, one test binary (each module was
//! a binary of its own: one link and one build of the generic code
//! instead of one per file).

mod reference;
mod rules;
