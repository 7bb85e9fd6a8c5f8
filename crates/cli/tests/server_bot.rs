//! The bot API end to end: the real `chessmerge serve` on a free port with
//! a fresh database. The first test replays lichess-bot's call sequence
//! (lichess-bot-devs/lichess-bot `lib/lichess.py`, `lib/lichess_bot.py`,
//! `lib/model.py`) and checks each field it reads; the second checks that
//! bots and humans keep to their own APIs.

use std::time::{Duration, Instant};

use crate::common::{Player, fresh, get_anonymous, http, json_of, register};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A registered account made a bot.
async fn register_bot(base: &str, name: &str) -> Player {
    let bot = register(base, name).await;
    let (s, v) = bot.post_empty("/api/bot/account/upgrade").await;
    assert_eq!(s, StatusCode::OK, "upgrade {name}: {v}");
    assert_eq!(v["ok"], true);
    bot
}

/// An ndjson response read raw, keep-alive lines included (`NdStream`
/// skips them; lichess-bot's 15 s read timeout needs them).
struct RawLines {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl RawLines {
    async fn open(p: &Player, path: &str) -> RawLines {
        let resp = p
            .client
            .get(format!("{}{path}", p.base))
            .bearer_auth(&p.token)
            .timeout(Duration::from_secs(3600))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "stream {path}");
        assert_eq!(
            resp.headers()["content-type"].to_str().unwrap(),
            "application/x-ndjson"
        );
        RawLines {
            resp,
            buf: Vec::new(),
        }
    }

    /// The next line, empty for a keep-alive; `None` at the end. Fails
    /// after `within` without a line.
    async fn line(&mut self, within: Duration) -> Option<String> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                return Some(String::from_utf8(line).unwrap().trim().to_owned());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let chunk = tokio::time::timeout(left, self.resp.chunk())
                .await
                .unwrap_or_else(|_| panic!("no line within {within:?}"))
                .unwrap();
            match chunk {
                Some(c) => self.buf.extend_from_slice(&c),
                None => return None,
            }
        }
    }

    /// The next JSON line (keep-alives skipped).
    async fn next(&mut self) -> Option<Value> {
        loop {
            let line = self.line(Duration::from_secs(60)).await?;
            if !line.is_empty() {
                return Some(serde_json::from_str(&line).unwrap());
            }
        }
    }

    async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next().await.expect("stream ended");
            if v["type"] == kind {
                return v;
            }
        }
    }
}

/// POST a form body, as lichess-bot does for chat and decline.
async fn post_form(p: &Player, path: &str, form: &[(&str, &str)]) -> (StatusCode, Value) {
    json_of(
        p.client
            .post(format!("{}{path}", p.base))
            .bearer_auth(&p.token)
            .form(form)
            .send()
            .await
            .unwrap(),
    )
    .await
}

