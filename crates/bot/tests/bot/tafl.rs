//! Turkish Tafl through the one bot and session of every game: baselines,
//! a network searching whole moves, the protocol's answers and errors.

// Helpers outside #[test] functions unwrap too: this is test code.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use dama_bot::{BotOptions, BotSpec, Limit, Reply, DEFAULT_SIMS};
use dama_draughts::Draughts;
use dama_nn::device::Device;
use dama_nn::{GameName, ModelConfig, Network};
use dama_tafl::{Game, Move, Side, Tafl, TaflRules};

type TaflBot = dama_bot::Bot<Tafl>;
type TaflSession = dama_bot::Session<Tafl>;

fn last(r: &Reply) -> &str {
    r.lines.last().map_or("", String::as_str)
}

fn session(spec: &str) -> TaflSession {
    TaflSession::new(TaflBot::from_spec(spec, &BotOptions::default()).unwrap())
}

/// A tiny network (of Turkish draughts' shape).
fn small() -> ModelConfig {
    ModelConfig {
        blocks: 1,
        channels: 8,
        se_channels: 0,
        policy_channels: 4,
        value_channels: 2,
        value_hidden: 8,
        ..ModelConfig::default()
    }
}

/// A tiny random Turkish Tafl network saved as a checkpoint.
fn tafl_checkpoint(dir: &Path) -> std::path::PathBuf {
    dama_nn::device::manual_seed(5);
    let config = small().with_shape(dama_tafl::encode::TAFL_SHAPE);
    let net = Network::new(&config, Device::Cpu).unwrap();
    let path = dir.join("tafl.safetensors");
    dama_nn::save_network(&net, TaflRules::default(), 7, &path).unwrap();
    path
}

fn draughts_checkpoint(dir: &Path) -> std::path::PathBuf {
    let net = Network::new(&small(), Device::Cpu).unwrap();
    let path = dir.join("draughts.safetensors");
    dama_nn::save_network(&net, dama_engine::Rules::default(), 7, &path).unwrap();
    path
}

/// The move of a `bestmove` line, checked legal in `game`.
fn legal_best(game: &Game, r: &Reply) -> Move {
    let text = last(r)
        .strip_prefix("bestmove ")
        .unwrap_or_else(|| panic!("{r:?}"));
    game.parse_move(text)
        .unwrap_or_else(|e| panic!("{text} is not legal at {}: {e}", game.position()))
}

#[test]
fn legal_moves_and_illegal_ones_are_answered() {
    let mut s = session("greedy");
    let r = s.handle("hello");
    assert!(r.lines.iter().any(|l| l == "id game tafl"), "{r:?}");
    assert!(r.lines.iter().any(|l| l == "id bot greedy"), "{r:?}");
    assert_eq!(last(&r), "ok");
    let r = s.handle("legal");
    assert_eq!(r.lines.len(), 2, "{r:?}");
    assert_eq!(r.lines[0].split_whitespace().count(), 1 + 6, "{r:?}");
    assert_eq!(last(&s.handle("moves c5-c4 a1-a3")), "ok");
    assert_eq!(s.game().plies(), 2);
    for bad in [
        "moves c4-c2",
        "moves b5-b4 zz",
        "position W:Wz9:BKb3",
        "position",
        "position startpos moves c5-c3",
        "rules goal=home",
        "rules variant=croda",
        "undo 3",
        "undo x",
        "go sims 0",
        "go sims 99999999999",
        "go depth 3",
        "eval",
        "fly",
    ] {
        let r = s.handle(bad);
        assert!(last(&r).starts_with("error "), "{bad}: {r:?}");
        assert_eq!(r.lines.len(), 1, "{bad}: {r:?}");
        assert_eq!(s.game().plies(), 2, "{bad} changed the game");
    }
    let r = s.handle("moves c4-c2");
    assert!(last(&r).contains("legal: "), "{r:?}");
    let r = s.handle("rules variant=croda");
    assert!(last(&r).contains("Turkish draughts rules"), "{r:?}");
    let r = s.handle("show");
    assert!(r.lines.iter().any(|l| l == "turn defender"), "{r:?}");
    assert!(r.lines.iter().any(|l| l == "moves c5-c4 a1-a3"), "{r:?}");
    assert!(r.lines.iter().any(|l| l == "status playing"), "{r:?}");
    assert!(r.lines.iter().any(|l| l.starts_with("board  b |")), "{r:?}");
    assert_eq!(last(&r), "ok");
    assert!(s.handle("# a comment").lines.is_empty());
    assert!(s.handle("quit").quit);
}

