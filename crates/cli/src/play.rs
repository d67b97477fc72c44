//! `dama play`: a human against the bot in the terminal, for every game
//! (the game of the bot's network, or `--game`): one loop ([`play`])
//! written once; what differs between the games is the bot's per-game
//! adapter (the game seam: board, move help, record).

use std::fmt::Display;
use std::io::BufRead;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use dama_bot::{Bot, Thought};
use dama_game::GameDef;
use dama_mcts::{Outcome, Player};

use crate::bot::{rules_for, BotArgs};

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
    /// Where to save the game record (default: dama-<game>-<time>.pdn:
    /// dama-draughts-…, dama-tafl-…).
    #[arg(long)]
    save: Option<PathBuf>,
    /// Do not save the game.
    #[arg(long, conflicts_with = "save")]
    no_save: bool,
}

/// Runs `dama play`.
pub fn run(args: &PlayArgs) -> Result<()> {
    args.bot.game()?.with(Play(args))
}

/// `dama play` for one game: white is the first side to move (Turkish
/// Tafl: the Defenders), black the second.
struct Play<'a>(&'a PlayArgs);

impl dama_nn::WithGame for Play<'_> {
    type Output = Result<()>;

    fn run<G: GameDef>(self) -> Result<()> {
        let args = self.0;
        let bot = args.bot.build::<G>(args.rules.as_deref())?;
        let rules = rules_for(args.rules.as_deref(), &bot)?;
        if let Some(why) = bot
            .trained_rules()
            .and_then(|t| G::refuse_network_rules(&t, &rules))
        {
            anyhow::bail!("{why} (leave out --rules to play its own game)");
        }
        if let Some(trained) = bot.trained_rules().filter(|t| *t != rules) {
            outln!("note: the network was trained under rules {trained}");
        }
        let start = if args.position.trim() == "startpos" {
            G::start(&rules)
        } else {
            G::parse_position(&rules, &args.position).map_err(|source| dama_bot::Error::Game {
                context: format!("bad position `{}`", args.position),
                source,
            })?
        };
        let human = if args.color.is_white() {
            Player::First
        } else {
            Player::Second
        };
        outln!(
            "dama play ({}): you are {}, the bot is {} ({}); rules: {rules}",
            G::TITLE,
            G::side_title(human),
            bot.name(),
            bot.describe_limit(),
        );
        let table = Table::<G> {
            bot,
            game: start.clone(),
            start,
            moves: Vec::new(),
        };
        play(args, table, human)
    }
}

/// A game in progress against the bot.
struct Table<G: GameDef> {
    bot: Bot<G>,
    /// The game from which the moves were played.
    start: G::Game,
    /// The moves played.
    moves: Vec<G::Move>,
    game: G::Game,
}

impl<G: GameDef> Table<G> {
    /// How the game ended, for `human`, if it did.
    fn game_over(&self, human: Player) -> Option<String> {
        let end = G::end_text(&self.game)?;
        let verdict = match G::outcome(&self.game) {
            Some(Outcome::Win(p)) if p == human => "you win",
            Some(Outcome::Win(_)) => "the bot wins",
            _ => "a draw",
        };
        Some(format!("{end}: {verdict}"))
    }

    /// The legal moves, separated by spaces.
    fn legal(&self) -> String {
        joined(&G::legal_moves(&self.game))
    }

    fn play(&mut self, m: &G::Move) -> Result<()> {
        G::play(&mut self.game, m).map_err(|source| dama_bot::Error::Game {
            context: format!("illegal move {m}"),
            source,
        })?;
        self.moves.push(m.clone());
        Ok(())
    }

    /// Takes back `human`'s last move and the bot's replies: how many
    /// moves, `None` if there is none of `human`'s.
    fn undo(&mut self, human: Player) -> Option<usize> {
        let played = self.moves.len();
        let (k, g) = (1..=played).find_map(|k| {
            let mut g = self.start.clone();
            for m in &self.moves[..played - k] {
                G::play(&mut g, m).ok()?;
            }
            (G::to_play(&g) == human).then_some((k, g))
        })?;
        self.game = g;
        self.moves.truncate(played - k);
        Some(k)
    }
}

/// The human (`human`) against the bot until the game ends, the human
/// resigns or quits, or the input ends; then the record is saved (unless
/// `--no-save`).
fn play<G: GameDef>(args: &PlayArgs, mut table: Table<G>, human: Player) -> Result<()> {
    outln!("{}", G::MOVE_HELP);
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut show_board = true;
    let mut resigned = None;
    loop {
        if show_board {
            outln!("\n{}", G::board_text(&table.game, human).trim_end());
            show_board = false;
        }
        if let Some(over) = table.game_over(human) {
            outln!("game over: {over}");
            break;
        }
        let turn = G::to_play(&table.game);
        if turn != human {
            out!("{} is thinking... ", table.bot.name());
            let t = match table.bot.think(&table.game, None) {
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
        out!(
            "{} {} to move> ",
            G::plies(&table.game) / 2 + 1,
            G::side_title(turn)
        );
        let Some(line) = lines.next() else {
            outln!("\n(end of input)");
            break;
        };
        let line = line.context("reading stdin")?;
        match line.trim() {
            "" => {}
            "help" | "?" => outln!("{}", G::MOVE_HELP),
            "board" => show_board = true,
            "moves" | "legal" => outln!("legal moves: {}", table.legal()),
            "quit" | "exit" => {
                outln!("game abandoned");
                break;
            }
            "resign" => {
                outln!("you resign: {} wins", G::side_title(human.other()));
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
            text => match G::parse_move(&table.game, text) {
                Ok(m) => {
                    if let Err(e) = table.play(&m) {
                        outln!("illegal move {text}: {e:#}");
                    } else {
                        show_board = true;
                    }
                }
                Err(why) => {
                    outln!("illegal move `{text}`: {why}");
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
        PathBuf::from(format!("dama-{}-{secs}.pdn", G::NAME))
    });
    let bot = table.bot.name();
    let names = match human {
        Player::First => ["human", bot],
        Player::Second => [bot, "human"],
    };
    let record = G::record_text(&table.game, names, resigned);
    dama_nn::files::write_atomic(&path, record.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    outln!("game saved to {}", path.display());
    Ok(())
}

/// Prints the bot's move (with the tables' verdict), its evaluation, cost
/// and expected line.
fn print_bot_move<G: GameDef>(t: &Thought<G>) -> Result<()> {
    let mut line = format!("plays {}", t.best);
    if let Some(p) = &t.tablebase {
        line.push_str(&format!("  ({})", dama_bot::describe_tablebase(p)));
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
    if let Some((s, d)) = t.score_cm {
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
