//! The HTTP API: every route in one table ([`router`]), and the OpenAPI
//! document generated from the handlers' annotations ([`ApiDoc`]).

pub mod account;
pub mod analysis;
pub mod board;
pub mod bot;
pub mod challenge;
pub mod chat;
pub mod corr;
pub mod import;
pub mod levels;
pub mod live_analysis;
pub mod params;
pub mod players;
pub mod profile;
pub mod relations;
pub mod seek;
pub mod site;
pub mod socket;
pub mod stream;
pub mod tv;
pub mod vacation;

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::routing::{delete, get, post};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::error::{ApiError, ErrorBody};
use crate::games::Games;
use crate::live::Feeds;
use crate::{AppState, auth, web};

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 16 * 1024;

/// The paths whose bodies may be larger than [`BODY_LIMIT`], for the
/// connection layer (which reads bodies before routing).
pub const LARGE_BODIES: &[(&str, usize)] = &[("/api/import", import::BODY_LIMIT)];

/// The OpenAPI description of the API.
#[derive(OpenApi)]
#[openapi(
    info(title = "ChessMerge API", description = "Merge chess server; lichess-compatible shapes where they fit. See docs/api.md."),
    paths(
        account::register, account::login, account::logout, account::logout_everywhere,
        account::change_password,
        account::list_tokens, account::end_token, account::create_token,
        account::revoke_token, account::account,
        challenge::challenge_user, challenge::challenge_open, challenge::challenge_ai,
        challenge::list, challenge::list_open, challenge::show,
        challenge::accept, challenge::decline, challenge::cancel, seek::seek, levels::levels,
        board::play_move, board::resign, board::add_time, board::abort, board::draw, board::show,
        board::playing, board::export, board::user_games,
        stream::game_stream, stream::event_stream, socket::socket, openapi_json,
        analysis::analyse, analysis::best, analysis::show_game_analysis,
        analysis::request_game_analysis, server_stats,
        live_analysis::stream, live_analysis::stop,
        bot::upgrade, bot::token_test, bot::game_stream, bot::play_move, bot::resign,
        bot::abort, chat::bot_chat, chat::read_bot_chat, chat::board_chat, chat::read_chat,
        chat::report, bot::users_status,
        bot::user, bot::online_bots,
        import::import_game, import::imported, tv::channels, tv::games_of,
        corr::takeback, corr::bot_takeback, corr::rematch, corr::rematch_answer,
        corr::forecasts, corr::set_forecasts,
        profile::rating_history, vacation::show, vacation::set,
        site::get_preferences, site::set_preferences, site::create_guest, account::claim_guest,
        relations::block, relations::unblock, relations::blocking,
        relations::follow, relations::unfollow, relations::following,
        relations::mute, relations::unmute, relations::muting,
        players::autocomplete, players::top,
    ),
    components(schemas(ErrorBody)),
    modifiers(&Security),
    tags(
        (name = "account", description = "Accounts, sessions and API tokens"),
        (name = "challenges", description = "Challenges (all untimed)"),
        (name = "board", description = "Playing: moves, resign, abort, draw, streams"),
        (name = "games", description = "Game views, lists and exports"),
        (name = "live", description = "The page's WebSocket"),
        (name = "analysis", description = "The practice board (replay lines, ask the engine) and games' computer analysis"),
        (name = "users", description = "Players' ratings and histories"),
        (name = "bot", description = "The bot API (lichess's), for engines on bot accounts; see docs/bots.md"),
    )
)]
pub struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        components.add_security_scheme(
            "cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(auth::SESSION_COOKIE))),
        );
    }
}

/// This document.
#[utoipa::path(get, path = "/api/openapi.json", tag = "games",
    responses((status = 200, description = "the OpenAPI document", content_type = "application/json")))]
pub async fn openapi_json() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

/// What the server has done since it started: storage statements and
/// transactions, game commits and the transactions they shared, full
/// replays of games, and live games and channels held (for benchmarks and
/// operators).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatsJson {
    /// Statements sent to the database.
    pub db_statements: u64,
    /// Write transactions committed.
    pub db_write_transactions: u64,
    /// Game changes committed.
    pub game_commits: u64,
    /// Transactions that committed game changes (group commit: several per transaction).
    pub game_commit_batches: u64,
    /// Games rebuilt from their start (cache loads, exports of lists).
    pub replays: u64,
    /// Live games held in memory.
    pub live_games: usize,
    /// Live channels held: games and users.
    pub live_channels: [usize; 2],
}

/// Counters of the server's work.
#[utoipa::path(get, path = "/api/server/stats", tag = "games",
    responses((status = 200, description = "counters since start", body = ServerStatsJson),
        (status = 403, description = "asked from another machine: the counters are for the operator", body = ErrorBody)))]
