//! The live hub: in-process broadcast channels, one per game (versioned
//! game events) and one per user (challenge and game start/finish events).
//!
//! The hub only carries news of changes that are already committed; the
//! database stays the source of truth. A subscriber that falls behind or
//! sees a gap in versions reads what it missed from the store. With several
//! server nodes, a PostgreSQL `LISTEN/NOTIFY` bridge would feed the same
//! channels.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

/// A committed change of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameUpdate {
    /// The game's version after the change.
    pub version: i64,
    /// The `gameState` JSON, as stored.
    pub payload: Arc<str>,
}

/// A user-level event (`challenge`, `gameStart`, ...), JSON text.
pub type UserEvent = Arc<str>;

const GAME_CAPACITY: usize = 64;
const USER_CAPACITY: usize = 64;

/// Broadcast channels by game id and by user id.
#[derive(Debug, Default)]
pub struct Hub {
    games: Mutex<HashMap<String, broadcast::Sender<GameUpdate>>>,
    users: Mutex<HashMap<i64, broadcast::Sender<UserEvent>>>,
}

impl Hub {
    /// Subscribes to a game's updates.
    pub fn subscribe_game(&self, id: &str) -> broadcast::Receiver<GameUpdate> {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games
            .entry(id.to_owned())
            .or_insert_with(|| broadcast::channel(GAME_CAPACITY).0)
            .subscribe()
    }

    /// Publishes a committed game update.
    pub fn publish_game(&self, id: &str, update: GameUpdate) {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = games.get(id) {
            if tx.receiver_count() == 0 {
                games.remove(id);
            } else {
                let _ = tx.send(update);
            }
        }
    }

    /// Subscribes to a user's events.
    pub fn subscribe_user(&self, user_id: i64) -> broadcast::Receiver<UserEvent> {
        let mut users = self.users.lock().unwrap_or_else(|e| e.into_inner());
        users
            .entry(user_id)
            .or_insert_with(|| broadcast::channel(USER_CAPACITY).0)
            .subscribe()
    }

    /// Publishes an event to a user.
    pub fn publish_user(&self, user_id: i64, event: UserEvent) {
        let mut users = self.users.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = users.get(&user_id) {
            if tx.receiver_count() == 0 {
                users.remove(&user_id);
            } else {
                let _ = tx.send(event);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn game_updates_reach_subscribers_in_order() {
        let hub = Hub::default();
        let mut a = hub.subscribe_game("g1");
        let mut b = hub.subscribe_game("g1");
        let mut other = hub.subscribe_game("g2");
        for v in 2..5 {
            hub.publish_game(
                "g1",
                GameUpdate {
                    version: v,
                    payload: format!("{{\"v\":{v}}}").into(),
                },
            );
        }
        for rx in [&mut a, &mut b] {
            for v in 2..5 {
                assert_eq!(rx.recv().await.unwrap().version, v);
            }
        }
        assert!(other.try_recv().is_err());
    }

    #[tokio::test]
    async fn channels_without_subscribers_are_dropped() {
        let hub = Hub::default();
        drop(hub.subscribe_user(7));
        hub.publish_user(7, "{}".into());
        assert!(hub.users.lock().unwrap().is_empty());
        let mut rx = hub.subscribe_user(7);
        hub.publish_user(7, "{\"type\":\"x\"}".into());
        assert_eq!(&*rx.recv().await.unwrap(), "{\"type\":\"x\"}");
    }
}
