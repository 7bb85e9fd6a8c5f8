//! Request rates: token buckets (the `governor` crate's GCRA) per client
//! address for signed-out requests and registrations, and per account for
//! signed-in requests. A request over its rate is a 429 with
//! `Retry-After` (the bucket's own wait), before any work is done.
//!
//! These are per node, like the connection caps: a bucket bounds what one
//! node spends. The limits that must hold across nodes (login failures,
//! guest accounts per address) are the store's allowances
//! (docs/security.md, "Limits shared by nodes").
//!
//! Addresses are keyed by [`address_key`]: an IPv6 client by its /64.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};

use crate::connections::address_key;
use crate::error::ApiError;
use crate::model::UserId;
use crate::state::{LimitArgs, Site};

/// One keyed bucket set, forgetting idle keys now and then.
struct Buckets<K: std::hash::Hash + Eq + Clone> {
    limiter: DefaultKeyedRateLimiter<K>,
    checks: AtomicU64,
}

impl<K: std::hash::Hash + Eq + Clone> Buckets<K> {
    fn new(quota: Quota) -> Buckets<K> {
        Buckets {
            limiter: DefaultKeyedRateLimiter::keyed(quota),
            checks: AtomicU64::new(0),
        }
    }

    /// Takes a token for `key`, or the seconds to wait for one.
    fn take(&self, key: &K) -> Result<(), u64> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % 4096 == 4095 {
            // Keys whose buckets are full again hold nothing worth keeping.
            self.limiter.retain_recent();
            self.limiter.shrink_to_fit();
        }
        self.limiter.check_key(key).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            wait.as_millis().div_ceil(1000).max(1) as u64
        })
    }
}

/// The server's request rates (`chessmerge serve` options).
pub struct Rates {
    /// Signed-out API requests per address.
    anonymous: Buckets<IpAddr>,
    /// API requests with credentials per address: a looser bound that
    /// holds for credentials that turn out not to be valid.
    credentialed: Buckets<IpAddr>,
    /// Signed-in requests per account (checked once the account is known).
    per_user: Buckets<UserId>,
    /// Registrations per address.
    registrations: Buckets<IpAddr>,
}

impl std::fmt::Debug for Rates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rates")
    }
}

fn nonzero(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n.max(1)).unwrap_or(NonZeroU32::MIN)
}

/// `per_second` tokens a second, `burst` at once.
fn per_second(per_second: u32, burst: u32) -> Quota {
    Quota::per_second(nonzero(per_second)).allow_burst(nonzero(burst))
}

impl Rates {
    /// The rates of `limits`.
    pub fn new(limits: &LimitArgs) -> Rates {
        let registrations =
            Quota::with_period(Duration::from_secs(3600) / limits.registrations_per_hour.max(1))
                .unwrap_or(Quota::per_hour(NonZeroU32::MIN))
                .allow_burst(nonzero(limits.registrations_per_hour));
        Rates {
            anonymous: Buckets::new(per_second(limits.anonymous_rate, limits.anonymous_burst)),
            credentialed: Buckets::new(per_second(
                limits.user_rate.saturating_mul(4),
                limits.user_burst.saturating_mul(4),
            )),
            per_user: Buckets::new(per_second(limits.user_rate, limits.user_burst)),
            registrations: Buckets::new(registrations),
        }
    }

    /// A signed-in request of `user`: refused when the account is over its rate.
    pub fn user_request(&self, user: UserId) -> Result<(), ApiError> {
        self.per_user.take(&user).map_err(|secs| {
            ApiError::RateLimited(
                format!("too many requests from your account: try again in {secs} s"),
                secs,
            )
        })
    }

    /// A registration from `address`.
    pub fn registration(&self, address: IpAddr) -> Result<(), ApiError> {
        self.registrations
            .take(&address_key(address))
            .map_err(|secs| {
                ApiError::RateLimited(
                    format!(
                        "too many accounts registered from your address: try again in {} min",
                        secs.div_ceil(60)
                    ),
                    secs,
                )
            })
    }

    /// A request with no credentials (or credentials that are not valid)
    /// from `address`.
    pub fn anonymous_request(&self, address: IpAddr) -> Result<(), ApiError> {
        self.anonymous.take(&address_key(address)).map_err(|secs| {
            ApiError::RateLimited(
                format!(
                    "too many requests from your address without signing in: \
                     try again in {secs} s"
                ),
                secs,
            )
        })
    }

    fn credentialed_request(&self, address: IpAddr) -> Result<(), ApiError> {
        self.credentialed
            .take(&address_key(address))
            .map_err(|secs| {
                ApiError::RateLimited(
                    format!("too many requests from your address: try again in {secs} s"),
                    secs,
                )
            })
    }
}

/// Middleware: the API's requests (`/api/...`, `/game/...`; the page's
/// files are not counted) take a token of their address's bucket:
/// signed-out ones of the anonymous bucket, ones with credentials of a
/// looser one (their account's own rate is checked when the credentials
/// are read, [`crate::auth`]).
pub async fn rate_limit(
    State((rates, site)): State<(Arc<Rates>, Arc<Site>)>,
    req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path();
    if path.starts_with("/api/") || path.starts_with("/game/") {
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
        let address = crate::auth::client_ip(peer, req.headers(), &site.trusted_proxies);
        let taken = if shows_credentials(req.headers()) {
            rates.credentialed_request(address)
        } else {
            rates.anonymous_request(address)
        };
        if let Err(refused) = taken {
            return refused.into_response();
        }
    }
    next.run(req).await
}

/// Whether a request carries credentials (checked later): an
/// `Authorization` header or a session cookie.
pub fn shows_credentials(headers: &axum::http::HeaderMap) -> bool {
    headers.contains_key(axum::http::header::AUTHORIZATION)
        || crate::auth::session_cookie(headers).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_refuses_past_its_burst_and_says_how_long_to_wait() {
        let b: Buckets<u8> = Buckets::new(per_second(1, 3));
        for _ in 0..3 {
            assert_eq!(b.take(&1), Ok(()));
        }
        assert_eq!(b.take(&1), Err(1), "a token a second");
        assert_eq!(b.take(&2), Ok(()), "another key has its own bucket");
        let hourly = Quota::with_period(Duration::from_secs(3600) / 10)
            .unwrap()
            .allow_burst(nonzero(10));
        let r: Buckets<u8> = Buckets::new(hourly);
        for _ in 0..10 {
            assert_eq!(r.take(&1), Ok(()));
        }
        let wait = r.take(&1).unwrap_err();
        assert!((300..=360).contains(&wait), "{wait}");
    }
}
