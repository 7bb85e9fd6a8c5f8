//! The server's move path, end to end: the real release `chessmerge serve`
//! on a free loopback port with a fresh SQLite database, N games played at
//! once, each move timed from its submission to the arrival of that move's
//! `gameState` on the opponent's connection. Two transports: `http` (the
//! board API: `POST /api/board/game/{id}/move/{move}`, ndjson game
//! streams) and `ws` (the page's way: a `move` frame on the WebSocket, the
//! states pushed on the same sockets).
//!
//! Where the server has `GET /api/server/stats`, each run also reports
//! what the move phase cost the server per move, counted: database
//! statements, write transactions, and full replays of a game.
//! `CHESSMERGE_SERVER_BIN=path` benchmarks another build (an older commit's
//! binary) with the same client.
//!
//! The peer, measured in the same run at the same concurrency: the same
//! server's round trip for a trivial authenticated request
//! (`GET /api/account`, one token lookup), as many requests as moves.
//!
//! ```text
//! cargo bench -p chessmerge --bench move_path                 # N = 1, 10, 50, 200; 3 runs; both transports
//! cargo bench -p chessmerge --bench move_path -- 1 10 --runs 1 --plies 20 --transport ws
//! cargo bench -p chessmerge --bench move_path -- quick        # N = 1, 10; 1 run; 20 plies
//! ```
//!
//! Every game plays the same fixed 40-ply line, checked with
//! the rules crate before the server starts: legal in ChessMerge and never
//! finishing the game. In each game the players alternate: a move is sent
//! only after the previous one has reached the mover's stream, as a client
//! that reacts to its opponent would. Figures per N are medians over the
//! runs; each run creates fresh games on the same server.

use std::sync::Arc;
use std::time::{Duration, Instant};

// The bench uses only the server harness of the shared test helpers.
#[allow(dead_code)]
#[path = "../tests/common/mod.rs"]
mod common;

use chessmerge_rules::{Game, Position, START_FEN, Variant};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// The line every game plays, Merge-UCI: a quiet symmetrical setup (1. e3
/// e6 2. Nf3 Nf6 3. Be2 Be7 4. O-O O-O ... 20. Kh2 Kh7). ChessMerge pawns step
/// one square; no captures, merges or repetitions, so the game never ends and
/// every move costs the server what an ordinary move does.
const LINE: [&str; 40] = [
    "e2e3", "e7e6", "g1f3", "g8f6", "f1e2", "f8e7", "e1g1", "e8g8", "d2d3", "d7d6", //
    "b1c3", "b8c6", "c1d2", "c8d7", "a2a3", "a7a6", "b2b3", "b7b6", "h2h3", "h7h6", //
    "a1b1", "a8b8", "d1c1", "d8c8", "f1e1", "f8e8", "e2f1", "e7f8", "g2g3", "g7g6", //
    "f1g2", "f8g7", "c3e2", "c6e7", "e2f4", "e7f5", "c1b2", "c8b7", "g1h2", "g8h7",
];

/// Any single request or stream line: beyond this the run fails.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// A whole phase (setup, moves or peer requests of one run).
const PHASE_TIMEOUT: Duration = Duration::from_secs(300);
/// Largest N accepted (each game holds two stream connections).
const MAX_GAMES: usize = 500;
/// Registrations (two Argon2id hashings each) sent at once.
const SETUP_CONCURRENCY: usize = 8;

// ---------------------------------------------------------------------------
// Arguments

struct Args {
    levels: Vec<usize>,
    runs: usize,
    plies: usize,
    transports: Vec<Transport>,
}

/// How moves are sent and states received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    /// `POST .../move/...` and ndjson game streams.
    Http,
    /// WebSocket `move` frames and pushed states.
    Ws,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Ws => "ws",
        }
    }
}

