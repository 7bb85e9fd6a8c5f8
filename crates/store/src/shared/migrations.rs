//! Applying the embedded migrations a database has not had yet, inside the
//! backend's own migration transaction (its lock and its
//! `schema_migrations` table are the backend's).

/// A migration: its version, name and SQL text.
pub(crate) type Migration = (i64, &'static str, &'static str);

/// `embedded!("sqlite"; 1 "initial" "0001_initial.sql", ...)`: the
/// migrations of a backend, their SQL read at build time from
/// `migrations/<backend>/`.
macro_rules! embedded {
    ($dir:literal; $($version:literal $name:literal $file:literal,)*) => {
        &[$((
            $version,
            $name,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/", $dir, "/", $file)),
        ),)*]
    };
}
pub(crate) use embedded;

macro_rules! migrations {
    ($conn:ty, $int:literal) => {
        use super::Migration;
        use crate::StoreResult;

        /// Applies, in order, the migrations not recorded in
        /// `schema_migrations` (made if missing), and records each.
        pub(crate) async fn apply(conn: &mut $conn, migrations: &[Migration]) -> StoreResult<()> {
            sqlx::query(concat!(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version ",
                $int,
                " PRIMARY KEY, name TEXT NOT NULL, applied_at ",
                $int,
                " NOT NULL)"
            ))
            .execute(&mut *conn)
            .await?;
            let done: Vec<(i64,)> = sqlx::query_as("SELECT version FROM schema_migrations")
                .fetch_all(&mut *conn)
                .await?;
            for &(version, name, sql) in migrations {
                if done.iter().any(|&(v,)| v == version) {
                    continue;
                }
                tracing::info!(version, name, "applying migration");
                sqlx::raw_sql(sql).execute(&mut *conn).await?;
                sqlx::query(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                )
                .bind(version)
                .bind(name)
                .bind(crate::now_ms())
                .execute(&mut *conn)
                .await?;
            }
            Ok(())
        }
    };
}

pub(crate) mod sqlite {
    // INTEGER: SQLite's own 64-bit integer (and the table as it always was).
    migrations!(sqlx::SqliteConnection, "INTEGER");
}

pub(crate) mod postgres {
    migrations!(sqlx::PgConnection, "BIGINT");
}
