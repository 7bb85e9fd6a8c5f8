//! End-to-end tests of `chessmerge serve`: each test starts the real binary
//! on a free port with a fresh database and talks to it over HTTP and
//! WebSocket only. Moves are constructed with the real rules crate.

use crate::common::{
    Player, Server, TempDir, fresh, get_anonymous, http, json_of, login_cookie, register,
    ws_connect, ws_next, ws_send,
};
use chessmerge_rules::{Game, Position, Variant};
use reqwest::StatusCode;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// Helpers

async fn challenge(from: &Player, to: &Player, params: Value) -> String {
    let (s, v) = from
        .post(&format!("/api/challenge/{}", to.name), params)
        .await;
    assert_eq!(s, StatusCode::OK, "challenge: {v}");
    assert_eq!(v["status"], "created");
    v["id"].as_str().unwrap().to_owned()
}

/// Two players and a started game, `white` playing white.
async fn started_game(base: &str, params: Value) -> (Player, Player, String) {
    let white = register(base, "Wanda").await;
    let black = register(base, "Boris").await;
    let mut params = params;
    params["color"] = json!("white");
    let id = challenge(&white, &black, params).await;
    let (s, v) = black
        .post_empty(&format!("/api/challenge/{id}/accept"))
        .await;
    assert_eq!(s, StatusCode::OK, "accept: {v}");
    (white, black, id)
}

/// Plays `moves` alternately, starting with `first`, checking each answer.
async fn play_all(first: &Player, second: &Player, id: &str, moves: &[&str]) {
    for (i, m) in moves.iter().enumerate() {
        let p = if i % 2 == 0 { first } else { second };
        let (s, v) = p.mv(id, m).await;
        assert_eq!(s, StatusCode::OK, "move {m}: {v}");
    }
}

/// Checks a line with the rules crate and returns it as strings.
fn checked_line(variant: Variant, fen: &str, moves: &[&str]) -> Game {
    let start = Position::from_fen(variant, fen).unwrap();
    Game::from_uci_moves(start, moves.iter().copied()).unwrap()
}

// ---------------------------------------------------------------------------
// The main game: merge, split, merge again, pair promotion with mate.

const MATE_FEN: &str = "7k/6pp/P7/2p5/8/8/8/R3K3 w - - 0 1";
const MATE_LINE: [&str; 7] = ["a1a6", "c5c4", "Pa6a7", "c4c3", "a6a7", "c3c2", "a7a8q"];

#[test]
fn the_mate_line_has_a_merge_a_split_and_a_pair_promotion() {
    let start = Position::from_fen(Variant::ChessMerge, MATE_FEN).unwrap();
    let mut pos = start;
    let mut kinds = Vec::new();
    for text in MATE_LINE {
        let m = pos.parse_uci(text).unwrap();
        let mover = pos.moving_unit(m).unwrap();
        kinds.push((
            pos.is_merge(m),
            m.split().is_some(),
            mover.is_pair() && m.promotion().is_some(),
        ));
        pos = pos.play(m).unwrap();
    }
    assert!(kinds[0].0, "a1a6 merges the rook onto the pawn");
    assert!(kinds[2].1, "Pa6a7 splits the pawn away");
    assert!(kinds[4].0, "a6a7 merges again");
    assert!(kinds[6].2, "a7a8q promotes the pair");
    let g = checked_line(Variant::ChessMerge, MATE_FEN, &MATE_LINE);
    assert_eq!(g.outcome().unwrap().status(), "mate");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chessmerge_game_to_mate_seen_in_order_by_both_streams_and_exported() {
    let env = fresh("mate");
    let base = &env.server.base;
    let alice = register(base, "Alice").await;
    let bob = register(base, "bob").await;
    let mut alice_events = alice.stream("/api/stream/event").await;
    let mut bob_events = bob.stream("/api/stream/event").await;

    let id = challenge(
        &alice,
        &bob,
        json!({ "color": "white", "fen": MATE_FEN, "variant": "chessmerge" }),
    )
    .await;
    let ev = bob_events.next_of("challenge").await;
    assert_eq!(ev["challenge"]["id"], id.as_str());
    assert_eq!(ev["challenge"]["challenger"]["name"], "Alice");
    let (s, v) = bob.get("/api/challenge").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["in"][0]["id"], id.as_str());
    assert_eq!(v["in"][0]["initialFen"], MATE_FEN);

    let (s, v) = bob.post_empty(&format!("/api/challenge/{id}/accept")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    for events in [&mut alice_events, &mut bob_events] {
        let ev = events.next_of("gameStart").await;
        assert_eq!(ev["game"]["gameId"], id.as_str());
    }

    let mut streams = [
        alice.stream(&format!("/api/board/game/stream/{id}")).await,
        bob.stream(&format!("/api/board/game/stream/{id}")).await,
    ];
    for s in &mut streams {
        let full = s.next().await.unwrap();
        assert_eq!(full["type"], "gameFull");
        assert_eq!(full["id"], id.as_str());
        assert_eq!(full["initialFen"], MATE_FEN);
        assert_eq!(full["white"]["name"], "Alice");
        assert_eq!(full["black"]["name"], "bob");
        assert_eq!(full["variant"]["key"], "chessmerge");
        assert_eq!(full["state"]["status"], "started");
    }

    let (_, playing) = alice.get("/api/account/playing").await;
    assert_eq!(playing["nowPlaying"][0]["isMyTurn"], true);
    let (_, playing) = bob.get("/api/account/playing").await;
    assert_eq!(playing["nowPlaying"][0]["isMyTurn"], false);

    let expected = checked_line(Variant::ChessMerge, MATE_FEN, &MATE_LINE);
    for (i, m) in MATE_LINE.iter().enumerate() {
        let p = if i % 2 == 0 { &alice } else { &bob };
        let (s, v) = p.mv(&id, m).await;
        assert_eq!(s, StatusCode::OK, "move {m}: {v}");
        for s in &mut streams {
            let st = s.next().await.unwrap();
            assert_eq!(st["type"], "gameState");
            assert_eq!(st["moves"], MATE_LINE[..=i].join(" "));
            assert_eq!(st["ply"], i as i64 + 1);
            assert_eq!(st["version"], i as i64 + 2);
            assert_eq!(st["fen"], expected.positions()[i + 1].fen());
        }
    }
    for s in &mut streams {
        // The finishing state was the last line; the stream then ends.
        assert!(s.next().await.is_none(), "stream ends after the game");
    }
    let (_, g) = alice.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["status"], "mate");
    assert_eq!(g["winner"], "white");
    assert_eq!(g["check"], true);
    assert_eq!(g["legalMoves"], json!([]));
    assert_eq!(g["you"], "white");
    assert_eq!(g["san"].as_array().unwrap().len(), 7);
    for events in [&mut alice_events, &mut bob_events] {
        let ev = events.next_of("gameFinish").await;
        assert_eq!(ev["game"]["status"]["name"], "mate");
        assert_eq!(ev["game"]["winner"], "white");
    }

    // JSON export.
    let resp = http()
        .get(format!("{base}/game/export/{id}"))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["id"], id.as_str());
    assert_eq!(v["variant"], "chessmerge");
    assert_eq!(v["initialFen"], MATE_FEN);
    assert_eq!(v["moves"], MATE_LINE.join(" "));
    assert_eq!(v["status"], "mate");
    assert_eq!(v["winner"], "white");
    assert_eq!(v["players"]["white"]["user"]["name"], "Alice");
    assert_eq!(v["fen"], expected.position().fen());

    // PGN export reads back into the rules engine as the same game.
    let resp = http()
        .get(format!("{base}/game/export/{id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .contains("pgn")
    );
    let pgn = resp.text().await.unwrap();
    let read = chessmerge_rules::pgn::read(&pgn).unwrap();
    assert_eq!(read.result, "1-0");
    assert_eq!(read.tag("White"), Some("Alice"));
    assert_eq!(read.game.start().fen(), MATE_FEN);
    let uci: Vec<String> = read.game.moves().iter().map(|m| m.to_string()).collect();
    assert_eq!(uci, MATE_LINE);

    // The finished game is listed for both players.
    for name in ["alice", "BOB"] {
        let resp = http()
            .get(format!("{base}/api/games/user/{name}"))
            .header("accept", "application/x-ndjson")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        let body = resp.text().await.unwrap();
        let lines: Vec<Value> = body
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0]["id"], id.as_str());
    }
}