fn parse_args() -> Args {
    let mut args = Args {
        levels: vec![1, 10, 50, 200],
        runs: 3,
        plies: LINE.len(),
        transports: vec![Transport::Http, Transport::Ws],
    };
    let mut levels = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut number = |what: &str| -> usize {
            it.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{what} needs a positive number"))
        };
        match a.as_str() {
            "--bench" => {} // passed by `cargo bench`
            "quick" | "--quick" => {
                args.levels = vec![1, 10];
                args.runs = 1;
                args.plies = 20;
            }
            "--runs" => args.runs = number("--runs"),
            "--transport" => {
                args.transports = match it.next().as_deref() {
                    Some("http") => vec![Transport::Http],
                    Some("ws") => vec![Transport::Ws],
                    Some("both") => vec![Transport::Http, Transport::Ws],
                    other => panic!("--transport http|ws|both, not {other:?}"),
                }
            }
            "--plies" => args.plies = number("--plies"),
            other => {
                for n in other.split(',') {
                    match n.parse::<usize>() {
                        Ok(n) => levels.push(n),
                        Err(_) => panic!(
                            "unknown argument {other:?}; usage: [N ...] [--runs R] [--plies P] [quick]"
                        ),
                    }
                }
            }
        }
    }
    if !levels.is_empty() {
        args.levels = levels;
    }
    assert!(
        args.levels.iter().all(|&n| (1..=MAX_GAMES).contains(&n)),
        "N must be 1..={MAX_GAMES}"
    );
    assert!((1..=20).contains(&args.runs), "--runs must be 1..=20");
    assert!(
        (2..=LINE.len()).contains(&args.plies),
        "--plies must be 2..={}",
        LINE.len()
    );
    args
}

/// Checks the line with the rules crate: every move legal in ChessMerge,
/// and no position on the way ends the game. Answers the moves as the
/// rules crate writes them (what the server's streams will say).
fn check_line() -> Vec<String> {
    let start = Position::from_fen(Variant::ChessMerge, START_FEN).expect("start position");
    let mut game = Game::new(start);
    let mut out = Vec::new();
    for (i, m) in LINE.iter().enumerate() {
        let mv = game
            .play_uci(m)
            .unwrap_or_else(|e| panic!("ply {}: {m} is not legal: {e}", i + 1));
        out.push(mv.to_string());
        assert!(
            game.outcome().is_none(),
            "the line ends the game at ply {}",
            i + 1
        );
    }
    out
}

// ---------------------------------------------------------------------------
// The server

/// The real server (the end-to-end tests' harness) and its directory.
struct Server {
    process: common::Server,
    base: String,
    dir: common::TempDir,
}

impl Server {
    fn start() -> Server {
        let dir = common::TempDir::new("bench-move-path");
        // Every simulated player connects from loopback: lift the
        // per-address caps (docs/security.md, "Limits").
        let process = common::Server::start_with(
            &dir.0.join("bench.db"),
            &[
                "--connections-per-address",
                "100000",
                "--sockets-per-address",
                "100000",
            ],
        );
        Server {
            base: process.base.clone(),
            process,
            dir,
        }
    }

    /// The server's CPU time so far (user + system, Linux `/proc`), if known.
    fn cpu(&self) -> Option<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.process.pid())).ok()?;
        // Fields after the parenthesised command name; utime and stime are
        // the 14th and 15th fields, in USER_HZ (100 per second on Linux).
        let rest = &stat[stat.rfind(')')? + 2..];
        let f: Vec<&str> = rest.split_whitespace().collect();
        let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
        Some(Duration::from_millis(ticks * 10))
    }

    /// The size of the database's write-ahead log.
    fn wal_bytes(&self) -> u64 {
        std::fs::metadata(self.dir.0.join("bench.db-wal")).map_or(0, |m| m.len())
    }

    fn log_text(&self) -> String {
        self.process.log_text()
    }
}

// ---------------------------------------------------------------------------
// HTTP helpers

#[derive(Clone)]
struct Player {
    name: String,
    token: String,
}

