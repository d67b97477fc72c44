//! Versioned, checksummed self-play game files.
//!
//! A game file is one chunk of finished games:
//!
//! ```text
//! offset  size  field
//! 0       8     magic  b"DAMAGAME"
//! 8       4     format version (u32, little endian) = FORMAT_VERSION
//! 12      8     payload length in bytes (u64, little endian)
//! 20      8     FNV-1a 64 checksum of the payload (u64, little endian)
//! 28      n     payload: bincode 2 (standard config, serde) of
//!               `(GameName, Vec<GameRecord>)`: the game of every record of
//!               the chunk, then the records
//! ```
//!
//! Format 3 (before records said how a game ended as a typed reason and
//! counted its captures) and format 2 (before Turkish Tafl: the records
//! alone, all of them draughts games) are still read: their records get
//! the reason and the captures from their text ([`LegacyRecord`]).
//!
//! Files are written to a temporary name and renamed into place, so a reader
//! never sees half a chunk. A truncated or altered file fails the length or
//! checksum test with an error that names the file and the problem.
//!
//! The in-memory engine types are deliberately not serialized: a record holds
//! text (positions and moves in the engine's notation) and plain numbers, so
//! the engine can change its internals without breaking old files.

use std::fs;
use std::path::{Path, PathBuf};

use dama_game::GameDef;
use dama_nn::files::fnv1a64;
use dama_nn::GameName;
use serde::{Deserialize, Serialize};

use crate::Error;

/// The current on-disk format version. Bump it when `GameRecord` changes and
/// keep a reader for the old versions.
pub const FORMAT_VERSION: u32 = 4;

/// The format before [`GameRecord::ending`] and [`GameRecord::captures`].
const FORMAT_TEXT_ENDINGS: u32 = 3;

/// The format before the game's name was written (draughts records only).
const FORMAT_DRAUGHTS_ONLY: u32 = 2;

const MAGIC: &[u8; 8] = b"DAMAGAME";
const HEADER_LEN: usize = 28;

/// The largest payload a chunk may have, in bytes (128 MiB). A chunk of
/// 64 games of a few hundred plies is a few MiB; a
/// writer refuses to write more and a reader refuses to read more.
pub const MAX_PAYLOAD: usize = 128 << 20;

/// The bincode configuration of chunk payloads: the standard encoding, with
/// every allocation the decoder makes counted against [`MAX_PAYLOAD`], so a
/// crafted length (a string of 64 GiB) is an error, not an abort.
fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<MAX_PAYLOAD>()
}

/// One plane of the network input, stored compactly.
///
/// Nearly all planes are either 0/1 on squares (a bitboard) or one value on
/// every square (a counter or a constant), so this packs a `[64]` plane into
/// 8 or 4 bytes; anything else is kept as is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PackedPlane {
    /// Bit `i` set means square `i` holds 1.0, clear means 0.0.
    Bits(u64),
    /// The same value on all 64 squares.
    Constant(f32),
    /// Any other plane, 64 values in square order.
    Dense(Vec<f32>),
}

impl PackedPlane {
    /// Packs one plane (of at most 64 squares: 64 on the draughts board, 32
    /// on Turkish Tafl's).
    ///
    /// # Panics
    /// Panics if the plane is empty or longer than 64 (an invariant of the
    /// encoders).
    pub fn pack(plane: &[f32]) -> PackedPlane {
        assert!(
            (1..=64).contains(&plane.len()),
            "invariant: a plane has 1 to 64 squares"
        );
        let first = plane[0];
        if plane.iter().all(|&v| v == first) {
            return PackedPlane::Constant(first);
        }
        if plane.iter().all(|&v| v == 0.0 || v == 1.0) {
            let bits = plane
                .iter()
                .enumerate()
                .filter(|(_, &v)| v == 1.0)
                .fold(0u64, |acc, (i, _)| acc | (1u64 << i));
            return PackedPlane::Bits(bits);
        }
        PackedPlane::Dense(plane.to_vec())
    }

