//! The line protocol of `dama bot` (documented in `docs/protocol.md`).
//!
//! One command per line; every command is answered, and the answer ends
//! with a line that starts with `ok`, `bestmove`, `readyok`, `bye` or
//! `error`. Bad input is answered with `error …` and the session goes on.
//!
//! One [`Session`] serves every game ([`GameDef`]): the framing, the
//! command words and the replies are the same; moves, positions, rules and
//! the board are the game's own text ([`GameDef`]).

use std::fmt::{self, Display};
use std::time::Duration;

use dama_eval::AlphaBetaLimit;
use dama_game::GameDef;
use dama_nn::GameName;

use crate::Error;
use crate::{Bot, Limit, Thought};

/// Version of the protocol, announced by `hello`.
pub const PROTOCOL_VERSION: u32 = 1;

/// Largest `go sims` accepted (a search tree grows with it).
const MAX_SIMS: u64 = dama_mcts::MAX_SIMULATIONS as u64;
/// Largest `go time` accepted, in milliseconds (one hour).
const MAX_TIME_MS: u64 = dama_eval::MAX_MOVE_TIME_MS;
/// Longest command line accepted, in bytes (a `moves` line of a whole
/// game is a few kilobytes).
pub const MAX_LINE: usize = 64 * 1024;

const COMMANDS: &str =
    "hello, isready, rules, position, moves, undo, go, eval, show, legal, newgame, quit";

/// The answer to one line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// Lines to write, in order (none for an empty or comment line).
    pub lines: Vec<String>,
    /// Whether the session ends.
    pub quit: bool,
}

impl Reply {
    /// A reply of one line.
    pub(crate) fn one(line: impl Into<String>) -> Reply {
        Reply {
            lines: vec![line.into()],
            quit: false,
        }
    }

    fn with_lines(lines: Vec<String>) -> Reply {
        Reply { lines, quit: false }
    }
}

/// A protocol session of game `G`: rules, a game (its start and moves),
/// a bot.
pub struct Session<G: GameDef> {
    bot: Bot<G>,
    rules: G::Rules,
    /// The start position's text; `None`: the rules' initial position.
    start: Option<String>,
    /// The moves played from the start.
    moves: Vec<G::Move>,
    game: G::Game,
}

impl<G: GameDef> fmt::Debug for Session<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("bot", &self.bot)
            .field("rules", &self.rules)
            .field("game", &self.game)
            .finish_non_exhaustive()
    }
}

impl<G: GameDef> Session<G> {
    /// A session with `bot`, the rules the bot was trained under (else the
    /// game's defaults) and the initial position.
    pub fn new(bot: Bot<G>) -> Session<G> {
        let rules = bot.trained_rules().unwrap_or_default();
        Session {
            bot,
            rules,
            start: None,
            moves: Vec::new(),
            game: G::start(&rules),
        }
    }

    /// The current game.
    pub fn game(&self) -> &G::Game {
        &self.game
    }

    /// The rules in force.
    pub fn rules(&self) -> G::Rules {
        self.rules
    }

    /// The bot.
    pub fn bot(&self) -> &Bot<G> {
        &self.bot
    }

    /// Handles one line.
    pub fn handle(&mut self, line: &str) -> Reply {
        let Some((cmd, rest)) = split_command(line) else {
            return Reply::default();
        };
        let result = match cmd {
            "hello" | "dama" => Ok(self.hello()),
            "isready" => Ok(Reply::one("readyok")),
            "quit" | "exit" => Ok(Reply {
                lines: vec!["bye".into()],
                quit: true,
            }),
            "rules" => self.set_rules(rest),
            "position" => self.set_position(rest),
            "newgame" => {
                self.start = None;
                self.moves.clear();
                self.game = G::start(&self.rules);
                Ok(Reply::one("ok"))
            }
            "moves" | "play" => self.play_moves(rest).map(|()| Reply::one("ok")),
            "undo" => self.undo(rest),
            "go" => parse_go(rest).and_then(|limit| self.think(limit)),
            "eval" => self.eval(),
            "show" | "d" => Ok(self.show()),
            "legal" => Ok(Reply::with_lines(vec![
                format!("legal {}", self.legal_list()),
                "ok".into(),
            ])),
            _ => Err(Error::Input(format!(
                "unknown command `{}` (commands: {COMMANDS})",
                clip(cmd)
            ))),
        };
        result.unwrap_or_else(|e| error_reply(&e))
    }

