//! Stored games as records: lists, their players, chat and imports. The
//! handlers reach the store's game rows only through here.

use super::*;
use crate::model::Variant;
use crate::store::{GameFilter, GameImport, StoreResult, StoreStats};

impl Games {
    /// The user's ongoing games, the most recently changed first.
    pub async fn ongoing_of(&self, user: UserId) -> StoreResult<Vec<store::Game>> {
        self.store.ongoing_games(user).await
    }

    /// The user's finished games that pass `filter`, newest first.
    pub async fn finished_of(
        &self,
        user: UserId,
        filter: &GameFilter,
    ) -> StoreResult<Vec<store::Game>> {
        self.store.filtered_games(user, filter).await
    }

    /// The players of a stored game, as the views show them.
    pub async fn players(&self, row: &store::Game) -> GameResult<Players> {
        players_of(&self.store, row).await
    }

    /// Drops the user's ongoing games from this node's cache, so they are
    /// read again (after a change to the user they show, such as a name).
    pub async fn forget_ongoing_of(&self, user: UserId) -> StoreResult<()> {
        for game in self.store.ongoing_games(user).await? {
            self.forget_if_older(&game.id, i64::MAX).await;
        }
        Ok(())
    }

    /// The ongoing games of `variant` between two players, the best
    /// rated first, at most `limit` (the current games page).
    pub async fn best_ongoing(
        &self,
        variant: Variant,
        limit: i64,
    ) -> StoreResult<Vec<store::Game>> {
        self.store.best_ongoing_games(variant, limit).await
    }

    /// The games `user` imported, newest first, at most `limit`.
    pub async fn imported_by(&self, user: UserId, limit: i64) -> StoreResult<Vec<store::Game>> {
        self.store.imported_games(user, limit).await
    }

    /// Stores an imported game with its first event, unless its importer
    /// made `max` imports since `since`; `Conflict` when the id is taken.
    pub async fn import(
        &self,
        row: &store::Game,
        import: &GameImport,
        first_event: &str,
        max: i64,
        since: i64,
    ) -> StoreResult<bool> {
        self.store
            .import_game(row, import, first_event, max, since)
            .await
    }

    /// The store's counters since start.
    pub fn store_stats(&self) -> StoreStats {
        self.store.stats()
    }
}
