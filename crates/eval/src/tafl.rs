//! The arena for Turkish Tafl ([`dama_tafl`]): matches between baselines
//! and networks with search, batched as the draughts arena is.
//!
//! The game is asymmetric, so every opening is played twice, A as the
//! Defenders ([`Side::Defender`], the search's [`dama_mcts::Player::First`])
//! and then A as the King side; results are kept per side
//! ([`TaflMatchResult::a_as_defender`], [`TaflMatchResult::a_as_king_side`]),
//! and the pairs also give the rules' tournament variant ("two games, one
//! per side, scored by pieces", [`TaflMatchResult::tournament`]).
//!
//! Many games are in flight at once ([`TaflMatchConfig::batch_games`]).
//! Each round every unfinished game advances (in parallel, on rayon) until
//! its side to move is a network whose search waits for evaluations:
//! baselines play their whole move there and then, a network steps through
//! its turn jump by jump ([`TurnSearch`], one search per decision). Then
//! the waiting leaves of each network go to its evaluator as one batch
//! ([`driver::evaluate_pending`]). A game's randomness comes from its own
//! generator (the match seed and the game's index), so the moves do not
//! depend on how games are batched.
//!
//! # Examples
//!
//! ```
//! use dama_eval::tafl::{play_tafl_match, TaflMatchConfig, TaflPlayer};
//! use dama_tafl::players::Baseline;
//!
//! let mut greedy = TaflPlayer::Baseline(Baseline::Greedy);
//! let mut random = TaflPlayer::Baseline(Baseline::Random);
//! let config = TaflMatchConfig { games: 4, seed: 7, ..TaflMatchConfig::default() };
//! let result = play_tafl_match(&mut greedy, &mut random, &config, &|_| {})?;
//! assert_eq!(result.total().games(), 4);
//! println!("{result}");
//! # Ok::<(), dama_eval::Error>(())
//! ```

use std::collections::BTreeMap;

use dama_mcts::{driver, Budget, Evaluator, SearchConfig, TurnSearch, MAX_SIMULATIONS};
use dama_tafl::players::Baseline;
use dama_tafl::search::TaflState;
use dama_tafl::{Game, Side, TaflRules};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::spec::{AlphaBetaLimit, PlayerSpec};
use crate::stats::{EloEstimate, Wdl};
use crate::{Error, NetworkError};

/// The deepest alpha-beta search [`baseline_of`] accepts, in whole moves.
pub const MAX_TAFL_ALPHABETA_DEPTH: u32 = 8;

/// A Tafl network behind the search's evaluator trait, type-erased (the
/// `network` feature builds it; the arena does not name libtorch types).
pub type TaflEvaluator = Box<dyn Evaluator<TaflState, Error = NetworkError> + Send>;

/// One player of a Tafl match.
pub enum TaflPlayer {
    /// Random, greedy, or alpha-beta at a depth in whole moves.
    Baseline(Baseline),
    /// A network with search: each decision (a [`dama_tafl::Step`]) with
    /// more than one legal action is searched by a [`TurnSearch`] with
    /// `config` and `sims` simulations; forced steps are played without
    /// search. `config` is used as given: for evaluation it should have no
    /// Dirichlet noise and temperature 0.
    Network {
        /// The player's name in results.
        name: String,
        /// The network.
        evaluator: TaflEvaluator,
        /// The search settings (its `simulations` are replaced by `sims`).
        config: SearchConfig,
        /// Simulations per decision, in `1..=MAX_SIMULATIONS`.
        sims: u32,
    },
}

impl TaflPlayer {
    /// The name in results: `random`, `greedy`, `alphabeta:depth=4`, or the
    /// network's name.
    pub fn name(&self) -> String {
        match self {
            TaflPlayer::Baseline(b) => b.to_string(),
            TaflPlayer::Network { name, .. } => name.clone(),
        }
    }

    fn evaluator_mut(&mut self) -> Option<&mut TaflEvaluator> {
        match self {
            TaflPlayer::Baseline(_) => None,
            TaflPlayer::Network { evaluator, .. } => Some(evaluator),
        }
    }
}

impl std::fmt::Debug for TaflPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaflPlayer::Baseline(b) => f.debug_tuple("Baseline").field(b).finish(),
            TaflPlayer::Network {
                name, config, sims, ..
            } => f
                .debug_struct("Network")
                .field("name", name)
                .field("config", config)
                .field("sims", sims)
                .finish_non_exhaustive(),
        }
    }
}