    /// Handles one line as read from the wire: bytes that are not UTF-8
    /// are answered with an `error` line, and the session goes on.
    pub fn handle_bytes(&mut self, line: &[u8]) -> Reply {
        handle_utf8(line, |text| self.handle(text))
    }

    /// Serves the protocol: reads lines from `input` until `quit` or the
    /// end of input, writing each reply to `output` and flushing it. A
    /// line that is not UTF-8 or longer than 64 KiB ([`MAX_LINE`]) is
    /// answered with an `error` line and skipped.
    ///
    /// # Errors
    ///
    /// Only I/O errors of `input` or `output` (a closed pipe included).
    pub fn serve(
        &mut self,
        input: &mut impl std::io::BufRead,
        output: &mut impl std::io::Write,
    ) -> std::io::Result<()> {
        serve_lines(input, output, |line| self.handle_bytes(line))
    }

    fn hello(&self) -> Reply {
        let mut lines = vec![
            format!(
                "id dama-bot {} protocol {PROTOCOL_VERSION}",
                env!("CARGO_PKG_VERSION")
            ),
            format!("id game {}", G::NAME),
            format!("id bot {}", self.bot.name()),
        ];
        if let Some(m) = self.bot.bundle() {
            lines.push(format!(
                "id encoding {} step {}",
                m.encoding_version, m.step
            ));
        }
        if let Some(m) = self.bot.evaluator_bundle() {
            let mut line = format!("id evaluator threads {}", m.threads);
            if let Some(g) = m.generation {
                line.push_str(&format!(" generation {g}"));
            }
            lines.push(line);
        }
        // An alpha-beta bot searching to its own depth says `depth N`.
        let limit = match (self.bot.default_limit(), self.bot.alphabeta_limit()) {
            (Limit::Sims(_), Some(AlphaBetaLimit::Depth(d))) => format!("depth {d}"),
            (Limit::Sims(_), Some(AlphaBetaLimit::TimeMs(ms))) => format!("time {ms}"),
            (limit, _) => limit_text(limit),
        };
        lines.push(format!("id limit {limit}"));
        lines.push(format!("rules {}", self.rules));
        lines.push("ok".into());
        Reply::with_lines(lines)
    }

    /// `rules [TEXT]`: shows the rules, or sets them and replays the
    /// current game under them (a game from the initial position starts
    /// from the new rules' own).
    fn set_rules(&mut self, rest: &str) -> Result<Reply, Error> {
        if rest.is_empty() {
            return Ok(Reply::with_lines(vec![
                format!("rules {}", self.rules),
                "ok".into(),
            ]));
        }
        let rules = parse_rules::<G>(rest)?;
        if let Some(why) = self
            .bot
            .trained_rules()
            .and_then(|t| G::refuse_network_rules(&t, &rules))
        {
            return Err(Error::Input(why));
        }
        let texts: Vec<String> = self.moves.iter().map(ToString::to_string).collect();
        let (game, moves) = replay::<G>(&rules, self.start.as_deref(), &texts).map_err(|e| {
            Error::Input(format!(
                "the game does not replay under rules {rules} ({}); use `position` first",
                crate::error::chain(&e)
            ))
        })?;
        self.rules = rules;
        self.game = game;
        self.moves = moves;
        let mut r = Reply::default();
        if let Some(trained) = self.bot.trained_rules().filter(|t| *t != self.rules) {
            r.lines.push(format!(
                "info warning the network was trained under rules {trained}"
            ));
        }
        r.lines.push("ok".into());
        Ok(r)
    }

    /// `position startpos|POS [moves …]`: a new game, all or nothing.
    fn set_position(&mut self, rest: &str) -> Result<Reply, Error> {
        let (position, moves) = split_position(rest);
        if position.is_empty() {
            return Err(Error::Input(format!(
                "position needs `startpos` or a position like {}",
                G::POSITION_EXAMPLE
            )));
        }
        let start = (position != "startpos").then(|| position.to_owned());
        let game = start_game::<G>(&self.rules, start.as_deref())?;
        let start = start.map(|_| G::position_text(&game));
        let mut played = Vec::new();
        let game = play_texts::<G>(game, moves.split_whitespace(), &mut played)?;
        self.start = start;
        self.moves = played;
        self.game = game;
        Ok(Reply::one("ok"))
    }

    /// `moves …`: plays the moves in order; all or none.
    fn play_moves(&mut self, moves: &str) -> Result<(), Error> {
        let mut played = self.moves.clone();
        self.game = play_texts::<G>(self.game.clone(), moves.split_whitespace(), &mut played)?;
        self.moves = played;
        Ok(())
    }

