//! `dama play`: a human against the bot in the terminal.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use dama_engine::{Color, Game, GameRecord, Outcome, Position};

use crate::bot::{rules_for, BotArgs};

/// The human's colour.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ColorArg {
    /// White moves first.
    White,
    /// Black.
    Black,
    /// Drawn at random.
    Random,
}

/// Arguments of `dama play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    bot: BotArgs,
    /// Your colour.
    #[arg(long, value_enum, default_value = "white")]
    color: ColorArg,
    /// Rules (`default` or key=value pairs, e.g.
    /// `promotion=continue_as_king,no_capture_limit=off`); default: the
    /// network's training rules.
    #[arg(long)]
    rules: Option<String>,
    /// Start from this position instead of the initial one.
    #[arg(long, default_value = "startpos")]
    position: String,
    /// Where to save the game record (default: dama-game-<time>.pdn).
    #[arg(long)]
    save: Option<PathBuf>,
    /// Do not save the game.
    #[arg(long, conflicts_with = "save")]
    no_save: bool,
}

const HELP: &str = "Type a move (d3-d4, b3xd3xd5; a capture may be shortened to from x to),\n\
  or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";

/// Runs `dama play`.
pub fn run(args: &PlayArgs) -> Result<()> {
    let mut bot = args.bot.build()?;
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
    let mut game = Game::from_position(pos);
    let human = match args.color {
        ColorArg::White => Color::White,
        ColorArg::Black => Color::Black,
        ColorArg::Random => {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            if nanos.is_multiple_of(2) {
                Color::White
            } else {
                Color::Black
            }
        }
    };
    outln!(
        "dama play: you are {human}, the bot is {} ({}); rules: {}",
        bot.name(),
        bot.default_limit(),
        rules.to_string()
    );
    outln!("{HELP}");
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut show_board = true;
    let mut resigned: Option<Color> = None;
    loop {
        if show_board {
            outln!(
                "\n{}",
                dama_bot::draw_board(game.position(), human).trim_end()
            );
            show_board = false;
        }
        if let Some((o, t)) = game.termination() {
            outln!("game over: {o} ({t:?}){}", verdict(o, human));
            break;
        }
        let turn = game.turn();
        if turn != human {
            out!("{} is thinking... ", bot.name());
            std::io::stdout().flush()?;
            let t = match bot.think(&game, None) {
                Ok(t) => t,
                Err(e) => {
                    outln!("\nthe bot failed: {e}");
                    break;
                }
            };
            let mut line = format!("plays {}", t.best);
            if let Some(p) = &t.tablebase {
                line.push_str(&format!("  ({})", dama_bot::describe_tablebase(p)));
            }
            if let Some(e) = &t.eval {
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
                let pv: Vec<String> = t.pv.iter().map(ToString::to_string).collect();
                outln!("  expects {}", pv.join(" "));
            }
            game.play(&t.best)
                .with_context(|| format!("the bot played an illegal move {}", t.best))?;
            show_board = true;
            continue;
        }
        out!("{} {turn} to move> ", game.position().fullmove_number());
        std::io::stdout().flush()?;
        let Some(line) = lines.next() else {
            outln!("\n(end of input)");
            break;
        };
        let line = line.context("reading stdin")?;
        let input = line.trim();
        match input {
            "" => {}
            "help" | "?" => outln!("{HELP}"),
            "board" => show_board = true,
            "moves" | "legal" => outln!("legal moves: {}", legal(&game)),
            "quit" | "exit" => {
                outln!("game abandoned");
                break;
            }
            "resign" => {
                outln!("you resign: {} wins", !human);
                resigned = Some(human);
                break;
            }
            "undo" => {
                // Take back the human's last move and the bot's replies.
                let mut g = game.clone();
                let mut undone = 0;
                let mut took_back = false;
                while g.undo().is_some() {
                    undone += 1;
                    if g.turn() == human {
                        took_back = true;
                        break;
                    }
                }
                if took_back {
                    game = g;
                    outln!("took back {undone} move(s)");
                    show_board = true;
                } else {
                    outln!("nothing to undo");
                }
            }
            text => match game.position().parse_move(text) {
                Ok(m) => {
                    if let Err(e) = game.play(&m) {
                        outln!("illegal move {text}: {e}");
                    } else {
                        show_board = true;
                    }
                }
                Err(e) => {
                    outln!("illegal move `{text}`: {e}");
                    outln!("legal moves: {}", legal(&game));
                }
            },
        }
    }
    save(args, &game, human, bot.name(), resigned)
}

fn verdict(o: Outcome, human: Color) -> &'static str {
    match o.score_for(human) {
        1 => ": you win",
        0 => ": a draw",
        _ => ": the bot wins",
    }
}

fn legal(game: &Game) -> String {
    game.legal_moves()
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn save(
    args: &PlayArgs,
    game: &Game,
    human: Color,
    bot: &str,
    resigned: Option<Color>,
) -> Result<()> {
    if args.no_save {
        return Ok(());
    }
    let mut record = GameRecord::from_game(game);
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
    let path = args.save.clone().unwrap_or_else(|| {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        PathBuf::from(format!("dama-game-{secs}.pdn"))
    });
    dama_nn::files::write_atomic(&path, record.to_string().as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    outln!("game saved to {}", path.display());
    Ok(())
}
