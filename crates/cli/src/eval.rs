//! `dama eval` (a match between two players) and `dama ladder` (every
//! checkpoint of a run and the baselines on one Elo scale).

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use dama_eval::{
    parse_player, BuildOptions, LadderConfig, MatchConfig, OpeningSource, Pairing, PlayerFactory,
    Sprt,
};

/// Arguments of `dama eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Player A: random, greedy, alphabeta:depth=N, alphabeta:time=MS,
    /// mcts:sims=N, ckpt:PATH[,sims=N][,search=gumbel|puct], policy:PATH.
    #[arg(long)]
    a: String,
    /// Player B (same forms as --a).
    #[arg(long)]
    b: String,
    /// Games to play, 1 to 1000000 (each opening is played with both
    /// colours; a Turkish Tafl match needs an even number).
    #[arg(long, default_value_t = 100, value_parser = crate::args::match_games)]
    games: u32,
    #[command(flatten)]
    openings: OpeningArgs,
    /// Stop as soon as a sequential probability ratio test decides between
    /// H0: Elo = ELO0 and H1: Elo = ELO1 (e.g. `0,50`).
    #[arg(long)]
    sprt: Option<String>,
    /// Seed of the openings and the players' randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Device for network players: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    device: dama_run::DeviceSpec,
    /// Worker threads (games played in parallel); default one per core.
    #[arg(long, value_parser = crate::args::threads)]
    threads: Option<usize>,
    /// Write the result (and every game) as JSON to this file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Games in flight whose checkpoint players (with a simulation budget)
    /// share batched network calls; 0: each game's player evaluates alone.
    /// Either way libtorch runs one thread (games run in parallel).
    #[arg(long, default_value_t = 64)]
    batch_games: usize,
    /// Endgame tables for the players that use them (alpha-beta probes
    /// them in its search and plays their move at a table root).
    #[arg(long)]
    tablebase: Option<PathBuf>,
    /// The game's rule options as its rules text, read by the game
    /// (`--game`), e.g. `variant=dameo` or `no_capture_limit=off` for
    /// draughts (default: the rules the checkpoint players were trained
    /// under, else the game's defaults). Checkpoints trained under other
    /// rules are refused.
    #[arg(long)]
    rules: Option<String>,
    /// The game: `draughts` or `tafl` (default: the checkpoint players'
    /// game, else draughts). A Turkish Tafl match plays each opening once
    /// from each side and reports A's results as Defenders and as King side.
    #[arg(long)]
    game: Option<dama_nn::GameName>,
    /// Also print the game's tournament scoring (Turkish Tafl: each
    /// opening's two games, one per side, scored by pieces).
    #[arg(long)]
    tournament: bool,
    /// Adjudicate a win once both players' searches agree on it:
    /// `SCORE:MOVES`, the winner's score at least SCORE centi-men and the
    /// loser's at most -SCORE for MOVES searched moves of each in a row
    /// (cutechess-cli's `-resign … twosided=true`), e.g. `600:3`. Not for
    /// games with a tournament scoring (Turkish Tafl).
    #[arg(long, value_name = "SCORE:MOVES")]
    adjudicate: Option<dama_eval::ScoreRun>,
    /// Adjudicate a draw once both players' scores stay within ±SCORE for
    /// MOVES searched moves of each in a row, from ply PLY on:
    /// `PLY:SCORE:MOVES`, e.g. `80:10:8`.
    #[arg(long, value_name = "PLY:SCORE:MOVES")]
    adjudicate_draw: Option<dama_eval::DrawRun>,
}

