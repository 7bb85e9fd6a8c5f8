//! Challenges: reads (their writes are each backend's own: the SQLite
//! group writer, PostgreSQL's row locks).
//!
//! Written once for both backends (see [`super`]); `row_order!()` is the
//! column that orders rows by insertion (SQLite's `rowid`, PostgreSQL's `n`).

use crate::model::{ChallengeId, UserId};
use crate::{Challenge, StoreResult, rows};

written_once! {
    /// Pending open challenges, by anyone, at most `limit`: each player's
    /// newest first (newest player first), then each one's second newest,
    /// and so on, so that a few players' many challenges cannot push
    /// everyone else's out of the list.
    pub async fn open_challenges(&self, limit: i64) -> StoreResult<Vec<Challenge>> {
        self.read(1);
        let r = sqlx::query(concat!(
            "SELECT * FROM (
                SELECT c.*, ",
            row_order!(),
            " AS insertion, ROW_NUMBER() OVER (
                    PARTITION BY challenger_id ORDER BY created_at DESC, ",
            row_order!(),
            " DESC) AS player_rank
                FROM challenges c WHERE kind = 'open' AND status = 'created'
             ) ranked
             ORDER BY player_rank, created_at DESC, insertion DESC LIMIT $1"
        ))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::challenge)
    }

    /// Pending open challenges from the usual start with these terms
    /// (`time_control` as [`crate::TimeControl::to_text`], empty for
    /// untimed), oldest first, at most `limit`: the seeks a quick pairing
    /// may take.
    pub async fn open_challenges_like<'a>(
        &'a self,
        variant: crate::model::Variant,
        time_control: &'a str,
        rated: bool,
        limit: i64,
    ) -> StoreResult<Vec<Challenge>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT * FROM challenges WHERE kind = 'open' AND status = 'created'
                AND variant = $1 AND COALESCE(time_control, '') = $2 AND rated = $3
                AND initial_fen IS NULL
             ORDER BY created_at, id LIMIT $4",
        )
        .bind(variant.id())
        .bind(time_control)
        .bind(i64::from(rated))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::challenge)
    }

    /// Pending challenges (to users and open) made before `before` (ms),
    /// oldest first, at most `limit`: those due to expire.
    pub async fn stale_challenges(&self, before: i64, limit: i64) -> StoreResult<Vec<Challenge>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT * FROM challenges WHERE status = 'created' AND created_at < $1
             ORDER BY created_at, id LIMIT $2",
        )
        .bind(before)
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
