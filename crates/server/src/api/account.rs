//! Accounts: register, log in and out (session cookie), API tokens.

use std::net::IpAddr;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::ToSchema;

use super::params::optional;
use crate::auth::{
    self, AuthUser, AuthVia, ClientIp, DEVICE_COOKIE, DEVICE_MAX_AGE, MaybeUser, SESSION_COOKIE,
    SESSION_MAX_AGE,
};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Input, Path};
use crate::games::Games;
use crate::now_ms;
use crate::state::Login;
use crate::store::{EndTokens, NewToken, StoreError, TOKEN_ID_LEN, TokenKind, User, token_id};
use crate::views::{AccountJson, EndedJson, OkJson, TokenEntryJson, TokenJson, TokenListJson};

/// A username and a password.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// 2-20 letters, digits, `_` or `-` (at least one letter or digit); unique
    /// without regard to case.
    pub username: String,
    /// 8 to 256 characters.
    pub password: String,
}

const MIN_PASSWORD: usize = 8;
const MAX_PASSWORD: usize = 256;

/// Names that are paths of the API (`/api/challenge/open`, `/api/challenge/ai`).
const RESERVED: [&str; 2] = ["open", "ai"];

fn valid_username(name: &str) -> bool {
    (2..=20).contains(&name.len())
        && !RESERVED.iter().any(|r| r.eq_ignore_ascii_case(name))
        && !crate::model::is_guest(name)
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether a new name has a letter or a digit: `--` or `_` alone names no
/// one (such names are refused for new accounts; one that exists can still
/// sign in).
fn readable_username(name: &str) -> bool {
    name.bytes().any(|b| b.is_ascii_alphanumeric())
}

/// Passwords too common to accept (`data/common-passwords.txt`).
const COMMON_PASSWORDS: &str = include_str!("../../data/common-passwords.txt");

/// Why a new password is refused, or `None` when it may be used: its
/// length, control characters, a place on the list of common passwords,
/// the username inside it, too few different characters, or a plain run
/// of consecutive characters (`12345678`, `hgfedcba`).
pub fn weak_password(username: &str, password: &str) -> Option<String> {
    let len = password.chars().count();
    if !(MIN_PASSWORD..=MAX_PASSWORD).contains(&len) {
        return Some(format!("{MIN_PASSWORD} to {MAX_PASSWORD} characters"));
    }
    if password.chars().any(char::is_control) {
        return Some("control characters are not allowed".into());
    }
    let lower = password.to_lowercase();
    if COMMON_PASSWORDS
        .lines()
        .filter(|l| !l.starts_with('#'))
        .any(|l| l.trim() == lower)
    {
        return Some("it is one of the most common passwords; choose another".into());
    }
    if username.len() >= 3 && lower.contains(&username.to_lowercase()) {
        return Some("it must not contain the username".into());
    }
    let mut distinct: Vec<char> = password.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < 4 {
        return Some("too repetitive: use at least 4 different characters".into());
    }
    let codes: Vec<i64> = password.chars().map(|c| c as i64).collect();
    let step = codes[1] - codes[0];
    if step.abs() == 1 && codes.windows(2).all(|w| w[1] - w[0] == step) {
        return Some("a run of consecutive characters is too easy to guess".into());
    }
    None
}

fn session_cookie_header(login: &Login, token: &str, max_age: u64) -> ApiResult<HeaderValue> {
    cookie_header(login, SESSION_COOKIE, "/", token, max_age)
}

fn cookie_header(
    login: &Login,
    name: &str,
    path: &str,
    value: &str,
    max_age: u64,
) -> ApiResult<HeaderValue> {
    let secure = if login.secure_cookies { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path={path}; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}"
    ))
    .map_err(|e| ApiError::Internal(e.to_string()))
}

/// Stores a new token of `kind` for `user`, living `max_age` seconds;
/// answers the token itself (to be sent once, in a cookie).
async fn new_cookie_token(
    login: &Login,
    user: &User,
    kind: TokenKind,
    prefix: &str,
    max_age: u64,
) -> ApiResult<String> {
    let token = auth::new_token(prefix);
    let now = now_ms();
    login
        .accounts
        .create_token(NewToken {
            hash: &auth::token_hash(&token),
            user_id: user.id,
            kind,
            created_at: now,
            expires_at: Some(now + max_age as i64 * 1000),
            description: None,
        })
        .await?;
    Ok(token)
}

