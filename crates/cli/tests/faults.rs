//! Faults under load: `chessmerge loadtest --outages` plays random games of
//! every variant, over both transports, while a node is SIGKILLed, the
//! single SQLite node is SIGKILLed and restarted, or PostgreSQL is
//! restarted under two nodes. The load generator's own final check then
//! says that every game replays legally, is exactly what both players saw,
//! and holds every move the server acknowledged, at its ply (nothing
//! acknowledged lost, nothing doubled); the test checks that the fault was
//! felt (outages were counted) and that play went on after it.
//!
//! Needs nginx and PostgreSQL like `cluster.rs` (its helpers are used);
//! without them the tests fail and say what is missing.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::cluster::{OwnPostgres, addr, game_ply, start_nginx, via};
use crate::common::{Server, TempDir, fresh_postgres_database, register};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Every simulated player connects from 127.0.0.1: lift the per-address
/// caps, as `scripts/cluster-loadtest` does.
const LIFTED: [&str; 6] = [
    "--trusted-proxy",
    "127.0.0.1",
    "--connections-per-address",
    "100000",
    "--sockets-per-address",
    "100000",
];

/// A running `chessmerge loadtest --outages`.
struct Load {
    child: Child,
    /// Its stderr lines as they come (registration progress, then nothing
    /// but the progress bar, which is hidden without a terminal).
    stderr: mpsc::Receiver<String>,
}

impl Load {
    fn start(url: &str, games: u32, seconds: u32) -> Load {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chessmerge"))
            .args(["loadtest", "--url", url, "--outages"])
            .args(["--games", &games.to_string()])
            .args(["--duration", &seconds.to_string()])
            .args(["--mix", "ws=50,http=50", "--seed", "17"])
            .args([
                "--max-plies",
                "200",
                "--timeout",
                "20",
                "--drain-timeout",
                "90",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run chessmerge loadtest");
        let (tx, rx) = mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Load { child, stderr: rx }
    }

    /// Waits until every player is registered (play starts then).
    fn wait_for_play(&self) {
        let deadline = Instant::now() + Duration::from_secs(240);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(l) if l.contains("players registered") => return,
                Ok(_) => {}
                Err(_) => panic!("the load generator did not finish registering its players"),
            }
        }
    }

    /// Waits for the end and answers the summary's fields and the whole
    /// output (for failure messages).
    fn finish(self) -> (std::collections::HashMap<String, String>, String) {
        let out = self.child.wait_with_output().expect("loadtest output");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let rest: Vec<String> = self.stderr.try_iter().collect();
        let text = format!(
            "exit {:?}\nstdout:\n{stdout}\nstderr:\n{}",
            out.status,
            rest.join("\n")
        );
        let summary = stdout
            .lines()
            .find_map(|l| l.strip_prefix("loadtest-summary "))
            .unwrap_or_else(|| panic!("no summary line:\n{text}"))
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        (summary, text)
    }
}

fn number(s: &std::collections::HashMap<String, String>, key: &str) -> f64 {
    s.get(key)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number {key} in the summary"))
}

/// The load generator's verdict, plus what every fault test needs: the
/// fault was felt, and nothing unexpected happened.
fn assert_survived(summary: &std::collections::HashMap<String, String>, text: &str) {
    assert_eq!(summary["result"], "ok", "{text}");
    assert_eq!(number(summary, "errors"), 0.0, "{text}");
    assert_eq!(number(summary, "mismatches"), 0.0, "{text}");
    assert!(number(summary, "acked") > 0.0, "{text}");
    assert!(
        number(summary, "outage_errors") > 0.0,
        "the fault was not felt: {text}"
    );
}

/// Game changes a server committed since it started.
async fn game_commits(base: &str) -> u64 {
    let v: Value = reqwest::get(format!("{base}/api/server/stats"))
        .await
        .and_then(|r| r.error_for_status())
        .expect("server stats")
        .json()
        .await
        .expect("stats JSON");
    v["gameCommits"].as_u64().expect("gameCommits")
}

