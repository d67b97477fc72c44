//! Matches between two players of any game ([`GameDef`]): paired
//! openings, each played from both sides, parallel games, live progress,
//! A's results per side, Elo and an optional SPRT stop, and the game's
//! tournament scoring when it has one ([`GameDef::tournament`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use dama_game::GameDef;
use dama_mcts::{Outcome, Player as Side};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::openings::{openings_for, Opening, OpeningSource};
use crate::player::{Player, PlayerFactory};
use crate::stats::{EloEstimate, GameScore, Pentanomial, Sprt, SprtDecision, Wdl};
use crate::{Error, PairResult};

/// Settings of a match of a game whose rules are `R` ([`GameDef::Rules`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchConfig<R> {
    /// Games to play, at least 1 (an odd number leaves the last opening
    /// played once).
    pub games: u32,
    /// Where openings come from (default: random 4-ply starts).
    pub openings: OpeningSource,
    /// The rules every game is played under (default: the game's default
    /// rules); openings start from their initial position.
    #[serde(default)]
    pub rules: R,
    /// Seed of the openings and of the players' randomness.
    pub seed: u64,
    /// A game still running after this many plies (opening included) is
    /// adjudicated a draw (default 400; the engine's own draw rules usually
    /// end games long before).
    pub max_plies: u32,
    /// Stop as soon as this test decides.
    pub sprt: Option<Sprt>,
    /// Keep the record of every game in the result.
    pub keep_records: bool,
    /// Worker threads (default: rayon's global pool).
    pub threads: Option<usize>,
    /// Games in flight at once whose checkpoint players (those with a
    /// simulation budget, `ckpt:PATH[,sims=N]`) share one network call per
    /// gather/apply round, as in self-play; 0 turns batching off, so that
    /// each game's player evaluates one position at a time. Batched games
    /// give the same moves as unbatched ones. Players without a simulation
    /// budget (baselines, `time=` and `policy:` players) move in the
    /// parallel search phase. Default 64.
    #[serde(default = "default_batch_games")]
    pub batch_games: usize,
    /// Ends games early when both players' searches agree on the result
    /// ([`Adjudication`]; default: off). Games of batched checkpoint
    /// players, which report no search scores, are played out.
    #[serde(default)]
    pub adjudication: Adjudication,
    /// Stop once A's score over all [`MatchConfig::games`] is sure to end
    /// at or above this share, or sure to end below it, whatever the games
    /// not yet played give (a gate's threshold: the match then decides as
    /// the whole match would, in fewer games; the result counts the games
    /// played). Default: `None`, every game is played.
    #[serde(default)]
    pub decide_at: Option<f64>,
}

/// Adjudication of games whose result both players' searches agree on,
/// as chess engine testers do (cutechess-cli's `-resign … twosided=true`
/// and `-draw`, with which Stockfish's fishtest plays its games): a game
/// stops once it is decided, not after the long finish of a won ending.
/// Only moves a player searched count (a forced move neither extends nor
/// breaks a run); players that report no scores (random, greedy) are
/// never adjudicated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adjudication {
    /// A win for the side whose score stays at or above `score` while the
    /// other's stays at or below `-score`.
    #[serde(default)]
    pub resign: Option<ScoreRun>,
    /// A draw once both scores stay within `±score` (from `after` plies on).
    #[serde(default)]
    pub draw: Option<DrawRun>,
}

/// `moves` consecutive searched moves of each side with a score past
/// `score` (centi-men, the mover's view).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreRun {
    /// The score threshold, in the game's score units (centi-men).
    pub score: i32,
    /// Searched moves of each side in a row.
    pub moves: u32,
}

/// A [`ScoreRun`] of scores within `±score`, counted from ply `after`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawRun {
    /// Plies of the game (opening included) before which no draw is
    /// adjudicated.
    pub after: u32,
    /// The largest score (either sign) of a drawn position.
    pub score: i32,
    /// Searched moves of each side in a row.
    pub moves: u32,
}

impl Adjudication {
    /// The longest run accepted: a longer one is refused rather than
    /// silently never firing.
    pub const MAX_MOVES: u32 = 1_000;

    /// A resign rule alone: a win once both sides agree on at least
    /// `score` for `moves` searched moves each; draws are played out (the
    /// games' own draw rules end them).
    pub fn resign_only(score: i32, moves: u32) -> Adjudication {
        Adjudication {
            resign: Some(ScoreRun { score, moves }),
            draw: None,
        }
    }

    /// Whether it ever ends a game.
    pub fn is_off(&self) -> bool {
        self.resign.is_none() && self.draw.is_none()
    }

