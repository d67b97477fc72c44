//! The batched arena, for every game: many games in flight whose checkpoint players share
//! one network call per round, as self-play does.
//!
//! Each round, every game advances (in parallel, on rayon) until its side to
//! move needs a network evaluation: players without a batchable search
//! choose their move there and then; a checkpoint player steps through its
//! turn decision by decision (a capture jump by jump: [`TurnSearch`], one
//! search per decision) and gathers a leaf. Then the pending leaves of each network go to it as one batch
//! ([`driver::evaluate_pending`]), and each search applies its evaluations.
//!
//! A game's randomness comes from the same generator as in
//! [`play_match`](crate::play_match)'s unbatched path (the match seed and the
//! game's index), used in the same order, and the searches are the players'
//! own, so the moves are the same as unbatched: only the grouping of the
//! network calls differs.

use std::collections::BTreeMap;

use dama_game::GameDef;
use dama_mcts::{driver, Budget, Player as Seat, SearchConfig, TurnSearch};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::arena::{
    game_rng, play_checked, score_and_record, MatchConfig, MatchProgress, MatchResult, MoveSearch,
    PlayedPair, Tally,
};
use crate::openings::Opening;
use crate::player::{Player, PlayerFactory};
use crate::searcher::BatchedSearcher;
use crate::Error;

/// One side of a game: a player the arena calls, or a batched searcher
/// (index 0 = A, 1 = B).
enum Side<G: GameDef> {
    Player(Box<dyn Player<G>>),
    Batched(usize),
}

/// One game in flight.
struct Slot<G: GameDef> {
    index: u32,
    opening_index: usize,
    a_is_first: bool,
    game: G::Game,
    /// Every move's text, the opening's included.
    moves: Vec<String>,
    /// What each move's player reported, after the opening (a batched
    /// search reports no score).
    searches: Vec<MoveSearch>,
    rng: ChaCha8Rng,
    /// The players of the first and the second side.
    sides: [Side<G>; 2],
    /// The turn being decided by a batched side, decision by decision.
    turn: Option<TurnSearch<G::State>>,
    /// Which searcher the pending leaves are for.
    waiting: Option<usize>,
    done: bool,
}

impl<G: GameDef> Slot<G> {
    /// Advances the game until a search waits for evaluations or the game
    /// is over.
    fn advance(
        &mut self,
        configs: [Option<&SearchConfig>; 2],
        names: [&str; 2],
        max_plies: u32,
    ) -> Result<(), Error> {
        self.waiting = None;
        loop {
            if self.done {
                return Ok(());
            }
            if self.turn.is_none()
                && ((G::plies(&self.game) as u32) >= max_plies || G::outcome(&self.game).is_some())
            {
                self.done = true;
                return Ok(());
            }
            let seat = G::to_play(&self.game);
            let side = match seat {
                Seat::First => &mut self.sides[0],
                Seat::Second => &mut self.sides[1],
            };
            let net = match side {
                Side::Player(player) => {
                    let choice = player
                        .think(&self.game, None, &mut self.rng)
                        .map_err(|e| Error::from_move(player.name(), e))?;
                    play_checked::<G>(&mut self.game, &choice.best, player.name())?;
                    self.moves.push(choice.best.to_string());
                    self.searches
                        .push(MoveSearch::of(seat == Seat::First, &choice));
                    continue;
                }
                Side::Batched(net) => *net,
            };
            let name = names[net];
            let config = configs[net].ok_or_else(|| Error::player(name, "no search".into()))?;
            let turn = match &mut self.turn {
                Some(turn) => turn,
                None => self.turn.insert(
                    TurnSearch::new(config.clone(), G::search_state(&self.game))
                        .map_err(|e| crate::mcts_player::fail(name, e))?,
                ),
            };
            if turn
                .advance(&mut Budget::default(), &mut self.rng)
                .map_err(|e| crate::mcts_player::fail(name, e))?
            {
                self.waiting = Some(net);
                return Ok(());
            }
            let m = G::complete_turn(&self.game, turn.actions()).map_err(|e| Error::Move {
                player: name.to_owned(),
                source: e,
            })?;
            self.turn = None;
            play_checked::<G>(&mut self.game, &m, name)?;
            self.moves.push(m.to_string());
            self.searches.push(MoveSearch {
                first: seat == Seat::First,
                score: None,
            });
        }
    }

    fn search_mut(&mut self) -> Option<&mut dama_mcts::Search<G::State>> {
        self.turn.as_mut().and_then(TurnSearch::search_mut)
    }
}

