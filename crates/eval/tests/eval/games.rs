//! One arena for every game: the same generic functions play Turkish
//! draughts and Turkish Tafl, keep A's results per side, and (for Tafl)
//! the tournament scoring; network searches are batched across games the
//! same way for both.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use dama_draughts::Draughts;
use dama_eval::{
    games, parse_player, play_match, BatchedSearcher, Error, GameEnd, MatchConfig, MatchResult,
    NetworkError, Player, PlayerFactory, PlayerSpec,
};
use dama_game::GameDef;
use dama_mcts::{Evaluation, Evaluator, Leaf, SearchConfig, UniformEvaluator};
use dama_tafl::Tafl;

fn config<G: GameDef>(games: u32, seed: u64, batch_games: usize) -> MatchConfig<G::Rules> {
    MatchConfig {
        games,
        seed,
        batch_games,
        keep_records: true,
        ..MatchConfig::default()
    }
}

fn baselines<G: GameDef>(a: &str, b: &str, config: &MatchConfig<G::Rules>) -> MatchResult {
    let a = parse_player::<G>(a, &Default::default()).expect("player a");
    let b = parse_player::<G>(b, &Default::default()).expect("player b");
    play_match(a.as_ref(), b.as_ref(), config, &|_| {}).expect("match")
}

/// Replays every record with the game's own rules: the moves parse and
/// play from the start, and the result is the recorded one.
fn check_replay<G: GameDef>(r: &MatchResult) {
    for (i, rec) in r.records.iter().enumerate() {
        assert_eq!(rec.game, i as u32);
        let mut game = G::parse_position(&G::Rules::default(), &rec.start).expect("start");
        for m in &rec.moves {
            let mv = G::parse_move(&game, m).expect("recorded move parses");
            G::play(&mut game, &mv).expect("recorded move plays");
        }
        let winner = G::outcome(&game).and_then(|o| match o {
            dama_mcts::Outcome::Win(p) => Some(p),
            dama_mcts::Outcome::Draw => None,
        });
        assert_eq!(winner, rec.winner(), "{rec:?}");
        assert_eq!(G::tournament().and_then(|p| p(&game)), rec.points);
    }
    for pair in r.records.chunks(2) {
        let n = pair[0].opening_plies as usize;
        assert_eq!(pair[0].moves[..n], pair[1].moves[..n]);
        if let [x, y] = pair {
            assert_eq!(
                (x.first.as_str(), x.second.as_str()),
                (r.a.as_str(), r.b.as_str())
            );
            assert_eq!(
                (y.first.as_str(), y.second.as_str()),
                (r.b.as_str(), r.a.as_str())
            );
        }
    }
}

/// Greedy against random in a game of `G`: per-side results add up to the
/// total, the games replay, the result does not depend on batching.
fn greedy_beats_random<G: GameDef>() -> MatchResult {
    let games = 8;
    let r = baselines::<G>("greedy", "random", &config::<G>(games, 3, 8));
    let unbatched = baselines::<G>("greedy", "random", &config::<G>(games, 3, 0));
    assert_eq!(r, unbatched);
    assert_eq!(r.games, games);
    assert_eq!(r.a_first.games(), games / 2);
    assert_eq!(r.a_second.games(), games / 2);
    assert_eq!(r.wdl.wins, r.a_first.wins + r.a_second.wins);
    assert_eq!(r.wdl.draws, r.a_first.draws + r.a_second.draws);
    assert_eq!(r.wdl.losses, r.a_first.losses + r.a_second.losses);
    let sides = G::geometry().sides.map(|s| s.name.to_owned());
    assert_eq!(r.sides, sides);
    let text = r.to_string();
    assert!(
        text.contains(&format!("as {} +", sides[0]))
            && text.contains(&format!("as {} +", sides[1])),
        "{text}"
    );
    check_replay::<G>(&r);
    r
}

#[test]
fn the_same_arena_plays_both_games() {
    let d = greedy_beats_random::<Draughts>();
    assert_eq!(d.sides, ["White", "Black"]);
    assert_eq!(d.tournament, None);
    assert!(d.score() > 0.5, "{d}");
    let t = greedy_beats_random::<Tafl>();
    assert_eq!(t.sides, ["Defenders", "King side"]);
    let score = t.tournament.expect("Turkish Tafl scores tournaments");
    assert_eq!(score.a_pairs + score.drawn_pairs + score.b_pairs, 4);
    let points = |a_won: dama_eval::GameScore| -> u64 {
        t.records
            .iter()
            .enumerate()
            .filter(|(i, r)| {
                let a_first = i % 2 == 0;
                let first_won = r.result == "1-0";
                let second_won = r.result == "0-1";
                match a_won {
                    dama_eval::GameScore::Win => (a_first && first_won) || (!a_first && second_won),
                    _ => (a_first && second_won) || (!a_first && first_won),
                }
            })
            .map(|(_, r)| u64::from(r.points.expect("a winner has points")))
            .sum()
    };
    assert_eq!(score.a_points, points(dama_eval::GameScore::Win));
    assert_eq!(score.b_points, points(dama_eval::GameScore::Loss));
    assert!(t.to_string().contains("tournament"));
    // A two-move search beats random on both sides of Turkish Tafl.
    let ab = baselines::<Tafl>("alphabeta:depth=2", "random", &config::<Tafl>(8, 3, 8));
    assert!(ab.a_first.score() > 0.5, "{ab}");
    assert!(ab.a_second.score() > 0.5, "{ab}");
    let other = baselines::<Tafl>("greedy", "random", &config::<Tafl>(8, 4, 8));
    assert_ne!(t.records, other.records);
}

