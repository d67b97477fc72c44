//! One material split in memory, and its file format.
//!
//! # File format (version 1)
//!
//! All integers little-endian. A 152-byte header:
//!
//! | bytes   | field |
//! |---------|-------|
//! | 0..8    | magic `DAMATB\0\x1a` |
//! | 8..12   | format version (`u32`, 1) |
//! | 12      | `promotion_mid_capture` (0 end of move, 1 continue as king) |
//! | 13      | `one_piece_each` (0 draw, 1 king beats man) |
//! | 14..16  | `no_capture_limit` (`u16`, 0 = off) |
//! | 16..20  | white men, white kings, black men, black kings (`u8` each) |
//! | 20      | distance width in bytes (1 or 2) |
//! | 21      | compression (0 none, 1 zstd) |
//! | 22..24  | reserved, 0 |
//! | 24..32  | entries (`u64`, both sides to move, stored index) |
//! | 32..40  | payload length uncompressed (`u64`) |
//! | 40..48  | payload length in the file (`u64`) |
//! | 48..144 | statistics: for White then Black to move, counts of win, cursed win, draw, blessed loss, loss, unused (`u64` each, at counter 0) |
//! | 144..152| FNV-1a 64 of bytes 0..144 and of the payload |
//!
//! The payload (after decompression) is the 2-bit values, four entries per
//! byte from the low bits up (0 draw, 1 win, 2 loss, 3 unused index), then
//! one distance per entry (0 = none, otherwise plies to zeroing + 1).

use std::path::Path;

use dama_engine::{MidCapturePromotion, OnePieceEachRule, Rules};

use crate::error::{Error, Result};
use crate::index::Indexer;
use crate::{Material, MAX_PIECES};

/// Value code of a draw.
pub(crate) const DRAW: u8 = 0;
/// Value code of a win for the side to move.
pub(crate) const WIN: u8 = 1;
/// Value code of a loss for the side to move.
pub(crate) const LOSS: u8 = 2;
/// Value code of an index that is no position (pieces overlap).
pub(crate) const UNUSED: u8 = 3;

const MAGIC: &[u8; 8] = b"DAMATB\0\x1a";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 152;
const ZSTD_LEVEL: i32 = 9;

/// Counts of one table's positions by value, at a zero no-capture counter.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// For White to move, then Black to move: wins, cursed wins, draws,
    /// blessed losses, losses, unused indexes.
    pub counts: [[u64; 6]; 2],
}

impl Stats {
    /// Positions (used indexes) with either side to move.
    pub fn positions(&self) -> u64 {
        self.counts.iter().map(|c| c[..5].iter().sum::<u64>()).sum()
    }
}

/// Distances, one or two bytes each.
#[derive(Debug)]
enum Dist {
    U8(Vec<u8>),
    U16(Vec<u16>),
}

/// One material split: values and distances by stored index.
#[derive(Debug)]
pub struct Table {
    pub(crate) indexer: Indexer,
    wdl: Vec<u8>,
    dist: Dist,
    stats: Stats,
    file_len: u64,
}

/// Packs 2-bit value codes, four per byte.
pub(crate) fn pack(codes: impl ExactSizeIterator<Item = u8>) -> Vec<u8> {
    let mut out = vec![0u8; codes.len().div_ceil(4)];
    for (i, c) in codes.enumerate() {
        out[i / 4] |= (c & 3) << ((i % 4) * 2);
    }
    out
}

fn rules_bytes(rules: &Rules) -> [u8; 4] {
    let limit = rules.no_capture_limit.unwrap_or(0).to_le_bytes();
    [
        u8::from(rules.promotion_mid_capture == MidCapturePromotion::ContinueAsKing),
        u8::from(rules.one_piece_each == OnePieceEachRule::KingBeatsMan),
        limit[0],
        limit[1],
    ]
}

/// Rules as written in headers and errors.
pub(crate) fn rules_text(rules: &Rules) -> String {
    format!(
        "promotion_mid_capture={:?}, one_piece_each={:?}, no_capture_limit={}",
        rules.promotion_mid_capture,
        rules.one_piece_each,
        rules.no_capture_limit.filter(|&l| l > 0).unwrap_or(0)
    )
}

/// The rules compared for tables: a limit of 0 is the same as none.
pub(crate) fn normalized(rules: &Rules) -> Rules {
    Rules {
        no_capture_limit: rules.no_capture_limit.filter(|&l| l > 0),
        ..*rules
    }
}

