//! The search driver (issue 14): budgets of simulations and time, many
//! searches in one evaluator call, the evaluation cache, whole turns.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use dama_mcts::toy::{BonusNim, TicTacToe};
use dama_mcts::{
    driver, search_turn, Algorithm, Budget, CacheError, CachedEvaluator, Error, EvalCache,
    Evaluation, Evaluator, Game, Leaf, Search, SearchConfig, SearchResult, TurnPolicy, TurnSearch,
    UniformEvaluator, Wdl,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// A deterministic evaluator (a function of the position's hash) that
/// counts its calls and the positions it was given.
#[derive(Default)]
struct Counting {
    calls: usize,
    positions: usize,
}

impl<G: Game> Evaluator<G> for Counting {
    type Error = Infallible;
    fn evaluate(&mut self, batch: &[Leaf<'_, G>]) -> Result<Vec<Evaluation>, Infallible> {
        self.calls += 1;
        self.positions += batch.len();
        Ok(batch
            .iter()
            .map(|leaf| {
                let h = leaf.state.hash();
                let policy = (0..leaf.actions.len() as u64)
                    .map(|i| 0.1 + (mix(h ^ (i << 40)) % 1000) as f32 / 1000.0)
                    .collect();
                let v = (mix(h) % 2001) as f32 / 1000.0 - 1.0;
                Evaluation {
                    policy,
                    value: Wdl::from_scalar(v * 0.8, 0.1),
                }
            })
            .collect())
    }
}

fn config(algorithm: Algorithm, batch_size: u32) -> SearchConfig {
    SearchConfig {
        algorithm,
        batch_size,
        simulations: 500,
        ..SearchConfig::default()
    }
}

#[test]
fn a_simulation_budget_is_exact() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        for batch in [1, 4] {
            for n in [1, 7, 64, 200] {
                let mut s = Search::new(config(algorithm, batch), TicTacToe::default()).unwrap();
                let r = driver::run(
                    &mut s,
                    &mut Counting::default(),
                    &Budget::simulations(n),
                    &mut rng(1),
                )
                .unwrap();
                assert_eq!(r.simulations, n, "{algorithm:?} batch {batch}");
                assert_eq!(s.config().simulations, n);
            }
        }
    }
    let mut s = Search::new(SearchConfig::default(), TicTacToe::default()).unwrap();
    for bad in [0, dama_mcts::MAX_SIMULATIONS + 1] {
        assert!(matches!(
            driver::run(
                &mut s,
                &mut Counting::default(),
                &Budget::simulations(bad),
                &mut rng(0)
            ),
            Err(Error::InvalidConfig { .. })
        ));
    }
}

/// A deadline that has passed still evaluates the root and starts
/// `min_simulations`; a short one stops a search that would run a million
/// simulations; a far one lets the simulations decide; more time never
/// gives fewer simulations.
#[test]
fn a_time_budget_stops_and_is_monotone() {
    let cfg = SearchConfig {
        simulations: dama_mcts::MAX_SIMULATIONS,
        ..SearchConfig::default()
    };
    let sims = |budget: Budget| -> (u32, u32, Duration) {
        let mut s = Search::new(cfg.clone(), BonusNim::new(40)).unwrap();
        let t = Instant::now();
        let r = driver::run(
            &mut s,
            &mut UniformEvaluator::default(),
            &budget,
            &mut rng(2),
        )
        .unwrap();
        (
            r.simulations,
            s.tree().visits(dama_mcts::NodeId::ROOT),
            t.elapsed(),
        )
    };
    let past = Instant::now();
    let (n, root_visits, _) = sims(Budget::until(past));
    assert_eq!((n, root_visits), (0, 1));
    let (n, _, _) = sims(Budget::until(past).with_min_simulations(5));
    assert_eq!(n, 5);
    let (short, _, elapsed) = sims(Budget::time(Duration::from_millis(30)));
    assert!(short < dama_mcts::MAX_SIMULATIONS, "{short}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    assert!(short >= 5);
    let far = Budget::time(Duration::from_secs(3600)).with_simulations(300);
    assert_eq!(sims(far).0, 300);
}

/// Rounds of `gather` + one `evaluate_pending` call for many searches give
/// the results of each search run alone, with one evaluator call per round.
#[test]
fn many_searches_in_one_call_equal_separate_searches() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let cfg = SearchConfig {
            temperature: 1.0,
            ..config(algorithm, 1)
        };
        let games: Vec<BonusNim> = (10..16).map(BonusNim::new).collect();
        let alone: Vec<SearchResult<u32>> = games
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let mut s = Search::new(cfg.clone(), *g).unwrap();
                s.run(&mut Counting::default(), &mut rng(i as u64)).unwrap()
            })
            .collect();
        let mut searches: Vec<Search<BonusNim>> = games
            .iter()
            .map(|g| Search::new(cfg.clone(), *g).unwrap())
            .collect();
        let mut rngs: Vec<ChaCha8Rng> = (0..games.len() as u64).map(rng).collect();
        for (s, r) in searches.iter_mut().zip(&mut rngs) {
            s.begin(r).unwrap();
        }
        let mut net = Counting::default();
        let mut rounds = 0;
        loop {
            let mut any = false;
            for s in &mut searches {
                any |= driver::gather(s, &Budget::default()).unwrap();
            }
            if !any {
                break;
            }
            rounds += 1;
            let n = driver::evaluate_pending(searches.iter_mut(), &mut net).unwrap();
            assert!(n > 0 && n <= games.len());
        }
        assert_eq!(net.calls, rounds);
        for ((s, r), expected) in searches.iter_mut().zip(&mut rngs).zip(&alone) {
            assert_eq!(&s.result(r).unwrap(), expected, "{algorithm:?}");
        }
    }
}

