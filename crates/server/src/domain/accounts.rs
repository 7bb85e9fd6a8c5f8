//! Accounts: users, their tokens, settings, ratings, and the allowances
//! that bound how fast accounts are made. The handlers reach the store's
//! account rows only through here.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::{GameId, UserId, Variant};
use crate::now_ms;
use crate::store::{
    Allowance, BotUpgrade, EndTokens, NewReport, NewToken, Perf, RatingPoint, Refused, Relation,
    ResultCounts, Store, StoreResult, TokenInfo, TokenKind, User,
};

/// How many players one may follow (lichess's figure).
pub const MAX_FOLLOWING: i64 = 400;
/// How many blocked or muted players a list shows (the newest).
pub const MAX_LISTED: i64 = 1000;
/// How many reports one player may have open at once.
pub const MAX_OPEN_REPORTS: i64 = 10;

/// What became of a follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// Followed (now or before).
    Done,
    /// They block the follower.
    Blocked,
    /// The follower follows [`MAX_FOLLOWING`] players already.
    TooMany,
    /// An account is gone.
    Gone,
}

/// The accounts domain over the store.
pub struct Accounts {
    store: Arc<Store>,
}

impl Accounts {
    /// The domain over `store`.
    pub fn new(store: Arc<Store>) -> Arc<Accounts> {
        Arc::new(Accounts { store })
    }

    /// The account named `name` (any case).
    pub async fn user_named(&self, name: &str) -> StoreResult<Option<User>> {
        self.store.user_by_name(name).await
    }

    /// The account with id `id`.
    pub async fn user(&self, id: UserId) -> StoreResult<Option<User>> {
        self.store.user_by_id(id).await
    }

    /// `user` blocks `blocked` (see [`Relation::Block`]); neither follows
    /// the other any more.
    pub async fn block(&self, user: UserId, blocked: UserId) -> StoreResult<bool> {
        if !self
            .store
            .relate(Relation::Block, user, blocked, now_ms())
            .await?
        {
            return Ok(false);
        }
        self.store.unrelate(Relation::Follow, user, blocked).await?;
        self.store.unrelate(Relation::Follow, blocked, user).await?;
        Ok(true)
    }

    /// `user` mutes `muted` (again: no change); false when an account is gone.
    pub async fn mute(&self, user: UserId, muted: UserId) -> StoreResult<bool> {
        self.store
            .relate(Relation::Mute, user, muted, now_ms())
            .await
    }

    /// Whether `user` has `rel` to `other`.
    pub async fn related(&self, rel: Relation, user: UserId, other: UserId) -> StoreResult<bool> {
        self.store.related(rel, user, other).await
    }

    /// `user` drops `rel` to `other`; false when there was none.
    pub async fn unrelate(&self, rel: Relation, user: UserId, other: UserId) -> StoreResult<bool> {
        self.store.unrelate(rel, user, other).await
    }

    /// The players `user` blocks or mutes, the most recent first (at
    /// most [`MAX_LISTED`]).
    pub async fn related_users(&self, rel: Relation, user: UserId) -> StoreResult<Vec<User>> {
        self.store.related_users(rel, user, MAX_LISTED).await
    }

    /// `user` follows `followed`, unless `followed` blocks them or `user`
    /// follows [`MAX_FOLLOWING`] players already.
    pub async fn follow(&self, user: UserId, followed: UserId) -> StoreResult<Follow> {
        if self.store.related(Relation::Block, followed, user).await? {
            return Ok(Follow::Blocked);
        }
        if self.store.related(Relation::Follow, user, followed).await? {
            return Ok(Follow::Done);
        }
        let following = self
            .store
            .related_users(Relation::Follow, user, MAX_FOLLOWING)
            .await?;
        if following.len() >= MAX_FOLLOWING as usize {
            return Ok(Follow::TooMany);
        }
        Ok(
            if self
                .store
                .relate(Relation::Follow, user, followed, now_ms())
                .await?
            {
                Follow::Done
            } else {
                Follow::Gone
            },
        )
    }

    /// The players `user` follows, by name, each with their most recently
    /// changed game under way.
    pub async fn following(&self, user: UserId) -> StoreResult<Vec<(User, Option<GameId>)>> {
        let mut playing: HashMap<UserId, GameId> = HashMap::new();
        for (friend, game) in self.store.followed_playing(user).await? {
            playing.entry(friend).or_insert(game);
        }
        let friends = self
            .store
            .related_users(Relation::Follow, user, MAX_FOLLOWING)
            .await?;
        Ok(friends
            .into_iter()
            .map(|u| {
                let game = playing.remove(&u.id);
                (u, game)
            })
            .collect())
    }

