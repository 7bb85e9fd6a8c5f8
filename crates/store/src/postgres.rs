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

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{ConnectOptions, PgConnection};
use tokio::sync::mpsc;

use super::commit::{
    Batch, BatchResult, CommitBatch, Job, NoWrites, Pending, QUEUE, Shared, group_writer, plain_run,
};
use super::rows;
use bus::{EventRead, listen, listener, ring, ring_for};

mod bus;
use super::{BoxFuture, Game, GameCommit, NewEvents, StoreError, StoreResult, StoredEvent, Topic};
use crate::model::{GameId, UserId};
use crate::shared::challenge_writes::{self, ChallengeWork, Outcome};
use crate::shared::inserts::postgres::{
    insert_challenge, insert_game_row, ratings_hold, store_rating,
};
use crate::shared::inserts::{EventRows, EventSeqs};
use crate::shared::limits::{LeaseRow, LeaseTake, bind_lease};
use crate::shared::migrations::{self, Migration, embedded};
use crate::shared::postgres_only;

/// Migrations, embedded in the binary, applied in order on start.
const MIGRATIONS: &[Migration] = embedded!("postgres";
    1 "initial" "0001_initial.sql",
    2 "login attempts" "0002_login_attempts.sql",
    3 "bots and chat" "0003_bots_and_chat.sql",
    4 "game analyses" "0004_game_analyses.sql",
    5 "token lifetimes and device cookies" "0005_token_lifetimes.sql",
    6 "ratings" "0006_ratings.sql",
    7 "takebacks, rematches and conditional moves" "0007_correspondence.sql",
    8 "user preferences" "0008_user_preferences.sql",
    9 "game imports" "0009_game_imports.sql",
    10 "shared limits: allowances and leases" "0010_shared_limits.sql",
    11 "pending challenges by age, blocks and follows" "0011_challenge_expiry_and_blocks.sql",
    12 "clocks, seeks and vacations" "0012_clocks.sql",
    13 "chat mutes and reports" "0013_chat_mutes_and_reports.sql",
);

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

/// Whether a `--database` value names PostgreSQL.
pub fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres:") || url.starts_with("postgresql:")
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
            black_rating_diff = v.black_rating_diff, clock = v.clock,
            clock_due = v.clock_due
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
            $7::text[], $8::bigint[], $9::bigint[], $10::text[], $11::bigint[], $12::text[],
            $13::text[], $14::text[], $15::bigint[], $16::bigint[], $17::bigint[],
            $18::bigint[], $19::bigint[], $20::bigint[], $21::text[], $22::bigint[])
            AS v(id, status, winner, status_reason, moves, san, fen, ply, version, draw_offer,
                updated_at, takeback_offer, rematch, forecasts, white_rating,
                white_rating_diff, black_rating, black_rating_diff, expected_version,
                expected_ply, clock, clock_due)
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
    .bind(g(&|g| g.clock.as_ref().map(super::GameClock::to_text)))
    .bind(n(&|c| c.game.clock_due()))
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
    if !ratings_hold(conn, &c.ratings).await? {
        return Ok((false, c.ratings.len() as u64));
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

/// Numbers and inserts user and lobby events under the event-order lock
/// (see the module's description: taken last in its transaction), one
/// statement per table.
pub(crate) async fn number_events(conn: &mut PgConnection, rows: &EventRows<'_>) -> EventSeqs {
    if rows.user.is_empty() && rows.lobby.is_empty() {
        return Ok((Vec::new(), Vec::new(), 0));
    }
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(EVENT_ORDER_LOCK)
        .execute(&mut *conn)
        .await?;
    let (user, lobby, n) = insert_events_bulk(conn, &rows.user, &rows.lobby, rows.now).await?;
    Ok((user, lobby, 1 + n))
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

    fn commit_batch<'a>(&'a self, batch: Batch<'a, NoWrites>) -> BoxFuture<'a, BatchResult> {
        Box::pin(self.commit(batch.games))
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
    let rows = EventRows { user, lobby, now };
    let (mut user_seqs, mut lobby_seqs, n) = number_events(&mut tx, &rows).await?;
    statements += n;
    // Each kept change's events, in the order the feed publishes them: its
    // state, its user and lobby events, then a started game's.
    let (mut user_seqs, mut lobby_seqs) = (user_seqs.drain(..), lobby_seqs.drain(..));
    let mut take = |events: &NewEvents, out: &mut Vec<StoredEvent>| {
        for ((u, p), seq) in events.user.iter().zip(user_seqs.by_ref()) {
            out.push(StoredEvent {
                topic: Topic::User(*u),
                seq,
                payload: p.as_str().into(),
                value: None,
            });
        }
        for (p, seq) in events.lobby.iter().zip(lobby_seqs.by_ref()) {
            out.push(StoredEvent {
                topic: Topic::Lobby,
                seq,
                payload: p.as_str().into(),
                value: None,
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
            value: c.live_value.clone(),
        }];
        take(&c.also, &mut events);
        if let Some(s) = &c.start {
            events.push(StoredEvent {
                topic: Topic::Game(s.game.id.clone()),
                seq: s.game.version,
                payload: s.first_event.as_str().into(),
                value: None,
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
        migrations::postgres::apply(&mut tx, MIGRATIONS).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Locks the importer's row until an import's transaction ends: one
    /// importer's imports queue there, so the count of their imports holds.
    pub(crate) const IMPORTER_LOCK: Option<&'static str> =
        Some("SELECT id FROM users WHERE id = $1 FOR UPDATE");

    /// Where writes go: the same pool as reads.
    pub(crate) fn writes(&self) -> &PgPool {
        &self.pool
    }

    pub(crate) async fn begin(&self) -> StoreResult<sqlx::Transaction<'static, sqlx::Postgres>> {
        Ok(self.pool.begin().await?)
    }

    /// Takes or renews a lease ([`LeaseTake`]) in one statement: the
    /// holder after it, and whether this take wrote it.
    pub(crate) async fn upsert_lease(&self, t: &LeaseTake<'_>) -> LeaseRow {
        self.read(1);
        // The row the statement wrote, or else the one it found (none
        // when another node's take committed after this statement's
        // snapshot was taken: then that node holds it).
        let row: Option<(String, bool)> = bind_lease!(
            sqlx::query_as(
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
            ),
            t
        )
        .fetch_optional(&self.pool)
        .await?;
        Ok(row)
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
}

postgres_only! {
    /// Claims the computer's move at `ply` of a game for this process for
    /// `lease_ms`: true when this process is to compute it (no one else
    /// holds a live claim for that ply); renewing one's own claim succeeds.
    /// A process that dies leaves a claim that lapses.
    pub async fn claim_computer_turn(
        &self,
        id: &GameId,
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
    // One process owns a SQLite database: its computer player is the only one.
    sqlite: Ok(true)
}

#[cfg(test)]
mod tests;
