//! `dama serve`: a web front end to play against the bots, analyse
//! positions and watch training runs, and the JSON API behind it.
//!
//! * [`Server`]: binds an address and serves [`router`]'s routes on tokio
//!   (axum): the single-page front end (`web/`, compiled into the binary:
//!   no file is read from disk to serve it), the JSON API under `/api/`,
//!   and server-sent events for a run's metrics as they are written.
//! * [`games`]: one game per browser tab, of any game ([`dama_game::GameDef`];
//!   a request names it, draughts by default), in memory, under an
//!   unguessable id; moves by whole moves in notation or step by step (each
//!   jump of a capture or chain, through the game's search state), undo,
//!   resign, the bot's turn. [`view`] draws any board from the game's
//!   geometry; [`record`] writes and reads game records of any game.
//! * [`adapter`]: the one per-game file, which bot plays which game (to
//!   become `dama_bot::Bot<G>`).
//! * [`bots`]: the bots a request may name (baselines, each checkpoint of
//!   each run, bundles, the command line's) and the worker threads that
//!   think for every game and analysis at once.
//! * [`runs`]: the runs directory, read only.
//!
//! Every request is bounded: bodies (64 KiB), requests per second per
//! client, games held, bot jobs queued, live streams, simulations, time
//! and depth. Anything a request gets wrong is a 4xx answer with one
//! sentence of JSON (`{"error": "…"}`) and changes nothing; names of runs
//! and bundles are looked up, never joined onto paths.
//!
//! # Examples
//!
//! ```no_run
//! # async fn run() -> Result<(), dama_serve::Error> {
//! use dama_serve::{ServeOptions, Server};
//!
//! let server = Server::bind("127.0.0.1:8080", ServeOptions::new("checkpoints")).await?;
//! println!("http://{}", server.local_addr());
//! server.run(std::future::pending()).await
//! # }
//! ```

pub mod adapter;
mod api;
pub mod bots;
mod error;
pub mod games;
mod guard;
pub mod record;
pub mod runs;
pub mod view;
mod web;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use dama_bot::{BotOptions, BotSpec};

pub use error::{ApiError, Error};

/// The bounds of what requests may ask for.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Most simulations per decision a request may ask a bot for.
    pub max_sims: u32,
    /// Most thinking time per move, in milliseconds.
    pub max_time_ms: u64,
    /// Most alpha-beta depth.
    pub max_depth: u32,
    /// Most games held at once.
    pub max_games: usize,
    /// A game without a request for this long may be dropped.
    pub game_idle: Duration,
    /// Largest request body, in bytes.
    pub max_body: usize,
    /// Requests per second per client address (sustained); 0: no limit.
    pub rate_per_sec: u32,
    /// Requests a client may send at once above the sustained rate.
    pub rate_burst: u32,
    /// Threads that think for the bots.
    pub bot_workers: usize,
    /// Bot jobs waiting at most (beyond: 429).
    pub bot_queue: usize,
    /// Live metric streams at once.
    pub max_streams: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_sims: 20_000,
            max_time_ms: 30_000,
            max_depth: 10,
            max_games: 2_000,
            game_idle: Duration::from_secs(3600),
            max_body: 64 << 10,
            rate_per_sec: 100,
            rate_burst: 200,
            bot_workers: std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .clamp(1, 8),
            bot_queue: 256,
            max_streams: 64,
        }
    }
}

/// Upper bounds of the [`Limits`] themselves (what `dama serve` accepts).
pub mod bounds {
    /// Most simulations a server may allow.
    pub const MAX_SIMS: u32 = dama_mcts::MAX_SIMULATIONS;
    /// Most milliseconds a server may allow per move (ten minutes).
    pub const MAX_TIME_MS: u64 = 600_000;
    /// Most alpha-beta depth a server may allow.
    pub const MAX_DEPTH: u32 = 30;
    /// Most games a server may hold.
    pub const MAX_GAMES: usize = 100_000;
    /// Most bot worker threads.
    pub const MAX_WORKERS: usize = 64;
    /// Most requests per second per client.
    pub const MAX_RATE: u32 = 1_000_000;
}

/// What a server serves and how.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The runs directory (`checkpoints`): its runs are shown and their
    /// checkpoints and bundles are bots.
    pub runs: PathBuf,
    /// The bot of `--bot`/`--bundle` (id `default`), if any.
    pub bot: Option<BotSpec>,
    /// How bots are built (device, seed, tables).
    pub bot_options: BotOptions,
    /// The bounds of requests.
    pub limits: Limits,
}

