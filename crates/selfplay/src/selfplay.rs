//! Self-play: many games at once, whose searches share one network batch.
//!
//! Each round, every game in flight gathers its leaves (in parallel, with
//! rayon), the leaves of all games go to the evaluator as one batch (through
//! the evaluation cache), and each game's search applies its evaluations (in
//! parallel again). A game whose search is done plays its move, records a
//! training sample if the search was a full one, and starts the next search;
//! a finished game is replaced by a new one until the generation's quota is
//! played. Every game has its own RNG, seeded from the run seed, the
//! generation and the game's index, so results do not depend on scheduling.

use std::time::{Duration, Instant};

use dama_game::{EndReason, Ending, GameDef, NnInput};
use dama_mcts::{
    driver, Budget, CachedEvaluator, Evaluation, Evaluator, Leaf, Outcome, Player, Pov, Search,
    SearchConfig, Wdl,
};
use dama_nn::GameName;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::config::SelfplayConfig;
use crate::record::{GameRecord, GameResult, PackedPlane, Sample};
use crate::Error;

/// The termination recorded for a game stopped at the self-play move cap.
pub(crate) const MOVE_CAP: &str = "move cap";
/// The termination recorded for a game ended by the endgame tables.
pub(crate) const TABLEBASE: &str = "tablebase";

/// The opening of a self-play game: `plies` uniformly random whole moves
/// from the start (not recorded: opening diversity); the initial position
/// if they would end the game.
pub fn opening<G: GameDef>(rules: &G::Rules, plies: u32, rng: &mut ChaCha8Rng) -> G::Game {
    let mut game = G::start(rules);
    for _ in 0..plies {
        if G::outcome(&game).is_some() {
            break;
        }
        let moves = G::legal_moves(&game);
        let Some(m) = moves.choose(rng) else { break };
        if G::play(&mut game, m).is_err() {
            break;
        }
    }
    if G::outcome(&game).is_some() {
        // Extremely unlikely after a couple of random moves; start over
        // from the initial position rather than record a finished game.
        game = G::start(rules);
    }
    game
}

/// The end of the game at a decision point: the winner (`None` for a draw)
/// and why, in words; `None` while it goes on. A game the rules have not
/// ended may be ended by the search state's tables (`tablebase`).
fn end<G: GameDef>(state: &G::State) -> Option<(Option<Player>, Ending)> {
    let winner = |o: Outcome| match o {
        Outcome::Win(p) => Some(p),
        Outcome::Draw => None,
    };
    let game = G::game_of(state);
    if let Some(o) = G::outcome(game) {
        let ending = G::ending(game).unwrap_or_else(|| Ending::new(EndReason::Other, ""));
        return Some((winner(o), ending));
    }
    let o = dama_mcts::Game::outcome(state)?;
    Some((winner(o), Ending::new(EndReason::Tablebase, TABLEBASE)))
}

fn moves_played<G: GameDef>(state: &G::State) -> u32 {
    G::plies(G::game_of(state)) as u32
}

/// What [`play_run_games`] plays: a session of self-play for whichever
/// game the rules are of.
pub struct RunGames<'a, F, S> {
    /// Self-play settings.
    pub selfplay: &'a SelfplayConfig,
    /// The search settings.
    pub search: &'a SearchConfig,
    /// The game and its rules.
    pub rules: dama_nn::GameRules,
    /// Endgame tables, for a game that has them ([`GameDef::open_tables`]).
    pub tables: dama_game::AnyTables,
    /// The generation (names the games and seeds their RNGs).
    pub generation: u32,
    /// The run's seed.
    pub seed: u64,
    /// The network.
    pub net: &'a mut dama_nn::NnEvaluator,
    /// The evaluation cache.
    pub cache: &'a mut EvalCache,
    /// Called with each finished game.
    pub on_game: F,
    /// Polled between rounds: true stops the session.
    pub stop: S,
}

