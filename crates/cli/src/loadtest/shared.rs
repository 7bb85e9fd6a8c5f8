//! What every task shares: the options they read, the counters, and the
//! record of every game.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chessmerge_rules::Variant;

use super::args::{Mix, Transport};

/// Reconnection attempts per player and game after a connection failed.
const MAX_RETRIES: u32 = 3;
/// The same with `--outages`: about a minute of retrying (the waits grow
/// to a second each), enough for a node to restart or a database to come
/// back.
const MAX_OUTAGE_RETRIES: u32 = 60;

pub(super) struct Shared {
    pub(super) base: String,
    pub(super) ws_url: String,
    /// Bounded requests.
    pub(super) client: reqwest::Client,
    /// Long-lived ndjson streams (each wait bounded by `timeout`).
    pub(super) streams: reqwest::Client,
    pub(super) timeout: Duration,
    pub(super) deadline: tokio::time::Instant,
    pub(super) reconnect_every: Option<u32>,
    pub(super) max_plies: i64,
    pub(super) variants: Vec<Variant>,
    pub(super) mix: Mix,
    /// `--outages`: see there.
    pub(super) outages: bool,
    /// `--think-ms`.
    pub(super) think: Duration,
    pub(super) accepted: AtomicU64,
    pub(super) errors: AtomicU64,
    pub(super) reconnects: AtomicU64,
    pub(super) games_started: AtomicU64,
    pub(super) stats: Mutex<Stats>,
}

/// What kind of move a player made (the merges and splits are counted).
#[derive(Clone, Copy)]
pub(super) enum MoveKind {
    Merge,
    Split,
    Other,
}

#[derive(Default)]
pub(super) struct Stats {
    /// Submission to arrival on the opponent's connection.
    pub(super) latencies: Vec<Duration>,
    /// The same, per transport (ws, http).
    pub(super) by_transport: [Vec<Duration>; 2],
    /// When each of `latencies` was submitted, in the same order: the
    /// report's percentiles per window of the run.
    pub(super) submitted_at: Vec<Instant>,
    /// Unexpected errors by kind: count and the first example.
    pub(super) errors: BTreeMap<String, (u64, String)>,
    /// Expected refusals (409) by kind.
    pub(super) expected: BTreeMap<String, (u64, String)>,
    /// Of the expected ones, those caused by an outage (`--outages`).
    pub(super) outage_errors: u64,
    pub(super) merges: u64,
    pub(super) splits: u64,
    /// States a WebSocket got after resubscribing with `v`.
    pub(super) resumed_states: u64,
    /// Moves an ndjson client took from a new `gameFull` after reconnecting.
    pub(super) resynced_moves: u64,
    pub(super) last_accept: Option<Instant>,
    pub(super) games: Vec<GameRecord>,
}

/// One game as the load generator saw it.
pub(super) struct GameRecord {
    pub(super) id: String,
    pub(super) variant: Variant,
    pub(super) transport: Transport,
    /// The moves each player (challenger, accepter) was pushed, in order;
    /// `None` when that player's connection failed for good.
    pub(super) seen: [Option<Vec<String>>; 2],
    /// The moves the server acknowledged to each player (an ack frame, or
    /// a 200 to the board API's move): ply (1-based) and Merge-UCI.
    pub(super) acked: [Vec<(i64, String)>; 2],
    /// The status the players saw last.
    pub(super) status: String,
}

impl Shared {
    pub(super) fn error(&self, kind: impl Into<String>, detail: impl Into<String>) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut s = self.stats.lock().unwrap();
        let e = s.errors.entry(kind.into()).or_insert((0, detail.into()));
        e.0 += 1;
    }

    fn expected(&self, kind: impl Into<String>, detail: impl Into<String>) {
        let mut s = self.stats.lock().unwrap();
        let e = s.expected.entry(kind.into()).or_insert((0, detail.into()));
        e.0 += 1;
    }

    /// A failure that an outage explains (a lost connection, a timeout):
    /// expected with `--outages`, an error otherwise.
    pub(super) fn fault(&self, kind: impl Into<String>, detail: impl Into<String>) {
        if self.outages {
            self.stats.lock().unwrap().outage_errors += 1;
            self.expected(format!("outage: {}", kind.into()), detail);
        } else {
            self.error(kind, detail);
        }
    }

    /// A status that says "not now" during an outage (the balancer's 502
    /// and 504, the server's 503 while its database is away).
    pub(super) fn is_outage_status(&self, status: u16) -> bool {
        self.outages && matches!(status, 502..=504)
    }

    /// A refusal: 409 is expected (stale or out-of-turn after a
    /// reconnect), and so is an outage's status with `--outages`;
    /// anything else is not.
    pub(super) fn refused(&self, what: &str, status: u16, text: &str) {
        let kind = format!("{what} {status}");
        if status == 409 {
            self.expected(kind, text);
        } else if self.is_outage_status(status) {
            self.fault(kind, text);
        } else {
            self.error(kind, text);
        }
    }

    pub(super) fn max_retries(&self) -> u32 {
        if self.outages {
            MAX_OUTAGE_RETRIES
        } else {
            MAX_RETRIES
        }
    }

    pub(super) fn accepted(&self, kind: MoveKind) {
        self.accepted.fetch_add(1, Ordering::Relaxed);
        let mut s = self.stats.lock().unwrap();
        s.last_accept = Some(Instant::now());
        match kind {
            MoveKind::Merge => s.merges += 1,
            MoveKind::Split => s.splits += 1,
            MoveKind::Other => {}
        }
    }
}
