//! The page's live channel: one WebSocket per page, carrying the same
//! events as the ndjson streams, with per-game versions so that a client
//! that reconnects gets exactly what it missed.
//!
//! Client to server (JSON text frames):
//! - `{"t":"sub","id":GAME,"v":N}`: follow a game. With `v` (the last version
//!   the client saw), every stored state after it is sent, in order; without
//!   it, a `gameFull` first. Then each change as it is committed.
//! - `{"t":"unsub","id":GAME}`.
//! - `{"t":"move","id":GAME,"u":UCI,"ply":N,"draw":BOOL,"a":ACK}`: play a move
//!   (needs the session cookie); `ply`, when sent, must be the game's current
//!   ply. Answered by `{"t":"ack","a":ACK}` or `{"t":"error","a":ACK,...}`.
//! - `{"t":"ping"}`: answered by `{"t":"pong"}`.
//! - `{"t":"lobby"}` / `{"t":"unlobby"}`: follow (needs the session cookie) or
//!   stop following the open challenges. Following sends the list first
//!   (`{"t":"lobby","d":{"type":"openChallenges","challenges":[...]}}`), then
//!   `{"t":"lobby","d":{"type":"challenge"|"challengeAccepted"|
//!   "challengeCanceled","challenge":{...}}}` as open challenges appear and
//!   go; a follower that falls behind gets the whole list again.
//!
//! Server to client: `{"t":"hello","user":...}` first; then
//! `{"t":"gameFull"|"gameState","id":GAME,"v":N,"d":{...}}` (a followed
//! game's events: its states, its analysis's progress, and the lines of its
//! chat the socket's user may read; a finished game stays followed, for its
//! chat), `{"t":"crowd","id":GAME,"spectators":N}` (when a game is followed
//! and as its spectators come and go), user events as
//! `{"t":"event","d":{...}}`, lobby frames as above, and
//! `{"t":"error","status":STATUS,"error":TEXT,"code":WORD}` (the words of
//! the HTTP error bodies' `code`).

use std::collections::HashMap;

use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use chessmerge_rules::UciMove;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::auth::{AuthUser, ClientIp, MaybeUser};
use crate::error::ApiError;
use crate::games::Actor;
use crate::live::{Credential, FeedEnd, FeedItem, Feeds};
use crate::model::{GameId, UserId};
use crate::state::Sockets;
use crate::store::User;
use crate::views::{ClientFrame, ErrorFrame, ServerFrame};

/// Bytes read from a socket at a time (frames up to [`MAX_MESSAGE`] still
/// arrive whole, over several reads).
const READ_BUFFER: usize = 8 * 1024;

const MAX_MESSAGE: usize = 16 * 1024;

/// A frame from the client, as [`parse_client_frame`] reads it (the move
/// is parsed apart, so that a malformed one is refused as a move).
pub type ClientMsg = ClientFrame<GameId, String>;

/// Open the page's live channel (WebSocket).
#[utoipa::path(get, path = "/api/socket", tag = "live",
    params(("game" = Option<String>, Query,
        description = "The game the page is about: a hint for a load balancer that routes by game \
            (docs/deploy.md). The server ignores it; the socket follows what it subscribes to.")),
    responses(
        (status = 101, description = "WebSocket; see docs/api.md for the messages"),
        (status = 429, description = "too many WebSockets from this address", body = crate::error::ErrorBody)))]
pub async fn socket(
    State(state): State<Sockets>,
    ClientIp(address): ClientIp,
    MaybeUser(user): MaybeUser,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    // Held by the socket's task until it ends.
    let slot = state.sockets.take(address).ok_or_else(|| {
        ApiError::TooManyRequests(format!(
            "too many live sockets from your address (at most {} at once)",
            state.sockets.cap()
        ))
    })?;
    Ok(ws
        .max_message_size(MAX_MESSAGE)
        // A page sends small frames; tungstenite's default 128 KiB read
        // buffer was zeroed on every read (5% of a loaded server's CPU) and
        // held per socket.
        .read_buffer_size(READ_BUFFER)
        .on_upgrade(move |socket| async move {
            let _slot = slot;
            run(state, user, socket).await
        }))
}

/// The error frame of a feed that failed (`id`: its game).
fn error_frame(id: Option<&GameId>, e: &ApiError) -> String {
    let error = e.to_string();
    ServerFrame::Error(ErrorFrame {
        id: Some(id.map(GameId::as_str)),
        status: e.status().as_u16(),
        error: &error,
        code: e.code(),
        a: None,
    })
    .text()
}

/// The spectators' count of game `id` as it is now.
fn crowd_frame(id: &GameId, crowd: &mut watch::Receiver<usize>) -> String {
    let spectators = *crowd.borrow_and_update();
    ServerFrame::Crowd {
        id: id.as_str(),
        spectators,
    }
    .text()
}

