//! `dama bot`: the line protocol on stdin/stdout (`docs/protocol.md`), and
//! the bot options shared by `dama play` and `dama analyse`, for every
//! game: the game of the bot's network (its checkpoint's sidecar or its
//! bundle says so) or `--game`, dispatched once
//! ([`dama_nn::GameName::with`]) into code written once
//! ([`dama_bot::Bot`], [`dama_bot::Session`]); and the `--rules` and
//! `--position` readers that `dama perft` uses.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use dama_bot::{Bot, BotOptions, BotSpec, Limit, Session};
use dama_game::GameDef;
use dama_mcts::Algorithm;
use dama_nn::GameName;

/// The time per move of the default bot, the alpha-beta engine with the
/// shipped learned evaluator.
pub const SHIPPED_BOT_MS: u64 = 1000;

/// Which bot, and how strong.
#[derive(Args, Debug, Clone)]
pub struct BotArgs {
    /// The bot: `bundle:DIR`, a bundle directory, a `.safetensors`
    /// checkpoint, or a player spec (`ckpt:PATH[,sims=N]`, `mcts:sims=N`,
    /// `alphabeta:depth=N|time=MS`, `greedy`, `random`, `policy:PATH`).
    /// Default: the --checkpoint/--bundle given, else the strongest bot:
    /// `alphabeta:time=1000,eval=shipped` (the learned evaluator dama
    /// ships) in a game and rules it ships one for, `alphabeta:depth=4`
    /// elsewhere.
    /// Turkish Tafl bots: a Tafl checkpoint or bundle, `mcts:sims=N`,
    /// `random`, `greedy`, `alphabeta:depth=N` (whole moves, 1 to 8) or
    /// `alphabeta:time=MS`, with `,eval=FILE` a learned evaluation.
    #[arg(long, conflicts_with_all = ["checkpoint", "bundle"])]
    pub bot: Option<String>,
    /// The game: `draughts` or `tafl` (default: the game of the bot's
    /// network, from its checkpoint's sidecar or its bundle; draughts for
    /// a bot without a network). A network of the other game is refused.
    #[arg(long)]
    pub game: Option<GameName>,
    /// A checkpoint (`.safetensors`) to play with search.
    #[arg(long, conflicts_with = "bundle")]
    pub checkpoint: Option<PathBuf>,
    /// A bundle directory written by `dama export`.
    #[arg(long)]
    pub bundle: Option<PathBuf>,
    /// Simulations per move (network and MCTS bots).
    #[arg(long, conflicts_with = "time", value_parser = crate::args::sims)]
    pub sims: Option<u32>,
    /// Thinking time per move in milliseconds (at most one hour).
    #[arg(long, value_parser = crate::args::move_time_ms)]
    pub time: Option<u64>,
    /// Root search of network bots: puct or gumbel (Gumbel: simulation
    /// budgets only; default: the bundle's, else puct).
    #[arg(long)]
    pub search: Option<Algorithm>,
    /// auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    pub device: dama_run::DeviceSpec,
    /// Network copies evaluating each batch of a checkpoint bot's search
    /// at once, one core and one libtorch thread each (0: one per core; a
    /// spec's `threads=N` wins).
    #[arg(long, default_value_t = 0, value_parser = crate::args::threads)]
    pub threads: usize,
    /// Seed of the bot's random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Endgame tables (`dama tablebase generate`): positions they hold are
    /// played perfectly from them. A missing directory means no tables
    /// (with a note unless it is the default); `--tablebase ''` turns them off.
    #[arg(long, default_value = "tablebases")]
    pub tablebase: String,
}

/// The protocol `dama bot` speaks.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// dama's own line protocol (`docs/protocol.md`), every game and bot.
    #[default]
    Dama,
    /// Scan's Hub protocol (`docs/hub.md`): the draughts alpha-beta engine
    /// in every variant, for Hub, pydraughts and other draughts GUIs.
    Hub,
}

impl BotArgs {
    /// The bot asked for: --bot, --checkpoint (with the checkpoint
    /// players' defaults), --bundle, or `alphabeta:depth=4` (before the
    /// game is known: [`BotArgs::spec_for`] gives the game's default).
    pub fn spec(&self) -> Result<BotSpec> {
        Ok(if let Some(s) = &self.bot {
            s.parse().with_context(|| format!("bad --bot `{s}`"))?
        } else if let Some(p) = &self.checkpoint {
            BotSpec::Checkpoint {
                path: p.clone(),
                // --sims/--time (a timed bot is built for speed: see
                // `dama_eval::Inference`).
                limit: self
                    .limit()?
                    .unwrap_or(Limit::Sims(dama_eval::DEFAULT_CKPT_SIMS)),
                algorithm: dama_eval::DEFAULT_CKPT_SEARCH,
                inference: dama_eval::Inference::default(),
            }
        } else if let Some(d) = &self.bundle {
            BotSpec::Bundle(d.clone())
        } else {
            BotSpec::AlphaBeta {
                limit: dama_eval::AlphaBetaLimit::Depth(4),
                tt_mb: dama_eval::DEFAULT_TT_MB,
                eval: None,
                threads: 1,
            }
        })
    }