// ---------------------------------------------------------------------------
// Other endings

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalemate_resignation_agreed_draw_and_abort() {
    let env = fresh("endings");
    let base = &env.server.base;
    let (w, b, id) = started_game(base, json!({ "fen": "7k/8/6Q1/8/8/8/8/K7 w - - 0 1" })).await;
    play_all(&w, &b, &id, &["g6f7"]).await;
    let (_, g) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(
        (g["status"].as_str(), g["winner"].as_str()),
        (Some("stalemate"), None)
    );
    let (s, _) = b.mv(&id, "h8g8").await;
    assert_eq!(s, StatusCode::CONFLICT, "no move after the end");

    // Resignation.
    let id = challenge(&w, &b, json!({ "color": "black" })).await;
    b.post_empty(&format!("/api/challenge/{id}/accept")).await;
    play_all(&b, &w, &id, &["e2e3", "e7e6"]).await;
    let (s, v) = w.post_empty(&format!("/api/board/game/{id}/resign")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, g) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(
        (g["status"].as_str(), g["winner"].as_str()),
        (Some("resign"), Some("white"))
    );
    let (s, _) = w.post_empty(&format!("/api/board/game/{id}/resign")).await;
    assert_eq!(s, StatusCode::CONFLICT);

    // Agreed draw: an offer, a decline, a new offer (the other side's: one
    // offer per side and move), an acceptance.
    let id = challenge(&w, &b, json!({ "color": "white" })).await;
    b.post_empty(&format!("/api/challenge/{id}/accept")).await;
    let mut stream = w.stream(&format!("/api/board/game/stream/{id}")).await;
    stream.next_of("gameFull").await;
    play_all(&w, &b, &id, &["e2e3", "e7e6"]).await;
    w.post_empty(&format!("/api/board/game/{id}/draw/yes"))
        .await;
    b.post_empty(&format!("/api/board/game/{id}/draw/no")).await;
    b.post_empty(&format!("/api/board/game/{id}/draw/yes"))
        .await;
    let (s, v) = w
        .post_empty(&format!("/api/board/game/{id}/draw/yes"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let mut seen = Vec::new();
    while let Some(st) = stream.next().await {
        seen.push((
            st["wdraw"].as_bool().unwrap(),
            st["bdraw"].as_bool().unwrap(),
            st["status"].as_str().unwrap().to_owned(),
        ));
    }
    assert_eq!(
        seen,
        [
            (false, false, "started".into()),
            (false, false, "started".into()),
            (true, false, "started".into()),
            (false, false, "started".into()),
            (false, true, "started".into()),
            (false, false, "draw".into()),
        ]
    );

    // Abort: allowed before both sides have moved, not after.
    let id = challenge(&w, &b, json!({ "color": "white" })).await;
    b.post_empty(&format!("/api/challenge/{id}/accept")).await;
    play_all(&w, &b, &id, &["e2e3"]).await;
    let (s, v) = b.post_empty(&format!("/api/board/game/{id}/abort")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, g) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["status"], "aborted");
    let id = challenge(&w, &b, json!({ "color": "white" })).await;
    b.post_empty(&format!("/api/challenge/{id}/accept")).await;
    play_all(&w, &b, &id, &["e2e3", "e7e6"]).await;
    let (s, _) = w.post_empty(&format!("/api/board/game/{id}/abort")).await;
    assert_eq!(s, StatusCode::CONFLICT);

    // Finished games, newest first.
    let (s, v) = w.get("/api/games/user/wanda").await;
    assert_eq!(s, StatusCode::OK);
    assert!(v.is_object(), "PGN by default, not JSON: {v}");
    let resp = http()
        .get(format!("{base}/api/games/user/wanda"))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    let (_, list) = json_of(resp).await;
    let statuses: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["aborted", "draw", "resign", "stalemate"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenges_open_decline_cancel() {
    let env = fresh("challenges");
    let base = &env.server.base;
    let a = register(base, "ann").await;
    let b = register(base, "ben").await;
    let c = register(base, "cat").await;

    // Open challenge: anyone but its author may accept.
    let (s, v) = a
        .post(
            "/api/challenge/open",
            json!({ "variant": "chessplus", "color": "black" }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["destUser"], Value::Null);
    let id = v["id"].as_str().unwrap().to_owned();
    let (s, _) = a.post_empty(&format!("/api/challenge/{id}/accept")).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, v) = c.post_empty(&format!("/api/challenge/{id}/accept")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, _) = b.post_empty(&format!("/api/challenge/{id}/accept")).await;
    assert_eq!(s, StatusCode::CONFLICT, "accepted once only");
    let (_, g) = a.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["white"]["id"], "cat");
    assert_eq!(g["black"]["id"], "ann");
    assert_eq!(g["variant"]["key"], "chessplus");

    // Decline, with a reason; only the challenged player may.
    let mut a_events = a.stream("/api/stream/event").await;
    let id = challenge(&a, &b, json!({})).await;
    let (s, _) = a
        .post(&format!("/api/challenge/{id}/decline"), json!({}))
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = c
        .post(&format!("/api/challenge/{id}/decline"), json!({}))
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = b
        .post(
            &format!("/api/challenge/{id}/decline"),
            json!({"reason": "nonsense"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _) = b
        .post(
            &format!("/api/challenge/{id}/decline"),
            json!({"reason": "later"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let ev = a_events.next_of("challengeDeclined").await;
    assert_eq!(ev["challenge"]["id"], id.as_str());
    assert_eq!(ev["challenge"]["declineReasonKey"], "later");
    let (s, _) = b.post_empty(&format!("/api/challenge/{id}/accept")).await;
    assert_eq!(s, StatusCode::CONFLICT);

    // Cancel; only the challenger may. Form-encoded bodies work too.
    let resp = a
        .client
        .post(format!("{base}/api/challenge/ben"))
        .bearer_auth(&a.token)
        .form(&[("color", "white"), ("variant", "fusion")])
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["variant"]["key"], "fusion");
    let id = v["id"].as_str().unwrap().to_owned();
    let (s, _) = b.post_empty(&format!("/api/challenge/{id}/cancel")).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = a.post_empty(&format!("/api/challenge/{id}/cancel")).await;
    assert_eq!(s, StatusCode::OK);
    let ev = a_events.next_of("challengeCanceled").await;
    assert_eq!(ev["challenge"]["id"], id.as_str());
    let (_, list) = b.get("/api/challenge").await;
    assert_eq!(list["in"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chessplus_and_fusion_games() {
    let env = fresh("variants");
    let base = &env.server.base;
    let (w, b, id) = started_game(base, json!({ "variant": "chessplus" })).await;
    // Two-square steps exist in Chessplus; a knight merges onto a pawn.
    let line = ["e2e4", "d7d5", "e4d5", "g8e7", "b1d2"];
    let expected = checked_line(Variant::Chessplus, chessmerge_rules::START_FEN, &line);
    play_all(&w, &b, &id, &line).await;
    let (s, v) = w.mv(&id, "d2d4").await;
    assert_eq!(s, StatusCode::CONFLICT, "not white's turn: {v}");
    let (_, g) = b.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["moves"].as_array().unwrap().len(), 5);
    assert_eq!(g["fen"], expected.position().fen());
    assert!(g["fen"].as_str().unwrap().contains("(NP)"), "{}", g["fen"]);
    // Black's knight may split away from its pawn.
    let legal = g["legalMoves"].as_array().unwrap();
    assert!(legal.iter().any(|m| m["uci"] == "Ne7c6"), "{legal:?}");
    let (s, v) = b.mv(&id, "Ne7c6").await;
    assert_eq!(s, StatusCode::OK, "{v}");

    let id = challenge(&w, &b, json!({ "variant": "fusion", "color": "white" })).await;
    b.post_empty(&format!("/api/challenge/{id}/accept")).await;
    // The queen (a compound) splits: its bishop leaves d1 once e2 is clear.
    let line = ["e2e4", "e7e5", "Bd1h5"];
    checked_line(Variant::Fusion, chessmerge_rules::START_FEN, &line);
    play_all(&w, &b, &id, &line).await;
    b.post_empty(&format!("/api/board/game/{id}/resign")).await;
    let pgn = http()
        .get(format!("{base}/game/export/{id}"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let read = chessmerge_rules::pgn::read(&pgn).unwrap();
    assert_eq!(read.game.variant(), Variant::Fusion);
    assert_eq!(read.result, "1-0");
    assert_eq!(
        read.game
            .moves()
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>(),
        line
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_against_the_computer() {
    let env = fresh("ai");
    let base = &env.server.base;
    let p = register(base, "human").await;
    let (s, g) = p
        .post("/api/challenge/ai", json!({ "level": 1, "color": "black" }))
        .await;
    assert_eq!(s, StatusCode::OK, "{g}");
    let id = g["id"].as_str().unwrap().to_owned();
    assert_eq!(g["white"]["aiLevel"], 1);
    assert_eq!(g["you"], "black");
    let mut stream = p.stream(&format!("/api/board/game/stream/{id}")).await;
    let full = stream.next_of("gameFull").await;
    let mut ply = full["state"]["ply"].as_i64().unwrap();
    // The computer (white) moves first; then we answer each of its moves.
    for _ in 0..3 {
        while ply % 2 == 0 {
            let st = stream.next_of("gameState").await;
            ply = st["ply"].as_i64().unwrap();
            assert_eq!(st["status"], "started");
        }
        let (_, g) = p.get(&format!("/api/game/{id}")).await;
        let reply = g["legalMoves"][0]["uci"].as_str().unwrap().to_owned();
        let (s, v) = p.mv(&id, &reply).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let st = stream.next_of("gameState").await;
        ply = st["ply"].as_i64().unwrap();
    }
    let (s, v) = p.post_empty(&format!("/api/board/game/{id}/resign")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, _) = p.post("/api/challenge/ai", json!({ "level": 9 })).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _) = p.post("/api/challenge/ai", json!({})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
}

// ---------------------------------------------------------------------------
// Durability and concurrency

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_mid_game_loses_nothing_accepted() {
    let dir = TempDir::new("kill");
    let db = dir.0.join("test.db");
    let mut server = Server::start(&db);
    let base = server.base.clone();
    let (w, b, id) = started_game(&base, json!({ "fen": MATE_FEN })).await;
    let pending = challenge(&w, &b, json!({ "variant": "fusion" })).await;
    // Every move the server acknowledged before the kill must survive it.
    play_all(&w, &b, &id, &MATE_LINE[..5]).await;
    server.kill9();

    let server = Server::start(&db);
    let base = server.base.clone();
    let w = Player {
        base: base.clone(),
        ..w
    };
    let b = Player {
        base: base.clone(),
        ..b
    };
    let (s, g) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(s, StatusCode::OK, "{g}\n{}", server.log_text());
    assert_eq!(g["moves"], json!(MATE_LINE[..5]));
    assert_eq!(g["status"], "started");
    let (_, list) = b.get("/api/challenge").await;
    assert_eq!(
        list["in"][0]["id"],
        pending.as_str(),
        "the pending challenge survived"
    );
    // The accounts and tokens survived too; the game goes on to mate.
    play_all(&b, &w, &id, &MATE_LINE[5..]).await;
    let (_, g) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["status"], "mate");
    let (s, _) = http()
        .post(format!("{base}/api/account/login"))
        .json(&json!({"username": "wanda", "password": "correct horse"}))
        .send()
        .await
        .map(|r| (r.status(), ()))
        .unwrap();
    assert_eq!(s, StatusCode::OK);
}

/// The session cookie is `Secure` exactly when the public URL is https
/// (behind a TLS proxy), and always HttpOnly and SameSite=Lax.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_cookie_is_secure_behind_https() {
    let dir = TempDir::new("secure");
    for (public, secure) in [
        ("https://chess.example", true),
        ("http://chess.example", false),
    ] {
        let server = Server::start_with(
            &dir.0.join(format!("{secure}.db")),
            &["--public-url", public],
        );
        let resp = http()
            .post(format!("{}/api/account/register", server.base))
            .json(&json!({ "username": "sam", "password": "correct horse" }))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        let cookie = resp.headers()["set-cookie"].to_str().unwrap().to_owned();
        assert!(cookie.contains("; HttpOnly"), "{cookie}");
        assert!(cookie.contains("; SameSite=Lax"), "{cookie}");
        assert_eq!(cookie.contains("; Secure"), secure, "{public}: {cookie}");
    }
}

/// A server killed while the computer is to move (here: while it waits
/// out its minimum thinking time, so the window is certain) plays the
/// computer's move after the restart, and the human's accepted move stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_resumes_the_computers_turn() {
    let dir = TempDir::new("ai-restart");
    let db = dir.0.join("test.db");
    let mut server = Server::start_with(&db, &["--computer-min-think-ms", "600000"]);
    let p = register(&server.base, "hal").await;
    let (s, g) = p
        .post("/api/challenge/ai", json!({ "level": 1, "color": "white" }))
        .await;
    assert_eq!(s, StatusCode::OK, "{g}");
    let id = g["id"].as_str().unwrap().to_owned();
    let (s, v) = p.mv(&id, "e2e3").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let (_, g) = p.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["moves"], json!(["e2e3"]), "the computer waits");
    server.kill9();

    let server = Server::start(&db);
    let p = Player {
        base: server.base.clone(),
        ..p
    };
    let mut stream = p.stream(&format!("/api/board/game/stream/{id}")).await;
    let full = stream.next_of("gameFull").await;
    let mut ply = full["state"]["ply"].as_i64().unwrap();
    while ply < 2 {
        let st = stream.next_of("gameState").await;
        ply = st["ply"].as_i64().unwrap();
    }
    let (_, g) = p.get(&format!("/api/game/{id}")).await;
    let moves = g["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2, "{g}\n{}", server.log_text());
    assert_eq!(moves[0], "e2e3");
    assert_eq!(g["status"], "started");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_moves_at_once_exactly_one_is_accepted() {
    let env = fresh("race");
    let base = &env.server.base;
    let (w, b, id) = started_game(base, json!({})).await;
    // Several rounds: the player to move sends two moves at once (from two
    // connections): two different ones, or the same one twice.
    let rounds = [
        (&w, "e2e3", "d2d3"),
        (&b, "e7e6", "e7e6"),
        (&w, "g1f3", "b1c3"),
        (&b, "g8f6", "b8c6"),
        (&w, "f1e2", "f1e2"),
        (&b, "f8e7", "d7d6"),
    ];
    let other = Player {
        client: http(),
        ..w.clone()
    };
    let other_b = Player {
        client: http(),
        ..b.clone()
    };
    for (round, (p, m1, m2)) in rounds.iter().enumerate() {
        let p2 = if p.name == w.name { &other } else { &other_b };
        let (r1, r2) = tokio::join!(p.mv(&id, m1), p2.mv(&id, m2));
        let oks = [&r1, &r2].iter().filter(|r| r.0 == StatusCode::OK).count();
        assert_eq!(oks, 1, "round {round}: {r1:?} {r2:?}");
        for r in [&r1, &r2] {
            assert!(
                r.0 == StatusCode::OK || r.0 == StatusCode::CONFLICT,
                "{r:?}"
            );
        }
        let (_, g) = w.get(&format!("/api/game/{id}")).await;
        assert_eq!(g["ply"], round as i64 + 1);
    }
    // The stored history is consistent: replaying it with the rules works.
    let (_, g) = w.get(&format!("/api/game/{id}")).await;
    let moves: Vec<&str> = g["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let replay = checked_line(Variant::ChessMerge, chessmerge_rules::START_FEN, &moves);
    assert_eq!(replay.position().fen(), g["fen"].as_str().unwrap());
}

// ---------------------------------------------------------------------------
// WebSocket

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_replays_what_a_reconnecting_client_missed() {
    let env = fresh("ws");
    let base = &env.server.base;
    let (w, b, id) = started_game(base, json!({ "fen": MATE_FEN })).await;
    let cookie = login_cookie(base, "Wanda").await;

    let mut ws = ws_connect(base, Some(&cookie)).await;
    let hello = ws_next(&mut ws).await;
    assert_eq!(hello["t"], "hello");
    assert_eq!(hello["user"]["name"], "Wanda");
    ws_send(&mut ws, json!({"t": "sub", "id": id})).await;
    let mut full;
    loop {
        full = ws_next(&mut ws).await;
        if full["t"] == "gameFull" {
            break;
        }
    }
    assert_eq!(full["v"], 1);
    // A move over the socket, with its ply, acknowledged.
    ws_send(
        &mut ws,
        json!({"t": "move", "id": id, "u": MATE_LINE[0], "ply": 0, "a": 1}),
    )
    .await;
    let mut got_ack = false;
    let mut got_state = false;
    while !(got_ack && got_state) {
        let m = ws_next(&mut ws).await;
        match m["t"].as_str() {
            Some("ack") => {
                assert_eq!(m["a"], 1);
                got_ack = true;
            }
            Some("gameState") => {
                assert_eq!(m["v"], 2);
                assert_eq!(m["d"]["moves"], MATE_LINE[0]);
                got_state = true;
            }
            _ => {}
        }
    }
    // A stale move (wrong ply) is refused.
    ws_send(
        &mut ws,
        json!({"t": "move", "id": id, "u": MATE_LINE[2], "ply": 0, "a": 2}),
    )
    .await;
    loop {
        let m = ws_next(&mut ws).await;
        if m["t"] == "error" {
            assert_eq!(m["status"], 409, "{m}");
            assert_eq!(m["a"], 2);
            break;
        }
    }
    drop(ws);

    // While the page is away: four changes.
    play_all(&b, &w, &id, &MATE_LINE[1..4]).await;
    b.post_empty(&format!("/api/board/game/{id}/draw/yes"))
        .await;

    let mut ws = ws_connect(base, Some(&cookie)).await;
    ws_next(&mut ws).await; // hello
    ws_send(&mut ws, json!({"t": "sub", "id": id, "v": 2})).await;
    let mut versions = Vec::new();
    while versions.len() < 4 {
        let m = ws_next(&mut ws).await;
        if m["t"] == "gameState" {
            versions.push(m["v"].as_i64().unwrap());
            if m["v"] == 5 {
                assert_eq!(m["d"]["moves"], MATE_LINE[..4].join(" "));
            }
            if m["v"] == 6 {
                assert_eq!(m["d"]["bdraw"], true);
            }
        }
    }
    assert_eq!(versions, [3, 4, 5, 6]);
    // And then live ones.
    play_all(&w, &b, &id, &MATE_LINE[4..5]).await;
    loop {
        let m = ws_next(&mut ws).await;
        if m["t"] == "gameState" {
            assert_eq!(m["v"], 7);
            assert_eq!(m["d"]["bdraw"], false, "moving declines the offer");
            break;
        }
    }
    // Without a session, moves are refused.
    let mut anon = ws_connect(base, None).await;
    assert_eq!(ws_next(&mut anon).await["user"], Value::Null);
    ws_send(&mut anon, json!({"t": "move", "id": id, "u": "c3c2"})).await;
    assert_eq!(ws_next(&mut anon).await["status"], 401);
    ws_send(&mut anon, json!({"t": "nonsense"})).await;
    assert_eq!(ws_next(&mut anon).await["status"], 400);
}

// ---------------------------------------------------------------------------
// Accounts, authorization, bad input

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_sessions_and_login_limits() {
    let env = fresh("accounts");
    let base = &env.server.base;
    let c = http();
    let reg = |name: &str, pw: &str| {
        c.post(format!("{base}/api/account/register"))
            .json(&json!({"username": name, "password": pw}))
            .send()
    };
    assert_eq!(
        reg("Zed", "correct horse").await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(
        reg("zED", "correct horse").await.unwrap().status(),
        StatusCode::CONFLICT
    );
    assert_eq!(
        reg("z", "correct horse").await.unwrap().status(),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        reg("bad name", "correct horse").await.unwrap().status(),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        reg("shorty", "short").await.unwrap().status(),
        StatusCode::BAD_REQUEST
    );

    // Session cookie: who am I, then log out.
    let cookie = login_cookie(base, "zed").await;
    let me = c
        .get(format!("{base}/api/account"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(me).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["username"], "Zed");
    // A cookie-authenticated write from another site is refused.
    let resp = c
        .post(format!("{base}/api/challenge/open"))
        .header("cookie", &cookie)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    let resp = c
        .post(format!("{base}/api/challenge/open"))
        .header("cookie", &cookie)
        .header("origin", base.as_str())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let out = c
        .post(format!("{base}/api/account/logout"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), StatusCode::OK);
    let me = c
        .get(format!("{base}/api/account"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), StatusCode::UNAUTHORIZED);

    // Tokens: a bad one is refused; a revoked one stops working.
    let resp = c
        .get(format!("{base}/api/account"))
        .bearer_auth("nonsense")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    let p = register(base, "Yan").await;
    assert_eq!(p.get("/api/account").await.0, StatusCode::OK);
    let resp = c
        .delete(format!("{base}/api/token"))
        .bearer_auth(&p.token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(p.get("/api/account").await.0, StatusCode::UNAUTHORIZED);

    // Failed logins are limited per account (10 per 15 minutes).
    let login = |pw: &str| {
        c.post(format!("{base}/api/account/login"))
            .json(&json!({"username": "zed", "password": pw}))
            .send()
    };
    for _ in 0..10 {
        assert_eq!(
            login("wrong password").await.unwrap().status(),
            StatusCode::UNAUTHORIZED
        );
    }
    let resp = login("correct horse").await.unwrap();
    assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
    let (_, v) = json_of(resp).await;
    assert!(v["error"].as_str().unwrap().contains("too many"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authorization_rules() {
    let env = fresh("authz");
    let base = &env.server.base;
    let (w, b, id) = started_game(base, json!({})).await;
    let eve = register(base, "eve").await;
    let anon = Player {
        token: "x".into(),
        ..eve.clone()
    };
    let c = http();

    // Without credentials: 401 with a JSON error.
    for (method, path) in [
        ("POST", format!("/api/board/game/{id}/move/e2e3")),
        ("POST", "/api/challenge/boris".to_owned()),
        ("GET", "/api/account/playing".to_owned()),
        ("GET", "/api/stream/event".to_owned()),
        ("POST", format!("/api/board/game/{id}/resign")),
    ] {
        let req = if method == "POST" {
            c.post(format!("{base}{path}"))
        } else {
            c.get(format!("{base}{path}"))
        };
        let (s, v) = json_of(req.send().await.unwrap()).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{path}");
        assert!(v["error"].is_string(), "{path}: {v}");
    }
    assert_eq!(anon.mv(&id, "e2e3").await.0, StatusCode::UNAUTHORIZED);
    // Not a player: 403, for every action.
    assert_eq!(eve.mv(&id, "e2e3").await.0, StatusCode::FORBIDDEN);
    for action in ["resign", "abort", "draw/yes"] {
        assert_eq!(
            eve.post_empty(&format!("/api/board/game/{id}/{action}"))
                .await
                .0,
            StatusCode::FORBIDDEN
        );
    }
    // Not your turn: 409.
    let (s, v) = b.mv(&id, "e7e6").await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(
        v["error"].as_str().unwrap().contains("not your turn"),
        "{v}"
    );
    // Only the challenged player may accept.
    let cid = challenge(&w, &b, json!({})).await;
    assert_eq!(
        eve.post_empty(&format!("/api/challenge/{cid}/accept"))
            .await
            .0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        w.post_empty(&format!("/api/challenge/{cid}/accept"))
            .await
            .0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        eve.post_empty(&format!("/api/challenge/{cid}/cancel"))
            .await
            .0,
        StatusCode::FORBIDDEN
    );
    // Nothing changed.
    let (_, g) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["ply"], 0);
    assert_eq!(g["status"], "started");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_clear_errors_never_a_500() {
    let env = fresh("badinput");
    let base = &env.server.base;
    let (w, b, id) = started_game(base, json!({})).await;
    let c = http();

    let check = |s: StatusCode, v: &Value, want: StatusCode, what: &str| {
        assert_eq!(s, want, "{what}: {v}");
        assert!(
            v["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{what}: {v}"
        );
    };
    let (s, v) = w
        .post("/api/challenge/boris", json!({"variant": "crazyhouse"}))
        .await;
    check(s, &v, StatusCode::BAD_REQUEST, "unknown variant");
    let (s, v) = w
        .post("/api/challenge/boris", json!({"fen": "8/8/8/8 w - - 0 1"}))
        .await;
    check(s, &v, StatusCode::BAD_REQUEST, "bad fen");
    let (s, v) = w
        .post(
            "/api/challenge/boris",
            json!({"fen": "k7/8/8/8/8/8/8/(KQ)7 w - - 0 1"}),
        )
        .await;
    check(s, &v, StatusCode::BAD_REQUEST, "a king in a pair");
    let (s, v) = w
        .post("/api/challenge/boris", json!({"color": "purple"}))
        .await;
    check(s, &v, StatusCode::BAD_REQUEST, "bad color");
    let (s, v) = w.post("/api/challenge/nobody", json!({})).await;
    check(s, &v, StatusCode::NOT_FOUND, "unknown user");
    let (s, v) = w.post("/api/challenge/wanda", json!({})).await;
    check(s, &v, StatusCode::BAD_REQUEST, "challenging oneself");
    let resp = c
        .post(format!("{base}/api/challenge/boris"))
        .bearer_auth(&w.token)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    check(s, &v, StatusCode::BAD_REQUEST, "broken JSON");
    let resp = c
        .post(format!("{base}/api/challenge/boris"))
        .bearer_auth(&w.token)
        .header("content-type", "application/json")
        .body(format!("{{\"fen\": \"{}\"}}", "x".repeat(100_000)))
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    check(s, &v, StatusCode::PAYLOAD_TOO_LARGE, "oversized body");

    for (m, want) in [
        ("zz", StatusCode::BAD_REQUEST),
        ("e2e9", StatusCode::BAD_REQUEST),
        ("Xe2e3", StatusCode::BAD_REQUEST),
        ("e2e4", StatusCode::UNPROCESSABLE_ENTITY), // no two-square step in ChessMerge
        ("e1e2", StatusCode::UNPROCESSABLE_ENTITY),
        ("a1a8", StatusCode::UNPROCESSABLE_ENTITY),
        ("e2e3e2e3e2e3", StatusCode::BAD_REQUEST),
        ("%C3%A9%C3%A9", StatusCode::BAD_REQUEST),
    ] {
        let (s, v) = w.mv(&id, m).await;
        check(s, &v, want, m);
    }
    let (_, v) = w.mv(&id, "e2e4").await;
    assert!(
        v["error"].as_str().unwrap().contains("e2e4"),
        "the reason names the move: {v}"
    );
    let (s, v) = w.mv("nosuchgame", "e2e3").await;
    check(s, &v, StatusCode::NOT_FOUND, "unknown game");
    let (s, v) = w.post_empty("/api/challenge/nosuchid/accept").await;
    check(s, &v, StatusCode::NOT_FOUND, "unknown challenge");
    let (s, v) = w
        .post_empty(&format!("/api/board/game/{id}/draw/maybe"))
        .await;
    check(s, &v, StatusCode::BAD_REQUEST, "draw/maybe");
    let (s, v) = w.get("/api/game/nosuchgame").await;
    check(s, &v, StatusCode::NOT_FOUND, "unknown game view");
    let (s, v) = w.get("/api/nothing/here").await;
    check(s, &v, StatusCode::NOT_FOUND, "unknown route");
    let (s, v) = w.get("/api/games/user/nobody").await;
    check(s, &v, StatusCode::NOT_FOUND, "unknown user's games");
    let (s, v) = w.get("/api/account/playing?nb=lots").await;
    check(s, &v, StatusCode::BAD_REQUEST, "bad nb");
    let (s, v) = json_of(
        c.get(format!("{base}/game/export/nosuchgame"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    check(s, &v, StatusCode::NOT_FOUND, "unknown export");
    let (s, v) = json_of(
        c.delete(format!("{base}/api/account"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    check(s, &v, StatusCode::METHOD_NOT_ALLOWED, "wrong method");
    let resp = c
        .post(format!("{base}/api/challenge/boris"))
        .bearer_auth(&w.token)
        .header("content-type", "text/csv")
        .body("a,b")
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    check(
        s,
        &v,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unknown body type",
    );

    // After all that, the game is intact and playable.
    let (_, g) = b.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["ply"], 0);
    play_all(&w, &b, &id, &["e2e3", "e7e6"]).await;
    assert!(
        !env.server.log_text().contains("internal error"),
        "{}",
        env.server.log_text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_document_and_index_page() {
    let env = fresh("openapi");
    let base = &env.server.base;
    let (s, v) = get_anonymous(base, "/api/openapi.json").await;
    assert_eq!(s, StatusCode::OK);
    assert!(v["openapi"].as_str().unwrap().starts_with("3."));
    let paths = v["paths"].as_object().unwrap();
    for p in [
        "/api/account/register",
        "/api/token",
        "/api/challenge/{username}",
        "/api/challenge/{id}/accept",
        "/api/board/game/stream/{id}",
        "/api/board/game/{id}/move/{move}",
        "/api/stream/event",
        "/game/export/{id}",
        "/api/game/{id}",
    ] {
        assert!(
            paths.contains_key(p),
            "{p} missing from the OpenAPI document"
        );
    }
    // A profile is the page for any name (the page says when no one has it).
    for path in ["/", "/abcdefgh", "/@/someone", "/@/no.such.name"] {
        let page = http().get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(page.status(), StatusCode::OK, "{path}");
        let ct = page.headers()["content-type"].to_str().unwrap().to_owned();
        assert!(ct.starts_with("text/html"), "{path}: {ct}");
    }
    let resp = http()
        .get(format!("{base}/no-such-file.css"))
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
    assert!(v["error"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_fields_are_refused_by_name_and_every_boolean_word_is_read() {
    let env = fresh("typedinput");
    let base = &env.server.base;
    let (w, b, id) = started_game(base, json!({})).await;
    let c = http();

    // A value of the wrong kind: a 400 from the extractor naming the field,
    // with the code `bad_request`, and nothing done.
    let refused = |(s, v): (StatusCode, Value), field: &str| {
        assert_eq!(s, StatusCode::BAD_REQUEST, "{field}: {v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.contains(&format!("invalid {field}")), "{field}: {e}");
        assert_eq!(v["code"], "bad_request", "{field}: {v}");
    };
    refused(
        w.post("/api/challenge/boris", json!({"variant": "crazyhouse"}))
            .await,
        "variant",
    );
    refused(
        w.post("/api/challenge/boris", json!({"rated": "maybe"}))
            .await,
        "rated",
    );
    refused(
        w.post("/api/challenge/ai", json!({"level": "high"})).await,
        "level",
    );
    refused(
        w.post("/api/analysis", json!({"variant": 3})).await,
        "variant",
    );
    let form = c
        .post(format!("{base}/api/challenge/boris"))
        .bearer_auth(&w.token)
        .form(&[("color", "purple")])
        .send()
        .await
        .unwrap();
    refused(json_of(form).await, "color");
    refused(w.get("/api/account/playing?nb=lots").await, "nb");
    refused(w.get("/api/challenge?page=first").await, "page");
    refused(w.get("/api/games/user/wanda?since=soon").await, "since");
    refused(w.get("/api/games/user/wanda?rated=yes").await, "rated");
    refused(
        w.get("/api/games/user/wanda?perfType=chess960").await,
        "perfType",
    );
    refused(
        w.post_empty(&format!(
            "/api/board/game/{id}/move/e2e3?offeringDraw=perhaps"
        ))
        .await,
        "offeringDraw",
    );
    refused(
        w.post("/api/account/logout-everywhere", json!({"tokens": 1}))
            .await,
        "tokens",
    );
    let (_, g) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(g["ply"], 0, "no move was played: {g}");
    let (s, v) = w.get("/api/challenge").await;
    assert_eq!(s, StatusCode::OK, "the session still works: {v}");
    assert_eq!(v["out"].as_array().unwrap().len(), 0, "{v}");

    // Every boolean word is still read: `yes`/`no` and `true`/`false` in
    // the draw path, `true`/`false` (or nothing) for offeringDraw.
    // (A side offers once per move: the second offer is the other side's.)
    let offer = |g: &Value| g["drawOffer"].clone();
    for (who, answer, after) in [
        (&w, "yes", json!("white")),
        (&w, "false", Value::Null),
        (&b, "true", json!("black")),
        (&b, "no", Value::Null),
    ] {
        let (s, v) = who
            .post_empty(&format!("/api/board/game/{id}/draw/{answer}"))
            .await;
        assert_eq!(s, StatusCode::OK, "draw/{answer}: {v}");
        let (_, g) = w.get(&format!("/api/game/{id}")).await;
        assert_eq!(offer(&g), after, "draw/{answer}: {g}");
    }
    for (who, m, flag, after) in [
        (&w, "e2e3", "false", Value::Null),
        (&b, "e7e6", "true", json!("black")),
        (&w, "g1f3", "", Value::Null),
    ] {
        let (s, v) = who
            .post_empty(&format!(
                "/api/board/game/{id}/move/{m}?offeringDraw={flag}"
            ))
            .await;
        assert_eq!(s, StatusCode::OK, "{m} offeringDraw={flag}: {v}");
        if !flag.is_empty() {
            let (_, g) = w.get(&format!("/api/game/{id}")).await;
            assert_eq!(offer(&g), after, "{m} offeringDraw={flag}: {g}");
        }
    }
    for query in ["rated=true", "rated=false", "rated=", "max=%205%20&page=1"] {
        let (s, v) = w.get(&format!("/api/games/user/wanda?{query}")).await;
        assert_eq!(s, StatusCode::OK, "{query}: {v}");
    }
    let form = c
        .post(format!("{base}/api/challenge/boris"))
        .bearer_auth(&w.token)
        .form(&[("rated", "false"), ("variant", "Fusion"), ("color", "")])
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(form).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["rated"], false, "{v}");
    assert_eq!(v["variant"]["key"], "fusion", "{v}");
    let (s, v) = w
        .post("/api/challenge/boris", json!({"rated": true, "days": "3"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["rated"], true, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_bodies_and_socket_error_frames_carry_a_code() {
    let env = fresh("errorcode");
    let base = &env.server.base;
    let (w, b, id) = started_game(base, json!({})).await;
    let c = http();
    play_all(&w, &b, &id, &["e2e3", "e7e6", "g1f3"]).await;

    // Every error body carries its code beside the words.
    let code = |(s, v): (StatusCode, Value), want: StatusCode, code: &str| {
        assert_eq!(s, want, "{code}: {v}");
        assert!(v["error"].is_string(), "{code}: {v}");
        assert_eq!(v["code"], code, "{v}");
    };
    code(
        w.mv(&id, "d2d3").await,
        StatusCode::CONFLICT,
        "not_your_turn",
    );
    code(
        b.mv(&id, "e6e4").await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "illegal_move",
    );
    code(
        w.mv("nosuchgame", "e2e3").await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    code(
        w.mv(&id, "zz").await,
        StatusCode::BAD_REQUEST,
        "bad_request",
    );
    code(
        get_anonymous(base, "/api/account/playing").await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    code(
        w.get("/api/nothing/here").await,
        StatusCode::NOT_FOUND,
        "not_found",
    );
    code(
        w.post("/api/challenge/wanda", json!({})).await,
        StatusCode::BAD_REQUEST,
        "self_challenge",
    );
    let resp = c
        .post(format!("{base}/api/challenge/boris"))
        .bearer_auth(&w.token)
        .header("content-type", "text/csv")
        .body("a,b")
        .send()
        .await
        .unwrap();
    code(
        json_of(resp).await,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    );
    let resp = c
        .post(format!("{base}/api/challenge/boris"))
        .bearer_auth(&w.token)
        .header("content-type", "application/json")
        .body(format!("{{\"fen\": \"{}\"}}", "x".repeat(100_000)))
        .send()
        .await
        .unwrap();
    code(
        json_of(resp).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
    );
    // The socket's error frames carry it too.
    let mut ws = ws_connect(base, Some(&w.cookie)).await;
    for (msg, status, want) in [
        (
            json!({"t": "move", "id": id, "u": "d2d3", "a": 7}),
            409,
            "not_your_turn",
        ),
        (json!({"t": "dance"}), 400, "bad_request"),
    ] {
        ws_send(&mut ws, msg.clone()).await;
        let frame = loop {
            let frame = ws_next(&mut ws).await;
            if frame["t"] == "error" {
                break frame;
            }
        };
        assert_eq!(frame["status"], status, "{msg}: {frame}");
        assert_eq!(frame["code"], want, "{msg}: {frame}");
    }
}
