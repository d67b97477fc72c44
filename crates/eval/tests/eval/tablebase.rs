//! Alpha-beta with endgame tables: a root the tables hold plays their best
//! move, and table positions inside the search are scored exactly.

use std::sync::Arc;

use dama_draughts::alphabeta::TB_WIN;
use dama_draughts::{AlphaBeta, SearchLimits};
use dama_engine::{Position, Rules};
use dama_tablebase::{Generator, Tablebase, Wdl};

fn tables() -> (tempfile::TempDir, Arc<Tablebase>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let tb = Generator::new(dir.path(), Rules::default()).generate_and_open(3);
    (dir, Arc::new(tb.expect("3-piece tables generate")))
}

/// Every three-piece root the tables call won: the engine plays a move that
/// keeps the win (the opponent is lost after it), with a tablebase score.
#[test]
fn table_roots_play_the_tables_best_move() {
    let (_dir, tb) = tables();
    let mut checked = 0;
    for text in [
        "W:WKd4,Ka8:BKd6",
        "W:WKh1,Kb3:Ba6",
        "B:Wa3:BKa8,Kd5",
        "W:WKc3,d5:BKh8",
    ] {
        let pos: Position = text.parse().expect("valid position");
        let Some(probe) = tb.probe(&pos) else {
            continue;
        };
        if probe.wdl != Wdl::Win || pos.legal_moves().len() < 2 {
            continue;
        }
        let mut engine = AlphaBeta::new(1).with_tablebase(Some(tb.clone()));
        let report = engine.search(&pos, &[], SearchLimits::depth(2));
        let best = report.best.expect("a move");
        let mut child = pos;
        child.play_unchecked(&best);
        let after = tb.probe(&child).map(|p| p.wdl);
        assert!(
            child.legal_moves().is_empty() || after == Some(Wdl::Loss),
            "{text}: {best} leaves {after:?}"
        );
        assert!(
            report.score > TB_WIN - 200,
            "{text}: score {}",
            report.score
        );
        checked += 1;
    }
    assert!(checked >= 1, "no won root among the test positions");
}

/// Without tables the same engine scores by its own search (here it finds
/// the win as a mate), never with a tablebase score.
#[test]
fn without_tables_no_tablebase_scores() {
    let pos: Position = "W:WKh1,Kb3:Ba6".parse().expect("valid position");
    let mut engine = AlphaBeta::new(1);
    let report = engine.search(&pos, &[], SearchLimits::depth(4));
    let tb_band = TB_WIN - 1000..=TB_WIN;
    assert!(!tb_band.contains(&report.score), "score {}", report.score);
}
