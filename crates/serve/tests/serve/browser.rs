//! The front end in a real browser (issue 17): headless Chromium driven
//! through WebDriver (chromedriver) plays whole games by clicking squares —
//! a multi-jump capture and a promotion among them — checking after every
//! move that the page's board is the engine's position; then analyses a
//! position and opens the training page of a run trained here, finds its
//! charts drawn and replays a self-play game; screenshots are saved and
//! checked not to be blank.
//!
//! Needs `/usr/bin/chromium` and `/usr/bin/chromedriver`
//! (`scripts/setup-browser.sh` installs them; `scripts/test.sh` runs it and
//! sets `DAMA_BROWSER_TEST=required`). Without them the test says so and
//! passes, unless `DAMA_BROWSER_TEST=required`.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{pieces, start, train};
use dama_draughts::alphabeta::{AlphaBeta, SearchLimits};
use dama_engine::{Game, Move, Position};
use dama_serve::{Limits, ServeOptions};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// chromedriver, stopped when dropped.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn start_driver() -> (Driver, String) {
    let port = free_port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not listen in 30 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (driver, format!("http://127.0.0.1:{port}"))
}

async fn browser(webdriver: &str) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({
            "binary": CHROMIUM,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1300,1150"],
        }),
    );
    ClientBuilder::new(HttpConnector::new())
        .capabilities(caps)
        .connect(webdriver)
        .await
        .expect("a WebDriver session")
}

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, Vec::new()).await.expect("script runs")
}

/// Waits until `script` returns true.
async fn wait_for(c: &Client, what: &str, script: &str) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if js(c, script).await == json!(true) {
            return;
        }
        if Instant::now() > deadline {
            let error = js(c, "return document.getElementById('error').textContent").await;
            panic!("timed out waiting for {what} (page error: {error})");
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

/// Waits until the play page is no longer busy; returns its state.
async fn settled(c: &Client) -> String {
    wait_for(
        c,
        "the play page to settle",
        "const s = document.body.dataset.play; return s === 'human' || s === 'over';",
    )
    .await;
    js(c, "return document.body.dataset.play")
        .await
        .as_str()
        .unwrap()
        .to_owned()
}

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("cannot click {css}: {e}"));
}

async fn fill(c: &Client, css: &str, text: &str) {
    let e = c.find(Locator::Css(css)).await.unwrap();
    e.clear().await.unwrap();
    if !text.is_empty() {
        e.send_keys(text).await.unwrap();
    }
}

