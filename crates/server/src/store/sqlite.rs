//! The SQLite backend (sqlx, runtime queries, embedded migrations).

use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{Row, SqliteConnection};
use tokio::sync::{broadcast, mpsc, oneshot};

use super::{
    BoxFuture, Challenge, Committed, Game, GameCommit, NewEvents, Store, StoreError, StoreResult,
    StoreStats, StoredEvent, TokenKind, Topic, User,
};
use crate::model::{ChallengeId, ChallengeStatus, GameId, UserId, parse_color};

/// Migrations, embedded in the binary, applied in order on start.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "initial",
        include_str!("../../migrations/sqlite/0001_initial.sql"),
    ),
    (
        2,
        "lookup indexes",
        include_str!("../../migrations/sqlite/0002_lookup_indexes.sql"),
    ),
    (
        3,
        "user and lobby events, readable moves",
        include_str!("../../migrations/sqlite/0003_events_and_san.sql"),
    ),
];

/// Most game changes one transaction commits.
const MAX_BATCH: usize = 128;
/// Game changes waiting for the writer (beyond this, callers wait to queue).
const QUEUE: usize = 4096;
/// Committed events buffered for the live layer.
const FEED_CAPACITY: usize = 4096;

/// A store in one SQLite file (WAL mode, `synchronous = FULL`).
///
/// Reads share a pool; every write goes through `writer`, a pool of one
/// connection. SQLite allows one writer at a time anyway, and a writer
/// that finds the lock taken sleeps in its busy handler (1, 2, 5 ... 100
/// ms) instead of waiting its turn: queueing writes in the pool instead
/// keeps the move latency tail short under many concurrent games.
///
/// Game changes go to a group-commit task: it takes every change waiting
/// (up to [`MAX_BATCH`]), commits them in one transaction (one fsync), and
/// only then answers each caller and hands the events to the live layer.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pool: SqlitePool,
    writer: SqlitePool,
    games_tx: mpsc::Sender<Pending>,
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    feed: broadcast::Sender<Committed>,
    statements: AtomicU64,
    write_transactions: AtomicU64,
    game_commits: AtomicU64,
    game_commit_batches: AtomicU64,
}

impl Shared {
    fn count(&self, statements: u64) {
        self.statements.fetch_add(statements, Ordering::Relaxed);
    }

    fn count_tx(&self, statements: u64) {
        self.count(statements);
        self.write_transactions.fetch_add(1, Ordering::Relaxed);
    }

    fn publish(&self, events: Vec<StoredEvent>) {
        for e in events {
            // An error only means that nobody follows.
            let _ = self.feed.send(Committed::Event(e));
        }
    }
}

#[derive(Debug)]
struct Pending {
    commit: GameCommit,
    reply: oneshot::Sender<StoreResult<bool>>,
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        if let sqlx::Error::Database(db) = &e
            && db.is_unique_violation()
        {
            return StoreError::Conflict;
        }
        StoreError::Database(e.to_string())
    }
}

/// Reads a column that holds one of the model's words.
fn word<T: FromStr>(row: &SqliteRow, col: &str) -> StoreResult<T>
where
    T::Err: std::fmt::Display,
{
    let text: String = row.try_get(col)?;
    text.parse()
        .map_err(|e| StoreError::Corrupt(format!("column {col}: {e}")))
}

fn opt_color(row: &SqliteRow, col: &str) -> StoreResult<Option<crate::model::Color>> {
    let text: Option<String> = row.try_get(col)?;
    text.map(|t| parse_color(&t).map_err(|e| StoreError::Corrupt(format!("column {col}: {e}"))))
        .transpose()
}

fn opt_user(row: &SqliteRow, col: &str) -> StoreResult<Option<UserId>> {
    Ok(row.try_get::<Option<i64>, _>(col)?.map(UserId))
}

fn opt_level(row: &SqliteRow, col: &str) -> StoreResult<Option<u8>> {
    row.try_get::<Option<i64>, _>(col)?
        .map(|l| {
            u8::try_from(l)
                .ok()
                .filter(|l| (1..=8).contains(l))
                .ok_or_else(|| StoreError::Corrupt(format!("column {col}: level {l}")))
        })
        .transpose()
}

