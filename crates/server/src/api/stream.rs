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

use crate::auth::{AuthUser, ClientIp, MaybeUser};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Path;
use crate::games::Games;
use crate::live::FeedItem;
use crate::live::Feeds;
use crate::model::GameId;
use crate::presence::Presence;
use crate::state::AnonymousStreams;
use crate::views::{GameFullJson, GameStateJson};

/// An ndjson response fed by a feed task.
pub(crate) fn ndjson(rx: mpsc::Receiver<FeedItem>) -> Response {
    ndjson_until_idle(rx, None, ())
}

/// An ndjson response fed by a feed task, which ends once `idle` passes
/// with nothing but keep-alive lines; `held` (a place the stream takes)
/// is given back when the response ends.
fn ndjson_until_idle<H: Send + 'static>(
    rx: mpsc::Receiver<FeedItem>,
    idle: Option<std::time::Duration>,
    held: H,
) -> Response {
    let last_news = tokio::time::Instant::now();
    let stream = futures_util::stream::unfold(
        (rx, last_news, held),
        move |(mut rx, mut last_news, held)| async move {
            let item = match idle {
                Some(idle) => tokio::time::timeout_at(last_news + idle, rx.recv())
                    .await
                    .ok()?,
                None => rx.recv().await,
            }?;
            let news = !matches!(item, FeedItem::KeepAlive);
            let bytes = match item {
                FeedItem::Full(_, full) => line(&full),
                FeedItem::State(_, event) => line(&event),
                FeedItem::Event(event) => line(&event),
                FeedItem::KeepAlive => keep_alive(),
            };
            if news {
                last_news = tokio::time::Instant::now();
            }
            Some((Ok::<_, Infallible>(bytes), (rx, last_news, held)))
        },
    );
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

/// Stream a game: `gameFull`, then a `gameState` after every change and
/// a `chatLine` for each line of its chat the caller may read (ndjson).
/// The stream ends after the state that finishes the game.
#[utoipa::path(get, path = "/api/board/game/stream/{id}", tag = "board",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 200, description = "ndjson: one gameFull line, then gameState lines; empty lines keep the connection alive",
            content((GameFullJson = "application/x-ndjson"), (GameStateJson = "application/x-ndjson"))),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 429, description = "too many game streams from your address without signing in", body = ErrorBody)))]
pub async fn game_stream(
    State(games): State<Arc<Games>>,
    State(feeds): State<Feeds>,
    State(anonymous): State<Arc<AnonymousStreams>>,
    ClientIp(address): ClientIp,
    MaybeUser(user): MaybeUser,
    Path(id): Path<GameId>,
) -> ApiResult<Response> {
    // A signed-out client holds a few streams per address, each ending
    // when its game stays quiet (the page's spectators use the socket).
    let held = match &user {
        Some(_) => None,
        None => {
            let slot = anonymous.per_address.take(address).ok_or_else(|| {
                ApiError::TooManyRequests(format!(
                    "at most {} game streams at once from one address without signing in: \
                     close one, or sign in",
                    anonymous.per_address.cap()
                ))
            })?;
            Some(slot)
        }
    };
    // Unknown games are a 404 before the stream starts.
    let reader = games
        .chat_reader(&id, user.as_ref().map(|u| &u.user))
        .await?;
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        if let Err(e) = feeds.game(id.clone(), None, false, reader, tx).await {
            tracing::warn!(game = %id, error = %e, "game stream failed");
        }
    });
    let idle = held.is_some().then_some(anonymous.idle);
    Ok(ndjson_until_idle(rx, idle, held))
}

/// A finite list as an ndjson answer: one JSON object a line.
pub fn ndjson_lines<T: serde::Serialize>(items: &[T]) -> ApiResult<Response> {
    let mut body = String::new();
    for item in items {
        let line = serde_json::to_string(item).map_err(|e| ApiError::Internal(e.to_string()))?;
        body.push_str(&line);
        body.push('\n');
    }
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-ndjson"),
        )],
        body,
    )
        .into_response())
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
