//! Relations between two players, one way each: who follows, blocks or
//! mutes whom ([`Relation`]), one table per relation, one set of queries.
//! The statements name their table and column from [`Relation::table`], a
//! closed set of names (hence `AssertSqlSafe`); every value is bound.
//!
//! Written once for both backends (see [`super`]).

use sqlx::AssertSqlSafe;

use crate::model::UserId;
use crate::{StoreResult, User, rows};

/// What one player keeps about another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// On the friends list (`follows`).
    Follow,
    /// May not challenge them or write in their games' chat (`blocks`).
    Block,
    /// Their chat lines are not shown to them (`mutes`).
    Mute,
}

impl Relation {
    /// The table and the column naming the other player.
    fn table(self) -> (&'static str, &'static str) {
        match self {
            Relation::Follow => ("follows", "followed_id"),
            Relation::Block => ("blocks", "blocked_id"),
            Relation::Mute => ("mutes", "muted_id"),
        }
    }

    /// How the list reads: friends by name, the others newest first.
    fn order(self) -> &'static str {
        match self {
            Relation::Follow => "u.username_key",
            Relation::Block | Relation::Mute => "r.created_at DESC, u.id",
        }
    }
}

written_once! {
    /// `user` takes up `rel` to `other` (again: no change); false when
    /// either account is gone.
    pub async fn relate(&self, rel: Relation, user: UserId, other: UserId, now: i64) -> StoreResult<bool> {
        self.shared.count_tx(1);
        let (table, column) = rel.table();
        let sql = format!(
            "INSERT INTO {table} (user_id, {column}, created_at)
             SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM users WHERE id = $1)
                AND EXISTS (SELECT 1 FROM users WHERE id = $2)
             ON CONFLICT (user_id, {column}) DO NOTHING"
        );
        let done = sqlx::query(AssertSqlSafe(sql))
            .bind(user.0)
            .bind(other.0)
            .bind(now)
            .execute(self.writes())
            .await?;
        if done.rows_affected() == 1 {
            return Ok(true);
        }
        self.related(rel, user, other).await
    }

    /// `user` drops `rel` to `other`; false when there was none.
    pub async fn unrelate(&self, rel: Relation, user: UserId, other: UserId) -> StoreResult<bool> {
        self.shared.count_tx(1);
        let (table, column) = rel.table();
        let sql = format!("DELETE FROM {table} WHERE user_id = $1 AND {column} = $2");
        let done = sqlx::query(AssertSqlSafe(sql))
            .bind(user.0)
            .bind(other.0)
            .execute(self.writes())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Whether `user` has `rel` to `other`.
    pub async fn related(&self, rel: Relation, user: UserId, other: UserId) -> StoreResult<bool> {
        self.read(1);
        let (table, column) = rel.table();
        let sql = format!("SELECT {column} FROM {table} WHERE user_id = $1 AND {column} = $2");
        let row: Option<(i64,)> = sqlx::query_as(AssertSqlSafe(sql))
            .bind(user.0)
            .bind(other.0)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.is_some())
    }

    /// The players `user` has `rel` to, at most `limit`, in the relation's
    /// order (friends by name; blocked and muted players newest first).
    pub async fn related_users(&self, rel: Relation, user: UserId, limit: i64) -> StoreResult<Vec<User>> {
        self.read(1);
        let (table, column) = rel.table();
        let order = rel.order();
        let sql = format!(
            "SELECT u.* FROM {table} r JOIN users u ON u.id = r.{column}
             WHERE r.user_id = $1 ORDER BY {order} LIMIT $2"
        );
        let r = sqlx::query(AssertSqlSafe(sql))
            .bind(user.0)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        rows::all(r, rows::user)
    }
}