    /// `undo [N]`: takes back the last N moves (the game replayed from its
    /// start).
    fn undo(&mut self, rest: &str) -> Result<Reply, Error> {
        let n: usize = if rest.is_empty() {
            1
        } else {
            rest.parse().map_err(|_| {
                Error::Input(format!(
                    "undo takes a number of moves, got `{}`",
                    clip(rest)
                ))
            })?
        };
        let played = self.moves.len();
        if n > played {
            return Err(Error::Input(format!(
                "cannot undo {n} moves: the game has {played}"
            )));
        }
        let mut game = start_game::<G>(&self.rules, self.start.as_deref())?;
        for mv in &self.moves[..played - n] {
            G::play(&mut game, mv).map_err(|source| Error::Game {
                context: format!("the game's move {mv} does not replay"),
                source,
            })?;
        }
        self.moves.truncate(played - n);
        self.game = game;
        Ok(Reply::one("ok"))
    }

    /// `go`: the bot's `info …` line and its move.
    fn think(&mut self, limit: Option<Limit>) -> Result<Reply, Error> {
        let t = self.bot.think(&self.game, limit)?;
        Ok(Reply::with_lines(vec![
            info_line(&t),
            format!("bestmove {}", t.best),
        ]))
    }

    /// `eval`: the network's value, WDL and the prior of every legal step,
    /// most likely first.
    fn eval(&mut self) -> Result<Reply, Error> {
        let raw = self.bot.network_eval(&self.game)?.ok_or_else(|| {
            Error::Input(format!(
                "`{}` has no network to evaluate with",
                self.bot.name()
            ))
        })?;
        let mut priors: Vec<_> = raw.priors.iter().collect();
        priors.sort_by(|a, b| b.2.total_cmp(&a.2));
        let top: Vec<String> = priors
            .iter()
            .map(|(s, _, p)| format!("{s} {p:.4}"))
            .collect();
        Ok(Reply::with_lines(vec![
            format!(
                "info value {:.4} wdl {:.4} {:.4} {:.4} priors {}",
                raw.wdl[0] - raw.wdl[2],
                raw.wdl[0],
                raw.wdl[1],
                raw.wdl[2],
                top.join(" ")
            ),
            "ok".into(),
        ]))
    }

    /// `show`: `board` lines, the position, the side to move, the moves
    /// played, the status (`over …` if the game is over) and the legal
    /// moves.
    fn show(&self) -> Reply {
        let board = G::board_text(&self.game, dama_mcts::Player::First);
        let mut lines: Vec<String> = board.lines().map(|l| format!("board {l}")).collect();
        lines.push(format!("position {}", G::position_text(&self.game)));
        lines.push(format!("turn {}", side_key::<G>(G::to_play(&self.game))));
        lines.push(format!("moves {}", join(&self.moves)).trim_end().to_owned());
        lines.push(match G::status_text(&self.game) {
            Some(over) => format!("status over {over}"),
            None => "status playing".into(),
        });
        lines.push(format!("legal {}", self.legal_list()));
        lines.push("ok".into());
        Reply::with_lines(lines)
    }

    fn legal_list(&self) -> String {
        join(&G::legal_moves(&self.game))
    }
}

/// A side's name in protocols (`white`, `king_side`).
pub(crate) fn side_key<G: GameDef>(side: dama_mcts::Player) -> &'static str {
    let sides = G::geometry().sides;
    match side {
        dama_mcts::Player::First => sides[0].key,
        dama_mcts::Player::Second => sides[1].key,
    }
}

/// Rules text of game `G`; another game's rules are refused by name.
///
/// # Errors
///
/// [`Error::Game`] naming the game, and the other game whose rules they
/// are if they are.
pub fn parse_rules<G: GameDef>(text: &str) -> Result<G::Rules, Error> {
    G::parse_rules(text).map_err(|source| {
        let other = GameName::whose_rules(text).filter(|g| g.as_str() != G::NAME);
        Error::Game {
            context: match other {
                Some(g) => format!(
                    "`{}` are {} rules; this session plays {}",
                    clip(text),
                    g.title(),
                    G::TITLE
                ),
                None => format!("bad {} rules `{}`", G::TITLE, clip(text)),
            },
            source,
        }
    })
}

