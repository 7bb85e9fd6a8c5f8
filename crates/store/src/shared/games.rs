//! Games: reads, imports, and the guarded commit handed to the group writer.
//!
//! Written once for both backends (see [`super`]).

use tokio::sync::oneshot;

use crate::commit::{Job, Pending};
use crate::model::{GameId, UserId};
use crate::postgres::PgStore;
use crate::sqlite::SqliteStore;
use crate::{Game, GameCommit, GameImport, StoreError, StoreResult, rows};

macro_rules! games {
    ($backend:ty) => {
        impl $backend {
            pub async fn game<'a>(&'a self, id: &'a GameId) -> StoreResult<Option<Game>> {
                self.read(1);
                let row = sqlx::query("SELECT * FROM games WHERE id = $1")
                    .bind(id.as_str())
                    .fetch_optional(&self.pool)
                    .await?;
                row.as_ref().map(rows::game).transpose()
            }

            pub async fn commit_game(&self, commit: GameCommit) -> StoreResult<bool> {
                let (reply, answer) = oneshot::channel();
                self.games_tx
                    .send(Job::Game(Pending { commit, reply }))
                    .await
                    .map_err(|_| StoreError::Database("the writer has stopped".into()))?;
                answer
                    .await
                    .map_err(|_| StoreError::Database("the writer has stopped".into()))?
            }

            pub async fn ongoing_ai_games(&self) -> StoreResult<Vec<Game>> {
                self.read(1);
                let r = sqlx::query(
                    "SELECT * FROM games WHERE status = 'started' AND ai_level IS NOT NULL ORDER BY id",
                )
                .fetch_all(&self.pool)
                .await?;
                rows::all(r, rows::game)
            }

            pub async fn game_import<'a>(&'a self, id: &'a GameId) -> StoreResult<Option<GameImport>> {
                self.read(1);
                let row: Option<(i64, String, String, String, i64)> = sqlx::query_as(
                    "SELECT importer_id, white_name, black_name, tags, created_at FROM game_imports WHERE game_id = $1",
                )
                .bind(id.as_str())
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(
                    |(importer, white_name, black_name, tags, created_at)| GameImport {
                        game_id: id.clone(),
                        importer_id: UserId(importer),
                        white_name,
                        black_name,
                        tags,
                        created_at,
                    },
                ))
            }
        }
    };
}

games!(SqliteStore);
games!(PgStore);
