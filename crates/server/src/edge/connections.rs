//! The accept loop: every TCP connection the server holds is bounded.
//!
//! - Per client address and in total, connections are capped when they are
//!   accepted (a connection over a cap gets a one-line 429 or 503 and is
//!   closed). A trusted proxy's connections are not capped per address: its
//!   clients are told apart only by `X-Forwarded-For`, which the WebSocket
//!   cap ([`AddressSlots`] in the socket handler) reads.
//! - A request's headers must arrive within the header timeout, counted
//!   from its first byte; a connection that sends nothing while no request
//!   is under way is closed after the idle timeout (this covers a client
//!   that connects and never writes); a request body must arrive whole
//!   within the body timeout, else the answer is 408 and the connection is
//!   closed.
//! - On shutdown the listener closes, every connection is asked to finish
//!   its request and close, and whatever is left after the grace period is
//!   dropped.
//!
//! - Connections that have not shown credentials (no `Authorization`
//!   header, no session cookie), and the anonymous requests and streams
//!   they carry, hold a place of the anonymous share
//!   ([`ConnectionLimits::anonymous_max`]); past it a new connection is
//!   still accepted (it may be a signed-in player's), but an anonymous
//!   request on it is answered 503 with `Retry-After`, so that signed-in
//!   players always have room.
//! - Addresses are counted by [`address_key`]: an IPv6 address by its /64.
//!
//! hyper's own header timeout also starts while a keep-alive connection
//! waits for its next request, which would make the idle and the header
//! timeouts one number; this module keeps one clock per connection
//! instead ([`ConnectionClock`]).

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, HttpBody};
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower_service::Service;

/// The bounds on connections (`chessmerge serve` options; defaults in
/// docs/security.md, "Limits").
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// A request's headers must be complete this long after its first byte.
    pub header_timeout: Duration,
    /// A request's body must be complete this long after its headers.
    pub body_timeout: Duration,
    /// A connection with no request under way and no byte sent is closed
    /// after this long.
    pub idle_timeout: Duration,
    /// Connections held at once from one client address (direct peers only).
    pub per_address: usize,
    /// Connections held at once in total (keep it under the file limit).
    pub max_connections: usize,
    /// Of those, how many may be anonymous at once (connections that have
    /// shown no credentials yet, or whose last request had none).
    pub anonymous_max: usize,
    /// On shutdown, how long requests under way may take to finish.
    pub shutdown_grace: Duration,
    /// The largest request body read (larger: 413).
    pub max_body: usize,
    /// Paths that take larger bodies, and their limit (PGN import: a long
    /// game, form-encoded).
    pub large_bodies: &'static [(&'static str, usize)],
}

/// File descriptors kept back for the database, logs and the listener.
const RESERVED_FILES: usize = 64;

/// `wanted`, lowered so that the connections fit under the process's
/// open-file limit (Linux: `/proc/self/limits`); past that limit accept
/// fails for everyone, so refusing a few connections early is better.
pub fn fit_file_limit(wanted: usize) -> usize {
    let soft = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3))
                .and_then(|n| n.parse::<usize>().ok())
        });
    match soft {
        Some(limit) if limit <= wanted + RESERVED_FILES => {
            let fitted = limit.saturating_sub(RESERVED_FILES).max(1);
            tracing::warn!(
                open_file_limit = limit,
                max_connections = fitted,
                "the open-file limit is low: fewer connections are held at once"
            );
            fitted
        }
        _ => wanted,
    }
}

/// The key an address is counted by: an IPv4 address as it is (an
/// IPv4-mapped IPv6 address as its IPv4 address), an IPv6 address by its
/// /64 prefix (one subscriber's network: a host there can use any of its
/// 2^64 addresses).
pub fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(std::net::Ipv6Addr::from(bits))
            }
        },
    }
}

