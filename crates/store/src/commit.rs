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

/// What the group writer takes from its queue: a game change, or another
/// write of the backend's ([`CommitBatch::Write`]) that shares the batch's
/// transaction, and so its fsync.
// The queue carried game changes by value before; boxing them would cost
// every move an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(super) enum Job<W> {
    Game(Pending),
    Write(W),
}

/// For each change of a batch: its events when it was stored, `None` when
/// its guard refused it.
pub(super) type BatchResult = StoreResult<Vec<Option<Vec<StoredEvent>>>>;

/// A backend's way to commit a batch of game changes in one transaction.
pub(super) trait CommitBatch: Send + Sync + 'static {
    /// The backend's other writes that may join a batch ([`NoWrites`] for
    /// none). Each keeps its own outcome until [`QueuedWrite::answer`].
    type Write: QueuedWrite;

    /// Commits the batch's games and writes in one transaction. A write
    /// that fails on its own keeps its error and leaves the rest of the
    /// batch intact; an `Err` means nothing of the batch was committed.
    fn commit_batch<'a>(&'a self, batch: Batch<'a, Self::Write>) -> BoxFuture<'a, BatchResult>;
}

/// What one transaction of the group writer commits.
pub(super) struct Batch<'a, W> {
    /// Game changes.
    pub(super) games: &'a [Pending],
    /// The backend's other writes.
    pub(super) writes: &'a mut [W],
}

/// A write other than a game change, queued for the group writer.
pub(super) trait QueuedWrite: Send + 'static {
    /// Answers the write's caller once its batch committed (`Ok`: its own
    /// outcome, with its events published first) or failed (`Err`).
    fn answer(self, batch: StoreResult<()>, shared: &Shared);
}

/// The write type of a backend whose writer takes game changes only.
#[derive(Debug)]
pub(super) enum NoWrites {}

impl QueuedWrite for NoWrites {
    fn answer(self, _: StoreResult<()>, _: &Shared) {
        match self {}
    }
}

/// The group-commit task: takes every job waiting (up to [`MAX_BATCH`]),
/// commits them in one transaction (one fsync), and only then answers each
/// caller and publishes the events. When a batch fails, its jobs are
/// committed one by one, so that only a faulty one is refused.
pub(super) async fn group_writer<B: CommitBatch>(
    backend: B,
    mut rx: mpsc::Receiver<Job<B::Write>>,
    shared: std::sync::Arc<Shared>,
) {
    let mut games: Vec<Pending> = Vec::with_capacity(MAX_BATCH);
    let mut writes: Vec<B::Write> = Vec::new();
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        while let Some(job) = next.take() {
            match job {
                Job::Game(p) => games.push(p),
                Job::Write(w) => writes.push(w),
            }
            if games.len() + writes.len() < MAX_BATCH {
                next = rx.try_recv().ok();
            }
        }
        match backend
            .commit_batch(Batch {
                games: &games,
                writes: &mut writes,
            })
            .await
        {
            Ok(results) => {
                if !games.is_empty() {
                    shared.game_commit_batches.fetch_add(1, Ordering::Relaxed);
                }
                // The writes first: their events were numbered first.
                for w in writes.drain(..) {
                    w.answer(Ok(()), &shared);
                }
                for (p, r) in games.drain(..).zip(results) {
                    answer(&shared, p, Ok(r));
                }
            }
            Err(e) if games.len() + writes.len() == 1 => {
                if let Some(p) = games.pop() {
                    let _ = p.reply.send(Err(e));
                } else if let Some(w) = writes.pop() {
                    w.answer(Err(e), &shared);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, size = games.len() + writes.len(), "batch failed; committing one by one");
                for mut w in writes.drain(..) {
                    let r = backend
                        .commit_batch(Batch {
                            games: &[],
                            writes: std::slice::from_mut(&mut w),
                        })
                        .await
                        .map(|_| ());
                    w.answer(r, &shared);
                }
                for p in games.drain(..) {
                    let r = backend
                        .commit_batch(Batch {
                            games: std::slice::from_ref(&p),
                            writes: &mut [],
                        })
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
pub(super) fn spawn_group_writer<B: CommitBatch>(
    backend: B,
    rx: mpsc::Receiver<Job<B::Write>>,
    shared: std::sync::Arc<Shared>,
) -> StoreResult<()> {
    let unavailable =
        |e: std::io::Error| super::StoreError::Unavailable(format!("the writer's thread: {e}"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(unavailable)?;
    std::thread::Builder::new()
        .name("store-writer".into())
        .spawn(move || runtime.block_on(group_writer(backend, rx, shared)))
        .map_err(unavailable)?;
    Ok(())
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
