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
use crate::accounts::Accounts;
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

pub use crate::store::random_bytes;

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
    /// The credential it was authenticated with, which its live
    /// connections follow (they end when it is revoked).
    pub fn credential(&self) -> crate::live::Credential {
        crate::live::Credential {
            token_hash: self.token_hash.clone(),
            kind: match self.via {
                AuthVia::Bearer => crate::store::TokenKind::Api,
                AuthVia::Cookie => crate::store::TokenKind::Session,
            },
        }
    }

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

async fn authenticate(parts: &Parts, accounts: &Accounts) -> Result<Option<AuthUser>, ApiError> {
    if let Some(token) = bearer(&parts.headers)? {
        let hash = token_hash(&token);
        let user = accounts
            .user_by_token(&hash, TokenKind::Api)
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
        let user = accounts.user_by_token(&hash, TokenKind::Session).await?;
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

/// [`authenticate`], then the request's rate: the account's bucket, or,
/// when a session cookie turned out not to be valid, the address's
/// signed-out bucket (so a made-up cookie buys no rate of its own).
async fn authenticate_rated(parts: &Parts, state: &AppState) -> Result<Option<AuthUser>, ApiError> {
    let user = authenticate(parts, &state.accounts).await?;
    match &user {
        Some(u) => state.rates.user_request(u.user.id)?,
        None if session_cookie(&parts.headers).is_some() => {
            let peer = parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map_or(std::net::IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
            let address = client_ip(peer, &parts.headers, &state.site.trusted_proxies);
            state.rates.anonymous_request(address)?;
        }
        None => {}
    }
    Ok(user)
}

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        authenticate_rated(parts, state).await?.ok_or_else(|| {
            ApiError::Unauthorized(
                "authentication required: log in, or send Authorization: Bearer TOKEN".into(),
            )
        })
    }
}

impl FromRequestParts<AppState> for MaybeUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        authenticate_rated(parts, state).await.map(MaybeUser)
    }
}

/// Middleware: refuses cross-site requests that a browser could send with
/// our cookie: any non-GET request, and WebSocket upgrades, whose `Origin`
/// is not this host or whose `Sec-Fetch-Site` says `cross-site`. Requests
/// with an `Authorization` header are exempt (browsers never add one on
/// their own).
pub async fn cross_site_guard(
    axum::extract::State(site): axum::extract::State<std::sync::Arc<crate::state::Site>>,
    req: Request,
    next: Next,
) -> Response {
    let headers = req.headers();
    let is_upgrade = headers.contains_key(header::UPGRADE);
    let safe = matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) && !is_upgrade;
    let https = site.base_url.starts_with("https:");
    if !safe && !headers.contains_key(header::AUTHORIZATION) && is_cross_site(headers, https) {
        return ApiError::Forbidden("cross-site request refused".into()).into_response();
    }
    next.run(req).await
}

/// Whether a request comes from another site: `Sec-Fetch-Site` says so,
/// or its `Origin` is not this host, or not by this site's scheme (`https`
/// when the site is served over https: a page from the same host over
/// plain http is another origin, one a network attacker can write; else
/// `http` or `https`).
fn is_cross_site(headers: &HeaderMap, https: bool) -> bool {
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
    let Some((scheme, origin_host)) = origin.split_once("://") else {
        // `null` (a sandboxed frame, a file) and anything else.
        return true;
    };
    let scheme_ok = if https {
        scheme.eq_ignore_ascii_case("https")
    } else {
        scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
    };
    if !scheme_ok {
        return true;
    }
    match host {
        Some(host) => !origin_host.eq_ignore_ascii_case(host),
        None => true,
    }
}

/// The request's client address ([`client_ip`]: the peer, or what a
/// trusted proxy saw), for the limits that count by address.
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub std::net::IpAddr);

