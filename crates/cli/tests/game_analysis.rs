//! A game's computer analysis end to end (`POST`/`GET /api/game/{id}/analysis`,
//! the exports): games with a known blunder in each merge variant (a missed
//! mate in one, a hanging pair), the mark and the better move; who may ask;
//! one analysis per player; progress on the game's live channel; the same
//! evaluations on a rerun. Real binary, real database (SQLite, or
//! PostgreSQL with `CHESSMERGE_TEST_BACKEND=postgres`).

use std::time::{Duration, Instant};

use crate::common::{
    Player, Server, TempDir, get_anonymous, register, ws_connect, ws_next, ws_send,
};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Small enough for a debug build, enough for these positions.
const NODES: &str = "20000";

fn start(name: &str) -> (Server, TempDir) {
    let dir = TempDir::new(name);
    let server = Server::start_with(&dir.0.join("test.db"), &["--analysis-nodes", NODES]);
    (server, dir)
}

/// White mates with Ra8#; Kf1 instead lets Black off.
const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
/// White's rook+knight pair takes the queen on b5 (as a rook); RNc3
/// instead puts the pair where the d4 pawn takes it.
const HANGING_PAIR: &str = "6k1/5ppp/8/1q6/3p4/8/5PPP/1(RN)4K1 w - - 0 1";

