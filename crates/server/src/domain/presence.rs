//! Who is online: a user is online on this node while they hold a live
//! connection to it (an event stream, a game stream or the page's
//! WebSocket). The count is per node; with several nodes a user is shown
//! online only by the node their connection reached (see docs/bots.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::model::UserId;

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

#[cfg(test)]
mod tests {
    use super::*;

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
