//! Stored games as records: lists, their players, chat and imports. The
//! handlers reach the store's game rows only through here.

use super::*;
use crate::store::{ChatLine, GameFilter, GameImport, StoreResult, StoreStats};

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

    /// Whether `user` blocks `other` (their chat lines are refused).
    pub async fn blocks(&self, user: UserId, other: UserId) -> StoreResult<bool> {
        self.store.blocks(user, other).await
    }

    /// A game's chat, oldest first.
    pub async fn chat_lines(&self, id: &GameId) -> StoreResult<Vec<ChatLine>> {
        self.store.chat_lines(id).await
    }

    /// Adds a line to a game's chat unless it holds `max_lines`; true when stored.
    pub async fn add_chat_line(&self, line: &ChatLine, max_lines: i64) -> StoreResult<bool> {
        self.store.add_chat_line(line, max_lines).await
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