fn fnv1a64(h: u64, bytes: &[u8]) -> u64 {
    let mut h = h;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

impl Table {
    /// A table from packed values and distances by stored index.
    pub(crate) fn new(indexer: Indexer, wdl: Vec<u8>, dist: Vec<u16>, stats: Stats) -> Table {
        let dist = if dist.iter().all(|&d| d <= u16::from(u8::MAX)) {
            Dist::U8(dist.iter().map(|&d| d as u8).collect())
        } else {
            Dist::U16(dist)
        };
        Table {
            indexer,
            wdl,
            dist,
            stats,
            file_len: 0,
        }
    }

    /// The material split.
    pub fn material(&self) -> Material {
        self.indexer.material
    }

    /// Counts of positions by value.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Entries (stored indexes, both sides to move).
    pub fn entries(&self) -> u64 {
        self.indexer.stored_size()
    }

    /// Bytes of the table file (0 if not read from or written to a file).
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Bytes the table takes in memory.
    pub fn memory_len(&self) -> usize {
        self.wdl.len()
            + match &self.dist {
                Dist::U8(d) => d.len(),
                Dist::U16(d) => 2 * d.len(),
            }
    }

    /// The value code and distance (0 = none, else plies + 1) of a stored
    /// index.
    #[inline]
    pub(crate) fn get(&self, i: u64) -> (u8, u16) {
        let i = i as usize;
        let code = (self.wdl[i / 4] >> ((i % 4) * 2)) & 3;
        let d = match &self.dist {
            Dist::U8(d) => u16::from(d[i]),
            Dist::U16(d) => d[i],
        };
        (code, d)
    }

    /// The file bytes of this table under `rules`.
    pub(crate) fn encode(&self, rules: &Rules) -> Vec<u8> {
        let (width, dist_bytes): (u8, Vec<u8>) = match &self.dist {
            Dist::U8(d) => (1, d.clone()),
            Dist::U16(d) => (2, d.iter().flat_map(|x| x.to_le_bytes()).collect()),
        };
        let mut raw = Vec::with_capacity(self.wdl.len() + dist_bytes.len());
        raw.extend_from_slice(&self.wdl);
        raw.extend_from_slice(&dist_bytes);
        // zstd only fails on allocation or parameter errors; keep the raw
        // bytes then.
        let (compression, payload) = match zstd::bulk::compress(&raw, ZSTD_LEVEL) {
            Ok(c) if c.len() < raw.len() => (1u8, c),
            _ => (0u8, raw.clone()),
        };
        let m = self.material();
        let mut h = Vec::with_capacity(HEADER + payload.len());
        h.extend_from_slice(MAGIC);
        h.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        h.extend_from_slice(&rules_bytes(rules));
        h.extend_from_slice(&[m.white_men, m.white_kings, m.black_men, m.black_kings]);
        h.extend_from_slice(&[width, compression, 0, 0]);
        h.extend_from_slice(&self.entries().to_le_bytes());
        h.extend_from_slice(&(raw.len() as u64).to_le_bytes());
        h.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        for side in &self.stats.counts {
            for c in side {
                h.extend_from_slice(&c.to_le_bytes());
            }
        }
        let sum = fnv1a64(fnv1a64(FNV_OFFSET, &h), &payload);
        h.extend_from_slice(&sum.to_le_bytes());
        debug_assert_eq!(h.len(), HEADER);
        h.extend_from_slice(&payload);
        h
    }

    /// Reads a table file. `expected` are the rules the caller needs (`None`:
    /// accept any); the rules in the file are returned.
    ///
    /// # Errors
    ///
    /// A typed error naming `path` for an unreadable, truncated, foreign,
    /// wrong-version, wrong-rules, damaged or inconsistent file.
    pub(crate) fn read(path: &Path, expected: Option<&Rules>) -> Result<(Table, Rules)> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        let corrupt = |reason: String| Error::Corrupt {
            path: path.to_owned(),
            reason,
        };
        if bytes.len() < HEADER {
            if bytes.len() >= 8 && &bytes[..8] != MAGIC {
                return Err(Error::BadMagic {
                    path: path.to_owned(),
                });
            }
            return Err(Error::Truncated {
                path: path.to_owned(),
                len: bytes.len() as u64,
                need: HEADER as u64,
            });
        }
        if &bytes[..8] != MAGIC {
            return Err(Error::BadMagic {
                path: path.to_owned(),
            });
        }
        let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        if version != FORMAT_VERSION {
            return Err(Error::WrongVersion {
                path: path.to_owned(),
                found: version,
                expected: FORMAT_VERSION,
            });
        }
        let rules = Rules {
            promotion_mid_capture: match bytes[12] {
                0 => MidCapturePromotion::EndOfMove,
                1 => MidCapturePromotion::ContinueAsKing,
                x => return Err(corrupt(format!("unknown promotion rule {x}"))),
            },
            one_piece_each: match bytes[13] {
                0 => OnePieceEachRule::Draw,
                1 => OnePieceEachRule::KingBeatsMan,
                x => return Err(corrupt(format!("unknown one-piece-each rule {x}"))),
            },
            no_capture_limit: Some(u16::from_le_bytes([bytes[14], bytes[15]])).filter(|&l| l > 0),
            // Tables are Turkish draughts only (the generator refuses others).
            ..Rules::default()
        };
        if let Some(e) = expected {
            if normalized(e) != rules {
                return Err(Error::WrongRules {
                    path: path.to_owned(),
                    found: rules_text(&rules),
                    expected: rules_text(e),
                });
            }
        }
        let material = Material {
            white_men: bytes[16],
            white_kings: bytes[17],
            black_men: bytes[18],
            black_kings: bytes[19],
        };
        if material.pieces() > MAX_PIECES || !material.has_table() || !material.is_canonical() {
            return Err(corrupt(format!("no table has material {material}")));
        }
        let width = bytes[20];
        let compression = bytes[21];
        if !(width == 1 || width == 2) || compression > 1 {
            return Err(corrupt(format!(
                "distance width {width} / compression {compression}"
            )));
        }
        let entries = u64_at(&bytes, 24);
        let raw_len = u64_at(&bytes, 32);
        let payload_len = u64_at(&bytes, 40);
        let need = (HEADER as u64).saturating_add(payload_len);
        if (bytes.len() as u64) < need {
            return Err(Error::Truncated {
                path: path.to_owned(),
                len: bytes.len() as u64,
                need,
            });
        }
        if (bytes.len() as u64) > need {
            return Err(corrupt("trailing bytes after the payload".into()));
        }
        let sum = fnv1a64(fnv1a64(FNV_OFFSET, &bytes[..144]), &bytes[HEADER..]);
        if sum != u64_at(&bytes, 144) {
            return Err(Error::Checksum {
                path: path.to_owned(),
            });
        }
        let indexer = Indexer::new(material)
            .ok_or_else(|| corrupt(format!("material {material} cannot be indexed")))?;
        if entries != indexer.stored_size() {
            return Err(corrupt(format!(
                "{entries} entries, material {material} has {}",
                indexer.stored_size()
            )));
        }
        let n = entries as usize;
        let expect_raw = n.div_ceil(4) + n * usize::from(width);
        if raw_len != expect_raw as u64 {
            return Err(corrupt(format!(
                "payload of {raw_len} bytes, expected {expect_raw}"
            )));
        }
        let payload = &bytes[HEADER..];
        let raw = if compression == 1 {
            zstd::bulk::decompress(payload, expect_raw)
                .map_err(|e| corrupt(format!("zstd: {e}")))?
        } else {
            payload.to_vec()
        };
        if raw.len() != expect_raw {
            return Err(corrupt(format!(
                "payload decompresses to {} bytes, expected {expect_raw}",
                raw.len()
            )));
        }
        let (wdl, d) = raw.split_at(n.div_ceil(4));
        let dist = if width == 1 {
            Dist::U8(d.to_vec())
        } else {
            Dist::U16(
                d.chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect(),
            )
        };
        let mut stats = Stats::default();
        for (s, side) in stats.counts.iter_mut().enumerate() {
            for (k, c) in side.iter_mut().enumerate() {
                *c = u64_at(&bytes, 48 + 8 * (6 * s + k));
            }
        }
        let table = Table {
            indexer,
            wdl: wdl.to_vec(),
            dist,
            stats,
            file_len: bytes.len() as u64,
        };
        Ok((table, rules))
    }

    /// Writes the table to `path` atomically (a synced temporary file
    /// renamed into place) and records the file length.
    ///
    /// # Errors
    ///
    /// The I/O error, naming the file.
    pub(crate) fn write(&mut self, path: &Path, rules: &Rules) -> Result<()> {
        let bytes = self.encode(rules);
        dama_run::files::write_atomic(path, &bytes).map_err(|source| Error::Io {
            path: path.to_owned(),
            source,
        })?;
        self.file_len = bytes.len() as u64;
        Ok(())
    }
}
