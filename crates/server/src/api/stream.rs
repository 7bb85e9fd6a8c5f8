//! Live feeds: a game's versioned states and a user's events, as ndjson
//! streams (here) and over the page's WebSocket ([`super::socket`]).
//!
//! A feed subscribes to the hub *before* it reads the database, so no
//! committed change can fall between the two; it drops updates it has
//! already sent (by version) and fills any gap (a lagging subscriber) from
//! the stored event history.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::{broadcast, mpsc};

use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Path;
use crate::views::{self, GameFullJson, GameStateJson};
use crate::{AppState, game};

/// An empty line is sent after this long without news.
pub const KEEP_ALIVE: Duration = Duration::from_secs(7);

/// One item of a feed.
#[derive(Debug, Clone)]
pub enum FeedItem {
    /// A game's full description at `version`.
    Full(i64, String),
    /// A game's state after the change to `version`.
    State(i64, Arc<str>),
    /// A user-level event.
    Event(Arc<str>),
    /// Nothing happened for a while.
    KeepAlive,
}

fn is_finished(payload: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(payload)
        .ok()
        .and_then(|v| {
            v.get("status")
                .and_then(|s| s.as_str())
                .map(|s| s != "started")
        })
        .unwrap_or(false)
}

/// Feeds a game's updates into `tx`: its full description first (when
/// `after` is `None`), or every stored state after version `after`; then
/// each change as it is committed. Ends once a finished state has been
/// sent, when `tx` is closed, or at shutdown.
pub async fn game_feed(
    state: AppState,
    id: String,
    after: Option<i64>,
    tx: mpsc::Sender<FeedItem>,
) -> ApiResult<()> {
    let mut rx = state.hub.subscribe_game(&id);
    let mut shutdown = state.shutdown.clone();
    let mut last;
    let mut finished;
    match after {
        None => {
            let g = game::load(&state, &id).await?;
            let players = game::players(&state, &g).await?;
            let full = serde_json::to_string(&views::game_full(&g, &players)?)
                .map_err(|e| ApiError::Internal(e.to_string()))?;
            last = g.version;
            finished = !g.is_ongoing();
            if tx.send(FeedItem::Full(g.version, full)).await.is_err() {
                return Ok(());
            }
        }
        Some(v) => {
            last = v;
            finished = false;
            let g = game::load(&state, &id).await?;
            if g.version > v {
                for ev in state.store.game_events_since(&id, v).await? {
                    last = ev.version;
                    finished = is_finished(&ev.payload);
                    if tx
                        .send(FeedItem::State(ev.version, ev.payload.into()))
                        .await
                        .is_err()
                    {
                        return Ok(());
                    }
                }
            } else {
                finished = !g.is_ongoing();
            }
        }
    }
    while !finished {
        let next = tokio::select! {
            r = tokio::time::timeout(KEEP_ALIVE, rx.recv()) => r,
            _ = crate::stopped(&mut shutdown) => return Ok(()),
        };
        match next {
            Err(_) => {
                if tx.send(FeedItem::KeepAlive).await.is_err() {
                    return Ok(());
                }
            }
            Ok(Ok(update)) if update.version == last + 1 => {
                last = update.version;
                finished = is_finished(&update.payload);
                if tx
                    .send(FeedItem::State(update.version, update.payload))
                    .await
                    .is_err()
                {
                    return Ok(());
                }
            }
            Ok(Ok(update)) if update.version <= last => {}
            // A gap, or we fell behind: read what we missed from the database.
            Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => {
                for ev in state.store.game_events_since(&id, last).await? {
                    last = ev.version;
                    finished = is_finished(&ev.payload);
                    if tx
                        .send(FeedItem::State(ev.version, ev.payload.into()))
                        .await
                        .is_err()
                    {
                        return Ok(());
                    }
                }
            }
            Ok(Err(broadcast::error::RecvError::Closed)) => return Ok(()),
        }
    }
    Ok(())
}

