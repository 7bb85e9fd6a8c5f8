//! The harness shared by the `chessmerge serve` end-to-end tests (and the
//! `move_path` bench): the real
//! binary on a free port with a fresh database (its port read from its log,
//! killed on drop), HTTP helpers, registered players, and readers for the
//! ndjson streams and the WebSocket.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// Generous: this box has 2 cores and runs other builds.
pub const TIMEOUT: Duration = Duration::from_secs(60);

pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!(
            "chessmerge-server-test-{name}-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let names = pg_databases_in(&self.0);
        if !names.is_empty() {
            let server = postgres_server().unwrap_or_else(|| {
                std::env::var("CHESSMERGE_TEST_POSTGRES")
                    .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into())
            });
            for name in names {
                psql(
                    &server,
                    &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
                );
            }
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh PostgreSQL database on the test server (see [`postgres_server`];
/// the local one when neither variable is set), whose URL is answered;
/// dropped with `dir`.
pub fn fresh_postgres_database(dir: &TempDir) -> String {
    let server = postgres_server().unwrap_or_else(|| {
        std::env::var("CHESSMERGE_TEST_POSTGRES")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into())
    });
    let name = pg_database_for(&dir.0.join("cluster"));
    psql(
        &server,
        &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
    );
    psql(&server, &format!("CREATE DATABASE {name}"));
    pg_registry()
        .lock()
        .unwrap()
        .push((dir.0.join("cluster"), name.clone()));
    format!("{server}/{name}")
}

/// With `CHESSMERGE_TEST_BACKEND=postgres` every server of these tests runs
/// on PostgreSQL: the server in `CHESSMERGE_TEST_POSTGRES` (a URL without a
/// database), or the local one. Each test database path then names a
/// fresh PostgreSQL database instead (the same one across restarts),
/// dropped with the test's temporary directory.
fn postgres_server() -> Option<String> {
    match std::env::var("CHESSMERGE_TEST_BACKEND").as_deref() {
        Ok("postgres") => Some(
            std::env::var("CHESSMERGE_TEST_POSTGRES")
                .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into()),
        ),
        Ok("sqlite") | Err(_) => None,
        Ok(other) => panic!("CHESSMERGE_TEST_BACKEND={other:?}: expected sqlite or postgres"),
    }
}

/// Runs one SQL command with `psql` (the PostgreSQL client) on the
/// server's `postgres` database; panics with what is missing when it fails.
fn psql(server: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .arg(format!("{server}/postgres"))
        .args(["-v", "ON_ERROR_STOP=1", "-qtAc", sql])
        .output()
        .unwrap_or_else(|e| panic!("psql (the PostgreSQL client) is needed: {e}"));
    assert!(
        out.status.success(),
        "psql {sql:?} on {server} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The PostgreSQL database that stands for the SQLite file `db`.
fn pg_database_for(db: &std::path::Path) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    db.hash(&mut h);
    format!("cm_it_{}_{:016x}", std::process::id(), h.finish())
}

fn pg_registry() -> &'static Mutex<Vec<(PathBuf, String)>> {
    static DBS: std::sync::OnceLock<Mutex<Vec<(PathBuf, String)>>> = std::sync::OnceLock::new();
    DBS.get_or_init(|| Mutex::new(Vec::new()))
}

fn pg_databases_in(dir: &std::path::Path) -> Vec<String> {
    let mut reg = pg_registry().lock().unwrap();
    let (mine, rest): (Vec<_>, Vec<_>) = reg.drain(..).partition(|(p, _)| p.starts_with(dir));
    *reg = rest;
    mine.into_iter().map(|(_, n)| n).collect()
}

/// The `--database` value for the test database `db` on this run's backend.
pub fn database_arg(db: &std::path::Path) -> std::ffi::OsString {
    let Some(server) = postgres_server() else {
        return db.as_os_str().to_owned();
    };
    let name = pg_database_for(db);
    let mut reg = pg_registry().lock().unwrap();
    if !reg.iter().any(|(_, n)| *n == name) {
        psql(
            &server,
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        );
        psql(&server, &format!("CREATE DATABASE {name}"));
        reg.push((db.to_owned(), name.clone()));
    }
    format!("{server}/{name}").into()
}

/// How many of the server's last log lines are kept.
const KEPT_LOG_LINES: usize = 1000;

/// A running `chessmerge serve`.
/// Request rates far above what any test sends (docs/security.md,
/// "Limits"); the rate tests set their own with arguments.
const LIFTED_RATES: [(&str, &str); 5] = [
    ("CHESSMERGE_ANONYMOUS_RATE", "1000000"),
    ("CHESSMERGE_ANONYMOUS_BURST", "1000000"),
    ("CHESSMERGE_USER_RATE", "1000000"),
    ("CHESSMERGE_USER_BURST", "1000000"),
    ("CHESSMERGE_REGISTRATIONS_PER_HOUR", "1000000"),
];

