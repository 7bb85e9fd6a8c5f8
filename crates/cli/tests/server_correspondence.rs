//! Correspondence play through the real server: takebacks (proposed,
//! declined, accepted; the ply goes back while the version goes on, in the
//! board stream too), rematches (offered, declined, accepted into a new
//! game with the colours swapped; against the computer at once) and
//! conditional moves (a matching line plays itself in the same commit as
//! the move it answers, a non-matching move clears the plan, invalid lines
//! are refused naming the line and the move, and nobody else sees them).

use crate::common::{NdStream, Player, fresh, register};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Two players and a started game between them, `w` playing white.
async fn game(base: &str, w: &str, b: &str, params: Value) -> (Player, Player, String) {
    let white = register(base, w).await;
    let black = register(base, b).await;
    let id = new_game(&white, &black, params).await;
    (white, black, id)
}

/// A new game of `white` against `black`.
async fn new_game(white: &Player, black: &Player, params: Value) -> String {
    let mut params = params;
    params["color"] = json!("white");
    let (s, v) = white
        .post(&format!("/api/challenge/{}", black.name), params)
        .await;
    assert_eq!(s, StatusCode::OK, "challenge: {v}");
    let id = v["id"].as_str().unwrap().to_owned();
    let (s, v) = black
        .post_empty(&format!("/api/challenge/{id}/accept"))
        .await;
    assert_eq!(s, StatusCode::OK, "accept: {v}");
    id
}

async fn play(p: &Player, id: &str, m: &str) {
    let (s, v) = p.mv(id, m).await;
    assert_eq!(s, StatusCode::OK, "{} plays {m}: {v}", p.name);
}