/// Counts held things (connections, sockets) per client address, up to a
/// cap each; a [`Slot`] gives its place back when dropped.
#[derive(Debug, Clone)]
pub struct AddressSlots {
    cap: usize,
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One place taken in [`AddressSlots`], freed on drop.
#[derive(Debug)]
pub struct Slot {
    address: IpAddr,
    held: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl AddressSlots {
    /// At most `cap` places per address.
    pub fn new(cap: usize) -> AddressSlots {
        AddressSlots {
            cap: cap.max(1),
            held: Arc::default(),
        }
    }

    /// The cap per address.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// A place for `address` (counted by its [`address_key`]), or `None`
    /// when it already holds `cap`.
    pub fn take(&self, address: IpAddr) -> Option<Slot> {
        let address = address_key(address);
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let n = held.entry(address).or_insert(0);
        if *n >= self.cap {
            return None;
        }
        *n += 1;
        Some(Slot {
            address,
            held: self.held.clone(),
        })
    }

    /// Places held by `address` now.
    pub fn held_by(&self, address: IpAddr) -> usize {
        let address = address_key(address);
        let held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        held.get(&address).copied().unwrap_or(0)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = held.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                // Forget the address, so that the map holds only live ones.
                held.remove(&self.address);
            }
        }
    }
}

/// The anonymous share of the connections: a counter up to a cap.
#[derive(Debug)]
struct AnonymousPlaces {
    cap: usize,
    held: AtomicUsize,
}

/// One anonymous place, given back on drop.
#[derive(Debug)]
struct AnonymousPlace(Arc<AnonymousPlaces>);

impl AnonymousPlaces {
    fn take(self: &Arc<Self>) -> Option<AnonymousPlace> {
        self.held
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < self.cap).then_some(n + 1)
            })
            .ok()
            .map(|_| AnonymousPlace(self.clone()))
    }
}

