//! File helpers: a re-export of [`dama_run::files`], where they live (a
//! crate without libtorch, so that `tablebase` shares them). Kept so that
//! `dama_nn::files::…` paths keep working; new code uses `dama_run::files`.

pub use dama_run::files::*;