async fn send_json(req: reqwest::RequestBuilder, what: &str) -> Value {
    let resp = req.send().await.unwrap_or_else(|e| panic!("{what}: {e}"));
    let status = resp.status();
    let text = resp.text().await.unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(status.is_success(), "{what}: {status} {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}: {text}"))
}

async fn register(client: reqwest::Client, base: String, name: String) -> Player {
    let creds = json!({ "username": name, "password": "correct horse battery" });
    send_json(
        client
            .post(format!("{base}/api/account/register"))
            .json(&creds),
        "register",
    )
    .await;
    let v = send_json(
        client.post(format!("{base}/api/token")).json(&creds),
        "token",
    )
    .await;
    Player {
        name,
        token: v["token"].as_str().expect("a token").to_owned(),
    }
}

/// Runs `f` on every item, at most `limit` at once, each in its own task;
/// answers the results in order. Bounded by [`PHASE_TIMEOUT`].
async fn spawn_all<T, R, F, Fut>(items: Vec<T>, limit: usize, what: &str, f: F) -> Vec<R>
where
    T: Send + 'static,
    R: Send + 'static,
    F: Fn(T) -> Fut,
    Fut: std::future::Future<Output = R> + Send + 'static,
{
    let deadline = tokio::time::Instant::now() + PHASE_TIMEOUT;
    let mut out = Vec::with_capacity(items.len());
    let mut items = items.into_iter();
    loop {
        let handles: Vec<_> = items
            .by_ref()
            .take(limit)
            .map(|t| tokio::spawn(f(t)))
            .collect();
        if handles.is_empty() {
            return out;
        }
        for h in handles {
            match tokio::time::timeout_at(deadline, h).await {
                Ok(Ok(r)) => out.push(r),
                Ok(Err(e)) => panic!("{what}: a task failed: {e}"),
                Err(_) => panic!("{what}: not done within {PHASE_TIMEOUT:?}"),
            }
        }
    }
}

/// A game's ndjson stream, read line by line.
struct Feed {
    resp: reqwest::Response,
    buf: Vec<u8>,
    /// When the chunk holding the buffered lines arrived.
    at: Instant,
}

impl Feed {
    async fn open(client: &reqwest::Client, base: &str, id: &str, token: &str) -> Feed {
        let resp = client
            .get(format!("{base}/api/board/game/stream/{id}"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap_or_else(|e| panic!("stream {id}: {e}"));
        assert!(resp.status().is_success(), "stream {id}: {}", resp.status());
        let mut feed = Feed {
            resp,
            buf: Vec::new(),
            at: Instant::now(),
        };
        // The server subscribes before it sends gameFull: once we have it, no
        // later move can be missed.
        let (first, _) = feed.next().await;
        assert_eq!(first["type"], "gameFull", "stream {id}: {first}");
        feed
    }

    /// The next non-empty line, parsed, with the time its chunk arrived.
    async fn next(&mut self) -> (Value, Instant) {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let line = &line[..line.len() - 1];
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue; // keep-alive
                }
                let v = serde_json::from_slice(line).unwrap_or_else(|e| {
                    panic!("stream line: {e}: {}", String::from_utf8_lossy(line))
                });
                return (v, self.at);
            }
            let chunk = tokio::time::timeout(REQUEST_TIMEOUT, self.resp.chunk())
                .await
                .expect("no stream line within the timeout")
                .expect("stream read failed")
                .expect("the stream ended early");
            self.at = Instant::now();
            self.buf.extend_from_slice(&chunk);
        }
    }

    /// Waits for the `gameState` at `ply`; answers it and its arrival time.
    async fn state_at(&mut self, ply: i64) -> (Value, Instant) {
        loop {
            let (v, at) = self.next().await;
            if v["type"] != "gameState" {
                continue;
            }
            let p = v["ply"].as_i64().expect("gameState without ply");
            if p == ply {
                return (v, at);
            }
            assert!(p < ply, "stream skipped from before ply {ply} to {p}");
        }
    }
}

/// A player's WebSocket, authenticated by their token, following one game.
struct WsFeed {
    ws: common::Ws,
    acks: u64,
}