#[test]
fn evaluate_pending_without_leaves_does_not_call_the_evaluator() {
    let mut net = Counting::default();
    let mut searches: Vec<Search<BonusNim>> = Vec::new();
    assert_eq!(
        driver::evaluate_pending(&mut searches, &mut net).unwrap(),
        0
    );
    assert_eq!(net.calls, 0);
}

/// The cache answers exactly what the wrapped evaluator said: searches are
/// the same with and without it, and repeated searches hit it.
#[test]
fn the_cache_returns_the_same_evaluations() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let cfg = config(algorithm, 4);
        let plain = Search::new(cfg.clone(), TicTacToe::default())
            .unwrap()
            .run(&mut Counting::default(), &mut rng(3))
            .unwrap();
        let mut cached = CachedEvaluator::new(Counting::default(), EvalCache::new(100_000));
        for round in 0..3 {
            let r = Search::new(cfg.clone(), TicTacToe::default())
                .unwrap()
                .run(&mut cached, &mut rng(3))
                .unwrap();
            assert_eq!(r, plain, "{algorithm:?} round {round}");
        }
        assert_eq!(cached.misses(), cached.inner().positions as u64);
        assert!(cached.hits() >= 2 * cached.misses(), "{}", cached.hits());
        // Transpositions within one batch are both misses, stored once.
        let stored = cached.cache().len() as u64;
        assert!(stored > 0 && stored <= cached.misses(), "{stored}");
    }
}

/// The cache never holds more than its capacity, and capacity 0 disables it.
#[test]
fn the_cache_is_bounded() {
    for capacity in [0, 1, 10, 37] {
        let mut cache = EvalCache::new(capacity);
        {
            let mut cached = CachedEvaluator::new(Counting::default(), &mut cache);
            let mut s = Search::new(config(Algorithm::Puct, 1), TicTacToe::default()).unwrap();
            let mut rounds = 0;
            s.begin(&mut rng(4)).unwrap();
            while driver::gather(&mut s, &Budget::default()).unwrap() {
                driver::evaluate_pending(std::iter::once(&mut s), &mut cached).unwrap();
                assert!(cached.cache().len() <= capacity);
                rounds += 1;
            }
            assert!(rounds > 100);
            if capacity == 0 {
                assert_eq!(cached.hits(), 0);
            }
        }
        assert!(cache.len() <= capacity);
        cache.clear();
        assert!(cache.is_empty());
    }
}

/// An evaluator that returns one evaluation too few.
struct Short;