pub struct Server {
    child: Child,
    pub base: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    pub fn start(db: &std::path::Path) -> Server {
        Server::start_with(db, &[])
    }

    /// Starts with extra `serve` arguments.
    pub fn start_with(db: &std::path::Path, extra: &[&str]) -> Server {
        Server::start_on(database_arg(db), extra)
    }

    /// Starts on the database `database` names (a path or a URL) as it is.
    pub fn start_on(database: std::ffi::OsString, extra: &[&str]) -> Server {
        Server::start_listening(database, "127.0.0.1:0", extra)
    }

    /// Starts listening on `listen` (a restart on the port a killed
    /// server had).
    pub fn start_listening(database: std::ffi::OsString, listen: &str, extra: &[&str]) -> Server {
        // CHESSMERGE_SERVER_BIN runs another build (the benchmarks compare
        // one commit with another that way).
        let bin = std::env::var("CHESSMERGE_SERVER_BIN")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_chessmerge").to_owned());
        let mut child = Command::new(bin)
            .args(["serve", "--listen", listen, "--database"])
            .arg(database)
            .args(extra)
            .env("RUST_LOG", "info")
            // Every test client is on loopback: the request rates are
            // lifted unless a test names them (arguments beat these).
            .envs(LIFTED_RATES)
            .env_remove("CHESSMERGE_LISTEN")
            .env_remove("CHESSMERGE_DATABASE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start chessmerge serve");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let log2 = log.clone();
        // Drains the log for the server's whole life (a full pipe would
        // block it), keeping the last lines for failure reports.
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(i) = line.find("listening on http://")
                    && let Some(tx) = tx.take()
                {
                    let rest = &line[i + "listening on http://".len()..];
                    let addr: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
                    let _ = tx.send(addr);
                }
                let mut log = log2.lock().unwrap();
                if log.len() >= KEPT_LOG_LINES {
                    log.remove(0);
                }
                log.push(line);
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(a) => a,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "server did not say where it listens; log:\n{}",
                    log.lock().unwrap().join("\n")
                );
            }
        };
        Server {
            child,
            base: format!("http://{addr}"),
            log,
        }
    }

    /// The server's process id (the `move_path` bench reads its CPU time).
    #[allow(dead_code)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL, no chance to clean up.
    pub fn kill9(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    pub fn log_text(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh server with a fresh database.
pub struct Env {
    pub server: Server,
    pub _dir: TempDir,
}

pub fn fresh(name: &str) -> Env {
    let dir = TempDir::new(name);
    let server = Server::start(&dir.0.join("test.db"));
    Env { server, _dir: dir }
}

pub fn http() -> reqwest::Client {
    reqwest::Client::builder().timeout(TIMEOUT).build().unwrap()
}

/// A registered player with an API token and a session cookie.
#[derive(Clone)]
pub struct Player {
    pub name: String,
    pub token: String,
    pub cookie: String,
    pub base: String,
    pub client: reqwest::Client,
}

/// GET without credentials.
pub async fn get_anonymous(base: &str, path: &str) -> (StatusCode, Value) {
    json_of(http().get(format!("{base}{path}")).send().await.unwrap()).await
}

pub async fn json_of(resp: reqwest::Response) -> (StatusCode, Value) {
    let status = resp.status();
    let text = resp.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|_| json!({ "raw": text }));
    (status, v)
}

/// The `name=value` of an answer's `Set-Cookie` (the session it started).
pub fn session_cookie(resp: &reqwest::Response) -> String {
    let set = resp.headers()["set-cookie"].to_str().unwrap();
    set.split(';').next().unwrap().to_owned()
}

pub async fn register(base: &str, name: &str) -> Player {
    let client = http();
    let creds = json!({ "username": name, "password": "correct horse" });
    let resp = client
        .post(format!("{base}/api/account/register"))
        .json(&creds)
        .send()
        .await
        .unwrap();
    let cookie = session_cookie(&resp);
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK, "register {name}: {v}");
    assert_eq!(v["username"], name);
    let (s, v) = json_of(
        client
            .post(format!("{base}/api/token"))
            .json(&creds)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "token {name}: {v}");
    Player {
        name: name.into(),
        token: v["token"].as_str().unwrap().into(),
        cookie,
        base: base.into(),
        client,
    }
}