impl WsFeed {
    async fn open(base: &str, id: &str, token: &str) -> WsFeed {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let url = format!("{}/api/socket", base.replace("http://", "ws://"));
        let mut req = url.into_client_request().unwrap();
        req.headers_mut()
            .insert("authorization", format!("Bearer {token}").parse().unwrap());
        let (ws, _) = tokio::time::timeout(REQUEST_TIMEOUT, tokio_tungstenite::connect_async(req))
            .await
            .expect("socket connect timed out")
            .unwrap_or_else(|e| panic!("socket {id}: {e}"));
        let mut feed = WsFeed { ws, acks: 0 };
        feed.send(json!({"t": "sub", "id": id})).await;
        loop {
            let (v, _) = feed.next().await;
            if v["t"] == "gameFull" {
                return feed;
            }
        }
    }

    async fn send(&mut self, v: Value) {
        self.ws
            .send(Message::Text(v.to_string().into()))
            .await
            .expect("socket send");
    }

    async fn next(&mut self) -> (Value, Instant) {
        loop {
            let msg = tokio::time::timeout(REQUEST_TIMEOUT, self.ws.next())
                .await
                .expect("no socket frame within the timeout")
                .expect("the socket closed")
                .expect("socket read failed");
            if let Message::Text(t) = msg {
                let v: Value = serde_json::from_str(&t).expect("a JSON frame");
                assert_ne!(v["t"], "error", "socket error: {v}");
                return (v, Instant::now());
            }
        }
    }

    /// Sends a move and waits for its ack (states seen meanwhile are kept
    /// for [`WsFeed::state_at`] by the caller's order: the ack comes first
    /// or after, both are read here).
    async fn play(&mut self, id: &str, m: &str, ply: i64) -> (Instant, Option<(Value, Instant)>) {
        self.acks += 1;
        let a = self.acks;
        self.send(json!({"t": "move", "id": id, "u": m, "ply": ply, "a": a}))
            .await;
        let mut own_state = None;
        loop {
            let (v, at) = self.next().await;
            if v["t"] == "ack" && v["a"] == a {
                return (at, own_state);
            }
            if v["t"] == "gameState" {
                own_state = Some((v, at));
            }
        }
    }

    /// Waits for the state at `ply`.
    async fn state_at(&mut self, ply: i64) -> (Value, Instant) {
        loop {
            let (v, at) = self.next().await;
            if v["t"] != "gameState" {
                continue;
            }
            let p = v["d"]["ply"].as_i64().expect("gameState without ply");
            if p == ply {
                return (v["d"].clone(), at);
            }
            assert!(p < ply, "socket skipped from before ply {ply} to {p}");
        }
    }
}

/// A player's connection in one transport.
enum Conn {
    Http(Feed),
    Ws(WsFeed),
}

impl Conn {
    async fn state_at(&mut self, ply: i64) -> (Value, Instant) {
        match self {
            Conn::Http(f) => f.state_at(ply).await,
            Conn::Ws(f) => f.state_at(ply).await,
        }
    }
}

// ---------------------------------------------------------------------------
// One run at one concurrency

struct Ctx {
    base: String,
    client: reqwest::Client,
    streams: reqwest::Client,
    players: Vec<Player>,
    /// [`LINE`] as the server writes it.
    line: Vec<String>,
}

/// One game ready to play: its id, the players' tokens (white, black) and
/// each player's stream (white's, black's).
struct Table {
    id: String,
    tokens: [String; 2],
    feeds: [Conn; 2],
}

