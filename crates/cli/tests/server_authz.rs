//! The authorization matrix: every route of the server, asked by every
//! role, against the real binary, with the status each role must get.
//!
//! The routes come from the server itself: the OpenAPI document it serves
//! (`/api/openapi.json`), checked against the router's table in
//! `crates/server/src/api/mod.rs` (every `.route(...)` there must be in the
//! document, and the reverse). A route added without a row in [`MATRIX`]
//! makes `every_route_has_a_row` fail; a row whose route is gone too.
//!
//! Roles: anonymous; a third user with no part in anything; white and
//! black of a started game; the challenger and the challenged of a pending
//! challenge (so white and black are strangers to the challenge, and the
//! challenger and the challenged strangers to the game). Every request that
//! changes something gets a fresh game or challenge, so that each answer
//! depends only on who asks. The matrix runs twice: with API tokens
//! (`Authorization: Bearer`) and with session cookies.

use std::collections::BTreeSet;

use futures_util::StreamExt;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::common::{Env, Player, TIMEOUT, fresh, http, json_of, login_cookie, register};

/// Who asks, in the matrix's column order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Anonymous,
    Third,
    White,
    Black,
    Challenger,
    Challenged,
}

const ROLES: [Role; 6] = [
    Role::Anonymous,
    Role::Third,
    Role::White,
    Role::Black,
    Role::Challenger,
    Role::Challenged,
];

/// How a role proves who it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    Bearer,
    Cookie,
}

/// What a row's request needs made first, fresh for each role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Needs {
    Nothing,
    /// A game white against black, white to move (`{id}`).
    Game,
    /// A pending challenge from the challenger to the challenged (`{id}`).
    Challenge,
    /// A credential of the asking role that the request may destroy
    /// (logout, token revocation): a new token or a new session.
    OwnCredential,
}

/// One route: method, OpenAPI path, what it needs, a JSON body (if any),
/// and the status per role (anonymous, third, white, black, challenger,
/// challenged) with a token; `cookie` where cookies get other answers.
struct Row {
    method: &'static str,
    path: &'static str,
    needs: Needs,
    body: Option<fn(&Fixture) -> Value>,
    bearer: [u16; 6],
    cookie: Option<[u16; 6]>,
}

const fn row(method: &'static str, path: &'static str, needs: Needs, bearer: [u16; 6]) -> Row {
    Row {
        method,
        path,
        needs,
        body: None,
        bearer,
        cookie: None,
    }
}

const fn with_body(mut r: Row, body: fn(&Fixture) -> Value) -> Row {
    r.body = Some(body);
    r
}

const fn cookie_answers(mut r: Row, cookie: [u16; 6]) -> Row {
    r.cookie = Some(cookie);
    r
}

const PASSWORD: &str = "correct horse";
const ALL_200: [u16; 6] = [200; 6];
const USERS_200: [u16; 6] = [401, 200, 200, 200, 200, 200];
/// Game actions: only white and black.
const PLAYERS_ONLY: [u16; 6] = [401, 403, 200, 200, 403, 403];
/// The bot API, asked by humans.
const HUMANS_REFUSED: [u16; 6] = [401, 403, 403, 403, 403, 403];

fn subject_credentials(f: &Fixture) -> Value {
    json!({"username": f.subject.name, "password": PASSWORD})
}

fn new_account(_: &Fixture) -> Value {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    json!({"username": format!("new{}", N.fetch_add(1, Ordering::SeqCst)), "password": PASSWORD})
}

fn chat_line(_: &Fixture) -> Value {
    json!({"room": "player", "text": "good game"})
}

fn dark_theme(_: &Fixture) -> Value {
    json!({"dark": true})
}

/// A password change whose current password is wrong: it changes nothing,
/// so that the rows after it still sign in.
fn wrong_current_password(_: &Fixture) -> Value {
    json!({"currentPassword": "not the password", "newPassword": "a new password 7"})
}

fn empty(_: &Fixture) -> Value {
    json!({})
}

fn report_of_white(f: &Fixture) -> Value {
    json!({"username": f.white.name, "reason": "other", "text": "a test report"})
}

fn short_pgn(_: &Fixture) -> Value {
    json!({"pgn": "[Variant \"chessmerge\"]\n\n1. Nd2 e6 *"})
}