/// The baseline a spec names, for Turkish Tafl: `random`, `greedy`, and
/// `alphabeta:depth=D` with `D` in `1..=8` ([`MAX_TAFL_ALPHABETA_DEPTH`])
/// whole moves. `Ok(None)` for a `ckpt:` spec (the caller builds the
/// network).
///
/// # Errors
///
/// [`Error::Spec`] for a depth out of range, and for the players Turkish
/// Tafl does not have (`alphabeta:time=…`, `alphabeta:…,threads=N` with
/// `N` other than 1, `mcts:…`, `policy:…`), naming the spec.
pub fn baseline_of(spec: &PlayerSpec) -> Result<Option<Baseline>, Error> {
    match spec {
        PlayerSpec::Random => Ok(Some(Baseline::Random)),
        PlayerSpec::Greedy => Ok(Some(Baseline::Greedy)),
        PlayerSpec::AlphaBeta {
            limit: AlphaBetaLimit::Depth(d),
            eval: None,
            threads: 1,
            ..
        } => {
            if (1..=MAX_TAFL_ALPHABETA_DEPTH).contains(d) {
                Ok(Some(Baseline::AlphaBeta(*d)))
            } else {
                Err(Error::Spec(format!(
                    "`{spec}`: depth={d} is out of range for Turkish Tafl \
                     (1..={MAX_TAFL_ALPHABETA_DEPTH} whole moves)"
                )))
            }
        }
        PlayerSpec::Checkpoint { .. } => Ok(None),
        PlayerSpec::AlphaBeta { .. } | PlayerSpec::Mcts { .. } | PlayerSpec::Policy { .. } => Err(
            Error::Spec(format!("`{spec}` is not available for Turkish Tafl")),
        ),
    }
}

/// The settings of a Tafl match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaflMatchConfig {
    /// Games to play: even and at least 2 (each opening once per side).
    pub games: u32,
    /// The match seed: openings and every game's randomness derive from it.
    pub seed: u64,
    /// Random whole moves from the initial position before the players take
    /// over (fewer if every move would end the game); the same opening is
    /// played twice, A as the Defenders, then A as the King side. Default 2.
    pub opening_plies: u32,
    /// The rules of every game.
    pub rules: TaflRules,
    /// Games in flight at once (0 counts as 1). Default 64.
    pub batch_games: usize,
    /// A safety cap on whole moves (the opening included): a game reaching
    /// it is a draw. At least 1. Default 1000.
    pub max_plies: u32,
}

impl Default for TaflMatchConfig {
    fn default() -> Self {
        TaflMatchConfig {
            games: 100,
            seed: 0,
            opening_plies: 2,
            rules: TaflRules::default(),
            batch_games: 64,
            max_plies: 1000,
        }
    }
}

impl TaflMatchConfig {
    /// Checks the settings.
    ///
    /// # Errors
    ///
    /// [`Error::Spec`] if `games` is odd or 0, or `max_plies` is 0.
    pub fn validate(&self) -> Result<(), Error> {
        if self.games == 0 || !self.games.is_multiple_of(2) {
            return Err(Error::Spec(format!(
                "a Turkish Tafl match needs an even number of games, at least 2 \
                 (each opening once per side), got {}",
                self.games
            )));
        }
        if self.max_plies == 0 {
            return Err(Error::Spec("max_plies must be at least 1".into()));
        }
        Ok(())
    }
}

/// One finished game of a Tafl match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaflGame {
    /// The game's index in the match (its opening is `index / 2`).
    pub index: u32,
    /// Whether A played the Defenders.
    pub a_defends: bool,
    /// The position the game started from ([`dama_tafl::Position`]'s
    /// text): the initial position; the opening's moves are the first
    /// `opening_plies` of `moves`.
    pub start: String,
    /// How many of `moves` are the random opening.
    pub opening_plies: u32,
    /// Every whole move from `start`, in [`dama_tafl::Move`]'s notation.
    pub moves: Vec<String>,
    /// The winner, `None` for a draw (the move cap included).
    pub winner: Option<Side>,
    /// Why it ended: the [`dama_tafl::Termination`] in `Debug` form
    /// (`KingEscaped`, …), or `move cap`.
    pub termination: String,
    /// The winner's tournament points ([`dama_tafl::tournament_score`]);
    /// `None` for a draw.
    pub tournament_points: Option<(Side, u32)>,
}

