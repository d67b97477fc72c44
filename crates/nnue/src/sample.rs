//! Training samples: quiet positions of the engine's games with the search's
//! score and the game's result, and the file that holds a batch of them.
//!
//! ```text
//! magic "DAMANNUS" | version u32 (2) | feature set length u16 | feature set |
//! rules length u16 | rules (UTF-8) | position bytes u16 | count u64 |
//! count × samples | FNV-1a 64 of everything before, u64
//! sample: position (the game's `Features::encode`) |
//!         score i16 (the game's units, side to move) |
//!         result i8 (+1, 0, -1, side to move)
//! ```
//!
//! Format 1 (draughts only, before feature sets were named) has no feature
//! set and no position size: `rules length u16 | rules | count u64 |
//! samples`. A game whose [`Features::READS_UNNAMED_FILES`] is set reads it.

use std::path::Path;

use crate::{frame, Error, Features};

/// First bytes of a sample file.
pub const SAMPLES_MAGIC: &[u8; 8] = b"DAMANNUS";
/// Version of the sample file format.
pub const SAMPLES_FORMAT_VERSION: u32 = 2;
/// Bytes of a sample after its position: score and result.
const LABEL_BYTES: usize = 3;
/// The longest feature set name or rules text a file may hold.
const MAX_TEXT: usize = 4096;

/// One training position of the game whose features are `F`.
pub struct Sample<F: Features> {
    /// The position.
    pub position: F::Position,
    /// The search's score for the side to move (centi-men in draughts).
    pub score: i16,
    /// The game's result for the side to move: +1 win, 0 draw, -1 loss.
    pub result: i8,
}

impl<F: Features> Clone for Sample<F> {
    fn clone(&self) -> Self {
        Sample {
            position: self.position.clone(),
            score: self.score,
            result: self.result,
        }
    }
}

impl<F: Features> std::fmt::Debug for Sample<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sample")
            .field("position", &self.position)
            .field("score", &self.score)
            .field("result", &self.result)
            .finish()
    }
}

impl<F: Features> PartialEq for Sample<F> {
    fn eq(&self, other: &Self) -> bool {
        self.position == other.position && self.score == other.score && self.result == other.result
    }
}

impl<F: Features> Sample<F> {
    /// A sample of `pos`: `score` is clamped to an `i16`, `result` to its
    /// sign.
    pub fn new(pos: &F::Position, score: i32, result: i8) -> Sample<F> {
        Sample {
            position: pos.clone(),
            score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            result: result.signum(),
        }
    }

    /// Calls `f` with every active feature of the sample's position seen
    /// by its side to move (`own`) or by the other side; with `mirror`, of
    /// the mirrored position where the game has one.
    pub fn for_each_feature(&self, own: bool, mirror: bool, f: impl FnMut(usize)) {
        let mirrored = if mirror {
            F::mirrored(&self.position)
        } else {
            None
        };
        let pos = mirrored.as_ref().unwrap_or(&self.position);
        let stm = F::side_to_move(pos);
        F::for_each_feature(pos, if own { stm } else { 1 - stm }, f);
    }

    fn write(&self, out: &mut Vec<u8>) {
        let at = out.len();
        F::encode(&self.position, out);
        debug_assert_eq!(out.len() - at, F::POSITION_BYTES);
        out.extend_from_slice(&self.score.to_le_bytes());
        out.push(self.result as u8);
    }

    fn read(b: &[u8], rules: &F::Rules) -> Result<Sample<F>, String> {
        let (pos, label) = b.split_at(F::POSITION_BYTES);
        let result = label[2] as i8;
        if !(-1..=1).contains(&result) {
            return Err(format!("result {result}"));
        }
        Ok(Sample {
            position: F::decode(pos, rules)?,
            score: i16::from_le_bytes([label[0], label[1]]),
            result,
        })
    }
}

fn push_text(bytes: &mut Vec<u8>, text: &str) -> Result<(), Error> {
    if text.len() > MAX_TEXT {
        return Err(Error::Invalid(format!(
            "`{text}` is longer than {MAX_TEXT} bytes"
        )));
    }
    bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
    bytes.extend_from_slice(text.as_bytes());
    Ok(())
}

/// The bytes of a sample file of `samples` played under `rules` (what
/// [`write_samples`] writes; for a store that takes bytes).
///
/// # Errors
///
/// [`Error::Invalid`] for rules text longer than a file holds.
pub fn encode_samples<F: Features>(
    rules: &F::Rules,
    samples: &[Sample<F>],
) -> Result<Vec<u8>, Error> {
    let mut bytes = frame::head(SAMPLES_MAGIC, SAMPLES_FORMAT_VERSION);
    bytes.reserve(32 + samples.len() * (F::POSITION_BYTES + LABEL_BYTES));
    push_text(&mut bytes, F::NAME)?;
    push_text(&mut bytes, &rules.to_string())?;
    bytes.extend_from_slice(&(F::POSITION_BYTES as u16).to_le_bytes());
    bytes.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    for s in samples {
        s.write(&mut bytes);
    }
    Ok(frame::seal(bytes))
}

