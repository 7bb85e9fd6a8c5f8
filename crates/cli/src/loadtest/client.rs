//! The HTTP client (registration, requests) and a player's connection to
//! one game: a WebSocket or an ndjson stream.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use super::args::Transport;
use super::shared::Shared;
use super::wire::{Incoming, OutFrame, message, parse_frame, parse_line};

/// The password every simulated player registers with.
const PASSWORD: &str = "loadtest password";

pub(super) struct Player {
    /// The account id (the lower-cased name).
    pub(super) id: String,
    pub(super) name: String,
    pub(super) token: String,
}

/// A request's answer: status and body, or the transport error's kind.
pub(super) async fn send(req: reqwest::RequestBuilder) -> Result<(u16, Value), String> {
    let resp = req.send().await.map_err(|e| describe_reqwest(&e))?;
    let status = resp.status().as_u16();
    let text = resp.text().await.map_err(|e| describe_reqwest(&e))?;
    let body = serde_json::from_str(&text).unwrap_or_else(|_| json!({ "raw": text }));
    Ok((status, body))
}

fn describe_reqwest(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "timeout".into()
    } else if e.is_connect() {
        "connect failed".into()
    } else {
        format!("request failed: {e}")
    }
}

pub(super) fn error_text(body: &Value) -> String {
    body["error"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| body.to_string())
}

/// Posts and expects a 2xx; anything else is an error of kind `what`.
pub(super) async fn post_ok(
    sh: &Shared,
    what: &str,
    req: reqwest::RequestBuilder,
) -> Result<Value, ()> {
    match send(req).await {
        Ok((s, v)) if (200..300).contains(&s) => Ok(v),
        Ok((s, v)) => {
            sh.refused(&format!("http {what}"), s, &error_text(&v));
            Err(())
        }
        Err(e) => {
            sh.fault(format!("http {what}: {e}"), e.clone());
            Err(())
        }
    }
}

pub(super) async fn register(sh: &Shared, name: String) -> Result<Player> {
    let creds = json!({ "username": name, "password": PASSWORD });
    for (path, what) in [
        ("/api/account/register", "register"),
        ("/api/token", "token"),
    ] {
        let (s, v) = send(sh.client.post(format!("{}{path}", sh.base)).json(&creds))
            .await
            .map_err(|e| anyhow::anyhow!("{what} {name}: {e}"))?;
        if s != 200 {
            bail!("{what} {name}: {s} {}", error_text(&v));
        }
        if what == "token" {
            let token = v["token"]
                .as_str()
                .context("POST /api/token answered no token")?
                .to_owned();
            return Ok(Player {
                id: name.to_ascii_lowercase(),
                name,
                token,
            });
        }
    }
    unreachable!("the loop returns at the token")
}
type WsStream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;
pub(super) enum Conn {
    Ws(Box<WsStream>),
    Http {
        resp: reqwest::Response,
        buf: Vec<u8>,
        /// When the chunk holding the buffered lines arrived.
        at: Instant,
    },
}

