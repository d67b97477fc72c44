//! The bot in positions its endgame tables hold: their best move, said as
//! such, over the protocol too.

use std::sync::Arc;

use dama_bot::{describe_tablebase, BotOptions};
use dama_draughts::Draughts;
use dama_engine::{Game, Position, Rules};
use dama_tablebase::{Generator, Tablebase, Wdl};

type Bot = dama_bot::Bot<Draughts>;
type Session = dama_bot::Session<Draughts>;

fn tables() -> (tempfile::TempDir, Arc<Tablebase>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let tb = Generator::new(dir.path(), Rules::default()).generate_and_open(3);
    (dir, Arc::new(tb.expect("3-piece tables generate")))
}

#[test]
fn table_positions_are_played_from_the_tables() {
    let (_dir, tb) = tables();
    let options = BotOptions {
        tables: dama_game::AnyTables::of::<Draughts>(Some(tb.clone())),
        ..BotOptions::default()
    };
    // A win in 3 plies for White (two kings against a man).
    let pos: Position = "W:WKh1,Kb3:Ba6".parse().expect("valid position");
    let expected = tb.probe(&pos).expect("in the tables");
    assert_eq!(expected.wdl, Wdl::Win);
    let verdict = dama_game::TableVerdict {
        result: expected.wdl.to_string(),
        decisive: true,
        dtz: expected.dtz,
    };
    for spec in ["mcts:sims=16", "alphabeta:depth=1", "random"] {
        let mut bot = Bot::from_spec(spec, &options).expect("bot builds");
        let t = bot.think(&Game::from_position(pos), None).expect("thinks");
        assert_eq!(t.tablebase.as_ref(), Some(&verdict), "{spec}");
        let mut child = pos;
        child.play_unchecked(&t.best);
        let after = tb.probe(&child).map(|p| p.wdl);
        assert!(
            child.legal_moves().is_empty() || after == Some(Wdl::Loss),
            "{spec}: {} leaves {after:?}",
            t.best
        );
        let said = describe_tablebase(&verdict);
        assert!(said.starts_with("tablebase win in"), "{said}");
    }
    // Without tables the bot searches and says nothing of them.
    let mut bot = Bot::from_spec("mcts:sims=16", &BotOptions::default()).expect("bot builds");
    let t = bot.think(&Game::from_position(pos), None).expect("thinks");
    assert_eq!(t.tablebase, None);
}

#[test]
fn the_protocol_reports_the_tables() {
    let (_dir, tb) = tables();
    let options = BotOptions {
        tables: dama_game::AnyTables::of::<Draughts>(Some(tb)),
        ..BotOptions::default()
    };
    let mut session = Session::new(Bot::from_spec("mcts:sims=16", &options).expect("bot"));
    let r = session.handle("position W:WKh1,Kb3:Ba6");
    assert!(r.lines.iter().all(|l| !l.starts_with("error")), "{r:?}");
    let r = session.handle("go");
    let info = r
        .lines
        .iter()
        .find(|l| l.starts_with("info "))
        .expect("info line");
    assert!(info.contains(" tablebase win dtz 3"), "{info}");
}
