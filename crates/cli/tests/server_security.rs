//! Hardening findings 4, 5 and 7 of the attack report (issue 11), each
//! against the real server: sessions that end (and take their sockets and
//! streams with them), login limits that cannot lock the owner out, and
//! strict input with security headers.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::*;

fn cookie_value(resp: &reqwest::Response, name: &str) -> Option<String> {
    resp.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| {
            let (kv, _) = v.split_once(';').unwrap_or((v, ""));
            let (k, val) = kv.split_once('=')?;
            (k == name && !val.is_empty()).then(|| val.to_owned())
        })
}

/// The socket's next error frame, past the events before it.
async fn next_error(ws: &mut Ws) -> Value {
    loop {
        let frame = ws_next(ws).await;
        if frame["t"] == "error" {
            return frame;
        }
    }
}

async fn tokens_of(c: &reqwest::Client, base: &str, bearer: &str) -> Vec<Value> {
    let resp = c
        .get(format!("{base}/api/tokens"))
        .bearer_auth(bearer)
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v["tokens"].as_array().unwrap().clone()
}

/// Finding 4: after logout an open WebSocket accepted moves and an event
/// stream kept delivering; tokens could not be listed or revoked together.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finding_4_ended_sessions_close_their_sockets_and_streams() {
    let env = fresh("sessions-end");
    let base = &env.server.base;
    let c = http();
    let alice = register(base, "alice").await;
    let _bob = register(base, "bob").await;
    let cookie = login_cookie(base, "alice").await;

    // The socket, signed in with the session cookie.
    let mut ws = ws_connect(base, Some(&cookie)).await;
    assert_eq!(ws_next(&mut ws).await["user"]["name"], "alice");
    // An event stream on the API token.
    let mut events = alice.stream("/api/stream/event").await;

    // The list shows sessions and API tokens, never their secrets.
    let listed = tokens_of(&c, base, &alice.token).await;
    assert!(
        listed
            .iter()
            .any(|t| t["kind"] == "api" && t["current"] == true)
    );
    assert!(listed.iter().filter(|t| t["kind"] == "session").count() >= 2);
    assert!(
        !listed.iter().any(|t| t.to_string().contains(&alice.token)),
        "no secret in the list"
    );

    // Logging out ends that session: its socket is told and closed.
    let resp = c
        .post(format!("{base}/api/account/logout"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(next_error(&mut ws).await["status"], 401);
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        use futures_util::StreamExt;
        loop {
            match ws.next().await {
                None | Some(Err(_)) => break,
                Some(Ok(m)) if m.is_close() => break,
                Some(Ok(_)) => continue,
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the socket of an ended session closes");
    // The cookie no longer authenticates anything.
    let resp = c
        .get(format!("{base}/api/account"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    // The API token's stream is untouched by the logout: a challenge arrives.
    let (s, v) = alice.post("/api/challenge/bob", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        events.next_of("challenge").await["challenge"]["id"],
        v["id"]
    );

    // Revoking the token by its id from the list ends its stream.
    let id = tokens_of(&c, base, &alice.token)
        .await
        .into_iter()
        .find(|t| t["current"] == true)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let resp = c
        .delete(format!("{base}/api/tokens/{id}"))
        .bearer_auth(&alice.token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    loop {
        match events.next().await {
            None => break,
            Some(v) => assert_ne!(v["type"], "tokensEnded", "internal events stay internal"),
        }
    }
    assert_eq!(alice.get("/api/account").await.0, StatusCode::UNAUTHORIZED);

    // Someone else's id, and a malformed one.
    let bob_token = http()
        .post(format!("{base}/api/token"))
        .json(&json!({"username": "bob", "password": "correct horse", "description": "my bot", "expiresInDays": 30}))
        .send()
        .await
        .unwrap();
    let (s, bob_tok) = json_of(bob_token).await;
    assert_eq!(s, StatusCode::OK, "{bob_tok}");
    assert!(bob_tok["expiresAt"].as_i64().unwrap() > 0);
    let listed = tokens_of(&c, base, bob_tok["token"].as_str().unwrap()).await;
    let mine = listed.iter().find(|t| t["current"] == true).unwrap();
    assert_eq!(mine["description"], "my bot");
    let carol = register(base, "carol").await;
    let resp = c
        .delete(format!(
            "{base}/api/tokens/{}",
            mine["id"].as_str().unwrap()
        ))
        .bearer_auth(&carol.token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::NOT_FOUND, "not carol's token");
    let resp = c
        .delete(format!("{base}/api/tokens/nothex"))
        .bearer_auth(&carol.token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);

    // Sign out everywhere: every session, and with tokens=true every token.
    let bob_cookie = login_cookie(base, "bob").await;
    let mut bob_ws = ws_connect(base, Some(&bob_cookie)).await;
    assert_eq!(ws_next(&mut bob_ws).await["user"]["name"], "bob");
    let resp = c
        .post(format!("{base}/api/account/logout-everywhere"))
        .bearer_auth(bob_tok["token"].as_str().unwrap())
        .json(&json!({"tokens": true}))
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(v["ended"].as_u64().unwrap() >= 3, "{v}");
    assert_eq!(next_error(&mut bob_ws).await["status"], 401);
    let resp = c
        .get(format!("{base}/api/account"))
        .bearer_auth(bob_tok["token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
}

async fn login_from(
    c: &reqwest::Client,
    base: &str,
    address: &str,
    name: &str,
    password: &str,
    device: Option<&str>,
) -> reqwest::Response {
    let mut req = c
        .post(format!("{base}/api/account/login"))
        .header("x-forwarded-for", address)
        .json(&json!({"username": name, "password": password}));
    if let Some(d) = device {
        req = req.header("cookie", format!("chessmerge_device={d}"));
    }
    req.send().await.unwrap()
}

/// Finding 5: ten wrong passwords from anywhere locked the owner out for
/// 15 minutes; 100 failures from one address locked out everyone behind it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finding_5_login_limits_cannot_lock_the_owner_out() {
    let dir = TempDir::new("login-limits");
    // Small limits so that the test stays short; behind a trusted proxy
    // (this test plays it) each request names its client address.
    let server = Server::start_with(
        &dir.0.join("test.db"),
        &[
            "--trusted-proxy",
            "127.0.0.1",
            "--login-free-failures",
            "3",
            "--login-limit-address",
            "6",
        ],
    );
    let base = &server.base;
    let c = http();
    register(base, "owner").await;
    register(base, "neighbour").await;
    // The owner's browser signed in before: it holds a device cookie.
    let resp = login_from(&c, base, "198.51.100.7", "owner", "correct horse", None).await;
    assert_eq!(resp.status(), StatusCode::OK);
    let device = cookie_value(&resp, "chessmerge_device").expect("a device cookie");
    let resp = login_from(&c, base, "198.51.100.8", "neighbour", "correct horse", None).await;
    let neighbour_device = cookie_value(&resp, "chessmerge_device").unwrap();

    // An attacker guesses from four addresses.
    for i in 1..=4 {
        let resp = login_from(&c, base, &format!("203.0.113.{i}"), "owner", "guess", None).await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    }
    // The account's attempts are now spaced, not locked: a new browser
    // waits a moment...
    let resp = login_from(&c, base, "192.0.2.50", "owner", "correct horse", None).await;
    assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
    let (_, v) = json_of(resp).await;
    let msg = v["error"].as_str().unwrap();
    assert!(msg.contains("try again in 1 s"), "{msg}");
    // ...while the owner's own browser signs in at once, correct password.
    let resp = login_from(
        &c,
        base,
        "192.0.2.50",
        "owner",
        "correct horse",
        Some(&device),
    )
    .await;
    assert_eq!(
        resp.status(),
        StatusCode::OK,
        "the device cookie is not held up"
    );
    // And after the delay, the new browser too.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let resp = login_from(&c, base, "192.0.2.51", "owner", "correct horse", None).await;
    assert_eq!(resp.status(), StatusCode::OK);

    // One address fails six times across accounts: new browsers there are
    // refused, but a neighbour whose browser signed in before is not.
    for i in 0..6 {
        let resp = login_from(&c, base, "10.1.1.1", &format!("nobody{i}"), "guess", None).await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    }
    let resp = login_from(&c, base, "10.1.1.1", "neighbour", "correct horse", None).await;
    assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
    let resp = login_from(
        &c,
        base,
        "10.1.1.1",
        "neighbour",
        "correct horse",
        Some(&neighbour_device),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    // A device cookie of another account does not help.
    let resp = login_from(
        &c,
        base,
        "10.1.1.1",
        "owner",
        "correct horse",
        Some(&neighbour_device),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);

    // Without the trusted proxy's word, the header is the client's own and ignored.
    let dir2 = TempDir::new("login-limits-untrusted");
    let plain = Server::start_with(&dir2.0.join("test.db"), &["--login-limit-address", "2"]);
    register(&plain.base, "victim").await;
    for i in 0..2 {
        let resp = login_from(&c, &plain.base, &format!("6.6.6.{i}"), "x1", "guess", None).await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    }
    let resp = login_from(&c, &plain.base, "7.7.7.7", "x2", "guess", None).await;
    assert_eq!(
        resp.status(),
        StatusCode::TOO_MANY_REQUESTS,
        "the forwarded address of an untrusted peer is not believed"
    );
}

/// Finding 7: a JSON body without a Content-Type was read as an empty form,
/// misspelled fields were ignored, any Host was served, no security
/// headers, and `password`, `12345678` and eight NULs were passwords.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finding_7_strict_input_hosts_headers_and_passwords() {
    let env = fresh("strict-input");
    let base = &env.server.base;
    let c = http();
    let alice = register(base, "alice").await;
    register(base, "bob").await;

    // A JSON body sent without its content type: 415, nothing created.
    let resp = c
        .post(format!("{base}/api/challenge/bob"))
        .bearer_auth(&alice.token)
        .body(r#"{"variant":"fusion"}"#)
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{v}");
    assert!(v["error"].as_str().unwrap().contains("Content-Type"), "{v}");
    // A misspelled field: 400 naming it (JSON and form).
    let (s, v) = alice
        .post("/api/challenge/bob", json!({"colour": "white"}))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["error"].as_str().unwrap().contains("colour"), "{v}");
    let resp = c
        .post(format!("{base}/api/challenge/bob"))
        .bearer_auth(&alice.token)
        .form(&[("varient", "fusion")])
        .send()
        .await
        .unwrap();
    let (s, v) = json_of(resp).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["error"].as_str().unwrap().contains("varient"), "{v}");
    // lichess's fields are understood: half a clock is refused with the reason.
    let (s, v) = alice
        .post("/api/challenge/bob", json!({"clock.limit": 300}))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("clock.increment is missing"),
        "{v}"
    );
    let (s, v) = alice
        .post("/api/challenge/bob", json!({"rated": false, "days": 3}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (_, list) = alice.get("/api/challenge").await;
    assert_eq!(
        list["out"].as_array().unwrap().len(),
        1,
        "only the well-formed challenge was made: {list}"
    );

    // Another site's name in Host: refused before anything runs.
    let addr = base.trim_start_matches("http://");
    let mut raw = tokio::net::TcpStream::connect(addr).await.unwrap();
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    raw.write_all(
        b"GET /api/account HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n",
    )
    .await
    .unwrap();
    let mut answer = String::new();
    raw.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 421"), "{answer}");
    assert!(answer.contains("attacker.example"), "{answer}");

    // Security headers on the page and on JSON; private JSON is not cached.
    for path in ["/", "/api/account", "/game/export/nosuchid"] {
        let resp = c
            .get(format!("{base}{path}"))
            .bearer_auth(&alice.token)
            .send()
            .await
            .unwrap();
        let h = resp.headers();
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"),
            "{path}: {csp}"
        );
        if path.starts_with("/api/") {
            assert_eq!(h["cache-control"], "no-store", "{path}");
        }
    }

    // Weak passwords are refused with the reason.
    for (password, why) in [
        ("password", "common"),
        ("12345678", "common"),
        ("\0\0\0\0\0\0\0\0", "control"),
        ("zelda-the-great", "username"),
    ] {
        let resp = c
            .post(format!("{base}/api/account/register"))
            .json(&json!({"username": "zelda", "password": password}))
            .send()
            .await
            .unwrap();
        let (s, v) = json_of(resp).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{password:?}: {v}");
        assert!(
            v["error"].as_str().unwrap().contains(why),
            "{password:?}: {v}"
        );
    }
}

/// The server's counters answer its own machine only: behind a trusted
/// proxy, a client elsewhere is refused with the reason; one on loopback
/// (the operator, the benchmarks) gets them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_s_counters_answer_only_its_own_machine() {
    let dir = TempDir::new("stats-local");
    let server = Server::start_with(&dir.0.join("test.db"), &["--trusted-proxy", "127.0.0.1"]);
    let c = http();
    let url = format!("{}/api/server/stats", server.base);
    let far = c
        .get(&url)
        .header("x-forwarded-for", "198.51.100.7")
        .send()
        .await
        .unwrap();
    assert_eq!(far.status(), StatusCode::FORBIDDEN);
    let v: Value = far.json().await.unwrap();
    assert!(v["error"].as_str().unwrap().contains("operator"), "{v}");
    for forwarded in [None, Some("127.0.0.1")] {
        let mut req = c.get(&url);
        if let Some(a) = forwarded {
            req = req.header("x-forwarded-for", a);
        }
        let near = req.send().await.unwrap();
        assert_eq!(near.status(), StatusCode::OK, "{forwarded:?}");
        let v: Value = near.json().await.unwrap();
        assert!(v["gameCommits"].is_u64(), "{v}");
    }
}