fn no_forecasts(_: &Fixture) -> Value {
    json!({"steps": []})
}

/// Coming back from a vacation one is not on: nothing changes.
fn at_home(_: &Fixture) -> Value {
    json!({"away": false})
}

/// A correspondence seek nobody can take (no one is rated 0-1): it waits
/// like an open challenge.
fn lonely_seek(_: &Fixture) -> Value {
    json!({"days": 14, "ratingRange": "0-1"})
}

fn computer_level_1(_: &Fixture) -> Value {
    json!({"level": 1})
}

fn short_search(_: &Fixture) -> Value {
    json!({"level": 1, "movetime": 50})
}

fn short_live_search(_: &Fixture) -> Value {
    json!({"nodes": 500, "movetime": 200})
}

use Needs::{Challenge, Game, Nothing, OwnCredential};

/// Columns: anonymous, third, white, black, challenger, challenged.
const MATRIX: &[Row] = &[
    // Accounts: the body's credentials count, not who sends them.
    with_body(
        row("POST", "/api/account/register", Nothing, ALL_200),
        new_account,
    ),
    with_body(
        row("POST", "/api/account/login", Nothing, ALL_200),
        subject_credentials,
    ),
    row("POST", "/api/account/logout", OwnCredential, ALL_200),
    row("GET", "/api/account", Nothing, USERS_200),
    row("GET", "/api/account/playing", Nothing, USERS_200),
    row("GET", "/api/account/vacation", Nothing, USERS_200),
    with_body(
        row("POST", "/api/account/vacation", Nothing, USERS_200),
        at_home,
    ),
    // Site settings; a guest account is made only when signed out.
    row("GET", "/api/account/preferences", Nothing, USERS_200),
    with_body(
        row("POST", "/api/account/preferences", Nothing, USERS_200),
        dark_theme,
    ),
    row(
        "POST",
        "/api/account/guest",
        Nothing,
        [200, 409, 409, 409, 409, 409],
    ),
    // Only a guest keeps its account under a chosen name: every role here
    // has a name already.
    with_body(
        row(
            "POST",
            "/api/account/guest/claim",
            Nothing,
            [401, 409, 409, 409, 409, 409],
        ),
        new_account,
    ),
    with_body(
        row("POST", "/api/token", Nothing, ALL_200),
        subject_credentials,
    ),
    // A token revokes itself; a session is told to send the token.
    cookie_answers(
        row("DELETE", "/api/token", OwnCredential, USERS_200),
        [401, 400, 400, 400, 400, 400],
    ),
    // Challenges.
    row("GET", "/api/challenge", Nothing, USERS_200),
    row("GET", "/api/challenge/open", Nothing, USERS_200),
    with_body(
        row("POST", "/api/challenge/open", Nothing, USERS_200),
        empty,
    ),
    with_body(
        row("POST", "/api/challenge/ai", Nothing, USERS_200),
        computer_level_1,
    ),
    with_body(
        row("POST", "/api/board/seek", Nothing, USERS_200),
        lonely_seek,
    ),
    // `{username}` is the challenged player: no one challenges themself.
    with_body(
        row(
            "POST",
            "/api/challenge/{username}",
            Nothing,
            [401, 200, 200, 200, 200, 400],
        ),
        empty,
    ),
    row(
        "GET",
        "/api/challenge/{id}/show",
        Challenge,
        [401, 403, 403, 403, 200, 200],
    ),
    row(
        "POST",
        "/api/challenge/{id}/accept",
        Challenge,
        [401, 403, 403, 403, 403, 200],
    ),
    with_body(
        row(
            "POST",
            "/api/challenge/{id}/decline",
            Challenge,
            [401, 403, 403, 403, 403, 200],
        ),
        empty,
    ),
    row(
        "POST",
        "/api/challenge/{id}/cancel",
        Challenge,
        [401, 403, 403, 403, 200, 403],
    ),
    // Playing: `{move}` is e2e3, white's move; black is refused for the turn.
    row(
        "POST",
        "/api/board/game/{id}/move/{move}",
        Game,
        [401, 403, 200, 409, 403, 403],
    ),
    row("POST", "/api/board/game/{id}/resign", Game, PLAYERS_ONLY),
    row("POST", "/api/board/game/{id}/abort", Game, PLAYERS_ONLY),
    // The row's game is untimed: no clock to give time on (409).
    row(
        "POST",
        "/api/round/{id}/add-time/{seconds}",
        Game,
        [401, 403, 409, 409, 403, 403],
    ),
    row(
        "POST",
        "/api/board/game/{id}/draw/{accept}",
        Game,
        PLAYERS_ONLY,
    ),
    // Correspondence (fresh game, white to move): nothing to take back and
    // no rematch of an unfinished game (409) for the players; forecasts are
    // the waiting side's (black's 200, white's 409: its move).
    row(
        "POST",
        "/api/board/game/{id}/takeback/{accept}",
        Game,
        [401, 403, 409, 409, 403, 403],
    ),
    row(
        "POST",
        "/api/bot/game/{id}/takeback/{accept}",
        Game,
        HUMANS_REFUSED,
    ),
    row(
        "POST",
        "/api/board/game/{id}/rematch",
        Game,
        [401, 403, 409, 409, 403, 403],
    ),
    row(
        "POST",
        "/api/board/game/{id}/rematch/{accept}",
        Game,
        [401, 403, 409, 409, 403, 403],
    ),
    row("GET", "/api/board/game/{id}/forecasts", Game, PLAYERS_ONLY),
    with_body(
        row(
            "POST",
            "/api/board/game/{id}/forecasts",
            Game,
            [401, 403, 409, 200, 403, 403],
        ),
        no_forecasts,
    ),
    row("GET", "/api/stream/event", Nothing, USERS_200),
    // Games are public: anyone may watch, read and export them.
    row("GET", "/api/board/game/stream/{id}", Game, ALL_200),
    row("GET", "/api/game/{id}", Game, ALL_200),
    row("GET", "/api/games/user/{username}", Nothing, ALL_200),
    row("GET", "/game/export/{id}", Game, ALL_200),
    // The socket opens for anyone (its hello names the user, checked below).
    row("GET", "/api/socket", Nothing, [101; 6]),
    row("GET", "/api/openapi.json", Nothing, ALL_200),
    row("GET", "/api/server/stats", Nothing, ALL_200),
    row("GET", "/api/levels", Nothing, ALL_200),
    // The practice board needs no account.
    with_body(row("POST", "/api/analysis", Nothing, ALL_200), empty),
    with_body(
        row("POST", "/api/analysis/best", Nothing, ALL_200),
        short_search,
    ),
    // The live engine too (signed out: one per address, with a lower budget).
    with_body(
        row("POST", "/api/analysis/stream", Nothing, ALL_200),
        short_live_search,
    ),
    row("POST", "/api/analysis/stream/stop", Nothing, ALL_200),
    // A game's computer analysis: anyone reads it; signed-in users ask for
    // it, and only once the game is over (these games are going on).
    row("GET", "/api/game/{id}/analysis", Game, ALL_200),
    row(
        "POST",
        "/api/game/{id}/analysis",
        Game,
        [401, 409, 409, 409, 409, 409],
    ),
    // PGN import: any signed-in user.
    with_body(row("POST", "/api/import", Nothing, USERS_200), short_pgn),
    // Chat: players write in their room (the spectators' room is any
    // registered player's), anyone reads what they may read.
    with_body(
        row("POST", "/api/board/game/{id}/chat", Game, PLAYERS_ONLY),
        chat_line,
    ),
    row("GET", "/api/board/game/{id}/chat", Game, ALL_200),
    row("GET", "/api/bot/game/{id}/chat", Game, ALL_200),
    // The bot API refuses humans, players or not.
    row("GET", "/api/bot/game/stream/{id}", Game, HUMANS_REFUSED),
    row(
        "POST",
        "/api/bot/game/{id}/move/{move}",
        Game,
        HUMANS_REFUSED,
    ),
    row("POST", "/api/bot/game/{id}/resign", Game, HUMANS_REFUSED),
    row("POST", "/api/bot/game/{id}/abort", Game, HUMANS_REFUSED),
    with_body(
        row("POST", "/api/bot/game/{id}/chat", Game, HUMANS_REFUSED),
        chat_line,
    ),
    // Public reads of the bot API.
    row("GET", "/api/bot/online", Nothing, ALL_200),
    row("GET", "/api/users/status", Nothing, [400; 6]),
    row("GET", "/api/user/{username}", Nothing, ALL_200),
    row(
        "GET",
        "/api/user/{username}/rating-history",
        Nothing,
        ALL_200,
    ),
    // The token test reads its body (raw tokens), not the caller.
    row("POST", "/api/token/test", Nothing, [400; 6]),
    // Every role has played by now (the computer game above, accepted
    // challenges): none may become a bot.
    row(
        "POST",
        "/api/bot/account/upgrade",
        Nothing,
        [401, 400, 400, 400, 400, 400],
    ),
    // A password change needs the current one: wrong, it is a 401.
    with_body(
        row("POST", "/api/account/password", Nothing, [401; 6]),
        wrong_current_password,
    ),
    // Finding players: public (the autocomplete asked without a term).
    row("GET", "/api/player/autocomplete", Nothing, [400; 6]),
    row("GET", "/api/player/top/{nb}/{perfType}", Nothing, ALL_200),
    // Following and blocking `{username}` (white): anyone but white
    // themself; each undone at once, so that the rows after see neither.
    row(
        "POST",
        "/api/rel/follow/{username}",
        Nothing,
        [401, 200, 400, 200, 200, 200],
    ),
    row("GET", "/api/rel/following", Nothing, USERS_200),
    row(
        "POST",
        "/api/rel/unfollow/{username}",
        Nothing,
        [401, 200, 400, 200, 200, 200],
    ),
    row(
        "POST",
        "/api/rel/block/{username}",
        Nothing,
        [401, 200, 400, 200, 200, 200],
    ),
    row("GET", "/api/rel/blocking", Nothing, USERS_200),
    row(
        "POST",
        "/api/rel/unblock/{username}",
        Nothing,
        [401, 200, 400, 200, 200, 200],
    ),
    row(
        "POST",
        "/api/rel/mute/{username}",
        Nothing,
        [401, 200, 400, 200, 200, 200],
    ),
    row("GET", "/api/rel/muting", Nothing, USERS_200),
    row(
        "POST",
        "/api/rel/unmute/{username}",
        Nothing,
        [401, 200, 400, 200, 200, 200],
    ),
    // Reports: any registered player, of anyone but themself.
    with_body(
        row(
            "POST",
            "/api/report",
            Nothing,
            [401, 200, 400, 200, 200, 200],
        ),
        report_of_white,
    ),
    // The current games and a player's imports: public.
    row("GET", "/api/tv/channels", Nothing, ALL_200),
    row("GET", "/api/tv/{variant}", Nothing, ALL_200),
    row("GET", "/api/games/imported/{username}", Nothing, ALL_200),
    // Sessions and tokens: each user sees and ends only their own.
    row("GET", "/api/tokens", Nothing, USERS_200),
    row(
        "DELETE",
        "/api/tokens/{id}",
        Nothing,
        [401, 400, 400, 400, 400, 400],
    ),
    // Last: it ends every session of the role (the cookie run signs in again).
    with_body(
        row(
            "POST",
            "/api/account/logout-everywhere",
            OwnCredential,
            USERS_200,
        ),
        empty,
    ),
];

