//! The PostgreSQL backend, for several server nodes on one database.
//!
//! The same contract as SQLite's (see [`super::Store`]), plus what several
//! nodes need:
//!
//! - **PostgreSQL as the bus, as a doorbell only.** Every transaction that
//!   stores events also sends `NOTIFY chessmerge, 'NODE KIND KEY SEQ [KIND
//!   KEY SEQ ...]'` (delivered on commit): one notification for all its
//!   events, a few dozen bytes each (several notifications past 4,000
//!   bytes). Each node keeps one listening connection, and reads another
//!   node's events on it, by their keys and sequences: one query for all
//!   the notices of a burst that someone on the node follows
//!   ([`super::Store::events`]), handed to its followers. Its own
//!   events it publishes right after the commit, as SQLite does. When the
//!   listener loses its connection (notifications sent meanwhile are
//!   lost), the node tells every follower to resync from the tables.
//! - **Ordered sequences.** Transactions that add user or lobby events take
//!   one transaction-level advisory lock, so that those events commit in
//!   the order of their sequence numbers (a follower that has seen number
//!   12 can never later meet an 11). Every transaction takes it last,
//!   after its other writes, and then only inserts the events and commits:
//!   it is held briefly, and its holder never waits for a row that another
//!   holder-to-be has locked (no deadlock through it).
//! - **Group commit in a few statements.** The writer commits a batch of
//!   game changes (up to 128) with one guarded multi-row `UPDATE` of the
//!   games, one `INSERT` of their events, one of their user events, one
//!   of lobby events and one notification, instead of a few statements
//!   per change (each a round trip).
//! - **Migrations** run under an advisory lock: two nodes starting at once
//!   apply each migration once.
//! - **Computer turns** are claimed with a lease row per game
//!   ([`super::Store::claim_computer_turn`]).

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions};
use sqlx::{ConnectOptions, PgConnection};
use tokio::sync::{mpsc, oneshot};

use super::commit::{
    BatchResult, CommitBatch, Job, NoWrites, Pending, QUEUE, Shared, group_writer, plain_run,
};
use super::rows;
use super::{
    Allowance, AllowanceRow, BoxFuture, Game, GameCommit, Lease, NewEvents, Refused, StoreError,
    StoreResult, StoredEvent, Topic,
};
use crate::model::{GameId, UserId};
use crate::shared::challenge_writes::{self, ChallengeWork, Outcome};
use crate::shared::inserts::postgres::{insert_challenge, insert_game_row, store_rating};

/// Migrations, embedded in the binary, applied in order on start.
const MIGRATIONS: &[crate::shared::migrations::Migration] = &[
    (
        1,
        "initial",
        include_str!("../migrations/postgres/0001_initial.sql"),
    ),
    (
        2,
        "login attempts",
        include_str!("../migrations/postgres/0002_login_attempts.sql"),
    ),
    (
        3,
        "bots and chat",
        include_str!("../migrations/postgres/0003_bots_and_chat.sql"),
    ),
    (
        4,
        "game analyses",
        include_str!("../migrations/postgres/0004_game_analyses.sql"),
    ),
    (
        5,
        "token lifetimes and device cookies",
        include_str!("../migrations/postgres/0005_token_lifetimes.sql"),
    ),
    (
        6,
        "ratings",
        include_str!("../migrations/postgres/0006_ratings.sql"),
    ),
    (
        7,
        "takebacks, rematches and conditional moves",
        include_str!("../migrations/postgres/0007_correspondence.sql"),
    ),
    (
        8,
        "user preferences",
        include_str!("../migrations/postgres/0008_user_preferences.sql"),
    ),
    (
        9,
        "game imports",
        include_str!("../migrations/postgres/0009_game_imports.sql"),
    ),
    (
        10,
        "shared limits: allowances and leases",
        include_str!("../migrations/postgres/0010_shared_limits.sql"),
    ),
];

/// The notification channel.
const CHANNEL: &str = "chessmerge";
/// Advisory lock keys: migrations, and the order of user and lobby events.
const MIGRATION_LOCK: i64 = 0x00c4_e55e_0001;
const EVENT_ORDER_LOCK: i64 = 0x00c4_e55e_0002;

/// A store in a PostgreSQL database, shared by any number of nodes.
#[derive(Clone, Debug)]
pub struct PgStore {
    pub(crate) pool: PgPool,
    pub(crate) games_tx: mpsc::Sender<Job<NoWrites>>,
    /// Reads of notified events, done by the listening task ([`listen`]).
    reads_tx: mpsc::Sender<EventRead>,
    pub(crate) shared: Arc<Shared>,
    node: Arc<str>,
}

/// A read of other nodes' events by topic and sequence, for the listening
/// task to do on its own connection.
struct EventRead {
    wanted: Vec<(Topic, i64)>,
    reply: oneshot::Sender<StoreResult<Vec<StoredEvent>>>,
}

/// Whether a `--database` value names PostgreSQL.
pub fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres:") || url.starts_with("postgresql:")
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
const NOTICE_BYTES: usize = 4000;

