//! Arena tests: baselines beat each other decisively, colours and openings
//! are balanced, results are reproducible (issue 7).

use dama_draughts::Draughts;
use std::collections::HashMap;
use std::sync::Arc;

use dama_eval::{
    parse_player, play_match, run_ladder, BuildOptions, FitConfig, LadderConfig, MatchConfig,
    OpeningSource, Pairing, PlayerFactory, Sprt, SprtDecision,
};

fn player(spec: &str) -> Arc<dyn PlayerFactory<Draughts>> {
    parse_player::<Draughts>(spec, &BuildOptions::default()).expect("valid spec")
}

fn config(games: u32, seed: u64) -> MatchConfig<dama_engine::Rules> {
    MatchConfig {
        games,
        seed,
        keep_records: true,
        ..MatchConfig::default()
    }
}

#[test]
fn greedy_beats_random_decisively() {
    let r = play_match(
        player("greedy").as_ref(),
        player("random").as_ref(),
        &config(24, 1),
        &|_| {},
    )
    .unwrap();
    println!("{r}");
    assert_eq!(r.games, 24);
    assert!(r.score() >= 0.85, "{r}");
    assert!(r.elo.lo > 0.0, "{r}");
}

#[test]
fn alphabeta_depth4_beats_greedy_decisively() {
    let r = play_match(
        player("alphabeta:depth=4").as_ref(),
        player("greedy").as_ref(),
        &config(24, 2),
        &|_| {},
    )
    .unwrap();
    println!("{r}");
    assert!(r.score() >= 0.75, "{r}");
    assert!(r.elo.lo > 0.0, "{r}");
}

/// Game 2k is opening k with A as White; game 2k+1 the same opening with B
/// as White; every opening is distinct; each colour gets half the games.
#[test]
fn colours_alternate_and_openings_are_paired() {
    let a = player("greedy");
    let b = player("random");
    let r = play_match(a.as_ref(), b.as_ref(), &config(20, 5), &|_| {}).unwrap();
    assert_eq!(r.records.len(), 20);
    assert_eq!(r.a_first.games(), 10);
    assert_eq!(r.a_second.games(), 10);
    assert_eq!(r.openings, 10);
    assert_eq!(r.pentanomial.pairs(), 10);
    let mut openings = HashMap::new();
    for (i, g) in r.records.iter().enumerate() {
        assert_eq!(g.game as usize, i);
        assert_eq!(g.opening as usize, i / 2);
        let (white, black) = if i.is_multiple_of(2) {
            ("greedy", "random")
        } else {
            ("random", "greedy")
        };
        assert_eq!((g.first.as_str(), g.second.as_str()), (white, black));
        let head = g.moves[..g.opening_plies as usize].to_vec();
        assert_eq!(head.len(), 4);
        let prev = openings.insert(g.opening, head.clone());
        if let Some(prev) = prev {
            assert_eq!(prev, head, "both games of a pair start alike");
        }
    }
    let distinct: std::collections::HashSet<_> = openings.values().collect();
    assert_eq!(distinct.len(), 10);
    // Totals agree.
    assert_eq!(r.wdl.wins, r.a_first.wins + r.a_second.wins);
    assert_eq!(r.wdl.games(), 20);
    let records = r.records.iter().filter(|g| {
        (g.first == "greedy" && g.result == "1-0") || (g.second == "greedy" && g.result == "0-1")
    });
    assert_eq!(records.count() as u32, r.wdl.wins);
}

/// A player against itself from paired openings: with deterministic players
/// each pair repeats the same game with colours swapped, so A scores exactly
/// 50% and every pair is worth one point.
#[test]
fn self_play_of_a_deterministic_player_is_balanced() {
    let a = player("alphabeta:depth=2");
    let b = player("alphabeta:depth=2");
    let r = play_match(a.as_ref(), b.as_ref(), &config(12, 3), &|_| {}).unwrap();
    assert_eq!(r.score(), 0.5, "{r}");
    assert_eq!(r.pentanomial.0[2], 6, "{r}");
    assert!(r.elo.elo.abs() < 1e-9);
    for pair in r.records.chunks(2) {
        assert_eq!(pair[0].moves, pair[1].moves);
    }
}

