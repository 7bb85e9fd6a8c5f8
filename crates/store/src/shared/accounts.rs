//! Accounts: users, bots, guests, preferences, the friends' games.
//!
//! Written once for both backends (see [`super`]).

use crate::model::{GameId, UserId};
use crate::{BotUpgrade, GUEST_KEY_PATTERN, StoreResult, User, Vacation, rows};

/// [`crate::Store::prune_guests`]'s statement. The tables that refer to
/// users without `ON DELETE CASCADE` are checked; the rest (tokens,
/// events, ratings, preferences) go with the account.
const PRUNE_GUESTS: &str = "DELETE FROM users WHERE username_key LIKE $1 AND created_at < $2
 AND NOT EXISTS (SELECT 1 FROM games g WHERE g.white_id = users.id OR g.black_id = users.id)
 AND NOT EXISTS (SELECT 1 FROM challenges c WHERE c.challenger_id = users.id OR c.dest_user_id = users.id)
 AND NOT EXISTS (SELECT 1 FROM chat_lines l WHERE l.user_id = users.id)
 AND NOT EXISTS (SELECT 1 FROM game_imports i WHERE i.importer_id = users.id)
 AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.user_id = users.id AND t.kind <> 'device'
                 AND (t.expires_at IS NULL OR t.expires_at > $3))";