/// Where a match's openings come from: `--openings FILE`, or random starts
/// of `--opening-plies` moves, with `--balanced` only those a judge finds
/// even. `dama eval`, `ladder` and `curve` take the same flags.
#[derive(Args, Debug, Clone)]
pub struct OpeningArgs {
    /// Openings file (one per line: a position, or moves from the start);
    /// default: distinct random 4-ply starts drawn from --seed.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Random whole moves from the start before the players take over, so
    /// that games differ (each opening is played from both sides); 0 to
    /// 10000 (default 4; not with --openings).
    #[arg(long, value_parser = crate::args::opening_plies, conflicts_with = "openings")]
    opening_plies: Option<u32>,
    /// Keep only the random openings that the --judge scores within MARGIN
    /// centi-men of even (1 to 10000): a start the random moves left lost
    /// by force is won by either player with the better side, and such
    /// pairs pull every score towards 50%. Not with --openings.
    #[arg(long, value_name = "MARGIN", value_parser = crate::args::balance_margin, conflicts_with = "openings")]
    balanced: Option<i32>,
    /// The player that scores the openings for --balanced: a searching
    /// player's spec.
    #[arg(long, default_value = "alphabeta:depth=6", requires = "balanced")]
    judge: dama_eval::PlayerSpec,
}

impl OpeningArgs {
    /// The openings these flags ask for.
    pub fn source(&self) -> OpeningSource {
        match (&self.openings, self.opening_plies, self.balanced) {
            (Some(p), _, _) => OpeningSource::File(p.clone()),
            (None, plies, Some(margin)) => OpeningSource::Balanced {
                plies: plies.unwrap_or(dama_eval::DEFAULT_OPENING_PLIES),
                margin,
                judge: self.judge.clone(),
            },
            (None, Some(plies), None) => OpeningSource::Random { plies },
            (None, None, None) => OpeningSource::default(),
        }
    }
}

/// Arguments of `dama ladder`.
#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The run (a directory under --checkpoints, or a path).
    #[arg(long)]
    run: String,
    /// Where runs live.
    #[arg(long, default_value = "checkpoints")]
    checkpoints: PathBuf,
    /// Baselines to include (random is the anchor at Elo 0 and always included).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "random,greedy,alphabeta:depth=2"
    )]
    baselines: Vec<String>,
    /// Games per pairing, 1 to 1000000.
    #[arg(long, default_value_t = 20, value_parser = crate::args::match_games)]
    games: u32,
    /// Simulations per move of the checkpoint players.
    #[arg(long, default_value_t = 32, value_parser = crate::args::sims)]
    sims: u32,
    /// A learned-evaluator run's engines: milliseconds per move (default:
    /// the run's `[eval]` limit). Its networks play as
    /// `alphabeta:time=MS,eval=models/gen-NNNN.nnue`, beside the handcrafted
    /// engine at the same limit.
    #[arg(long, conflicts_with = "depth", value_parser = crate::args::move_time_ms)]
    time: Option<u64>,
    /// A learned-evaluator run's engines: depth in plies instead of a time.
    #[arg(long)]
    depth: Option<u32>,
    /// Use every N-th checkpoint (the last one always).
    #[arg(long, default_value_t = 1)]
    every: usize,
    /// Pairings: `round-robin` (all pairs) or `neighbours` (each checkpoint
    /// against the next and against every baseline).
    #[arg(long, default_value = "round-robin")]
    pairing: String,
    #[command(flatten)]
    openings: OpeningArgs,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Device for network players.
    #[arg(long, default_value = "auto")]
    device: dama_run::DeviceSpec,
}

/// Arguments of `dama curve`.
#[derive(Args, Debug)]
pub struct CurveArgs {
    /// The run (a directory under --checkpoints, or a path).
    #[arg(long)]
    run: String,
    /// Where runs live.
    #[arg(long, default_value = "checkpoints")]
    checkpoints: PathBuf,
    /// Anchor players, weakest first, starting with random (pinned at Elo 0):
    /// `default` (random, greedy, alphabeta:depth=2, alphabeta:depth=4,
    /// alphabeta:time=100) or a comma-separated list of specs (a spec's own
    /// options stay with it: `…,alphabeta:time=100,eval=shipped` ends the
    /// list with the shipped learned evaluator, the strongest anchor).
    #[arg(long, default_value = "default")]
    anchors: String,
    /// Games per pairing (each checkpoint against each anchor, and each anchor
    /// against the next), 1 to 1000000.
    #[arg(long, default_value_t = 20, value_parser = crate::args::match_games)]
    games: u32,
    /// Rate every K-th checkpoint (the last one always).
    #[arg(long, default_value_t = 1)]
    every: usize,
    /// Simulations per decision of the checkpoints (default 32).
    #[arg(long, conflicts_with = "time", value_parser = crate::args::sims)]
    sims: Option<u32>,
    /// Milliseconds per move of the checkpoints instead of --sims (at most
    /// 3600000).
    #[arg(long, value_parser = crate::args::move_time_ms)]
    time: Option<u64>,
    /// Root search of the checkpoints: puct or gumbel (default: the
    /// checkpoint players' default, puct).
    #[arg(long, default_value_t = dama_eval::DEFAULT_CKPT_SEARCH)]
    search: dama_mcts::Algorithm,
    #[command(flatten)]
    openings: OpeningArgs,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Device for network players.
    #[arg(long, default_value = "auto")]
    device: dama_run::DeviceSpec,
    /// Games played in parallel (default one per core).
    #[arg(long)]
    threads: Option<usize>,
}

