//! PostgreSQL as the bus, as a doorbell only: the notifications a commit
//! sends with its events' topics and sequences ([`ring`]), and the node's
//! listening connection that turns other nodes' notifications into
//! notices and reads the events its followers need ([`listen`]).

use std::sync::Arc;
use std::time::Duration;

use sqlx::PgConnection;
use sqlx::postgres::{PgListener, PgPool};
use tokio::sync::{mpsc, oneshot};

use super::PgStore;
use crate::commit::Shared;
use crate::model::UserId;
use crate::{StoreError, StoreResult, StoredEvent, Topic};

/// The notification channel.
const CHANNEL: &str = "chessmerge";
/// A read of other nodes' events by topic and sequence, for the listening
/// task to do on its own connection.
pub(super) struct EventRead {
    pub(super) wanted: Vec<(Topic, i64)>,
    reply: oneshot::Sender<StoreResult<Vec<StoredEvent>>>,
}

/// One event's part of a notification: `KIND KEY SEQ`.
fn notice_entry(topic: &Topic, seq: i64) -> String {
    match topic {
        Topic::Game(id) => format!("g {id} {seq}"),
        Topic::User(id) => format!("u {id} {seq}"),
        Topic::Lobby => format!("l - {seq}"),
    }
}

/// Longest notification payload sent (PostgreSQL's cap is 8,000 bytes).
pub(super) const NOTICE_BYTES: usize = 4000;

