//! Events: the committed feed, the heads of the histories, pruning.
//!
//! Written once for both backends (see [`super`]).

use tokio::sync::broadcast;

use crate::postgres::PgStore;
use crate::sqlite::SqliteStore;
use crate::{Committed, StoreResult, StoreStats};

macro_rules! events {
    ($backend:ty) => {
        impl $backend {
            pub async fn event_heads(&self) -> StoreResult<(i64, i64)> {
                self.read(1);
                let heads: (i64, i64) = sqlx::query_as(
                    "SELECT (SELECT COALESCE(MAX(seq), 0) FROM user_events),
                            (SELECT COALESCE(MAX(seq), 0) FROM lobby_events)",
                )
                .fetch_one(&self.pool)
                .await?;
                Ok(heads)
            }

            pub async fn prune_events(&self, max_age_ms: i64) -> StoreResult<u64> {
                let before = crate::now_ms() - max_age_ms;
                let mut tx = self.begin().await?;
                let a = sqlx::query("DELETE FROM user_events WHERE created_at < $1")
                    .bind(before)
                    .execute(&mut *tx)
                    .await?;
                let b = sqlx::query("DELETE FROM lobby_events WHERE created_at < $1")
                    .bind(before)
                    .execute(&mut *tx)
                    .await?;
                self.finish(tx, Vec::new(), 2).await?;
                Ok(a.rows_affected() + b.rows_affected())
            }

            pub fn committed(&self) -> broadcast::Receiver<Committed> {
                self.shared.subscribe()
            }

            pub fn stats(&self) -> StoreStats {
                self.shared.stats()
            }
        }
    };
}

events!(SqliteStore);
events!(PgStore);
