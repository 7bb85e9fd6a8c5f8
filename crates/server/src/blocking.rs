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
//!
//! Slots are handed out fairly: a job is run on behalf of someone (a
//! [`Share`]: a user, or a signed-out client's address), and a freed slot
//! goes to the waiting share that has used the lane least (fair queueing
//! weighted by what its jobs cost in slot time), not to the job that
//! waited longest. One user's many jobs wait behind each other, not in
//! front of everyone, and one user's long searches do not hold back
//! another's short one for more than the search under way;
//! [`Bounded::per_share`] also bounds how many jobs one may have waiting.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use std::sync::Mutex;

use tokio::sync::oneshot;

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

/// On whose behalf a job runs: the lane takes turns among them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Share {
    /// A signed-in user.
    User(crate::model::UserId),
    /// A signed-out client, by its address's key (an IPv6 client: its /64).
    Address(std::net::IpAddr),
    /// Work of the server's own (or of no one in particular).
    Server,
}

/// The slots of a lane and the jobs waiting for them, in turn by share.
#[derive(Debug)]
struct Slots {
    state: Mutex<SlotState>,
}

/// Each share's use of the lane is counted in nanoseconds of slot time
/// ([`SlotState::used`]); a freed slot goes to the waiting share that used
/// least (fair queueing by what the jobs cost: a share running long
/// searches falls behind one asking for short ones). A share that starts
/// waiting is counted from the lane's present ([`SlotState::floor`]), so
/// that an old share's idle time is not credited to it.
#[derive(Debug)]
struct SlotState {
    free: usize,
    /// The waiting jobs of each share, in the order they came.
    waiting: HashMap<Share, VecDeque<oneshot::Sender<Permit>>>,
    /// The shares with jobs waiting, in the order they began to wait
    /// (between equals, the earlier goes first).
    turn: VecDeque<Share>,
    /// Slot time used per share (nanoseconds, from `floor` on).
    used: HashMap<Share, u64>,
    /// The use of the share served last: where a share that starts waiting begins.
    floor: u64,
}

/// Slot time a job counts at least (so that jobs of no measurable
/// length still take turns).
const LEAST_COST_NS: u64 = 1_000;

/// A slot held; given back (to the next share in turn) on drop.
#[derive(Debug)]
struct Permit {
    slots: Option<Arc<Slots>>,
    share: Share,
    started: std::time::Instant,
}

impl Drop for Permit {
    fn drop(&mut self) {
        if let Some(slots) = self.slots.take() {
            let cost = (self.started.elapsed().as_nanos() as u64).max(LEAST_COST_NS);
            let mut state = slots.state.lock().unwrap_or_else(|e| e.into_inner());
            let floor = state.floor;
            let used = state.used.entry(self.share.clone()).or_insert(floor);
            *used = (*used).max(floor) + cost;
            state.free += 1;
            if state.used.len() > 4096 {
                // Forget shares that wait for nothing and owe nothing.
                let SlotState {
                    used,
                    waiting,
                    floor,
                    ..
                } = &mut *state;
                used.retain(|share, u| *u > *floor || waiting.contains_key(share));
            }
            slots.hand_out(&mut state);
        }
    }
}

impl Slots {
    fn new(permits: usize) -> Arc<Slots> {
        Arc::new(Slots {
            state: Mutex::new(SlotState {
                free: permits,
                waiting: HashMap::new(),
                turn: VecDeque::new(),
                used: HashMap::new(),
                floor: 0,
            }),
        })
    }

    fn permit(self: &Arc<Self>, share: Share) -> Permit {
        Permit {
            slots: Some(self.clone()),
            share,
            started: std::time::Instant::now(),
        }
    }

    /// Gives free slots to waiting jobs: each to the share that used least.
    fn hand_out(self: &Arc<Self>, state: &mut SlotState) {
        while state.free > 0 && !state.turn.is_empty() {
            let floor = state.floor;
            let (index, _) = state
                .turn
                .iter()
                .enumerate()
                .map(|(i, share)| (i, state.used.get(share).copied().unwrap_or(floor)))
                .min_by_key(|&(i, used)| (used, i))
                .expect("a share is waiting");
            let Some(share) = state.turn.remove(index) else {
                return;
            };
            let Some(queue) = state.waiting.get_mut(&share) else {
                continue;
            };
            let next = queue.pop_front();
            if queue.is_empty() {
                state.waiting.remove(&share);
            } else {
                // Between shares that used as much, the others go first.
                state.turn.push_back(share.clone());
            }
            let Some(tx) = next else { continue };
            state.floor = state
                .floor
                .max(state.used.get(&share).copied().unwrap_or(floor));
            state.free -= 1;
            if let Err(mut unwanted) = tx.send(self.permit(share)) {
                // Its job stopped waiting (timed out): the slot stays free.
                unwanted.slots = None;
                state.free += 1;
            }
        }
    }

