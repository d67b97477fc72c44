//! `dama analyse`: the bot's evaluation of a position and its top moves
//! with their visit shares, for every game (the game of the bot's network,
//! or `--game`), written once.

use std::fmt::Display;
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use clap::Args;
use dama_bot::{RawEval, TopMove};
use dama_game::GameDef;
use dama_mcts::Player;
use serde_json::{json, Value};

use crate::bot::{rules_for, BotArgs};

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
    args.bot.game()?.with(Analyse(args))
}

/// `dama analyse` for one game: the search's value and WDL for the side
/// to move, the network's own, alpha-beta's score, the tables' verdict,
/// and the root moves (each completed along the most visited line) with
/// the visits of their first step.
struct Analyse<'a>(&'a AnalyseArgs);

impl dama_nn::WithGame for Analyse<'_> {
    type Output = Result<()>;

    fn run<G: GameDef>(self) -> Result<()> {
        let args = self.0;
        let mut bot = args.bot.build::<G>(args.rules.as_deref())?;
        let rules = rules_for(args.rules.as_deref(), &bot)?;
        let mut game = if args.position.trim() == "startpos" {
            G::start(&rules)
        } else {
            G::parse_position(&rules, &args.position).map_err(|source| dama_bot::Error::Game {
                context: format!("bad position `{}`", args.position),
                source,
            })?
        };
        for m in args.moves.as_deref().unwrap_or("").split_whitespace() {
            let mv = G::parse_move(&game, m).map_err(|e| {
                let legal: Vec<String> = G::legal_moves(&game)
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                anyhow!("move `{m}`: {e} (legal: {})", legal.join(" "))
            })?;
            G::play(&mut game, &mv).map_err(|source| dama_bot::Error::Game {
                context: format!("move `{m}`"),
                source,
            })?;
        }
        if let Some(end) = G::end_text(&game) {
            bail!("the game is over in this position: {end}");
        }
        let raw = bot.network_eval(&game)?;
        let thought = bot.think(&game, None)?;
        let turn = G::geometry().sides[match G::to_play(&game) {
            Player::First => 0,
            Player::Second => 1,
        }]
        .key;
        let position = G::position_text(&game);
        if args.json {
            let head = json!({
                "game": G::NAME,
                "position": position,
                "turn": turn,
                "rules": rules.to_string(),
                "bot": bot.name(),
            });
            return print_json(args, head, thought.to_json(), raw.as_ref());
        }
        outln!("{}", G::board_text(&game, Player::First).trim_end());
        outln!("position  {position}  ({turn} to move)");
        outln!("rules     {rules}");
        print_bot(bot.name(), thought.nodes, thought.elapsed)?;
        if let Some(p) = &thought.tablebase {
            outln!("tables    {} for {turn}", dama_bot::describe_tablebase(p));
        }
        print_values(
            turn,
            thought.eval.as_ref(),
            thought.network.as_ref(),
            thought.score_cm.map(|(s, d)| (s, format!("depth {d}"))),
        )?;
        print_line(&thought.best, &thought.pv)?;
        let head = format!("{:<18} {:<8}", "move", "step");
        print_top(&thought.top, args.top, &head, |t| {
            format!("{:<18} {:<8}", t.mv.to_string(), t.step.to_string())
        })
    }
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