    /// Writes the 64 values of this plane into `out`.
    ///
    /// # Errors
    /// A dense plane whose length is not 64 (a corrupted record).
    pub fn unpack_into(&self, out: &mut [f32]) -> Result<(), Error> {
        match self {
            PackedPlane::Bits(bits) => {
                for (i, v) in out.iter_mut().enumerate() {
                    *v = if bits >> i & 1 == 1 { 1.0 } else { 0.0 };
                }
            }
            PackedPlane::Constant(c) => out.fill(*c),
            PackedPlane::Dense(values) => {
                if values.len() != out.len() {
                    return Err(Error::Corrupt(format!(
                        "dense plane with {} values, expected {}",
                        values.len(),
                        out.len()
                    )));
                }
                out.copy_from_slice(values);
            }
        }
        Ok(())
    }
}

/// One recorded position: what the network saw and what it should learn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The encoded network input, one packed plane per input channel, in the
    /// encoder's channel order (from the point of view of the player to move).
    pub planes: Vec<PackedPlane>,
    /// Policy indices of the legal actions (the mask).
    pub legal: Vec<u16>,
    /// The search's policy target, aligned with `legal`, summing to 1.
    pub policy: Vec<f32>,
    /// The search's root value `[win, draw, loss]` for the player to move.
    pub search_value: [f32; 3],
    /// The game's final result `[win, draw, loss]` for the player to move.
    pub outcome: [f32; 3],
    /// Action index within the game (jump-by-jump steps count one each).
    pub ply: u32,
}

/// How a recorded game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GameResult {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// Draw.
    Draw,
}

impl GameResult {
    /// The PDN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn as_pdn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
}

/// A finished self-play game with its training samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game (the chunk holds it once for all its records: see the
    /// module's docs).
    #[serde(skip)]
    pub game: GameName,
    /// Unique within a run: generation * 1_000_000 + index.
    pub game_id: u64,
    /// The generation whose network played the game.
    pub generation: u32,
    /// The rules the game was played under, as their text
    /// (`variant=croda,…`, `first=defender,…`; draughts records written
    /// before the game seam hold TOML): read them with
    /// [`GameRecord::rules`].
    pub rules: String,
    /// The start position in the engine's notation.
    pub start: String,
    /// The full moves played, in the engine's notation (`d3-d4`, `b3xd3xd5`).
    pub moves: Vec<String>,
    /// The result.
    pub result: GameResult,
    /// Why the game ended, in words (`no legal move`, `threefold repetition`,
    /// `resigned`, `move cap`, ...).
    pub termination: String,
    /// Why the game ended, as every game's statistics count it.
    pub ending: dama_game::EndReason,
    /// The moves that captured something.
    pub captures: u32,
    /// True when the loser resigned.
    pub resigned: bool,
    /// True when resignation was disabled for this game to measure false
    /// resignations.
    pub resign_disabled: bool,
    /// For a resign-disabled game: true if some position had a value under the
    /// resign threshold for the side that did not lose (a false resignation).
    pub would_have_resigned_wrongly: bool,
    /// The positions searched fully and kept as training targets.
    pub samples: Vec<Sample>,
}

impl GameRecord {
    /// The rules the game was played under, for game `G`: the `rules` field
    /// is their text (`variant=croda,…`); draughts records written before
    /// the game seam hold them as TOML, which is read too. This is the
    /// field's one reader.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] for a record of another game, or rules that do not
    /// parse.
    pub fn rules<G: GameDef>(&self) -> Result<G::Rules, Error> {
        if self.game.as_str() != G::NAME {
            return Err(Error::Corrupt(format!(
                "game {} is a {} game, not a {} game",
                self.game_id,
                self.game.title(),
                G::TITLE
            )));
        }
        G::parse_rules(&self.rules)
            .or_else(|e| toml::from_str::<G::Rules>(&self.rules).map_err(|_| e))
            .map_err(|e| {
                Error::Corrupt(format!(
                    "game {}: {} rules `{}` do not parse: {e}",
                    self.game_id,
                    G::TITLE,
                    self.rules
                ))
            })
    }
}

/// A record of formats 2 and 3, which kept how a game ended as text only.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct LegacyRecord {
    game_id: u64,
    generation: u32,
    rules: String,
    start: String,
    moves: Vec<String>,
    result: GameResult,
    termination: String,
    resigned: bool,
    resign_disabled: bool,
    would_have_resigned_wrongly: bool,
    samples: Vec<Sample>,
}