    /// A slot for a job of `share`, within `wait`; `per_share` bounds the
    /// jobs one share may have waiting (more: refused at once).
    async fn acquire(
        self: &Arc<Self>,
        share: Share,
        wait: Duration,
        per_share: Option<usize>,
        what: &'static str,
    ) -> Result<Permit, BlockingError> {
        let rx = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let floor = state.floor;
            if !state.turn.contains(&share) {
                // It starts from the lane's present, not from its old credit.
                let used = state.used.entry(share.clone()).or_insert(floor);
                *used = (*used).max(floor);
            }
            if state.free > 0 && state.turn.is_empty() {
                state.free -= 1;
                return Ok(self.permit(share));
            }
            let queue = state.waiting.entry(share.clone()).or_default();
            queue.retain(|tx| !tx.is_closed());
            if per_share.is_some_and(|most| queue.len() >= most) {
                return Err(BlockingError::Busy { what });
            }
            let (tx, rx) = oneshot::channel();
            queue.push_back(tx);
            if !state.turn.contains(&share) {
                state.turn.push_back(share);
            }
            rx
        };
        match tokio::time::timeout(wait, rx).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_)) => Err(BlockingError::Failed { what }),
            Err(_) => Err(BlockingError::Busy { what }),
        }
    }

    fn available(&self) -> usize {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).free
    }
}

/// A bounded lane of blocking work.
#[derive(Debug, Clone)]
pub struct Bounded {
    what: &'static str,
    slots: Arc<Slots>,
    wait: Duration,
    /// Jobs one share may have waiting at once (`None`: no bound).
    per_share: Option<usize>,
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
            slots: Slots::new(permits.max(1)),
            wait,
            per_share: None,
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

    /// The same lane, where one share may have at most `most` jobs
    /// waiting (one more is refused at once as busy).
    pub fn per_share(&self, most: usize) -> Bounded {
        Bounded {
            per_share: Some(most.max(1)),
            ..self.clone()
        }
    }

    /// Runs `job` on the blocking pool once a slot is free (the server's
    /// own work: one share for all of it).
    pub async fn run<T, F>(&self, job: F) -> Result<T, BlockingError>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.run_for(Share::Server, job).await
    }

    /// Runs `job` for `share` once a slot is free and it is that share's
    /// turn.
    pub async fn run_for<T, F>(&self, share: Share, job: F) -> Result<T, BlockingError>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let what = self.what;
        let permit = self
            .slots
            .acquire(share, self.wait, self.per_share, what)
            .await?;
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
        self.slots.available()
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
    async fn a_freed_slot_goes_to_the_next_share_in_turn() {
        let lane = Bounded::new("fair work", 1, Duration::from_secs(10));
        let (open_tx, open_rx) = std::sync::mpsc::channel::<()>();
        let first = {
            let lane = lane.clone();
            tokio::spawn(async move { lane.run(move || open_rx.recv().ok()).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut jobs = Vec::new();
        let heavy = Share::Address("10.0.0.1".parse().unwrap());
        let light = Share::Address("10.0.0.2".parse().unwrap());
        // Four jobs of one share queue first, then one of another.
        for (i, share) in [
            (0, &heavy),
            (1, &heavy),
            (2, &heavy),
            (3, &heavy),
            (9, &light),
        ] {
            let lane = lane.clone();
            let order = order.clone();
            let share = share.clone();
            jobs.push(tokio::spawn(async move {
                lane.run_for(share, move || order.lock().unwrap().push(i))
                    .await
            }));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        open_tx.send(()).unwrap();
        first.await.unwrap().unwrap();
        for j in jobs {
            j.await.unwrap().unwrap();
        }
        assert_eq!(
            *order.lock().unwrap(),
            vec![0, 9, 1, 2, 3],
            "the light share's one job runs after one heavy job, not after four"
        );
        // A bound on one share's waiting jobs refuses the next at once.
        let bounded = lane.per_share(1);
        let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
        let held = {
            let lane = bounded.clone();
            tokio::spawn(async move { lane.run(move || hold_rx.recv().ok()).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        let waiting = {
            let lane = bounded.clone();
            let share = heavy.clone();
            tokio::spawn(async move { lane.run_for(share, || 1).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            bounded.run_for(heavy.clone(), || 2).await,
            Err(BlockingError::Busy { what: "fair work" })
        );
        hold_tx.send(()).unwrap();
        held.await.unwrap().unwrap();
        assert_eq!(waiting.await.unwrap(), Ok(1));
        assert_eq!(lane.available(), 1);
    }

    #[tokio::test]
    async fn a_share_that_used_the_lane_long_waits_behind_one_that_did_not() {
        let lane = Bounded::new("weighted work", 1, Duration::from_secs(10));
        let heavy = Share::Address("10.0.0.1".parse().unwrap());
        let light = Share::Address("10.0.0.2".parse().unwrap());
        lane.run_for(heavy.clone(), || {
            std::thread::sleep(Duration::from_millis(100))
        })
        .await
        .unwrap();
        let (open_tx, open_rx) = std::sync::mpsc::channel::<()>();
        let held = {
            let lane = lane.clone();
            tokio::spawn(async move { lane.run(move || open_rx.recv().ok()).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut jobs = Vec::new();
        for (i, share) in [(1, &heavy), (2, &light)] {
            let (lane, order, share) = (lane.clone(), order.clone(), share.clone());
            jobs.push(tokio::spawn(async move {
                lane.run_for(share, move || order.lock().unwrap().push(i))
                    .await
            }));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        open_tx.send(()).unwrap();
        held.await.unwrap().unwrap();
        for j in jobs {
            j.await.unwrap().unwrap();
        }
        assert_eq!(
            *order.lock().unwrap(),
            vec![2, 1],
            "the share that used 100 ms waits, though it asked first"
        );
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