    /// Files a report, unless its reporter has [`MAX_OPEN_REPORTS`] open;
    /// true when filed.
    pub async fn report(&self, report: &NewReport) -> StoreResult<bool> {
        Ok(self
            .store
            .add_report(report, MAX_OPEN_REPORTS)
            .await?
            .is_some())
    }

    /// A new account; `Conflict` when the name is taken.
    pub async fn create(&self, name: &str, password_hash: &str) -> StoreResult<User> {
        self.store.create_user(name, password_hash, now_ms()).await
    }

    /// Gives a guest account a name and a password; `None` when it was
    /// claimed meanwhile.
    pub async fn claim_guest(
        &self,
        guest: UserId,
        name: &str,
        password_hash: &str,
    ) -> StoreResult<Option<User>> {
        self.store.claim_guest(guest, name, password_hash).await
    }

    /// Sets a new password hash and ends every session and API token of
    /// the account but the one whose hash is `keep` (`""`: all of them),
    /// in one transaction with the `tokensEnded` event, so that their
    /// sockets and streams close on every node. `None`: no such account.
    pub async fn change_password(
        &self,
        id: UserId,
        password_hash: &str,
        keep: &str,
    ) -> StoreResult<Option<Vec<String>>> {
        self.store
            .change_password(id, password_hash, keep, now_ms())
            .await
    }

    /// Takes one of each allowance, or none and says when to retry.
    pub async fn take_allowance(&self, keys: &[Allowance]) -> StoreResult<Result<(), Refused>> {
        self.store.take_allowance(keys).await
    }

    /// Makes the account a bot, if it has no games.
    pub async fn upgrade_to_bot(&self, id: UserId) -> StoreResult<BotUpgrade> {
        self.store.upgrade_to_bot(id).await
    }

    /// Bot accounts, oldest first, at most `limit`.
    pub async fn bots(&self, limit: i64) -> StoreResult<Vec<User>> {
        self.store.bots(limit).await
    }

    /// Stores a token (by its hash).
    pub async fn create_token(&self, token: NewToken<'_>) -> StoreResult<()> {
        self.store.create_token(token).await
    }

    /// The account an unexpired token of `kind` (by its hash) belongs to.
    pub async fn user_by_token(
        &self,
        token_hash: &str,
        kind: TokenKind,
    ) -> StoreResult<Option<User>> {
        self.store.user_by_token(token_hash, kind, now_ms()).await
    }

    /// The user's unexpired sessions and tokens.
    pub async fn tokens(&self, user: UserId) -> StoreResult<Vec<TokenInfo>> {
        self.store.tokens(user, now_ms()).await
    }

    /// Ends some of the user's tokens; the ids of those that ended.
    pub async fn end_tokens(&self, user: UserId, which: EndTokens<'_>) -> StoreResult<Vec<String>> {
        self.store.end_tokens(user, which, now_ms()).await
    }

    /// The user's site settings as saved (JSON text), if any.
    pub async fn preferences(&self, user: UserId) -> StoreResult<Option<String>> {
        self.store.preferences(user).await
    }

    /// Saves the user's site settings if they are still `expected`; false
    /// when another save came first.
    pub async fn set_preferences(
        &self,
        user: UserId,
        expected: Option<&str>,
        prefs: &str,
    ) -> StoreResult<bool> {
        self.store
            .set_preferences(user, expected, prefs, now_ms())
            .await
    }

    /// The best-rated players of `variant`, best first (bots left out).
    pub async fn leaderboard(
        &self,
        variant: Variant,
        limit: i64,
    ) -> StoreResult<Vec<(User, Perf)>> {
        self.store.leaderboard(variant, limit).await
    }

    /// Registered players whose names begin with `prefix`, by name.
    pub async fn named_from(&self, prefix: &str, limit: i64) -> StoreResult<Vec<User>> {
        self.store.users_named_from(prefix, limit).await
    }

    /// The user's ratings, per variant played.
    pub async fn perfs(&self, user: UserId) -> StoreResult<Vec<Perf>> {
        self.store.perfs(user).await
    }

    /// The user's rating history, every variant, oldest first per variant.
    pub async fn rating_history(&self, user: UserId) -> StoreResult<Vec<RatingPoint>> {
        self.store.rating_history(user).await
    }

    /// The user's finished games per variant, by result.
    pub async fn result_counts(&self, user: UserId) -> StoreResult<Vec<(Variant, ResultCounts)>> {
        self.store.result_counts(user).await
    }
}
