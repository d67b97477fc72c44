//! The line protocol of `dama bot` (documented in `docs/protocol.md`).
//!
//! One command per line; every command is answered, and the answer ends
//! with a line that starts with `ok`, `bestmove`, `readyok`, `bye` or
//! `error`. Bad input is answered with `error …` and the session goes on.
//!
//! The framing, the command words and the replies are the same for every
//! game: [`handle`] reads a line and answers it through a game's
//! [`Commands`] ([`Session`] for Turkish draughts,
//! [`crate::tafl::TaflSession`] for Turkish Tafl).

use std::fmt::Display;
use std::time::Duration;

use dama_engine::{Game, Position, Rules};

use crate::report::{Eval, RawEval};
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

/// What a game's session does for the commands of the protocol; the
/// command words, the parsing of their common arguments and the replies
/// are [`handle`]'s.
pub(crate) trait Commands {
    /// The game of `id game`.
    const GAME: &'static str;
    /// An example position, for the error of a `position` without one.
    const POSITION_EXAMPLE: &'static str;
    /// How many priors `eval` lists, most likely first.
    const PRIORS_SHOWN: usize;
    /// One decision of a move, as the network's priors list them.
    type Step: Display;

    /// The bot's name (`id bot`).
    fn bot_name(&self) -> &str;
    /// `id …` lines of some bots, between `id bot` and `id limit`.
    fn bot_ids(&self) -> Vec<String> {
        Vec::new()
    }
    /// The bot's limit when `go` names none.
    fn default_limit(&self) -> Limit;
    /// That limit as `id limit` writes it (`sims N`, `time MS`).
    fn default_limit_text(&self) -> String {
        limit_text(self.default_limit())
    }
    /// The rules in force, as `rules` writes them.
    fn rules_text(&self) -> String;
    /// The rules the bot's network was trained under, if they are not
    /// the rules in force.
    fn other_trained_rules(&self) -> Option<String>;
    /// `rules TEXT`: new rules, the current game replayed under them.
    fn set_rules(&mut self, text: &str) -> Result<(), Error>;
    /// `position`: a new game from `position` (not empty, without `fen `)
    /// with `moves` played; all or nothing.
    fn set_position(&mut self, position: &str, moves: &str) -> Result<(), Error>;
    /// `newgame`: the initial position under the rules in force.
    fn new_game(&mut self);
    /// `moves …`: plays the moves in order; all or none.
    fn play_moves(&mut self, moves: &str) -> Result<(), Error>;
    /// Moves played in the game.
    fn played(&self) -> usize;
    /// Takes back the last `n` moves (at most [`Commands::played`]).
    fn undo(&mut self, n: usize) -> Result<(), Error>;
    /// `go`: the bot thinks; its `info …` line and its move.
    fn think(&mut self, limit: Option<Limit>) -> Result<(String, String), Error>;
    /// The network's output for the position (`None`: no network).
    fn network_eval(&mut self) -> Result<Option<RawEval<Self::Step>>, Error>;
    /// `show`: the board and the game.
    fn show(&self) -> Reply;
    /// The legal moves, separated by spaces.
    fn legal_list(&self) -> String;
}

/// `handle`, `handle_bytes` and `serve` of a session (a type that
/// implements [`Commands`]), in an `impl` block of it.
macro_rules! session_methods {
    () => {
        /// Handles one line.
        pub fn handle(&mut self, line: &str) -> $crate::Reply {
            $crate::protocol::handle(self, line)
        }

        /// Handles one line as read from the wire: bytes that are not UTF-8
        /// are answered with an `error` line, and the session goes on.
        pub fn handle_bytes(&mut self, line: &[u8]) -> $crate::Reply {
            $crate::protocol::handle_utf8(line, |text| self.handle(text))
        }

        /// Serves the protocol: reads lines from `input` until `quit` or the
        /// end of input, writing each reply to `output` and flushing it. A
        /// line that is not UTF-8 or longer than 64 KiB (`MAX_LINE`) is
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
            $crate::protocol::serve_lines(input, output, |line| self.handle_bytes(line))
        }
    };
}
pub(crate) use session_methods;

