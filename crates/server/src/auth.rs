//! Accounts' security: password hashes, tokens, the authenticated-user
//! extractors, cross-site request protection and login attempt limiting.

use std::sync::OnceLock;
use std::time::Duration;

use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::AppState;
use crate::blocking::Bounded;
use crate::error::ApiError;
use crate::store::{TokenKind, User};

/// Name of the session cookie.
pub const SESSION_COOKIE: &str = "chessmerge_session";

/// Session cookies live this long (seconds), in the browser and on the
/// server (an absolute limit from sign-in, not renewed by use).
pub const SESSION_MAX_AGE: u64 = 30 * 24 * 3600;

/// Name of the device cookie: set at a successful sign-in, sent back only
/// to the account endpoints; it exempts that browser's later sign-ins to
/// the same account from the account-wide delays and the address limit.
pub const DEVICE_COOKIE: &str = "chessmerge_device";

/// Device cookies live this long (seconds).
pub const DEVICE_MAX_AGE: u64 = 365 * 24 * 3600;

/// Hashes a password with Argon2id on the bounded hashing lane (each
/// hash holds about 19 MiB while it runs; the lane bounds how many run).
pub async fn hash_password(lane: &Bounded, password: String) -> Result<String, ApiError> {
    Ok(lane
        .run(move || password_auth::generate_hash(password))
        .await?)
}

/// Checks a password against a stored hash on the bounded hashing lane.
/// With no hash (unknown user) a dummy hash is checked, so that the answer
/// takes as long either way.
pub async fn verify_password(
    lane: &Bounded,
    password: String,
    hash: Option<String>,
) -> Result<bool, ApiError> {
    Ok(lane
        .run(move || {
            static DUMMY: OnceLock<String> = OnceLock::new();
            match hash {
                Some(h) => password_auth::verify_password(password, &h).is_ok(),
                None => {
                    let dummy =
                        DUMMY.get_or_init(|| password_auth::generate_hash("dummy password"));
                    let _ = password_auth::verify_password(password, dummy);
                    false
                }
            }
        })
        .await?)
}

/// Random bytes from the operating system.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut buf = [0u8; N];
    getrandom::fill(&mut buf).expect("the operating system's random source failed");
    buf
}

/// A new secret token (64 hex digits, with a kind prefix).
pub fn new_token(prefix: &str) -> String {
    let bytes: [u8; 32] = random_bytes();
    let mut s = String::with_capacity(prefix.len() + 64);
    s.push_str(prefix);
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// What the database keeps of a token: its SHA-256, in hex.
pub fn token_hash(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// How a request was authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthVia {
    /// `Authorization: Bearer`.
    Bearer,
    /// The session cookie.
    Cookie,
}

/// An authenticated user; extracting it answers 401 when there is none.
#[derive(Debug, Clone)]
pub struct AuthUser {
    /// The account.
    pub user: User,
    /// How it was authenticated.
    pub via: AuthVia,
    /// The hash of the token or session cookie it came with: live
    /// connections made with it end when it is revoked.
    pub token_hash: String,
}

impl AuthUser {
    /// The public name of the credential ([`crate::store::token_id`]).
    pub fn token_id(&self) -> String {
        crate::store::token_id(&self.token_hash).to_owned()
    }
}

/// Why a bot is refused outside the bot API.
pub const BOT_OUTSIDE_BOT_API: &str = "bot accounts play only through the bot API (/api/bot/...) with a token, not through the page or the board API";

/// Why a human is refused by the bot API.
pub const HUMAN_ON_BOT_API: &str = "the bot API is for bot accounts only: upgrade an account that has no games with POST /api/bot/account/upgrade, or use the board API";

impl AuthUser {
    /// A human player: a bot is refused (403), because bots act only
    /// through the bot API.
    pub fn human(&self) -> Result<&User, ApiError> {
        if self.user.bot {
            return Err(ApiError::Forbidden(BOT_OUTSIDE_BOT_API.into()));
        }
        Ok(&self.user)
    }

    /// A bot account: a human is refused (403).
    pub fn bot(&self) -> Result<&User, ApiError> {
        if !self.user.bot {
            return Err(ApiError::Forbidden(HUMAN_ON_BOT_API.into()));
        }
        Ok(&self.user)
    }
}

/// The user if the request is authenticated; bad credentials still answer 401.
#[derive(Debug, Clone)]
pub struct MaybeUser(pub Option<AuthUser>);

/// The session cookie's value, if the request has one.
pub fn session_cookie(headers: &HeaderMap) -> Option<String> {
    cookie(headers, SESSION_COOKIE)
}

/// A cookie's value, if the request has it.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

fn bearer(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::Unauthorized("invalid Authorization header".into()))?;
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(Some(token.trim().to_owned()))
        }
        _ => Err(ApiError::Unauthorized(
            "invalid Authorization header: expected \"Bearer TOKEN\"".into(),
        )),
    }
}