pub(crate) async fn start_session(login: &Login, user: &User) -> ApiResult<HeaderValue> {
    let token = new_cookie_token(login, user, TokenKind::Session, "cms_", SESSION_MAX_AGE).await?;
    session_cookie_header(login, &token, SESSION_MAX_AGE)
}

/// Whether the request carries a device cookie of the account `username`.
async fn known_device(login: &Login, headers: &HeaderMap, username: &str) -> ApiResult<bool> {
    let Some(device) = auth::cookie(headers, DEVICE_COOKIE) else {
        return Ok(false);
    };
    let owner = login
        .accounts
        .user_by_token(&auth::token_hash(&device), TokenKind::Device)
        .await?;
    Ok(owner.is_some_and(|u| u.username.eq_ignore_ascii_case(username)))
}

/// A new device cookie for `user` (after a successful sign-in).
async fn new_device(login: &Login, user: &User) -> ApiResult<HeaderValue> {
    let token = new_cookie_token(login, user, TokenKind::Device, "cmd_", DEVICE_MAX_AGE).await?;
    cookie_header(login, DEVICE_COOKIE, "/api/account", &token, DEVICE_MAX_AGE)
}

/// Register an account (and log in).
#[utoipa::path(post, path = "/api/account/register", tag = "account",
    request_body(content = Credentials, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "registered; a session cookie is set", body = AccountJson),
        (status = 400, description = "bad username or password", body = ErrorBody),
        (status = 409, description = "the username is taken", body = ErrorBody),
        (status = 429, description = "too many registrations from your address", body = ErrorBody)))]
pub async fn register(
    State(login): State<Arc<Login>>,
    State(rates): State<Arc<crate::edge::rates::Rates>>,
    ClientIp(ip): ClientIp,
    Input(c): Input<Credentials>,
) -> ApiResult<Response> {
    rates.registration(ip)?;
    let hash = new_credentials(&login, &c.username, c.password).await?;
    let user = match login.accounts.create(&c.username, &hash).await {
        Ok(u) => u,
        Err(StoreError::Conflict) => return Err(ApiError::Conflict("username taken".into())),
        Err(e) => return Err(e.into()),
    };
    tracing::info!(user = %user.username, "registered");
    let cookie = start_session(&login, &user).await?;
    Ok((
        [(header::SET_COOKIE, cookie)],
        Json(AccountJson::from(&user)),
    )
        .into_response())
}

/// Checks a new account's name and password (the name free when checked);
/// answers the password's hash.
async fn new_credentials(login: &Login, username: &str, password: String) -> ApiResult<String> {
    if !valid_username(username) {
        return Err(ApiError::bad(
            "invalid username: 2-20 letters, digits, '_' or '-' (and not 'open', 'ai' or starting with 'guest-')",
        ));
    }
    if !readable_username(username) {
        return Err(ApiError::bad(
            "invalid username: it needs at least one letter or digit, not only '_' or '-'",
        ));
    }
    if let Some(problem) = weak_password(username, &password) {
        return Err(ApiError::bad(format!("invalid password: {problem}")));
    }
    if login.accounts.user_named(username).await?.is_some() {
        return Err(ApiError::Conflict("username taken".into()));
    }
    auth::hash_password(&login.hashing, password).await
}

/// Keep a guest account: give it a name and a password. Its games,
/// ratings, settings and sessions stay; from now on it signs in like any
/// account. Only a guest may do this (signed in by its session cookie).
#[utoipa::path(post, path = "/api/account/guest/claim", tag = "account",
    request_body(content = Credentials, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "the account under its new name", body = AccountJson),
        (status = 400, description = "bad username or password", body = ErrorBody),
        (status = 401, description = "not signed in", body = ErrorBody),
        (status = 409, description = "not a guest account, or the username is taken", body = ErrorBody)))]
pub async fn claim_guest(
    State(login): State<Arc<Login>>,
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Input(c): Input<Credentials>,
) -> ApiResult<Json<AccountJson>> {
    if !crate::model::is_guest(&user.user.username) {
        return Err(ApiError::Conflict(format!(
            "{} is not a guest account: only a guest's name and password are chosen this way",
            user.user.username
        )));
    }
    let hash = new_credentials(&login, &c.username, c.password).await?;
    let claimed = match login
        .accounts
        .claim_guest(user.user.id, &c.username, &hash)
        .await
    {
        Ok(Some(u)) => u,
        // Claimed meanwhile by another request of the same guest.
        Ok(None) => {
            return Err(ApiError::Conflict(
                "this guest account was already kept".into(),
            ));
        }
        Err(StoreError::Conflict) => return Err(ApiError::Conflict("username taken".into())),
        Err(e) => return Err(e.into()),
    };
    // This node's cached games show the old name; other nodes' caches
    // refresh as their games leave the cache (see docs/deploy.md).
    games.forget_ongoing_of(claimed.id).await?;
    tracing::info!(guest = %user.user.username, user = %claimed.username, "guest account kept");
    Ok(Json(AccountJson::from(&claimed)))
}

