//! The learned evaluator dama ships for Turkish Tafl's default rules
//! (`networks/tafl.nnue` of the repository, built into the program as
//! draughts' `networks/turkish.nnue` is), named by `eval=shipped` with
//! `--game tafl`.
//!
//! `networks/tafl-history.toml` says how each shipped network was trained
//! and what it scored; a test checks that the file built in is the one the
//! history's last entry names.

use std::sync::{Arc, OnceLock};

use dama_nnue::{Network, ShippedFile};

use crate::features::TaflFeatures;
use crate::rules::TaflRules;

/// The shipped evaluator file: its path in the repository (for messages)
/// and its bytes.
pub const SHIPPED: ShippedFile = ShippedFile {
    path: "networks/tafl.nnue",
    bytes: include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../networks/tafl.nnue"
    )),
};

/// The shipped network, quantized once per process.
///
/// # Errors
///
/// The built-in bytes do not decode (a broken build).
pub fn shipped_network() -> Result<Arc<Network<TaflFeatures>>, dama_nnue::Error> {
    static NET: OnceLock<Arc<Network<TaflFeatures>>> = OnceLock::new();
    SHIPPED.quantized(&NET)
}

/// The rules the shipped network was trained for.
///
/// # Errors
///
/// As [`shipped_network`].
pub fn shipped_rules() -> Result<TaflRules, dama_nnue::Error> {
    Ok(*shipped_network()?.rules())
}