async fn authenticate(parts: &Parts, state: &AppState) -> Result<Option<AuthUser>, ApiError> {
    let now = crate::now_ms();
    if let Some(token) = bearer(&parts.headers)? {
        let hash = token_hash(&token);
        let user = state
            .store
            .user_by_token(&hash, TokenKind::Api, now)
            .await?
            .ok_or_else(|| ApiError::Unauthorized("invalid, expired or revoked token".into()))?;
        return Ok(Some(AuthUser {
            user,
            via: AuthVia::Bearer,
            token_hash: hash,
        }));
    }
    if let Some(cookie) = cookie(&parts.headers, SESSION_COOKIE) {
        // A stale cookie counts as not logged in (the page then shows the login form).
        let hash = token_hash(&cookie);
        let user = state
            .store
            .user_by_token(&hash, TokenKind::Session, now)
            .await?;
        // The page is for humans: a session of an account that became a
        // bot acts no more.
        if user.as_ref().is_some_and(|u| u.bot) {
            return Err(ApiError::Forbidden(BOT_OUTSIDE_BOT_API.into()));
        }
        return Ok(user.map(|user| AuthUser {
            user,
            via: AuthVia::Cookie,
            token_hash: hash,
        }));
    }
    Ok(None)
}

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        authenticate(parts, state).await?.ok_or_else(|| {
            ApiError::Unauthorized(
                "authentication required: log in, or send Authorization: Bearer TOKEN".into(),
            )
        })
    }
}

impl FromRequestParts<AppState> for MaybeUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        authenticate(parts, state).await.map(MaybeUser)
    }
}

/// Middleware: refuses cross-site requests that a browser could send with
/// our cookie: any non-GET request, and WebSocket upgrades, whose `Origin`
/// is not this host or whose `Sec-Fetch-Site` says `cross-site`. Requests
/// with an `Authorization` header are exempt (browsers never add one on
/// their own).
pub async fn cross_site_guard(req: Request, next: Next) -> Response {
    let headers = req.headers();
    let is_upgrade = headers.contains_key(header::UPGRADE);
    let safe = matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) && !is_upgrade;
    if !safe && !headers.contains_key(header::AUTHORIZATION) && is_cross_site(headers) {
        return ApiError::Forbidden("cross-site request refused".into()).into_response();
    }
    next.run(req).await
}

fn is_cross_site(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok())
        && site.eq_ignore_ascii_case("cross-site")
    {
        return true;
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return false;
    };
    let Ok(origin) = origin.to_str() else {
        return true;
    };
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin_host = origin.split_once("://").map(|(_, rest)| rest).unwrap_or("");
    match host {
        Some(host) => !origin_host.eq_ignore_ascii_case(host),
        None => true,
    }
}

/// The client's address: the connection's peer, or, when the peer is one
/// of the `trusted` proxies, the rightmost address in `X-Forwarded-For`
/// that is not itself a trusted proxy (what the proxy saw). A header from
/// anyone else is ignored: it is the client's own word.
pub fn client_ip(
    peer: std::net::IpAddr,
    headers: &HeaderMap,
    trusted: &[std::net::IpAddr],
) -> std::net::IpAddr {
    if !trusted.contains(&peer) {
        return peer;
    }
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|a| a.trim().parse::<std::net::IpAddr>().ok())
        .rev()
        .find(|a| !trusted.contains(a))
        .unwrap_or(peer)
}

/// Limits failed logins so that guessing is slow and the owner is never
/// locked out by someone else's guesses:
///
/// - per account *and* address together: `per_pair` failures per window,
///   then refused (a guesser at one address stops; nobody else is held);
/// - per address: `per_address` failures per window across accounts
///   (credential stuffing), not applied to a browser with the account's
///   device cookie;
/// - per account, from anywhere: after `account_free` failures in the
///   window, attempts are spaced by a growing delay (1 s, 2 s, 4 s ... up
///   to 30 s), never refused outright, and not applied to a browser with
///   the account's device cookie.
///
/// The pair and address counts live in the store (every node counts the
/// same attempts, and an attempt is counted in the same step as it is
/// checked). The account-wide spacing is kept by each node: N nodes allow
/// N attempts per delay.
pub struct LoginLimiter {
    store: std::sync::Arc<dyn crate::store::Store>,
    window: Duration,
    per_pair: u32,
    per_address: u32,
    account_free: u32,
    spacing: std::sync::Mutex<std::collections::HashMap<String, Spacing>>,
}