/// Writes `samples` played under `rules` to `path` atomically.
///
/// # Errors
///
/// As [`encode_samples`]; [`Error::Io`] if the file cannot be written.
pub fn write_samples<F: Features>(
    path: &Path,
    rules: &F::Rules,
    samples: &[Sample<F>],
) -> Result<(), Error> {
    let bytes = encode_samples(rules, samples)?;
    dama_run::files::write_atomic(path, &bytes).map_err(|e| Error::io(path, e))
}

/// A cursor over a file's bytes that names what is missing.
struct Reader<'a> {
    path: &'a Path,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Error> {
        let end = self.at.saturating_add(n);
        let b = self
            .bytes
            .get(self.at..end)
            .ok_or_else(|| Error::format(self.path, format!("truncated header ({what})")))?;
        self.at = end;
        Ok(b)
    }

    fn u16(&mut self, what: &str) -> Result<usize, Error> {
        let b = self.take(2, what)?;
        Ok(usize::from(u16::from_le_bytes([b[0], b[1]])))
    }

    fn text(&mut self, what: &str) -> Result<&'a str, Error> {
        let n = self.u16(what)?;
        std::str::from_utf8(self.take(n, what)?)
            .map_err(|_| Error::format(self.path, format!("{what} is not UTF-8")))
    }
}

/// The largest sample file of `F` with at most `max_samples` samples, in
/// bytes: its header, feature set and rules, and the samples.
pub fn samples_file_bound<F: Features>(max_samples: usize) -> u64 {
    let sample_bytes = (F::POSITION_BYTES + LABEL_BYTES) as u64;
    40 + 2 * MAX_TEXT as u64 + (max_samples as u64).saturating_mul(sample_bytes)
}

/// Reads a sample file of the game whose features are `F`, of at most
/// `max_samples` samples; with `rules`, refuses samples of other rules.
/// Every sample is checked to be a position.
///
/// # Errors
///
/// [`Error::Format`] naming the problem (another game's samples included),
/// [`Error::OtherRules`] or [`Error::Io`].
pub fn read_samples<F: Features>(
    path: &Path,
    rules: Option<&F::Rules>,
    max_samples: usize,
) -> Result<(F::Rules, Vec<Sample<F>>), Error> {
    let bytes = dama_run::files::read_bounded(path, samples_file_bound::<F>(max_samples))
        .map_err(|e| Error::io(path, e))?;
    decode_samples(path, &bytes, rules, max_samples)
}

/// [`read_samples`] of the bytes of a sample file (`path` names it in the
/// messages), as a store hands them over.
///
/// # Errors
///
/// As [`read_samples`], but for [`Error::Io`].
pub fn decode_samples<F: Features>(
    path: &Path,
    bytes: &[u8],
    rules: Option<&F::Rules>,
    max_samples: usize,
) -> Result<(F::Rules, Vec<Sample<F>>), Error> {
    let sample_bytes = F::POSITION_BYTES + LABEL_BYTES;
    let versions: &[u32] = if F::READS_UNNAMED_FILES {
        &[1, SAMPLES_FORMAT_VERSION]
    } else {
        &[SAMPLES_FORMAT_VERSION]
    };
    let version = frame::check(path, bytes, SAMPLES_MAGIC, versions, "a sample file")?;
    let bad = |m: String| Error::format(path, m);
    if bytes.len() < 20 {
        return Err(bad("truncated header".to_owned()));
    }
    let mut r = Reader {
        path,
        bytes,
        at: 12,
    };
    if version >= 2 {
        let set = r.text("feature set")?;
        if set != F::NAME {
            return Err(bad(format!(
                "samples of the feature set `{set}`, not `{}` (another game's samples)",
                F::NAME
            )));
        }
    }
    let rules_text = r.text("rules")?;
    if version >= 2 {
        let n = r.u16("position size")?;
        if n != F::POSITION_BYTES {
            return Err(bad(format!(
                "positions of {n} bytes, the feature set `{}` stores {}",
                F::NAME,
                F::POSITION_BYTES
            )));
        }
    }
    let c = r.take(8, "sample count")?;
    let mut a = [0u8; 8];
    a.copy_from_slice(c);
    let count = u64::from_le_bytes(a);
    if count > max_samples as u64 {
        return Err(bad(format!(
            "{count} samples, more than the {max_samples} allowed"
        )));
    }
    let expected = r.at as u64 + count * sample_bytes as u64 + 8;
    if bytes.len() as u64 != expected {
        return Err(bad(format!(
            "{} bytes, expected {expected} for {count} samples: truncated",
            bytes.len()
        )));
    }
    let body = frame::verify(path, bytes)?;
    let file_rules = frame::rules::<F>(path, rules_text, rules)?;
    let rest = &body[r.at..];
    let mut samples = Vec::with_capacity(count as usize);
    for (i, chunk) in rest.chunks_exact(sample_bytes).enumerate() {
        let s = Sample::read(chunk, &file_rules)
            .map_err(|e| bad(format!("sample {i} is malformed: {e}")))?;
        samples.push(s);
    }
    Ok((file_rules, samples))
}
