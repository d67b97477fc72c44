//! Search on tiny solved games (issue 4): best moves, value convergence,
//! Gumbel policy improvement, batched == unbatched, tree reuse, playout cap.

use std::convert::Infallible;

use dama_mcts::toy::{BonusNim, TicTacToe};
use dama_mcts::{
    step, Algorithm, Error, Evaluation, Evaluator, Game, Leaf, Outcome, Player, RolloutEvaluator,
    Search, SearchConfig, SearchResult, UniformEvaluator, Wdl,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn config(algorithm: Algorithm, simulations: u32) -> SearchConfig {
    SearchConfig {
        algorithm,
        simulations,
        ..SearchConfig::default()
    }
}

fn search_with_rollouts<G: Game>(game: G, cfg: SearchConfig, seed: u64) -> SearchResult<G::Action> {
    // Gumbel's deterministic interior selection trusts each value estimate
    // (σ grows with visits), so one random playout per leaf is too noisy
    // for it: average several.
    let rollouts = if cfg.algorithm == Algorithm::Gumbel {
        32
    } else {
        1
    };
    let mut search = Search::new(cfg, game).expect("valid config");
    let mut eval = RolloutEvaluator::new(rng(seed + 1000));
    eval.rollouts = rollouts;
    search.run(&mut eval, &mut rng(seed)).expect("search runs")
}

/// Every Bonus Nim heap where the player to act wins: the search plays a
/// winning action. Several winning lines need the bonus turn (take 3, act
/// again), so a search that assumed alternating players would fail here.
#[test]
fn bonus_nim_finds_winning_moves() {
    let mut checked = 0;
    for heap in 1..=16 {
        let game = BonusNim::new(heap);
        if !game.solve() {
            continue;
        }
        let winning: Vec<u32> = (1..=3)
            .filter(|&a| a <= heap && game.action_wins(a))
            .collect();
        assert!(!winning.is_empty());
        for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
            let r = search_with_rollouts(game, config(algorithm, 3000), u64::from(heap));
            assert!(
                game.action_wins(r.action),
                "heap {heap} {algorithm:?}: took {} (visits {:?}, policy {:?})",
                r.action,
                r.visits,
                r.policy
            );
            checked += 1;
        }
    }
    assert!(checked >= 2 * 11, "too few winning positions: {checked}");
    // The known solution (heaps 5, 8, 13, 16 lost; bonus-only wins at 4, 11, 12).
    let lost: Vec<u32> = (1..=16).filter(|&h| !BonusNim::new(h).solve()).collect();
    assert_eq!(lost, vec![5, 8, 13, 16]);
    for h in [4, 11, 12] {
        let g = BonusNim::new(h);
        assert!(g.action_wins(3) && !g.action_wins(1) && !g.action_wins(2));
    }
}

/// The bonus rule makes some positions with the same heap differ only by
/// who acts: both sides of the board are searched from Second's view too.
#[test]
fn bonus_nim_second_player_to_move() {
    for heap in [4u32, 5, 7, 8, 11] {
        let game = BonusNim {
            heap,
            to_play: Player::Second,
            last: Player::First,
        };
        let r = search_with_rollouts(game, config(Algorithm::Puct, 3000), 7);
        assert_eq!(r.to_play, Player::Second);
        if game.solve() {
            assert!(game.action_wins(r.action), "heap {heap}: took {}", r.action);
            assert!(r.value.scalar() > 0.0, "heap {heap}: {:?}", r.value);
        } else {
            assert!(r.value.scalar() < 0.0, "heap {heap}: {:?}", r.value);
        }
    }
}

/// The value-maximizing moves of a tic-tac-toe position, by exhaustive search.
fn optimal_moves(game: &TicTacToe) -> Vec<u8> {
    let best = game.solve();
    let mut actions = Vec::new();
    game.legal_actions(&mut actions);
    actions
        .into_iter()
        .filter(|&a| {
            let mut n = *game;
            n.apply(a);
            -n.solve() == best
        })
        .collect()
}