/// Follows game `id` for the socket: its events (chat lines as `viewer`
/// may read them), on past its end, and its spectators' count; `viewer`
/// counts as a spectator unless they play in it.
fn spawn_game(
    state: &Sockets,
    viewer: Option<User>,
    id: GameId,
    after: Option<i64>,
    out: mpsc::Sender<String>,
) -> JoinHandle<()> {
    let (feeds, games, crowds) = (
        state.feeds.clone(),
        state.games.clone(),
        state.crowds.clone(),
    );
    tokio::spawn(async move {
        let reader = match games.chat_reader(&id, viewer.as_ref()).await {
            Ok(r) => r,
            Err(e) => {
                let _ = out.send(error_frame(Some(&id), &e.into())).await;
                return;
            }
        };
        let _seat = (!reader.plays).then(|| crowds.sit(&id));
        let mut crowd = crowds.watch(&id);
        let (tx, mut rx) = mpsc::channel(16);
        let feed = feeds.game(id.clone(), after, true, reader, tx);
        let forward = async {
            // The count follows the game's first frame, then each change.
            let mut counted = false;
            loop {
                let text = tokio::select! {
                    item = rx.recv() => {
                        let Some(item) = item else { break };
                        let id = id.as_str();
                        match &item {
                            FeedItem::Full(v, d) => ServerFrame::GameFull { id, v: *v, d },
                            FeedItem::State(v, d) => ServerFrame::GameState { id, v: *v, d },
                            FeedItem::Event(_) | FeedItem::KeepAlive => continue,
                        }
                        .text()
                    }
                    Ok(()) = crowd.changed(), if counted => crowd_frame(&id, &mut crowd),
                };
                if out.send(text).await.is_err() {
                    break;
                }
                if !counted {
                    counted = true;
                    if out.send(crowd_frame(&id, &mut crowd)).await.is_err() {
                        break;
                    }
                }
            }
        };
        let (result, ()) = tokio::join!(feed, forward);
        drop(crowd);
        crowds.release(&id);
        if let Err(e) = result {
            let _ = out.send(error_frame(Some(&id), &e.into())).await;
        }
    })
}

fn spawn_user(
    feeds: &Feeds,
    user: UserId,
    credential: Credential,
    out: mpsc::Sender<String>,
) -> JoinHandle<FeedEnd> {
    let feeds = feeds.clone();
    tokio::spawn(async move {
        let (tx, mut rx) = mpsc::channel(16);
        let feed = feeds.user(user, Some(&credential), tx);
        let forward = async {
            while let Some(item) = rx.recv().await {
                if let FeedItem::Event(d) = &item
                    && out.send(ServerFrame::Event { d }.text()).await.is_err()
                {
                    break;
                }
            }
        };
        let (result, ()) = tokio::join!(feed, forward);
        result.unwrap_or_else(|e| {
            tracing::warn!(%user, error = %e, "event feed failed");
            FeedEnd::Closed
        })
    })
}

fn spawn_lobby(feeds: &Feeds, viewer: UserId, out: mpsc::Sender<String>) -> JoinHandle<()> {
    let feeds = feeds.clone();
    tokio::spawn(async move {
        let (tx, mut rx) = mpsc::channel(16);
        let feed = feeds.lobby(viewer, tx);
        let forward = async {
            while let Some(d) = rx.recv().await {
                if out.send(ServerFrame::Lobby { d: &d }.text()).await.is_err() {
                    break;
                }
            }
        };
        let (result, ()) = tokio::join!(feed, forward);
        if let Err(e) = result {
            let _ = out.send(error_frame(None, &e.into())).await;
        }
    })
}

/// Frames sent with one write at most: a burst is bounded, so the socket
/// goes back to reading soon.
const FRAMES_PER_WRITE: usize = 16;

/// Sends `first` and the frames already queued behind it in order, with one
/// flush: a move's acknowledgement and its state, or a state and the
/// "your move" notice, leave in one write instead of one each.
async fn send_ready(
    socket: &mut WebSocket,
    first: String,
    queued: &mut mpsc::Receiver<String>,
) -> Result<(), axum::Error> {
    use futures_util::SinkExt;
    socket.feed(Message::Text(first.into())).await?;
    for _ in 1..FRAMES_PER_WRITE {
        let Ok(next) = queued.try_recv() else { break };
        socket.feed(Message::Text(next.into())).await?;
    }
    socket.flush().await
}