impl TaflGame {
    /// Whether A won this game (`None` for a draw).
    pub fn a_won(&self) -> Option<bool> {
        self.winner.map(|w| (w == Side::Defender) == self.a_defends)
    }

    /// A's result in this game.
    fn a_wdl(&self) -> Wdl {
        match self.a_won() {
            Some(true) => Wdl::new(1, 0, 0),
            None => Wdl::new(0, 1, 0),
            Some(false) => Wdl::new(0, 0, 1),
        }
    }
}

/// The tournament variant of a match: over each opening's pair of games
/// (one per side), each player's tournament points (summed over the games
/// it won), and who scored more in each pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentScore {
    /// A's points over all games.
    pub a_points: u64,
    /// B's points over all games.
    pub b_points: u64,
    /// Pairs in which A scored more points than B.
    pub a_pairs: u32,
    /// Pairs in which both scored the same.
    pub drawn_pairs: u32,
    /// Pairs in which B scored more points than A.
    pub b_pairs: u32,
}

/// The result of a Tafl match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaflMatchResult {
    /// Player A's name.
    pub a: String,
    /// Player B's name.
    pub b: String,
    /// Games played.
    pub games: u32,
    /// A's wins, draws and losses in the games A played the Defenders.
    pub a_as_defender: Wdl,
    /// A's wins, draws and losses in the games A played the King side.
    pub a_as_king_side: Wdl,
    /// Every game, in index order.
    pub records: Vec<TaflGame>,
}

fn sum(x: Wdl, y: Wdl) -> Wdl {
    Wdl::new(x.wins + y.wins, x.draws + y.draws, x.losses + y.losses)
}

impl TaflMatchResult {
    /// A's wins, draws and losses over all games.
    pub fn total(&self) -> Wdl {
        sum(self.a_as_defender, self.a_as_king_side)
    }

    /// A's score over all games, in `[0, 1]`.
    pub fn score(&self) -> f64 {
        self.total().score()
    }

    /// A's Elo difference over B, with its 95% interval.
    pub fn elo(&self) -> EloEstimate {
        self.total().elo()
    }

    /// The tournament variant: each opening's two games scored by pieces
    /// ([`dama_tafl::tournament_score`]).
    pub fn tournament(&self) -> TournamentScore {
        let mut pairs: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        for g in &self.records {
            let pair = pairs.entry(g.index / 2).or_default();
            if let Some((_, points)) = g.tournament_points {
                match g.a_won() {
                    Some(true) => pair.0 += u64::from(points),
                    Some(false) => pair.1 += u64::from(points),
                    None => {}
                }
            }
        }
        let mut t = TournamentScore::default();
        for (a, b) in pairs.into_values() {
            t.a_points += a;
            t.b_points += b;
            match a.cmp(&b) {
                std::cmp::Ordering::Greater => t.a_pairs += 1,
                std::cmp::Ordering::Equal => t.drawn_pairs += 1,
                std::cmp::Ordering::Less => t.b_pairs += 1,
            }
        }
        t
    }
}

impl std::fmt::Display for TaflMatchResult {
    /// One line: `A vs B: +W =D -L (score%), Elo E [lo, hi]; as Defenders
    /// +w =d -l, as King side +w =d -l; tournament a-b points, pairs +x =y
    /// -z`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = self.total();
        let e = self.elo();
        let d = self.a_as_defender;
        let k = self.a_as_king_side;
        let ts = self.tournament();
        write!(
            f,
            "{} vs {}: +{} ={} -{} ({:.1}%), Elo {:+.0} [{:.0}, {:.0}]; \
             as Defenders +{} ={} -{}, as King side +{} ={} -{}; \
             tournament {}-{} points, pairs +{} ={} -{}",
            self.a,
            self.b,
            t.wins,
            t.draws,
            t.losses,
            100.0 * self.score(),
            e.elo,
            e.lo,
            e.hi,
            d.wins,
            d.draws,
            d.losses,
            k.wins,
            k.draws,
            k.losses,
            ts.a_points,
            ts.b_points,
            ts.a_pairs,
            ts.drawn_pairs,
            ts.b_pairs
        )
    }
}