/// Matches run games in parallel on rayon's workers (one per core), so
/// libtorch gets one thread: on a loaded 2-core machine, two spinning
/// OpenMP threads beside the workers made a batched match 48x slower.
fn one_torch_thread() {
    dama_nn::device::set_torch_threads(1);
}

fn options(device: dama_run::DeviceSpec) -> BuildOptions {
    BuildOptions {
        device: Some(device),
        ..BuildOptions::default()
    }
}

/// `G`'s endgame tables for `rules` in `--tablebase DIR` (none for an
/// empty path). Asked for on the command line: a directory without tables
/// for them, or a game without tables, is an error, not a note.
fn tables<G: dama_game::GameDef>(
    dir: &std::path::Path,
    rules: &G::Rules,
) -> Result<dama_game::AnyTables> {
    if dir.as_os_str().is_empty() {
        return Ok(dama_game::AnyTables::none());
    }
    // A game without tables says so through its `open_tables`.
    match G::open_tables(dir, rules)? {
        dama_game::OpenedTables::Found { tables, .. } => Ok(dama_game::AnyTables::of::<G>(tables)),
        dama_game::OpenedTables::Absent(why) => bail!("--tablebase: {why}"),
    }
}

/// Runs `dama eval`.
pub fn run_eval(args: &EvalArgs) -> Result<()> {
    let mut ckpts = Vec::new();
    for (flag, text) in [("--a", &args.a), ("--b", &args.b)] {
        let spec: dama_eval::PlayerSpec = text.parse().with_context(|| format!("player {flag}"))?;
        if let Some(p) = spec.checkpoint_path() {
            ckpts.push(p.to_path_buf());
        }
    }
    let trained = dama_eval::checkpoint_game(&ckpts)?;
    let game = args.game.or(trained.map(|r| r.name())).unwrap_or_default();
    let rules = match &args.rules {
        Some(text) => crate::args::game_rules(game, text)?,
        None => trained
            .filter(|r| r.name() == game)
            .unwrap_or_else(|| dama_nn::GameRules::default_for(game)),
    };
    game.with(Eval { args, rules })
}

/// `dama eval` in the match's game.
struct Eval<'a> {
    args: &'a EvalArgs,
    rules: dama_nn::GameRules,
}

impl dama_nn::WithGame for Eval<'_> {
    type Output = Result<()>;
    fn run<G: dama_game::GameDef>(self) -> Result<()> {
        run_eval_game::<G>(self.args, self.rules)
    }
}