    /// The limit asked for on the command line, if any.
    pub fn limit(&self) -> Result<Option<Limit>> {
        match (self.sims, self.time) {
            (Some(0), _) => bail!("--sims must be positive"),
            (_, Some(0)) => bail!("--time must be positive"),
            (Some(n), _) => Ok(Some(Limit::Sims(n))),
            (_, Some(ms)) => Ok(Some(Limit::Time(Duration::from_millis(ms)))),
            (None, None) => Ok(None),
        }
    }

    /// `G`'s endgame tables for `rules` in --tablebase, if the directory
    /// holds them ([`GameDef::open_tables`]); a note on stderr when a
    /// directory given explicitly holds none (or `G` has none: its
    /// `open_tables` says so).
    pub fn open_tables<G: GameDef>(&self, rules: &G::Rules) -> Result<G::Tables> {
        if self.tablebase.is_empty() {
            return Ok(G::Tables::default());
        }
        // The default directory is optional; one named on the command line
        // gets a note when it holds no tables.
        let explicit = self.tablebase != "tablebases";
        match G::open_tables(std::path::Path::new(&self.tablebase), rules)? {
            dama_game::OpenedTables::Found { tables, .. } => Ok(tables),
            dama_game::OpenedTables::Absent(why) => {
                if explicit {
                    eprintln!("note: --tablebase: {why}; ignored");
                }
                Ok(G::Tables::default())
            }
        }
    }

    /// The bot asked for in game `G` under the rules text `rules` (the
    /// command's --rules): as [`BotArgs::spec`], but without a bot named
    /// the strongest: the alpha-beta engine with the game's shipped
    /// learned evaluator at [`SHIPPED_BOT_MS`] a move where it ships one
    /// for those rules.
    pub fn spec_for<G: GameDef>(&self, rules: Option<&str>) -> Result<BotSpec> {
        let named = self.bot.is_some() || self.checkpoint.is_some() || self.bundle.is_some();
        let Some(shipped) = G::shipped_evaluator_rules().filter(|_| !named) else {
            return self.spec();
        };
        let asked = match rules {
            Some(t) => dama_bot::parse_rules::<G>(t).with_context(|| format!("--rules `{t}`"))?,
            None => G::Rules::default(),
        };
        if G::refuse_network_rules(&shipped, &asked).is_some() {
            return self.spec();
        }
        Ok(BotSpec::AlphaBeta {
            limit: dama_eval::AlphaBetaLimit::TimeMs(SHIPPED_BOT_MS),
            tt_mb: dama_eval::DEFAULT_TT_MB,
            eval: Some(dama_game::EvalSource::Shipped),
            threads: 1,
        })
    }

    /// Builds the bot of game `G` for the rules text `rules` (the
    /// command's --rules; it picks the default bot: [`BotArgs::spec_for`]),
    /// its default limit set from --sims/--time (the endgame tables only
    /// for a game they hold; an explicit --tablebase for another gets a
    /// note).
    pub fn build<G: GameDef>(&self, rules: Option<&str>) -> Result<Bot<G>> {
        let spec = self.spec_for::<G>(rules)?;
        dama_nn::device::set_torch_threads(1);
        let asked = match rules {
            Some(t) => dama_bot::parse_rules::<G>(t).with_context(|| format!("--rules `{t}`"))?,
            None => G::Rules::default(),
        };
        let tables = dama_game::AnyTables::of::<G>(self.open_tables::<G>(&asked)?);
        let options = BotOptions {
            device: self.device,
            seed: self.seed,
            algorithm: self.search,
            tables,
            lanes: (self.threads > 0).then_some(self.threads),
        };
        let mut bot = Bot::<G>::new(&spec, &options)
            .with_context(|| format!("cannot load {} bot `{spec}`", G::TITLE))?;
        if let Some(l) = self.limit()? {
            bot.set_default_limit(l);
        }
        Ok(bot)
    }
}

impl BotArgs {
    /// The game the bot plays: --game, else its network's game, else
    /// Turkish draughts. A network of another game than --game is refused
    /// by name.
    pub fn game(&self) -> Result<GameName> {
        let spec = self.spec()?;
        let network = spec
            .game()
            .with_context(|| format!("cannot read bot `{spec}`"))?;
        match (self.game, network) {
            (Some(asked), Some(net)) if asked != net => bail!(
                "`{spec}` is a {} network, not a {} one (--game {asked})",
                net.title(),
                asked.title()
            ),
            (Some(g), _) | (None, Some(g)) => Ok(g),
            (None, None) => Ok(GameName::default()),
        }
    }
}