/// The users of the matrix, on one server.
struct Fixture {
    base: String,
    third: Player,
    white: Player,
    black: Player,
    challenger: Player,
    challenged: Player,
    /// Whose credentials the login and token rows send.
    subject: Player,
}

impl Fixture {
    async fn new(env: &Env) -> Fixture {
        let base = &env.server.base;
        Fixture {
            base: base.clone(),
            third: register(base, "third").await,
            white: register(base, "white").await,
            black: register(base, "black").await,
            challenger: register(base, "challenger").await,
            challenged: register(base, "challenged").await,
            subject: register(base, "subject").await,
        }
    }

    fn player(&self, role: Role) -> Option<&Player> {
        match role {
            Role::Anonymous => None,
            Role::Third => Some(&self.third),
            Role::White => Some(&self.white),
            Role::Black => Some(&self.black),
            Role::Challenger => Some(&self.challenger),
            Role::Challenged => Some(&self.challenged),
        }
    }

    /// A pending challenge from the challenger to the challenged.
    async fn challenge(&self) -> String {
        let (s, v) = self
            .challenger
            .post(
                &format!("/api/challenge/{}", self.challenged.name),
                json!({}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "challenge: {v}");
        v["id"].as_str().unwrap().to_owned()
    }

    /// A started game, white to move.
    async fn game(&self) -> String {
        let (s, v) = self
            .white
            .post(
                &format!("/api/challenge/{}", self.black.name),
                json!({"color": "white"}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "challenge for a game: {v}");
        let id = v["id"].as_str().unwrap().to_owned();
        let (s, v) = self
            .black
            .post_empty(&format!("/api/challenge/{id}/accept"))
            .await;
        assert_eq!(s, StatusCode::OK, "accept: {v}");
        id
    }

    /// Credentials of `role` as `via` sends them: the role's own, or fresh
    /// ones for a request that may destroy them.
    async fn credential(&self, role: Role, via: Via, fresh: bool) -> Option<(Via, String)> {
        let p = self.player(role)?;
        let value = match (via, fresh) {
            (Via::Bearer, false) => p.token.clone(),
            (Via::Cookie, false) => p.cookie.clone(),
            (Via::Bearer, true) => {
                let (s, v) = json_of(
                    http()
                        .post(format!("{}/api/token", self.base))
                        .json(&json!({"username": p.name, "password": PASSWORD}))
                        .send()
                        .await
                        .unwrap(),
                )
                .await;
                assert_eq!(s, StatusCode::OK, "a fresh token: {v}");
                v["token"].as_str().unwrap().to_owned()
            }
            (Via::Cookie, true) => login_cookie(&self.base, &p.name).await,
        };
        Some((via, value))
    }
}

/// The row's path with its parameters filled in.
fn concrete_path(template: &str, f: &Fixture, id: Option<&str>) -> String {
    let mut path = template.to_owned();
    if let Some(id) = id {
        path = path.replace("{id}", id);
    }
    let username = if template.starts_with("/api/challenge/") {
        &f.challenged.name
    } else {
        &f.white.name
    };
    path.replace("{username}", username)
        .replace("{move}", "e2e3")
        .replace("{nb}", "10")
        .replace("{perfType}", "chessmerge")
        .replace("{variant}", "chessmerge")
        .replace("{accept}", "yes")
        .replace("{seconds}", "15")
}

/// Asks the server, answering the status (and, for the socket, checking
/// that its hello names the one who asked).
async fn ask(
    f: &Fixture,
    r: &Row,
    role: Role,
    credential: Option<(Via, String)>,
    path: &str,
) -> (StatusCode, Value) {
    if path == "/api/socket" {
        return open_socket(f, role, credential).await;
    }
    let method = Method::from_bytes(r.method.as_bytes()).unwrap();
    let mut req = http().request(method, format!("{}{path}", f.base));
    match &credential {
        Some((Via::Bearer, token)) => req = req.bearer_auth(token),
        Some((Via::Cookie, cookie)) => req = req.header("cookie", cookie),
        None => {}
    }
    if let Some(body) = r.body {
        req = req.json(&body(f));
    }
    let resp = req.send().await.unwrap();
    let status = resp.status();
    let is_stream = resp
        .headers()
        .get("content-type")
        .is_some_and(|v| v.to_str().unwrap_or("").contains("ndjson"));
    if is_stream && status == StatusCode::OK {
        // A live stream never ends: its status is the answer.
        return (status, Value::Null);
    }
    json_of(resp).await
}

async fn open_socket(
    f: &Fixture,
    role: Role,
    credential: Option<(Via, String)>,
) -> (StatusCode, Value) {
    let url = format!("{}/api/socket", f.base.replace("http://", "ws://"));
    let mut req = url.into_client_request().unwrap();
    match &credential {
        Some((Via::Bearer, token)) => {
            req.headers_mut()
                .insert("authorization", format!("Bearer {token}").parse().unwrap());
        }
        Some((Via::Cookie, cookie)) => {
            req.headers_mut().insert("cookie", cookie.parse().unwrap());
        }
        None => {}
    }
    let (mut ws, resp) =
        match tokio::time::timeout(TIMEOUT, tokio_tungstenite::connect_async(req)).await {
            Ok(Ok(pair)) => pair,
            Ok(Err(tokio_tungstenite::tungstenite::Error::Http(resp))) => {
                return (
                    StatusCode::from_u16(resp.status().as_u16()).unwrap(),
                    Value::Null,
                );
            }
            Ok(Err(e)) => panic!("socket handshake: {e}"),
            Err(_) => panic!("socket handshake timed out"),
        };
    let hello = loop {
        match tokio::time::timeout(TIMEOUT, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => break serde_json::from_str::<Value>(&t).unwrap(),
            Ok(Some(Ok(_))) => continue,
            other => panic!("no hello on the socket: {other:?}"),
        }
    };
    let expected_user = f.player(role).map(|p| p.name.clone());
    assert_eq!(hello["t"], "hello", "{hello}");
    assert_eq!(
        hello["user"]["name"].as_str().map(str::to_owned),
        expected_user,
        "the socket's hello for {role:?}: {hello}"
    );
    (StatusCode::from_u16(resp.status().as_u16()).unwrap(), hello)
}

/// Leaves nothing pending that a per-user cap could count against later
/// rows: the row's challenge canceled, its game resigned, a created
/// challenge canceled, a computer game resigned.
async fn clean_up(f: &Fixture, role: Role, r: &Row, id: Option<&str>, answer: &Value) {
    match (r.needs, id) {
        (Challenge, Some(id)) => {
            let _ = f
                .challenger
                .post_empty(&format!("/api/challenge/{id}/cancel"))
                .await;
        }
        (Game, Some(id)) => {
            let _ = f
                .white
                .post_empty(&format!("/api/board/game/{id}/resign"))
                .await;
        }
        _ => {}
    }
    let Some(p) = f.player(role) else { return };
    let Some(created) = answer["id"].as_str() else {
        return;
    };
    match r.path {
        "/api/challenge/open" | "/api/challenge/{username}" if r.method == "POST" => {
            let _ = p
                .post_empty(&format!("/api/challenge/{created}/cancel"))
                .await;
        }
        "/api/challenge/ai" => {
            let _ = p
                .post_empty(&format!("/api/board/game/{created}/resign"))
                .await;
        }
        _ => {}
    }
}

/// Runs every row for every role; answers the mismatches, one line each.
async fn run_matrix(f: &Fixture, via: Via) -> Vec<String> {
    let mut wrong = Vec::new();
    for r in MATRIX {
        let expected = match via {
            Via::Bearer => r.bearer,
            Via::Cookie => r.cookie.unwrap_or(r.bearer),
        };
        for (role, want) in ROLES.into_iter().zip(expected) {
            let id = match r.needs {
                Game => Some(f.game().await),
                Challenge => Some(f.challenge().await),
                Nothing | OwnCredential => None,
            };
            let credential = f.credential(role, via, r.needs == OwnCredential).await;
            let path = concrete_path(r.path, f, id.as_deref());
            let (status, answer) = ask(f, r, role, credential, &path).await;
            if status.as_u16() != want {
                wrong.push(format!(
                    "{via:?} {role:?} {} {path}: {status}, expected {want}: {answer}",
                    r.method
                ));
            }
            if status.is_client_error() {
                // A refusal says why, as JSON.
                if !answer["error"].is_string() {
                    wrong.push(format!(
                        "{via:?} {role:?} {} {path}: {status} without a JSON error: {answer}",
                        r.method
                    ));
                }
            }
            clean_up(f, role, r, id.as_deref(), &answer).await;
        }
    }
    wrong
}

/// `(METHOD, path)` of every route in the router's table, read from its
/// source: each `.route("path", get(..).post(..))` call.
fn router_routes() -> BTreeSet<(String, String)> {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../server/src/api/mod.rs");
    let source = std::fs::read_to_string(file).unwrap();
    let body = &source[source
        .find("pub fn router(")
        .expect("api/mod.rs has `pub fn router(`")..];
    for nested in [".merge(", ".nest("] {
        assert!(
            !body.contains(nested),
            "the router uses {nested}..): teach server_authz::router_routes to read it"
        );
    }
    let mut routes = BTreeSet::new();
    let mut rest = body;
    while let Some(start) = rest.find(".route(") {
        let call = &rest[start + ".route(".len()..];
        // The call's arguments: up to the parenthesis that closes it.
        let mut depth = 1;
        let end = call
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map(|(i, _)| i)
            .expect("a closed .route( call");
        let args = &call[..end];
        let path = args.split('"').nth(1).expect("a path literal");
        let handlers = &args[args.find(',').expect("a handler") + 1..];
        let mut found = 0;
        for method in ["get", "post", "put", "delete", "patch", "head", "options"] {
            for (i, _) in handlers.match_indices(&format!("{method}(")) {
                let before = handlers[..i].chars().next_back().unwrap_or(' ');
                if before.is_whitespace() || before == '.' || before == ',' {
                    routes.insert((method.to_ascii_uppercase(), path.to_owned()));
                    found += 1;
                }
            }
        }
        assert!(found > 0, "no method found in .route({args})");
        rest = &call[end..];
    }
    routes
}

/// `(METHOD, path)` of every operation in the served OpenAPI document.
async fn documented_routes(base: &str) -> BTreeSet<(String, String)> {
    let (s, doc) = json_of(
        http()
            .get(format!("{base}/api/openapi.json"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let mut routes = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().unwrap().keys() {
            if ["get", "post", "put", "delete", "patch", "head", "options"]
                .contains(&method.as_str())
            {
                routes.insert((method.to_ascii_uppercase(), path.clone()));
            }
        }
    }
    routes
}

fn matrix_routes() -> BTreeSet<(String, String)> {
    let mut routes = BTreeSet::new();
    for r in MATRIX {
        assert!(
            routes.insert((r.method.to_owned(), r.path.to_owned())),
            "two rows for {} {}",
            r.method,
            r.path
        );
    }
    routes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_has_a_row() {
    let env = fresh("authz-routes");
    let documented = documented_routes(&env.server.base).await;
    let routed = router_routes();
    assert!(
        routed.len() >= 29,
        "only {} routes read from the router's source: is the parser still right?",
        routed.len()
    );
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "routes in the router but not in the OpenAPI document: {undocumented:?}"
    );
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(
        unrouted.is_empty(),
        "routes in the OpenAPI document but not in the router: {unrouted:?}"
    );
    let rows = matrix_routes();
    let missing: Vec<_> = documented.difference(&rows).collect();
    assert!(
        missing.is_empty(),
        "routes without a row in server_authz::MATRIX: {missing:?}"
    );
    let stale: Vec<_> = rows.difference(&documented).collect();
    assert!(stale.is_empty(), "rows for routes that are gone: {stale:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_role_gets_its_status_on_every_route() {
    let env = fresh("authz-matrix");
    let mut f = Fixture::new(&env).await;
    let mut wrong = run_matrix(&f, Via::Bearer).await;
    // The last row signed every role out everywhere: sign in again.
    for p in [
        &mut f.third,
        &mut f.white,
        &mut f.black,
        &mut f.challenger,
        &mut f.challenged,
        &mut f.subject,
    ] {
        p.cookie = login_cookie(&f.base, &p.name).await;
    }
    wrong.extend(run_matrix(&f, Via::Cookie).await);
    assert!(
        wrong.is_empty(),
        "{} answers differ from the matrix:\n{}\nserver log:\n{}",
        wrong.len(),
        wrong.join("\n"),
        env.server.log_text()
    );
}

/// A cross-site page cannot use a player's session cookie to change
/// anything: every route that is not a read refuses it, whoever the cookie
/// belongs to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cookies_from_another_site_change_nothing() {
    let env = fresh("authz-cross-site");
    let f = Fixture::new(&env).await;
    let mut wrong = Vec::new();
    for r in MATRIX.iter().filter(|r| r.method != "GET") {
        let id = match r.needs {
            Game => Some(f.game().await),
            Challenge => Some(f.challenge().await),
            Nothing | OwnCredential => None,
        };
        let path = concrete_path(r.path, &f, id.as_deref());
        let role = if r.path.contains("/challenge/{id}/") {
            Role::Challenged
        } else {
            Role::White
        };
        let method = Method::from_bytes(r.method.as_bytes()).unwrap();
        let mut req = http()
            .request(method, format!("{}{path}", f.base))
            .header("cookie", &f.player(role).unwrap().cookie)
            .header("origin", "https://attacker.example");
        if let Some(body) = r.body {
            req = req.json(&body(&f));
        }
        let (status, answer) = json_of(req.send().await.unwrap()).await;
        if status != StatusCode::FORBIDDEN {
            wrong.push(format!("{} {path}: {status}: {answer}", r.method));
        }
    }
    assert!(
        wrong.is_empty(),
        "cross-site requests not refused:\n{}",
        wrong.join("\n")
    );
}