/// Tic-tac-toe positions with their optimal moves (by exhaustive solving):
/// win at once, block, and make a fork.
#[test]
fn tic_tac_toe_finds_best_moves() {
    let positions = [
        "XX. OO. ...", // X wins at once on 2 (not 5, which also threatens)
        "XO. X.. O..", // X wins only by the fork on 4
        "X.. .O. ..X", // O must play an edge, not a corner
        "X.O ... ...", // X wins by a corner: 3, 6 or 8
        "XO. ... ...", // X wins by 3, 4 or 6
        "X.. ... ...", // O must take the centre
        "O.X .X. ...", // O must block on 6
        "XOX ... ...", // X must take the centre
    ];
    for (k, p) in positions.iter().enumerate() {
        let game = TicTacToe::parse(p).expect("valid board");
        if game.outcome().is_some() {
            continue;
        }
        let optimal = optimal_moves(&game);
        assert!(optimal.len() < 8, "{p}: not a test of anything");
        for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
            let r = search_with_rollouts(game, config(algorithm, 4000), k as u64);
            assert!(
                optimal.contains(&r.action),
                "{p} {algorithm:?}: played {} not in {optimal:?}; visits {:?}",
                r.action,
                r.visits
            );
        }
    }
}

/// More simulations bring the root value closer to the solved value.
#[test]
fn root_value_converges_to_solved_value() {
    type Run = Box<dyn Fn(u32, u64) -> f32>;
    let games: Vec<(String, Run, f32)> = vec![
        {
            let g = BonusNim::new(7);
            let v = if g.solve() { 1.0 } else { -1.0 };
            (
                "nim 7".into(),
                Box::new(move |n, s| {
                    search_with_rollouts(g, config(Algorithm::Puct, n), s)
                        .value
                        .scalar()
                }),
                v,
            )
        },
        {
            let g = BonusNim::new(8);
            let v = if g.solve() { 1.0 } else { -1.0 };
            (
                "nim 8 (lost)".into(),
                Box::new(move |n, s| {
                    search_with_rollouts(g, config(Algorithm::Puct, n), s)
                        .value
                        .scalar()
                }),
                v,
            )
        },
        {
            let g = TicTacToe::parse("X.. .O. ..X").expect("valid");
            let v = g.solve() as f32;
            (
                "ttt draw".into(),
                Box::new(move |n, s| {
                    search_with_rollouts(g, config(Algorithm::Puct, n), s)
                        .value
                        .scalar()
                }),
                v,
            )
        },
        {
            let g = TicTacToe::parse("XX. OO. ...").expect("valid");
            let v = g.solve() as f32;
            (
                "ttt win".into(),
                Box::new(move |n, s| {
                    search_with_rollouts(g, config(Algorithm::Puct, n), s)
                        .value
                        .scalar()
                }),
                v,
            )
        },
    ];
    for (name, run, solved) in &games {
        let err = |n: u32| -> f32 { (0..4).map(|s| (run(n, s) - solved).abs()).sum::<f32>() / 4.0 };
        let (e_small, e_mid, e_large) = (err(32), err(512), err(8192));
        eprintln!(
            "{name}: solved {solved}, error 32: {e_small:.3}, 512: {e_mid:.3}, 8192: {e_large:.3}"
        );
        // (The solver can make even the small search exact: then both are 0.)
        assert!(
            e_large < e_small || e_large == 0.0,
            "{name}: {e_large} !< {e_small}"
        );
        assert!(e_large <= e_mid + 0.02, "{name}: {e_large} !<= {e_mid}");
        assert!(
            e_large < 0.25,
            "{name}: error {e_large} at 8192 simulations"
        );
    }
}

/// A game built to test Gumbel's policy improvement: at the root the
/// player picks one of `K` arms; every position below arm `a` is worth
/// exactly `Q[a]` to the root player, so Q estimates are exact.
#[derive(Clone, Debug)]
struct Bandit {
    arm: Option<u8>,
    depth: u8,
}

const K: usize = 24;

