//! The cache of live games (see the module's description): a slot per
//! game, locked across a change; games another process changed dropped or
//! caught up in the background; suspicions checked by the next holder of a
//! game's lock.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard, broadcast, mpsc};

use super::{GameError, GameResult, Games, LiveGame, players_of, rebuild};
use crate::model::GameId;
use crate::store::{self, Committed, StoredEvent, Topic};

pub(super) type Slot = Arc<AsyncMutex<Option<LiveGame>>>;

/// A game's lock held across its commit. Dropped unsettled (the future
/// awaiting the commit was cancelled), it empties the slot: the commit may
/// have landed, and the invalidator skips a locked slot, so a copy left
/// behind would be stale until evicted (a move refused as "not your turn").
pub(super) struct CommitGuard(pub(super) Option<OwnedMutexGuard<Option<LiveGame>>>);

impl CommitGuard {
    /// The lock back, once the commit's outcome is known.
    pub(super) fn settle(mut self) -> OwnedMutexGuard<Option<LiveGame>> {
        self.0.take().expect("settled once")
    }
}

impl Drop for CommitGuard {
    fn drop(&mut self) {
        if let Some(guard) = self.0.as_mut() {
            **guard = None;
        }
    }
}

/// At most this many games are caught up with one read.
const CATCH_UP_BURST: usize = 256;
/// How long a catch-up waits for its read before leaving the games to
/// their next use.
const CATCH_UP_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// A suspicion's version when notices may have been missed: whatever the
/// store holds may be newer.
const UNKNOWN_NEWER: i64 = i64::MAX;

/// `old` brought up to `row`, a later version of the same ongoing game
/// that only added moves (another node's moves): the new moves played on
/// its rules' game (the same game a full replay gives), its players kept
/// (they change only at a rated game's end, and a finished game is
/// reloaded in full). `None` when `row` is anything else (a takeback, an
/// end, a corrupt move): the caller replays it all.
fn advanced(old: LiveGame, row: &store::Game) -> Option<LiveGame> {
    let o = &old.row;
    if !row.is_ongoing()
        || row.version <= o.version
        || row.initial_fen != o.initial_fen
        || row.variant != o.variant
        || row.rated != o.rated
        || (row.white_id, row.black_id, row.ai_level) != (o.white_id, o.black_id, o.ai_level)
    {
        return None;
    }
    let known = old.rules.moves().len();
    let moves = row.move_list();
    if moves.len() < known || o.move_list() != moves[..known] {
        return None;
    }
    let mut rules = old.rules;
    for m in &moves[known..] {
        rules.play_uci(m).ok()?;
    }
    Some(LiveGame {
        row: row.clone(),
        rules,
        players: old.players,
        offers: old.offers,
    })
}

impl Games {
    /// Drops cached games that another process changed.
    pub(super) fn spawn_invalidator(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        let mut rx = self.store.committed();
        tokio::spawn(async move {
            loop {
                let msg = rx.recv().await;
                let Some(games) = weak.upgrade() else { return };
                if !games.on_committed(msg) {
                    return;
                }
            }
        });
    }