fn user_from_row(row: &SqliteRow) -> StoreResult<User> {
    Ok(User {
        id: UserId(row.try_get("id")?),
        username: row.try_get("username")?,
        password_hash: row.try_get("password_hash")?,
        created_at: row.try_get("created_at")?,
    })
}

fn challenge_from_row(row: &SqliteRow) -> StoreResult<Challenge> {
    let id: String = row.try_get("id")?;
    Ok(Challenge {
        id: id
            .parse()
            .map_err(|e| StoreError::Corrupt(format!("challenge id: {e}")))?,
        kind: word(row, "kind")?,
        challenger_id: UserId(row.try_get("challenger_id")?),
        dest_user_id: opt_user(row, "dest_user_id")?,
        variant: word(row, "variant")?,
        color: word(row, "color")?,
        initial_fen: row.try_get("initial_fen")?,
        ai_level: opt_level(row, "ai_level")?,
        status: word(row, "status")?,
        decline_reason: row.try_get("decline_reason")?,
        created_at: row.try_get("created_at")?,
    })
    .map_err(|e| corrupt_in("challenge", &id, e))
}

fn corrupt_in(what: &str, id: &str, e: StoreError) -> StoreError {
    match e {
        StoreError::Corrupt(d) => StoreError::Corrupt(format!("{what} {id}: {d}")),
        other => other,
    }
}

fn game_from_row(row: &SqliteRow) -> StoreResult<Game> {
    let id: String = row.try_get("id")?;
    let read = || -> StoreResult<Game> {
        Ok(Game {
            id: id
                .parse()
                .map_err(|e| StoreError::Corrupt(format!("id: {e}")))?,
            variant: word(row, "variant")?,
            initial_fen: row.try_get("initial_fen")?,
            white_id: opt_user(row, "white_id")?,
            black_id: opt_user(row, "black_id")?,
            ai_level: opt_level(row, "ai_level")?,
            status: word(row, "status")?,
            winner: opt_color(row, "winner")?,
            status_reason: row.try_get("status_reason")?,
            moves: row.try_get("moves")?,
            san: row.try_get("san")?,
            fen: row.try_get("fen")?,
            ply: row.try_get("ply")?,
            version: row.try_get("version")?,
            draw_offer: opt_color(row, "draw_offer")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        })
    };
    read().map_err(|e| corrupt_in("game", &id, e))
}

fn rows<T>(rows: Vec<SqliteRow>, f: fn(&SqliteRow) -> StoreResult<T>) -> StoreResult<Vec<T>> {
    rows.iter().map(f).collect()
}