#[test]
fn undo_newgame_rules_and_a_finished_game() {
    let mut s = session("random");
    assert_eq!(last(&s.handle("position startpos moves c5-c4 a1-a3")), "ok");
    assert_eq!(last(&s.handle("undo")), "ok");
    assert_eq!(s.game().plies(), 1);
    assert_eq!(s.game().moves()[0].to_string(), "c5-c4");
    assert_eq!(last(&s.handle("undo 1")), "ok");
    assert_eq!(s.game().plies(), 0);
    // The King side moves first: the initial position follows.
    assert_eq!(last(&s.handle("rules first=king_side")), "ok");
    assert_eq!(s.game().turn(), Side::KingSide);
    assert_eq!(last(&s.handle("moves a1-a3")), "ok");
    assert_eq!(last(&s.handle("newgame")), "ok");
    assert_eq!((s.game().plies(), s.game().turn()), (0, Side::KingSide));
    let r = s.handle("rules");
    assert!(r.lines[0].contains("first=king_side"), "{r:?}");
    // Surrounded at the start of its turn: the Defenders have won.
    assert_eq!(last(&s.handle("position B:Wb4,d4,c3,c5:BKc4")), "ok");
    let r = s.handle("go");
    assert!(last(&r).starts_with("error the game is over"), "{r:?}");
    let r = s.handle("show");
    assert!(
        r.lines
            .iter()
            .any(|l| l == "status over defender KingSurrounded"),
        "{r:?}"
    );
    let r = s.handle("moves c4-c5");
    assert!(last(&r).contains("the game is over"), "{r:?}");
}

#[test]
fn baselines_answer_go_with_a_legal_whole_move() {
    // `mcts:` rollouts are the bot's own search, for every game.
    for spec in [
        "random",
        "greedy",
        "alphabeta:depth=2",
        "alphabeta:time=30",
        "mcts:sims=10",
    ] {
        let mut s = session(spec);
        assert_eq!(last(&s.handle("position startpos moves c5-c4")), "ok");
        let r = s.handle("go");
        assert_eq!(r.lines.len(), 2, "{spec}: {r:?}");
        assert!(r.lines[0].starts_with("info time_ms "), "{spec}: {r:?}");
        assert_eq!(
            r.lines[0].contains(" score_cm "),
            spec.starts_with("alphabeta"),
            "{spec}: {r:?}"
        );
        let best = legal_best(s.game(), &r);
        assert!(r.lines[0].ends_with(&format!(" pv {best}")), "{r:?}");
    }
    // Players Turkish Tafl does not have are refused by name.
    for spec in ["alphabeta:threads=2,depth=2", "alphabeta:depth=20"] {
        let e = TaflBot::from_spec(spec, &BotOptions::default()).unwrap_err();
        assert!(e.to_string().contains("Turkish Tafl"), "{spec}: {e}");
    }
    // A learned evaluator is Tafl's too: a missing file is named.
    let e = TaflBot::from_spec(
        "alphabeta:depth=2,eval=/nonexistent/x.nnue",
        &BotOptions::default(),
    )
    .unwrap_err();
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(&e);
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    assert!(text.contains("/nonexistent/x.nnue"), "{text}");
}

#[test]
fn a_network_searches_whole_moves_and_evaluates() {
    let tmp = tempfile::tempdir().unwrap();
    let ckpt = tafl_checkpoint(tmp.path());
    let mut bot = TaflBot::from_spec(ckpt.to_str().unwrap(), &BotOptions::default()).unwrap();
    assert!(bot.has_network());
    assert_eq!(bot.trained_rules(), Some(TaflRules::default()));
    assert_eq!(bot.default_limit(), Limit::Sims(DEFAULT_SIMS));
    // A capture chain of two forced jumps is one move.
    let game = Game::from_position("B:Wa2,a4:Ba1,Kd1".parse().unwrap(), TaflRules::default());
    let t = bot.think(&game, Some(Limit::Sims(8))).unwrap();
    assert_eq!(t.best.to_string(), "a1xa3xa5");
    // A friendly chain that may stop: whatever the search likes, a legal
    // whole move; its top moves are whole moves too.
    let game = Game::from_position("B:Wd8:Ba1,a2,a4,Kd1".parse().unwrap(), TaflRules::default());
    let t = bot.think(&game, Some(Limit::Sims(16))).unwrap();
    let legal: Vec<_> = game.legal_moves().iter().map(Move::key).collect();
    assert!(legal.contains(&t.best.key()), "{}", t.best);
    assert!(t.eval.is_some() && t.network.is_some());
    assert!(t.nodes > 0);
    assert_eq!(t.pv.first(), Some(&t.best));
    let share: f32 = t.top.iter().map(|m| m.share).sum();
    assert!((share - 1.0).abs() < 1e-3, "{share}");
    for m in &t.top {
        assert!(legal.contains(&m.mv.key()), "{}", m.mv);
    }
    let json = t.to_json();
    assert_eq!(json["best"], t.best.to_string());

    let mut s = TaflSession::new(bot);
    let r = s.handle("go sims 8");
    assert!(
        r.lines[0].contains(" value ") && r.lines[0].contains(" wdl "),
        "{r:?}"
    );
    legal_best(s.game(), &r);
    let r = s.handle("go time 30");
    legal_best(s.game(), &r);
    let r = s.handle("eval");
    assert_eq!(last(&r), "ok");
    let priors = r.lines[0].split(" priors ").nth(1).unwrap();
    assert_eq!(
        priors.split_whitespace().count(),
        2 * s.game().legal_steps().len(),
        "{r:?}"
    );
    // Other rules than the network's: a warning, then ok.
    let r = s.handle("rules ply_limit=300");
    assert!(r.lines[0].starts_with("info warning"), "{r:?}");
    assert_eq!(last(&r), "ok");
}