/// Progress of a Tafl match, after each finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaflProgress {
    /// Games finished.
    pub done: u32,
    /// Games planned.
    pub total: u32,
    /// A's wins, draws and losses so far.
    pub wdl: Wdl,
}

impl TaflProgress {
    /// The same progress as the draughts arena reports it (for its
    /// progress bars), with A's and B's names.
    pub fn as_match_progress(&self, a: &str, b: &str) -> crate::MatchProgress {
        crate::MatchProgress {
            a: a.to_owned(),
            b: b.to_owned(),
            done: self.done,
            total: self.total,
            wdl: self.wdl,
            elo: self.wdl.elo(),
            llr: None,
        }
    }
}

/// What the games need of a player (shared by the parallel advance; the
/// evaluators stay outside).
enum Role {
    Baseline(Baseline),
    Network { config: SearchConfig, sims: u32 },
}

impl Role {
    fn of(player: &TaflPlayer) -> Result<Role, Error> {
        Ok(match player {
            TaflPlayer::Baseline(b) => Role::Baseline(*b),
            TaflPlayer::Network {
                name, config, sims, ..
            } => {
                if *sims == 0 || *sims > MAX_SIMULATIONS {
                    return Err(Error::Spec(format!(
                        "`{name}`: sims must be in 1..={MAX_SIMULATIONS}, got {sims}"
                    )));
                }
                config
                    .validate()
                    .map_err(|e| crate::mcts_player::fail(name, e))?;
                Role::Network {
                    config: config.clone(),
                    sims: *sims,
                }
            }
        })
    }
}

/// The opening of pair `k`: up to `plies` random whole moves from the
/// initial position, never one that ends the game.
fn opening(rules: TaflRules, seed: u64, k: u32, plies: u32) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6f70_656e_696e_6773);
    rng.set_stream(u64::from(k) + 1);
    let mut game = Game::new(rules);
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let mut moves = game.legal_moves();
        moves.shuffle(&mut rng);
        let next = moves.into_iter().find_map(|m| {
            let mut g = game.clone();
            g.play(&m).ok()?;
            g.outcome().is_none().then_some(g)
        });
        match next {
            Some(g) => game = g,
            None => break,
        }
    }
    game
}

/// One game in flight.
struct Slot {
    index: u32,
    a_defends: bool,
    opening_plies: u32,
    game: Game,
    rng: ChaCha8Rng,
    /// The turn being decided by a network, decision by decision.
    turn: Option<TurnSearch<TaflState>>,
    /// Which player's evaluator the pending leaves are for.
    waiting: Option<usize>,
    done: bool,
}

impl Slot {
    fn new(index: u32, config: &TaflMatchConfig) -> Slot {
        let game = opening(config.rules, config.seed, index / 2, config.opening_plies);
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        rng.set_stream(u64::from(index) + 1);
        Slot {
            index,
            a_defends: index.is_multiple_of(2),
            opening_plies: game.plies() as u32,
            game,
            rng,
            turn: None,
            waiting: None,
            done: false,
        }
    }

    /// The player (0 = A, 1 = B) of `side`.
    fn player_of(&self, side: Side) -> usize {
        usize::from((side == Side::Defender) != self.a_defends)
    }

    /// Advances the game until a network's search waits for evaluations or
    /// the game is over.
    fn advance(
        &mut self,
        roles: &[Role; 2],
        names: &[String; 2],
        max_plies: u32,
    ) -> Result<(), Error> {
        self.waiting = None;
        loop {
            if self.done {
                return Ok(());
            }
            if self.turn.is_none()
                && (self.game.outcome().is_some()
                    || self.game.plies() as u64 >= u64::from(max_plies))
            {
                self.done = true;
                return Ok(());
            }
            let p = self.player_of(self.game.turn());
            let name = names[p].as_str();
            match &roles[p] {
                Role::Baseline(b) => {
                    let m = b.choose(&self.game, &mut self.rng).ok_or_else(|| {
                        Error::player(name, "no move in a game that is not over".into())
                    })?;
                    self.game
                        .play(&m)
                        .map_err(|e| Error::player(name, format!("illegal move {m}: {e}")))?;
                }
                Role::Network { config, sims } => {
                    let turn = match &mut self.turn {
                        Some(turn) => turn,
                        None => self.turn.insert(
                            TurnSearch::new(config.clone(), TaflState::new(self.game.clone()))
                                .map_err(|e| crate::mcts_player::fail(name, e))?,
                        ),
                    };
                    if turn
                        .advance(&mut Budget::simulations(*sims), &mut self.rng)
                        .map_err(|e| crate::mcts_player::fail(name, e))?
                    {
                        self.waiting = Some(p);
                        return Ok(());
                    }
                    let Some(turn) = self.turn.take() else {
                        unreachable!("invariant: the turn was just advanced");
                    };
                    let game = turn.state().game();
                    if game.plies() != self.game.plies() + 1 {
                        return Err(Error::player(
                            name,
                            format!(
                                "its turn ended mid-move after {} steps",
                                turn.actions().len()
                            ),
                        ));
                    }
                    self.game = game.clone();
                }
            }
        }
    }