async fn set_tables(ctx: &Arc<Ctx>, n: usize, transport: Transport) -> Vec<Table> {
    let c = ctx.clone();
    spawn_all((0..n).collect(), n, "game setup", move |i| {
        let ctx = c.clone();
        async move {
            let (w, b) = (&ctx.players[2 * i], &ctx.players[2 * i + 1]);
            let ch = send_json(
                ctx.client
                    .post(format!("{}/api/challenge/{}", ctx.base, b.name))
                    .bearer_auth(&w.token)
                    .json(&json!({ "variant": "chessmerge", "color": "white" })),
                "challenge",
            )
            .await;
            let id = ch["id"].as_str().expect("challenge id").to_owned();
            send_json(
                ctx.client
                    .post(format!("{}/api/challenge/{id}/accept", ctx.base))
                    .bearer_auth(&b.token),
                "accept",
            )
            .await;
            let (fw, fb) = match transport {
                Transport::Http => (
                    Conn::Http(Feed::open(&ctx.streams, &ctx.base, &id, &w.token).await),
                    Conn::Http(Feed::open(&ctx.streams, &ctx.base, &id, &b.token).await),
                ),
                Transport::Ws => (
                    Conn::Ws(WsFeed::open(&ctx.base, &id, &w.token).await),
                    Conn::Ws(WsFeed::open(&ctx.base, &id, &b.token).await),
                ),
            };
            Table {
                id,
                tokens: [w.token.clone(), b.token.clone()],
                feeds: [fw, fb],
            }
        }
    })
    .await
}

/// Per-move samples of one game: (submission to opponent's stream,
/// submission to the POST's answer).
type Samples = Vec<(Duration, Duration)>;

async fn play(ctx: Arc<Ctx>, mut t: Table, plies: usize) -> Samples {
    let mut out = Vec::with_capacity(plies);
    let mut last = Value::Null;
    for (k, m) in LINE.iter().take(plies).enumerate() {
        let mover = k % 2;
        let [f0, f1] = &mut t.feeds;
        let (own, opp) = if mover == 0 { (f0, f1) } else { (f1, f0) };
        let ply = k as i64 + 1;
        let t0 = Instant::now();
        let (acked, (state, seen)) = match own {
            Conn::Http(_) => {
                let req = ctx
                    .client
                    .post(format!("{}/api/board/game/{}/move/{m}", ctx.base, t.id))
                    .bearer_auth(&t.tokens[mover]);
                let post = async {
                    let r = req.send().await.unwrap_or_else(|e| panic!("move {m}: {e}"));
                    let status = r.status();
                    let body = r.text().await.unwrap_or_default();
                    assert!(status.is_success(), "move {m} in {}: {status} {body}", t.id);
                    Instant::now()
                };
                let (acked, seen) = tokio::join!(post, opp.state_at(ply));
                own.state_at(ply).await;
                (acked, seen)
            }
            Conn::Ws(ws) => {
                let ((acked, own_state), seen) =
                    tokio::join!(ws.play(&t.id, m, ply - 1), opp.state_at(ply));
                if own_state.is_none() {
                    ws.state_at(ply).await;
                }
                (acked, seen)
            }
        };
        assert_eq!(
            state["lastMove"].as_str(),
            Some(ctx.line[k].as_str()),
            "game {}: {state}",
            t.id
        );
        // The mover's own connection has shown the move too (above) before
        // the opponent replies, as a reacting client would wait for.
        out.push((seen - t0, acked - t0));
        last = state;
    }
    assert_eq!(
        last["moves"].as_str(),
        Some(ctx.line[..plies].join(" ").as_str()),
        "game {} ended with other moves",
        t.id
    );
    out
}

/// The peer: `count` sequential `GET /api/account` by one player.
async fn trivial(ctx: Arc<Ctx>, player: usize, count: usize) -> Vec<Duration> {
    let token = ctx.players[player].token.clone();
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let t0 = Instant::now();
        let v = send_json(
            ctx.client
                .get(format!("{}/api/account", ctx.base))
                .bearer_auth(&token),
            "account",
        )
        .await;
        out.push(t0.elapsed());
        assert_eq!(
            v["username"].as_str(),
            Some(ctx.players[player].name.as_str())
        );
    }
    out
}