/// The game from `start` (position text; `None`: the initial position)
/// under `rules`.
fn start_game<G: GameDef>(rules: &G::Rules, start: Option<&str>) -> Result<G::Game, Error> {
    match start {
        None => Ok(G::start(rules)),
        Some(text) => G::parse_position(rules, text).map_err(|source| Error::Game {
            context: format!("bad position `{}`", clip(text)),
            source,
        }),
    }
}

/// `game` with the moves `texts` played, each pushed onto `played`; the
/// first move that is not legal (or comes after the end) is the error.
fn play_texts<'a, G: GameDef>(
    mut game: G::Game,
    texts: impl IntoIterator<Item = &'a str>,
    played: &mut Vec<G::Move>,
) -> Result<G::Game, Error> {
    for text in texts {
        if let Some(end) = G::end_text(&game) {
            return Err(Error::GameOver(format!(
                "cannot play {}: the game is over ({end})",
                clip(text)
            )));
        }
        let mv = G::parse_move(&game, text).map_err(|e| {
            // The game's reason, unless it only says the same.
            let head = format!("illegal move `{}`", clip(text));
            let why = one_line(&crate::error::chain(e.as_ref()));
            let head = if why.is_empty() || why == head {
                head
            } else {
                format!("{head}: {why}")
            };
            Error::Input(format!("{head}; legal: {}", join(&G::legal_moves(&game))))
        })?;
        G::play(&mut game, &mv).map_err(|source| Error::Game {
            context: format!("illegal move `{}`", clip(text)),
            source,
        })?;
        played.push(mv);
    }
    Ok(game)
}

/// The game from `start` under `rules` with the moves `texts` replayed
/// (parsed again: the rules may read them differently).
fn replay<G: GameDef>(
    rules: &G::Rules,
    start: Option<&str>,
    texts: &[String],
) -> Result<(G::Game, Vec<G::Move>), Error> {
    let game = start_game::<G>(rules, start)?;
    let mut moves = Vec::new();
    let game = play_texts::<G>(game, texts.iter().map(String::as_str), &mut moves)?;
    Ok((game, moves))
}

/// `info …` for a thought: `time_ms`, `nodes`, `reused` (a search that
/// started from its last tree), `value`, `wdl` (searching bots),
/// `score_cm` and `depth` (alpha-beta), `tablebase
/// <win|cursed-win|draw|blessed-loss|loss> [dtz N]`, then `pv` last (it
/// runs to the end of the line).
fn info_line<G: GameDef>(t: &Thought<G>) -> String {
    let mut s = format!("info time_ms {} nodes {}", t.elapsed.as_millis(), t.nodes);
    if t.reused > 0 {
        s.push_str(&format!(" reused {}", t.reused));
    }
    if let Some(e) = t.eval {
        s.push_str(&format!(
            " value {:.4} wdl {:.4} {:.4} {:.4}",
            e.value, e.wdl[0], e.wdl[1], e.wdl[2]
        ));
    }
    if let Some((score, depth)) = t.score_cm {
        s.push_str(&format!(" score_cm {score} depth {depth}"));
    }
    if let Some(p) = &t.tablebase {
        s.push_str(&format!(" tablebase {}", p.result.replace(' ', "-")));
        if let Some(d) = p.dtz {
            s.push_str(&format!(" dtz {d}"));
        }
    }
    s.push_str(&format!(" pv {}", join(&t.pv)));
    s
}