/// Checks credentials under the login limits; also says whether the
/// request came from a browser known to the account (its device cookie).
async fn check_credentials(
    login: &Login,
    username: &str,
    password: &str,
    ip: IpAddr,
    headers: &HeaderMap,
) -> ApiResult<(User, bool)> {
    let ip = crate::connections::address_key(ip).to_string();
    let known = valid_username(username) && known_device(login, headers, username).await?;
    login.limiter.try_attempt(username, &ip, known).await?;
    let user = if valid_username(username) && password.len() <= 4 * MAX_PASSWORD {
        login.accounts.user_named(username).await?
    } else {
        None
    };
    let ok = auth::verify_password(
        &login.hashing,
        password.to_owned(),
        user.as_ref().map(|u| u.password_hash.clone()),
    )
    .await?;
    match user {
        Some(u) if ok => {
            login.limiter.succeeded(username, &ip, known).await?;
            Ok((u, known))
        }
        // The failure was counted when the attempt was taken.
        _ => Err(ApiError::Unauthorized("wrong username or password".into())),
    }
}

/// Log in: sets the session cookie (HttpOnly, SameSite=Lax), and a device
/// cookie that spares this browser the account-wide login delays later.
#[utoipa::path(post, path = "/api/account/login", tag = "account",
    request_body(content = Credentials, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 400, description = "malformed body", body = ErrorBody),
        (status = 200, description = "logged in; a session cookie is set", body = AccountJson),
        (status = 401, description = "wrong username or password", body = ErrorBody),
        (status = 403, description = "a bot account (bots play only through the bot API)", body = ErrorBody),
        (status = 429, description = "too many failed attempts", body = ErrorBody)))]
pub async fn login(
    State(login): State<Arc<Login>>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    Input(c): Input<Credentials>,
) -> ApiResult<Response> {
    let (user, known) = check_credentials(&login, &c.username, &c.password, ip, &headers).await?;
    if user.bot {
        return Err(ApiError::Forbidden(auth::BOT_OUTSIDE_BOT_API.into()));
    }
    let mut response = Json(AccountJson::from(&user)).into_response();
    let cookies = response.headers_mut();
    cookies.append(header::SET_COOKIE, start_session(&login, &user).await?);
    if !known {
        cookies.append(header::SET_COOKIE, new_device(&login, &user).await?);
    }
    Ok(response)
}

/// Log out: ends this session (its open sockets and streams close, on
/// every node) and clears the cookie.
#[utoipa::path(post, path = "/api/account/logout", tag = "account",
    responses((status = 200, description = "logged out", body = OkJson)))]
pub async fn logout(
    State(login): State<Arc<Login>>,
    MaybeUser(user): MaybeUser,
) -> ApiResult<Response> {
    if let Some(u) = user.filter(|u| u.via == AuthVia::Cookie) {
        login
            .accounts
            .end_tokens(u.user.id, EndTokens::Hash(&u.token_hash))
            .await?;
    }
    let cookie = session_cookie_header(&login, "", 0)?;
    Ok(([(header::SET_COOKIE, cookie)], Json(OkJson::yes())).into_response())
}

/// The current password and the new one.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    /// The password the account has now.
    #[serde(rename = "currentPassword")]
    pub current_password: String,
    /// The new password (8 to 256 characters, not a common one).
    #[serde(rename = "newPassword")]
    pub new_password: String,
}