/// The doorbells of `events`: `NODE KIND KEY SEQ [KIND KEY SEQ ...]`, as
/// few payloads as fit under [`NOTICE_BYTES`], the events in order.
fn notices<'a>(node: &str, events: impl IntoIterator<Item = (&'a Topic, i64)>) -> Vec<String> {
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
async fn ring(conn: &mut PgConnection, node: &str, events: &[StoredEvent]) -> StoreResult<u64> {
    ring_for(conn, node, events.iter().map(|e| (&e.topic, e.seq))).await
}

/// [`ring`] for the events' topics and sequence numbers.
async fn ring_for<'a>(
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

/// Stores user and lobby events under the event-order lock; returns the
/// statements sent.
pub(crate) async fn insert_events(
    conn: &mut PgConnection,
    events: &NewEvents,
    now: i64,
    out: &mut Vec<StoredEvent>,
) -> StoreResult<u64> {
    if events.user.is_empty() && events.lobby.is_empty() {
        return Ok(0);
    }
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(EVENT_ORDER_LOCK)
        .execute(&mut *conn)
        .await?;
    for (user, payload) in &events.user {
        let (seq,): (i64,) = sqlx::query_as(
            "INSERT INTO user_events (user_id, payload, created_at) VALUES ($1, $2, $3)
             RETURNING seq",
        )
        .bind(user.0)
        .bind(payload)
        .bind(now)
        .fetch_one(&mut *conn)
        .await?;
        out.push(StoredEvent {
            topic: Topic::User(*user),
            seq,
            payload: payload.as_str().into(),
        });
    }
    for payload in &events.lobby {
        let (seq,): (i64,) = sqlx::query_as(
            "INSERT INTO lobby_events (payload, created_at) VALUES ($1, $2) RETURNING seq",
        )
        .bind(payload)
        .bind(now)
        .fetch_one(&mut *conn)
        .await?;
        out.push(StoredEvent {
            topic: Topic::Lobby,
            seq,
            payload: payload.as_str().into(),
        });
    }
    Ok(1 + (events.user.len() + events.lobby.len()) as u64)
}

/// Advisory lock keys of users' caps: this plus the user's id.
const USER_CAP_LOCK: i64 = 0x0c4e_0000_0000_0000;

/// Takes the cap locks of `users` (in id order, so that two transactions
/// never wait for each other), held until the transaction ends. Advisory
/// locks, not row locks: a row lock on `users` would also hold up the
/// foreign-key checks of every event stored for them.
async fn lock_users(conn: &mut PgConnection, users: &[UserId]) -> StoreResult<()> {
    let mut ids: Vec<i64> = users.iter().map(|u| USER_CAP_LOCK + u.0).collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// The guarded `UPDATE` of many games in one statement (each game at most
/// once): the ids of the games whose guard held.
async fn update_games(
    conn: &mut PgConnection,
    batch: &[&GameCommit],
) -> StoreResult<std::collections::HashSet<String>> {
    let g = |f: &dyn Fn(&Game) -> Option<String>| -> Vec<Option<String>> {
        batch.iter().map(|c| f(&c.game)).collect()
    };
    let n = |f: &dyn Fn(&GameCommit) -> Option<i64>| -> Vec<Option<i64>> {
        batch.iter().map(|c| f(c)).collect()
    };
    let ids: Vec<Option<String>> = g(&|g| Some(g.id.to_string()));
    let rows: Vec<(String,)> = sqlx::query_as(
        "UPDATE games AS g SET status = v.status, winner = v.winner,
            status_reason = v.status_reason, moves = v.moves, san = v.san, fen = v.fen,
            ply = v.ply, version = v.version, draw_offer = v.draw_offer,
            updated_at = v.updated_at, takeback_offer = v.takeback_offer, rematch = v.rematch,
            forecasts = v.forecasts, white_rating = v.white_rating,
            white_rating_diff = v.white_rating_diff, black_rating = v.black_rating,
            black_rating_diff = v.black_rating_diff
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
            $7::text[], $8::bigint[], $9::bigint[], $10::text[], $11::bigint[], $12::text[],
            $13::text[], $14::text[], $15::bigint[], $16::bigint[], $17::bigint[],
            $18::bigint[], $19::bigint[], $20::bigint[])
            AS v(id, status, winner, status_reason, moves, san, fen, ply, version, draw_offer,
                updated_at, takeback_offer, rematch, forecasts, white_rating,
                white_rating_diff, black_rating, black_rating_diff, expected_version,
                expected_ply)
         WHERE g.id = v.id AND g.version = v.expected_version AND g.ply = v.expected_ply
         RETURNING g.id",
    )
    .bind(ids)
    .bind(g(&|g| Some(g.status.as_str().to_owned())))
    .bind(g(&|g| g.winner.map(|c| c.name().to_owned())))
    .bind(g(&|g| g.status_reason.clone()))
    .bind(g(&|g| Some(g.moves.clone())))
    .bind(g(&|g| Some(g.san.clone())))
    .bind(g(&|g| Some(g.fen.clone())))
    .bind(n(&|c| Some(c.game.ply)))
    .bind(n(&|c| Some(c.game.version)))
    .bind(g(&|g| g.draw_offer.map(|c| c.name().to_owned())))
    .bind(n(&|c| Some(c.game.updated_at)))
    .bind(g(&|g| g.takeback_offer.map(|c| c.name().to_owned())))
    .bind(g(&|g| g.rematch.as_ref().map(super::Rematch::to_text)))
    .bind(g(&|g| super::forecasts_text(&g.forecasts)))
    .bind(n(&|c| c.game.white_rating.map(|r| r.rating)))
    .bind(n(&|c| c.game.white_rating.map(|r| r.diff)))
    .bind(n(&|c| c.game.black_rating.map(|r| r.rating)))
    .bind(n(&|c| c.game.black_rating.map(|r| r.diff)))
    .bind(n(&|c| Some(c.expected_version)))
    .bind(n(&|c| Some(c.expected_ply)))
    .fetch_all(&mut *conn)
    .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// The rows of a change that is not plain ([`super::commit::is_plain`]): its ratings'
/// guard, the game's guarded `UPDATE`, the ratings, and a game it starts
/// (its challenge and row; the events are written with the batch's).
/// Returns whether the guards held and the statements sent.
async fn apply_game_rows(
    conn: &mut PgConnection,
    c: &GameCommit,
    now: i64,
) -> StoreResult<(bool, u64)> {
    let g = &c.game;
    // The ratings' guard first (rows locked until the commit): a refused
    // change must write nothing.
    for r in &c.ratings {
        let games: Option<(i64,)> = sqlx::query_as(
            "SELECT games FROM perfs WHERE user_id = $1 AND variant = $2 FOR UPDATE",
        )
        .bind(r.user_id.0)
        .bind(r.variant.id())
        .fetch_optional(&mut *conn)
        .await?;
        if games.map_or(0, |g| g.0) != r.games_before {
            return Ok((false, c.ratings.len() as u64));
        }
    }
    let updated = update_games(conn, &[c]).await?;
    if !updated.contains(g.id.as_str()) {
        return Ok((false, 1 + c.ratings.len() as u64));
    }
    for r in &c.ratings {
        store_rating(conn, r, &g.id, now).await?;
    }
    let mut n = 1 + 3 * c.ratings.len() as u64;
    if let Some(s) = &c.start {
        // A game started by this change (a rematch): in the same transaction.
        insert_challenge(conn, &s.challenge).await?;
        insert_game_row(conn, &s.game).await?;
        n += 2;
    }
    Ok((true, n))
}

/// Inserts game events (`(game, version, payload)`) in one statement.
async fn insert_game_events(
    conn: &mut PgConnection,
    events: &[(&str, i64, &str)],
) -> StoreResult<u64> {
    if events.is_empty() {
        return Ok(0);
    }
    sqlx::query(
        "INSERT INTO game_events (game_id, version, payload)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])",
    )
    .bind(events.iter().map(|e| e.0).collect::<Vec<_>>())
    .bind(events.iter().map(|e| e.1).collect::<Vec<_>>())
    .bind(events.iter().map(|e| e.2).collect::<Vec<_>>())
    .execute(&mut *conn)
    .await?;
    Ok(1)
}

/// Inserts user events (in order, one statement) and lobby events (one
/// more): their sequence numbers, in the same order. The caller holds the
/// event-order lock.
async fn insert_events_bulk(
    conn: &mut PgConnection,
    user: &[(UserId, &str)],
    lobby: &[&str],
    now: i64,
) -> StoreResult<(Vec<i64>, Vec<i64>, u64)> {
    let mut statements = 0;
    let mut user_seqs = Vec::new();
    if !user.is_empty() {
        let rows: Vec<(i64, i64)> = sqlx::query_as(
            "INSERT INTO user_events (user_id, payload, created_at)
             SELECT e.user_id, e.payload, $3
             FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS e(user_id, payload, n)
             ORDER BY e.n
             RETURNING seq, user_id",
        )
        .bind(user.iter().map(|u| u.0.0).collect::<Vec<_>>())
        .bind(user.iter().map(|u| u.1).collect::<Vec<_>>())
        .bind(now)
        .fetch_all(&mut *conn)
        .await?;
        statements += 1;
        // Their order is the order asked (the sequence is drawn as they are
        // inserted); checked, since everything after relies on it.
        let in_order = rows.len() == user.len()
            && rows.iter().zip(user).all(|((_, u), (w, _))| *u == w.0)
            && rows.windows(2).all(|w| w[0].0 < w[1].0);
        if !in_order {
            return Err(StoreError::Database(
                "user events came back out of order".into(),
            ));
        }
        user_seqs = rows.into_iter().map(|(seq, _)| seq).collect();
    }
    let mut lobby_seqs = Vec::new();
    if !lobby.is_empty() {
        let rows: Vec<(i64,)> = sqlx::query_as(
            "INSERT INTO lobby_events (payload, created_at)
             SELECT e.payload, $2
             FROM unnest($1::text[]) WITH ORDINALITY AS e(payload, n)
             ORDER BY e.n
             RETURNING seq",
        )
        .bind(lobby.to_vec())
        .bind(now)
        .fetch_all(&mut *conn)
        .await?;
        statements += 1;
        if rows.len() != lobby.len() || rows.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(StoreError::Database(
                "lobby events came back out of order".into(),
            ));
        }
        lobby_seqs = rows.into_iter().map(|(seq,)| seq).collect();
    }
    Ok((user_seqs, lobby_seqs, statements))
}

struct Batches {
    pool: PgPool,
    shared: Arc<Shared>,
    node: Arc<str>,
    /// The writer's connection, kept from batch to batch: sqlx pings a
    /// pooled connection as it goes back, a round trip a batch saved. A
    /// batch that fails gives it back (the pool's ping then tests it).
    conn: tokio::sync::Mutex<Option<sqlx::pool::PoolConnection<sqlx::Postgres>>>,
}

impl Batches {
    async fn commit(&self, games: &[Pending]) -> BatchResult {
        use sqlx::Connection as _;
        let mut held = self.conn.lock().await;
        let mut conn = match held.take() {
            Some(conn) => conn,
            None => self.pool.acquire().await?,
        };
        let mut retried = false;
        let result = loop {
            match conn.begin().await {
                Ok(tx) => break commit_batch(tx, &self.shared, &self.node, games).await,
                // Broken while it was idle (PostgreSQL restarted, say):
                // nothing was sent, so the batch goes on a fresh one.
                Err(sqlx::Error::Io(e)) if !retried => {
                    tracing::warn!(error = %e, "the writer's connection had broken; taking another");
                    retried = true;
                }
                Err(e) => break Err(e.into()),
            }
            conn = self.pool.acquire().await?;
        };
        if result.is_ok() {
            *held = Some(conn);
        }
        result
    }
}

/// Only game changes: PostgreSQL's other writes commit on their own
/// pooled connections, side by side, and need no turn at this writer.
impl CommitBatch for Batches {
    type Write = NoWrites;

    fn commit_batch<'a>(
        &'a self,
        games: &'a [Pending],
        _: &'a mut [NoWrites],
    ) -> BoxFuture<'a, BatchResult> {
        Box::pin(self.commit(games))
    }

    fn answer_write(&self, write: NoWrites, _: StoreResult<()>, _: &Shared) {
        match write {}
    }
}

