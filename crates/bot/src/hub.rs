//! Scan's Hub protocol (version 2) for dama's alpha-beta engine, in every
//! draughts variant dama has (`dama bot --protocol hub`, `docs/hub.md`).
//!
//! The Hub protocol is the draughts world's UCI: lines of
//! `command arg=value arg="quoted value" flag` over stdin/stdout. A GUI
//! (Hub, pydraughts' `HubEngine`, a tournament manager) announces itself
//! with `hub`, sets parameters, sends `init`, then runs searches as
//! `pos …`, `level …`, `go think|ponder|analyze`, reading `info …` lines and
//! one `done move=…`. During a search only `ping`, `stop` and `ponder-hit`
//! may come; `stop` ends the search at once (its deepest completed
//! iteration answers).
//!
//! Squares are numbered in pydraughts' Turkish dialect, as 8 × 8 boards
//! with every square in play need: a position is the side to move and the
//! 64 squares from a8 to h1 (rank by rank from the top, as the position
//! strings of the 10 × 10 game run from square 1), and moves name squares
//! a1 = 1, b1 = 2, … h8 = 64 (rank by rank from the bottom): a quiet move
//! `from-to`, a capture `from x to x captured x captured …`.

use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dama_draughts::alphabeta::{MATE, MATE_BOUND};
use dama_draughts::{game_history_hashes, AlphaBeta, Evaluation, SearchLimits, SearchReport};
use dama_engine::{Color, Game, Move, Piece, Position, Role, Rules, Square, Variant};
use dama_game::own::{MAX_MOVE_TIME_MS, MAX_SEARCH_DEPTH, MAX_SEARCH_THREADS, MAX_SEARCH_TT_MB};
use dama_game::{AlphaBetaLimit, EvalSource};
use dama_tablebase::Tablebase;

use crate::protocol::{clip, read_bounded_line, Bounded, MAX_LINE};

/// The variants announced in `param name=variant`, by their Hub names.
const VARIANTS: [(&str, Variant); 4] = [
    ("turkish", Variant::Turkish),
    ("armenian", Variant::Armenian),
    ("croda", Variant::Croda),
    ("dameo", Variant::Dameo),
];

/// The largest `level nodes=` accepted (a search cannot be asked to run
/// for days).
const MAX_NODES: u64 = 1 << 40;

/// The engine a Hub session plays: dama's alpha-beta search with its
/// evaluation, table size, threads and endgame tables.
#[derive(Clone, Debug)]
pub struct HubConfig {
    /// The learned evaluation asked for (`eval=`), `None` for the
    /// handcrafted one. It plays the variant it was trained for; in
    /// another variant the engine searches with the handcrafted
    /// evaluation (and says so at `init` when the evaluation was named).
    pub eval: Option<EvalSource>,
    /// Whether the user named the evaluation (the default bot's shipped
    /// network falls back to the handcrafted evaluation silently).
    pub eval_named: bool,
    /// Transposition table size in MiB.
    pub tt_mb: usize,
    /// Search threads (Lazy SMP).
    pub threads: usize,
    /// The search's limit until the GUI sends `level`.
    pub limit: AlphaBetaLimit,
    /// Endgame tables (probed only in positions of the rules they hold).
    pub tablebase: Option<Arc<Tablebase>>,
    /// The rules at the start (`--rules`); `set-param name=variant` and
    /// `name=rules` change them before `init`.
    pub rules: Rules,
}

/// A search's limits as the GUI's `level` asked for them.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Level {
    Depth(u32),
    MoveTime(Duration),
    Clock {
        time: Duration,
        inc: Duration,
        moves: Option<u32>,
    },
    Nodes(u64),
    Infinite,
}

impl Level {
    fn of_limit(limit: AlphaBetaLimit) -> Level {
        match limit {
            AlphaBetaLimit::Depth(d) => Level::Depth(d),
            AlphaBetaLimit::TimeMs(ms) => Level::MoveTime(Duration::from_millis(ms)),
        }
    }