/// One account's recent failures on this node.
#[derive(Debug, Clone, Copy)]
struct Spacing {
    failures: u32,
    since: std::time::Instant,
    next_allowed: std::time::Instant,
}

/// The longest delay between two attempts at one account.
pub const MAX_ACCOUNT_DELAY: Duration = Duration::from_secs(30);

/// Accounts whose spacing is remembered at most (older entries are dropped first).
const SPACING_ENTRIES: usize = 50_000;

impl LoginLimiter {
    /// A limiter with these limits per `window`.
    pub fn new(
        store: std::sync::Arc<dyn crate::store::Store>,
        window: Duration,
        per_pair: u32,
        per_address: u32,
        account_free: u32,
    ) -> LoginLimiter {
        LoginLimiter {
            store,
            window,
            per_pair,
            per_address,
            account_free,
            spacing: Default::default(),
        }
    }

    fn pair_key(account: &str, address: &str) -> String {
        format!("p:{}|{address}", account.to_lowercase())
    }

    fn address_key(address: &str) -> String {
        format!("a:{address}")
    }

    /// Takes an attempt at `account` from `address`. `Err` with the reason
    /// when it may not go ahead; when it may, it is already counted as a
    /// failure (in the same step as the check, so that concurrent guesses
    /// cannot all pass the check before any is counted); report the outcome
    /// with [`LoginLimiter::failed`] or [`LoginLimiter::succeeded`].
    /// `known_device`: the request carries this account's device cookie.
    pub async fn try_attempt(
        &self,
        account: &str,
        address: &str,
        known_device: bool,
    ) -> Result<(), ApiError> {
        let account = account.to_lowercase();
        if !known_device && let Some(wait) = self.wait_for(&account) {
            return Err(ApiError::TooManyRequests(format!(
                "this account had many failed sign-ins: try again in {} s \
                 (a browser that signed in to it before is not held up)",
                wait.as_secs().max(1)
            )));
        }
        let mut keys = vec![(Self::pair_key(&account, address), self.per_pair)];
        if !known_device {
            keys.push((Self::address_key(address), self.per_address));
        }
        if !self
            .store
            .take_login_attempt(&keys, self.window.as_millis() as i64)
            .await?
        {
            return Err(ApiError::TooManyRequests(
                "too many failed sign-ins from your address: try again later".into(),
            ));
        }
        Ok(())
    }

    /// How long an attempt at `account` must still wait, if at all.
    fn wait_for(&self, account: &str) -> Option<Duration> {
        let now = std::time::Instant::now();
        let map = self.spacing.lock().unwrap_or_else(|e| e.into_inner());
        let s = map.get(account)?;
        (now.duration_since(s.since) < self.window && s.next_allowed > now)
            .then(|| s.next_allowed - now)
    }

    /// The attempt failed (a wrong password): the account's delay grows.
    pub fn failed(&self, account: &str) {
        let now = std::time::Instant::now();
        let mut map = self.spacing.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= SPACING_ENTRIES {
            let window = self.window;
            map.retain(|_, s| now.duration_since(s.since) < window);
            if map.len() >= SPACING_ENTRIES {
                map.clear();
            }
        }
        let s = map.entry(account.to_lowercase()).or_insert(Spacing {
            failures: 0,
            since: now,
            next_allowed: now,
        });
        if now.duration_since(s.since) >= self.window {
            *s = Spacing {
                failures: 0,
                since: now,
                next_allowed: now,
            };
        }
        s.failures += 1;
        if s.failures > self.account_free {
            let doublings = (s.failures - self.account_free - 1).min(16);
            let delay = Duration::from_secs(1u64 << doublings).min(MAX_ACCOUNT_DELAY);
            s.next_allowed = now + delay;
        }
    }

