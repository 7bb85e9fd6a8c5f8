//! Several `chessmerge serve` nodes on one PostgreSQL database behind a
//! real load balancer (Debian's nginx, configured and started here on free
//! ports): events reach a client on any node, a node killed with SIGKILL
//! loses no acknowledged move, its clients reconnect through nginx to the
//! other node and get exactly what they missed, and its computer games go
//! on on the other node.
//!
//! Needs PostgreSQL (`CHESSMERGE_TEST_POSTGRES`, or the local server) and
//! nginx (`/usr/sbin/nginx`; `scripts/test` installs it): without them the
//! test fails and says what is missing.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{
    self, Player, Server, TempDir, fresh_postgres_database, register, ws_connect, ws_next, ws_send,
};
use reqwest::StatusCode;
use serde_json::{Value, json};

const NGINX: &str = "/usr/sbin/nginx";

/// nginx in front of the given upstream addresses, on a free port.
pub(crate) struct Nginx {
    child: Child,
    pub(crate) base: String,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM, so that the master stops its workers: a SIGKILLed
        // master leaves them running, holding the port, after the test.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(crate) fn start_nginx(dir: &TempDir, upstreams: &[String]) -> Nginx {
    assert!(
        std::path::Path::new(NGINX).exists(),
        "this test needs nginx at {NGINX} (apt-get install nginx; scripts/test installs it)"
    );
    let port = free_port();
    let d = dir.0.join("nginx");
    std::fs::create_dir_all(d.join("tmp")).unwrap();
    let servers: String = upstreams
        .iter()
        .map(|u| format!("    server {u} max_fails=1 fail_timeout=30s;\n"))
        .collect();
    let d = d.display();
    // WebSocket upgrades and ndjson streams pass straight through (no
    // buffering); the client address goes on in X-Forwarded-For. Requests
    // and sockets about one game go to one node (docs/deploy.md).
    let conf = format!(
        "worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {d}/tmp/body;
  proxy_temp_path {d}/tmp/proxy;
  fastcgi_temp_path {d}/tmp/fastcgi;
  uwsgi_temp_path {d}/tmp/uwsgi;
  scgi_temp_path {d}/tmp/scgi;
  map $request_uri $chessmerge_game {{
    ~^/api/(?:board/|bot/)?game/(?:stream/)?([0-9A-Za-z]+) $1;
    ~^/api/socket\\?(?:.*&)?game=([0-9A-Za-z]+) $1;
    default \"\";
  }}
  upstream chessmerge {{
    hash $chessmerge_game consistent;
{servers}  }}
  map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://chessmerge;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_buffering off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
      proxy_connect_timeout 2s;
    }}
  }}
}}
"
    );
    let path = dir.0.join("nginx.conf");
    std::fs::write(&path, conf).unwrap();
    let child = Command::new(NGINX)
        .arg("-c")
        .arg(&path)
        .arg("-e")
        .arg(dir.0.join("nginx").join("error.log"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start nginx: {e}"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nginx did not start listening");
        std::thread::sleep(Duration::from_millis(50));
    }
    Nginx {
        child,
        base: format!("http://127.0.0.1:{port}"),
    }
}

pub(crate) fn addr(s: &Server) -> String {
    s.base.trim_start_matches("http://").to_owned()
}

/// The same player, talking to another address.
pub(crate) fn via(p: &Player, base: &str) -> Player {
    Player {
        base: base.to_owned(),
        ..p.clone()
    }
}

/// The next game state on a socket, skipping other frames.
async fn state(ws: &mut common::Ws) -> Value {
    loop {
        let v = ws_next(ws).await;
        if v["t"] == "gameState" || v["t"] == "gameFull" {
            return v;
        }
    }
}

