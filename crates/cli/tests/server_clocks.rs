//! Timed games against the real binary: real-time clocks charged per move
//! with lag compensation, a flag falling with no client connected, a
//! correspondence clock running out (the server's time moved forward by
//! its test offset file), giving time, and the time controls' refusals.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::*;

/// Sends a move over the socket (with the lag the client reports, if any)
/// and returns the state it produced.
async fn play(ws: &mut Ws, id: &str, uci: &str, ply: i64, lag: Option<i64>) -> Value {
    let mut frame = json!({"t": "move", "id": id, "u": uci, "ply": ply, "a": ply + 1});
    if let Some(l) = lag {
        frame["l"] = json!(l);
    }
    ws_send(ws, frame).await;
    state_at(ws, ply + 1).await
}

/// The next state at `ply` on a socket that follows the game.
async fn state_at(ws: &mut Ws, ply: i64) -> Value {
    loop {
        let m = ws_next(ws).await;
        assert_ne!(m["t"], "error", "{m}");
        if m["t"] == "gameState" && m["d"]["ply"] == ply {
            return m["d"].clone();
        }
    }
}

/// A socket of `p`'s that follows game `id`, past its `gameFull`.
async fn follow(p: &Player, id: &str) -> (Ws, Value) {
    let mut ws = ws_connect(&p.base, Some(&p.cookie)).await;
    ws_send(&mut ws, json!({"t": "sub", "id": id})).await;
    loop {
        let m = ws_next(&mut ws).await;
        if m["t"] == "gameFull" {
            return (ws, m["d"].clone());
        }
    }
}

fn ms(v: &Value) -> i64 {
    v.as_i64()
        .unwrap_or_else(|| panic!("not a number of ms: {v}"))
}

