//! The routes: the front end's files and the JSON API.
//!
//! | route | what |
//! |---|---|
//! | `GET /` `/app.js` `/style.css` | the front end |
//! | `GET /api/info` | version, the games (geometry, default rules), rule options, limits, default bot |
//! | `GET /api/bots?game=G` | the bots of game `G` (default draughts) to choose from |
//! | `POST /api/games` | a new game: `{game, rules, position, human, bot, strength}` |
//! | `GET /api/games/{id}` | a game |
//! | `POST /api/games/{id}/step` | one step of the human's move: `{from, to}` |
//! | `POST /api/games/{id}/move` | a whole move of the human's: `{move}` |
//! | `POST /api/games/{id}/bot` | the bot plays its move |
//! | `POST /api/games/{id}/undo`, `…/resign` | take back, resign |
//! | `POST /api/analyse` | a bot's view of a position: `{game, position, rules, ply, bot, strength}` |
//! | `POST /api/replay` | every position of a game record: `{game, position, rules}` |
//! | `GET /api/runs` | the runs |
//! | `GET /api/runs/{run}` | a run's config, checkpoints, ladder, game generations |
//! | `GET /api/runs/{run}/metrics?from=B` | metrics events from byte `B` |
//! | `GET /api/runs/{run}/live?from=B` | the same, live (server-sent events `metrics`) |
//! | `GET /api/runs/{run}/games/{gen}` | the self-play games of a generation |
//! | `GET /api/runs/{run}/games/{gen}/{n}` | one of them, every position |
//!
//! Every game is served by the same handlers, written once against
//! [`GameDef`]: a request names its game (`"game": "tafl"`; draughts by
//! default), and `GameName::with` runs the handler's generic part for it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use dama_game::{GameDef, RuleOptionValues};
use dama_mcts::{Outcome, Player};
use dama_nn::{GameName, GameRules, WithGame};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::bots::{Chosen, Strength};
use crate::error::ApiError;
use crate::games::{parse_rules, parse_side, setup_record, GameView, Session};
use crate::record::Record;
use crate::view::{
    board_of, frames_of, geometry_of, result_text, side_key, termination_text, FrameView,
    PieceView, ThoughtView,
};
use crate::{guard, runs, web, AppState};

type St = State<Arc<AppState>>;
type ApiResult<T> = Result<T, ApiError>;

/// JSON bodies, with our errors for bad ones.
#[derive(FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
struct ApiJson<T>(T);

/// Path parameters, with our errors for bad ones.
#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
struct ApiPath<T>(T);

/// Query parameters, with our errors for bad ones.
#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
struct ApiQuery<T>(T);

pub(crate) fn routes(state: Arc<AppState>) -> Router {
    let body_limit = state.limits.max_body;
    Router::new()
        .route("/", get(|| async { web::page("index.html") }))
        .route("/app.js", get(|| async { web::page("app.js") }))
        .route("/style.css", get(|| async { web::page("style.css") }))
        .route("/api/info", get(info))
        .route("/api/bots", get(bots))
        .route("/api/games", post(new_game))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/step", post(step))
        .route("/api/games/{id}/move", post(play_move))
        .route("/api/games/{id}/bot", post(bot_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/analyse", post(analyse))
        .route("/api/replay", post(replay))
        .route("/api/runs", get(list_runs))
        .route("/api/runs/{run}", get(run_info))
        .route("/api/runs/{run}/metrics", get(metrics))
        .route("/api/runs/{run}/live", get(live))
        .route("/api/runs/{run}/games/{generation}", get(run_games))
        .route("/api/runs/{run}/games/{generation}/{index}", get(run_game))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::guard,
        ))
        .with_state(state)
}

async fn not_found(uri: axum::http::Uri) -> Response {
    ApiError::not_found(format!(
        "nothing at `{}`",
        uri.path()
            .chars()
            .take(200)
            .collect::<String>()
            .escape_default()
    ))
    .into_response()
}

