//! Chat: a game's lines (each one of the game's events too, so that its
//! followers get it live) and players' reports of what others said.
//!
//! Written once for both backends (see [`super`]).

use crate::model::GameId;
use crate::{ChatAdded, ChatLimits, ChatLine, NewReport, Report, StoreResult, rows};

written_once! {
    /// Adds a line to its room of a game's chat unless the room already
    /// holds `limits.per_room` lines or its speaker said `limits.per_player`
    /// there, with `event` (the line as followers get it) on the game's
    /// topic under the game's next version, in one transaction.
    pub async fn add_chat_line<'a>(
        &'a self,
        line: &'a ChatLine,
        limits: ChatLimits,
        event: &'a str,
    ) -> StoreResult<ChatAdded> {
        let mut tx = self.begin().await?;
        let (in_room, theirs): (i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN user_id = $3 THEN 1 ELSE 0 END), 0)
             FROM chat_lines WHERE game_id = $1 AND room = $2",
        )
        .bind(line.game_id.as_str())
        .bind(line.room.as_str())
        .bind(line.user_id.0)
        .fetch_one(&mut *tx)
        .await?;
        if in_room >= limits.per_room {
            return Ok(ChatAdded::RoomFull);
        }
        if theirs >= limits.per_player {
            return Ok(ChatAdded::SaidEnough);
        }
        let version: Option<(i64,)> = sqlx::query_as(
            "UPDATE games SET version = version + 1 WHERE id = $1 RETURNING version",
        )
        .bind(line.game_id.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let Some((version,)) = version else {
            return Ok(ChatAdded::NoGame);
        };
        sqlx::query(
            "INSERT INTO chat_lines (game_id, user_id, room, text, created_at)
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(line.game_id.as_str())
        .bind(line.user_id.0)
        .bind(line.room.as_str())
        .bind(&line.text)
        .bind(line.created_at)
        .execute(&mut *tx)
        .await?;
        let stored = dialect::insert_game_event(&mut tx, &line.game_id, version, event).await?;
        self.finish(tx, vec![stored], 4).await?;
        Ok(ChatAdded::Stored(version))
    }

    /// A game's chat, oldest first (`username` filled in).
    pub async fn chat_lines<'a>(&'a self, game: &'a GameId) -> StoreResult<Vec<ChatLine>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT c.game_id, c.user_id, u.username, c.room, c.text, c.created_at
             FROM chat_lines c JOIN users u ON u.id = c.user_id
             WHERE c.game_id = $1 ORDER BY c.id",
        )
        .bind(game.as_str())
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::chat_line)
    }

    /// Files a report unless its reporter already has `max_open` reports
    /// open; its id when filed.
    pub async fn add_report<'a>(&'a self, report: &'a NewReport, max_open: i64) -> StoreResult<Option<i64>> {
        self.shared.count_tx(1);
        let row: Option<(i64,)> = sqlx::query_as(
            "INSERT INTO reports (reporter_id, reported_id, reason, text, game_id, created_at)
             SELECT $1, $2, $3, $4, $5, $6
             WHERE (SELECT COUNT(*) FROM reports WHERE reporter_id = $1 AND closed_at IS NULL) < $7
             RETURNING id",
        )
        .bind(report.reporter_id.0)
        .bind(report.reported_id.0)
        .bind(&report.reason)
        .bind(&report.text)
        .bind(report.game_id.as_ref().map(GameId::as_str))
        .bind(report.created_at)
        .bind(max_open)
        .fetch_optional(self.writes())
        .await?;
        Ok(row.map(|(id,)| id))
    }

    /// Open reports, oldest first, at most `limit` (names filled in).
    pub async fn open_reports(&self, limit: i64) -> StoreResult<Vec<Report>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT r.id, r.reason, r.text, r.game_id, r.created_at,
                    a.username AS reporter, b.username AS reported
             FROM reports r JOIN users a ON a.id = r.reporter_id JOIN users b ON b.id = r.reported_id
             WHERE r.closed_at IS NULL ORDER BY r.created_at, r.id LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::report)
    }

    /// Closes an open report; false when there is no such open report.
    pub async fn close_report(&self, id: i64, now: i64) -> StoreResult<bool> {
        self.shared.count_tx(1);
        let done = sqlx::query("UPDATE reports SET closed_at = $1 WHERE id = $2 AND closed_at IS NULL")
            .bind(now)
            .bind(id)
            .execute(self.writes())
            .await?;
        Ok(done.rows_affected() == 1)
    }

}
