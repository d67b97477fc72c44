//! `engine:PATH`: another program as a player, speaking dama's line
//! protocol (`docs/protocol.md`) over its standard input and output, as
//! `cutechess-cli` runs UCI engines: a frozen release binary of an earlier
//! commit (`dama bot --bot …` behind a small wrapper script), or an engine
//! nobody here wrote.
//!
//! Each player built is one process, started when the player is built and
//! told `quit` when it is dropped. Before each move the player sends the
//! game's rules (when they change), the start position and every move
//! played (`position START moves M1 M2 …`), then `go` (`go time MS` with a
//! time per move) and reads lines up to `bestmove MOVE`; the move is
//! checked against the rules here, so an engine that answers an illegal
//! move, an `error` line, garbage or nothing within its time loses the
//! match with an error that names it, rather than hanging or panicking the
//! arena.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use dama_game::{Choice, GameDef, GameError};
use rand::RngCore;

use crate::player::{Player, PlayerFactory};
use crate::Error;

/// The longest line read from an engine; a longer one is an error.
const MAX_LINE: usize = 64 * 1024;

/// How long an engine may take beyond its time per move (or, without one,
/// in all) to answer before the player gives up on it.
const SLACK: Duration = Duration::from_secs(30);

/// How long a failed write or read waits for the engine's exit status.
const EXIT_WAIT: Duration = Duration::from_millis(100);

/// How long a dropped player waits for its engine to obey `quit`.
const QUIT_WAIT: Duration = Duration::from_millis(200);

/// How long an engine may take to start and answer `hello`.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The players of one `engine:PATH` spec.
pub(crate) struct EngineFactory {
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    pub(crate) time: Option<Duration>,
}

impl<G: GameDef> PlayerFactory<G> for EngineFactory {
    fn name(&self) -> &str {
        &self.name
    }

    fn build(&self) -> Result<Box<dyn Player<G>>, Error> {
        let engine = EngineProcess::start(&self.path).map_err(|message| Error::Player {
            player: self.name.clone(),
            message,
        })?;
        Ok(Box::new(EnginePlayer::<G> {
            name: self.name.clone(),
            time: self.time,
            engine,
            rules_sent: None,
            _game: std::marker::PhantomData,
        }))
    }
}

/// A running engine: its input, the lines of its output (read on a thread
/// of their own, so that a silent engine can be timed out) and the process.
struct EngineProcess {
    path: PathBuf,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Result<String, String>>,
}