/// The game's export (JSON), polled until `done` holds or `within` passes.
async fn export_until(
    p: &Player,
    id: &str,
    within: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let until = Instant::now() + within;
    loop {
        let resp = p
            .client
            .get(format!("{}/game/export/{id}", p.base))
            .header("accept", "application/json")
            .send()
            .await
            .unwrap();
        let (s, g) = json_of(resp).await;
        assert_eq!(s, StatusCode::OK, "{g}");
        if done(&g) || Instant::now() > until {
            return g;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A server whose clock follows a file of milliseconds to add (its test
/// option), and that file: writing it lets days pass in a moment.
fn with_time_offset(name: &str) -> (TempDir, Server, std::path::PathBuf) {
    let dir = TempDir::new(name);
    let offset = dir.0.join("time-offset");
    std::fs::write(&offset, "0").unwrap();
    let server = Server::start_with(
        &dir.0.join("test.db"),
        &["--test-time-offset-file", offset.to_str().unwrap()],
    );
    (dir, server, offset)
}

// How much later than a client's own measure the server may start and
// stop a turn (scheduling on a busy 2-core machine), ms.
const SLACK_MS: i64 = 300;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blitz_game_charges_each_move_less_the_lag_its_client_reports() {
    let env = fresh("clock-blitz");
    let base = &env.server.base;
    let w = register(base, "Blitzer").await;
    let b = register(base, "Bullet").await;
    let (s, c) = w
        .post(
            "/api/challenge/Bullet",
            json!({"variant": "standard", "color": "white", "clock.limit": 180, "clock.increment": 2}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["speed"], "blitz");
    assert_eq!(
        c["timeControl"],
        json!({"type": "clock", "limit": 180, "increment": 2, "show": "3+2"})
    );
    assert_eq!(c["perf"]["name"], "Blitz");
    let id = c["id"].as_str().unwrap().to_owned();
    let (s, v) = b.post_empty(&format!("/api/challenge/{id}/accept")).await;
    assert_eq!(s, StatusCode::OK, "{v}");

    let (mut ww, full) = follow(&w, &id).await;
    assert_eq!(
        full["clock"],
        json!({"initial": 180_000, "increment": 2_000})
    );
    assert_eq!(full["speed"], "blitz");
    assert_eq!(full["state"]["wtime"], 180_000);
    assert_eq!(full["state"]["winc"], 2_000);
    let (mut bw, _) = follow(&b, &id).await;

    // Each side's first move is free, and adds nothing.
    play(&mut ww, &id, "e2e4", 0, None).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let st = play(&mut bw, &id, "e7e5", 1, None).await;
    // Nothing was charged; white's clock has just started.
    assert_eq!(ms(&st["btime"]), 180_000, "{st}");
    assert!(
        (180_000 - SLACK_MS..=180_000).contains(&ms(&st["wtime"])),
        "{st}"
    );

    // White's clock runs from black's move: 400 ms on the way, reported
    // as lag, are forgiven (the quota starts at 3 s); the increment is added.
    state_at(&mut ww, 2).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let st = play(&mut ww, &id, "g1f3", 2, Some(400)).await;
    let wtime = ms(&st["wtime"]);
    assert!(
        (182_000 - SLACK_MS..=182_000).contains(&wtime),
        "white: 180 s - (~400 ms - 400 ms lag) + 2 s, got {wtime}"
    );
    // Black's turn has just begun.
    assert!(
        (180_000 - SLACK_MS..=180_000).contains(&ms(&st["btime"])),
        "{st}"
    );

    // Black takes 400 ms and reports no lag: all of it is charged.
    state_at(&mut bw, 3).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let st = play(&mut bw, &id, "b8c6", 3, None).await;
    let btime = ms(&st["btime"]);
    assert!(
        (181_600 - SLACK_MS..=181_600).contains(&btime),
        "black: 180 s - 400 ms + 2 s, got {btime}"
    );

    // Black gives white 15 s while white's clock runs.
    state_at(&mut ww, 4).await;
    let (s, v) = b.post_empty(&format!("/api/round/{id}/add-time/15")).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let given = state_at(&mut ww, 4).await;
    assert!(ms(&given["wtime"]) >= wtime + 15_000 - SLACK_MS, "{given}");
    for bad in ["0", "86401", "x"] {
        let (s, v) = b
            .post_empty(&format!("/api/round/{id}/add-time/{bad}"))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {v}");
    }

    // The game's view has the clocks as they stand now.
    let (s, view) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(s, StatusCode::OK, "{view}");
    assert_eq!(view["speed"], "blitz");
    assert_eq!(view["timeControl"]["show"], "3+2");
    assert_eq!(view["clock"]["running"], true, "{view}");
    assert!(ms(&view["clock"]["white"]) <= ms(&given["wtime"]), "{view}");
    assert_eq!(view["clock"]["black"], st["btime"], "{view}");

    // The export names the time control.
    let resp = w
        .client
        .get(format!("{base}/game/export/{id}"))
        .header("accept", "application/x-chess-pgn")
        .send()
        .await
        .unwrap();
    let pgn = resp.text().await.unwrap();
    assert!(pgn.contains("[TimeControl \"180+2\"]"), "{pgn}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flag_falls_with_no_client_connected_and_a_late_move_is_refused() {
    let env = fresh("clock-flag");
    let base = &env.server.base;
    let w = register(base, "Slowpoke").await;
    let b = register(base, "Waiter").await;
    // 0+1: each clock starts with 3 s (lichess's rule for a 0-minute clock).
    let id = accepted_game(
        &w,
        &b,
        json!({"variant": "standard", "color": "white", "clock.limit": 0, "clock.increment": 1}),
    )
    .await;
    assert_eq!(w.mv(&id, "e2e4").await.0, StatusCode::OK);
    assert_eq!(b.mv(&id, "e7e5").await.0, StatusCode::OK);
    // Nobody is connected, and white does not move.
    let started = Instant::now();
    let g = export_until(&w, &id, Duration::from_secs(15), |g| {
        g["status"] != "started"
    })
    .await;
    assert_eq!(g["status"], "outoftime", "{g}");
    assert_eq!(g["winner"], "black", "{g}");
    assert!(
        started.elapsed() >= Duration::from_millis(2_900),
        "flagged after {:?}, before white's 3 s ran out",
        started.elapsed()
    );
    // A move after the flag is refused with the game's state.
    let (s, v) = w.mv(&id, "g1f3").await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert!(v.to_string().contains("outoftime"), "{v}");
    let mut stream = w.stream(&format!("/api/board/game/stream/{id}")).await;
    let full = stream.next_of("gameFull").await;
    assert_eq!(full["state"]["status"], "outoftime");
    assert_eq!(full["state"]["wtime"], 0);
    assert_eq!(full["state"]["moves"], "e2e4 e7e5");
    assert_eq!(full["speed"], "bullet", "0 + 40 × 1 s is a bullet estimate");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_clock_runs_out_when_its_days_pass() {
    let (_dir, server, offset) = with_time_offset("clock-days");
    let base = &server.base;
    let w = register(base, "Penpal").await;
    let b = register(base, "Postie").await;
    let id = accepted_game(&w, &b, json!({"color": "white", "days": 2})).await;
    let (s, c) = w.get("/api/account/playing").await;
    assert_eq!(s, StatusCode::OK);
    let now_playing = &c["nowPlaying"][0];
    assert_eq!(now_playing["speed"], "correspondence");
    assert!(
        (2 * 86_400 - 60..=2 * 86_400).contains(&now_playing["secondsLeft"].as_i64().unwrap()),
        "{now_playing}"
    );
    assert_eq!(w.mv(&id, "e2e3").await.0, StatusCode::OK);
    assert_eq!(b.mv(&id, "e7e6").await.0, StatusCode::OK);
    assert_eq!(w.mv(&id, "d2d3").await.0, StatusCode::OK);
    // A day and three quarters pass: black is told its time runs low (a
    // quarter of its two days is left), and still has it.
    let mut told = b.stream("/api/stream/event").await;
    std::fs::write(&offset, (86_400_000 * 7 / 4).to_string()).unwrap();
    let warning = told.next_of("timeRunningOut").await;
    assert_eq!(warning["game"]["gameId"], id.as_str(), "{warning}");
    assert_eq!(warning["game"]["isMyTurn"], true);
    let left = warning["game"]["secondsLeft"].as_i64().unwrap();
    assert!((0..=6 * 3600).contains(&left), "{warning}");
    let g = export_until(&w, &id, Duration::from_millis(10), |_| true).await;
    assert_eq!(g["status"], "started", "{g}");
    // Two more: black's two days are gone.
    std::fs::write(&offset, (3 * 86_400_000).to_string()).unwrap();
    let g = export_until(&w, &id, Duration::from_secs(10), |g| {
        g["status"] != "started"
    })
    .await;
    assert_eq!(g["status"], "outoftime", "{g}");
    assert_eq!(g["winner"], "white", "{g}");
    assert_eq!(g["speed"], "correspondence");
    assert_eq!(g["daysPerTurn"], 2, "{g}");
    // Correspondence clocks take no gift of time.
    let id = accepted_game(&w, &b, json!({"color": "white", "days": 1})).await;
    let (s, v) = b.post_empty(&format!("/api/round/{id}/add-time/15")).await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_controls_outside_lichess_ranges_are_refused_naming_the_field() {
    let env = fresh("clock-bad");
    let base = &env.server.base;
    let w = register(base, "Picky").await;
    register(base, "Target").await;
    for (body, field) in [
        (
            json!({"clock.limit": -1, "clock.increment": 0}),
            "clock.limit",
        ),
        (
            json!({"clock.limit": 10_801, "clock.increment": 0}),
            "clock.limit",
        ),
        (
            json!({"clock.limit": 60, "clock.increment": 181}),
            "clock.increment",
        ),
        (
            json!({"clock.limit": 0, "clock.increment": 0}),
            "clock.limit",
        ),
        (json!({"clock.limit": 60}), "clock.increment"),
        (json!({"clock.increment": 2}), "clock.limit"),
        (json!({"days": 4}), "days"),
        (json!({"days": 0}), "days"),
        (
            json!({"days": 3, "clock.limit": 60, "clock.increment": 0}),
            "days",
        ),
    ] {
        let (s, v) = w.post("/api/challenge/Target", body.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        assert!(v["error"].as_str().unwrap().contains(field), "{body}: {v}");
    }
    // Untimed and correspondence challenges as lichess writes them.
    let (s, v) = w.post("/api/challenge/Target", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["timeControl"], json!({"type": "unlimited"}));
    assert_eq!(v["speed"], "correspondence");
    let (s, v) = w.post("/api/challenge/Target", json!({"days": 3})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        v["timeControl"],
        json!({"type": "correspondence", "daysPerTurn": 3})
    );
}

/// A real-time seek's request: its ndjson response, while it is open.
async fn seek_stream(p: &Player, body: Value) -> reqwest::Response {
    let resp = p
        .client
        .post(format!("{}/api/board/seek", p.base))
        .bearer_auth(&p.token)
        .json(&body)
        .timeout(Duration::from_secs(120))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    resp
}

/// The `gameId` of a real-time seek's last line (the stream then ends).
async fn paired_game(resp: reqwest::Response) -> String {
    let text = tokio::time::timeout(Duration::from_secs(30), resp.text())
        .await
        .expect("the seek's stream ends once paired")
        .unwrap();
    let last = text
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .expect("a last line");
    let v: Value = serde_json::from_str(last).unwrap();
    v["gameId"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_pairing_pairs_two_seekers_and_a_seek_lapses_with_its_request() {
    let env = fresh("clock-seek");
    let base = &env.server.base;
    let a = register(base, "Seeker").await;
    let b = register(base, "Finder").await;
    let blitz = json!({"time": 3, "increment": 2, "variant": "standard"});
    // The first seeker waits on its open request; the second is paired with it.
    let waiting = seek_stream(&a, blitz.clone()).await;
    let (_, open) = b.get("/api/challenge/open").await;
    let listed = &open["challenges"][0];
    assert_eq!(listed["challenger"]["name"], "Seeker", "{open}");
    assert_eq!(listed["timeControl"]["show"], "3+2");
    let second = seek_stream(&b, blitz.clone()).await;
    let game = paired_game(second).await;
    assert_eq!(paired_game(waiting).await, game);
    let mut stream = a.stream(&format!("/api/board/game/stream/{game}")).await;
    let full = stream.next_of("gameFull").await;
    assert_eq!(
        full["clock"],
        json!({"initial": 180_000, "increment": 2_000})
    );
    let names = [&full["white"]["name"], &full["black"]["name"]];
    assert!(
        names.contains(&&json!("Seeker")) && names.contains(&&json!("Finder")),
        "{full}"
    );

    // A seek whose rating range leaves the other out pairs nobody: both wait.
    let (s, high) = a
        .post(
            "/api/board/seek",
            json!({"days": 3, "ratingRange": "1800-2500"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{high}");
    assert!(high["gameId"].is_null(), "{high}");
    let (s, low) = b.post("/api/board/seek", json!({"days": 3})).await;
    assert_eq!(s, StatusCode::OK, "{low}");
    assert!(
        low["gameId"].is_null(),
        "a 1500 player is outside 1800-2500: {low}"
    );
    let (s, v) = b
        .post_empty(&format!(
            "/api/challenge/{}/accept",
            high["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    assert!(v["error"].as_str().unwrap().contains("rating range"), "{v}");
    // The same days without a range take the waiting seek at once.
    let (s, v) = a.post("/api/board/seek", json!({"days": 3})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["gameId"], low["id"], "{v}");

    // A real-time seek whose request goes away is withdrawn.
    let lapsing = seek_stream(&a, json!({"time": 10, "increment": 0})).await;
    let (_, open) = b.get("/api/challenge/open").await;
    let id = open["challenges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["timeControl"]["show"] == "10+0")
        .expect("the 10+0 seek is listed")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    drop(lapsing);
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, c) = a.get(&format!("/api/challenge/{id}/show")).await;
        if c["status"] == "canceled" {
            break;
        }
        assert!(Instant::now() < until, "the lapsed seek is still {c}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Faults are named.
    for (body, field) in [
        (json!({"time": -1, "increment": 0}), "time"),
        (json!({"time": 3}), "increment"),
        (json!({"time": 3, "increment": 2, "days": 3}), "days"),
        (
            json!({"time": 3, "increment": 2, "ratingRange": "1800-1500"}),
            "ratingRange",
        ),
        (
            json!({"time": 3, "increment": 2, "color": "white"}),
            "color",
        ),
        (json!({"days": 4}), "days"),
    ] {
        let (s, v) = a.post("/api/board/seek", body.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        assert!(v["error"].as_str().unwrap().contains(field), "{body}: {v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_plays_on_the_clock_within_its_share_of_it() {
    let env = fresh("clock-ai");
    let base = &env.server.base;
    let w = register(base, "Versus").await;
    let (s, g) = w
        .post(
            "/api/challenge/ai",
            json!({"level": 8, "variant": "standard", "color": "white", "clock.limit": 60, "clock.increment": 0}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{g}");
    let id = g["id"].as_str().unwrap().to_owned();
    assert_eq!(g["speed"], "bullet");
    let (mut ws, _) = follow(&w, &id).await;
    // Level 8 thinks for seconds in an untimed game; on a 1-minute clock it
    // answers within a fortieth of its time (1.5 s) and a margin.
    for (ply, mv) in [(0, "e2e4"), (2, "g1f3"), (4, "b1c3")] {
        play(&mut ws, &id, mv, ply, None).await;
        let started = Instant::now();
        let reply = state_at(&mut ws, ply + 2).await;
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "the computer took {:?}",
            started.elapsed()
        );
        if ply >= 2 {
            let btime = ms(&reply["btime"]);
            assert!(
                (55_000..60_000).contains(&btime),
                "black's clock was charged: {reply}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vacation_pauses_correspondence_turns_and_its_days_are_counted() {
    let (_dir, server, offset) = with_time_offset("clock-vacation");
    let base = &server.base;
    let w = register(base, "Homebody").await;
    let b = register(base, "Traveller").await;
    let (s, v) = b.get("/api/account/vacation").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (&v["away"], &v["daysLeft"]),
        (&json!(false), &json!(30.0)),
        "{v}"
    );
    let id = accepted_game(&w, &b, json!({"color": "white", "days": 1})).await;
    assert_eq!(w.mv(&id, "e2e3").await.0, StatusCode::OK);
    // Black leaves with its turn under way: its clock stops.
    let (s, v) = b.post("/api/account/vacation", json!({"away": true})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["away"], true);
    // Three days pass: black's one day would have run out twice over.
    std::fs::write(&offset, (3 * 86_400_000).to_string()).unwrap();
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let (_, view) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(view["status"], "started", "{view}");
    assert_eq!(view["clock"]["running"], false, "{view}");
    let (_, v) = b.get("/api/account/vacation").await;
    let left = v["daysLeft"].as_f64().unwrap();
    assert!((26.9..=27.0).contains(&left), "three days used: {v}");
    // Black moves while away; white's turn runs, and white's answer
    // starts black's next turn paused.
    assert_eq!(b.mv(&id, "e7e6").await.0, StatusCode::OK);
    assert_eq!(w.mv(&id, "d2d3").await.0, StatusCode::OK);
    let (_, view) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(
        view["clock"]["running"], false,
        "black's new turn is paused: {view}"
    );
    // Back home: the turn runs again, with the whole day.
    let (s, v) = b
        .post("/api/account/vacation", json!({"away": false}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["away"], false);
    let (_, view) = w.get(&format!("/api/game/{id}")).await;
    assert_eq!(view["clock"]["running"], true, "{view}");
    let black = view["clock"]["black"].as_i64().unwrap();
    assert!(
        (86_400_000 - 60_000..=86_400_000).contains(&black),
        "{view}"
    );
    // A day and more later, black's time is up.
    std::fs::write(&offset, (3 * 86_400_000 + 86_400_000 + 2_000).to_string()).unwrap();
    let g = export_until(&w, &id, Duration::from_secs(10), |g| {
        g["status"] != "started"
    })
    .await;
    assert_eq!(
        (&g["status"], &g["winner"]),
        (&json!("outoftime"), &json!("white")),
        "{g}"
    );
    // Faults are named.
    let (s, v) = b.post("/api/account/vacation", json!({})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["error"].as_str().unwrap().contains("away"), "{v}");
}