impl Drop for AnonymousPlace {
    fn drop(&mut self) {
        self.0.held.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether a connection counts as anonymous now: it holds an anonymous
/// place until a request shows credentials, and takes one again for an
/// anonymous request.
#[derive(Debug)]
struct Standing {
    places: Arc<AnonymousPlaces>,
    place: Mutex<Option<AnonymousPlace>>,
}

impl Standing {
    /// A request arrived: `signed_in` when it carries credentials. False
    /// when it is anonymous and the anonymous share is full.
    fn admit(&self, signed_in: bool) -> bool {
        let mut place = self.place.lock().unwrap_or_else(|e| e.into_inner());
        if signed_in {
            *place = None;
            return true;
        }
        if place.is_none() {
            *place = self.places.take();
        }
        place.is_some()
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets
/// requests finish for `limits.shutdown_grace` and returns.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    trusted_proxies: Vec<IpAddr>,
    shutdown: impl Future<Output = ()>,
) {
    let limits = Arc::new(limits);
    let per_address = AddressSlots::new(limits.per_address);
    let total = Arc::new(AtomicUsize::new(0));
    let anonymous = Arc::new(AnonymousPlaces {
        cap: limits.anonymous_max.clamp(1, limits.max_connections.max(1)),
        held: AtomicUsize::new(0),
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            // Reap finished connections so that the set holds live ones only.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => {
                let (tcp, peer) = match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        // Out of file descriptors (EMFILE) and the like:
                        // wait for connections to close instead of spinning.
                        tracing::warn!(error = %e, "cannot accept a connection");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let Some(admitted) = admit(&tcp, peer, &per_address, &total, &anonymous, &limits, &trusted_proxies) else {
                    continue;
                };
                // Small frames (a move's ack, a pushed state) must leave at
                // once, not wait for the peer's delayed ACK (Nagle's
                // algorithm added ~40 ms to every socket move).
                if let Err(e) = tcp.set_nodelay(true) {
                    tracing::debug!(error = %e, "cannot set TCP_NODELAY");
                }
                connections.spawn(connection(tcp, peer, admitted, app.clone(), limits.clone(), stop_rx.clone()));
            }
        }
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let left = connections.len();
    let finished = tokio::time::timeout(limits.shutdown_grace, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if finished.is_err() {
        tracing::warn!(
            open = connections.len(),
            of = left,
            "shutdown: the grace period is over; dropping unfinished connections"
        );
        connections.abort_all();
    }
}

/// What an admitted connection holds: its places, given back when the
/// connection (or the WebSocket it became) closes.
struct Admitted {
    _per_address: Option<Slot>,
    _total: TotalSlot,
    standing: Arc<Standing>,
}

struct TotalSlot(Arc<AtomicUsize>);

impl Drop for TotalSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Takes the connection's places, or answers a refusal and returns `None`.
fn admit(
    tcp: &TcpStream,
    peer: SocketAddr,
    per_address: &AddressSlots,
    total: &Arc<AtomicUsize>,
    anonymous: &Arc<AnonymousPlaces>,
    limits: &ConnectionLimits,
    trusted_proxies: &[IpAddr],
) -> Option<Admitted> {
    if total.fetch_add(1, Ordering::SeqCst) >= limits.max_connections {
        total.fetch_sub(1, Ordering::SeqCst);
        tracing::debug!(%peer, "connection refused: the server holds its maximum");
        refuse(
            tcp,
            "503 Service Unavailable",
            "the server is at its connection limit",
        );
        return None;
    }
    let total = TotalSlot(total.clone());
    let slot = if trusted_proxies.contains(&peer.ip()) {
        None
    } else {
        match per_address.take(peer.ip()) {
            Some(s) => Some(s),
            None => {
                tracing::debug!(%peer, "connection refused: too many from this address");
                refuse(
                    tcp,
                    "429 Too Many Requests",
                    "too many connections from your address",
                );
                return None;
            }
        }
    };
    // Anonymous until a request shows credentials; past the anonymous
    // share the connection is still held, for a signed-in request.
    let standing = Arc::new(Standing {
        places: anonymous.clone(),
        place: Mutex::new(anonymous.take()),
    });
    Some(Admitted {
        _per_address: slot,
        _total: total,
        standing,
    })
}

/// How long a client refused for a full server or address is asked to
/// wait (`Retry-After`, seconds).
pub const RETRY_AFTER_SECS: u64 = 5;

/// One best-effort write of a short HTTP answer; never waits on the peer.
/// It carries the security headers and `Retry-After` like any answer.
fn refuse(tcp: &TcpStream, status: &str, why: &str) {
    let mut headers = axum::http::HeaderMap::new();
    crate::edge::guard::add_security_headers(&mut headers, false);
    let mut security = String::new();
    for (name, value) in &headers {
        security.push_str(name.as_str());
        security.push_str(": ");
        security.push_str(value.to_str().unwrap_or(""));
        security.push_str("\r\n");
    }
    let text = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nretry-after: {RETRY_AFTER_SECS}\r\n{security}connection: close\r\n\r\n{why}\n",
        why.len() + 1
    );
    let _ = tcp.try_write(text.as_bytes());
}

/// Serves one connection until it closes, times out, or shutdown ends it.
async fn connection(
    tcp: TcpStream,
    peer: SocketAddr,
    admitted: Admitted,
    app: Router,
    limits: Arc<ConnectionLimits>,
    mut stop: watch::Receiver<bool>,
) {
    let clock = Arc::new(ConnectionClock::new());
    let standing = admitted.standing.clone();
    let io = TokioIo::new(Watched {
        inner: tcp,
        clock: clock.clone(),
        _admitted: admitted,
    });
    let service = {
        let clock = clock.clone();
        let limits = limits.clone();
        hyper::service::service_fn(move |req: Request<Incoming>| {
            let mut app = app.clone();
            let clock = clock.clone();
            let limits = limits.clone();
            let standing = standing.clone();
            async move {
                let in_flight = clock.request_started();
                if !standing.admit(crate::edge::rates::shows_credentials(req.headers())) {
                    tracing::debug!(%peer, "anonymous request refused: the anonymous share is full");
                    let mut refusal = plain(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "the server is busy with signed-out clients: sign in, or try again shortly"
                            .into(),
                    );
                    refusal
                        .headers_mut()
                        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
                    return Ok::<_, Infallible>(refusal.map(|b| in_flight.wrap(b)));
                }
                let mut req = match read_body(req, &limits).await {
                    Ok(req) => req,
                    Err(refusal) => return Ok::<_, Infallible>(refusal.map(|b| in_flight.wrap(b))),
                };
                req.extensions_mut().insert(ConnectInfo(peer));
                let resp = match app.call(req).await {
                    Ok(r) => r,
                    Err(never) => match never {},
                };
                Ok(resp.map(|b| in_flight.wrap(b)))
            }
        })
    };
    let mut http = hyper::server::conn::http1::Builder::new();
    // This module keeps the header and idle clocks (see the top); hyper's
    // own header timeout would also end keep-alive waits.
    http.timer(TokioTimer::new())
        .header_read_timeout(None::<Duration>);
    let conn = http.serve_connection(io, service).with_upgrades();
    tokio::pin!(conn);
    let mut stopping = false;
    loop {
        let wake = clock.deadline(&limits);
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(%peer, error = %e, "connection ended with an error");
                }
                return;
            }
            // The first byte of a request starts the header clock, which
            // is shorter than the idle wait begun before it: look again.
            () = clock.first_byte.notified() => {}
            _ = sleep_until(wake) => {
                if clock.expired(&limits) {
                    tracing::debug!(%peer, "connection closed: header or idle timeout");
                    return;
                }
            }
            _ = stop.wait_for(|s| *s), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// A request with its body read whole (within the body timeout and size
/// limit), or the answer refusing it.
async fn read_body(
    req: Request<Incoming>,
    limits: &ConnectionLimits,
) -> Result<Request<Body>, Response<Body>> {
    use http_body_util::BodyExt;
    if req.body().is_end_stream() {
        return Ok(req.map(Body::new));
    }
    let (parts, body) = req.into_parts();
    let max_body = limits
        .large_bodies
        .iter()
        .find(|(path, _)| *path == parts.uri.path())
        .map_or(limits.max_body, |&(_, large)| limits.max_body.max(large));
    let limited = http_body_util::Limited::new(body, max_body);
    match tokio::time::timeout(limits.body_timeout, limited.collect()).await {
        Ok(Ok(collected)) => Ok(Request::from_parts(parts, Body::from(collected.to_bytes()))),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than {max_body} bytes"),
        )),
        Ok(Err(e)) => Err(plain(
            StatusCode::BAD_REQUEST,
            format!("the request body could not be read: {e}"),
        )),
        Err(_) => Err(plain(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} s",
                limits.body_timeout.as_secs_f64()
            ),
        )),
    }
}

