//! ndjson streams of the live feeds ([`crate::live`]): a game's states and
//! a user's events, in lichess's board-API shapes.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tokio::sync::mpsc;

use crate::auth::AuthUser;
use crate::error::{ApiResult, ErrorBody};
use crate::extract::Path;
use crate::games::Games;
use crate::live::FeedItem;
use crate::live::Feeds;
use crate::model::GameId;
use crate::presence::Presence;
use crate::views::{GameFullJson, GameStateJson};

/// An ndjson response fed by a feed task.
pub(crate) fn ndjson(rx: mpsc::Receiver<FeedItem>) -> Response {
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        let bytes = match rx.recv().await? {
            FeedItem::Full(_, full) => line(&full),
            FeedItem::State(_, event) => line(&event),
            FeedItem::Event(event) => line(&event),
            FeedItem::Chat(chat) => line(&chat),
            FeedItem::KeepAlive => keep_alive(),
        };
        Some((Ok::<_, Infallible>(bytes), rx))
    });
    ndjson_response(Body::from_stream(stream))
}

/// One ndjson line: `item`'s JSON (an event's text as it was written
/// once) and a newline.
pub(crate) fn line<T: Serialize + ?Sized>(item: &T) -> Bytes {
    let mut out = Vec::with_capacity(256);
    // Plain data and events already written: writing into a `Vec` cannot fail.
    serde_json::to_writer(&mut out, item).expect("a line serialises");
    out.push(b'\n');
    Bytes::from(out)
}

/// The empty line an ndjson stream sends after a while without news, so
/// that the connection is not taken for dead.
pub(crate) fn keep_alive() -> Bytes {
    Bytes::from_static(b"\n")
}

/// An ndjson answer with `body`: its content type, no caching, and no
/// buffering in a proxy (nginx's `X-Accel-Buffering`).
pub(crate) fn ndjson_response(body: Body) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/x-ndjson"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (
                header::HeaderName::from_static("x-accel-buffering"),
                HeaderValue::from_static("no"),
            ),
        ],
        body,
    )
        .into_response()
}

/// Stream a game: `gameFull`, then a `gameState` after every change (ndjson).
/// The stream ends after the state that finishes the game.
#[utoipa::path(get, path = "/api/board/game/stream/{id}", tag = "board",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 200, description = "ndjson: one gameFull line, then gameState lines; empty lines keep the connection alive",
            content((GameFullJson = "application/x-ndjson"), (GameStateJson = "application/x-ndjson"))),
        (status = 404, description = "no such game", body = ErrorBody)))]
pub async fn game_stream(
    State(games): State<Arc<Games>>,
    State(feeds): State<Feeds>,
    Path(id): Path<GameId>,
) -> ApiResult<Response> {
    // Unknown games are a 404 before the stream starts.
    games.read(&id, |_| ()).await?;
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        if let Err(e) = feeds.game(id.clone(), None, tx).await {
            tracing::warn!(game = %id, error = %e, "game stream failed");
        }
    });
    Ok(ndjson(rx))
}

/// Stream your events (ndjson): `gameStart`, `gameFinish`, `challenge`,
/// `challengeCanceled`, `challengeDeclined`.
#[utoipa::path(get, path = "/api/stream/event", tag = "board",
    responses(
        (status = 200, description = "ndjson events; empty lines keep the connection alive", content_type = "application/x-ndjson"),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn event_stream(
    State(feeds): State<Feeds>,
    State(presence): State<Arc<Presence>>,
    user: AuthUser,
) -> Response {
    let (tx, rx) = mpsc::channel(16);
    let uid = user.user.id;
    let credential = user.credential();
    let online = presence.connect(uid);
    tokio::spawn(async move {
        let _online = online;
        // The stream ends when the session or token it came with is ended.
        if let Err(e) = feeds.user(uid, Some(&credential), tx).await {
            tracing::warn!(user_id = %uid, error = %e, "event stream failed");
        }
    });
    ndjson(rx)
}
