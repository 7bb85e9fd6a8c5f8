//! Correspondence vacations (see [`crate::games`]'s vacation rules): a
//! player's days away, and the switch that pauses their turns.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::params::{LooseBool, optional};
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Input;
use crate::games::{DAYS_PER_YEAR, Games, left_ms};
use crate::store::Vacation;

/// A player's vacation.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VacationJson {
    /// Whether you are away now (your correspondence turns are paused).
    pub away: bool,
    /// When the current vacation began, ms since the epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
    /// What is left of this year's days, in days (a vacation under way uses them up as it goes).
    pub days_left: f64,
    /// The days each calendar year gives.
    pub days_per_year: i64,
}

fn vacation_json(v: &Vacation) -> VacationJson {
    VacationJson {
        away: v.since.is_some(),
        since: v.since,
        days_left: left_ms(v, crate::now_ms()) as f64 / 86_400_000.0,
        days_per_year: DAYS_PER_YEAR,
    }
}

/// Going away or coming back.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VacationParams {
    /// `true` to go away (pausing your correspondence turns), `false` to come back.
    #[serde(default, deserialize_with = "optional")]
    #[schema(value_type = bool)]
    pub away: Option<LooseBool>,
}

/// Your vacation: whether you are away and the days left this year.
#[utoipa::path(get, path = "/api/account/vacation", tag = "account",
    responses(
        (status = 200, description = "your vacation", body = VacationJson),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn show(
    State(games): State<Arc<Games>>,
    user: AuthUser,
) -> ApiResult<Json<VacationJson>> {
    Ok(Json(vacation_json(&games.vacation(user.user.id).await?)))
}

/// Go away (`away=true`: your correspondence turns pause, those under way
/// and those your opponents' moves start) or come back (`away=false`:
/// they resume, the pause not counted).
#[utoipa::path(post, path = "/api/account/vacation", tag = "account",
    request_body(content = VacationParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "your vacation now", body = VacationJson),
        (status = 400, description = "`away` missing or not a boolean", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 409, description = "no vacation days left this year", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn set(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Input(p): Input<VacationParams>,
) -> ApiResult<Json<VacationJson>> {
    let away = p
        .away
        .ok_or_else(|| ApiError::bad("away is missing: true to go away, false to come back"))?;
    let v = games.set_away(user.user.id, away.0).await?;
    Ok(Json(vacation_json(&v)))
}