/// Answers one line of a session of any game.
pub(crate) fn handle<S: Commands>(s: &mut S, line: &str) -> Reply {
    let Some((cmd, rest)) = split_command(line) else {
        return Reply::default();
    };
    let result = match cmd {
        "hello" | "dama" => Ok(hello(s)),
        "isready" => Ok(Reply::one("readyok")),
        "quit" | "exit" => Ok(Reply {
            lines: vec!["bye".into()],
            quit: true,
        }),
        "rules" => set_rules(s, rest),
        "position" => set_position(s, rest),
        "newgame" => {
            s.new_game();
            Ok(Reply::one("ok"))
        }
        "moves" | "play" => s.play_moves(rest).map(|()| Reply::one("ok")),
        "undo" => undo(s, rest),
        "go" => parse_go(rest)
            .and_then(|limit| s.think(limit))
            .map(|(info, best)| Reply::with_lines(vec![info, format!("bestmove {best}")])),
        "eval" => eval(s),
        "show" | "d" => Ok(s.show()),
        "legal" => Ok(Reply::with_lines(vec![
            format!("legal {}", s.legal_list()),
            "ok".into(),
        ])),
        _ => Err(Error::Input(format!(
            "unknown command `{}` (commands: {COMMANDS})",
            clip(cmd)
        ))),
    };
    result.unwrap_or_else(|e| error_reply(&e))
}

fn hello<S: Commands>(s: &S) -> Reply {
    let mut lines = vec![
        format!(
            "id dama-bot {} protocol {PROTOCOL_VERSION}",
            env!("CARGO_PKG_VERSION")
        ),
        format!("id game {}", S::GAME),
        format!("id bot {}", s.bot_name()),
    ];
    lines.extend(s.bot_ids());
    lines.push(format!("id limit {}", s.default_limit_text()));
    lines.push(format!("rules {}", s.rules_text()));
    lines.push("ok".into());
    Reply::with_lines(lines)
}

fn set_rules(s: &mut impl Commands, rest: &str) -> Result<Reply, Error> {
    if rest.is_empty() {
        return Ok(Reply::with_lines(vec![
            format!("rules {}", s.rules_text()),
            "ok".into(),
        ]));
    }
    s.set_rules(rest)?;
    let mut r = Reply::default();
    if let Some(trained) = s.other_trained_rules() {
        r.lines.push(format!(
            "info warning the network was trained under rules {trained}"
        ));
    }
    r.lines.push("ok".into());
    Ok(r)
}

fn set_position<S: Commands>(s: &mut S, rest: &str) -> Result<Reply, Error> {
    let (position, moves) = split_position(rest);
    if position.is_empty() {
        return Err(Error::Input(format!(
            "position needs `startpos` or a position like {}",
            S::POSITION_EXAMPLE
        )));
    }
    s.set_position(position, moves)?;
    Ok(Reply::one("ok"))
}

fn undo<S: Commands>(s: &mut S, rest: &str) -> Result<Reply, Error> {
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
    let played = s.played();
    if n > played {
        return Err(Error::Input(format!(
            "cannot undo {n} moves: the game has {played}"
        )));
    }
    s.undo(n)?;
    Ok(Reply::one("ok"))
}

