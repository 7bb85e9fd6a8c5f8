//! The SQLite backend (sqlx, runtime queries, embedded migrations).

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{Row, SqliteConnection};

use super::{
    BoxFuture, Challenge, Game, GameEvent, Store, StoreError, StoreResult, TokenKind, User,
};

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
];

/// A store in one SQLite file (WAL mode, `synchronous = FULL`).
///
/// Reads share a pool; every write goes through `writer`, a pool of one
/// connection. SQLite allows one writer at a time anyway, and a writer
/// that finds the lock taken sleeps in its busy handler (1, 2, 5 ... 100
/// ms) instead of waiting its turn: queueing writes in the pool instead
/// keeps the move latency tail short under many concurrent games.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pool: SqlitePool,
    writer: SqlitePool,
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

fn user_from_row(row: &SqliteRow) -> Result<User, sqlx::Error> {
    Ok(User {
        id: row.try_get("id")?,
        username: row.try_get("username")?,
        password_hash: row.try_get("password_hash")?,
        created_at: row.try_get("created_at")?,
    })
}

fn challenge_from_row(row: &SqliteRow) -> Result<Challenge, sqlx::Error> {
    Ok(Challenge {
        id: row.try_get("id")?,
        kind: row.try_get("kind")?,
        challenger_id: row.try_get("challenger_id")?,
        dest_user_id: row.try_get("dest_user_id")?,
        variant: row.try_get("variant")?,
        color: row.try_get("color")?,
        initial_fen: row.try_get("initial_fen")?,
        ai_level: row.try_get("ai_level")?,
        status: row.try_get("status")?,
        decline_reason: row.try_get("decline_reason")?,
        created_at: row.try_get("created_at")?,
    })
}

