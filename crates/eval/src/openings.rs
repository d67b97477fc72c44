//! Openings: where arena games start.
//!
//! Each opening is played twice in a match, once with each player on each
//! side, so that an unbalanced opening does not favour either player.

use std::collections::HashSet;
use std::path::Path;

use dama_engine::{Game, Move, Position, Rules};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::Error;

/// A start: a position and moves played from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    /// The position the moves start from.
    pub start: Position,
    /// Moves played from `start` before the players take over.
    pub moves: Vec<Move>,
}

impl Opening {
    /// The initial position of `rules` (its variant's setup) with no moves.
    pub fn startpos(rules: Rules) -> Self {
        Self {
            start: Position::startpos_with_rules(rules),
            moves: Vec::new(),
        }
    }

    /// The game after the opening moves.
    ///
    /// # Errors
    ///
    /// [`Error::Opening`] if a move is illegal or the game ends during the
    /// opening.
    pub fn game(&self) -> Result<Game, Error> {
        let mut game = Game::from_position(self.start);
        for m in &self.moves {
            game.play(m)
                .map_err(|e| Error::Opening(format!("{}: {e}", self.text())))?;
        }
        if game.outcome().is_some() {
            return Err(Error::Opening(format!(
                "{}: game already over",
                self.text()
            )));
        }
        Ok(game)
    }

    /// The opening as text: the start position (omitted if it is the initial
    /// position) followed by the moves.
    pub fn text(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if self.start != Position::startpos_with_rules(*self.start.rules()) {
            parts.push(self.start.to_string());
        }
        parts.extend(self.moves.iter().map(|m| m.to_string()));
        parts.join(" ")
    }

    /// Parses [`Opening::text`]: whitespace-separated tokens; a first token
    /// containing `:` is a position (`W:Wa2,b2,Kd4:Ba7,Kh8`), the others are
    /// moves (`d3-d4`, `b3xd3xd5`) played from it (default: the initial
    /// position of `rules`), all under `rules`.
    ///
    /// # Errors
    ///
    /// [`Error::Opening`] for a bad position, one that cannot occur under
    /// `rules`, or an illegal move.
    pub fn parse(text: &str, rules: Rules) -> Result<Self, Error> {
        let mut tokens = text.split_whitespace().peekable();
        let start = match tokens.peek() {
            Some(t) if t.contains(':') => {
                let t = tokens.next().unwrap_or_default();
                t.parse::<Position>()
                    .map_err(|e| Error::Opening(format!("`{t}`: {e}")))?
                    .try_with_rules(rules)
                    .map_err(|e| Error::Opening(format!("`{t}`: {e}")))?
            }
            _ => Position::startpos_with_rules(rules),
        };
        let mut pos = start;
        let mut moves = Vec::new();
        for t in tokens {
            // Accept move numbers such as `1.` in pasted records.
            if t.ends_with('.') && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            let m = pos
                .parse_move(t)
                .map_err(|e| Error::Opening(format!("`{t}` in `{text}`: {e}")))?;
            pos.play_unchecked(&m);
            moves.push(m);
        }
        let opening = Self { start, moves };
        opening.game()?;
        Ok(opening)
    }
}

/// Where a match takes its openings from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningSource {
    /// Every game from the initial position (deterministic players then play
    /// the same game over and over: use only with random players).
    Startpos,
    /// Distinct random starts of `plies` uniformly random moves, drawn from
    /// the match seed.
    Random {
        /// Random plies per opening (default 4).
        plies: u32,
    },
    /// Openings read from a file, one per line (see [`load_openings`]), used
    /// in order and cycled if there are fewer than the match needs.
    File(std::path::PathBuf),
}

impl Default for OpeningSource {
    fn default() -> Self {
        OpeningSource::Random { plies: 4 }
    }
}

/// `count` distinct random openings of `plies` random moves from the initial
/// position of `rules`. Starts that end the game, or repeat an earlier start,
/// are redrawn; if the space runs out, fewer are returned.
///
/// The same `seed` always gives the same openings.
pub fn random_openings(rules: Rules, count: usize, plies: u32, seed: u64) -> Vec<Opening> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut attempts = 0usize;
    while out.len() < count && attempts < 100 * count + 1000 {
        attempts += 1;
        let mut game = Game::with_rules(rules);
        let mut moves = Vec::new();
        let mut over = false;
        for _ in 0..plies {
            let legal = game.legal_moves();
            if legal.is_empty() || game.outcome().is_some() {
                over = true;
                break;
            }
            let m = legal[rng.gen_range(0..legal.len())];
            game.play_unchecked(&m);
            moves.push(m);
        }
        if over || game.outcome().is_some() {
            continue;
        }
        if seen.insert(game.position().hash()) {
            out.push(Opening {
                start: Position::startpos_with_rules(rules),
                moves,
            });
        }
    }
    out
}