impl LegacyRecord {
    /// The record with the reason and the captures its text gives: the
    /// words these formats' writers used (draughts' and Turkish Tafl's
    /// `Repetition`, `NoCaptureLimit`, self-play's `move cap` and
    /// `tablebase`; Mini draughts' records of these formats said
    /// `repetition` and `no-capture limit`), and captures as the moves
    /// written with `x`, as every game's notation writes them. Only old
    /// files are read this way.
    fn upgrade(self) -> GameRecord {
        use dama_game::EndReason;
        let ending = match self.termination.as_str() {
            "Repetition" | "repetition" => EndReason::Repetition,
            "NoCaptureLimit" | "no-capture limit" => EndReason::NoCaptureLimit,
            "NoPieces" | "Blocked" | "NoMoves" | "no pieces" | "no legal move" => {
                EndReason::NoMoves
            }
            crate::selfplay::MOVE_CAP => EndReason::MoveCap,
            crate::selfplay::TABLEBASE => EndReason::Tablebase,
            _ => EndReason::Other,
        };
        let captures = self.moves.iter().filter(|m| m.contains('x')).count() as u32;
        GameRecord {
            game: GameName::default(),
            game_id: self.game_id,
            generation: self.generation,
            rules: self.rules,
            start: self.start,
            moves: self.moves,
            result: self.result,
            termination: self.termination,
            ending,
            captures,
            resigned: self.resigned,
            resign_disabled: self.resign_disabled,
            would_have_resigned_wrongly: self.would_have_resigned_wrongly,
            samples: self.samples,
        }
    }
}

/// Writes `games` as one chunk file at `path`, atomically.
///
/// # Errors
/// I/O errors or an encoding failure, naming the path.
pub fn write_chunk(path: &Path, games: &[GameRecord]) -> Result<(), Error> {
    let bytes = encode_chunk(games).map_err(|reason| Error::BadFile {
        path: path.to_path_buf(),
        reason,
    })?;
    write_atomic(path, &bytes)
}

/// The bytes of a chunk file holding `games` (header and payload).
///
/// # Errors
/// An encoding failure or a payload over [`MAX_PAYLOAD`], in words (the
/// caller names the file).
pub fn encode_chunk(games: &[GameRecord]) -> Result<Vec<u8>, String> {
    let game = games.first().map_or(GameName::Draughts, |g| g.game);
    if let Some(other) = games.iter().find(|g| g.game != game) {
        return Err(format!(
            "a chunk holds the games of one game: game {} is {}, game {} is {}",
            games[0].game_id, game, other.game_id, other.game
        ));
    }
    let payload = bincode::serde::encode_to_vec((game, games), bincode_config())
        .map_err(|e| format!("cannot encode games: {e}"))?;
    if payload.len() > MAX_PAYLOAD {
        return Err(format!(
            "{} games take {} bytes, more than the {MAX_PAYLOAD}-byte limit of a chunk",
            games.len(),
            payload.len()
        ));
    }
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    Ok(bytes)
}

/// The largest chunk file, header included.
pub const MAX_CHUNK_FILE: u64 = (HEADER_LEN + MAX_PAYLOAD) as u64;

/// Reads one chunk file.
///
/// # Errors
/// A missing file, a wrong magic number, an unknown version, a truncated or
/// altered payload: each named with the path.
pub fn read_chunk(path: &Path) -> Result<Vec<GameRecord>, Error> {
    let size = fs::metadata(path).map_err(|e| Error::io(path, e))?.len();
    if size > (HEADER_LEN + MAX_PAYLOAD) as u64 {
        return Err(Error::BadFile {
            path: path.to_path_buf(),
            reason: format!(
                "file is {size} bytes, more than a chunk may hold ({} bytes)",
                HEADER_LEN + MAX_PAYLOAD
            ),
        });
    }
    let bytes = fs::read(path).map_err(|e| Error::io(path, e))?;
    decode_chunk(&bytes).map_err(|e| Error::BadFile {
        path: path.to_path_buf(),
        reason: e,
    })
}

