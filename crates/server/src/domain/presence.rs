//! Who is online: a user is online on this node while they hold a live
//! connection to it (an event stream, a game stream or the page's
//! WebSocket). The count is per node; with several nodes a user is shown
//! online only by the node their connection reached (see docs/bots.md).
//!
//! Who watches: [`Crowds`] counts each game's spectators, the page
//! sockets following it that are not a player's, also per node (a load
//! balancer that routes a game's sockets to one node, docs/deploy.md,
//! makes that node's count the whole count).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use crate::model::{GameId, UserId};

/// Open connections per user.
#[derive(Debug, Default)]
pub struct Presence {
    open: Mutex<HashMap<UserId, usize>>,
}

/// One open connection; the user's count goes down when it is dropped
/// (the connection's task ended).
#[derive(Debug)]
pub struct Connected {
    presence: Arc<Presence>,
    user: UserId,
}

impl Presence {
    /// Counts a connection of `user` until the guard is dropped.
    pub fn connect(self: &Arc<Self>, user: UserId) -> Connected {
        *self.lock().entry(user).or_insert(0) += 1;
        Connected {
            presence: self.clone(),
            user,
        }
    }

    /// Whether `user` holds a connection now.
    pub fn is_online(&self, user: UserId) -> bool {
        self.lock().contains_key(&user)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<UserId, usize>> {
        // The map holds counts only; one left by a panicking holder is still right.
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Connected {
    fn drop(&mut self) {
        let mut open = self.presence.lock();
        if let Some(n) = open.get_mut(&self.user) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.user);
            }
        }
    }
}

/// Spectators per game, each game's count on a watch channel that its
/// followers' sockets read.
#[derive(Debug, Default)]
pub struct Crowds {
    games: Mutex<HashMap<GameId, watch::Sender<usize>>>,
}

/// One spectator of a game; the count goes down when it is dropped.
#[derive(Debug)]
pub struct Seat {
    crowds: Arc<Crowds>,
    game: GameId,
}

impl Crowds {
    /// Counts a spectator of `game` until the seat is dropped.
    pub fn sit(self: &Arc<Self>, game: &GameId) -> Seat {
        self.lock()
            .entry(game.clone())
            .or_insert_with(|| watch::channel(0).0)
            .send_modify(|n| *n += 1);
        Seat {
            crowds: self.clone(),
            game: game.clone(),
        }
    }

    /// The count of `game`'s spectators, as it changes (dropped by the
    /// follower when it stops following).
    pub fn watch(&self, game: &GameId) -> watch::Receiver<usize> {
        self.lock()
            .entry(game.clone())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// Frees the entries of games nobody watches or follows any more.
    pub fn release(&self, game: &GameId) {
        let mut games = self.lock();
        if games
            .get(game)
            .is_some_and(|tx| *tx.borrow() == 0 && tx.receiver_count() == 0)
        {
            games.remove(game);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, watch::Sender<usize>>> {
        // Counts only, as above.
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        if let Some(tx) = self.crowds.lock().get(&self.game) {
            tx.send_modify(|n| *n = n.saturating_sub(1));
        }
        self.crowds.release(&self.game);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_s_spectators_are_counted_while_seated_and_the_entry_freed() {
        let crowds = Arc::new(Crowds::default());
        let id: GameId = "abcdefgh".parse().unwrap();
        let mut follower = crowds.watch(&id);
        let a = crowds.sit(&id);
        let b = crowds.sit(&id);
        assert!(follower.has_changed().unwrap());
        assert_eq!(*follower.borrow_and_update(), 2);
        drop(a);
        assert_eq!(*follower.borrow_and_update(), 1);
        drop(b);
        assert_eq!(*follower.borrow_and_update(), 0);
        drop(follower);
        crowds.release(&id);
        assert!(crowds.lock().is_empty(), "nobody follows: freed");
    }

    #[test]
    fn online_while_a_connection_is_held() {
        let p = Arc::new(Presence::default());
        let (a, b) = (UserId(1), UserId(2));
        assert!(!p.is_online(a));
        let first = p.connect(a);
        let second = p.connect(a);
        assert!(p.is_online(a) && !p.is_online(b));
        drop(first);
        assert!(p.is_online(a), "one connection is still open");
        drop(second);
        assert!(!p.is_online(a));
    }
}
