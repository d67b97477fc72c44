//! The API over a real socket on the loopback address (issue 17): whole
//! games, every kind of bad input, 50 games at once with every move checked
//! against the engine, and the run pages against a run trained here.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::{board, follow, pieces, start, train, train_rules, train_tafl, Http};
use dama_engine::{Game, GameRecord, Position, Rules, Variant};
use dama_serve::{Limits, ServeOptions};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// One tiny run of two generations, trained once for this test binary.
fn tiny_runs() -> &'static std::path::Path {
    static RUNS: OnceLock<tempfile::TempDir> = OnceLock::new();
    RUNS.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        train(dir.path(), "tiny", 2, false);
        dir
    })
    .path()
}

fn options(runs: &std::path::Path) -> ServeOptions {
    let mut o = ServeOptions::new(runs);
    o.limits = Limits {
        bot_workers: 2,
        rate_per_sec: 0,
        ..Limits::default()
    };
    o
}

/// Plays a game to its end through the API: the client's moves random
/// (captures step by step, quiet moves whole), the bot's checked.
async fn play_out(http: &Http, bot: &str, strength: Value, seed: u64, max_plies: usize) -> Value {
    play_out_rules(http, bot, strength, seed, max_plies, &Rules::default()).await
}

/// [`play_out`] under `rules` (a variant or rule options).
async fn play_out_rules(
    http: &Http,
    bot: &str,
    strength: Value,
    seed: u64,
    max_plies: usize,
    rules: &Rules,
) -> Value {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let human = if seed.is_multiple_of(2) {
        "white"
    } else {
        "black"
    };
    let created = http
        .post(
            "/api/games",
            &json!({"bot": bot, "strength": strength, "human": human, "rules": rules.to_string()}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.error());
    let mut view = created.json();
    let id = view["id"].as_str().unwrap().to_owned();
    let mut game = Game::with_rules(*rules);
    for _ in 0..max_plies {
        assert_eq!(board(&view), pieces(game.position()), "{id}");
        match view["state"].as_str().unwrap() {
            "over" => break,
            "bot" => {
                let answer = http.post_empty(&format!("/api/games/{id}/bot")).await;
                if answer.status == 429 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                assert_eq!(answer.status, 200, "{}", answer.error());
                view = answer.json();
                follow(&mut game, &view);
            }
            "human" => {
                let moves = game.legal_moves();
                let m = moves[rng.gen_range(0..moves.len())];
                if m.is_capture() && rng.gen_bool(0.7) {
                    // Jump by jump, through every landing square.
                    for step in m.steps() {
                        let answer = http
                            .post(
                                &format!("/api/games/{id}/step"),
                                &json!({"from": step.from.to_string(), "to": step.to.to_string()}),
                            )
                            .await;
                        assert_eq!(answer.status, 200, "{}", answer.error());
                        view = answer.json();
                    }
                } else {
                    let answer = http
                        .post(
                            &format!("/api/games/{id}/move"),
                            &json!({"move": m.to_string()}),
                        )
                        .await;
                    assert_eq!(answer.status, 200, "{}", answer.error());
                    view = answer.json();
                }
                game.play(&m).unwrap();
                assert_eq!(view["last"]["text"], m.to_string());
            }
            other => panic!("state {other}"),
        }
    }
    assert_eq!(
        view["state"], "over",
        "game {id} did not end in {max_plies} plies"
    );
    assert_eq!(
        view["result"],
        game.outcome().map_or("*", |o| o.as_str()),
        "{id}"
    );
    // The record reads back as the same game.
    let rec: GameRecord = view["record"].as_str().unwrap().parse().unwrap();
    assert_eq!(rec.game.moves(), game.moves());
    view
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_game_with_undo_and_resign() {
    let runs = tempfile::tempdir().unwrap();
    let http = Http::new(start(options(runs.path())).await);
    let page = http.get("/").await;
    assert_eq!(page.status, 200);
    assert!(String::from_utf8_lossy(&page.body).contains("app.js"));
    assert!(page.headers["content-security-policy"]
        .to_str()
        .unwrap()
        .contains("default-src 'self'"));
    assert_eq!(http.get("/app.js").await.status, 200);
    let info = http.get("/api/info").await.json();
    assert_eq!(
        info["rules"].as_array().unwrap().len(),
        dama_engine::Rules::OPTIONS.len()
    );
    // Every game lists its own rule options (the top level repeats the
    // default game's): Tafl's ply limit is a count, its others words.
    let games = info["games"].as_array().unwrap();
    let entry = |name: &str| games.iter().find(|g| g["name"] == name).unwrap();
    assert_eq!(entry("draughts")["rule_options"], info["rules"]);
    let tafl = entry("tafl")["rule_options"].as_array().unwrap();
    assert_eq!(tafl.len(), dama_tafl::TaflRules::OPTIONS.len());
    let ply = tafl.iter().find(|o| o["key"] == "ply_limit").unwrap();
    assert_eq!(ply["values"]["count"]["max"], 10_000, "{ply}");
    assert_eq!(ply["default"], "200");
    let first = tafl.iter().find(|o| o["key"] == "first").unwrap();
    assert_eq!(first["values"]["choice"][0], "defender", "{first}");

    play_out(&http, "greedy", json!({}), 0, 400).await;
    play_out(&http, "alphabeta", json!({"depth": 2}), 1, 400).await;
    play_out(&http, "mcts", json!({"sims": 20}), 2, 400).await;
    // Every variant the engine offers is playable through the same API.
    for (i, variant) in [Variant::Armenian, Variant::Croda, Variant::Dameo]
        .into_iter()
        .enumerate()
    {
        let rules = Rules::for_variant(variant);
        play_out_rules(&http, "greedy", json!({}), 3 + i as u64, 200, &rules).await;
    }

    // Undo takes back the human's move and the bot's reply; resign ends it.
    let v = http
        .post("/api/games", &json!({"bot": "random", "human": "white"}))
        .await
        .json();
    let id = v["id"].as_str().unwrap();
    let v = http
        .post(&format!("/api/games/{id}/move"), &json!({"move": "d3-d4"}))
        .await
        .json();
    assert_eq!(v["state"], "bot");
    let v = http
        .post_empty(&format!("/api/games/{id}/bot"))
        .await
        .json();
    assert_eq!(v["moves"].as_array().unwrap().len(), 2);
    assert!(v["thought"]["best"]["text"].is_string());
    let v = http
        .post_empty(&format!("/api/games/{id}/undo"))
        .await
        .json();
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);
    assert_eq!(v["state"], "human");
    let v = http
        .post_empty(&format!("/api/games/{id}/resign"))
        .await
        .json();
    assert_eq!(
        (v["state"].as_str(), v["result"].as_str()),
        (Some("over"), Some("0-1"))
    );
    assert!(v["record"].as_str().unwrap().contains("0-1"));

    // A set-up position, a rule option, a forced continuation shown.
    let v = http
        .post(
            "/api/games",
            &json!({"bot": "random", "position": "W:Wc4,g2:Bc5,d6,a7", "rules": "promotion=continue_as_king"}),
        )
        .await
        .json();
    assert!(v["rules"].as_str().unwrap().contains("continue_as_king"));
    let id = v["id"].as_str().unwrap();
    let v = http
        .post(
            &format!("/api/games/{id}/step"),
            &json!({"from": "c4", "to": "c6"}),
        )
        .await
        .json();
    assert_eq!(v["pending"]["at"], "c6");
    assert_eq!(
        v["legal"],
        json!([{"from": "c6", "to": "e6", "captured": "d6"}])
    );

    // Analysis: a network-free bot's line and top moves on a position.
    let a = http
        .post(
            "/api/analyse",
            &json!({"position": "1. d3-d4 d6-d5 *", "ply": 1, "bot": "mcts", "strength": {"sims": 50}}),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.error());
    let a = a.json();
    assert_eq!(a["ply"], 1);
    assert_eq!(a["turn"], "black");
    assert!(!a["thought"]["top"].as_array().unwrap().is_empty());
    assert!(a["thought"]["eval"]["wdl"].is_array());
    let r = http
        .post(
            "/api/replay",
            &json!({"position": "1. d3-d4 d6-d5 2. d4xd6xd8 *"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.error());
    assert_eq!(r.json()["frames"].as_array().unwrap().len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_a_clear_4xx_and_changes_nothing() {
    let runs = tempfile::tempdir().unwrap();
    let secret = tempfile::tempdir().unwrap();
    std::fs::write(secret.path().join("config.toml"), "secret").unwrap();
    std::fs::create_dir_all(runs.path().join("r")).unwrap();
    std::fs::write(runs.path().join("r/config.toml"), "[run]\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(secret.path(), runs.path().join("escape")).unwrap();
    let mut o = options(runs.path());
    o.limits.max_games = 5;
    let http = Http::new(start(o).await);

    let v = http
        .post("/api/games", &json!({"bot": "greedy"}))
        .await
        .json();
    let id = v["id"].as_str().unwrap().to_owned();
    let before = http.get(&format!("/api/games/{id}")).await.body;
    let game = format!("/api/games/{id}");
    let json_ct = [("content-type", "application/json")];

    // (status, request) pairs; each must leave the game as it was.
    let cases: Vec<(u16, &str, String, Vec<u8>, bool)> = vec![
        // Illegal moves and steps.
        (
            422,
            "POST",
            format!("{game}/move"),
            br#"{"move":"d3-d5"}"#.to_vec(),
            true,
        ),
        (
            422,
            "POST",
            format!("{game}/move"),
            br#"{"move":"zz"}"#.to_vec(),
            true,
        ),
        (
            422,
            "POST",
            format!("{game}/step"),
            br#"{"from":"d3","to":"d5"}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            format!("{game}/step"),
            br#"{"from":"z9","to":"d5"}"#.to_vec(),
            true,
        ),
        (409, "POST", format!("{game}/bot"), Vec::new(), false),
        // Malformed JSON, wrong fields, wrong types.
        (
            400,
            "POST",
            format!("{game}/move"),
            b"{\"move\":".to_vec(),
            true,
        ),
        (
            422,
            "POST",
            format!("{game}/move"),
            br#"{"mvoe":"d3-d4"}"#.to_vec(),
            true,
        ),
        (
            422,
            "POST",
            format!("{game}/move"),
            br#"{"move":7}"#.to_vec(),
            true,
        ),
        (
            415,
            "POST",
            format!("{game}/move"),
            br#"{"move":"d3-d4"}"#.to_vec(),
            false,
        ),
        // Malformed positions and rules, unknown bots, budgets over the limit.
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"position":"W:Wz9:Ba7"}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"position":"1. d3-d5 *"}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"rules":"promotion=sometimes"}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"human":"green"}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"bot":"stockfish"}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"bot":"mcts","strength":{"sims":1000000000}}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"bot":"alphabeta","strength":{"depth":99}}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"bot":"alphabeta","strength":{"time_ms":99999999}}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"bot":"alphabeta","strength":{"sims":10}}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"bot":"random","strength":{"depth":2}}"#.to_vec(),
            true,
        ),
        (
            422,
            "POST",
            "/api/games".into(),
            br#"{"bot":"mcts","strength":{"sims":-5}}"#.to_vec(),
            true,
        ),
        (
            422,
            "POST",
            "/api/games".into(),
            br#"{"bot":"mcts","strength":{"sims":1e40}}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/analyse".into(),
            br#"{"position":"1. d3-d4 *","ply":9}"#.to_vec(),
            true,
        ),
        (
            409,
            "POST",
            "/api/analyse".into(),
            br#"{"position":"W:Wd4:B"}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/analyse".into(),
            br#"{"strength":{"time_ms":0}}"#.to_vec(),
            true,
        ),
        // Path tricks: bots, runs and game files named by requests.
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"bot":"run:../escape/0"}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"bot":"bundle:../../etc"}"#.to_vec(),
            true,
        ),
        (
            400,
            "POST",
            "/api/games".into(),
            br#"{"bot":"run:r/x"}"#.to_vec(),
            true,
        ),
        (
            404,
            "POST",
            "/api/games".into(),
            br#"{"bot":"run:r/3"}"#.to_vec(),
            true,
        ),
        (
            400,
            "GET",
            "/api/runs/..%2F..%2Fetc".into(),
            Vec::new(),
            false,
        ),
        (400, "GET", "/api/runs/%2e%2e".into(), Vec::new(), false),
        (400, "GET", "/api/runs/.hidden".into(), Vec::new(), false),
        (404, "GET", "/api/runs/escape".into(), Vec::new(), false),
        (
            404,
            "GET",
            "/api/runs/nope/metrics".into(),
            Vec::new(),
            false,
        ),
        (
            400,
            "GET",
            "/api/runs/r/metrics?from=-1".into(),
            Vec::new(),
            false,
        ),
        (400, "GET", "/api/runs/r/games/x".into(), Vec::new(), false),
        (
            404,
            "GET",
            "/api/runs/r/games/1/5".into(),
            Vec::new(),
            false,
        ),
        (404, "GET", "/../../etc/passwd".into(), Vec::new(), false),
        (404, "GET", "/api/games/..%2F..".into(), Vec::new(), false),
        (404, "GET", "/api/games/nope".into(), Vec::new(), false),
        (405, "DELETE", game.clone(), Vec::new(), false),
        // An oversized body.
        (
            413,
            "POST",
            format!("{game}/move"),
            {
                let mut b = br#"{"move":""#.to_vec();
                b.extend(std::iter::repeat_n(b'x', 100_000));
                b.extend(br#""}"#);
                b
            },
            true,
        ),
    ];
    for (status, method, path, body, is_json) in cases {
        let headers: &[(&str, &str)] = if is_json { &json_ct } else { &[] };
        let answer = http.raw(method, &path, headers, body).await;
        assert_eq!(
            answer.status,
            status,
            "{method} {path}: {:?}",
            String::from_utf8_lossy(&answer.body)
        );
        if status != 405 {
            let error = answer.error();
            assert!(!error.is_empty(), "{method} {path}: no error sentence");
            assert!(!error.contains("secret"), "{error}");
        }
        assert_eq!(
            http.get(&format!("/api/games/{id}")).await.body,
            before,
            "{method} {path} changed the game"
        );
    }
    // The run behind the symbolic link is never listed or read.
    let list = http.get("/api/runs").await.json();
    assert_eq!(list["runs"].as_array().unwrap().len(), 1);

    // Moves after the end are refused.
    http.post_empty(&format!("{game}/resign")).await;
    let a = http
        .post(&format!("{game}/move"), &json!({"move": "d3-d4"}))
        .await;
    assert_eq!(a.status, 409, "{}", a.error());

    // A Host that is not this machine (DNS rebinding) is refused.
    let a = http
        .raw("GET", "/api/info", &[("host", "evil.example")], Vec::new())
        .await;
    assert_eq!(a.status, 421);

    // Too many games.
    let mut last = 0;
    for _ in 0..6 {
        last = http
            .post("/api/games", &json!({"bot": "random"}))
            .await
            .status;
    }
    assert_eq!(last, 429);
    assert_eq!(
        http.get("/api/info").await.status,
        200,
        "the server still answers"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_requests_gets_429_and_the_server_recovers() {
    let runs = tempfile::tempdir().unwrap();
    let mut o = options(runs.path());
    o.limits.rate_per_sec = 20;
    o.limits.rate_burst = 20;
    let http = Http::new(start(o).await);
    let mut tasks = Vec::new();
    for _ in 0..200 {
        let http = http.clone();
        tasks.push(tokio::spawn(async move { http.get("/api/info").await }));
    }
    let mut codes = std::collections::BTreeMap::new();
    for t in tasks {
        let a = t.await.unwrap();
        if a.status == 429 {
            assert!(a.headers.contains_key("retry-after"));
            assert!(a.error().contains("too many requests"));
        }
        *codes.entry(a.status).or_insert(0) += 1;
    }
    assert!(codes.get(&429).copied().unwrap_or(0) >= 150, "{codes:?}");
    assert!(codes.get(&200).copied().unwrap_or(0) >= 20, "{codes:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(http.get("/api/info").await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_games_at_once_every_move_checked() {
    let runs = tiny_runs();
    let http = Http::new(start(options(runs)).await);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..50u64 {
        let http = http.clone();
        // Every kind of bot, the trained network among them.
        let (bot, strength) = match i % 5 {
            0 => ("run:tiny/2", json!({"sims": 8})),
            1 => ("greedy", json!({})),
            2 => ("alphabeta", json!({"depth": 2})),
            3 => ("mcts", json!({"sims": 10})),
            _ => ("random", json!({})),
        };
        tasks.push(tokio::spawn(async move {
            play_out(&http, bot, strength, 100 + i, 4000).await
        }));
    }
    let mut results = std::collections::BTreeMap::new();
    for t in tasks {
        let v = t.await.expect("a game task");
        *results
            .entry(v["result"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    eprintln!(
        "50 games in {:.1} s: {results:?}",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(results.values().sum::<i32>(), 50);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_pages_of_a_real_run_and_live_metrics() {
    let runs = tiny_runs();
    let http = Http::new(start(options(runs)).await);
    let list = http.get("/api/runs").await.json();
    let run = &list["runs"][0];
    assert_eq!(run["name"], "tiny");
    assert_eq!(run["generation"], 2);
    assert_eq!(run["checkpoints"], json!([0, 1, 2]));

    let info = http.get("/api/runs/tiny").await.json();
    assert!(info["config"].as_str().unwrap().contains("[model]"));
    assert_eq!(info["game_generations"], json!([1, 2]));
    let m = http.get("/api/runs/tiny/metrics").await.json();
    let kinds: std::collections::BTreeSet<&str> = m["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    for k in ["session", "selfplay", "train", "eval", "generation"] {
        assert!(kinds.contains(k), "{k} in {kinds:?}");
    }
    let len = std::fs::metadata(runs.join("tiny/metrics.jsonl"))
        .unwrap()
        .len();
    assert_eq!(m["next"], len);

    // Every self-play game replays under the engine.
    let games = http.get("/api/runs/tiny/games/1").await.json();
    let games = games["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    for g in games {
        let r = http
            .get(&format!("/api/runs/tiny/games/1/{}", g["index"]))
            .await
            .json();
        let frames = r["frames"].as_array().unwrap();
        assert_eq!(frames.len(), g["length"].as_u64().unwrap() as usize + 1);
        let last: Position = frames.last().unwrap()["position"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let rec: GameRecord = r["record"].as_str().unwrap().parse().unwrap();
        assert_eq!(rec.game.position().to_string(), last.to_string());
    }

    // The network bots of the run are offered and play.
    let bots = http.get("/api/bots").await.json();
    let ids: Vec<&str> = bots["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"run:tiny/2") && ids.contains(&"run:tiny/0"),
        "{ids:?}"
    );
    let a = http
        .post(
            "/api/analyse",
            &json!({"bot": "run:tiny/1", "strength": {"sims": 16}}),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.error());
    let t = &a.json()["thought"];
    assert!(t["network"]["wdl"].is_array() && t["eval"]["wdl"].is_array());
    let shares: f64 = t["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["share"].as_f64().unwrap())
        .sum();
    assert!((shares - 1.0).abs() < 1e-3, "{shares}");

    // Live: a run written while the page watches it.
    let live_runs = tempfile::tempdir().unwrap();
    let dir = live_runs.path().to_path_buf();
    tokio::task::spawn_blocking({
        let dir = dir.clone();
        move || train(&dir, "live", 1, false)
    })
    .await
    .unwrap();
    let http = Http::new(start(options(live_runs.path())).await);
    let from = std::fs::metadata(dir.join("live/metrics.jsonl"))
        .unwrap()
        .len();
    let addr = http.addr;
    let reader = tokio::spawn(async move { read_sse_until_generation(addr, from, 2).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    tokio::task::spawn_blocking(move || train(&dir, "live", 2, true))
        .await
        .unwrap();
    let events = tokio::time::timeout(Duration::from_secs(120), reader)
        .await
        .expect("live events within 120 s")
        .unwrap();
    assert!(events
        .iter()
        .any(|e| e["kind"] == "train" && e["generation"] == 2));
}

/// Reads `/api/runs/live/live?from=…` until an event of `generation`'s
/// `generation` kind arrives; returns every event read.
async fn read_sse_until_generation(
    addr: std::net::SocketAddr,
    from: u64,
    generation: u64,
) -> Vec<Value> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            format!("GET /api/runs/live/live?from={from} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
                .as_bytes(),
        )
        .await
        .unwrap();
    let mut lines = BufReader::new(stream).lines();
    let mut events = Vec::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        if let Some(data) = line.strip_prefix("data: ") {
            let v: Value = serde_json::from_str(data).unwrap();
            for e in v["events"].as_array().unwrap() {
                events.push(e.clone());
            }
            if events
                .iter()
                .any(|e| e["kind"] == "generation" && e["generation"] == generation)
            {
                return events;
            }
        }
    }
    panic!("the stream ended");
}

/// The report's figures, run by hand: requests per second of the move API
/// (each client plays `d3-d4` and takes it back, over and over) and the
/// latency of bot moves at each bot's default strength.
///
/// `DAMA_SERVE_ADDR=127.0.0.1:8080` measures a running `dama serve
/// --rate-limit 0`; without it, a server in this process. Also
/// `DAMA_MEASURE_CLIENTS` (8), `DAMA_MEASURE_SECS` (10) and
/// `DAMA_MEASURE_BOTS` (`alphabeta`, comma-separated bot ids).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, run by hand"]
async fn measure_move_api_and_bot_latency() {
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_owned());
    let _runs = tempfile::tempdir().unwrap();
    let addr = match std::env::var("DAMA_SERVE_ADDR") {
        Ok(a) => a.parse().expect("DAMA_SERVE_ADDR is host:port"),
        Err(_) => start(options(_runs.path())).await,
    };
    let http = Http::new(addr);
    let clients: usize = env("DAMA_MEASURE_CLIENTS", "8").parse().unwrap();
    let secs: f64 = env("DAMA_MEASURE_SECS", "10").parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let http = http.clone();
        tasks.push(tokio::spawn(async move {
            let v = http.post("/api/games", &json!({"bot": "random"})).await;
            assert_eq!(v.status, 201, "{}", v.error());
            let id = v.json()["id"].as_str().unwrap().to_owned();
            let mut n = 0u64;
            while Instant::now() < deadline {
                let a = http
                    .post(&format!("/api/games/{id}/move"), &json!({"move": "d3-d4"}))
                    .await;
                assert_eq!(a.status, 200, "{}", a.error());
                let a = http.post_empty(&format!("/api/games/{id}/undo")).await;
                assert_eq!(a.status, 200, "{}", a.error());
                n += 2;
            }
            n
        }));
    }
    let started = Instant::now();
    let mut total = 0;
    for t in tasks {
        total += t.await.unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    eprintln!(
        "move API: {total} requests (move + undo) in {elapsed:.1} s from {clients} clients: {:.0} requests/s",
        total as f64 / elapsed
    );

    for bot in env("DAMA_MEASURE_BOTS", "alphabeta").split(',') {
        let v = http.post("/api/games", &json!({"bot": bot})).await;
        assert_eq!(v.status, 201, "{}", v.error());
        let mut view = v.json();
        let id = view["id"].as_str().unwrap().to_owned();
        let mut game = Game::new();
        let mut times = Vec::new();
        while times.len() < 10 && view["state"] != "over" {
            let m = game.legal_moves()[0];
            view = http
                .post(
                    &format!("/api/games/{id}/move"),
                    &json!({"move": m.to_string()}),
                )
                .await
                .json();
            game.play(&m).unwrap();
            if view["state"] != "bot" {
                break;
            }
            let asked = Instant::now();
            let a = http.post_empty(&format!("/api/games/{id}/bot")).await;
            times.push(asked.elapsed().as_secs_f64() * 1000.0);
            assert_eq!(a.status, 200, "{}", a.error());
            view = a.json();
            follow(&mut game, &view);
        }
        times.sort_by(f64::total_cmp);
        eprintln!(
            "bot {bot} at its default strength: {} moves, median {:.0} ms, mean {:.0} ms, max {:.0} ms (request to answer)",
            times.len(),
            times[times.len() / 2],
            times.iter().sum::<f64>() / times.len() as f64,
            times.last().unwrap()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_network_bot_plays_the_variant_it_was_trained_for() {
    let runs = tempfile::tempdir().unwrap();
    let dameo = Rules::for_variant(Variant::Dameo);
    let dir = runs.path().to_path_buf();
    tokio::task::spawn_blocking(move || train_rules(&dir, "dameo", 1, false, dameo))
        .await
        .unwrap();
    let http = Http::new(start(options(runs.path())).await);
    // No rules given: the game is the bot's own variant, from its setup.
    let created = http
        .post(
            "/api/games",
            &json!({"bot": "run:dameo/1", "human": "black", "strength": {"sims": 8}}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.error());
    let view = created.json();
    assert_eq!(
        view["rules"].as_str().unwrap().parse::<Rules>().unwrap(),
        dameo
    );
    let start_pos = Position::startpos_with_rules(dameo);
    assert_eq!(board(&view), pieces(&start_pos));
    // The bot moves in that variant.
    let id = view["id"].as_str().unwrap();
    let moved = http.post_empty(&format!("/api/games/{id}/bot")).await;
    assert_eq!(moved.status, 200, "{}", moved.error());
    let mut game = Game::with_rules(dameo);
    let m = moved.json()["moves"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let mv = game.position().parse_move(&m).unwrap();
    game.play(&mv).unwrap();
    assert_eq!(board(&moved.json()), pieces(game.position()));
    // Other rules are refused by name, for play and for analysis.
    for path in ["/api/games", "/api/analyse"] {
        let refused = http
            .post(
                path,
                &json!({"bot": "run:dameo/1", "rules": "variant=turkish"}),
            )
            .await;
        assert_eq!(refused.status, 400, "{path}");
        let e = refused.error();
        assert!(e.contains("trained for dameo, not turkish"), "{path}: {e}");
    }
    // A position of the bot's variant needs no rules: it is read under them
    // (18 men a side would be refused under Turkish rules).
    let text = Position::startpos_with_rules(dameo).to_string();
    let from_text = http
        .post(
            "/api/games",
            &json!({"bot": "run:dameo/1", "position": text}),
        )
        .await;
    assert_eq!(from_text.status, 201, "{}", from_text.error());
    // Other rule options of its variant are the player's choice.
    let options = http
        .post(
            "/api/games",
            &json!({"bot": "run:dameo/1", "rules": "variant=dameo no_capture_limit=40"}),
        )
        .await;
    assert_eq!(options.status, 201, "{}", options.error());
    // The bot list tells the page which rules each network plays.
    let bots = http.get("/api/bots").await.json();
    let entry = bots["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == "run:dameo/1")
        .unwrap()
        .clone();
    let listed: Rules = entry["rules"].as_str().unwrap().parse().unwrap();
    assert_eq!(listed, dameo);
    assert!(bots["bots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["kind"] == "baseline")
        .all(|b| b.get("rules").is_none()));
    // Baselines play whatever they are given.
    let greedy = http
        .post(
            "/api/games",
            &json!({"bot": "greedy", "rules": "variant=croda"}),
        )
        .await;
    assert_eq!(greedy.status, 201, "{}", greedy.error());
}

/// Turkish Tafl on the same API as draughts (issue 28): its run's training
/// is shown, its network is a bot of Tafl games only (refused by name for
/// draughts), a game is started on the 8 × 4 board, a human move (step by
/// step and whole) and a bot move are played and checked against the rules,
/// undone, an illegal move is refused by name, a position is analysed, and
/// the run's self-play games are replayed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tafl_run_is_watched_played_and_replayed() {
    let runs = tempfile::tempdir().unwrap();
    let dir = runs.path().to_path_buf();
    tokio::task::spawn_blocking(move || train_tafl(&dir, "tafl", 1))
        .await
        .unwrap();
    let http = Http::new(start(options(runs.path())).await);
    let listed = http.get("/api/runs").await;
    assert_eq!(listed.status, 200);
    let text = |a: &common::Answer| String::from_utf8_lossy(&a.body).into_owned();
    assert!(text(&listed).contains("\"tafl\""), "{}", text(&listed));
    let metrics = http.get("/api/runs/tafl/metrics").await;
    assert_eq!(metrics.status, 200);
    assert!(text(&metrics).contains("by_side"), "{}", text(&metrics));

    // The bots of each game.
    let bots = http.get("/api/bots").await;
    assert!(!text(&bots).contains("run:tafl/"), "{}", text(&bots));
    let tafl_bots = http.get("/api/bots?game=tafl").await;
    assert_eq!(tafl_bots.status, 200, "{}", text(&tafl_bots));
    assert!(
        text(&tafl_bots).contains("run:tafl/1"),
        "{}",
        text(&tafl_bots)
    );
    // Pure MCTS is every game's; Tafl's own players are asked of it.
    for id in ["\"mcts\"", "\"alphabeta\"", "\"greedy\""] {
        assert!(text(&tafl_bots).contains(id), "{id}: {}", text(&tafl_bots));
    }
    assert_eq!(http.get("/api/bots?game=chess").await.status, 400);
    let refused = http
        .post(
            "/api/games",
            &json!({"bot": "run:tafl/1", "human": "black"}),
        )
        .await;
    assert_eq!(refused.status, 400);
    assert!(
        refused.error().contains("Turkish Tafl"),
        "{}",
        refused.error()
    );
    for (body, word) in [
        (json!({"game": "chess"}), "chess"),
        (json!({"game": "tafl", "human": "white"}), "defender"),
        (json!({"game": "tafl", "rules": "first=nobody"}), "Tafl"),
        (
            json!({"game": "tafl", "bot": "alphabeta", "strength": {"depth": 9}}),
            "depth",
        ),
    ] {
        let r = http.post("/api/games", &body).await;
        assert_eq!(r.status, 400, "{body}: {}", r.error());
        assert!(r.error().contains(word), "{body}: {}", r.error());
    }

    // A game against the run's network.
    let created = http
        .post(
            "/api/games",
            &json!({"game": "tafl", "bot": "run:tafl/1", "human": "defender", "strength": {"sims": 4}}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.error());
    let v = created.json();
    let id = v["id"].as_str().unwrap().to_owned();
    assert_eq!(v["game"], "tafl");
    assert_eq!(
        (
            v["geometry"]["width"].as_u64(),
            v["geometry"]["height"].as_u64()
        ),
        (Some(8), Some(4))
    );
    assert_eq!(v["geometry"]["sides"][1]["name"], "King side");
    assert_eq!(v["turn"], "defender");
    assert_eq!(v["state"], "human");
    assert_eq!(v["board"].as_array().unwrap().len(), 23);
    let mut game = dama_tafl::Game::new(dama_tafl::TaflRules::default());
    let illegal = http
        .post(&format!("/api/games/{id}/move"), &json!({"move": "a1-a3"}))
        .await;
    assert_eq!(illegal.status, 422);
    assert!(illegal.error().contains("a1-a3"), "{}", illegal.error());
    let bad_square = http
        .post(
            &format!("/api/games/{id}/step"),
            &json!({"from": "h1", "to": "a1"}),
        )
        .await;
    assert_eq!(bad_square.status, 400, "{}", bad_square.error());
    let stepped = http
        .post(
            &format!("/api/games/{id}/step"),
            &json!({"from": "c5", "to": "c4"}),
        )
        .await;
    assert_eq!(stepped.status, 200, "{}", stepped.error());
    let v = stepped.json();
    assert_eq!(v["last"]["text"], "c5-c4");
    assert_eq!(v["state"], "bot");
    game.play(&game.parse_move("c5-c4").unwrap()).unwrap();
    let answered = http.post_empty(&format!("/api/games/{id}/bot")).await;
    assert_eq!(answered.status, 200, "{}", answered.error());
    let v = answered.json();
    assert_eq!(v["thought"]["bot"], "run:tafl/1");
    let reply = v["last"]["text"].as_str().unwrap();
    game.play(&game.parse_move(reply).unwrap())
        .unwrap_or_else(|e| panic!("the bot's {reply} is not legal: {e}"));
    assert_eq!(v["position"], game.position().to_string());
    let mine = game.legal_moves()[0].to_string();
    let moved = http
        .post(&format!("/api/games/{id}/move"), &json!({"move": mine}))
        .await;
    assert_eq!(moved.status, 200, "{}", moved.error());
    assert_eq!(moved.json()["moves"].as_array().unwrap().len(), 3);
    let undone = http.post_empty(&format!("/api/games/{id}/undo")).await;
    assert_eq!(undone.status, 200, "{}", undone.error());
    let v = undone.json();
    assert_eq!(v["moves"].as_array().unwrap().len(), 2);
    assert_eq!(v["state"], "human");
    let record = v["record"].as_str().unwrap().to_owned();
    assert!(record.contains("[GameName \"tafl\"]"), "{record}");

    // Analysis and replay of the game's record (its tag names the game).
    let a = http
        .post(
            "/api/analyse",
            &json!({"position": record, "ply": 1, "bot": "alphabeta", "strength": {"depth": 2}}),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.error());
    let a = a.json();
    assert_eq!(a["turn"], "king_side");
    assert!(a["thought"]["best"]["text"].is_string());
    let r = http.post("/api/replay", &json!({"position": record})).await;
    assert_eq!(r.status, 200, "{}", r.error());
    let r = r.json();
    assert_eq!(r["game"], "tafl");
    assert_eq!(r["frames"].as_array().unwrap().len(), 3);

    // The run's self-play games, replayed on the Tafl board.
    let games = http.get("/api/runs/tafl/games/1").await;
    assert_eq!(games.status, 200, "{}", games.error());
    let g = &games.json()["games"][0];
    let one = http.get("/api/runs/tafl/games/1/0").await;
    assert_eq!(one.status, 200, "{}", one.error());
    let one = one.json();
    assert_eq!(one["geometry"]["height"], 4);
    assert_eq!(
        one["frames"].as_array().unwrap().len(),
        g["length"].as_u64().unwrap() as usize + 1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_learned_evaluator_run_is_a_bot() {
    let runs = tempfile::tempdir().unwrap();
    let run = dama_run::RunDir::new(runs.path().join("nn1"));
    std::fs::create_dir_all(run.root()).unwrap();
    std::fs::write(run.config(), "[run]\nkind = \"nnue\"\ngenerations = 1\n").unwrap();
    let http = Http::new(start(options(runs.path())).await);
    let text = |a: &common::Answer| String::from_utf8_lossy(&a.body).into_owned();
    // No network yet: not listed, and refused by name.
    let bots = http.get("/api/bots").await;
    assert!(!text(&bots).contains("nnue:nn1"), "{}", text(&bots));
    let refused = http
        .post("/api/games", &json!({"bot": "nnue:nn1", "human": "black"}))
        .await;
    assert_eq!(refused.status, 404, "{}", refused.error());
    assert!(refused.error().contains("best.nnue"), "{}", refused.error());

    let net = dama_nnue::FloatNet::random::<dama_draughts::DraughtsFeatures>(&Rules::default(), 2);
    dama_nnue::write_network(&run.best_evaluator(), &net, &[]).unwrap();
    let bots = http.get("/api/bots").await;
    assert!(text(&bots).contains("\"nnue:nn1\""), "{}", text(&bots));
    assert!(text(&bots).contains("\"evaluator\""), "{}", text(&bots));
    // Turkish Tafl's alpha-beta takes learned evaluators too, but this
    // run's network is draughts': not a Tafl bot.
    let tafl = http.get("/api/bots?game=tafl").await;
    assert_eq!(tafl.status, 200, "{}", text(&tafl));
    assert!(!text(&tafl).contains("nnue:nn1"), "{}", text(&tafl));
    let refused = http
        .post(
            "/api/games",
            &json!({"game": "tafl", "bot": "nnue:nn1", "human": "defender"}),
        )
        .await;
    assert_eq!(refused.status, 404, "{}", refused.error());
    assert!(
        refused.error().contains("Turkish Tafl"),
        "{}",
        refused.error()
    );
    let listed = http.get("/api/runs").await;
    assert_eq!(listed.status, 200, "{}", text(&listed));
    play_out(&http, "nnue:nn1", json!({"depth": 2}), 3, 400).await;
    let refused = http
        .post(
            "/api/games",
            &json!({"bot": "nnue:nn1", "strength": {"sims": 5}, "human": "black"}),
        )
        .await;
    assert_eq!(refused.status, 400, "{}", refused.error());
    let refused = http
        .post("/api/games", &json!({"bot": "nnue:../x", "human": "black"}))
        .await;
    assert_eq!(refused.status, 400, "{}", refused.error());
}

/// Issue 27: a learned-evaluator bundle in the runs directory (or given
/// with `--bundle`) is a bot measured in depth or time, at its own default.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_learned_evaluator_bundle_is_a_bot() {
    let runs = tempfile::tempdir().unwrap();
    let net_file = runs.path().join("net.nnue");
    let net = dama_nnue::FloatNet::random::<dama_draughts::DraughtsFeatures>(&Rules::default(), 6);
    dama_nnue::write_network(&net_file, &net, &[]).unwrap();
    let dir = runs.path().join("eb");
    dama_bot::export_evaluator(&dama_bot::EvaluatorExportOptions {
        evaluator: net_file,
        out: dir.clone(),
        limit: dama_eval::AlphaBetaLimit::TimeMs(20),
        threads: 1,
        wheel: None,
    })
    .unwrap();
    let mut o = options(runs.path());
    o.bot = Some(dama_bot::BotSpec::Bundle(dir.clone()));
    let http = Http::new(start(o).await);
    let bots = http.get("/api/bots").await.json();
    let entries = bots["bots"].as_array().unwrap();
    for id in ["bundle:eb", "default"] {
        let e = entries.iter().find(|b| b["id"] == id).unwrap();
        assert_eq!(e["strength"], "depth", "{e}");
        assert_eq!(e["default"]["time_ms"], 20, "{e}");
        assert!(e["rules"].is_string(), "{e}");
        // At a depth, at a time, and at the bundle's own limit: the bot
        // opens the game.
        for strength in [json!({"depth": 2}), json!({"time_ms": 10}), json!({})] {
            let created = http
                .post(
                    "/api/games",
                    &json!({"bot": id, "strength": strength, "human": "black"}),
                )
                .await;
            assert_eq!(created.status, 201, "{}", created.error());
            let game = created.json();
            assert_eq!(game["state"], "bot", "{game}");
            let moved = http
                .post_empty(&format!("/api/games/{}/bot", game["id"].as_str().unwrap()))
                .await;
            assert_eq!(moved.status, 200, "{}", moved.error());
            assert_eq!(moved.json()["state"], "human", "{}", moved.json());
        }
        let refused = http
            .post(
                "/api/games",
                &json!({"bot": id, "strength": {"sims": 5}, "human": "black"}),
            )
            .await;
        assert_eq!(refused.status, 400, "{}", refused.error());
    }
    // A damaged evaluator file: refused when the bot is chosen at a depth.
    let file = dir.join("evaluator.nnue");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[500] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let refused = http
        .post(
            "/api/games",
            &json!({"bot": "bundle:eb", "strength": {"depth": 2}, "human": "black"}),
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.error());
    assert!(refused.error().contains("corrupt"), "{}", refused.error());
}

/// Every game the registry has (a game added by one registry line too) is
/// played over the API as `/api/info` lists it: a human step by step
/// against `random`, the bot's replies, with the board drawn from the
/// game's geometry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_registered_game_is_played_over_the_api() {
    let runs = tempfile::tempdir().unwrap();
    let http = Http::new(start(options(runs.path())).await);
    let info = http.get("/api/info").await.json();
    let games = info["games"].as_array().unwrap();
    assert_eq!(games.len(), dama_nn::GameName::ALL.len());
    for g in games {
        let name = g["name"].as_str().unwrap();
        let human = g["geometry"]["sides"][0]["key"].as_str().unwrap();
        let created = http
            .post(
                "/api/games",
                &json!({"game": name, "bot": "random", "human": human}),
            )
            .await;
        assert_eq!(created.status, 201, "{name}: {}", created.error());
        let mut v = created.json();
        assert_eq!(v["game"], name);
        assert_eq!(v["geometry"], g["geometry"], "{name}");
        let id = v["id"].as_str().unwrap().to_owned();
        for _ in 0..3 {
            if v["result"] != "*" {
                break;
            }
            // The human's move, step by step (the first legal step each time).
            while v["state"] == "human" {
                let step = &v["legal"][0];
                let body = json!({"from": step["from"], "to": step["to"]});
                let r = http.post(&format!("/api/games/{id}/step"), &body).await;
                assert_eq!(r.status, 200, "{name}: {body}: {}", r.error());
                v = r.json();
            }
            if v["state"] == "bot" {
                let r = http.post_empty(&format!("/api/games/{id}/bot")).await;
                assert_eq!(r.status, 200, "{name}: {}", r.error());
                v = r.json();
            }
        }
        assert!(v["moves"].as_array().unwrap().len() >= 2, "{name}: {v}");
    }
}

/// The learned evaluator dama ships is the default bot of the game and
/// rules it was trained for (Turkish draughts, standard rules; Turkish
/// Tafl has its own), playable at a depth like a run's, and not offered
/// where none was trained.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shipped_evaluator_is_the_default_bot_where_it_plays() {
    let runs = tempfile::tempdir().unwrap();
    let http = Http::new(start(options(runs.path())).await);
    let bots = http.get("/api/bots").await.json();
    assert_eq!(bots["default"], "shipped", "{bots}");
    let shipped = bots["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == "shipped")
        .unwrap_or_else(|| panic!("no shipped bot in {bots}"));
    assert_eq!(shipped["kind"], "evaluator");
    assert_eq!(shipped["rules"], Rules::default().to_string());
    // Turkish Tafl ships its own; Mini draughts none.
    let tafl = http.get("/api/bots?game=tafl").await.json();
    assert_eq!(tafl["default"], "shipped", "{tafl}");
    let mini = http.get("/api/bots?game=minidama").await.json();
    assert_ne!(mini["default"], "shipped", "{mini}");
    assert!(!mini.to_string().contains("\"shipped\""), "{mini}");
    play_out(&http, "shipped", json!({"depth": 2}), 5, 400).await;
    // Without a bot, other rules get the handcrafted engine; asked for by
    // name, the shipped evaluator refuses them.
    let croda = "variant=croda";
    let created = http
        .post("/api/games", &json!({"human": "white", "rules": croda}))
        .await;
    assert_eq!(created.status, 201, "{}", created.error());
    let refused = http
        .post(
            "/api/games",
            &json!({"bot": "shipped", "human": "white", "rules": croda}),
        )
        .await;
    assert!(
        refused.status >= 400 && refused.status < 500,
        "{}",
        refused.status
    );
    assert!(refused.error().contains("croda"), "{}", refused.error());
}
