//! The analysis board's live engine, `POST /api/analysis/stream` (ndjson)
//! and `POST /api/analysis/stream/stop`, against the real binary: growing
//! depths with a legal line, stop and disconnect free the places (the
//! caller's and the analysis lane's), the bounds, and refused input.

use std::time::{Duration, Instant};

use crate::common::{Env, NdStream, fresh, http, json_of, register};
use chessmerge_rules::{Game, Position, Variant};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A position with play in it: a few moves into a ChessMerge game.
const MOVES: [&str; 4] = ["b1d2", "e7e6", "e2e3", "d7d6"];

/// Every line of an ndjson answer, to its end.
async fn rest(lines: &mut NdStream) -> Vec<Value> {
    let mut all = Vec::new();
    while let Some(v) = lines.next().await {
        all.push(v);
    }
    all
}

async fn start(base: &str, token: Option<&str>, body: Value) -> reqwest::Response {
    let mut req = http()
        .post(format!("{base}/api/analysis/stream"))
        .json(&body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    req.send().await.unwrap()
}

async fn stop(base: &str, token: Option<&str>) -> (StatusCode, Value) {
    let mut req = http().post(format!("{base}/api/analysis/stream/stop"));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    json_of(req.send().await.unwrap()).await
}

/// Checks an info line's line of play: legal from the position, and its
/// readable notation is the rules crate's.
fn assert_legal_line(start: &Game, v: &Value) {
    let pv: Vec<&str> = v["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(!pv.is_empty(), "an empty line: {v}");
    let mut game = start.clone();
    let mut san = Vec::new();
    for m in &pv {
        let pos = *game.position();
        let mv = game
            .play_uci(m)
            .unwrap_or_else(|e| panic!("{m} is illegal in {v}: {e}"));
        san.push(pos.san(mv));
    }
    assert_eq!(v["san"], json!(san), "{v}");
    assert_eq!(v["fen"], start.position().fen());
}

fn game_after(moves: &[&str]) -> Game {
    let mut g = Game::new(Position::new(Variant::ChessMerge));
    for m in moves {
        g.play_uci(m).unwrap();
    }
    g
}

#[tokio::test(flavor = "current_thread")]
async fn live_analysis_gives_growing_depths_a_legal_line_and_ends_on_its_budget() {
    let Env { server, _dir } = fresh("live-analysis-depths");
    let base = &server.base;
    let game = game_after(&MOVES);

    // Signed out, bounded by nodes: info lines with growing depth, then done.
    let resp = start(base, None, json!({ "moves": MOVES, "nodes": 100_000 })).await;
    let mut lines = NdStream::of(resp);
    let all = rest(&mut lines).await;
    let (done, infos) = all.split_last().expect("no lines");
    assert!(infos.len() >= 3, "too few iterations: {all:?}");
    let mut depth = 0;
    let mut nodes = 0;
    for v in infos {
        assert_eq!(v["type"], "info", "{v}");
        let d = v["depth"].as_i64().unwrap();
        assert!(d > depth, "depth did not grow: {depth} then {v}");
        depth = d;
        let n = v["nodes"].as_u64().unwrap();
        assert!(n >= nodes, "{v}");
        nodes = n;
        assert!(
            v["score"]["cp"].is_i64() || v["score"]["mate"].is_i64(),
            "{v}"
        );
        assert_legal_line(&game, v);
    }
    assert_eq!(done["type"], "done", "{done}");
    assert_eq!(done["reason"], "nodes", "{done}");
    assert_eq!(done["depth"].as_i64().unwrap(), depth);
    assert!(done["nodes"].as_u64().unwrap() >= 100_000, "{done}");

    // Bounded by time: the search ends near its movetime, reason "time".
    let started = Instant::now();
    let resp = start(base, None, json!({ "moves": MOVES, "movetime": 1500 })).await;
    let all = rest(&mut NdStream::of(resp)).await;
    let took = started.elapsed();
    let done = all.last().unwrap();
    assert_eq!(done["reason"], "time", "{done}");
    assert!(
        took >= Duration::from_millis(1400) && took < Duration::from_secs(10),
        "{took:?}"
    );

    // A forced mate: the score says so, from White's view.
    let fen = "7k/6pp/8/8/8/8/8/R3K3 w - - 0 1";
    let resp = start(base, None, json!({ "fen": fen, "nodes": 200_000 })).await;
    let all = rest(&mut NdStream::of(resp)).await;
    let last_info = all.iter().rev().find(|v| v["type"] == "info").unwrap();
    assert_eq!(last_info["score"]["mate"], 1, "{last_info}");
    assert_eq!(last_info["san"][0], "Ra8#", "{last_info}");
}

#[tokio::test(flavor = "current_thread")]
async fn stop_and_disconnect_free_the_place_and_the_lane() {
    let Env { server, _dir } = fresh("live-analysis-stop");
    let base = server.base.clone();
    let ann = register(&base, "ann").await;
    let bob = register(&base, "bob").await;

    // Ann's stream runs (no budget given: the signed-in 30 s).
    let mut first = NdStream::of(start(&base, Some(&ann.token), json!({ "moves": MOVES })).await);
    let v = first.next().await.unwrap();
    assert_eq!(v["type"], "info", "{v}");

    // A second one of hers is refused while it runs, with the reason.
    let (s, v) = json_of(start(&base, Some(&ann.token), json!({})).await).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("already have a live analysis"),
        "{v}"
    );
    // Bob finds the analysis lane (one slot) taken: busy, after a short wait.
    let (s, v) = json_of(start(&base, Some(&bob.token), json!({})).await).await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
    assert!(v["error"].as_str().unwrap().contains("busy"), "{v}");
    // Bob has nothing to stop.
    let (s, v) = stop(&base, Some(&bob.token)).await;
    assert_eq!((s, &v), (StatusCode::OK, &json!({ "stopped": false })));

    // Ann stops: the answer comes once the search has ended.
    let asked = Instant::now();
    let (s, v) = stop(&base, Some(&ann.token)).await;
    assert_eq!((s, &v), (StatusCode::OK, &json!({ "stopped": true })));
    assert!(asked.elapsed() < Duration::from_secs(3));
    let tail = rest(&mut first).await;
    let done = tail.last().unwrap();
    assert_eq!(done["type"], "done", "{done}");
    assert_eq!(done["reason"], "stopped", "{done}");

    // Both places are free: Bob's stream starts now.
    let mut bobs = NdStream::of(start(&base, Some(&bob.token), json!({ "moves": MOVES })).await);
    assert_eq!(bobs.next().await.unwrap()["type"], "info");
    // Bob goes away without a word: the connection closes.
    drop(bobs);
    // The search notices within its keep-alive: Ann (and the lane) can go on.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let resp = start(&base, Some(&ann.token), json!({ "nodes": 50_000 })).await;
        if resp.status() == StatusCode::OK {
            let all = rest(&mut NdStream::of(resp)).await;
            assert_eq!(all.last().unwrap()["reason"], "nodes");
            break;
        }
        let (s, v) = json_of(resp).await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{v}");
        assert!(Instant::now() < deadline, "the lane stayed taken: {v}");
    }
    // And Bob's own place is free again too.
    let resp = start(&base, Some(&bob.token), json!({ "nodes": 50_000 })).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let all = rest(&mut NdStream::of(resp)).await;
    assert_eq!(all.last().unwrap()["type"], "done");
}