impl ServeOptions {
    /// Default options over the runs directory `runs`.
    pub fn new(runs: impl Into<PathBuf>) -> ServeOptions {
        ServeOptions {
            runs: runs.into(),
            bot: None,
            bot_options: BotOptions::default(),
            limits: Limits::default(),
        }
    }

    /// Checks the limits against [`bounds`].
    ///
    /// # Errors
    ///
    /// [`Error::Option`] naming the limit and its bound.
    pub fn check(&self) -> Result<(), Error> {
        let l = &self.limits;
        let bad = |what: &str, v: String, max: String| {
            Err(Error::Option(format!(
                "{what} must be in 1..={max}, got {v}"
            )))
        };
        if l.max_sims == 0 || l.max_sims > bounds::MAX_SIMS {
            return bad(
                "the simulation limit",
                l.max_sims.to_string(),
                bounds::MAX_SIMS.to_string(),
            );
        }
        if l.max_time_ms == 0 || l.max_time_ms > bounds::MAX_TIME_MS {
            return bad(
                "the time limit (ms)",
                l.max_time_ms.to_string(),
                bounds::MAX_TIME_MS.to_string(),
            );
        }
        if l.max_depth == 0 || l.max_depth > bounds::MAX_DEPTH {
            return bad(
                "the depth limit",
                l.max_depth.to_string(),
                bounds::MAX_DEPTH.to_string(),
            );
        }
        if l.max_games == 0 || l.max_games > bounds::MAX_GAMES {
            return bad(
                "the game limit",
                l.max_games.to_string(),
                bounds::MAX_GAMES.to_string(),
            );
        }
        if l.bot_workers == 0 || l.bot_workers > bounds::MAX_WORKERS {
            return bad(
                "the bot workers",
                l.bot_workers.to_string(),
                bounds::MAX_WORKERS.to_string(),
            );
        }
        if l.rate_per_sec > bounds::MAX_RATE {
            return bad(
                "the rate limit",
                l.rate_per_sec.to_string(),
                bounds::MAX_RATE.to_string(),
            );
        }
        Ok(())
    }
}

/// What every request handler shares.
#[derive(Debug)]
pub(crate) struct AppState {
    pub runs: Arc<runs::Runs>,
    pub catalogue: bots::Catalogue,
    pub pool: bots::BotPool,
    pub games: games::Games,
    pub limits: Limits,
    pub guard: guard::Guard,
    pub streams: Arc<tokio::sync::Semaphore>,
}

/// The routes of the front end and the API over `options` (for a server
/// that accepts any `Host`; [`Server::bind`] adds the loopback check).
///
/// Bot worker threads start here.
pub fn router(options: &ServeOptions) -> Router {
    router_with(options, false)
}

fn router_with(options: &ServeOptions, loopback_only: bool) -> Router {
    let runs = Arc::new(runs::Runs::new(&options.runs));
    let limits = options.limits.clone();
    let state = Arc::new(AppState {
        catalogue: bots::Catalogue::new(runs.clone(), options.bot.clone(), limits.clone()),
        pool: bots::BotPool::start(limits.bot_workers, limits.bot_queue, &options.bot_options),
        games: games::Games::new(limits.max_games, limits.game_idle),
        guard: guard::Guard::new(limits.rate_per_sec, limits.rate_burst, loopback_only),
        streams: Arc::new(tokio::sync::Semaphore::new(limits.max_streams.max(1))),
        runs,
        limits,
    });
    api::routes(state)
}

/// A server bound to its address, ready to run.
#[derive(Debug)]
pub struct Server {
    listener: tokio::net::TcpListener,
    app: Router,
    addr: SocketAddr,
}

impl Server {
    /// Binds `addr` (`host:port`; port 0 picks a free one). A server bound
    /// to a loopback address answers only requests whose `Host` is a
    /// loopback name (`localhost`, `127.0.0.1`, `[::1]`), so a web page
    /// elsewhere cannot reach it through DNS rebinding.
    ///
    /// # Errors
    ///
    /// [`Error::Option`] for limits out of bounds, [`Error::Bind`].
    pub async fn bind(addr: &str, options: ServeOptions) -> Result<Server, Error> {
        options.check()?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| Error::Bind {
                addr: addr.to_owned(),
                source,
            })?;
        let local = listener.local_addr().map_err(|source| Error::Bind {
            addr: addr.to_owned(),
            source,
        })?;
        let app = router_with(&options, local.ip().is_loopback());
        Ok(Server {
            listener,
            app,
            addr: local,
        })
    }

    /// The address bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `shutdown` completes (then finishes the requests in
    /// flight).
    ///
    /// # Errors
    ///
    /// [`Error::Serve`] when accepting connections fails for good.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        axum::serve(
            self.listener,
            self.app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(Error::Serve)
    }
}
