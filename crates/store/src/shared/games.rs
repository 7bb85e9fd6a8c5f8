//! Games: reads, imports, and the guarded commit handed to the group writer.
//!
//! Written once for both backends (see [`super`]).

use tokio::sync::oneshot;

use crate::commit::{Job, Pending};
use crate::model::Variant;
use crate::model::{GameId, UserId};
use crate::{
    Game, GameCommit, GameFilter, GameImport, ResultCounts, StoreError, StoreResult, rows,
};

written_once! {
    /// Finds a game.
    pub async fn game<'a>(&'a self, id: &'a GameId) -> StoreResult<Option<Game>> {
        self.read(1);
        let row = sqlx::query("SELECT * FROM games WHERE id = $1")
            .bind(id.as_str())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(rows::game).transpose()
    }

    /// Commits a guarded change of a game (see [`GameCommit`]): true when
    /// stored; false when the game was no longer at the expected version
    /// and ply (someone else changed it first), and then nothing is stored.
    pub async fn commit_game(&self, commit: GameCommit) -> StoreResult<bool> {
        let (reply, answer) = oneshot::channel();
        self.games_tx
            .send(Job::Game(Pending { commit, reply }))
            .await
            .map_err(|_| StoreError::Database("the writer has stopped".into()))?;
        answer
            .await
            .map_err(|_| StoreError::Database("the writer has stopped".into()))?
    }

    /// Ongoing games against the computer (to resume after a restart).
    pub async fn ongoing_ai_games(&self) -> StoreResult<Vec<Game>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT * FROM games WHERE status = 'started' AND ai_level IS NOT NULL ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::game)
    }

    /// Ongoing games whose clock is due (a low-time warning or the
    /// deadline) at or before `now` (ms): the clock sweep's work, the
    /// longest due first, at most `limit`.
    pub async fn games_due(&self, now: i64, limit: i64) -> StoreResult<Vec<GameId>> {
        self.read(1);
        let r: Vec<(String,)> = sqlx::query_as(
            "SELECT id FROM games WHERE clock_due IS NOT NULL AND clock_due <= $1
             ORDER BY clock_due LIMIT $2",
        )
        .bind(now)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        r.into_iter()
            .map(|(id,)| id.parse().map_err(|e| StoreError::Corrupt(format!("game id: {e}"))))
            .collect()
    }

    /// The user's games that are still being played.
    pub async fn ongoing_games(&self, user_id: UserId) -> StoreResult<Vec<Game>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT * FROM games WHERE status = 'started' AND (white_id = $1 OR black_id = $1)
             ORDER BY updated_at DESC, id",
        )
        .bind(user_id.0)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::game)
    }

    /// The ongoing games of `variant` between two players (no computer,
    /// no import) whose players are rated highest together (their current
    /// ratings in the variant, 1500 for a player without one), at most
    /// `limit`: the current games page.
    pub async fn best_ongoing_games(&self, variant: Variant, limit: i64) -> StoreResult<Vec<Game>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT g.* FROM games g
             LEFT JOIN perfs w ON w.user_id = g.white_id AND w.variant = g.variant
             LEFT JOIN perfs b ON b.user_id = g.black_id AND b.variant = g.variant
             WHERE g.status = 'started' AND g.variant = $1
                AND g.white_id IS NOT NULL AND g.black_id IS NOT NULL
             ORDER BY COALESCE(w.rating, 1500) + COALESCE(b.rating, 1500) DESC, g.updated_at DESC, g.id
             LIMIT $2",
        )
        .bind(variant.id())
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::game)
    }

    /// The games `user` imported, newest first, at most `limit`.
    pub async fn imported_games(&self, user: UserId, limit: i64) -> StoreResult<Vec<Game>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT g.* FROM game_imports i JOIN games g ON g.id = i.game_id
             WHERE i.importer_id = $1 ORDER BY i.created_at DESC, g.id LIMIT $2",
        )
        .bind(user.0)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::game)
    }

    /// The user's finished games, newest first.
    pub async fn finished_games(&self, user_id: UserId, limit: i64) -> StoreResult<Vec<Game>> {
        self.read(1);
        let r = sqlx::query(concat!(
            "SELECT * FROM games WHERE status NOT IN ('created', 'started')
                AND (white_id = $1 OR black_id = $1)
             ORDER BY updated_at DESC, ",
            row_order!(),
            " DESC LIMIT $2"
        ))
        .bind(user_id.0)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::game)
    }

    /// A player's finished games (aborted ones too, unless a result is
    /// asked for) matching `filter`, newest first.
    pub async fn filtered_games<'a>(
        &'a self,
        user_id: UserId,
        f: &'a GameFilter,
    ) -> StoreResult<Vec<Game>> {
        self.read(1);
        // The casts type the parameters that are compared with
        // NULL only (PostgreSQL wants a type for each).
        let r = sqlx::query(concat!(
            "SELECT * FROM games WHERE status NOT IN ('created', 'started')
                AND (white_id = $1 OR black_id = $1)
                AND (CAST($2 AS TEXT) IS NULL OR variant = $2)
                AND (CAST($3 AS BIGINT) IS NULL OR rated = $3)
                AND (CAST($4 AS TEXT) IS NULL
                    OR ($4 = 'draw' AND winner IS NULL AND status <> 'aborted')
                    OR ($4 = 'win' AND ((winner = 'white' AND white_id = $1)
                        OR (winner = 'black' AND black_id = $1)))
                    OR ($4 = 'loss' AND ((winner = 'black' AND white_id = $1)
                        OR (winner = 'white' AND black_id = $1))))
                AND (CAST($5 AS BIGINT) IS NULL OR white_id = $5 OR black_id = $5)
                AND (CAST($6 AS BIGINT) IS NULL OR created_at >= $6)
                AND (CAST($7 AS BIGINT) IS NULL OR created_at < $7)
             ORDER BY created_at DESC, ",
            row_order!(),
            " DESC LIMIT $8 OFFSET $9"
        ))
        .bind(user_id.0)
        .bind(f.variant.map(|v| v.id()))
        .bind(f.rated.map(i64::from))
        .bind(f.result.map(|r| r.as_str()))
        .bind(f.vs.map(|u| u.0))
        .bind(f.since)
        .bind(f.until)
        .bind(f.limit)
        .bind(f.offset)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::game)
    }

    /// A player's finished games per variant, by result.
    pub async fn result_counts(
        &self,
        user_id: UserId,
    ) -> StoreResult<Vec<(Variant, ResultCounts)>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT variant, COUNT(*) AS n_all,
                CAST(SUM(CASE WHEN (winner = 'white' AND white_id = $1)
                    OR (winner = 'black' AND black_id = $1) THEN 1 ELSE 0 END) AS BIGINT) AS n_win,
                CAST(SUM(CASE WHEN (winner = 'black' AND white_id = $1)
                    OR (winner = 'white' AND black_id = $1) THEN 1 ELSE 0 END) AS BIGINT) AS n_loss,
                CAST(SUM(CASE WHEN winner IS NULL THEN 1 ELSE 0 END) AS BIGINT) AS n_draw,
                CAST(SUM(rated) AS BIGINT) AS n_rated
             FROM games WHERE status NOT IN ('created', 'started', 'aborted')
                AND (white_id = $1 OR black_id = $1)
             GROUP BY variant ORDER BY variant",
        )
        .bind(user_id.0)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::result_counts)
    }

    /// Stores an imported game, its first event and its [`GameImport`] in
    /// one transaction, unless the importer already imported `max` games
    /// since `since` (ms): then nothing is stored and the answer is false.
    /// The count and the insert are one step (concurrent imports of one
    /// user cannot all pass the cap).
    pub async fn import_game<'a>(
        &'a self,
        game: &'a Game,
        import: &'a GameImport,
        first_event: &'a str,
        max: i64,
        since: i64,
    ) -> StoreResult<bool> {
        let mut tx = self.begin().await?;
        let mut statements = 4;
        // One importer's imports in turn, so that the count holds
        // (SQLite's one writer takes every write in turn anyway).
                if let Some(lock) = Self::IMPORTER_LOCK {
            sqlx::query(lock)
                .bind(import.importer_id.0)
                .execute(&mut *tx)
                .await?;
            statements += 1;
        }
        let (count,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM game_imports WHERE importer_id = $1 AND created_at >= $2",
        )
        .bind(import.importer_id.0)
        .bind(since)
        .fetch_one(&mut *tx)
        .await?;
        if count >= max {
            return Ok(false);
        }
        let stored =
            dialect::insert_game(&mut tx, game, first_event).await?;
        sqlx::query(
            "INSERT INTO game_imports (game_id, importer_id, white_name, black_name, tags,
                created_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(import.game_id.as_str())
        .bind(import.importer_id.0)
        .bind(&import.white_name)
        .bind(&import.black_name)
        .bind(&import.tags)
        .bind(import.created_at)
        .execute(&mut *tx)
        .await?;
        self.finish(tx, vec![stored], statements).await?;
        Ok(true)
    }

    /// The import record of a game, if it was imported.
    pub async fn game_import<'a>(&'a self, id: &'a GameId) -> StoreResult<Option<GameImport>> {
        self.read(1);
        let row: Option<(i64, String, String, String, i64)> = sqlx::query_as(
            "SELECT importer_id, white_name, black_name, tags, created_at FROM game_imports WHERE game_id = $1",
        )
        .bind(id.as_str())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(
            |(importer, white_name, black_name, tags, created_at)| GameImport {
                game_id: id.clone(),
                importer_id: UserId(importer),
                white_name,
                black_name,
                tags,
                created_at,
            },
        ))
    }
}