/// Commits a batch of game changes in one transaction, in a few statements
/// whatever its size:
///
/// 1. the games' rows: one guarded `UPDATE` for each run of plain changes
///    of distinct games ([`update_games`]; a game's second change of the
///    batch starts the next run, so it sees the first), the others one by
///    one ([`apply_game_rows`]);
/// 2. the game events of the changes kept, in one `INSERT`;
/// 3. their user and lobby events, one `INSERT` each, under the
///    event-order lock, taken last: it is held only for these and the
///    commit, and never while waiting for a game's row (another node's
///    batch holding it would wait for ours);
/// 4. one notification with every event's doorbell ([`ring`]).
async fn commit_batch(
    mut tx: sqlx::Transaction<'_, sqlx::Postgres>,
    shared: &Shared,
    node: &str,
    batch: &[Pending],
) -> BatchResult {
    let now = crate::now_ms();
    let mut statements = 2;
    let mut kept = vec![false; batch.len()];
    let mut i = 0;
    while i < batch.len() {
        let plain = plain_run(&batch[i..]);
        if plain == 0 {
            let (ok, n) = apply_game_rows(&mut tx, &batch[i].commit, now).await?;
            kept[i] = ok;
            statements += n;
            i += 1;
            continue;
        }
        let run: Vec<&GameCommit> = batch[i..i + plain].iter().map(|p| &p.commit).collect();
        let updated = update_games(&mut tx, &run).await?;
        statements += 1;
        for (k, c) in run.iter().enumerate() {
            kept[i + k] = updated.contains(c.game.id.as_str());
        }
        i += run.len();
    }
    let commits = || {
        batch
            .iter()
            .zip(&kept)
            .filter(|(_, k)| **k)
            .map(|(p, _)| &p.commit)
    };
    let mut states: Vec<(&str, i64, &str)> = Vec::new();
    let mut user: Vec<(UserId, &str)> = Vec::new();
    let mut lobby: Vec<&str> = Vec::new();
    for c in commits() {
        states.push((c.game.id.as_str(), c.game.version, c.event.as_str()));
        let started = c.start.as_deref().map(|s| {
            states.push((s.game.id.as_str(), s.game.version, s.first_event.as_str()));
            &s.events
        });
        for e in std::iter::once(&c.also).chain(started) {
            user.extend(e.user.iter().map(|(u, p)| (*u, p.as_str())));
            lobby.extend(e.lobby.iter().map(String::as_str));
        }
    }
    statements += insert_game_events(&mut tx, &states).await?;
    let (mut user_seqs, mut lobby_seqs) = (Vec::new(), Vec::new());
    if !user.is_empty() || !lobby.is_empty() {
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(EVENT_ORDER_LOCK)
            .execute(&mut *tx)
            .await?;
        let n;
        (user_seqs, lobby_seqs, n) = insert_events_bulk(&mut tx, &user, &lobby, now).await?;
        statements += 1 + n;
    }
    // Each kept change's events, in the order the feed publishes them: its
    // state, its user and lobby events, then a started game's.
    let (mut user_seqs, mut lobby_seqs) = (user_seqs.drain(..), lobby_seqs.drain(..));
    let mut take = |events: &NewEvents, out: &mut Vec<StoredEvent>| {
        for ((u, p), seq) in events.user.iter().zip(user_seqs.by_ref()) {
            out.push(StoredEvent {
                topic: Topic::User(*u),
                seq,
                payload: p.as_str().into(),
            });
        }
        for (p, seq) in events.lobby.iter().zip(lobby_seqs.by_ref()) {
            out.push(StoredEvent {
                topic: Topic::Lobby,
                seq,
                payload: p.as_str().into(),
            });
        }
    };
    let mut results: Vec<Option<Vec<StoredEvent>>> = Vec::with_capacity(batch.len());
    for (p, k) in batch.iter().zip(&kept) {
        if !k {
            results.push(None);
            continue;
        }
        let c = &p.commit;
        let mut events = vec![StoredEvent {
            topic: Topic::Game(c.game.id.clone()),
            seq: c.game.version,
            payload: c.event.as_str().into(),
        }];
        take(&c.also, &mut events);
        if let Some(s) = &c.start {
            events.push(StoredEvent {
                topic: Topic::Game(s.game.id.clone()),
                seq: s.game.version,
                payload: s.first_event.as_str().into(),
            });
            take(&s.events, &mut events);
        }
        // This node's followers get the live form of the state.
        if let Some(live) = &c.live_event {
            events[0].payload = live.as_str().into();
        }
        results.push(Some(events));
    }
    let all = results.iter().flatten().flatten();
    statements += ring_for(&mut tx, node, all.map(|e| (&e.topic, e.seq))).await?;
    tx.commit().await?;
    shared.count_tx(statements);
    Ok(results)
}