async fn info(State(s): St) -> Json<Value> {
    let l = &s.limits;
    let games: Vec<Value> = GameName::ALL.iter().map(|g| g.with(GameInfo)).collect();
    // The default game's rule options, rules and start position also at
    // the top level, where clients of the first API read them.
    let at = GameName::ALL
        .iter()
        .position(|&g| g == GameName::default())
        .unwrap_or_default();
    let default = games[at].clone();
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "games": games,
        "default_game": GameName::default().as_str(),
        "rules": default["rule_options"],
        "default_rules": default["default_rules"],
        "startpos": default["startpos"],
        "default_bot": s.catalogue.default_id(GameName::default()),
        "limits": {
            "max_sims": l.max_sims, "max_time_ms": l.max_time_ms, "max_depth": l.max_depth,
            "max_body": l.max_body, "max_games": l.max_games,
        },
    }))
}

/// A game's entry in `/api/info`: its name, geometry, rule options,
/// default rules and start position.
struct GameInfo;

impl WithGame for GameInfo {
    type Output = Value;

    fn run<G: GameDef>(self) -> Value {
        let rules = G::Rules::default();
        let options: Vec<Value> = G::rule_options()
            .iter()
            .map(|o| {
                let values = match o.values {
                    RuleOptionValues::Choice(v) => json!({"choice": v}),
                    RuleOptionValues::Count { min, max } => {
                        json!({"count": {"min": min, "max": max}})
                    }
                };
                json!({"key": o.key, "about": o.about, "default": o.default, "values": values})
            })
            .collect();
        json!({
            "name": G::NAME,
            "title": G::TITLE,
            "geometry": geometry_of::<G>(),
            "rule_options": options,
            "default_rules": rules.to_string(),
            "startpos": G::position_text(&G::start(&rules)),
        })
    }
}