    /// The limits of one search.
    fn limits(self) -> SearchLimits {
        match self {
            Level::Depth(d) => SearchLimits::depth(d),
            Level::MoveTime(t) => SearchLimits::time(t),
            Level::Clock { time, inc, moves } => SearchLimits::time(allocate(time, inc, moves)),
            Level::Nodes(n) => SearchLimits {
                nodes: Some(n),
                ..SearchLimits::default()
            },
            Level::Infinite => SearchLimits::default(),
        }
    }
}

/// Time for one move of a clock with `time` left (the increment already
/// added, as Hub GUIs send it), `inc` per move and `moves` to the next
/// control: an even share of what is left over the moves to go (30 in
/// sudden death), most of the increment, never more than half the clock,
/// and at least 10 ms.
fn allocate(time: Duration, inc: Duration, moves: Option<u32>) -> Duration {
    let left = time.saturating_sub(Duration::from_millis(50));
    let share = left / moves.unwrap_or(30).clamp(1, 200) + inc.mul_f64(0.75);
    share
        .min(left / 2)
        .min(Duration::from_millis(MAX_MOVE_TIME_MS))
        .max(Duration::from_millis(10))
}

/// One line's command and its arguments.
#[derive(Debug, PartialEq, Eq)]
struct Line<'a> {
    command: &'a str,
    args: Vec<(&'a str, String)>,
}

impl Line<'_> {
    fn get(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    fn has(&self, name: &str) -> bool {
        self.args.iter().any(|(n, _)| *n == name)
    }
}

/// Splits a Hub line: `command name=value name="quoted value" flag`.
fn parse_line(text: &str) -> Result<Line<'_>, String> {
    let text = text.trim();
    let (command, mut rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let mut args = Vec::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if name.is_empty() {
            return Err(format!(
                "an argument has no name before `=` in `{}`",
                clip(text)
            ));
        }
        rest = &rest[end..];
        if let Some(after) = rest.strip_prefix('=') {
            if let Some(quoted) = after.strip_prefix('"') {
                let close = quoted
                    .find('"')
                    .ok_or_else(|| format!("the value of `{name}` has no closing quote"))?;
                args.push((name, quoted[..close].to_string()));
                rest = &quoted[close + 1..];
            } else {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                args.push((name, after[..end].to_string()));
                rest = &after[end..];
            }
        } else {
            args.push((name, String::new()));
        }
    }
    Ok(Line { command, args })
}

/// A value for a Hub line: quoted when empty or holding a space, `=` or a
/// quote (a quote itself cannot be written, and becomes `'`).
fn quote(value: &str) -> String {
    if value.is_empty() || value.contains(|c: char| c.is_whitespace() || c == '=' || c == '"') {
        format!("\"{}\"", value.replace('"', "'"))
    } else {
        value.to_string()
    }
}

/// The Hub number of a square: a1 = 1 … h8 = 64.
fn square_number(sq: Square) -> u32 {
    u32::from(sq.index()) + 1
}

/// The square of a Hub number (1 to 64).
fn number_square(text: &str) -> Result<Square, String> {
    let n: u8 = text
        .parse()
        .map_err(|_| format!("`{}` is not a square number (1 to 64)", clip(text)))?;
    n.checked_sub(1)
        .and_then(Square::new)
        .ok_or_else(|| format!("square {n} is off the board (1 to 64)"))
}

/// A move in Hub notation: `from-to`, or `from x to x captured …` with the
/// captured squares in increasing order.
pub fn hub_move(m: &Move) -> String {
    let mut text = format!("{}", square_number(m.from()));
    if m.is_capture() {
        let _ = write!(text, "x{}", square_number(m.to()));
        let mut captured: Vec<u32> = m.captured().into_iter().map(square_number).collect();
        captured.sort_unstable();
        for c in captured {
            let _ = write!(text, "x{c}");
        }
    } else {
        let _ = write!(text, "-{}", square_number(m.to()));
    }
    text
}