impl PgStore {
    /// Connects to the database `url` names (`postgres://user@host/db`)
    /// with a pool of `pool_size` connections (and one more for
    /// notifications), applies pending migrations, and starts listening.
    pub async fn open(url: &str, pool_size: u32) -> StoreResult<PgStore> {
        let options: PgConnectOptions = url.parse()?;
        let options = options.log_statements(tracing::log::LevelFilter::Trace);
        let pool = PgPoolOptions::new()
            .max_connections(pool_size.max(2))
            .acquire_timeout(Duration::from_secs(5))
            // sqlx pings every connection as it goes back to the pool; a
            // second ping as it comes out was a round trip per statement
            // (a fifth of a loaded node's CPU, in the loopback's send path).
            // A connection that broke while idle fails its next statement
            // instead (Unavailable, and sqlx drops it); the group writer
            // retries such a BEGIN once.
            .test_before_acquire(false)
            .connect_with(options)
            .await?;
        let node: Arc<str> = {
            let b = crate::random_bytes::<6>();
            b.iter()
                .map(|x| format!("{x:02x}"))
                .collect::<String>()
                .into()
        };
        let shared = Arc::new(Shared::new());
        let (games_tx, games_rx) = mpsc::channel(QUEUE);
        let (reads_tx, reads_rx) = mpsc::channel(QUEUE);
        let store = PgStore {
            pool: pool.clone(),
            games_tx,
            reads_tx,
            shared: shared.clone(),
            node: node.clone(),
        };
        store.migrate().await?;
        let batches = Batches {
            pool: pool.clone(),
            shared: shared.clone(),
            node: node.clone(),
            conn: tokio::sync::Mutex::new(None),
        };
        tokio::spawn(group_writer(batches, games_rx, shared.clone()));
        let listener = listener(&pool).await?;
        tokio::spawn(listen(pool.clone(), listener, reads_rx, shared, node));
        Ok(store)
    }