/// Moves (or anything) in notation, separated by spaces.
pub(crate) fn join(items: &[impl Display]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn limit_text(l: Limit) -> String {
    match l {
        Limit::Sims(n) => format!("sims {n}"),
        Limit::Time(d) => format!("time {}", d.as_millis()),
    }
}

/// At most 80 characters of `text`, for echoing a stranger's input.
pub(crate) fn clip(text: &str) -> String {
    text.chars().take(80).collect()
}

fn one_line(s: &str) -> String {
    s.lines().collect::<Vec<_>>().join(" ")
}
/// The framing shared by the sessions of every game: reads lines from
/// `input` until a reply says quit or the input ends, writes each reply to
/// `output` and flushes it. A line longer than [`MAX_LINE`] bytes is
/// answered with an `error` line and skipped; every other line goes to
/// `handle` (as bytes: see [`handle_utf8`]).
pub(crate) fn serve_lines(
    input: &mut impl std::io::BufRead,
    output: &mut impl std::io::Write,
    mut handle: impl FnMut(&[u8]) -> Reply,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    loop {
        let reply = match read_bounded_line(input, &mut line)? {
            None => return Ok(()),
            Some(Bounded::TooLong) => {
                Reply::one(format!("error line longer than {MAX_LINE} bytes"))
            }
            Some(Bounded::Line) => handle(&line),
        };
        for l in &reply.lines {
            writeln!(output, "{l}")?;
        }
        output.flush()?;
        if reply.quit {
            return Ok(());
        }
    }
}

/// What [`read_bounded_line`] read.
pub(crate) enum Bounded {
    /// A line of at most [`MAX_LINE`] bytes, in the buffer.
    Line,
    /// A longer line, skipped to its end.
    TooLong,
}

/// Reads one line into `line` (cleared first), as both protocols read
/// their input: `None` at the end of input; a line longer than
/// [`MAX_LINE`] bytes is read no further than that and skipped to its end.
///
/// # Errors
///
/// I/O errors of `input`.
pub(crate) fn read_bounded_line(
    input: &mut impl std::io::BufRead,
    line: &mut Vec<u8>,
) -> std::io::Result<Option<Bounded>> {
    use std::io::{BufRead, Read};
    line.clear();
    if input
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', line)?
        == 0
    {
        return Ok(None);
    }
    if line.len() <= MAX_LINE || line.last() == Some(&b'\n') {
        return Ok(Some(Bounded::Line));
    }
    // Skip the rest of the long line.
    let mut rest = Vec::new();
    loop {
        rest.clear();
        let m = input
            .by_ref()
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut rest)?;
        if m == 0 || rest.last() == Some(&b'\n') {
            return Ok(Some(Bounded::TooLong));
        }
    }
}

/// `handle` on the line if it is UTF-8, else an `error` reply.
pub(crate) fn handle_utf8(line: &[u8], handle: impl FnOnce(&str) -> Reply) -> Reply {
    match std::str::from_utf8(line) {
        Ok(text) => handle(text),
        Err(e) => Reply::one(format!(
            "error the line is not valid UTF-8 (byte {} of the line)",
            e.valid_up_to() + 1
        )),
    }
}

/// The command word and the rest of a line, both trimmed; `None` for an
/// empty or comment line (no answer).
pub(crate) fn split_command(line: &str) -> Option<(&str, &str)> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    Some(
        line.split_once(char::is_whitespace)
            .map_or((line, ""), |(c, r)| (c, r.trim())),
    )
}

/// The one `error …` line answering `e`.
pub(crate) fn error_reply(e: &Error) -> Reply {
    Reply::one(format!("error {}", one_line(&crate::error::chain(e))))
}

/// The arguments of `position`: the position text (without a `fen `
/// prefix; empty if missing) and the text of the moves after `moves`.
pub(crate) fn split_position(rest: &str) -> (&str, &str) {
    let (pos_text, moves) = match rest.find(" moves") {
        Some(i) => (&rest[..i], rest[i + " moves".len()..].trim()),
        None => match rest.strip_prefix("moves") {
            Some(m) => ("", m.trim()),
            None => (rest, ""),
        },
    };
    let pos_text = pos_text.trim();
    (
        pos_text.strip_prefix("fen ").unwrap_or(pos_text).trim(),
        moves,
    )
}

