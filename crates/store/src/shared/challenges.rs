//! Challenges: reads (their writes are each backend's own: the SQLite
//! group writer, PostgreSQL's row locks).
//!
//! Written once for both backends (see [`super`]); `row_order!()` is the
//! column that orders rows by insertion (SQLite's `rowid`, PostgreSQL's `n`).

use crate::model::{ChallengeId, UserId};
use crate::{Challenge, StoreResult, rows};

written_once! {
    /// Pending open challenges, by anyone, newest first, at most `limit`.
    pub async fn open_challenges(&self, limit: i64) -> StoreResult<Vec<Challenge>> {
        self.read(1);
        let r = sqlx::query(concat!(
            "SELECT * FROM challenges WHERE kind = 'open' AND status = 'created'
             ORDER BY created_at DESC, ",
            row_order!(),
            " DESC LIMIT $1"
        ))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::challenge)
    }

    /// Finds a challenge.
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

    /// Pending challenges addressed to the user, and those made by them.
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