/// `dama eval` for a game of `G` under `game_rules`.
fn run_eval_game<G: dama_game::GameDef>(
    args: &EvalArgs,
    game_rules: dama_nn::GameRules,
) -> Result<()> {
    let Some(rules) = game_rules.get::<G>() else {
        bail!("{game_rules} are not the rules of {}", G::TITLE);
    };
    if args.tournament && G::tournament().is_none() {
        bail!("--tournament: {} has no tournament scoring", G::TITLE);
    }
    let cores = dama_nn::device::cores();
    let opts = BuildOptions {
        tables: match &args.tablebase {
            Some(dir) => tables::<G>(dir, &rules)?,
            None => dama_game::AnyTables::none(),
        },
        rules: Some(game_rules),
        // A checkpoint player of one game at a time gets the cores the
        // parallel games leave it (`threads=N` in its spec wins).
        lanes: Some((cores / args.threads.unwrap_or(cores).max(1)).max(1)),
        ..options(args.device)
    };
    let a = parse_player::<G>(&args.a, &opts).context("player --a")?;
    let b = parse_player::<G>(&args.b, &opts).context("player --b")?;
    let sprt = args
        .sprt
        .as_deref()
        .map(|s| {
            s.parse::<Sprt>()
                .with_context(|| format!("bad --sprt `{s}`"))
        })
        .transpose()?;
    let config = MatchConfig {
        games: args.games,
        openings: args.openings.source(),
        seed: args.seed,
        sprt,
        keep_records: args.out.is_some(),
        threads: args.threads,
        batch_games: args.batch_games,
        rules,
        adjudication: dama_eval::Adjudication {
            resign: args.adjudicate,
            draw: args.adjudicate_draw,
        },
        ..MatchConfig::default()
    };
    one_torch_thread();
    let (bar, on_progress) = dama_eval::progress_bar(args.games);
    let start = std::time::Instant::now();
    let result = dama_eval::play_match(a.as_ref(), b.as_ref(), &config, &on_progress)?;
    let secs = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    outln!("{} vs {} ({}: {rules})", result.a, result.b, G::TITLE);
    outln!(
        "  {:.1} s, {:.2} games/s ({})",
        secs,
        f64::from(result.games) / secs.max(1e-9),
        if args.batch_games > 0 {
            format!("up to {} games batched", args.batch_games)
        } else {
            "unbatched".to_owned()
        }
    );
    outln!(
        "  games {}  (openings {}; A as {} +{} ={} -{}, as {} +{} ={} -{})",
        result.games,
        result.openings,
        result.sides[0],
        result.a_first.wins,
        result.a_first.draws,
        result.a_first.losses,
        result.sides[1],
        result.a_second.wins,
        result.a_second.draws,
        result.a_second.losses
    );
    outln!(
        "  A: +{} ={} -{}  score {:.1}%  Elo {:+.1} (95% CI {:+.1} .. {:+.1})",
        result.wdl.wins,
        result.wdl.draws,
        result.wdl.losses,
        100.0 * result.score(),
        result.elo.elo,
        result.elo.lo,
        result.elo.hi
    );
    let [a_depth, b_depth] = result.median_depth;
    if a_depth.is_some() || b_depth.is_some() {
        let show = |d: Option<f64>| d.map_or("-".to_owned(), |d| format!("{d}"));
        outln!(
            "  median search depth: A {}, B {}",
            show(a_depth),
            show(b_depth)
        );
    }
    if result.adjudicated > 0 {
        outln!(
            "  adjudicated: {} of {} games",
            result.adjudicated,
            result.games
        );
    }
    if let Some(s) = &result.sprt {
        outln!(
            "  SPRT elo0={} elo1={}: LLR {:.2} in [{:.2}, {:.2}] -> {:?}{}{}",
            s.sprt.elo0,
            s.sprt.elo1,
            s.llr,
            s.lower,
            s.upper,
            s.decision,
            s.decided_at
                .map(|g| format!(" (decided at {g} games)"))
                .unwrap_or_default(),
            if result.stopped_early {
                " (stopped early)"
            } else {
                ""
            }
        );
    }
    if let (true, Some(t)) = (args.tournament, &result.tournament) {
        outln!(
            "  tournament (each opening's pair of games scored by pieces): A {} points, B {} points; pairs won A {} drawn {} B {}",
            t.a_points,
            t.b_points,
            t.a_pairs,
            t.drawn_pairs,
            t.b_pairs
        );
    }
    if let Some(out) = &args.out {
        let text = serde_json::to_string_pretty(&result)?;
        dama_selfplay::record::write_atomic(out, text.as_bytes())?;
        outln!("  written to {}", out.display());
    }
    Ok(())
}

