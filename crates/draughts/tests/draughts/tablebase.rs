//! The search with endgame tables: positions the tables hold are terminal
//! with their exact result, and the solver proves the lines into them.

use std::sync::Arc;

use dama_draughts::DamaState;
use dama_engine::{Position, Rules};
use dama_mcts::{Algorithm, Game, NodeId, Outcome, Player, Search, SearchConfig, UniformEvaluator};
use dama_tablebase::{Generator, Tablebase, Wdl};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn tables() -> (tempfile::TempDir, Arc<Tablebase>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let tb = Generator::new(dir.path(), Rules::default()).generate_and_open(3);
    (dir, Arc::new(tb.expect("3-piece tables generate")))
}

#[test]
fn table_positions_are_terminal_with_the_tables_result() {
    let (_dir, tb) = tables();
    for (text, counter) in [
        ("W:WKd4,Ke5:BKh8", 0),
        ("W:WKd4,Ke5:BKh8", 49),
        ("B:WKd4,Ke5:BKh8", 0),
    ] {
        let pos: Position = text.parse().expect("valid position");
        let pos = pos.with_counters(counter, 0);
        let probe = tb.probe(&pos).expect("a 3-piece position is in the tables");
        let state = DamaState::from_position(pos).with_tablebase(Some(tb.clone()));
        let expected = match probe.wdl {
            Wdl::Win => Outcome::Win(state.to_play()),
            Wdl::Loss => Outcome::Win(state.to_play().other()),
            _ => Outcome::Draw,
        };
        assert_eq!(
            state.outcome(),
            Some(expected),
            "{text} at counter {counter}"
        );
        // Without the tables the game goes on.
        assert_eq!(DamaState::from_position(pos).outcome(), None);
    }
}

/// Four pieces, White to capture into a three-piece ending (two kings
/// against a man): the search (with
/// a uniform evaluator) proves the root's result from the tables and plays a
/// move that keeps it.
#[test]
fn the_solver_proves_captures_into_the_tables() {
    let (_dir, tb) = tables();
    let pos: Position = "W:WKh1,Kb3:Bd3,a6".parse().expect("valid position");
    let moves = pos.legal_moves();
    assert!(moves.iter().all(|m| m.is_capture()));
    // White wins iff some capture leaves Black (to move) lost in the tables.
    let white_wins = moves.iter().any(|m| {
        let mut child = pos;
        child.play_unchecked(m);
        tb.probe(&child).is_some_and(|p| p.wdl == Wdl::Loss)
    });
    // (Two kings against a lone man win in these tables.)
    assert!(white_wins, "the tables do not see the win");
    for algorithm in [Algorithm::Puct, Algorithm::Gumbel] {
        let cfg = SearchConfig {
            algorithm,
            simulations: 64,
            ..SearchConfig::default()
        };
        let state = DamaState::from_position(pos).with_tablebase(Some(tb.clone()));
        let mut search = Search::new(cfg, state).expect("valid");
        let r = search
            .run(
                &mut UniformEvaluator::default(),
                &mut ChaCha8Rng::seed_from_u64(3),
            )
            .expect("search runs");
        assert_eq!(
            search.tree().proven(NodeId::ROOT),
            Some(Player::First),
            "{algorithm:?}"
        );
        assert_eq!(r.value.scalar(), 1.0);
        // The chosen step begins a capture that keeps the tables' best result.
        let best = moves
            .iter()
            .map(|m| {
                let mut child = pos;
                child.play_unchecked(m);
                tb.probe(&child).map_or(0, |p| -i32::from(p.wdl.score()))
            })
            .max()
            .unwrap_or(0);
        let kept = moves.iter().any(|m| {
            let mut child = pos;
            child.play_unchecked(m);
            m.steps().first() == Some(&r.action)
                && tb.probe(&child).map_or(0, |p| -i32::from(p.wdl.score())) == best
        });
        assert!(kept, "{algorithm:?} played {:?}", r.action);
    }
}

/// The tables open through the game seam (`GameDef::open_tables`), for
/// their own rules only, and travel type-erased (`AnyTables`) back to the
/// game; a damaged table file is an error that names it.
#[test]
fn tables_open_through_the_seam_for_their_rules() {
    use dama_draughts::Draughts;
    use dama_game::{AnyTables, GameDef, OpenedTables};

    assert!(Draughts::has_tables());
    let dir = tempfile::tempdir().expect("temp dir");
    Generator::new(dir.path(), Rules::default())
        .generate_and_open(3)
        .expect("3-piece tables generate");
    let found = Draughts::open_tables(dir.path(), &Rules::default()).expect("readable");
    let OpenedTables::Found { tables, about } = found else {
        panic!("tables for the default rules are found: {found:?}");
    };
    assert!(about.starts_with("3 pieces"), "{about}");
    let held = AnyTables::of::<Draughts>(tables);
    assert!(!held.is_none());
    assert_eq!(held.get::<Draughts>().expect("given back").max_pieces(), 3);
    assert!(AnyTables::none().get::<Draughts>().is_none());

    // Other rules, no directory, an empty directory: none, with the reason.
    let other = Rules {
        no_capture_limit: None,
        ..Rules::default()
    };
    let absent = |path: &std::path::Path, rules: &Rules| match Draughts::open_tables(path, rules)
        .expect("not an error")
    {
        OpenedTables::Absent(why) => why,
        OpenedTables::Found { about, .. } => panic!("found {about} in {}", path.display()),
    };
    assert!(absent(dir.path(), &other).contains("other rules"));
    assert!(absent(&dir.path().join("missing"), &Rules::default()).contains("not a directory"));
    let empty = tempfile::tempdir().expect("temp dir");
    assert!(!absent(empty.path(), &Rules::default()).is_empty());

    // A damaged table file.
    std::fs::write(empty.path().join("broken.dtb"), b"not a table").expect("write");
    let err = Draughts::open_tables(empty.path(), &Rules::default()).expect_err("damaged");
    let chain = format!(
        "{err}: {}",
        std::error::Error::source(&err).expect("a source")
    );
    assert!(chain.contains("broken.dtb"), "{chain}");
}

/// A search's report has a score where the search completed a depth or the
/// tables hold the root (depth 0, their exact score), and none for a move
/// played unsearched, the only legal one.
#[test]
fn reports_score_searches_and_table_roots_not_forced_moves() {
    use dama_draughts::{AlphaBeta, SearchLimits};
    let (_dir, tb) = tables();
    let mut engine = AlphaBeta::new(1).with_tablebase(Some(tb));
    // White's man on d4 must take d5 (captures are compulsory): one legal
    // move.
    let forced: Position = "W:Wd4,a2:Bd5,h7".parse().expect("valid position");
    assert_eq!(forced.legal_moves().len(), 1);
    let r = engine.search(&forced, &[], SearchLimits::depth(4));
    assert_eq!((r.depth, r.known_score()), (0, None));
    // Three pieces: the tables' score (a draw here: 0), no search.
    let root: Position = "W:WKd4,Ke5:BKh8".parse().expect("valid position");
    let r = engine.search(&root, &[], SearchLimits::depth(4));
    assert!(r.tablebase && r.depth == 0);
    assert_eq!(r.known_score(), Some(0), "{r:?}");
    // Six pieces, several moves: a searched score.
    let open: Position = "W:Wa3,c3,e3:Bb6,d6,f7".parse().expect("valid position");
    let r = engine.search(&open, &[], SearchLimits::depth(4));
    assert!(!r.tablebase && r.depth == 4 && r.known_score().is_some());
}
