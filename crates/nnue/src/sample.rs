//! Training samples: quiet positions of the engine's games with the search's
//! score and the game's result, and the file that holds a batch of them.
//!
//! ```text
//! magic "DAMANNUS" | version u32 | rules length u16 | rules (UTF-8) |
//! count u64 | count × 28-byte samples | FNV-1a 64 of everything before, u64
//! sample: white u64 | black u64 | kings u64 | turn u8 (0 White, 1 Black) |
//!         score i16 (centi-men, side to move) | result i8 (+1, 0, -1, side to move)
//! ```

use std::path::Path;

use crate::{frame, Error};
use dama_engine::{Bitboard, Color, Position, Rules};

/// First bytes of a sample file.
pub const SAMPLES_MAGIC: &[u8; 8] = b"DAMANNUS";
/// Version of the sample file format.
pub const SAMPLES_FORMAT_VERSION: u32 = 1;
const SAMPLE_BYTES: usize = 28;

/// One training position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// White's pieces.
    pub white: u64,
    /// Black's pieces.
    pub black: u64,
    /// Kings of both sides.
    pub kings: u64,
    /// The side to move.
    pub turn: Color,
    /// The search's score in centi-men for the side to move.
    pub score: i16,
    /// The game's result for the side to move: +1 win, 0 draw, -1 loss.
    pub result: i8,
}

impl Sample {
    /// A sample of `pos`.
    pub fn new(pos: &Position, score: i32, result: i8) -> Sample {
        Sample {
            white: pos.pieces(Color::White).0,
            black: pos.pieces(Color::Black).0,
            kings: pos.kings().0,
            turn: pos.turn(),
            score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            result: result.signum(),
        }
    }

    /// The sample's position under `rules` (counters zeroed).
    ///
    /// # Errors
    ///
    /// The engine's message if the pieces do not make a position.
    pub fn position(&self, rules: Rules) -> Result<Position, String> {
        Position::from_bitboards_with_rules(
            Bitboard(self.white),
            Bitboard(self.black),
            Bitboard(self.kings),
            self.turn,
            rules,
        )
        .map_err(|e| e.to_string())
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.white.to_le_bytes());
        out.extend_from_slice(&self.black.to_le_bytes());
        out.extend_from_slice(&self.kings.to_le_bytes());
        out.push(self.turn.index() as u8);
        out.extend_from_slice(&self.score.to_le_bytes());
        out.push(self.result as u8);
    }

    fn read(b: &[u8]) -> Option<Sample> {
        let u = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(a)
        };
        let turn = match b[24] {
            0 => Color::White,
            1 => Color::Black,
            _ => return None,
        };
        let result = b[27] as i8;
        if !(-1..=1).contains(&result) {
            return None;
        }
        Some(Sample {
            white: u(0),
            black: u(8),
            kings: u(16),
            turn,
            score: i16::from_le_bytes([b[25], b[26]]),
            result,
        })
    }
}

/// Writes `samples` played under `rules` to `path` atomically.
///
/// # Errors
///
/// [`Error::Io`] if the file cannot be written.
pub fn write_samples(path: &Path, rules: &Rules, samples: &[Sample]) -> Result<(), Error> {
    let rules = rules.to_string();
    let mut bytes = frame::head(SAMPLES_MAGIC, SAMPLES_FORMAT_VERSION);
    bytes.reserve(18 + rules.len() + samples.len() * SAMPLE_BYTES);
    bytes.extend_from_slice(&(rules.len() as u16).to_le_bytes());
    bytes.extend_from_slice(rules.as_bytes());
    bytes.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    for s in samples {
        s.write(&mut bytes);
    }
    frame::seal_and_write(path, bytes)
}

/// Reads a sample file of at most `max_samples` samples; with `rules`,
/// refuses samples of other rules. Every sample is checked to be a position.
///
/// # Errors
///
/// [`Error::Format`] naming the problem, [`Error::OtherRules`] or
/// [`Error::Io`].
pub fn read_samples(
    path: &Path,
    rules: Option<&Rules>,
    max_samples: usize,
) -> Result<(Rules, Vec<Sample>), Error> {
    let max = 30 + 4096 + (max_samples as u64).saturating_mul(SAMPLE_BYTES as u64) + 8;
    let bytes = frame::read(
        path,
        max,
        SAMPLES_MAGIC,
        SAMPLES_FORMAT_VERSION,
        "a sample file",
    )?;
    let bad = |m: String| Error::format(path, m);
    let rules_len = usize::from(u16::from_le_bytes([bytes[12], bytes[13]]));
    let head = 14 + rules_len + 8;
    if bytes.len() < head + 8 {
        return Err(bad("truncated header".to_owned()));
    }
    let mut c = [0u8; 8];
    c.copy_from_slice(&bytes[14 + rules_len..head]);
    let count = u64::from_le_bytes(c);
    if count > max_samples as u64 {
        return Err(bad(format!(
            "{count} samples, more than the {max_samples} allowed"
        )));
    }
    let expected = head + count as usize * SAMPLE_BYTES + 8;
    if bytes.len() != expected {
        return Err(bad(format!(
            "{} bytes, expected {expected} for {count} samples: truncated",
            bytes.len()
        )));
    }
    let body = frame::verify(path, &bytes)?;
    let text = std::str::from_utf8(&body[14..14 + rules_len])
        .map_err(|_| bad("rules are not UTF-8".to_owned()))?;
    let file_rules = frame::rules(path, text, rules)?;
    let mut samples = Vec::with_capacity(count as usize);
    for (i, chunk) in body[head..].chunks_exact(SAMPLE_BYTES).enumerate() {
        let s = Sample::read(chunk).ok_or_else(|| bad(format!("sample {i} is malformed")))?;
        s.position(file_rules)
            .map_err(|e| bad(format!("sample {i} is not a position: {e}")))?;
        samples.push(s);
    }
    Ok((file_rules, samples))
}

impl Sample {
    /// Calls `f` with every active feature seen by `perspective` (as
    /// [`crate::for_each_feature`] on the sample's position); with
    /// `mirror`, of the left-right mirrored position (files a ↔ h), which
    /// the rules of every 8×8 variant treat alike.
    pub fn for_each_feature(&self, perspective: Color, mirror: bool, mut f: impl FnMut(usize)) {
        for (owner, set) in [(Color::White, self.white), (Color::Black, self.black)] {
            for (bb, king) in [(set & !self.kings, false), (set & self.kings, true)] {
                let mut bb = bb;
                while bb != 0 {
                    let sq = bb.trailing_zeros();
                    bb &= bb - 1;
                    let sq = if mirror { sq ^ 7 } else { sq };
                    f(crate::feature_index(perspective, owner, king, sq));
                }
            }
        }
    }
}
