//! Limits: giving up leases, and pruning allowances and leases (taking
//! them is each backend's own: SQLite's one writer, PostgreSQL's row
//! locks and upsert).
//!
//! Written once for both backends (see [`super`]).

use crate::StoreResult;
use crate::postgres::PgStore;
use crate::sqlite::SqliteStore;

macro_rules! limits {
    ($backend:ty) => {
        impl $backend {
            pub async fn release_lease<'a>(
                &'a self,
                key: &'a str,
                holder: &'a str,
            ) -> StoreResult<()> {
                // A write, counted as one.
                self.shared.count_tx(1);
                sqlx::query("DELETE FROM leases WHERE key = $1 AND holder = $2")
                    .bind(key)
                    .bind(holder)
                    .execute(self.writes())
                    .await?;
                Ok(())
            }

            pub async fn ask_release<'a>(&'a self, key: &'a str) -> StoreResult<bool> {
                self.shared.count_tx(1);
                let r =
                    sqlx::query("UPDATE leases SET release = TRUE WHERE key = $1 AND until >= $2")
                        .bind(key)
                        .bind(crate::now_ms())
                        .execute(self.writes())
                        .await?;
                Ok(r.rows_affected() > 0)
            }

            pub async fn prune_limits(&self, before: i64, now: i64) -> StoreResult<u64> {
                let mut tx = self.begin().await?;
                let a = sqlx::query(
                    "DELETE FROM allowances WHERE window_start < $1 AND next_allowed < $2",
                )
                .bind(before)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                let b = sqlx::query("DELETE FROM leases WHERE until < $1")
                    .bind(before)
                    .execute(&mut *tx)
                    .await?;
                self.finish(tx, Vec::new(), 2).await?;
                Ok(a.rows_affected() + b.rows_affected())
            }
        }
    };
}

limits!(SqliteStore);
limits!(PgStore);