/// Feeds a user's events into `tx`: first a `gameStart` for each ongoing
/// game and a `challenge` for each pending challenge to or by the user, then
/// events as they happen. Ends when `tx` is closed or at shutdown.
pub async fn user_feed(state: AppState, user_id: i64, tx: mpsc::Sender<FeedItem>) -> ApiResult<()> {
    let mut rx = state.hub.subscribe_user(user_id);
    let mut shutdown = state.shutdown.clone();
    let mut initial = Vec::new();
    for g in state.store.ongoing_games(user_id).await? {
        if let Some(color) = g.color_of(user_id) {
            let players = game::players(&state, &g).await?;
            let json = views::now_playing(&g, color, &players)?;
            initial.push(serde_json::json!({ "type": "gameStart", "game": json }).to_string());
        }
    }
    let (incoming, outgoing) = state.store.pending_challenges(user_id).await?;
    for c in incoming.iter().chain(outgoing.iter()) {
        let challenger = state.store.user_by_id(c.challenger_id).await?;
        let dest = match c.dest_user_id {
            Some(d) => state.store.user_by_id(d).await?,
            None => None,
        };
        let json =
            views::ChallengeJson::new(c, challenger.as_ref(), dest.as_ref(), &state.base_url)?;
        initial.push(serde_json::json!({ "type": "challenge", "challenge": json }).to_string());
    }
    for line in initial {
        if tx.send(FeedItem::Event(line.into())).await.is_err() {
            return Ok(());
        }
    }
    loop {
        let next = tokio::select! {
            r = tokio::time::timeout(KEEP_ALIVE, rx.recv()) => r,
            _ = crate::stopped(&mut shutdown) => return Ok(()),
        };
        let item = match next {
            Err(_) => FeedItem::KeepAlive,
            Ok(Ok(ev)) => FeedItem::Event(ev),
            Ok(Err(broadcast::error::RecvError::Lagged(n))) => {
                tracing::warn!(user_id, missed = n, "event stream fell behind");
                continue;
            }
            Ok(Err(broadcast::error::RecvError::Closed)) => return Ok(()),
        };
        if tx.send(item).await.is_err() {
            return Ok(());
        }
    }
}

/// An ndjson response fed by a feed task.
fn ndjson(rx: mpsc::Receiver<FeedItem>) -> Response {
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        let item = rx.recv().await?;
        let bytes = match item {
            FeedItem::Full(_, json) => Bytes::from(json + "\n"),
            FeedItem::State(_, json) | FeedItem::Event(json) => {
                let mut s = String::with_capacity(json.len() + 1);
                s.push_str(&json);
                s.push('\n');
                Bytes::from(s)
            }
            FeedItem::KeepAlive => Bytes::from_static(b"\n"),
        };
        Some((Ok::<_, Infallible>(bytes), rx))
    });
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
        Body::from_stream(stream),
    )
        .into_response()
}

/// Stream a game: `gameFull`, then a `gameState` after every change (ndjson).
/// The stream ends after the state that finishes the game.
#[utoipa::path(get, path = "/api/board/game/stream/{id}", tag = "board",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 200, description = "ndjson: one gameFull line, then gameState lines; empty lines keep the connection alive",
            content((GameFullJson = "application/x-ndjson"), (GameStateJson = "application/x-ndjson"))),
        (status = 404, description = "no such game", body = ErrorBody)))]
pub async fn game_stream(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    game::load(&state, &id).await?;
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        if let Err(e) = game_feed(state, id.clone(), None, tx).await {
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
pub async fn event_stream(State(state): State<AppState>, user: AuthUser) -> Response {
    let (tx, rx) = mpsc::channel(16);
    let uid = user.user.id;
    tokio::spawn(async move {
        if let Err(e) = user_feed(state, uid, tx).await {
            tracing::warn!(user_id = uid, error = %e, "event stream failed");
        }
    });
    ndjson(rx)
}
