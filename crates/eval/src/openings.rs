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

use crate::{BuildOptions, Error, PlayerFactory};

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
    /// Random starts as [`OpeningSource::Random`], kept only where `judge`
    /// (a player spec that searches, such as `alphabeta:depth=6`) scores
    /// the position after them within `margin` of even (see
    /// [`balanced_openings`]).
    Balanced {
        /// Random plies per opening.
        plies: u32,
        /// The largest score (centi-men, either sign) an opening may have.
        margin: i32,
        /// The player that scores the openings.
        judge: crate::PlayerSpec,
    },
}

/// Random plies of an opening unless a match says otherwise.
pub const DEFAULT_OPENING_PLIES: u32 = 4;

impl Default for OpeningSource {
    fn default() -> Self {
        OpeningSource::Random {
            plies: DEFAULT_OPENING_PLIES,
        }
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
    match draw_openings::<G, std::convert::Infallible>(rules, count, plies, seed, |_| Ok(true)) {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// `count` distinct random openings as [`random_openings`] draws them, of
/// which only those are kept that `judge` scores within `margin`
/// centi-men of even for the side to move after them: a start the random
/// moves left lost by force (a man left to be taken at once) is no test of
/// strength, since either player wins it with the better side and loses
/// it with the other, and such pairs pull every match's score towards
/// 50%. The judge thinks once per candidate, from a new game each time,
/// after the moves the side to move is forced to play (one legal move).
/// The same `seed` and judge always give the same openings; if the space
/// runs out, fewer are returned.
///
/// # Errors
///
/// The judge's errors, and [`Error::Opening`] if it reports no score (a
/// player that does not search).
pub fn balanced_openings<G: GameDef>(
    rules: &G::Rules,
    count: usize,
    plies: u32,
    seed: u64,
    margin: i32,
    judge: &dyn PlayerFactory<G>,
) -> Result<Vec<Opening<G>>, Error> {
    let mut player = judge.build()?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0ba1_a0ce);
    draw_openings::<G, Error>(rules, count, plies, seed, |game| {
        // A search with one move to play reports no score (alpha-beta
        // plays it at once; the arena reads a choice's score the same way,
        // `Choice::searched_score`), so the forced moves are played first: a start
        // whose only move is a capture of two men is not even. Scores are
        // for the side to move, and only their size counts.
        let mut game = game.clone();
        for _ in 0..MAX_FORCED_PLIES {
            let legal = G::legal_moves(&game);
            if legal.len() != 1 {
                break;
            }
            if G::play(&mut game, &legal[0]).is_err() || G::outcome(&game).is_some() {
                return Ok(false);
            }
        }
        player.new_game();
        let choice = player
            .think(&game, None, &mut rng)
            .map_err(|e| Error::Opening(format!("the judge {}: {e}", judge.name())))?;
        let Some((score, _)) = choice.searched_score() else {
            // Still forced after MAX_FORCED_PLIES: no search to judge by.
            if G::legal_moves(&game).len() == 1 {
                return Ok(false);
            }
            return Err(Error::Opening(format!(
                "the judge {} reports no score: it must be a player that searches, such as alphabeta:depth=6",
                judge.name()
            )));
        };
        Ok(score.abs() <= margin)
    })
}

/// The most forced moves [`balanced_openings`] plays before judging.
const MAX_FORCED_PLIES: usize = 64;

/// Draws distinct random starts until `count` of them pass `keep`.
fn draw_openings<G: GameDef, E>(
    rules: &G::Rules,
    count: usize,
    plies: u32,
    seed: u64,
    mut keep: impl FnMut(&G::Game) -> Result<bool, E>,
) -> Result<Vec<Opening<G>>, E> {
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
        if seen.insert(G::position_text(&game)) && keep(&game)? {
            out.push(Opening {
                start: initial.clone(),
                moves,
            });
        }
    }
    Ok(out)
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
        OpeningSource::Balanced {
            plies,
            margin,
            judge,
        } => {
            let factory = crate::factory::<G>(judge, &BuildOptions::default())?;
            let v =
                balanced_openings(rules, pairs.max(1), *plies, seed, *margin, factory.as_ref())?;
            if v.is_empty() {
                return Err(Error::Opening(format!(
                    "no start of {plies} random plies that {judge} scores within ±{margin}"
                )));
            }
            Ok(v)
        }
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

    /// The judge's score of the position after `o` and the moves forced
    /// after it, as the filter reads it.
    fn judged(judge: &dyn PlayerFactory<Draughts>, o: &Opening) -> i32 {
        let mut game = o.game().unwrap();
        while game.legal_moves().len() == 1 && game.outcome().is_none() {
            let only = game.legal_moves()[0];
            game.play(&only).unwrap();
        }
        let mut player = judge.build().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let choice = player.think(&game, None, &mut rng).unwrap();
        assert!(choice.score.unwrap().1 > 0, "a searched score");
        choice.score.unwrap().0
    }

    #[test]
    fn balanced_openings_keep_only_the_starts_the_judge_finds_even() {
        let rules = Rules::default();
        let judge =
            crate::parse_player::<Draughts>("alphabeta:depth=4", &BuildOptions::default()).unwrap();
        // Four random plies leave some starts lost by force: a man left to
        // be taken at once.
        let random = random_openings::<Draughts>(&rules, 60, 4, 3);
        let lopsided = random
            .iter()
            .filter(|o| judged(judge.as_ref(), o).abs() > 100)
            .count();
        assert!(lopsided > 0, "no lopsided start among 60 random ones");
        let a = balanced_openings::<Draughts>(&rules, 30, 4, 3, 100, judge.as_ref()).unwrap();
        let b = balanced_openings::<Draughts>(&rules, 30, 4, 3, 100, judge.as_ref()).unwrap();
        assert_eq!(a.len(), 30);
        assert_eq!(a, b, "the same seed and judge, the same openings");
        for o in &a {
            assert_eq!(o.moves.len(), 4);
            let s = judged(judge.as_ref(), o);
            assert!(s.abs() <= 100, "{} scored {s}", o.text());
        }
        // A start whose only move wins two men (a forced double capture,
        // to which the search answers at once, with no score) is judged
        // after that move, and is not even.
        let forced = Opening::parse("d3-d4 f6-f5 g3-g4 g6-g5", &rules).unwrap();
        assert_eq!(forced.game().unwrap().legal_moves().len(), 1);
        assert!(judged(judge.as_ref(), &forced).abs() > 100);
        // Through the match's opening source, as `dama eval --balanced`.
        let source = OpeningSource::Balanced {
            plies: 4,
            margin: 100,
            judge: "alphabeta:depth=4".parse().unwrap(),
        };
        assert_eq!(openings_for::<Draughts>(&source, &rules, 30, 3).unwrap(), a);
        // A judge that does not search is refused by name.
        let random_judge = OpeningSource::Balanced {
            plies: 4,
            margin: 100,
            judge: crate::PlayerSpec::Random,
        };
        let err = openings_for::<Draughts>(&random_judge, &rules, 5, 3)
            .unwrap_err()
            .to_string();
        assert!(err.contains("reports no score"), "{err}");
        // A margin nothing meets is an error, not an empty match.
        let none = OpeningSource::Balanced {
            plies: 4,
            margin: -1,
            judge: "alphabeta:depth=2".parse().unwrap(),
        };
        let err = openings_for::<Draughts>(&none, &rules, 2, 3)
            .unwrap_err()
            .to_string();
        assert!(err.contains("within ±-1"), "{err}");
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