#[test]
fn each_game_refuses_the_players_it_lacks_by_name() {
    let of = |s: &str| {
        let spec = s.parse::<PlayerSpec>().expect("spec");
        dama_tafl::players::baseline_of(&games::own_spec(&spec).expect("own"))
    };
    assert_eq!(
        of("alphabeta:depth=3").expect("ok"),
        dama_tafl::players::Baseline::AlphaBeta(3)
    );
    // Networks and pure MCTS are every game's.
    for spec in [
        "ckpt:/tmp/x.safetensors",
        "ckpt:/tmp/x.safetensors,time=100",
        "mcts:sims=8",
    ] {
        games::check_spec::<Tafl>(&spec.parse().expect("spec")).expect(spec);
    }
    games::check_spec::<Tafl>(&"alphabeta:time=100".parse().expect("spec")).expect("timed");
    for bad in ["alphabeta:depth=9", "alphabeta:depth=3,threads=2"] {
        let err = match parse_player::<Tafl>(bad, &Default::default()) {
            Ok(_) => panic!("{bad} accepted for Turkish Tafl"),
            Err(e) => e,
        };
        assert!(matches!(err, Error::Spec(_)), "{bad}: {err}");
        assert!(err.to_string().contains(bad), "{bad}: {err}");
    }
    assert_eq!(
        parse_player::<Tafl>("alphabeta:depth=3,threads=2", &Default::default())
            .err()
            .expect("threads")
            .to_string(),
        "`alphabeta:depth=3,threads=2` in Turkish Tafl: \
         Turkish Tafl's alpha-beta searches on one thread (threads=1)"
    );
    assert_eq!(
        parse_player::<Tafl>("alphabeta:depth=4", &Default::default())
            .expect("ab")
            .build()
            .expect("player")
            .name(),
        "alphabeta:depth=4"
    );
    // Draughts has every kind.
    for spec in ["random", "greedy", "alphabeta:depth=2", "mcts:sims=8"] {
        games::check_spec::<Draughts>(&spec.parse().expect("spec")).expect(spec);
    }
}

#[test]
fn tafl_alpha_beta_plays_with_a_learned_evaluator_and_refuses_other_files() {
    use dama_nnue::{write_network, FloatNet};
    use dama_tafl::{TaflFeatures, TaflRules};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("tafl.nnue");
    let float = FloatNet::random::<TaflFeatures>(&TaflRules::default(), 3);
    write_network(&path, &float, &[]).expect("write");
    let learned = format!("alphabeta:depth=2,eval={}", path.display());
    let r = baselines::<Tafl>(&learned, "random", &config::<Tafl>(4, 3, 4));
    check_replay::<Tafl>(&r);
    assert_eq!(r.games, 4);
    // The network, not the handcrafted evaluation, chose the moves.
    let handcrafted = baselines::<Tafl>("alphabeta:depth=2", "random", &config::<Tafl>(4, 3, 4));
    assert_ne!(r.records, handcrafted.records);

    let build = |spec: &str| {
        parse_player::<Tafl>(spec, &Default::default())
            .and_then(|p| p.build().map(|_| ()))
            .err()
            .map(|e| {
                // The message and its causes, as the command line prints them.
                let mut text = e.to_string();
                let mut cause = std::error::Error::source(&e);
                while let Some(c) = cause {
                    text.push_str(&format!(": {c}"));
                    cause = c.source();
                }
                text
            })
            .unwrap_or_else(|| panic!("{spec} accepted"))
    };
    // A draughts evaluator is another game's.
    let draughts = dir.path().join("draughts.nnue");
    let net = FloatNet::random::<dama_draughts::DraughtsFeatures>(&Default::default(), 1);
    write_network(&draughts, &net, &[]).expect("write");
    let err = build(&format!("alphabeta:depth=2,eval={}", draughts.display()));
    assert!(err.contains("feature set `draughts-psq`"), "{err}");
    let err = build("alphabeta:depth=2,eval=/nonexistent/tafl.nnue");
    assert!(err.contains("/nonexistent/tafl.nnue"), "{err}");
}

#[test]
fn a_match_of_no_games_is_refused() {
    let a = parse_player::<Tafl>("random", &Default::default()).expect("random");
    let err =
        play_match(a.as_ref(), a.as_ref(), &config::<Tafl>(0, 0, 4), &|_| {}).expect_err("0 games");
    assert!(matches!(err, Error::Spec(_)), "{err}");
}

