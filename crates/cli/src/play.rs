//! `dama play`: a human against the bot in the terminal, Turkish draughts
//! or Turkish Tafl (a Tafl network, or `--game tafl`). One loop plays
//! both ([`play`]); what differs between the games is a [`Table`].

use std::fmt::Display;
use std::io::BufRead;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use dama_bot::tafl::TaflBot;
use dama_bot::{Bot, Eval};
use dama_engine::{Color, Game, GameRecord, Outcome, Position};
use dama_tafl::Side;

use crate::bot::{rules_for, tafl_position, tafl_rules_for, BotArgs};

/// The human's colour (Turkish Tafl: white is the Defenders, black the
/// King side).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ColorArg {
    /// White moves first (Turkish Tafl: the Defenders).
    White,
    /// Black (Turkish Tafl: the King side).
    Black,
    /// Drawn at random.
    Random,
}

impl ColorArg {
    /// Whether the human plays white (Turkish Tafl: the Defenders).
    fn is_white(self) -> bool {
        match self {
            ColorArg::White => true,
            ColorArg::Black => false,
            ColorArg::Random => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos())
                .is_multiple_of(2),
        }
    }
}

/// Arguments of `dama play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    bot: BotArgs,
    /// Your colour. Turkish Tafl: white plays the Defenders (White in the
    /// rules), black the King side (Black).
    #[arg(long, value_enum, default_value = "white")]
    color: ColorArg,
    /// Rules (`default` or key=value pairs, e.g.
    /// `promotion=continue_as_king,no_capture_limit=off`; Turkish Tafl's,
    /// e.g. `first=king_side,ply_limit=300`); default: the network's
    /// training rules.
    #[arg(long)]
    rules: Option<String>,
    /// Start from this position instead of the initial one (Turkish Tafl:
    /// e.g. `W:Wb5,c5,Kd1:Ba1,Kb3`).
    #[arg(long, default_value = "startpos")]
    position: String,
    /// Where to save the game record (default: dama-game-<time>.pdn, or
    /// dama-tafl-<time>.pdn for Turkish Tafl).
    #[arg(long)]
    save: Option<PathBuf>,
    /// Do not save the game.
    #[arg(long, conflicts_with = "save")]
    no_save: bool,
}

/// Runs `dama play`.
pub fn run(args: &PlayArgs) -> Result<()> {
    if args.bot.game()? == dama_nn::GameName::Tafl {
        return run_tafl(args);
    }
    let bot = args.bot.build()?;
    let rules = rules_for(args.rules.as_deref(), &bot)?;
    if let Some(trained) = bot.trained_rules().filter(|t| t.variant != rules.variant) {
        anyhow::bail!(
            "the network was trained for {}, not {} (leave out --rules to play its own game)",
            trained.variant,
            rules.variant
        );
    }
    if let Some(trained) = bot.trained_rules().filter(|t| *t != rules) {
        outln!(
            "note: the network was trained under rules {}",
            trained.to_string()
        );
    }
    // `startpos` is the variant's own initial position.
    let pos = Position::from_str_with_rules(&args.position, rules)
        .with_context(|| format!("bad position `{}`", args.position))?;
    let human = if args.color.is_white() {
        Color::White
    } else {
        Color::Black
    };
    outln!(
        "dama play: you are {human}, the bot is {} ({}); rules: {}",
        bot.name(),
        bot.describe_limit(),
        rules.to_string()
    );
    let game = Game::from_position(pos);
    play(args, Draughts { bot, game }, human)
}

/// `dama play` for Turkish Tafl: white is the Defenders, black the King
/// side.
fn run_tafl(args: &PlayArgs) -> Result<()> {
    let bot = args.bot.build_tafl()?;
    let rules = tafl_rules_for(args.rules.as_deref(), &bot)?;
    if let Some(trained) = bot.trained_rules().filter(|t| *t != rules) {
        outln!("note: the network was trained under rules {trained}");
    }
    let pos = tafl_position(&args.position, &rules)
        .with_context(|| format!("bad position `{}`", args.position))?;
    let human = if args.color.is_white() {
        Side::Defender
    } else {
        Side::KingSide
    };
    outln!(
        "dama play (Turkish Tafl): you are {}, the bot is {} ({}); rules: {rules}",
        Tafl::side_title(human),
        bot.name(),
        bot.default_limit(),
    );
    let game = dama_tafl::Game::from_position(pos, rules);
    play(args, Tafl { bot, game }, human)
}