async fn view(p: &Player, id: &str) -> Value {
    let (s, v) = p.get(&format!("/api/game/{id}")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v
}

/// Asserts a refusal: its status, and that its error names `says`.
fn refused((s, v): (StatusCode, Value), status: StatusCode, says: &str) {
    assert_eq!(s, status, "{v}");
    let e = v["error"].as_str().unwrap_or_default();
    assert!(e.contains(says), "error {e:?} should say {says:?}");
}

/// The next `gameState` of a board stream.
async fn next_state(stream: &mut NdStream) -> Value {
    stream.next_of("gameState").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn takebacks_are_proposed_declined_accepted_and_pushed_with_a_lower_ply() {
    let env = fresh("corr_takeback");
    let base = &env.server.base;
    let (w, b, id) = game(base, "Tara", "Theo", json!({})).await;
    let tb = |who: &Player, answer: &str| {
        let who = who.clone();
        let path = format!("/api/board/game/{id}/takeback/{answer}");
        async move { who.post_empty(&path).await }
    };
    refused(
        tb(&w, "yes").await,
        StatusCode::CONFLICT,
        "nothing to take back: no move",
    );
    refused(tb(&w, "maybe").await, StatusCode::BAD_REQUEST, "yes or no");
    refused(
        tb(&w, "no").await,
        StatusCode::CONFLICT,
        "no takeback offer",
    );
    play(&w, &id, "e2e3").await;
    refused(
        tb(&b, "yes").await,
        StatusCode::CONFLICT,
        "you have not moved yet",
    );
    let stranger = register(base, "Tom").await;
    refused(
        tb(&stranger, "yes").await,
        StatusCode::FORBIDDEN,
        "not a player",
    );
    let (s, _) = w
        .post_empty(&format!("/api/bot/game/{id}/takeback/yes"))
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "the bot route is for bots");

    let mut stream = b.stream(&format!("/api/board/game/stream/{id}")).await;
    let full = stream.next_of("gameFull").await;
    assert_eq!(full["state"]["wtakeback"], false);
    let mut b_events = b.stream("/api/stream/event").await;
    let mut w_events = w.stream("/api/stream/event").await;
    // An event stream sends what is committed after it began: its first
    // line (the game under way) says it has begun.
    for events in [&mut b_events, &mut w_events] {
        assert_eq!(
            events.next_of("gameStart").await["game"]["gameId"],
            id.as_str()
        );
    }

    // White proposes; Black is told live (stream and events), and declines.
    assert_eq!(tb(&w, "yes").await.0, StatusCode::OK);
    let st = next_state(&mut stream).await;
    assert_eq!(
        (st["wtakeback"].clone(), st["btakeback"].clone()),
        (json!(true), json!(false))
    );
    let offer = b_events.next_of("takebackOffer").await;
    assert_eq!(
        (offer["gameId"].as_str(), offer["by"].as_str()),
        (Some(id.as_str()), Some("white"))
    );
    assert_eq!(view(&b, &id).await["takebackOffer"], "white");
    assert_eq!(
        tb(&w, "yes").await.0,
        StatusCode::OK,
        "proposing again changes nothing"
    );
    assert_eq!(tb(&b, "no").await.0, StatusCode::OK);
    let st = next_state(&mut stream).await;
    assert_eq!(st["wtakeback"], false);
    assert_eq!(st["ply"], 1, "declined: nothing undone");
    let declined = w_events.next_of("takebackDeclined").await;
    assert_eq!(declined["by"], "black");

    // Black proposes on their own move: White's reply and Black's move go,
    // Black is back to their move.
    play(&b, &id, "e7e6").await;
    play(&w, &id, "d2d3").await;
    let before = view(&w, &id).await;
    assert_eq!(before["ply"], 3);
    assert_eq!(tb(&b, "yes").await.0, StatusCode::OK);
    assert_eq!(tb(&w, "yes").await.0, StatusCode::OK, "white accepts");
    let g = view(&w, &id).await;
    assert_eq!(g["ply"], 1);
    assert_eq!(g["moves"], json!(["e2e3"]));
    assert_eq!(g["san"].as_array().unwrap().len(), 1);
    assert_eq!(g["turn"], "black");
    assert_eq!(g["takebackOffer"], Value::Null);
    assert!(
        g["version"].as_i64() > before["version"].as_i64(),
        "the version goes on"
    );
    // The stream: the states of the moves, the proposal, then the undone one.
    let mut last = Value::Null;
    let mut versions = Vec::new();
    while last["ply"] != 1 || last["btakeback"] != false || last["moves"] != "e2e3" {
        last = next_state(&mut stream).await;
        versions.push(last["version"].as_i64().unwrap());
    }
    assert!(
        versions.windows(2).all(|w| w[1] == w[0] + 1),
        "{versions:?}"
    );
    assert_eq!(last["version"], g["version"]);
    assert_eq!(last["fen"], g["fen"]);
    assert!(!last["legalMoves"].as_array().unwrap().is_empty());
    // Black plays another move; White proposes on Black's move: one move goes.
    play(&b, &id, "d7d6").await;
    play(&w, &id, "g1f3").await;
    assert_eq!(tb(&w, "yes").await.0, StatusCode::OK);
    assert_eq!(tb(&b, "yes").await.0, StatusCode::OK);
    let g = view(&b, &id).await;
    assert_eq!(
        (g["ply"].clone(), g["moves"].clone()),
        (json!(2), json!(["e2e3", "d7d6"]))
    );
    assert_eq!(g["turn"], "white");
    // A move withdraws one's own proposal; so does `no`.
    assert_eq!(tb(&w, "yes").await.0, StatusCode::OK);
    play(&w, &id, "b1c3").await;
    assert_eq!(view(&b, &id).await["takebackOffer"], Value::Null);
    assert_eq!(tb(&b, "yes").await.0, StatusCode::OK);
    assert_eq!(tb(&b, "no").await.0, StatusCode::OK);
    let g = view(&w, &id).await;
    assert_eq!(
        (g["ply"].clone(), g["takebackOffer"].clone()),
        (json!(3), Value::Null)
    );
    // Never after the game.
    let (s, _) = w.post_empty(&format!("/api/board/game/{id}/resign")).await;
    assert_eq!(s, StatusCode::OK);
    refused(tb(&b, "yes").await, StatusCode::CONFLICT, "over");
    refused(tb(&w, "no").await, StatusCode::CONFLICT, "over");
    // Never against the computer.
    let (s, v) = w
        .post("/api/challenge/ai", json!({"level": 1, "color": "white"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let ai = v["id"].as_str().unwrap().to_owned();
    play(&w, &ai, "e2e3").await;
    refused(
        w.post_empty(&format!("/api/board/game/{ai}/takeback/yes"))
            .await,
        StatusCode::CONFLICT,
        "against the computer",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rematches_swap_colours_keep_the_start_and_are_answered_once() {
    let env = fresh("corr_rematch");
    let base = &env.server.base;
    let fen = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1";
    let (w, b, id) = game(
        base,
        "Rita",
        "Remy",
        json!({"variant": "chessmerge", "fen": fen}),
    )
    .await;
    let rematch = |who: &Player, tail: &str| {
        let who = who.clone();
        let path = format!("/api/board/game/{id}/rematch{tail}");
        async move { who.post_empty(&path).await }
    };
    refused(rematch(&w, "").await, StatusCode::CONFLICT, "not over");
    let (s, _) = w.post_empty(&format!("/api/board/game/{id}/resign")).await;
    assert_eq!(s, StatusCode::OK);
    let stranger = register(base, "Rudi").await;
    refused(
        rematch(&stranger, "").await,
        StatusCode::FORBIDDEN,
        "not a player",
    );
    refused(
        rematch(&w, "/perhaps").await,
        StatusCode::BAD_REQUEST,
        "yes or no",
    );
    refused(
        rematch(&b, "/no").await,
        StatusCode::CONFLICT,
        "no rematch offer",
    );

    let mut b_events = b.stream("/api/stream/event").await;
    let mut w_events = w.stream("/api/stream/event").await;
    let game_stream = format!("/api/board/game/stream/{id}");
    // A finished game's stream ends at once when no rematch is offered.
    let mut stream = b.stream(&game_stream).await;
    assert!(
        stream.next_of("gameFull").await["state"]
            .get("rematch")
            .is_none()
    );
    assert!(stream.next().await.is_none());
    // Offer: told live; the stream stays open while the offer waits.
    let (s, v) = rematch(&w, "").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["rematch"]["by"], "white");
    let offer = b_events.next_of("rematchOffer").await;
    assert_eq!(
        (offer["gameId"].as_str(), offer["by"].as_str()),
        (Some(id.as_str()), Some("white"))
    );
    let mut stream = b.stream(&game_stream).await;
    assert_eq!(
        stream.next_of("gameFull").await["state"]["rematch"],
        json!({"by": "white"})
    );
    // Withdrawn: the stream says so and ends.
    assert_eq!(rematch(&w, "/no").await.0, StatusCode::OK, "withdrawn");
    assert_eq!(next_state(&mut stream).await.get("rematch"), None);
    assert!(stream.next().await.is_none());
    assert_eq!(rematch(&w, "/yes").await.0, StatusCode::OK);
    assert_eq!(
        rematch(&w, "").await.0,
        StatusCode::OK,
        "offering again changes nothing"
    );
    assert_eq!(view(&b, &id).await["rematch"], json!({"by": "white"}));
    let mut stream = b.stream(&game_stream).await;
    stream.next_of("gameFull").await;
    // Black accepts: the new game, colours swapped, same variant and start.
    let (s, v) = rematch(&b, "").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let next = v["rematch"]["gameId"].as_str().unwrap().to_owned();
    assert_ne!(next, id);
    let n = view(&w, &next).await;
    assert_eq!(n["white"]["name"], "Remy");
    assert_eq!(n["black"]["name"], "Rita");
    assert_eq!(n["you"], "black");
    assert_eq!(n["variant"]["key"], "chessmerge");
    assert_eq!(n["initialFen"], fen);
    assert_eq!(
        (n["ply"].clone(), n["status"].clone()),
        (json!(0), json!("started"))
    );
    for events in [&mut w_events, &mut b_events] {
        loop {
            let e = events.next_of("gameStart").await;
            if e["game"]["id"] == next.as_str() {
                break;
            }
        }
    }
    assert_eq!(
        next_state(&mut stream).await["rematch"],
        json!({"gameId": next})
    );
    assert!(stream.next().await.is_none(), "answered: the stream ends");
    // Answered once.
    refused(
        rematch(&w, "").await,
        StatusCode::CONFLICT,
        "already rematched",
    );
    refused(
        rematch(&b, "/no").await,
        StatusCode::CONFLICT,
        "already rematched",
    );
    // The new game plays, and a declined rematch is final.
    play(&b, &next, "e2e3").await;
    let (s, _) = w
        .post_empty(&format!("/api/board/game/{next}/resign"))
        .await;
    assert_eq!(s, StatusCode::OK);
    let again = |who: &Player, tail: &str| {
        let who = who.clone();
        let path = format!("/api/board/game/{next}/rematch{tail}");
        async move { who.post_empty(&path).await }
    };
    assert_eq!(again(&w, "").await.0, StatusCode::OK);
    assert_eq!(again(&b, "/no").await.0, StatusCode::OK);
    assert_eq!(w_events.next_of("rematchDeclined").await["by"], "white");
    assert_eq!(view(&w, &next).await["rematch"], json!({"declined": true}));
    refused(again(&w, "").await, StatusCode::CONFLICT, "declined");
    refused(again(&b, "").await, StatusCode::CONFLICT, "declined");

    // Against the computer: the new game starts at once, colours swapped.
    let (s, v) = w
        .post("/api/challenge/ai", json!({"level": 2, "color": "white"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let ai = v["id"].as_str().unwrap().to_owned();
    let (s, _) = w.post_empty(&format!("/api/board/game/{ai}/resign")).await;
    assert_eq!(s, StatusCode::OK);
    let (s, v) = w.post_empty(&format!("/api/board/game/{ai}/rematch")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let ai2 = v["rematch"]["gameId"].as_str().unwrap().to_owned();
    let g = view(&w, &ai2).await;
    assert_eq!(g["you"], "black");
    assert_eq!(g["white"]["aiLevel"], 2);
    refused(
        w.post_empty(&format!("/api/board/game/{ai}/rematch")).await,
        StatusCode::CONFLICT,
        "already rematched",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conditional_moves_play_themselves_in_the_same_commit_and_stay_private() {
    let env = fresh("corr_forecast");
    let base = &env.server.base;
    let (w, b, id) = game(base, "Fred", "Fay", json!({})).await;
    let path = format!("/api/board/game/{id}/forecasts");
    let set = |who: &Player, body: Value| {
        let who = who.clone();
        let path = path.clone();
        async move { who.post(&path, body).await }
    };
    play(&w, &id, "e2e3").await;
    refused(
        set(&b, json!({"steps": [["d2d3", "e7e6"]]})).await,
        StatusCode::CONFLICT,
        "it is your move",
    );
    // Invalid lines name the line, the move and the rules' reason.
    for (steps, says) in [
        (
            json!([["e7e6", "e3e5"]]),
            "line 1, move 2 (your reply \"e3e5\")",
        ),
        (
            json!([["e7e6", "d2d3"], ["d2d3", "e7e6"]]),
            "line 2, move 1 (their move \"d2d3\")",
        ),
        (json!([["e7e6"]]), "line 1: 1 moves"),
        (json!([["e7e6", "zz"]]), "not Merge-UCI"),
        (
            json!([["e7e6", "d2d3"], ["e7e6", "g1f3"]]),
            "one reply per position",
        ),
    ] {
        refused(
            set(&w, json!({ "steps": steps })).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            says,
        );
    }
    refused(
        set(&w, json!({"lines": []})).await,
        StatusCode::BAD_REQUEST,
        "unknown field",
    );
    let (s, v) = w.get(&path).await;
    assert_eq!(
        (s, v["steps"].clone()),
        (StatusCode::OK, json!([])),
        "refusals store nothing"
    );
    let stranger = register(base, "Finn").await;
    assert_eq!(stranger.get(&path).await.0, StatusCode::FORBIDDEN);

    let lines = json!([
        ["e7e6", "d2d3"],
        ["d7d6", "b1c3", "g8f6", "g1f3"],
        ["d7d6", "b1c3", "c8f5", "f1d3"]
    ]);
    let (s, v) = set(&w, json!({ "steps": lines })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["steps"], lines);
    assert_eq!(v["ply"], 1);
    let (_, mine) = w.get(&path).await;
    assert_eq!(mine["steps"], lines);
    // Private: not for the opponent, not in any view or stream.
    let (_, theirs) = b.get(&path).await;
    assert_eq!(theirs["steps"], json!([]));
    let mut stream = b.stream(&format!("/api/board/game/stream/{id}")).await;
    let full = stream.next_of("gameFull").await;
    let secret = |v: &Value| {
        let t = v.to_string();
        t.contains("forecast") || t.contains("b1c3\",\"g8f6") || t.contains("steps")
    };
    assert!(!secret(&full), "{full}");
    assert!(!secret(&view(&b, &id).await));
    let version = full["state"]["version"].as_i64().unwrap();

    // Black plays a line's first move: White's reply is played in the same
    // change (one new version holding both moves).
    play(&b, &id, "d7d6").await;
    let st = next_state(&mut stream).await;
    assert_eq!(st["moves"], "e2e3 d7d6 b1c3");
    assert_eq!(st["version"], version + 1);
    assert_eq!(st["turn"], "black");
    assert!(!secret(&st), "{st}");
    let (_, mine) = w.get(&path).await;
    assert_eq!(mine["steps"], json!([["g8f6", "g1f3"], ["c8f5", "f1d3"]]));
    assert_eq!(mine["ply"], 3);
    play(&b, &id, "c8f5").await;
    let g = view(&w, &id).await;
    assert_eq!(g["moves"], json!(["e2e3", "d7d6", "b1c3", "c8f5", "f1d3"]));
    assert_eq!(
        w.get(&path).await.1["steps"],
        json!([]),
        "the line is used up"
    );
    // A move outside the plan clears it and is answered by nobody.
    let (s, _) = set(&w, json!({"steps": [["a7a6", "a2a3"]]})).await;
    assert_eq!(s, StatusCode::OK);
    play(&b, &id, "h7h6").await;
    let g = view(&w, &id).await;
    assert_eq!(g["ply"], 6);
    assert_eq!(g["turn"], "white");
    assert_eq!(w.get(&path).await.1["steps"], json!([]));
    // Clearing with an empty list; never after the game.
    let (s, _) = b.post(&path, json!({"steps": [["b2b3", "b7b6"]]})).await;
    assert_eq!(s, StatusCode::OK);
    let (s, v) = b.post(&path, json!({"steps": []})).await;
    assert_eq!((s, v["steps"].clone()), (StatusCode::OK, json!([])));
    let (s, _) = w.post_empty(&format!("/api/board/game/{id}/resign")).await;
    assert_eq!(s, StatusCode::OK);
    refused(
        b.post(&path, json!({"steps": [["b2b3", "b7b6"]]})).await,
        StatusCode::CONFLICT,
        "over",
    );
}
