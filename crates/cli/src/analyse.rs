//! `dama analyse`: the bot's evaluation of a position and its top moves
//! with their visit shares, Turkish draughts or Turkish Tafl (a Tafl
//! network, or `--game tafl`).

use std::fmt::Display;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use dama_bot::{RawEval, TopMove};
use dama_engine::{Color, Game, Position};
use serde_json::{json, Value};

use crate::bot::{rules_for, tafl_position, tafl_rules_for, BotArgs};

/// Arguments of `dama analyse`.
#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// The position: `startpos` or `W:Wa2,b2,Kd4:Ba7,Kh8` (Turkish Tafl:
    /// `W:Wb5,c5,Kd1:Ba1,Kb3`, side to move then the Defenders' and the
    /// King side's squares).
    #[arg(long, default_value = "startpos")]
    position: String,
    /// Moves to play from the position first, separated by spaces.
    #[arg(long)]
    moves: Option<String>,
    /// Rules (`default` or key=value pairs); default: the network's.
    #[arg(long)]
    rules: Option<String>,
    /// Top moves to show.
    #[arg(long, default_value_t = 8)]
    top: usize,
    /// Print JSON (with the network's raw output: WDL and the prior and
    /// policy index of every legal step).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    bot: BotArgs,
}

fn pct(x: f32) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// Runs `dama analyse`.
pub fn run(args: &AnalyseArgs) -> Result<()> {
    if args.bot.game()? == dama_nn::GameName::Tafl {
        return run_tafl(args);
    }
    let mut bot = args.bot.build()?;
    let rules = rules_for(args.rules.as_deref(), &bot)?;
    let pos = Position::from_str_with_rules(&args.position, rules)
        .with_context(|| format!("bad position `{}`", args.position))?;
    let mut game = Game::from_position(pos);
    for m in args.moves.as_deref().unwrap_or("").split_whitespace() {
        let mv = game.position().parse_move(m).with_context(|| {
            let legal: Vec<String> = game.legal_moves().iter().map(ToString::to_string).collect();
            format!("move `{m}` (legal: {})", legal.join(" "))
        })?;
        game.play(&mv).with_context(|| format!("move `{m}`"))?;
    }
    if let Some((o, t)) = game.termination() {
        bail!("the game is over in this position: {o} ({t:?})");
    }
    let raw = bot.network_eval(&game)?;
    let thought = bot.think(&game, None)?;
    let turn = game.turn();
    if args.json {
        let head = json!({
            "position": game.position().to_string(),
            "turn": turn.to_string(),
            "rules": rules.to_string(),
            "bot": bot.name(),
        });
        return print_json(args, head, thought.to_json(), raw.as_ref());
    }
    outln!(
        "{}",
        dama_bot::draw_board(game.position(), Color::White).trim_end()
    );
    outln!("position  {}  ({turn} to move)", game.position());
    print_bot(bot.name(), thought.nodes, thought.elapsed)?;
    if let Some(p) = &thought.tablebase {
        outln!("tables    {} for {turn}", dama_bot::describe_tablebase(p));
    }
    print_values(
        &turn.to_string(),
        thought.eval.as_ref(),
        thought.network.as_ref(),
        thought.score_cm.map(|(s, d)| (s, format!("depth {d}"))),
    )?;
    print_line(&thought.best, &thought.pv)?;
    print_top(&thought.top, args.top, &format!("{:<14}", "move"), |t| {
        format!("{:<14}", t.mv.to_string())
    })
}