    /// Catches up the games the invalidator dropped, a burst at a time.
    pub(super) fn spawn_catch_up(self: &Arc<Self>, mut rx: mpsc::UnboundedReceiver<GameId>) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut ids = Vec::new();
            while rx.recv_many(&mut ids, CATCH_UP_BURST).await > 0 {
                let Some(games) = weak.upgrade() else { return };
                games.catch_up(std::mem::take(&mut ids)).await;
            }
        });
    }

    /// Brings the cached games `ids`, which another process changed, up to
    /// date before their next use: their rows read together, the new moves
    /// played on the outdated copies. Only slots still empty are filled,
    /// and they are locked across the read, so a notice meanwhile becomes
    /// a suspicion for the next holder as usual. Anything but added moves
    /// (an end, a takeback), a locked slot or a failed read is left to the
    /// next use, which loads the game itself.
    pub(super) async fn catch_up(&self, mut ids: Vec<GameId>) {
        if self.interrupted.load(Ordering::SeqCst) {
            return;
        }
        ids.sort_unstable_by(|a, b| a.as_str().cmp(b.as_str()));
        ids.dedup();
        let mut held = Vec::with_capacity(ids.len());
        for id in ids {
            let slot = self
                .cache
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&id)
                .cloned();
            let Some(Ok(guard)) = slot.map(|s| s.try_lock_owned()) else {
                continue;
            };
            let outdated = self.outdated.lock().unwrap_or_else(|e| e.into_inner());
            if guard.is_none() && outdated.contains_key(&id) {
                held.push((id, guard));
            }
        }
        if held.is_empty() {
            return;
        }
        let wanted: Vec<GameId> = held.iter().map(|(id, _)| id.clone()).collect();
        // Bounded: the slots stay locked meanwhile, and a database that
        // does not answer must not hold up those games' requests for long.
        let rows = match tokio::time::timeout(CATCH_UP_WAIT, self.store.games(&wanted)).await {
            Ok(Ok(rows)) => rows,
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "cannot catch up games; their next use loads them");
                return;
            }
            Err(_) => return,
        };
        let mut rows: HashMap<GameId, store::Game> =
            rows.into_iter().map(|r| (r.id.clone(), r)).collect();
        for (id, mut guard) in held {
            let Some(row) = rows.remove(&id).filter(store::Game::is_ongoing) else {
                continue;
            };
            let old = self
                .outdated
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
            if let Some(g) = old.and_then(|old| advanced(old, &row)) {
                *guard = Some(g);
                let mut unused = self.unused();
                if unused.len() >= self.capacity {
                    unused.clear();
                }
                unused.insert(id);
            }
        }
    }

    /// Notes that `id` was used here (see `caught_up_unused`).
    pub(super) fn used(&self, id: &GameId) {
        let mut unused = self.unused();
        if !unused.is_empty() {
            unused.remove(id);
        }
    }

    pub(super) fn unused(&self) -> std::sync::MutexGuard<'_, HashSet<GameId>> {
        self.caught_up_unused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Applies one message of the store's feed to the cache; `false` once
    /// the feed is closed.
    pub(super) fn on_committed(&self, msg: Result<Committed, broadcast::error::RecvError>) -> bool {
        match msg {
            Ok(Committed::Event(StoredEvent {
                topic: Topic::Game(id),
                seq,
                ..
            }))
            | Ok(Committed::Notice {
                topic: Topic::Game(id),
                seq,
            }) => self.drop_if_older(&id, seq),
            Ok(Committed::Event(_) | Committed::Notice { .. }) => {}
            Ok(Committed::Interrupted) => {
                self.interrupted.store(true, Ordering::SeqCst);
                self.drop_all();
            }
            // Notices flow again (or some were lost here): what was cached
            // before is checked once more, and from now on trusted again.
            Ok(Committed::Resync) => {
                self.drop_all();
                self.interrupted.store(false, Ordering::SeqCst);
            }
            Err(broadcast::error::RecvError::Lagged(_)) => self.drop_all(),
            Err(broadcast::error::RecvError::Closed) => return false,
        }
        true
    }

    pub(super) fn drop_if_older(&self, id: &GameId, version: i64) {
        let slot = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned();
        let Some(slot) = slot else { return };
        let Ok(mut guard) = slot.try_lock() else {
            // Whoever holds it (a reader, a loader, or a change whose
            // commit the guard refuses) leaves it to the next holder.
            self.suspect(id, version);
            return;
        };
        if guard.as_ref().is_some_and(|g| g.row.version < version)
            && let Some(old) = guard.take()
        {
            let mut outdated = self.outdated.lock().unwrap_or_else(|e| e.into_inner());
            if outdated.len() >= self.capacity {
                outdated.clear();
            }
            outdated.insert(id.clone(), old);
            drop(outdated);
            if !self.unused().remove(id) {
                let _ = self.catch_up.send(id.clone());
            }
        }
    }

    /// Records that the locked game `id` may be older than `version`.
    pub(super) fn suspect(&self, id: &GameId, version: i64) {
        let mut suspects = self.suspects.lock().unwrap_or_else(|e| e.into_inner());
        if suspects.len() >= self.capacity {
            // Games evicted since are loaded afresh: their suspicions go.
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            suspects.retain(|id, _| cache.contains_key(id));
        }
        let v = suspects.entry(id.clone()).or_insert(version);
        *v = (*v).max(version);
    }

    /// Takes the suspicion about `id`, if any.
    pub(super) fn suspicion(&self, id: &GameId) -> Option<i64> {
        let mut suspects = self.suspects.lock().unwrap_or_else(|e| e.into_inner());
        if suspects.is_empty() {
            return None;
        }
        suspects.remove(id)
    }

    /// Forgets the cached game if it is older than `version`, waiting for
    /// its lock (a change made outside this domain, such as an analysis
    /// event, whose committed notice may find the game locked by a reader).
    pub async fn forget_if_older(&self, id: &GameId, version: i64) {
        let slot = self
            .cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned();
        if let Some(slot) = slot {
            let mut guard = slot.lock().await;
            if guard.as_ref().is_some_and(|g| g.row.version < version) {
                *guard = None;
            }
        }
    }

    /// Drops every idle cached game; a locked one is checked against the
    /// store by its next holder.
    pub(super) fn drop_all(&self) {
        let locked: Vec<GameId> = {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            let mut locked = Vec::new();
            cache.retain(|id, slot| {
                let busy = slot.try_lock().is_err();
                if busy {
                    locked.push(id.clone());
                }
                busy
            });
            locked
        };
        for id in locked {
            self.suspect(&id, UNKNOWN_NEWER);
        }
    }

    pub(super) fn slot(&self, id: &GameId) -> Slot {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = cache.get(id) {
            return s.clone();
        }
        if cache.len() >= self.capacity {
            // Evict idle entries (nobody holds them) until a tenth is free.
            let target = self.capacity - self.capacity / 10;
            let idle: Vec<GameId> = cache
                .iter()
                .filter(|(_, s)| Arc::strong_count(s) == 1)
                .map(|(k, _)| k.clone())
                .take(cache.len().saturating_sub(target))
                .collect();
            for k in idle {
                cache.remove(&k);
            }
        }
        let slot = Slot::default();
        cache.insert(id.clone(), slot.clone());
        slot
    }

    pub(super) fn forget(&self, id: &GameId, slot: &Slot) {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.get(id).is_some_and(|s| Arc::ptr_eq(s, slot)) {
            cache.remove(id);
        }
    }

    pub(super) async fn load(&self, id: &GameId) -> GameResult<LiveGame> {
        let row = self.store.game(id).await?.ok_or(GameError::NotFound)?;
        let old = self
            .outdated
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
        self.live_game(row, old).await
    }

    /// The live game of a stored `row`: `old` brought up to it where only
    /// moves were added, or else a replay.
    pub(super) async fn live_game(
        &self,
        row: store::Game,
        old: Option<LiveGame>,
    ) -> GameResult<LiveGame> {
        if let Some(old) = old
            && let Some(g) = advanced(old, &row)
        {
            return Ok(g);
        }
        let rules = rebuild(&row)?;
        self.replays.fetch_add(1, Ordering::Relaxed);
        let players = players_of(self.store.as_ref(), &row).await?;
        Ok(LiveGame {
            row,
            rules,
            players,
            offers: super::Offers::default(),
        })
    }

    /// The game's lock, with the game loaded and as new as the store's
    /// when there is reason to doubt the cached copy (see [`Games::suspect`]
    /// and [`Committed::Interrupted`]).
    pub(super) async fn locked(
        &self,
        id: &GameId,
    ) -> GameResult<OwnedMutexGuard<Option<LiveGame>>> {
        let slot = self.slot(id);
        let mut guard = slot.clone().lock_owned().await;
        self.used(id);
        let loaded_now = guard.is_none();
        if loaded_now {
            match self.load(id).await {
                Ok(g) => *guard = Some(g),
                Err(e) => {
                    // Unknown ids leave nothing behind.
                    drop(guard);
                    self.forget(id, &slot);
                    return Err(e);
                }
            }
        }
        // Taken before the store is read: a notice after this is kept for
        // the next holder.
        let suspected = self.suspicion(id);
        let doubt = match suspected {
            Some(v) => Some(v),
            None if !loaded_now && self.interrupted.load(Ordering::SeqCst) => Some(UNKNOWN_NEWER),
            None => None,
        };
        let cached = guard.as_ref().expect("loaded").row.version;
        if doubt.is_some_and(|v| v > cached) {
            let stored = match self.store.game(id).await {
                Ok(Some(row)) => row,
                Ok(None) => {
                    *guard = None;
                    drop(guard);
                    self.forget(id, &slot);
                    return Err(GameError::NotFound);
                }
                Err(e) => {
                    if let Some(v) = suspected {
                        self.suspect(id, v);
                    }
                    return Err(e.into());
                }
            };
            if stored.version != cached {
                let old = guard.take();
                match self.live_game(stored, old).await {
                    Ok(g) => *guard = Some(g),
                    Err(e) => {
                        drop(guard);
                        self.forget(id, &slot);
                        return Err(e);
                    }
                }
            }
        }
        Ok(guard)
    }

    /// A copy of the live game (for views and exports).
    pub async fn get(&self, id: &GameId) -> GameResult<LiveGame> {
        let guard = self.locked(id).await?;
        Ok(guard.as_ref().expect("loaded").clone())
    }

    /// Reads `f` of the live game without copying it.
    pub async fn read<T>(&self, id: &GameId, f: impl FnOnce(&LiveGame) -> T) -> GameResult<T> {
        let guard = self.locked(id).await?;
        Ok(f(guard.as_ref().expect("loaded")))
    }
}
