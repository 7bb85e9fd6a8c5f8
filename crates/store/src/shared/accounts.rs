//! Accounts: users, bots, guests, chat lines, preferences.
//!
//! Written once for both backends (see [`super`]).

use crate::model::{GameId, UserId};
use crate::postgres::PgStore;
use crate::sqlite::SqliteStore;
use crate::{ChatLine, GUEST_KEY_PATTERN, StoreResult, User, rows};

macro_rules! accounts {
    ($backend:ty) => {
        impl $backend {
            pub async fn user_by_name<'a>(&'a self, username: &'a str) -> StoreResult<Option<User>> {
                self.read(1);
                let row = sqlx::query(
                    "SELECT id, username, password_hash, created_at, bot FROM users WHERE username_key = $1",
                )
                .bind(username.to_lowercase())
                .fetch_optional(&self.pool)
                .await?;
                row.as_ref().map(rows::user).transpose()
            }

            pub async fn user_by_id(&self, id: UserId) -> StoreResult<Option<User>> {
                self.read(1);
                let row = sqlx::query(
                    "SELECT id, username, password_hash, created_at, bot FROM users WHERE id = $1",
                )
                .bind(id.0)
                .fetch_optional(&self.pool)
                .await?;
                row.as_ref().map(rows::user).transpose()
            }

            pub async fn bots(&self, limit: i64) -> StoreResult<Vec<User>> {
                self.read(1);
                let r = sqlx::query(
                    "SELECT id, username, password_hash, created_at, bot FROM users
                     WHERE bot = 1 ORDER BY id LIMIT $1",
                )
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows::all(r, rows::user)
            }

            pub async fn claim_guest<'a>(
                &'a self,
                id: UserId,
                username: &'a str,
                password_hash: &'a str,
            ) -> StoreResult<Option<User>> {
                self.read(1);
                let row = sqlx::query(
                    "UPDATE users SET username = $1, username_key = $2, password_hash = $3
                     WHERE id = $4 AND username_key LIKE $5
                     RETURNING id, username, password_hash, created_at, bot",
                )
                .bind(username)
                .bind(username.to_lowercase())
                .bind(password_hash)
                .bind(id.0)
                .bind(GUEST_KEY_PATTERN)
                .fetch_optional(self.writes())
                .await?;
                row.as_ref().map(rows::user).transpose()
            }

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

            pub async fn preferences(&self, user_id: UserId) -> StoreResult<Option<String>> {
                self.read(1);
                let row: Option<(String,)> =
                    sqlx::query_as("SELECT prefs FROM user_preferences WHERE user_id = $1")
                        .bind(user_id.0)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.map(|(p,)| p))
            }

            pub async fn set_preferences<'a>(
                &'a self,
                user_id: UserId,
                expected: Option<&'a str>,
                prefs: &'a str,
                now: i64,
            ) -> StoreResult<bool> {
                // One autocommitted write (a statement and its transaction).
                self.shared.count_tx(1);
                // Written only over what was read: a save that lost the race
                // changes no row.
                let done = match expected {
                    None => sqlx::query(
                        "INSERT INTO user_preferences (user_id, prefs, updated_at) VALUES ($1, $2, $3)
                         ON CONFLICT (user_id) DO NOTHING",
                    )
                    .bind(user_id.0)
                    .bind(prefs)
                    .bind(now)
                    .execute(self.writes())
                    .await?,
                    Some(old) => sqlx::query(
                        "UPDATE user_preferences SET prefs = $1, updated_at = $2 WHERE user_id = $3 AND prefs = $4",
                    )
                    .bind(prefs)
                    .bind(now)
                    .bind(user_id.0)
                    .bind(old)
                    .execute(self.writes())
                    .await?,
                };
                Ok(done.rows_affected() == 1)
            }
        }
    };
}

accounts!(SqliteStore);
accounts!(PgStore);