/// The pieces the play page draws.
async fn page_board(c: &Client, svg: &str) -> Vec<(String, String)> {
    let v = js(
        c,
        &format!(
            "return Array.from(document.querySelectorAll('#{svg} [data-piece]'))
               .map(e => [e.getAttribute('data-square'), e.getAttribute('data-piece')]);"
        ),
    )
    .await;
    let mut out: Vec<(String, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap().to_owned(),
                p[1].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let index = |sq: &str| {
        sq.parse::<dama_engine::Square>()
            .map(u8::from)
            .unwrap_or(99)
    };
    out.sort_by_key(|(sq, _)| index(sq));
    out
}

async fn page_moves(c: &Client) -> Vec<String> {
    let v = js(
        c,
        "return Array.from(document.querySelectorAll('#play-moves .mv')).map(e => e.textContent);",
    )
    .await;
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect()
}

/// Plays the page's moves the engine has not seen yet (the bot's) and
/// checks the page's board against the engine's position.
async fn sync(c: &Client, game: &mut Game) {
    let moves = page_moves(c).await;
    assert!(moves.len() >= game.moves().len(), "the page lost moves");
    for text in &moves[game.moves().len()..] {
        let m = game
            .position()
            .parse_move(text)
            .unwrap_or_else(|e| panic!("the page's move {text} is not legal: {e}"));
        game.play(&m).unwrap();
    }
    assert_eq!(
        page_board(c, "play-board").await,
        pieces(game.position()),
        "the page's board after {moves:?}"
    );
}

/// The test's move: a multi-jump capture or a promotion when there is one,
/// else alpha-beta's.
fn choose(game: &Game, engine: &mut AlphaBeta, depth: u32) -> Move {
    let moves = game.legal_moves();
    if let Some(m) = moves
        .iter()
        .find(|m| m.capture_count() >= 2 || m.promotes())
    {
        return *m;
    }
    let history = dama_draughts::game_history_hashes(game);
    engine
        .search(game.position(), &history, SearchLimits::depth(depth))
        .best
        .unwrap_or(moves[0])
}

#[derive(Default, Debug)]
struct Seen {
    multi_jumps: usize,
    promotions: usize,
    forced_shown: usize,
    moves: usize,
}

/// Plays the human's side of the page's game to its end by clicking
/// squares; returns the result shown.
async fn play_game(c: &Client, start: Position, depth: u32, seen: &mut Seen) -> String {
    let mut game = Game::from_position(start);
    let mut engine = AlphaBeta::new(4);
    for _ in 0..400 {
        let state = settled(c).await;
        sync(c, &mut game).await;
        if state == "over" {
            assert!(
                game.is_game_over(),
                "the page says over, the engine does not"
            );
            let status = js(
                c,
                "return document.getElementById('play-status').textContent",
            )
            .await;
            return status.as_str().unwrap().to_owned();
        }
        let m = choose(&game, &mut engine, depth);
        let from = m.from().to_string();
        click(c, &format!("#play-board rect[data-square='{from}']")).await;
        let path = m.path();
        for (i, sq) in path.iter().enumerate() {
            let to = sq.to_string();
            // The landing square is offered before it is clicked.
            wait_for(
                c,
                "the landing square to be shown",
                &format!("return !!document.querySelector(\"#play-board [data-target='{to}']\");"),
            )
            .await;
            if i > 0 {
                // Mid-capture: the continuation is shown (as forced when
                // it is the only one).
                let forced = js(
                    c,
                    "return document.querySelectorAll('#play-board .dot.forced').length",
                )
                .await;
                if forced == json!(1) {
                    seen.forced_shown += 1;
                }
            }
            click(c, &format!("#play-board rect[data-square='{to}']")).await;
            if i + 1 < path.len() {
                let state = settled(c).await;
                assert_eq!(state, "human", "mid-capture the human plays on");
            }
        }
        if m.capture_count() >= 2 {
            seen.multi_jumps += 1;
        }
        if m.promotes() {
            seen.promotions += 1;
        }
        seen.moves += 1;
        settled(c).await;
        let moves = page_moves(c).await;
        assert_eq!(
            moves.get(game.moves().len()),
            Some(&m.to_string()),
            "the page played the move clicked"
        );
        game.play(&m).unwrap();
    }
    panic!("the game did not end in 400 moves");
}

/// Saves a screenshot and checks that it is not blank (many colours, no
/// colour covering almost everything).
async fn screenshot(c: &Client, dir: &Path, name: &str) -> PathBuf {
    let png_bytes = c.screenshot().await.expect("a screenshot");
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, &png_bytes).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(&png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let bpp = info.color_type.samples() * usize::from(info.bit_depth as u8).div_ceil(8);
    let mut counts: BTreeMap<&[u8], usize> = BTreeMap::new();
    for px in buf[..info.buffer_size()].chunks_exact(bpp) {
        *counts.entry(px).or_insert(0) += 1;
    }
    let total: usize = counts.values().sum();
    let top = counts.values().max().copied().unwrap_or(0);
    assert!(
        info.width >= 800 && counts.len() >= 50 && (top as f64) < 0.9 * total as f64,
        "{} looks blank: {} colours, the commonest on {:.0}% of the pixels",
        path.display(),
        counts.len(),
        100.0 * top as f64 / total as f64
    );
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_front_end_plays_analyses_and_shows_a_run_in_chromium() {
    let required = std::env::var("DAMA_BROWSER_TEST").is_ok_and(|v| v == "required");
    if !Path::new(CHROMIUM).exists() || !Path::new(CHROMEDRIVER).exists() {
        assert!(
            !required,
            "DAMA_BROWSER_TEST=required but {CHROMIUM} or {CHROMEDRIVER} is missing: run scripts/setup-browser.sh"
        );
        eprintln!(
            "skipped: no {CHROMIUM} or {CHROMEDRIVER} (scripts/setup-browser.sh installs them)"
        );
        return;
    }
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&shots).unwrap();

    let runs = tempfile::tempdir().unwrap();
    let runs_dir = runs.path().to_path_buf();
    tokio::task::spawn_blocking(move || train(&runs_dir, "tiny", 2, false))
        .await
        .unwrap();
    let mut options = ServeOptions::new(runs.path());
    options.limits = Limits {
        bot_workers: 1,
        ..Limits::default()
    };
    let addr = start(options).await;
    let url = format!("http://{addr}/");
    let (_driver, webdriver) = start_driver().await;
    let c = browser(&webdriver).await;

    // Page load: the navigation timing, and the time until the page has
    // its bots and a game.
    let asked = Instant::now();
    c.goto(&url).await.unwrap();
    wait_for(
        &c,
        "the page to be ready",
        "return document.body.dataset.ready === 'yes';",
    )
    .await;
    let ready_ms = asked.elapsed().as_secs_f64() * 1000.0;
    let timing = js(
        &c,
        "const n = performance.getEntriesByType('navigation')[0];
         return [n.responseEnd - n.startTime, n.domContentLoadedEventEnd - n.startTime, n.loadEventEnd - n.startTime];",
    )
    .await;
    eprintln!(
        "page load: response {:.1} ms, DOMContentLoaded {:.1} ms, load {:.1} ms; ready with a game {ready_ms:.0} ms (as the test saw it)",
        timing[0].as_f64().unwrap(),
        timing[1].as_f64().unwrap(),
        timing[2].as_f64().unwrap()
    );

    // Game 1: a set-up position where White's first move is a double
    // capture and a man soon promotes; against `random`.
    let setup = "W:Wc4,g2:Bc5,d6,a7";
    c.find(Locator::Css("#play-bot"))
        .await
        .unwrap()
        .select_by_value("random")
        .await
        .unwrap();
    fill(&c, "#play-setup", setup).await;
    click(&c, "#play-new").await;
    wait_for(
        &c,
        "the set-up position",
        "return document.querySelectorAll('#play-board [data-piece]').length === 5 && document.body.dataset.play === 'human';",
    )
    .await;
    let mut seen = Seen::default();
    let result = play_game(&c, setup.parse().unwrap(), 4, &mut seen).await;
    eprintln!("game 1: {result} ({seen:?})");
    assert!(result.starts_with("Game over"), "{result}");
    assert!(
        seen.multi_jumps >= 1 && seen.promotions >= 1 && seen.forced_shown >= 1,
        "{seen:?}"
    );
    let shot1 = screenshot(&c, &shots, "play-setup-game").await;

    // Game 2: from the initial position as Black (the bot opens, the board
    // turns), against `greedy`, with a rule option changed.
    c.find(Locator::Css("#play-side"))
        .await
        .unwrap()
        .select_by_value("black")
        .await
        .unwrap();
    c.find(Locator::Css("#play-bot"))
        .await
        .unwrap()
        .select_by_value("greedy")
        .await
        .unwrap();
    fill(&c, "#play-setup", "").await;
    fill(&c, "#play-rules [data-rule='no_capture_limit']", "40").await;
    click(&c, "#play-new").await;
    wait_for(&c, "the bot's first move", "return document.querySelectorAll('#play-moves .mv').length === 1 && document.body.dataset.play === 'human';").await;
    let record = js(&c, "return document.getElementById('play-record').value").await;
    assert!(
        record.as_str().unwrap().contains("no_capture_limit=40"),
        "{record}"
    );
    let mut seen2 = Seen::default();
    let result = play_game(
        &c,
        Position::startpos().with_rules("no_capture_limit=40".parse().unwrap()),
        3,
        &mut seen2,
    )
    .await;
    eprintln!("game 2: {result} ({seen2:?})");
    assert!(result.starts_with("Game over"), "{result}");
    let shot2 = screenshot(&c, &shots, "play-full-game").await;

    // Analyse: the game just played, one move before its end.
    click(&c, "#play-to-analysis").await;
    wait_for(&c, "the analysis board", "return !document.getElementById('tab-analyse').hidden && document.querySelectorAll('#an-board [data-piece]').length > 0;").await;
    click(&c, "#an-prev").await;
    wait_for(&c, "an analysis", "return document.body.dataset.analyse === 'done' && document.querySelectorAll('#an-board [data-arrow]').length > 0;").await;
    let pv = js(&c, "return document.getElementById('an-pv').textContent").await;
    assert!(pv.as_str().unwrap().starts_with("line: "), "{pv}");
    let shot3 = screenshot(&c, &shots, "analyse").await;

    // Watch training: the run's charts, then one of its games replayed.
    click(&c, "#tab-button-train").await;
    wait_for(
        &c,
        "the run to open",
        "return document.body.dataset.run === 'tiny';",
    )
    .await;
    for chart in [
        "chart-loss",
        "chart-lr",
        "chart-elo",
        "chart-speed",
        "chart-length",
        "chart-draws",
    ] {
        let drawn = js(
            &c,
            &format!("const s = document.getElementById('{chart}'); return [Number(s.dataset.points), s.querySelectorAll('polyline.series').length];"),
        )
        .await;
        assert!(
            drawn[0].as_f64().unwrap() > 0.0 && drawn[1].as_u64().unwrap() > 0,
            "{chart}: {drawn}"
        );
    }
    let bars = js(
        &c,
        "return document.querySelectorAll('#chart-elo .errbar').length",
    )
    .await;
    eprintln!("Elo chart: {bars} confidence bars");
    wait_for(
        &c,
        "the game list",
        "return document.querySelectorAll('#games-list tr[data-index]').length > 0;",
    )
    .await;
    click(&c, "#games-list tr[data-index='0']").await;
    wait_for(
        &c,
        "the replay board",
        "return document.querySelectorAll('#replay-board [data-piece]').length > 0;",
    )
    .await;
    click(&c, "#replay-next").await;
    let info = js(
        &c,
        "return document.getElementById('replay-info').textContent",
    )
    .await;
    assert!(info.as_str().unwrap().starts_with("1 / "), "{info}");
    let shot4 = screenshot(&c, &shots, "training").await;

    // Turkish Tafl (issue 28): the game chosen, the 8 × 4 board drawn from
    // its geometry, a few moves clicked against `random`, each checked
    // against the rules.
    click(&c, "#tab-button-play").await;
    c.find(Locator::Css("#play-game"))
        .await
        .unwrap()
        .select_by_value("tafl")
        .await
        .unwrap();
    wait_for(
        &c,
        "the Tafl sides and bots",
        "return document.querySelector('#play-side option[value=defender]') !== null && document.querySelector('#play-bot option[value=random]') !== null && document.querySelector('#play-bot option[value=mcts]') !== null;",
    )
    .await;
    // Its rule options as a form (from /api/info's `rule_options`), which
    // the new game below is started with: the server refuses rules text
    // it cannot parse.
    wait_for(
        &c,
        "the Tafl rule options",
        "const f = document.getElementById('play-rules'); return !f.hidden && f.querySelector('[data-rule=ply_limit]') !== null && f.querySelector('[data-rule=ply_limit]').value === '200' && f.querySelector('[data-rule=variant]') === null && document.getElementById('play-rules-label').hidden;",
    )
    .await;
    c.find(Locator::Css("#play-side"))
        .await
        .unwrap()
        .select_by_value("defender")
        .await
        .unwrap();
    c.find(Locator::Css("#play-bot"))
        .await
        .unwrap()
        .select_by_value("random")
        .await
        .unwrap();
    click(&c, "#play-new").await;
    wait_for(
        &c,
        "the Tafl board",
        "const b = document.getElementById('play-board'); return b.dataset.size === '8x4' && b.querySelectorAll('rect.sq').length === 32 && b.querySelectorAll('[data-piece]').length === 23 && document.body.dataset.play === 'human';",
    )
    .await;
    let shot5 = screenshot(&c, &shots, "tafl").await;
    let mut tafl = dama_tafl::Game::new(dama_tafl::TaflRules::default());
    for _ in 0..3 {
        if settled(&c).await == "over" {
            break;
        }
        // Catch up with the bot's moves.
        let moves = page_moves(&c).await;
        for text in &moves[tafl.moves().len()..] {
            let m = tafl
                .parse_move(text)
                .unwrap_or_else(|e| panic!("the page's move {text} is not legal: {e}"));
            tafl.play(&m).unwrap();
        }
        let board = page_board(&c, "play-board").await;
        assert_eq!(board.len(), tafl_pieces(tafl.position()), "{board:?}");
        let Some(m) = tafl.legal_moves().into_iter().find(|m| !m.exit) else {
            break;
        };
        click(&c, &format!("#play-board rect[data-square='{}']", m.from)).await;
        for sq in &m.path {
            wait_for(
                &c,
                "a target",
                &format!("return !!document.querySelector(\"#play-board [data-target='{sq}']\");"),
            )
            .await;
            click(&c, &format!("#play-board rect[data-square='{sq}']")).await;
        }
        tafl.play(&m).unwrap();
        wait_for(
            &c,
            "the move played",
            &format!(
                "return document.querySelectorAll('#play-moves .mv').length > {};",
                tafl.moves().len() - 1
            ),
        )
        .await;
    }
    settled(&c).await;
    let moves = page_moves(&c).await;
    assert!(moves.len() >= 4, "{moves:?}");
    assert_eq!(
        moves[..tafl.moves().len()],
        tafl.moves()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()[..]
    );

    c.close().await.unwrap();
    for s in [shot1, shot2, shot3, shot4, shot5] {
        eprintln!("screenshot: {}", s.display());
    }
}

/// The pieces on a Tafl board.
fn tafl_pieces(pos: &dama_tafl::Position) -> usize {
    dama_tafl::Side::ALL
        .iter()
        .map(|&s| pos.pieces(s).into_iter().count())
        .sum()
}

/// The report's page load time, run by hand against a running server:
/// `DAMA_SERVE_ADDR=127.0.0.1:8080`; loads the page `DAMA_MEASURE_LOADS`
/// (10) times in one browser and prints the navigation timing and the time
/// until the page has its bots and a game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, run by hand"]
async fn measure_page_load() {
    let addr =
        std::env::var("DAMA_SERVE_ADDR").expect("DAMA_SERVE_ADDR=host:port of a running server");
    let loads: usize = std::env::var("DAMA_MEASURE_LOADS").map_or(10, |n| n.parse().unwrap());
    let (_driver, webdriver) = start_driver().await;
    let c = browser(&webdriver).await;
    let mut rows = Vec::new();
    for _ in 0..loads {
        let asked = Instant::now();
        c.goto(&format!("http://{addr}/?{}", rows.len()))
            .await
            .unwrap();
        wait_for(
            &c,
            "the page to be ready",
            "return document.body.dataset.ready === 'yes';",
        )
        .await;
        let ready = asked.elapsed().as_secs_f64() * 1000.0;
        let t = js(
            &c,
            "const n = performance.getEntriesByType('navigation')[0];
             return [n.responseEnd - n.startTime, n.domContentLoadedEventEnd - n.startTime, n.loadEventEnd - n.startTime];",
        )
        .await;
        rows.push([
            t[0].as_f64().unwrap(),
            t[1].as_f64().unwrap(),
            t[2].as_f64().unwrap(),
            ready,
        ]);
    }
    c.close().await.unwrap();
    let median = |i: usize| {
        let mut v: Vec<f64> = rows.iter().map(|r| r[i]).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    eprintln!(
        "page load over {loads} loads (median): response {:.1} ms, DOMContentLoaded {:.1} ms, load event {:.1} ms, ready with bots and a game {:.0} ms",
        median(0),
        median(1),
        median(2),
        median(3)
    );
}
