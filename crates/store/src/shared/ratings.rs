//! Ratings: a player's ratings per variant and their history, and the
//! leaderboards.
//!
//! Written once for both backends (see [`super`]).

use crate::model::{UserId, Variant};
use crate::{Perf, RatingPoint, StoreResult, User, rows};

written_once! {
    /// A player's ratings, one per variant played rated.
    pub async fn perfs(&self, user_id: UserId) -> StoreResult<Vec<Perf>> {
        self.read(1);
        let r = sqlx::query("SELECT * FROM perfs WHERE user_id = $1 ORDER BY variant")
            .bind(user_id.0)
            .fetch_all(&self.pool)
            .await?;
        rows::all(r, rows::perf)
    }

    /// The best-rated players of `variant` (bots left out), best first, at
    /// most `limit`: each with their rating there.
    pub async fn leaderboard(&self, variant: Variant, limit: i64) -> StoreResult<Vec<(User, Perf)>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT u.*, p.variant, p.rating, p.rd, p.volatility, p.games, p.updated_at
             FROM perfs p JOIN users u ON u.id = p.user_id
             WHERE p.variant = $1 AND p.games > 0 AND u.bot = 0
             ORDER BY p.rating DESC, u.id LIMIT $2",
        )
        .bind(variant.id())
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        r.iter()
            .map(|row| Ok((rows::user(row)?, rows::perf(row)?)))
            .collect()
    }

    /// A player's rating history, every variant, oldest first per variant.
    pub async fn rating_history(&self, user_id: UserId) -> StoreResult<Vec<RatingPoint>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT * FROM rating_history WHERE user_id = $1 ORDER BY variant, n",
        )
        .bind(user_id.0)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::rating_point)
    }
}
