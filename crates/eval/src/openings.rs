//! Openings: where arena games start, for every game.
//!
//! Each opening is played twice in a match, once with each player on each
//! side, so that an unbalanced opening does not favour either player.

use std::collections::HashSet;
use std::path::Path;

use dama_game::GameDef;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::Error;

/// A start: a position and whole moves played from it.
pub struct Opening<G: GameDef> {
    /// The game at the position the moves start from (no moves played).
    pub start: G::Game,
    /// Moves played from `start` before the players take over.
    pub moves: Vec<G::Move>,
}

impl<G: GameDef> Clone for Opening<G> {
    fn clone(&self) -> Self {
        Opening {
            start: self.start.clone(),
            moves: self.moves.clone(),
        }
    }
}

impl<G: GameDef> std::fmt::Debug for Opening<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opening")
            .field("start", &G::position_text(&self.start))
            .field("moves", &self.moves)
            .finish()
    }
}

/// Openings are equal when they start from the same position (its text)
/// and play the same moves.
impl<G: GameDef> PartialEq for Opening<G> {
    fn eq(&self, other: &Self) -> bool {
        self.moves == other.moves && G::position_text(&self.start) == G::position_text(&other.start)
    }
}

impl<G: GameDef> Opening<G> {
    /// The initial position of `rules` with no moves.
    pub fn startpos(rules: &G::Rules) -> Self {
        Self {
            start: G::start(rules),
            moves: Vec::new(),
        }
    }

    /// The game after the opening moves.
    ///
    /// # Errors
    ///
    /// [`Error::Opening`] if a move is illegal or the game ends during the
    /// opening.
    pub fn game(&self) -> Result<G::Game, Error> {
        let mut game = self.start.clone();
        for m in &self.moves {
            G::play(&mut game, m).map_err(|e| Error::Opening(format!("{}: {e}", self.text())))?;
        }
        if G::outcome(&game).is_some() {
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
        let start = G::position_text(&self.start);
        if start != G::position_text(&G::start(&G::rules(&self.start))) {
            parts.push(start);
        }
        parts.extend(self.moves.iter().map(|m| m.to_string()));
        parts.join(" ")
    }

    /// Parses [`Opening::text`]: whitespace-separated tokens; a first token
    /// that is a position ([`GameDef::parse_position`], e.g.
    /// `W:Wa2,b2,Kd4:Ba7,Kh8` in draughts) is the start, the others are
    /// moves (`d3-d4`, `b3xd3xd5`) played from it (default: the initial
    /// position of `rules`), all under `rules`.
    ///
    /// # Errors
    ///
    /// [`Error::Opening`] for a bad position, one that cannot occur under
    /// `rules`, or an illegal move.
    pub fn parse(text: &str, rules: &G::Rules) -> Result<Self, Error> {
        let mut tokens = text.split_whitespace().peekable();
        let initial = G::start(rules);
        let start = match tokens.peek() {
            Some(t) => match G::parse_position(rules, t) {
                Ok(start) => {
                    tokens.next();
                    start
                }
                // Not a position: a move, unless it is neither.
                Err(pos) => {
                    if let Err(mv) = G::parse_move(&initial, t) {
                        if !is_move_number(t) {
                            return Err(Error::Opening(format!(
                                "`{t}` is neither a position ({pos}) nor a move ({mv})"
                            )));
                        }
                    }
                    initial
                }
            },
            None => initial,
        };
        let mut game = start.clone();
        let mut moves = Vec::new();
        for t in tokens {
            // Accept move numbers such as `1.` in pasted records.
            if is_move_number(t) {
                continue;
            }
            let m = G::parse_move(&game, t)
                .map_err(|e| Error::Opening(format!("`{t}` in `{text}`: {e}")))?;
            G::play(&mut game, &m)
                .map_err(|e| Error::Opening(format!("`{t}` in `{text}`: {e}")))?;
            moves.push(m);
        }
        let opening = Self { start, moves };
        opening.game()?;
        Ok(opening)
    }
}

/// A move number such as `1.` in a pasted record.
fn is_move_number(t: &str) -> bool {
    t.ends_with('.') && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit())
}

/// Where a match takes its openings from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningSource {
    /// Every game from the initial position (deterministic players then play
    /// the same game over and over: use only with random players).
    Startpos,
    /// Distinct random starts of `plies` uniformly random whole moves, drawn
    /// from the match seed.
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

