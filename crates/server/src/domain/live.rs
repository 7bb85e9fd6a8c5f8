//! Live feeds: what followers of a game, of a user's events and of the
//! lobby are sent, over ndjson streams and the page's WebSocket.
//!
//! The [`Hub`] only routes what the store says was committed (see
//! [`crate::store`]: events are born there); it never makes news itself.
//! A feed subscribes to its topic *before* it reads the store, drops what
//! it already sent (by sequence), and reads what it missed from the store
//! whenever it sees a gap, falls behind, or is told its source was
//! interrupted ([`Live::Resync`]). A topic's channel is freed when its last
//! follower leaves, so following unknown ids costs nothing that stays.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};

use serde::de::DeserializeOwned;

use crate::challenges;
use crate::games::{ChatReader, GameError, Games};
use crate::model::{GameId, UserId, Variant};
use crate::store::{Committed, Store, StoreError, StoredEvent, Topic};
use crate::views::{
    self, Event, GameEvent, GameFullJson, LobbyEvent, LobbyNews, OpenChallengesJson, UserEvent,
};

/// An empty line (or nothing, on the socket) is sent after this long without news.
pub const KEEP_ALIVE: Duration = Duration::from_secs(7);
/// How long after a failed read of a notified event its followers are told
/// to read the store again.
const NOTICE_RETRY: Duration = Duration::from_millis(500);

/// Most committed-feed messages the hub takes in one go (their notices'
/// events are read with one query).
const BURST: usize = 512;

const TOPIC_CAPACITY: usize = 64;
const LOBBY_CAPACITY: usize = 256;

/// What a topic's channel carries: `T` is the topic's kind of event.
#[derive(Debug, Clone, PartialEq)]
pub enum Live<T> {
    /// A committed event and its sequence number.
    Event {
        /// Its sequence number within the topic.
        seq: i64,
        /// The event, read once on this node.
        event: Event<T>,
        /// A game state as followers get it, computed by the first of this
        /// node's followers that needs it and shared with the rest: a state
        /// another node stored without its legal moves is completed once
        /// per event, not once per follower ([`views::complete_state`]).
        completed: Arc<OnceLock<Event<T>>>,
    },
    /// Events may have been missed: read the store from the last sequence.
    Resync,
}

#[derive(Debug)]
struct Channels<K, T> {
    map: Mutex<HashMap<K, broadcast::Sender<Live<T>>>>,
}