/// The doorbells of `events`: `NODE KIND KEY SEQ [KIND KEY SEQ ...]`, as
/// few payloads as fit under [`NOTICE_BYTES`], the events in order.
pub(super) fn notices<'a>(
    node: &str,
    events: impl IntoIterator<Item = (&'a Topic, i64)>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for (topic, seq) in events {
        let entry = notice_entry(topic, seq);
        if !cur.is_empty() && cur.len() + 1 + entry.len() > NOTICE_BYTES {
            out.push(std::mem::take(&mut cur));
        }
        if cur.is_empty() {
            cur.push_str(node);
        }
        cur.push(' ');
        cur.push_str(&entry);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Sends the doorbells of `events`, inside the transaction (delivered at
/// its commit): one notification for a batch's events, rarely more.
pub(super) async fn ring(
    conn: &mut PgConnection,
    node: &str,
    events: &[StoredEvent],
) -> StoreResult<u64> {
    ring_for(conn, node, events.iter().map(|e| (&e.topic, e.seq))).await
}

/// [`ring`] for the events' topics and sequence numbers.
pub(super) async fn ring_for<'a>(
    conn: &mut PgConnection,
    node: &str,
    events: impl IntoIterator<Item = (&'a Topic, i64)>,
) -> StoreResult<u64> {
    let payloads = notices(node, events);
    for p in &payloads {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(p)
            .execute(&mut *conn)
            .await?;
    }
    Ok(payloads.len() as u64)
}

/// A listening connection of its own, LISTENing on [`CHANNEL`].
pub(super) async fn listener(pool: &PgPool) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    // A lost connection is reopened by `listen` below, not inside sqlx:
    // the resync must come after the new LISTEN.
    listener.eager_reconnect(false);
    // Named for pg_stat_activity (its last query is usually a read).
    sqlx::query("SET application_name = 'chessmerge listener'")
        .execute(&mut listener)
        .await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

/// The node's listening connection: other nodes' events become notices
/// (topic and sequence), the events that a follower on this node needs are
/// read on the same connection ([`EventRead`], from [`Store::events`]), and
/// a lost connection becomes a resync for every follower.
///
/// Order matters after a loss: first a new connection that LISTENs again,
/// then the resync. A notice sent after the new LISTEN arrives; an event
/// committed before it is read back by the resync. (Resyncing at the loss
/// instead would read the store before the new LISTEN and miss what other
/// nodes commit in between: seen under load with PostgreSQL restarting,
/// `tests/faults.rs`.) At the loss itself the caches are told
/// ([`Committed::Interrupted`]): until the resync, a game cached on this
/// node may be changed by another without a notice, and a `gameFull`
/// built from it would go back in time. While there is no connection,
/// reads go to the pool.
pub(super) async fn listen(
    pool: PgPool,
    listener: PgListener,
    mut reads: mpsc::Receiver<EventRead>,
    shared: Arc<Shared>,
    node: Arc<str>,
) {
    let mut listener = Some(listener);
    loop {
        let Some(l) = listener.as_mut() else {
            match self::listener(&pool).await {
                Ok(l) => {
                    tracing::info!("notification connection back; followers resync");
                    listener = Some(l);
                    shared.resync();
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot reopen the notification connection; retrying");
                    let pause = tokio::time::sleep(Duration::from_millis(500));
                    tokio::pin!(pause);
                    loop {
                        tokio::select! {
                            _ = &mut pause => break,
                            Some(read) = reads.recv() => read_on_pool(&pool, &shared, read),
                        }
                    }
                }
            }
            continue;
        };
        // Both are cancel-safe (the listener since sqlx PR #3467); a read
        // goes first, since its followers wait for it.
        let received = tokio::select! {
            biased;
            Some(read) = reads.recv() => {
                let got = match sqlx::Acquire::acquire(&mut *l).await {
                    Ok(c) => read_events(c, &read.wanted, &shared).await,
                    Err(e) => Err(e.into()),
                };
                match got {
                    Ok(events) => {
                        let _ = read.reply.send(Ok(events));
                    }
                    Err(e) => {
                        // The connection may have lost notifications with
                        // it: reopen it and resync; the read goes again on
                        // the pool.
                        tracing::warn!(error = %e, "read on the notification connection failed; reopening it");
                        listener = None;
                        shared.interrupted();
                        read_on_pool(&pool, &shared, read);
                    }
                }
                continue;
            }
            r = l.try_recv() => r,
        };
        match received {
            // This node's own: published at commit.
            Ok(Some(n)) if n.payload().split(' ').next() == Some(&*node) => {}
            Ok(Some(n)) => match parse_notification(n.payload()) {
                Some((_, events)) => {
                    for (topic, seq) in events {
                        shared.notice(topic, seq);
                    }
                }
                None => tracing::warn!(payload = n.payload(), "unreadable notification"),
            },
            // What was sent while the connection is down is lost: reopen
            // it, then read back (above).
            Ok(None) => {
                tracing::warn!("notification connection lost");
                listener = None;
                shared.interrupted();
            }
            Err(e) => {
                tracing::warn!(error = %e, "notification connection failed");
                listener = None;
                shared.interrupted();
            }
        }
    }
}

/// Does `read` on a pooled connection, in a task of its own.
fn read_on_pool(pool: &PgPool, shared: &Arc<Shared>, read: EventRead) {
    let (pool, shared) = (pool.clone(), shared.clone());
    tokio::spawn(async move {
        let got = match pool.acquire().await {
            Ok(mut c) => read_events(&mut c, &read.wanted, &shared).await,
            Err(e) => Err(e.into()),
        };
        let _ = read.reply.send(got);
    });
}

/// Events by topic and sequence (those not found are left out), in the
/// order asked, with one query.
async fn read_events(
    conn: &mut PgConnection,
    wanted: &[(Topic, i64)],
    shared: &Shared,
) -> StoreResult<Vec<StoredEvent>> {
    use std::collections::HashMap;
    let (mut game_ids, mut game_seqs) = (Vec::new(), Vec::new());
    let (mut user_ids, mut user_seqs) = (Vec::new(), Vec::new());
    let mut lobby_seqs = Vec::new();
    for (topic, seq) in wanted {
        match topic {
            Topic::Game(id) => {
                game_ids.push(id.as_str());
                game_seqs.push(*seq);
            }
            Topic::User(id) => {
                user_ids.push(id.0);
                user_seqs.push(*seq);
            }
            Topic::Lobby => lobby_seqs.push(*seq),
        }
    }
    shared.count(1);
    // (kind, game id, user id, sequence, payload)
    let rows: Vec<(String, String, i64, i64, String)> = sqlx::query_as(
        "SELECT 'g', e.game_id, 0::bigint, e.version, e.payload
         FROM unnest($1::text[], $2::bigint[]) AS w(game_id, version)
         JOIN game_events e ON e.game_id = w.game_id AND e.version = w.version
         UNION ALL
         SELECT 'u', '', e.user_id, e.seq, e.payload
         FROM unnest($3::bigint[], $4::bigint[]) AS w(user_id, seq)
         JOIN user_events e ON e.seq = w.seq AND e.user_id = w.user_id
         UNION ALL
         SELECT 'l', '', 0::bigint, seq, payload FROM lobby_events WHERE seq = ANY($5)",
    )
    .bind(game_ids)
    .bind(game_seqs)
    .bind(user_ids)
    .bind(user_seqs)
    .bind(lobby_seqs)
    .fetch_all(conn)
    .await?;
    let mut games: HashMap<(String, i64), Arc<str>> = HashMap::new();
    let mut users: HashMap<(i64, i64), Arc<str>> = HashMap::new();
    let mut lobby: HashMap<i64, Arc<str>> = HashMap::new();
    for (kind, game, user, seq, payload) in rows {
        match kind.as_str() {
            "g" => games.insert((game, seq), payload.into()),
            "u" => users.insert((user, seq), payload.into()),
            _ => lobby.insert(seq, payload.into()),
        };
    }
    Ok(wanted
        .iter()
        .filter_map(|(topic, seq)| {
            let payload = match topic {
                Topic::Game(id) => games.get(&(id.to_string(), *seq)),
                Topic::User(id) => users.get(&(id.0, *seq)),
                Topic::Lobby => lobby.get(seq),
            }?;
            Some(StoredEvent {
                topic: topic.clone(),
                seq: *seq,
                payload: payload.clone(),
                value: None,
            })
        })
        .collect())
}

/// A notification's node and its events' topics and sequence numbers
/// (`NODE KIND KEY SEQ [KIND KEY SEQ ...]`); `None` if any part does not read.
pub(super) fn parse_notification(payload: &str) -> Option<(&str, Vec<(Topic, i64)>)> {
    let mut parts = payload.split(' ');
    let from = parts.next()?;
    let mut events = Vec::new();
    while let Some(kind) = parts.next() {
        let (key, seq) = (parts.next()?, parts.next()?);
        events.push(parse_notice(kind, key, seq)?);
    }
    (!events.is_empty()).then_some((from, events))
}

/// An event's topic and sequence number in a notification.
fn parse_notice(kind: &str, key: &str, seq: &str) -> Option<(Topic, i64)> {
    let seq = seq.parse().ok()?;
    let topic = match kind {
        "g" => Topic::Game(key.parse().ok()?),
        "u" => Topic::User(UserId(key.parse().ok()?)),
        "l" => Topic::Lobby,
        _ => return None,
    };
    Some((topic, seq))
}

impl PgStore {
    pub async fn events<'a>(&'a self, wanted: &'a [(Topic, i64)]) -> StoreResult<Vec<StoredEvent>> {
        let gone = || StoreError::Unavailable("the notification task has stopped".into());
        let (reply, got) = oneshot::channel();
        let read = EventRead {
            wanted: wanted.to_vec(),
            reply,
        };
        self.reads_tx.send(read).await.map_err(|_| gone())?;
        got.await.map_err(|_| gone())?
    }
}