#[tokio::test]
async fn lichess_bots_call_sequence_gets_every_field_it_reads() {
    let env = fresh("bot-sequence");
    let base = env.server.base.as_str();
    let alice = register(base, "Alice").await;
    let bot = register(base, "Botty").await;

    // 1. The token test: the raw token as the body (no content type).
    let resp = http()
        .post(format!("{base}/api/token/test"))
        .body(bot.token.clone())
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let info = &v[bot.token.as_str()];
    assert!(
        info["scopes"]
            .as_str()
            .unwrap()
            .split(',')
            .any(|s| s == "bot:play"),
        "{v}"
    );
    assert_eq!(info["userId"], "botty");
    let (_, v) = json_of(
        http()
            .post(format!("{base}/api/token/test"))
            .body("cmp_not_a_token")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(v["cmp_not_a_token"], Value::Null, "{v}");

    // 2. The profile, before and after `lichess-bot -u` upgrades it.
    let (_, v) = bot.get("/api/account").await;
    assert!(v.get("title").is_none(), "not a bot yet: {v}");
    let (s, v) = bot.post_empty("/api/bot/account/upgrade").await;
    assert_eq!((s, &v["ok"]), (StatusCode::OK, &json!(true)), "{v}");
    let (s, v) = bot.get("/api/account").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        (&v["id"], &v["username"], &v["title"]),
        (&json!("botty"), &json!("Botty"), &json!("BOT")),
        "{v}"
    );

    // 3. Ongoing games: none yet.
    let (_, v) = bot.get("/api/account/playing").await;
    assert_eq!(v["nowPlaying"], json!([]), "{v}");

    // 4. The event stream: a keep-alive line well inside lichess-bot's 15 s.
    let mut events = RawLines::open(&bot, "/api/stream/event").await;
    let opened = Instant::now();
    let first = events.line(Duration::from_secs(15)).await.unwrap();
    assert_eq!(first, "", "a keep-alive line first (no news)");
    let waited = opened.elapsed();
    assert!(
        waited < Duration::from_secs(10),
        "keep-alive after {waited:?}"
    );

    // A human challenges the bot: the challenge event with lichess-bot's fields.
    let (s, v) = alice
        .post(
            "/api/challenge/botty",
            json!({"variant": "standard", "color": "white"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["id"].as_str().unwrap().to_owned();
    let ev = events.next_of("challenge").await;
    let c = &ev["challenge"];
    assert_eq!(c["id"], id.as_str());
    assert_eq!(c["rated"], false);
    assert_eq!(c["variant"]["key"], "standard");
    assert!(c["perf"]["name"].is_string(), "{c}");
    assert_eq!(c["speed"], "correspondence");
    assert_eq!(c["timeControl"]["type"], "unlimited");
    assert_eq!(c["challenger"]["name"], "Alice");
    assert!(c["challenger"].get("title").is_none(), "{c}");
    assert_eq!(c["destUser"]["name"], "Botty");
    assert_eq!(c["destUser"]["title"], "BOT");
    assert_eq!(
        (&c["color"], &c["finalColor"]),
        (&json!("white"), &json!("white"))
    );

    // 5. Accept; gameStart follows on the event stream.
    let (s, v) = bot.post_empty(&format!("/api/challenge/{id}/accept")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let ev = events.next_of("gameStart").await;
    let g = &ev["game"];
    assert_eq!(g["id"], id.as_str());
    assert_eq!(g["gameId"], id.as_str());
    assert_eq!(g["opponent"]["username"], "Alice");
    assert_eq!(g["isMyTurn"], false);
    assert!(g["secondsLeft"].as_i64().unwrap() > 1_000_000, "{g}");

    let (_, v) = bot.get("/api/account/playing").await;
    let playing = &v["nowPlaying"][0];
    assert_eq!(playing["gameId"], id.as_str());
    assert_eq!(playing["isMyTurn"], false);
    assert_eq!(playing["opponent"]["username"], "Alice");
    assert_eq!(playing["speed"], "correspondence");
    assert!(playing["secondsLeft"].is_i64(), "{playing}");

    // 6. The bot's game stream: gameFull with what lichess-bot's Game reads.
    let mut game = RawLines::open(&bot, &format!("/api/bot/game/stream/{id}")).await;
    let full = game.next().await.unwrap();
    assert_eq!(full["type"], "gameFull");
    assert_eq!(full["id"], id.as_str());
    assert_eq!(full["variant"]["key"], "standard");
    assert_eq!(full["variant"]["name"], "Standard");
    assert_eq!(full["speed"], "correspondence");
    assert_eq!(full["rated"], false);
    assert_eq!(full["white"]["name"], "Alice");
    assert_eq!(full["black"]["name"], "Botty");
    assert_eq!(full["black"]["title"], "BOT");
    assert!(
        full["createdAt"].as_i64().unwrap() > 1_600_000_000_000,
        "milliseconds: {full}"
    );
    assert_eq!(full["initialFen"], "startpos");
    let st = &full["state"];
    assert_eq!(st["type"], "gameState");
    assert_eq!(st["moves"], "");
    assert_eq!(st["status"], "started");
    for clock in ["wtime", "btime"] {
        assert!(st[clock].as_i64().unwrap() >= 2_000_000_000, "{st}");
    }
    assert_eq!((&st["winc"], &st["binc"]), (&json!(0), &json!(0)));

    // 7. Moves: the human by the board API, the bot by the bot API; the
    // bot's refused moves get the board API's statuses and reasons.
    let line = [("e2e4", "e7e5"), ("f1c4", "b8c6"), ("d1h5", "g8f6")];
    let mut moves: Vec<&str> = Vec::new();
    for (i, (white, black)) in line.iter().enumerate() {
        let (s, v) = alice.mv(&id, white).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        moves.push(white);
        let st = game.next_of("gameState").await;
        assert_eq!(st["moves"], moves.join(" "));
        if i == 0 {
            let (s, v) = bot
                .post_empty(&format!("/api/bot/game/{id}/move/e7e4"))
                .await;
            assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
            let reason = v["error"].as_str().unwrap();
            assert!(reason.starts_with("illegal move e7e4: "), "{reason}");
            let (s, v) = bot
                .post_empty(&format!("/api/bot/game/{id}/move/zz9"))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v["error"].as_str().unwrap().contains("zz9"), "{v}");
            let (s, v) = post_form(
                &bot,
                &format!("/api/bot/game/{id}/chat"),
                &[("room", "player"), ("text", "good luck!")],
            )
            .await;
            assert_eq!(s, StatusCode::OK, "{v}");
        }
        let (s, v) = bot
            .post_empty(&format!(
                "/api/bot/game/{id}/move/{black}?offeringDraw=false"
            ))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        moves.push(black);
        let st = game.next_of("gameState").await;
        assert_eq!(st["moves"], moves.join(" "));
        if i == 0 {
            let (s, v) = bot
                .post_empty(&format!("/api/bot/game/{id}/move/d7d5"))
                .await;
            assert_eq!(s, StatusCode::CONFLICT, "out of turn: {v}");
        }
    }
    // Online flags, hourly in lichess-bot: the bot holds its streams.
    let (s, v) = get_anonymous(base, "/api/users/status?ids=botty,Alice,nobody").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        v,
        json!([
            {"id": "botty", "name": "Botty", "title": "BOT", "online": true},
            {"id": "alice", "name": "Alice", "online": false}
        ])
    );

    let (s, v) = alice.mv(&id, "h5f7").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let end = game.next_of("gameState").await;
    assert_eq!(
        (&end["status"], &end["winner"]),
        (&json!("mate"), &json!("white"))
    );
    assert!(game.next().await.is_none(), "the stream ends with the game");
    let ev = events.next_of("gameFinish").await;
    assert_eq!(ev["game"]["id"], id.as_str());

    // 8. The export lichess-bot saves.
    let pgn = http()
        .get(format!("{base}/game/export/{id}"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(pgn.contains("[Black \"Botty\"]"), "{pgn}");
    assert!(pgn.contains("Qxf7#"), "{pgn}");
    assert!(pgn.trim_end().ends_with("1-0"), "{pgn}");

    // The chat line was stored and is read back as the page reads it.
    let (s, v) = get_anonymous(base, &format!("/api/board/game/{id}/chat")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(
        (&v[0]["user"], &v[0]["text"], &v[0]["room"]),
        (&json!("Botty"), &json!("good luck!"), &json!("player"))
    );

    // Matchmaking's look-ups: online bots (ndjson) and public views.
    let text = http()
        .get(format!("{base}/api/bot/online?nb=512"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let online: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(online.len(), 1, "{text}");
    assert_eq!(
        (&online[0]["username"], &online[0]["title"]),
        (&json!("Botty"), &json!("BOT"))
    );
    let (s, v) = get_anonymous(base, "/api/user/BOTTY").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        (&v["id"], &v["title"], &v["online"]),
        (&json!("botty"), &json!("BOT"), &json!(true))
    );
    let (s, v) = get_anonymous(base, "/api/user/alice").await;
    assert_eq!(s, StatusCode::OK);
    assert!(v.get("title").is_none(), "{v}");
    let (s, _) = get_anonymous(base, "/api/user/nobody").await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // Once its streams are closed the bot is offline (within a keep-alive).
    drop(events);
    drop(game);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, v) = get_anonymous(base, "/api/users/status?ids=botty").await;
        if v[0]["online"] == false {
            break;
        }
        assert!(Instant::now() < deadline, "still online: {v}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test]
async fn bots_and_humans_each_keep_to_their_own_api() {
    let env = fresh("bot-authorization");
    let base = env.server.base.as_str();
    let human = register(base, "Hugo").await;
    let bot = register_bot(base, "Robo").await;

    // A game between them, the bot playing black.
    let (s, v) = human
        .post("/api/challenge/robo", json!({"color": "white"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["id"].as_str().unwrap().to_owned();
    let (s, v) = bot.post_empty(&format!("/api/challenge/{id}/accept")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = human.mv(&id, "e2e3").await;
    assert_eq!(s, StatusCode::OK, "{v}");

    // The bot on the board API: 403, whatever the action.
    for path in [
        format!("/api/board/game/{id}/move/e7e6"),
        format!("/api/board/game/{id}/resign"),
        format!("/api/board/game/{id}/abort"),
        format!("/api/board/game/{id}/draw/yes"),
    ] {
        let (s, v) = bot.post_empty(&path).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{path}: {v}");
        assert!(
            v["error"].as_str().unwrap().contains("bot API"),
            "{path}: {v}"
        );
    }
    // Nor through the page: its session (from before the upgrade) acts no
    // more, and it cannot log in again.
    let resp = http()
        .get(format!("{base}/api/account"))
        .header("cookie", &bot.cookie)
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    let (s, v) = json_of(
        http()
            .post(format!("{base}/api/account/login"))
            .json(&json!({"username": "Robo", "password": "correct horse"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");

    // The human on the bot API: 403.
    for path in [
        format!("/api/bot/game/{id}/move/d2d4"),
        format!("/api/bot/game/{id}/resign"),
        format!("/api/bot/game/{id}/abort"),
    ] {
        let (s, v) = human.post_empty(&path).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{path}: {v}");
        assert!(
            v["error"].as_str().unwrap().contains("bot accounts only"),
            "{path}: {v}"
        );
    }
    let resp = human
        .client
        .get(format!("{base}/api/bot/game/stream/{id}"))
        .bearer_auth(&human.token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);

    // The bot plays through its own API, and not in other games.
    let (s, v) = bot
        .post_empty(&format!("/api/bot/game/{id}/move/e7e6"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let other = register_bot(base, "Robo2").await;
    let resp = other
        .client
        .get(format!("{base}/api/bot/game/stream/{id}"))
        .bearer_auth(&other.token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    let (s, _) = other
        .post_empty(&format!("/api/bot/game/{id}/resign"))
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);

    // Chat: bounded length, a room lichess knows, players only.
    let long = "x".repeat(141);
    for (room, text, want) in [
        ("player", long.as_str(), StatusCode::BAD_REQUEST),
        ("lobby", "hi", StatusCode::BAD_REQUEST),
        ("player", "   ", StatusCode::BAD_REQUEST),
        ("spectator", "hello", StatusCode::OK),
    ] {
        let (s, v) = post_form(
            &bot,
            &format!("/api/bot/game/{id}/chat"),
            &[("room", room), ("text", text)],
        )
        .await;
        assert_eq!(s, want, "{room} {text:?}: {v}");
    }
    let (s, _) = post_form(
        &other,
        &format!("/api/bot/game/{id}/chat"),
        &[("room", "player"), ("text", "hi")],
    )
    .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, v) = post_form(
        &human,
        &format!("/api/board/game/{id}/chat"),
        &[("room", "player"), ("text", "hi bot")],
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");

    // An account that has played cannot become a bot.
    let (s, v) = human.post_empty("/api/bot/account/upgrade").await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["error"].as_str().unwrap().contains("no games"), "{v}");
    let (_, v) = human.get("/api/account").await;
    assert!(v.get("title").is_none(), "{v}");
}