impl Conn {
    /// Opens `token`'s connection to `game`; a WebSocket subscribes, from
    /// version `after` when given.
    pub(super) async fn open(
        sh: &Shared,
        transport: Transport,
        game: &str,
        token: &str,
        after: Option<i64>,
    ) -> Result<Conn, String> {
        match transport {
            Transport::Ws => {
                use tokio_tungstenite::tungstenite::client::IntoClientRequest;
                // `?game=` as the page sends it: a balancer that routes by
                // game (docs/deploy.md) puts both players on one node.
                let mut req = format!("{}?game={game}", sh.ws_url)
                    .into_client_request()
                    .map_err(|e| format!("socket request: {e}"))?;
                let auth = format!("Bearer {token}")
                    .parse()
                    .map_err(|_| "socket request: bad token".to_owned())?;
                req.headers_mut().insert("authorization", auth);
                let (mut ws, _) = tokio::time::timeout(
                    sh.timeout,
                    // TCP_NODELAY: a move frame must not wait for Nagle. A
                    // small read buffer: the default 128 KiB is zeroed on
                    // every read (5% of the generator's CPU).
                    tokio_tungstenite::connect_async_with_config(
                        req,
                        Some(
                            tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
                                .read_buffer_size(16 * 1024),
                        ),
                        true,
                    ),
                )
                .await
                .map_err(|_| "timeout: socket connect".to_owned())?
                .map_err(|e| format!("socket connect: {e}"))?;
                let sub = OutFrame::Sub { id: game, v: after };
                tokio::time::timeout(sh.timeout, ws.send(message(&sub)))
                    .await
                    .map_err(|_| "timeout: socket send".to_owned())?
                    .map_err(|e| format!("socket send: {e}"))?;
                Ok(Conn::Ws(Box::new(ws)))
            }
            Transport::Http => {
                let req = sh
                    .streams
                    .get(format!("{}/api/board/game/stream/{game}", sh.base))
                    .bearer_auth(token)
                    .send();
                let resp = tokio::time::timeout(sh.timeout, req)
                    .await
                    .map_err(|_| "timeout: stream open".to_owned())?
                    .map_err(|e| format!("stream open: {}", describe_reqwest(&e)))?;
                if !resp.status().is_success() {
                    return Err(format!("stream open: http {}", resp.status().as_u16()));
                }
                Ok(Conn::Http {
                    resp,
                    buf: Vec::new(),
                    at: Instant::now(),
                })
            }
        }
    }

    /// The next message and its arrival time, within `limit`. Cancel-safe:
    /// a partly read ndjson line stays in the buffer.
    pub(super) async fn next(&mut self, limit: Duration) -> Result<(Incoming, Instant), String> {
        let deadline = tokio::time::Instant::now() + limit;
        match self {
            Conn::Ws(ws) => loop {
                let msg = tokio::time::timeout_at(deadline, ws.next())
                    .await
                    .map_err(|_| "timeout: waiting for a socket frame".to_owned())?;
                let msg = match msg {
                    None => return Err("socket closed".into()),
                    Some(Err(e)) => return Err(format!("socket: {e}")),
                    Some(Ok(m)) => m,
                };
                let at = Instant::now();
                let text = match msg {
                    Message::Text(t) => t,
                    Message::Close(_) => return Err("socket closed by the server".into()),
                    _ => continue,
                };
                match parse_frame(&text)? {
                    Some(incoming) => return Ok((incoming, at)),
                    None => continue, // hello, user events, pong
                }
            },
            Conn::Http { resp, buf, at } => loop {
                if let Some(i) = buf.iter().position(|&b| b == b'\n') {
                    let line = &buf[..=i];
                    let parsed = if line.iter().all(u8::is_ascii_whitespace) {
                        Ok(None) // keep-alive
                    } else {
                        parse_line(line)
                    };
                    buf.drain(..=i);
                    match parsed? {
                        Some(incoming) => return Ok((incoming, *at)),
                        None => continue,
                    }
                }
                let chunk = tokio::time::timeout_at(deadline, resp.chunk())
                    .await
                    .map_err(|_| "timeout: waiting for a stream line".to_owned())?
                    .map_err(|e| format!("stream: {}", describe_reqwest(&e)))?;
                match chunk {
                    Some(c) => {
                        *at = Instant::now();
                        buf.extend_from_slice(&c);
                    }
                    None => return Ok((Incoming::End, Instant::now())),
                }
            },
        }
    }

    /// Sends a WebSocket move frame.
    pub(super) async fn send_move(
        &mut self,
        limit: Duration,
        game: &str,
        uci: &str,
        ply: i64,
        a: i64,
    ) -> Result<(), String> {
        let Conn::Ws(ws) = self else {
            unreachable!("moves go over the socket only on WebSocket games")
        };
        let frame = OutFrame::Move {
            id: game,
            u: uci,
            ply: Some(ply),
            draw: false,
            l: None,
            a: Some(a),
        };
        tokio::time::timeout(limit, ws.send(message(&frame)))
            .await
            .map_err(|_| "timeout: socket send".to_owned())?
            .map_err(|e| format!("socket send: {e}"))
    }

    /// Closes politely (a WebSocket close frame), without waiting long.
    pub(super) async fn close(self) {
        if let Conn::Ws(mut ws) = self {
            let _ =
                tokio::time::timeout(Duration::from_secs(1), WsStream::close(&mut ws, None)).await;
        }
    }
}
