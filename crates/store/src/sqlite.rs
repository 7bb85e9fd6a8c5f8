//! The SQLite backend (sqlx, runtime queries, embedded migrations).

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::SqliteConnection;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use tokio::sync::mpsc;

use super::commit::{
    Batch, BatchResult, CommitBatch, Job, Pending, QUEUE, Shared, plain_run, spawn_group_writer,
};
use writes::ChallengeWrite;

use crate::shared::challenge_writes::{ChallengeWork, Outcome};
use crate::shared::limits::{LeaseRow, LeaseTake, bind_lease};
use crate::shared::migrations::{self, Migration, embedded};

mod writes;

use super::{BoxFuture, GameCommit, StoreError, StoreResult, StoredEvent, Topic};
use crate::model::UserId;
use crate::shared::inserts::sqlite::{
    insert_challenge, insert_events, insert_game, ratings_hold, store_rating,
};
use crate::shared::inserts::{EventRows, EventSeqs};

/// Migrations, embedded in the binary, applied in order on start.
const MIGRATIONS: &[Migration] = embedded!("sqlite";
    1 "initial" "0001_initial.sql",
    2 "lookup indexes" "0002_lookup_indexes.sql",
    3 "user and lobby events, readable moves" "0003_events_and_san.sql",
    4 "login attempts" "0004_login_attempts.sql",
    5 "bots and chat" "0005_bots_and_chat.sql",
    6 "game analyses" "0006_game_analyses.sql",
    7 "token lifetimes and device cookies" "0007_token_lifetimes.sql",
    8 "ratings" "0008_ratings.sql",
    9 "takebacks, rematches and conditional moves" "0009_correspondence.sql",
    10 "user preferences" "0010_user_preferences.sql",
    11 "game imports" "0011_game_imports.sql",
    12 "shared limits: allowances and leases" "0012_shared_limits.sql",
    13 "game events in a table with row ids" "0013_game_events_by_rowid.sql",
    14 "pending challenges by age, blocks and follows" "0014_challenge_expiry_and_blocks.sql",
    15 "clocks, seeks and vacations" "0015_clocks.sql",
    16 "chat mutes and reports" "0016_chat_mutes_and_reports.sql",
);

/// A store in one SQLite file (WAL mode, `synchronous = FULL`).
///
/// Reads share a pool; every write goes through `writer`, a pool of one
/// connection. SQLite allows one writer at a time anyway, and a writer
/// that finds the lock taken sleeps in its busy handler (1, 2, 5 ... 100
/// ms) instead of waiting its turn: queueing writes in the pool instead
/// keeps the move latency tail short under many concurrent games.
///
/// Game changes go to a group-commit task on a thread of its own: it takes
/// every change waiting (up to `commit::MAX_BATCH`), commits them in one
/// transaction (one fsync, a few statements: [`apply_plain_commits`]), and
/// only then answers each caller and hands the events to the live layer.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    /// Reads.
    pub(crate) pool: SqlitePool,
    /// Writes: one connection.
    writer: SqlitePool,
    /// The group writer's queue: game changes, and the writes that start
    /// and end challenges ([`writes`]).
    pub(crate) games_tx: mpsc::Sender<Job<ChallengeWrite>>,
    pub(crate) shared: Arc<Shared>,
}

/// Writes game events (game, version, payload) with one statement per
/// [`EVENTS_PER_INSERT`]: a batch's moves cost one round trip to SQLite's
/// thread, not one each. Each statement's rows are padded to
/// [`padded_rows`] (rows of NULLs, left out by the `WHERE`). Returns the
/// statements sent.
async fn insert_game_events(
    conn: &mut SqliteConnection,
    events: &[(&str, i64, &str)],
) -> StoreResult<u64> {
    let mut statements = 0;
    for chunk in events.chunks(EVENTS_PER_INSERT) {
        let mut q = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
            "INSERT INTO game_events (game_id, version, payload) \
             SELECT column1, column2, column3 FROM (",
        );
        push_padded_values(
            &mut q,
            chunk,
            3,
            false,
            |mut row, (id, version, payload)| {
                row.push_bind(*id).push_bind(*version).push_bind(*payload);
            },
        );
        q.push(") WHERE column1 IS NOT NULL");
        q.build().execute(&mut *conn).await?;
        statements += 1;
    }
    Ok(statements)
}