struct RunFigures {
    moves: usize,
    moves_per_s: f64,
    lat: [f64; 4], // p50, p90, p99, max (ms), submission to opponent's stream
    ack_p50: f64,
    peer_per_s: f64,
    peer: [f64; 4],
    /// The server's CPU time per move during the move phase (ms), if known.
    cpu_per_move: Option<f64>,
    /// The write-ahead log's size after the move phase (MiB).
    wal_mib: f64,
    /// Counted per move in the move phase: database statements, write
    /// transactions, full replays (when the server reports them).
    per_move: Option<[f64; 3]>,
}

/// The server's counters, if it has the endpoint.
async fn stats(ctx: &Ctx) -> Option<[u64; 3]> {
    let r = ctx
        .client
        .get(format!("{}/api/server/stats", ctx.base))
        .send()
        .await
        .ok()?;
    if !r.status().is_success() {
        return None;
    }
    let v: Value = r.json().await.ok()?;
    Some([
        v["dbStatements"].as_u64()?,
        v["dbWriteTransactions"].as_u64()?,
        v["replays"].as_u64()?,
    ])
}

async fn one_run(
    ctx: &Arc<Ctx>,
    server: &Server,
    n: usize,
    plies: usize,
    transport: Transport,
) -> RunFigures {
    let tables = set_tables(ctx, n, transport).await;
    let c = ctx.clone();
    let stats0 = stats(ctx).await;
    let cpu0 = server.cpu();
    let start = Instant::now();
    let samples = spawn_all(tables, n, "moves", move |t| play(c.clone(), t, plies)).await;
    let wall = start.elapsed().as_secs_f64();
    let stats1 = stats(ctx).await;
    let per_move = stats0.zip(stats1).map(|(a, b)| {
        let moves = (n * plies) as f64;
        [0, 1, 2].map(|i| (b[i] - a[i]) as f64 / moves)
    });
    let cpu = cpu0
        .zip(server.cpu())
        .map(|(a, b)| (b - a).as_secs_f64() * 1e3);
    let wal_mib = server.wal_bytes() as f64 / (1024.0 * 1024.0);
    let (mut lat, mut ack): (Vec<Duration>, Vec<Duration>) = samples.into_iter().flatten().unzip();

    let c = ctx.clone();
    let start = Instant::now();
    let mut peer: Vec<Duration> = spawn_all((0..n).collect(), n, "peer", move |i| {
        trivial(c.clone(), 2 * i + i % 2, plies)
    })
    .await
    .into_iter()
    .flatten()
    .collect();
    let peer_wall = start.elapsed().as_secs_f64();

    RunFigures {
        moves: lat.len(),
        moves_per_s: lat.len() as f64 / wall,
        lat: quantiles(&mut lat),
        ack_p50: quantiles(&mut ack)[0],
        peer_per_s: peer.len() as f64 / peer_wall,
        peer: quantiles(&mut peer),
        cpu_per_move: cpu.map(|ms| ms / (n * plies) as f64),
        wal_mib,
        per_move,
    }
}

// ---------------------------------------------------------------------------
// Statistics

/// p50, p90, p99 and max in milliseconds (nearest rank over the sorted
/// samples).
fn quantiles(v: &mut [Duration]) -> [f64; 4] {
    assert!(!v.is_empty());
    v.sort_unstable();
    let at = |p: f64| {
        let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
        v[rank.clamp(1, v.len()) - 1].as_secs_f64() * 1e3
    };
    [at(50.0), at(90.0), at(99.0), at(100.0)]
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn main() {
    let args = parse_args();
    let line = check_line();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let server = Server::start();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        runtime.block_on(bench(&server, &args, line))
    }));
    if result.is_err() {
        eprintln!("server log (last lines):\n{}", server.log_text());
    }
    // Kills the server, removes the database, then reports any failure.
    drop(server);
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