/// What the bot played and thought, as [`play`] prints it.
struct BotMove<M> {
    best: M,
    /// Said after the move (the endgame tables' verdict).
    note: Option<String>,
    eval: Option<Eval>,
    /// Alpha-beta's score in hundredths and its depth.
    score: Option<(i32, u32)>,
    elapsed: Duration,
    nodes: u64,
    pv: Vec<M>,
}

/// A game and its bot, as the terminal loop [`play`] plays them.
trait Table {
    /// A side.
    type Side: Copy + PartialEq;
    /// A whole move.
    type Move: Display;
    /// What to type.
    const HELP: &'static str;
    /// The start of the record's default file name.
    const RECORD: &'static str;

    /// A side in sentences.
    fn side_title(side: Self::Side) -> String;
    /// The other side.
    fn other(side: Self::Side) -> Self::Side;
    /// The board, `human`'s side at the bottom where the game turns it.
    fn board(&self, human: Self::Side) -> String;
    /// How the game ended, for `human`, if it did.
    fn game_over(&self, human: Self::Side) -> Option<String>;
    /// The side to move.
    fn turn(&self) -> Self::Side;
    /// The prompt for the human's move.
    fn prompt(&self) -> String;
    /// The bot's name.
    fn bot_name(&self) -> &str;
    /// The bot's move and thoughts.
    fn think(&mut self) -> Result<BotMove<Self::Move>, dama_bot::Error>;
    /// The legal moves, separated by spaces.
    fn legal(&self) -> String;
    /// The human's move in `text`, or the line that says why it is none.
    fn parse(&self, text: &str) -> Result<Self::Move, String>;
    /// Plays a move.
    fn play(&mut self, m: &Self::Move) -> Result<()>;
    /// Takes back `human`'s last move and the bot's replies: how many
    /// moves, `None` if there is none of `human`'s.
    fn undo(&mut self, human: Self::Side) -> Option<usize>;
    /// The game record.
    fn record(&self, human: Self::Side, resigned: Option<Self::Side>) -> String;
}

