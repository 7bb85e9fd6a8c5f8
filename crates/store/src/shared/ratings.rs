//! Ratings: a player's ratings per variant and their history.
//!
//! Written once for both backends (see [`super`]).

use crate::model::UserId;
use crate::{Perf, RatingPoint, StoreResult, rows};

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
