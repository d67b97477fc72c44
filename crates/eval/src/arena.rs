//! Matches between two players: paired openings, alternated colours,
//! parallel games, live progress, Elo and an optional SPRT stop.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use dama_engine::{Color, Game, Outcome, Rules};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::openings::{openings_for, Opening, OpeningSource};
use crate::player::{Player, PlayerFactory};
use crate::stats::{EloEstimate, GameScore, Pentanomial, Sprt, SprtDecision, Wdl};
use crate::{Error, PairResult};

/// Settings of a match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchConfig {
    /// Games to play (an odd number leaves the last opening played once).
    pub games: u32,
    /// Where openings come from (default: random 4-ply starts).
    pub openings: OpeningSource,
    /// The rules every game is played under (default: Turkish draughts);
    /// openings start from this variant's initial position.
    #[serde(default)]
    pub rules: Rules,
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
}

fn default_batch_games() -> usize {
    64
}

impl Default for MatchConfig {
    fn default() -> Self {
        Self {
            games: 100,
            openings: OpeningSource::default(),
            rules: Rules::default(),
            seed: 0,
            max_plies: 400,
            sprt: None,
            keep_records: false,
            threads: None,
            batch_games: default_batch_games(),
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameEnd {
    /// By the rules; the string form is the engine's termination.
    Rules,
    /// Adjudicated a draw at [`MatchConfig::max_plies`].
    MaxPlies,
}

/// The record of one arena game, serialisable for saving (JSON lines).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Index of the game in the match.
    pub game: u32,
    /// Index of the opening.
    pub opening: u32,
    /// Name of the White player.
    pub white: String,
    /// Name of the Black player.
    pub black: String,
    /// The start position (engine text format).
    pub start: String,
    /// Number of opening moves at the head of `moves`.
    pub opening_plies: u32,
    /// All moves, opening included, in engine notation.
    pub moves: Vec<String>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Why the game ended (`Blocked`, `NoPieces`, `Repetition`, …, or
    /// `MaxPlies`).
    pub termination: String,
}

/// Plays one game from `opening` and returns the result for White, and the
/// record.
///
/// # Errors
///
/// A player's error, a bad opening, or an illegal move from a player.
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    opening: &Opening,
    max_plies: u32,
    rng: &mut ChaCha8Rng,
) -> Result<(GameScore, GameRecord), Error> {
    let mut game = opening.game()?;
    white.new_game();
    black.new_game();
    while (game.moves().len() as u32) < max_plies && game.termination().is_none() {
        let player: &mut dyn Player = match game.turn() {
            Color::White => &mut *white,
            Color::Black => &mut *black,
        };
        let m = player.choose(&game, rng)?;
        game.play(&m).map_err(|e| Error::Player {
            player: player.name().to_owned(),
            message: format!("illegal move {m}: {e}"),
        })?;
    }
    Ok(score_and_record(&game, opening, white.name(), black.name()))
}

/// The result for White and the record of a game that is over or reached
/// the ply cap (a draw by adjudication unless the rules ended it).
pub(crate) fn score_and_record(
    game: &Game,
    opening: &Opening,
    white: &str,
    black: &str,
) -> (GameScore, GameRecord) {
    let (outcome, termination) = match game.termination() {
        Some((o, t)) => (o, format!("{t:?}")),
        None => (Outcome::Draw, "MaxPlies".to_owned()),
    };
    let score = match outcome.winner() {
        None => GameScore::Draw,
        Some(Color::White) => GameScore::Win,
        Some(Color::Black) => GameScore::Loss,
    };
    let record = GameRecord {
        game: 0,
        opening: 0,
        white: white.to_owned(),
        black: black.to_owned(),
        start: opening.start.to_string(),
        opening_plies: opening.moves.len() as u32,
        moves: game.moves().iter().map(|m| m.to_string()).collect(),
        result: outcome.as_str().to_owned(),
        termination,
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
    /// The decision.
    pub decision: SprtDecision,
}

/// The result of a match, from player A's point of view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// Name of player A.
    pub a: String,
    /// Name of player B.
    pub b: String,
    /// A's wins, draws and losses.
    pub wdl: Wdl,
    /// A's results with White.
    pub a_white: Wdl,
    /// A's results with Black.
    pub a_black: Wdl,
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
    /// Whether the SPRT stopped the match early.
    pub stopped_early: bool,
    /// Game records, in game order, if [`MatchConfig::keep_records`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<GameRecord>,
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
            "  as White +{} ={} -{}, as Black +{} ={} -{}; pairs {:?} (Elo {})",
            self.a_white.wins,
            self.a_white.draws,
            self.a_white.losses,
            self.a_black.wins,
            self.a_black.draws,
            self.a_black.losses,
            self.pentanomial.0,
            self.elo_pairs
        )?;
        if let Some(s) = &self.sprt {
            write!(
                f,
                "  SPRT [{}, {}]: LLR {:.2} ({:.2}, {:.2}) → {:?}",
                s.sprt.elo0, s.sprt.elo1, s.llr, s.lower, s.upper, s.decision
            )?;
            if self.stopped_early {
                write!(f, " (stopped early)")?;
            }
        }
        Ok(())
    }
}

/// The games of one opening: (A's score, A is White, record) per game.
pub(crate) type PlayedPair = Vec<(GameScore, bool, GameRecord)>;

