//! Finding players: names by their beginning (lichess's autocomplete) and
//! the leaderboards per variant (lichess's `/api/player/top`).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::accounts::Accounts;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Path, Query};
use crate::model::Variant;
use crate::presence::Presence;
use crate::views::title_of;

/// Most names an autocomplete answers.
const AUTOCOMPLETE_MAX: i64 = 10;

/// Query of `GET /api/player/autocomplete`.
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct AutocompleteParams {
    /// The beginning of a name: 2 to 20 characters.
    pub term: Option<String>,
    /// `true`: objects with online flags, not bare names.
    #[serde(default, deserialize_with = "super::params::optional")]
    pub object: Option<bool>,
}

/// A player found, with `object=true`.
#[derive(Debug, Serialize, ToSchema)]
pub struct FoundPlayerJson {
    /// Lower-cased name.
    pub id: String,
    /// The name as registered.
    pub name: String,
    /// `BOT` for a bot account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    /// Whether they hold a live connection to this server.
    pub online: bool,
}

/// `GET /api/player/autocomplete?object=true`.
#[derive(Debug, Serialize, ToSchema)]
pub struct FoundPlayersJson {
    /// The players found, by name.
    pub result: Vec<FoundPlayerJson>,
}

/// Registered players whose names begin with `term` (any case), by name,
/// at most 10: bare names, or with `object=true` objects with online flags.
#[utoipa::path(get, path = "/api/player/autocomplete", tag = "account",
    params(AutocompleteParams),
    responses(
        (status = 200, description = "the names, or `{\"result\": [...]}` with object=true", body = Vec<String>),
        (status = 400, description = "no term, or one too short or too long", body = ErrorBody)))]
pub async fn autocomplete(
    State(accounts): State<Arc<Accounts>>,
    State(presence): State<Arc<Presence>>,
    Query(q): Query<AutocompleteParams>,
) -> ApiResult<Response> {
    let term = q.term.as_deref().map(str::trim).unwrap_or("");
    let chars = term.chars().count();
    if !(2..=20).contains(&chars) {
        return Err(ApiError::bad(format!(
            "invalid term {term:?}: the beginning of a name, 2 to 20 characters"
        )));
    }
    let found = accounts.named_from(term, AUTOCOMPLETE_MAX).await?;
    if q.object == Some(true) {
        let result = found
            .iter()
            .map(|u| FoundPlayerJson {
                id: u.key(),
                name: u.username.clone(),
                title: title_of(u),
                online: presence.is_online(u.id),
            })
            .collect();
        return Ok(Json(FoundPlayersJson { result }).into_response());
    }
    let names: Vec<String> = found.into_iter().map(|u| u.username).collect();
    Ok(Json(names).into_response())
}

/// A leaderboard's player.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopPlayerJson {
    /// Lower-cased name.
    pub id: String,
    /// The name as registered.
    pub username: String,
    /// Whether they hold a live connection to this server.
    pub online: bool,
    /// The rating, rounded.
    pub rating: i64,
    /// Rated games in the variant.
    pub games: i64,
    /// Whether the rating is provisional (deviation above 110).
    pub provisional: bool,
}

/// `GET /api/player/top/{nb}/{perfType}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardJson {
    /// Best first.
    pub users: Vec<TopPlayerJson>,
}

/// The path of `GET /api/player/top/{nb}/{perfType}`.
#[derive(Debug, Deserialize)]
pub struct TopPath {
    nb: i64,
    #[serde(rename = "perfType", deserialize_with = "super::params::required")]
    perf_type: Variant,
}

/// The best-rated players of a variant, best first (bots left out; a
/// provisional rating is marked).
#[utoipa::path(get, path = "/api/player/top/{nb}/{perfType}", tag = "account",
    params(("nb" = i64, Path, description = "how many: 1 to 200"),
        ("perfType" = String, Path, description = "the variant: chessmerge, chessplus, fusion or standard")),
    responses(
        (status = 200, description = "the leaderboard", body = LeaderboardJson),
        (status = 400, description = "bad nb or variant", body = ErrorBody)))]
pub async fn top(
    State(accounts): State<Arc<Accounts>>,
    State(presence): State<Arc<Presence>>,
    Path(TopPath { nb, perf_type }): Path<TopPath>,
) -> ApiResult<Json<LeaderboardJson>> {
    if !(1..=200).contains(&nb) {
        return Err(ApiError::bad(format!("invalid nb {nb}: 1 to 200")));
    }
    let users = accounts
        .leaderboard(perf_type, nb)
        .await?
        .into_iter()
        .map(|(u, p)| TopPlayerJson {
            id: u.key(),
            online: presence.is_online(u.id),
            rating: p.glicko.shown(),
            games: p.games,
            provisional: p.glicko.provisional(),
            username: u.username,
        })
        .collect();
    Ok(Json(LeaderboardJson { users }))
}
