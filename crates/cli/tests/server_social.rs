//! Issue 47: the game's chat live for its players and its spectators,
//! mutes and reports, spectators counted, the current games and a
//! player's imported games, against the real server.

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::common::*;

fn start(name: &str) -> (Server, TempDir) {
    let dir = TempDir::new(name);
    let server = Server::start(&dir.0.join("test.db"));
    (server, dir)
}

/// The next frame whose `t` is `t` and, for game events, whose `d.type` is
/// `kind` (others are skipped).
async fn next_frame(ws: &mut Ws, t: &str, kind: Option<&str>) -> Value {
    loop {
        let msg = tokio::time::timeout(TIMEOUT, ws.next())
            .await
            .unwrap_or_else(|_| panic!("timed out waiting for a {t} {kind:?} frame"))
            .expect("socket closed")
            .unwrap();
        if let Message::Text(text) = msg {
            let v: Value = serde_json::from_str(&text).unwrap();
            if v["t"] == t && kind.is_none_or(|k| v["d"]["type"] == k) {
                return v;
            }
        }
    }
}

/// Reads crowd frames until one says `n` spectators.
async fn crowd_reaches(ws: &mut Ws, n: u64) {
    let mut seen = Vec::new();
    let wait = async {
        loop {
            let v = next_frame(ws, "crowd", None).await;
            seen.push(v["spectators"].clone());
            if v["spectators"] == n {
                return;
            }
        }
    };
    if tokio::time::timeout(std::time::Duration::from_secs(20), wait)
        .await
        .is_err()
    {
        panic!("the spectators' count did not reach {n}: {seen:?}");
    }
}

/// A socket following game `id` (signed in with `cookie`, or not), past
/// its `gameFull`.
async fn follower(base: &str, cookie: Option<&str>, id: &str) -> Ws {
    let mut ws = ws_connect(base, cookie).await;
    ws_send(&mut ws, json!({"t": "sub", "id": id})).await;
    next_frame(&mut ws, "gameFull", None).await;
    ws
}

async fn say(p: &Player, id: &str, room: &str, text: &str) -> (StatusCode, Value) {
    p.post(
        &format!("/api/board/game/{id}/chat"),
        json!({"room": room, "text": text}),
    )
    .await
}

/// The lines of an ndjson answer, read.
async fn ndjson(base: &str, path: &str) -> Vec<Value> {
    let resp = http().get(format!("{base}{path}")).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK, "{path}");
    let text = resp.text().await.unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The texts of game `id`'s chat as `p` reads it.