pub async fn server_stats(
    State(games): State<Arc<Games>>,
    State(feeds): State<Feeds>,
    auth::ClientIp(client): auth::ClientIp,
) -> Result<Json<ServerStatsJson>, ApiError> {
    // The node's own counters, for its operator and the benchmarks on the
    // machine: a client elsewhere (behind a trusted proxy, the address it
    // forwarded) is refused.
    if !client.is_loopback() {
        return Err(ApiError::Forbidden(
            "the server's counters are for its operator: ask the node from its own machine (loopback)"
                .into(),
        ));
    }
    let s = games.store_stats();
    let (g, u) = feeds.hub.channels();
    Ok(Json(ServerStatsJson {
        db_statements: s.statements,
        db_write_transactions: s.write_transactions,
        game_commits: s.game_commits,
        game_commit_batches: s.game_commit_batches,
        replays: games.replays(),
        live_games: games.cached(),
        live_channels: [g, u],
    }))
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

/// Every route of the server.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/api/account/register", post(account::register))
        .route("/api/account/login", post(account::login))
        .route("/api/account/logout", post(account::logout))
        .route(
            "/api/account/logout-everywhere",
            post(account::logout_everywhere),
        )
        .route("/api/account/password", post(account::change_password))
        .route("/api/tokens", get(account::list_tokens))
        .route("/api/tokens/{id}", delete(account::end_token))
        .route("/api/account", get(account::account))
        .route("/api/account/playing", get(board::playing))
        .route(
            "/api/account/preferences",
            get(site::get_preferences).post(site::set_preferences),
        )
        .route("/api/account/guest", post(site::create_guest))
        .route("/api/rel/block/{username}", post(relations::block))
        .route("/api/rel/unblock/{username}", post(relations::unblock))
        .route("/api/rel/blocking", get(relations::blocking))
        .route("/api/rel/follow/{username}", post(relations::follow))
        .route("/api/rel/unfollow/{username}", post(relations::unfollow))
        .route("/api/rel/following", get(relations::following))
        .route("/api/rel/mute/{username}", post(relations::mute))
        .route("/api/rel/unmute/{username}", post(relations::unmute))
        .route("/api/rel/muting", get(relations::muting))
        .route("/api/report", post(chat::report))
        .route("/api/tv/channels", get(tv::channels))
        .route("/api/tv/{variant}", get(tv::games_of))
        .route("/api/games/imported/{username}", get(import::imported))
        .route("/api/player/autocomplete", get(players::autocomplete))
        .route("/api/player/top/{nb}/{perfType}", get(players::top))
        .route("/api/account/guest/claim", post(account::claim_guest))
        .route(
            "/api/token",
            post(account::create_token).delete(account::revoke_token),
        )
        .route("/api/challenge", get(challenge::list))
        .route(
            "/api/challenge/open",
            get(challenge::list_open).post(challenge::challenge_open),
        )
        .route("/api/challenge/ai", post(challenge::challenge_ai))
        .route("/api/levels", get(levels::levels))
        .route("/api/challenge/{username}", post(challenge::challenge_user))
        .route("/api/challenge/{id}/show", get(challenge::show))
        .route("/api/challenge/{id}/accept", post(challenge::accept))
        .route("/api/challenge/{id}/decline", post(challenge::decline))
        .route("/api/challenge/{id}/cancel", post(challenge::cancel))
        .route("/api/board/game/stream/{id}", get(stream::game_stream))
        .route("/api/board/game/{id}/move/{move}", post(board::play_move))
        .route("/api/board/game/{id}/resign", post(board::resign))
        .route("/api/round/{id}/add-time/{seconds}", post(board::add_time))
        .route("/api/board/seek", post(seek::seek))
        .route(
            "/api/account/vacation",
            get(vacation::show).post(vacation::set),
        )
        .route("/api/board/game/{id}/abort", post(board::abort))
        .route("/api/board/game/{id}/draw/{accept}", post(board::draw))
        .route(
            "/api/board/game/{id}/chat",
            get(chat::read_chat).post(chat::board_chat),
        )
        .route(
            "/api/board/game/{id}/takeback/{accept}",
            post(corr::takeback),
        )
        .route(
            "/api/bot/game/{id}/takeback/{accept}",
            post(corr::bot_takeback),
        )
        .route("/api/board/game/{id}/rematch", post(corr::rematch))
        .route(
            "/api/board/game/{id}/rematch/{accept}",
            post(corr::rematch_answer),
        )
        .route(
            "/api/board/game/{id}/forecasts",
            get(corr::forecasts).post(corr::set_forecasts),
        )
        .route("/api/bot/account/upgrade", post(bot::upgrade))
        .route("/api/token/test", post(bot::token_test))
        .route("/api/bot/game/stream/{id}", get(bot::game_stream))
        .route("/api/bot/game/{id}/move/{move}", post(bot::play_move))
        .route("/api/bot/game/{id}/resign", post(bot::resign))
        .route("/api/bot/game/{id}/abort", post(bot::abort))
        .route(
            "/api/bot/game/{id}/chat",
            get(chat::read_bot_chat).post(chat::bot_chat),
        )
        .route("/api/bot/online", get(bot::online_bots))
        .route("/api/users/status", get(bot::users_status))
        .route("/api/user/{username}", get(bot::user))
        .route(
            "/api/user/{username}/rating-history",
            get(profile::rating_history),
        )
        .route("/api/stream/event", get(stream::event_stream))
        .route("/api/game/{id}", get(board::show))
        .route("/api/games/user/{username}", get(board::user_games))
        .route("/game/export/{id}", get(board::export))
        .route("/api/openapi.json", get(openapi_json))
        .route("/api/socket", get(socket::socket))
        .route("/api/server/stats", get(server_stats))
        .route("/api/analysis", post(analysis::analyse))
        .route("/api/analysis/best", post(analysis::best))
        .route("/api/analysis/stream", post(live_analysis::stream))
        .route("/api/analysis/stream/stop", post(live_analysis::stop))
        .route(
            "/api/game/{id}/analysis",
            get(analysis::show_game_analysis).post(analysis::request_game_analysis),
        )
        .route(
            "/api/import",
            post(import::import_game).layer(DefaultBodyLimit::max(import::BODY_LIMIT)),
        )
        .fallback(web::fallback)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(
            state.site.clone(),
            auth::cross_site_guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            (state.rates.clone(), state.site.clone()),
            crate::edge::rates::rate_limit,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::edge::guard,
        ))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}