impl<S> FromRequestParts<S> for ClientIp
where
    std::sync::Arc<crate::state::Site>: axum::extract::FromRef<S>,
    S: Send + Sync,
{
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        use axum::extract::FromRef;
        let site = std::sync::Arc::<crate::state::Site>::from_ref(state);
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map_or(std::net::IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
        Ok(ClientIp(client_ip(
            peer,
            &parts.headers,
            &site.trusted_proxies,
        )))
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
/// All three live in the store ([`crate::store::Store::take_allowance`]):
/// every node counts the same attempts, and an attempt is counted, under
/// every key, in the same transaction as it is checked.
pub struct LoginLimiter {
    store: std::sync::Arc<crate::store::Store>,
    window: Duration,
    per_pair: u32,
    per_address: u32,
    account_free: u32,
}

/// The longest delay between two attempts at one account.
pub const MAX_ACCOUNT_DELAY: Duration = Duration::from_secs(30);

impl LoginLimiter {
    /// A limiter with these limits per `window`.
    pub fn new(
        store: std::sync::Arc<crate::store::Store>,
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
        }
    }

    fn pair_key(account: &str, address: &str) -> String {
        format!("p:{}|{address}", account.to_lowercase())
    }

    fn address_key(address: &str) -> String {
        format!("a:{address}")
    }

    fn account_key(account: &str) -> String {
        format!("s:{}", account.to_lowercase())
    }

    /// Takes an attempt at `account` from `address`. `Err` with the reason
    /// when it may not go ahead; when it may, it is already counted as a
    /// failure (in the same step as the check, so that concurrent guesses
    /// cannot all pass the check before any is counted, on any node);
    /// report a success with [`LoginLimiter::succeeded`].
    /// `known_device`: the request carries this account's device cookie
    /// (then neither the address nor the account-wide spacing applies, and
    /// the attempt is not counted under them).
    pub async fn try_attempt(
        &self,
        account: &str,
        address: &str,
        known_device: bool,
    ) -> Result<(), ApiError> {
        use crate::store::{Allowance, Limit};
        let window_ms = self.window.as_millis() as i64;
        let mut keys = Vec::with_capacity(3);
        if !known_device {
            keys.push(Allowance {
                key: Self::account_key(account),
                window_ms,
                limit: Limit::Spaced {
                    free: self.account_free,
                    max_delay_ms: MAX_ACCOUNT_DELAY.as_millis() as i64,
                },
            });
        }
        keys.push(Allowance {
            key: Self::pair_key(account, address),
            window_ms,
            limit: Limit::AtMost(self.per_pair),
        });
        if !known_device {
            keys.push(Allowance {
                key: Self::address_key(address),
                window_ms,
                limit: Limit::AtMost(self.per_address),
            });
        }
        match self.store.take_allowance(&keys).await? {
            Ok(()) => Ok(()),
            Err(r) if matches!(keys[r.index].limit, Limit::Spaced { .. }) => {
                let secs = (r.retry_ms.max(0) as u64).div_ceil(1000);
                Err(ApiError::RateLimited(
                    format!(
                        "this account had many failed sign-ins: try again in {secs} s \
                         (a browser that signed in to it before is not held up)"
                    ),
                    secs,
                ))
            }
            Err(r) => Err(ApiError::RateLimited(
                "too many failed sign-ins from your address: try again later".into(),
                (r.retry_ms.max(0) as u64).div_ceil(1000),
            )),
        }
    }

    /// A successful sign-in: forgets the failures of this account at this
    /// address and the account's delay (the owner is here), and hands back the address's count
    /// taken by [`LoginLimiter::try_attempt`] (none was taken for a known
    /// device).
    pub async fn succeeded(
        &self,
        account: &str,
        address: &str,
        known_device: bool,
    ) -> Result<(), ApiError> {
        let forget = [Self::pair_key(account, address), Self::account_key(account)];
        let hand_back: Vec<String> = (!known_device)
            .then(|| Self::address_key(address))
            .into_iter()
            .collect();
        Ok(self.store.return_allowance(&forget, &hand_back).await?)
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
        // Three failures are free; the fourth starts the delays.
        for i in 0..4 {
            limiter
                .try_attempt("Bob", &format!("10.0.0.{i}"), false)
                .await
                .unwrap();
        }
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
        // Other accounts are not affected.
        limiter
            .try_attempt("carol", "10.0.1.1", false)
            .await
            .unwrap();
        // A success forgets the account's delay.
        limiter.succeeded("bob", "10.0.1.1", true).await.unwrap();
        limiter.try_attempt("bob", "10.0.1.2", false).await.unwrap();
    }

    #[test]
    fn the_account_delay_doubles_and_stays_bounded() {
        use crate::store::{Allowance, Limit};
        let a = Allowance {
            key: "s:bob".into(),
            window_ms: 1_000_000_000,
            limit: Limit::Spaced {
                free: 3,
                max_delay_ms: MAX_ACCOUNT_DELAY.as_millis() as i64,
            },
        };
        let mut row = None;
        let mut waits = Vec::new();
        let mut now = 1_000_000;
        for _ in 0..40 {
            let next = a.take(row, now).expect("taken once the wait is over");
            waits.push(next.2.max(now) - now);
            assert_eq!(
                a.take(Some(next), now + waits.last().unwrap() - 1).is_err(),
                next.2 > now
            );
            now = next.2.max(now);
            row = Some(next);
        }
        assert_eq!(&waits[..7], &[0, 0, 0, 1000, 2000, 4000, 8000]);
        assert!(waits.iter().all(|w| *w <= 30_000) && waits[39] == 30_000);
        // After the window the account starts again from its free failures.
        assert_eq!(a.take(row, now + 1_000_000_000).unwrap().0, 1);
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
        assert!(!is_cross_site(&h, false), "no Origin: a non-browser client");
        h.insert(header::ORIGIN, "http://127.0.0.1:8080".parse().unwrap());
        assert!(!is_cross_site(&h, false));
        assert!(
            is_cross_site(&h, true),
            "an https site: the same host over plain http is another origin"
        );
        h.insert(header::ORIGIN, "https://127.0.0.1:8080".parse().unwrap());
        assert!(!is_cross_site(&h, true));
        for other in ["ftp://127.0.0.1:8080", "null", "127.0.0.1:8080"] {
            h.insert(header::ORIGIN, other.parse().unwrap());
            assert!(is_cross_site(&h, false), "{other}");
        }
        h.insert(header::ORIGIN, "https://evil.example".parse().unwrap());
        assert!(is_cross_site(&h, false));
        h.remove(header::ORIGIN);
        h.insert("sec-fetch-site", "cross-site".parse().unwrap());
        assert!(is_cross_site(&h, false));
    }
}