#[test]
fn matches_are_reproducible_and_threads_do_not_matter() {
    let a = player("greedy");
    let b = player("random");
    let mut c = config(10, 9);
    let r1 = play_match(a.as_ref(), b.as_ref(), &c, &|_| {}).unwrap();
    c.threads = Some(1);
    let r2 = play_match(a.as_ref(), b.as_ref(), &c, &|_| {}).unwrap();
    assert_eq!(r1.records, r2.records);
    assert_eq!(r1.wdl, r2.wdl);
    c.seed = 10;
    let r3 = play_match(a.as_ref(), b.as_ref(), &c, &|_| {}).unwrap();
    assert_ne!(r1.records, r3.records);
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let mut c = config(400, 4);
    c.sprt = Some(Sprt::new(0.0, 50.0));
    c.threads = Some(2);
    let calls = std::sync::atomic::AtomicU32::new(0);
    let r = play_match(
        player("greedy").as_ref(),
        player("random").as_ref(),
        &c,
        &|p| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            assert!(p.done <= p.total);
            assert!(!p.summary().is_empty());
        },
    )
    .unwrap();
    println!("{r}");
    let s = r.sprt.unwrap();
    assert_eq!(s.decision, SprtDecision::AcceptH1);
    assert!(s.decided_at.is_some_and(|g| g <= r.games), "{r}");
    assert!(r.stopped_early && r.games < 100, "{r}");
    assert!(calls.into_inner() >= 1);
}

#[test]
fn records_save_as_json_lines() {
    let r = play_match(
        player("random").as_ref(),
        player("random").as_ref(),
        &MatchConfig {
            games: 3,
            openings: OpeningSource::Startpos,
            keep_records: true,
            ..MatchConfig::default()
        },
        &|_| {},
    )
    .unwrap();
    assert_eq!(r.games, 3);
    assert_eq!(r.pentanomial.pairs(), 1);
    let mut out = Vec::new();
    r.write_records(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().count(), 3);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["first"], "random");
    assert!(first["moves"].as_array().unwrap().len() > 5);
}