/// A finished game between `white` and `black` from `fen`: the moves, then
/// `resigner` resigns.
async fn finished_game(
    white: &Player,
    black: &Player,
    variant: &str,
    fen: &str,
    moves: &[&str],
) -> String {
    let (s, v) = white
        .post(
            &format!("/api/challenge/{}", black.name),
            json!({"variant": variant, "color": "white", "fen": fen}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["id"].as_str().unwrap().to_owned();
    let (s, v) = black
        .post_empty(&format!("/api/challenge/{id}/accept"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    for (i, m) in moves.iter().enumerate() {
        let p = if i.is_multiple_of(2) { white } else { black };
        let (s, v) = p.mv(&id, m).await;
        assert_eq!(s, StatusCode::OK, "{variant} move {m}: {v}");
    }
    let resigner = if moves.len().is_multiple_of(2) {
        white
    } else {
        black
    };
    let (s, v) = resigner
        .post_empty(&format!("/api/board/game/{id}/resign"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    id
}

/// Asks for the analysis and waits until it is stored; returns the view.
async fn analysed(p: &Player, id: &str) -> Value {
    let (s, v) = p.post_empty(&format!("/api/game/{id}/analysis")).await;
    assert!(
        s == StatusCode::ACCEPTED || s == StatusCode::OK,
        "request analysis of {id}: {s} {v}"
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (s, v) = p.get(&format!("/api/game/{id}/analysis")).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        if v["state"] == "done" {
            return v;
        }
        assert!(Instant::now() < deadline, "analysis of {id} not done: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn export_json(base: &str, id: &str) -> Value {
    let resp = reqwest::Client::new()
        .get(format!("{base}/game/export/{id}"))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    resp.json().await.unwrap()
}

async fn export_pgn(base: &str, id: &str) -> String {
    reqwest::get(format!("{base}/game/export/{id}"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missed_mate_in_one_and_a_hanging_pair_are_blunders_in_every_merge_variant() {
    let (server, _dir) = start("analysis-blunders");
    let base = &server.base;
    for variant in ["chessmerge", "chessplus", "fusion"] {
        let white = register(base, &format!("w{variant}")).await;
        let black = register(base, &format!("b{variant}")).await;

        // The missed mate: Kf1 instead of Ra8#.
        let id = finished_game(&white, &black, variant, MATE_IN_ONE, &["g1f1"]).await;
        let v = analysed(&white, &id).await;
        let first = &v["analysis"][0];
        assert_eq!(first["judgment"]["name"], "Blunder", "{variant}: {v}");
        assert_eq!(first["best"], "a1a8", "{variant}: {v}");
        assert_eq!(first["bestSan"], "Ra8#", "{variant}: {v}");
        assert_eq!(
            first["judgment"]["comment"], "Lost forced checkmate sequence. Ra8# was best.",
            "{variant}"
        );
        assert_eq!(v["summary"]["white"]["blunder"], 1, "{variant}: {v}");
        assert!(first["eval"].is_i64(), "after Kf1 no mate is left: {v}");

        // The same in the JSON export, lichess's shape.
        let e = export_json(base, &id).await;
        assert_eq!(e["analysis"].as_array().unwrap().len(), 1, "{e}");
        assert_eq!(e["analysis"][0]["best"], "a1a8");
        assert_eq!(e["analysis"][0]["judgment"]["name"], "Blunder");
        // And the PGN: the glyph, the evaluation, the comment.
        let pgn = export_pgn(base, &id).await;
        assert!(pgn.contains("1. Kf1?? { [%eval "), "{pgn}");
        assert!(
            pgn.contains("{ Lost forced checkmate sequence. Ra8# was best. }"),
            "{pgn}"
        );

        // The hanging pair: RNc3 (as a knight) where the d4 pawn takes it,
        // instead of taking the queen on b5 (as a rook).
        let id = finished_game(&white, &black, variant, HANGING_PAIR, &["b1c3", "d4c3"]).await;
        let v = analysed(&black, &id).await;
        let first = &v["analysis"][0];
        assert_eq!(first["judgment"]["name"], "Blunder", "{variant}: {v}");
        let best = first["best"].as_str().unwrap();
        assert!(
            best.ends_with("b1b5"),
            "{variant}: the better move takes the queen: {v}"
        );
        assert!(
            first["judgment"]["comment"]
                .as_str()
                .unwrap()
                .starts_with("Blunder. "),
            "{v}"
        );
        // White was winning before the blunder, losing after it.
        let evals: Vec<i64> = v["analysis"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["eval"].as_i64().unwrap())
            .collect();
        assert!(
            evals[0] < -300,
            "{variant}: after RNc3 Black is winning: {v}"
        );
        // Black's recapture is no mistake.
        assert!(v["analysis"][1].get("judgment").is_none(), "{variant}: {v}");
        assert_eq!(v["summary"]["black"]["blunder"], 0);
        assert!(
            v["summary"]["white"]["accuracy"].as_u64().unwrap() < 50,
            "{v}"
        );
        let pgn = export_pgn(base, &id).await;
        assert!(pgn.contains("1. RNc3?? { [%eval -"), "{variant}: {pgn}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_may_ask_one_at_a_time_progress_live_and_the_same_result_twice() {
    let (server, _dir) = start("analysis-rules");
    let base = &server.base;
    let alice = register(base, "alice").await;
    let bob = register(base, "bob").await;
    let carol = register(base, "carol").await;

    // A game still being played cannot be analysed; nobody signed out may ask.
    let (s, v) = alice
        .post(
            "/api/challenge/bob",
            json!({"variant": "chessmerge", "color": "white", "fen": MATE_IN_ONE}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let ongoing = v["id"].as_str().unwrap().to_owned();
    bob.post_empty(&format!("/api/challenge/{ongoing}/accept"))
        .await;
    let (s, v) = alice
        .post_empty(&format!("/api/game/{ongoing}/analysis"))
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("still being played"),
        "{v}"
    );
    let (s, v) = get_anonymous(base, &format!("/api/game/{ongoing}/analysis")).await;
    assert_eq!(s, StatusCode::OK, "anyone may read positions: {v}");
    assert_eq!(v["state"], "none");
    assert_eq!(v["canRequest"], false);
    assert_eq!(v["positions"][0]["fen"], MATE_IN_ONE);
    let (s, _) = json_post_anonymous(base, &format!("/api/game/{ongoing}/analysis")).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, _) = alice.post_empty("/api/game/nosuchid/analysis").await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // A longer finished game, followed on the WebSocket from its last version.
    let line = [
        "a1a2", "g8h8", "a2a3", "h8g8", "a3a4", "g8h8", "a4a5", "h8g8",
    ];
    let id = finished_game(&alice, &bob, "chessmerge", MATE_IN_ONE, &line).await;
    let (_, g) = alice.get(&format!("/api/game/{id}")).await;
    let version = g["version"].as_i64().unwrap();
    let mut ws = ws_connect(base, Some(&alice.cookie)).await;
    let hello = ws_next(&mut ws).await;
    assert_eq!(hello["t"], "hello", "{hello}");
    // Carol, who does not play in it, asks (games are public).
    let (s, v) = carol.post_empty(&format!("/api/game/{id}/analysis")).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    assert!(v["state"] == "queued" || v["state"] == "running", "{v}");
    assert_eq!(v["progress"]["total"], line.len() + 1);
    // Carol's second request, for another game, waits for her first.
    let other = finished_game(&alice, &bob, "chessmerge", MATE_IN_ONE, &["g1f1"]).await;
    let (s, v) = carol
        .post_empty(&format!("/api/game/{other}/analysis"))
        .await;
    if s != StatusCode::OK {
        // (unless her first was done already, then it is queued)
        assert!(
            s == StatusCode::TOO_MANY_REQUESTS || s == StatusCode::ACCEPTED,
            "{s} {v}"
        );
        if s == StatusCode::TOO_MANY_REQUESTS {
            assert!(
                v["error"]
                    .as_str()
                    .unwrap()
                    .contains("already have an analysis"),
                "{v}"
            );
        }
    }

    ws_send(&mut ws, json!({"t": "sub", "id": id, "v": version})).await;
    let mut done = Vec::new();
    loop {
        let f = match tokio::time::timeout(Duration::from_secs(20), ws_next(&mut ws)).await {
            Ok(f) => f,
            Err(_) => {
                let (_, a) = get_anonymous(base, &format!("/api/game/{id}/analysis")).await;
                panic!(
                    "no frame: state {} {}; log:\n{}",
                    a["state"],
                    a["progress"],
                    server.log_text()
                );
            }
        };
        if f["id"] != id.as_str() {
            continue;
        }
        assert_eq!(f["t"], "gameState", "{f}");
        assert_eq!(
            f["v"].as_i64().unwrap(),
            version + 1 + done.len() as i64,
            "in order: {f}"
        );
        match f["d"]["type"].as_str() {
            Some("analysisProgress") => {
                assert_eq!(f["d"]["total"], line.len() + 1);
                done.push(f["d"]["done"].as_u64().unwrap());
            }
            Some("analysisComplete") => break,
            other => panic!("unexpected {other:?}: {f}"),
        }
    }
    assert_eq!(done.first(), Some(&0), "queued first: {done:?}");
    assert!(done.windows(2).all(|w| w[0] < w[1]), "{done:?}");
    assert!(done.len() >= 2, "progress along the way: {done:?}");

    // Stored: a second request, or a visit, has it at once.
    let (s, v) = bob.post_empty(&format!("/api/game/{id}/analysis")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["state"], "done");
    assert_eq!(v["analysis"].as_array().unwrap().len(), line.len());
    assert_eq!(v["nodesPerPosition"], 20000);
    let (_, first) = get_anonymous(base, &format!("/api/game/{id}/analysis")).await;
    assert_eq!(first["analysis"], v["analysis"]);

    // The same game again (another id): the same evaluations.
    let again = finished_game(&alice, &bob, "chessmerge", MATE_IN_ONE, &line).await;
    let w = analysed(&alice, &again).await;
    assert_eq!(
        w["analysis"], v["analysis"],
        "same build, same budget, same result"
    );
    assert_eq!(
        w["summary"]["white"]["accuracy"],
        v["summary"]["white"]["accuracy"]
    );
}

async fn json_post_anonymous(base: &str, path: &str) -> (StatusCode, Value) {
    let resp = reqwest::Client::new()
        .post(format!("{base}{path}"))
        .send()
        .await
        .unwrap();
    let s = resp.status();
    (s, resp.json().await.unwrap_or(Value::Null))
}