/// Change your password: the current one is required (checked under the
/// login limits). Every other session and API token of the account ends
/// (their sockets and streams close, on every node); the one this request
/// came with stays.
#[utoipa::path(post, path = "/api/account/password", tag = "account",
    request_body(content = PasswordChange, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "changed; how many other sessions and tokens ended", body = EndedJson),
        (status = 400, description = "a malformed body, or the new password is refused (with the reason)", body = ErrorBody),
        (status = 401, description = "not authenticated, or the current password is wrong", body = ErrorBody),
        (status = 409, description = "a guest account has no password: keep it first (/api/account/guest/claim)", body = ErrorBody),
        (status = 429, description = "too many failed attempts", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn change_password(
    State(login): State<Arc<Login>>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    user: AuthUser,
    Input(p): Input<PasswordChange>,
) -> ApiResult<Json<EndedJson>> {
    let name = user.user.username.clone();
    if crate::model::is_guest(&name) {
        return Err(ApiError::Conflict(
            "a guest account has no password: keep it first (POST /api/account/guest/claim)".into(),
        ));
    }
    let (checked, _) = check_credentials(&login, &name, &p.current_password, ip, &headers).await?;
    if checked.id != user.user.id {
        return Err(ApiError::Unauthorized("wrong password".into()));
    }
    if let Some(problem) = weak_password(&name, &p.new_password) {
        return Err(ApiError::bad(format!("invalid password: {problem}")));
    }
    let hash = auth::hash_password(&login.hashing, p.new_password).await?;
    let ended = login
        .accounts
        .change_password(user.user.id, &hash, &user.token_hash)
        .await?
        .ok_or_else(|| ApiError::Unauthorized("the account is gone".into()))?;
    tracing::info!(user = %name, ended = ended.len(), "password changed");
    Ok(Json(EndedJson { ended: ended.len() }))
}

/// What "sign out everywhere" ends.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EverywhereParams {
    /// Also revoke every personal API token (default: sessions only).
    #[serde(default, deserialize_with = "optional")]
    pub tokens: Option<bool>,
}

/// Sign out everywhere: ends every session of the account (this one too),
/// and with `tokens=true` every API token; their sockets and streams close.
#[utoipa::path(post, path = "/api/account/logout-everywhere", tag = "account",
    request_body(content = EverywhereParams, description = "JSON or form (optional)", content_type = "application/json"),
    responses(
        (status = 400, description = "a malformed body or an unknown field", body = ErrorBody),
        (status = 200, description = "how many ended", body = EndedJson),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn logout_everywhere(
    State(login): State<Arc<Login>>,
    user: AuthUser,
    Input(p): Input<EverywhereParams>,
) -> ApiResult<Response> {
    let which = if p.tokens.unwrap_or(false) {
        EndTokens::All
    } else {
        EndTokens::Kind(TokenKind::Session)
    };
    let ended = login.accounts.end_tokens(user.user.id, which).await?;
    let mut response = Json(EndedJson { ended: ended.len() }).into_response();
    if user.via == AuthVia::Cookie {
        response
            .headers_mut()
            .insert(header::SET_COOKIE, session_cookie_header(&login, "", 0)?);
    }
    Ok(response)
}

/// A username, a password and what the new token is for.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    /// Your username.
    pub username: String,
    /// Your password.
    pub password: String,
    /// A note to recognise the token by in the list (up to 100 characters).
    pub description: Option<String>,
    /// Days until it stops working (1-3650); without it, until revoked.
    #[serde(rename = "expiresInDays", default, deserialize_with = "optional")]
    pub expires_in_days: Option<i64>,
}

/// Create a personal API token (send it as `Authorization: Bearer TOKEN`).
#[utoipa::path(post, path = "/api/token", tag = "account",
    request_body(content = TokenRequest, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 400, description = "malformed body", body = ErrorBody),
        (status = 200, description = "a new token", body = TokenJson),
        (status = 400, description = "bad description or expiry", body = ErrorBody),
        (status = 401, description = "wrong username or password", body = ErrorBody),
        (status = 429, description = "too many failed attempts", body = ErrorBody)))]
pub async fn create_token(
    State(login): State<Arc<Login>>,
    ClientIp(ip): ClientIp,
    headers: HeaderMap,
    Input(r): Input<TokenRequest>,
) -> ApiResult<Json<TokenJson>> {
    let days = r.expires_in_days;
    if let Some(d) = days
        && !(1..=3650).contains(&d)
    {
        return Err(ApiError::bad("invalid expiresInDays: 1 to 3650"));
    }
    if let Some(d) = &r.description
        && (d.chars().count() > 100 || d.chars().any(char::is_control))
    {
        return Err(ApiError::bad(
            "invalid description: up to 100 characters, no control characters",
        ));
    }
    let (user, _) = check_credentials(&login, &r.username, &r.password, ip, &headers).await?;
    let token = auth::new_token("cmp_");
    let hash = auth::token_hash(&token);
    let now = now_ms();
    let expires_at = days.map(|d| now + d * 24 * 3600 * 1000);
    login
        .accounts
        .create_token(NewToken {
            hash: &hash,
            user_id: user.id,
            kind: TokenKind::Api,
            created_at: now,
            expires_at,
            description: r.description.as_deref(),
        })
        .await?;
    Ok(Json(TokenJson {
        id: token_id(&hash).to_owned(),
        token,
        expires_at,
    }))
}