async fn bench(server: &Server, args: &Args, line: Vec<String>) {
    let max_n = *args.levels.iter().max().unwrap();
    let client = reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        .build()
        .unwrap();
    let streams = reqwest::Client::builder()
        .connect_timeout(REQUEST_TIMEOUT)
        .build()
        .unwrap();
    let (c, base) = (client.clone(), server.base.clone());
    let t = Instant::now();
    let players = spawn_all(
        (0..2 * max_n).collect(),
        SETUP_CONCURRENCY,
        "registration",
        move |i| register(c.clone(), base.clone(), format!("bench{i}")),
    )
    .await;
    println!(
        "move path: chessmerge serve at {} (fresh SQLite database, WAL, synchronous=FULL); \
         {} players registered in {:.1} s",
        server.base,
        players.len(),
        t.elapsed().as_secs_f64()
    );
    let ctx = Arc::new(Ctx {
        base: server.base.clone(),
        client,
        streams,
        players,
        line,
    });
    // Warm-up, not reported: one short game and its peer.
    one_run(&ctx, server, 1, 10, args.transports[0]).await;

    for &transport in &args.transports {
        report(&ctx, server, args, transport).await;
    }
}

async fn report(ctx: &Arc<Ctx>, server: &Server, args: &Args, transport: Transport) {
    println!();
    println!(
        "transport {}: {} plies per game, {} run(s) per N; latency: move sent -> gameState on the \
         opponent's connection; peer: GET /api/account at the same concurrency; ms",
        transport.name(),
        args.plies,
        args.runs
    );
    let mut rows = Vec::new();
    for &n in &args.levels {
        let mut runs = Vec::new();
        for r in 0..args.runs {
            let f = one_run(ctx, server, n, args.plies, transport).await;
            println!(
                "  N={n:<3} run {}: {} moves, {:.0} moves/s, p50 {:.2} p90 {:.2} p99 {:.2} max {:.2}; \
                 ack p50 {:.2}; peer {:.0} req/s p50 {:.2} p99 {:.2}; server CPU {} ms/move; \
                 WAL {:.1} MiB; per move {}",
                r + 1,
                f.moves,
                f.moves_per_s,
                f.lat[0],
                f.lat[1],
                f.lat[2],
                f.lat[3],
                f.ack_p50,
                f.peer_per_s,
                f.peer[0],
                f.peer[2],
                f.cpu_per_move.map_or("n/a".into(), |c| format!("{c:.2}")),
                f.wal_mib,
                f.per_move.map_or("n/a".into(), |[s, t, r]| format!(
                    "{s:.2} statements, {t:.2} write transactions, {r:.3} replays"
                )),
            );
            runs.push(f);
        }
        rows.push((n, runs));
    }

    println!();
    println!(
        "| transport | N | moves | moves/s | p50 | p90 | p99 | max | answer p50 | peer req/s | peer p50 | peer p99 | server CPU ms/move | DB statements/move | write tx/move | replays/move |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (n, runs) in &rows {
        let med = |f: &dyn Fn(&RunFigures) -> f64| median(runs.iter().map(f).collect());
        let cpu: Option<Vec<f64>> = runs.iter().map(|f| f.cpu_per_move).collect();
        let counted: Option<Vec<[f64; 3]>> = runs.iter().map(|f| f.per_move).collect();
        let col = |i: usize| {
            counted.as_ref().map_or("n/a".into(), |c| {
                format!("{:.2}", median(c.iter().map(|x| x[i]).collect()))
            })
        };
        println!(
            "| {} | {n} | {} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} | {:.2} | {:.2} | {} | {} | {} | {} |",
            transport.name(),
            runs[0].moves,
            med(&|f| f.moves_per_s),
            med(&|f| f.lat[0]),
            med(&|f| f.lat[1]),
            med(&|f| f.lat[2]),
            med(&|f| f.lat[3]),
            med(&|f| f.ack_p50),
            med(&|f| f.peer_per_s),
            med(&|f| f.peer[0]),
            med(&|f| f.peer[2]),
            cpu.map_or("n/a".into(), |c| format!("{:.2}", median(c))),
            col(0),
            col(1),
            col(2),
        );
    }
}