/// The limit of `go [sims N | time MS]` (`None`: the bot's default),
/// bounded by [`dama_mcts::MAX_SIMULATIONS`] and an hour.
pub(crate) fn parse_go(rest: &str) -> Result<Option<Limit>, Error> {
    let mut limit = None;
    let mut words = rest.split_whitespace();
    while let Some(w) = words.next() {
        let mut value = |name: &str| -> Result<u64, Error> {
            let v = words
                .next()
                .ok_or_else(|| Error::Input(format!("go: `{name}` needs a number")))?;
            v.parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| Error::Input(format!("go: `{name} {v}` is not a positive number")))
        };
        limit = Some(match w {
            "sims" | "nodes" => {
                let n = value(w)?;
                if n > MAX_SIMS {
                    return Err(Error::Input(format!("go: at most {MAX_SIMS} sims")));
                }
                Limit::Sims(n as u32)
            }
            "time" | "movetime" => {
                let ms = value(w)?;
                if ms > MAX_TIME_MS {
                    return Err(Error::Input(format!("go: at most {MAX_TIME_MS} ms")));
                }
                Limit::Time(Duration::from_millis(ms))
            }
            _ => {
                return Err(Error::Input(format!(
                    "go: unknown option `{w}` (go [sims N | time MS])"
                )))
            }
        });
    }
    Ok(limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BotOptions;
    use dama_draughts::Draughts;
    use dama_engine::Position;

    fn session() -> Session<Draughts> {
        Session::new(Bot::from_spec("mcts:sims=20", &BotOptions::default()).unwrap())
    }

    /// A variant's games start from its own initial position, and its
    /// positions are checked against it.
    #[test]
    fn a_variant_starts_from_its_own_position() {
        let startpos = |r: &str| Position::startpos_with_rules(r.parse().unwrap());
        let mut s = session();
        assert_eq!(last(&s.handle("rules variant=dameo")), "ok");
        assert_eq!(*s.game().start_position(), startpos("variant=dameo"));
        assert_eq!(last(&s.handle("position startpos moves a1-a2")), "ok");
        assert_eq!(*s.game().start_position(), startpos("variant=dameo"));
        // Croda's 24 men a side are too many for Dameo.
        let croda = startpos("variant=croda").to_string();
        let r = s.handle(&format!("position {croda}"));
        assert!(last(&r).starts_with("error "), "{r:?}");
        assert_eq!(last(&s.handle("position startpos")), "ok");
        assert_eq!(last(&s.handle("rules variant=croda")), "ok");
        assert_eq!(*s.game().start_position(), startpos("variant=croda"));
    }

    fn last(r: &Reply) -> &str {
        r.lines.last().map_or("", String::as_str)
    }

    /// Issue 19: one byte of invalid UTF-8 (or an endless line) used to end
    /// the session; the protocol promises an `error` line and goes on.
    #[test]
    fn invalid_utf8_and_long_lines_are_errors_and_the_session_goes_on() {
        let mut input = Vec::new();
        input.extend_from_slice(b"isready\n");
        input.extend_from_slice(b"moves c3-c4 \xff\xfe\n");
        input.extend_from_slice(&vec![b'x'; MAX_LINE * 3]);
        input.extend_from_slice(b"\nisready\nquit\nisready\n");
        let mut out = Vec::new();
        session()
            .serve(&mut std::io::Cursor::new(input), &mut out)
            .unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 5, "{out}");
        assert_eq!(lines[0], "readyok");
        assert!(
            lines[1].starts_with("error") && lines[1].contains("UTF-8"),
            "{out}"
        );
        assert!(
            lines[2].starts_with("error") && lines[2].contains("longer"),
            "{out}"
        );
        assert_eq!(lines[3], "readyok");
        assert_eq!(lines[4], "bye");
    }

    #[test]
    fn a_short_session() {
        let mut s = session();
        assert_eq!(last(&s.handle("isready")), "readyok");
        let r = s.handle("hello");
        assert_eq!(last(&r), "ok");
        assert!(r.lines.iter().any(|l| l == "id game draughts"), "{r:?}");
        assert!(s.handle("").lines.is_empty());
        assert_eq!(last(&s.handle("position startpos moves d3-d4 d6-d5")), "ok");
        assert_eq!(s.game().moves().len(), 2);
        let r = s.handle("go sims 16");
        assert!(r.lines[0].starts_with("info "), "{r:?}");
        assert!(r.lines[0].contains(" pv "), "{r:?}");
        assert!(last(&r).starts_with("bestmove "), "{r:?}");
        assert_eq!(last(&s.handle("undo 2")), "ok");
        assert_eq!(s.game().moves().len(), 0);
        assert!(s.handle("quit").quit);
    }

    #[test]
    fn bad_input_is_an_error_and_the_session_goes_on() {
        let mut s = session();
        for bad in [
            "fly",
            "position",
            "position W:Wz9:B",
            "position startpos moves d3-d5",
            "moves e3xe5",
            "moves d3-d4 d3-d4",
            "undo 5",
            "undo x",
            "go sims",
            "go sims -1",
            "go sims 99999999999",
            "go depth 3",
            "rules promotion=never",
            "eval",
        ] {
            let r = s.handle(bad);
            assert!(last(&r).starts_with("error "), "{bad}: {r:?}");
            assert_eq!(r.lines.len(), 1, "{bad}: {r:?}");
        }
        assert_eq!(s.game().moves().len(), 0, "no partial move list was kept");
        let r = s.handle("moves d3-d5");
        assert!(last(&r).contains("legal: "), "{r:?}");
        assert_eq!(last(&s.handle("rules no_capture_limit=off")), "ok");
        assert_eq!(s.game().rules().no_capture_limit, None);
        // A finished game: Black to move without pieces.
        assert_eq!(last(&s.handle("position B:Wa2:B")), "ok");
        assert!(last(&s.handle("go")).starts_with("error "));
        assert!(last(&s.handle("show")) == "ok");
    }
}
