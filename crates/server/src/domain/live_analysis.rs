//! The analysis board's live engine searches: which run, and who holds
//! them. One live analysis at a time per signed-in user, and per client
//! address for signed-out callers, on every node together: a lease in the
//! store ([`LEASE_TTL`], renewed every [`LEASE_RENEW`] while the search
//! runs; a stop asked on another node is seen at a renewal, and the lease
//! of a node that died lapses by itself). The search itself and its lines
//! are the handler's (`api/live_analysis.rs`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::model::UserId;
use crate::store::{Lease, Store, StoreResult};

/// A live analysis's budget: the longest time and the most positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Longest search.
    pub time: Duration,
    /// Most positions searched.
    pub nodes: u64,
}

/// The budget of a signed-in user's request.
pub const USER_BUDGET: Budget = Budget {
    time: Duration::from_secs(30),
    nodes: 50_000_000,
};
/// The budget of a signed-out request.
pub const GUEST_BUDGET: Budget = Budget {
    time: Duration::from_secs(10),
    nodes: 10_000_000,
};
/// How long a live analysis's lease lasts unless renewed (a node that dies
/// frees its owners' places within this).
pub const LEASE_TTL: Duration = Duration::from_secs(5);
/// How often a running live analysis renews its lease (and learns of a
/// stop asked on another node).
pub const LEASE_RENEW: Duration = Duration::from_secs(1);

/// Who holds a live analysis: a user, or a signed-out client's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    /// A signed-in user.
    User(UserId),
    /// A signed-out client's address (behind a trusted proxy, the forwarded one).
    Address(IpAddr),
}

impl Owner {
    /// The owner's lease in the store.
    fn lease_key(self) -> String {
        match self {
            Owner::User(id) => format!("live:u:{id}"),
            Owner::Address(ip) => format!("live:a:{ip}"),
        }
    }
}

#[derive(Debug)]
struct Entry {
    serial: u64,
    stop: Arc<AtomicBool>,
}

/// The live analyses running on this node, one per owner, and their
/// leases in the store.
pub struct LiveAnalyses {
    store: Arc<Store>,
    running: Mutex<HashMap<Owner, Entry>>,
    serial: AtomicU64,
}

/// An owner's place in [`LiveAnalyses`], given back on drop (and its
/// lease in the store, by the task that keeps it, once this is dropped).
pub struct Held {
    live: Arc<LiveAnalyses>,
    owner: Owner,
    serial: u64,
    stop: Arc<AtomicBool>,
    _lease: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Held {
    /// The search's stop flag: set by a stop (here or, at a renewal, on
    /// another node), a lost lease, or the place given back.
    pub fn stop_flag(&self) -> &Arc<AtomicBool> {
        &self.stop
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let mut running = self.live.lock();
        if running
            .get(&self.owner)
            .is_some_and(|e| e.serial == self.serial)
        {
            running.remove(&self.owner);
        }
    }
}

impl LiveAnalyses {
    /// No live analysis yet; leases are kept in `store`.
    pub fn new(store: Arc<Store>) -> Arc<LiveAnalyses> {
        Arc::new(LiveAnalyses {
            store,
            running: Mutex::default(),
            serial: AtomicU64::new(0),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Owner, Entry>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn take(self: &Arc<Self>, owner: Owner) -> Option<Held> {
        let mut running = self.lock();
        if running.contains_key(&owner) {
            return None;
        }
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        let stop = Arc::new(AtomicBool::new(false));
        running.insert(
            owner,
            Entry {
                serial,
                stop: stop.clone(),
            },
        );
        Some(Held {
            live: self.clone(),
            owner,
            serial,
            stop,
            _lease: None,
        })
    }

    /// Takes the owner's place on this node (a cheap first check), then its
    /// lease in the store (the truth, for every node), and keeps the lease
    /// while the place is held: renewed every [`LEASE_RENEW`]; a stop asked
    /// by another node, or a lease lost, stops the search; given back when
    /// the place is. `None`: the owner has a live analysis running.
    /// `linger` is dropped once the lease is given back (the stream's
    /// sender: its answer ends only then, so the caller may start another
    /// one at once on any node).
    pub async fn take_shared<L: Send + 'static>(
        self: &Arc<Self>,
        owner: Owner,
        linger: L,
    ) -> StoreResult<Option<Held>> {
        let Some(mut held) = self.take(owner) else {
            return Ok(None);
        };
        let key = owner.lease_key();
        let holder = format!("{:032x}", u128::from_ne_bytes(crate::store::random_bytes()));
        let ttl = LEASE_TTL.as_millis() as i64;
        let store = &self.store;
        if store.take_lease(&key, &holder, ttl).await? != Lease::Taken {
            return Ok(None);
        }
        let (ended, mut on_end) = tokio::sync::oneshot::channel::<()>();
        held._lease = Some(ended);
        let (store, stop) = (store.clone(), held.stop.clone());
        tokio::spawn(async move {
            let mut renew = tokio::time::interval(LEASE_RENEW);
            renew.tick().await;
            loop {
                tokio::select! {
                    _ = &mut on_end => break,
                    _ = renew.tick() => match store.take_lease(&key, &holder, ttl).await {
                        Ok(Lease::Taken) => {}
                        Ok(_) => stop.store(true, Ordering::Relaxed),
                        // The database is away: the search goes on, and its
                        // lease lapses unless a later renewal succeeds.
                        Err(e) => tracing::warn!(%key, error = %e, "cannot renew a live analysis's lease"),
                    },
                }
            }
            if let Err(e) = store.release_lease(&key, &holder).await {
                tracing::warn!(%key, error = %e, "cannot release a live analysis's lease; it lapses");
            }
            drop(linger);
        });
        Ok(Some(held))
    }

    /// Stops the owner's analysis: here at once, on another node at its
    /// next renewal; waits, up to `wait`, until it has ended and its lease
    /// is given back, wherever it ran. `Some(true)`: one was running and
    /// has ended; `Some(false)`: none was running; `None`: it did not end
    /// within `wait`.
    pub async fn stop_and_wait(&self, owner: Owner, wait: Duration) -> StoreResult<Option<bool>> {
        let key = owner.lease_key();
        let local = self.stop(owner);
        let mut shared = self.store.ask_release(&key).await?;
        let stopped = local || shared;
        let deadline = Instant::now() + wait;
        while shared || self.holds(owner) {
            if Instant::now() >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            shared = self.store.ask_release(&key).await?;
        }
        Ok(Some(stopped))
    }

    /// Stops the owner's analysis on this node; true if there was one.
    fn stop(&self, owner: Owner) -> bool {
        match self.lock().get(&owner) {
            Some(e) => {
                e.stop.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    fn holds(&self, owner: Owner) -> bool {
        self.lock().contains_key(&owner)
    }

    /// Live analyses running now.
    pub fn count(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::conformance::temp_sqlite;

    #[tokio::test]
    async fn one_place_per_owner_given_back_on_drop() {
        let (store, _dir) = temp_sqlite("live-places").await;
        let live = LiveAnalyses::new(Arc::new(store));
        let me = Owner::User(UserId(1));
        let held = live.take(me).unwrap();
        assert!(live.take(me).is_none());
        assert!(live.take(Owner::User(UserId(2))).is_some());
        assert!(live.stop(me));
        assert!(held.stop.load(Ordering::Relaxed));
        drop(held);
        assert!(!live.holds(me));
        assert!(live.take(me).is_some());
    }
}