impl<G: Game> Evaluator<G> for Short {
    type Error = Infallible;
    fn evaluate(&mut self, batch: &[Leaf<'_, G>]) -> Result<Vec<Evaluation>, Infallible> {
        Ok(batch
            .iter()
            .skip(1)
            .map(|l| Evaluation {
                policy: vec![1.0; l.actions.len()],
                value: Wdl::DRAW,
            })
            .collect())
    }
}

#[test]
fn the_cache_reports_a_short_batch() {
    let mut cached = CachedEvaluator::new(Short, EvalCache::new(100));
    let game = TicTacToe::default();
    let mut actions = Vec::new();
    game.legal_actions(&mut actions);
    let leaf = Leaf {
        state: &game,
        actions: &actions,
    };
    let err = cached.evaluate(&[leaf, leaf]).unwrap_err();
    assert!(matches!(
        err,
        CacheError::BatchSize {
            expected: 2,
            got: 1
        }
    ));
    assert!(cached.cache().is_empty());
}

/// A policy that records what the turn asked and searched.
#[derive(Default)]
struct Recording {
    plans: Vec<(u32, usize)>,
    searched: Vec<u32>,
}

impl TurnPolicy<BonusNim> for Recording {
    fn plan(&mut self, _: &BonusNim, actions: &[u32], decision: u32) -> Option<Budget> {
        self.plans.push((decision, actions.len()));
        (actions.len() > 1).then_some(Budget::simulations(50))
    }
    fn searched(&mut self, search: &Search<BonusNim>, result: &SearchResult<u32>) {
        assert_eq!(search.simulations(), result.simulations);
        self.searched.push(result.action);
    }
}

/// A turn lasts while the same player acts: in Bonus Nim taking 3 and
/// leaving an odd heap gives another action. Forced actions are played
/// without a search, and turns stepped together equal turns searched alone.
#[test]
fn a_turn_is_searched_action_by_action() {
    let cfg = SearchConfig {
        simulations: 50,
        ..SearchConfig::default()
    };
    // Heap 1: one legal action, no search and no evaluation.
    let mut net = Counting::default();
    let mut policy = Recording::default();
    let actions = search_turn(&cfg, BonusNim::new(1), &mut net, &mut policy, &mut rng(0)).unwrap();
    assert_eq!(actions, vec![1]);
    assert_eq!(net.calls, 0);
    assert_eq!(policy.plans, vec![(0, 1)]);
    assert!(policy.searched.is_empty());

    let heaps: Vec<u32> = (4..40).collect();
    let mut bonus_turns = 0;
    let alone: Vec<Vec<u32>> = heaps
        .iter()
        .map(|&h| {
            let mut policy = Recording::default();
            let actions = search_turn(
                &cfg,
                BonusNim::new(h),
                &mut Counting::default(),
                &mut policy,
                &mut rng(u64::from(h)),
            )
            .unwrap();
            // Every action of the turn but the last leaves the same player
            // to act.
            let mut g = BonusNim::new(h);
            for (i, &a) in actions.iter().enumerate() {
                let me = g.to_play();
                g.apply(a);
                assert_eq!(
                    g.to_play() == me && g.outcome().is_none(),
                    i + 1 < actions.len()
                );
            }
            bonus_turns += usize::from(actions.len() > 1);
            let searched: Vec<u32> = policy
                .plans
                .iter()
                .zip(&actions)
                .filter(|((_, n), _)| *n > 1)
                .map(|(_, &a)| a)
                .collect();
            assert_eq!(policy.searched, searched);
            actions
        })
        .collect();
    assert!(bonus_turns > 0, "no turn took a bonus action");

    let mut turns: Vec<TurnSearch<BonusNim>> = heaps
        .iter()
        .map(|&h| TurnSearch::new(cfg.clone(), BonusNim::new(h)).unwrap())
        .collect();
    let mut rngs: Vec<ChaCha8Rng> = heaps.iter().map(|&h| rng(u64::from(h))).collect();
    let mut net = Counting::default();
    loop {
        let mut waiting = false;
        for (t, r) in turns.iter_mut().zip(&mut rngs) {
            waiting |= t.advance(&mut Recording::default(), r).unwrap();
        }
        if !waiting {
            break;
        }
        driver::evaluate_pending(
            turns.iter_mut().filter_map(TurnSearch::search_mut),
            &mut net,
        )
        .unwrap();
    }
    for (t, expected) in turns.iter().zip(&alone) {
        assert!(t.is_done());
        assert_eq!(t.actions(), expected.as_slice());
    }
}

#[test]
fn a_finished_game_has_no_turn() {
    let over = BonusNim::new(0);
    assert!(matches!(
        TurnSearch::new(SearchConfig::default(), over),
        Err(Error::TerminalRoot)
    ));
}

/// The most visited child of `id` in `tree`, with its action.
fn most_visited(
    tree: &dama_mcts::Tree<BonusNim>,
    id: dama_mcts::NodeId,
) -> (dama_mcts::NodeId, u32) {
    let best = tree
        .children(id)
        .max_by_key(|&c| tree.visits(c))
        .expect("an expanded node has children");
    (best, tree.action(best).expect("a child has an action"))
}

/// Tree reuse for a player told positions (issue 29): `reroot_at` finds a
/// position two actions below the root and keeps its subtree's visits; a
/// position the tree does not hold, or holds deeper than asked, leaves the
/// tree as it was.
#[test]
fn reroot_at_keeps_the_subtree_of_a_position_below_the_root() {
    let cfg = SearchConfig {
        simulations: 400,
        ..config(Algorithm::Puct, 1)
    };
    let root = BonusNim::new(30);
    let mut search = Search::new(cfg, root).unwrap();
    search.run(&mut Counting::default(), &mut rng(1)).unwrap();
    let tree = search.tree();
    let (child, a) = most_visited(tree, dama_mcts::NodeId::ROOT);
    let (_, b) = most_visited(tree, child);
    let mut target = root;
    target.apply(a);
    target.apply(b);
    // The position may be reached in several ways (taking 1 then 2 or 2
    // then 1): the most visited of them is kept.
    let visits = tree
        .children(dama_mcts::NodeId::ROOT)
        .flat_map(|c| tree.children(c).map(move |g| (c, g)))
        .filter(|&(c, g)| {
            let mut s = root;
            s.apply(tree.action(c).unwrap());
            s.apply(tree.action(g).unwrap());
            s.hash() == target.hash() && s.to_play == target.to_play
        })
        .map(|(_, g)| tree.visits(g))
        .max()
        .unwrap();
    assert!(visits > 10, "{visits}");
    let len = tree.len();

    // Not held: the tree is unchanged.
    assert!(!search.reroot_at(&BonusNim::new(31), 8).unwrap());
    assert!(!search.reroot_at(&target, 1).unwrap());
    assert_eq!(search.tree().len(), len);
    assert_eq!(*search.root_state(), root);

    assert!(search.reroot_at(&target, 2).unwrap());
    assert_eq!(search.root_state().hash(), target.hash());
    assert_eq!(search.root_state().to_play, target.to_play);
    assert_eq!(search.tree().visits(dama_mcts::NodeId::ROOT), visits);
    assert!(search.tree().len() < len);
    // The kept tree searches on: the new visits add to the kept ones.
    let r = search.run(&mut Counting::default(), &mut rng(2)).unwrap();
    assert_eq!(search.kept_visits(), visits);
    assert_eq!(
        search.tree().visits(dama_mcts::NodeId::ROOT),
        visits + r.simulations
    );
}

/// A turn continues from the kept tree of the last one: with
/// `reuse_tree`, the second move's search starts with the visits the
/// first spent below the position reached (its action and the reply);
/// without it, nothing is kept and every search starts fresh.
#[test]
fn a_turn_continues_from_the_last_turns_tree() {
    #[derive(Default)]
    struct RootVisits(Vec<(u32, u32)>);
    impl TurnPolicy<BonusNim> for RootVisits {
        fn plan(&mut self, _: &BonusNim, actions: &[u32], _: u32) -> Option<Budget> {
            (actions.len() > 1).then_some(Budget::simulations(200))
        }
        fn searched(&mut self, search: &Search<BonusNim>, result: &SearchResult<u32>) {
            let visits = search.tree().visits(dama_mcts::NodeId::ROOT);
            // A fresh root's own evaluation is one more visit.
            let fresh = u32::from(search.kept_visits() == 0);
            assert_eq!(visits, search.kept_visits() + result.simulations + fresh);
            self.0.push((visits, result.simulations));
        }
    }
    for reuse in [true, false] {
        let cfg = SearchConfig {
            reuse_tree: reuse,
            ..config(Algorithm::Puct, 1)
        };
        let mut net = Counting::default();
        let mut state = BonusNim::new(37);
        let mut first = RootVisits::default();
        let (actions, kept) =
            dama_mcts::search_turn_reusing(&cfg, state, None, &mut net, &mut first, &mut rng(3))
                .unwrap();
        assert_eq!(kept.is_some(), reuse);
        // Our turn, then the opponent's: the reply the kept tree searched
        // most (the first legal action without a tree), one action at a
        // time while the opponent acts.
        let mut node = kept.as_ref().map(|s| {
            let mut at = BonusNim::new(37);
            let skip = actions
                .iter()
                .position(|_| {
                    let here = at == *s.root_state();
                    at.apply(actions[0]);
                    here
                })
                .unwrap_or(0);
            let mut id = dama_mcts::NodeId::ROOT;
            for &a in &actions[skip..] {
                id = s
                    .tree()
                    .children(id)
                    .find(|&c| s.tree().action(c) == Some(a))
                    .unwrap();
            }
            id
        });
        for a in actions {
            state.apply(a);
        }
        let opponent = state.to_play;
        while state.to_play == opponent && state.outcome().is_none() {
            let a = match (&kept, node) {
                (Some(s), Some(id)) if s.tree().visits(id) > 1 => {
                    let (child, a) = most_visited(s.tree(), id);
                    node = Some(child);
                    a
                }
                _ => {
                    let mut legal = Vec::new();
                    state.legal_actions(&mut legal);
                    legal[0]
                }
            };
            state.apply(a);
        }
        if state.outcome().is_some() {
            continue;
        }
        let mut second = RootVisits::default();
        dama_mcts::search_turn_reusing(&cfg, state, kept, &mut net, &mut second, &mut rng(4))
            .unwrap();
        let (visits, sims) = second.0[0];
        if reuse {
            assert!(
                visits > sims + 1,
                "reused nothing: {visits} visits, {sims} simulations"
            );
        } else {
            assert!(visits <= sims + 1, "{visits} visits, {sims} simulations");
        }
    }
}