/// The game a request names (the default game when it names none).
fn game_name(text: Option<&str>) -> ApiResult<GameName> {
    match text {
        None => Ok(GameName::default()),
        Some(t) => t.parse().map_err(|_| {
            ApiError::bad_request(format!(
                "unknown game `{}`; the games are {}",
                t.chars().take(32).collect::<String>().escape_default(),
                GameName::ALL
                    .iter()
                    .map(|g| g.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BotsQuery {
    #[serde(default)]
    game: Option<String>,
}

async fn bots(State(s): St, ApiQuery(q): ApiQuery<BotsQuery>) -> ApiResult<Json<Value>> {
    let game = game_name(q.game.as_deref())?;
    let st = s.clone();
    let list = blocking(move || Ok(st.catalogue.list(game))).await?;
    Ok(Json(
        json!({"game": game.as_str(), "default": s.catalogue.default_id(game), "bots": list}),
    ))
}

/// Runs file-reading work off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|_| Err(ApiError::internal("a request handler failed")))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    /// The game (`draughts`, `tafl`; default draughts).
    #[serde(default)]
    game: Option<String>,
    /// Rules as text (`promotion=continue_as_king …`); positions only.
    #[serde(default)]
    rules: Option<String>,
    /// A position or a game record to start from.
    #[serde(default)]
    position: Option<String>,
    /// The human's side: its key (`white`, `defender`) or name.
    #[serde(default)]
    human: Option<String>,
    #[serde(default)]
    bot: Option<String>,
    #[serde(default)]
    strength: Strength,
}

type Boxed<T> = Pin<Box<dyn Future<Output = ApiResult<T>> + Send>>;

/// Chooses bot `bot` (default: the server's) for game `G` and sets up the
/// game it plays: under `rules` if given, else under the rules the bot's
/// network was trained for. A network bot plays only its own game (and,
/// for draughts, its own variant: another is a 400 naming both); other
/// rule options are the player's choice. Returns the bot's id, the bot and
/// the game's record.
async fn bot_and_game<G: GameDef>(
    s: &Arc<AppState>,
    bot: Option<&str>,
    strength: Strength,
    position: Option<&str>,
    rules: Option<&str>,
) -> ApiResult<(String, Chosen, Record<G>)> {
    // Bad rules text is named before the bot is looked at; the position is
    // read under the rules the game gets, which may be the bot's.
    let asked = parse_rules::<G>(rules)?;
    let name: GameName = G::NAME
        .parse()
        .map_err(|_| ApiError::bad_request(format!("{} is not served", G::TITLE)))?;
    let id = bot.map_or_else(
        || {
            s.catalogue
                .default_id_for::<G>(&asked.unwrap_or_default())
                .to_owned()
        },
        str::to_owned,
    );
    let st = s.clone();
    let bot_id = id.clone();
    let (chosen, trained) = blocking(move || {
        let chosen = st.catalogue.choose(name, &bot_id, &strength)?;
        let trained = crate::adapter::trained(&chosen.spec, name)
            .map_err(|e| ApiError::internal(format!("bot `{}`: {e}", bot_id.escape_default())))?;
        Ok((chosen, trained))
    })
    .await?;
    let trained_rules = trained.as_ref().and_then(GameRules::get::<G>);
    let record = setup_record::<G>(position, asked.or(trained_rules).unwrap_or_default())?;
    if let Some(t) = &trained {
        // The game says which rules its networks refuse (draughts: another
        // variant); a network of another game plays none of this one's.
        let refused = match t.get::<G>() {
            None => Some(format!("plays {}, not {}", t.name().title(), G::TITLE)),
            Some(r) => G::refuse_network_rules(&r, &G::rules(&record.game)),
        };
        if let Some(why) = refused {
            return Err(ApiError::bad_request(format!(
                "bot `{}`: {why}",
                id.escape_default()
            )));
        }
    }
    Ok((id, chosen, record))
}

struct NewGameJob(Arc<AppState>, NewGame);

impl WithGame for NewGameJob {
    type Output = Boxed<Response>;

    fn run<G: GameDef>(self) -> Boxed<Response> {
        Box::pin(new_game_of::<G>(self.0, self.1))
    }
}

async fn new_game_of<G: GameDef>(s: Arc<AppState>, req: NewGame) -> ApiResult<Response> {
    let human = parse_side::<G>(req.human.as_deref())?;
    let (_, chosen, record) = bot_and_game::<G>(
        &s,
        req.bot.as_deref(),
        req.strength,
        req.position.as_deref(),
        req.rules.as_deref(),
    )
    .await?;
    let session: Session<G> = Session::new(record.game, human, chosen);
    let id = s.games.insert(Box::new(session))?;
    let view = s.games.with(&id, |g| Ok(g.view(&id)))?;
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

async fn new_game(State(s): St, ApiJson(req): ApiJson<NewGame>) -> ApiResult<Response> {
    let game = game_name(req.game.as_deref())?;
    game.with(NewGameJob(s, req)).await
}

async fn get_game(State(s): St, ApiPath(id): ApiPath<String>) -> ApiResult<Json<GameView>> {
    Ok(Json(s.games.with(&id, |g| Ok(g.view(&id)))?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepReq {
    from: String,
    to: String,
}

async fn step(
    State(s): St,
    ApiPath(id): ApiPath<String>,
    ApiJson(req): ApiJson<StepReq>,
) -> ApiResult<Json<GameView>> {
    Ok(Json(s.games.with(&id, |g| {
        g.step(&req.from, &req.to)?;
        Ok(g.view(&id))
    })?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveReq {
    #[serde(rename = "move")]
    mv: String,
}

async fn play_move(
    State(s): St,
    ApiPath(id): ApiPath<String>,
    ApiJson(req): ApiJson<MoveReq>,
) -> ApiResult<Json<GameView>> {
    Ok(Json(s.games.with(&id, |g| {
        g.play_move(&req.mv)?;
        Ok(g.view(&id))
    })?))
}

async fn undo(State(s): St, ApiPath(id): ApiPath<String>) -> ApiResult<Json<GameView>> {
    Ok(Json(s.games.with(&id, |g| {
        g.undo()?;
        Ok(g.view(&id))
    })?))
}

async fn resign(State(s): St, ApiPath(id): ApiPath<String>) -> ApiResult<Json<GameView>> {
    Ok(Json(s.games.with(&id, |g| {
        g.resign()?;
        Ok(g.view(&id))
    })?))
}

async fn bot_move(State(s): St, ApiPath(id): ApiPath<String>) -> ApiResult<Json<GameView>> {
    let search = s.games.with(&id, |g| g.start_bot(&s.pool))?;
    let result = search.await;
    Ok(Json(s.games.with(&id, |g| {
        g.finish_bot(result)?;
        Ok(g.view(&id))
    })?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseReq {
    /// The game (default: the record's `GameName` tag, else draughts).
    #[serde(default)]
    game: Option<String>,
    /// A position or a game record (default: the initial position).
    #[serde(default)]
    position: Option<String>,
    #[serde(default)]
    rules: Option<String>,
    /// For a record: the position after this many moves (default: the
    /// last).
    #[serde(default)]
    ply: Option<usize>,
    #[serde(default)]
    bot: Option<String>,
    #[serde(default)]
    strength: Strength,
}

#[derive(Serialize)]
struct AnalyseView {
    game: &'static str,
    position: String,
    ply: usize,
    turn: String,
    board: Vec<PieceView>,
    thought: ThoughtView,
}

/// The game of `game` cut after `ply` moves.
fn at_ply<G: GameDef>(game: &G::Game, ply: Option<usize>) -> ApiResult<G::Game> {
    let Some(ply) = ply else {
        return Ok(game.clone());
    };
    let moves = G::history(game);
    if ply > moves.len() {
        return Err(ApiError::bad_request(format!(
            "ply {ply} is past the end of the game ({} moves)",
            moves.len()
        )));
    }
    let mut g = G::parse_position(&G::rules(game), &G::start_text(game))
        .map_err(|e| ApiError::internal(format!("the game's start cannot be read: {e}")))?;
    for m in &moves[..ply] {
        G::play(&mut g, m)
            .map_err(|e| ApiError::internal(format!("the move `{m}` cannot be replayed: {e}")))?;
    }
    Ok(g)
}

/// The game a request names, else the one its record's `GameName` tag names,
/// else the default.
fn game_of_request(game: Option<&str>, text: Option<&str>) -> ApiResult<GameName> {
    match game {
        Some(g) => game_name(Some(g)),
        None => game_name(text.and_then(crate::record::game_tag).as_deref()),
    }
}

struct AnalyseJob(Arc<AppState>, AnalyseReq);

impl WithGame for AnalyseJob {
    type Output = Boxed<Json<AnalyseView>>;

    fn run<G: GameDef>(self) -> Boxed<Json<AnalyseView>> {
        Box::pin(analyse_of::<G>(self.0, self.1))
    }
}

async fn analyse_of<G: GameDef>(s: Arc<AppState>, req: AnalyseReq) -> ApiResult<Json<AnalyseView>> {
    let (id, chosen, record) = bot_and_game::<G>(
        &s,
        req.bot.as_deref(),
        req.strength,
        req.position.as_deref(),
        req.rules.as_deref(),
    )
    .await?;
    let game = at_ply::<G>(&record.game, req.ply)?;
    if let Some(o) = G::outcome(&game) {
        return Err(ApiError::conflict(format!(
            "the game is over in this position: {}{}",
            result_text(Some(o)),
            G::termination(&game)
                .map_or_else(String::new, |t| format!(" ({})", termination_text(&t)))
        )));
    }
    let thought = s
        .pool
        .think::<G>(chosen.spec, game.clone(), chosen.limit)
        .await?;
    Ok(Json(AnalyseView {
        game: G::NAME,
        position: G::position_text(&game),
        ply: G::plies(&game),
        turn: side_key::<G>(G::to_play(&game)).to_owned(),
        board: board_of::<G>(&game),
        thought: ThoughtView::of::<G>(&id, &thought),
    }))
}

async fn analyse(State(s): St, ApiJson(req): ApiJson<AnalyseReq>) -> ApiResult<Json<AnalyseView>> {
    let game = game_of_request(req.game.as_deref(), req.position.as_deref())?;
    game.with(AnalyseJob(s, req)).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayReq {
    /// The game (default: the record's `GameName` tag, else draughts).
    #[serde(default)]
    game: Option<String>,
    position: String,
    #[serde(default)]
    rules: Option<String>,
}

#[derive(Serialize)]
struct ReplayView {
    game: &'static str,
    geometry: crate::view::GeometryView,
    rules: String,
    record: String,
    result: &'static str,
    frames: Vec<FrameView>,
}

fn replay_view<G: GameDef>(
    game: &G::Game,
    result: Option<Outcome>,
    tags: &[(String, String)],
) -> ApiResult<ReplayView> {
    let result = result.or_else(|| G::outcome(game));
    Ok(ReplayView {
        game: G::NAME,
        geometry: geometry_of::<G>(),
        rules: G::rules(game).to_string(),
        record: crate::record::write::<G>(game, tags, result),
        result: result_text(result),
        frames: frames_of::<G>(game).map_err(ApiError::internal)?,
    })
}

struct ReplayJob(ReplayReq);

impl WithGame for ReplayJob {
    type Output = ApiResult<ReplayView>;

    fn run<G: GameDef>(self) -> ApiResult<ReplayView> {
        let req = self.0;
        let rules = parse_rules::<G>(req.rules.as_deref())?.unwrap_or_default();
        let record = setup_record::<G>(Some(&req.position), rules)?;
        replay_view::<G>(&record.game, record.result, &record.tags)
    }
}

async fn replay(ApiJson(req): ApiJson<ReplayReq>) -> ApiResult<Json<ReplayView>> {
    let game = game_of_request(req.game.as_deref(), Some(&req.position))?;
    Ok(Json(game.with(ReplayJob(req))?))
}

/// A self-play game of a run, replayed by its own game.
struct RunGameJob {
    summary: crate::runs::GameSummary,
    tags: Vec<(String, String)>,
}

impl WithGame for RunGameJob {
    type Output = ApiResult<ReplayView>;

    fn run<G: GameDef>(self) -> ApiResult<ReplayView> {
        let g = &self.summary;
        let rules = g
            .rules
            .get::<G>()
            .ok_or_else(|| ApiError::internal("the game's rules are of another game"))?;
        let unreadable = |what: &str, e: &dyn std::fmt::Display| {
            ApiError::internal(format!("the game's {what} cannot be replayed: {e}"))
        };
        let mut game = G::parse_position(&rules, &g.start).map_err(|e| unreadable("start", &e))?;
        for text in &g.moves {
            let m = G::parse_move(&game, text)
                .map_err(|e| unreadable(&format!("move `{text}`"), &e))?;
            G::play(&mut game, &m).map_err(|e| unreadable(&format!("move `{text}`"), &e))?;
        }
        let result = match g.result {
            "1-0" => Some(Outcome::Win(Player::First)),
            "0-1" => Some(Outcome::Win(Player::Second)),
            "1/2-1/2" => Some(Outcome::Draw),
            _ => None,
        };
        replay_view::<G>(&game, result, &self.tags)
    }
}

async fn list_runs(State(s): St) -> ApiResult<Json<Value>> {
    let runs = s.runs.clone();
    let list = blocking(move || Ok(runs.list())).await?;
    Ok(Json(json!({"runs": list})))
}

async fn run_info(State(s): St, ApiPath(name): ApiPath<String>) -> ApiResult<Json<Value>> {
    let runs = s.runs.clone();
    blocking(move || {
        let run = runs.run(&name)?;
        let state = dama_run::RunState::load(&run.state()).ok();
        Ok(Json(json!({
            "name": name,
            "config": runs::config_text(&run)?,
            "state": state.map(|st| json!({"generation": st.generation, "step": st.step,
                "best_generation": st.best_generation, "elapsed_secs": st.elapsed_secs})),
            "checkpoints": runs::checkpoints(&run),
            "game_generations": runs.game_generations(&run),
            "ladder": runs::ladder(&run),
        })))
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct From {
    #[serde(default)]
    from: u64,
}

async fn metrics(
    State(s): St,
    ApiPath(name): ApiPath<String>,
    ApiQuery(q): ApiQuery<From>,
) -> ApiResult<Json<Value>> {
    let runs = s.runs.clone();
    blocking(move || {
        let run = runs.run(&name)?;
        let (events, next) = runs::metrics_since(&run, q.from)?;
        Ok(Json(json!({"events": events, "next": next})))
    })
    .await
}

async fn live(
    State(s): St,
    ApiPath(name): ApiPath<String>,
    ApiQuery(q): ApiQuery<From>,
) -> ApiResult<Response> {
    let permit = s
        .streams
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::too_many("too many live streams are open"))?;
    let runs = s.runs.clone();
    let run = {
        let runs = runs.clone();
        blocking(move || runs.run(&name)).await?
    };
    let start = (run, q.from, permit, true);
    let stream = futures_util::stream::unfold(start, |(run, from, permit, first)| async move {
        let mut from = from;
        let mut first = first;
        loop {
            if !first {
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            first = false;
            let r = run.clone();
            let read = tokio::task::spawn_blocking(move || runs::metrics_since(&r, from)).await;
            let Ok(Ok((events, next))) = read else {
                // The run went away or cannot be read: end the stream.
                return None;
            };
            if events.is_empty() && next == from {
                continue;
            }
            from = next;
            if events.is_empty() {
                continue;
            }
            let event = Event::default()
                .event("metrics")
                .json_data(json!({"events": events, "next": next}))
                .unwrap_or_else(|_| Event::default().comment("unencodable"));
            return Some((
                Ok::<Event, std::convert::Infallible>(event),
                (run, from, permit, false),
            ));
        }
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}

async fn run_games(
    State(s): St,
    ApiPath((name, generation)): ApiPath<(String, u32)>,
) -> ApiResult<Json<Value>> {
    let runs = s.runs.clone();
    blocking(move || {
        let run = runs.run(&name)?;
        let games = runs.games(&run, generation)?;
        Ok(Json(json!({"generation": generation, "games": games})))
    })
    .await
}

async fn run_game(
    State(s): St,
    ApiPath((name, generation, index)): ApiPath<(String, u32, usize)>,
) -> ApiResult<Response> {
    let runs = s.runs.clone();
    blocking(move || {
        let run = runs.run(&name)?;
        let games = runs.games(&run, generation)?;
        let Some(g) = games.get(index) else {
            return Err(ApiError::not_found(format!(
                "generation {generation} of `{name}` has {} games, not {}",
                games.len(),
                index + 1
            )));
        };
        let tags = vec![
            ("Event".to_owned(), "dama self-play".to_owned()),
            ("Run".to_owned(), name.clone()),
            ("Round".to_owned(), generation.to_string()),
            ("Game".to_owned(), g.game_id.to_string()),
            ("Termination".to_owned(), g.termination.clone()),
        ];
        let game = g.rules.name();
        let replayed = game.with(RunGameJob {
            summary: g.clone(),
            tags,
        })?;
        let mut view =
            serde_json::to_value(replayed).map_err(|e| ApiError::internal(e.to_string()))?;
        view["termination"] = json!(g.termination);
        view["game_id"] = json!(g.game_id);
        Ok(Json(view).into_response())
    })
    .await
    .map(|mut r| {
        r.headers_mut().insert(
            header::CACHE_CONTROL,
            axum::http::HeaderValue::from_static("no-store"),
        );
        r
    })
}