    /// A successful sign-in: forgets the failures of this account at this
    /// address and its delay, and hands back the address's count taken by
    /// [`LoginLimiter::try_attempt`] (none was taken for a known device).
    pub async fn succeeded(
        &self,
        account: &str,
        address: &str,
        known_device: bool,
    ) -> Result<(), ApiError> {
        self.spacing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&account.to_lowercase());
        let address_key = (!known_device).then(|| Self::address_key(address));
        Ok(self
            .store
            .login_succeeded(&Self::pair_key(account, address), address_key.as_deref())
            .await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn limiter_keys_ignore_the_accounts_case() {
        assert_eq!(
            LoginLimiter::pair_key("ALICE", "1.2.3.4"),
            LoginLimiter::pair_key("alice", "1.2.3.4")
        );
        assert_ne!(
            LoginLimiter::pair_key("alice", "1.2.3.4"),
            LoginLimiter::pair_key("alice", "1.2.3.5")
        );
        assert_ne!(
            LoginLimiter::pair_key("a", ""),
            LoginLimiter::address_key("a")
        );
    }

    #[tokio::test]
    async fn the_account_wide_limit_spaces_attempts_and_never_locks() {
        let (store, _dir) = crate::store::conformance::temp_sqlite("spacing").await;
        let limiter = LoginLimiter::new(Arc::new(store), Duration::from_secs(900), 10, 100, 3);
        for i in 0..3 {
            limiter
                .try_attempt("Bob", &format!("10.0.0.{i}"), false)
                .await
                .unwrap();
            limiter.failed("Bob");
        }
        // Three failures are free; the fourth starts the delays.
        limiter.try_attempt("bob", "10.0.0.9", false).await.unwrap();
        limiter.failed("bob");
        let refused = limiter
            .try_attempt("bob", "10.0.1.1", false)
            .await
            .unwrap_err();
        assert_eq!(refused.status(), axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert!(
            refused.to_string().contains("try again in 1 s"),
            "{refused}"
        );
        // The owner's browser, known by its device cookie, is not held up.
        limiter.try_attempt("bob", "10.0.1.1", true).await.unwrap();
        // The delay grows and stays bounded.
        for _ in 0..40 {
            limiter.failed("bob");
        }
        assert!(limiter.wait_for("bob").unwrap() <= MAX_ACCOUNT_DELAY);
        assert!(limiter.wait_for("bob").unwrap() > Duration::from_secs(20));
        // Other accounts are not affected.
        limiter
            .try_attempt("carol", "10.0.1.1", false)
            .await
            .unwrap();
        limiter.succeeded("bob", "10.0.1.1", false).await.unwrap();
        assert_eq!(limiter.wait_for("bob"), None);
    }

    #[test]
    fn tokens_are_random_and_hashed() {
        let a = new_token("cmp_");
        let b = new_token("cmp_");
        assert_ne!(a, b);
        assert_eq!(a.len(), 68);
        assert_eq!(token_hash(&a).len(), 64);
        assert_eq!(token_hash(&a), token_hash(&a));
        assert_ne!(token_hash(&a), token_hash(&b));
    }

    #[test]
    fn the_forwarded_address_counts_only_from_a_trusted_proxy() {
        let proxy: std::net::IpAddr = "127.0.0.1".parse().unwrap();
        let other: std::net::IpAddr = "10.9.9.9".parse().unwrap();
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", "6.6.6.6, 203.0.113.7".parse().unwrap());
        assert_eq!(
            client_ip(other, &h, &[proxy]),
            other,
            "untrusted peer: header ignored"
        );
        assert_eq!(
            client_ip(proxy, &h, &[proxy]).to_string(),
            "203.0.113.7",
            "the address the proxy saw, not what the client claimed before it"
        );
        assert_eq!(client_ip(proxy, &HeaderMap::new(), &[proxy]), proxy);
        assert_eq!(
            client_ip(proxy, &h, &[]),
            proxy,
            "no proxy trusted by default"
        );
    }

    #[test]
    fn cookie_parsing() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            "a=1; chessmerge_session=abc ; b=2".parse().unwrap(),
        );
        assert_eq!(session_cookie(&h).as_deref(), Some("abc"));
        h.insert(header::COOKIE, "chessmerge_session=".parse().unwrap());
        assert_eq!(session_cookie(&h), None);
    }

    #[test]
    fn cross_site_detection() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "127.0.0.1:8080".parse().unwrap());
        assert!(!is_cross_site(&h), "no Origin: a non-browser client");
        h.insert(header::ORIGIN, "http://127.0.0.1:8080".parse().unwrap());
        assert!(!is_cross_site(&h));
        h.insert(header::ORIGIN, "https://evil.example".parse().unwrap());
        assert!(is_cross_site(&h));
        h.remove(header::ORIGIN);
        h.insert("sec-fetch-site", "cross-site".parse().unwrap());
        assert!(is_cross_site(&h));
    }
}
