//! The learned evaluator dama ships for the standard Turkish rules
//! (`networks/turkish.nnue` of the repository, built into the program as
//! Stockfish builds in its default network), named by `eval=shipped`.
//!
//! `networks/history.toml` says how each shipped network was trained and
//! what it scored against its predecessor; a test checks that the file
//! built in is the one the history's last entry names.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use dama_engine::Rules;

use crate::error::EngineError;
use crate::evaluator::Network;
use crate::features::DraughtsFeatures;

/// The shipped evaluator file's bytes.
pub const SHIPPED_BYTES: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../networks/turkish.nnue"
));

/// Where the shipped network lives in the repository (for messages).
pub const SHIPPED_PATH: &str = "networks/turkish.nnue";

/// The shipped network as floats (to train on from) and its header's
/// metadata.
///
/// # Errors
///
/// [`EngineError::Evaluator`] if the built-in bytes do not decode (a
/// broken build).
pub fn shipped_float() -> Result<(dama_nnue::FloatNet, Vec<(String, String)>), EngineError> {
    Ok(dama_nnue::decode_network::<DraughtsFeatures>(
        Path::new(SHIPPED_PATH),
        SHIPPED_BYTES,
        None,
    )?)
}

/// The shipped network, quantized once per process.
///
/// # Errors
///
/// As [`shipped_float`].
pub fn shipped_network() -> Result<Arc<Network>, EngineError> {
    static NET: OnceLock<Arc<Network>> = OnceLock::new();
    if let Some(n) = NET.get() {
        return Ok(n.clone());
    }
    let (float, _) = shipped_float()?;
    let net = Arc::new(Network::from_float(&float)?);
    Ok(NET.get_or_init(|| net).clone())
}

/// The rules the shipped network was trained for.
///
/// # Errors
///
/// As [`shipped_float`].
pub fn shipped_rules() -> Result<Rules, EngineError> {
    Ok(*shipped_network()?.rules())
}
