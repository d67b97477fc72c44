//! One session, written once, plays every game of the registry over the
//! protocol: the same code, dispatched from the game's name.

use dama_bot::{Bot, BotOptions, Session};
use dama_game::GameDef;
use dama_nn::GameName;

/// A short game between two bots of `spec` (one session thinks, the
/// moves are sent back to it), checked as it goes.
struct ShortGame {
    spec: &'static str,
    plies: usize,
}

impl dama_nn::WithGame for ShortGame {
    type Output = Vec<String>;

    fn run<G: GameDef>(self) -> Vec<String> {
        play::<G>(self.spec, self.plies)
    }
}

fn last(lines: &[String]) -> &str {
    lines.last().map_or("", String::as_str)
}

/// Plays up to `plies` moves of `G` with the bot `spec` on one session:
/// `go`, then its move sent back with `moves`; then `show`, `undo`,
/// `legal` and `quit`. Returns the moves played.
fn play<G: GameDef>(spec: &str, plies: usize) -> Vec<String> {
    let bot = Bot::<G>::from_spec(spec, &BotOptions::default()).expect("bot builds");
    let mut s = Session::new(bot);
    let hello = s.handle("hello").lines;
    assert!(hello.contains(&format!("id game {}", G::NAME)), "{hello:?}");
    assert_eq!(last(&hello), "ok");
    assert_eq!(last(&s.handle("position startpos").lines), "ok");
    let mut played = Vec::new();
    for _ in 0..plies {
        if G::outcome(s.game()).is_some() {
            break;
        }
        let go = s.handle("go sims 8").lines;
        assert_eq!(go.len(), 2, "{go:?}");
        assert!(go[0].starts_with("info time_ms "), "{go:?}");
        let best = last(&go)
            .strip_prefix("bestmove ")
            .unwrap_or_else(|| panic!("{go:?}"))
            .to_owned();
        assert!(go[0].contains(&format!(" pv {best}")), "{go:?}");
        G::parse_move(s.game(), &best).expect("the best move is legal");
        assert_eq!(last(&s.handle(&format!("moves {best}")).lines), "ok");
        played.push(best);
    }
    assert_eq!(G::plies(s.game()), played.len());
    let show = s.handle("show").lines;
    assert!(
        show.contains(&format!("moves {}", played.join(" "))),
        "{show:?}"
    );
    let side = G::geometry().sides[match G::to_play(s.game()) {
        dama_mcts::Player::First => 0,
        dama_mcts::Player::Second => 1,
    }]
    .key;
    assert!(show.contains(&format!("turn {side}")), "{show:?}");
    assert_eq!(last(&s.handle("undo 2").lines), "ok");
    assert_eq!(G::plies(s.game()), played.len() - 2);
    let legal = s.handle("legal").lines;
    assert_eq!(
        legal[0].split_whitespace().count(),
        1 + G::legal_moves(s.game()).len(),
        "{legal:?}"
    );
    let bad = s.handle("moves zz-zz").lines;
    assert!(last(&bad).starts_with("error illegal move"), "{bad:?}");
    assert!(s.handle("quit").quit);
    played
}

#[test]
fn the_same_session_plays_a_short_game_of_every_game() {
    for &game in GameName::ALL {
        // `random` and `mcts:` are every game's; `greedy` is a baseline of
        // the games that have one.
        for spec in ["mcts:sims=8", "random", "greedy"] {
            if spec == "greedy" && game != GameName::Draughts && game != GameName::Tafl {
                continue;
            }
            let played = game.with(ShortGame { spec, plies: 6 });
            assert_eq!(played.len(), 6, "{game} {spec}: {played:?}");
        }
    }
}

#[test]
fn the_same_session_serves_every_game_on_the_wire() {
    struct Serve;
    impl dama_nn::WithGame for Serve {
        type Output = String;
        fn run<G: GameDef>(self) -> String {
            let bot = Bot::<G>::from_spec("random", &BotOptions::default()).expect("bot");
            let mut out = Vec::new();
            Session::new(bot)
                .serve(
                    &mut std::io::Cursor::new(b"hello\ngo\nisready\nquit\n".to_vec()),
                    &mut out,
                )
                .expect("serves");
            String::from_utf8(out).expect("UTF-8")
        }
    }
    for &game in GameName::ALL {
        let out = game.with(Serve);
        assert!(out.contains(&format!("id game {game}\n")), "{out}");
        assert!(out.contains("\nbestmove "), "{out}");
        assert!(out.ends_with("readyok\nbye\n"), "{out}");
    }
}