/// Waits until `base` has committed at least `n` game changes: the load
/// is on.
async fn wait_for_commits(base: &str, n: u64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while game_commits(base).await < n {
        assert!(Instant::now() < deadline, "no load on {base}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The single node on SQLite, SIGKILLed under load and started again on
/// the same port and file: every acknowledged move is still there, and the
/// players go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sqlite_node_killed_under_load_and_restarted_loses_nothing_acknowledged() {
    let dir = TempDir::new("fault-sqlite");
    let db = dir.0.join("test.db");
    let mut node = Server::start_with(&db, &LIFTED);
    let load = Load::start(&node.base, 12, 16);
    load.wait_for_play();
    wait_for_commits(&node.base, 60).await;

    node.kill9();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let node = Server::start_listening(crate::common::database_arg(&db), &addr(&node), &LIFTED);
    let (summary, text) = load.finish();
    assert_survived(&summary, &text);
    assert!(
        game_commits(&node.base).await > 0,
        "no move after the restart: {text}\nlog:\n{}",
        node.log_text()
    );
}

/// One of two nodes behind nginx is SIGKILLed under load: its players
/// reconnect through nginx to the other node, nothing acknowledged is lost
/// or doubled, and the computer games that were thinking on the dead node
/// go on on the other one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_of_two_nodes_killed_under_load_loses_nothing_and_its_computer_games_go_on() {
    let dir = TempDir::new("fault-node");
    let url = fresh_postgres_database(&dir);
    let slow: Vec<&str> = LIFTED
        .iter()
        .copied()
        .chain(["--computer-min-think-ms", "3000"])
        .collect();
    let mut a = Server::start_on(url.clone().into(), &slow);
    let b = Server::start_on(url.into(), &LIFTED);
    let lb = start_nginx(&dir, &[addr(&a), addr(&b)]);

    let load = Load::start(&lb.base, 12, 16);
    load.wait_for_play();
    // Computer games started on node a, the computer to move first: it
    // thinks for 3 s there, so it is thinking when a dies.
    let alice = register(&a.base, "alice").await;
    let mut ai_games = Vec::new();
    for _ in 0..3 {
        let (s, g) = alice
            .post("/api/challenge/ai", json!({"level": 1, "color": "black"}))
            .await;
        assert_eq!(s, StatusCode::OK, "{g}");
        assert_eq!(g["ply"], 0);
        ai_games.push(g["id"].as_str().unwrap().to_owned());
    }
    wait_for_commits(&b.base, 30).await;
    let before_b = game_commits(&b.base).await;
    a.kill9();

    let (summary, text) = load.finish();
    assert_survived(&summary, &text);
    assert!(
        game_commits(&b.base).await > before_b,
        "node b did not carry the load on: {text}"
    );
    let alice_b = via(&alice, &b.base);
    let deadline = Instant::now() + Duration::from_secs(30);
    for id in &ai_games {
        while game_ply(&alice_b, id).await == 0 {
            assert!(
                Instant::now() < deadline,
                "computer game {id} stalled after its node died; b's log:\n{}",
                b.log_text()
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        assert_eq!(game_ply(&alice_b, id).await, 1, "the computer moved once");
    }
    drop(lb);
}

/// PostgreSQL restarts under two nodes behind nginx and under load: the
/// nodes recover by themselves, requests during the outage get a 503 (not
/// a hang: no request or wait timed out, and not a 500: the load
/// generator counts any other status as an error), and every acknowledged
/// move is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgresql_restarted_under_load_is_survived_with_503s_and_no_loss() {
    let dir = TempDir::new("fault-pg");
    let pg = OwnPostgres::start();
    let url = format!("{}/postgres", pg.url);
    let a = Server::start_on(url.clone().into(), &LIFTED);
    let b = Server::start_on(url.into(), &LIFTED);
    let lb = start_nginx(&dir, &[addr(&a), addr(&b)]);

    let load = Load::start(&lb.base, 8, 16);
    load.wait_for_play();
    wait_for_commits(&a.base, 20).await;
    pg.pg_ctl("stop");
    tokio::time::sleep(Duration::from_secs(3)).await;
    pg.pg_ctl("start");
    let after = (game_commits(&a.base).await, game_commits(&b.base).await);

    let (summary, text) = load.finish();
    assert_survived(&summary, &text);
    assert!(text.contains(" 503  "), "no 503 during the outage: {text}");
    // A request that timed out hung: reqwest's timeouts read "<what>:
    // timeout", a connection's "timeout: <connect|send|stream open>".
    // (Waits for a pushed state are not requests: a client waits for its
    // opponent, and the load generator's wait is its --timeout.)
    let hung: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("outage:") && l.contains("timeout"))
        .filter(|l| !l.contains("timeout: waiting for a"))
        .collect();
    assert!(
        hung.is_empty(),
        "requests hung during the outage: {hung:?}\n{text}"
    );
    let now = (game_commits(&a.base).await, game_commits(&b.base).await);
    assert!(
        now.0 > after.0 && now.1 > after.1,
        "both nodes commit again after the restart ({after:?} -> {now:?}): {text}\n\
         a's log:\n{}\nb's log:\n{}",
        a.log_text(),
        b.log_text()
    );
    drop(lb);
}