#[test]
fn ladder_fits_one_scale_anchored_at_random() {
    let players = vec![
        player("random"),
        player("greedy"),
        player("alphabeta:depth=2"),
    ];
    let cfg = LadderConfig {
        matches: MatchConfig {
            games: 10,
            seed: 11,
            ..MatchConfig::default()
        },
        pairing: Pairing::RoundRobin,
        fit: FitConfig::default(),
    };
    let mut seen = 0;
    let result = run_ladder(&players, &cfg, &|_| {}, &mut |k, n, _| {
        assert_eq!(n, 3);
        assert_eq!(k, seen);
        seen += 1;
    })
    .unwrap();
    assert_eq!(result.matches.len(), 3);
    let t = &result.table;
    println!("{t}");
    let elo = |n: &str| t.ratings.iter().find(|r| r.name == n).unwrap().elo;
    assert_eq!(elo("random"), 0.0);
    assert!(elo("greedy") > 100.0);
    assert!(elo("alphabeta:depth=2") > elo("greedy"));
    let dir = std::env::temp_dir().join(format!("dama-eval-ladder-{}", std::process::id()));
    result.save(&dir.join("ladder")).unwrap();
    let csv = std::fs::read_to_string(dir.join("ladder.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ladder.json")).unwrap()).unwrap();
    assert_eq!(json["ratings"].as_array().unwrap().len(), 3);
    assert!(dir.join("ladder-matches.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mcts_player_plays_legal_games() {
    let r = play_match(
        player("mcts:sims=32").as_ref(),
        player("random").as_ref(),
        &config(2, 6),
        &|_| {},
    )
    .unwrap();
    assert_eq!(r.games, 2);
}

#[test]
fn unavailable_or_bad_players_are_errors() {
    assert!(parse_player::<Draughts>("alphabeta", &BuildOptions::default()).is_err());
    assert!(parse_player::<Draughts>("nonsense", &BuildOptions::default()).is_err());
}

/// A gate's early stop: once A's score over all games is sure to end
/// above (or below) the threshold, the match stops, with the decision the
/// whole match gives.
#[test]
fn decide_at_stops_once_the_threshold_is_settled_either_way() {
    let (a, b) = (player("greedy"), player("random"));
    let decided =
        |a: &dyn PlayerFactory<Draughts>, b: &dyn PlayerFactory<Draughts>, at: f64, games: u32| {
            let config = MatchConfig {
                decide_at: Some(at),
                threads: Some(1),
                ..config(games, 5)
            };
            play_match(a, b, &config, &|_| {}).unwrap()
        };
    let full = play_match(a.as_ref(), b.as_ref(), &config(40, 5), &|_| {}).unwrap();
    let cut = decided(a.as_ref(), b.as_ref(), 0.5, 40);
    println!("{full}\n{cut}");
    assert!(full.score() >= 0.5, "{full}");
    assert!(cut.stopped_early && cut.games < 40, "{cut}");
    assert!(cut.score() >= 0.5, "{cut}");
    // Sure: the games played give at least half of all 40 games' points.
    assert!(cut.wdl.points() >= 20.0, "{cut}");
    // The other way: random against greedy is sure to miss the threshold.
    let lost = decided(b.as_ref(), a.as_ref(), 0.5, 40);
    assert!(lost.stopped_early && lost.games < 40, "{lost}");
    assert!(
        lost.wdl.points() + f64::from(40 - lost.games) < 20.0,
        "{lost}"
    );
    // A threshold that only the last game could settle plays every game
    // unless a game short of a win settles it first.
    let all = decided(a.as_ref(), b.as_ref(), 1.0, 6);
    assert!(
        all.games == 6 || all.wdl.losses + all.wdl.draws > 0,
        "{all}"
    );
}

/// Two-sided adjudication ends games both searches agree are won; each
/// adjudicated game is the start of the game played out, and the scores
/// that ended it are in its record.
#[test]
fn adjudication_ends_agreed_games_early() {
    let (a, b) = (player("alphabeta:depth=4"), player("alphabeta:depth=1"));
    let rule = dama_eval::Adjudication::resign_only(300, 2);
    let full = play_match(a.as_ref(), b.as_ref(), &config(8, 3), &|_| {}).unwrap();
    let cut = play_match(
        a.as_ref(),
        b.as_ref(),
        &MatchConfig {
            adjudication: rule,
            ..config(8, 3)
        },
        &|_| {},
    )
    .unwrap();
    println!("{full}\n{cut}");
    assert_eq!(full.adjudicated, 0);
    assert!(cut.adjudicated > 0, "{cut}");
    let mut saved = 0;
    for (f, c) in full.records.iter().zip(&cut.records) {
        assert_eq!(f.game, c.game);
        assert!(f.moves.starts_with(&c.moves), "game {}", c.game);
        assert_eq!(
            c.end == dama_eval::GameEnd::Adjudicated,
            c.termination == dama_eval::ADJUDICATED
        );
        if c.end != dama_eval::GameEnd::Adjudicated {
            assert_eq!(f.moves, c.moves);
            continue;
        }
        saved += f.moves.len() - c.moves.len();
        // The last searched moves of each side agree on the winner.
        let winner_first = c.result == "1-0";
        assert!(c.result != "1/2-1/2");
        let scored: Vec<_> = c
            .searches
            .iter()
            .filter_map(|m| m.score.map(|s| (m.first, s.0)))
            .collect();
        for first in [true, false] {
            let last: Vec<i32> = scored
                .iter()
                .filter(|(f, _)| *f == first)
                .rev()
                .take(2)
                .map(|(_, s)| *s)
                .collect();
            assert_eq!(last.len(), 2);
            for s in last {
                if first == winner_first {
                    assert!(s >= 300, "game {}: winner's {s}", c.game);
                } else {
                    assert!(s <= -300, "game {}: loser's {s}", c.game);
                }
            }
        }
    }
    assert!(saved > 0);
    assert!(cut.median_depth[0].is_some() && cut.median_depth[1].is_some());
}

#[test]
fn bad_adjudication_settings_are_refused_by_name() {
    for bad in ["600", "600:3:1", "x:3", "600:-1", "99999999999:3"] {
        let e = bad.parse::<dama_eval::ScoreRun>().unwrap_err();
        assert!(e.to_string().contains(bad), "{bad}: {e}");
    }
    assert_eq!(
        "600:3".parse::<dama_eval::ScoreRun>().unwrap(),
        dama_eval::ScoreRun {
            score: 600,
            moves: 3
        }
    );
    for rule in [
        dama_eval::Adjudication::resign_only(0, 3),
        dama_eval::Adjudication::resign_only(600, 0),
        dama_eval::Adjudication::resign_only(600, 1_000_000),
    ] {
        let e = play_match(
            player("greedy").as_ref(),
            player("random").as_ref(),
            &MatchConfig {
                adjudication: rule,
                ..config(2, 1)
            },
            &|_| {},
        )
        .unwrap_err();
        assert!(e.to_string().contains("adjudication"), "{e}");
    }
    let e = play_match(
        player("greedy").as_ref(),
        player("random").as_ref(),
        &MatchConfig {
            decide_at: Some(1.5),
            ..config(2, 1)
        },
        &|_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("decide_at"), "{e}");
}
