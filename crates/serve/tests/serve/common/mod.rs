//! What the server's tests share: a real server on the loopback address, a
//! small HTTP client, and a tiny training run.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use dama_engine::{Game, Position, Square};
use dama_serve::{ServeOptions, Server};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// A tiny run: generations of four games with a 1-block, 8-channel
/// network, evaluated against `random` (as in the selfplay tests).
pub const TINY: &str = r#"
[run]
generations = 2
seed = 7
device = "cpu"
torch_threads = 1

[model]
blocks = 1
channels = 8
se_channels = 0
policy_channels = 4
value_channels = 2
value_hidden = 8

[search]
algorithm = "gumbel"
simulations = 4
gumbel_considered_actions = 4

[selfplay]
games_per_generation = 4
parallel_games = 4
max_plies = 40
random_opening_plies = 2

[buffer]
max_positions = 5000
max_generations = 2

[train]
batch_size = 16
warmup_steps = 0

[schedule]
steps_per_generation = 3
min_positions = 1

[eval]
games = 2
baselines = ["random"]
sims = 2
"#;

/// Trains (or resumes) the tiny run `runs/name` up to `generations`.
pub fn train(runs: &Path, name: &str, generations: u32, resume: bool) -> PathBuf {
    train_rules(
        runs,
        name,
        generations,
        resume,
        dama_engine::Rules::default(),
    )
}

/// [`train`] under `rules` (a variant).
pub fn train_rules(
    runs: &Path,
    name: &str,
    generations: u32,
    resume: bool,
    rules: dama_engine::Rules,
) -> PathBuf {
    let mut config = dama_selfplay::RunConfig::parse(TINY).expect("tiny config parses");
    config.run.generations = generations;
    config.rules = rules.into();
    let options = dama_selfplay::TrainOptions {
        config: config.into(),
        run_dir: runs.join(name),
        resume,
    };
    let stop = AtomicBool::new(false);
    dama_selfplay::train(&options, &stop, &dama_selfplay::NoProgress).expect("tiny run trains");
    runs.join(name)
}

/// [`train`] for Turkish Tafl (`[game] name = "tafl"`).
pub fn train_tafl(runs: &Path, name: &str, generations: u32) -> PathBuf {
    let text = format!("{TINY}\n[game]\nname = \"tafl\"\n");
    let mut config = dama_selfplay::RunConfig::parse(&text).expect("tiny Tafl config parses");
    config.run.generations = generations;
    let options = dama_selfplay::TrainOptions {
        config: config.into(),
        run_dir: runs.join(name),
        resume: false,
    };
    let stop = AtomicBool::new(false);
    dama_selfplay::train(&options, &stop, &dama_selfplay::NoProgress).expect("tiny run trains");
    runs.join(name)
}

/// Starts a server on a free loopback port; it runs until the test's
/// runtime ends.
pub async fn start(options: ServeOptions) -> SocketAddr {
    let server = Server::bind("127.0.0.1:0", options)
        .await
        .expect("server binds");
    let addr = server.local_addr();
    tokio::spawn(server.run(std::future::pending()));
    addr
}

/// An HTTP/1 client of one server.
#[derive(Clone)]
pub struct Http {
    pub addr: SocketAddr,
    client: Client<HttpConnector, Full<Bytes>>,
}

/// An answer: status, headers and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The error sentence of a 4xx/5xx answer.
    pub fn error(&self) -> String {
        self.json()["error"].as_str().unwrap_or("").to_owned()
    }
}

impl Http {
    pub fn new(addr: SocketAddr) -> Http {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        Http {
            addr,
            client: Client::builder(TokioExecutor::new()).build(connector),
        }
    }

    /// Any request: method, raw path (sent as is), headers, body.
    pub async fn raw(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> Answer {
        let mut req = hyper::Request::builder()
            .method(method)
            .uri(format!("http://{}{path}", self.addr));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let req = req
            .body(Full::new(Bytes::from(body)))
            .expect("request builds");
        let resp = tokio::time::timeout(Duration::from_secs(300), self.client.request(req))
            .await
            .expect("the server answers within 300 s")
            .expect("the server answers");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp
            .into_body()
            .collect()
            .await
            .expect("body reads")
            .to_bytes()
            .to_vec();
        Answer {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.raw("GET", path, &[], Vec::new()).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Answer {
        self.raw(
            "POST",
            path,
            &[("content-type", "application/json")],
            serde_json::to_vec(body).expect("json"),
        )
        .await
    }

    /// A POST without a body.
    pub async fn post_empty(&self, path: &str) -> Answer {
        self.raw("POST", path, &[], Vec::new()).await
    }
}

/// The pieces of a position as the API writes them: `(square, code)`.
pub fn pieces(pos: &Position) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for sq in Square::ALL {
        if let Some(p) = pos.piece_at(sq) {
            let code = match (p.color, p.role) {
                (dama_engine::Color::White, dama_engine::Role::Man) => "W",
                (dama_engine::Color::White, dama_engine::Role::King) => "WK",
                (dama_engine::Color::Black, dama_engine::Role::Man) => "B",
                (dama_engine::Color::Black, dama_engine::Role::King) => "BK",
            };
            out.push((sq.to_string(), code.to_owned()));
        }
    }
    out
}

/// The pieces of a view's `board`.
pub fn board(view: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = view["board"]
        .as_array()
        .expect("board")
        .iter()
        .map(|p| {
            (
                p["square"].as_str().expect("square").to_owned(),
                p["piece"].as_str().expect("piece").to_owned(),
            )
        })
        .collect();
    out.sort_by_key(|(sq, _)| sq.parse::<Square>().map(u8::from).unwrap_or(99));
    out
}

/// Plays the view's last move on `game`, checking that it is legal there.
pub fn follow(game: &mut Game, view: &Value) {
    let text = view["last"]["text"].as_str().expect("a last move");
    let m = game
        .position()
        .parse_move(text)
        .unwrap_or_else(|e| panic!("the server's move {text} is not legal: {e}"));
    game.play(&m).expect("legal");
}