fn game_from_row(row: &SqliteRow) -> Result<Game, sqlx::Error> {
    Ok(Game {
        id: row.try_get("id")?,
        variant: row.try_get("variant")?,
        initial_fen: row.try_get("initial_fen")?,
        white_id: row.try_get("white_id")?,
        black_id: row.try_get("black_id")?,
        ai_level: row.try_get("ai_level")?,
        status: row.try_get("status")?,
        winner: row.try_get("winner")?,
        status_reason: row.try_get("status_reason")?,
        moves: row.try_get("moves")?,
        fen: row.try_get("fen")?,
        ply: row.try_get("ply")?,
        version: row.try_get("version")?,
        draw_offer: row.try_get("draw_offer")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

fn rows<T>(
    rows: Vec<SqliteRow>,
    f: fn(&SqliteRow) -> Result<T, sqlx::Error>,
) -> StoreResult<Vec<T>> {
    rows.iter()
        .map(|r| f(r).map_err(StoreError::from))
        .collect()
}

async fn insert_game(
    conn: &mut SqliteConnection,
    game: &Game,
    first_event: &str,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO games (id, variant, initial_fen, white_id, black_id, ai_level, status, winner,
            status_reason, moves, fen, ply, version, draw_offer, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&game.id)
    .bind(&game.variant)
    .bind(&game.initial_fen)
    .bind(game.white_id)
    .bind(game.black_id)
    .bind(game.ai_level)
    .bind(&game.status)
    .bind(&game.winner)
    .bind(&game.status_reason)
    .bind(&game.moves)
    .bind(&game.fen)
    .bind(game.ply)
    .bind(game.version)
    .bind(&game.draw_offer)
    .bind(game.created_at)
    .bind(game.updated_at)
    .execute(&mut *conn)
    .await?;
    sqlx::query("INSERT INTO game_events (game_id, version, payload) VALUES (?, ?, ?)")
        .bind(&game.id)
        .bind(game.version)
        .bind(first_event)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

async fn insert_challenge(conn: &mut SqliteConnection, c: &Challenge) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO challenges (id, kind, challenger_id, dest_user_id, variant, color, initial_fen,
            ai_level, status, decline_reason, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&c.id)
    .bind(&c.kind)
    .bind(c.challenger_id)
    .bind(c.dest_user_id)
    .bind(&c.variant)
    .bind(&c.color)
    .bind(&c.initial_fen)
    .bind(c.ai_level)
    .bind(&c.status)
    .bind(&c.decline_reason)
    .bind(c.created_at)
    .execute(&mut *conn)
    .await?;
    Ok(())
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
        let store = SqliteStore { pool, writer };
        store.migrate().await?;
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
}

impl Store for SqliteStore {
    fn create_user<'a>(
        &'a self,
        username: &'a str,
        password_hash: &'a str,
        now: i64,
    ) -> BoxFuture<'a, StoreResult<User>> {
        Box::pin(async move {
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
                id: id.0,
                username: username.to_owned(),
                password_hash: password_hash.to_owned(),
                created_at: now,
            })
        })
    }

    fn user_by_name<'a>(&'a self, username: &'a str) -> BoxFuture<'a, StoreResult<Option<User>>> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT id, username, password_hash, created_at FROM users WHERE username_key = ?",
            )
            .bind(username.to_lowercase())
            .fetch_optional(&self.pool)
            .await?;
            Ok(row.as_ref().map(user_from_row).transpose()?)
        })
    }

    fn user_by_id(&self, id: i64) -> BoxFuture<'_, StoreResult<Option<User>>> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT id, username, password_hash, created_at FROM users WHERE id = ?",
            )
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
            Ok(row.as_ref().map(user_from_row).transpose()?)
        })
    }

    fn create_token<'a>(
        &'a self,
        token_hash: &'a str,
        user_id: i64,
        kind: TokenKind,
        now: i64,
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            sqlx::query(
                "INSERT INTO tokens (token_hash, user_id, kind, created_at) VALUES (?, ?, ?, ?)",
            )
            .bind(token_hash)
            .bind(user_id)
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
            let row = sqlx::query(
                "SELECT u.id, u.username, u.password_hash, u.created_at
                 FROM tokens t JOIN users u ON u.id = t.user_id
                 WHERE t.token_hash = ? AND t.kind = ?",
            )
            .bind(token_hash)
            .bind(kind.as_str())
            .fetch_optional(&self.pool)
            .await?;
            Ok(row.as_ref().map(user_from_row).transpose()?)
        })
    }

    fn delete_token<'a>(&'a self, token_hash: &'a str) -> BoxFuture<'a, StoreResult<bool>> {
        Box::pin(async move {
            let r = sqlx::query("DELETE FROM tokens WHERE token_hash = ?")
                .bind(token_hash)
                .execute(&self.writer)
                .await?;
            Ok(r.rows_affected() > 0)
        })
    }

    fn create_challenge<'a>(&'a self, challenge: &'a Challenge) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            let mut conn = self.writer.acquire().await?;
            insert_challenge(&mut conn, challenge).await
        })
    }

    fn challenge<'a>(&'a self, id: &'a str) -> BoxFuture<'a, StoreResult<Option<Challenge>>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT * FROM challenges WHERE id = ?")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
            Ok(row.as_ref().map(challenge_from_row).transpose()?)
        })
    }

    fn pending_challenges(
        &self,
        user_id: i64,
    ) -> BoxFuture<'_, StoreResult<(Vec<Challenge>, Vec<Challenge>)>> {
        Box::pin(async move {
            let incoming = sqlx::query(
                "SELECT * FROM challenges WHERE dest_user_id = ? AND status = 'created'
                 ORDER BY created_at, id",
            )
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?;
            let outgoing = sqlx::query(
                "SELECT * FROM challenges WHERE challenger_id = ? AND status = 'created'
                 ORDER BY created_at, id",
            )
            .bind(user_id)
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
        id: &'a str,
        status: &'a str,
        reason: Option<&'a str>,
    ) -> BoxFuture<'a, StoreResult<bool>> {
        Box::pin(async move {
            let r = sqlx::query(
                "UPDATE challenges SET status = ?, decline_reason = ? WHERE id = ? AND status = 'created'",
            )
            .bind(status)
            .bind(reason)
            .bind(id)
            .execute(&self.writer)
            .await?;
            Ok(r.rows_affected() == 1)
        })
    }

    fn accept_challenge<'a>(
        &'a self,
        id: &'a str,
        accepted_by: i64,
        game: &'a Game,
        first_event: &'a str,
    ) -> BoxFuture<'a, StoreResult<bool>> {
        Box::pin(async move {
            let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
            let r = sqlx::query(
                "UPDATE challenges SET status = 'accepted', dest_user_id = ?
                 WHERE id = ? AND status = 'created'",
            )
            .bind(accepted_by)
            .bind(id)
            .execute(&mut *tx)
            .await?;
            if r.rows_affected() != 1 {
                return Ok(false);
            }
            insert_game(&mut tx, game, first_event).await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    fn create_accepted<'a>(
        &'a self,
        challenge: &'a Challenge,
        game: &'a Game,
        first_event: &'a str,
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
            insert_challenge(&mut tx, challenge).await?;
            insert_game(&mut tx, game, first_event).await?;
            tx.commit().await?;
            Ok(())
        })
    }

    fn game<'a>(&'a self, id: &'a str) -> BoxFuture<'a, StoreResult<Option<Game>>> {
        Box::pin(async move {
            let row = sqlx::query("SELECT * FROM games WHERE id = ?")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
            Ok(row.as_ref().map(game_from_row).transpose()?)
        })
    }

    fn update_game<'a>(
        &'a self,
        game: &'a Game,
        expected_version: i64,
        expected_ply: i64,
        event: &'a str,
    ) -> BoxFuture<'a, StoreResult<bool>> {
        Box::pin(async move {
            debug_assert_eq!(game.version, expected_version + 1);
            let mut tx = self.writer.begin_with("BEGIN IMMEDIATE").await?;
            let r = sqlx::query(
                "UPDATE games SET status = ?, winner = ?, status_reason = ?, moves = ?, fen = ?,
                    ply = ?, version = ?, draw_offer = ?, updated_at = ?
                 WHERE id = ? AND version = ? AND ply = ?",
            )
            .bind(&game.status)
            .bind(&game.winner)
            .bind(&game.status_reason)
            .bind(&game.moves)
            .bind(&game.fen)
            .bind(game.ply)
            .bind(game.version)
            .bind(&game.draw_offer)
            .bind(game.updated_at)
            .bind(&game.id)
            .bind(expected_version)
            .bind(expected_ply)
            .execute(&mut *tx)
            .await?;
            if r.rows_affected() != 1 {
                return Ok(false);
            }
            sqlx::query("INSERT INTO game_events (game_id, version, payload) VALUES (?, ?, ?)")
                .bind(&game.id)
                .bind(game.version)
                .bind(event)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(true)
        })
    }

    fn game_events_since<'a>(
        &'a self,
        id: &'a str,
        after: i64,
    ) -> BoxFuture<'a, StoreResult<Vec<GameEvent>>> {
        Box::pin(async move {
            let rows: Vec<(i64, String)> = sqlx::query_as(
                "SELECT version, payload FROM game_events WHERE game_id = ? AND version > ?
                 ORDER BY version",
            )
            .bind(id)
            .bind(after)
            .fetch_all(&self.pool)
            .await?;
            Ok(rows
                .into_iter()
                .map(|(version, payload)| GameEvent { version, payload })
                .collect())
        })
    }

    fn ongoing_games(&self, user_id: i64) -> BoxFuture<'_, StoreResult<Vec<Game>>> {
        Box::pin(async move {
            let r = sqlx::query(
                "SELECT * FROM games WHERE status = 'started' AND (white_id = ? OR black_id = ?)
                 ORDER BY updated_at DESC, id",
            )
            .bind(user_id)
            .bind(user_id)
            .fetch_all(&self.pool)
            .await?;
            rows(r, game_from_row)
        })
    }

    fn finished_games(&self, user_id: i64, limit: i64) -> BoxFuture<'_, StoreResult<Vec<Game>>> {
        Box::pin(async move {
            let r = sqlx::query(
                "SELECT * FROM games WHERE status NOT IN ('created', 'started')
                    AND (white_id = ? OR black_id = ?)
                 ORDER BY updated_at DESC, rowid DESC LIMIT ?",
            )
            .bind(user_id)
            .bind(user_id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
            rows(r, game_from_row)
        })
    }

    fn ongoing_ai_games(&self) -> BoxFuture<'_, StoreResult<Vec<Game>>> {
        Box::pin(async move {
            let r = sqlx::query(
                "SELECT * FROM games WHERE status = 'started' AND ai_level IS NOT NULL ORDER BY id",
            )
            .fetch_all(&self.pool)
            .await?;
            rows(r, game_from_row)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_db(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "chessmerge-store-{}-{}-{}",
            name,
            std::process::id(),
            crate::now_ms()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("test.db")
    }

    fn game(id: &str, white: i64, black: i64) -> Game {
        Game {
            id: id.into(),
            variant: "chessmerge".into(),
            initial_fen: chessmerge_rules::START_FEN.into(),
            white_id: Some(white),
            black_id: Some(black),
            ai_level: None,
            status: "started".into(),
            winner: None,
            status_reason: None,
            moves: String::new(),
            fen: chessmerge_rules::START_FEN.into(),
            ply: 0,
            version: 1,
            draw_offer: None,
            created_at: 1,
            updated_at: 1,
        }
    }

    /// The lobby's and the start-up's queries use their indexes (SQLite's
    /// plan says `USING INDEX`, not `SCAN challenges`/`SCAN games`).
    #[tokio::test]
    async fn lookups_use_their_indexes() {
        let path = temp_db("plans");
        let s = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
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
        ] {
            let rows: Vec<(i64, i64, i64, String)> =
                sqlx::query_as(sql).fetch_all(&s.pool).await.unwrap();
            let plan: Vec<&str> = rows.iter().map(|r| r.3.as_str()).collect();
            assert!(
                plan.iter().any(|d| d.contains(index)),
                "{sql}: plan {plan:?} does not use {index}"
            );
        }
    }

    #[tokio::test]
    async fn users_tokens_and_reopen() {
        let path = temp_db("users");
        let url = path.to_str().unwrap();
        {
            let s = SqliteStore::open(url).await.unwrap();
            let u = s.create_user("Alice", "hash", 5).await.unwrap();
            assert!(matches!(
                s.create_user("aLiCe", "h2", 6).await,
                Err(StoreError::Conflict)
            ));
            assert_eq!(s.user_by_name("ALICE").await.unwrap().unwrap().id, u.id);
            s.create_token("t1", u.id, TokenKind::Api, 7).await.unwrap();
            assert_eq!(
                s.user_by_token("t1", TokenKind::Api)
                    .await
                    .unwrap()
                    .unwrap()
                    .username,
                "Alice"
            );
            assert!(
                s.user_by_token("t1", TokenKind::Session)
                    .await
                    .unwrap()
                    .is_none()
            );
        }
        // Reopening runs no migration twice and keeps the data.
        let s = SqliteStore::open(&format!("sqlite://{url}")).await.unwrap();
        assert!(s.user_by_name("alice").await.unwrap().is_some());
        assert!(s.delete_token("t1").await.unwrap());
        assert!(!s.delete_token("t1").await.unwrap());
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[tokio::test]
    async fn open_challenges_are_the_pending_open_ones_newest_first() {
        let path = temp_db("open");
        let s = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
        let a = s.create_user("a1", "h", 0).await.unwrap();
        let b = s.create_user("b1", "h", 0).await.unwrap();
        let mk = |id: &str, kind: &str, dest: Option<i64>, at: i64| Challenge {
            id: id.into(),
            kind: kind.into(),
            challenger_id: a.id,
            dest_user_id: dest,
            variant: "chessmerge".into(),
            color: "random".into(),
            initial_fen: None,
            ai_level: None,
            status: "created".into(),
            decline_reason: None,
            created_at: at,
        };
        for c in [
            mk("open0001", "open", None, 10),
            mk("open0002", "open", None, 30),
            mk("open0003", "open", None, 20),
            mk("open0004", "open", None, 40),
            mk("open0005", "open", None, 50),
            mk("user0001", "user", Some(b.id), 60),
        ] {
            s.create_challenge(&c).await.unwrap();
        }
        let ids = |v: Vec<Challenge>| v.into_iter().map(|c| c.id).collect::<Vec<_>>();
        assert_eq!(
            ids(s.open_challenges(10).await.unwrap()),
            ["open0005", "open0004", "open0002", "open0003", "open0001"]
        );
        assert_eq!(
            ids(s.open_challenges(2).await.unwrap()),
            ["open0005", "open0004"]
        );
        assert!(
            s.close_challenge("open0004", "canceled", None)
                .await
                .unwrap()
        );
        assert!(
            s.accept_challenge("open0005", b.id, &game("open0005", a.id, b.id), "{}")
                .await
                .unwrap()
        );
        assert_eq!(
            ids(s.open_challenges(10).await.unwrap()),
            ["open0002", "open0003", "open0001"]
        );
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[tokio::test]
    async fn update_game_is_guarded_by_version_and_ply() {
        let path = temp_db("guard");
        let s = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
        let a = s.create_user("a1", "h", 0).await.unwrap();
        let b = s.create_user("b1", "h", 0).await.unwrap();
        let c = Challenge {
            id: "abcdefgh".into(),
            kind: "user".into(),
            challenger_id: a.id,
            dest_user_id: Some(b.id),
            variant: "chessmerge".into(),
            color: "white".into(),
            initial_fen: None,
            ai_level: None,
            status: "created".into(),
            decline_reason: None,
            created_at: 0,
        };
        s.create_challenge(&c).await.unwrap();
        let g = game("abcdefgh", a.id, b.id);
        assert!(
            s.accept_challenge("abcdefgh", b.id, &g, "{\"v\":1}")
                .await
                .unwrap()
        );
        assert!(
            !s.accept_challenge("abcdefgh", b.id, &g, "{}")
                .await
                .unwrap(),
            "accepted once only"
        );

        let mut next = g.clone();
        next.moves = "e2e3".into();
        next.ply = 1;
        next.version = 2;
        // Two writers that both read version 1: exactly one wins.
        let (r1, r2) = tokio::join!(
            s.update_game(&next, 1, 0, "{\"v\":2}"),
            s.update_game(&next, 1, 0, "{\"v\":2,\"dup\":1}")
        );
        assert_eq!([r1.unwrap(), r2.unwrap()].iter().filter(|&&x| x).count(), 1);
        let stored = s.game("abcdefgh").await.unwrap().unwrap();
        assert_eq!(
            (stored.ply, stored.version, stored.moves.as_str()),
            (1, 2, "e2e3")
        );
        let events = s.game_events_since("abcdefgh", 0).await.unwrap();
        assert_eq!(events.iter().map(|e| e.version).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(s.game_events_since("abcdefgh", 1).await.unwrap().len(), 1);
        assert_eq!(s.ongoing_games(a.id).await.unwrap().len(), 1);
        assert!(s.finished_games(a.id, 10).await.unwrap().is_empty());
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