/// Revoke the API token this request is authenticated with.
#[utoipa::path(delete, path = "/api/token", tag = "account",
    responses(
        (status = 200, description = "revoked", body = OkJson),
        (status = 400, description = "not authenticated with a token", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn revoke_token(
    State(login): State<Arc<Login>>,
    user: AuthUser,
) -> ApiResult<Json<OkJson>> {
    if user.via != AuthVia::Bearer {
        return Err(ApiError::bad(
            "send the token to revoke as Authorization: Bearer",
        ));
    }
    login
        .accounts
        .end_tokens(user.user.id, EndTokens::Hash(&user.token_hash))
        .await?;
    Ok(Json(OkJson::yes()))
}

/// Your sessions (signed-in browsers) and API tokens.
#[utoipa::path(get, path = "/api/tokens", tag = "account",
    responses(
        (status = 200, description = "newest first", body = TokenListJson),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn list_tokens(
    State(login): State<Arc<Login>>,
    user: AuthUser,
) -> ApiResult<Json<TokenListJson>> {
    let current = user.token_id();
    let tokens = login
        .accounts
        .tokens(user.user.id)
        .await?
        .into_iter()
        .map(|t| TokenEntryJson {
            current: t.id == current,
            kind: t.kind.as_str(),
            id: t.id,
            created_at: t.created_at,
            expires_at: t.expires_at,
            description: t.description,
        })
        .collect();
    Ok(Json(TokenListJson { tokens }))
}

/// End one of your sessions or revoke one of your API tokens, by its id
/// from the list; its sockets and streams close.
#[utoipa::path(delete, path = "/api/tokens/{id}", tag = "account",
    params(("id" = String, Path, description = "the id from GET /api/tokens")),
    responses(
        (status = 200, description = "ended", body = OkJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 404, description = "none of yours has this id", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn end_token(
    State(login): State<Arc<Login>>,
    user: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<Json<OkJson>> {
    if id.len() != TOKEN_ID_LEN || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ApiError::bad(format!(
            "invalid token id: {TOKEN_ID_LEN} hex digits, as GET /api/tokens lists them"
        )));
    }
    let ended = login
        .accounts
        .end_tokens(user.user.id, EndTokens::Id(&id))
        .await?;
    if ended.is_empty() {
        return Err(ApiError::not_found("token"));
    }
    Ok(Json(OkJson::yes()))
}

/// Who you are.
#[utoipa::path(get, path = "/api/account", tag = "account",
    responses(
        (status = 200, description = "your account", body = AccountJson),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn account(user: AuthUser) -> Json<AccountJson> {
    Json(AccountJson::from(&user.user))
}

#[cfg(test)]
mod tests {
    use super::{readable_username, valid_username, weak_password};

    #[test]
    fn weak_passwords_are_refused_with_the_reason() {
        for (password, why) in [
            ("password", "common"),
            ("PassWord123", "common"),
            ("12345678", "common"),
            ("\0\0\0\0\0\0\0\0", "control"),
            ("short", "8 to 256"),
            ("alice-in-chains", "username"),
            ("xXALICEXx99", "username"),
            ("aaaaaaaaaaaa", "repetitive"),
            ("abababab", "repetitive"),
            ("23456789", "consecutive"),
            ("hgfedcba", "consecutive"),
        ] {
            let problem = weak_password("alice", password)
                .unwrap_or_else(|| panic!("{password:?} should be refused"));
            assert!(problem.contains(why), "{password:?}: {problem}");
        }
        for fine in [
            "correct horse battery",
            "k8#Lq2vN",
            "b1c3 pair e4!",
            "ÄÖÜäöü12",
        ] {
            assert_eq!(weak_password("alice", fine), None, "{fine:?}");
        }
    }

    #[test]
    fn usernames() {
        for ok in ["ab", "Alice", "bob_2", "x-y", "abcdefghijklmnopqrst"] {
            assert!(valid_username(ok), "{ok}");
        }
        for bad in [
            "a",
            "",
            "abcdefghijklmnopqrstu",
            "al ice",
            "é1",
            "a/b",
            "a.b",
        ] {
            assert!(!valid_username(bad), "{bad}");
        }
        // Punctuation only: a valid form, but no name for a new account.
        for bad in ["--", "__", "-_-"] {
            assert!(valid_username(bad) && !readable_username(bad), "{bad}");
        }
        for ok in ["a-", "_1", "x-y"] {
            assert!(readable_username(ok), "{ok}");
        }
    }
}