written_once! {
    /// Creates an account; [`StoreError::Conflict`](crate::StoreError::Conflict)
    /// when the name is taken (names are compared without regard to case).
    pub async fn create_user<'a>(
        &'a self,
        username: &'a str,
        password_hash: &'a str,
        now: i64,
    ) -> StoreResult<User> {
        self.read(1);
        let (id,): (i64,) = sqlx::query_as(
            "INSERT INTO users (username, username_key, password_hash, created_at)
             VALUES ($1, $2, $3, $4) RETURNING id",
        )
        .bind(username)
        .bind(username.to_lowercase())
        .bind(password_hash)
        .bind(now)
        .fetch_one(self.writes())
        .await?;
        Ok(User {
            id: UserId(id),
            username: username.to_owned(),
            password_hash: password_hash.to_owned(),
            created_at: now,
            bot: false,
        })
    }

    /// Finds an account by name, without regard to case.
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

    /// Finds an account by id.
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

    /// Bot accounts, oldest first, at most `limit`.
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

    /// Makes an account a bot, only if it has no games at all (checked in
    /// the same statement as the change, so a game created meanwhile
    /// cannot slip past).
    pub async fn upgrade_to_bot(&self, id: UserId) -> StoreResult<BotUpgrade> {
        self.read(1);
        let r = sqlx::query(
            "UPDATE users SET bot = 1 WHERE id = $1 AND bot = 0
                AND NOT EXISTS (SELECT 1 FROM games WHERE white_id = $1 OR black_id = $1)",
        )
        .bind(id.0)
        .execute(self.writes())
        .await?;
        if r.rows_affected() == 1 {
            return Ok(BotUpgrade::Upgraded);
        }
        self.read(1);
        // Read where it was written (SQLite's writer sees its own
        // change at once).
        let bot: Option<(i64,)> = sqlx::query_as("SELECT bot FROM users WHERE id = $1")
            .bind(id.0)
            .fetch_optional(self.writes())
            .await?;
        Ok(match bot {
            None => BotUpgrade::NoUser,
            Some((0,)) => BotUpgrade::HasGames,
            Some(_) => BotUpgrade::AlreadyBot,
        })
    }

    /// Turns a guest account (named [`GUEST_KEY_PATTERN`]) into an
    /// ordinary one with a new name and password hash, keeping its id and
    /// so its games, ratings and sessions. `None` when `id` is not a guest;
    /// [`StoreError::Conflict`](crate::StoreError::Conflict) when the name
    /// is taken.
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

    /// Deletes guest accounts made before `created_before` that nothing
    /// refers to (no game, challenge, chat line or import) and that no
    /// session can sign in to any more (none left unexpired at `now`);
    /// returns how many.
    pub async fn prune_guests(&self, created_before: i64, now: i64) -> StoreResult<u64> {
        self.read(1);
        let r = sqlx::query(PRUNE_GUESTS)
            .bind(GUEST_KEY_PATTERN)
            .bind(created_before)
            .bind(now)
            .execute(self.writes())
            .await?;
        Ok(r.rows_affected())
    }

    /// Registered players (not guests) whose names begin with `prefix`
    /// (any case), by name, at most `limit`.
    pub async fn users_named_from<'a>(&'a self, prefix: &'a str, limit: i64) -> StoreResult<Vec<User>> {
        self.read(1);
        // `_` is a wildcard to LIKE and may be in a name: escaped.
        let pattern = format!("{}%", prefix.to_lowercase().replace('\\', "\\\\").replace('_', "\\_").replace('%', "\\%"));
        let r = sqlx::query(
            "SELECT * FROM users WHERE username_key LIKE $1 ESCAPE '\\' AND username_key NOT LIKE $2
             ORDER BY username_key LIMIT $3",
        )
        .bind(pattern)
        .bind(crate::GUEST_KEY_PATTERN)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::user)
    }

    /// The games under way of the players `user` follows, each as (the
    /// player, the game), the most recently changed first: one read for
    /// the whole friends list.
    pub async fn followed_playing(&self, user: UserId) -> StoreResult<Vec<(UserId, GameId)>> {
        self.read(1);
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT f.followed_id, g.id FROM follows f
             JOIN games g ON g.status = 'started'
                AND (g.white_id = f.followed_id OR g.black_id = f.followed_id)
             WHERE f.user_id = $1 ORDER BY g.updated_at DESC, g.id",
        )
        .bind(user.0)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(u, g)| {
                let id = g.parse().map_err(|_| crate::StoreError::Corrupt(format!("game id {g:?}")))?;
                Ok((UserId(u), id))
            })
            .collect()
    }

    /// The user's site settings as stored (a JSON object), `None` when
    /// they never saved any (then the defaults apply).
    pub async fn preferences(&self, user_id: UserId) -> StoreResult<Option<String>> {
        self.read(1);
        let row: Option<(String,)> =
            sqlx::query_as("SELECT prefs FROM user_preferences WHERE user_id = $1")
                .bind(user_id.0)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(p,)| p))
    }

    /// Replaces the user's site settings (a JSON object, already checked)
    /// if they are still `expected` (what
    /// [`Store::preferences`](crate::Store::preferences) read; `None`: none
    /// saved yet). False, and nothing written, when another save came first:
    /// a change of one setting is read, applied and written, so two saves at
    /// once must not lose either's setting.
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

    /// A player's vacation record (`None`: never on vacation).
    pub async fn vacation(&self, user: UserId) -> StoreResult<Option<Vacation>> {
        self.read(1);
        let row: Option<(i64, i64, Option<i64>)> =
            sqlx::query_as("SELECT year, used_ms, since FROM vacations WHERE user_id = $1")
                .bind(user.0)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(year, used_ms, since)| Vacation {
            year,
            used_ms,
            since,
        }))
    }

    /// Writes a player's vacation record.
    pub async fn set_vacation(&self, user: UserId, v: &Vacation) -> StoreResult<()> {
        self.shared.count_tx(1);
        sqlx::query(
            "INSERT INTO vacations (user_id, year, used_ms, since) VALUES ($1, $2, $3, $4)
             ON CONFLICT (user_id) DO UPDATE SET year = excluded.year,
                used_ms = excluded.used_ms, since = excluded.since",
        )
        .bind(user.0)
        .bind(v.year)
        .bind(v.used_ms)
        .bind(v.since)
        .execute(self.writes())
        .await?;
        Ok(())
    }

    /// The players away on vacation now, with their records.
    pub async fn away(&self) -> StoreResult<Vec<(UserId, Vacation)>> {
        self.read(1);
        let rows: Vec<(i64, i64, i64, Option<i64>)> = sqlx::query_as(
            "SELECT user_id, year, used_ms, since FROM vacations WHERE since IS NOT NULL",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, year, used_ms, since)| {
                (
                    UserId(id),
                    Vacation {
                        year,
                        used_ms,
                        since,
                    },
                )
            })
            .collect())
    }
}