#[tokio::test(flavor = "current_thread")]
async fn bad_positions_moves_and_budgets_are_refused_with_the_reason() {
    let Env { server, _dir } = fresh("live-analysis-refusals");
    let base = &server.base;
    let cases = [
        (json!({ "fen": "not a fen" }), 400, "invalid fen"),
        (json!({ "variant": "shogi" }), 400, "variant"),
        (json!({ "moves": ["b1d2", "zz"] }), 400, "move 2"),
        (json!({ "moves": ["b1d2", "e2e4"] }), 422, "move 2"),
        (
            json!({ "fen": "7k/6pp/8/8/8/8/8/R3K3 w - - 0 1", "moves": ["a1a8"] }),
            422,
            "game is over",
        ),
        (json!({ "movetime": 0 }), 400, "movetime"),
        (json!({ "nodes": "many" }), 400, "nodes"),
        (json!({ "depth": 5 }), 400, "depth"),
    ];
    for (body, status, says) in cases {
        let (s, v) = json_of(start(base, None, body.clone()).await).await;
        assert_eq!(s.as_u16(), status, "{body}: {v}");
        let e = v["error"].as_str().unwrap_or_default();
        assert!(e.contains(says), "{body}: {v}");
    }
    // Nothing was left running: a good request proceeds at once.
    let resp = start(base, None, json!({ "nodes": 20_000 })).await;
    let all = rest(&mut NdStream::of(resp)).await;
    assert_eq!(all.last().unwrap()["type"], "done");
}