fn eval<S: Commands>(s: &mut S) -> Result<Reply, Error> {
    let raw = s.network_eval()?.ok_or_else(|| {
        Error::Input(format!(
            "`{}` has no network to evaluate with",
            s.bot_name()
        ))
    })?;
    let mut priors: Vec<_> = raw.priors.iter().collect();
    priors.sort_by(|a, b| b.2.total_cmp(&a.2));
    let top: Vec<String> = priors
        .iter()
        .take(S::PRIORS_SHOWN)
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

/// The reply of `show`: `board` lines, the position, the side to move,
/// the moves played, the status (`over …` if the game is over) and the
/// legal moves.
pub(crate) fn show_reply(
    board: &str,
    position: &impl Display,
    turn: &impl Display,
    moves: &[impl Display],
    over: Option<String>,
    legal: String,
) -> Reply {
    let mut lines: Vec<String> = board.lines().map(|l| format!("board {l}")).collect();
    lines.push(format!("position {position}"));
    lines.push(format!("turn {turn}"));
    lines.push(format!("moves {}", join(moves)).trim_end().to_owned());
    lines.push(match over {
        Some(over) => format!("status over {over}"),
        None => "status playing".into(),
    });
    lines.push(format!("legal {legal}"));
    lines.push("ok".into());
    Reply::with_lines(lines)
}

/// Moves (or anything) in notation, separated by spaces.
pub(crate) fn join(items: &[impl Display]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The start of an `info …` line of `go`: `time_ms`, `nodes`, then
/// `value` and `wdl` (searching bots), `score_cm` and `depth`
/// (alpha-beta).
pub(crate) fn info_start(
    elapsed: Duration,
    nodes: u64,
    eval: Option<&Eval>,
    score: Option<(i32, u32)>,
) -> String {
    let mut s = format!("info time_ms {} nodes {nodes}", elapsed.as_millis());
    if let Some(e) = eval {
        s.push_str(&format!(
            " value {:.4} wdl {:.4} {:.4} {:.4}",
            e.value, e.wdl[0], e.wdl[1], e.wdl[2]
        ));
    }
    if let Some((score, depth)) = score {
        s.push_str(&format!(" score_cm {score} depth {depth}"));
    }
    s
}

/// A protocol session: rules, a game, a bot.
#[derive(Debug)]
pub struct Session {
    bot: Bot,
    rules: Rules,
    game: Game,
}

impl Session {
    /// A session with `bot`, the default rules (or the rules the bot was
    /// trained under) and the initial position.
    pub fn new(bot: Bot) -> Session {
        let rules = bot.trained_rules().unwrap_or_default();
        Session {
            bot,
            rules,
            game: Game::with_rules(rules),
        }
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    session_methods!();
}

impl Commands for Session {
    const GAME: &'static str = "draughts";
    const POSITION_EXAMPLE: &'static str = "W:Wa2,b2:Ba7,Kh8";
    const PRIORS_SHOWN: usize = 8;
    type Step = dama_engine::Step;

    fn bot_name(&self) -> &str {
        self.bot.name()
    }

    fn bot_ids(&self) -> Vec<String> {
        let network = self
            .bot
            .bundle()
            .map(|m| format!("id encoding {} step {}", m.encoding_version, m.step));
        let evaluator = self.bot.evaluator_bundle().map(|m| {
            let mut line = format!("id evaluator threads {}", m.threads);
            if let Some(g) = m.generation {
                line.push_str(&format!(" generation {g}"));
            }
            line
        });
        network.into_iter().chain(evaluator).collect()
    }

    fn default_limit(&self) -> Limit {
        self.bot.default_limit()
    }

    /// An alpha-beta bot searching to its own depth says `depth N`.
    fn default_limit_text(&self) -> String {
        match (self.bot.default_limit(), self.bot.alphabeta_limit()) {
            (Limit::Sims(_), Some(dama_eval::AlphaBetaLimit::Depth(d))) => format!("depth {d}"),
            (Limit::Sims(_), Some(dama_eval::AlphaBetaLimit::TimeMs(ms))) => format!("time {ms}"),
            (limit, _) => limit_text(limit),
        }
    }

    fn rules_text(&self) -> String {
        self.rules.to_string()
    }

    fn other_trained_rules(&self) -> Option<String> {
        self.bot
            .trained_rules()
            .filter(|t| *t != self.rules)
            .map(|t| t.to_string())
    }

    fn set_rules(&mut self, text: &str) -> Result<(), Error> {
        let rules = text.parse::<Rules>()?;
        // A network plays the game it was trained for: other rule options
        // get a warning, another variant is refused.
        if let Some(trained) = self
            .bot
            .trained_rules()
            .filter(|t| t.variant != rules.variant)
        {
            return Err(Error::Input(format!(
                "the network was trained for {}, not {}",
                trained.variant, rules.variant
            )));
        }
        // Replay the current game under the new rules.
        let moves: Vec<String> = self.game.moves().iter().map(ToString::to_string).collect();
        // A game from the initial position starts from the new variant's.
        let start = if *self.game.start_position() == Position::startpos_with_rules(self.rules) {
            Position::startpos_with_rules(rules)
        } else {
            self.game
                .start_position()
                .try_with_rules(rules)
                .map_err(|e| Error::Input(format!("the game's start under rules {rules}: {e}")))?
        };
        let mut game = Game::from_position(start);
        for m in &moves {
            let mv = game.position().parse_move(m).map_err(|e| {
                Error::Input(format!(
                    "the game's move {m} is not legal under these rules ({e}); use `position` first"
                ))
            })?;
            game.play(&mv)
                .map_err(|e| Error::Input(format!("move {m}: {e}")))?;
        }
        self.rules = rules;
        self.game = game;
        Ok(())
    }

    fn set_position(&mut self, position: &str, moves: &str) -> Result<(), Error> {
        let pos = Position::from_str_with_rules(position, self.rules)
            .map_err(|e| Error::Input(format!("bad position `{position}`: {e}")))?;
        let previous = std::mem::replace(&mut self.game, Game::from_position(pos));
        if let Err(e) = self.play_moves(moves) {
            self.game = previous;
            return Err(e);
        }
        Ok(())
    }

    fn new_game(&mut self) {
        self.game = Game::with_rules(self.rules);
    }

    fn play_moves(&mut self, moves: &str) -> Result<(), Error> {
        let mut game = self.game.clone();
        for text in moves.split_whitespace() {
            if let Some((o, t)) = game.termination() {
                return Err(Error::GameOver(format!(
                    "cannot play {text}: the game is over ({o}, {t:?})"
                )));
            }
            let mv = game.position().parse_move(text).map_err(|e| {
                Error::Input(format!(
                    "illegal move `{text}`: {e}; legal: {}",
                    join(&game.legal_moves())
                ))
            })?;
            game.play(&mv)
                .map_err(|e| Error::Input(format!("illegal move `{text}`: {e}")))?;
        }
        self.game = game;
        Ok(())
    }

    fn played(&self) -> usize {
        self.game.moves().len()
    }

    fn undo(&mut self, n: usize) -> Result<(), Error> {
        for _ in 0..n {
            self.game.undo();
        }
        Ok(())
    }

    fn think(&mut self, limit: Option<Limit>) -> Result<(String, String), Error> {
        let t = self.bot.think(&self.game, limit)?;
        Ok((info_line(&t), t.best.to_string()))
    }

    fn network_eval(&mut self) -> Result<Option<RawEval>, Error> {
        self.bot.network_eval(&self.game)
    }

    fn show(&self) -> Reply {
        let pos = self.game.position();
        show_reply(
            &crate::draw_board(pos, dama_engine::Color::White),
            pos,
            &pos.turn(),
            self.game.moves(),
            self.game.termination().map(|(o, t)| format!("{o} {t:?}")),
            self.legal_list(),
        )
    }

    fn legal_list(&self) -> String {
        join(&self.game.legal_moves())
    }
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
    use std::io::{BufRead, Read};
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = input
            .by_ref()
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(());
        }
        let reply = if line.len() > MAX_LINE && line.last() != Some(&b'\n') {
            // Skip the rest of the long line.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                let m = input
                    .by_ref()
                    .take(MAX_LINE as u64)
                    .read_until(b'\n', &mut rest)?;
                if m == 0 || rest.last() == Some(&b'\n') {
                    break;
                }
            }
            Reply::one(format!("error line longer than {MAX_LINE} bytes"))
        } else {
            handle(&line)
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

/// `info …` for a thought: `time_ms`, `nodes`, `value`, `wdl`, `score_cm`,
/// `depth`, `tablebase <win|cursed-win|draw|blessed-loss|loss> [dtz N]`,
/// then `pv` last (it runs to the end of the line).
fn info_line(t: &Thought) -> String {
    let mut s = info_start(t.elapsed, t.nodes, t.eval.as_ref(), t.score_cm);
    if let Some(p) = &t.tablebase {
        s.push_str(&format!(
            " tablebase {}",
            p.wdl.to_string().replace(' ', "-")
        ));
        if let Some(d) = p.dtz {
            s.push_str(&format!(" dtz {d}"));
        }
    }
    s.push_str(&format!(" pv {}", join(&t.pv)));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BotOptions;

    fn session() -> Session {
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