impl<K: Eq + Hash + Clone, T: Clone> Channels<K, T> {
    fn subscribe(&self, key: &K) -> broadcast::Receiver<Live<T>> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(key.clone())
            .or_insert_with(|| broadcast::channel(TOPIC_CAPACITY).0)
            .subscribe()
    }

    fn send(&self, key: &K, msg: Live<T>) {
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = map.get(key) {
            let _ = tx.send(msg);
        }
    }

    fn send_all(&self, msg: &Live<T>) {
        let map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        for tx in map.values() {
            let _ = tx.send(msg.clone());
        }
    }

    /// Frees the channel when nobody follows it any more.
    fn release(&self, key: &K) {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if map.get(key).is_some_and(|tx| tx.receiver_count() == 0) {
            map.remove(key);
        }
    }

    fn has(&self, key: &K) -> bool {
        self.map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(key)
    }

    fn len(&self) -> usize {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl<K, T> Default for Channels<K, T> {
    fn default() -> Self {
        Channels {
            map: Mutex::new(HashMap::new()),
        }
    }
}

#[derive(Debug)]
struct HubInner {
    games: Channels<GameId, GameEvent>,
    users: Channels<UserId, UserEvent>,
    lobby: broadcast::Sender<Live<LobbyEvent>>,
}

/// Routes committed events to the followers of their topic on this node.
#[derive(Debug, Clone)]
pub struct Hub(Arc<HubInner>);

/// A follower's end of a topic; dropping it frees the topic's channel once
/// it was the last.
#[derive(Debug)]
pub struct Subscription<T> {
    rx: Option<broadcast::Receiver<Live<T>>>,
    hub: Hub,
    topic: Topic,
}

impl<T: Clone> Subscription<T> {
    /// The next message; `None` once the hub is gone. Falling behind reads
    /// as [`Live::Resync`].
    pub async fn recv(&mut self) -> Option<Live<T>> {
        let rx = self.rx.as_mut()?;
        match rx.recv().await {
            Ok(m) => Some(m),
            Err(broadcast::error::RecvError::Lagged(_)) => Some(Live::Resync),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

impl<T> Drop for Subscription<T> {
    fn drop(&mut self) {
        drop(self.rx.take());
        match &self.topic {
            Topic::Game(id) => self.hub.0.games.release(id),
            Topic::User(id) => self.hub.0.users.release(id),
            Topic::Lobby => {}
        }
    }
}

impl Hub {
    /// A hub fed by `store`'s committed events (a task routes them; an
    /// event another process committed is read from `store` only when
    /// someone on this node follows its topic).
    pub fn start(store: Arc<Store>) -> Hub {
        let hub = Hub(Arc::new(HubInner {
            games: Channels::default(),
            users: Channels::default(),
            lobby: broadcast::channel(LOBBY_CAPACITY).0,
        }));
        let mut rx = store.committed();
        let weak = Arc::downgrade(&hub.0);
        tokio::spawn(async move {
            loop {
                let first = rx.recv().await;
                let Some(inner) = weak.upgrade() else { return };
                let hub = Hub(inner);
                // A burst: this message and those already waiting behind
                // it. The notices of followed topics among them are read
                // with one query and routed in the order they came.
                let mut wanted = Vec::new();
                let mut next = Some(first);
                let mut taken = 0;
                let mut closed = false;
                while let Some(msg) = next.take() {
                    taken += 1;
                    match msg {
                        Ok(Committed::Event(e)) => hub.route(e),
                        Ok(Committed::Notice { topic, seq }) => {
                            if hub.followed(&topic) {
                                wanted.push((topic, seq));
                            }
                        }
                        // Followers read the store at the resync that follows.
                        Ok(Committed::Interrupted) => {}
                        Ok(Committed::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => {
                            tracing::warn!("live events may have been missed; followers resync");
                            hub.resync_all();
                        }
                        Err(broadcast::error::RecvError::Closed) => closed = true,
                    }
                    if !closed && taken < BURST {
                        use broadcast::error::{RecvError, TryRecvError};
                        next = match rx.try_recv() {
                            Ok(m) => Some(Ok(m)),
                            Err(TryRecvError::Lagged(n)) => Some(Err(RecvError::Lagged(n))),
                            Err(TryRecvError::Closed) => Some(Err(RecvError::Closed)),
                            Err(TryRecvError::Empty) => None,
                        };
                    }
                }
                if !wanted.is_empty() {
                    hub.read_notified(store.clone(), wanted);
                }
                if closed {
                    return;
                }
            }
        });
        hub
    }

    /// Reads the events another node committed (`wanted`, in one query
    /// where the store can) and routes them in order. A failed read tells
    /// their followers to read the store themselves, a moment later: the
    /// event may be a game's last for a while (the opponent waits for it),
    /// so waiting for a next one that may never come will not do.
    fn read_notified(&self, store: Arc<Store>, wanted: Vec<(Topic, i64)>) {
        let hub = self.clone();
        tokio::spawn(async move {
            match store.events(&wanted).await {
                Ok(found) => {
                    if found.len() < wanted.len() {
                        tracing::warn!(
                            missing = wanted.len() - found.len(),
                            "notified events not found"
                        );
                    }
                    for e in found {
                        hub.route(e);
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot read notified events");
                    tokio::time::sleep(NOTICE_RETRY).await;
                    for (topic, _) in &wanted {
                        hub.resync(topic);
                    }
                }
            }
        });
    }

    /// Reads a committed event (once, for all its followers here) and
    /// sends it to its topic's followers; one that does not read makes
    /// them read the store (which skips it).
    fn route(&self, e: StoredEvent) {
        if !self.followed(&e.topic) {
            return;
        }
        match &e.topic {
            Topic::Game(id) => match live(&e) {
                Some(msg) => self.0.games.send(id, msg),
                None => self.resync(&e.topic),
            },
            Topic::User(id) => match live(&e) {
                Some(msg) => self.0.users.send(id, msg),
                None => self.resync(&e.topic),
            },
            Topic::Lobby => match live(&e) {
                Some(msg) => {
                    let _ = self.0.lobby.send(msg);
                }
                None => self.resync(&e.topic),
            },
        }
    }

    /// Whether someone on this node follows `topic`.
    fn followed(&self, topic: &Topic) -> bool {
        match topic {
            Topic::Game(id) => self.0.games.has(id),
            Topic::User(id) => self.0.users.has(id),
            Topic::Lobby => self.0.lobby.receiver_count() > 0,
        }
    }

    /// Tells the followers of `topic` on this node to read the store again.
    fn resync(&self, topic: &Topic) {
        match topic {
            Topic::Game(id) => self.0.games.send(id, Live::Resync),
            Topic::User(id) => self.0.users.send(id, Live::Resync),
            Topic::Lobby => {
                let _ = self.0.lobby.send(Live::Resync);
            }
        }
    }

    /// Tells every follower on this node to read the store again.
    pub fn resync_all(&self) {
        self.0.games.send_all(&Live::Resync);
        self.0.users.send_all(&Live::Resync);
        let _ = self.0.lobby.send(Live::Resync);
    }

    /// Follows a game.
    pub fn game(&self, id: GameId) -> Subscription<GameEvent> {
        Subscription {
            rx: Some(self.0.games.subscribe(&id)),
            hub: self.clone(),
            topic: Topic::Game(id),
        }
    }

    /// Follows what a user is told.
    pub fn user(&self, id: UserId) -> Subscription<UserEvent> {
        Subscription {
            rx: Some(self.0.users.subscribe(&id)),
            hub: self.clone(),
            topic: Topic::User(id),
        }
    }

    /// Follows the lobby.
    pub fn lobby(&self) -> Subscription<LobbyEvent> {
        Subscription {
            rx: Some(self.0.lobby.subscribe()),
            hub: self.clone(),
            topic: Topic::Lobby,
        }
    }

    /// Channels held now: `(games, users)`.
    pub fn channels(&self) -> (usize, usize) {
        (self.0.games.len(), self.0.users.len())
    }
}

/// What the feeds need.
#[derive(Clone)]
pub struct Feeds {
    /// Routing of committed events.
    pub hub: Hub,
    /// Where the history is read from.
    pub store: Arc<Store>,
    /// The live games (full views).
    pub games: Arc<Games>,
    /// Base URL for links in challenge JSON.
    pub base_url: Arc<str>,
    /// Becomes true when the server shuts down.
    pub shutdown: watch::Receiver<bool>,
}

/// A committed event as read on this node, for its topic's channel; `None`
/// (and a warning) for text that is no such event.
fn live<T: DeserializeOwned + 'static>(e: &StoredEvent) -> Option<Live<T>> {
    read(e).map(|event| Live::Event {
        seq: e.seq,
        event,
        completed: Arc::default(),
    })
}

/// A stored event's value; `None` (and a warning) for text that is no
/// event of its topic.
fn read<T: DeserializeOwned + 'static>(e: &StoredEvent) -> Option<Event<T>> {
    // This node's own commits come with the value they were written from.
    if let Some(event) = e.value.as_ref().and_then(|v| v.get::<Event<T>>()) {
        return Some(event.clone());
    }
    match Event::parse(&e.payload) {
        Ok(event) => Some(event),
        Err(error) => {
            tracing::warn!(topic = ?e.topic, seq = e.seq, %error, "an unreadable event skipped");
            None
        }
    }
}

/// Where a game's feed is: the last version it passed, whether the game
/// (and what follows its end) is over, and whether it is being played
/// (which decides who reads which chat room).
#[derive(Debug, Clone, Copy)]
struct Cursor {
    last: i64,
    finished: bool,
    ongoing: bool,
}

impl Cursor {
    /// Moves past the event of version `seq`; whether the follower is sent
    /// it (a chat line the reader may not read is passed over).
    fn pass(&mut self, seq: i64, event: &GameEvent, reader: &ChatReader) -> bool {
        self.last = seq;
        if let GameEvent::GameState(s) = event {
            self.ongoing = s.status.is_ongoing();
        }
        if let Some(more) = event.more_follows() {
            self.finished = !more;
        }
        match event {
            GameEvent::Chat(line) => reader.shows_line(line, self.ongoing),
            _ => true,
        }
    }
}

/// One item of a feed.
#[derive(Debug, Clone)]
pub enum FeedItem {
    /// A game's full description at `version` (also sent to a client that
    /// claims a version the game never had: it must start again from this).
    Full(i64, Box<GameFullJson>),
    /// A game's event after the change to `version`.
    State(i64, Event<GameEvent>),
    /// A user-level event.
    Event(Event<UserEvent>),
    /// Nothing happened for a while.
    KeepAlive,
}

/// Why a feed stopped early.
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    /// The game could not be read.
    #[error(transparent)]
    Game(#[from] GameError),
    /// Storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The token or session a live connection was authenticated with.
#[derive(Debug, Clone)]
pub struct Credential {
    /// Its hash.
    pub token_hash: String,
    /// Its kind.
    pub kind: crate::store::TokenKind,
}

impl Credential {
    fn is(&self, id: &str) -> bool {
        crate::store::token_id(&self.token_hash) == id
    }
}

/// Why a user feed ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedEnd {
    /// The follower left, or the server is shutting down.
    Closed,
    /// The follower's session or token was ended (logout, revoked).
    SignedOut,
}

/// The events a user or lobby follower has not sent yet, in order: the
/// one that arrived, or after a resync everything stored after `last`.
async fn unseen<T: DeserializeOwned + 'static, Fut>(
    msg: Live<T>,
    last: i64,
    read_since: impl FnOnce(i64) -> Fut,
) -> Result<Vec<(i64, Option<Event<T>>)>, FeedError>
where
    Fut: std::future::Future<Output = Result<Vec<StoredEvent>, StoreError>>,
{
    let events = match msg {
        Live::Event { seq, event, .. } => vec![(seq, Some(event))],
        Live::Resync => read_since(last)
            .await?
            .iter()
            .map(|e| (e.seq, read(e)))
            .collect(),
    };
    Ok(events.into_iter().filter(|(seq, _)| *seq > last).collect())
}

async fn next_or_keepalive<T: Clone>(
    sub: &mut Subscription<T>,
    shutdown: &mut watch::Receiver<bool>,
) -> Option<Option<Live<T>>> {
    tokio::select! {
        r = tokio::time::timeout(KEEP_ALIVE, sub.recv()) => match r {
            Ok(Some(m)) => Some(Some(m)),
            Ok(None) => None,
            Err(_) => Some(None),
        },
        _ = crate::shutdown::stopped(shutdown) => None,
    }
}

impl Feeds {
    /// The `gameFull` of a game, from the live cache, and whether the
    /// game goes on.
    pub async fn game_full(&self, id: &GameId) -> Result<(i64, GameFullJson, bool), GameError> {
        self.games
            .read(id, |g| {
                let full = views::game_full(&g.row, &g.players, g.state_json());
                (g.row.version, full, g.row.is_ongoing())
            })
            .await
    }

    /// Feeds a game's updates into `tx`: its full description first (when
    /// `after` is `None`, or when `after` is newer than the game), or every
    /// stored state after version `after`; then each change as it is
    /// committed, chat lines as `reader` may read them. Ends once a
    /// finished state has been sent (unless `past_end`: the page's socket
    /// follows a finished game on, for its chat; the ndjson streams end
    /// with the game, as lichess's do), when `tx` is closed, or at shutdown.
    pub async fn game(
        &self,
        id: GameId,
        after: Option<i64>,
        past_end: bool,
        reader: ChatReader,
        tx: mpsc::Sender<FeedItem>,
    ) -> Result<(), FeedError> {
        let mut sub = self.hub.game(id.clone());
        let mut shutdown = self.shutdown.clone();
        let (version, ongoing, variant) = self
            .games
            .read(&id, |g| (g.row.version, g.row.is_ongoing(), g.row.variant))
            .await?;
        let mut at = Cursor {
            last: 0,
            finished: false,
            ongoing,
        };
        match after {
            Some(v) if v <= version => {
                at.last = v;
                at.finished = !ongoing && !self.analysing(&id, version).await?;
                if v < version {
                    self.fill(&id, variant, &reader, &mut at, &tx).await?;
                    if tx.is_closed() {
                        return Ok(());
                    }
                }
            }
            // No version, or one this game never had: start from the whole game.
            _ => {
                let (v, full, going) = self.game_full(&id).await?;
                at.last = v;
                at.ongoing = going;
                at.finished =
                    !going && !full.state.rematch_offered() && !self.analysing(&id, v).await?;
                if tx.send(FeedItem::Full(v, Box::new(full))).await.is_err() {
                    return Ok(());
                }
            }
        }
        while past_end || !at.finished {
            let Some(next) = next_or_keepalive(&mut sub, &mut shutdown).await else {
                return Ok(());
            };
            match next {
                None => {
                    if tx.send(FeedItem::KeepAlive).await.is_err() {
                        return Ok(());
                    }
                }
                Some(Live::Event {
                    seq,
                    event,
                    completed,
                }) if seq == at.last + 1 => {
                    if !at.pass(seq, event.value(), &reader) {
                        continue;
                    }
                    // Read from the store when another node committed it.
                    let event = completed
                        .get_or_init(|| views::complete_state(event, variant))
                        .clone();
                    if tx.send(FeedItem::State(seq, event)).await.is_err() {
                        return Ok(());
                    }
                }
                Some(Live::Event { seq, .. }) if seq <= at.last => {}
                // A gap, or we fell behind: read what we missed from the store.
                Some(Live::Event { .. }) | Some(Live::Resync) => {
                    self.fill(&id, variant, &reader, &mut at, &tx).await?;
                    if tx.is_closed() {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether the finished game's last event (`version`) says its analysis
    /// is under way.
    async fn analysing(&self, id: &GameId, version: i64) -> Result<bool, FeedError> {
        let last = self.store.event(&Topic::Game(id.clone()), version).await?;
        Ok(last
            .as_ref()
            .and_then(read::<GameEvent>)
            .is_some_and(|e| e.value().more_follows() == Some(true)))
    }

    /// Sends the stored states after `at.last`, moving `at` on.
    async fn fill(
        &self,
        id: &GameId,
        variant: Variant,
        reader: &ChatReader,
        at: &mut Cursor,
        tx: &mpsc::Sender<FeedItem>,
    ) -> Result<(), FeedError> {
        for stored in self.store.game_events_since(id, at.last).await? {
            let Some(event) = read::<GameEvent>(&stored) else {
                at.last = stored.seq;
                continue;
            };
            if !at.pass(stored.seq, event.value(), reader) {
                continue;
            }
            let event = views::complete_state(event, variant);
            if tx.send(FeedItem::State(stored.seq, event)).await.is_err() {
                break;
            }
        }
        Ok(())
    }

    /// Feeds a user's events into `tx`: first a `gameStart` for each ongoing
    /// game and a `challenge` for each pending challenge to or by the user,
    /// then events as they are committed (after a lag or an interruption,
    /// the stored ones it missed). Ends when `tx` is closed, at shutdown,
    /// or ([`FeedEnd::SignedOut`]) when `credential`, the token or session
    /// the follower came with, is ended on any node.
    pub async fn user(
        &self,
        user: UserId,
        credential: Option<&Credential>,
        tx: mpsc::Sender<FeedItem>,
    ) -> Result<FeedEnd, FeedError> {
        let mut sub = self.hub.user(user);
        let mut shutdown = self.shutdown.clone();
        let (mut last, _) = self.store.event_heads().await?;
        // Ended between the request's authentication and the subscription?
        if let Some(c) = credential
            && self
                .store
                .user_by_token(&c.token_hash, c.kind, crate::now_ms())
                .await?
                .is_none()
        {
            return Ok(FeedEnd::SignedOut);
        }
        let mut initial = Vec::new();
        for g in self.store.ongoing_games(user).await? {
            if let Some(color) = g.color_of(user) {
                let players = crate::games::players_of(self.store.as_ref(), &g).await?;
                let game = views::now_playing(&g, color, &players);
                initial.push(UserEvent::GameStart { game });
            }
        }
        let (incoming, outgoing) = self.store.pending_challenges(user).await?;
        for c in incoming.iter().chain(outgoing.iter()) {
            let challenge =
                challenges::challenge_json(self.store.as_ref(), &self.base_url, c).await?;
            initial.push(UserEvent::Challenge { challenge });
        }
        // A game or challenge begun between reading the event head and the
        // listing above is listed and also follows as an event: sent once.
        let mut listed: HashSet<String> = initial.iter().filter_map(listed_id).collect();
        for event in initial {
            let event = Event::new(event).map_err(|e| StoreError::Database(e.to_string()))?;
            if tx.send(FeedItem::Event(event)).await.is_err() {
                return Ok(FeedEnd::Closed);
            }
        }
        loop {
            let Some(next) = next_or_keepalive(&mut sub, &mut shutdown).await else {
                return Ok(FeedEnd::Closed);
            };
            let Some(msg) = next else {
                if tx.send(FeedItem::KeepAlive).await.is_err() {
                    return Ok(FeedEnd::Closed);
                }
                continue;
            };
            let events =
                unseen(msg, last, |after| self.store.user_events_since(user, after)).await?;
            for (seq, event) in events {
                last = seq;
                let Some(event) = event else { continue };
                if let UserEvent::TokensEnded { tokens } = event.value() {
                    // Internal: never passed on.
                    if credential.is_some_and(|c| tokens.iter().any(|id| c.is(id))) {
                        return Ok(FeedEnd::SignedOut);
                    }
                    continue;
                }
                if listed_id(event.value()).is_some_and(|id| listed.remove(&id)) {
                    continue;
                }
                if tx.send(FeedItem::Event(event)).await.is_err() {
                    return Ok(FeedEnd::Closed);
                }
            }
        }
    }

    /// Feeds the lobby into `tx` as socket `d` objects: the open challenges
    /// as `viewer` sees them (`{"type":"openChallenges","challenges":[...]}`),
    /// then `{"type":"challenge"|"challengeAccepted"|"challengeCanceled",
    /// "challenge":{...}}` as they are committed. After falling behind it
    /// reads the stored lobby events it missed. Ends when `tx` is closed or
    /// at shutdown.
    pub async fn lobby(
        &self,
        viewer: UserId,
        tx: mpsc::Sender<LobbyNews>,
    ) -> Result<(), FeedError> {
        let mut sub = self.hub.lobby();
        let mut shutdown = self.shutdown.clone();
        let (_, mut last) = self.store.event_heads().await?;
        let list = challenges::open_list(
            self.store.as_ref(),
            &self.base_url,
            viewer,
            challenges::OPEN_LIST_LIMIT,
        )
        .await?;
        let snapshot = LobbyNews::Open(OpenChallengesJson { challenges: list });
        if tx.send(snapshot).await.is_err() {
            return Ok(());
        }
        loop {
            let next = tokio::select! {
                m = sub.recv() => m,
                _ = crate::shutdown::stopped(&mut shutdown) => return Ok(()),
            };
            let Some(msg) = next else {
                return Ok(());
            };
            let events = unseen(msg, last, |after| self.store.lobby_events_since(after)).await?;
            for (seq, event) in events {
                last = seq;
                let Some(event) = event else { continue };
                let d = challenges::lobby_event_for(event.value(), viewer);
                if tx.send(d).await.is_err() {
                    return Ok(());
                }
            }
        }
    }
}

/// The key under which [`Feeds::user`] lists an event at the stream's
/// start: a started game or a pending challenge (a challenge's game takes
/// its id, hence the kind in the key).
fn listed_id(event: &UserEvent) -> Option<String> {
    match event {
        UserEvent::GameStart { game } => Some(format!("game {}", game.game_id)),
        UserEvent::Challenge { challenge } => Some(format!("challenge {}", challenge.id)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Actor;
    use crate::store::NewEvents;
    use crate::store::conformance::{start_game, temp_sqlite};

    #[tokio::test]
    async fn another_node_s_state_is_completed_once_for_all_its_followers() {
        let (store, dir) = temp_sqlite("complete").await;
        let store: Arc<Store> = Arc::new(store);
        let a = store.create_user("alice", "h", 0).await.unwrap();
        let b = store.create_user("bob", "h", 0).await.unwrap();
        let row = start_game(store.as_ref(), "compl001", a.id, b.id).await;
        let (turns, _turns_rx) = mpsc::unbounded_channel();
        let games = Games::new(store.clone(), 100, turns);
        let (_stop, shutdown) = watch::channel(false);
        let feeds = Feeds {
            hub: Hub::start(store.clone()),
            store: store.clone(),
            games,
            base_url: "http://localhost".into(),
            shutdown,
        };
        // Two followers of the game on this node, each past its gameFull.
        let mut followers = Vec::new();
        for _ in 0..2 {
            let (tx, mut rx) = mpsc::channel(16);
            let (f, id) = (feeds.clone(), row.id.clone());
            tokio::spawn(async move { f.game(id, None, false, ChatReader::default(), tx).await });
            assert!(matches!(rx.recv().await, Some(FeedItem::Full(..))));
            followers.push(rx);
        }
        // Another node moves: its store holds the state without legal
        // moves, and this node is told of it.
        let other: Arc<Store> = Arc::new(
            crate::store::SqliteStore::open(dir.0.join("test.db").to_str().unwrap())
                .await
                .unwrap()
                .into(),
        );
        let (turns, _rx) = mpsc::unbounded_channel();
        let elsewhere = Games::new(other, 100, turns);
        let mv: chessmerge_rules::UciMove = "e2e3".parse().unwrap();
        let moved = elsewhere
            .play_move(&row.id, Actor::User(a.id), &mv, Some(0), false, 0)
            .await
            .unwrap();
        let stored = store.game_events_since(&row.id, row.version).await.unwrap();
        assert_eq!(stored.len(), 1);
        assert!(
            stored[0].payload.contains("\"legalMoves\":[]"),
            "stored slim"
        );
        assert_eq!(stored[0].seq, moved.version);
        feeds.hub.route(stored[0].clone());
        let mut got = Vec::new();
        for rx in &mut followers {
            match rx.recv().await {
                Some(FeedItem::State(v, payload)) => {
                    assert_eq!(v, moved.version);
                    got.push(payload);
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(
            got[0].text().contains("\"uci\":\"e7e6\""),
            "with black's legal moves: {:?}",
            got[0]
        );
        assert!(Event::ptr_eq(&got[0], &got[1]), "completed once, shared");
    }

    #[tokio::test]
    async fn own_commits_are_routed_with_their_value_not_read_back() {
        let (store, _dir) = temp_sqlite("carried").await;
        let hub = Hub::start(Arc::new(store));
        let id: GameId = "carried1".parse().unwrap();
        let mut sub = hub.game(id.clone());
        let made = Event::new(GameEvent::AnalysisComplete(
            crate::views::AnalysisCompleteJson { failed: true },
        ))
        .unwrap();
        // The text is not JSON: routing that read it would skip the event
        // and resync instead.
        hub.route(StoredEvent {
            topic: Topic::Game(id.clone()),
            seq: 7,
            payload: "not read".into(),
            value: Some(crate::store::EventValue::new(made.clone())),
        });
        match sub.recv().await.unwrap() {
            Live::Event { seq, event, .. } => {
                assert_eq!(seq, 7);
                assert!(Event::ptr_eq(&event, &made), "the value handed over");
            }
            Live::Resync => panic!("the carried value was not used"),
        }
        // Without a value (another node's event), the text is read.
        hub.route(StoredEvent {
            topic: Topic::Game(id),
            seq: 8,
            payload: made.text().into(),
            value: None,
        });
        match sub.recv().await.unwrap() {
            Live::Event { seq, event, .. } => {
                assert_eq!(seq, 8);
                assert_eq!(event, made);
                assert!(!Event::ptr_eq(&event, &made));
            }
            Live::Resync => panic!("a readable event was skipped"),
        }
    }

    #[tokio::test]
    async fn channels_are_freed_when_their_last_follower_leaves() {
        let (store, _dir) = temp_sqlite("live").await;
        let store = Arc::new(store);
        let hub = Hub::start(store.clone());
        let subs: Vec<Subscription<GameEvent>> = (0..1000)
            .map(|i| hub.game(format!("unknown{i}").parse().unwrap()))
            .collect();
        assert_eq!(hub.channels().0, 1000);
        let again = hub.game("unknown7".parse().unwrap());
        drop(subs);
        assert_eq!(hub.channels(), (1, 0), "only the one still followed stays");
        drop(again);
        assert_eq!(hub.channels(), (0, 0));

        // Committed events reach the followers of their topic only.
        let a = store.create_user("a", "h", 0).await.unwrap();
        let b = store.create_user("b", "h", 0).await.unwrap();
        let mut sa = hub.user(a.id);
        let mut sb = hub.user(b.id);
        let c = crate::store::Challenge {
            id: "live0001".parse().unwrap(),
            kind: crate::model::ChallengeKind::User,
            challenger_id: a.id,
            dest_user_id: Some(b.id),
            variant: crate::model::Variant::ChessMerge,
            color: crate::model::ColorRequest::White,
            initial_fen: None,
            ai_level: None,
            status: crate::model::ChallengeStatus::Created,
            decline_reason: None,
            created_at: 0,
            rated: false,
            time_control: None,
            rating_range: None,
        };
        let ended = crate::store::tokens_ended_event(&["t1".into()]);
        let events = NewEvents {
            user: vec![(b.id, ended.clone())],
            lobby: vec![],
        };
        store.create_challenge(&c, &events).await.unwrap();
        match sb.recv().await.unwrap() {
            Live::Event { event, .. } => {
                assert_eq!(event.text(), ended);
                assert_eq!(
                    event.value(),
                    &UserEvent::TokensEnded {
                        tokens: vec!["t1".into()]
                    }
                );
            }
            other => panic!("{other:?}"),
        }
        hub.resync_all();
        assert_eq!(
            sa.recv().await.unwrap(),
            Live::Resync,
            "a got nothing but the resync"
        );
    }
}