    async fn migrate(&self) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(MIGRATION_LOCK)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)",
        )
        .execute(&mut *tx)
        .await?;
        crate::shared::migrations::postgres::apply(&mut tx, MIGRATIONS).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Where writes go: the same pool as reads.
    pub(crate) fn writes(&self) -> &PgPool {
        &self.pool
    }

    pub(crate) async fn begin(&self) -> StoreResult<sqlx::Transaction<'static, sqlx::Postgres>> {
        Ok(self.pool.begin().await?)
    }

    /// Rings for the events, commits, counts, and publishes them here.
    pub(crate) async fn finish(
        &self,
        mut tx: sqlx::Transaction<'static, sqlx::Postgres>,
        events: Vec<StoredEvent>,
        statements: u64,
    ) -> StoreResult<()> {
        let rung = ring(&mut tx, &self.node, &events).await?;
        tx.commit().await?;
        self.shared.count_tx(statements + rung + 2);
        self.shared.publish(events);
        Ok(())
    }

    /// Locks the importer's row until the transaction ends: one importer's
    /// imports queue here, so the count of their imports holds. Returns
    /// the statements sent.
    pub(crate) async fn lock_importer(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Postgres>,
        importer: UserId,
    ) -> StoreResult<u64> {
        sqlx::query("SELECT id FROM users WHERE id = $1 FOR UPDATE")
            .bind(importer.0)
            .execute(&mut **tx)
            .await?;
        Ok(1)
    }
}

/// A listening connection of its own, LISTENing on [`CHANNEL`].
async fn listener(pool: &PgPool) -> Result<PgListener, sqlx::Error> {
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
async fn listen(
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
            })
        })
        .collect())
}