async fn insert_game(
    conn: &mut SqliteConnection,
    game: &Game,
    first_event: &str,
) -> StoreResult<StoredEvent> {
    sqlx::query(
        "INSERT INTO games (id, variant, initial_fen, white_id, black_id, ai_level, status, winner,
            status_reason, moves, san, fen, ply, version, draw_offer, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(game.id.as_str())
    .bind(game.variant.id())
    .bind(&game.initial_fen)
    .bind(game.white_id.map(|u| u.0))
    .bind(game.black_id.map(|u| u.0))
    .bind(game.ai_level.map(i64::from))
    .bind(game.status.as_str())
    .bind(game.winner.map(|c| c.name()))
    .bind(&game.status_reason)
    .bind(&game.moves)
    .bind(&game.san)
    .bind(&game.fen)
    .bind(game.ply)
    .bind(game.version)
    .bind(game.draw_offer.map(|c| c.name()))
    .bind(game.created_at)
    .bind(game.updated_at)
    .execute(&mut *conn)
    .await?;
    insert_game_event(conn, &game.id, game.version, first_event).await
}

async fn insert_game_event(
    conn: &mut SqliteConnection,
    id: &GameId,
    version: i64,
    payload: &str,
) -> StoreResult<StoredEvent> {
    sqlx::query("INSERT INTO game_events (game_id, version, payload) VALUES (?, ?, ?)")
        .bind(id.as_str())
        .bind(version)
        .bind(payload)
        .execute(&mut *conn)
        .await?;
    Ok(StoredEvent {
        topic: Topic::Game(id.clone()),
        seq: version,
        payload: payload.into(),
    })
}

/// Stores user and lobby events; returns them with their sequence numbers
/// and the number of statements sent.
async fn insert_events(
    conn: &mut SqliteConnection,
    events: &NewEvents,
    now: i64,
    out: &mut Vec<StoredEvent>,
) -> StoreResult<u64> {
    for (user, payload) in &events.user {
        let (seq,): (i64,) = sqlx::query_as(
            "INSERT INTO user_events (user_id, payload, created_at) VALUES (?, ?, ?) RETURNING seq",
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
            "INSERT INTO lobby_events (payload, created_at) VALUES (?, ?) RETURNING seq",
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
    Ok((events.user.len() + events.lobby.len()) as u64)
}

async fn insert_challenge(conn: &mut SqliteConnection, c: &Challenge) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO challenges (id, kind, challenger_id, dest_user_id, variant, color, initial_fen,
            ai_level, status, decline_reason, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(c.id.as_str())
    .bind(c.kind.as_str())
    .bind(c.challenger_id.0)
    .bind(c.dest_user_id.map(|u| u.0))
    .bind(c.variant.id())
    .bind(c.color.as_str())
    .bind(&c.initial_fen)
    .bind(c.ai_level.map(i64::from))
    .bind(c.status.as_str())
    .bind(&c.decline_reason)
    .bind(c.created_at)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Applies one guarded game change inside an open transaction. `Ok(None)`
/// when the guard failed.
async fn apply_game_commit(
    conn: &mut SqliteConnection,
    c: &GameCommit,
    now: i64,
) -> StoreResult<(Option<Vec<StoredEvent>>, u64)> {
    let g = &c.game;
    debug_assert_eq!(g.version, c.expected_version + 1);
    let r = sqlx::query(
        "UPDATE games SET status = ?, winner = ?, status_reason = ?, moves = ?, san = ?, fen = ?,
            ply = ?, version = ?, draw_offer = ?, updated_at = ?
         WHERE id = ? AND version = ? AND ply = ?",
    )
    .bind(g.status.as_str())
    .bind(g.winner.map(|c| c.name()))
    .bind(&g.status_reason)
    .bind(&g.moves)
    .bind(&g.san)
    .bind(&g.fen)
    .bind(g.ply)
    .bind(g.version)
    .bind(g.draw_offer.map(|c| c.name()))
    .bind(g.updated_at)
    .bind(g.id.as_str())
    .bind(c.expected_version)
    .bind(c.expected_ply)
    .execute(&mut *conn)
    .await?;
    if r.rows_affected() != 1 {
        return Ok((None, 1));
    }
    let mut events = vec![insert_game_event(conn, &g.id, g.version, &c.event).await?];
    let n = insert_events(conn, &c.also, now, &mut events).await?;
    Ok((Some(events), 2 + n))
}

/// The group-commit task: see [`SqliteStore`].
async fn group_writer(writer: SqlitePool, mut rx: mpsc::Receiver<Pending>, shared: Arc<Shared>) {
    let mut batch: Vec<Pending> = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(p) => batch.push(p),
                Err(_) => break,
            }
        }
        match commit_batch(&writer, &batch, &shared).await {
            Ok(results) => {
                shared.game_commit_batches.fetch_add(1, Ordering::Relaxed);
                for (p, r) in batch.drain(..).zip(results) {
                    let ok = r.is_some();
                    if let Some(events) = r {
                        shared.game_commits.fetch_add(1, Ordering::Relaxed);
                        shared.publish(events);
                    }
                    let _ = p.reply.send(Ok(ok));
                }
            }
            Err(e) if batch.len() == 1 => {
                let p = batch.pop().expect("one");
                let _ = p.reply.send(Err(e));
            }
            Err(e) => {
                // One change failed the whole batch: commit each alone, so
                // that only the faulty one is refused.
                tracing::warn!(error = %e, size = batch.len(), "game batch failed; committing one by one");
                for p in batch.drain(..) {
                    let r = commit_batch(&writer, std::slice::from_ref(&p), &shared).await;
                    let answer = r.map(|mut v| {
                        let events = v.pop().flatten();
                        let ok = events.is_some();
                        if let Some(events) = events {
                            shared.game_commits.fetch_add(1, Ordering::Relaxed);
                            shared.game_commit_batches.fetch_add(1, Ordering::Relaxed);
                            shared.publish(events);
                        }
                        ok
                    });
                    let _ = p.reply.send(answer);
                }
            }
        }
    }
}

async fn commit_batch(
    writer: &SqlitePool,
    batch: &[Pending],
    shared: &Shared,
) -> StoreResult<Vec<Option<Vec<StoredEvent>>>> {
    let now = crate::now_ms();
    let mut tx = writer.begin_with("BEGIN IMMEDIATE").await?;
    let mut statements = 2; // BEGIN, COMMIT
    let mut results = Vec::with_capacity(batch.len());
    for p in batch {
        let (r, n) = apply_game_commit(&mut tx, &p.commit, now).await?;
        statements += n;
        results.push(r);
    }
    tx.commit().await?;
    shared.count_tx(statements);
    Ok(results)
}

impl SqliteStore {
    /// Opens (creating it if needed) the database named by `url`: a path, or a
    /// `sqlite:` URL. Applies pending migrations.
    pub async fn open(url: &str) -> StoreResult<SqliteStore> {
        let options = if url.starts_with("sqlite:") {
            SqliteConnectOptions::from_str(url)?
        } else {
            SqliteConnectOptions::new().filename(url)
        };
        let options = options
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // FULL: a committed move survives a power cut too, not only a crash.
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(options.clone())
            .await?;
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(options)
            .await?;
        let shared = Arc::new(Shared {
            feed: broadcast::channel(FEED_CAPACITY).0,
            statements: AtomicU64::new(0),
            write_transactions: AtomicU64::new(0),
            game_commits: AtomicU64::new(0),
            game_commit_batches: AtomicU64::new(0),
        });
        let (games_tx, games_rx) = mpsc::channel(QUEUE);
        let store = SqliteStore {
            pool,
            writer: writer.clone(),
            games_tx,
            shared: shared.clone(),
        };
        store.migrate().await?;
        store.backfill_san().await?;
        tokio::spawn(group_writer(writer, games_rx, shared));
        Ok(store)
    }

    async fn migrate(&self) -> StoreResult<()> {
        let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
        )
        .execute(&mut *tx)
        .await?;
        let done: Vec<(i64,)> = sqlx::query_as("SELECT version FROM schema_migrations")
            .fetch_all(&mut *tx)
            .await?;
        for &(version, name, sql) in MIGRATIONS {
            if done.iter().any(|&(v,)| v == version) {
                continue;
            }
            tracing::info!(version, name, "applying migration");
            sqlx::raw_sql(sql).execute(&mut *tx).await?;
            sqlx::query(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
            )
            .bind(version)
            .bind(name)
            .bind(crate::now_ms())
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Games stored before moves kept their readable notation get it once.
    async fn backfill_san(&self) -> StoreResult<()> {
        let todo: Vec<(String, String, String, String)> = sqlx::query_as(
            "SELECT id, variant, initial_fen, moves FROM games WHERE san = '' AND moves != ''",
        )
        .fetch_all(&self.writer)
        .await?;
        for (id, variant, fen, moves) in todo {
            let Some(san) = crate::games::san_of(&variant, &fen, &moves) else {
                tracing::warn!(game = %id, "cannot replay the stored moves; readable notation left empty");
                continue;
            };
            sqlx::query("UPDATE games SET san = ? WHERE id = ?")
                .bind(san)
                .bind(&id)
                .execute(&self.writer)
                .await?;
        }
        Ok(())
    }

    async fn begin(&self) -> StoreResult<sqlx::Transaction<'static, sqlx::Sqlite>> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// Commits a write transaction, counts its statements, and only then
    /// publishes its events.
    async fn finish(
        &self,
        tx: sqlx::Transaction<'static, sqlx::Sqlite>,
        events: Vec<StoredEvent>,
        statements: u64,
    ) -> StoreResult<()> {
        tx.commit().await?;
        self.shared.count_tx(statements + 2);
        self.shared.publish(events);
        Ok(())
    }

    fn read(&self, statements: u64) {
        self.shared.count(statements);
    }
}

impl Store for SqliteStore {
    fn create_user<'a>(
        &'a self,
        username: &'a str,
        password_hash: &'a str,
        now: i64,
    ) -> BoxFuture<'a, StoreResult<User>> {
        Box::pin(async move {
            self.read(1);
            let id: (i64,) = sqlx::query_as(
                "INSERT INTO users (username, username_key, password_hash, created_at)
                 VALUES (?, ?, ?, ?) RETURNING id",
            )
            .bind(username)
            .bind(username.to_lowercase())
            .bind(password_hash)
            .bind(now)
            .fetch_one(&self.writer)
            .await?;
            Ok(User {
                id: UserId(id.0),
                username: username.to_owned(),
                password_hash: password_hash.to_owned(),
                created_at: now,
            })
        })
    }

    fn user_by_name<'a>(&'a self, username: &'a str) -> BoxFuture<'a, StoreResult<Option<User>>> {
        Box::pin(async move {
            self.read(1);
            let row = sqlx::query(
                "SELECT id, username, password_hash, created_at FROM users WHERE username_key = ?",
            )
            .bind(username.to_lowercase())
            .fetch_optional(&self.pool)
            .await?;
            row.as_ref().map(user_from_row).transpose()
        })
    }

    fn user_by_id(&self, id: UserId) -> BoxFuture<'_, StoreResult<Option<User>>> {
        Box::pin(async move {
            self.read(1);
            let row = sqlx::query(
                "SELECT id, username, password_hash, created_at FROM users WHERE id = ?",
            )
            .bind(id.0)
            .fetch_optional(&self.pool)
            .await?;
            row.as_ref().map(user_from_row).transpose()
        })
    }

    fn create_token<'a>(
        &'a self,
        token_hash: &'a str,
        user_id: UserId,
        kind: TokenKind,
        now: i64,
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            self.read(1);
            sqlx::query(
                "INSERT INTO tokens (token_hash, user_id, kind, created_at) VALUES (?, ?, ?, ?)",
            )
            .bind(token_hash)
            .bind(user_id.0)
            .bind(kind.as_str())
            .bind(now)
            .execute(&self.writer)
            .await?;
            Ok(())
        })
    }

    fn user_by_token<'a>(
        &'a self,
        token_hash: &'a str,
        kind: TokenKind,
    ) -> BoxFuture<'a, StoreResult<Option<User>>> {
        Box::pin(async move {
            self.read(1);
            let row = sqlx::query(
                "SELECT u.id, u.username, u.password_hash, u.created_at
                 FROM tokens t JOIN users u ON u.id = t.user_id
                 WHERE t.token_hash = ? AND t.kind = ?",
            )
            .bind(token_hash)
            .bind(kind.as_str())
            .fetch_optional(&self.pool)
            .await?;
            row.as_ref().map(user_from_row).transpose()
        })
    }

    fn delete_token<'a>(&'a self, token_hash: &'a str) -> BoxFuture<'a, StoreResult<bool>> {
        Box::pin(async move {
            self.read(1);
            let r = sqlx::query("DELETE FROM tokens WHERE token_hash = ?")
                .bind(token_hash)
                .execute(&self.writer)
                .await?;
            Ok(r.rows_affected() > 0)
        })
    }

    fn create_challenge<'a>(
        &'a self,
        challenge: &'a Challenge,
        events: &'a NewEvents,
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            let mut tx = self.begin().await?;
            let mut out = Vec::new();
            insert_challenge(&mut tx, challenge).await?;
            let n = insert_events(&mut tx, events, challenge.created_at, &mut out).await?;
            self.finish(tx, out, 1 + n).await
        })
    }

    fn challenge<'a>(
        &'a self,
        id: &'a ChallengeId,
    ) -> BoxFuture<'a, StoreResult<Option<Challenge>>> {
        Box::pin(async move {
            self.read(1);
            let row = sqlx::query("SELECT * FROM challenges WHERE id = ?")
                .bind(id.as_str())
                .fetch_optional(&self.pool)
                .await?;
            row.as_ref().map(challenge_from_row).transpose()
        })
    }

    fn pending_challenges(
        &self,
        user_id: UserId,
    ) -> BoxFuture<'_, StoreResult<(Vec<Challenge>, Vec<Challenge>)>> {
        Box::pin(async move {
            self.read(2);
            let incoming = sqlx::query(
                "SELECT * FROM challenges WHERE dest_user_id = ? AND status = 'created'
                 ORDER BY created_at, id",
            )
            .bind(user_id.0)
            .fetch_all(&self.pool)
            .await?;
            let outgoing = sqlx::query(
                "SELECT * FROM challenges WHERE challenger_id = ? AND status = 'created'
                 ORDER BY created_at, id",
            )
            .bind(user_id.0)
            .fetch_all(&self.pool)
            .await?;
            Ok((
                rows(incoming, challenge_from_row)?,
                rows(outgoing, challenge_from_row)?,
            ))
        })
    }

    fn open_challenges(&self, limit: i64) -> BoxFuture<'_, StoreResult<Vec<Challenge>>> {
        Box::pin(async move {
            self.read(1);
            let r = sqlx::query(
                "SELECT * FROM challenges WHERE kind = 'open' AND status = 'created'
                 ORDER BY created_at DESC, rowid DESC LIMIT ?",
            )
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
            rows(r, challenge_from_row)
        })
    }

    fn close_challenge<'a>(
        &'a self,
        id: &'a ChallengeId,
        status: ChallengeStatus,
        reason: Option<&'a str>,
        events: &'a NewEvents,
    ) -> BoxFuture<'a, StoreResult<bool>> {
        Box::pin(async move {
            let mut tx = self.begin().await?;
            let mut out = Vec::new();
            let r = sqlx::query(
                "UPDATE challenges SET status = ?, decline_reason = ?
                 WHERE id = ? AND status = 'created'",
            )
            .bind(status.as_str())
            .bind(reason)
            .bind(id.as_str())
            .execute(&mut *tx)
            .await?;
            if r.rows_affected() != 1 {
                self.read(3);
                return Ok(false);
            }
            let n = insert_events(&mut tx, events, crate::now_ms(), &mut out).await?;
            self.finish(tx, out, 1 + n).await?;
            Ok(true)
        })
    }

    fn accept_challenge<'a>(
        &'a self,
        id: &'a ChallengeId,
        accepted_by: UserId,
        game: &'a Game,
        first_event: &'a str,
        events: &'a NewEvents,
    ) -> BoxFuture<'a, StoreResult<bool>> {
        Box::pin(async move {
            let mut tx = self.begin().await?;
            let mut out = Vec::new();
            let r = sqlx::query(
                "UPDATE challenges SET status = 'accepted', dest_user_id = ?
                 WHERE id = ? AND status = 'created'",
            )
            .bind(accepted_by.0)
            .bind(id.as_str())
            .execute(&mut *tx)
            .await?;
            if r.rows_affected() != 1 {
                self.read(3);
                return Ok(false);
            }
            out.push(insert_game(&mut tx, game, first_event).await?);
            let n = insert_events(&mut tx, events, game.created_at, &mut out).await?;
            self.finish(tx, out, 3 + n).await?;
            Ok(true)
        })
    }

    fn create_accepted<'a>(
        &'a self,
        challenge: &'a Challenge,
        game: &'a Game,
        first_event: &'a str,
        events: &'a NewEvents,
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            let mut tx = self.begin().await?;
            let mut out = Vec::new();
            insert_challenge(&mut tx, challenge).await?;
            out.push(insert_game(&mut tx, game, first_event).await?);
            let n = insert_events(&mut tx, events, game.created_at, &mut out).await?;
            self.finish(tx, out, 3 + n).await
        })
    }

    fn game<'a>(&'a self, id: &'a GameId) -> BoxFuture<'a, StoreResult<Option<Game>>> {
        Box::pin(async move {
            self.read(1);
            let row = sqlx::query("SELECT * FROM games WHERE id = ?")
                .bind(id.as_str())
                .fetch_optional(&self.pool)
                .await?;
            row.as_ref().map(game_from_row).transpose()
        })
    }

    fn commit_game(&self, commit: GameCommit) -> BoxFuture<'_, StoreResult<bool>> {
        Box::pin(async move {
            let (reply, answer) = oneshot::channel();
            self.games_tx
                .send(Pending { commit, reply })
                .await
                .map_err(|_| StoreError::Database("the writer has stopped".into()))?;
            answer
                .await
                .map_err(|_| StoreError::Database("the writer has stopped".into()))?
        })
    }

    fn game_events_since<'a>(
        &'a self,
        id: &'a GameId,
        after: i64,
    ) -> BoxFuture<'a, StoreResult<Vec<StoredEvent>>> {
        Box::pin(async move {
            self.read(1);
            let rows: Vec<(i64, String)> = sqlx::query_as(
                "SELECT version, payload FROM game_events WHERE game_id = ? AND version > ?
                 ORDER BY version",
            )
            .bind(id.as_str())
            .bind(after)
            .fetch_all(&self.pool)
            .await?;
            Ok(rows
                .into_iter()
                .map(|(seq, payload)| StoredEvent {
                    topic: Topic::Game(id.clone()),
                    seq,
                    payload: payload.into(),
                })
                .collect())
        })
    }

    fn user_events_since(
        &self,
        user_id: UserId,
        after: i64,
    ) -> BoxFuture<'_, StoreResult<Vec<StoredEvent>>> {
        Box::pin(async move {
            self.read(1);
            let rows: Vec<(i64, String)> = sqlx::query_as(
                "SELECT seq, payload FROM user_events WHERE user_id = ? AND seq > ? ORDER BY seq",
            )
            .bind(user_id.0)
            .bind(after)
            .fetch_all(&self.pool)
            .await?;
            Ok(rows
                .into_iter()
                .map(|(seq, payload)| StoredEvent {
                    topic: Topic::User(user_id),
                    seq,
                    payload: payload.into(),
                })
                .collect())
        })
    }

    fn lobby_events_since(&self, after: i64) -> BoxFuture<'_, StoreResult<Vec<StoredEvent>>> {
        Box::pin(async move {
            self.read(1);
            let rows: Vec<(i64, String)> = sqlx::query_as(
                "SELECT seq, payload FROM lobby_events WHERE seq > ? ORDER BY seq LIMIT 1000",
            )
            .bind(after)
            .fetch_all(&self.pool)
            .await?;
            Ok(rows
                .into_iter()
                .map(|(seq, payload)| StoredEvent {
                    topic: Topic::Lobby,
                    seq,
                    payload: payload.into(),
                })
                .collect())
        })
    }

    fn event_heads(&self) -> BoxFuture<'_, StoreResult<(i64, i64)>> {
        Box::pin(async move {
            self.read(1);
            let heads: (i64, i64) = sqlx::query_as(
                "SELECT (SELECT COALESCE(MAX(seq), 0) FROM user_events),
                        (SELECT COALESCE(MAX(seq), 0) FROM lobby_events)",
            )
            .fetch_one(&self.pool)
            .await?;
            Ok(heads)
        })
    }

    fn ongoing_games(&self, user_id: UserId) -> BoxFuture<'_, StoreResult<Vec<Game>>> {
        Box::pin(async move {
            self.read(1);
            let r = sqlx::query(
                "SELECT * FROM games WHERE status = 'started' AND (white_id = ? OR black_id = ?)
                 ORDER BY updated_at DESC, id",
            )
            .bind(user_id.0)
            .bind(user_id.0)
            .fetch_all(&self.pool)
            .await?;
            rows(r, game_from_row)
        })
    }

    fn finished_games(&self, user_id: UserId, limit: i64) -> BoxFuture<'_, StoreResult<Vec<Game>>> {
        Box::pin(async move {
            self.read(1);
            let r = sqlx::query(
                "SELECT * FROM games WHERE status NOT IN ('created', 'started')
                    AND (white_id = ? OR black_id = ?)
                 ORDER BY updated_at DESC, rowid DESC LIMIT ?",
            )
            .bind(user_id.0)
            .bind(user_id.0)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
            rows(r, game_from_row)
        })
    }

    fn ongoing_ai_games(&self) -> BoxFuture<'_, StoreResult<Vec<Game>>> {
        Box::pin(async move {
            self.read(1);
            let r = sqlx::query(
                "SELECT * FROM games WHERE status = 'started' AND ai_level IS NOT NULL ORDER BY id",
            )
            .fetch_all(&self.pool)
            .await?;
            rows(r, game_from_row)
        })
    }

    fn prune_events(&self, max_age_ms: i64) -> BoxFuture<'_, StoreResult<u64>> {
        Box::pin(async move {
            let before = crate::now_ms() - max_age_ms;
            let mut tx = self.begin().await?;
            let a = sqlx::query("DELETE FROM user_events WHERE created_at < ?")
                .bind(before)
                .execute(&mut *tx)
                .await?;
            let b = sqlx::query("DELETE FROM lobby_events WHERE created_at < ?")
                .bind(before)
                .execute(&mut *tx)
                .await?;
            self.finish(tx, Vec::new(), 2).await?;
            Ok(a.rows_affected() + b.rows_affected())
        })
    }

    fn committed(&self) -> broadcast::Receiver<Committed> {
        self.shared.feed.subscribe()
    }

    fn stats(&self) -> StoreStats {
        let s = &self.shared;
        StoreStats {
            statements: s.statements.load(Ordering::Relaxed),
            write_transactions: s.write_transactions.load(Ordering::Relaxed),
            game_commits: s.game_commits.load(Ordering::Relaxed),
            game_commit_batches: s.game_commit_batches.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::conformance;

    async fn open(name: &str) -> (SqliteStore, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "chessmerge-store-{}-{}-{}",
            name,
            std::process::id(),
            crate::now_ms()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("test.db");
        (
            SqliteStore::open(path.to_str().unwrap()).await.unwrap(),
            dir,
        )
    }

    /// The lobby's and the start-up's queries use their indexes (SQLite's
    /// plan says `USING INDEX`, not `SCAN challenges`/`SCAN games`).
    #[tokio::test]
    async fn lookups_use_their_indexes() {
        let (s, dir) = open("plans").await;
        for (sql, index) in [
            (
                "EXPLAIN QUERY PLAN SELECT * FROM challenges WHERE kind = 'open' AND status = 'created'
                 ORDER BY created_at DESC, rowid DESC LIMIT 50",
                "challenges_open",
            ),
            (
                "EXPLAIN QUERY PLAN SELECT * FROM games WHERE status = 'started' AND ai_level IS NOT NULL ORDER BY id",
                "games_ai_ongoing",
            ),
            (
                "EXPLAIN QUERY PLAN SELECT seq, payload FROM user_events WHERE user_id = 1 AND seq > 5 ORDER BY seq",
                "user_events_user",
            ),
        ] {
            let rows: Vec<(i64, i64, i64, String)> =
                sqlx::query_as(sql).fetch_all(&s.pool).await.unwrap();
            let plan: Vec<&str> = rows.iter().map(|r| r.3.as_str()).collect();
            assert!(
                plan.iter().any(|d| d.contains(index)),
                "{sql}: plan {plan:?} does not use {index}"
            );
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn reopening_keeps_the_data_and_runs_no_migration_twice() {
        let (s, dir) = open("reopen").await;
        let path = dir.join("test.db");
        s.create_user("Alice", "hash", 5).await.unwrap();
        drop(s);
        let s = SqliteStore::open(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        assert!(s.user_by_name("alice").await.unwrap().is_some());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn a_corrupt_row_is_an_error_naming_the_row() {
        let (s, dir) = open("corrupt").await;
        let a = s.create_user("a1", "h", 0).await.unwrap();
        let b = s.create_user("b1", "h", 0).await.unwrap();
        conformance::start_game(&s, "corrupt1", a.id, b.id).await;
        sqlx::query("UPDATE games SET status = 'finished' WHERE id = 'corrupt1'")
            .execute(&s.writer)
            .await
            .unwrap();
        let e = s.game(&"corrupt1".parse().unwrap()).await.unwrap_err();
        assert!(
            matches!(&e, StoreError::Corrupt(d) if d.contains("corrupt1") && d.contains("status")),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn conformance_suite() {
        let (s, dir) = open("conformance").await;
        conformance::run_all(&s).await;
        let _ = std::fs::remove_dir_all(dir);
    }
}
