//! Tokens: sessions, API tokens, device cookies (stored by hash).
//!
//! Written once for both backends (see [`super`]).

use crate::model::UserId;
use crate::rows::Columns;
use crate::{EndTokens, NewToken, StoreResult, TokenInfo, TokenKind, User, rows, token_id};

written_once! {
    /// Stores a token (by its hash).
    pub async fn create_token<'a>(&'a self, token: NewToken<'a>) -> StoreResult<()> {
        self.read(1);
        sqlx::query(
            "INSERT INTO tokens (token_hash, user_id, kind, created_at, expires_at, description)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(token.hash)
        .bind(token.user_id.0)
        .bind(token.kind.as_str())
        .bind(token.created_at)
        .bind(token.expires_at)
        .bind(token.description)
        .execute(self.writes())
        .await?;
        Ok(())
    }

    /// The account a token of `kind` belongs to, if it has not expired by `now`.
    pub async fn user_by_token<'a>(
        &'a self,
        token_hash: &'a str,
        kind: TokenKind,
        now: i64,
    ) -> StoreResult<Option<User>> {
        self.read(1);
        let row = sqlx::query(
            "SELECT u.id, u.username, u.password_hash, u.created_at, u.bot
             FROM tokens t JOIN users u ON u.id = t.user_id
             WHERE t.token_hash = $1 AND t.kind = $2
               AND (t.expires_at IS NULL OR t.expires_at > $3)",
        )
        .bind(token_hash)
        .bind(kind.as_str())
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(rows::user).transpose()
    }

    /// A user's tokens that have not expired by `now` (device cookies
    /// left out), newest first.
    pub async fn tokens(&self, user_id: UserId, now: i64) -> StoreResult<Vec<TokenInfo>> {
        self.read(1);
        let r = sqlx::query(
            "SELECT token_hash, kind, created_at, expires_at, description FROM tokens
             WHERE user_id = $1 AND kind <> 'device'
               AND (expires_at IS NULL OR expires_at > $2)
             ORDER BY created_at DESC, token_hash",
        )
        .bind(user_id.0)
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        rows::all(r, rows::token_info)
    }

    /// Deletes some of a user's tokens and, when any went, stores the
    /// [`crate::tokens_ended_event`] in the same transaction; returns the ended
    /// tokens' ids.
    pub async fn end_tokens<'a>(
        &'a self,
        user_id: UserId,
        which: EndTokens<'a>,
        now: i64,
    ) -> StoreResult<Vec<String>> {
        let mut tx = self.begin().await?;
        let q = match which {
            EndTokens::Hash(h) => sqlx::query(
                "DELETE FROM tokens WHERE user_id = $1 AND token_hash = $2 RETURNING token_hash",
            )
            .bind(user_id.0)
            .bind(h),
            EndTokens::Id(id) => sqlx::query(
                "DELETE FROM tokens WHERE user_id = $1 AND substr(token_hash, 1, 16) = $2 AND kind <> 'device'
                 RETURNING token_hash",
            )
            .bind(user_id.0)
            .bind(id),
            EndTokens::Kind(kind) => sqlx::query(
                "DELETE FROM tokens WHERE user_id = $1 AND kind = $2 RETURNING token_hash",
            )
            .bind(user_id.0)
            .bind(kind.as_str()),
            EndTokens::All => sqlx::query(
                "DELETE FROM tokens WHERE user_id = $1 AND kind <> 'device' RETURNING token_hash",
            )
            .bind(user_id.0),
        };
        let ended = ended_ids(&q.fetch_all(&mut *tx).await?)?;
        let mut out = Vec::new();
        let n = dialect::tokens_ended(&mut tx, user_id, &ended, now, &mut out).await?;
        self.finish(tx, out, 1 + n).await?;
        Ok(ended)
    }

    /// Sets a user's password hash and, in the same transaction, ends
    /// every session and API token of the user except the one whose hash
    /// is `keep` (give `""` to end them all), storing the
    /// [`crate::tokens_ended_event`] when any went; device cookies stay. Returns
    /// the ended tokens' ids, or `None` when there is no such user.
    pub async fn change_password<'a>(
        &'a self,
        user_id: UserId,
        password_hash: &'a str,
        keep: &'a str,
        now: i64,
    ) -> StoreResult<Option<Vec<String>>> {
        let mut tx = self.begin().await?;
        let changed = sqlx::query("UPDATE users SET password_hash = $2 WHERE id = $1")
            .bind(user_id.0)
            .bind(password_hash)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if changed == 0 {
            self.finish(tx, Vec::new(), 1).await?;
            return Ok(None);
        }
        let rows = sqlx::query(
            "DELETE FROM tokens WHERE user_id = $1 AND kind <> 'device' AND token_hash <> $2
             RETURNING token_hash",
        )
        .bind(user_id.0)
        .bind(keep)
        .fetch_all(&mut *tx)
        .await?;
        let ended = ended_ids(&rows)?;
        let mut out = Vec::new();
        let n = dialect::tokens_ended(&mut tx, user_id, &ended, now, &mut out).await?;
        self.finish(tx, out, 2 + n).await?;
        Ok(Some(ended))
    }

    /// Deletes tokens that expired before `now`; returns how many.
    pub async fn prune_tokens(&self, now: i64) -> StoreResult<u64> {
        self.read(1);
        let r =
            sqlx::query("DELETE FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= $1")
                .bind(now)
                .execute(self.writes())
                .await?;
        Ok(r.rows_affected())
    }
}

/// The public ids of the tokens deleted, from `RETURNING token_hash` rows.
fn ended_ids(rows: &[impl Columns]) -> StoreResult<Vec<String>> {
    rows.iter()
        .map(|r| r.text("token_hash").map(|h| token_id(&h).to_owned()))
        .collect()
}
