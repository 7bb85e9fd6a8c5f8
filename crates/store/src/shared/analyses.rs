//! Analyses: a game's stored computer analysis.
//!
//! Written once for both backends (see [`super`]).

use crate::model::GameId;
use crate::{StoreError, StoreResult};

written_once! {
    /// A game's stored computer analysis (JSON, as `review::StoredAnalysis`
    /// writes it), if it has one.
    pub async fn game_analysis<'a>(&'a self, id: &'a GameId) -> StoreResult<Option<String>> {
        self.read(1);
        let row: Option<(String,)> =
            sqlx::query_as("SELECT result FROM game_analyses WHERE game_id = $1")
                .bind(id.as_str())
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(r,)| r))
    }

    /// Stores an analysis event of a game on the game's topic (the game's
    /// version goes up by one, as with any change, and the event is stored
    /// under the new version) and, when `result` is given, the game's
    /// analysis, in one transaction. Returns the event's version.
    pub async fn commit_analysis<'a>(
        &'a self,
        id: &'a GameId,
        event: &'a str,
        result: Option<&'a str>,
    ) -> StoreResult<i64> {
        let now = crate::now_ms();
        let mut tx = self.begin().await?;
        let (version,): (i64,) = sqlx::query_as(
            "UPDATE games SET version = version + 1 WHERE id = $1 RETURNING version",
        )
        .bind(id.as_str())
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| StoreError::Database(format!("no game {id} to analyse")))?;
        let stored = dialect::insert_game_event(&mut tx, id, version, event).await?;
        let mut statements = 2;
        if let Some(result) = result {
            sqlx::query(
                "INSERT INTO game_analyses (game_id, result, created_at) VALUES ($1, $2, $3)
                 ON CONFLICT (game_id) DO UPDATE SET result = excluded.result, created_at = excluded.created_at",
            )
            .bind(id.as_str())
            .bind(result)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            statements += 1;
        }
        self.finish(tx, vec![stored], statements).await?;
        Ok(version)
    }
}