/// The legal move of `game` that the Hub text `text` names: the same
/// start, end and captured squares (in any order).
///
/// # Errors
///
/// A text that is not a Hub move, or no such legal move, named.
pub fn parse_hub_move(game: &Game, text: &str) -> Result<Move, String> {
    let capture = text.contains('x');
    let parts: Vec<&str> = text.split(if capture { 'x' } else { '-' }).collect();
    if parts.len() < 2 || (!capture && parts.len() != 2) {
        return Err(format!(
            "`{}` is not a Hub move (`from-to`, or `fromxtoxcaptured…`)",
            clip(text)
        ));
    }
    let from = number_square(parts[0])?;
    let to = number_square(parts[1])?;
    let mut captured = dama_engine::Bitboard::EMPTY;
    for p in &parts[2..] {
        captured.add(number_square(p)?);
    }
    game.legal_moves()
        .iter()
        .find(|m| m.from() == from && m.to() == to && m.captured() == captured)
        .copied()
        .ok_or_else(|| format!("`{}` is not a legal move here in dama's rules", clip(text)))
}

/// A Hub position: `W` or `B`, then 64 squares from a8 to h1, each `e`
/// (empty), `w`, `b` (men) or `W`, `B` (kings).
fn parse_position(text: &str, rules: Rules) -> Result<Position, String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != 65 {
        return Err(format!(
            "a position is the side to move and 64 squares (65 characters), not {}",
            chars.len()
        ));
    }
    let turn = match chars[0] {
        'W' | 'w' => Color::White,
        'B' | 'b' => Color::Black,
        c => return Err(format!("the side to move is `W` or `B`, not `{c}`")),
    };
    let mut pieces = Vec::new();
    for (i, &c) in chars[1..].iter().enumerate() {
        let (rank, file) = (7 - i / 8, i % 8);
        let sq = Square::from_coords(file as u8, rank as u8).expect("on the board");
        let piece = match c {
            'e' | '.' => continue,
            'w' => (Color::White, Role::Man),
            'b' => (Color::Black, Role::Man),
            'W' => (Color::White, Role::King),
            'B' => (Color::Black, Role::King),
            c => {
                return Err(format!(
                    "square {} holds `{c}`: each square is e, w, b, W or B",
                    i + 1
                ))
            }
        };
        pieces.push((
            sq,
            Piece {
                color: piece.0,
                role: piece.1,
            },
        ));
    }
    Position::from_pieces_with_rules(pieces, turn, rules).map_err(|e| format!("{e}"))
}

/// The game a Hub `pos` command describes: the position `pos` under
/// `rules`, then `moves` (Hub moves separated by spaces) played from it.
/// The GUI rules the game's end: a legal move after one of dama's draws by
/// rule (threefold repetition, the no-capture limit, one piece each) is
/// played on, as a GUI without those rules (pydraughts has no 50-ply rule)
/// sends it; refusing it would leave the GUI waiting for `done`.
///
/// # Errors
///
/// A malformed position or move, or a move that is not legal in the
/// position, named with its number.
pub fn hub_game(pos: &str, moves: &str, rules: Rules) -> Result<Game, String> {
    let mut game = Game::from_position(parse_position(pos, rules)?);
    for (i, text) in moves.split_whitespace().enumerate() {
        let m = parse_hub_move(&game, text).map_err(|e| format!("move {}: {e}", i + 1))?;
        // One of the position's legal moves: played even past a draw.
        game.play_unchecked(&m);
    }
    Ok(game)
}

/// A Hub position of `pos`.
pub fn hub_position(pos: &Position) -> String {
    let mut text = String::with_capacity(65);
    text.push(match pos.turn() {
        Color::White => 'W',
        Color::Black => 'B',
    });
    for rank in (0..8).rev() {
        for file in 0..8 {
            let sq = Square::from_coords(file, rank).expect("on the board");
            text.push(match pos.piece_at(sq) {
                None => 'e',
                Some(Piece {
                    color: Color::White,
                    role: Role::Man,
                }) => 'w',
                Some(Piece {
                    color: Color::Black,
                    role: Role::Man,
                }) => 'b',
                Some(Piece {
                    color: Color::White,
                    role: Role::King,
                }) => 'W',
                Some(Piece {
                    color: Color::Black,
                    role: Role::King,
                }) => 'B',
            });
        }
    }
    text
}

