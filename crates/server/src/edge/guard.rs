//! What every request and response passes at the edge: the `Host` check
//! (a request for another site's name is refused, which defeats DNS
//! rebinding) and the security headers.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::Site;

/// The host names a request may be addressed to.
#[derive(Debug, Clone)]
pub enum AllowedHosts {
    /// Any `Host` (no public URL configured and not listening on loopback
    /// only: the server cannot know its names; `serve` warns).
    Any,
    /// The public URL's `host[:port]`; loopback names are always allowed
    /// (development, health checks on the machine itself).
    Only(Vec<String>),
}

impl AllowedHosts {
    /// The hosts allowed for a server whose public base URL is `base_url`
    /// (`None` when no `--public-url` was given) and which listens on `listen`.
    pub fn new(base_url: Option<&str>, listen: std::net::SocketAddr) -> AllowedHosts {
        match base_url {
            Some(url) => AllowedHosts::Only(vec![authority(url).to_ascii_lowercase()]),
            None if listen.ip().is_loopback() => AllowedHosts::Only(Vec::new()),
            None => AllowedHosts::Any,
        }
    }

    /// Whether a `Host` header value may be served.
    pub fn allows(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        match self {
            AllowedHosts::Any => true,
            AllowedHosts::Only(names) => is_loopback(&host) || names.contains(&host),
        }
    }
}

/// `host[:port]` of a URL.
fn authority(url: &str) -> &str {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    rest.split(['/', '?', '#']).next().unwrap_or(rest)
}

/// `localhost`, `127.x.x.x` or `[::1]`, with or without a port.
fn is_loopback(host: &str) -> bool {
    let name = if let Some(v6) = host.strip_prefix('[') {
        return v6.split(']').next() == Some("::1");
    } else {
        host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host)
    };
    name == "localhost"
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Middleware: refuses a request whose `Host` is not one of the server's
/// names (421 Misdirected Request), then adds the security headers to
/// whatever is answered.
pub async fn guard(State(site): State<Arc<Site>>, req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()))
        .unwrap_or("");
    let is_api = req.uri().path().starts_with("/api/") || req.uri().path().starts_with("/game/");
    let mut response = if site.allowed_hosts.allows(host) {
        next.run(req).await
    } else {
        ApiError::MisdirectedRequest(format!(
            "this server does not answer for host {host:?}: use {}",
            site.base_url
        ))
        .into_response()
    };
    add_security_headers(response.headers_mut(), is_api);
    response
}

/// The page's policy: scripts, connections, images and fonts from this
/// origin only; inline styles allowed (the page sets a few `style`
/// attributes); never framed.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Adds the security headers (and, for API answers, `no-store`) that
/// `h` does not set itself; the accept loop's own answers carry them too.
pub(crate) fn add_security_headers(h: &mut HeaderMap, is_api: bool) {
    let set = |h: &mut HeaderMap, name: &'static str, value: &'static str| {
        if !h.contains_key(name) {
            h.insert(name, HeaderValue::from_static(value));
        }
    };
    set(h, "x-content-type-options", "nosniff");
    set(h, "x-frame-options", "DENY");
    set(h, "referrer-policy", "same-origin");
    set(h, "cross-origin-opener-policy", "same-origin");
    set(h, "content-security-policy", CONTENT_SECURITY_POLICY);
    if is_api {
        // API answers are per user (accounts, games, tokens): no cache may keep them.
        set(h, "cache-control", "no-store");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        let listen: std::net::SocketAddr = "0.0.0.0:80".parse().unwrap();
        let public = AllowedHosts::new(Some("https://chessmerge.example/"), listen);
        assert!(public.allows("chessmerge.example"));
        assert!(public.allows("ChessMerge.Example"));
        assert!(public.allows("localhost:8080"), "loopback for development");
        assert!(public.allows("127.0.0.1:9"));
        assert!(public.allows("[::1]:8080"));
        assert!(!public.allows("evil.example"));
        assert!(!public.allows("chessmerge.example.evil.example"));
        assert!(!public.allows("127.0.0.1.evil.example"));
        assert!(!public.allows(""));
        let with_port = AllowedHosts::new(Some("http://10.0.0.5:8080"), listen);
        assert!(with_port.allows("10.0.0.5:8080"));
        assert!(!with_port.allows("10.0.0.5:8081"));
        let dev = AllowedHosts::new(None, "127.0.0.1:8080".parse().unwrap());
        assert!(dev.allows("127.0.0.1:8080") && dev.allows("localhost:8080"));
        assert!(
            !dev.allows("attacker.example:8080"),
            "DNS rebinding refused"
        );
        assert!(AllowedHosts::new(None, listen).allows("anything"));
    }

    #[test]
    fn headers_are_added_once() {
        let mut h = HeaderMap::new();
        h.insert("cache-control", HeaderValue::from_static("max-age=60"));
        add_security_headers(&mut h, true);
        assert_eq!(
            h["cache-control"], "max-age=60",
            "an explicit policy is kept"
        );
        assert_eq!(h["x-frame-options"], "DENY");
        assert_eq!(h["x-content-type-options"], "nosniff");
        assert!(
            h["content-security-policy"]
                .to_str()
                .unwrap()
                .contains("frame-ancestors 'none'")
        );
        let mut page = HeaderMap::new();
        add_security_headers(&mut page, false);
        assert!(!page.contains_key("cache-control"));
    }
}