    /// Checks the settings: positive scores and run lengths of
    /// `1..=`[`Adjudication::MAX_MOVES`].
    ///
    /// # Errors
    ///
    /// [`Error::Spec`] naming the bad setting.
    pub fn validate(&self) -> Result<(), Error> {
        let check = |what: &str, score: i32, moves: u32, zero_ok: bool| {
            if score < 0 || (score == 0 && !zero_ok) {
                return Err(Error::Spec(format!(
                    "adjudication: the {what} score must be positive, got {score}"
                )));
            }
            if moves == 0 || moves > Self::MAX_MOVES {
                return Err(Error::Spec(format!(
                    "adjudication: the {what} run must be 1..={} moves of each side, got {moves}",
                    Self::MAX_MOVES
                )));
            }
            Ok(())
        };
        if let Some(r) = self.resign {
            check("resign", r.score, r.moves, false)?;
        }
        if let Some(d) = self.draw {
            check("draw", d.score, d.moves, true)?;
        }
        Ok(())
    }
}

fn numbers<const N: usize>(s: &str, form: &str) -> Result<[i64; N], Error> {
    let bad = || Error::Spec(format!("adjudication `{s}`: expected {form}"));
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != N {
        return Err(bad());
    }
    let mut out = [0i64; N];
    for (o, p) in out.iter_mut().zip(parts) {
        *o = p.trim().parse().map_err(|_| bad())?;
    }
    Ok(out)
}

fn narrow<T: TryFrom<i64>>(v: i64, s: &str) -> Result<T, Error> {
    T::try_from(v).map_err(|_| Error::Spec(format!("adjudication `{s}`: {v} is out of range")))
}

impl std::str::FromStr for ScoreRun {
    type Err = Error;

    /// `SCORE:MOVES`, e.g. `600:3`.
    fn from_str(s: &str) -> Result<ScoreRun, Error> {
        let [score, moves] = numbers::<2>(s, "SCORE:MOVES, e.g. 600:3")?;
        Ok(ScoreRun {
            score: narrow(score, s)?,
            moves: narrow(moves, s)?,
        })
    }
}

impl std::str::FromStr for DrawRun {
    type Err = Error;

    /// `PLY:SCORE:MOVES`, e.g. `80:10:8`.
    fn from_str(s: &str) -> Result<DrawRun, Error> {
        let [after, score, moves] = numbers::<3>(s, "PLY:SCORE:MOVES, e.g. 80:10:8")?;
        Ok(DrawRun {
            after: narrow(after, s)?,
            score: narrow(score, s)?,
            moves: narrow(moves, s)?,
        })
    }
}

/// [`GameRecord::termination`] of a game ended by [`Adjudication`].
pub const ADJUDICATED: &str = "Adjudicated";

/// The running state of [`Adjudication`] over one game.
#[derive(Default)]
struct Adjudicator {
    /// Per side (first, second): searched moves in a row scoring at least
    /// the resign score, at most minus it, and within the draw score.
    winning: [u32; 2],
    losing: [u32; 2],
    level: [u32; 2],
}

impl Adjudicator {
    /// Counts a move of `side` searched to `score`, at ply `ply` (before
    /// the move); returns the adjudicated outcome once there is one.
    fn observe(
        &mut self,
        rule: &Adjudication,
        side: Side,
        score: i32,
        ply: u32,
    ) -> Option<Outcome> {
        let (me, other) = match side {
            Side::First => (0, 1),
            Side::Second => (1, 0),
        };
        if let Some(r) = rule.resign {
            self.winning[me] = if score >= r.score {
                self.winning[me] + 1
            } else {
                0
            };
            self.losing[me] = if score <= -r.score {
                self.losing[me] + 1
            } else {
                0
            };
            for (w, l) in [(me, other), (other, me)] {
                if self.winning[w] >= r.moves && self.losing[l] >= r.moves {
                    return Some(Outcome::Win(if w == 0 {
                        Side::First
                    } else {
                        Side::Second
                    }));
                }
            }
        }
        if let Some(d) = rule.draw {
            self.level[me] = if ply >= d.after && score.abs() <= d.score {
                self.level[me] + 1
            } else {
                0
            };
            if self.level.iter().all(|&n| n >= d.moves) {
                return Some(Outcome::Draw);
            }
        }
        None
    }
}

/// What a player's search reported for one move of an arena game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveSearch {
    /// Whether the first side (White, the Defenders) moved.
    pub first: bool,
    /// The score for the mover (centi-men) and the completed depth, if the
    /// player searched (not for a forced move or a player without a
    /// search).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<(i32, u32)>,
}

impl MoveSearch {
    /// What `choice`, a move of the first side (`first`) or of the second,
    /// says: its score if the player searched (a completed depth above 0).
    pub(crate) fn of<M>(first: bool, choice: &dama_game::player::Choice<M>) -> MoveSearch {
        MoveSearch {
            first,
            score: choice.searched_score(),
        }
    }
}