/// A score in men, as Hub GUIs read it: a win in `n` plies is
/// `100 - n / 100` (pydraughts reads scores above 90 as wins), every
/// other score (the endgame tables' wins included) within ±90.
fn score_men(score: i32) -> String {
    if score.abs() > MATE_BOUND {
        let plies = MATE - score.abs();
        let men = 100.0 - f64::from(plies) / 100.0;
        format!("{:.2}", men.copysign(f64::from(score)))
    } else {
        format!("{:.2}", f64::from(score.clamp(-9000, 9000)) / 100.0)
    }
}

/// What a finished search says: its `info` line and its `done` line.
fn report_lines(report: &SearchReport) -> Vec<String> {
    let Some(best) = report.best else {
        return vec![
            "error message=\"the position has no legal move\"".into(),
            "done".into(),
        ];
    };
    let pv: Vec<String> = report.pv.iter().map(hub_move).collect();
    let pv = if pv.is_empty() {
        hub_move(&best)
    } else {
        pv.join(" ")
    };
    let secs = report.elapsed.as_secs_f64();
    // A forced move is played without a search: its line has no score (a
    // root the endgame tables hold has theirs).
    let score = report
        .known_score()
        .map_or_else(String::new, |s| format!(" score={}", score_men(s)));
    let info = format!(
        "info depth={}{score} nodes={} time={secs:.3} nps={:.3} pv={}",
        report.depth,
        report.nodes,
        report.nps() / 1e6,
        quote(&pv)
    );
    let mut lines = vec![info];
    let mut done = format!("done move={}", hub_move(&best));
    if let Some(reply) = report.pv.get(1) {
        let _ = write!(done, " ponder={}", hub_move(reply));
    }
    lines.push(done);
    lines
}

/// What the session reads: lines, the end of input, or a finished search.
enum Event {
    Line(Vec<u8>),
    TooLong,
    Eof,
    Done(Box<(SearchReport, AlphaBeta)>),
}

/// A Hub session: parameters, the position of the next search, the level,
/// and the engine (moved to the search thread while it searches).
struct Hub {
    config: HubConfig,
    rules: Rules,
    /// The learned evaluation loaded at start, if any.
    learned: Option<Evaluation>,
    threads: usize,
    tt_mb: usize,
    engine: Option<AlphaBeta>,
    /// Whether the engine must be rebuilt (a parameter changed).
    stale: bool,
    game: Option<Game>,
    level: Level,
    abort: Arc<AtomicBool>,
    searching: bool,
}

impl Hub {
    fn new(config: HubConfig) -> Result<Hub, String> {
        let learned = match &config.eval {
            None => None,
            Some(src) => Some(Evaluation::of_spec(Some(src), None).map_err(|e| e.to_string())?),
        };
        Ok(Hub {
            rules: config.rules,
            threads: config.threads.clamp(1, MAX_SEARCH_THREADS),
            tt_mb: config.tt_mb.clamp(1, MAX_SEARCH_TT_MB),
            level: Level::of_limit(config.limit),
            learned,
            config,
            engine: None,
            stale: true,
            game: None,
            abort: Arc::new(AtomicBool::new(false)),
            searching: false,
        })
    }