/// A notification's node and its events' topics and sequence numbers
/// (`NODE KIND KEY SEQ [KIND KEY SEQ ...]`); `None` if any part does not read.
fn parse_notification(payload: &str) -> Option<(&str, Vec<(Topic, i64)>)> {
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
    /// Runs a challenge's write in a transaction of its own: its counts
    /// and insert under the locks of the users it counts, so that
    /// concurrent requests on any number of nodes cannot pass a cap
    /// together. Nothing is stored unless it is written.
    pub(crate) async fn challenge_write(&self, work: ChallengeWork) -> StoreResult<Outcome> {
        let mut tx = self.begin().await?;
        let users = work.users_to_lock();
        lock_users(&mut tx, &users).await?;
        let (outcome, events, n) = challenge_writes::postgres::run(&mut tx, &work).await?;
        let statements = users.len() as u64 + n;
        if outcome == Outcome::Written {
            self.finish(tx, events, statements).await?;
        } else {
            // Rolled back as it drops.
            self.read(statements + 2);
        }
        Ok(outcome)
    }

    pub async fn games<'a>(&'a self, ids: &'a [GameId]) -> StoreResult<Vec<Game>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.read(1);
        let ids: Vec<&str> = ids.iter().map(GameId::as_str).collect();
        let rows = sqlx::query("SELECT * FROM games WHERE id = ANY($1)")
            .bind(ids)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(rows::game).collect()
    }

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

    pub async fn take_allowance<'a>(
        &'a self,
        keys: &'a [Allowance],
    ) -> StoreResult<Result<(), Refused>> {
        let now = crate::now_ms();
        // One lock order for every node: no deadlock between two takers.
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by(|&a, &b| keys[a].key.cmp(&keys[b].key));
        let mut tx = self.begin().await?;
        let mut rows = vec![(0, 0, 0); keys.len()];
        let mut refused: Option<Refused> = None;
        for &i in &order {
            sqlx::query(
                "INSERT INTO allowances (key, count, window_start) VALUES ($1, 0, $2)
                 ON CONFLICT (key) DO NOTHING",
            )
            .bind(&keys[i].key)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let row: AllowanceRow = sqlx::query_as(
                "SELECT count, window_start, next_allowed FROM allowances WHERE key = $1 FOR UPDATE",
            )
            .bind(&keys[i].key)
            .fetch_one(&mut *tx)
            .await?;
            match keys[i].take(Some(row), now) {
                Ok(row) => rows[i] = row,
                // The first refusal in the caller's order is the one told.
                Err(retry_ms) if refused.is_none_or(|r| i < r.index) => {
                    refused = Some(Refused { index: i, retry_ms })
                }
                Err(_) => {}
            }
        }
        if let Some(r) = refused {
            self.read(2 * keys.len() as u64 + 2);
            return Ok(Err(r));
        }
        for (a, (count, start, next)) in keys.iter().zip(rows) {
            sqlx::query(
                "UPDATE allowances SET count = $2, window_start = $3, next_allowed = $4
                 WHERE key = $1",
            )
            .bind(&a.key)
            .bind(count)
            .bind(start)
            .bind(next)
            .execute(&mut *tx)
            .await?;
        }
        self.finish(tx, Vec::new(), 3 * keys.len() as u64).await?;
        Ok(Ok(()))
    }

    pub async fn return_allowance<'a>(
        &'a self,
        forget: &'a [String],
        hand_back: &'a [String],
    ) -> StoreResult<()> {
        let mut tx = self.begin().await?;
        sqlx::query("DELETE FROM allowances WHERE key = ANY($1)")
            .bind(forget)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE allowances SET count = GREATEST(count - 1, 0) WHERE key = ANY($1)")
            .bind(hand_back)
            .execute(&mut *tx)
            .await?;
        self.finish(tx, Vec::new(), 2).await
    }

    pub async fn take_lease<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
        ttl_ms: i64,
    ) -> StoreResult<Lease> {
        let now = crate::now_ms();
        self.read(1);
        // The row the statement wrote, or else the one it found (none
        // when another node's take committed after this statement's
        // snapshot was taken: then that node holds it).
        let row: Option<(String, bool)> = sqlx::query_as(
            "WITH taken AS (
                INSERT INTO leases (key, holder, until, release) VALUES ($1, $2, $3, FALSE)
                ON CONFLICT (key) DO UPDATE
                   SET holder = EXCLUDED.holder, until = EXCLUDED.until, release = FALSE
                   WHERE leases.until < $4
                      OR (leases.holder = EXCLUDED.holder AND NOT leases.release)
                RETURNING holder)
             SELECT holder, TRUE FROM taken
             UNION ALL
             SELECT holder, FALSE FROM leases WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM taken)",
        )
        .bind(key)
        .bind(holder)
        .bind(now + ttl_ms)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        Ok(match row {
            Some((_, true)) => Lease::Taken,
            Some((by, false)) if by == holder => Lease::ReleaseAsked,
            _ => Lease::Held,
        })
    }

    pub async fn claim_computer_turn<'a>(
        &'a self,
        id: &'a GameId,
        ply: i64,
        lease_ms: i64,
    ) -> StoreResult<bool> {
        self.read(1);
        let now = crate::now_ms();
        let r = sqlx::query(
            "INSERT INTO computer_claims (game_id, ply, node, until) VALUES ($1, $2, $3, $4)
             ON CONFLICT (game_id) DO UPDATE
                SET ply = EXCLUDED.ply, node = EXCLUDED.node, until = EXCLUDED.until
                WHERE computer_claims.until < $5
                   OR computer_claims.ply <> EXCLUDED.ply
                   OR computer_claims.node = EXCLUDED.node",
        )
        .bind(id.as_str())
        .bind(ply)
        .bind(&*self.node)
        .bind(now + lease_ms)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(r.rows_affected() == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Committed, conformance};

    /// The test server: `CHESSMERGE_TEST_POSTGRES`, or the local one.
    pub(crate) fn server_url() -> String {
        std::env::var("CHESSMERGE_TEST_POSTGRES")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into())
    }

    /// A fresh database on the test server, dropped when the guard goes.
    pub(crate) struct TempDb {
        admin: String,
        name: String,
        pub(crate) url: String,
    }

    impl TempDb {
        pub(crate) async fn new(tag: &str) -> TempDb {
            let server = server_url();
            let admin = format!("{server}/postgres");
            let name = format!(
                "cm_test_{tag}_{}_{}",
                std::process::id(),
                crate::now_ms() % 1_000_000_000
            );
            let mut conn = sqlx::postgres::PgConnection::connect(&admin)
                .await
                .unwrap_or_else(|e| {
                    panic!(
                        "PostgreSQL is needed for this test and did not answer at {server} ({e}); \
                         set CHESSMERGE_TEST_POSTGRES or run scripts/test, which starts one"
                    )
                });
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                .execute(&mut conn)
                .await
                .unwrap();
            TempDb {
                url: format!("{server}/{name}"),
                admin,
                name,
            }
        }
    }

    impl Drop for TempDb {
        fn drop(&mut self) {
            let (admin, name) = (self.admin.clone(), self.name.clone());
            // Dropped from a plain thread: the test's runtime may be gone.
            let _ = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async {
                    if let Ok(mut c) = sqlx::postgres::PgConnection::connect(&admin).await {
                        let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                        )))
                        .execute(&mut c)
                        .await;
                    }
                });
            })
            .join();
        }
    }

    use sqlx::Connection;

    #[tokio::test]
    async fn conformance_suite() {
        let db = TempDb::new("conf").await;
        let s = PgStore::open(&db.url, 4).await.unwrap();
        conformance::run_all(&s.into()).await;
    }

    /// A node whose notification connection is cut tells its caches at
    /// once, and its followers to resync once it listens again.
    #[tokio::test]
    async fn a_lost_notification_connection_interrupts_then_resyncs() {
        let db = TempDb::new("listen").await;
        let s = PgStore::open(&db.url, 2).await.unwrap();
        let u = s.create_user("alice", "h", 0).await.unwrap();
        let v = s.create_user("bob", "h", 0).await.unwrap();
        let g = conformance::start_game(&s.clone().into(), "listen01", u.id, v.id).await;
        let wanted = [(Topic::Game(g.id.clone()), 1)];
        let first = |got: StoreResult<Vec<StoredEvent>>| {
            let got = got.expect("the event reads");
            assert_eq!(got.len(), 1, "{got:?}");
            (got[0].seq, got[0].payload.to_string())
        };
        let expected = (1, "{\"v\":1}".to_owned());
        // Read on the listening connection.
        assert_eq!(first(s.events(&wanted).await), expected);
        let mut feed = s.committed();
        let mut admin = sqlx::postgres::PgConnection::connect(&db.url)
            .await
            .unwrap();
        let cut: Vec<(bool,)> = sqlx::query_as(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = current_database() AND application_name = 'chessmerge listener'",
        )
        .fetch_all(&mut admin)
        .await
        .unwrap();
        assert_eq!(cut, vec![(true,)], "one listening connection");
        // A read meanwhile is answered all the same (on the dead connection
        // it fails and goes to the pool; or the new connection does it).
        assert_eq!(first(s.events(&wanted).await), expected);
        let mut seen = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), async {
            while seen.len() < 2 {
                if let m @ (Committed::Interrupted | Committed::Resync) = feed.recv().await.unwrap()
                {
                    seen.push(m);
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("only {seen:?} came"));
        assert!(
            matches!(seen[..], [Committed::Interrupted, Committed::Resync]),
            "{seen:?}"
        );
        // And on the new connection.
        assert_eq!(first(s.events(&wanted).await), expected);
    }

    /// Two nodes on one database: migrations once, each sees the other's
    /// events through the doorbell, and a computer turn is claimed once.
    #[tokio::test]
    async fn two_nodes_share_events_and_claims() {
        let db = TempDb::new("nodes").await;
        let (a, b) = tokio::join!(PgStore::open(&db.url, 4), PgStore::open(&db.url, 4));
        let (a, b) = (a.unwrap(), b.unwrap());
        let mut feed_b = b.committed();
        let u = a.create_user("alice", "h", 0).await.unwrap();
        let v = a.create_user("bob", "h", 0).await.unwrap();
        let g = conformance::start_game(&a.clone().into(), "nodes001", u.id, v.id).await;
        // b hears of the new game's first event from a, and reads it.
        let (topic, seq) = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                if let Ok(Committed::Notice { topic, seq }) = feed_b.recv().await
                    && topic == Topic::Game(g.id.clone())
                {
                    return (topic, seq);
                }
            }
        })
        .await
        .expect("node b hears of node a's commit");
        let got = b.event(&topic, seq).await.unwrap().expect("the event");
        assert_eq!((got.seq, &*got.payload), (1, "{\"v\":1}"));
        assert!(a.claim_computer_turn(&g.id, 0, 10_000).await.unwrap());
        assert!(
            a.claim_computer_turn(&g.id, 0, 10_000).await.unwrap(),
            "renewed"
        );
        assert!(!b.claim_computer_turn(&g.id, 0, 10_000).await.unwrap());
        assert!(
            b.claim_computer_turn(&g.id, 1, 10_000).await.unwrap(),
            "the next ply"
        );
        assert!(!a.claim_computer_turn(&g.id, 1, 10_000).await.unwrap());
        // A lapsed claim can be taken over.
        assert!(a.claim_computer_turn(&g.id, 2, -1).await.unwrap());
        assert!(b.claim_computer_turn(&g.id, 2, 10_000).await.unwrap());
    }

    /// A batch's doorbells: as few notifications as fit under the cap,
    /// every event in order, read back as sent.
    #[test]
    fn notifications_carry_a_batchs_events_in_order() {
        let events: Vec<(Topic, i64)> = (0..600)
            .map(|i| match i % 3 {
                0 => (Topic::Game(format!("game{i:04}").parse().unwrap()), i),
                1 => (Topic::User(UserId(i)), i * 7),
                _ => (Topic::Lobby, i + 1),
            })
            .collect();
        let payloads = notices("n1", events.iter().map(|(t, s)| (t, *s)));
        assert!(
            payloads.len() > 1 && payloads.len() < 10,
            "{}",
            payloads.len()
        );
        let mut back = Vec::new();
        for p in &payloads {
            assert!(p.len() <= NOTICE_BYTES, "{}", p.len());
            let (from, got) = parse_notification(p).expect("reads");
            assert_eq!(from, "n1");
            back.extend(got);
        }
        assert_eq!(back, events);
        assert!(notices("n1", std::iter::empty()).is_empty());
        // The one-event form of earlier nodes still reads.
        let (_, one) = parse_notification("n2 g abcd1234 7").unwrap();
        assert_eq!(one, vec![(Topic::Game("abcd1234".parse().unwrap()), 7)]);
        for bad in ["n1", "n1 g abcd1234", "n1 x k 1", "n1 u 1 2 g"] {
            assert!(parse_notification(bad).is_none(), "{bad}");
        }
    }

    /// A batch of moves of many games costs a few statements, not a few
    /// per move; another node hears of every event and reads them all,
    /// in the order asked, with one query per kind.
    #[tokio::test]
    async fn a_batch_is_a_few_statements_and_another_node_reads_it_at_once() {
        let db = TempDb::new("bulk").await;
        let (a, b) = tokio::join!(PgStore::open(&db.url, 4), PgStore::open(&db.url, 4));
        let (a, b) = (a.unwrap(), b.unwrap());
        let u = a.create_user("bulk_a", "h", 0).await.unwrap();
        let v = a.create_user("bulk_b", "h", 0).await.unwrap();
        let mut games = Vec::new();
        for i in 0..40 {
            games.push(
                conformance::start_game(&a.clone().into(), &format!("bulk{i:04}"), u.id, v.id)
                    .await,
            );
        }
        let mut feed_b = b.committed();
        let commits: Vec<GameCommit> = games
            .iter()
            .map(|g| {
                let mut next = g.clone();
                next.moves = "e2e3".into();
                next.ply = 1;
                next.version = 2;
                GameCommit {
                    game: next,
                    expected_version: 1,
                    expected_ply: 0,
                    event: format!("{{\"g\":\"{}\"}}", g.id),
                    live_event: None,
                    also: NewEvents {
                        user: vec![(v.id, format!("{{\"yourMove\":\"{}\"}}", g.id))],
                        lobby: vec![],
                    },
                    start: None,
                    ratings: Vec::new(),
                }
            })
            .collect();
        let before = a.stats();
        // Queued before the writer runs (this runtime has one thread): one batch.
        let results =
            futures_util::future::join_all(commits.into_iter().map(|c| a.commit_game(c))).await;
        assert!(results.iter().all(|r| matches!(r, Ok(true))));
        let after = a.stats();
        assert_eq!(after.game_commit_batches - before.game_commit_batches, 1);
        let statements = after.statements - before.statements;
        assert!(statements <= 8, "{statements} statements for 40 moves");
        // Node b hears of all 80 events (and maybe, late, of the games'
        // first ones, left out here).
        let mut heard = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), async {
            while heard.len() < 80 {
                if let Ok(Committed::Notice { topic, seq }) = feed_b.recv().await
                    && (seq > 1 || matches!(topic, Topic::User(_)))
                {
                    heard.push((topic, seq));
                }
            }
        })
        .await
        .expect("node b hears of every event");
        let reads = b.stats().statements;
        let mut wanted = heard.clone();
        wanted.push((Topic::Game(games[0].id.clone()), 99)); // never stored
        let got = b.events(&wanted).await.unwrap();
        assert_eq!(
            b.stats().statements - reads,
            1,
            "one read for games and users together"
        );
        let got: Vec<(Topic, i64)> = got.into_iter().map(|e| (e.topic, e.seq)).collect();
        assert_eq!(got, heard, "all found, in the order asked");
        for (i, g) in games.iter().enumerate() {
            let i = heard
                .iter()
                .position(|(t, _)| *t == Topic::Game(g.id.clone()))
                .unwrap_or_else(|| panic!("game {i} heard"));
            assert_eq!(heard[i].1, 2);
        }
        let users: Vec<i64> = heard
            .iter()
            .filter(|(t, _)| *t == Topic::User(v.id))
            .map(|(_, s)| *s)
            .collect();
        assert_eq!(users.len(), 40);
        assert!(users.windows(2).all(|w| w[0] < w[1]), "{users:?}");
    }
}