    fn search_mut(&mut self) -> Option<&mut dama_mcts::Search<TaflState>> {
        self.turn.as_mut().and_then(TurnSearch::search_mut)
    }

    fn record(&self) -> TaflGame {
        let outcome = self.game.outcome();
        TaflGame {
            index: self.index,
            a_defends: self.a_defends,
            start: self.game.start_position().to_string(),
            opening_plies: self.opening_plies,
            moves: self.game.moves().iter().map(|m| m.to_string()).collect(),
            winner: outcome.and_then(|o| o.winner),
            termination: outcome
                .map_or_else(|| "move cap".to_owned(), |o| format!("{:?}", o.termination)),
            tournament_points: dama_tafl::tournament_score(&self.game),
        }
    }
}

/// Plays a match between `a` and `b`: games `0..games`, game `i` from
/// opening `i / 2` with A as the Defenders when `i` is even, up to
/// `batch_games` games in flight (see the module docs). `on_game` is called
/// after each finished game (in the order they finish).
///
/// # Errors
///
/// [`Error::Spec`] for an invalid config or a network's `sims` out of
/// range; [`Error::Search`] naming the player if a network's search or
/// evaluator fails (the network's error is in the source chain);
/// [`Error::Player`] naming the player if a move cannot be played.
pub fn play_tafl_match(
    a: &mut TaflPlayer,
    b: &mut TaflPlayer,
    config: &TaflMatchConfig,
    on_game: &(dyn Fn(&TaflProgress) + Sync),
) -> Result<TaflMatchResult, Error> {
    config.validate()?;
    let names = [a.name(), b.name()];
    let roles = [Role::of(a)?, Role::of(b)?];
    let mut evaluators = [a.evaluator_mut(), b.evaluator_mut()];
    let mut a_as_defender = Wdl::default();
    let mut a_as_king_side = Wdl::default();
    let mut records: Vec<TaflGame> = Vec::with_capacity(config.games as usize);
    let mut slots: Vec<Slot> = Vec::new();
    let mut next = 0u32;
    loop {
        while next < config.games && slots.len() < config.batch_games.max(1) {
            slots.push(Slot::new(next, config));
            next += 1;
        }
        if slots.is_empty() {
            break;
        }
        slots
            .par_iter_mut()
            .map(|s| s.advance(&roles, &names, config.max_plies))
            .collect::<Result<(), Error>>()?;

        let mut i = 0;
        while i < slots.len() {
            if !slots[i].done {
                i += 1;
                continue;
            }
            let record = slots.swap_remove(i).record();
            let wdl = record.a_wdl();
            if record.a_defends {
                a_as_defender = sum(a_as_defender, wdl);
            } else {
                a_as_king_side = sum(a_as_king_side, wdl);
            }
            records.push(record);
            on_game(&TaflProgress {
                done: records.len() as u32,
                total: config.games,
                wdl: sum(a_as_defender, a_as_king_side),
            });
        }

        // One evaluator call per network for all games waiting on it.
        for (p, evaluator) in evaluators.iter_mut().enumerate() {
            let Some(evaluator) = evaluator else { continue };
            driver::evaluate_pending(
                slots
                    .iter_mut()
                    .filter(|s| s.waiting == Some(p))
                    .filter_map(Slot::search_mut),
                &mut ***evaluator,
            )
            .map_err(|e| crate::mcts_player::fail(&names[p], e))?;
        }
    }
    records.sort_by_key(|r| r.index);
    let [a_name, b_name] = names;
    Ok(TaflMatchResult {
        a: a_name,
        b: b_name,
        games: config.games,
        a_as_defender,
        a_as_king_side,
        records,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    use dama_mcts::{Evaluation, Leaf, UniformEvaluator};
    use dama_tafl::Position;

    use super::*;

    /// The uniform evaluator behind the network error type; counts calls.
    struct Uniform(Arc<AtomicU32>);

    impl Evaluator<TaflState> for Uniform {
        type Error = NetworkError;
        fn evaluate(
            &mut self,
            batch: &[Leaf<'_, TaflState>],
        ) -> Result<Vec<Evaluation>, NetworkError> {
            self.0.fetch_add(1, Ordering::Relaxed);
            match UniformEvaluator::default().evaluate(batch) {
                Ok(v) => Ok(v),
                Err(e) => match e {},
            }
        }
    }

    /// An evaluator that always fails.
    struct Broken;

    impl Evaluator<TaflState> for Broken {
        type Error = NetworkError;
        fn evaluate(
            &mut self,
            _batch: &[Leaf<'_, TaflState>],
        ) -> Result<Vec<Evaluation>, NetworkError> {
            Err(NetworkError("the network is broken".into()))
        }
    }

    fn network(name: &str, evaluator: TaflEvaluator, sims: u32) -> TaflPlayer {
        TaflPlayer::Network {
            name: name.to_owned(),
            evaluator,
            config: SearchConfig {
                reuse_tree: false,
                temperature: 0.0,
                dirichlet_epsilon: 0.0,
                ..SearchConfig::default()
            },
            sims,
        }
    }

    fn config(games: u32, seed: u64, batch_games: usize) -> TaflMatchConfig {
        TaflMatchConfig {
            games,
            seed,
            batch_games,
            ..TaflMatchConfig::default()
        }
    }

    fn baselines(
        a: Baseline,
        b: Baseline,
        config: &TaflMatchConfig,
    ) -> Result<TaflMatchResult, Error> {
        play_tafl_match(
            &mut TaflPlayer::Baseline(a),
            &mut TaflPlayer::Baseline(b),
            config,
            &|_| {},
        )
    }

    /// Replays every record from its start with dama_tafl alone: the moves
    /// parse and play, the first `opening_plies` are the pair's shared
    /// opening, and the outcome is the recorded one.
    fn check_replay(result: &TaflMatchResult, config: &TaflMatchConfig) {
        for (i, r) in result.records.iter().enumerate() {
            assert_eq!(r.index, i as u32);
            assert_eq!(r.a_defends, i % 2 == 0);
            let start: Position = r.start.parse().expect("start parses");
            let mut game = Game::from_position(start, config.rules);
            for m in &r.moves {
                let mv = game.parse_move(m).expect("recorded move parses");
                game.play(&mv).expect("recorded move plays");
            }
            assert_eq!(game.outcome().and_then(|o| o.winner), r.winner);
            match game.outcome() {
                Some(o) => assert_eq!(format!("{:?}", o.termination), r.termination),
                None => assert_eq!(r.termination, "move cap"),
            }
            assert_eq!(dama_tafl::tournament_score(&game), r.tournament_points);
            assert_eq!(r.opening_plies, config.opening_plies);
        }
        for pair in result.records.chunks(2) {
            let n = pair[0].opening_plies as usize;
            assert_eq!(pair[0].moves[..n], pair[1].moves[..n]);
        }
    }

    #[test]
    fn greedy_against_random_is_reproducible_and_independent_of_batching() {
        let games = 8;
        let one =
            baselines(Baseline::Greedy, Baseline::Random, &config(games, 3, 1)).expect("match");
        let eight =
            baselines(Baseline::Greedy, Baseline::Random, &config(games, 3, 8)).expect("match");
        let again =
            baselines(Baseline::Greedy, Baseline::Random, &config(games, 3, 8)).expect("match");
        assert_eq!(one, eight);
        assert_eq!(eight, again);
        assert_eq!(one.a, "greedy");
        assert_eq!(one.b, "random");
        assert_eq!(one.games, games);
        assert_eq!(one.a_as_defender.games(), games / 2);
        assert_eq!(one.a_as_king_side.games(), games / 2);
        assert_eq!(one.total().games(), games);
        assert_eq!(one.records.len(), games as usize);
        check_replay(&one, &config(games, 3, 1));
        // The King side is the stronger side between weak players; a
        // two-move search beats random on both.
        let ab = baselines(
            Baseline::AlphaBeta(2),
            Baseline::Random,
            &config(games, 3, 8),
        )
        .expect("match");
        assert!(ab.a_as_defender.score() > 0.5, "{ab}");
        assert!(ab.a_as_king_side.score() > 0.5, "{ab}");
        let other =
            baselines(Baseline::Greedy, Baseline::Random, &config(games, 4, 8)).expect("match");
        assert_ne!(one.records, other.records);
    }

    #[test]
    fn progress_is_reported_after_every_game() {
        let calls = std::sync::Mutex::new(Vec::new());
        let result = play_tafl_match(
            &mut TaflPlayer::Baseline(Baseline::Random),
            &mut TaflPlayer::Baseline(Baseline::Random),
            &config(6, 1, 4),
            &|p| calls.lock().expect("lock").push(*p),
        )
        .expect("match");
        let calls = calls.into_inner().expect("lock");
        assert_eq!(calls.len(), 6);
        for (i, p) in calls.iter().enumerate() {
            assert_eq!(p.done, i as u32 + 1);
            assert_eq!(p.total, 6);
            assert_eq!(p.wdl.games(), p.done);
        }
        assert_eq!(calls[5].wdl, result.total());
    }

    #[test]
    fn a_uniform_network_plays_legal_replayable_games_in_shared_batches() {
        let run = |batch_games: usize| {
            let calls = Arc::new(AtomicU32::new(0));
            let mut net = network("uniform", Box::new(Uniform(Arc::clone(&calls))), 8);
            let mut random = TaflPlayer::Baseline(Baseline::Random);
            let cfg = config(4, 11, batch_games);
            let r = play_tafl_match(&mut net, &mut random, &cfg, &|_| {}).expect("match");
            check_replay(&r, &cfg);
            (r, calls.load(Ordering::Relaxed))
        };
        let (one, calls_one) = run(1);
        let (four, calls_four) = run(4);
        assert_eq!(one, four);
        assert_eq!(one.a, "uniform");
        assert_eq!(one.total().games(), 4);
        assert!(calls_four < calls_one, "{calls_four} vs {calls_one}");

        // Two networks, each with its own evaluator.
        let mut x = network("x", Box::new(Uniform(Arc::default())), 4);
        let mut y = network("y", Box::new(Uniform(Arc::default())), 4);
        let cfg = TaflMatchConfig {
            max_plies: 30,
            ..config(2, 5, 2)
        };
        let r = play_tafl_match(&mut x, &mut y, &cfg, &|_| {}).expect("match");
        check_replay(&r, &cfg);
    }

    #[test]
    fn a_failing_network_is_named() {
        let mut net = network("broken-net", Box::new(Broken), 8);
        let mut random = TaflPlayer::Baseline(Baseline::Random);
        let err = play_tafl_match(&mut net, &mut random, &config(2, 0, 2), &|_| {})
            .expect_err("the network fails");
        assert!(err.to_string().contains("broken-net"), "{err}");
        let mut chain = String::new();
        let mut source: Option<&dyn std::error::Error> = Some(&err);
        while let Some(e) = source {
            chain.push_str(&format!("{e}; "));
            source = e.source();
        }
        assert!(chain.contains("the network is broken"), "{chain}");
        let mut zero = network("zero", Box::new(Uniform(Arc::default())), 0);
        let err =
            play_tafl_match(&mut zero, &mut random, &config(2, 0, 2), &|_| {}).expect_err("0 sims");
        assert!(matches!(err, Error::Spec(_)), "{err}");
    }

    #[test]
    fn baseline_of_maps_specs_and_refuses_the_others() {
        let of = |s: &str| baseline_of(&s.parse::<PlayerSpec>().expect("spec"));
        assert_eq!(of("random").expect("ok"), Some(Baseline::Random));
        assert_eq!(of("greedy").expect("ok"), Some(Baseline::Greedy));
        assert_eq!(
            of("alphabeta:depth=3").expect("ok"),
            Some(Baseline::AlphaBeta(3))
        );
        assert_eq!(of("ckpt:/tmp/x.safetensors").expect("ok"), None);
        for bad in [
            "alphabeta:time=100",
            "mcts:sims=50",
            "policy:/tmp/x.safetensors",
            "alphabeta:depth=9",
            "alphabeta:depth=3,threads=2",
        ] {
            let err = of(bad).expect_err(bad);
            assert!(matches!(err, Error::Spec(_)), "{bad}: {err}");
            let text = err.to_string();
            assert!(text.contains(bad), "{bad}: {text}");
        }
        assert!(of("mcts:sims=50")
            .expect_err("mcts")
            .to_string()
            .contains("not available for Turkish Tafl"));
        assert_eq!(
            of("alphabeta:depth=3,threads=2")
                .expect_err("threads")
                .to_string(),
            "`alphabeta:depth=3,threads=2` is not available for Turkish Tafl"
        );
        assert_eq!(
            TaflPlayer::Baseline(Baseline::AlphaBeta(4)).name(),
            "alphabeta:depth=4"
        );
    }

    #[test]
    fn odd_or_zero_games_are_refused() {
        for games in [0, 1, 3, 7] {
            let err = baselines(Baseline::Random, Baseline::Random, &config(games, 0, 4))
                .expect_err("odd");
            assert!(matches!(err, Error::Spec(_)), "{err}");
        }
        let cap = TaflMatchConfig {
            max_plies: 0,
            ..config(2, 0, 4)
        };
        assert!(cap.validate().is_err());
        assert!(config(2, 0, 4).validate().is_ok());
    }

    #[test]
    fn the_move_cap_draws() {
        let cfg = TaflMatchConfig {
            max_plies: 4,
            ..config(2, 9, 2)
        };
        let r = baselines(Baseline::Random, Baseline::Random, &cfg).expect("match");
        for g in &r.records {
            if g.termination == "move cap" {
                assert_eq!(g.moves.len(), 4);
                assert_eq!(g.winner, None);
                assert_eq!(g.tournament_points, None);
            }
        }
        assert!(r.records.iter().any(|g| g.termination == "move cap"));
    }

    #[test]
    fn tournament_sums_the_winners_points_per_pair() {
        let r = baselines(Baseline::Greedy, Baseline::Random, &config(8, 2, 8)).expect("match");
        let t = r.tournament();
        let points = |a_wins: bool| -> u64 {
            r.records
                .iter()
                .filter(|g| g.a_won() == Some(a_wins))
                .map(|g| u64::from(g.tournament_points.expect("a winner has points").1))
                .sum()
        };
        assert_eq!(t.a_points, points(true));
        assert_eq!(t.b_points, points(false));
        assert_eq!(t.a_pairs + t.drawn_pairs + t.b_pairs, 4);
        // Hand-check each pair.
        let mut a_pairs = 0;
        for pair in r.records.chunks(2) {
            let score = |a_wins: bool| -> u32 {
                pair.iter()
                    .filter(|g| g.a_won() == Some(a_wins))
                    .filter_map(|g| g.tournament_points)
                    .map(|(_, p)| p)
                    .sum()
            };
            a_pairs += u32::from(score(true) > score(false));
        }
        assert_eq!(t.a_pairs, a_pairs);
        let text = r.to_string();
        assert!(text.starts_with("greedy vs random: +"), "{text}");
        assert!(
            text.contains("as Defenders") && text.contains("tournament"),
            "{text}"
        );

        // Two synthetic pairs.
        let game = |index: u32, a_defends: bool, winner: Side, points: u32| TaflGame {
            index,
            a_defends,
            start: String::new(),
            opening_plies: 0,
            moves: Vec::new(),
            winner: Some(winner),
            termination: "KingEscaped".into(),
            tournament_points: Some((winner, points)),
        };
        let m = TaflMatchResult {
            a: "a".into(),
            b: "b".into(),
            games: 4,
            a_as_defender: Wdl::new(1, 0, 1),
            a_as_king_side: Wdl::new(2, 0, 0),
            records: vec![
                // Pair 0: A wins both (10 + 7 to 0).
                game(0, true, Side::Defender, 10),
                game(1, false, Side::KingSide, 7),
                // Pair 1: one win each, 5 to 5.
                game(2, true, Side::KingSide, 5),
                game(3, false, Side::KingSide, 5),
            ],
        };
        assert_eq!(
            m.tournament(),
            TournamentScore {
                a_points: 22,
                b_points: 5,
                a_pairs: 1,
                drawn_pairs: 1,
                b_pairs: 0,
            }
        );
        assert_eq!(m.score(), 0.75);
    }
}