/// Parses `--rules` of game `G` (another game's rules are refused by
/// name), defaulting to the rules the bot was trained under.
pub fn rules_for<G: GameDef>(text: Option<&str>, bot: &Bot<G>) -> Result<G::Rules> {
    match text {
        Some(t) => dama_bot::parse_rules::<G>(t).with_context(|| format!("--rules `{t}`")),
        None => Ok(bot.trained_rules().unwrap_or_default()),
    }
}

/// Arguments of `dama bot`.
#[derive(Args, Debug)]
pub struct BotCmdArgs {
    #[command(flatten)]
    bot: BotArgs,
    /// Rules (`default` or key=value pairs, e.g. `no_capture_limit=off`;
    /// Turkish Tafl's, e.g. `ply_limit=300`); default: the network's
    /// training rules.
    #[arg(long)]
    rules: Option<String>,
    /// The protocol: `dama` (every game and bot) or `hub` (Scan's Hub
    /// protocol: the draughts alpha-beta engine, `--bot alphabeta:…` or an
    /// evaluator bundle; default the shipped learned evaluator at 1 s a
    /// move until the GUI sends `level`).
    #[arg(long, value_enum, default_value_t = Protocol::Dama)]
    protocol: Protocol,
}

/// Runs `dama bot`: reads commands from stdin until `quit` or end of input.
pub fn run(args: &BotCmdArgs) -> Result<()> {
    match args.protocol {
        Protocol::Dama => args.bot.game()?.with(Serve(args)),
        Protocol::Hub => serve_hub(args),
    }
}

/// `dama bot --protocol hub`: the alpha-beta engine of `--bot` (or an
/// evaluator bundle) over Scan's Hub protocol.
fn serve_hub(args: &BotCmdArgs) -> Result<()> {
    use dama_draughts::Draughts;
    let game = args.bot.game()?;
    if game != GameName::Draughts {
        bail!(
            "the Hub protocol is draughts' ({} bots speak dama's own protocol: drop --protocol hub)",
            game.title()
        );
    }
    let rules: dama_engine::Rules = match &args.rules {
        Some(t) => {
            dama_bot::parse_rules::<Draughts>(t).with_context(|| format!("--rules `{t}`"))?
        }
        None => dama_engine::Rules::default(),
    };
    let mut spec = args.bot.spec_for::<Draughts>(args.rules.as_deref())?;
    if let BotSpec::Bundle(dir) = &spec {
        let bundle = dama_bot::EvaluatorBundle::load(dir).with_context(|| {
            format!(
                "--protocol hub plays the alpha-beta engine: {} is not an evaluator bundle",
                dir.display()
            )
        })?;
        spec = bundle.alphabeta_spec(None)?;
    }
    let BotSpec::AlphaBeta {
        limit,
        tt_mb,
        eval,
        threads,
    } = spec
    else {
        bail!(
            "--protocol hub plays the alpha-beta engine (`--bot alphabeta:…[,eval=…]` or an evaluator bundle), not `{spec}`: network and MCTS bots speak dama's own protocol"
        );
    };
    // --time replaces the spec's own limit.
    let limit = args
        .bot
        .time
        .map_or(limit, dama_eval::AlphaBetaLimit::TimeMs);
    let config = dama_bot::HubConfig {
        eval_named: args.bot.bot.is_some() || args.bot.bundle.is_some(),
        eval,
        tt_mb,
        threads,
        limit,
        tablebase: args.bot.open_tables::<Draughts>(&rules)?,
        rules,
    };
    dama_bot::serve_hub(
        config,
        std::io::BufReader::new(std::io::stdin()),
        &mut std::io::stdout().lock(),
    )?;
    Ok(())
}

/// `dama bot` for one game.
struct Serve<'a>(&'a BotCmdArgs);

impl dama_nn::WithGame for Serve<'_> {
    type Output = Result<()>;

    fn run<G: GameDef>(self) -> Result<()> {
        let args = self.0;
        let bot = args.bot.build::<G>(args.rules.as_deref())?;
        // Refuses another game's rules by name before the session starts.
        rules_for(args.rules.as_deref(), &bot)?;
        let mut session = Session::new(bot);
        if let Some(r) = &args.rules {
            let reply = session.handle(&format!("rules {r}"));
            if let Some(err) = reply.lines.iter().find(|l| l.starts_with("error")) {
                bail!("--rules: {}", err.trim_start_matches("error "));
            }
        }
        session.serve(&mut std::io::stdin().lock(), &mut std::io::stdout().lock())?;
        Ok(())
    }
}