/// A ladder's checkpoint player at `sims` simulations, with its label (the
/// file stem: `gen-0002`).
fn ladder_checkpoint(path: &std::path::Path, sims: u32) -> (String, dama_eval::PlayerSpec) {
    let spec = dama_eval::PlayerSpec::Checkpoint {
        path: path.to_path_buf(),
        budget: dama_eval::SearchBudget::Sims(sims),
        search: dama_eval::DEFAULT_CKPT_SEARCH,
        draw_score: 0.0,
        inference: Default::default(),
    };
    let label = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| spec.to_string());
    (label, spec)
}

/// Runs `dama ladder`.
pub fn run_ladder(args: &LadderArgs) -> Result<()> {
    let run_dir = {
        let p = PathBuf::from(&args.run);
        if p.is_dir() {
            p
        } else {
            args.checkpoints.join(&args.run)
        }
    };
    let dir = dama_run::RunDir::new(&run_dir);
    let config = dir.config();
    let kind = if config.exists() {
        dama_selfplay::RunKind::of_file(&config)?
    } else {
        dama_selfplay::RunKind::Network
    };
    // Every N-th file (the last one always).
    let every = |files: Vec<PathBuf>| {
        let last = files.last().cloned();
        let mut kept: Vec<PathBuf> = files
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i.is_multiple_of(args.every.max(1)))
            .map(|(_, p)| p)
            .collect();
        if let Some(last) = last {
            if kept.last() != Some(&last) {
                kept.push(last);
            }
        }
        kept
    };
    let (players, baselines, trained) = match kind {
        dama_selfplay::RunKind::Network => {
            let ckpts = every(
                dama_eval::run_checkpoints(&run_dir)
                    .with_context(|| format!("no checkpoints in {}", run_dir.display()))?,
            );
            // The run's game: the rules its checkpoints were trained under.
            let trained = dama_eval::checkpoint_game(&ckpts)?;
            let players = ckpts
                .iter()
                .map(|c| ladder_checkpoint(c, args.sims))
                .collect::<Vec<_>>();
            (players, args.baselines.clone(), trained)
        }
        dama_selfplay::RunKind::Nnue => {
            // A learned-evaluator run: each generation's network in the
            // alpha-beta engine, and the handcrafted engine at the same
            // limit as a baseline.
            let cfg = dama_selfplay::nnue::NnueConfig::load(&config)
                .context("cannot read the run's config")?;
            let limit = match (args.time, args.depth) {
                (Some(ms), _) => dama_eval::AlphaBetaLimit::TimeMs(ms),
                (None, Some(d)) => dama_eval::AlphaBetaLimit::Depth(d),
                (None, None) => cfg.eval.limit(),
            };
            let engine = |eval: Option<PathBuf>| dama_eval::PlayerSpec::AlphaBeta {
                limit,
                tt_mb: dama_eval::DEFAULT_TT_MB,
                eval: eval.map(Into::into),
                threads: 1,
            };
            let state = dama_run::RunState::load(&dir.state())
                .with_context(|| format!("{} holds no finished generation", run_dir.display()))?;
            let files = every(
                (0..=state.generation)
                    .map(|g| dir.evaluator(g))
                    .filter(|p| p.is_file())
                    .collect(),
            );
            if files.is_empty() {
                bail!("no networks in {}", dir.models().display());
            }
            let players = files
                .iter()
                .map(|p| {
                    let label = p
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    (label, engine(Some(p.clone())))
                })
                .collect::<Vec<_>>();
            let mut baselines = args.baselines.clone();
            let handcrafted = engine(None).to_string();
            if !baselines.contains(&handcrafted) {
                baselines.push(handcrafted);
            }
            (players, baselines, Some(cfg.rules))
        }
    };
    let game = trained.map(|r| r.name()).unwrap_or_default();
    game.with(Ladder {
        args,
        run_dir: &run_dir,
        players: &players,
        baselines: &baselines,
        trained,
    })
}

/// `dama ladder` in the run's game.
struct Ladder<'a> {
    args: &'a LadderArgs,
    run_dir: &'a std::path::Path,
    /// The run's networks as players, with their labels.
    players: &'a [(String, dama_eval::PlayerSpec)],
    baselines: &'a [String],
    trained: Option<dama_nn::GameRules>,
}

