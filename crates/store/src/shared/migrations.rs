//! Applying the embedded migrations a database has not had yet, inside the
//! backend's own migration transaction (its lock and its
//! `schema_migrations` table are the backend's).

/// A migration: its version, name and SQL text.
pub(crate) type Migration = (i64, &'static str, &'static str);

macro_rules! migrations {
    ($conn:ty) => {
        use super::Migration;
        use crate::StoreResult;

        /// Applies, in order, the migrations not recorded in
        /// `schema_migrations`, and records each.
        pub(crate) async fn apply(conn: &mut $conn, migrations: &[Migration]) -> StoreResult<()> {
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
    migrations!(sqlx::SqliteConnection);
}

pub(crate) mod postgres {
    migrations!(sqlx::PgConnection);
}
