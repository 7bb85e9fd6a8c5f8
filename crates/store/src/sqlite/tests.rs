//! The SQLite backend's own tests (the shared behaviour is the
//! conformance suite's).

use super::*;
use crate::{Store, conformance};

/// A fresh SQLite store in a temporary directory, as the backend itself.
async fn temp(name: &str) -> (SqliteStore, conformance::TempDir) {
    let (Store::Sqlite(s), dir) = conformance::temp_sqlite(name).await else {
        unreachable!("temp_sqlite opens a SQLite store")
    };
    (s, dir)
}

/// The lobby's and the start-up's queries use their indexes (SQLite's
/// plan says `USING INDEX`, not `SCAN challenges`/`SCAN games`).
#[tokio::test]
async fn lookups_use_their_indexes() {
    let (s, _dir) = temp("plans").await;
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
        (
            "EXPLAIN QUERY PLAN SELECT version, payload FROM game_events WHERE game_id = 'g' AND version > 5
             ORDER BY version",
            "game_events_key",
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
async fn reopening_keeps_the_data_and_runs_no_migration_twice() {
    let (s, dir) = temp("reopen").await;
    let path = dir.0.join("test.db");
    s.create_user("Alice", "hash", 5).await.unwrap();
    drop(s);
    let s = SqliteStore::open(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    assert!(s.user_by_name("alice").await.unwrap().is_some());
}

#[tokio::test]
async fn a_corrupt_row_is_an_error_naming_the_row() {
    let (s, _dir) = temp("corrupt").await;
    let a = s.create_user("a1", "h", 0).await.unwrap();
    let b = s.create_user("b1", "h", 0).await.unwrap();
    conformance::start_game(&s.clone().into(), "corrupt1", a.id, b.id).await;
    sqlx::query("UPDATE games SET status = 'finished' WHERE id = 'corrupt1'")
        .execute(&s.writer)
        .await
        .unwrap();
    let e = s.game(&"corrupt1".parse().unwrap()).await.unwrap_err();
    assert!(
        matches!(&e, StoreError::Corrupt(d) if d.contains("corrupt1") && d.contains("status")),
        "{e}"
    );
}

/// A database from before migration 13 (game events as a WITHOUT ROWID
/// table) keeps every event when it is opened again: they move to the
/// table with row ids, read back in order, one per game and version.
#[tokio::test]
async fn game_events_move_to_a_table_with_row_ids_and_keep_their_order() {
    let (s, dir) = temp("rowid").await;
    let path = dir.0.join("test.db");
    let a = s.create_user("a1", "h", 0).await.unwrap();
    let b = s.create_user("b1", "h", 0).await.unwrap();
    conformance::start_game(&s.clone().into(), "g1", a.id, b.id).await;
    // The events table as migration 1 made it, with two more events.
    sqlx::raw_sql(
        "CREATE TABLE old_events (
            game_id TEXT NOT NULL REFERENCES games(id),
            version INTEGER NOT NULL,
            payload TEXT NOT NULL,
            PRIMARY KEY (game_id, version)
         ) WITHOUT ROWID;
         INSERT INTO old_events SELECT game_id, version, payload FROM game_events;
         INSERT INTO old_events VALUES ('g1', 3, 'third'), ('g1', 2, 'second');
         DROP TABLE game_events;
         ALTER TABLE old_events RENAME TO game_events;
         DELETE FROM schema_migrations WHERE version = 13;",
    )
    .execute(&s.writer)
    .await
    .unwrap();
    drop(s);
    let s = SqliteStore::open(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let (sql,): (String,) =
        sqlx::query_as("SELECT sql FROM sqlite_master WHERE name = 'game_events'")
            .fetch_one(&s.pool)
            .await
            .unwrap();
    assert!(!sql.contains("WITHOUT ROWID"), "{sql}");
    let events = s
        .game_events_since(&"g1".parse().unwrap(), 0)
        .await
        .unwrap();
    let got: Vec<(i64, &str)> = events.iter().map(|e| (e.seq, &*e.payload)).collect();
    assert_eq!(got, [(1, "{\"v\":1}"), (2, "second"), (3, "third")]);
    let twice = sqlx::query("INSERT INTO game_events VALUES ('g1', 3, 'again')")
        .execute(&s.writer)
        .await;
    assert!(twice.is_err(), "a second event of version 3 was stored");
}

/// The checkpointer copies committed pages into the database file long
/// before the WAL reaches the writer's own checkpoint threshold.
#[tokio::test]
async fn the_checkpointer_copies_the_wal_into_the_database() {
    let (s, dir) = temp("checkpoint").await;
    let (pages,): (i64,) = sqlx::query_as("PRAGMA wal_autocheckpoint")
        .fetch_one(&s.writer)
        .await
        .unwrap();
    assert_eq!(pages, WRITER_CHECKPOINT_PAGES as i64);
    let file = dir.0.join("test.db");
    let before = std::fs::metadata(&file).unwrap().len();
    sqlx::query("CREATE TABLE scratch (b BLOB)")
        .execute(&s.writer)
        .await
        .unwrap();
    // 8 MB in 40 commits: about 2,000 pages, a quarter of the threshold.
    for _ in 0..40 {
        sqlx::query("INSERT INTO scratch VALUES (zeroblob(200000))")
            .execute(&s.writer)
            .await
            .unwrap();
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let len = std::fs::metadata(&file).unwrap().len();
        if len >= before + 8_000_000 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "after 10 s the database file has grown by {} bytes only",
            len - before
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn conformance_suite() {
    let (s, _dir) = conformance::temp_sqlite("conformance").await;
    conformance::run_all(&s).await;
}
