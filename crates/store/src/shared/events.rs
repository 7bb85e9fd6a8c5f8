//! Events: the three histories read by sequence, the committed feed, the
//! heads of the histories, pruning.
//!
//! Written once for both backends (see [`super`]).

use tokio::sync::broadcast;

use crate::model::{GameId, UserId};
use crate::postgres::PgStore;
use crate::sqlite::SqliteStore;
use crate::{Committed, StoreResult, StoreStats, StoredEvent, Topic};

/// Rows of `(sequence, payload)` as events of one topic.
fn events_of(topic: impl Fn() -> Topic, rows: Vec<(i64, String)>) -> Vec<StoredEvent> {
    rows.into_iter()
        .map(|(seq, payload)| StoredEvent {
            topic: topic(),
            seq,
            payload: payload.into(),
            value: None,
        })
        .collect()
}

written_once! {
    /// A game's stored events with a version above `after`, in order.
    pub async fn game_events_since<'a>(
        &'a self,
        id: &'a GameId,
        after: i64,
    ) -> StoreResult<Vec<StoredEvent>> {
        self.read(1);
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT version, payload FROM game_events WHERE game_id = $1 AND version > $2
             ORDER BY version",
        )
        .bind(id.as_str())
        .bind(after)
        .fetch_all(&self.pool)
        .await?;
        Ok(events_of(|| Topic::Game(id.clone()), rows))
    }

    /// A user's stored events with a sequence above `after`, in order.
    pub async fn user_events_since(
        &self,
        user_id: UserId,
        after: i64,
    ) -> StoreResult<Vec<StoredEvent>> {
        self.read(1);
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT seq, payload FROM user_events WHERE user_id = $1 AND seq > $2 ORDER BY seq",
        )
        .bind(user_id.0)
        .bind(after)
        .fetch_all(&self.pool)
        .await?;
        Ok(events_of(|| Topic::User(user_id), rows))
    }

    /// The lobby's stored events with a sequence above `after`, in order.
    pub async fn lobby_events_since(&self, after: i64) -> StoreResult<Vec<StoredEvent>> {
        self.read(1);
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT seq, payload FROM lobby_events WHERE seq > $1 ORDER BY seq LIMIT 1000",
        )
        .bind(after)
        .fetch_all(&self.pool)
        .await?;
        Ok(events_of(|| Topic::Lobby, rows))
    }

    /// One stored event by topic and sequence number.
    pub async fn event<'a>(
        &'a self,
        topic: &'a Topic,
        seq: i64,
    ) -> StoreResult<Option<StoredEvent>> {
        self.read(1);
        let row: Option<(String,)> = match topic {
            Topic::Game(id) => {
                sqlx::query_as(
                    "SELECT payload FROM game_events WHERE game_id = $1 AND version = $2",
                )
                .bind(id.as_str())
                .bind(seq)
                .fetch_optional(&self.pool)
                .await?
            }
            Topic::User(id) => {
                sqlx::query_as(
                    "SELECT payload FROM user_events WHERE seq = $1 AND user_id = $2",
                )
                .bind(seq)
                .bind(id.0)
                .fetch_optional(&self.pool)
                .await?
            }
            Topic::Lobby => {
                sqlx::query_as("SELECT payload FROM lobby_events WHERE seq = $1")
                    .bind(seq)
                    .fetch_optional(&self.pool)
                    .await?
            }
        };
        Ok(row.map(|(p,)| StoredEvent {
            topic: topic.clone(),
            seq,
            payload: p.into(),
            value: None,
        }))
    }

    /// The highest user-event and lobby-event sequence numbers stored so far
    /// (a follower that reads a snapshot starts after these).
    pub async fn event_heads(&self) -> StoreResult<(i64, i64)> {
        self.read(1);
        let heads: (i64, i64) = sqlx::query_as(
            "SELECT (SELECT COALESCE(MAX(seq), 0) FROM user_events),
                    (SELECT COALESCE(MAX(seq), 0) FROM lobby_events)",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(heads)
    }

    /// Deletes user and lobby events older than `max_age_ms` (a follower
    /// that falls that far behind reads a fresh snapshot instead); returns
    /// how many went.
    pub async fn prune_events(&self, max_age_ms: i64) -> StoreResult<u64> {
        let before = crate::now_ms() - max_age_ms;
        let mut tx = self.begin().await?;
        let a = sqlx::query("DELETE FROM user_events WHERE created_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?;
        let b = sqlx::query("DELETE FROM lobby_events WHERE created_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?;
        self.finish(tx, Vec::new(), 2).await?;
        Ok(a.rows_affected() + b.rows_affected())
    }
}

macro_rules! events_plumbing {
    ($backend:ty) => {
        impl $backend {
            pub fn committed(&self) -> broadcast::Receiver<Committed> {
                self.shared.subscribe()
            }

            pub fn stats(&self) -> StoreStats {
                self.shared.stats()
            }

            /// Counts statements of a read (or of a write not committed).
            pub(crate) fn read(&self, statements: u64) {
                self.shared.count(statements);
            }
        }
    };
}

events_plumbing!(SqliteStore);
events_plumbing!(PgStore);