/// `count` distinct random openings of `plies` random whole moves from the
/// initial position of `rules`. Starts that end the game, or repeat an
/// earlier start (the same position text), are redrawn; if the space runs
/// out, fewer are returned.
///
/// The same `seed` always gives the same openings.
pub fn random_openings<G: GameDef>(
    rules: &G::Rules,
    count: usize,
    plies: u32,
    seed: u64,
) -> Vec<Opening<G>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut attempts = 0usize;
    let initial = G::start(rules);
    while out.len() < count && attempts < 100 * count + 1000 {
        attempts += 1;
        let mut game = initial.clone();
        let mut moves = Vec::new();
        let mut over = false;
        for _ in 0..plies {
            let mut legal = G::legal_moves(&game);
            if legal.is_empty() || G::outcome(&game).is_some() {
                over = true;
                break;
            }
            let m = legal.swap_remove(rng.gen_range(0..legal.len()));
            if G::play(&mut game, &m).is_err() {
                over = true;
                break;
            }
            moves.push(m);
        }
        if over || G::outcome(&game).is_some() {
            continue;
        }
        if seen.insert(G::position_text(&game)) {
            out.push(Opening {
                start: initial.clone(),
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
pub fn load_openings<G: GameDef>(path: &Path, rules: &G::Rules) -> Result<Vec<Opening<G>>, Error> {
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
pub fn openings_for<G: GameDef>(
    source: &OpeningSource,
    rules: &G::Rules,
    pairs: usize,
    seed: u64,
) -> Result<Vec<Opening<G>>, Error> {
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
    use dama_draughts::Draughts;
    use dama_engine::{Position, Rules};

    type Opening = super::Opening<Draughts>;

    #[test]
    fn random_openings_are_distinct_and_reproducible() {
        let a = random_openings::<Draughts>(&Rules::default(), 50, 4, 7);
        let b = random_openings::<Draughts>(&Rules::default(), 50, 4, 7);
        let c = random_openings::<Draughts>(&Rules::default(), 50, 4, 8);
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
        for o in random_openings::<Draughts>(&Rules::default(), 20, 6, 1) {
            let back = Opening::parse(&o.text(), &Rules::default()).unwrap();
            assert_eq!(back, o);
        }
        let o = Opening::parse("W:Wa2,b2,Kd4:Ba7,Kh8 d4-d5", &Rules::default()).unwrap();
        assert_eq!(o.moves.len(), 1);
        assert_eq!(Opening::parse(&o.text(), &Rules::default()).unwrap(), o);
        assert!(Opening::parse("d3-d5", &Rules::default()).is_err());
        assert!(Opening::parse("X:nonsense", &Rules::default()).is_err());
        let o = Opening::parse("1. a3-a4 h6-h5 2. b3-b4", &Rules::default()).unwrap();
        assert_eq!(o.moves.len(), 3);
    }

    #[test]
    fn load_from_file() {
        let dir = std::env::temp_dir().join(format!("dama-eval-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("o.txt");
        std::fs::write(&path, "# book\nd3-d4 d6-d5\n\nc3-c4\n").unwrap();
        let v = load_openings::<Draughts>(&path, &Rules::default()).unwrap();
        assert_eq!(v.len(), 2);
        std::fs::write(&path, "d3-d4\nd3-d5\n").unwrap();
        let err = load_openings::<Draughts>(&path, &Rules::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains(":2:"), "{err}");
        // Issue 19: a file that cannot be read is named.
        let missing = dir.join("missing.txt");
        let err = load_openings::<Draughts>(&missing, &Rules::default())
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
            let openings = random_openings::<Draughts>(&rules, 10, 4, 3);
            assert_eq!(openings.len(), 10);
            for o in &openings {
                assert_eq!(o.start.position(), &start);
                let back = Opening::parse(&o.text(), &rules).unwrap();
                assert_eq!(&back, o, "{v}");
            }
            assert_eq!(Opening::startpos(&rules).game().unwrap().rules(), &rules);
        }
        // Croda's setup (24 men a side) is refused under Turkish rules.
        let croda = Position::startpos_with_rules(Rules::for_variant(Variant::Croda)).to_string();
        let err = Opening::parse(&croda, &Rules::default()).unwrap_err();
        assert!(err.to_string().contains(&croda), "{err}");
    }
}