    fn variant_name(&self) -> &'static str {
        VARIANTS
            .iter()
            .find(|(_, v)| *v == self.rules.variant)
            .map_or("turkish", |(n, _)| n)
    }

    /// The value of rule option `key` in the rules in force, as the rules
    /// text writes it.
    fn rule(&self, key: &str) -> String {
        // The Croda keys are written only for Croda or when they differ
        // from their defaults: then they have Croda's defaults.
        let find = |rules: Rules| {
            rules
                .to_string()
                .split_whitespace()
                .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_string)
        };
        find(self.rules)
            .or_else(|| find(Rules::for_variant(Variant::Croda)))
            .unwrap_or_default()
    }

    fn hub(&self) -> Vec<String> {
        let names: Vec<&str> = VARIANTS.iter().map(|(n, _)| *n).collect();
        let eval = match &self.config.eval {
            None => "handcrafted".to_string(),
            Some(src) => src.to_string(),
        };
        vec![
            format!(
                "id name=dama version={} author=\"the dama authors\" country=Turkey",
                env!("CARGO_PKG_VERSION")
            ),
            format!(
                "param name=variant value={} type=enum values={}",
                self.variant_name(),
                quote(&names.join(" "))
            ),
            format!(
                "param name=promotion value={} type=enum values=\"end_of_move continue_as_king\"",
                self.rule("promotion")
            ),
            format!(
                "param name=one_piece_each value={} type=enum values=\"draw king_beats_man play_on\"",
                self.rule("one_piece_each")
            ),
            format!(
                "param name=no_capture_limit value={} type=string",
                self.rule("no_capture_limit")
            ),
            format!(
                "param name=croda_removal value={} type=enum values=\"end_of_move immediate\"",
                self.rule("croda_removal")
            ),
            format!(
                "param name=croda_man_captures value={} type=enum values=\"all forward_sideways\"",
                self.rule("croda_man_captures")
            ),
            format!(
                "param name=threads value={} type=int min=1 max={MAX_SEARCH_THREADS}",
                self.threads
            ),
            format!(
                "param name=hash value={} type=int min=1 max={MAX_SEARCH_TT_MB}",
                self.tt_mb
            ),
            format!("param name=eval value={} type=string", quote(&eval)),
            "wait".into(),
        ]
    }

    fn set_param(&mut self, line: &Line<'_>) -> Result<Vec<String>, String> {
        let name = line
            .get("name")
            .ok_or("set-param needs name=… and value=…")?;
        let value = line
            .get("value")
            .ok_or_else(|| format!("set-param name={name} has no value=…"))?;
        match name {
            "variant" => {
                let variant = VARIANTS
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(value))
                    .map(|(_, v)| *v)
                    .ok_or_else(|| {
                        format!(
                            "variant `{}` is not one of dama's (turkish, armenian, croda, dameo)",
                            clip(value)
                        )
                    })?;
                // The variant's own defaults for every other option.
                self.rules = Rules::for_variant(variant);
            }
            "promotion" | "one_piece_each" | "no_capture_limit" | "croda_removal"
            | "croda_man_captures" => {
                if value.contains(|c: char| c == '=' || c == ',' || c.is_whitespace()) {
                    return Err(format!("{name}: `{}` is not one value", clip(value)));
                }
                // Later keys win: the rules in force, this option changed.
                let text = format!("{} {name}={value}", self.rules);
                self.rules = text
                    .parse()
                    .map_err(|e| format!("{name}={}: {e}", clip(value)))?;
            }
            "threads" => self.threads = parse_int(name, value, 1, MAX_SEARCH_THREADS as u64)? as usize,
            "hash" => self.tt_mb = parse_int(name, value, 1, MAX_SEARCH_TT_MB as u64)? as usize,
            "eval" => {
                return Err(
                    "eval is set on the command line (`dama bot --protocol hub --bot alphabeta:eval=…`)"
                        .into(),
                )
            }
            // Parameters of other engines are ignored, as the protocol asks.
            _ => return Ok(Vec::new()),
        }
        self.stale = true;
        self.game = None;
        Ok(Vec::new())
    }

    /// The evaluation for the rules in force, and a note when a named
    /// learned evaluation cannot play them.
    fn evaluation(&self) -> (Evaluation, Option<String>) {
        match &self.learned {
            None => (Evaluation::Handcrafted, None),
            Some(e) => match e.check_rules(&self.rules) {
                Ok(()) => (e.clone(), None),
                Err(why) => (
                    Evaluation::Handcrafted,
                    self.config.eval_named.then(|| {
                        format!(
                            "error message={}",
                            quote(&format!("{why}; searching with the handcrafted evaluation"))
                        )
                    }),
                ),
            },
        }
    }

    /// Builds the engine for the parameters in force, if they changed.
    fn prepare(&mut self) -> Vec<String> {
        if !self.stale && self.engine.is_some() {
            return Vec::new();
        }
        let (evaluation, note) = self.evaluation();
        self.engine = Some(
            AlphaBeta::new(self.tt_mb)
                .with_threads(self.threads)
                .with_evaluation(evaluation)
                .with_tablebase(self.config.tablebase.clone())
                .with_abort(self.abort.clone()),
        );
        self.stale = false;
        note.into_iter().collect()
    }

    fn set_position(&mut self, line: &Line<'_>) -> Result<(), String> {
        self.game = None;
        let text = line
            .get("pos")
            .ok_or("pos needs pos=… (the side to move and 64 squares)")?;
        self.game = Some(hub_game(text, line.get("moves").unwrap_or(""), self.rules)?);
        Ok(())
    }

    fn set_level(&mut self, line: &Line<'_>) -> Result<(), String> {
        let level = if line.has("infinite") {
            Level::Infinite
        } else if let Some(d) = line.get("depth") {
            Level::Depth(parse_int("depth", d, 1, u64::from(MAX_SEARCH_DEPTH))? as u32)
        } else if let Some(t) = line.get("move-time") {
            Level::MoveTime(seconds("move-time", t)?.min(Duration::from_millis(MAX_MOVE_TIME_MS)))
        } else if let Some(n) = line.get("nodes") {
            Level::Nodes(parse_int("nodes", n, 1, MAX_NODES)?)
        } else if let Some(t) = line.get("time") {
            Level::Clock {
                time: seconds("time", t)?,
                inc: line
                    .get("inc")
                    .map(|i| seconds("inc", i))
                    .transpose()?
                    .unwrap_or_default(),
                moves: line
                    .get("moves")
                    .map(|m| parse_int("moves", m, 1, 10_000).map(|m| m as u32))
                    .transpose()?,
            }
        } else {
            return Err(
                "level needs depth=, move-time=, nodes=, time= [inc=] [moves=] or infinite".into(),
            );
        };
        self.level = level;
        Ok(())
    }
}

