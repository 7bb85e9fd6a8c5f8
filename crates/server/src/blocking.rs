//! Bounded blocking work: CPU-heavy jobs (engine searches, password
//! hashing) run on tokio's blocking pool, at most `permits` at once, and a
//! job that cannot start within `wait` is refused instead of queueing
//! without end. One helper, so every such job gets the same bound.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

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
}

impl Bounded {
    /// `permits` jobs at once; a job waits at most `wait` for a slot.
    pub fn new(what: &'static str, permits: usize, wait: Duration) -> Bounded {
        Bounded {
            what,
            slots: Arc::new(Semaphore::new(permits.max(1))),
            wait,
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
}
