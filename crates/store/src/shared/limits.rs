//! Limits: pruning of allowances and leases.
//!
//! Written once for both backends (see [`super`]).

use crate::StoreResult;
use crate::postgres::PgStore;
use crate::sqlite::SqliteStore;

macro_rules! limits {
    ($backend:ty) => {
        impl $backend {
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
