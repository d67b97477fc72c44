//! The learned evaluator dama ships for the standard Turkish rules
//! (`networks/turkish.nnue` of the repository, built into the program as
//! Stockfish builds in its default network), named by `eval=shipped`.
//!
//! `networks/history.toml` says how each shipped network was trained and
//! what it scored against its predecessor; a test checks that the file
//! built in is the one the history's last entry names.

use std::sync::{Arc, OnceLock};

use dama_engine::Rules;
use dama_nnue::ShippedFile;

use crate::error::EngineError;
use crate::evaluator::Network;

/// The shipped evaluator file: its path in the repository (for messages)
/// and its bytes.
pub const SHIPPED: ShippedFile = ShippedFile {
    path: "networks/turkish.nnue",
    bytes: include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../networks/turkish.nnue"
    )),
};

/// The shipped network, quantized once per process.
///
/// # Errors
///
/// [`EngineError::Evaluator`] if the built-in bytes do not decode (a
/// broken build).
pub fn shipped_network() -> Result<Arc<Network>, EngineError> {
    static NET: OnceLock<Arc<Network>> = OnceLock::new();
    Ok(SHIPPED.quantized(&NET)?)
}

/// The rules the shipped network was trained for.
///
/// # Errors
///
/// As [`shipped_network`].
pub fn shipped_rules() -> Result<Rules, EngineError> {
    Ok(*shipped_network()?.rules())
}
