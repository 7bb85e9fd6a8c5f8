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

// ---------------------------------------------------------------------------
// The bridge, `chessmerge bot`, as a child process against the real server.

/// Debian's Stockfish (scripts/test installs it when missing).
const STOCKFISH: &str = "/usr/games/stockfish";

/// A running `chessmerge bot`, its log kept; killed on drop.
struct Bridge {
    child: std::process::Child,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Bridge {
    fn start(base: &str, bot: &Player, extra: &[&str]) -> Bridge {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_chessmerge"))
            .args([
                "bot",
                "--url",
                base,
                "--token",
                &bot.token,
                "--movetime",
                "40",
            ])
            .args(extra)
            .env("RUST_LOG", "info")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start chessmerge bot");
        let stderr = child.stderr.take().unwrap();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                kept.lock().unwrap().push(line);
            }
        });
        Bridge { child, log }
    }

    fn log_text(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Waits until `name` is online (the bridge follows its event stream).
async fn until_online(base: &str, name: &str, bridge: &Bridge) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, v) = get_anonymous(base, &format!("/api/users/status?ids={name}")).await;
        if v[0]["online"] == true {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the bridge did not come online; its log:\n{}",
            bridge.log_text()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A challenge's status, polled until it leaves `created`.
async fn answered(p: &Player, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, v) = p.get(&format!("/api/challenge/{id}/show")).await;
        if v["status"] != "created" {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "challenge {id} not answered: {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A challenge from `human` (white) to `bot` in `variant`; its id.
async fn challenge_bot(human: &Player, bot: &str, variant: &str) -> String {
    let (s, v) = human
        .post(
            &format!("/api/challenge/{bot}"),
            json!({"variant": variant, "color": "white"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v["id"].as_str().unwrap().to_owned()
}

/// A pseudo-random number (splitmix64), so that the human's moves vary
/// from move to move but every run plays the same.
fn next_random(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The human plays random legal moves by the board API until the game
/// ends, or until it is to move after `stop_after` of its moves (the bot
/// has answered them); answers the last state.
async fn human_plays(
    human: &Player,
    id: &str,
    variant: chessmerge_rules::Variant,
    stop_after: Option<usize>,
    bridge: &Bridge,
) -> Value {
    let mut stream = human.stream(&format!("/api/board/game/stream/{id}")).await;
    let full = stream.next().await.unwrap();
    let mut state = full["state"].clone();
    let mut seed = 7u64;
    let mut played = 0;
    loop {
        if state["status"] != "started" {
            return state;
        }
        let moves = state["moves"].as_str().unwrap();
        let mut game = chessmerge_rules::Game::new(chessmerge_rules::Position::new(variant));
        for m in moves.split_ascii_whitespace() {
            game.play_uci(m).unwrap();
        }
        assert!(game.moves().len() < 600, "the game does not end: {moves}");
        if game.position().turn() == chessmerge_rules::Color::White {
            if stop_after == Some(played) {
                return state;
            }
            let legal = game.position().legal_moves();
            let mv = legal[(next_random(&mut seed) % legal.len() as u64) as usize];
            let (s, v) = human.mv(id, &mv.to_string()).await;
            assert_eq!(s, StatusCode::OK, "{mv}: {v}");
            played += 1;
        }
        state = loop {
            let line = tokio::time::timeout(Duration::from_secs(60), stream.next())
                .await
                .unwrap_or_else(|_| {
                    panic!("no reply from the bot; its log:\n{}", bridge.log_text())
                })
                .expect("the game stream ended");
            if line["type"] == "gameState" && line["moves"] != state["moves"] {
                break line;
            }
        };
    }
}

#[tokio::test]
async fn the_bridge_with_our_engine_plays_a_chessmerge_game_to_its_end() {
    let env = fresh("bot-bridge-ours");
    let base = env.server.base.as_str();
    let human = register(base, "Hugo").await;
    let bot = register_bot(base, "Merger").await;
    let bridge = Bridge::start(base, &bot, &["--variants", "chessmerge,fusion"]);
    until_online(base, "merger", &bridge).await;

    // A variant it was not told to play is declined with lichess's key.
    let refused = challenge_bot(&human, "merger", "standard").await;
    let v = answered(&human, &refused).await;
    assert_eq!(
        (&v["status"], &v["declineReasonKey"]),
        (&json!("declined"), &json!("variant")),
        "{v}"
    );

    let id = challenge_bot(&human, "merger", "chessmerge").await;
    let v = answered(&human, &id).await;
    assert_eq!(v["status"], "accepted", "{v}");
    let end = human_plays(
        &human,
        &id,
        chessmerge_rules::Variant::ChessMerge,
        None,
        &bridge,
    )
    .await;
    let log = bridge.log_text();
    assert!(
        ["mate", "stalemate", "draw"].contains(&end["status"].as_str().unwrap()),
        "the game ended by the rules, not by a resignation: {end}\n{log}"
    );
    assert!(!log.contains("refused"), "no move refused:\n{log}");
    assert!(
        log.contains("accepting") && log.contains("declining"),
        "{log}"
    );
    let (_, export) = human.get(&format!("/game/export/{id}")).await;
    assert!(
        export["raw"]
            .as_str()
            .unwrap()
            .contains("[Black \"Merger\"]")
    );
}

#[tokio::test]
async fn the_bridge_plays_standard_with_stockfish() {
    assert!(
        std::path::Path::new(STOCKFISH).exists(),
        "{STOCKFISH} is missing: install Debian's stockfish (apt-get install stockfish; scripts/test does)"
    );
    let env = fresh("bot-bridge-stockfish");
    let base = env.server.base.as_str();
    let human = register(base, "Hugo").await;
    let bot = register_bot(base, "Fishy").await;
    let bridge = Bridge::start(
        base,
        &bot,
        &["--engine", STOCKFISH, "--engine-option", "Threads=1"],
    );
    until_online(base, "fishy", &bridge).await;

    // Stockfish declares no UCI_Variant: standard only.
    let refused = challenge_bot(&human, "fishy", "chessmerge").await;
    let v = answered(&human, &refused).await;
    assert_eq!(v["declineReasonKey"], "standard", "{v}");

    let id = challenge_bot(&human, "fishy", "standard").await;
    assert_eq!(answered(&human, &id).await["status"], "accepted");
    let end = human_plays(
        &human,
        &id,
        chessmerge_rules::Variant::Standard,
        None,
        &bridge,
    )
    .await;
    let log = bridge.log_text();
    assert_eq!(
        (&end["status"], &end["winner"]),
        (&json!("mate"), &json!("black")),
        "Stockfish mates a random mover: {end}\n{log}"
    );
    assert!(
        log.contains("Stockfish") || log.contains("stockfish"),
        "{log}"
    );
}

#[tokio::test]
async fn a_restarted_bridge_resumes_its_game_where_it_stands() {
    let env = fresh("bot-bridge-resume");
    let base = env.server.base.as_str();
    let human = register(base, "Hugo").await;
    let bot = register_bot(base, "Phoenix").await;
    let mut first = Bridge::start(base, &bot, &[]);
    until_online(base, "phoenix", &first).await;
    let id = challenge_bot(&human, "phoenix", "chessmerge").await;
    assert_eq!(answered(&human, &id).await["status"], "accepted");
    // Three moves each, then the bridge dies with the human to move.
    let state = human_plays(
        &human,
        &id,
        chessmerge_rules::Variant::ChessMerge,
        Some(3),
        &first,
    )
    .await;
    assert_eq!(state["status"], "started");
    first.kill();
    let (s, v) = human.get(&format!("/api/game/{id}")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["turn"], "white", "{v}");

    // The human moves while no bridge runs; a new bridge finds the game
    // through /api/account/playing and answers.
    let second = Bridge::start(base, &bot, &[]);
    let end = human_plays(
        &human,
        &id,
        chessmerge_rules::Variant::ChessMerge,
        Some(2),
        &second,
    )
    .await;
    let moves = end["moves"].as_str().unwrap().split_whitespace().count();
    // Ply 8 is the bot's: the new bridge answered (the random human may be
    // mated there; otherwise it answers twice).
    let expected = if end["status"] == "started" { 10 } else { 8 };
    assert!(
        moves >= 8 && (moves == expected || end["status"] != "started"),
        "the resumed bridge answered: {end}\n{}",
        second.log_text()
    );
    assert!(
        second.log_text().contains(&format!("game={id}")),
        "{}",
        second.log_text()
    );
}

// ---------------------------------------------------------------------------
// What lichess's own clients need beyond the first replay: lichess-bot's
// calls around a declined challenge, a standard game from a FEN, a draw
// agreed with `offeringDraw`, a rematch and chat; berserk's request bodies.

/// A standard position other than the start, where neither side can end
/// the game in a move or two (kings and pawns).
const PAWNS_FEN: &str = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1";

/// A form POST's answer (`post_form` with a status check).
async fn form_ok(p: &Player, path: &str, form: &[(&str, &str)]) -> Value {
    let (s, v) = post_form(p, path, form).await;
    assert_eq!(s, StatusCode::OK, "{path}: {v}");
    v
}

#[tokio::test]
async fn lichess_bot_survives_a_decline_and_plays_from_a_fen_to_an_agreed_draw_and_a_rematch() {
    let env = fresh("bot-lichess-clients");
    let base = env.server.base.as_str();
    let alice = register(base, "Alice").await;
    let bot = register_bot(base, "Botty").await;
    let mut events = RawLines::open(&bot, "/api/stream/event").await;
    let mut alice_events = RawLines::open(&alice, "/api/stream/event").await;

    // 1. A merge-variant challenge, declined as lichess-bot declines it
    // (form `reason=variant`): both keys of lichess's decline.
    let (s, v) = alice
        .post(
            "/api/challenge/botty",
            json!({"variant": "chessmerge", "color": "random"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let merge = v["id"].as_str().unwrap().to_owned();
    let c = events.next_of("challenge").await;
    assert_eq!(c["challenge"]["perf"]["icon"], ";", "{c}");
    assert_eq!(c["challenge"]["perf"]["name"], "Correspondence", "{c}");
    form_ok(
        &bot,
        &format!("/api/challenge/{merge}/decline"),
        &[("reason", "variant")],
    )
    .await;
    let declined = alice_events.next_of("challengeDeclined").await;
    let expected_text = "I'm not willing to play this variant right now.";
    let (_, shown) = alice.get(&format!("/api/challenge/{merge}/show")).await;
    for c in [&declined["challenge"], &shown] {
        assert_eq!(
            (&c["status"], &c["declineReasonKey"], &c["declineReason"]),
            (&json!("declined"), &json!("variant"), &json!(expected_text)),
            "{c}"
        );
        assert_eq!(c["finalColor"], "random", "never started: {c}");
    }

    // 2. The bot keeps going: its stream carries the next challenge, a
    // standard one from a FEN, which lichess calls fromPosition (and
    // `variant=fromPosition` is how a lichess client asks for it).
    let (s, v) = alice
        .post(
            "/api/challenge/botty",
            json!({"variant": "fromPosition", "color": "white"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "fromPosition needs a fen: {v}");
    assert!(v["error"].as_str().unwrap().contains("fen"), "{v}");
    let (s, v) = alice
        .post(
            "/api/challenge/botty",
            json!({"variant": "fromPosition", "color": "white", "fen": PAWNS_FEN}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["id"].as_str().unwrap().to_owned();
    let from_position = json!({"key": "fromPosition", "name": "From Position", "short": "FEN"});
    assert_eq!(v["variant"], from_position, "{v}");
    let c = events.next_of("challenge").await;
    assert_eq!(c["challenge"]["id"], id.as_str());
    assert_eq!(c["challenge"]["variant"]["key"], "fromPosition", "{c}");
    assert_eq!(c["challenge"]["initialFen"], PAWNS_FEN, "{c}");
    // A standard challenge from the start is still `standard`.
    let (_, v) = alice
        .post(
            "/api/challenge/botty",
            json!({"variant": "standard", "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}),
        )
        .await;
    assert_eq!(v["variant"]["key"], "standard", "{v}");
    assert!(v.get("initialFen").is_none(), "{v}");
    let plain = v["id"].as_str().unwrap().to_owned();
    let (s, v) = alice
        .post_empty(&format!("/api/challenge/{plain}/cancel"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");

    form_ok(&bot, &format!("/api/challenge/{id}/accept"), &[]).await;
    let start = events.next_of("gameStart").await;
    let g = &start["game"];
    assert_eq!(g["id"], id.as_str());
    assert_eq!(g["variant"]["key"], "fromPosition", "{g}");
    assert_eq!(g["status"], json!({"id": 20, "name": "started"}), "{g}");
    assert_eq!(g["compat"], json!({"bot": true, "board": true}), "{g}");
    let mut game = RawLines::open(&bot, &format!("/api/bot/game/stream/{id}")).await;
    let full = game.next().await.unwrap();
    assert_eq!(full["type"], "gameFull");
    assert_eq!(full["variant"], from_position, "{full}");
    assert_eq!(full["initialFen"], PAWNS_FEN, "{full}");

    // Chat reaches the bot's game stream (lichess-bot answers `!help`),
    // its own lines too, as lichess sends them.
    form_ok(
        &alice,
        &format!("/api/board/game/{id}/chat"),
        &[("room", "player"), ("text", "!help")],
    )
    .await;
    let said = game.next_of("chatLine").await;
    assert_eq!(
        said,
        json!({"type": "chatLine", "username": "Alice", "text": "!help", "room": "player"})
    );
    form_ok(
        &bot,
        &format!("/api/bot/game/{id}/chat"),
        &[
            ("room", "spectator"),
            ("text", "Supported commands: !wait, !name"),
        ],
    )
    .await;
    let said = game.next_of("chatLine").await;
    assert_eq!(
        (&said["username"], &said["room"]),
        (&json!("Botty"), &json!("spectator")),
        "{said}"
    );

    // 3. A draw agreed as lichess-bot agrees: the human offers with a
    // move, the bot answers with a move and `offeringDraw=true`.
    let (s, v) = alice
        .post_empty(&format!("/api/board/game/{id}/move/e2e4?offeringDraw=true"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let st = game.next_of("gameState").await;
    assert_eq!(
        (&st["moves"], &st["wdraw"]),
        (&json!("e2e4"), &json!(true)),
        "{st}"
    );
    let (s, v) = bot
        .post_empty(&format!("/api/bot/game/{id}/move/e7e5?offeringDraw=true"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let end = game.next_of("gameState").await;
    assert_eq!(
        (&end["moves"], &end["status"], &end["reason"]),
        (&json!("e2e4 e7e5"), &json!("draw"), &json!("agreement")),
        "{end}"
    );
    assert!(end.get("winner").is_none(), "{end}");
    assert_eq!(
        (&end["wdraw"], &end["bdraw"]),
        (&json!(false), &json!(false))
    );
    assert!(game.next().await.is_none(), "the stream ends with the game");
    let finish = events.next_of("gameFinish").await;
    assert_eq!(
        finish["game"]["status"],
        json!({"id": 34, "name": "draw"}),
        "{finish}"
    );

    // Its exports: From Position, lichess's Termination, casual ratings.
    let (_, export) = alice.get(&format!("/game/export/{id}")).await;
    let pgn = export["raw"].as_str().unwrap();
    for tag in [
        "[Variant \"From Position\"]",
        "[SetUp \"1\"]",
        &format!("[FEN \"{PAWNS_FEN}\"]"),
        "[Termination \"Normal\"]",
        "[Result \"1/2-1/2\"]",
    ] {
        assert!(pgn.contains(tag), "{tag} in\n{pgn}");
    }
    let resp = http()
        .get(format!("{base}/game/export/{id}"))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (&v["variant"], &v["rated"]),
        (&json!("fromPosition"), &json!(false))
    );
    for side in ["white", "black"] {
        assert!(
            v["players"][side]["rating"].is_i64(),
            "casual game's {side}: {v}"
        );
    }

    // 4. A rematch offered to the bot reaches it as a challenge, colours
    // swapped, from the same position.
    let (s, v) = alice
        .post_empty(&format!("/api/board/game/{id}/rematch"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let rematch = v["challenge"]["id"]
        .as_str()
        .expect("a challenge")
        .to_owned();
    assert_eq!(v["challenge"]["color"], "black", "{v}");
    let c = events.next_of("challenge").await;
    let c = &c["challenge"];
    assert_eq!(c["id"], rematch.as_str());
    assert_eq!(
        (
            &c["variant"]["key"],
            &c["initialFen"],
            &c["destUser"]["name"]
        ),
        (&json!("fromPosition"), &json!(PAWNS_FEN), &json!("Botty")),
        "{c}"
    );
    form_ok(&bot, &format!("/api/challenge/{rematch}/accept"), &[]).await;
    let start = events.next_of("gameStart").await;
    assert_eq!(start["game"]["id"], rematch.as_str());
    assert_eq!(
        start["game"]["color"], "white",
        "the bot is white now: {start}"
    );
    assert_eq!(start["game"]["isMyTurn"], true, "{start}");
    let (s, v) = bot
        .post_empty(&format!("/api/bot/game/{rematch}/abort"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");

    // 5. finalColor: a random challenge's colour once its game has begun.
    let (_, v) = alice
        .post("/api/challenge/botty", json!({"variant": "standard"}))
        .await;
    let random = v["id"].as_str().unwrap().to_owned();
    assert_eq!(
        (&v["color"], &v["finalColor"]),
        (&json!("random"), &json!("random"))
    );
    form_ok(&bot, &format!("/api/challenge/{random}/accept"), &[]).await;
    let (_, shown) = alice.get(&format!("/api/challenge/{random}/show")).await;
    let (_, g) = alice.get(&format!("/api/game/{random}")).await;
    assert_eq!(shown["finalColor"], g["you"], "{shown}\n{g}");
    assert!(["white", "black"].contains(&shown["finalColor"].as_str().unwrap()));
    let (s, v) = alice
        .post_empty(&format!("/api/board/game/{random}/abort"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
}

#[tokio::test]
async fn challenge_bodies_as_lichess_clients_send_them() {
    let env = fresh("bot-lichess-bodies");
    let base = env.server.base.as_str();
    let alice = register(base, "Alice").await;
    let _bob = register(base, "Bob").await;

    // berserk's `challenges.create_open`: every field, unset ones null.
    let (s, v) = alice
        .post(
            "/api/challenge/open",
            json!({"clock.limit": null, "clock.increment": null, "variant": "standard",
                   "fen": null, "rated": false, "name": null}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (&v["kind"], &v["rated"]),
        (&json!("open"), &json!(false)),
        "{v}"
    );
    // berserk's `challenges.create` (JSON, `rated` a boolean, the rest null).
    let (s, v) = alice
        .post(
            "/api/challenge/bob",
            json!({"rated": true, "clock.limit": null, "clock.increment": null, "days": null,
                   "color": "white", "variant": "standard", "fen": null, "keepAliveStream": false,
                   "rules": "noAbort", "message": "hi {opponent}"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["rated"], true, "{v}");
    let cancel = |v: Value| {
        let alice = &alice;
        async move {
            let id = v["id"].as_str().unwrap().to_owned();
            let (s, v) = alice
                .post_empty(&format!("/api/challenge/{id}/cancel"))
                .await;
            assert_eq!(s, StatusCode::OK, "{v}");
        }
    };
    cancel(v).await;

    // Forms with Python's and lila's boolean words.
    for (word, rated) in [
        ("False", false),
        ("false", false),
        ("True", true),
        ("0", false),
    ] {
        let (s, v) = post_form(
            &alice,
            "/api/challenge/bob",
            &[("rated", word), ("variant", "standard")],
        )
        .await;
        assert_eq!(s, StatusCode::OK, "rated={word}: {v}");
        assert_eq!(v["rated"], rated, "rated={word}: {v}");
        cancel(v).await;
    }

    // What is still refused names the fault: a misspelled field of ours,
    // a word that is no boolean, lichess's fields that cannot be honoured.
    for (body, names) in [
        (json!({"varient": "standard"}), "varient"),
        (json!({"rated": "maybe"}), "rated"),
        (json!({"acceptByToken": "lip_x"}), "acceptByToken"),
        (json!({"clock.limit": 300}), "clock.limit"),
    ] {
        let (s, v) = alice.post("/api/challenge/bob", body.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        assert!(v["error"].as_str().unwrap().contains(names), "{body}: {v}");
    }
    let (s, v) = post_form(&alice, "/api/challenge/open", &[("nmae", "x")]).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["error"].as_str().unwrap().contains("nmae"), "{v}");
}

/// The berserk release the test runs (PyPI).
const BERSERK: &str = "berserk==0.14.0";

/// A Python with berserk: a venv under the target directory, made once
/// (pip needs PyPI then) and reused by later runs.
fn berserk_python() -> std::path::PathBuf {
    use std::process::Command;
    let venv = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("berserk-venv");
    let python = venv.join("bin").join("python");
    let installed = venv.join(BERSERK);
    if installed.exists() {
        return python;
    }
    let s = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .expect("python3 -m venv: this test needs python3 with venv");
    assert!(s.success(), "python3 -m venv {venv:?} failed");
    let out = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            BERSERK,
        ])
        .output()
        .expect("pip");
    assert!(
        out.status.success(),
        "pip install {BERSERK} failed (is PyPI reachable?):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(&installed, "").unwrap();
    python
}

#[tokio::test]
async fn berserk_s_challenge_board_bot_account_and_export_calls_work() {
    let python = berserk_python();
    let env = fresh("bot-berserk");
    let base = env.server.base.as_str();
    let human = register(base, "Bea").await;
    // Made a bot by berserk's `account.upgrade_to_bot`.
    let bot = register(base, "Bert").await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/berserk_calls.py");
    let started = Instant::now();
    let mut child = std::process::Command::new(&python)
        .args([script, base, &human.token, &bot.token, "Bert", "Bea"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The server is another process: waiting here blocks only the test.
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("berserk's calls took over 60 s");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "no report ({e}):\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let results = report["results"].as_object().unwrap();
    let failed: Vec<_> = results.iter().filter(|(_, v)| *v != "ok").collect();
    assert!(
        failed.is_empty() && out.status.success(),
        "{failed:?}\n{report}"
    );
    assert_eq!(results.len(), 21, "every call ran: {report}");
    assert_eq!(
        report["seen"],
        json!({"gameFull.variant": "standard", "export.status": "resign",
               "pgn.termination": ["[Termination \"Normal\"]"]}),
        "{report}"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
}

/// Issue 48: a bot plays a 3+2 game as lichess-bot reads one: the
/// challenge's speed and clock (what its `time_controls` and
/// `min_base`/`max_increment` filter on), `gameFull`'s `clock`, and the
/// times it hands its engine (`wtime`/`btime`/`winc`/`binc`), charged by
/// the server as the bot thinks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_plays_a_3_plus_2_game_on_the_clock_as_lichess_bot_reads_it() {
    let env = fresh("bot-blitz");
    let base = env.server.base.as_str();
    let alice = register(base, "Blitzhuman").await;
    let bot = register(base, "Blitzbot").await;
    let (s, v) = bot.post_empty("/api/bot/account/upgrade").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let mut events = RawLines::open(&bot, "/api/stream/event").await;
    let (s, v) = alice
        .post(
            "/api/challenge/blitzbot",
            json!({"variant": "standard", "color": "white", "clock.limit": 180, "clock.increment": 2}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["id"].as_str().unwrap().to_owned();
    let c = events.next_of("challenge").await["challenge"].clone();
    assert_eq!(c["speed"], "blitz", "{c}");
    assert_eq!(
        c["timeControl"],
        json!({"type": "clock", "limit": 180, "increment": 2, "show": "3+2"})
    );
    assert_eq!(c["perf"]["name"], "Blitz");
    let (s, v) = bot.post_empty(&format!("/api/challenge/{id}/accept")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let start = events.next_of("gameStart").await;
    assert_eq!(start["game"]["speed"], "blitz");
    assert_eq!(start["game"]["secondsLeft"], 180, "{start}");

    let mut game = RawLines::open(&bot, &format!("/api/bot/game/stream/{id}")).await;
    let full = game.next_of("gameFull").await;
    assert_eq!(full["speed"], "blitz");
    assert_eq!(
        full["clock"],
        json!({"initial": 180_000, "increment": 2_000})
    );
    assert_eq!(
        [
            &full["state"]["wtime"],
            &full["state"]["btime"],
            &full["state"]["binc"]
        ],
        [&json!(180_000), &json!(180_000), &json!(2_000)]
    );
    // The first moves are free; then the bot's clock runs from the
    // human's move: it thinks 300 ms, and is charged that (the bot API
    // reports no lag), plus the round trips.
    assert_eq!(alice.mv(&id, "e2e4").await.0, StatusCode::OK);
    game.next_of("gameState").await;
    let (s, v) = bot
        .post_empty(&format!("/api/bot/game/{id}/move/e7e5"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    game.next_of("gameState").await;
    assert_eq!(alice.mv(&id, "g1f3").await.0, StatusCode::OK);
    let st = game.next_of("gameState").await;
    let btime = st["btime"].as_i64().unwrap();
    assert!(
        (179_900..=180_000).contains(&btime),
        "black's turn has just begun: {st}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (s, v) = bot
        .post_empty(&format!("/api/bot/game/{id}/move/b8c6"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let st = game.next_of("gameState").await;
    let btime = st["btime"].as_i64().unwrap();
    assert!(
        (181_000..=181_700).contains(&btime),
        "180 s - ~300 ms + 2 s, got {btime}"
    );
    let (_, v) = bot.get("/api/account/playing").await;
    let left = v["nowPlaying"][0]["secondsLeft"].as_i64().unwrap();
    assert!((181..=182).contains(&left), "{v}");
    // The game ends; the stream with it.
    let (s, v) = alice
        .post_empty(&format!("/api/board/game/{id}/resign"))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let end = game.next_of("gameState").await;
    assert_eq!(
        (&end["status"], &end["winner"]),
        (&json!("resign"), &json!("black"))
    );
    assert!(game.next().await.is_none(), "the stream ends with the game");
}
