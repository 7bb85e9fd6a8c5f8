//! Accounts: register, log in and out (session cookie), API tokens.

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::{self, AuthUser, AuthVia, SESSION_COOKIE, SESSION_MAX_AGE};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Input;
use crate::store::{StoreError, TokenKind, User};
use crate::views::{AccountJson, OkJson, TokenJson};
use crate::{AppState, now_ms};

/// A username and a password.
#[derive(Debug, Deserialize, ToSchema)]
pub struct Credentials {
    /// 2-20 letters, digits, `_` or `-`; unique without regard to case.
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
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn session_cookie_header(state: &AppState, token: &str, max_age: u64) -> ApiResult<HeaderValue> {
    let secure = if state.base_url.starts_with("https:") {
        "; Secure"
    } else {
        ""
    };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}"
    ))
    .map_err(|e| ApiError::Internal(e.to_string()))
}

async fn start_session(state: &AppState, user: &User) -> ApiResult<HeaderValue> {
    let token = auth::new_token("cms_");
    state
        .store
        .create_token(
            &auth::token_hash(&token),
            user.id,
            TokenKind::Session,
            now_ms(),
        )
        .await?;
    session_cookie_header(state, &token, SESSION_MAX_AGE)
}

/// Register an account (and log in).
#[utoipa::path(post, path = "/api/account/register", tag = "account",
    request_body(content = Credentials, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "registered; a session cookie is set", body = AccountJson),
        (status = 400, description = "bad username or password", body = ErrorBody),
        (status = 409, description = "the username is taken", body = ErrorBody)))]
pub async fn register(
    State(state): State<AppState>,
    Input(c): Input<Credentials>,
) -> ApiResult<Response> {
    if !valid_username(&c.username) {
        return Err(ApiError::bad(
            "invalid username: 2-20 letters, digits, '_' or '-' (and not 'open' or 'ai')",
        ));
    }
    let len = c.password.chars().count();
    if !(MIN_PASSWORD..=MAX_PASSWORD).contains(&len) {
        return Err(ApiError::bad(format!(
            "invalid password: {MIN_PASSWORD} to {MAX_PASSWORD} characters"
        )));
    }
    if state.store.user_by_name(&c.username).await?.is_some() {
        return Err(ApiError::Conflict("username taken".into()));
    }
    let hash = auth::hash_password(&state.hashing, c.password).await?;
    let user = match state.store.create_user(&c.username, &hash, now_ms()).await {
        Ok(u) => u,
        Err(StoreError::Conflict) => return Err(ApiError::Conflict("username taken".into())),
        Err(e) => return Err(e.into()),
    };
    tracing::info!(user = %user.username, "registered");
    let cookie = start_session(&state, &user).await?;
    Ok((
        [(header::SET_COOKIE, cookie)],
        Json(AccountJson::from(&user)),
    )
        .into_response())
}

/// Checks credentials under the login limits.
async fn check_credentials(
    state: &AppState,
    c: &Credentials,
    addr: SocketAddr,
    headers: &HeaderMap,
) -> ApiResult<User> {
    let ip = auth::client_ip(addr.ip(), headers, &state.trusted_proxies).to_string();
    if !state.limiter.try_attempt(&c.username, &ip).await? {
        return Err(ApiError::TooManyRequests(
            "too many failed logins; try again later".into(),
        ));
    }
    let user = if valid_username(&c.username) && c.password.len() <= 4 * MAX_PASSWORD {
        state.store.user_by_name(&c.username).await?
    } else {
        None
    };
    let ok = auth::verify_password(
        &state.hashing,
        c.password.clone(),
        user.as_ref().map(|u| u.password_hash.clone()),
    )
    .await?;
    match user {
        Some(u) if ok => {
            state.limiter.succeeded(&c.username, &ip).await?;
            Ok(u)
        }
        // The failure was counted when the attempt was taken.
        _ => Err(ApiError::Unauthorized("wrong username or password".into())),
    }
}

/// Log in: sets the session cookie (HttpOnly, SameSite=Lax).
#[utoipa::path(post, path = "/api/account/login", tag = "account",
    request_body(content = Credentials, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 400, description = "malformed body", body = ErrorBody),
        (status = 200, description = "logged in; a session cookie is set", body = AccountJson),
        (status = 401, description = "wrong username or password", body = ErrorBody),
        (status = 429, description = "too many failed attempts", body = ErrorBody)))]
pub async fn login(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Input(c): Input<Credentials>,
) -> ApiResult<Response> {
    let user = check_credentials(&state, &c, addr, &headers).await?;
    let cookie = start_session(&state, &user).await?;
    Ok((
        [(header::SET_COOKIE, cookie)],
        Json(AccountJson::from(&user)),
    )
        .into_response())
}

/// Log out: ends the session and clears the cookie.
#[utoipa::path(post, path = "/api/account/logout", tag = "account",
    responses((status = 200, description = "logged out", body = OkJson)))]
pub async fn logout(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<Response> {
    if let Some(token) = auth::session_cookie(&headers) {
        state.store.delete_token(&auth::token_hash(&token)).await?;
    }
    let cookie = session_cookie_header(&state, "", 0)?;
    Ok(([(header::SET_COOKIE, cookie)], Json(OkJson::yes())).into_response())
}

/// Create a personal API token (send it as `Authorization: Bearer TOKEN`).
#[utoipa::path(post, path = "/api/token", tag = "account",
    request_body(content = Credentials, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 400, description = "malformed body", body = ErrorBody),
        (status = 200, description = "a new token", body = TokenJson),
        (status = 401, description = "wrong username or password", body = ErrorBody),
        (status = 429, description = "too many failed attempts", body = ErrorBody)))]
pub async fn create_token(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Input(c): Input<Credentials>,
) -> ApiResult<Json<TokenJson>> {
    let user = check_credentials(&state, &c, addr, &headers).await?;
    let token = auth::new_token("cmp_");
    state
        .store
        .create_token(&auth::token_hash(&token), user.id, TokenKind::Api, now_ms())
        .await?;
    Ok(Json(TokenJson { token }))
}

/// Revoke the API token this request is authenticated with.
#[utoipa::path(delete, path = "/api/token", tag = "account",
    responses(
        (status = 200, description = "revoked", body = OkJson),
        (status = 400, description = "not authenticated with a token", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn revoke_token(
    State(state): State<AppState>,
    user: AuthUser,
    headers: HeaderMap,
) -> ApiResult<Json<OkJson>> {
    if user.via != AuthVia::Bearer {
        return Err(ApiError::bad(
            "send the token to revoke as Authorization: Bearer",
        ));
    }
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .map(|(_, t)| t.trim().to_owned())
        .unwrap_or_default();
    state.store.delete_token(&auth::token_hash(&token)).await?;
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
    use super::valid_username;

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
    }
}