/// `dama analyse` for Turkish Tafl: the search's value and WDL for the
/// side to move, the network's own, and the root moves (each completed
/// along the most visited line) with the visits of their first step.
fn run_tafl(args: &AnalyseArgs) -> Result<()> {
    use dama_bot::tafl::{draw_board, side_name};
    let mut bot = args.bot.build_tafl()?;
    let rules = tafl_rules_for(args.rules.as_deref(), &bot)?;
    let pos = tafl_position(&args.position, &rules)
        .with_context(|| format!("bad position `{}`", args.position))?;
    let mut game = dama_tafl::Game::from_position(pos, rules);
    for m in args.moves.as_deref().unwrap_or("").split_whitespace() {
        let mv = game.parse_move(m).map_err(|e| {
            let legal: Vec<String> = game.legal_moves().iter().map(ToString::to_string).collect();
            anyhow::anyhow!("move `{m}`: {e} (legal: {})", legal.join(" "))
        })?;
        game.play(&mv).with_context(|| format!("move `{m}`"))?;
    }
    if let Some(o) = game.outcome() {
        bail!(
            "the game is over in this position: {}",
            dama_bot::tafl::describe_outcome(&o)
        );
    }
    let raw = bot.network_eval(&game)?;
    let thought = bot.think(&game, None)?;
    let turn = side_name(game.turn());
    if args.json {
        let head = json!({
            "game": "tafl",
            "position": game.position().to_string(),
            "turn": turn,
            "rules": rules.to_string(),
            "bot": bot.name(),
        });
        return print_json(args, head, thought.to_json(), raw.as_ref());
    }
    outln!("{}", draw_board(game.position()).trim_end());
    outln!("position  {}  ({turn} to move)", game.position());
    outln!("rules     {rules}");
    print_bot(bot.name(), thought.nodes, thought.elapsed)?;
    print_values(
        turn,
        thought.eval.as_ref(),
        thought.network.as_ref(),
        thought.score.map(|(s, d)| (s, format!("depth {d} moves"))),
    )?;
    print_line(&thought.best, &thought.pv)?;
    let head = format!("{:<18} {:<8}", "move", "step");
    print_top(&thought.top, args.top, &head, |t| {
        format!("{:<18} {:<8}", t.mv.to_string(), t.step.to_string())
    })
}

/// The analysis as JSON: the fields of `head` (the position and the bot),
/// `analysis` (the thought, its top moves cut to `--top`) and `network`
/// (the network's own output: WDL, value, and every legal step's prior).
fn print_json<S: Display>(
    args: &AnalyseArgs,
    mut head: Value,
    mut analysis: Value,
    raw: Option<&RawEval<S>>,
) -> Result<()> {
    if let Some(list) = analysis.get_mut("top").and_then(|t| t.as_array_mut()) {
        list.truncate(args.top);
    }
    head["analysis"] = analysis;
    head["network"] = json!(raw.map(|r| json!({
        "wdl": r.wdl,
        "value": r.wdl[0] - r.wdl[2],
        "priors": r.priors.iter().map(|(s, i, p)| json!({
            "step": s.to_string(), "index": i, "prior": p,
        })).collect::<Vec<_>>(),
    })));
    outln!("{}", serde_json::to_string_pretty(&head)?);
    Ok(())
}

/// The bot and what its thinking cost.
fn print_bot(name: &str, nodes: u64, elapsed: Duration) -> Result<()> {
    outln!(
        "bot       {name}  ({nodes} nodes, {:.0} ms)",
        elapsed.as_secs_f64() * 1e3
    );
    Ok(())
}

/// The root moves, most visited first (`most` of them): the columns
/// `head` of a move (`cells`), then its visits, share, prior and value.
fn print_top<M, S>(
    top: &[TopMove<M, S>],
    most: usize,
    head: &str,
    cells: impl Fn(&TopMove<M, S>) -> String,
) -> Result<()> {
    if top.is_empty() {
        return Ok(());
    }
    outln!(
        "\n  {head} {:>7} {:>7} {:>7} {:>7}",
        "visits",
        "share",
        "prior",
        "value"
    );
    for t in top.iter().take(most) {
        outln!(
            "  {} {:>7} {:>7} {:>7} {:>7}",
            cells(t),
            t.visits,
            pct(t.share),
            pct(t.prior),
            t.value.map_or("-".to_owned(), |v| format!("{v:+.3}"))
        );
    }
    Ok(())
}

/// The search's value, the network's own and alpha-beta's score, each for
/// the side to move (`turn`), as both games print them.
fn print_values(
    turn: &str,
    eval: Option<&dama_bot::Eval>,
    network: Option<&dama_bot::Eval>,
    score: Option<(i32, String)>,
) -> Result<()> {
    let wdl = |w: [f32; 3]| format!("W {} D {} L {}", pct(w[0]), pct(w[1]), pct(w[2]));
    if let Some(e) = eval {
        outln!("eval      {:+.3} for {turn}  ({})", e.value, wdl(e.wdl));
    }
    if let Some(e) = network {
        outln!("network   {:+.3} for {turn}  ({})", e.value, wdl(e.wdl));
    }
    if let Some((s, depth)) = score {
        outln!(
            "score     {:+.2} men for {turn} ({depth})",
            f64::from(s) / 100.0
        );
    }
    Ok(())
}

/// The best move and the principal variation.
fn print_line<M: Display>(best: &M, pv: &[M]) -> Result<()> {
    outln!("best      {best}");
    let pv: Vec<String> = pv.iter().map(ToString::to_string).collect();
    outln!("pv        {}", pv.join(" "));
    Ok(())
}
