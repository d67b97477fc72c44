//! The evaluator file: a learned evaluation as the search loads it.
//!
//! ```text
//! magic "DAMANNUE" | version u32 | header length u32 | header (UTF-8 lines
//! `key=value`: feature_set, rules, features, hidden, l1, l2, then any
//! metadata) | weights, f32 little-endian, in `FloatNet::shapes` order,
//! then out_b | FNV-1a 64 of everything before, u64
//! ```
//!
//! Weights are stored in `f32` (quantized at load), so the float network
//! is there for tests and for training to continue from. Files written
//! before feature sets were named have no `feature_set` line; a game whose
//! [`Features::READS_UNNAMED_FILES`] is set reads them.

use std::path::Path;

use crate::float::shapes;
use crate::frame;
use crate::{Error, Features, FloatNet, HIDDEN, L1, L2};

/// First bytes of an evaluator file.
pub const NETWORK_MAGIC: &[u8; 8] = b"DAMANNUE";
/// Version of the evaluator file format.
pub const NETWORK_FORMAT_VERSION: u32 = 1;
const MAX_HEADER: usize = 64 * 1024;

fn weight_count(features: usize) -> usize {
    shapes(features).iter().map(|(_, n)| n).sum::<usize>() + 1
}

/// Writes `net` to `path` atomically, with `meta` (`key`, `value` pairs
/// without newlines or `=` in keys) in the header.
///
/// # Errors
///
/// [`Error::Invalid`] for a network of the wrong shape or a bad metadata
/// key; [`Error::Io`] if the file cannot be written.
pub fn write_network(path: &Path, net: &FloatNet, meta: &[(&str, String)]) -> Result<(), Error> {
    if let Some(problem) = net.shape_error() {
        return Err(Error::Invalid(problem));
    }
    if net.feature_set.is_empty() || net.feature_set.contains(['\n', '=']) {
        return Err(Error::Invalid(format!(
            "bad feature set name `{}`",
            net.feature_set
        )));
    }
    if net.rules.contains('\n') {
        return Err(Error::Invalid("rules text with a line break".to_owned()));
    }
    let mut header = format!(
        "feature_set={}\nrules={}\nfeatures={}\nhidden={HIDDEN}\nl1={L1}\nl2={L2}\n",
        net.feature_set, net.rules, net.features
    );
    for (k, v) in meta {
        if k.is_empty() || k.contains(['=', '\n']) || v.contains('\n') {
            return Err(Error::Invalid(format!("bad metadata key or value `{k}`")));
        }
        header.push_str(&format!("{k}={v}\n"));
    }
    let mut bytes = frame::head(NETWORK_MAGIC, NETWORK_FORMAT_VERSION);
    bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for a in net.arrays() {
        for x in a {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
    }
    bytes.extend_from_slice(&net.out_b.to_le_bytes());
    frame::seal_and_write(path, bytes)
}

/// Reads an evaluator file of the game whose features are `F`; with
/// `rules`, refuses a network trained for other rules.
///
/// Returns the network and the header's metadata (the keys after the
/// architecture's).
///
/// # Errors
///
/// [`Error::Format`] naming what is wrong (not an evaluator file, another
/// version, another game's feature set, another architecture, truncated,
/// checksum mismatch), [`Error::OtherRules`], or [`Error::Io`].
pub fn read_network<F: Features>(
    path: &Path,
    rules: Option<&F::Rules>,
) -> Result<(FloatNet, Vec<(String, String)>), Error> {
    let max = (24 + MAX_HEADER + 4 * weight_count(F::COUNT) + 8) as u64;
    let (bytes, _) = frame::read(
        path,
        max,
        NETWORK_MAGIC,
        &[NETWORK_FORMAT_VERSION],
        "an evaluator file",
    )?;
    decode_network::<F>(path, &bytes, rules)
}

/// Decodes the bytes of an evaluator file of the game whose features are
/// `F` (a network built into the program, say); `path` names them in the
/// messages. As [`read_network`] otherwise.
///
/// # Errors
///
/// As [`read_network`], but for [`Error::Io`].
pub fn decode_network<F: Features>(
    path: &Path,
    bytes: &[u8],
    rules: Option<&F::Rules>,
) -> Result<(FloatNet, Vec<(String, String)>), Error> {
    frame::check(
        path,
        bytes,
        NETWORK_MAGIC,
        &[NETWORK_FORMAT_VERSION],
        "an evaluator file",
    )?;
    let bad = |m: &str| Error::format(path, m);
    let header_len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    if header_len > MAX_HEADER {
        return Err(bad("header too long"));
    }
    let expected = 16 + header_len + 4 * weight_count(F::COUNT) + 8;
    let header = bytes
        .get(16..16 + header_len)
        .and_then(|h| std::str::from_utf8(h).ok());
    // Name the game's feature set before the length: another game's
    // network has another size.
    match header.map(|h| h.lines().find_map(|l| l.strip_prefix("feature_set="))) {
        Some(Some(set)) if set != F::NAME => {
            return Err(Error::OtherFeatureSet {
                path: path.to_path_buf(),
                found: set.to_owned(),
                expected: F::NAME,
            });
        }
        Some(None) if !F::READS_UNNAMED_FILES => {
            return Err(bad(
                "header names no feature set: a file written before feature sets were named is a draughts evaluator",
            ));
        }
        _ => {}
    }
    if bytes.len() != expected {
        return Err(Error::format(
            path,
            format!(
                "{} bytes, expected {expected}: truncated or not this architecture",
                bytes.len()
            ),
        ));
    }
    let body = frame::verify(path, bytes)?;
    let header =
        std::str::from_utf8(&body[16..16 + header_len]).map_err(|_| bad("header is not UTF-8"))?;
    let mut file_rules = None;
    let mut meta = Vec::new();
    for line in header.lines() {
        let (k, v) = line
            .split_once('=')
            .ok_or_else(|| Error::format(path, format!("header line `{line}` has no `=`")))?;
        let arch = |want: usize| -> Result<(), Error> {
            if v.parse::<usize>().ok() != Some(want) {
                return Err(Error::format(
                    path,
                    format!("{k}={v}, this build's network has {k}={want}"),
                ));
            }
            Ok(())
        };
        match k {
            // Checked above: `F`'s, or absent from a file `F` reads.
            "feature_set" => {}
            "rules" => file_rules = Some(frame::rules::<F>(path, v, rules)?),
            "features" => arch(F::COUNT)?,
            "hidden" => arch(HIDDEN)?,
            "l1" => arch(L1)?,
            "l2" => arch(L2)?,
            _ => meta.push((k.to_owned(), v.to_owned())),
        }
    }
    let file_rules = file_rules.ok_or_else(|| bad("header has no rules"))?;
    let mut floats = body[16 + header_len..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let mut take = |n: usize| -> Vec<f32> { floats.by_ref().take(n).collect() };
    let [ft_w, ft_b, l1_w, l1_b, l2_w, l2_b, out_w] = shapes(F::COUNT).map(|(_, n)| take(n));
    let out_b = take(1).first().copied().unwrap_or(f32::NAN);
    let net = FloatNet {
        feature_set: F::NAME.to_owned(),
        features: F::COUNT,
        rules: file_rules.to_string(),
        ft_w,
        ft_b,
        l1_w,
        l1_b,
        l2_w,
        l2_b,
        out_w,
        out_b,
    };
    if let Some(problem) = net.shape_error() {
        return Err(Error::format(path, problem));
    }
    Ok((net, meta))
}
