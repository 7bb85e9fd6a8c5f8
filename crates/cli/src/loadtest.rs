//! `chessmerge loadtest`: a load generator for a running server (or a
//! cluster behind a load balancer).
//!
//! `--games N` pairs of players, registered through the API with fresh
//! random-suffixed names, each pair playing one game at a time: the
//! challenger sends a challenge with a variant (every variant in turn) and
//! the other accepts; both players then play random legal moves from the
//! `legalMoves` the server pushes, leaning towards merges and splits so
//! that pairs form and part. Each game goes over one transport, drawn by
//! `--mix` weights: `ws` (the page's WebSocket: `sub`, `move` frames with
//! acks, pushed states) or `http` (the lichess board API: `POST
//! /api/board/game/{id}/move/{uci}` and the ndjson game stream). When a game
//! ends the pair starts another, until `--duration` is over; a game still
//! going then is left as it stands. A game longer than `--max-plies` is
//! resigned.
//!
//! Every player acts on its own connection, as a real client would: it
//! moves when a pushed state says it is to move, and it records every move
//! it was pushed, in order. Latency is measured from a move's submission to
//! the arrival of its state on the opponent's connection (moves that
//! arrive on a connection opened after their submission are not sampled).
//! `--reconnect-every K` drops a player's connection after every K moves
//! it has seen, while the opponent is to move, and reopens it: the
//! WebSocket resubscribes with the last version seen (`{"t":"sub","v":N}`)
//! and must get exactly the states it missed; the ndjson stream has no
//! resumption, so the client takes the moves it missed from the new
//! `gameFull` (which must extend what it saw).
//!
//! At the end every game is read back through `GET /game/export/{id}`: its
//! moves must replay legally with the rules crate from its initial
//! position, its status must agree with the replay, and both players'
//! recorded move lists must be exactly its moves. The last line of the
//! output is one `loadtest-summary key=value ...` line; the exit code is 0
//! only when the check found no mismatch and no unexpected error occurred
//! (a 409 is expected: it is how the server refuses a stale move).
//!
//! Safety: only loopback hosts unless `--allow-remote`; no proxies, no
//! redirects followed; every request, connection and wait is bounded by
//! `--timeout`; registration by `--setup-timeout`; the play by `--duration`
//! plus `--drain-timeout`; the check by `--drain-timeout`.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chessmerge_rules::{Game, Outcome, Position, START_FEN, Variant};
use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, watch};
use tokio_tungstenite::tungstenite::Message;

/// Most games (pairs of players) accepted.
const MAX_GAMES: usize = 5000;
/// The password every simulated player registers with.
const PASSWORD: &str = "loadtest password";
/// Reconnection attempts per player and game after a connection failed.
const MAX_RETRIES: u32 = 3;
/// The same with `--outages`: about a minute of retrying (the waits grow
/// to a second each), enough for a node to restart or a database to come
/// back.
const MAX_OUTAGE_RETRIES: u32 = 60;
/// How many mismatches are described one by one.
const SHOWN_MISMATCHES: usize = 10;

/// Options of `chessmerge loadtest`.
#[derive(clap::Args, Debug)]
pub struct LoadtestArgs {
    /// The server (or load balancer) under test, `http://HOST:PORT`.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    url: String,
    /// Games played at once: twice as many simulated players.
    #[arg(long, default_value_t = 10)]
    games: usize,
    /// Seconds of play, counted once every player is registered.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Transports drawn per game, with weights: `ws=70,http=30`, `ws`,
    /// `http=1`. `ws` is the page's WebSocket, `http` the board API with
    /// ndjson streams.
    #[arg(long, default_value = "ws=70,http=30", value_parser = parse_mix)]
    mix: Mix,
    /// Drop and reopen a player's connection after every K moves it has
    /// seen (WebSocket: resubscribe from the last version seen).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    reconnect_every: Option<u32>,
    /// The variants played, in turn.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "chessmerge,chessplus,fusion,standard"
    )]
    variants: Vec<Variant>,
    /// A game still going after this many plies is resigned (ChessMerge
    /// has no fifty-move rule: random games can go on for long).
    #[arg(long, default_value_t = 300)]
    max_plies: i64,
    /// Seconds any one request, connection or wait for a state may take.
    #[arg(long, default_value_t = 15.0)]
    timeout: f64,
    /// Seconds for registering the players.
    #[arg(long, default_value_t = 300.0)]
    setup_timeout: f64,
    /// Seconds after the duration for games to settle, and again for the
    /// final check.
    #[arg(long, default_value_t = 30.0)]
    drain_timeout: f64,
    /// Registrations (Argon2id hashings on the server) sent at once.
    #[arg(long, default_value_t = 8)]
    setup_concurrency: usize,
    /// Seed of the random choices (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Allow a host that is not loopback (127.0.0.0/8, ::1, localhost).
    #[arg(long)]
    allow_remote: bool,
    /// A fault test: the server, a node or the database will go away
    /// during the run. Connection failures, lost acknowledgements and 502,
    /// 503 or 504 answers are then counted as outages (expected), and the
    /// players keep reconnecting for about a minute instead of giving up
    /// after three tries. The checks stay: every game must replay and be
    /// what both players saw, and every acknowledged move must be in it.
    #[arg(long)]
    outages: bool,
    /// Milliseconds a player thinks before each move (drawn uniformly
    /// from half to one and a half times this). 0, the default, moves at
    /// once: every game then moves as fast as the server answers, so the
    /// run measures the server's capacity and latency is mostly queueing
    /// (Little's law: games / moves per second). With a think time the
    /// load is paced like real players and latency is the service time at
    /// that rate.
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
    /// Seconds at the start of play whose moves the steady-state latency
    /// line leaves out: the opening burst, when every game is created and
    /// makes its first moves at once. Those moves still count everywhere
    /// else (moves/s, the first latency line, the checks)
    #[arg(long, default_value_t = 5.0)]
    warmup: f64,
}

// ---------------------------------------------------------------------------
// Options

/// How games pick their transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    Ws,
    Http,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Ws => "ws",
            Transport::Http => "http",
        }
    }
}

/// Weights of the transports (`ws`, `http`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    ws: u32,
    http: u32,
}

impl Mix {
    fn pick(self, rng: &mut Rng) -> Transport {
        if rng.below(u64::from(self.ws + self.http)) < u64::from(self.ws) {
            Transport::Ws
        } else {
            Transport::Http
        }
    }
}

fn parse_mix(s: &str) -> Result<Mix, String> {
    let mut mix = Mix { ws: 0, http: 0 };
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, weight) = match part.split_once('=') {
            Some((n, w)) => (
                n.trim(),
                w.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("bad weight in {part:?}"))?,
            ),
            None => (part, 1),
        };
        match name {
            "ws" => mix.ws = weight,
            "http" => mix.http = weight,
            _ => return Err(format!("unknown transport {name:?}: ws or http")),
        }
    }
    if mix.ws.checked_add(mix.http).is_none_or(|t| t == 0) {
        return Err("the weights must add up to something between 1 and 2^32".into());
    }
    Ok(mix)
}

/// The base URL, checked: plain `http`, and loopback unless allowed.
fn check_url(url: &str, allow_remote: bool) -> Result<String> {
    let parsed = reqwest::Url::parse(url).with_context(|| format!("--url {url:?}"))?;
    if parsed.scheme() != "http" {
        bail!("--url must be http:// (this build speaks no TLS), not {url:?}");
    }
    let Some(host) = parsed.host_str() else {
        bail!("--url {url:?} has no host");
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = match bare.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => bare.eq_ignore_ascii_case("localhost"),
    };
    if !loopback && !allow_remote {
        bail!(
            "refusing to load {url}: {host} is not a loopback host (127.0.0.0/8, ::1, localhost); \
             pass --allow-remote to load another machine you are responsible for"
        );
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        bail!("--url {url:?}: no query or fragment, please");
    }
    Ok(parsed.as_str().trim_end_matches('/').to_owned())
}

// ---------------------------------------------------------------------------
// Randomness (splitmix64: enough for choosing moves, no dependency)

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is negligible here).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------------------
// What every task shares

struct Shared {
    base: String,
    ws_url: String,
    /// Bounded requests.
    client: reqwest::Client,
    /// Long-lived ndjson streams (each wait bounded by `timeout`).
    streams: reqwest::Client,
    timeout: Duration,
    deadline: tokio::time::Instant,
    reconnect_every: Option<u32>,
    max_plies: i64,
    variants: Vec<Variant>,
    mix: Mix,
    /// `--outages`: see there.
    outages: bool,
    /// `--think-ms`.
    think: Duration,
    accepted: AtomicU64,
    errors: AtomicU64,
    reconnects: AtomicU64,
    games_started: AtomicU64,
    stats: Mutex<Stats>,
}

#[derive(Default)]
struct Stats {
    /// Submission to arrival on the opponent's connection.
    latencies: Vec<Duration>,
    /// The same, per transport (ws, http).
    by_transport: [Vec<Duration>; 2],
    /// When each of `latencies` was submitted, in the same order: the
    /// report's percentiles per window of the run.
    submitted_at: Vec<Instant>,
    /// Unexpected errors by kind: count and the first example.
    errors: BTreeMap<String, (u64, String)>,
    /// Expected refusals (409) by kind.
    expected: BTreeMap<String, (u64, String)>,
    /// Of the expected ones, those caused by an outage (`--outages`).
    outage_errors: u64,
    merges: u64,
    splits: u64,
    /// States a WebSocket got after resubscribing with `v`.
    resumed_states: u64,
    /// Moves an ndjson client took from a new `gameFull` after reconnecting.
    resynced_moves: u64,
    last_accept: Option<Instant>,
    games: Vec<GameRecord>,
}

