//! The site's account features end to end (issue 15): preferences kept per
//! account (and refused bad input), guest accounts that play the computer,
//! and the user events that tell a player it is their move, that a draw is
//! offered to them or that their offer was declined.

use crate::common::{Player, accepted_game, fresh, http, json_of, register, session_cookie};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Two players and a started game, `white` playing white.
async fn started(base: &str) -> (Player, Player, String) {
    let white = register(base, "Wendy").await;
    let black = register(base, "Bruno").await;
    let id = accepted_game(&white, &black, json!({ "color": "white" })).await;
    (white, black, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preferences_are_kept_per_account_and_bad_input_is_named() {
    let env = fresh("site-prefs");
    let base = &env.server.base;
    let a = register(base, "prefs_a").await;
    let b = register(base, "prefs_b").await;

    let (s, v) = a.get("/api/account/preferences").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        v["prefs"],
        json!({"theme": "green", "dark": false, "pairSize": "medium", "sound": false,
               "confirmResign": true, "notifications": false, "challenge": "always"})
    );

    // JSON, a subset: the rest stays.
    let (s, v) = a
        .post(
            "/api/account/preferences",
            json!({"dark": true, "theme": "blue"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["prefs"]["dark"], true);
    assert_eq!(v["prefs"]["theme"], "blue");
    assert_eq!(v["prefs"]["confirmResign"], true);

    // A form, as lichess takes it.
    let resp = a
        .client
        .post(format!("{base}/api/account/preferences"))
        .bearer_auth(&a.token)
        .form(&[("pairSize", "large"), ("sound", "true")])
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["prefs"]["pairSize"], "large");
    assert_eq!(v["prefs"]["sound"], true);
    assert_eq!(v["prefs"]["dark"], true, "kept from before");

    // Bad input: named, and nothing changes.
    for (body, names) in [
        (json!({"colour": "blue"}), "colour"),
        (json!({"theme": "pink"}), "pink"),
        (json!({"dark": "maybe", "pairSize": "huge"}), "huge"),
        (json!({"dark": 3}), "dark"),
        (json!({}), "no preference"),
    ] {
        let (s, v) = a.post("/api/account/preferences", body.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        let err = v["error"].as_str().unwrap();
        assert!(err.contains(names), "{body}: {err}");
    }
    let (_, v) = a.get("/api/account/preferences").await;
    assert_eq!(
        v["prefs"],
        json!({"theme": "blue", "dark": true, "pairSize": "large", "sound": true,
               "confirmResign": true, "notifications": false, "challenge": "always"})
    );

    // Another account has its own; a new session of the same account sees them.
    let (_, v) = b.get("/api/account/preferences").await;
    assert_eq!(v["prefs"]["dark"], false);
    let cookie = crate::common::login_cookie(base, "prefs_a").await;
    let resp = http()
        .get(format!("{base}/api/account/preferences"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["prefs"]["theme"], "blue");

    // Signed out: 401.
    let (s, _) = crate::common::get_anonymous(base, "/api/account/preferences").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}

/// Saves of different settings sent at once each keep theirs: a save reads
/// the settings, applies its change and writes them only over what it read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_saved_at_once_each_keep_their_change() {
    let env = fresh("site-prefs-race");
    let base = &env.server.base;
    let a = register(base, "prefs_race").await;
    let changes = [
        json!({"dark": true}),
        json!({"theme": "blue"}),
        json!({"pairSize": "large"}),
        json!({"sound": true}),
        json!({"confirmResign": false}),
        json!({"notifications": true}),
        json!({"challenge": "registered"}),
    ];
    for round in 0..5 {
        let saves = changes
            .iter()
            .map(|c| a.post("/api/account/preferences", c.clone()));
        for (s, v) in futures_util::future::join_all(saves).await {
            assert_eq!(s, StatusCode::OK, "round {round}: {v}");
        }
        let (_, v) = a.get("/api/account/preferences").await;
        assert_eq!(
            v["prefs"],
            json!({"theme": "blue", "dark": true, "pairSize": "large", "sound": true,
                   "confirmResign": false, "notifications": true, "challenge": "registered"}),
            "round {round}: every save's change is kept"
        );
        // Back to the defaults for the next round, one save at a time.
        let (s, v) = a
            .post(
                "/api/account/preferences",
                json!({"theme": "green", "dark": false, "pairSize": "medium", "sound": false,
                       "confirmResign": true, "notifications": false, "challenge": "always"}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
}

/// A new guest account: its session cookie and `/api/account` answer.
async fn new_guest(client: &reqwest::Client, base: &str) -> (String, Value) {
    let resp = client
        .post(format!("{base}/api/account/guest"))
        .send()
        .await
        .unwrap();
    let cookie = session_cookie(&resp);
    let (s, me) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK, "{me}");
    (cookie, me)
}

/// `r` sent as the page sends it: with the session cookie, from the site.
fn from_page(r: reqwest::RequestBuilder, cookie: &str, base: &str) -> reqwest::RequestBuilder {
    r.header("cookie", cookie)
        .header("origin", base)
        .header("sec-fetch-site", "same-origin")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_plays_the_computer_by_its_cookie_and_cannot_sign_in_by_name() {
    let env = fresh("site-guest");
    let base = &env.server.base;
    let client = http();
    let (cookie, me) = new_guest(&client, base).await;
    let name = me["username"].as_str().unwrap().to_owned();
    assert!(name.starts_with("guest-") && name.len() == 12, "{name}");
    assert_eq!(me["guest"], true);

    let with_cookie = |r: reqwest::RequestBuilder| from_page(r, &cookie, base);

    let (s, v) = json_of(
        with_cookie(client.get(format!("{base}/api/account")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((s, v["username"].as_str()), (StatusCode::OK, Some(&*name)));

    // A second guest while signed in: refused.
    let (s, v) = json_of(
        with_cookie(client.post(format!("{base}/api/account/guest")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");

    // Nor can it make itself a bot: as one, its name could never be reached.
    let (s, v) = json_of(
        with_cookie(client.post(format!("{base}/api/bot/account/upgrade")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["error"].as_str().unwrap().contains("guest"), "{v}");

    // A game against the computer, kept by its link.
    let (s, g) = json_of(
        with_cookie(client.post(format!("{base}/api/challenge/ai")))
            .json(&json!({"level": 1, "color": "white"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{g}");
    let id = g["id"].as_str().unwrap();
    let (s, v) = json_of(
        with_cookie(client.post(format!("{base}/api/board/game/{id}/move/e2e3")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = json_of(
        with_cookie(client.get(format!("{base}/api/account/playing")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["nowPlaying"][0]["gameId"], id);

    // No password: the name cannot sign in, nor be registered by others.
    for path in ["/api/account/login", "/api/account/register"] {
        let (s, v) = json_of(
            client
                .post(format!("{base}{path}"))
                .json(&json!({"username": name, "password": "correct horse"}))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert!(
            s == StatusCode::UNAUTHORIZED || s == StatusCode::BAD_REQUEST,
            "{path}: {s} {v}"
        );
    }
    let (s, v) = json_of(
        client
            .post(format!("{base}/api/account/register"))
            .json(&json!({"username": "guest-mine", "password": "correct horse"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["error"].as_str().unwrap().contains("guest-"), "{v}");
}

/// The events of `stream` up to and including the first of `kind`.
async fn until(stream: &mut crate::common::NdStream, kind: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let v = stream.next().await.expect("stream ended");
        let done = v["type"] == kind;
        seen.push(v);
        if done {
            return seen;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_player_to_move_is_told_and_draw_offers_are_told_both_ways() {
    let env = fresh("site-yourmove");
    let base = &env.server.base;
    let (w, b, id) = started(base).await;
    let mut ws_events = w.stream("/api/stream/event").await;
    let mut bs_events = b.stream("/api/stream/event").await;
    // The snapshot first (gameStart of the ongoing game).
    until(&mut ws_events, "gameStart").await;
    until(&mut bs_events, "gameStart").await;

    let (s, v) = w.mv(&id, "e2e3").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let ev = until(&mut bs_events, "yourMove").await.pop().unwrap();
    assert_eq!(ev["game"]["gameId"], id.as_str());
    assert_eq!(ev["game"]["isMyTurn"], true);
    assert_eq!(ev["game"]["lastMove"], "e2e3");
    assert!(ev["game"]["lastMoveAt"].as_i64().unwrap() > 0);

    // Black offers a draw while moving: white is told both.
    let (s, v) = b
        .post_empty(&format!("/api/board/game/{id}/move/e7e6?offeringDraw=true"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let seen = until(&mut ws_events, "drawOffer").await;
    let kinds: Vec<&str> = seen.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(kinds, ["yourMove", "drawOffer"], "{seen:?}");
    let offer = seen.last().unwrap();
    assert_eq!(offer["gameId"], id.as_str());
    assert_eq!(offer["by"]["name"], "Bruno");

    // White declines: black is told; the mover (white) is not told it is their move.
    let (s, v) = w.post_empty(&format!("/api/board/game/{id}/draw/no")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let seen = until(&mut bs_events, "drawDeclined").await;
    let declined = seen.last().unwrap();
    assert_eq!(declined["by"]["name"], "Wendy");
    assert!(
        seen.iter().all(|e| e["type"] != "yourMove"),
        "no move was made: {seen:?}"
    );

    // A withdrawn offer tells nobody: white offers and takes it back,
    // then moves; black's next event is the move, not a decline.
    w.post_empty(&format!("/api/board/game/{id}/draw/yes"))
        .await;
    w.post_empty(&format!("/api/board/game/{id}/draw/no")).await;
    let (s, v) = w.mv(&id, "g1f3").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let seen = until(&mut bs_events, "yourMove").await;
    let kinds: Vec<&str> = seen.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(kinds, ["drawOffer", "yourMove"], "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_keeps_its_account_and_games_by_choosing_a_name_and_password() {
    let env = fresh("site-claim");
    let base = &env.server.base;
    let client = http();
    let (cookie, me) = new_guest(&client, base).await;
    let guest_name = me["username"].as_str().unwrap().to_owned();
    let send = |r: reqwest::RequestBuilder| from_page(r, &cookie, base).send();
    let (s, g) = json_of(
        send(
            client
                .post(format!("{base}/api/challenge/ai"))
                .json(&json!({"level": 1, "color": "white"})),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{g}");
    let id = g["id"].as_str().unwrap().to_owned();
    let game_white = || async {
        let (s, v) = json_of(
            send(client.get(format!("{base}/api/game/{id}")))
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        v["white"]["name"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("white's name in {v}"))
    };
    assert_eq!(game_white().await, guest_name);
    let other = register(base, "Taken1").await;

    // Refused, naming the fault, and nothing changes.
    let claim = |body: Value| {
        let r = client
            .post(format!("{base}/api/account/guest/claim"))
            .json(&body);
        async { json_of(send(r).await.unwrap()).await }
    };
    for (body, status, says) in [
        (
            json!({"username": "x", "password": "correct horse"}),
            StatusCode::BAD_REQUEST,
            "invalid username",
        ),
        (
            json!({"username": "guest-again", "password": "correct horse"}),
            StatusCode::BAD_REQUEST,
            "guest-",
        ),
        (
            json!({"username": "Keeper", "password": "short"}),
            StatusCode::BAD_REQUEST,
            "invalid password",
        ),
        (
            json!({"username": "taken1", "password": "correct horse"}),
            StatusCode::CONFLICT,
            "taken",
        ),
        (
            json!({"username": "Keeper"}),
            StatusCode::BAD_REQUEST,
            "password",
        ),
    ] {
        let (s, v) = claim(body.clone()).await;
        assert_eq!(s, status, "{body}: {v}");
        assert!(v["error"].as_str().unwrap().contains(says), "{body}: {v}");
    }
    let (_, me) = json_of(
        send(client.get(format!("{base}/api/account")))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        me["username"],
        guest_name.as_str(),
        "unchanged after refusals"
    );

    // Kept: same session, same game, new name; it signs in by password now.
    let (s, v) = claim(json!({"username": "Keeper", "password": "correct horse"})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (v["username"].as_str(), v["guest"].as_bool()),
        (Some("Keeper"), None)
    );
    let (_, me) = json_of(
        send(client.get(format!("{base}/api/account")))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (me["username"].as_str(), me["guest"].as_bool()),
        (Some("Keeper"), None)
    );
    assert_eq!(game_white().await, "Keeper", "the game shows the new name");
    let (s, v) = json_of(
        send(client.post(format!("{base}/api/board/game/{id}/move/e2e3")))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "still plays its game: {v}");
    let signed_out = |path: &str, body: Value| {
        let r = client.post(format!("{base}{path}")).json(&body).send();
        async { json_of(r.await.unwrap()).await }
    };
    let (s, v) = signed_out(
        "/api/account/login",
        json!({"username": "keeper", "password": "correct horse"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "signs in by name: {v}");

    // Only once, only for guests, only signed in.
    let (s, v) = claim(json!({"username": "Keeper2", "password": "correct horse"})).await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert!(v["error"].as_str().unwrap().contains("not a guest"), "{v}");
    let (s, v) = other
        .post(
            "/api/account/guest/claim",
            json!({"username": "Keeper3", "password": "correct horse"}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    let (s, _) = signed_out(
        "/api/account/guest/claim",
        json!({"username": "Keeper4", "password": "correct horse"}),
    )
    .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}
