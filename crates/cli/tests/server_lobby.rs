//! The lobby's open challenges, end to end: the real `chessmerge serve` on a
//! free port with a fresh database, over HTTP and the page's WebSocket only.
//! `GET /api/challenge/open` (the list), `GET /api/challenge/{id}/show`, and
//! the socket's `lobby` feed (live appear / accepted / canceled).

use crate::common::{
    Player, TIMEOUT, Ws, fresh, get_anonymous, http, json_of, register, ws_connect, ws_send,
};
use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

const MATE_FEN: &str = "7k/6pp/P7/2p5/8/8/8/R3K3 w - - 0 1";

// ---------------------------------------------------------------------------
// Helpers: lobby requests and the socket's lobby feed.

impl Player {
    /// Creates an open challenge; answers its id.
    async fn open(&self, params: Value) -> String {
        let (s, v) = self.post("/api/challenge/open", params).await;
        assert_eq!(s, StatusCode::OK, "open challenge: {v}");
        assert_eq!(v["kind"], "open");
        v["id"].as_str().unwrap().to_owned()
    }

    /// The ids and directions of `GET /api/challenge/open`.
    async fn lobby(&self) -> Vec<(String, String)> {
        let (s, v) = self.get("/api/challenge/open").await;
        assert_eq!(s, StatusCode::OK, "{v}");
        v["challenges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["id"].as_str().unwrap().to_owned(),
                    c["direction"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }
}

/// The next frame whose `t` is `t` (others, such as user events, are skipped).
async fn ws_next_of(ws: &mut Ws, t: &str) -> Value {
    loop {
        let msg = tokio::time::timeout(TIMEOUT, ws.next())
            .await
            .unwrap_or_else(|_| panic!("timed out waiting for a {t} frame"))
            .expect("socket closed")
            .unwrap();
        if let Message::Text(text) = msg {
            let v: Value = serde_json::from_str(&text).unwrap();
            if v["t"] == t {
                return v;
            }
        }
    }
}

/// Follows the lobby; answers the first frame, the list.
async fn follow_lobby(ws: &mut Ws) -> Vec<Value> {
    ws_send(ws, json!({"t": "lobby"})).await;
    let first = ws_next_of(ws, "lobby").await;
    assert_eq!(first["d"]["type"], "openChallenges", "{first}");
    first["d"]["challenges"].as_array().unwrap().clone()
}

fn pair(id: &str, dir: &str) -> (String, String) {
    (id.to_owned(), dir.to_owned())
}

// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_third_player_accepts_an_open_challenge_from_the_lobby() {
    let env = fresh("accept");
    let base = &env.server.base;
    let ann = register(base, "Ann").await;
    let ben = register(base, "ben").await;
    let cat = register(base, "cat").await;

    // Cat's page follows the lobby: nothing is open yet.
    let mut cat_ws = ws_connect(base, Some(&cat.cookie)).await;
    assert_eq!(ws_next_of(&mut cat_ws, "hello").await["user"]["id"], "cat");
    assert!(follow_lobby(&mut cat_ws).await.is_empty());

    // Ann opens one from a custom position (she plays black), Ben a plain one,
    // and Ann challenges Ben directly (not a lobby challenge).
    let a_id = ann
        .open(json!({ "color": "black", "fen": MATE_FEN, "variant": "chessmerge" }))
        .await;
    let ev = ws_next_of(&mut cat_ws, "lobby").await;
    assert_eq!(ev["d"]["type"], "challenge", "{ev}");
    let c = &ev["d"]["challenge"];
    assert_eq!(c["id"], a_id.as_str());
    assert_eq!(c["direction"], "in");
    assert_eq!(c["challenger"]["name"], "Ann");
    assert_eq!(c["initialFen"], MATE_FEN);
    assert_eq!(c["color"], "black");
    let b_id = ben.open(json!({ "variant": "fusion" })).await;
    let ev = ws_next_of(&mut cat_ws, "lobby").await;
    assert_eq!(
        (
            ev["d"]["type"].as_str(),
            ev["d"]["challenge"]["id"].as_str()
        ),
        (Some("challenge"), Some(b_id.as_str()))
    );
    let (s, v) = ann.post("/api/challenge/ben", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let direct = v["id"].as_str().unwrap().to_owned();

    // The list: open challenges only, newest first, yours marked "out".
    assert_eq!(ann.lobby().await, [pair(&b_id, "in"), pair(&a_id, "out")]);
    assert_eq!(cat.lobby().await, [pair(&b_id, "in"), pair(&a_id, "in")]);
    let (_, v) = cat.get("/api/challenge/open").await;
    let listed = &v["challenges"][1];
    assert_eq!(listed["status"], "created");
    assert_eq!(listed["kind"], "open");
    assert_eq!(listed["destUser"], Value::Null);
    assert_eq!(listed["variant"]["key"], "chessmerge");
    assert_eq!(listed["initialFen"], MATE_FEN);
    assert_eq!(listed["challenger"]["id"], "ann");
    assert_eq!(listed["url"], format!("{base}/{a_id}"));
    assert_eq!(v["challenges"][0]["variant"]["key"], "fusion");
    assert_eq!(v["challenges"][0]["initialFen"], Value::Null);
    // The same shape as GET /api/challenge, which Ann's own list still holds.
    let (_, mine) = ann.get("/api/challenge").await;
    let mine = mine["out"].as_array().unwrap();
    assert_eq!(mine.len(), 2);
    assert!(mine.iter().any(|c| c["id"] == direct.as_str()));
    let mut from_list = v["challenges"][1].clone();
    from_list["direction"] = json!("out");
    assert!(mine.contains(&from_list), "{from_list} not in {mine:?}");

    // A second lobby page sees both in its first list.
    let mut ben_ws = ws_connect(base, Some(&ben.cookie)).await;
    let first = follow_lobby(&mut ben_ws).await;
    let seen: Vec<(&str, &str)> = first
        .iter()
        .map(|c| (c["id"].as_str().unwrap(), c["direction"].as_str().unwrap()))
        .collect();
    assert_eq!(seen, [(b_id.as_str(), "out"), (a_id.as_str(), "in")]);

    // Cat accepts Ann's from the list: the game starts, the challenge leaves
    // every lobby, and a second acceptance is refused.
    let (s, v) = cat
        .post(&format!("/api/challenge/{a_id}/accept"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    for ws in [&mut cat_ws, &mut ben_ws] {
        let ev = ws_next_of(ws, "lobby").await;
        assert_eq!(ev["d"]["type"], "challengeAccepted", "{ev}");
        assert_eq!(ev["d"]["challenge"]["id"], a_id.as_str());
        assert_eq!(ev["d"]["challenge"]["status"], "accepted");
        assert_eq!(ev["d"]["challenge"]["destUser"]["id"], "cat");
    }
    assert_eq!(cat.lobby().await, [pair(&b_id, "in")]);
    let (s, _) = ben
        .post(&format!("/api/challenge/{a_id}/accept"), json!({}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    let (_, g) = cat.get(&format!("/api/game/{a_id}")).await;
    assert_eq!(g["white"]["id"], "cat");
    assert_eq!(g["black"]["id"], "ann");
    assert_eq!(g["status"], "started");
    let (s, v) = ann.get(&format!("/api/challenge/{a_id}/show")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["status"], "accepted");
    assert_eq!(v["destUser"]["id"], "cat");
    assert_eq!(v["direction"], "out");

    // Ben cancels his: it leaves the lobby too.
    let (s, v) = ben
        .post(&format!("/api/challenge/{b_id}/cancel"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    for ws in [&mut cat_ws, &mut ben_ws] {
        let ev = ws_next_of(ws, "lobby").await;
        assert_eq!(ev["d"]["type"], "challengeCanceled", "{ev}");
        assert_eq!(ev["d"]["challenge"]["id"], b_id.as_str());
    }
    assert!(cat.lobby().await.is_empty());
    assert!(ann.lobby().await.is_empty());
    let (_, v) = cat.get(&format!("/api/challenge/{b_id}/show")).await;
    assert_eq!(v["status"], "canceled");

    // Stopping and following again: a fresh list, then live changes again.
    // Messages are handled in order: the pong means the feed has stopped.
    ws_send(&mut cat_ws, json!({"t": "unlobby"})).await;
    ws_send(&mut cat_ws, json!({"t": "ping"})).await;
    ws_next_of(&mut cat_ws, "pong").await;
    let c_id = ann.open(json!({})).await;
    // The stopped feed sent nothing for it: the next lobby frame is the
    // list (follow_lobby checks its type), which holds it.
    let first = follow_lobby(&mut cat_ws).await;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["id"], c_id.as_str());
    let d_id = ben.open(json!({ "color": "white" })).await;
    let ev = ws_next_of(&mut cat_ws, "lobby").await;
    assert_eq!(ev["d"]["challenge"]["id"], d_id.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobby_limits_and_authorization() {
    let env = fresh("auth");
    let base = &env.server.base;
    let ann = register(base, "ann").await;
    let ben = register(base, "ben").await;
    let cat = register(base, "cat").await;

    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(ann.open(json!({})).await);
    }
    // nb limits the count (newest first); bad values are 400.
    let (s, v) = ben.get("/api/challenge/open?nb=2").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let got: Vec<&str> = v["challenges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(got, [ids[2].as_str(), ids[1].as_str()]);
    for bad in ["0", "-3", "lots"] {
        let (s, v) = ben.get(&format!("/api/challenge/open?nb={bad}")).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "nb={bad}: {v}");
        assert!(v["error"].is_string());
    }
    let (s, v) = ben.get("/api/challenge/open?nb=1000").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["challenges"].as_array().unwrap().len(), 3);

    // The list and show need authentication.
    for path in [
        "/api/challenge/open".to_owned(),
        format!("/api/challenge/{}/show", ids[0]),
    ] {
        let (s, v) = get_anonymous(base, &path).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{path}: {v}");
        let (s, _) = json_of(
            http()
                .get(format!("{base}{path}"))
                .bearer_auth("cmp_not_a_token")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{path} with a bad token");
    }
    // The session cookie works too (the page's way).
    let (s, v) = json_of(
        http()
            .get(format!("{base}/api/challenge/open"))
            .header("cookie", &cat.cookie)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["challenges"].as_array().unwrap().len(), 3);

    // Show: open challenges to anyone; a direct one to its two players only.
    let (s, v) = cat.get(&format!("/api/challenge/{}/show", ids[0])).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (v["direction"].as_str(), v["kind"].as_str()),
        (Some("in"), Some("open"))
    );
    let (s, v) = ann
        .post("/api/challenge/ben", json!({ "color": "white" }))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let direct = v["id"].as_str().unwrap().to_owned();
    let show = format!("/api/challenge/{direct}/show");
    let (s, v) = ann.get(&show).await;
    assert_eq!((s, v["direction"].as_str()), (StatusCode::OK, Some("out")));
    let (s, v) = ben.get(&show).await;
    assert_eq!((s, v["direction"].as_str()), (StatusCode::OK, Some("in")));
    assert_eq!(v["destUser"]["id"], "ben");
    let (s, v) = cat.get(&show).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    let (s, _) = cat.get("/api/challenge/zzzzzzzz/show").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(!ann.lobby().await.iter().any(|(id, _)| *id == direct));

    // Accepting or cancelling from the list follows the existing rules.
    let (s, _) = ann
        .post(&format!("/api/challenge/{}/accept", ids[0]), json!({}))
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "not your own");
    let (s, _) = cat
        .post(&format!("/api/challenge/{}/cancel", ids[0]), json!({}))
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "only its author cancels");
    assert_eq!(ann.lobby().await.len(), 3);

    // Other methods on the list's path.
    let (s, _) = json_of(
        http()
            .delete(format!("{base}/api/challenge/open"))
            .bearer_auth(&ann.token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED);

    // The socket's lobby feed needs a signed-in page.
    let mut anon = ws_connect(base, None).await;
    assert_eq!(ws_next_of(&mut anon, "hello").await["user"], Value::Null);
    ws_send(&mut anon, json!({"t": "lobby"})).await;
    let err = ws_next_of(&mut anon, "error").await;
    assert_eq!(err["status"], 401, "{err}");

    // Both routes are in the OpenAPI document.
    let (s, doc) = get_anonymous(base, "/api/openapi.json").await;
    assert_eq!(s, StatusCode::OK);
    let open = &doc["paths"]["/api/challenge/open"];
    assert!(
        open["get"].is_object() && open["post"].is_object(),
        "{open}"
    );
    assert!(doc["paths"]["/api/challenge/{id}/show"]["get"].is_object());
}