async fn run(state: Sockets, auth: Option<AuthUser>, mut socket: WebSocket) {
    let _online = auth.as_ref().map(|u| state.presence.connect(u.user.id));
    let (out_tx, mut out_rx) = mpsc::channel::<String>(64);
    let mut subs: HashMap<GameId, JoinHandle<()>> = HashMap::new();
    let mut lobby: Option<JoinHandle<()>> = None;
    // The user feed also watches the session: it ends with SignedOut when
    // the session is ended (logout, on any node), and the socket closes.
    let mut user_task = auth
        .as_ref()
        .map(|u| spawn_user(&state.feeds, u.user.id, u.credential(), out_tx.clone()));
    let user = auth.map(|u| u.user);
    let me = user.as_ref().map(crate::views::light_user);
    let hello = ServerFrame::Hello { user: me.as_ref() }.text();
    let mut shutdown = state.shutdown.clone();
    if socket.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue,
                };
                let reply = handle(&state, user.as_ref(), &text, &mut subs, &mut lobby, &out_tx).await;
                if let Some(r) = reply
                    && send_ready(&mut socket, r, &mut out_rx).await.is_err()
                {
                    break;
                }
            }
            Some(text) = out_rx.recv() => {
                if send_ready(&mut socket, text, &mut out_rx).await.is_err() {
                    break;
                }
            }
            end = async {
                match user_task.as_mut() {
                    Some(h) => h.await.unwrap_or(FeedEnd::Closed),
                    None => std::future::pending().await,
                }
            } => {
                user_task = None;
                if end == FeedEnd::SignedOut {
                    let _ = socket
                        .send(Message::Text(error_reply(&ApiError::Unauthorized("signed out: this session has ended".into()), None).into()))
                        .await;
                    let _ = socket.send(Message::Close(None)).await;
                    break;
                }
            }
            _ = crate::shutdown::stopped(&mut shutdown) => {
                let _ = socket.send(Message::Close(None)).await;
                break;
            }
        }
    }
    for (_, h) in subs {
        h.abort();
    }
    if let Some(h) = user_task {
        h.abort();
    }
    if let Some(h) = lobby {
        h.abort();
    }
}

/// Reads one text frame from the client; the error is the reply's text.
/// Public for the `socket_frame` fuzz target (`fuzz/`).
pub fn parse_client_frame(text: &str) -> Result<ClientMsg, String> {
    serde_json::from_str(text).map_err(|e| format!("invalid message: {e}"))
}

fn error_reply(e: &ApiError, a: Option<i64>) -> String {
    let error = e.to_string();
    ServerFrame::Error(ErrorFrame {
        id: None,
        status: e.status().as_u16(),
        error: &error,
        code: e.code(),
        a: Some(a),
    })
    .text()
}

async fn handle(
    state: &Sockets,
    user: Option<&User>,
    text: &str,
    subs: &mut HashMap<GameId, JoinHandle<()>>,
    lobby: &mut Option<JoinHandle<()>>,
    out: &mpsc::Sender<String>,
) -> Option<String> {
    let msg = match parse_client_frame(text) {
        Ok(m) => m,
        Err(e) => return Some(error_reply(&ApiError::BadRequest(e), None)),
    };
    match msg {
        ClientMsg::Ping => Some(ServerFrame::Pong.text()),
        ClientMsg::Sub { id, v } => {
            subs.retain(|_, h| !h.is_finished());
            let cap = state.subscriptions_per_socket;
            if subs.len() >= cap && !subs.contains_key(&id) {
                return Some(error_reply(
                    &ApiError::bad(format!(
                        "too many subscriptions: a socket follows at most {cap} games at once; unsubscribe first"
                    )),
                    None,
                ));
            }
            if let Some(old) = subs.remove(&id) {
                old.abort();
            }
            let h = spawn_game(state, user.cloned(), id.clone(), v, out.clone());
            subs.insert(id, h);
            None
        }
        ClientMsg::Lobby => {
            let Some(user) = user else {
                return Some(error_reply(
                    &ApiError::Unauthorized("log in to follow the lobby".into()),
                    None,
                ));
            };
            // Following again restarts the feed (with a fresh list).
            if let Some(old) = lobby.take() {
                old.abort();
            }
            *lobby = Some(spawn_lobby(&state.feeds, user.id, out.clone()));
            None
        }
        ClientMsg::Unlobby => {
            if let Some(h) = lobby.take() {
                h.abort();
            }
            None
        }
        ClientMsg::Unsub { id } => {
            if let Some(h) = subs.remove(&id) {
                h.abort();
            }
            None
        }
        ClientMsg::Move {
            id,
            u,
            ply,
            draw,
            l,
            a,
        } => {
            let Some(user) = user else {
                return Some(error_reply(
                    &ApiError::Unauthorized("log in to play".into()),
                    a,
                ));
            };
            if user.bot {
                return Some(error_reply(
                    &ApiError::Forbidden(crate::auth::BOT_OUTSIDE_BOT_API.into()),
                    a,
                ));
            }
            let result = match u.parse::<UciMove>() {
                Ok(mv) => state
                    .games
                    .play_move(&id, Actor::User(user.id), &mv, ply, draw, l.unwrap_or(0))
                    .await
                    .map_err(ApiError::from),
                Err(e) => Err(ApiError::from(e)),
            };
            match result {
                Ok(_) => Some(ServerFrame::Ack { a }.text()),
                Err(e) => Some(error_reply(&e, a)),
            }
        }
    }
}