fn parse_int(name: &str, value: &str, min: u64, max: u64) -> Result<u64, String> {
    value
        .parse::<u64>()
        .ok()
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| {
            format!(
                "{name}={} is not a whole number from {min} to {max}",
                clip(value)
            )
        })
}

/// Seconds (a real number, as Hub sends times) as a duration.
fn seconds(name: &str, value: &str) -> Result<Duration, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0 && *s <= 1e7)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("{name}={} is not a time in seconds", clip(value)))
}

/// Reads lines of `input` into `events` (bounded at [`MAX_LINE`] bytes,
/// as `dama bot`'s own protocol reads them), then [`Event::Eof`] (also on
/// an I/O error: the GUI is gone).
fn read_lines(mut input: impl BufRead, events: &mpsc::Sender<Event>) {
    loop {
        let mut line = Vec::new();
        let event = match read_bounded_line(&mut input, &mut line) {
            Ok(None) | Err(_) => break,
            Ok(Some(Bounded::TooLong)) => Event::TooLong,
            Ok(Some(Bounded::Line)) => Event::Line(line),
        };
        if events.send(event).is_err() {
            return;
        }
    }
    let _ = events.send(Event::Eof);
}

/// Serves the Hub protocol: reads `input` (on a thread of its own, so that
/// `stop` and `ping` are read during a search) until `quit` or the end of
/// input, writing to `output`.
///
/// # Errors
///
/// A broken configuration (an evaluator file that cannot be read), or an
/// I/O error of `output`.
pub fn serve_hub(
    config: HubConfig,
    input: impl BufRead + Send + 'static,
    output: &mut impl Write,
) -> Result<(), crate::Error> {
    let mut hub = Hub::new(config).map_err(crate::Error::Input)?;
    let (tx, rx) = mpsc::channel();
    let reader_tx = tx.clone();
    std::thread::Builder::new()
        .name("hub-input".into())
        .spawn(move || read_lines(input, &reader_tx))
        .map_err(|e| crate::Error::Input(format!("cannot start the input thread: {e}")))?;
    let mut quitting = false;
    while let Ok(event) = rx.recv() {
        // The lines to write, or `None` to quit.
        let lines = match event {
            Event::Done(done) => {
                let (report, engine) = *done;
                hub.engine = Some(engine);
                hub.searching = false;
                write_lines(output, &report_lines(&report))?;
                if quitting {
                    break;
                }
                continue;
            }
            Event::Eof => None,
            Event::TooLong => Some(vec![format!(
                "error message=\"a line longer than {MAX_LINE} bytes was skipped\""
            )]),
            Event::Line(bytes) => match std::str::from_utf8(&bytes) {
                Err(_) => Some(vec![
                    "error message=\"a line that is not UTF-8 was skipped\"".into(),
                ]),
                Ok(text) => handle(&mut hub, text, &tx)
                    .unwrap_or_else(|why| Some(vec![format!("error message={}", quote(&why))])),
            },
        };
        match lines {
            Some(lines) => write_lines(output, &lines)?,
            // Quit: stop a search and write its answer first.
            None => {
                hub.abort.store(true, Ordering::Relaxed);
                quitting = true;
                if !hub.searching {
                    break;
                }
            }
        }
    }
    Ok(())
}