/// Rows of one multi-row `INSERT` (three bound values each, well under
/// SQLite's limit of 32,766).
const EVENTS_PER_INSERT: usize = 256;

/// How many rows a multi-row statement of `n` rows is written with: `n`
/// rounded up to a power of two. Each row count is another SQL text, and
/// sqlx prepares a text it has not kept in its statement cache (100
/// statements): with a batch's own row counts the texts kept changing, and
/// preparing them (parsing thousands of placeholders) was 4.6% of a loaded
/// server's samples. Rounded, a kind of statement has at most nine texts.
fn padded_rows(n: usize) -> usize {
    n.next_power_of_two()
}

/// Pushes `VALUES` for `rows` (each of `width` values, bound by `bind`)
/// and then padding rows of `width` NULLs up to [`padded_rows`], for the
/// statement to leave out. With `indexed`, every row starts with its index
/// (0, 1, ...) as a literal, for an `ORDER BY` that keeps the rows' order.
fn push_padded_values<'r, T>(
    q: &mut sqlx::QueryBuilder<sqlx::Sqlite>,
    rows: &'r [T],
    width: usize,
    indexed: bool,
    mut bind: impl FnMut(sqlx::query_builder::Separated<'_, sqlx::Sqlite, &'static str>, &'r T),
) {
    let pad = padded_rows(rows.len()) - rows.len();
    let padded = rows.iter().map(Some).chain(std::iter::repeat_n(None, pad));
    q.push_values(padded.enumerate(), |mut row, (index, r)| {
        if indexed {
            row.push(index);
        }
        match r {
            Some(r) => bind(row, r),
            None => {
                for _ in 0..width {
                    row.push_bind(None::<i64>);
                }
            }
        }
    });
}