/// Decodes the bytes of one chunk file (header and payload), checking the
/// magic number, version, length and checksum, and bounding every
/// allocation by [`MAX_PAYLOAD`].
///
/// # Errors
/// The problem, in words (the caller names the file).
pub fn decode_chunk(bytes: &[u8]) -> Result<Vec<GameRecord>, String> {
    if bytes.len() < HEADER_LEN {
        return Err(format!(
            "file is {} bytes, shorter than the {HEADER_LEN}-byte header (truncated?)",
            bytes.len()
        ));
    }
    if &bytes[..8] != MAGIC {
        return Err("not a dama game file (bad magic number)".into());
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().map_err(|_| "header")?);
    if ![FORMAT_DRAUGHTS_ONLY, FORMAT_TEXT_ENDINGS, FORMAT_VERSION].contains(&version) {
        return Err(format!(
            "game file format version {version}, this build reads versions \
             {FORMAT_DRAUGHTS_ONLY} to {FORMAT_VERSION}"
        ));
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().map_err(|_| "header")?);
    if len > MAX_PAYLOAD as u64 {
        return Err(format!(
            "header says the payload is {len} bytes, more than the {MAX_PAYLOAD}-byte limit"
        ));
    }
    let len = len as usize;
    let sum = u64::from_le_bytes(bytes[20..28].try_into().map_err(|_| "header")?);
    let payload = &bytes[HEADER_LEN..];
    if payload.len() != len {
        return Err(format!(
            "payload is {} bytes, header says {len} (truncated or appended to)",
            payload.len()
        ));
    }
    if fnv1a64(payload) != sum {
        return Err("checksum mismatch (file altered or corrupted)".into());
    }
    let legacy = |(games, used): (Vec<LegacyRecord>, usize)| {
        (games.into_iter().map(LegacyRecord::upgrade).collect(), used)
    };
    let decoded = match version {
        FORMAT_DRAUGHTS_ONLY => bincode::serde::decode_from_slice(payload, bincode_config())
            .map(legacy)
            .map(|(games, used)| ((GameName::Draughts, games), used)),
        FORMAT_TEXT_ENDINGS => bincode::serde::decode_from_slice(payload, bincode_config()).map(
            |((game, games), used): ((GameName, Vec<LegacyRecord>), usize)| {
                let (games, used) = legacy((games, used));
                ((game, games), used)
            },
        ),
        _ => bincode::serde::decode_from_slice(payload, bincode_config()),
    };
    let ((game, mut games), used): ((GameName, Vec<GameRecord>), usize) =
        decoded.map_err(|e| format!("cannot decode games: {e}"))?;
    for g in &mut games {
        g.game = game;
    }
    if used != payload.len() {
        return Err(format!(
            "{} trailing bytes after the games",
            payload.len() - used
        ));
    }
    Ok(games)
}

