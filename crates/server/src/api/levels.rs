//! The computer's levels and what each is worth (`GET /api/levels`): the
//! page's "play the computer" form shows each level with its rating.

use axum::Json;
use chessmerge_engine::levels::{LevelRating, MAX_LEVEL, MIN_LEVEL, level_rating};
use serde::Serialize;
use utoipa::ToSchema;

/// One level of the computer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LevelJson {
    /// The level, as `POST /api/challenge/ai` takes it.
    pub level: u8,
    /// Its approximate rating in standard chess, on Stockfish 15.1's
    /// `UCI_Elo` scale (see docs/engine.md, "Levels: ratings against
    /// Stockfish"); `null` below that scale's floor, 1350.
    pub rating: Option<u16>,
    /// What the page shows: `about 1850`, or `below 1350`.
    pub text: String,
    /// `stockfish`: measured in games against Stockfish at a limited
    /// strength; `ladder`: below that scale's floor, found from the games
    /// of each level against the one below.
    pub measured: &'static str,
}

/// `GET /api/levels`.
#[derive(Debug, Serialize, ToSchema)]
pub struct LevelsJson {
    /// Levels 1 (weakest) to 8 (full strength), in order.
    pub levels: Vec<LevelJson>,
}

/// The computer's levels with their approximate ratings (no account needed).
#[utoipa::path(get, path = "/api/levels", tag = "challenges",
    responses((status = 200, description = "levels 1 to 8", body = LevelsJson)))]
pub async fn levels() -> Json<LevelsJson> {
    let levels = (MIN_LEVEL..=MAX_LEVEL)
        .map(|level| {
            let rating = level_rating(level);
            let (rating_value, measured) = match rating {
                LevelRating::About(r) => (Some(r), "stockfish"),
                LevelRating::Below(_) => (None, "ladder"),
            };
            LevelJson {
                level,
                rating: rating_value,
                text: rating.to_string(),
                measured,
            }
        })
        .collect();
    Json(LevelsJson { levels })
}