#[test]
fn the_move_cap_draws() {
    let cfg = MatchConfig {
        max_plies: 6,
        ..config::<Tafl>(2, 9, 2)
    };
    let r = baselines::<Tafl>("random", "random", &cfg);
    assert!(r.records.iter().any(|g| g.end == GameEnd::MaxPlies));
    for g in &r.records {
        assert_eq!(g.end == GameEnd::MaxPlies, g.termination == "MaxPlies");
        if g.end == GameEnd::MaxPlies {
            assert_eq!(g.moves.len(), 6);
            assert_eq!(g.result, "1/2-1/2");
            assert_eq!(g.points, None);
        }
    }
}

/// The uniform evaluator behind the network error type; counts calls.
struct Uniform(Arc<AtomicU32>);

impl<S: dama_mcts::Game> Evaluator<S> for Uniform {
    type Error = NetworkError;
    fn evaluate(&mut self, batch: &[Leaf<'_, S>]) -> Result<Vec<Evaluation>, NetworkError> {
        self.0.fetch_add(1, Ordering::Relaxed);
        match UniformEvaluator::default().evaluate(batch) {
            Ok(v) => Ok(v),
            Err(e) => match e {},
        }
    }
}

/// An evaluator that always fails.
struct Broken;

impl<S: dama_mcts::Game> Evaluator<S> for Broken {
    type Error = NetworkError;
    fn evaluate(&mut self, _: &[Leaf<'_, S>]) -> Result<Vec<Evaluation>, NetworkError> {
        Err(NetworkError("the network is broken".into()))
    }
}

/// A network player the batched arena searches for (no checkpoint).
struct Net {
    name: String,
    calls: Arc<AtomicU32>,
    broken: bool,
}

impl<G: GameDef> PlayerFactory<G> for Net {
    fn name(&self) -> &str {
        &self.name
    }
    fn build(&self) -> Result<Box<dyn Player<G>>, Error> {
        Err(Error::Spec("batched only".into()))
    }
    fn batched(&self) -> Result<Option<BatchedSearcher<G::State>>, Error> {
        let config = SearchConfig {
            simulations: 8,
            reuse_tree: false,
            temperature: 0.0,
            dirichlet_epsilon: 0.0,
            ..SearchConfig::default()
        };
        Ok(Some(if self.broken {
            BatchedSearcher::new(Box::new(Broken), config)
        } else {
            BatchedSearcher::new(Box::new(Uniform(Arc::clone(&self.calls))), config)
        }))
    }
}

fn net(name: &str) -> Net {
    Net {
        name: name.to_owned(),
        calls: Arc::default(),
        broken: false,
    }
}

/// A uniform network in a game of `G`: legal replayable games, the same
/// whatever the batching, fewer network calls with more games in flight.
fn network_batches<G: GameDef>() {
    let random = parse_player::<G>("random", &Default::default()).expect("random");
    let run = |batch_games: usize| {
        let n = net("uniform");
        let calls = Arc::clone(&n.calls);
        let cfg = MatchConfig {
            max_plies: 40,
            ..config::<G>(4, 11, batch_games)
        };
        let r = play_match(&n, random.as_ref(), &cfg, &|_| {}).expect("match");
        check_replay::<G>(&r);
        (r, calls.load(Ordering::Relaxed))
    };
    let (one, calls_one) = run(1);
    let (four, calls_four) = run(4);
    assert_eq!(one, four);
    assert_eq!(one.a, "uniform");
    assert_eq!(one.wdl.games(), 4);
    assert!(calls_four < calls_one, "{calls_four} vs {calls_one}");

    let broken = Net {
        broken: true,
        ..net("broken-net")
    };
    let err = play_match(&broken, random.as_ref(), &config::<G>(2, 0, 2), &|_| {})
        .expect_err("the network fails");
    assert!(err.to_string().contains("broken-net"), "{err}");
    let mut chain = String::new();
    let mut source: Option<&dyn std::error::Error> = Some(&err);
    while let Some(e) = source {
        chain.push_str(&format!("{e}; "));
        source = e.source();
    }
    assert!(chain.contains("the network is broken"), "{chain}");
}

#[test]
fn networks_are_batched_the_same_way_in_both_games() {
    network_batches::<Draughts>();
    network_batches::<Tafl>();
}

#[test]
fn progress_is_reported_after_every_pair() {
    let calls = std::sync::Mutex::new(Vec::new());
    let a = parse_player::<Tafl>("random", &Default::default()).expect("random");
    let r = play_match(a.as_ref(), a.as_ref(), &config::<Tafl>(6, 1, 4), &|p| {
        calls.lock().expect("lock").push(p.clone())
    })
    .expect("match");
    let calls = calls.into_inner().expect("lock");
    assert_eq!(calls.len(), 3);
    for (i, p) in calls.iter().enumerate() {
        assert_eq!(p.done, 2 * (i as u32 + 1));
        assert_eq!(p.total, 6);
        assert_eq!(p.wdl.games(), p.done);
    }
    assert_eq!(calls[2].wdl, r.wdl);
}