impl Game for Bandit {
    type Action = u8;
    fn to_play(&self) -> Player {
        if self.depth.is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }
    fn legal_actions(&self, out: &mut Vec<u8>) {
        match self.arm {
            None => out.extend(0..K as u8),
            Some(_) => out.extend(0..2),
        }
    }
    fn apply(&mut self, action: u8) {
        if self.arm.is_none() {
            self.arm = Some(action);
        }
        self.depth += 1;
    }
    fn outcome(&self) -> Option<Outcome> {
        (self.depth >= 60).then_some(Outcome::Draw)
    }
    fn hash(&self) -> u64 {
        u64::from(self.depth) << 8 | u64::from(self.arm.unwrap_or(255))
    }
}

/// Priors at the root and the exact arm values (for First).
struct BanditEval {
    prior: Vec<f32>,
    q: Vec<f32>,
}

impl Evaluator<Bandit> for BanditEval {
    type Error = Infallible;
    fn evaluate(&mut self, batch: &[Leaf<'_, Bandit>]) -> Result<Vec<Evaluation>, Infallible> {
        Ok(batch
            .iter()
            .map(|leaf| match leaf.state.arm {
                None => Evaluation {
                    policy: self.prior.clone(),
                    value: Wdl::DRAW,
                },
                Some(a) => Evaluation {
                    policy: vec![0.5; leaf.actions.len()],
                    value: Wdl::<dama_mcts::Abs>::from_scalar(self.q[a as usize], 0.0)
                        .to_pov(leaf.state.to_play()),
                },
            })
            .collect())
    }
}

/// Gumbel AlphaZero's guarantee: with exact Q, the action chosen by
/// sequential halving is never worse than the action the raw prior samples
/// with the same Gumbel noise (`argmax g + logits`), for any budget.
#[test]
fn gumbel_never_worse_than_prior_sample() {
    use rand::Rng;
    let mut gen = rng(99);
    let mut improvement = [0.0f32; 4];
    for trial in 0..40u64 {
        // Misleading priors: favoured arms tend to be bad.
        let q: Vec<f32> = (0..K).map(|_| gen.gen_range(-1.0..1.0)).collect();
        let logits: Vec<f32> = q
            .iter()
            .map(|v| -2.0 * v + gen.gen_range(-1.0..1.0))
            .collect();
        let z: f32 = logits.iter().map(|l| l.exp()).sum();
        let prior: Vec<f32> = logits.iter().map(|l| l.exp() / z).collect();
        let prior_value: f32 = prior.iter().zip(&q).map(|(p, v)| p * v).sum();
        for n in [2u32, 4, 8, 16] {
            let (mut mean_chosen, mut mean_sampled) = (0.0, 0.0);
            let seeds = 25;
            for seed in 0..seeds {
                let mut eval = BanditEval {
                    prior: prior.clone(),
                    q: q.clone(),
                };
                let mut search = Search::new(
                    config(Algorithm::Gumbel, n),
                    Bandit {
                        arm: None,
                        depth: 0,
                    },
                )
                .expect("valid");
                let r = search
                    .run(&mut eval, &mut rng(trial * 1000 + seed))
                    .expect("search runs");
                let g = search.root_gumbel();
                let sampled = (0..K)
                    .max_by(|&a, &b| (g[a] + prior[a].ln()).total_cmp(&(g[b] + prior[b].ln())))
                    .expect("arms");
                let chosen = r.action as usize;
                assert!(
                    q[chosen] >= q[sampled] - 1e-6,
                    "trial {trial} n={n}: chose q={} < prior sample q={}",
                    q[chosen],
                    q[sampled]
                );
                let sum: f32 = r.policy.iter().sum();
                assert!((sum - 1.0).abs() < 1e-5, "policy sums to {sum}");
                assert!(r.policy.iter().all(|p| *p >= 0.0));
                assert_eq!(r.simulations, n);
                mean_chosen += q[chosen] / seeds as f32;
                mean_sampled += q[sampled] / seeds as f32;
            }
            assert!(mean_chosen >= mean_sampled);
            improvement[n.trailing_zeros() as usize - 1] += (mean_chosen - prior_value) / 40.0;
        }
    }
    // Averaged over trials, the chosen action beats the prior's expected
    // value, and more simulations help more.
    eprintln!("E[q(chosen)] − E_prior[q] for n = 2, 4, 8, 16: {improvement:?}");
    assert!(improvement[0] > 0.0);
    assert!(improvement[3] > improvement[0]);
}

/// With Gumbel noise off (`gumbel_scale = 0`) the chosen arm is never worse
/// than the prior's favourite, and the improved policy puts more mass on
/// good arms than the prior.
#[test]
fn gumbel_deterministic_improves_on_prior_argmax() {
    let q: Vec<f32> = (0..K).map(|i| (i as f32 / K as f32) * 2.0 - 1.0).collect();
    let prior: Vec<f32> = {
        let raw: Vec<f32> = (0..K).map(|i| (K - i) as f32).collect();
        let s: f32 = raw.iter().sum();
        raw.iter().map(|r| r / s).collect()
    };
    for n in [2u32, 4, 8, 16, 64] {
        let cfg = SearchConfig {
            gumbel_scale: 0.0,
            ..config(Algorithm::Gumbel, n)
        };
        let mut search = Search::new(
            cfg,
            Bandit {
                arm: None,
                depth: 0,
            },
        )
        .expect("valid");
        let mut eval = BanditEval {
            prior: prior.clone(),
            q: q.clone(),
        };
        let r = search.run(&mut eval, &mut rng(0)).expect("runs");
        assert!(q[r.action as usize] >= q[0], "n={n}");
        let improved: f32 = r.policy.iter().zip(&q).map(|(p, v)| p * v).sum();
        let before: f32 = prior.iter().zip(&q).map(|(p, v)| p * v).sum();
        assert!(improved > before, "n={n}: {improved} <= {before}");
        assert!((r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}

/// A deterministic pseudo-network: priors and value from the position hash.
struct HashEval;

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

impl<G: Game> Evaluator<G> for HashEval {
    type Error = Infallible;
    fn evaluate(&mut self, batch: &[Leaf<'_, G>]) -> Result<Vec<Evaluation>, Infallible> {
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

/// Many searches sharing one batch (`step`) with batch size 1 give exactly
/// the results of each search run alone.
#[test]
fn batched_equals_unbatched_with_batch_one() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let cfg = SearchConfig {
            simulations: 300,
            dirichlet_epsilon: 0.25,
            temperature: 1.0,
            ..config(algorithm, 300)
        };
        let starts = ["...  ... ...", "X.. .O. ...", "XO. ... ...", ".X. ... ..O"];
        let games: Vec<TicTacToe> = starts
            .iter()
            .map(|s| TicTacToe::parse(s).expect("valid"))
            .collect();
        // Alone: each with its own rng.
        let alone: Vec<_> = games
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let mut s = Search::new(cfg.clone(), *g).expect("valid");
                s.run(&mut HashEval, &mut rng(i as u64)).expect("runs")
            })
            .collect();
        // Together: one evaluator call per round for all searches.
        let mut rngs: Vec<_> = (0..games.len()).map(|i| rng(i as u64)).collect();
        let mut searches: Vec<_> = games
            .iter()
            .map(|g| Search::new(cfg.clone(), *g).expect("valid"))
            .collect();
        for (s, r) in searches.iter_mut().zip(&mut rngs) {
            s.begin(r).expect("begins");
        }
        let mut rounds = 0;
        let mut max_batch = 0;
        loop {
            let n = step(searches.iter_mut(), &mut HashEval).expect("step");
            if n == 0 {
                break;
            }
            max_batch = max_batch.max(n);
            rounds += 1;
        }
        assert_eq!(max_batch, games.len());
        assert!(rounds >= 100, "{rounds} rounds");
        for ((s, r), a) in searches.iter_mut().zip(&mut rngs).zip(&alone) {
            let b = s.result(r).expect("result");
            assert_eq!(&b, a, "{algorithm:?}");
        }
    }
}

/// Several leaves per search (virtual loss) still find the right moves and
/// leave no virtual visit behind.
#[test]
fn virtual_loss_batches_find_best_moves() {
    // X to move must take the centre to draw.
    let game = TicTacToe::parse("XOX ... ...").expect("valid");
    assert_eq!(optimal_moves(&game), vec![4]);
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        for batch_size in [4u32, 16] {
            let cfg = SearchConfig {
                batch_size,
                ..config(algorithm, 2000)
            };
            let r = search_with_rollouts(game, cfg, 3);
            assert_eq!(
                r.action, 4,
                "{algorithm:?} batch {batch_size}: {:?}",
                r.visits
            );
            assert!(r.value.scalar().abs() < 0.5, "drawn: {:?}", r.value);
            assert_eq!(r.visits.iter().sum::<u32>(), 2000);
        }
    }
}

/// Tree reuse: the played action's subtree survives, with its visits.
#[test]
fn tree_reuse_keeps_subtree() {
    let game = TicTacToe::default();
    let mut search = Search::new(config(Algorithm::Puct, 500), game).expect("valid");
    let mut eval = HashEval;
    let mut r = rng(5);
    let first = search.run(&mut eval, &mut r).expect("runs");
    let kept = first.visits[first.action_index];
    search.advance(first.action).expect("legal");
    assert_eq!(search.tree().visits(dama_mcts::NodeId::ROOT), kept);
    let mut expected = game;
    expected.apply(first.action);
    assert_eq!(search.root_state(), &expected);
    let second = search.run(&mut eval, &mut r).expect("runs");
    assert_eq!(second.visits.iter().sum::<u32>(), kept - 1 + 500);
    // Without reuse the same position is searched from scratch.
    let mut fresh = Search::new(
        SearchConfig {
            reuse_tree: false,
            ..config(Algorithm::Puct, 500)
        },
        game,
    )
    .expect("valid");
    let f = fresh.run(&mut eval, &mut rng(5)).expect("runs");
    fresh.advance(f.action).expect("legal");
    assert_eq!(fresh.tree().visits(dama_mcts::NodeId::ROOT), 0);
    assert_eq!(fresh.tree().len(), 1 + 8);
}

/// Play whole games with tree reuse: every move legal, the game ends.
#[test]
fn self_play_games_with_reuse_end() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let cfg = SearchConfig {
            dirichlet_epsilon: 0.25,
            temperature: 1.0,
            ..config(algorithm, 64)
        };
        let mut search = Search::new(cfg, BonusNim::new(21)).expect("valid");
        let mut r = rng(11);
        let mut moves = 0;
        while !search.is_terminal() {
            let res = search.run(&mut HashEval, &mut r).expect("runs");
            search.advance(res.action).expect("legal");
            moves += 1;
        }
        assert!(moves >= 7);
        assert!(matches!(search.begin(&mut r), Err(Error::TerminalRoot)));
    }
}

