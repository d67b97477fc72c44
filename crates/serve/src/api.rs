//! The routes: the front end's files and the JSON API.
//!
//! | route | what |
//! |---|---|
//! | `GET /` `/app.js` `/style.css` | the front end |
//! | `GET /api/info` | version, rule options, limits, default bot |
//! | `GET /api/bots` | the bots to choose from |
//! | `POST /api/games` | a new game: `{rules, position, human, bot, strength}` |
//! | `GET /api/games/{id}` | a game |
//! | `POST /api/games/{id}/step` | one step of the human's move: `{from, to}` |
//! | `POST /api/games/{id}/move` | a whole move of the human's: `{move}` |
//! | `POST /api/games/{id}/bot` | the bot plays its move |
//! | `POST /api/games/{id}/undo`, `…/resign` | take back, resign |
//! | `POST /api/analyse` | a bot's view of a position: `{position, rules, ply, bot, strength}` |
//! | `POST /api/replay` | every position of a game record |
//! | `GET /api/runs` | the runs |
//! | `GET /api/runs/{run}` | a run's config, checkpoints, ladder, game generations |
//! | `GET /api/runs/{run}/metrics?from=B` | metrics events from byte `B` |
//! | `GET /api/runs/{run}/live?from=B` | the same, live (server-sent events `metrics`) |
//! | `GET /api/runs/{run}/games/{gen}` | the self-play games of a generation |
//! | `GET /api/runs/{run}/games/{gen}/{n}` | one of them, every position |

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use dama_engine::{Color, Game, GameRecord, Position, RuleValues, Rules};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::bots::{Chosen, Strength};
use crate::error::ApiError;
use crate::games::{parse_rules, setup, setup_with, GameView, Session};
use crate::view::{board_of, frames_of, result_text, FrameView, PieceView, ThoughtView};
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
    let options: Vec<Value> = Rules::OPTIONS
        .iter()
        .map(|o| {
            let values = match o.values {
                RuleValues::Choice(v) => json!({"choice": v}),
                RuleValues::Count { min, max } => json!({"count": {"min": min, "max": max}}),
            };
            json!({"key": o.key, "about": o.about, "default": o.default, "values": values})
        })
        .collect();
    let l = &s.limits;
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "rules": options,
        "default_rules": Rules::default().to_string(),
        "startpos": Position::startpos().to_string(),
        "default_bot": s.catalogue.default_id(),
        "limits": {
            "max_sims": l.max_sims, "max_time_ms": l.max_time_ms, "max_depth": l.max_depth,
            "max_body": l.max_body, "max_games": l.max_games,
        },
    }))
}