impl EngineProcess {
    /// Starts the engine at `path` and checks that it answers `hello`.
    fn start(path: &Path) -> Result<EngineProcess, String> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the engine {}: {e}", path.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(format!("the engine {} has no pipes", path.display()));
        };
        let (tx, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name("engine-reader".into())
            .spawn(move || read_lines(stdout, &tx))
            .map_err(|e| format!("cannot start a reader thread: {e}"))?;
        let mut engine = EngineProcess {
            path: path.to_path_buf(),
            child,
            stdin,
            lines,
        };
        engine.send("hello")?;
        engine.answer(START_TIMEOUT)?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| match self.exit_status(EXIT_WAIT) {
                Some(status) => format!("the engine {} exited ({status})", self.path.display()),
                None => format!("the engine {} stopped reading: {e}", self.path.display()),
            })
    }

    /// How the process ended, if it has, waiting up to `wait` for it.
    fn exit_status(&mut self, wait: Duration) -> Option<std::process::ExitStatus> {
        let step = wait / 20;
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(step);
        }
        None
    }

    /// The lines of one answer, up to and with its last line (`ok`,
    /// `bestmove …`, `readyok`, `bye`); an `error` line is an error.
    fn answer(&mut self, timeout: Duration) -> Result<Vec<String>, String> {
        let deadline = std::time::Instant::now() + timeout;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(Ok(line)) => line,
                Ok(Err(e)) => return Err(format!("the engine {}: {e}", self.path.display())),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "the engine {} did not answer within {} s",
                        self.path.display(),
                        timeout.as_secs()
                    ))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.exit_status(EXIT_WAIT).map_or_else(
                        || "closed its output".to_owned(),
                        |s| format!("exited ({s})"),
                    );
                    return Err(format!("the engine {} {status}", self.path.display()));
                }
            };
            let first = line.split_whitespace().next().unwrap_or("");
            match first {
                "error" => {
                    return Err(format!(
                        "the engine {} answered: {}",
                        self.path.display(),
                        line.escape_debug()
                    ))
                }
                "ok" | "bestmove" | "readyok" | "bye" => {
                    out.push(line);
                    return Ok(out);
                }
                _ => out.push(line),
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.send("quit");
        // Give it a moment to exit on its own, then make sure.
        if self.exit_status(QUIT_WAIT).is_some() {
            return;
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends each line of `from` (or the error that ended the reading) to
/// `tx` until the end of the output or a line longer than [`MAX_LINE`].
fn read_lines(from: impl std::io::Read, tx: &mpsc::Sender<Result<String, String>>) {
    let mut reader = BufReader::new(from);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match std::io::Read::take(&mut reader, MAX_LINE as u64 + 1).read_until(b'\n', &mut buf) {
            Ok(0) => return,
            Ok(_) if buf.len() > MAX_LINE => {
                let _ = tx.send(Err(format!("a line longer than {MAX_LINE} bytes")));
                return;
            }
            Ok(_) => {
                let line = match String::from_utf8(std::mem::take(&mut buf)) {
                    Ok(s) => Ok(s.trim_end().to_owned()),
                    Err(_) => Err("a line that is not UTF-8".to_owned()),
                };
                let bad = line.is_err();
                if tx.send(line).is_err() || bad {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(Err(format!("reading its output: {e}")));
                return;
            }
        }
    }
}

/// One engine process playing game `G`.
struct EnginePlayer<G: GameDef> {
    name: String,
    time: Option<Duration>,
    engine: EngineProcess,
    /// The rules last sent (`rules …`), as their text.
    rules_sent: Option<String>,
    _game: std::marker::PhantomData<fn() -> G>,
}

impl<G: GameDef> EnginePlayer<G> {
    fn ask(&mut self, game: &G::Game, time: Option<Duration>) -> Result<Choice<G::Move>, String> {
        let rules = G::rules(game).to_string();
        if self.rules_sent.as_deref() != Some(rules.as_str()) {
            self.engine.send(&format!("rules {rules}"))?;
            self.engine.answer(START_TIMEOUT)?;
            self.rules_sent = Some(rules);
        }
        let mut position = format!("position {}", G::start_text(game));
        let history = G::history(game);
        if !history.is_empty() {
            position.push_str(" moves");
            for m in history {
                position.push(' ');
                position.push_str(&m.to_string());
            }
        }
        self.engine.send(&position)?;
        self.engine.answer(START_TIMEOUT)?;
        let time = time.or(self.time);
        match time {
            Some(t) => self
                .engine
                .send(&format!("go time {}", t.as_millis().max(1)))?,
            None => self.engine.send("go")?,
        }
        let lines = self
            .engine
            .answer(time.map_or(Duration::from_secs(3600), |t| t + SLACK))?;
        let last = lines.last().map(String::as_str).unwrap_or("");
        let Some(text) = last.strip_prefix("bestmove ").map(str::trim) else {
            return Err(format!(
                "the engine {} answered `{}` to go, not a bestmove",
                self.engine.path.display(),
                last.escape_debug()
            ));
        };
        let best = G::parse_move(game, text).map_err(|e| {
            format!(
                "the engine {} played `{}`, not a legal move here ({e}); position {}",
                self.engine.path.display(),
                text.escape_debug(),
                G::position_text(game)
            )
        })?;
        let mut choice = Choice::of(best);
        if let Some(info) = lines.iter().rev().find(|l| l.starts_with("info ")) {
            read_info::<G>(info, game, &mut choice);
        }
        Ok(choice)
    }
}

/// The nodes, score, depth and principal variation of an `info` line, where
/// they read (an engine's info is its own business: what does not read is
/// left out).
fn read_info<G: GameDef>(info: &str, game: &G::Game, choice: &mut Choice<G::Move>) {
    let words: Vec<&str> = info.split_whitespace().collect();
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
    };
    if let Some(n) = after("nodes").and_then(|v| v.parse().ok()) {
        choice.nodes = n;
    }
    if let (Some(s), Some(d)) = (
        after("score_cm").and_then(|v| v.parse().ok()),
        after("depth").and_then(|v| v.parse().ok()),
    ) {
        choice.score = Some((s, d));
    }
    if let Some(i) = words.iter().position(|w| *w == "pv") {
        let mut g = game.clone();
        let mut pv = Vec::new();
        for text in &words[i + 1..] {
            let Ok(m) = G::parse_move(&g, text) else {
                break;
            };
            if G::play(&mut g, &m).is_err() {
                break;
            }
            pv.push(m);
        }
        if pv.first() == Some(&choice.best) {
            choice.pv = pv;
        }
    }
}

impl<G: GameDef> Player<G> for EnginePlayer<G> {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &G::Game, rng: &mut dyn RngCore) -> Result<G::Move, GameError> {
        Ok(self.think(game, None, rng)?.best)
    }

    fn think(
        &mut self,
        game: &G::Game,
        time: Option<Duration>,
        _: &mut dyn RngCore,
    ) -> Result<Choice<G::Move>, GameError> {
        if G::legal_moves(game).is_empty() {
            return Err(dama_game::player::NoMove.into());
        }
        self.ask(game, time).map_err(GameError::from)
    }
}
