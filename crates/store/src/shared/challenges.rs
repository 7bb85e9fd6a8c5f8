//! Challenges: reads (their writes are each backend's own: the SQLite
//! group writer, PostgreSQL's row locks).
//!
//! Written once for both backends (see [`super`]).

use crate::model::{ChallengeId, UserId};
use crate::postgres::PgStore;
use crate::sqlite::SqliteStore;
use crate::{Challenge, StoreResult, rows};

macro_rules! challenges {
    ($backend:ty) => {
        impl $backend {
            pub async fn challenge<'a>(
                &'a self,
                id: &'a ChallengeId,
            ) -> StoreResult<Option<Challenge>> {
                self.read(1);
                let row = sqlx::query("SELECT * FROM challenges WHERE id = $1")
                    .bind(id.as_str())
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(rows::challenge).transpose()
            }

            pub async fn pending_challenges(
                &self,
                user_id: UserId,
            ) -> StoreResult<(Vec<Challenge>, Vec<Challenge>)> {
                self.read(2);
                let incoming = sqlx::query(
                    "SELECT * FROM challenges WHERE dest_user_id = $1 AND status = 'created'
                     ORDER BY created_at, id",
                )
                .bind(user_id.0)
                .fetch_all(&self.pool)
                .await?;
                let outgoing = sqlx::query(
                    "SELECT * FROM challenges WHERE challenger_id = $1 AND status = 'created'
                     ORDER BY created_at, id",
                )
                .bind(user_id.0)
                .fetch_all(&self.pool)
                .await?;
                Ok((
                    rows::all(incoming, rows::challenge)?,
                    rows::all(outgoing, rows::challenge)?,
                ))
            }
        }
    };
}

challenges!(SqliteStore);
challenges!(PgStore);