/// Playout cap randomization: the share of full searches is about `p`,
/// fast searches run `fast_simulations` and are not training targets.
#[test]
fn playout_cap_randomization() {
    let cfg = SearchConfig {
        full_search_prob: 0.25,
        simulations: 40,
        fast_simulations: 8,
        dirichlet_epsilon: 0.25,
        ..SearchConfig::default()
    };
    let mut r = rng(3);
    let mut full = 0;
    let trials = 400;
    for _ in 0..trials {
        let mut s = Search::new(cfg.clone(), TicTacToe::default()).expect("valid");
        let res = s
            .run(&mut UniformEvaluator::default(), &mut r)
            .expect("runs");
        if res.is_training_target {
            full += 1;
            assert_eq!(res.simulations, 40);
        } else {
            assert_eq!(res.simulations, 8);
            // No noise in fast searches: uniform priors stay uniform.
            assert!(res.prior.iter().all(|p| (p - 1.0 / 9.0).abs() < 1e-6));
        }
    }
    let share = full as f32 / trials as f32;
    assert!((0.18..0.32).contains(&share), "full share {share}");
}

/// Dirichlet noise changes the search but not the reported raw priors.
#[test]
fn dirichlet_noise_only_at_root() {
    let cfg = SearchConfig {
        dirichlet_epsilon: 0.5,
        ..config(Algorithm::Puct, 100)
    };
    let mut s = Search::new(cfg, TicTacToe::default()).expect("valid");
    let res = s
        .run(&mut UniformEvaluator::default(), &mut rng(1))
        .expect("runs");
    assert!(res.prior.iter().all(|p| (p - 1.0 / 9.0).abs() < 1e-6));
    let root_priors: Vec<f32> = s
        .tree()
        .children(dama_mcts::NodeId::ROOT)
        .map(|c| s.tree().prior(c))
        .collect();
    assert!(root_priors.iter().any(|p| (p - 1.0 / 9.0).abs() > 1e-3));
    assert!((root_priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
}

#[test]
fn errors_are_reported() {
    let over = TicTacToe::parse("XXX OO. ...").expect("valid");
    let mut s = Search::new(SearchConfig::default(), over).expect("valid");
    assert!(matches!(s.begin(&mut rng(0)), Err(Error::TerminalRoot)));
    let mut s = Search::new(SearchConfig::default(), TicTacToe::default()).expect("valid");
    assert!(matches!(s.advance(42), Err(Error::IllegalAction)));
    s.begin(&mut rng(0)).expect("begins");
    assert_eq!(s.gather().expect("gathers"), 1);
    assert!(matches!(s.gather(), Err(Error::Pending)));
    assert!(matches!(
        s.apply(&[]),
        Err(Error::BatchSize {
            expected: 1,
            got: 0
        })
    ));
    let bad = Evaluation {
        policy: vec![1.0; 3],
        value: Wdl::DRAW,
    };
    assert!(matches!(
        s.apply(&[bad]),
        Err(Error::PolicyLength {
            expected: 9,
            got: 3
        })
    ));
    let bad_cfg = SearchConfig {
        simulations: 0,
        ..SearchConfig::default()
    };
    assert!(matches!(
        Search::new(bad_cfg, TicTacToe::default()),
        Err(Error::InvalidConfig {
            field: "simulations",
            ..
        })
    ));
}

#[test]
fn config_serde_round_trip_and_rejects_unknown_keys() {
    let cfg: SearchConfig =
        toml::from_str("algorithm = \"gumbel\"\nsimulations = 32\n").expect("parses");
    assert_eq!(cfg.algorithm, Algorithm::Gumbel);
    assert_eq!(cfg.simulations, 32);
    assert_eq!(cfg.c_puct_base, 19652.0);
    let text = toml::to_string(&SearchConfig::default()).expect("serializes");
    let back: SearchConfig = toml::from_str(&text).expect("parses back");
    assert_eq!(back, SearchConfig::default());
    assert!(toml::from_str::<SearchConfig>("simulation = 3\n").is_err());
}

/// An evaluator that fails on demand.
struct Flaky {
    fail: bool,
}

#[derive(Debug, thiserror::Error)]
#[error("flaky evaluator failed")]
struct FlakyError;

impl<G: Game> Evaluator<G> for Flaky {
    type Error = FlakyError;
    fn evaluate(&mut self, batch: &[Leaf<'_, G>]) -> Result<Vec<Evaluation>, FlakyError> {
        if self.fail {
            return Err(FlakyError);
        }
        HashEval.evaluate(batch).map_err(|e| match e {})
    }
}

/// After an evaluator error, `abandon_pending` lets the search go on, and
/// it ends exactly as if the failed round had never happened.
#[test]
fn evaluator_errors_can_be_recovered() {
    let cfg = SearchConfig {
        batch_size: 4,
        ..config(Algorithm::Gumbel, 200)
    };
    let game = TicTacToe::default();
    let mut clean = Search::new(cfg.clone(), game).expect("valid");
    let expected = clean.run(&mut HashEval, &mut rng(1)).expect("runs");
    let mut s = Search::new(cfg, game).expect("valid");
    let mut r = rng(1);
    s.begin(&mut r).expect("begins");
    let mut flaky = Flaky { fail: false };
    for round in 0.. {
        flaky.fail = round == 5;
        match step([&mut s], &mut flaky) {
            Ok(0) => break,
            Ok(_) => {}
            Err(Error::Evaluator(e)) => {
                assert_eq!(e.to_string(), "flaky evaluator failed");
                assert!(s.num_pending() > 0);
                s.abandon_pending();
            }
            Err(e) => panic!("{e}"),
        }
    }
    let got = s.result(&mut r).expect("result");
    assert_eq!(got, expected);
}

/// Two arms for First: a sure draw, or a gamble worth −0.1 (45% win, 55%
/// loss). A neutral search takes the draw; with contempt for draws
/// (`draw_score` −0.5) both algorithms take the gamble.
struct DrawOrGamble;

impl Evaluator<Bandit> for DrawOrGamble {
    type Error = Infallible;
    fn evaluate(&mut self, batch: &[Leaf<'_, Bandit>]) -> Result<Vec<Evaluation>, Infallible> {
        Ok(batch
            .iter()
            .map(|leaf| {
                let abs = match leaf.state.arm {
                    None | Some(0) => Wdl::<dama_mcts::Abs>::new(0.0, 1.0, 0.0),
                    Some(_) => Wdl::<dama_mcts::Abs>::new(0.45, 0.0, 0.55),
                };
                Evaluation {
                    policy: vec![1.0 / leaf.actions.len() as f32; leaf.actions.len()],
                    value: abs.to_pov(leaf.state.to_play()),
                }
            })
            .collect())
    }
}

#[test]
fn draw_score_turns_a_sure_draw_into_a_gamble() {
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        for (draw_score, expected) in [(0.0, 0u8), (-0.5, 1u8)] {
            let cfg = SearchConfig {
                draw_score,
                gumbel_scale: 0.0,
                gumbel_considered_actions: 2,
                ..config(algorithm, 64)
            };
            let mut search = Search::new(
                cfg,
                Bandit {
                    arm: None,
                    depth: 0,
                },
            )
            .expect("valid");
            let r = search
                .run(&mut DrawOrGamble, &mut rng(7))
                .expect("search runs");
            // Only the first two arms matter; the others are copies of arm 1.
            let chose_gamble = u8::from(r.action != 0);
            assert_eq!(
                chose_gamble, expected,
                "{algorithm:?} draw_score {draw_score}: chose arm {}",
                r.action
            );
        }
    }
}

#[test]
fn draw_score_out_of_range_is_rejected() {
    let cfg = SearchConfig {
        draw_score: -1.5,
        ..SearchConfig::default()
    };
    assert!(cfg.validate().is_err());
}

/// MCTS-Solver: on small Bonus Nim heaps (where a player may act twice in a
/// row) the search proves the root's exact result with a uniform
/// evaluator, reports it as the root value, and plays a winning action
/// whenever there is one.
#[test]
fn solver_proves_small_bonus_nim_heaps() {
    for heap in 1..=10u32 {
        let game = BonusNim::new(heap);
        let wins = game.solve();
        for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
            let mut search = Search::new(config(algorithm, 3000), game).expect("valid");
            let r = search
                .run(&mut UniformEvaluator::default(), &mut rng(u64::from(heap)))
                .expect("search runs");
            let root = dama_mcts::NodeId::ROOT;
            let expected = if wins { Player::First } else { Player::Second };
            assert_eq!(
                search.tree().proven(root),
                Some(expected),
                "{algorithm:?} heap {heap}: root not proven"
            );
            let v = r.value.scalar();
            assert_eq!(v, if wins { 1.0 } else { -1.0 }, "heap {heap}");
            if wins {
                assert!(
                    game.action_wins(r.action),
                    "{algorithm:?} heap {heap}: played {} which does not win",
                    r.action
                );
            }
        }
    }
}

/// With the solver off nothing above the terminal positions is proven.
#[test]
fn solver_off_proves_nothing_above_terminals() {
    let game = BonusNim::new(6);
    let cfg = SearchConfig {
        solver: false,
        ..config(Algorithm::Puct, 3000)
    };
    let mut search = Search::new(cfg, game).expect("valid");
    search
        .run(&mut UniformEvaluator::default(), &mut rng(1))
        .expect("search runs");
    assert_eq!(search.tree().proven(dama_mcts::NodeId::ROOT), None);
}
