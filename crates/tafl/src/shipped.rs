//! The learned evaluator dama ships for Turkish Tafl's default rules
//! (`networks/tafl.nnue` of the repository, built into the program as
//! draughts' `networks/turkish.nnue` is), named by `eval=shipped` with
//! `--game tafl`.
//!
//! `networks/tafl-history.toml` says how each shipped network was trained
//! and what it scored; a test checks that the file built in is the one the
//! history's last entry names.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use dama_nnue::Network;

use crate::features::TaflFeatures;
use crate::rules::TaflRules;

/// The shipped evaluator file's bytes.
pub const SHIPPED_BYTES: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../networks/tafl.nnue"
));

/// Where the shipped network lives in the repository (for messages).
pub const SHIPPED_PATH: &str = "networks/tafl.nnue";

/// The shipped network as floats and its header's metadata.
///
/// # Errors
///
/// The built-in bytes do not decode (a broken build).
pub fn shipped_float() -> Result<dama_nnue::NetworkWithMeta, dama_nnue::Error> {
    dama_nnue::decode_network::<TaflFeatures>(Path::new(SHIPPED_PATH), SHIPPED_BYTES, None)
}

/// The shipped network, quantized once per process.
///
/// # Errors
///
/// As [`shipped_float`].
pub fn shipped_network() -> Result<Arc<Network<TaflFeatures>>, dama_nnue::Error> {
    static NET: OnceLock<Arc<Network<TaflFeatures>>> = OnceLock::new();
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
pub fn shipped_rules() -> Result<TaflRules, dama_nnue::Error> {
    Ok(*shipped_network()?.rules())
}