/// [`play_games`] for the game of `run.rules`: the one dispatch from a
/// run's game to the self-play written once for every game.
///
/// # Errors
/// As [`play_games`].
pub fn play_run_games<F, S>(
    run: RunGames<'_, F, S>,
) -> Result<(Vec<GameRecord>, SelfplayStats), Error>
where
    F: FnMut(&GameRecord, &SelfplayStats) -> Result<(), Error>,
    S: Fn() -> bool,
{
    struct Play<'a, F, S>(RunGames<'a, F, S>);
    impl<F, S> dama_nn::WithGame for Play<'_, F, S>
    where
        F: FnMut(&GameRecord, &SelfplayStats) -> Result<(), Error>,
        S: Fn() -> bool,
    {
        type Output = Result<(Vec<GameRecord>, SelfplayStats), Error>;
        fn run<G: GameDef>(self) -> Self::Output {
            let run = self.0;
            let rules = run.rules.get::<G>().ok_or_else(|| {
                Error::Config(format!("rules `{}` are not {}'s", run.rules, G::TITLE))
            })?;
            let tables = run.tables.get::<G>();
            let job = SelfplayJob::<G> {
                selfplay: run.selfplay,
                search: run.search,
                rules,
                tables,
                generation: run.generation,
                seed: run.seed,
            };
            play_games(&job, run.net, run.cache, run.on_game, run.stop)
        }
    }
    let name = run.rules.name();
    name.with(Play(run))
}

/// Counters of one self-play session, for metrics and progress bars.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfplayStats {
    /// Games finished.
    pub games: usize,
    /// Training samples recorded.
    pub samples: usize,
    /// Actions played (jump-by-jump steps), searched or forced.
    pub steps: u64,
    /// Full moves played.
    pub moves: u64,
    /// Positions evaluated by the network (cache misses).
    pub net_evals: u64,
    /// Leaves answered from the evaluation cache.
    pub cache_hits: u64,
    /// Network calls.
    pub batches: u64,
    /// Network calls by batch size: `batch_histogram[b]` calls of `b`
    /// positions.
    pub batch_histogram: Vec<u64>,
    /// Wall time of the session.
    pub elapsed: Duration,
    /// Wall time spent inside the network's evaluate calls.
    pub net_time: Duration,
    /// CPU time of the whole process during the session (all threads):
    /// `cpu_time / elapsed` is the number of cores kept busy.
    pub cpu_time: Duration,
    /// Games won by White / drawn / won by Black.
    pub white_wins: usize,
    /// Draws.
    pub draws: usize,
    /// Games won by Black.
    pub black_wins: usize,
    /// Games ended by resignation.
    pub resignations: usize,
    /// Games played with resignation disabled.
    pub playthrough_games: usize,
    /// Of those, games where the eventual winner's value had fallen under
    /// the resignation threshold (resigning would have been a mistake).
    pub false_resignations: usize,
    /// Draws by the game's no-capture rule (draughts' `no_capture_limit`).
    pub no_capture_draws: usize,
    /// Draws by threefold repetition.
    pub repetition_draws: usize,
    /// Draws at the self-play move cap (`max_plies`).
    pub move_cap_draws: usize,
    /// Games ended by the endgame tables.
    pub tablebase_endings: usize,
    /// Captures made (each capturing move counts once).
    pub captures: u64,
}