/// One game as the load generator saw it.
struct GameRecord {
    id: String,
    variant: Variant,
    transport: Transport,
    /// The moves each player (challenger, accepter) was pushed, in order;
    /// `None` when that player's connection failed for good.
    seen: [Option<Vec<String>>; 2],
    /// The moves the server acknowledged to each player (an ack frame, or
    /// a 200 to the board API's move): ply (1-based) and Merge-UCI.
    acked: [Vec<(i64, String)>; 2],
    /// The status the players saw last.
    status: String,
}

impl Shared {
    fn error(&self, kind: impl Into<String>, detail: impl Into<String>) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut s = self.stats.lock().unwrap();
        let e = s.errors.entry(kind.into()).or_insert((0, detail.into()));
        e.0 += 1;
    }

    fn expected(&self, kind: impl Into<String>, detail: impl Into<String>) {
        let mut s = self.stats.lock().unwrap();
        let e = s.expected.entry(kind.into()).or_insert((0, detail.into()));
        e.0 += 1;
    }

    /// A failure that an outage explains (a lost connection, a timeout):
    /// expected with `--outages`, an error otherwise.
    fn fault(&self, kind: impl Into<String>, detail: impl Into<String>) {
        if self.outages {
            self.stats.lock().unwrap().outage_errors += 1;
            self.expected(format!("outage: {}", kind.into()), detail);
        } else {
            self.error(kind, detail);
        }
    }

    /// A status that says "not now" during an outage (the balancer's 502
    /// and 504, the server's 503 while its database is away).
    fn is_outage_status(&self, status: u16) -> bool {
        self.outages && matches!(status, 502..=504)
    }

    /// A refusal: 409 is expected (stale or out-of-turn after a
    /// reconnect), and so is an outage's status with `--outages`;
    /// anything else is not.
    fn refused(&self, what: &str, status: u16, text: &str) {
        let kind = format!("{what} {status}");
        if status == 409 {
            self.expected(kind, text);
        } else if self.is_outage_status(status) {
            self.fault(kind, text);
        } else {
            self.error(kind, text);
        }
    }

    fn max_retries(&self) -> u32 {
        if self.outages {
            MAX_OUTAGE_RETRIES
        } else {
            MAX_RETRIES
        }
    }

    fn accepted(&self, kind: MoveKind) {
        self.accepted.fetch_add(1, Ordering::Relaxed);
        let mut s = self.stats.lock().unwrap();
        s.last_accept = Some(Instant::now());
        match kind {
            MoveKind::Merge => s.merges += 1,
            MoveKind::Split => s.splits += 1,
            MoveKind::Other => {}
        }
    }
}

// ---------------------------------------------------------------------------
// HTTP

struct Player {
    /// The account id (the lower-cased name).
    id: String,
    name: String,
    token: String,
}