fn default_batch_games() -> usize {
    64
}

impl<R: Default> Default for MatchConfig<R> {
    fn default() -> Self {
        Self {
            games: 100,
            openings: OpeningSource::default(),
            rules: R::default(),
            seed: 0,
            max_plies: 400,
            sprt: None,
            keep_records: false,
            threads: None,
            batch_games: default_batch_games(),
            adjudication: Adjudication::default(),
            decide_at: None,
        }
    }
}

/// How a game ended ([`GameRecord::end`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameEnd {
    /// By the rules; [`GameRecord::termination`] names the rule.
    #[default]
    Rules,
    /// Adjudicated a draw at [`MatchConfig::max_plies`].
    MaxPlies,
    /// Adjudicated by [`MatchConfig::adjudication`].
    Adjudicated,
}

/// The record of one arena game, serialisable for saving (JSON lines).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Index of the game in the match.
    pub game: u32,
    /// Index of the opening.
    pub opening: u32,
    /// Name of the player of the first side (White, the Defenders).
    pub first: String,
    /// Name of the player of the second side (Black, the King side).
    pub second: String,
    /// The start position (the game's position text).
    pub start: String,
    /// Number of opening moves at the head of `moves`.
    pub opening_plies: u32,
    /// All moves, opening included, in the game's notation.
    pub moves: Vec<String>,
    /// `1-0` (the first side won), `0-1` or `1/2-1/2`.
    pub result: String,
    /// Why the game ended ([`GameDef::termination`]: `Blocked`,
    /// `KingEscaped`, …, `MaxPlies` or `Adjudicated`).
    pub termination: String,
    /// How the game ended: by the rules, at the ply cap or adjudicated
    /// (records written before this field read as by the rules).
    #[serde(default)]
    pub end: GameEnd,
    /// The winner's points under the game's tournament scoring
    /// ([`GameDef::tournament`]); `None` for a draw or a game without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
    /// What each player's search said of each move after the opening
    /// (empty for records of batched checkpoint players).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub searches: Vec<MoveSearch>,
}

impl GameRecord {
    /// The winning side, `None` for a draw.
    pub fn winner(&self) -> Option<Side> {
        match self.result.as_str() {
            "1-0" => Some(Side::First),
            "0-1" => Some(Side::Second),
            _ => None,
        }
    }
}

/// Plays one game from `opening` and returns the result for the first
/// side, and the record. `adjudication` may end it before the rules do.
///
/// # Errors
///
/// A player's error, a bad opening, or an illegal move from a player.
pub fn play_game<G: GameDef>(
    first: &mut dyn Player<G>,
    second: &mut dyn Player<G>,
    opening: &Opening<G>,
    max_plies: u32,
    adjudication: &Adjudication,
    rng: &mut ChaCha8Rng,
) -> Result<(GameScore, GameRecord), Error> {
    let mut game = opening.game()?;
    let mut moves: Vec<String> = opening.moves.iter().map(ToString::to_string).collect();
    let mut searches = Vec::new();
    let mut adjudicator = Adjudicator::default();
    let mut adjudicated = None;
    first.new_game();
    second.new_game();
    while (G::plies(&game) as u32) < max_plies && G::outcome(&game).is_none() {
        let side = G::to_play(&game);
        let player: &mut dyn Player<G> = match side {
            Side::First => &mut *first,
            Side::Second => &mut *second,
        };
        let choice = player
            .think(&game, None, rng)
            .map_err(|e| Error::from_move(player.name(), e))?;
        let ply = G::plies(&game) as u32;
        play_checked::<G>(&mut game, &choice.best, player.name())?;
        moves.push(choice.best.to_string());
        let search = MoveSearch::of(side == Side::First, &choice);
        searches.push(search);
        if let Some((s, _)) = search.score {
            if let Some(o) = adjudicator.observe(adjudication, side, s, ply) {
                adjudicated = Some(o);
                break;
            }
        }
    }
    let (score, mut record) = score_and_record::<G>(
        &game,
        opening,
        moves,
        first.name(),
        second.name(),
        adjudicated,
    );
    record.searches = searches;
    Ok((score, record))
}

/// Plays `m`, a player's choice, naming the player if it is illegal.
pub(crate) fn play_checked<G: GameDef>(
    game: &mut G::Game,
    m: &G::Move,
    player: &str,
) -> Result<(), Error> {
    G::play(game, m).map_err(|e| Error::player(player, format!("illegal move {m}: {e}")))
}