/// Lists the chunk files (`*.games`) in a directory, sorted by name.
///
/// # Errors
/// I/O errors reading the directory.
pub fn list_chunks(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        if path.extension().is_some_and(|e| e == "games") {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// Writes `bytes` to `path` atomically ([`dama_nn::files::write_atomic`]:
/// a temporary file and a rename, so `path` holds either the old or the new
/// content).
///
/// # Errors
/// I/O errors, naming the path.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    dama_nn::files::write_atomic(path, bytes).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_game(id: u64) -> GameRecord {
        let mut plane = vec![0.0f32; 64];
        plane[3] = 1.0;
        plane[60] = 1.0;
        GameRecord {
            game: dama_nn::GameName::Draughts,
            game_id: id,
            generation: 2,
            rules: "no_capture_draw_plies = 50\n".into(),
            start: "startpos".into(),
            moves: vec!["d3-d4".into(), "d6-d5".into()],
            result: GameResult::Draw,
            termination: "move cap".into(),
            ending: dama_game::EndReason::MoveCap,
            captures: 0,
            resigned: false,
            resign_disabled: true,
            would_have_resigned_wrongly: false,
            samples: vec![Sample {
                planes: vec![
                    PackedPlane::pack(&plane),
                    PackedPlane::pack(&[0.25; 64]),
                    PackedPlane::pack(&(0..64).map(|i| i as f32 / 64.0).collect::<Vec<_>>()),
                ],
                legal: vec![3, 17, 900],
                policy: vec![0.5, 0.25, 0.25],
                search_value: [0.2, 0.5, 0.3],
                outcome: [0.0, 1.0, 0.0],
                ply: 0,
            }],
        }
    }

    #[test]
    fn planes_pack_and_unpack_losslessly() {
        let mut bits = vec![0.0f32; 64];
        bits[0] = 1.0;
        bits[63] = 1.0;
        let dense: Vec<f32> = (0..64).map(|i| i as f32 * 0.5).collect();
        for plane in [bits, vec![0.0; 64], vec![0.75; 64], dense] {
            let packed = PackedPlane::pack(&plane);
            let mut out = vec![9.0f32; 64];
            packed.unpack_into(&mut out).unwrap();
            assert_eq!(out, plane, "{packed:?}");
        }
        assert!(matches!(
            PackedPlane::pack(&[0.0; 64]),
            PackedPlane::Constant(_)
        ));
        let mut one_bit = vec![0.0f32; 64];
        one_bit[5] = 1.0;
        assert_eq!(PackedPlane::pack(&one_bit), PackedPlane::Bits(1 << 5));
    }

    #[test]
    fn chunk_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gen-0001-000.games");
        let games = vec![sample_game(1), sample_game(2)];
        write_chunk(&path, &games).unwrap();
        assert_eq!(read_chunk(&path).unwrap(), games);
        assert_eq!(list_chunks(dir.path()).unwrap(), vec![path]);
    }

    #[test]
    fn a_chunk_keeps_its_game_and_holds_one_game() {
        /// A chunk of each game other than draughts keeps its game and
        /// rules, and its records are refused as another game's by name.
        struct Check;
        impl dama_nn::WithGame for Check {
            type Output = ();
            fn run<G: dama_game::GameDef>(self) {
                let Some(name) = GameName::of::<G>().filter(|&g| g != GameName::Draughts) else {
                    return;
                };
                let mut games = vec![sample_game(1), sample_game(2)];
                for g in &mut games {
                    g.game = name;
                    g.rules = G::Rules::default().to_string();
                }
                let back = decode_chunk(&encode_chunk(&games).unwrap()).unwrap();
                assert_eq!(back, games);
                assert_eq!(back[0].rules::<G>().unwrap(), G::Rules::default());
                let err = back[0]
                    .rules::<dama_draughts::Draughts>()
                    .unwrap_err()
                    .to_string();
                assert!(err.contains(&format!("{} game", G::TITLE)), "{err}");
                let err = sample_game(3).rules::<G>().unwrap_err().to_string();
                assert!(err.contains(&format!("not a {} game", G::TITLE)), "{err}");
                games.push(sample_game(4));
                let err = encode_chunk(&games).unwrap_err();
                assert!(err.contains("one game"), "{err}");
            }
        }
        for &g in GameName::ALL {
            g.with(Check);
        }
        // Draughts records hold rules text; older ones TOML: both read.
        let mut old = sample_game(3);
        let rules = dama_engine::Rules::for_variant(dama_engine::Variant::Croda);
        old.rules = rules.to_string();
        assert_eq!(old.rules::<dama_draughts::Draughts>().unwrap(), rules);
        old.rules = toml::to_string(&rules).unwrap();
        assert_eq!(old.rules::<dama_draughts::Draughts>().unwrap(), rules);
        old.rules = "variant=chess".into();
        let err = old
            .rules::<dama_draughts::Draughts>()
            .unwrap_err()
            .to_string();
        assert!(err.contains("variant=chess"), "{err}");
    }

    /// `game` as formats 2 and 3 wrote it.
    fn legacy(g: &GameRecord) -> LegacyRecord {
        LegacyRecord {
            game_id: g.game_id,
            generation: g.generation,
            rules: g.rules.clone(),
            start: g.start.clone(),
            moves: g.moves.clone(),
            result: g.result,
            termination: g.termination.clone(),
            resigned: g.resigned,
            resign_disabled: g.resign_disabled,
            would_have_resigned_wrongly: g.would_have_resigned_wrongly,
            samples: g.samples.clone(),
        }
    }

    #[test]
    fn format_3_chunks_read_with_their_endings_and_captures_from_the_text() {
        use dama_game::EndReason;
        let mut games = Vec::new();
        for (i, (words, reason)) in [
            ("Repetition", EndReason::Repetition),
            // Mini draughts' words in these formats.
            ("repetition", EndReason::Repetition),
            ("no-capture limit", EndReason::NoCaptureLimit),
            ("NoCaptureLimit", EndReason::NoCaptureLimit),
            ("move cap", EndReason::MoveCap),
            ("KingEscaped", EndReason::Other),
        ]
        .into_iter()
        .enumerate()
        {
            let mut g = sample_game(i as u64);
            g.game = GameName::MiniDama;
            g.moves = vec!["c3-d4".into(), "e5xc3".into(), "b2xd4".into()];
            g.termination = words.into();
            g.ending = reason;
            g.captures = 2;
            games.push(g);
        }
        let old: Vec<LegacyRecord> = games.iter().map(legacy).collect();
        let payload =
            bincode::serde::encode_to_vec((GameName::MiniDama, &old), bincode_config()).unwrap();
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        assert_eq!(decode_chunk(&bytes).unwrap(), games);
    }

    #[test]
    fn format_2_chunks_still_read_as_draughts() {
        let games = vec![sample_game(5)];
        let old: Vec<LegacyRecord> = games.iter().map(legacy).collect();
        let payload = bincode::serde::encode_to_vec(&old, bincode_config()).unwrap();
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&2u32.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        let back = decode_chunk(&bytes).unwrap();
        assert_eq!(back, games);
        assert_eq!(back[0].game, GameName::Draughts);
        bytes[8] = 1;
        let err = decode_chunk(&bytes).unwrap_err();
        assert!(err.contains("version 1"), "{err}");
    }

    #[test]
    fn golden_header_bytes_are_stable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.games");
        write_chunk(&path, &[sample_game(7)]).unwrap();
        let bytes = fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], b"DAMAGAME");
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 4);
        let len = u64::from_le_bytes(bytes[12..20].try_into().unwrap()) as usize;
        assert_eq!(len, bytes.len() - HEADER_LEN);
    }

    #[test]
    fn truncated_and_altered_files_are_named_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.games");
        write_chunk(&path, &[sample_game(1)]).unwrap();
        let bytes = fs::read(&path).unwrap();

        fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
        let err = read_chunk(&path).unwrap_err().to_string();
        assert!(
            err.contains("truncated") && err.contains("g.games"),
            "{err}"
        );

        let mut altered = bytes.clone();
        let last = altered.len() - 1;
        altered[last] ^= 0x55;
        fs::write(&path, &altered).unwrap();
        let err = read_chunk(&path).unwrap_err().to_string();
        assert!(err.contains("checksum"), "{err}");

        fs::write(&path, b"short").unwrap();
        assert!(read_chunk(&path)
            .unwrap_err()
            .to_string()
            .contains("header"));

        let mut wrong_version = bytes;
        wrong_version[8] = 99;
        fs::write(&path, &wrong_version).unwrap();
        assert!(read_chunk(&path)
            .unwrap_err()
            .to_string()
            .contains("version 99"));
    }

    /// A payload with a valid checksum whose first game declares a string of
    /// 64 GiB: the reader used to abort on the allocation (issue 19, item 1).
    #[test]
    fn crafted_lengths_with_valid_checksum_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crafted.games");
        let mut crafted = Vec::new();
        // One game; game_id, generation; then `rules` (a string) of 2^36 bytes.
        crafted.push(1u8);
        crafted.extend_from_slice(&[7, 2]);
        crafted.push(253); // bincode varint: a u64 follows.
        crafted.extend_from_slice(&(1u64 << 36).to_le_bytes());
        crafted.extend_from_slice(b"abc");
        for payload in [crafted, {
            // A vector of 2^60 games.
            let mut v = vec![253u8];
            v.extend_from_slice(&(1u64 << 60).to_le_bytes());
            v
        }] {
            let mut bytes = Vec::new();
            bytes.extend_from_slice(MAGIC);
            bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
            bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            bytes.extend_from_slice(&fnv1a64(&payload).to_le_bytes());
            bytes.extend_from_slice(&payload);
            fs::write(&path, &bytes).unwrap();
            let err = read_chunk(&path).unwrap_err().to_string();
            assert!(
                err.contains("crafted.games") && err.contains("decode"),
                "{err}"
            );
        }
    }

    #[test]
    fn oversized_payload_lengths_are_rejected_before_reading() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&u64::MAX.to_le_bytes());
        bytes.extend_from_slice(&0u64.to_le_bytes());
        let err = decode_chunk(&bytes).unwrap_err();
        assert!(err.contains("limit"), "{err}");
    }

    #[test]
    fn atomic_write_keeps_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.games");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }
}