/// Applies one guarded game change inside an open transaction, all but
/// its game event's row (the caller writes those of a batch together).
/// `Ok(None)` when the guard failed.
async fn apply_game_commit(
    conn: &mut SqliteConnection,
    c: &GameCommit,
    now: i64,
) -> StoreResult<(Option<Vec<StoredEvent>>, u64)> {
    let g = &c.game;
    debug_assert_eq!(g.version, c.expected_version + 1);
    if !ratings_hold(conn, &c.ratings).await? {
        return Ok((None, c.ratings.len() as u64));
    }
    let r = sqlx::query(
        "UPDATE games SET status = ?, winner = ?, status_reason = ?, moves = ?, san = ?, fen = ?,
            ply = ?, version = ?, draw_offer = ?, updated_at = ?, takeback_offer = ?, rematch = ?,
            forecasts = ?, white_rating = ?, white_rating_diff = ?, black_rating = ?,
            black_rating_diff = ?, clock = ?, clock_due = ?
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
    .bind(g.takeback_offer.map(|c| c.name()))
    .bind(g.rematch.as_ref().map(super::Rematch::to_text))
    .bind(super::forecasts_text(&g.forecasts))
    .bind(g.white_rating.map(|r| r.rating))
    .bind(g.white_rating.map(|r| r.diff))
    .bind(g.black_rating.map(|r| r.rating))
    .bind(g.black_rating.map(|r| r.diff))
    .bind(g.clock.as_ref().map(super::GameClock::to_text))
    .bind(g.clock_due())
    .bind(g.id.as_str())
    .bind(c.expected_version)
    .bind(c.expected_ply)
    .execute(&mut *conn)
    .await?;
    if r.rows_affected() != 1 {
        return Ok((None, 1 + c.ratings.len() as u64));
    }
    for r in &c.ratings {
        store_rating(conn, r, &g.id, now).await?;
    }
    // The game's event row is written with the batch's others
    // ([`insert_game_events`]); followers get the live form.
    let mut events = vec![StoredEvent {
        topic: Topic::Game(g.id.clone()),
        seq: g.version,
        payload: c.live_event.as_deref().unwrap_or(&c.event).into(),
        value: c.live_value.clone(),
    }];
    let mut n = insert_events(conn, &c.also, now, &mut events).await?;
    if let Some(s) = &c.start {
        // A game started by this change (a rematch): in the same transaction.
        insert_challenge(conn, &s.challenge).await?;
        events.push(insert_game(conn, &s.game, &s.first_event).await?);
        n += 2 + insert_events(conn, &s.events, now, &mut events).await?;
    }
    Ok((Some(events), 1 + n + 3 * c.ratings.len() as u64))
}

/// Commits game batches on the writer.
struct Batches {
    writer: SqlitePool,
    shared: Arc<Shared>,
}

impl CommitBatch for Batches {
    type Write = ChallengeWrite;

    fn commit_batch<'a>(&'a self, batch: Batch<'a, ChallengeWrite>) -> BoxFuture<'a, BatchResult> {
        Box::pin(commit_batch(&self.writer, batch, &self.shared))
    }
}

async fn commit_batch(
    writer: &SqlitePool,
    Batch {
        games: batch,
        writes,
    }: Batch<'_, ChallengeWrite>,
    shared: &Shared,
) -> BatchResult {
    let now = crate::now_ms();
    let mut tx = writer.begin_with("BEGIN IMMEDIATE").await?;
    let mut statements = 2; // BEGIN, COMMIT
    // The writes first, so that their events come first (they are
    // answered first).
    let savepoints = batch.len() + writes.len() > 1;
    statements += writes::run_writes(&mut tx, writes, savepoints).await?;
    let mut results = Vec::with_capacity(batch.len());
    let mut rest = batch;
    while let Some(first) = rest.first() {
        let plain = plain_run(rest);
        if plain == 0 {
            let (r, n) = apply_game_commit(&mut tx, &first.commit, now).await?;
            statements += n;
            results.push(r);
            rest = &rest[1..];
        } else {
            statements += apply_plain_commits(&mut tx, &rest[..plain], now, &mut results).await?;
            rest = &rest[plain..];
        }
    }
    let states: Vec<(&str, i64, &str)> = batch
        .iter()
        .zip(&results)
        .filter(|(_, r)| r.is_some())
        .map(|(p, _)| {
            let c = &p.commit;
            (c.game.id.as_str(), c.game.version, c.event.as_str())
        })
        .collect();
    statements += insert_game_events(&mut tx, &states).await?;
    tx.commit().await?;
    shared.count_tx(statements);
    Ok(results)
}

/// Applies plain changes of distinct games (see [`super::commit::plain_run`]) with one
/// guarded `UPDATE ... FROM (VALUES ...)` and one `INSERT` per event table,
/// instead of a statement or two per change: each statement is a round
/// trip to sqlx's connection thread. Pushes each change's result in order
/// (`None` where its guard refused it) and returns the statements sent.
async fn apply_plain_commits(
    conn: &mut SqliteConnection,
    changes: &[Pending],
    now: i64,
    results: &mut Vec<Option<Vec<StoredEvent>>>,
) -> StoreResult<u64> {
    let mut q = sqlx::QueryBuilder::<sqlx::Sqlite>::new(
        "WITH v(id, expected_version, expected_ply, status, winner, status_reason, moves, san,
            fen, ply, version, draw_offer, updated_at, takeback_offer, rematch, forecasts,
            white_rating, white_rating_diff, black_rating, black_rating_diff, clock,
            clock_due) AS (",
    );
    // Padded: a row of NULLs has no `id` to match.
    push_padded_values(
        &mut q,
        changes,
        PLAIN_COMMIT_COLUMNS,
        false,
        |mut row, p| {
            let (c, g) = (&p.commit, &p.commit.game);
            debug_assert_eq!(g.version, c.expected_version + 1);
            row.push_bind(g.id.as_str())
                .push_bind(c.expected_version)
                .push_bind(c.expected_ply)
                .push_bind(g.status.as_str())
                .push_bind(g.winner.map(|c| c.name()))
                .push_bind(g.status_reason.as_deref())
                .push_bind(g.moves.as_str())
                .push_bind(g.san.as_str())
                .push_bind(g.fen.as_str())
                .push_bind(g.ply)
                .push_bind(g.version)
                .push_bind(g.draw_offer.map(|c| c.name()))
                .push_bind(g.updated_at)
                .push_bind(g.takeback_offer.map(|c| c.name()))
                .push_bind(g.rematch.as_ref().map(super::Rematch::to_text))
                .push_bind(super::forecasts_text(&g.forecasts))
                .push_bind(g.white_rating.map(|r| r.rating))
                .push_bind(g.white_rating.map(|r| r.diff))
                .push_bind(g.black_rating.map(|r| r.rating))
                .push_bind(g.black_rating.map(|r| r.diff))
                .push_bind(g.clock.as_ref().map(super::GameClock::to_text))
                .push_bind(g.clock_due());
        },
    );
    q.push(
        ") UPDATE games SET status = v.status, winner = v.winner, status_reason = v.status_reason,
            moves = v.moves, san = v.san, fen = v.fen, ply = v.ply, version = v.version,
            draw_offer = v.draw_offer, updated_at = v.updated_at,
            takeback_offer = v.takeback_offer, rematch = v.rematch, forecasts = v.forecasts,
            white_rating = v.white_rating, white_rating_diff = v.white_rating_diff,
            black_rating = v.black_rating, black_rating_diff = v.black_rating_diff,
            clock = v.clock, clock_due = v.clock_due
         FROM v
         WHERE games.id = v.id AND games.version = v.expected_version AND games.ply = v.expected_ply
         RETURNING games.id",
    );
    let updated: Vec<(String,)> = q.build_query_as().fetch_all(&mut *conn).await?;
    let updated: std::collections::HashSet<String> = updated.into_iter().map(|r| r.0).collect();
    let mut statements = 1;

    let stored: Vec<&GameCommit> = changes
        .iter()
        .map(|p| &p.commit)
        .filter(|c| updated.contains(c.game.id.as_str()))
        .collect();
    let users: Vec<(UserId, &str)> = stored
        .iter()
        .flat_map(|c| c.also.user.iter().map(|(u, e)| (*u, e.as_str())))
        .collect();
    let lobby: Vec<&str> = stored
        .iter()
        .flat_map(|c| c.also.lobby.iter().map(String::as_str))
        .collect();
    let (mut user_seq, n) = insert_user_events(conn, &users, now).await?;
    statements += n;
    let (mut lobby_seq, n) = insert_lobby_events(conn, &lobby, now).await?;
    statements += n;

    for p in changes {
        let c = &p.commit;
        if !updated.contains(c.game.id.as_str()) {
            results.push(None);
            continue;
        }
        let mut events = Vec::with_capacity(1 + c.also.user.len() + c.also.lobby.len());
        // Followers get the live form; the stored one is written with the
        // batch's other game events ([`insert_game_events`]).
        events.push(StoredEvent {
            topic: Topic::Game(c.game.id.clone()),
            seq: c.game.version,
            payload: c.live_event.as_deref().unwrap_or(&c.event).into(),
            value: c.live_value.clone(),
        });
        for (user, payload) in &c.also.user {
            events.push(StoredEvent {
                topic: Topic::User(*user),
                seq: user_seq.next().expect("a sequence number per user event"),
                payload: payload.as_str().into(),
                value: None,
            });
        }
        for payload in &c.also.lobby {
            events.push(StoredEvent {
                topic: Topic::Lobby,
                seq: lobby_seq.next().expect("a sequence number per lobby event"),
                payload: payload.as_str().into(),
                value: None,
            });
        }
        results.push(Some(events));
    }
    Ok(statements)
}

/// The values of a row of [`apply_plain_commits`]' `v`.
const PLAIN_COMMIT_COLUMNS: usize = 22;

/// Numbers and inserts user and lobby events: a multi-row `INSERT` per
/// table ([`insert_user_events`]).
pub(crate) async fn number_events(conn: &mut SqliteConnection, rows: &EventRows<'_>) -> EventSeqs {
    let (user, a) = insert_user_events(conn, &rows.user, rows.now).await?;
    let (lobby, b) = insert_lobby_events(conn, &rows.lobby, rows.now).await?;
    Ok((user.collect(), lobby.collect(), a + b))
}

/// Inserts user events with one statement per [`EVENTS_PER_INSERT`] rows;
/// returns their sequence numbers in order, and the statements sent.
async fn insert_user_events(
    conn: &mut SqliteConnection,
    events: &[(UserId, &str)],
    now: i64,
) -> StoreResult<(std::ops::Range<i64>, u64)> {
    insert_numbered(
        conn,
        "user_events",
        "user_id, payload, created_at",
        events,
        |mut row, (u, e)| {
            row.push_bind(u.0).push_bind(*e).push_bind(now);
        },
    )
    .await
}

/// Inserts lobby events as [`insert_user_events`] does user events.
async fn insert_lobby_events(
    conn: &mut SqliteConnection,
    events: &[&str],
    now: i64,
) -> StoreResult<(std::ops::Range<i64>, u64)> {
    insert_numbered(
        conn,
        "lobby_events",
        "payload, created_at",
        events,
        |mut row, e| {
            row.push_bind(*e).push_bind(now);
        },
    )
    .await
}

/// Inserts rows into an event table whose `seq` is `INTEGER PRIMARY KEY
/// AUTOINCREMENT`, and returns the rows' sequence numbers in the order
/// given. `columns` lists the columns that `bind` binds a row's values of. Each statement's rows are padded to [`padded_rows`] (rows
/// of NULLs, left out by the `WHERE`) and inserted in the order of their
/// index (the `ORDER BY`); this connection is the only writer inside its
/// transaction, so each row gets the number after the last: the
/// statement's rows are the `rows_affected` numbers ending at
/// `last_insert_rowid`.
async fn insert_numbered<T>(
    conn: &mut SqliteConnection,
    table: &str,
    columns: &str,
    rows: &[T],
    mut bind: impl FnMut(sqlx::query_builder::Separated<'_, sqlx::Sqlite, &'static str>, &T),
) -> StoreResult<(std::ops::Range<i64>, u64)> {
    // (first, last) sequence numbers so far.
    let mut seqs: Option<(i64, i64)> = None;
    let mut statements = 0;
    // The VALUES' first column is the row's index; the table's are after it.
    let width = columns.split(',').count();
    let selected: Vec<String> = (2..width + 2).map(|i| format!("column{i}")).collect();
    let selected = selected.join(", ");
    for chunk in rows.chunks(EVENTS_PER_INSERT) {
        let mut q = sqlx::QueryBuilder::<sqlx::Sqlite>::new(format!(
            "INSERT INTO {table} ({columns}) SELECT {selected} FROM ("
        ));
        push_padded_values(&mut q, chunk, width, true, &mut bind);
        q.push(") WHERE column2 IS NOT NULL ORDER BY column1");
        let r = q.build().execute(&mut *conn).await?;
        statements += 1;
        let last = r.last_insert_rowid();
        let start = last - chunk.len() as i64 + 1;
        if r.rows_affected() != chunk.len() as u64 || seqs.is_some_and(|(_, l)| start != l + 1) {
            return Err(StoreError::Database(format!(
                "{table}: {} rows inserted of {}, ending at {last}",
                r.rows_affected(),
                chunk.len()
            )));
        }
        seqs = Some((seqs.map_or(start, |s| s.0), last));
    }
    Ok((
        seqs.map_or(0..0, |(first, last)| first..last + 1),
        statements,
    ))
}

/// How much of the database file each connection maps into memory.
const MMAP_BYTES: u64 = 256 << 20;

/// The writer connection's page cache, in KiB: about SQLite's default
/// (2,000 KiB), not more. Every commit ends by dropping the cached pages
/// past the database's end (`pager_end_transaction`); after a b-tree
/// balance that swapped two pages' numbers (through page 262,145, the lock
/// page's, as a temporary) that walks the whole cache. With 64 MiB that
/// was 5% of a loaded server's samples, on the writer's critical path;
/// with 2 MiB 0.4%, and no more page reads (the file is memory-mapped).
const WRITER_CACHE_KIB: u64 = 2 << 10;

/// How often the checkpointer copies the WAL's committed pages into the
/// database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// The WAL's length, in pages, at which the writer checkpoints itself
/// (SQLite's default is 1,000). Normally the checkpointer has copied the
/// pages already, so this costs the writer little; it is needed because
/// only a checkpoint that no commit overlaps lets the WAL start again from
/// its beginning, and under a steady load the checkpointer's always
/// overlap the writer's next batch.
const WRITER_CHECKPOINT_PAGES: u64 = 8_000;

/// Copies the WAL into the database file beside the writer, on a
/// connection of its own, until the store is dropped (its `Shared` with
/// it). A checkpoint inside the writer's COMMIT (copying, then an fsync of
/// the database file: 16% of a loaded server's samples) held up every move
/// of the batches queued behind it. A passive checkpoint takes no lock that
/// the writer or a reader waits for.
async fn checkpoint_wal(connection: SqlitePool, alive: std::sync::Weak<Shared>) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if alive.strong_count() == 0 {
            break;
        }
        let done: Result<(i64, i64, i64), _> = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
            .fetch_one(&connection)
            .await;
        if let Err(e) = done {
            tracing::warn!(error = %e, "WAL checkpoint failed; the writer's own checkpoints remain");
        }
    }
    connection.close().await;
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
            .foreign_keys(true)
            // Pages read through a memory map, not a pread() each (5-7% of a
            // loaded server's CPU samples were in pread).
            .pragma("mmap_size", MMAP_BYTES.to_string());
        // No ping on acquire: sqlx's default sends one to the connection's
        // thread and back before every use (3.5% of a loaded server's
        // samples), and a connection to a local file does not break while
        // idle.
        let writer = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(30))
            .test_before_acquire(false)
            .connect_with(
                options
                    .clone()
                    .pragma("cache_size", format!("-{}", WRITER_CACHE_KIB))
                    // Savepoints' statement journals in memory, not in a
                    // temporary file (6.6% of a loaded server's samples).
                    .pragma("temp_store", "memory")
                    .pragma("wal_autocheckpoint", WRITER_CHECKPOINT_PAGES.to_string()),
            )
            .await?;
        let checkpointer = SqlitePoolOptions::new()
            .max_connections(1)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(30))
            .test_before_acquire(false)
            .connect_with(options)
            .await?;
        let shared = Arc::new(Shared::new());
        let (games_tx, games_rx) = mpsc::channel(QUEUE);
        // The group writer waits for its first change, which comes only
        // once `open` has returned, so it may start before the migrations.
        let batches = Batches {
            writer: writer.clone(),
            shared: shared.clone(),
        };
        spawn_group_writer(batches, games_rx, shared.clone())?;
        tokio::spawn(checkpoint_wal(checkpointer, Arc::downgrade(&shared)));
        let store = SqliteStore {
            pool,
            writer,
            games_tx,
            shared,
        };
        store.migrate().await?;
        store.backfill_san().await?;
        Ok(store)
    }

    async fn migrate(&self) -> StoreResult<()> {
        let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
        migrations::sqlite::apply(&mut tx, MIGRATIONS).await?;
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
            let Some(san) = crate::san_of(&variant, &fen, &moves) else {
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

    /// Queues a challenge's write for the group writer and waits for its
    /// batch to commit.
    pub(crate) async fn challenge_write(&self, work: ChallengeWork) -> StoreResult<Outcome> {
        let (write, answer) = ChallengeWrite::new(work);
        let stopped = || StoreError::Database("the writer has stopped".into());
        self.games_tx
            .send(Job::Write(write))
            .await
            .map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }

    /// No lock for an import's count: `BEGIN IMMEDIATE` on the one writer
    /// already takes every write transaction in turn.
    pub(crate) const IMPORTER_LOCK: Option<&'static str> = None;

    /// Where writes go: the one-connection writer.
    pub(crate) fn writes(&self) -> &SqlitePool {
        &self.writer
    }

    pub(crate) async fn begin(&self) -> StoreResult<sqlx::Transaction<'static, sqlx::Sqlite>> {
        Ok(self.writer.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// Takes or renews a lease ([`LeaseTake`]): the holder after the
    /// upsert, and whether this take wrote it.
    pub(crate) async fn upsert_lease(&self, t: &LeaseTake<'_>) -> LeaseRow {
        let mut tx = self.begin().await?;
        let r = bind_lease!(
            sqlx::query(
                "INSERT INTO leases (key, holder, until, release) VALUES ($1, $2, $3, 0)
                 ON CONFLICT (key) DO UPDATE
                    SET holder = excluded.holder, until = excluded.until, release = 0
                    WHERE leases.until < $4
                       OR (leases.holder = excluded.holder AND leases.release = 0)",
            ),
            t
        )
        .execute(&mut *tx)
        .await?;
        let row = if r.rows_affected() == 1 {
            Some((t.holder.to_owned(), true))
        } else {
            let (by,): (String,) = sqlx::query_as("SELECT holder FROM leases WHERE key = $1")
                .bind(t.key)
                .fetch_one(&mut *tx)
                .await?;
            Some((by, false))
        };
        self.finish(tx, Vec::new(), 2).await?;
        Ok(row)
    }

    /// Commits a write transaction, counts its statements, and only then
    /// publishes its events.
    pub(crate) async fn finish(
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
}

#[cfg(test)]
mod tests;