fn write_lines(output: &mut impl Write, lines: &[String]) -> Result<(), crate::Error> {
    let io = |e: std::io::Error| crate::Error::Input(format!("cannot write to the GUI: {e}"));
    for l in lines {
        writeln!(output, "{l}").map_err(io)?;
    }
    output.flush().map_err(io)
}

/// Handles one line: the lines to write, or `None` to quit.
fn handle(
    hub: &mut Hub,
    text: &str,
    events: &mpsc::Sender<Event>,
) -> Result<Option<Vec<String>>, String> {
    let line = parse_line(text)?;
    if line.command.is_empty() {
        return Ok(Some(Vec::new()));
    }
    if hub.searching {
        return match line.command {
            "ping" => Ok(Some(vec!["pong".into()])),
            "stop" => {
                hub.abort.store(true, Ordering::Relaxed);
                Ok(Some(Vec::new()))
            }
            // dama does not ponder: a `go ponder` searched as `go think`.
            "ponder-hit" => Ok(Some(Vec::new())),
            "quit" => Ok(None),
            c => Err(format!(
                "`{}` during a search (only ping, stop, ponder-hit and quit are read then)",
                clip(c)
            )),
        };
    }
    let lines = match line.command {
        "hub" => hub.hub(),
        "set-param" => hub.set_param(&line)?,
        "init" => {
            let mut lines = hub.prepare();
            lines.push("ready".into());
            lines
        }
        "new-game" => {
            if let Some(e) = hub.engine.as_mut() {
                e.clear();
            }
            Vec::new()
        }
        "pos" => {
            hub.set_position(&line)?;
            Vec::new()
        }
        "level" => {
            hub.set_level(&line)?;
            Vec::new()
        }
        "go" => return start_search(hub, events).map(Some),
        "ping" => vec!["pong".into()],
        "stop" | "ponder-hit" => Vec::new(),
        "quit" => return Ok(None),
        // Unknown commands are ignored, as the protocol asks.
        _ => Vec::new(),
    };
    Ok(Some(lines))
}