/// A request's answer: status and body, or the transport error's kind.
async fn send(req: reqwest::RequestBuilder) -> Result<(u16, Value), String> {
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

fn error_text(body: &Value) -> String {
    body["error"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| body.to_string())
}

/// Posts and expects a 2xx; anything else is an error of kind `what`.
async fn post_ok(sh: &Shared, what: &str, req: reqwest::RequestBuilder) -> Result<Value, ()> {
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

async fn register(sh: &Shared, name: String) -> Result<Player> {
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

// ---------------------------------------------------------------------------
// A player's connection to one game

type WsStream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

// ---------------------------------------------------------------------------
// What the server pushes, read into the few fields the players use: the rest
// of a state (the move list in readable notation, the legal moves' names,
// the clocks, the players' details) is skipped without building anything.

/// A `gameFull` or a `gameState` (an ndjson line, or a socket frame's `d`),
/// or a `gameFull`'s `state`: one shape for all three, every field
/// optional, since each reads only its own.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GameJson {
    /// `type`: what an ndjson line is.
    #[serde(rename = "type")]
    kind: Option<LineKind>,
    /// A `gameFull`'s players and state.
    white: Option<PlayerJson>,
    black: Option<PlayerJson>,
    state: Option<Box<GameJson>>,
    /// A state's fields.
    moves: Option<Box<str>>,
    version: Option<i64>,
    ply: Option<i64>,
    last_move: Option<Box<str>>,
    status: Option<Box<str>>,
    turn: Option<Box<str>>,
    fen: Option<Box<str>>,
    #[serde(default)]
    legal_moves: Vec<LegalMoveJson>,
}

impl GameJson {
    fn is_started(&self) -> bool {
        self.status.as_deref() == Some("started")
    }
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
enum LineKind {
    GameFull,
    GameState,
    /// `chatLine`, `opponentGone`, ...: not read.
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct PlayerJson {
    id: Option<Box<str>>,
}

#[derive(Debug, Deserialize)]
struct LegalMoveJson {
    uci: Box<str>,
}

/// What a socket frame's `t` says.
#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy)]
#[serde(rename_all = "camelCase")]
enum FrameKind {
    GameFull,
    GameState,
    Ack,
    Error,
    /// `hello`, user events, `pong`: not read.
    #[serde(other)]
    Other,
}

/// A socket frame, `{"t":..,"id":..,"v":..,"d":{..}}` or an ack or an
/// error. Read in one pass when `t` comes before `d` (as the server sends
/// it): `d` is then read as a [`GameJson`] only for a game frame, and
/// skipped otherwise; a `d` that comes before `t` is skipped and the frame
/// read again ([`parse_frame`]).
#[derive(Default)]
struct Frame {
    kind: Option<FrameKind>,
    d: Option<GameJson>,
    /// `d` came before `t`: skipped.
    d_unread: bool,
    a: Option<i64>,
    status: Option<u64>,
    error: Option<String>,
}

impl<'de> Deserialize<'de> for Frame {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Frame, D::Error> {
        #[derive(Deserialize)]
        #[serde(field_identifier, rename_all = "lowercase")]
        enum Field {
            T,
            D,
            A,
            Status,
            Error,
            #[serde(other)]
            Other,
        }
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Frame;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a socket frame (a JSON object)")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> Result<Frame, M::Error> {
                let mut frame = Frame::default();
                while let Some(field) = map.next_key()? {
                    match field {
                        Field::T => frame.kind = map.next_value()?,
                        Field::D => match frame.kind {
                            Some(FrameKind::GameFull | FrameKind::GameState) => {
                                frame.d = map.next_value()?;
                            }
                            kind => {
                                map.next_value::<serde::de::IgnoredAny>()?;
                                frame.d_unread = kind.is_none();
                            }
                        },
                        Field::A => frame.a = map.next_value()?,
                        Field::Status => frame.status = map.next_value()?,
                        Field::Error => frame.error = map.next_value()?,
                        Field::Other => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(frame)
            }
        }
        de.deserialize_map(Visitor)
    }
}

/// The error text of a frame or line that does not parse: `what` is
/// `socket: a frame` or `stream: a line`.
fn malformed(what: &str, e: &serde_json::Error) -> String {
    if e.is_data() {
        format!("{what} of an unexpected shape: {e}")
    } else {
        format!("{what} that is not JSON: {e}")
    }
}

/// A socket text frame: what it delivers, `None` for frames the players
/// do not read.
fn parse_frame(text: &str) -> Result<Option<Incoming>, String> {
    const WHAT: &str = "socket: a frame";
    let f: Frame = serde_json::from_str(text).map_err(|e| malformed(WHAT, &e))?;
    let d = || -> Result<GameJson, String> {
        if !f.d_unread {
            return Ok(GameJson::default());
        }
        #[derive(Deserialize)]
        struct Body {
            d: GameJson,
        }
        let b: Body = serde_json::from_str(text).map_err(|e| malformed(WHAT, &e))?;
        Ok(b.d)
    };
    Ok(Some(match f.kind {
        Some(FrameKind::GameFull) => Incoming::Full(match f.d {
            Some(g) => g,
            None => d()?,
        }),
        Some(FrameKind::GameState) => Incoming::State(match f.d {
            Some(g) => g,
            None => d()?,
        }),
        Some(FrameKind::Ack) => Incoming::Ack(f.a.unwrap_or(-1)),
        Some(FrameKind::Error) => Incoming::Refused {
            a: f.a,
            status: f.status.unwrap_or(0) as u16,
            text: f.error.unwrap_or_default(),
        },
        Some(FrameKind::Other) | None => return Ok(None),
    }))
}

/// An ndjson line (not blank): what it delivers, `None` for lines the
/// players do not read.
fn parse_line(line: &[u8]) -> Result<Option<Incoming>, String> {
    let g: GameJson = serde_json::from_slice(line).map_err(|e| malformed("stream: a line", &e))?;
    Ok(match g.kind {
        Some(LineKind::GameFull) => Some(Incoming::Full(g)),
        Some(LineKind::GameState) => Some(Incoming::State(g)),
        Some(LineKind::Other) | None => None,
    })
}

/// A socket frame the client sends: `sub` or `move`.
#[derive(Serialize)]
struct OutFrame<'a> {
    t: &'static str,
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    v: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    u: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ply: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    a: Option<i64>,
}

impl OutFrame<'_> {
    fn message(&self) -> Message {
        Message::Text(serde_json::to_string(self).expect("plain fields").into())
    }
}

/// What a connection delivered.
enum Incoming {
    /// A `gameFull` (the whole object: players, `state`).
    Full(GameJson),
    /// A `gameState`.
    State(GameJson),
    /// A WebSocket move's acknowledgement.
    Ack(i64),
    /// A WebSocket error frame; `a` when it answers a move.
    Refused {
        a: Option<i64>,
        status: u16,
        text: String,
    },
    /// The ndjson stream ended.
    End,
}

enum Conn {
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
    async fn open(
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
                let sub = OutFrame {
                    t: "sub",
                    id: game,
                    v: after,
                    u: None,
                    ply: None,
                    a: None,
                };
                tokio::time::timeout(sh.timeout, ws.send(sub.message()))
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
    async fn next(&mut self, limit: Duration) -> Result<(Incoming, Instant), String> {
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
    async fn send_move(
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
        let frame = OutFrame {
            t: "move",
            id: game,
            v: None,
            u: Some(uci),
            ply: Some(ply),
            a: Some(a),
        };
        tokio::time::timeout(limit, ws.send(frame.message()))
            .await
            .map_err(|_| "timeout: socket send".to_owned())?
            .map_err(|e| format!("socket send: {e}"))
    }

    /// Closes politely (a WebSocket close frame), without waiting long.
    async fn close(self) {
        if let Conn::Ws(mut ws) = self {
            let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(None)).await;
        }
    }
}

// ---------------------------------------------------------------------------
// A game and its two seats

#[derive(Clone, Copy)]
enum MoveKind {
    Merge,
    Split,
    Other,
}

/// Chooses among the legal moves the server listed, leaning towards merges
/// (a move onto a friendly unit) and splits (Merge-UCI with an upper-case
/// first letter: one piece leaves its pair), so pairs form and part often.
fn choose(rng: &mut Rng, variant: Variant, state: &GameJson) -> Option<(String, MoveKind)> {
    let legal = &state.legal_moves;
    if legal.is_empty() {
        return None;
    }
    // The position, parsed once and only when a merge is to be told apart.
    let pos = std::cell::OnceCell::new();
    let is_merge = |u: &str| {
        pos.get_or_init(|| {
            state
                .fen
                .as_deref()
                .and_then(|f| Position::from_fen(variant, f).ok())
        })
        .as_ref()
        .and_then(|p: &Position| p.parse_uci(u).ok().map(|m| p.is_merge(m)))
        .unwrap_or(false)
    };
    let is_split = |u: &str| u.starts_with(|c: char| c.is_ascii_uppercase());
    let kind_of = |u: &str| {
        if is_split(u) {
            MoveKind::Split
        } else if is_merge(u) {
            MoveKind::Merge
        } else {
            MoveKind::Other
        }
    };
    let roll = rng.below(100);
    let pool: Vec<&str> = if roll < 25 {
        legal
            .iter()
            .map(|m| &*m.uci)
            .filter(|u| is_merge(u))
            .collect()
    } else if roll < 45 {
        legal
            .iter()
            .map(|m| &*m.uci)
            .filter(|u| is_split(u))
            .collect()
    } else {
        Vec::new()
    };
    let u = if pool.is_empty() {
        &*rng.pick(legal).uci
    } else {
        *rng.pick(&pool)
    };
    Some((u.to_owned(), kind_of(u)))
}

/// What both seats of one game share.
struct GameCtx {
    id: String,
    variant: Variant,
    transport: Transport,
    /// When each ply's move was submitted, and by which seat.
    submitted: Mutex<BTreeMap<i64, (Instant, usize)>>,
    /// Set once: `Some(ply)` when the player to move stopped at the
    /// deadline (the other stops once it has seen `ply` moves), `Some(-1)`
    /// when a seat gave up (the other stops at once).
    stop: watch::Sender<Option<i64>>,
}

/// A WebSocket move sent and not yet acknowledged.
struct PendingMove {
    /// The frame's `a`, echoed by the ack.
    a: i64,
    kind: MoveKind,
    /// The move's ply (1-based) and Merge-UCI.
    ply: i64,
    uci: String,
}

/// One player in one game: its connection and what it has seen.
struct Seat<'a> {
    sh: &'a Shared,
    g: &'a GameCtx,
    /// 0: the challenger, 1: the accepter.
    index: usize,
    player: &'a Player,
    /// `white` or `black`.
    color: String,
    conn: Option<Conn>,
    /// When the connection was opened.
    opened: Instant,
    /// Whether it was opened by resubscribing from a version.
    resumed: bool,
    last_version: i64,
    /// The moves pushed to this player, in order.
    seen: Vec<String>,
    /// The latest state.
    state: GameJson,
    /// Moves seen since the connection was opened.
    since_open: u32,
    acks: i64,
    /// The WebSocket move waiting for its ack.
    pending: Option<PendingMove>,
    /// The moves acknowledged to this player: ply and Merge-UCI.
    acked: Vec<(i64, String)>,
    refusals: u32,
    /// A move was refused or its answer lost: wait for news before moving.
    stale: bool,
    failures: u32,
}

impl<'a> Seat<'a> {
    /// Connects and reads the `gameFull`.
    async fn open(
        sh: &'a Shared,
        g: &'a GameCtx,
        index: usize,
        player: &'a Player,
    ) -> Result<Seat<'a>, String> {
        let mut conn = Conn::open(sh, g.transport, &g.id, &player.token, None).await?;
        let full = loop {
            match conn.next(sh.timeout).await? {
                (Incoming::Full(f), _) => break f,
                (Incoming::Refused { status, text, .. }, _) => {
                    return Err(format!("subscribe refused {status}: {text}"));
                }
                (Incoming::End, _) => return Err("stream ended before gameFull".into()),
                _ => {}
            }
        };
        let plays = |p: &Option<PlayerJson>| {
            p.as_ref().and_then(|p| p.id.as_deref()) == Some(player.id.as_str())
        };
        let color = if plays(&full.white) {
            "white"
        } else if plays(&full.black) {
            "black"
        } else {
            return Err(format!("gameFull without {} as a player", player.id));
        };
        let mut seat = Seat {
            sh,
            g,
            index,
            player,
            color: color.to_owned(),
            conn: Some(conn),
            opened: Instant::now(),
            resumed: false,
            last_version: 0,
            seen: Vec::new(),
            state: GameJson::default(),
            since_open: 0,
            acks: 0,
            pending: None,
            acked: Vec::new(),
            refusals: 0,
            stale: false,
            failures: 0,
        };
        seat.on_full(full);
        Ok(seat)
    }

    /// A `gameFull`'s state: the moves it lists must extend those seen
    /// (after an ndjson reconnection, the ones missed are taken from it).
    fn on_full(&mut self, full: GameJson) {
        let st = full.state.map_or_else(GameJson::default, |st| *st);
        let moves: Vec<String> = st
            .moves
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        if !moves.starts_with(&self.seen) {
            self.sh.error(
                "gameFull does not extend the moves seen",
                format!(
                    "game {}: saw {:?}, gameFull {:?}",
                    self.g.id, self.seen, moves
                ),
            );
        }
        if !self.seen.is_empty() || self.resumed {
            self.sh.stats.lock().unwrap().resynced_moves +=
                moves.len().saturating_sub(self.seen.len()) as u64;
        }
        self.seen = moves;
        self.stale = false;
        self.last_version = st.version.unwrap_or(0);
        self.state = st;
    }

    /// A pushed `gameState`: must be the next version; a new ply appends
    /// its move to those seen.
    fn on_state(&mut self, mut st: GameJson, at: Instant) {
        let v = st.version.unwrap_or(-1);
        let ply = st.ply.unwrap_or(-1);
        if v <= self.last_version {
            self.sh.error(
                "duplicate state",
                format!(
                    "game {}: version {v} after {}",
                    self.g.id, self.last_version
                ),
            );
            return;
        }
        if v != self.last_version + 1 {
            self.sh.error(
                "version gap",
                format!(
                    "game {}: version {v} after {}",
                    self.g.id, self.last_version
                ),
            );
        }
        self.last_version = v;
        self.stale = false;
        let n = self.seen.len() as i64;
        if ply == n + 1 {
            self.seen
                .push(st.last_move.take().map(String::from).unwrap_or_default());
            self.since_open += 1;
            let submitted = self.g.submitted.lock().unwrap().get(&ply).copied();
            if let Some((t0, by)) = submitted {
                if t0 < self.opened {
                    if self.resumed {
                        self.sh.stats.lock().unwrap().resumed_states += 1;
                    }
                } else if by != self.index {
                    let mut s = self.sh.stats.lock().unwrap();
                    s.latencies.push(at - t0);
                    s.submitted_at.push(t0);
                    s.by_transport[self.g.transport as usize].push(at - t0);
                }
            }
        } else if ply != n {
            self.sh.error(
                "ply gap",
                format!("game {}: ply {ply} after {n} moves seen", self.g.id),
            );
        }
        self.state = st;
    }

    fn my_turn(&self) -> bool {
        self.pending.is_none()
            && !self.stale
            && self.state.is_started()
            && self.state.turn.as_deref() == Some(self.color.as_str())
            && self.state.ply == Some(self.seen.len() as i64)
    }

    /// Drops the connection and opens another: a WebSocket resubscribes
    /// from the last version seen; an ndjson stream starts again from a
    /// `gameFull`.
    async fn reconnect(&mut self) -> Result<(), String> {
        if let Some(c) = self.conn.take() {
            c.close().await;
        }
        self.sh.reconnects.fetch_add(1, Ordering::Relaxed);
        if let Some(p) = self.pending.take() {
            self.sh.fault(
                "ack lost with the connection",
                format!("game {}: ack {}", self.g.id, p.a),
            );
            // Whether the move was stored, the new connection says: its
            // state comes with the catch-up if it was; if nothing comes,
            // the seat is still to move (a second try of a stored move is
            // refused as stale, a 409).
            self.stale = false;
        }
        let after = match self.g.transport {
            Transport::Ws => Some(self.last_version),
            Transport::Http => None,
        };
        self.opened = Instant::now();
        self.resumed = after.is_some();
        self.since_open = 0;
        self.conn = Some(
            Conn::open(
                self.sh,
                self.g.transport,
                &self.g.id,
                &self.player.token,
                after,
            )
            .await?,
        );
        Ok(())
    }

    /// Plays until the game ends, the play stops, or the seat gives up.
    /// Answers the moves seen, or `None` after giving up.
    async fn play(mut self, mut stop: watch::Receiver<Option<i64>>, mut rng: Rng) -> SeatResult {
        let ok = self.run(&mut stop, &mut rng).await;
        if let Some(c) = self.conn.take() {
            c.close().await;
        }
        let status = self.state.status.as_deref().unwrap_or("?").to_owned();
        if !ok {
            self.g.stop.send_replace(Some(-1));
        }
        SeatResult {
            seen: ok.then_some(self.seen),
            status,
            acked: self.acked,
        }
    }

    async fn run(&mut self, stop: &mut watch::Receiver<Option<i64>>, rng: &mut Rng) -> bool {
        loop {
            if !self.state.is_started() && self.pending.is_none() {
                return true;
            }
            let stop_at = *stop.borrow_and_update();
            match stop_at {
                Some(p) if p < 0 => return false,
                Some(p) if self.seen.len() as i64 >= p && self.pending.is_none() => return true,
                _ => {}
            }
            if stop_at.is_none() && self.my_turn() {
                let ply = self.seen.len() as i64;
                if !self.sh.think.is_zero() {
                    let ms = self.sh.think.as_millis() as u64;
                    let ms = ms / 2 + rng.below(ms + 1);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                }
                if tokio::time::Instant::now() >= self.sh.deadline {
                    // Stop here: the opponent stops once it has seen `ply` moves.
                    self.g.stop.send_replace(Some(ply));
                    return true;
                }
                if !self.act(ply, rng).await {
                    return false;
                }
            } else if self.pending.is_none()
                && self
                    .sh
                    .reconnect_every
                    .is_some_and(|k| self.since_open >= k)
                && self.state.is_started()
            {
                // The opponent is to move: what it plays meanwhile must come
                // through the new connection.
                if let Err(e) = self.reconnect().await {
                    self.sh.fault(e.clone(), format!("game {}: {e}", self.g.id));
                    if !self.retry().await {
                        return false;
                    }
                }
                continue;
            }
            let conn = self.conn.as_mut().expect("connected");
            let limit = self.sh.timeout;
            let next = tokio::select! {
                r = conn.next(limit) => Some(r),
                changed = stop.changed() => {
                    if changed.is_err() {
                        // Cannot happen while the game holds the sender;
                        // read on rather than spin.
                        Some(conn.next(limit).await)
                    } else {
                        None
                    }
                }
            };
            let Some(next) = next else { continue };
            match next {
                Ok((Incoming::State(st), at)) => self.on_state(st, at),
                Ok((Incoming::Full(full), _)) => self.on_full(full),
                Ok((Incoming::Ack(a), _)) => match self.pending.take() {
                    Some(p) if p.a == a => {
                        self.refusals = 0;
                        self.sh.accepted(p.kind);
                        self.acked.push((p.ply, p.uci));
                    }
                    other => {
                        self.pending = other;
                        self.sh
                            .error("unexpected ack", format!("game {}: ack {a}", self.g.id))
                    }
                },
                Ok((Incoming::Refused { a, status, text }, _)) => {
                    if a.is_some() && a == self.pending.as_ref().map(|p| p.a) {
                        self.pending = None;
                        self.sh.refused("ws move", status, &text);
                        if !self.after_refusal(status).await {
                            return false;
                        }
                    } else if self.sh.is_outage_status(status) {
                        // The subscription's feed failed (its store read):
                        // subscribe again.
                        self.sh.fault(format!("ws error frame {status}"), text);
                        if !self.retry().await {
                            return false;
                        }
                    } else {
                        self.sh.error(format!("ws error frame {status}"), text);
                        return false;
                    }
                }
                Ok((Incoming::End, _)) => {
                    if self.state.is_started() {
                        self.sh.fault(
                            "stream ended before the game did",
                            format!("game {}", self.g.id),
                        );
                        if !self.retry().await {
                            return false;
                        }
                    }
                }
                Err(e) => {
                    let kind = if e.starts_with("timeout") {
                        e.clone()
                    } else {
                        format!("{} connection: {e}", self.g.transport.name())
                    };
                    self.sh.fault(kind, format!("game {}: {e}", self.g.id));
                    if !self.retry().await {
                        return false;
                    }
                }
            }
        }
    }

    /// Reconnects after a failure, a few times per game.
    async fn retry(&mut self) -> bool {
        while self.failures < self.sh.max_retries() {
            self.failures += 1;
            let wait = (100 * u64::from(self.failures)).min(1000);
            tokio::time::sleep(Duration::from_millis(wait)).await;
            match self.reconnect().await {
                Ok(()) => return true,
                Err(e) => self.sh.fault(e.clone(), format!("game {}: {e}", self.g.id)),
            }
        }
        false
    }

    /// After a move whose fate is unknown (an outage's status, a lost
    /// answer): find out before moving again. A WebSocket move carries its
    /// ply, so trying again is safe (a stored one is refused as stale, and
    /// its state comes with the catch-up). A board-API move carries none:
    /// a second move sent on the old view could land a ply later, in a
    /// position the player never saw, so the stream is opened again and
    /// its `gameFull` says where the game stands.
    async fn learn_outcome(&mut self) -> bool {
        match self.g.transport {
            Transport::Ws => {
                self.stale = false;
                true
            }
            Transport::Http => match self.reconnect().await {
                Ok(()) => true,
                Err(e) => {
                    self.sh.fault(e.clone(), format!("game {}: {e}", self.g.id));
                    self.retry().await
                }
            },
        }
    }

    /// After a move was refused (counted by `Shared::refused`): whether to
    /// go on. A 409 (stale) waits for news, a few times per game; an
    /// outage's status waits a moment and tries again (the play's deadline
    /// bounds it); anything else gives up.
    async fn after_refusal(&mut self, status: u16) -> bool {
        if self.sh.is_outage_status(status) {
            tokio::time::sleep(Duration::from_millis(200)).await;
            return self.learn_outcome().await;
        }
        self.refusals += 1;
        self.stale = true;
        status == 409 && self.refusals <= 5
    }

    /// Plays a random legal move (or resigns a game grown too long).
    /// `false` when the seat must give up.
    async fn act(&mut self, ply: i64, rng: &mut Rng) -> bool {
        let sh = self.sh;
        let id = &self.g.id;
        if ply >= sh.max_plies {
            let req = sh
                .client
                .post(format!("{}/api/board/game/{id}/resign", sh.base))
                .bearer_auth(&self.player.token);
            // A refusal is counted by `post_ok`; either way, wait for news
            // (a failed resignation shows as a timeout there).
            let _ = post_ok(sh, "resign", req).await;
            self.stale = true;
            return true;
        }
        let Some((uci, kind)) = choose(rng, self.g.variant, &self.state) else {
            sh.error(
                "no legal moves in a started game",
                format!("game {id}: {:?}", self.state),
            );
            return false;
        };
        self.g
            .submitted
            .lock()
            .unwrap()
            .insert(ply + 1, (Instant::now(), self.index));
        match self.g.transport {
            Transport::Ws => {
                self.acks += 1;
                let a = self.acks;
                let conn = self.conn.as_mut().expect("connected");
                match conn.send_move(sh.timeout, id, &uci, ply, a).await {
                    Ok(()) => {
                        // The ack may come before the move's own state:
                        // wait for the state before moving again.
                        self.pending = Some(PendingMove {
                            a,
                            kind,
                            ply: ply + 1,
                            uci,
                        });
                        self.stale = true;
                        true
                    }
                    Err(e) => {
                        sh.fault(format!("ws connection: {e}"), format!("game {id}: {e}"));
                        self.retry().await
                    }
                }
            }
            Transport::Http => {
                let req = sh
                    .client
                    .post(format!("{}/api/board/game/{id}/move/{uci}", sh.base))
                    .bearer_auth(&self.player.token);
                match send(req).await {
                    Ok((200, _)) => {
                        self.stale = true;
                        self.refusals = 0;
                        sh.accepted(kind);
                        self.acked.push((ply + 1, uci));
                        true
                    }
                    Ok((status, body)) => {
                        sh.refused("http move", status, &error_text(&body));
                        self.after_refusal(status).await
                    }
                    Err(e) => {
                        sh.fault(format!("http move: {e}"), format!("game {id}: {e}"));
                        // The move may or may not have been committed.
                        self.stale = true;
                        if sh.outages {
                            // The node may be gone with its stream: ask.
                            self.learn_outcome().await
                        } else {
                            // The stream will say.
                            true
                        }
                    }
                }
            }
        }
    }
}

/// What a seat brings back from a game.
struct SeatResult {
    /// The moves it was pushed; `None` when it gave up.
    seen: Option<Vec<String>>,
    /// The status it saw last.
    status: String,
    /// The moves acknowledged to it.
    acked: Vec<(i64, String)>,
}

/// One game between `players[a]` (the challenger) and `players[b]`.
async fn play_game(
    sh: &Shared,
    players: [&Player; 2],
    variant: Variant,
    transport: Transport,
    rng: &mut Rng,
) -> Result<(), ()> {
    let [a, b] = players;
    let challenge = post_ok(
        sh,
        "challenge",
        sh.client
            .post(format!("{}/api/challenge/{}", sh.base, b.name))
            .bearer_auth(&a.token)
            .json(&json!({ "variant": variant.id(), "color": "random" })),
    )
    .await?;
    let Some(id) = challenge["id"].as_str().map(str::to_owned) else {
        sh.error("challenge without an id", challenge.to_string());
        return Err(());
    };
    post_ok(
        sh,
        "accept",
        sh.client
            .post(format!("{}/api/challenge/{id}/accept", sh.base))
            .bearer_auth(&b.token),
    )
    .await?;
    sh.games_started.fetch_add(1, Ordering::Relaxed);
    let record = {
        let mut s = sh.stats.lock().unwrap();
        s.games.push(GameRecord {
            id: id.clone(),
            variant,
            transport,
            seen: [None, None],
            acked: [Vec::new(), Vec::new()],
            status: "started".into(),
        });
        s.games.len() - 1
    };
    let (stop, stop_rx) = watch::channel(None);
    let g = GameCtx {
        id,
        variant,
        transport,
        submitted: Mutex::new(BTreeMap::new()),
        stop,
    };
    // Both connections are open (and subscribed) before anyone moves.
    let (sa, sb) = tokio::join!(Seat::open(sh, &g, 0, a), Seat::open(sh, &g, 1, b));
    let (sa, sb) = match (sa, sb) {
        (Ok(sa), Ok(sb)) => (sa, sb),
        (sa, sb) => {
            for e in [sa.err(), sb.err()].into_iter().flatten() {
                sh.fault(e.clone(), format!("game {}: {e}", g.id));
            }
            return Err(());
        }
    };
    let (ra, rb) = tokio::join!(
        sa.play(stop_rx.clone(), Rng(rng.next())),
        sb.play(stop_rx, Rng(rng.next()))
    );
    let mut s = sh.stats.lock().unwrap();
    let r = &mut s.games[record];
    r.status = ra.status;
    r.seen = [ra.seen, rb.seen];
    r.acked = [ra.acked, rb.acked];
    if r.seen.iter().any(Option::is_none) {
        return Err(());
    }
    Ok(())
}

/// A pair of players playing one game after another until the deadline.
async fn pair_loop(sh: Arc<Shared>, index: usize, players: [Player; 2], seed: u64) {
    let mut rng = Rng(seed);
    let mut k = 0;
    while tokio::time::Instant::now() < sh.deadline {
        let variant = sh.variants[(index + k) % sh.variants.len()];
        let transport = sh.mix.pick(&mut rng);
        // The players take turns to challenge.
        let order = if k % 2 == 0 {
            [&players[0], &players[1]]
        } else {
            [&players[1], &players[0]]
        };
        k += 1;
        if play_game(&sh, order, variant, transport, &mut rng)
            .await
            .is_err()
        {
            // Do not hammer a failing server.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

// ---------------------------------------------------------------------------
// The final check

/// Reads the game back and compares: legal replay from its initial
/// position, a status that agrees with the replay, and both players' seen
/// moves equal to its moves. Answers the mismatch, if any.
async fn check_game(sh: &Shared, r: &GameRecord) -> Option<String> {
    let id = &r.id;
    let req = sh
        .client
        .get(format!("{}/game/export/{id}", sh.base))
        .header("accept", "application/json");
    match send(req).await {
        Ok((200, v)) => verify(r, &v),
        Ok((s, v)) => Some(format!("game {id}: export answered {s} {}", error_text(&v))),
        Err(e) => Some(format!("game {id}: export: {e}")),
    }
}

/// The check of one game against its export (`GET /game/export/{id}` as
/// JSON).
fn verify(r: &GameRecord, v: &Value) -> Option<String> {
    let id = &r.id;
    if v["variant"].as_str() != Some(r.variant.id()) {
        return Some(format!(
            "game {id}: variant {} instead of {}",
            v["variant"], r.variant
        ));
    }
    let fen = match v["initialFen"].as_str() {
        Some("startpos") | None => START_FEN,
        Some(f) => f,
    };
    let start = match Position::from_fen(r.variant, fen) {
        Ok(p) => p,
        Err(e) => return Some(format!("game {id}: initial position {fen:?}: {e}")),
    };
    let moves: Vec<String> = v["moves"]
        .as_str()
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let mut game = Game::new(start);
    for (i, m) in moves.iter().enumerate() {
        if let Err(e) = game.play_uci(m) {
            return Some(format!("game {id}: ply {} {m} does not replay: {e}", i + 1));
        }
    }
    let status = v["status"].as_str().unwrap_or_default();
    let agrees = match game.outcome() {
        Some(Outcome::Checkmate { .. }) => status == "mate",
        Some(Outcome::Stalemate) => status == "stalemate",
        Some(_) => status == "draw",
        None => matches!(status, "started" | "resign" | "aborted"),
    };
    if !agrees {
        return Some(format!(
            "game {id}: status {status} but the replay ends with {:?}",
            game.outcome()
        ));
    }
    // An acknowledged move is in the game, at its ply: checked for a seat
    // that gave up too (the point of a fault test).
    for (who, acked) in ["challenger", "accepter"].iter().zip(&r.acked) {
        for (ply, uci) in acked {
            let stored = usize::try_from(*ply - 1).ok().and_then(|i| moves.get(i));
            if stored != Some(uci) {
                return Some(format!(
                    "game {id} ({}): the {who}'s move {uci} at ply {ply} was acknowledged, \
                     but the server has {} there",
                    r.transport.name(),
                    stored.map_or("no move".to_owned(), |m| format!("{m:?}"))
                ));
            }
        }
    }
    for (who, seen) in ["challenger", "accepter"].iter().zip(&r.seen) {
        if let Some(seen) = seen
            && *seen != moves
        {
            let same = seen.iter().zip(&moves).take_while(|(a, b)| a == b).count();
            return Some(format!(
                "game {id} ({}): the {who} saw {} moves, the server has {}; they differ from ply {}",
                r.transport.name(),
                seen.len(),
                moves.len(),
                same + 1
            ));
        }
    }
    if r.seen.iter().all(Option::is_some) && r.status != status {
        return Some(format!(
            "game {id}: the players last saw status {} but the server has {status}",
            r.status
        ));
    }
    None
}

// ---------------------------------------------------------------------------
// The run

/// p50, p90, p99 and max in milliseconds (nearest rank).
/// The report's windows of play for [`latency_windows`], in seconds.
const LATENCY_WINDOW_SECS: u64 = 5;

/// p50/p99 of the latencies by when their moves were submitted, window by
/// window from `start`: shows whether a tail is the run's opening burst
/// (every game's first moves at once) or steady.
fn latency_windows(latencies: &[Duration], submitted: &[Instant], start: Instant) -> String {
    let mut by: BTreeMap<u64, Vec<Duration>> = BTreeMap::new();
    for (l, t) in latencies.iter().zip(submitted) {
        let w = t.saturating_duration_since(start).as_secs() / LATENCY_WINDOW_SECS;
        by.entry(w).or_default().push(*l);
    }
    let parts: Vec<String> = by
        .into_iter()
        .filter_map(|(w, mut v)| {
            let n = v.len();
            quantiles(&mut v).map(|q| {
                let from = w * LATENCY_WINDOW_SECS;
                format!(
                    "{from}-{} s {n} samples p50 {:.2} p99 {:.2}",
                    from + LATENCY_WINDOW_SECS,
                    q[0],
                    q[2]
                )
            })
        })
        .collect();
    if parts.is_empty() {
        "no samples".into()
    } else {
        parts.join("; ")
    }
}

fn quantiles(v: &mut [Duration]) -> Option<[f64; 4]> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let at = |p: f64| {
        let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
        v[rank.clamp(1, v.len()) - 1].as_secs_f64() * 1e3
    };
    Some([at(50.0), at(90.0), at(99.0), at(100.0)])
}

fn seconds(what: &str, s: f64) -> Result<Duration> {
    if !(s.is_finite() && s > 0.0 && s <= 86_400.0) {
        bail!("{what} must be a number of seconds above 0 and at most a day");
    }
    Ok(Duration::from_secs_f64(s))
}

pub fn run(args: LoadtestArgs) -> Result<ExitCode> {
    let base = check_url(&args.url, args.allow_remote)?;
    if !(1..=MAX_GAMES).contains(&args.games) {
        bail!("--games must be 1..={MAX_GAMES}");
    }
    if args.variants.is_empty() {
        bail!("--variants needs at least one variant");
    }
    if args.setup_concurrency == 0 {
        bail!("--setup-concurrency must be at least 1");
    }
    let duration = seconds("--duration", args.duration)?;
    if !(args.warmup.is_finite() && args.warmup >= 0.0 && args.warmup <= 86_400.0) {
        bail!("--warmup must be a number of seconds from 0 to a day");
    }
    let timeout = seconds("--timeout", args.timeout)?;
    let setup_timeout = seconds("--setup-timeout", args.setup_timeout)?;
    let drain = seconds("--drain-timeout", args.drain_timeout)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    runtime.block_on(load(args, base, duration, timeout, setup_timeout, drain))
}

async fn load(
    args: LoadtestArgs,
    base: String,
    duration: Duration,
    timeout: Duration,
    setup_timeout: Duration,
    drain: Duration,
) -> Result<ExitCode> {
    let warmup = Duration::from_secs_f64(args.warmup);
    let clock = {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        (t.as_nanos() as u64) ^ (u64::from(std::process::id()) << 32)
    };
    let seed = args.seed.unwrap_or(clock);
    let mut rng = Rng(seed);
    // The names' tag comes from the clock even with --seed, so that a rerun
    // against the same server registers new players.
    let run_tag = Rng(clock).next() as u32;
    // No proxies, no redirects: every request goes to `base` and nowhere else.
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .context("HTTP client")?;
    let streams = reqwest::Client::builder()
        .connect_timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .context("HTTP client")?;
    let ws_url = format!("ws{}/api/socket", &base["http".len()..]);
    let mut sh = Shared {
        base,
        ws_url,
        client,
        streams,
        timeout,
        deadline: tokio::time::Instant::now(),
        reconnect_every: args.reconnect_every,
        max_plies: args.max_plies.max(1),
        variants: args.variants.clone(),
        mix: args.mix,
        outages: args.outages,
        think: Duration::from_millis(args.think_ms),
        accepted: AtomicU64::new(0),
        errors: AtomicU64::new(0),
        reconnects: AtomicU64::new(0),
        games_started: AtomicU64::new(0),
        stats: Mutex::new(Stats::default()),
    };

    // Registration: 2N players, unique names (a random run tag).
    let t0 = Instant::now();
    eprintln!(
        "loadtest: {} games against {} for {:.0} s, mix ws={} http={}, variants {}, \
         reconnect every {}, seed {seed}; registering {} players (lt{run_tag:08x}-*)",
        args.games,
        sh.base,
        duration.as_secs_f64(),
        args.mix.ws,
        args.mix.http,
        args.variants
            .iter()
            .map(|v| v.id())
            .collect::<Vec<_>>()
            .join(","),
        args.reconnect_every
            .map_or("never".to_owned(), |k| format!("{k} moves")),
        2 * args.games,
    );
    let gate = Semaphore::new(args.setup_concurrency);
    let setup = {
        let (sh, gate) = (&sh, &gate);
        let all = futures_util::future::join_all((0..2 * args.games).map(|i| async move {
            let _permit = gate.acquire().await.expect("never closed");
            register(sh, format!("lt{run_tag:08x}-{i}")).await
        }));
        tokio::time::timeout(setup_timeout, all)
            .await
            .map_err(|_| anyhow::anyhow!("registration not done within {setup_timeout:?}"))?
    };
    let mut players = setup.into_iter().collect::<Result<Vec<_>>>()?;
    eprintln!(
        "loadtest: {} players registered in {:.1} s",
        players.len(),
        t0.elapsed().as_secs_f64()
    );

    // Play.
    let start = Instant::now();
    sh.deadline = tokio::time::Instant::now() + duration;
    let sh = Arc::new(sh);
    let bar = progress_bar(duration);
    let ticker = {
        let (sh, bar) = (sh.clone(), bar.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(250)).await;
                let secs = start.elapsed().as_secs_f64();
                let moves = sh.accepted.load(Ordering::Relaxed);
                bar.set_position(start.elapsed().as_millis().min(duration.as_millis()) as u64);
                bar.set_message(format!(
                    "{moves} moves ({:.0}/s), {} games, {} errors, {} reconnects{}",
                    moves as f64 / secs.max(1e-3),
                    sh.games_started.load(Ordering::Relaxed),
                    sh.errors.load(Ordering::Relaxed),
                    sh.reconnects.load(Ordering::Relaxed),
                    if tokio::time::Instant::now() >= sh.deadline {
                        "; draining"
                    } else {
                        ""
                    }
                ));
            }
        })
    };
    let mut pairs = Vec::with_capacity(args.games);
    let mut i = 0;
    while players.len() >= 2 {
        let b = players.pop().expect("two left");
        let a = players.pop().expect("two left");
        pairs.push(tokio::spawn(pair_loop(sh.clone(), i, [a, b], rng.next())));
        i += 1;
    }
    let settle_by = sh.deadline + drain;
    let mut unsettled = 0;
    for mut h in pairs {
        if tokio::time::timeout_at(settle_by, &mut h).await.is_err() {
            h.abort();
            unsettled += 1;
        }
    }
    if unsettled > 0 {
        sh.error(
            "timeout: games still going after the drain timeout",
            format!("{unsettled} pairs"),
        );
    }
    ticker.abort();
    bar.finish_and_clear();
    let play_end = Instant::now();

    // Check every game through the API.
    let games = std::mem::take(&mut sh.stats.lock().unwrap().games);
    let gate = Semaphore::new(8);
    let check = {
        let (sh, gate) = (&sh, &gate);
        futures_util::future::join_all(games.iter().map(|r| async move {
            let _permit = gate.acquire().await.expect("never closed");
            check_game(sh, r).await
        }))
    };
    let mismatches: Vec<String> = match tokio::time::timeout(drain, check).await {
        Ok(found) => found.into_iter().flatten().collect(),
        Err(_) => vec![format!("the check did not finish within {drain:?}")],
    };
    let complete = games
        .iter()
        .filter(|g| g.seen.iter().all(Option::is_some))
        .count();
    let finished = games.iter().filter(|g| g.status != "started").count();

    report(Report {
        sh: &sh,
        games: &games,
        complete,
        finished,
        mismatches: &mismatches,
        start,
        play_end,
        duration,
        warmup,
    })
}