impl Player {
    pub async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        json_of(
            self.client
                .post(format!("{}{path}", self.base))
                .bearer_auth(&self.token)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    pub async fn post_empty(&self, path: &str) -> (StatusCode, Value) {
        json_of(
            self.client
                .post(format!("{}{path}", self.base))
                .bearer_auth(&self.token)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        json_of(
            self.client
                .get(format!("{}{path}", self.base))
                .bearer_auth(&self.token)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    pub async fn mv(&self, id: &str, m: &str) -> (StatusCode, Value) {
        self.post_empty(&format!("/api/board/game/{id}/move/{m}"))
            .await
    }

    pub async fn stream(&self, path: &str) -> NdStream {
        let resp = self
            .client
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .timeout(Duration::from_secs(3600))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "stream {path}");
        assert_eq!(
            resp.headers()["content-type"].to_str().unwrap(),
            "application/x-ndjson"
        );
        NdStream {
            resp,
            buf: Vec::new(),
        }
    }
}

/// `challenger` challenges `challenged` (by name) with `body`, and the
/// challenge is accepted: the started game's id.
pub async fn accepted_game(challenger: &Player, challenged: &Player, body: Value) -> String {
    let (s, v) = challenger
        .post(&format!("/api/challenge/{}", challenged.name), body)
        .await;
    assert_eq!(s, StatusCode::OK, "challenge: {v}");
    let id = v["id"].as_str().unwrap().to_owned();
    let (s, v) = challenged
        .post_empty(&format!("/api/challenge/{id}/accept"))
        .await;
    assert_eq!(s, StatusCode::OK, "accept: {v}");
    id
}

/// Reads an ndjson response line by line.
pub struct NdStream {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl NdStream {
    /// Reads `resp`, an ndjson answer (200, `application/x-ndjson`).
    pub fn of(resp: reqwest::Response) -> NdStream {
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(
            resp.headers()["content-type"].to_str().unwrap(),
            "application/x-ndjson"
        );
        NdStream {
            resp,
            buf: Vec::new(),
        }
    }

    /// The next non-empty line as JSON; `None` at the end of the stream.
    pub async fn next(&mut self) -> Option<Value> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let line = std::str::from_utf8(&line).unwrap().trim();
                if line.is_empty() {
                    continue; // keep-alive
                }
                return Some(serde_json::from_str(line).unwrap());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let chunk = tokio::time::timeout(left, self.resp.chunk())
                .await
                .expect("timed out waiting for a stream line")
                .unwrap();
            match chunk {
                Some(c) => self.buf.extend_from_slice(&c),
                None => return None,
            }
        }
    }

    /// The next line of the given `type`, skipping others.
    pub async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next().await.expect("stream ended");
            if v["type"] == kind {
                return v;
            }
        }
    }
}

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

pub async fn ws_connect(base: &str, cookie: Option<&str>) -> Ws {
    ws_connect_to(&format!("{base}/api/socket"), cookie).await
}

/// A socket at `url` (`http://.../api/socket?...`).
pub async fn ws_connect_to(url: &str, cookie: Option<&str>) -> Ws {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let url = url.replace("http://", "ws://");
    let mut req = url.into_client_request().unwrap();
    if let Some(c) = cookie {
        req.headers_mut().insert("cookie", c.parse().unwrap());
    }
    let (ws, _) = tokio::time::timeout(TIMEOUT, tokio_tungstenite::connect_async(req))
        .await
        .unwrap()
        .unwrap();
    ws
}

/// The socket's next frame, spectators' counts (`crowd`) passed over:
/// they come and go with other followers, and the tests that count them
/// read them on their own (`server_social`).
pub async fn ws_next(ws: &mut Ws) -> Value {
    loop {
        let msg = tokio::time::timeout(TIMEOUT, ws.next())
            .await
            .expect("timed out waiting for a socket message")
            .expect("socket closed")
            .unwrap();
        if let Message::Text(t) = msg {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["t"] != "crowd" {
                return v;
            }
        }
    }
}

pub async fn ws_send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

pub async fn login_cookie(base: &str, name: &str) -> String {
    let resp = http()
        .post(format!("{base}/api/account/login"))
        .json(&json!({"username": name, "password": "correct horse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let set = resp.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(set.contains("HttpOnly"), "{set}");
    assert!(set.contains("SameSite=Lax"), "{set}");
    set.split(';').next().unwrap().to_owned()
}

/// A TCP connection to `to` from the loopback address `from`.
pub async fn connect_from(from: &str, to: std::net::SocketAddr) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(std::net::SocketAddr::new(from.parse().unwrap(), 0))
        .unwrap();
    tokio::time::timeout(TIMEOUT, socket.connect(to))
        .await
        .expect("connect timed out")
        .expect("connect")
}

/// Reads until the server closes the connection (or `within` passes):
/// what it sent and when it closed, or `None` if it was still open.
pub async fn closed_within(
    tcp: &mut tokio::net::TcpStream,
    within: Duration,
) -> Option<(Duration, String)> {
    let started = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = within.checked_sub(started.elapsed())?;
        match tokio::time::timeout(left, tokio::io::AsyncReadExt::read(tcp, &mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => {
                return Some((
                    started.elapsed(),
                    String::from_utf8_lossy(&got).into_owned(),
                ));
            }
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}