/// The result for the first side and the record of a game that is over or
/// reached the ply cap (a draw by adjudication unless the rules ended it).
pub(crate) fn score_and_record<G: GameDef>(
    game: &G::Game,
    opening: &Opening<G>,
    moves: Vec<String>,
    first: &str,
    second: &str,
    adjudicated: Option<Outcome>,
) -> (GameScore, GameRecord) {
    let (outcome, end, termination) = match (adjudicated, G::outcome(game), G::termination(game)) {
        (Some(o), _, _) => (o, GameEnd::Adjudicated, ADJUDICATED.to_owned()),
        (None, Some(o), Some(t)) => (o, GameEnd::Rules, t),
        (None, Some(o), None) => (o, GameEnd::Rules, "Rules".to_owned()),
        (None, None, _) => (Outcome::Draw, GameEnd::MaxPlies, "MaxPlies".to_owned()),
    };
    let (score, result) = match outcome {
        Outcome::Draw => (GameScore::Draw, "1/2-1/2"),
        Outcome::Win(Side::First) => (GameScore::Win, "1-0"),
        Outcome::Win(Side::Second) => (GameScore::Loss, "0-1"),
    };
    // An adjudicated game has no tournament points: its end was not played.
    let points = if adjudicated.is_some() {
        None
    } else {
        G::tournament().and_then(|points| points(game))
    };
    let record = GameRecord {
        game: 0,
        opening: 0,
        first: first.to_owned(),
        second: second.to_owned(),
        start: G::position_text(&opening.start),
        opening_plies: opening.moves.len() as u32,
        moves,
        result: result.to_owned(),
        termination,
        end,
        points,
        searches: Vec::new(),
    };
    (score, record)
}

/// Live state of a match, passed to the progress callback after each game
/// pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchProgress {
    /// Name of player A.
    pub a: String,
    /// Name of player B.
    pub b: String,
    /// Games finished.
    pub done: u32,
    /// Games planned.
    pub total: u32,
    /// A's results so far.
    pub wdl: Wdl,
    /// A's Elo difference so far.
    pub elo: EloEstimate,
    /// SPRT log-likelihood ratio so far, if a test runs.
    pub llr: Option<f64>,
}

impl MatchProgress {
    /// A one-line summary: `+12 =5 -3  65.0%  +108.4 ± 80.2  LLR 1.23`.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "+{} ={} -{}  {:.1}%  {}",
            self.wdl.wins,
            self.wdl.draws,
            self.wdl.losses,
            100.0 * self.wdl.score(),
            self.elo
        );
        if let Some(llr) = self.llr {
            s.push_str(&format!("  LLR {llr:.2}"));
        }
        s
    }
}

/// The state of the SPRT at the end of a match.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtReport {
    /// The test.
    pub sprt: Sprt,
    /// Final log-likelihood ratio (pentanomial over complete pairs, else
    /// trinomial).
    pub llr: f64,
    /// Lower bound of the test.
    pub lower: f64,
    /// Upper bound of the test.
    pub upper: f64,
    /// The decision: the bound the LLR crossed first, when it crossed one
    /// (games still being played then are counted in `llr`, which may
    /// have moved back inside the bounds since), else `Continue`.
    pub decision: SprtDecision,
    /// Games counted when the LLR crossed a bound (`None`: it never did).
    #[serde(default)]
    pub decided_at: Option<u32>,
}

/// The result of a match, from player A's point of view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// Name of player A.
    pub a: String,
    /// Name of player B.
    pub b: String,
    /// The names of the game's two sides, first and second (`White`,
    /// `Black`; `Defenders`, `King side`).
    pub sides: [String; 2],
    /// A's wins, draws and losses.
    pub wdl: Wdl,
    /// A's results on the first side (White, the Defenders).
    pub a_first: Wdl,
    /// A's results on the second side (Black, the King side).
    pub a_second: Wdl,
    /// Complete game pairs by A's points in the pair.
    pub pentanomial: Pentanomial,
    /// A's Elo difference over B with a 95% interval (trinomial).
    pub elo: EloEstimate,
    /// The same from the complete game pairs (pentanomial): the interval
    /// accounts for the correlation of the two games of an opening.
    pub elo_pairs: EloEstimate,
    /// Games played.
    pub games: u32,
    /// Distinct openings used.
    pub openings: u32,
    /// The SPRT, if one ran.
    pub sprt: Option<SprtReport>,
    /// Whether the SPRT or [`MatchConfig::decide_at`] stopped the match
    /// before its last game.
    pub stopped_early: bool,
    /// The game's tournament scoring of each opening's pair of games, if it
    /// has one ([`GameDef::tournament`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentScore>,
    /// Game records, in game order, if [`MatchConfig::keep_records`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<GameRecord>,
    /// The median completed search depth of A's and of B's moves (over
    /// the moves they searched; `None` for a player that reports none).
    #[serde(default)]
    pub median_depth: [Option<f64>; 2],
    /// Games ended by [`MatchConfig::adjudication`].
    #[serde(default)]
    pub adjudicated: u32,
}