fn progress_bar(duration: Duration) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(duration.as_millis() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

struct Report<'a> {
    sh: &'a Shared,
    games: &'a [GameRecord],
    complete: usize,
    finished: usize,
    mismatches: &'a [String],
    start: Instant,
    play_end: Instant,
    duration: Duration,
    /// See `--warmup`.
    warmup: Duration,
}

fn report(r: Report<'_>) -> Result<ExitCode> {
    let sh = r.sh;
    let mut s = sh.stats.lock().unwrap();
    let accepted = sh.accepted.load(Ordering::Relaxed);
    // Moves are submitted until the deadline; ones in flight then are
    // answered a little after it.
    let play_secs = s
        .last_accept
        .map_or(r.duration, |t| (t - r.start).max(r.duration))
        .as_secs_f64();
    let windows = latency_windows(&s.latencies, &s.submitted_at, r.start);
    let mut steady: Vec<Duration> = s
        .latencies
        .iter()
        .zip(&s.submitted_at)
        .filter(|(_, t)| t.saturating_duration_since(r.start) >= r.warmup)
        .map(|(l, _)| *l)
        .collect();
    let steady_n = steady.len();
    let steady_q = quantiles(&mut steady);
    let fmt_steady = |i: usize| steady_q.map_or("nan".to_owned(), |q| format!("{:.2}", q[i]));
    let q = quantiles(&mut s.latencies);
    let per: Vec<String> = [Transport::Ws, Transport::Http]
        .into_iter()
        .map(|t| {
            let v = &mut s.by_transport[t as usize];
            let n = v.len();
            match quantiles(v) {
                Some(q) => format!(
                    "{} {n} samples: p50 {:.2} p90 {:.2} p99 {:.2} max {:.2}",
                    t.name(),
                    q[0],
                    q[1],
                    q[2],
                    q[3]
                ),
                None => format!("{} no samples", t.name()),
            }
        })
        .collect();
    let fmt_q = |i: usize| q.map_or("nan".to_owned(), |q| format!("{:.2}", q[i]));
    let unexpected: u64 = s.errors.values().map(|e| e.0).sum();
    let acked: usize = r.games.iter().flat_map(|g| &g.acked).map(Vec::len).sum();
    let expected: u64 = s.expected.values().map(|e| e.0).sum();
    let reconnects = sh.reconnects.load(Ordering::Relaxed);
    let ws_games = r
        .games
        .iter()
        .filter(|g| g.transport == Transport::Ws)
        .count();
    let mut by_variant = BTreeMap::new();
    for g in r.games {
        *by_variant.entry(g.variant.id()).or_insert(0) += 1;
    }
    let mut by_status = BTreeMap::new();
    for g in r.games {
        *by_status.entry(g.status.as_str()).or_insert(0) += 1;
    }

    println!(
        "games: {} ({} ws, {} http; {}), {} finished ({}), {} seen complete by both players",
        r.games.len(),
        ws_games,
        r.games.len() - ws_games,
        by_variant
            .iter()
            .map(|(v, n)| format!("{v} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        r.finished,
        by_status
            .iter()
            .map(|(v, n)| format!("{v} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
        r.complete
    );
    println!(
        "moves: {accepted} accepted in {play_secs:.1} s = {:.1} moves/s ({} merges, {} splits); \
         play and drain took {:.1} s",
        accepted as f64 / play_secs,
        s.merges,
        s.splits,
        (r.play_end - r.start).as_secs_f64()
    );
    let percentiles = |q: Option<[f64; 4]>| match q {
        Some(q) => format!(
            "p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            q[0], q[1], q[2], q[3]
        ),
        None => "p50 nan ms, p90 nan ms, p99 nan ms, max nan ms".to_owned(),
    };
    println!(
        "latency (submission -> the opponent's connection, {} samples): {}",
        s.latencies.len(),
        percentiles(q)
    );
    println!(
        "  after the first {:.0} s (steady play, {steady_n} samples): {}",
        r.warmup.as_secs_f64(),
        percentiles(steady_q)
    );
    println!("  by transport (ms): {}", per.join("; "));
    println!("  by {LATENCY_WINDOW_SECS} s of play, submitted in (ms): {windows}");
    println!(
        "reconnects: {reconnects} ({} states resumed over WebSocket resubscriptions, {} moves \
         taken from a new gameFull over ndjson)",
        s.resumed_states, s.resynced_moves
    );
    for (title, map) in [
        ("unexpected errors", &s.errors),
        ("expected refusals", &s.expected),
    ] {
        println!("{title}: {}", if map.is_empty() { "none" } else { "" });
        for (kind, (n, example)) in map {
            println!("  {n:>6}  {kind}  (first: {example})");
        }
    }
    println!(
        "check: {} games read back through GET /game/export, {acked} acknowledged moves looked \
         up; {} mismatches",
        r.games.len(),
        r.mismatches.len()
    );
    for m in r.mismatches.iter().take(SHOWN_MISMATCHES) {
        println!("  {m}");
    }
    if r.mismatches.len() > SHOWN_MISMATCHES {
        println!("  ... and {} more", r.mismatches.len() - SHOWN_MISMATCHES);
    }
    let ok = r.mismatches.is_empty() && unexpected == 0 && accepted > 0;
    println!(
        "loadtest-summary games={} ws_games={ws_games} http_games={} complete={} finished={} moves={accepted} moves_per_s={:.1} \
         p50_ms={} p90_ms={} p99_ms={} max_ms={} latency_samples={} steady_p99_ms={} merges={} splits={} \
         reconnects={reconnects} resumed_states={} acked={acked} mismatches={} errors={unexpected} \
         expected_errors={expected} outage_errors={} result={}",
        r.games.len(),
        r.games.len() - ws_games,
        r.complete,
        r.finished,
        accepted as f64 / play_secs,
        fmt_q(0),
        fmt_q(1),
        fmt_q(2),
        fmt_q(3),
        s.latencies.len(),
        fmt_steady(2),
        s.merges,
        s.splits,
        s.resumed_states,
        r.mismatches.len(),
        s.outage_errors,
        if ok { "ok" } else { "fail" }
    );
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_weights_parse_and_bad_ones_are_refused() {
        assert_eq!(parse_mix("ws=70,http=30"), Ok(Mix { ws: 70, http: 30 }));
        assert_eq!(parse_mix("ws"), Ok(Mix { ws: 1, http: 0 }));
        assert_eq!(parse_mix(" http = 2 "), Ok(Mix { ws: 0, http: 2 }));
        assert!(parse_mix("tcp=1").is_err());
        assert!(parse_mix("ws=0,http=0").is_err());
        assert!(parse_mix("ws=x").is_err());
        let mut rng = Rng(3);
        let ws = (0..1000)
            .filter(|_| Mix { ws: 70, http: 30 }.pick(&mut rng) == Transport::Ws)
            .count();
        assert!((620..=780).contains(&ws), "{ws} of 1000 drew ws");
        assert!((0..100).all(|_| Mix { ws: 0, http: 1 }.pick(&mut rng) == Transport::Http));
    }

    #[test]
    fn only_loopback_hosts_unless_allowed() {
        for ok in [
            "http://127.0.0.1:8080",
            "http://127.1.2.3:9/",
            "http://[::1]:8080",
            "http://localhost:8080",
        ] {
            assert!(check_url(ok, false).is_ok(), "{ok}");
        }
        assert_eq!(
            check_url("http://127.0.0.1:8080/", false).unwrap(),
            "http://127.0.0.1:8080"
        );
        for remote in [
            "http://10.0.0.1:8080",
            "http://example.org",
            "http://[2001:db8::1]",
        ] {
            let e = check_url(remote, false).unwrap_err().to_string();
            assert!(e.contains("not a loopback host"), "{remote}: {e}");
            assert!(
                check_url(remote, true).is_ok(),
                "{remote} with --allow-remote"
            );
        }
        assert!(check_url("https://127.0.0.1", true).is_err());
        assert!(check_url("http://127.0.0.1/?a=b", false).is_err());
    }

    /// The state the server would push after `moves` from the start.
    fn state_after(variant: Variant, moves: &[&str]) -> Value {
        let mut pos = Position::new(variant);
        for m in moves {
            pos = pos.play_uci(m).unwrap();
        }
        let legal: Vec<Value> = pos
            .legal_moves()
            .iter()
            .map(|m| json!({ "uci": m.to_string() }))
            .collect();
        json!({ "fen": pos.fen(), "legalMoves": legal })
    }

    /// `state` read as the players read it.
    fn typed(state: &Value) -> GameJson {
        serde_json::from_value(state.clone()).unwrap()
    }

    #[test]
    fn choices_are_legal_and_lean_towards_merges_and_splits() {
        let state = state_after(Variant::ChessMerge, &["b1d2", "e7e6"]);
        let parsed = typed(&state);
        let pos = Position::from_fen(Variant::ChessMerge, state["fen"].as_str().unwrap()).unwrap();
        let legal: Vec<&str> = state["legalMoves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].as_str().unwrap())
            .collect();
        let mut rng = Rng(11);
        let (mut merges, mut splits) = (0, 0);
        let draws = 1000;
        for _ in 0..draws {
            let (u, kind) = choose(&mut rng, Variant::ChessMerge, &parsed).unwrap();
            assert!(
                legal.contains(&u.as_str()),
                "{u} is not among the legal moves"
            );
            let m = pos.parse_uci(&u).unwrap();
            match kind {
                MoveKind::Split => {
                    assert!(u.starts_with(|c: char| c.is_ascii_uppercase()), "{u}");
                    splits += 1;
                }
                MoveKind::Merge => {
                    assert!(pos.is_merge(m), "{u}");
                    merges += 1;
                }
                MoveKind::Other => {
                    assert!(!pos.is_merge(m) && u.starts_with(|c: char| c.is_ascii_lowercase()))
                }
            }
        }
        // A quarter of the draws pick among the merges, a fifth among the
        // splits, the rest among all moves: both come clearly more often
        // than their share of the list (a uniform choice).
        let share = |n: i32| f64::from(n) / f64::from(draws);
        let in_list = |f: &dyn Fn(&str) -> bool| {
            legal.iter().filter(|u| f(u)).count() as f64 / legal.len() as f64
        };
        let merge_share = in_list(&|u| pos.is_merge(pos.parse_uci(u).unwrap()));
        let split_share = in_list(&|u| u.starts_with(|c: char| c.is_ascii_uppercase()));
        assert!(split_share > 0.0 && merge_share > 0.0);
        let (want_merges, want_splits) = (0.25 + 0.55 * merge_share, 0.20 + 0.55 * split_share);
        assert!(
            (share(merges) - want_merges).abs() < 0.05,
            "{merges} merges, {want_merges} expected"
        );
        assert!(
            (share(splits) - want_splits).abs() < 0.05,
            "{splits} splits, {want_splits} expected"
        );
        assert!(want_merges > merge_share + 0.05 && want_splits > split_share + 0.1);
        // A finished game lists no moves: nothing to choose.
        let over = typed(&json!({"legalMoves": []}));
        assert!(choose(&mut rng, Variant::ChessMerge, &over).is_none());
    }

    /// A state as the server pushes it after `moves` from the start: every
    /// field of `GameStateJson`, the legal moves with their names.
    fn server_state(moves: &[&str], version: i64) -> Value {
        let mut game = Game::new(Position::new(Variant::ChessMerge));
        for m in moves {
            game.play_uci(m).unwrap();
        }
        let pos = game.position();
        let legal: Vec<Value> = pos
            .legal_moves_with_san()
            .into_iter()
            .map(|(m, san)| json!({ "uci": m.to_string(), "san": san }))
            .collect();
        json!({
            "type": "gameState", "moves": moves.join(" "), "wtime": 2147483647,
            "btime": 2147483647, "winc": 0, "binc": 0, "status": "started",
            "wdraw": false, "bdraw": false, "wtakeback": false, "btakeback": false,
            "fen": pos.fen(), "lastMove": moves.last(), "check": false,
            "turn": if moves.len().is_multiple_of(2) { "white" } else { "black" },
            "ply": moves.len(), "version": version, "san": game.san_moves(),
            "legalMoves": legal,
        })
    }

    /// The server's frame around `d` (`t` first, as `api/socket.rs` builds it).
    fn server_frame(t: &str, v: i64, d: &Value) -> String {
        format!(r#"{{"t":"{t}","id":"abcdefgh","v":{v},"d":{d}}}"#)
    }

    fn state_of(incoming: Option<Incoming>) -> GameJson {
        match incoming {
            Some(Incoming::State(g)) => g,
            _ => panic!("not a gameState"),
        }
    }

    #[test]
    fn pushed_states_are_read_into_the_fields_the_players_use() {
        let moves = ["b1d2", "e7e6", "d2f3"];
        let state = server_state(&moves, 4);
        let check = |g: &GameJson| {
            assert_eq!(g.version, Some(4));
            assert_eq!(g.ply, Some(3));
            assert_eq!(g.last_move.as_deref(), Some("d2f3"));
            assert_eq!(g.moves.as_deref(), Some("b1d2 e7e6 d2f3"));
            assert!(g.is_started());
            assert_eq!(g.turn.as_deref(), Some("black"));
            let pos = Position::from_fen(Variant::ChessMerge, g.fen.as_deref().unwrap()).unwrap();
            let want: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
            let got: Vec<&str> = g.legal_moves.iter().map(|m| &*m.uci).collect();
            assert_eq!(got, want);
        };
        // Over the socket, over ndjson, and a frame whose `d` comes before
        // its `t` (keys in sorted order, as `json!` writes them).
        check(&state_of(
            parse_frame(&server_frame("gameState", 4, &state)).unwrap(),
        ));
        check(&state_of(parse_line(state.to_string().as_bytes()).unwrap()));
        let sorted = json!({"t": "gameState", "id": "abcdefgh", "v": 4, "d": state}).to_string();
        assert!(sorted.find("\"d\"") < sorted.find("\"t\""), "{sorted}");
        check(&state_of(parse_frame(&sorted).unwrap()));
        // A gameFull: players and its state.
        let full = json!({
            "type": "gameFull", "id": "abcdefgh", "variant": {"key": "chessmerge"},
            "rated": false, "white": {"id": "lt1-0", "name": "lt1-0", "rating": 1500},
            "black": {"id": "lt1-1", "name": "lt1-1"}, "initialFen": "startpos",
            "state": state,
        });
        for incoming in [
            parse_frame(&server_frame("gameFull", 4, &full)).unwrap(),
            parse_line(format!("{full}\n").as_bytes()).unwrap(),
        ] {
            let Some(Incoming::Full(g)) = incoming else {
                panic!("not a gameFull")
            };
            assert_eq!(g.white.and_then(|p| p.id).as_deref(), Some("lt1-0"));
            assert_eq!(g.black.and_then(|p| p.id).as_deref(), Some("lt1-1"));
            check(&g.state.unwrap());
        }
        // Acks, errors; frames and lines the players do not read, also
        // with fields named like a state's but of other shapes.
        assert!(matches!(
            parse_frame(r#"{"t":"ack","a":7}"#).unwrap(),
            Some(Incoming::Ack(7))
        ));
        let Some(Incoming::Refused { a, status, text }) =
            parse_frame(r#"{"t":"error","id":null,"status":409,"error":"stale ply","a":3}"#)
                .unwrap()
        else {
            panic!("not a refusal")
        };
        assert_eq!((a, status, text.as_str()), (Some(3), 409, "stale ply"));
        let event =
            r#"{"d":{"type":"gameStart","status":{"name":"started"},"ply":"x"},"t":"event"}"#;
        assert!(parse_frame(event).unwrap().is_none());
        assert!(
            parse_frame(r#"{"t":"hello","user":null}"#)
                .unwrap()
                .is_none()
        );
        let chat = r#"{"type":"chatLine","username":"a","text":"hi","room":"player"}"#;
        assert!(parse_line(chat.as_bytes()).unwrap().is_none());
    }

    #[test]
    fn a_malformed_frame_or_line_is_reported_with_its_fault() {
        let e = parse_frame(r#"{"t":"gameState","d":{"ply":3"#)
            .err()
            .unwrap();
        assert!(
            e.starts_with("socket: a frame that is not JSON: EOF"),
            "{e}"
        );
        let e = parse_frame(r#"{"t":"gameState","d":{"ply":"3"}}"#)
            .err()
            .unwrap();
        assert!(
            e.starts_with("socket: a frame of an unexpected shape: invalid type: string \"3\""),
            "{e}"
        );
        let e = parse_frame(r#"{"d":{"legalMoves":[{"san":"e4"}]},"t":"gameFull"}"#)
            .err()
            .unwrap();
        assert!(e.contains("unexpected shape: missing field `uci`"), "{e}");
        let e = parse_line(b"{\"type\":\"gameState\",\"version\":1.5}\n")
            .err()
            .unwrap();
        assert!(
            e.starts_with("stream: a line of an unexpected shape: invalid type"),
            "{e}"
        );
        let e = parse_line(b"<html>\n").err().unwrap();
        assert!(e.starts_with("stream: a line that is not JSON"), "{e}");
    }

    #[test]
    fn outgoing_frames_are_what_the_socket_expects() {
        let sub = |v| OutFrame {
            t: "sub",
            id: "abcdefgh",
            v,
            u: None,
            ply: None,
            a: None,
        };
        let text = |m: Message| m.into_text().unwrap().to_string();
        assert_eq!(text(sub(None).message()), r#"{"t":"sub","id":"abcdefgh"}"#);
        assert_eq!(
            text(sub(Some(9)).message()),
            r#"{"t":"sub","id":"abcdefgh","v":9}"#
        );
        let mv = OutFrame {
            t: "move",
            id: "abcdefgh",
            v: None,
            u: Some("Pa6a7"),
            ply: Some(2),
            a: Some(5),
        };
        assert_eq!(
            text(mv.message()),
            r#"{"t":"move","id":"abcdefgh","u":"Pa6a7","ply":2,"a":5}"#
        );
    }

    /// The mate of docs/api.md's curl session: a merge, a split, a pair
    /// promotion.
    const FEN: &str = "7k/6pp/P7/2p5/8/8/8/R3K3 w - - 0 1";
    const MOVES: &str = "a1a6 c5c4 Pa6a7 c4c3 a6a7 c3c2 a7a8q";

    fn record(seen: [Option<&str>; 2], status: &str) -> GameRecord {
        let list = |s: Option<&str>| s.map(|s| s.split_whitespace().map(str::to_owned).collect());
        GameRecord {
            id: "abcdefgh".into(),
            variant: Variant::ChessMerge,
            transport: Transport::Ws,
            seen: [list(seen[0]), list(seen[1])],
            acked: [Vec::new(), Vec::new()],
            status: status.into(),
        }
    }

    fn export(moves: &str, status: &str) -> Value {
        json!({"variant": "chessmerge", "initialFen": FEN, "moves": moves, "status": status})
    }

    #[test]
    fn the_check_accepts_a_game_both_players_saw_whole() {
        let r = record([Some(MOVES), Some(MOVES)], "mate");
        assert_eq!(verify(&r, &export(MOVES, "mate")), None);
        // A player whose connection failed for good is not compared.
        let r = record([Some(MOVES), None], "mate");
        assert_eq!(verify(&r, &export(MOVES, "mate")), None);
    }

    #[test]
    fn the_check_finds_lost_doubled_or_illegal_moves_and_wrong_statuses() {
        let short = "a1a6 c5c4 Pa6a7 c4c3 a6a7 c3c2";
        let r = record([Some(MOVES), Some(short)], "mate");
        let e = verify(&r, &export(MOVES, "mate")).unwrap();
        assert!(
            e.contains("accepter saw 6 moves") && e.contains("from ply 7"),
            "{e}"
        );
        let doubled = "a1a6 c5c4 c5c4 Pa6a7 c4c3 a6a7 c3c2 a7a8q";
        let r = record([Some(doubled), Some(MOVES)], "mate");
        let e = verify(&r, &export(MOVES, "mate")).unwrap();
        assert!(e.contains("challenger") && e.contains("from ply 3"), "{e}");
        let r = record([Some(MOVES), Some(MOVES)], "mate");
        let e = verify(&r, &export("a1a6 c5c4 a6a8", "started")).unwrap();
        assert!(e.contains("ply 3 a6a8 does not replay"), "{e}");
        let e = verify(&r, &export(MOVES, "started")).unwrap();
        assert!(e.contains("status started"), "{e}");
        let e = verify(
            &record([Some(short), Some(short)], "mate"),
            &export(short, "mate"),
        )
        .unwrap();
        assert!(e.contains("status mate"), "{e}");
        // The players last saw another status than the server's.
        let r = record([Some(MOVES), Some(MOVES)], "started");
        let e = verify(&r, &export(MOVES, "mate")).unwrap();
        assert!(e.contains("last saw status started"), "{e}");
        let e = verify(&r, &json!({"variant": "standard", "moves": ""})).unwrap();
        assert!(e.contains("variant"), "{e}");
    }

    #[test]
    fn the_check_finds_an_acknowledged_move_the_server_lost() {
        let short = "a1a6 c5c4 Pa6a7 c4c3 a6a7 c3c2";
        // The challenger (white) was acknowledged the mate at ply 7, then
        // lost its connection for good; the accepter saw six moves. A
        // server that lost the acknowledged move must not pass.
        let mut r = record([None, Some(short)], "started");
        r.acked[0] = vec![(1, "a1a6".into()), (7, "a7a8q".into())];
        let e = verify(&r, &export(short, "started")).unwrap();
        assert!(
            e.contains("a7a8q at ply 7 was acknowledged") && e.contains("no move"),
            "{e}"
        );
        // Stored at another ply, or another move stored there: also caught.
        r.acked[0] = vec![(3, "a1a6".into())];
        let e = verify(&r, &export(short, "started")).unwrap();
        assert!(e.contains("the server has \"Pa6a7\""), "{e}");
        // Every acknowledged move where it was played: no mismatch.
        r.acked[0] = vec![(1, "a1a6".into()), (3, "Pa6a7".into())];
        assert_eq!(verify(&r, &export(short, "started")), None);
    }
}