async fn chat_texts(p: &Player, id: &str) -> Vec<String> {
    let (s, v) = p.get(&format!("/api/board/game/{id}/chat")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_reaches_its_readers_live_and_spectators_are_counted() {
    let (server, _dir) = start("social-chat");
    let base = &server.base;
    let alice = register(base, "alice").await;
    let bob = register(base, "bob").await;
    let carol = register(base, "carol").await;
    let id = accepted_game(&alice, &bob, json!({"color": "white"})).await;

    // The players follow on the socket and the board stream; carol and a
    // signed-out page watch.
    let mut alice_ws = follower(base, Some(&alice.cookie), &id).await;
    let mut bob_stream = bob.stream(&format!("/api/board/game/stream/{id}")).await;
    assert_eq!(bob_stream.next().await.unwrap()["type"], "gameFull");
    crowd_reaches(&mut alice_ws, 0).await;
    let mut carol_ws = follower(base, Some(&carol.cookie), &id).await;
    crowd_reaches(&mut alice_ws, 1).await;
    let mut anon_ws = follower(base, None, &id).await;
    crowd_reaches(&mut alice_ws, 2).await;
    crowd_reaches(&mut carol_ws, 2).await;

    // The players' room: alice's line reaches bob's stream and her own
    // socket, not the spectators.
    let (s, v) = say(&alice, &id, "player", "good luck").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let line = bob_stream.next_of("chatLine").await;
    assert_eq!(
        line,
        json!({"type": "chatLine", "username": "alice", "text": "good luck", "room": "player"})
    );
    let own = next_frame(&mut alice_ws, "gameState", Some("chatLine")).await;
    assert_eq!(own["d"]["text"], "good luck");
    // The spectators' room: carol's line reaches the spectators, not the
    // players while they play.
    let (s, v) = say(&carol, &id, "spectator", "go alice").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let heard = next_frame(&mut anon_ws, "gameState", Some("chatLine")).await;
    assert_eq!(
        (&heard["d"]["username"], &heard["d"]["room"]),
        (&json!("carol"), &json!("spectator"))
    );
    let (s, v) = alice.mv(&id, "e2e3").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    // The next event the players get is the move: the spectators' line
    // (a version between) was passed over.
    let next = next_frame(&mut alice_ws, "gameState", None).await;
    assert_eq!(next["d"]["type"], "gameState", "{next}");
    assert_eq!(next["d"]["moves"], "e2e3");
    let next = bob_stream.next().await.unwrap();
    assert_eq!(next["type"], "gameState", "{next}");
    // The carol's own line is on her socket; the players' line is not.
    let mine = next_frame(&mut carol_ws, "gameState", Some("chatLine")).await;
    assert_eq!(mine["d"]["text"], "go alice");
    assert_eq!(chat_texts(&carol, &id).await, ["go alice"]);
    assert_eq!(chat_texts(&alice, &id).await, ["good luck"]);
    let (s, v) = get_anonymous(base, &format!("/api/board/game/{id}/chat")).await;
    assert_eq!((s, v.as_array().unwrap().len()), (StatusCode::OK, 1), "{v}");

    // Who may write where.
    let (s, v) = say(&carol, &id, "player", "psst").await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("players' chat"),
        "{v}"
    );
    let guest_resp = http()
        .post(format!("{base}/api/account/guest"))
        .send()
        .await
        .unwrap();
    let guest_cookie = session_cookie(&guest_resp);
    let resp = http()
        .post(format!("{base}/api/board/game/{id}/chat"))
        .header("cookie", &guest_cookie)
        .header("origin", base.as_str())
        .header("sec-fetch-site", "same-origin")
        .json(&json!({"room": "spectator", "text": "hello"}))
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    assert!(v["error"].as_str().unwrap().contains("sign up"), "{v}");

    // Bob mutes carol: her lines are left out of what he reads.
    let (s, v) = bob.post_empty("/api/rel/mute/Carol").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, v) = bob.get("/api/rel/muting").await;
    assert_eq!(v, json!({"muting": ["carol"]}));
    for (who, status) in [
        ("bob", StatusCode::BAD_REQUEST),
        ("nobody", StatusCode::NOT_FOUND),
    ] {
        let (s, v) = bob.post_empty(&format!("/api/rel/mute/{who}")).await;
        assert_eq!(s, status, "{who}: {v}");
    }

    // The game ends: the players follow on, and read both rooms now.
    let (s, v) = alice
        .post_empty(&format!("/api/board/game/{id}/resign"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let end = next_frame(&mut alice_ws, "gameState", Some("gameState")).await;
    assert_eq!(end["d"]["status"], "resign", "{end}");
    assert_eq!(chat_texts(&alice, &id).await, ["good luck", "go alice"]);
    assert_eq!(chat_texts(&bob, &id).await, ["good luck"], "carol is muted");
    let (s, v) = say(&carol, &id, "spectator", "well played").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let after = next_frame(&mut alice_ws, "gameState", Some("chatLine")).await;
    assert_eq!(after["d"]["text"], "well played", "post-game chat is live");
    let (s, v) = bob.post_empty("/api/rel/unmute/carol").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        chat_texts(&bob, &id).await,
        ["good luck", "go alice", "well played"]
    );

    // A spectator who leaves is no longer counted.
    drop(anon_ws);
    crowd_reaches(&mut alice_ws, 1).await;
    drop(carol_ws);
    crowd_reaches(&mut alice_ws, 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_are_checked_capped_and_read_by_the_operator() {
    let (server, dir) = start("social-reports");
    let base = &server.base;
    let dan = register(base, "dan").await;
    let eve = register(base, "eve").await;
    let id = accepted_game(&dan, &eve, json!({})).await;
    let report = |reason: &str, user: &str, text: &str| json!({"username": user, "reason": reason, "text": text, "gameId": id});
    for (body, status, says) in [
        (
            report("rude", "eve", "x"),
            StatusCode::BAD_REQUEST,
            "invalid reason",
        ),
        (
            report("comm", "dan", "x"),
            StatusCode::BAD_REQUEST,
            "yourself",
        ),
        (
            report("comm", "nobody", "x"),
            StatusCode::NOT_FOUND,
            "no player",
        ),
        (
            report("comm", "eve", "  "),
            StatusCode::BAD_REQUEST,
            "empty",
        ),
        (
            json!({"username": "eve", "reason": "comm", "text": "x", "gameId": "zzzzzzzz"}),
            StatusCode::NOT_FOUND,
            "not found",
        ),
    ] {
        let (s, v) = dan.post("/api/report", body.clone()).await;
        assert_eq!(s, status, "{body}: {v}");
        assert!(v["error"].as_str().unwrap().contains(says), "{body}: {v}");
    }
    for n in 0..10 {
        let (s, v) = dan
            .post(
                "/api/report",
                report("comm", "eve", &format!("said: line {n}\nin the chat")),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{n}: {v}");
    }
    let (s, v) = dan
        .post("/api/report", report("comm", "eve", "one more"))
        .await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{v}");

    // The operator reads them, oldest first, and closes one.
    let user_cmd = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_chessmerge"))
            .arg("user")
            .arg("--database")
            .arg(database_arg(&dir.0.join("test.db")))
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, out, err) = user_cmd(&["reports"]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 10, "{out}");
    assert!(
        lines[0].ends_with(&format!(
            "dan reports eve (comm) in game {id}: said: line 0 / in the chat"
        )),
        "{out}"
    );
    let first: String = lines[0][1..].split(' ').next().unwrap().to_owned();
    let (ok, _, err) = user_cmd(&["reports", "--close", &first]);
    assert!(ok, "{err}");
    let (ok, _, err) = user_cmd(&["reports", "--close", &first]);
    assert!(!ok && err.contains("no open report"), "{err}");
    let (s, v) = dan
        .post("/api/report", report("other", "eve", "one more"))
        .await;
    assert_eq!(s, StatusCode::OK, "room again: {v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn current_games_are_the_best_rated_and_imports_are_listed() {
    let (server, _dir) = start("social-tv");
    let base = &server.base;
    let names = ["fay", "gus", "hal", "ida", "jon", "kim"];
    let mut p = Vec::new();
    for n in names {
        p.push(register(base, n).await);
    }
    // fay beats gus in a rated game: she is rated above everyone after.
    let rated = accepted_game(&p[0], &p[1], json!({"rated": true, "color": "white"})).await;
    let (s, v) = p[1]
        .post_empty(&format!("/api/board/game/{rated}/resign"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    // Three games under way: gus (the lowest) with hal, ida with jon, fay with kim.
    let low = accepted_game(&p[1], &p[2], json!({})).await;
    let middle = accepted_game(&p[3], &p[4], json!({})).await;
    let best = accepted_game(&p[0], &p[5], json!({"color": "black"})).await;
    let games = ndjson(base, "/api/tv/chessmerge?nb=3").await;
    let ids: Vec<&str> = games.iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [best.as_str(), &middle, &low], "{games:?}");
    let first = &games[0];
    assert_eq!(first["status"], "started");
    assert!(first["fen"].as_str().unwrap().contains(" w "), "{first}");
    assert!(
        first["players"]["black"]["rating"].as_i64().unwrap() > 1500,
        "a rated player's rating is shown while the game is played: {first}"
    );
    let (s, v) = get_anonymous(base, "/api/tv/channels").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["ChessMerge"]["gameId"], best.as_str(), "{v}");
    assert_eq!(v["ChessMerge"]["user"]["name"], "fay", "{v}");
    assert_eq!(v["ChessMerge"]["color"], "black", "{v}");
    assert!(v.get("Standard").is_none(), "no standard game: {v}");
    for bad in [
        "/api/tv/chessmerge?nb=0",
        "/api/tv/chessmerge?nb=31",
        "/api/tv/checkers",
    ] {
        let (s, v) = get_anonymous(base, bad).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {v}");
    }

    // Imports: listed for their importer, newest first.
    let pgn = "[White \"Ann Example\"]\n[Black \"Bo Sample\"]\n\n1. e4 e5 *";
    let (s, v) = p[2].post("/api/import", json!({"pgn": pgn})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let imported = v["id"].as_str().unwrap().to_owned();
    let lines = ndjson(base, "/api/games/imported/hal").await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["id"], imported.as_str());
    assert_eq!(lines[0]["source"], "import");
    assert_eq!(lines[0]["players"]["white"]["name"], "Ann Example");
    let (s, _) = get_anonymous(base, "/api/games/imported/nobody").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = get_anonymous(base, "/api/games/imported/hal?max=0").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    // An import is not a game under way to watch.
    let listed = ndjson(base, "/api/tv/chessmerge?nb=30").await;
    assert!(
        listed.iter().all(|g| g["id"] != imported.as_str()),
        "{listed:?}"
    );
}