impl MatchResult {
    /// A's score in `[0, 1]`.
    pub fn score(&self) -> f64 {
        self.wdl.score()
    }

    /// The result as input for the ladder's Elo fit.
    pub fn pair_result(&self) -> PairResult {
        PairResult::new(self.a.clone(), self.b.clone(), self.wdl)
    }

    /// Writes the game records as JSON lines.
    ///
    /// # Errors
    ///
    /// I/O and serialisation errors.
    pub fn write_records(&self, mut w: impl std::io::Write) -> Result<(), Error> {
        for r in &self.records {
            serde_json::to_writer(&mut w, r)?;
            writeln!(w)?;
        }
        Ok(())
    }
}

impl std::fmt::Display for MatchResult {
    /// A multi-line summary for the terminal.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{} vs {}: {} games", self.a, self.b, self.games)?;
        writeln!(
            f,
            "  {}: +{} ={} -{}  score {:.1}%  Elo {}",
            self.a,
            self.wdl.wins,
            self.wdl.draws,
            self.wdl.losses,
            100.0 * self.score(),
            self.elo
        )?;
        writeln!(
            f,
            "  as {} +{} ={} -{}, as {} +{} ={} -{}; pairs {:?} (Elo {})",
            self.sides[0],
            self.a_first.wins,
            self.a_first.draws,
            self.a_first.losses,
            self.sides[1],
            self.a_second.wins,
            self.a_second.draws,
            self.a_second.losses,
            self.pentanomial.0,
            self.elo_pairs
        )?;
        let depths: Vec<String> = [&self.a, &self.b]
            .iter()
            .zip(self.median_depth)
            .filter_map(|(name, d)| d.map(|d| format!("{name} {d}")))
            .collect();
        if !depths.is_empty() {
            writeln!(f, "  median search depth: {}", depths.join(", "))?;
        }
        if self.adjudicated > 0 {
            writeln!(f, "  adjudicated: {} games", self.adjudicated)?;
        }
        if let Some(t) = &self.tournament {
            writeln!(
                f,
                "  tournament {}-{} points, pairs +{} ={} -{}",
                t.a_points, t.b_points, t.a_pairs, t.drawn_pairs, t.b_pairs
            )?;
        }
        if let Some(s) = &self.sprt {
            write!(
                f,
                "  SPRT [{}, {}]: LLR {:.2} ({:.2}, {:.2}) → {:?}",
                s.sprt.elo0, s.sprt.elo1, s.llr, s.lower, s.upper, s.decision
            )?;
            if let Some(games) = s.decided_at {
                write!(f, " (decided at {games} games)")?;
            }
            if self.stopped_early {
                write!(f, " (stopped early)")?;
            }
        }
        Ok(())
    }
}

/// A game's tournament scoring over a match: over each opening's pair of
/// games (one per side), each player's points (summed over the games it
/// won, [`GameRecord::points`]), and who scored more in each pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentScore {
    /// A's points over all games.
    pub a_points: u64,
    /// B's points over all games.
    pub b_points: u64,
    /// Pairs in which A scored more points than B.
    pub a_pairs: u32,
    /// Pairs in which both scored the same.
    pub drawn_pairs: u32,
    /// Pairs in which B scored more points than A.
    pub b_pairs: u32,
}

impl TournamentScore {
    /// Counts one opening's games: (A's score, A played the first side,
    /// record) each.
    pub(crate) fn add_pair(&mut self, played: &[(GameScore, bool, GameRecord)]) {
        let (mut a, mut b) = (0u64, 0u64);
        for (score_a, _, record) in played {
            let points = u64::from(record.points.unwrap_or(0));
            match score_a {
                GameScore::Win => a += points,
                GameScore::Loss => b += points,
                GameScore::Draw => {}
            }
        }
        self.a_points += a;
        self.b_points += b;
        match a.cmp(&b) {
            std::cmp::Ordering::Greater => self.a_pairs += 1,
            std::cmp::Ordering::Equal => self.drawn_pairs += 1,
            std::cmp::Ordering::Less => self.b_pairs += 1,
        }
    }
}

/// The games of one opening: (A's score, A plays the first side, record)
/// per game.
pub(crate) type PlayedPair = Vec<(GameScore, bool, GameRecord)>;

#[derive(Default)]
pub(crate) struct Tally {
    wdl: Wdl,
    a_first: Wdl,
    a_second: Wdl,
    tournament: Option<TournamentScore>,
    penta: Pentanomial,
    done: u32,
    records: Vec<GameRecord>,
    /// Completed depths of A's and of B's searched moves.
    depths: [Vec<u32>; 2],
    adjudicated: u32,
    decided: bool,
    /// The SPRT's decision when the LLR first crossed a bound, and the
    /// games counted then.
    sprt_decision: Option<(SprtDecision, u32)>,
    pub(crate) error: Option<Error>,
}