#[test]
fn each_game_refuses_the_other_games_network_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let tafl = tafl_checkpoint(tmp.path());
    let draughts = draughts_checkpoint(tmp.path());
    let e = dama_bot::Bot::<Draughts>::from_spec(tafl.to_str().unwrap(), &BotOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("Turkish Tafl"), "{e}");
    let e = TaflBot::from_spec(draughts.to_str().unwrap(), &BotOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("Turkish draughts"), "{e}");
    let spec: BotSpec = tafl.to_str().unwrap().parse().unwrap();
    assert_eq!(spec.game().unwrap(), Some(GameName::Tafl));
    let spec: BotSpec = draughts.to_str().unwrap().parse().unwrap();
    assert_eq!(spec.game().unwrap(), Some(GameName::Draughts));
    assert_eq!("greedy".parse::<BotSpec>().unwrap().game().unwrap(), None);
}

#[test]
fn bad_bytes_and_long_lines_are_errors_and_the_session_goes_on() {
    let mut input = Vec::new();
    input.extend_from_slice(b"isready\nmoves c5-c4 \xff\n");
    input.extend_from_slice(&vec![b'x'; dama_bot::MAX_LINE * 2]);
    input.extend_from_slice(b"\nlegal\nquit\nisready\n");
    let mut out = Vec::new();
    session("random")
        .serve(&mut std::io::Cursor::new(input), &mut out)
        .unwrap();
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!(lines[0], "readyok");
    assert!(lines[1].starts_with("error") && lines[1].contains("UTF-8"));
    assert!(lines[2].starts_with("error") && lines[2].contains("longer"));
    assert!(lines[3].starts_with("legal "));
    assert_eq!(lines[4], "ok");
    assert_eq!(lines[5], "bye");
}

/// A learned evaluator's game is the game whose alpha-beta loads it: a
/// Turkish Tafl network makes a Tafl bot, which searches with it.
#[test]
fn a_tafl_evaluator_makes_a_tafl_bot() {
    let tmp = tempfile::tempdir().unwrap();
    let tafl = tmp.path().join("tafl.nnue");
    let net = dama_nnue::FloatNet::random::<dama_tafl::TaflFeatures>(&TaflRules::default(), 3);
    dama_nnue::write_network(&tafl, &net, &[]).unwrap();
    let draughts = tmp.path().join("draughts.nnue");
    let net =
        dama_nnue::FloatNet::random::<dama_draughts::DraughtsFeatures>(&Default::default(), 3);
    dama_nnue::write_network(&draughts, &net, &[]).unwrap();
    let spec = |p: &Path| -> BotSpec {
        format!("alphabeta:depth=2,eval={}", p.display())
            .parse()
            .unwrap()
    };
    assert_eq!(spec(&tafl).game().unwrap(), Some(GameName::Tafl));
    assert_eq!(spec(&draughts).game().unwrap(), Some(GameName::Draughts));
    let mut s = session(&format!("alphabeta:depth=2,eval={}", tafl.display()));
    assert_eq!(last(&s.handle("position startpos")), "ok");
    let r = s.handle("go");
    assert!(r.lines[0].contains(" score_cm "), "{r:?}");
    legal_best(s.game(), &r);
}

/// `eval=shipped` is the network of the game asked for: no file says
/// which, so the spec names no game, and each game reads its own shipped
/// network's rules (the CLI refused `--game tafl` with it as "a Turkish
/// draughts network").
#[test]
fn the_shipped_network_is_the_asked_games() {
    let spec: BotSpec = "alphabeta:time=100,eval=shipped".parse().unwrap();
    assert_eq!(spec.game().unwrap(), None);
    let tafl = spec.trained_rules(GameName::Tafl).unwrap().unwrap();
    assert_eq!(tafl.get::<Tafl>(), Some(TaflRules::default()));
    let draughts = spec.trained_rules(GameName::Draughts).unwrap().unwrap();
    assert_eq!(draughts.get::<Tafl>(), None);
    assert_eq!(draughts.get::<Draughts>(), Some(Default::default()));
    let mut s = session("alphabeta:depth=2,eval=shipped");
    let reply = s.handle("go");
    assert!(last(&reply).starts_with("bestmove"), "{:?}", reply.lines);
}