#[derive(Default)]
pub(crate) struct Tally {
    wdl: Wdl,
    a_white: Wdl,
    a_black: Wdl,
    penta: Pentanomial,
    done: u32,
    records: Vec<GameRecord>,
    decided: bool,
    pub(crate) error: Option<Error>,
}

fn sprt_llr(sprt: &Sprt, t: &Tally) -> f64 {
    if t.penta.pairs() > 0 {
        t.penta.llr(sprt.elo0, sprt.elo1)
    } else {
        t.wdl.llr(sprt.elo0, sprt.elo1)
    }
}

impl Tally {
    /// Counts the games of one opening, reports progress; returns whether
    /// the SPRT has decided (the match should stop).
    pub(crate) fn add_pair(
        &mut self,
        played: &[(GameScore, bool, GameRecord)],
        names: (&str, &str),
        config: &MatchConfig,
        on_progress: &(dyn Fn(&MatchProgress) + Sync),
    ) -> bool {
        for (score_a, a_is_white, record) in played {
            self.wdl.add(*score_a);
            if *a_is_white {
                self.a_white.add(*score_a);
            } else {
                self.a_black.add(*score_a);
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
            if sprt.decide(llr) != SprtDecision::Continue {
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
    pub(crate) fn into_result(
        mut self,
        names: (&str, &str),
        config: &MatchConfig,
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
                decision: s.decide(llr),
            }
        });
        let pairs = config.games.div_ceil(2);
        Ok(MatchResult {
            a: names.0.to_owned(),
            b: names.1.to_owned(),
            wdl: self.wdl,
            a_white: self.a_white,
            a_black: self.a_black,
            pentanomial: self.penta,
            elo: self.wdl.elo(),
            elo_pairs: self.penta.elo(),
            games: self.done,
            openings: (openings as u32).min(pairs),
            sprt,
            stopped_early: self.decided && self.done < config.games,
            records: self.records,
        })
    }
}

/// Plays a match of A against B (see [`MatchConfig`]).
///
/// Game `2k` is played from opening `k` with A as White, game `2k + 1` from
/// the same opening with B as White. Game pairs run in parallel on rayon;
/// `on_progress` is called after each pair (from worker threads, one call at
/// a time). Each game's randomness comes from a generator seeded by the
/// match seed and the game index, so a match between deterministic players
/// is reproducible.
///
/// # Errors
///
/// The first error of a player or of the openings (the match then stops).
///
/// # Examples
///
/// ```
/// use dama_eval::{parse_player, play_match, MatchConfig};
///
/// let a = parse_player("greedy", &Default::default())?;
/// let b = parse_player("random", &Default::default())?;
/// let config = MatchConfig { games: 4, ..MatchConfig::default() };
/// let result = play_match(a.as_ref(), b.as_ref(), &config, &|_| {})?;
/// assert_eq!(result.games, 4);
/// assert_eq!(result.a_white.games(), 2);
/// # Ok::<(), dama_eval::Error>(())
/// ```
pub fn play_match(
    a: &dyn PlayerFactory,
    b: &dyn PlayerFactory,
    config: &MatchConfig,
    on_progress: &(dyn Fn(&MatchProgress) + Sync),
) -> Result<MatchResult, Error> {
    let games = config.games;
    let pairs = games.div_ceil(2);
    let openings = openings_for(&config.openings, config.rules, pairs as usize, config.seed)?;
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

fn run_pairs(
    a: &dyn PlayerFactory,
    b: &dyn PlayerFactory,
    config: &MatchConfig,
    openings: &[Opening],
    on_progress: &(dyn Fn(&MatchProgress) + Sync),
) -> Result<MatchResult, Error> {
    let pairs = config.games.div_ceil(2);
    let stop = AtomicBool::new(false);
    let tally = Mutex::new(Tally::default());
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
    t.into_result(names, config, openings.len())
}

/// Plays pair `k`: returns (A's score, A is White, record) per game.
fn play_pair(
    a: &dyn PlayerFactory,
    b: &dyn PlayerFactory,
    config: &MatchConfig,
    openings: &[Opening],
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
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        rng.set_stream(u64::from(index) + 1);
        let a_is_white = j == 0;
        let (score_white, mut record) = if a_is_white {
            play_game(
                pa.as_mut(),
                pb.as_mut(),
                opening,
                config.max_plies,
                &mut rng,
            )?
        } else {
            play_game(
                pb.as_mut(),
                pa.as_mut(),
                opening,
                config.max_plies,
                &mut rng,
            )?
        };
        record.game = index;
        record.opening = opening_index as u32;
        let score_a = if a_is_white {
            score_white
        } else {
            score_white.flipped()
        };
        out.push((score_a, a_is_white, record));
    }
    Ok(out)
}

/// A progress bar for [`play_match`]: returns the bar and a callback that
/// moves it and shows the live score. Call `bar.finish()` afterwards.
pub fn progress_bar(total: u32) -> (indicatif::ProgressBar, impl Fn(&MatchProgress) + Sync) {
    let bar = indicatif::ProgressBar::new(u64::from(total));
    let style = indicatif::ProgressStyle::with_template(
        "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    let handle = bar.clone();
    let callback = move |p: &MatchProgress| {
        handle.set_prefix(format!("{} vs {}", p.a, p.b));
        handle.set_position(u64::from(p.done));
        handle.set_message(p.summary());
    };
    (bar, callback)
}
