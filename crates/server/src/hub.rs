//! The live hub: in-process broadcast channels, one per game (versioned
//! game events), one per user (challenge and game start/finish events) and
//! one for the lobby (open challenges appearing and going).
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

/// A change of the lobby's list of open challenges.
#[derive(Debug, Clone, PartialEq)]
pub struct LobbyUpdate {
    /// `challenge` (a new open challenge), `challengeAccepted` or
    /// `challengeCanceled` (it left the list).
    pub kind: &'static str,
    /// Who made the challenge (the socket marks a viewer's own ones).
    pub challenger_id: i64,
    /// The challenge JSON, as `GET /api/challenge/{id}/show` answers it.
    pub challenge: Arc<serde_json::Value>,
}

const GAME_CAPACITY: usize = 64;
const USER_CAPACITY: usize = 64;
const LOBBY_CAPACITY: usize = 256;

/// Broadcast channels by game id and by user id, and the lobby's.
#[derive(Debug)]
pub struct Hub {
    games: Mutex<HashMap<String, broadcast::Sender<GameUpdate>>>,
    users: Mutex<HashMap<i64, broadcast::Sender<UserEvent>>>,
    lobby: broadcast::Sender<LobbyUpdate>,
}

impl Default for Hub {
    fn default() -> Hub {
        Hub {
            games: Mutex::default(),
            users: Mutex::default(),
            lobby: broadcast::channel(LOBBY_CAPACITY).0,
        }
    }
}

impl Hub {
    /// Subscribes to the lobby's changes.
    pub fn subscribe_lobby(&self) -> broadcast::Receiver<LobbyUpdate> {
        self.lobby.subscribe()
    }

    /// Publishes a committed change of the open challenges.
    pub fn publish_lobby(&self, update: LobbyUpdate) {
        // An error only means that nobody is listening.
        let _ = self.lobby.send(update);
    }

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
    async fn lobby_updates_reach_every_lobby_subscriber() {
        let hub = Hub::default();
        hub.publish_lobby(LobbyUpdate {
            kind: "challenge",
            challenger_id: 1,
            challenge: Arc::new(serde_json::json!({"id": "before"})),
        });
        let mut a = hub.subscribe_lobby();
        let mut b = hub.subscribe_lobby();
        hub.publish_lobby(LobbyUpdate {
            kind: "challengeCanceled",
            challenger_id: 1,
            challenge: Arc::new(serde_json::json!({"id": "x"})),
        });
        for rx in [&mut a, &mut b] {
            let u = rx.recv().await.unwrap();
            assert_eq!(
                (u.kind, u.challenge["id"].as_str()),
                ("challengeCanceled", Some("x"))
            );
            assert!(rx.try_recv().is_err(), "nothing from before subscribing");
        }
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
