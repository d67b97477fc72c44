//! `dama play`: a human against the bot in the terminal, Turkish draughts
//! or Turkish Tafl (a Tafl network, or `--game tafl`).

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use dama_engine::{Color, Game, GameRecord, Outcome, Position};

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

const HELP: &str = "Type a move (d3-d4, b3xd3xd5; a capture may be shortened to from x to),\n\
  or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";

/// Runs `dama play`.
pub fn run(args: &PlayArgs) -> Result<()> {
    if args.bot.game()? == dama_nn::GameName::Tafl {
        return run_tafl(args);
    }
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
            let note = t
                .tablebase
                .as_ref()
                .map(|p| format!("  ({})", dama_bot::describe_tablebase(p)));
            print_thought(&BotMove {
                best: &t.best,
                note,
                eval: t.eval.as_ref(),
                score: t.score_cm,
                elapsed: t.elapsed,
                nodes: t.nodes,
                pv: &t.pv,
            })?;
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
    joined(game.legal_moves().iter())
}

/// Moves as text, space-separated.
fn joined<T: std::fmt::Display>(moves: impl Iterator<Item = T>) -> String {
    moves.map(|m| m.to_string()).collect::<Vec<_>>().join(" ")
}

/// What the bot played and thought, for [`print_thought`].
struct BotMove<'a, M> {
    best: &'a M,
    /// Said after the move (the endgame tables' verdict).
    note: Option<String>,
    eval: Option<&'a dama_bot::Eval>,
    /// Alpha-beta's score in hundredths and its depth.
    score: Option<(i32, u32)>,
    elapsed: std::time::Duration,
    nodes: u64,
    pv: &'a [M],
}

/// Prints the bot's move, its evaluation, cost and expected line (both
/// games).
fn print_thought<M: std::fmt::Display>(t: &BotMove<'_, M>) -> Result<()> {
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
        outln!("  expects {}", joined(t.pv.iter()));
    }
    Ok(())
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

const TAFL_HELP: &str = "Type a move: b5-b4 (a slide), a1-a3-c3 (friendly jumps), c4xc2 or \
  c4xc2xa2 (a capture; a chain may be shortened to its start and end), c8-off (the King's exit),\n\
  or: moves (legal moves), board, undo (take back your last move), resign, quit, help.";

/// The side in sentences.
fn side_title(side: dama_tafl::Side) -> &'static str {
    match side {
        dama_tafl::Side::Defender => "the Defenders",
        dama_tafl::Side::KingSide => "the King side",
    }
}

/// `dama play` for Turkish Tafl: white is the Defenders, black the King
/// side.
fn run_tafl(args: &PlayArgs) -> Result<()> {
    use dama_tafl::{Game, Side};
    let mut bot = args.bot.build_tafl()?;
    let rules = tafl_rules_for(args.rules.as_deref(), &bot)?;
    if let Some(trained) = bot.trained_rules().filter(|t| *t != rules) {
        outln!("note: the network was trained under rules {trained}");
    }
    let pos = tafl_position(&args.position, &rules)
        .with_context(|| format!("bad position `{}`", args.position))?;
    let mut game = Game::from_position(pos, rules);
    let human = match args.color {
        ColorArg::White => Side::Defender,
        ColorArg::Black => Side::KingSide,
        ColorArg::Random => {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            if nanos.is_multiple_of(2) {
                Side::Defender
            } else {
                Side::KingSide
            }
        }
    };
    outln!(
        "dama play (Turkish Tafl): you are {}, the bot is {} ({}); rules: {rules}",
        side_title(human),
        bot.name(),
        bot.default_limit(),
    );
    outln!("{TAFL_HELP}");
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut show_board = true;
    let mut resigned: Option<Side> = None;
    loop {
        if show_board {
            outln!(
                "\n{}",
                dama_bot::tafl::draw_board(game.position()).trim_end()
            );
            show_board = false;
        }
        if let Some(o) = game.outcome() {
            let verdict = match o.winner {
                Some(w) if w == human => "you win",
                Some(_) => "the bot wins",
                None => "a draw",
            };
            outln!(
                "game over: {}: {verdict}",
                dama_bot::tafl::describe_outcome(&o)
            );
            break;
        }
        let turn = game.turn();
        if turn != human {
            out!("{} is thinking... ", bot.name());
            let t = match bot.think(&game, None) {
                Ok(t) => t,
                Err(e) => {
                    outln!("\nthe bot failed: {e}");
                    break;
                }
            };
            print_thought(&BotMove {
                best: &t.best,
                note: None,
                eval: t.eval.as_ref(),
                score: t.score,
                elapsed: t.elapsed,
                nodes: t.nodes,
                pv: &t.pv,
            })?;
            game.play(&t.best)
                .with_context(|| format!("the bot played an illegal move {}", t.best))?;
            show_board = true;
            continue;
        }
        out!("{} {} to move> ", game.plies() + 1, side_title(turn));
        let Some(line) = lines.next() else {
            outln!("\n(end of input)");
            break;
        };
        let line = line.context("reading stdin")?;
        let input = line.trim();
        match input {
            "" => {}
            "help" | "?" => outln!("{TAFL_HELP}"),
            "board" => show_board = true,
            "moves" | "legal" => outln!("legal moves: {}", tafl_legal(&game)),
            "quit" | "exit" => {
                outln!("game abandoned");
                break;
            }
            "resign" => {
                outln!("you resign: {} wins", side_title(human.other()));
                resigned = Some(human);
                break;
            }
            "undo" => {
                // Take back the human's last move and the bot's replies.
                let played = game.plies();
                let back = (1..=played).find_map(|k| {
                    let g = tafl_replay(&game, played - k)?;
                    (g.turn() == human).then_some((k, g))
                });
                match back {
                    Some((k, g)) => {
                        game = g;
                        outln!("took back {k} move(s)");
                        show_board = true;
                    }
                    None => outln!("nothing to undo"),
                }
            }
            text => match game.parse_move(text) {
                Ok(m) => {
                    if let Err(e) = game.play(&m) {
                        outln!("illegal move {text}: {e}");
                    } else {
                        show_board = true;
                    }
                }
                Err(e) => {
                    outln!("{e}");
                    outln!("legal moves: {}", tafl_legal(&game));
                }
            },
        }
    }
    save_tafl(args, &game, human, bot.name(), resigned)
}

/// The game of `game`'s first `n` moves, replayed from its start.
fn tafl_replay(game: &dama_tafl::Game, n: usize) -> Option<dama_tafl::Game> {
    let mut g = dama_tafl::Game::from_position(*game.start_position(), *game.rules());
    for m in game.moves().get(..n)? {
        g.play(m).ok()?;
    }
    Some(g)
}

fn tafl_legal(game: &dama_tafl::Game) -> String {
    joined(game.legal_moves().iter())
}

/// Saves the game as a PDN-like text record: tags for the game, players
/// (Defenders, King side), rules, start position (FEN), result (1-0: the
/// Defenders win, as in self-play records) and termination, then the
/// numbered moves.
fn save_tafl(
    args: &PlayArgs,
    game: &dama_tafl::Game,
    human: dama_tafl::Side,
    bot: &str,
    resigned: Option<dama_tafl::Side>,
) -> Result<()> {
    use dama_tafl::Side;
    if args.no_save {
        return Ok(());
    }
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
    let path = args.save.clone().unwrap_or_else(|| {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        PathBuf::from(format!("dama-tafl-{secs}.pdn"))
    });
    dama_nn::files::write_atomic(&path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    outln!("game saved to {}", path.display());
    Ok(())
}