impl dama_nn::WithGame for Ladder<'_> {
    type Output = Result<()>;
    fn run<G: dama_game::GameDef>(self) -> Result<()> {
        run_ladder_game::<G>(
            self.args,
            self.run_dir,
            self.players,
            self.baselines,
            self.trained,
        )
    }
}

/// `dama ladder` for a run of `G`: the baselines and the run's networks
/// (checkpoints, or a learned-evaluator run's engines) in one Elo fit, each
/// match's results per side printed.
fn run_ladder_game<G: dama_game::GameDef>(
    args: &LadderArgs,
    run_dir: &std::path::Path,
    networks: &[(String, dama_eval::PlayerSpec)],
    baselines: &[String],
    trained: Option<dama_nn::GameRules>,
) -> Result<()> {
    let rules = trained.and_then(|r| r.get::<G>()).unwrap_or_default();
    let opts = BuildOptions {
        rules: trained,
        ..options(args.device)
    };
    let mut players: Vec<Arc<dyn PlayerFactory<G>>> = Vec::new();
    let mut baselines = baselines.to_vec();
    if !baselines.iter().any(|b| b == "random") {
        baselines.insert(0, "random".into());
    }
    for b in &baselines {
        let spec: dama_eval::PlayerSpec = b.parse().with_context(|| format!("baseline `{b}`"))?;
        if spec.checkpoint_path().is_some() {
            bail!("baseline `{b}` is not a baseline player");
        }
        players.push(
            dama_eval::factory::<G>(&spec, &opts).with_context(|| format!("baseline `{b}`"))?,
        );
    }
    for (label, spec) in networks {
        let player =
            dama_eval::factory::<G>(spec, &opts).with_context(|| format!("checkpoint `{spec}`"))?;
        players.push(dama_eval::named(player, label));
    }
    let pairing = pairing(&args.pairing, baselines.len(), players.len())?;
    let mut config = LadderConfig {
        pairing,
        ..LadderConfig::default()
    };
    config.matches.games = args.games;
    config.matches.seed = args.seed;
    config.matches.rules = rules;
    config.matches.openings = args.openings.source();
    let n_pairs = config.pairing.pairs(players.len()).len();
    eprintln!(
        "ladder: {} players ({} checkpoints, {} baselines), {} matches of {} games",
        players.len(),
        networks.len(),
        baselines.len(),
        n_pairs,
        args.games
    );
    let (bar, on_progress) = dama_eval::progress_bar(args.games);
    let mut on_match = |i: usize, n: usize, r: &dama_eval::MatchResult| {
        let line = format!(
            "[{}/{}] {} vs {}: +{} ={} -{} (as {} +{} ={} -{}, as {} +{} ={} -{})",
            i + 1,
            n,
            r.a,
            r.b,
            r.wdl.wins,
            r.wdl.draws,
            r.wdl.losses,
            r.sides[0],
            r.a_first.wins,
            r.a_first.draws,
            r.a_first.losses,
            r.sides[1],
            r.a_second.wins,
            r.a_second.draws,
            r.a_second.losses
        );
        // A closed stdout ends nothing here: the table is printed after.
        let _ = bar.suspend(|| {
            use std::io::Write;
            writeln!(std::io::stdout().lock(), "{line}")
        });
        bar.reset();
    };
    one_torch_thread();
    let result = dama_eval::run_ladder(&players, &config, &on_progress, &mut on_match)?;
    bar.finish_and_clear();
    outln!("{}", result.table);
    let stem = run_dir.join("eval").join("ladder");
    result.save(&stem)?;
    outln!(
        "written to {}.csv, {}.json and {}-matches.json",
        stem.display(),
        stem.display(),
        stem.display()
    );
    Ok(())
}

/// A ladder's pairings of `n` players, the first `nb` of them baselines.
fn pairing(name: &str, nb: usize, n: usize) -> Result<Pairing> {
    Ok(match name {
        "round-robin" => Pairing::RoundRobin,
        "neighbours" | "neighbors" => {
            // Baselines in a chain, each checkpoint against every baseline and
            // against the next checkpoint: connected, and linear in the run's
            // length.
            let mut pairs: Vec<(usize, usize)> = (1..nb).map(|i| (i - 1, i)).collect();
            for c in nb..n {
                pairs.extend((0..nb).map(|b| (c, b)));
                if c + 1 < n {
                    pairs.push((c, c + 1));
                }
            }
            Pairing::Pairs(pairs)
        }
        other => anyhow::bail!("unknown --pairing `{other}` (round-robin or neighbours)"),
    })
}