/// Reads openings from a file: one per line in [`Opening::parse`] format,
/// under `rules`; blank lines and lines starting with `#` are skipped.
///
/// # Errors
///
/// I/O errors, [`Error::Opening`] naming the line of a bad opening, or an
/// empty file.
pub fn load_openings(path: &Path, rules: Rules) -> Result<Vec<Opening>, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Opening(format!("cannot read {}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let o = Opening::parse(line, rules)
            .map_err(|e| Error::Opening(format!("{}:{}: {e}", path.display(), i + 1)))?;
        out.push(o);
    }
    if out.is_empty() {
        return Err(Error::Opening(format!("{}: no openings", path.display())));
    }
    Ok(out)
}

/// The openings of a match of `pairs` game pairs under `rules`.
///
/// # Errors
///
/// Errors of [`load_openings`].
pub fn openings_for(
    source: &OpeningSource,
    rules: Rules,
    pairs: usize,
    seed: u64,
) -> Result<Vec<Opening>, Error> {
    match source {
        OpeningSource::Startpos => Ok(vec![Opening::startpos(rules)]),
        OpeningSource::Random { plies } => {
            let v = random_openings(rules, pairs.max(1), *plies, seed);
            if v.is_empty() {
                Ok(vec![Opening::startpos(rules)])
            } else {
                Ok(v)
            }
        }
        OpeningSource::File(path) => load_openings(path, rules),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_openings_are_distinct_and_reproducible() {
        let a = random_openings(Rules::default(), 50, 4, 7);
        let b = random_openings(Rules::default(), 50, 4, 7);
        let c = random_openings(Rules::default(), 50, 4, 8);
        assert_eq!(a.len(), 50);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let hashes: HashSet<u64> = a
            .iter()
            .map(|o| o.game().unwrap().position().hash())
            .collect();
        assert_eq!(hashes.len(), 50);
        assert!(a.iter().all(|o| o.moves.len() == 4));
    }

    #[test]
    fn opening_text_round_trips() {
        for o in random_openings(Rules::default(), 20, 6, 1) {
            let back = Opening::parse(&o.text(), Rules::default()).unwrap();
            assert_eq!(back, o);
        }
        let o = Opening::parse("W:Wa2,b2,Kd4:Ba7,Kh8 d4-d5", Rules::default()).unwrap();
        assert_eq!(o.moves.len(), 1);
        assert_eq!(Opening::parse(&o.text(), Rules::default()).unwrap(), o);
        assert!(Opening::parse("d3-d5", Rules::default()).is_err());
        assert!(Opening::parse("X:nonsense", Rules::default()).is_err());
        let o = Opening::parse("1. a3-a4 h6-h5 2. b3-b4", Rules::default()).unwrap();
        assert_eq!(o.moves.len(), 3);
    }

    #[test]
    fn load_from_file() {
        let dir = std::env::temp_dir().join(format!("dama-eval-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("o.txt");
        std::fs::write(&path, "# book\nd3-d4 d6-d5\n\nc3-c4\n").unwrap();
        let v = load_openings(&path, Rules::default()).unwrap();
        assert_eq!(v.len(), 2);
        std::fs::write(&path, "d3-d4\nd3-d5\n").unwrap();
        let err = load_openings(&path, Rules::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains(":2:"), "{err}");
        // Issue 19: a file that cannot be read is named.
        let missing = dir.join("missing.txt");
        let err = load_openings(&missing, Rules::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing.txt"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn openings_of_a_variant_start_from_its_setup() {
        use dama_engine::Variant;
        for v in [Variant::Armenian, Variant::Croda, Variant::Dameo] {
            let rules = Rules::for_variant(v);
            let start = Position::startpos_with_rules(rules);
            let openings = random_openings(rules, 10, 4, 3);
            assert_eq!(openings.len(), 10);
            for o in &openings {
                assert_eq!(o.start, start);
                let back = Opening::parse(&o.text(), rules).unwrap();
                assert_eq!(&back, o, "{v}");
            }
            assert_eq!(Opening::startpos(rules).game().unwrap().rules(), &rules);
        }
        // Croda's setup (24 men a side) is refused under Turkish rules.
        let croda = Position::startpos_with_rules(Rules::for_variant(Variant::Croda)).to_string();
        let err = Opening::parse(&croda, Rules::default()).unwrap_err();
        assert!(err.to_string().contains(&croda), "{err}");
    }
}