pub(crate) async fn game_ply(p: &Player, id: &str) -> i64 {
    let (s, g) = p.get(&format!("/api/game/{id}")).await;
    assert_eq!(s, StatusCode::OK, "{g}");
    g["ply"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_behind_nginx_share_games_and_survive_a_sigkill() {
    let dir = TempDir::new("cluster");
    let url = fresh_postgres_database(&dir);
    // The computer takes 3 s over each move on node a: long enough to kill
    // a while it is a's turn to answer.
    let mut a = Server::start_on(url.clone().into(), &["--computer-min-think-ms", "3000"]);
    let b = Server::start_on(url.into(), &[]);
    let lb = start_nginx(&dir, &[addr(&a), addr(&b)]);

    let alice = register(&lb.base, "alice").await;
    let bob = register(&lb.base, "bob").await;
    let id = white_challenges_black(&alice, &bob, "bob").await;

    // Alice watches on node a; Bob plays on node b: the move crosses nodes.
    let mut ws_a = ws_connect(&a.base, Some(&alice.cookie)).await;
    ws_send(&mut ws_a, json!({"t": "sub", "id": id})).await;
    assert_eq!(state(&mut ws_a).await["t"], "gameFull");
    let (alice_a, alice_b, bob_b) = (
        via(&alice, &a.base),
        via(&alice, &b.base),
        via(&bob, &b.base),
    );
    let (s, v) = alice_b.mv(&id, "e2e3").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let t0 = Instant::now();
    let seen = state(&mut ws_a).await;
    assert_eq!(
        (seen["v"].as_i64(), seen["d"]["lastMove"].as_str()),
        (Some(2), Some("e2e3"))
    );
    let cross_node = t0.elapsed();
    assert!(
        cross_node < Duration::from_secs(2),
        "cross-node push took {cross_node:?}"
    );
    // Moving on node a right after node b: a's cache learnt of b's move.
    let (s, v) = via(&bob, &a.base).mv(&id, "e7e6").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(state(&mut ws_a).await["v"], 3);

    // A computer game started on node a, the computer to move first.
    let (s, g) = alice_a
        .post("/api/challenge/ai", json!({"level": 1, "color": "black"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{g}");
    let ai_game = g["id"].as_str().unwrap().to_owned();
    assert_eq!(g["ply"], 0);

    // A page on the balancer follows the human game.
    let mut ws_lb = ws_connect(&lb.base, Some(&alice.cookie)).await;
    ws_send(&mut ws_lb, json!({"t": "sub", "id": id, "v": 3})).await;

    // Node a dies while the computer thinks there; moves go on through nginx.
    tokio::time::sleep(Duration::from_millis(500)).await;
    a.kill9();
    let mut acknowledged = vec!["e2e3", "e7e6"];
    for (who, m) in [(&alice, "d2d3"), (&bob, "d7d6"), (&alice, "b1d2")] {
        let (s, v) = who.mv(&id, m).await;
        assert_eq!(
            s,
            StatusCode::OK,
            "{m} through nginx after a node died: {v}"
        );
        acknowledged.push(m);
    }
    // The page reconnects (through nginx, now to b) from the last version
    // it saw and gets exactly what it missed.
    let mut last = 3;
    drop(ws_lb);
    let mut ws_lb = ws_connect(&lb.base, Some(&alice.cookie)).await;
    ws_send(&mut ws_lb, json!({"t": "sub", "id": id, "v": last})).await;
    let mut missed = Vec::new();
    while missed.len() < 3 {
        let v = state(&mut ws_lb).await;
        assert_eq!(v["t"], "gameState", "{v}");
        let ver = v["v"].as_i64().unwrap();
        assert_eq!(ver, last + 1, "in order, none twice");
        last = ver;
        missed.push(v["d"]["lastMove"].as_str().unwrap().to_owned());
    }
    assert_eq!(missed, ["d2d3", "d7d6", "b1d2"]);

    // Every acknowledged move is stored, once.
    let export = bob_b
        .client
        .get(format!("{}/game/export/{id}", b.base))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(
        export["moves"].as_str(),
        Some(acknowledged.join(" ").as_str())
    );

    // The computer game goes on on node b once a's claim lapses.
    let deadline = Instant::now() + Duration::from_secs(30);
    while game_ply(&alice_b, &ai_game).await == 0 {
        assert!(
            Instant::now() < deadline,
            "the computer game stalled after its node died; b's log:\n{}",
            b.log_text()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(
        game_ply(&alice_b, &ai_game).await,
        1,
        "the computer moved once"
    );
    drop(lb);
}

/// A game `white` challenged `black` (named `black_name`) to, accepted:
/// its id.
async fn white_challenges_black(white: &Player, black: &Player, black_name: &str) -> String {
    let (s, c) = white
        .post(
            &format!("/api/challenge/{black_name}"),
            json!({"color": "white"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let id = c["id"].as_str().unwrap().to_owned();
    let (s, v) = black
        .post_empty(&format!("/api/challenge/{id}/accept"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    id
}

/// A node's game commits and followed games (`/api/server/stats`).
async fn node_counts(node: &Server) -> (i64, i64) {
    let (s, v) = common::get_anonymous(&node.base, "/api/server/stats").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    (
        v["gameCommits"].as_i64().unwrap(),
        v["liveChannels"][0].as_i64().unwrap(),
    )
}

/// nginx configured as docs/deploy.md says sends everything about one game
/// to one node: the page's socket (`?game=`), the board stream and the
/// moves. So a game's moves are committed where its players follow it and
/// do not cross nodes.
#[tokio::test(flavor = "multi_thread")]
async fn nginx_sends_everything_about_a_game_to_one_node() {
    let dir = TempDir::new("affinity");
    let url = fresh_postgres_database(&dir);
    let a = Server::start_on(url.clone().into(), &[]);
    let b = Server::start_on(url.into(), &[]);
    let lb = start_nginx(&dir, &[addr(&a), addr(&b)]);
    let alice = register(&lb.base, "alice").await;
    let bob = register(&lb.base, "bob").await;
    let mut held = Vec::new();
    for _ in 0..4 {
        let id = white_challenges_black(&alice, &bob, "bob").await;

        let before = [node_counts(&a).await, node_counts(&b).await];
        let socket_url = format!("{}/api/socket?game={id}", lb.base);
        let mut ws = common::ws_connect_to(&socket_url, Some(&alice.cookie)).await;
        ws_send(&mut ws, json!({"t": "sub", "id": id})).await;
        assert_eq!(state(&mut ws).await["t"], "gameFull");
        let stream = bob.stream(&format!("/api/board/game/stream/{id}")).await;
        for (who, m) in [
            (&alice, "e2e3"),
            (&bob, "e7e6"),
            (&alice, "d2d3"),
            (&bob, "d7d6"),
        ] {
            let (s, v) = who.mv(&id, m).await;
            assert_eq!(s, StatusCode::OK, "{m}: {v}");
        }
        assert_eq!(state(&mut ws).await["v"].as_i64(), Some(2));
        let after = [node_counts(&a).await, node_counts(&b).await];
        let delta: Vec<(i64, i64)> = (0..2)
            .map(|i| (after[i].0 - before[i].0, after[i].1 - before[i].1))
            .collect();
        // One node committed the four moves and follows the game; the
        // other did neither.
        assert!(
            delta == [(4, 1), (0, 0)] || delta == [(0, 0), (4, 1)],
            "game {id}: (commits, followed games) added on a and b: {delta:?}"
        );
        held.push((ws, stream));
    }
}

/// A throwaway PostgreSQL cluster of this test's own (so that it can be
/// restarted without disturbing anything else), stopped on drop.
pub(crate) struct OwnPostgres {
    pub(crate) url: String,
    dir: String,
}

impl OwnPostgres {
    pub(crate) fn start() -> OwnPostgres {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scripts/postgres-for-tests"
        );
        let out = Command::new(script)
            .env("CHESSMERGE_TEST_PG_THROWAWAY", "1")
            .env_remove("CHESSMERGE_TEST_POSTGRES")
            .output()
            .unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "no throwaway PostgreSQL: {err}");
        let dir = err
            .lines()
            .find_map(|l| l.strip_prefix("cluster "))
            .expect("the cluster's directory")
            .to_owned();
        OwnPostgres {
            url: String::from_utf8_lossy(&out.stdout).trim().to_owned(),
            dir,
        }
    }

    pub(crate) fn pg_ctl(&self, what: &str) {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("bin/pg_ctl"))
            .filter(|p| p.exists())
            .max()
            .expect("pg_ctl");
        let st = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(bin)
            .args([
                "-D",
                &format!("{}/data", self.dir),
                "-l",
                &format!("{}/log", self.dir),
            ])
            .args(["-w", "-m", "fast", what])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "pg_ctl {what}");
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scripts/postgres-for-tests"
        );
        let _ = Command::new(script).args(["stop", &self.dir]).status();
    }
}

/// PostgreSQL restarts under a node: requests during the outage get a
/// clear 503 (not a hang, not a 500); afterwards the node recovers by
/// itself, and a follower that missed events while the notification
/// connection was down gets them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_recovers_by_itself_when_postgresql_restarts() {
    let pg = OwnPostgres::start();
    let node = Server::start_on(format!("{}/postgres", pg.url).into(), &[]);
    let alice = register(&node.base, "alice").await;
    let bob = register(&node.base, "bob").await;
    let (_, c) = alice
        .post("/api/challenge/bob", json!({"color": "white"}))
        .await;
    let id = c["id"].as_str().unwrap().to_owned();
    let (s, _) = bob.post_empty(&format!("/api/challenge/{id}/accept")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(alice.mv(&id, "e2e3").await.0, StatusCode::OK);

    pg.pg_ctl("stop");
    let t0 = Instant::now();
    let (s, v) = bob.mv(&id, "e7e6").await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "during the outage: {v}");
    assert!(v["error"].as_str().unwrap().contains("unavailable"), "{v}");
    assert!(t0.elapsed() < Duration::from_secs(15), "answered, not hung");
    pg.pg_ctl("start");

    // The node needs no restart: the move goes through once the database is back.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (s, v) = bob.mv(&id, "e7e6").await;
        if s == StatusCode::OK {
            break;
        }
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
        assert!(
            Instant::now() < deadline,
            "the node did not recover: {}",
            node.log_text()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let mut ws = ws_connect(&node.base, Some(&alice.cookie)).await;
    ws_send(&mut ws, json!({"t": "sub", "id": id, "v": 2})).await;
    let v = state(&mut ws).await;
    assert_eq!(
        (v["v"].as_i64(), v["d"]["lastMove"].as_str()),
        (Some(3), Some("e7e6"))
    );
    assert_eq!(alice.mv(&id, "d2d3").await.0, StatusCode::OK);
    let v = state(&mut ws).await;
    assert_eq!(v["v"], 4, "live again after the restart");
}

/// Issue 48: a timed game's flag falls on another node when the node that
/// served it dies, with no client connected anywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flag_falls_on_the_surviving_node_when_the_games_node_dies() {
    let dir = TempDir::new("cluster-flag");
    let url = fresh_postgres_database(&dir);
    let mut a = Server::start_on(url.clone().into(), &[]);
    let b = Server::start_on(url.into(), &[]);
    let white = register(&a.base, "flagwhite").await;
    let black = register(&a.base, "flagblack").await;
    // 0+1: each clock starts with 3 s once both sides have moved.
    let id = common::accepted_game(
        &white,
        &black,
        json!({"variant": "standard", "color": "white", "clock.limit": 0, "clock.increment": 1}),
    )
    .await;
    assert_eq!(white.mv(&id, "e2e4").await.0, StatusCode::OK);
    assert_eq!(black.mv(&id, "e7e5").await.0, StatusCode::OK);
    a.kill9();
    let on_b = via(&white, &b.base);
    let until = Instant::now() + Duration::from_secs(20);
    let game = loop {
        let (s, g) = on_b.get(&format!("/api/game/{id}")).await;
        assert_eq!(s, StatusCode::OK, "{g}");
        if g["status"] != "started" || Instant::now() > until {
            break g;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(game["status"], "outoftime", "node b ended it: {game}");
    assert_eq!(game["winner"], "black", "{game}");
}
