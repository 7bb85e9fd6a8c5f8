//! Bounded blocking work: CPU-heavy jobs (engine searches, password
//! hashing) run on tokio's blocking pool, at most `permits` at once, and a
//! job that cannot start within `wait` is refused instead of queueing
//! without end. One helper, so every such job gets the same bound.
//!
//! A lane made with [`Bounded::dedicated`] runs its jobs on threads of its
//! own instead: the allocator keeps memory per thread (glibc's arenas), so
//! 19 MiB Argon2id buffers hashed on ever different pool threads stayed
//! allocated in each of them (200 concurrent registrations, two at a time:
//! 644 MiB peak on the shared pool). On two threads of its own, the lane
//! keeps at most two such buffers.

use std::sync::Arc;
use std::time::Duration;

use std::sync::Mutex;

use tokio::sync::{Semaphore, oneshot};

/// Why a bounded job did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BlockingError {
    /// No slot came free in time.
    #[error("busy: {what} is at capacity; try again shortly")]
    Busy {
        /// What kind of work it was.
        what: &'static str,
    },
    /// The job panicked or the server is stopping.
    #[error("{what} failed")]
    Failed {
        /// What kind of work it was.
        what: &'static str,
    },
}

/// A bounded lane of blocking work.
#[derive(Debug, Clone)]
pub struct Bounded {
    what: &'static str,
    slots: Arc<Semaphore>,
    wait: Duration,
    /// The lane's own threads, for [`Bounded::dedicated`].
    threads: Option<Arc<Threads>>,
}

type Job = Box<dyn FnOnce() + Send>;

/// A lane's own threads: they take jobs from one queue and end when the
/// lane (every clone) is dropped.
#[derive(Debug)]
struct Threads {
    queue: Mutex<std::sync::mpsc::Sender<Job>>,
}

impl Threads {
    fn start(what: &'static str, n: usize) -> Arc<Threads> {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..n {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("{what} {i}"))
                .spawn(move || {
                    loop {
                        let job = match rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
                            Ok(job) => job,
                            Err(_) => return,
                        };
                        // A panicking job loses its answer, not the thread.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    }
                });
            if let Err(e) = spawned {
                tracing::error!(error = %e, what, "cannot start a worker thread");
            }
        }
        Arc::new(Threads {
            queue: Mutex::new(tx),
        })
    }
}

impl Bounded {
    /// `permits` jobs at once; a job waits at most `wait` for a slot.
    pub fn new(what: &'static str, permits: usize, wait: Duration) -> Bounded {
        Bounded {
            what,
            slots: Arc::new(Semaphore::new(permits.max(1))),
            wait,
            threads: None,
        }
    }

    /// Like [`Bounded::new`], on `permits` threads of the lane's own (see
    /// the module's note on memory).
    pub fn dedicated(what: &'static str, permits: usize, wait: Duration) -> Bounded {
        let permits = permits.max(1);
        Bounded {
            threads: Some(Threads::start(what, permits)),
            ..Bounded::new(what, permits, wait)
        }
    }

    /// The same lane (the same slots and threads), whose jobs wait at most
    /// `wait` for a slot: for callers that must answer sooner than the
    /// lane's usual wait.
    pub fn with_wait(&self, wait: Duration) -> Bounded {
        Bounded {
            wait,
            ..self.clone()
        }
    }

    /// Runs `job` on the blocking pool once a slot is free.
    pub async fn run<T, F>(&self, job: F) -> Result<T, BlockingError>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let what = self.what;
        let permit = tokio::time::timeout(self.wait, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| BlockingError::Busy { what })?
            .map_err(|_| BlockingError::Failed { what })?;
        if let Some(threads) = &self.threads {
            let (tx, rx) = oneshot::channel();
            let job: Job = Box::new(move || {
                let result = job();
                // The slot is free before the caller hears the answer (a
                // caller that asks again at once finds it free).
                drop(permit);
                let _ = tx.send(result);
            });
            threads
                .queue
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .send(job)
                .map_err(|_| BlockingError::Failed { what })?;
            return rx.await.map_err(|_| BlockingError::Failed { what });
        }
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            job()
        })
        .await
        .map_err(|_| BlockingError::Failed { what })
    }

    /// Slots free now.
    pub fn available(&self) -> usize {
        self.slots.available_permits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_beyond_the_bound_wait_then_are_refused() {
        let lane = Bounded::new("test work", 1, Duration::from_millis(50));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let slow = {
            let lane = lane.clone();
            tokio::spawn(async move { lane.run(move || rx.recv().ok()).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(lane.available(), 0);
        let refused = lane.run(|| 1).await;
        assert_eq!(refused, Err(BlockingError::Busy { what: "test work" }));
        tx.send(()).unwrap();
        assert_eq!(slow.await.unwrap(), Ok(Some(())));
        assert_eq!(lane.run(|| 2).await, Ok(2));
    }

    #[tokio::test]
    async fn a_dedicated_lane_runs_on_its_own_threads_and_survives_a_panic() {
        let lane = Bounded::dedicated("own work", 2, Duration::from_secs(5));
        let names = futures_util::future::join_all(
            (0..8).map(|_| lane.run(|| std::thread::current().name().unwrap_or("").to_owned())),
        )
        .await;
        for n in names {
            let n = n.unwrap();
            assert!(n == "own work 0" || n == "own work 1", "{n}");
        }
        let panicked = lane.run(|| -> u8 { panic!("a job that fails") }).await;
        assert_eq!(panicked, Err(BlockingError::Failed { what: "own work" }));
        assert_eq!(lane.run(|| 3).await, Ok(3));
        assert_eq!(lane.available(), 2);
    }
}