/// A JSON error answer (the API's `{"error": ..., "code": ...}` shape) that
/// closes the connection: after an unread or partly read body, the stream
/// is no longer at a request boundary.
fn plain(status: StatusCode, error: String) -> Response<Body> {
    let body = serde_json::json!(crate::error::ErrorBody::of_status(status, error)).to_string();
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = status;
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    crate::edge::guard::add_security_headers(h, true);
    resp
}

/// One connection's clock: when its current wait began and whether a
/// request is under way. Times are milliseconds since `start`.
struct ConnectionClock {
    start: Instant,
    in_flight: AtomicUsize,
    /// When the connection last became idle (no request under way).
    idle_since: AtomicU64,
    /// When the first byte of the next request arrived, or [`NOT_YET`].
    head_started: AtomicU64,
    /// Told when a request's first byte arrives.
    first_byte: tokio::sync::Notify,
}

const NOT_YET: u64 = u64::MAX;

impl ConnectionClock {
    fn new() -> ConnectionClock {
        ConnectionClock {
            start: Instant::now(),
            in_flight: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            head_started: AtomicU64::new(NOT_YET),
            first_byte: tokio::sync::Notify::new(),
        }
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    fn at(&self, ms: u64) -> Instant {
        self.start + Duration::from_millis(ms)
    }

    /// Bytes arrived: while idle, they begin a request's headers.
    fn read_some(&self) {
        if self.in_flight.load(Ordering::SeqCst) == 0
            && self.head_started.load(Ordering::SeqCst) == NOT_YET
            && self
                .head_started
                .compare_exchange(NOT_YET, self.now(), Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        {
            self.first_byte.notify_one();
        }
    }

    /// A request's headers are in; it is under way until its response
    /// body is done (the guard's drop).
    fn request_started(self: &Arc<Self>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        self.head_started.store(NOT_YET, Ordering::SeqCst);
        InFlight(Some(self.clone()))
    }

    /// When to look again: the header or idle deadline, or (a request
    /// under way) after the shorter timeout, to look again then.
    fn deadline(&self, limits: &ConnectionLimits) -> Option<Instant> {
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            return Some(Instant::now() + limits.header_timeout.min(limits.idle_timeout));
        }
        let head = self.head_started.load(Ordering::SeqCst);
        if head != NOT_YET {
            return Some(self.at(head) + limits.header_timeout);
        }
        Some(self.at(self.idle_since.load(Ordering::SeqCst)) + limits.idle_timeout)
    }

    /// True when the connection waited too long for headers or in idleness.
    fn expired(&self, limits: &ConnectionLimits) -> bool {
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            return false;
        }
        self.deadline(limits)
            .is_some_and(|deadline| Instant::now() >= deadline)
    }
}