/// Whether a match of `games` games whose results so far are `wdl` ends
/// at or above the score `threshold` whatever the rest give: sure to reach
/// it with every other game lost, or sure to miss it with every other game
/// won.
fn threshold_decided(wdl: &Wdl, games: u32, threshold: f64) -> bool {
    let total = f64::from(games);
    let points = wdl.points();
    let left = f64::from(games.saturating_sub(wdl.games()));
    points >= threshold * total || points + left < threshold * total
}

/// The median of `v` (sorted in place), `None` if empty.
fn median(v: &mut [u32]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let n = v.len();
    Some(if n % 2 == 1 {
        f64::from(v[n / 2])
    } else {
        0.5 * (f64::from(v[n / 2 - 1]) + f64::from(v[n / 2]))
    })
}

fn sprt_llr(sprt: &Sprt, t: &Tally) -> f64 {
    if t.penta.pairs() > 0 {
        t.penta.llr(sprt.elo0, sprt.elo1)
    } else {
        t.wdl.llr(sprt.elo0, sprt.elo1)
    }
}

impl Tally {
    /// An empty tally for a game of `G`.
    pub(crate) fn new<G: GameDef>() -> Tally {
        Tally {
            tournament: G::tournament().map(|_| TournamentScore::default()),
            ..Tally::default()
        }
    }

    /// Counts the games of one opening, reports progress; returns whether
    /// the SPRT has decided (the match should stop).
    pub(crate) fn add_pair<R>(
        &mut self,
        played: &[(GameScore, bool, GameRecord)],
        names: (&str, &str),
        config: &MatchConfig<R>,
        on_progress: &(dyn Fn(&MatchProgress) + Sync),
    ) -> bool {
        if let Some(t) = &mut self.tournament {
            t.add_pair(played);
        }
        for (score_a, a_is_first, record) in played {
            self.wdl.add(*score_a);
            if *a_is_first {
                self.a_first.add(*score_a);
            } else {
                self.a_second.add(*score_a);
            }
            for m in &record.searches {
                if let Some((_, depth)) = m.score {
                    let player = usize::from(m.first != *a_is_first);
                    self.depths[player].push(depth);
                }
            }
            if record.end == GameEnd::Adjudicated {
                self.adjudicated += 1;
            }
            if config.keep_records {
                self.records.push(record.clone());
            }
        }
        if let [(s0, _, _), (s1, _, _)] = played[..] {
            self.penta.add(s0, s1);
        }
        self.done += played.len() as u32;
        let llr = config.sprt.map(|s| sprt_llr(&s, self));
        if let (Some(sprt), Some(llr)) = (config.sprt, llr) {
            let decision = sprt.decide(llr);
            if decision != SprtDecision::Continue {
                self.decided = true;
                self.sprt_decision.get_or_insert((decision, self.done));
            }
        }
        if let Some(threshold) = config.decide_at {
            if threshold_decided(&self.wdl, config.games, threshold) {
                self.decided = true;
            }
        }
        on_progress(&MatchProgress {
            a: names.0.to_owned(),
            b: names.1.to_owned(),
            done: self.done,
            total: config.games,
            wdl: self.wdl,
            elo: self.wdl.elo(),
            llr,
        });
        self.decided
    }

    /// The match result once every game is counted.
    pub(crate) fn into_result<G: GameDef>(
        mut self,
        names: (&str, &str),
        config: &MatchConfig<G::Rules>,
        openings: usize,
    ) -> Result<MatchResult, Error> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.records.sort_by_key(|r| r.game);
        let sprt = config.sprt.map(|s| {
            let llr = sprt_llr(&s, &self);
            SprtReport {
                sprt: s,
                llr,
                lower: s.lower_bound(),
                upper: s.upper_bound(),
                decision: self.sprt_decision.map_or_else(|| s.decide(llr), |(d, _)| d),
                decided_at: self.sprt_decision.map(|(_, games)| games),
            }
        });
        let pairs = config.games.div_ceil(2);
        Ok(MatchResult {
            a: names.0.to_owned(),
            b: names.1.to_owned(),
            sides: G::geometry().sides.map(|s| s.name.to_owned()),
            wdl: self.wdl,
            a_first: self.a_first,
            a_second: self.a_second,
            pentanomial: self.penta,
            elo: self.wdl.elo(),
            elo_pairs: self.penta.elo(),
            games: self.done,
            openings: (openings as u32).min(pairs),
            sprt,
            stopped_early: self.decided && self.done < config.games,
            tournament: self.tournament,
            records: self.records,
            median_depth: [median(&mut self.depths[0]), median(&mut self.depths[1])],
            adjudicated: self.adjudicated,
        })
    }
}

