//! The multi-threaded alpha-beta search (Lazy SMP, `threads=N`): one thread
//! searches exactly as before, several threads find the same results where
//! the search is exact, and never fail on ordinary positions.

use dama_draughts::alphabeta::MATE_BOUND;
use dama_draughts::Draughts;
use dama_draughts::{AlphaBeta, SearchLimits, SearchReport};
use dama_engine::{Game, Position};
use dama_eval::parse_player;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn search(engine: &mut AlphaBeta, pos: &Position, depth: u32) -> SearchReport {
    engine.search(pos, &[], SearchLimits::depth(depth))
}

fn random_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut game = Game::new();
        for _ in 0..rng.gen_range(0..70) {
            if game.outcome().is_some() {
                break;
            }
            let moves = game.legal_moves();
            let m = moves[rng.gen_range(0..moves.len())];
            game.play_unchecked(&m);
        }
        if game.outcome().is_none() {
            out.push(*game.position());
        }
    }
    out
}

/// With one thread the search is the one without threads: the node counts,
/// moves and scores of the initial position below pin the single-thread
/// search (measured before Lazy SMP was added, and again when the search
/// itself changed: the guarded late-move reductions of df9c449, then
/// aspiration windows and ProbCut, then reverse futility and late-move
/// pruning), and
/// `with_threads(1)` is the default engine, node for node.
#[test]
fn one_thread_searches_exactly_as_before() {
    let start = Position::startpos();
    for (depth, nodes, score) in [(5, 3_250, 5), (6, 22_131, 0), (7, 71_486, 5)] {
        let r = search(&mut AlphaBeta::new(16).with_threads(1), &start, depth);
        assert_eq!(
            (r.best.unwrap().to_string(), r.score, r.nodes),
            ("b3-b4".to_owned(), score, nodes),
            "depth {depth}"
        );
    }
    for pos in random_positions(8, 3) {
        // The same engine for two searches: the tables carry over alike.
        let mut a = AlphaBeta::new(4);
        let mut b = AlphaBeta::new(4).with_threads(1);
        assert_eq!(b.threads(), 1);
        for depth in [3, 5] {
            let (ra, rb) = (search(&mut a, &pos, depth), search(&mut b, &pos, depth));
            assert_eq!(
                (ra.best, ra.score, ra.nodes, ra.depth, ra.pv),
                (rb.best, rb.score, rb.nodes, rb.depth, rb.pv),
                "{pos} depth {depth}"
            );
        }
    }
}

/// Positions whose score at these depths is exact (forced wins found at
/// every depth, a rule draw): two and three threads find the single-thread
/// move and score.
#[test]
fn several_threads_agree_where_the_search_is_exact() {
    for (fen, depths, mv) in [
        // The sacrifice then a five-piece flying capture (tests/tactics.rs).
        (
            "W:Wa2,e7,Ke8:Bc5,a6,b7,c7,h6",
            &[1, 3, 5][..],
            Some("e7-d7"),
        ),
        // A lone king against two men: a draw by the one-piece-each rule.
        ("W:WKd4:Ba7,h7", &[4, 6][..], None),
    ] {
        let pos: Position = fen.parse().unwrap();
        for &depth in depths {
            let one = search(&mut AlphaBeta::new(4), &pos, depth);
            for threads in [2, 3] {
                let mut engine = AlphaBeta::new(4).with_threads(threads);
                let many = search(&mut engine, &pos, depth);
                assert_eq!(
                    many.score, one.score,
                    "{fen} depth {depth} threads {threads}"
                );
                // A forced win found sooner (from a helper's entries)
                // ends the deepening sooner.
                assert!(
                    many.depth == depth || many.score.abs() > MATE_BOUND,
                    "{fen} depth {depth} threads {threads}: depth {}",
                    many.depth
                );
                assert!(pos.is_legal(&many.best.unwrap()));
                if let Some(mv) = mv {
                    assert_eq!(many.best.unwrap().to_string(), mv, "{fen} depth {depth}");
                }
                assert!(
                    many.nodes >= 1,
                    "{fen} depth {depth} threads {threads}: no nodes"
                );
            }
        }
        if mv.is_some() {
            assert!(search(&mut AlphaBeta::new(4), &pos, 5).score > MATE_BOUND);
        }
    }
}

/// Over random positions and depths, two and four threads (sharing one
/// table across searches) always answer a legal move at the depth asked,
/// with a PV that starts with it (a forced move is played without search).
#[test]
fn several_threads_never_fail_on_random_positions() {
    let mut engines = [
        AlphaBeta::new(1).with_threads(2),
        AlphaBeta::new(1).with_threads(4),
    ];
    for (i, pos) in random_positions(30, 11).iter().enumerate() {
        let engine = &mut engines[i % 2];
        let depth = 1 + (i as u32 % 5);
        let r = search(engine, pos, depth);
        let best = r.best.expect("a move");
        assert!(pos.is_legal(&best), "{pos}");
        if pos.legal_moves().len() > 1 {
            assert_eq!(r.pv.first(), Some(&best), "{pos}");
            assert!(r.depth >= 1 && r.nodes > 0, "{pos}");
            // A forced win may end the deepening early.
            assert!(r.depth == depth || r.score.abs() > MATE_BOUND, "{pos}");
        }
    }
}

/// A node budget counts the nodes of every thread, and stops them all.
#[test]
fn a_node_budget_is_shared_by_the_threads() {
    let mut engine = AlphaBeta::new(4).with_threads(2);
    let limits = SearchLimits {
        nodes: Some(30_000),
        ..SearchLimits::default()
    };
    let r = engine.search(&Position::startpos(), &[], limits);
    assert!(r.nodes >= 30_000, "{}", r.nodes);
    assert!(r.best.is_some() && r.depth >= 1);
}

#[test]
fn thread_counts_are_clamped() {
    assert_eq!(AlphaBeta::new(1).threads(), 1);
    assert_eq!(AlphaBeta::new(1).with_threads(0).threads(), 1);
    assert_eq!(AlphaBeta::new(1).with_threads(7).threads(), 7);
    assert_eq!(
        AlphaBeta::new(1).with_threads(1000).threads(),
        dama_draughts::alphabeta::MAX_THREADS
    );
}

/// `threads=2` in a spec reaches the engine: the player plays the
/// combination.
#[test]
fn the_threads_spec_builds_a_player() {
    let factory =
        parse_player::<Draughts>("alphabeta:depth=3,threads=2", &Default::default()).unwrap();
    assert_eq!(factory.name(), "alphabeta:depth=3,threads=2");
    let mut player = factory.build().unwrap();
    let game = Game::from_position("W:Wa2,e7,Ke8:Bc5,a6,b7,c7,h6".parse().unwrap());
    let m = player
        .choose(&game, &mut ChaCha8Rng::seed_from_u64(0))
        .unwrap();
    assert_eq!(m.to_string(), "e7-d7");
}