/// The human (`human`) against the bot on `table` until the game ends,
/// the human resigns or quits, or the input ends; then the record is
/// saved (unless `--no-save`).
fn play<T: Table>(args: &PlayArgs, mut table: T, human: T::Side) -> Result<()> {
    outln!("{}", T::HELP);
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut show_board = true;
    let mut resigned = None;
    loop {
        if show_board {
            outln!("\n{}", table.board(human).trim_end());
            show_board = false;
        }
        if let Some(over) = table.game_over(human) {
            outln!("game over: {over}");
            break;
        }
        if table.turn() != human {
            out!("{} is thinking... ", table.bot_name());
            let t = match table.think() {
                Ok(t) => t,
                Err(e) => {
                    outln!("\nthe bot failed: {e}");
                    break;
                }
            };
            print_bot_move(&t)?;
            table
                .play(&t.best)
                .with_context(|| format!("the bot played an illegal move {}", t.best))?;
            show_board = true;
            continue;
        }
        out!("{}", table.prompt());
        let Some(line) = lines.next() else {
            outln!("\n(end of input)");
            break;
        };
        let line = line.context("reading stdin")?;
        match line.trim() {
            "" => {}
            "help" | "?" => outln!("{}", T::HELP),
            "board" => show_board = true,
            "moves" | "legal" => outln!("legal moves: {}", table.legal()),
            "quit" | "exit" => {
                outln!("game abandoned");
                break;
            }
            "resign" => {
                outln!("you resign: {} wins", T::side_title(T::other(human)));
                resigned = Some(human);
                break;
            }
            "undo" => match table.undo(human) {
                Some(n) => {
                    outln!("took back {n} move(s)");
                    show_board = true;
                }
                None => outln!("nothing to undo"),
            },
            text => match table.parse(text) {
                Ok(m) => {
                    if let Err(e) = table.play(&m) {
                        outln!("illegal move {text}: {e}");
                    } else {
                        show_board = true;
                    }
                }
                Err(why) => {
                    outln!("{why}");
                    outln!("legal moves: {}", table.legal());
                }
            },
        }
    }
    if args.no_save {
        return Ok(());
    }
    let path = args.save.clone().unwrap_or_else(|| {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        PathBuf::from(format!("{}-{secs}.pdn", T::RECORD))
    });
    dama_nn::files::write_atomic(&path, table.record(human, resigned).as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    outln!("game saved to {}", path.display());
    Ok(())
}

/// Prints the bot's move, its evaluation, cost and expected line.
fn print_bot_move<M: Display>(t: &BotMove<M>) -> Result<()> {
    let mut line = format!("plays {}", t.best);
    if let Some(n) = &t.note {
        line.push_str(n);
    }
    if let Some(e) = t.eval {
        line.push_str(&format!(
            "  eval {:+.2} for the bot (W {:.0}% D {:.0}% L {:.0}%)",
            e.value,
            e.wdl[0] * 100.0,
            e.wdl[1] * 100.0,
            e.wdl[2] * 100.0
        ));
    }
    if let Some((s, d)) = t.score {
        line.push_str(&format!("  score {:+.2} (depth {d})", f64::from(s) / 100.0));
    }
    line.push_str(&format!("  {:.2} s", t.elapsed.as_secs_f64()));
    if t.nodes > 0 {
        line.push_str(&format!(", {} nodes", t.nodes));
    }
    outln!("{line}");
    if t.pv.len() > 1 {
        outln!("  expects {}", joined(&t.pv));
    }
    Ok(())
}

/// Moves as text, separated by spaces.
fn joined(moves: &[impl Display]) -> String {
    moves
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Turkish draughts.
struct Draughts {
    bot: Bot,
    game: Game,
}

impl Table for Draughts {
    type Side = Color;
    type Move = dama_engine::Move;
    const HELP: &'static str =
        "Type a move (d3-d4, b3xd3xd5; a capture may be shortened to from x to),\n\
        or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";
    const RECORD: &'static str = "dama-game";

    fn side_title(side: Color) -> String {
        side.to_string()
    }

    fn other(side: Color) -> Color {
        !side
    }

    fn board(&self, human: Color) -> String {
        dama_bot::draw_board(self.game.position(), human)
    }

    fn game_over(&self, human: Color) -> Option<String> {
        let (o, t) = self.game.termination()?;
        let verdict = match o.score_for(human) {
            1 => "you win",
            0 => "a draw",
            _ => "the bot wins",
        };
        Some(format!("{o} ({t:?}): {verdict}"))
    }

    fn turn(&self) -> Color {
        self.game.turn()
    }

    fn prompt(&self) -> String {
        format!(
            "{} {} to move> ",
            self.game.position().fullmove_number(),
            self.game.turn()
        )
    }

    fn bot_name(&self) -> &str {
        self.bot.name()
    }

    fn think(&mut self) -> Result<BotMove<dama_engine::Move>, dama_bot::Error> {
        let t = self.bot.think(&self.game, None)?;
        Ok(BotMove {
            note: t
                .tablebase
                .as_ref()
                .map(|p| format!("  ({})", dama_bot::describe_tablebase(p))),
            best: t.best,
            eval: t.eval,
            score: t.score_cm,
            elapsed: t.elapsed,
            nodes: t.nodes,
            pv: t.pv,
        })
    }

    fn legal(&self) -> String {
        joined(&self.game.legal_moves())
    }

    fn parse(&self, text: &str) -> Result<dama_engine::Move, String> {
        self.game
            .position()
            .parse_move(text)
            .map_err(|e| format!("illegal move `{text}`: {e}"))
    }

    fn play(&mut self, m: &dama_engine::Move) -> Result<()> {
        self.game.play(m)?;
        Ok(())
    }

    fn undo(&mut self, human: Color) -> Option<usize> {
        let mut g = self.game.clone();
        let mut undone = 0;
        while g.undo().is_some() {
            undone += 1;
            if g.turn() == human {
                self.game = g;
                return Some(undone);
            }
        }
        None
    }

    fn record(&self, human: Color, resigned: Option<Color>) -> String {
        let game = &self.game;
        let mut record = GameRecord::from_game(game);
        let bot = self.bot.name();
        let (white, black) = match human {
            Color::White => ("human", bot),
            Color::Black => (bot, "human"),
        };
        record.tags = vec![
            ("Event".into(), "dama play".into()),
            ("White".into(), white.into()),
            ("Black".into(), black.into()),
            ("Rules".into(), game.rules().to_string()),
        ];
        if let Some(loser) = resigned {
            record.result = Some(Outcome::Decisive { winner: !loser });
            record
                .tags
                .push(("Termination".into(), format!("{loser} resigns")));
        } else if let Some((_, t)) = game.termination() {
            record.tags.push(("Termination".into(), format!("{t:?}")));
        }
        record.to_string()
    }
}

/// Turkish Tafl: white is the Defenders, black the King side.
struct Tafl {
    bot: TaflBot,
    game: dama_tafl::Game,
}

impl Tafl {
    /// The game of the first `n` moves, replayed from the start.
    fn replay(&self, n: usize) -> Option<dama_tafl::Game> {
        let game = &self.game;
        let mut g = dama_tafl::Game::from_position(*game.start_position(), *game.rules());
        for m in game.moves().get(..n)? {
            g.play(m).ok()?;
        }
        Some(g)
    }
}

impl Table for Tafl {
    type Side = Side;
    type Move = dama_tafl::Move;
    const HELP: &'static str = "Type a move: b5-b4 (a slide), a1-a3-c3 (friendly jumps), \
        c4xc2 or c4xc2xa2 (a capture; a chain may be shortened to its start and end), \
        c8-off (the King's exit),\n\
        or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";
    const RECORD: &'static str = "dama-tafl";

    fn side_title(side: Side) -> String {
        match side {
            Side::Defender => "the Defenders",
            Side::KingSide => "the King side",
        }
        .to_owned()
    }

    fn other(side: Side) -> Side {
        side.other()
    }

    fn board(&self, _: Side) -> String {
        dama_bot::tafl::draw_board(self.game.position())
    }

    fn game_over(&self, human: Side) -> Option<String> {
        let o = self.game.outcome()?;
        let verdict = match o.winner {
            Some(w) if w == human => "you win",
            Some(_) => "the bot wins",
            None => "a draw",
        };
        Some(format!(
            "{}: {verdict}",
            dama_bot::tafl::describe_outcome(&o)
        ))
    }

    fn turn(&self) -> Side {
        self.game.turn()
    }

    fn prompt(&self) -> String {
        format!(
            "{} {} to move> ",
            self.game.plies() + 1,
            Tafl::side_title(self.game.turn())
        )
    }

    fn bot_name(&self) -> &str {
        self.bot.name()
    }

    fn think(&mut self) -> Result<BotMove<dama_tafl::Move>, dama_bot::Error> {
        let t = self.bot.think(&self.game, None)?;
        Ok(BotMove {
            note: None,
            best: t.best,
            eval: t.eval,
            score: t.score,
            elapsed: t.elapsed,
            nodes: t.nodes,
            pv: t.pv,
        })
    }

    fn legal(&self) -> String {
        joined(&self.game.legal_moves())
    }

    fn parse(&self, text: &str) -> Result<dama_tafl::Move, String> {
        self.game.parse_move(text).map_err(|e| e.to_string())
    }

    fn play(&mut self, m: &dama_tafl::Move) -> Result<()> {
        self.game.play(m)?;
        Ok(())
    }

    fn undo(&mut self, human: Side) -> Option<usize> {
        let played = self.game.plies();
        let (k, g) = (1..=played).find_map(|k| {
            let g = self.replay(played - k)?;
            (g.turn() == human).then_some((k, g))
        })?;
        self.game = g;
        Some(k)
    }

    /// A PDN-like text record: tags for the game, players (Defenders, King
    /// side), rules, start position (FEN), result (1-0: the Defenders win,
    /// as in self-play records) and termination, then the numbered moves.
    fn record(&self, human: Side, resigned: Option<Side>) -> String {
        let game = &self.game;
        let bot = self.bot.name();
        let tag = |v: &str| v.replace(['"', '\\'], "'");
        let (defenders, king_side) = match human {
            Side::Defender => ("human", bot),
            Side::KingSide => (bot, "human"),
        };
        let (winner, termination) = match (resigned, game.outcome()) {
            (Some(loser), _) => (
                Some(Some(loser.other())),
                format!("{} resigns", dama_bot::tafl::side_name(loser)),
            ),
            (None, Some(o)) => (Some(o.winner), format!("{:?}", o.termination)),
            (None, None) => (None, "unfinished".to_owned()),
        };
        let result = match winner {
            Some(Some(Side::Defender)) => "1-0",
            Some(Some(Side::KingSide)) => "0-1",
            Some(None) => "1/2-1/2",
            None => "*",
        };
        let mut text = String::new();
        for (k, v) in [
            ("Event", "dama play".to_owned()),
            ("GameType", "Turkish Tafl".to_owned()),
            ("Defenders", tag(defenders)),
            ("KingSide", tag(king_side)),
            ("Rules", game.rules().to_string()),
            ("FEN", game.start_position().to_string()),
            ("Result", result.to_owned()),
            ("Termination", termination),
        ] {
            text.push_str(&format!("[{k} \"{v}\"]\n"));
        }
        text.push('\n');
        let moves: Vec<String> = game.moves().iter().map(ToString::to_string).collect();
        for (i, pair) in moves.chunks(2).enumerate() {
            text.push_str(&format!("{}. {} ", i + 1, pair.join(" ")));
        }
        text.push_str(result);
        text.push('\n');
        text
    }
}