/// Plays a match of A against B in a game of `G` (see [`MatchConfig`]).
///
/// Game `2k` is played from opening `k` with A on the first side (White,
/// the Defenders), game `2k + 1` from the same opening with B there; A's
/// results are kept per side. With [`MatchConfig::batch_games`] games in
/// flight whose checkpoint players share network calls
/// (`crate::batched`), else game pairs run in parallel on rayon;
/// `on_progress` is called after each pair (from worker threads, one call
/// at a time). Each game's randomness comes from a generator seeded by the
/// match seed and the game index, so a match between deterministic players
/// is reproducible, batched or not.
///
/// # Errors
///
/// [`Error::Spec`] for a match of no games; the first error of a player or
/// of the openings (the match then stops).
///
/// # Examples
///
/// ```
/// use dama_draughts::Draughts;
/// use dama_eval::{parse_player, play_match, MatchConfig};
///
/// let a = parse_player::<Draughts>("greedy", &Default::default())?;
/// let b = parse_player::<Draughts>("random", &Default::default())?;
/// let config = MatchConfig { games: 4, ..MatchConfig::default() };
/// let result = play_match(a.as_ref(), b.as_ref(), &config, &|_| {})?;
/// assert_eq!(result.games, 4);
/// assert_eq!(result.a_first.games(), 2);
/// # Ok::<(), dama_eval::Error>(())
/// ```
pub fn play_match<G: GameDef>(
    a: &dyn PlayerFactory<G>,
    b: &dyn PlayerFactory<G>,
    config: &MatchConfig<G::Rules>,
    on_progress: &(dyn Fn(&MatchProgress) + Sync),
) -> Result<MatchResult, Error> {
    if config.games == 0 {
        return Err(Error::Spec("a match needs at least 1 game".to_owned()));
    }
    config.adjudication.validate()?;
    if let Some(t) = config.decide_at {
        if !(0.0..=1.0).contains(&t) {
            return Err(Error::Spec(format!(
                "decide_at must be a score in [0, 1], got {t}"
            )));
        }
    }
    if G::tournament().is_some() && !config.adjudication.is_off() {
        return Err(Error::Spec(format!(
            "{} is scored by how each game was won (its tournament points), so its games are played out: no adjudication",
            G::TITLE
        )));
    }
    let games = config.games;
    let pairs = games.div_ceil(2);
    let openings = openings_for::<G>(&config.openings, &config.rules, pairs as usize, config.seed)?;
    let run = || {
        if config.batch_games > 0 {
            let searchers = [a.batched()?, b.batched()?];
            if searchers.iter().any(Option::is_some) {
                return crate::batched::run_batched(
                    a,
                    b,
                    config,
                    &openings,
                    searchers,
                    on_progress,
                );
            }
        }
        run_pairs(a, b, config, &openings, on_progress)
    };
    match config.threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .map_err(|e| Error::Spec(format!("thread pool: {e}")))?
            .install(run),
        None => run(),
    }
}