/// Plays a match with `batch_games` games in flight, batching the network
/// calls of the sides that have a searcher (see the module docs).
pub(crate) fn run_batched<G: GameDef>(
    a: &dyn PlayerFactory<G>,
    b: &dyn PlayerFactory<G>,
    config: &MatchConfig<G::Rules>,
    openings: &[Opening<G>],
    searchers: [Option<BatchedSearcher<G::State>>; 2],
    on_progress: &(dyn Fn(&MatchProgress) + Sync),
) -> Result<MatchResult, Error> {
    let names = [a.name(), b.name()];
    let [sa, sb] = searchers;
    let (ca, mut ea) = sa.map(|s| (s.config, s.evaluator)).unzip();
    let (cb, mut eb) = sb.map(|s| (s.config, s.evaluator)).unzip();
    let configs = [ca.as_ref(), cb.as_ref()];
    let mut tally = Tally::new::<G>();
    let mut pending_pairs: BTreeMap<u32, PlayedPair> = BTreeMap::new();
    let mut slots: Vec<Slot<G>> = Vec::new();
    let mut next = 0u32;
    let mut stopped = false;
    let side = |net: usize| -> Result<Side<G>, Error> {
        Ok(if configs[net].is_some() {
            Side::Batched(net)
        } else {
            let player = if net == 0 { a.build()? } else { b.build()? };
            Side::Player(player)
        })
    };
    loop {
        while !stopped && next < config.games && slots.len() < config.batch_games.max(1) {
            let k = next / 2;
            let opening_index = k as usize % openings.len();
            let a_is_first = next.is_multiple_of(2);
            let mut sides = if a_is_first {
                [side(0)?, side(1)?]
            } else {
                [side(1)?, side(0)?]
            };
            for s in &mut sides {
                if let Side::Player(p) = s {
                    p.new_game();
                }
            }
            let opening = &openings[opening_index];
            slots.push(Slot {
                index: next,
                opening_index,
                a_is_first,
                game: opening.game()?,
                moves: opening.moves.iter().map(ToString::to_string).collect(),
                searches: Vec::new(),
                rng: game_rng(config.seed, next),
                sides,
                turn: None,
                waiting: None,
                done: false,
            });
            next += 1;
        }
        if slots.is_empty() {
            break;
        }
        slots
            .par_iter_mut()
            .map(|s| s.advance(configs, names, config.max_plies))
            .collect::<Result<(), Error>>()?;

        // Finished games, counted when both games of their opening are in.
        let mut i = 0;
        while i < slots.len() {
            if !slots[i].done {
                i += 1;
                continue;
            }
            let s = slots.swap_remove(i);
            let opening = &openings[s.opening_index];
            let (first, second) = if s.a_is_first {
                (names[0], names[1])
            } else {
                (names[1], names[0])
            };
            let (score_first, mut record) =
                score_and_record::<G>(&s.game, opening, s.moves, first, second, None);
            record.searches = s.searches;
            record.game = s.index;
            record.opening = s.opening_index as u32;
            let score_a = if s.a_is_first {
                score_first
            } else {
                score_first.flipped()
            };
            let k = s.index / 2;
            let pair = pending_pairs.entry(k).or_default();
            pair.push((score_a, s.a_is_first, record));
            let expected = if 2 * k + 1 < config.games { 2 } else { 1 };
            if pair.len() == expected {
                let mut played = pending_pairs.remove(&k).unwrap_or_default();
                played.sort_by_key(|(_, _, r)| r.game);
                if tally.add_pair(&played, (names[0], names[1]), config, on_progress) {
                    stopped = true;
                }
            }
        }

        // One network call per searcher for all games waiting on it.
        for (net, evaluator) in [ea.as_mut(), eb.as_mut()].into_iter().enumerate() {
            let Some(evaluator) = evaluator else { continue };
            driver::evaluate_pending(
                slots
                    .iter_mut()
                    .filter(|s| s.waiting == Some(net))
                    .filter_map(Slot::search_mut),
                evaluator.as_mut(),
            )
            .map_err(|e| crate::mcts_player::fail(names[net], e))?;
        }
    }
    // A pair cut short by the SPRT is counted game by game.
    for (_, played) in std::mem::take(&mut pending_pairs) {
        for g in played {
            tally.add_pair(&[g], (names[0], names[1]), config, on_progress);
        }
    }
    tally.into_result::<G>((names[0], names[1]), config, openings.len())
}
