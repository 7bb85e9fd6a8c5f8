//! Issue 10's shared limits: two nodes on one PostgreSQL database count
//! every per-user and per-address limit together (login spacing, guest
//! accounts, pending challenges, games against the computer, the live
//! analysis slot), so a client that spreads its requests over both nodes
//! gets no more than from one.

use futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::*;

/// The same player, talking to another node.
fn on(p: &Player, base: &str) -> Player {
    Player {
        base: base.to_owned(),
        ..p.clone()
    }
}

/// Two nodes on one fresh PostgreSQL database, with these `serve` options.
fn two_nodes(dir: &TempDir, extra: &[&str]) -> (Server, Server) {
    let url = fresh_postgres_database(dir);
    let a = Server::start_on(url.clone().into(), extra);
    let b = Server::start_on(url.into(), extra);
    (a, b)
}

/// Exactly `made` of `answers` are 200; the others are 429 saying `says`.
fn assert_capped(answers: &[(StatusCode, Value)], made: usize, says: &str) {
    let ok = answers.iter().filter(|(s, _)| *s == StatusCode::OK).count();
    assert_eq!(ok, made, "{answers:?}");
    for (s, v) in answers.iter().filter(|(s, _)| *s != StatusCode::OK) {
        assert_eq!(*s, StatusCode::TOO_MANY_REQUESTS, "{v}");
        assert!(v["error"].as_str().unwrap().contains(says), "{v}");
    }
}

async fn login(base: &str, name: &str, password: &str) -> (StatusCode, Value) {
    let body = json!({ "username": name, "password": password });
    json_of(
        http()
            .post(format!("{base}/api/account/login"))
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_share_login_spacing_and_guest_accounts() {
    let dir = TempDir::new("shared-login");
    let (a, b) = two_nodes(&dir, &["--login-free-failures", "2"]);
    register(&a.base, "victim").await;
    // Two free failures, one on each node; the third starts a 1 s wait,
    // which the other node keeps too.
    for (i, base) in [&a.base, &b.base, &a.base].into_iter().enumerate() {
        let (s, v) = login(base, "victim", "wrong guess").await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "failure {i}: {v}");
    }
    let (s, v) = login(&b.base, "victim", "wrong guess").await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("try again in 1 s"),
        "{v}"
    );
    let (s, _) = login(&a.base, "victim", "correct horse").await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "the wait holds on a too");
    // After the wait, the owner signs in (on either node), which forgets
    // the delay everywhere.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (s, v) = login(&b.base, "victim", "correct horse").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = login(&a.base, "victim", "wrong guess").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{v}");

    // Guest accounts: 20 per address per hour, from both nodes together,
    // asked at once.
    let tries = (0..30).map(|i| {
        let base = if i % 2 == 0 { &a.base } else { &b.base };
        async move {
            json_of(
                http()
                    .post(format!("{base}/api/account/guest"))
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    });
    let answers = join_all(tries).await;
    assert_capped(
        &answers,
        20,
        "at most 20 guest accounts per hour from one address",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_share_challenge_and_computer_game_caps() {
    let dir = TempDir::new("shared-caps");
    let (a, b) = two_nodes(
        &dir,
        &[
            "--challenges-per-pair",
            "3",
            "--lobby-challenges-per-user",
            "2",
            "--computer-games-per-user",
            "2",
        ],
    );
    let p = register(&a.base, "spreader").await;
    register(&a.base, "target").await;
    let pb = on(&p, &b.base);
    let both = [&p, &pb];
    // Ten challenges to one user at once, half on each node: the pair cap.
    let answers =
        join_all((0..10).map(|i| both[i % 2].post("/api/challenge/target", json!({})))).await;
    assert_capped(
        &answers,
        3,
        "you already have 3 pending challenges to target, the most allowed",
    );
    let (_, list) = p.get("/api/challenge").await;
    assert_eq!(list["out"].as_array().unwrap().len(), 3, "{list}");
    // Open challenges: the lobby cap.
    let answers =
        join_all((0..6).map(|i| both[i % 2].post("/api/challenge/open", json!({})))).await;
    assert_capped(
        &answers,
        2,
        "open challenges in the lobby, the most allowed",
    );
    // Games against the computer: six at once under a cap of two.
    let answers =
        join_all((0..6).map(|i| {
            both[i % 2].post("/api/challenge/ai", json!({ "level": 1, "color": "white" }))
        }))
        .await;
    assert_capped(
        &answers,
        2,
        "games against the computer under way, the most allowed",
    );
    let (_, playing) = p.get("/api/account/playing").await;
    assert_eq!(
        playing["nowPlaying"].as_array().unwrap().len(),
        2,
        "{playing}"
    );
}

async fn live(base: &str, token: &str) -> reqwest::Response {
    http()
        .post(format!("{base}/api/analysis/stream"))
        .bearer_auth(token)
        .json(&json!({ "movetime": 30000 }))
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_share_the_live_analysis_slot() {
    let dir = TempDir::new("shared-live");
    let (a, b) = two_nodes(&dir, &[]);
    let p = register(&a.base, "analyst").await;
    let pb = on(&p, &b.base);
    let mut running = NdStream::of(live(&a.base, &p.token).await);
    running.next_of("info").await;
    // A second one on the other node is refused while the first runs.
    let (s, v) = json_of(live(&b.base, &p.token).await).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("already have a live analysis"),
        "{v}"
    );
    // Stopped from the other node: the search on a ends, and b answers
    // only once it has, so a new one may start at once (on b).
    let started = std::time::Instant::now();
    let (s, v) = pb.post_empty("/api/analysis/stream/stop").await;
    assert_eq!((s, &v), (StatusCode::OK, &json!({ "stopped": true })));
    let done = running.next_of("done").await;
    assert_eq!(done["reason"], "stopped", "{done}");
    println!("stopped from the other node in {:?}", started.elapsed());
    let mut again = NdStream::of(live(&b.base, &p.token).await);
    again.next_of("info").await;
    // Closing the connection gives the slot back too (b's stop finds it
    // gone; a may start one).
    drop(again);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let resp = live(&a.base, &p.token).await;
        if resp.status() == StatusCode::OK {
            NdStream::of(resp).next_of("info").await;
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the slot was not given back"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