fn run_pairs<G: GameDef>(
    a: &dyn PlayerFactory<G>,
    b: &dyn PlayerFactory<G>,
    config: &MatchConfig<G::Rules>,
    openings: &[Opening<G>],
    on_progress: &(dyn Fn(&MatchProgress) + Sync),
) -> Result<MatchResult, Error> {
    let pairs = config.games.div_ceil(2);
    let stop = AtomicBool::new(false);
    let tally = Mutex::new(Tally::new::<G>());
    let names = (a.name(), b.name());

    (0..pairs).into_par_iter().for_each(|k| {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let outcome = play_pair(a, b, config, openings, k);
        let mut t = match tally.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        match outcome {
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                if t.error.is_none() {
                    t.error = Some(e);
                }
            }
            Ok(played) => {
                if t.error.is_some() {
                    return;
                }
                if t.add_pair(&played, names, config, on_progress) {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });

    let t = match tally.into_inner() {
        Ok(t) => t,
        Err(poisoned) => poisoned.into_inner(),
    };
    t.into_result::<G>(names, config, openings.len())
}

/// The generator of game `index` of a match seeded with `seed`.
pub(crate) fn game_rng(seed: u64, index: u32) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(u64::from(index) + 1);
    rng
}

/// Plays pair `k`: returns (A's score, A plays first, record) per game.
fn play_pair<G: GameDef>(
    a: &dyn PlayerFactory<G>,
    b: &dyn PlayerFactory<G>,
    config: &MatchConfig<G::Rules>,
    openings: &[Opening<G>],
    k: u32,
) -> Result<PlayedPair, Error> {
    let opening_index = k as usize % openings.len();
    let opening = &openings[opening_index];
    let mut pa = a.build()?;
    let mut pb = b.build()?;
    let mut out = Vec::with_capacity(2);
    for j in 0..2u32 {
        let index = 2 * k + j;
        if index >= config.games {
            break;
        }
        let mut rng = game_rng(config.seed, index);
        let a_is_first = j == 0;
        let (score_first, mut record) = if a_is_first {
            play_game(
                pa.as_mut(),
                pb.as_mut(),
                opening,
                config.max_plies,
                &config.adjudication,
                &mut rng,
            )?
        } else {
            play_game(
                pb.as_mut(),
                pa.as_mut(),
                opening,
                config.max_plies,
                &config.adjudication,
                &mut rng,
            )?
        };
        record.game = index;
        record.opening = opening_index as u32;
        let score_a = if a_is_first {
            score_first
        } else {
            score_first.flipped()
        };
        out.push((score_a, a_is_first, record));
    }
    Ok(out)
}

/// A progress bar for [`play_match`]: returns the bar and a callback that
/// moves it and shows the live score. Call `bar.finish()` afterwards.
///
/// Where stderr is not a terminal (a match under `nohup`, a log file) the
/// bar draws nothing, so the callback writes a plain line with the live
/// score there instead, every twentieth of the games (at least every 10).
pub fn progress_bar(total: u32) -> (indicatif::ProgressBar, impl Fn(&MatchProgress) + Sync) {
    use std::io::IsTerminal;
    use std::sync::atomic::{AtomicU32, Ordering};
    let bar = indicatif::ProgressBar::new(u64::from(total));
    let style = indicatif::ProgressStyle::with_template(
        "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    let handle = bar.clone();
    let lines = !std::io::stderr().is_terminal();
    // Games done at the last line written (a ladder's next match starts
    // from 0 again).
    let printed = AtomicU32::new(0);
    let start = std::time::Instant::now();
    let callback = move |p: &MatchProgress| {
        handle.set_prefix(format!("{} vs {}", p.a, p.b));
        handle.set_position(u64::from(p.done));
        handle.set_message(p.summary());
        let step = (p.total / 20).clamp(1, 10);
        let last = printed.load(Ordering::Relaxed);
        if lines && (p.done >= last + step || p.done < last || p.done == p.total) {
            printed.store(p.done, Ordering::Relaxed);
            eprintln!(
                "{} vs {}: {}/{} games [{:.0} s] {}",
                p.a,
                p.b,
                p.done,
                p.total,
                start.elapsed().as_secs_f64(),
                p.summary()
            );
        }
    };
    (bar, callback)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> GameRecord {
        GameRecord {
            game: 0,
            opening: 0,
            first: "a".to_owned(),
            second: "b".to_owned(),
            start: String::new(),
            opening_plies: 0,
            moves: Vec::new(),
            result: "1/2-1/2".to_owned(),
            termination: "Agreed".to_owned(),
            end: GameEnd::default(),
            points: None,
            searches: Vec::new(),
        }
    }

    /// Games still being played when the LLR crosses a bound are counted
    /// too; if they bring it back inside, the decision made stands (the
    /// match stopped on it), with the games it was made at.
    #[test]
    fn an_sprt_decision_stands_after_the_games_in_flight() {
        use dama_draughts::Draughts;
        let config = MatchConfig::<<Draughts as GameDef>::Rules> {
            games: 1000,
            sprt: Some(Sprt::new(0.0, 50.0)),
            ..MatchConfig::default()
        };
        let mut tally = Tally::default();
        let won = [
            (GameScore::Win, true, record()),
            (GameScore::Win, false, record()),
        ];
        let lost = [
            (GameScore::Loss, true, record()),
            (GameScore::Loss, false, record()),
        ];
        let mut pairs = 0;
        while !tally.add_pair(&won, ("a", "b"), &config, &|_| {}) {
            pairs += 1;
            assert!(pairs < 100, "the SPRT never decided");
        }
        let decided_at = tally.done;
        // The pairs in flight: losses, pulling the LLR back inside.
        for _ in 0..3 {
            tally.add_pair(&lost, ("a", "b"), &config, &|_| {});
        }
        let sprt = config.sprt.unwrap();
        let llr = sprt_llr(&sprt, &tally);
        assert_eq!(sprt.decide(llr), SprtDecision::Continue, "LLR {llr}");
        let result = tally
            .into_result::<Draughts>(("a", "b"), &config, 10)
            .unwrap();
        let report = result.sprt.unwrap();
        assert_eq!(report.decision, SprtDecision::AcceptH1);
        assert_eq!(report.decided_at, Some(decided_at));
        assert!(result.stopped_early);
    }
}