/// A request under way; its drop (the response body done or dropped) makes
/// the connection idle again.
struct InFlight(Option<Arc<ConnectionClock>>);

impl InFlight {
    /// The response body, which carries this guard until it is done.
    fn wrap(&self, body: Body) -> Body {
        Body::new(Tracked {
            inner: body,
            _in_flight: InFlight(self.0.clone().inspect(|c| {
                c.in_flight.fetch_add(1, Ordering::SeqCst);
            })),
        })
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(c) = self.0.take()
            && c.in_flight.fetch_sub(1, Ordering::SeqCst) == 1
        {
            c.idle_since.store(c.now(), Ordering::SeqCst);
        }
    }
}

/// A response body that keeps its request counted as under way.
struct Tracked {
    inner: Body,
    _in_flight: InFlight,
}

impl HttpBody for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The TCP stream, telling the clock when bytes arrive, and holding the
/// connection's places for as long as it lives (through a WebSocket
/// upgrade too).
struct Watched {
    inner: TcpStream,
    clock: Arc<ConnectionClock>,
    _admitted: Admitted,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.clock.read_some();
        }
        result
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_slots_cap_each_address_and_free_on_drop() {
        let slots = AddressSlots::new(2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = slots.take(a).unwrap();
        let _second = slots.take(a).unwrap();
        assert!(slots.take(a).is_none(), "a third place for one address");
        assert!(slots.take(b).is_some(), "another address is not affected");
        drop(first);
        assert_eq!(slots.held_by(a), 1);
        assert!(slots.take(a).is_some());
    }

    #[test]
    fn the_clock_times_headers_from_their_first_byte_and_idleness_otherwise() {
        let limits = ConnectionLimits {
            header_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(60),
            per_address: 1,
            max_connections: 1,
            anonymous_max: 1,
            shutdown_grace: Duration::from_secs(1),
            max_body: 1,
            large_bodies: &[],
        };
        let clock = Arc::new(ConnectionClock::new());
        let idle = clock.deadline(&limits).unwrap();
        assert!(idle >= clock.start + Duration::from_secs(60));
        clock.read_some();
        let head = clock.deadline(&limits).unwrap();
        assert!(head < clock.start + Duration::from_secs(6), "header clock");
        let req = clock.request_started();
        assert!(!clock.expired(&limits));
        let body = req.wrap(Body::empty());
        drop(req);
        assert_eq!(
            clock.in_flight.load(Ordering::SeqCst),
            1,
            "the body holds it"
        );
        drop(body);
        assert_eq!(clock.in_flight.load(Ordering::SeqCst), 0);
        assert_eq!(clock.head_started.load(Ordering::SeqCst), NOT_YET);
    }
}