/// Starts a search of the position set by `pos` on a thread of its own;
/// its report comes back as [`Event::Done`].
fn start_search(hub: &mut Hub, events: &mpsc::Sender<Event>) -> Result<Vec<String>, String> {
    let game = hub
        .game
        .clone()
        .ok_or("go before pos: no position to search")?;
    let notes = hub.prepare();
    let mut engine = hub.engine.take().expect("prepared");
    let limits = hub.level.limits();
    hub.abort.store(false, Ordering::Relaxed);
    hub.searching = true;
    let tx = events.clone();
    std::thread::Builder::new()
        .name("hub-search".into())
        .spawn(move || {
            let start = Instant::now();
            let history = game_history_hashes(&game);
            let mut report = engine.search(game.position(), &history, limits);
            report.elapsed = report.elapsed.max(start.elapsed());
            let _ = tx.send(Event::Done(Box::new((report, engine))));
        })
        .map_err(|e| format!("cannot start the search thread: {e}"))?;
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_into_arguments() {
        let l = parse_line("pos pos=Wbe moves=\"17-25 41-33\" flag").unwrap();
        assert_eq!(l.command, "pos");
        assert_eq!(l.get("pos"), Some("Wbe"));
        assert_eq!(l.get("moves"), Some("17-25 41-33"));
        assert!(l.has("flag"));
        assert!(parse_line("pos moves=\"17-25").is_err());
        assert!(parse_line("pos =3").is_err());
    }

    #[test]
    fn positions_read_from_a8_and_moves_from_a1() {
        // pydraughts' Turkish start: White on ranks 2 and 3.
        let start = format!(
            "W{}{}{}{}",
            "e".repeat(8),
            "b".repeat(16),
            "e".repeat(16),
            "w".repeat(16)
        );
        let start = start + &"e".repeat(8);
        let pos = parse_position(&start, Rules::default()).unwrap();
        assert_eq!(pos, Position::startpos());
        assert_eq!(hub_position(&pos), start);
        let game = Game::new();
        // a3-a4 is 17-25.
        let m = parse_hub_move(&game, "17-25").unwrap();
        assert_eq!((m.from(), m.to()), (Square::A3, Square::A4));
        assert_eq!(hub_move(&m), "17-25");
        assert!(parse_hub_move(&game, "17-33").is_err());
        assert!(parse_hub_move(&game, "0-25").is_err());
        assert!(parse_hub_move(&game, "x").is_err());
    }

    #[test]
    fn captures_list_the_captured_squares() {
        // White d4 takes d5, landing on d6: 28x44x36.
        let mut text = vec!['e'; 64];
        let at = |file: usize, rank: usize| (7 - rank) * 8 + file;
        text[at(0, 2)] = 'w';
        text[at(3, 3)] = 'w';
        text[at(3, 4)] = 'b';
        text[at(0, 6)] = 'b';
        let pos = format!("W{}", text.iter().collect::<String>());
        let game = Game::from_position(parse_position(&pos, Rules::default()).unwrap());
        let m = parse_hub_move(&game, "28x44x36").unwrap();
        assert!(m.is_capture());
        assert_eq!(hub_move(&m), "28x44x36");
    }

    #[test]
    fn moves_past_a_draw_by_rule_are_played_on() {
        // One piece each is a draw at once in dama's Turkish rules; a GUI
        // without that rule plays on, and so does the position it sends.
        let mut text = vec!['e'; 64];
        text[56] = 'W'; // a1
        text[7] = 'B'; // h8
        let pos = format!("W{}", text.iter().collect::<String>());
        let game = hub_game(&pos, "1-2 64-63 2-1", Rules::default()).unwrap();
        assert_eq!(game.moves().len(), 3);
        assert!(game.is_game_over());
        // A move that is not legal there is still refused, by number.
        let err = hub_game(&pos, "1-2 64-63 2-11", Rules::default()).unwrap_err();
        assert!(err.starts_with("move 3:"), "{err}");
    }

    #[test]
    fn bad_positions_are_named() {
        assert!(parse_position("W", Rules::default())
            .unwrap_err()
            .contains("65"));
        let bad = format!("X{}", "e".repeat(64));
        assert!(parse_position(&bad, Rules::default())
            .unwrap_err()
            .contains("`X`"));
        let bad = format!("W{}", "z".repeat(64));
        assert!(parse_position(&bad, Rules::default())
            .unwrap_err()
            .contains("`z`"));
    }

    #[test]
    fn clocks_share_time_over_the_moves_to_go() {
        let t = allocate(Duration::from_secs(60), Duration::ZERO, None);
        assert!(
            t > Duration::from_secs(1) && t < Duration::from_secs(3),
            "{t:?}"
        );
        let t = allocate(Duration::from_millis(20), Duration::ZERO, None);
        assert_eq!(t, Duration::from_millis(10));
        let t = allocate(Duration::from_secs(10), Duration::ZERO, Some(1));
        assert!(t <= Duration::from_secs(5), "{t:?}");
    }

    #[test]
    fn scores_read_as_pydraughts_reads_them() {
        assert_eq!(score_men(150), "1.50");
        assert_eq!(score_men(-20_000), "-90.00");
        assert_eq!(score_men(MATE - 3), "99.97");
        assert_eq!(score_men(-(MATE - 4)), "-99.96");
    }
}