fn run_dir(run: &str, checkpoints: &std::path::Path) -> PathBuf {
    let p = PathBuf::from(run);
    if p.is_dir() {
        p
    } else {
        checkpoints.join(run)
    }
}

/// Splits a comma-separated list of player specs whose own options are
/// comma-separated too: a piece with `=` and no `:` (`eval=shipped`,
/// `threads=2`) is an option of the spec before it.
fn split_specs(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for piece in list.split(',').map(str::trim) {
        match out.last_mut() {
            Some(last) if piece.contains('=') && !piece.contains(':') => {
                last.push(',');
                last.push_str(piece);
            }
            _ => out.push(piece.to_owned()),
        }
    }
    out
}

/// Runs `dama curve`.
pub fn run_curve(args: &CurveArgs) -> Result<()> {
    use dama_selfplay::curve::{self, CurveConfig};
    let dir = run_dir(&args.run, &args.checkpoints);
    let anchors: Vec<String> = if args.anchors == "default" {
        curve::DEFAULT_ANCHORS
            .iter()
            .map(|s| (*s).to_owned())
            .collect()
    } else {
        split_specs(&args.anchors)
    };
    let budget = match (args.sims, args.time) {
        (_, Some(ms)) => dama_eval::SearchBudget::Time(std::time::Duration::from_millis(ms)),
        (Some(n), None) => dama_eval::SearchBudget::Sims(n),
        (None, None) => dama_eval::SearchBudget::Sims(32),
    };
    let search = args.search;
    let config = CurveConfig {
        anchors,
        budget,
        search,
        games: args.games,
        every: args.every,
        seed: args.seed,
        openings: args.openings.source(),
        device: args.device,
        threads: args.threads,
    };
    let (bar, on_progress) = dama_eval::progress_bar(args.games);
    let mut on_match = |i: usize, n: usize, r: &dama_eval::MatchResult| {
        bar.println(format!(
            "[{}/{}] {} vs {}: +{} ={} -{}",
            i + 1,
            n,
            r.a,
            r.b,
            r.wdl.wins,
            r.wdl.draws,
            r.wdl.losses
        ));
        bar.reset();
    };
    one_torch_thread();
    let c = curve::run_curve(&dir, &config, &on_progress, &mut on_match)
        .with_context(|| format!("curve of {}", dir.display()))?;
    bar.finish_and_clear();
    outln!("checkpoints at {} (random = 0)", c.checkpoint_settings);
    outln!(
        "{:>10}  {:>8}  {:>10}  {:>7}  {:>17}",
        "generation",
        "hours",
        "positions",
        "Elo",
        "95% CI"
    );
    for p in &c.points {
        outln!(
            "{:>10}  {:>8.3}  {:>10}  {:>+7.0}  [{:>+6.0}, {:>+6.0}]",
            p.generation,
            p.hours,
            p.positions,
            p.elo,
            p.lo95,
            p.hi95
        );
    }
    for a in &c.anchors {
        outln!(
            "{:>10}  {:>8}  {:>10}  {:>+7.0}  [{:>+6.0}, {:>+6.0}]  {}",
            "anchor",
            "",
            "",
            a.elo,
            a.lo,
            a.hi,
            a.name
        );
    }
    c.save(&dir)
        .with_context(|| format!("cannot write the curve into {}", dir.display()))?;
    outln!(
        "written to {} and {}",
        dir.join("curve.json").display(),
        dir.join("curve.csv").display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn specs_split_at_commas_between_specs_only() {
        assert_eq!(
            super::split_specs(
                "random, greedy,alphabeta:time=100,alphabeta:time=100,eval=shipped,threads=2,engine:a.sh"
            ),
            [
                "random",
                "greedy",
                "alphabeta:time=100",
                "alphabeta:time=100,eval=shipped,threads=2",
                "engine:a.sh"
            ]
        );
    }
}
