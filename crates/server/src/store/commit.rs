//! What every backend shares around its writes: the committed-event feed
//! and the work counters ([`Shared`]), and the group-commit loop that
//! takes every waiting game change and commits them in one transaction
//! ([`group_writer`]).

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{broadcast, mpsc, oneshot};

use super::{BoxFuture, Committed, GameCommit, StoreResult, StoreStats, StoredEvent};

impl From<sqlx::Error> for super::StoreError {
    fn from(e: sqlx::Error) -> Self {
        use super::StoreError;
        match &e {
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict,
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => StoreError::Unavailable(e.to_string()),
            // PostgreSQL shutting down or starting up (57P01-57P03).
            sqlx::Error::Database(db) if db.code().is_some_and(|c| c.starts_with("57P")) => {
                StoreError::Unavailable(e.to_string())
            }
            _ => StoreError::Database(e.to_string()),
        }
    }
}

/// Most game changes one transaction commits.
pub(super) const MAX_BATCH: usize = 128;
/// Game changes waiting for the writer (beyond this, callers wait to queue).
pub(super) const QUEUE: usize = 4096;
/// Committed events buffered for the live layer.
const FEED_CAPACITY: usize = 4096;

/// The feed and the counters.
#[derive(Debug)]
pub(super) struct Shared {
    feed: broadcast::Sender<Committed>,
    statements: AtomicU64,
    write_transactions: AtomicU64,
    game_commits: AtomicU64,
    game_commit_batches: AtomicU64,
}

impl Shared {
    pub(super) fn new() -> Shared {
        Shared {
            feed: broadcast::channel(FEED_CAPACITY).0,
            statements: AtomicU64::new(0),
            write_transactions: AtomicU64::new(0),
            game_commits: AtomicU64::new(0),
            game_commit_batches: AtomicU64::new(0),
        }
    }

    /// Counts statements of reads or of an unfinished write.
    pub(super) fn count(&self, statements: u64) {
        self.statements.fetch_add(statements, Ordering::Relaxed);
    }

    /// Counts a committed write transaction and its statements.
    pub(super) fn count_tx(&self, statements: u64) {
        self.count(statements);
        self.write_transactions.fetch_add(1, Ordering::Relaxed);
    }

    /// Hands committed events to the followers.
    pub(super) fn publish(&self, events: Vec<StoredEvent>) {
        for e in events {
            // An error only means that nobody follows.
            let _ = self.feed.send(Committed::Event(e));
        }
    }

    /// Tells the followers that another process committed an event.
    pub(super) fn notice(&self, topic: super::Topic, seq: i64) {
        let _ = self.feed.send(Committed::Notice { topic, seq });
    }

    /// Tells the caches that notices stopped coming (a resync follows).
    pub(super) fn interrupted(&self) {
        let _ = self.feed.send(Committed::Interrupted);
    }

    /// Tells the followers that events may have been missed.
    pub(super) fn resync(&self) {
        let _ = self.feed.send(Committed::Resync);
    }

    pub(super) fn subscribe(&self) -> broadcast::Receiver<Committed> {
        self.feed.subscribe()
    }

    pub(super) fn stats(&self) -> StoreStats {
        StoreStats {
            statements: self.statements.load(Ordering::Relaxed),
            write_transactions: self.write_transactions.load(Ordering::Relaxed),
            game_commits: self.game_commits.load(Ordering::Relaxed),
            game_commit_batches: self.game_commit_batches.load(Ordering::Relaxed),
        }
    }
}

/// A game change waiting for the writer, and where its answer goes.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) commit: GameCommit,
    pub(super) reply: oneshot::Sender<StoreResult<bool>>,
}

/// For each change of a batch: its events when it was stored, `None` when
/// its guard refused it.
pub(super) type BatchResult = StoreResult<Vec<Option<Vec<StoredEvent>>>>;

/// A backend's way to commit a batch of game changes in one transaction.
pub(super) trait CommitBatch: Send + Sync + 'static {
    fn commit_batch<'a>(&'a self, batch: &'a [Pending]) -> BoxFuture<'a, BatchResult>;
}

/// The group-commit task: takes every change waiting (up to
/// [`MAX_BATCH`]), commits them in one transaction (one fsync), and only
/// then answers each caller and publishes the events. When a batch fails,
/// its changes are committed one by one, so that only a faulty one is
/// refused.
pub(super) async fn group_writer(
    backend: impl CommitBatch,
    mut rx: mpsc::Receiver<Pending>,
    shared: std::sync::Arc<Shared>,
) {
    let mut batch: Vec<Pending> = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(p) => batch.push(p),
                Err(_) => break,
            }
        }
        match backend.commit_batch(&batch).await {
            Ok(results) => {
                shared.game_commit_batches.fetch_add(1, Ordering::Relaxed);
                for (p, r) in batch.drain(..).zip(results) {
                    answer(&shared, p, Ok(r));
                }
            }
            Err(e) if batch.len() == 1 => {
                let p = batch.pop().expect("one");
                let _ = p.reply.send(Err(e));
            }
            Err(e) => {
                tracing::warn!(error = %e, size = batch.len(), "game batch failed; committing one by one");
                for p in batch.drain(..) {
                    let r = backend
                        .commit_batch(std::slice::from_ref(&p))
                        .await
                        .map(|mut v| v.pop().flatten());
                    if r.is_ok() {
                        shared.game_commit_batches.fetch_add(1, Ordering::Relaxed);
                    }
                    answer(&shared, p, r);
                }
            }
        }
    }
}

/// Whether a change is only its game's row and events (no rating guard,
/// no game started with it): such changes share their statements.
pub(super) fn is_plain(c: &GameCommit) -> bool {
    c.ratings.is_empty() && c.start.is_none()
}

/// How many changes at the head of `batch` can share their statements:
/// plain changes ([`is_plain`]) of distinct games. A game's second change
/// waits for the next run, since its guard reads the version the first
/// one writes.
pub(super) fn plain_run(batch: &[Pending]) -> usize {
    let mut games = std::collections::HashSet::new();
    batch
        .iter()
        .take_while(|p| is_plain(&p.commit) && games.insert(p.commit.game.id.as_str()))
        .count()
}

/// Starts [`group_writer`] on a thread of its own, with a runtime of its
/// own. On the server's runtime the writer was one task among a thousand
/// sockets': after each statement's round trip to the database it waited
/// for its turn on a worker again, and under load that wait, not the
/// database, set the pace of the whole pipeline (about 30 of the 50 ms a
/// batch of 128 moves took, with the database thread mostly idle).
///
/// Returns a handle to that runtime, on which the backend may run its
/// other write transactions (see `SqliteStore::on_writer_thread`).
pub(super) fn spawn_group_writer(
    backend: impl CommitBatch,
    rx: mpsc::Receiver<Pending>,
    shared: std::sync::Arc<Shared>,
) -> StoreResult<tokio::runtime::Handle> {
    let unavailable =
        |e: std::io::Error| super::StoreError::Unavailable(format!("the writer's thread: {e}"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(unavailable)?;
    let handle = runtime.handle().clone();
    std::thread::Builder::new()
        .name("store-writer".into())
        .spawn(move || runtime.block_on(group_writer(backend, rx, shared)))
        .map_err(unavailable)?;
    Ok(handle)
}

fn answer(shared: &Shared, p: Pending, r: StoreResult<Option<Vec<StoredEvent>>>) {
    let r = r.map(|events| {
        let stored = events.is_some();
        if let Some(events) = events {
            shared.game_commits.fetch_add(1, Ordering::Relaxed);
            shared.publish(events);
        }
        stored
    });
    let _ = p.reply.send(r);
}