async fn bots(State(s): St) -> ApiResult<Json<Value>> {
    let st = s.clone();
    let list = blocking(move || Ok(st.catalogue.list())).await?;
    Ok(Json(
        json!({"default": s.catalogue.default_id(), "bots": list}),
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
    /// Rules as text (`promotion=continue_as_king …`); positions only.
    #[serde(default)]
    rules: Option<String>,
    /// A position or a game record to start from.
    #[serde(default)]
    position: Option<String>,
    /// `white` or `black`.
    #[serde(default)]
    human: Option<String>,
    #[serde(default)]
    bot: Option<String>,
    #[serde(default)]
    strength: Strength,
}

fn parse_color(text: Option<&str>) -> ApiResult<Color> {
    match text.unwrap_or("white") {
        "white" | "w" | "White" => Ok(Color::White),
        "black" | "b" | "Black" => Ok(Color::Black),
        other => Err(ApiError::bad_request(format!(
            "`{}` is not a side: white or black",
            other.escape_default()
        ))),
    }
}

/// Chooses bot `bot` (default: the server's) and sets up the game it plays:
/// under `rules` if given, else under the rules the bot's network was
/// trained for. A network bot plays only its own variant (another variant is
/// a 400 naming both); other rule options are the player's choice. Returns
/// the bot's id, the bot and the game.
async fn bot_and_game(
    s: &Arc<AppState>,
    bot: Option<&str>,
    strength: Strength,
    position: Option<&str>,
    rules: Option<&str>,
) -> ApiResult<(String, Chosen, Game)> {
    // Bad rules text is named before the bot is looked at; the position is
    // read under the rules the game gets, which may be the bot's.
    let asked = parse_rules(rules)?;
    let id = bot.map_or_else(|| s.catalogue.default_id().to_owned(), str::to_owned);
    let st = s.clone();
    let bot_id = id.clone();
    let (chosen, trained) = blocking(move || {
        let chosen = st.catalogue.choose(&bot_id, &strength)?;
        let trained = chosen
            .spec
            .trained_rules()
            .map_err(|e| ApiError::internal(format!("bot `{}`: {e}", bot_id.escape_default())))?;
        Ok((chosen, trained))
    })
    .await?;
    let game = setup_with(position, asked.or(trained).unwrap_or_default())?;
    if let Some(t) = trained.filter(|t| t.variant != game.rules().variant) {
        return Err(ApiError::bad_request(format!(
            "bot `{}` was trained for {}, not {}",
            id.escape_default(),
            t.variant,
            game.rules().variant
        )));
    }
    Ok((id, chosen, game))
}

async fn new_game(State(s): St, ApiJson(req): ApiJson<NewGame>) -> ApiResult<Response> {
    let human = parse_color(req.human.as_deref())?;
    let (_, chosen, game) = bot_and_game(
        &s,
        req.bot.as_deref(),
        req.strength,
        req.position.as_deref(),
        req.rules.as_deref(),
    )
    .await?;
    let id = s.games.insert(Session::new(game, human, chosen))?;
    let view = s.games.with(&id, |g| Ok(g.view(&id)))?;
    Ok((StatusCode::CREATED, Json(view)).into_response())
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
    let (game, chosen) = s.games.with(&id, Session::start_bot)?;
    let result = s.pool.think(chosen.spec, game, chosen.limit).await;
    Ok(Json(s.games.with(&id, |g| {
        g.finish_bot(result)?;
        Ok(g.view(&id))
    })?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyseReq {
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
    position: String,
    ply: usize,
    turn: String,
    board: Vec<PieceView>,
    thought: ThoughtView,
}

/// The game of `game` cut after `ply` moves.
fn at_ply(game: &Game, ply: Option<usize>) -> ApiResult<Game> {
    let Some(ply) = ply else {
        return Ok(game.clone());
    };
    if ply > game.moves().len() {
        return Err(ApiError::bad_request(format!(
            "ply {ply} is past the end of the game ({} moves)",
            game.moves().len()
        )));
    }
    let mut g = Game::from_position(*game.start_position());
    for m in &game.moves()[..ply] {
        g.play_unchecked(m);
    }
    Ok(g)
}

async fn analyse(State(s): St, ApiJson(req): ApiJson<AnalyseReq>) -> ApiResult<Json<AnalyseView>> {
    let (id, chosen, game) = bot_and_game(
        &s,
        req.bot.as_deref(),
        req.strength,
        req.position.as_deref(),
        req.rules.as_deref(),
    )
    .await?;
    let game = at_ply(&game, req.ply)?;
    if let Some((o, t)) = game.termination() {
        return Err(ApiError::conflict(format!(
            "the game is over in this position: {o} ({})",
            crate::view::termination_text(t)
        )));
    }
    let thought = s
        .pool
        .think(chosen.spec, game.clone(), chosen.limit)
        .await?;
    Ok(Json(AnalyseView {
        position: game.position().to_string(),
        ply: game.moves().len(),
        turn: game.turn().to_string(),
        board: board_of(game.position()),
        thought: ThoughtView::of(&id, &thought),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayReq {
    position: String,
    #[serde(default)]
    rules: Option<String>,
}

#[derive(Serialize)]
struct ReplayView {
    rules: String,
    record: String,
    result: &'static str,
    frames: Vec<FrameView>,
}

fn replay_view(
    game: &Game,
    result: Option<dama_engine::Outcome>,
    tags: Vec<(String, String)>,
) -> ReplayView {
    let rec = GameRecord {
        tags,
        game: game.clone(),
        result: result.or_else(|| game.outcome()),
    };
    ReplayView {
        rules: game.rules().to_string(),
        record: rec.to_string(),
        result: result_text(rec.result),
        frames: frames_of(game),
    }
}

async fn replay(ApiJson(req): ApiJson<ReplayReq>) -> ApiResult<Json<ReplayView>> {
    let text = req.position.trim();
    let (game, result, tags) = match text.parse::<Position>() {
        Ok(_) => (setup(Some(text), req.rules.as_deref())?, None, Vec::new()),
        Err(_) => {
            let rec: GameRecord = text
                .parse()
                .map_err(|e| ApiError::bad_request(format!("not a game record: {e}")))?;
            (rec.game, rec.result, rec.tags)
        }
    };
    Ok(Json(replay_view(&game, result, tags)))
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
        let rules: Rules = g.rules;
        let start = Position::from_str_with_rules(&g.start, rules)
            .map_err(|e| ApiError::internal(format!("the game's start cannot be read: {e}")))?;
        let mut game = Game::from_position(start);
        for text in &g.moves {
            let m = game.position().parse_move(text).map_err(|e| {
                ApiError::internal(format!("the game's move `{text}` cannot be replayed: {e}"))
            })?;
            game.play(&m).map_err(|e| {
                ApiError::internal(format!("the game's move `{text}` cannot be replayed: {e}"))
            })?;
        }
        let result = dama_engine::Outcome::from_token(g.result);
        let tags = vec![
            ("Event".to_owned(), "dama self-play".to_owned()),
            ("Run".to_owned(), name.clone()),
            ("Round".to_owned(), generation.to_string()),
            ("Game".to_owned(), g.game_id.to_string()),
            ("Termination".to_owned(), g.termination.clone()),
        ];
        let mut view = serde_json::to_value(replay_view(&game, result, tags))
            .map_err(|e| ApiError::internal(e.to_string()))?;
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