impl SelfplayStats {
    /// Network evaluations per second over the whole session.
    pub fn evals_per_sec(&self) -> f64 {
        self.net_evals as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Network evaluations per second while inside the network.
    pub fn evals_per_net_sec(&self) -> f64 {
        self.net_evals as f64 / self.net_time.as_secs_f64().max(1e-9)
    }

    /// Average positions per network call.
    pub fn avg_batch(&self) -> f64 {
        self.net_evals as f64 / (self.batches.max(1)) as f64
    }

    /// Cores kept busy on average: process CPU time ÷ wall time (0 where
    /// the platform cannot measure CPU time).
    pub fn cores_busy(&self) -> f64 {
        self.cpu_time.as_secs_f64() / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Games finished per hour of wall time.
    pub fn games_per_hour(&self) -> f64 {
        self.games as f64 * 3600.0 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Average full moves per game.
    pub fn avg_length(&self) -> f64 {
        self.moves as f64 / self.games.max(1) as f64
    }

    /// Share of drawn games.
    pub fn draw_rate(&self) -> f64 {
        self.draws as f64 / self.games.max(1) as f64
    }

    /// White's score (wins + half the draws) per game.
    pub fn first_player_score(&self) -> f64 {
        (self.white_wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }

    /// Share of games drawn by the no-capture rule.
    pub fn no_capture_draw_rate(&self) -> f64 {
        self.no_capture_draws as f64 / self.games.max(1) as f64
    }

    /// Average capturing moves per game.
    pub fn captures_per_game(&self) -> f64 {
        self.captures as f64 / self.games.max(1) as f64
    }

    /// Share of played-out games in which resigning would have been wrong.
    pub fn false_resignation_rate(&self) -> f64 {
        self.false_resignations as f64 / self.playthrough_games.max(1) as f64
    }
}

/// The evaluation cache of self-play: positions keyed by
/// [`Game::eval_key`](dama_mcts::Game::eval_key) (the game hash mixed with
/// the counters the network sees), bounded, cleared when full.
pub use dama_mcts::EvalCache;

/// The network behind the cache, counting what self-play reports: calls,
/// positions, batch sizes and time inside the network.
struct Metered<'a, E> {
    net: &'a mut E,
    net_evals: u64,
    batches: u64,
    batch_histogram: Vec<u64>,
    net_time: Duration,
}

impl<'a, E> Metered<'a, E> {
    fn new(net: &'a mut E) -> Self {
        Metered {
            net,
            net_evals: 0,
            batches: 0,
            batch_histogram: Vec::new(),
            net_time: Duration::ZERO,
        }
    }
}

impl<G: dama_mcts::Game, E: Evaluator<G>> Evaluator<G> for Metered<'_, E> {
    type Error = E::Error;

    fn evaluate(&mut self, batch: &[Leaf<'_, G>]) -> Result<Vec<Evaluation>, E::Error> {
        let t = Instant::now();
        let evals = self.net.evaluate(batch);
        self.net_time += t.elapsed();
        self.batches += 1;
        self.net_evals += batch.len() as u64;
        if self.batch_histogram.len() <= batch.len() {
            self.batch_histogram.resize(batch.len() + 1, 0);
        }
        self.batch_histogram[batch.len()] += 1;
        evals
    }
}

/// Copies the network and cache counters into `stats`.
fn sync_stats<E>(
    stats: &mut SelfplayStats,
    evaluator: &CachedEvaluator<Metered<'_, E>, &mut EvalCache>,
) {
    let net = evaluator.inner();
    stats.cache_hits = evaluator.hits();
    stats.net_evals = net.net_evals;
    stats.batches = net.batches;
    stats.batch_histogram.clone_from(&net.batch_histogram);
    stats.net_time = net.net_time;
}

fn search_error(e: dama_mcts::Error) -> Error {
    Error::Search(e)
}

/// What one self-play session plays.
#[derive(Clone, Debug)]
pub struct SelfplayJob<'a, G: GameDef>
where
    <G::State as dama_mcts::Game>::Action: Send + Sync,
{
    /// Self-play settings.
    pub selfplay: &'a SelfplayConfig,
    /// The search settings (noise, simulations, playout cap).
    pub search: &'a SearchConfig,
    /// The rules every game is played under.
    pub rules: G::Rules,
    /// The tables a game ends on before the rules end it (draughts: endgame
    /// tables; `Default` for none).
    pub tables: G::Tables,
    /// The generation (names the games and seeds their RNGs).
    pub generation: u32,
    /// The run's seed.
    pub seed: u64,
}

struct PendingSample {
    planes: Vec<PackedPlane>,
    legal: Vec<u16>,
    policy: Vec<f32>,
    search_value: Wdl<Pov>,
    player: Player,
    ply: u32,
}

/// One game in flight.
struct Slot<G: GameDef>
where
    <G::State as dama_mcts::Game>::Action: Send + Sync,
{
    index: usize,
    search: Search<G::State>,
    rng: ChaCha8Rng,
    start: String,
    samples: Vec<PendingSample>,
    steps: u32,
    resign_disabled: bool,
    /// Consecutive searched moves of each player with a loss probability
    /// above the resignation threshold.
    low_streak: [u32; 2],
    /// Whether each player would have resigned (playthrough games).
    would_resign: [bool; 2],
    done: Option<GameRecord>,
}

fn player_index(p: Player) -> usize {
    match p {
        Player::First => 0,
        Player::Second => 1,
    }
}

/// The game's result from `who`'s point of view as a WDL target.
pub(crate) fn outcome_wdl<P: PartialEq>(winner: Option<P>, who: P) -> [f32; 3] {
    match winner {
        Some(w) if w == who => [1.0, 0.0, 0.0],
        Some(_) => [0.0, 0.0, 1.0],
        None => [0.0, 1.0, 0.0],
    }
}

fn wdl_array(w: Wdl<Pov>) -> [f32; 3] {
    [w.win, w.draw, w.loss]
}

impl<G: GameDef> Slot<G>
where
    <G::State as dama_mcts::Game>::Action: Send + Sync,
{
    fn new(job: &SelfplayJob<'_, G>, index: usize) -> Result<Slot<G>, Error> {
        let mut rng = ChaCha8Rng::seed_from_u64(
            job.seed
                ^ (u64::from(job.generation) << 32).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03),
        );
        // Opening diversity: a few uniformly random full moves, not searched.
        let game = opening::<G>(&job.rules, job.selfplay.random_opening_plies, &mut rng);
        let start = G::start_text(&game);
        let state = G::search_state_with(&game, &job.tables);
        let resign_disabled = job.selfplay.resign_loss_threshold >= 1.0
            || rng.gen_bool(job.selfplay.resign_playthrough);
        let search = Search::new(job.search.clone(), state).map_err(Error::Search)?;
        let mut slot = Slot {
            index,
            search,
            rng,
            start,
            samples: Vec::new(),
            steps: 0,
            resign_disabled,
            low_streak: [0; 2],
            would_resign: [false; 2],
            done: None,
        };
        slot.next_search(job)?;
        Ok(slot)
    }

    /// Gathers leaves until something needs the network or the search is
    /// done; plays moves whose search is done. Returns an error from the
    /// search.
    fn advance_until_pending(&mut self, job: &SelfplayJob<'_, G>) -> Result<(), Error> {
        loop {
            if self.done.is_some() {
                return Ok(());
            }
            if driver::gather(&mut self.search, &Budget::default()).map_err(Error::Search)? {
                return Ok(());
            }
            self.play_move(job)?;
        }
    }

    fn play_move(&mut self, job: &SelfplayJob<'_, G>) -> Result<(), Error> {
        let result = self.search.result(&mut self.rng).map_err(Error::Search)?;
        let state = self.search.root_state();
        let player = dama_mcts::Game::to_play(state);
        let ci = player_index(player);

        // Resignation bookkeeping on searched decisions.
        if result.actions.len() > 1 {
            if result.value.loss > job.selfplay.resign_loss_threshold {
                self.low_streak[ci] += 1;
            } else {
                self.low_streak[ci] = 0;
            }
        }
        let resign_now = self.low_streak[ci] >= job.selfplay.resign_consecutive.max(1)
            && job.selfplay.resign_loss_threshold < 1.0;
        if resign_now {
            if self.resign_disabled {
                self.would_resign[ci] = true;
            } else {
                let winner = player.other();
                self.finish(
                    job,
                    game_result(Some(winner)),
                    Ending::new(EndReason::Other, "resigned"),
                    true,
                );
                return Ok(());
            }
        }

        // A decision with one legal action teaches nothing: not recorded.
        if result.is_training_target && result.actions.len() > 1 {
            let shape = G::shape();
            let mut planes = vec![0.0f32; shape.planes_len()];
            state.encode_planes(&mut planes);
            self.samples.push(PendingSample {
                planes: planes
                    .chunks(shape.squares())
                    .map(PackedPlane::pack)
                    .collect(),
                legal: result
                    .actions
                    .iter()
                    .map(|&a| state.policy_index(a) as u16)
                    .collect(),
                policy: result.policy.clone(),
                search_value: result.value,
                player,
                ply: self.steps,
            });
        }

        self.search.advance(result.action).map_err(Error::Search)?;
        self.steps += 1;
        self.next_search(job)
    }

    /// After an action: ends the game if it is over, plays forced steps (one
    /// legal action, e.g. the only continuation of a capture) without a
    /// search, and begins the next search.
    fn next_search(&mut self, job: &SelfplayJob<'_, G>) -> Result<(), Error> {
        let mut steps = Vec::new();
        loop {
            let state = self.search.root_state();
            if let Some((winner, ending)) = end::<G>(state) {
                self.finish(job, game_result(winner), ending, false);
                return Ok(());
            }
            if moves_played::<G>(state) >= job.selfplay.max_plies {
                self.finish(
                    job,
                    GameResult::Draw,
                    Ending::new(EndReason::MoveCap, MOVE_CAP),
                    false,
                );
                return Ok(());
            }
            steps.clear();
            dama_mcts::Game::legal_actions(state, &mut steps);
            if steps.len() != 1 {
                break;
            }
            let forced = steps[0];
            self.search.advance(forced).map_err(Error::Search)?;
            self.steps += 1;
        }
        let played = moves_played::<G>(self.search.root_state());
        set_temperature(&mut self.search, job.selfplay, played);
        self.search.begin(&mut self.rng).map_err(Error::Search)
    }

    fn finish(
        &mut self,
        job: &SelfplayJob<'_, G>,
        result: GameResult,
        ending: Ending,
        resigned: bool,
    ) {
        let state = self.search.root_state();
        let history = G::history(G::game_of(state));
        let winner = match result {
            GameResult::WhiteWins => Some(Player::First),
            GameResult::BlackWins => Some(Player::Second),
            GameResult::Draw => None,
        };
        let samples = std::mem::take(&mut self.samples)
            .into_iter()
            .map(|s| Sample {
                planes: s.planes,
                legal: s.legal,
                policy: s.policy,
                search_value: wdl_array(s.search_value),
                outcome: outcome_wdl(winner, s.player),
                ply: s.ply,
            })
            .collect();
        // A false resignation: a player who would have resigned did not lose.
        let wrongly = [Player::First, Player::Second]
            .into_iter()
            .any(|p| self.would_resign[player_index(p)] && winner != Some(p.other()));
        self.done = Some(GameRecord {
            game: GameName::of::<G>().unwrap_or_default(),
            game_id: u64::from(job.generation) * 1_000_000 + self.index as u64,
            generation: job.generation,
            rules: job.rules.to_string(),
            start: self.start.clone(),
            moves: history.iter().map(ToString::to_string).collect(),
            result,
            termination: ending.text,
            ending: ending.reason,
            captures: history
                .iter()
                .filter(|m| !G::move_squares(m).captured.is_empty())
                .count() as u32,
            resigned,
            resign_disabled: self.resign_disabled,
            would_have_resigned_wrongly: wrongly,
            samples,
        });
    }
}

/// The result of a game whose winner is `winner` (the first player is
/// White in draughts and the Defenders in Turkish Tafl).
fn game_result(winner: Option<Player>) -> GameResult {
    match winner {
        Some(Player::First) => GameResult::WhiteWins,
        Some(Player::Second) => GameResult::BlackWins,
        None => GameResult::Draw,
    }
}

fn set_temperature<G: dama_mcts::Game>(
    search: &mut Search<G>,
    cfg: &SelfplayConfig,
    moves_played: u32,
) {
    search.config_mut().temperature = if moves_played < cfg.temperature_plies {
        cfg.temperature
    } else {
        0.0
    };
}

/// Plays `job.selfplay.games_per_generation` games with `net`.
///
/// `on_game` is called after each finished game with the record and the
/// counters so far (for progress bars and chunked writing); returning an
/// error stops the session. `stop` is polled between rounds: when it returns
/// true, the games in flight are abandoned and the finished ones returned.
///
/// # Errors
/// A failing network or search, or the error of `on_game`.
pub fn play_games<G: GameDef, E: Evaluator<G::State>>(
    job: &SelfplayJob<'_, G>,
    net: &mut E,
    cache: &mut EvalCache,
    mut on_game: impl FnMut(&GameRecord, &SelfplayStats) -> Result<(), Error>,
    stop: impl Fn() -> bool,
) -> Result<(Vec<GameRecord>, SelfplayStats), Error>
where
    <G::State as dama_mcts::Game>::Action: Send + Sync,
{
    let started = Instant::now();
    let cpu_started = cpu_time::ProcessTime::try_now().ok();
    let mut stats = SelfplayStats::default();
    let mut evaluator = CachedEvaluator::new(Metered::new(net), cache);
    let total = job.selfplay.games_per_generation;
    let mut next_index = 0usize;
    let mut slots: Vec<Slot<G>> = Vec::new();
    let mut finished: Vec<GameRecord> = Vec::new();

    // Games start at most `stagger` a round, spread over one search's
    // simulations: games started together would finish their searches
    // and play their moves in the same rounds, alternating rounds of
    // heavy tree work (the lanes idle) with rounds of light work (a core
    // idle); spread, every round has some of each (1.03× evaluations/s,
    // 1.75 → 1.80 cores busy, docs/benchmarks.md).
    let stagger = job
        .selfplay
        .parallel_games
        .div_ceil(job.search.simulations.max(1) as usize);
    while finished.len() < total {
        if stop() {
            break;
        }
        // Fill free slots with new games.
        let mut started_now = 0;
        while slots.len() < job.selfplay.parallel_games
            && next_index < total
            && started_now < stagger
        {
            slots.push(Slot::new(job, next_index)?);
            next_index += 1;
            started_now += 1;
        }
        // Gather in parallel: each game plays the moves whose search is
        // done and gathers the leaves of its current search.
        slots
            .par_iter_mut()
            .map(|s| s.advance_until_pending(job))
            .collect::<Result<(), Error>>()?;
        // Collect finished games.
        let mut i = 0;
        while i < slots.len() {
            if let Some(record) = slots[i].done.take() {
                let slot = slots.swap_remove(i);
                update_stats(&mut stats, &record, slot.steps);
                sync_stats(&mut stats, &evaluator);
                stats.elapsed = started.elapsed();
                stats.cpu_time = cpu_since(cpu_started);
                on_game(&record, &stats)?;
                finished.push(record);
            } else {
                i += 1;
            }
        }
        // One batch for all games (through the cache).
        driver::evaluate_pending(slots.iter_mut().map(|s| &mut s.search), &mut evaluator)
            .map_err(search_error)?;
    }
    sync_stats(&mut stats, &evaluator);
    stats.elapsed = started.elapsed();
    stats.cpu_time = cpu_since(cpu_started);
    finished.sort_by_key(|g| g.game_id);
    Ok((finished, stats))
}

/// Process CPU time since `start` (zero where the platform cannot say).
fn cpu_since(start: Option<cpu_time::ProcessTime>) -> Duration {
    start
        .and_then(|t| t.try_elapsed().ok())
        .unwrap_or(Duration::ZERO)
}

/// The game counters of finished games played elsewhere (by the workers of
/// a distributed run), over `elapsed`: games, samples, moves, results and
/// endings. What only the player measures (actions, network calls, the
/// cache) stays 0.
pub fn stats_of_games(games: &[GameRecord], elapsed: Duration) -> SelfplayStats {
    let mut stats = SelfplayStats::default();
    for g in games {
        update_stats(&mut stats, g, 0);
    }
    stats.elapsed = elapsed;
    stats
}

pub(crate) fn update_stats(stats: &mut SelfplayStats, record: &GameRecord, steps: u32) {
    stats.games += 1;
    stats.samples += record.samples.len();
    stats.steps += u64::from(steps);
    stats.moves += record.moves.len() as u64;
    match record.result {
        GameResult::WhiteWins => stats.white_wins += 1,
        GameResult::BlackWins => stats.black_wins += 1,
        GameResult::Draw => stats.draws += 1,
    }
    if record.resigned {
        stats.resignations += 1;
    }
    match record.ending {
        EndReason::NoCaptureLimit => stats.no_capture_draws += 1,
        EndReason::Repetition => stats.repetition_draws += 1,
        EndReason::MoveCap => stats.move_cap_draws += 1,
        EndReason::Tablebase => stats.tablebase_endings += 1,
        EndReason::NoMoves | EndReason::Other => {}
    }
    stats.captures += u64::from(record.captures);
    if record.resign_disabled {
        stats.playthrough_games += 1;
        if record.would_have_resigned_wrongly {
            stats.false_resignations += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_draughts::Draughts;
    use dama_mcts::{Algorithm, UniformEvaluator};

    /// Uniform evaluations, recording each call's batch size.
    struct Recorder(Vec<usize>);

    impl<G: dama_mcts::Game> Evaluator<G> for Recorder {
        type Error = std::convert::Infallible;
        fn evaluate(&mut self, batch: &[Leaf<'_, G>]) -> Result<Vec<Evaluation>, Self::Error> {
            self.0.push(batch.len());
            UniformEvaluator::default().evaluate(batch)
        }
    }

    /// Games start spread over one search's simulations (a few each
    /// round), not all at once, and every game still gets played.
    #[test]
    fn games_start_a_few_a_round() {
        let selfplay = SelfplayConfig {
            games_per_generation: 24,
            parallel_games: 16,
            max_plies: 30,
            ..SelfplayConfig::default()
        };
        let search = SearchConfig {
            algorithm: Algorithm::Gumbel,
            simulations: 8,
            gumbel_considered_actions: 4,
            ..SearchConfig::default()
        };
        let job: SelfplayJob<'_, Draughts> = SelfplayJob {
            selfplay: &selfplay,
            search: &search,
            rules: dama_engine::Rules::default(),
            tables: None,
            generation: 0,
            seed: 5,
        };
        let mut net = Recorder(Vec::new());
        let mut cache = EvalCache::new(0);
        let (games, _) = play_games(&job, &mut net, &mut cache, |_, _| Ok(()), || false).unwrap();
        assert_eq!(games.len(), 24);
        // 16 games over 8 simulations: 2 a round. Each new game's first
        // leaf is its root, so the first rounds' batches grow by 2.
        let batches = &net.0;
        assert_eq!(&batches[..3], &[2, 4, 6], "{batches:?}");
        // Later, all 16 games are in flight together.
        assert!(batches.iter().any(|&b| b > 8), "{batches:?}");
    }
}
