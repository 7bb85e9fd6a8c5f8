//! Watching: the current games (lichess's TV in its simplest useful form):
//! each variant's best-rated games under way between two players, to
//! watch live on their game page (which counts its spectators).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::board::export_lines;
use crate::accounts::Accounts;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Path, Query};
use crate::games::Games;
use crate::model::{Color, Variant};
use crate::views::{self, ExportJson, LightUser};

/// The most games one list gives.
pub const TV_MAX_GAMES: i64 = 30;

/// A channel's best game (lichess's `/api/tv/channels` entry).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelJson {
    /// The better-rated player of the game.
    #[schema(value_type = Object)]
    pub user: LightUser,
    /// Their rating in the variant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
    /// The game.
    pub game_id: String,
    /// Their colour.
    pub color: &'static str,
}

/// Each variant's best-rated game under way, by the variant's name
/// (variants with no game between two players left out).
#[utoipa::path(get, path = "/api/tv/channels", tag = "games",
    responses((status = 200, description = "one game per variant", body = BTreeMap<String, ChannelJson>)))]
pub async fn channels(
    State(accounts): State<Arc<Accounts>>,
    State(games): State<Arc<Games>>,
) -> ApiResult<Json<BTreeMap<&'static str, ChannelJson>>> {
    let mut out = BTreeMap::new();
    for variant in Variant::ALL {
        let Some(g) = games.best_ongoing(variant, 1).await?.into_iter().next() else {
            continue;
        };
        let players = games.players(&g).await?;
        let rating = |c: Color| players.get(c).rating.unwrap_or(0);
        let color = if rating(Color::White) >= rating(Color::Black) {
            Color::White
        } else {
            Color::Black
        };
        let Some(id) = g.player_id(color) else {
            continue;
        };
        let Some(user) = accounts.user(id).await? else {
            continue;
        };
        out.insert(
            variant.name(),
            ChannelJson {
                user: views::light_user(&user),
                rating: players.get(color).rating,
                game_id: g.id.to_string(),
                color: color.name(),
            },
        );
    }
    Ok(Json(out))
}

/// The query of `GET /api/tv/{variant}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TvParams {
    /// How many games: 1 to 30 (default 10).
    nb: Option<i64>,
}

/// The path of `GET /api/tv/{variant}`.
#[derive(Debug, Deserialize)]
pub struct TvPath {
    #[serde(deserialize_with = "super::params::required")]
    variant: Variant,
}

/// A variant's best-rated games under way between two players, best
/// first: ndjson, one game export a line (its `fen` is the position now).
#[utoipa::path(get, path = "/api/tv/{variant}", tag = "games",
    params(("variant" = String, Path, description = "chessmerge, chessplus, fusion or standard"), TvParams),
    responses(
        (status = 200, description = "ndjson: one game a line", body = ExportJson, content_type = "application/x-ndjson"),
        (status = 400, description = "bad variant or nb", body = ErrorBody)))]
pub async fn games_of(
    State(accounts): State<Arc<Accounts>>,
    State(games): State<Arc<Games>>,
    Path(TvPath { variant }): Path<TvPath>,
    Query(q): Query<TvParams>,
) -> ApiResult<Response> {
    let nb = q.nb.unwrap_or(10);
    if !(1..=TV_MAX_GAMES).contains(&nb) {
        return Err(ApiError::bad(format!(
            "invalid nb {nb}: 1 to {TV_MAX_GAMES}"
        )));
    }
    let best = games.best_ongoing(variant, nb).await?;
    export_lines(&accounts, &games, &best).await
}
