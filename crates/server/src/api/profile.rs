//! Ratings and profiles in lichess's shapes: the `perfs` and `count` of
//! `GET /api/user/{username}`, `GET /api/user/{username}/rating-history`,
//! and the filters and paging of `GET /api/games/user/{username}`.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::params::optional;
use crate::accounts::Accounts;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Path;
use crate::model::{UserId, Variant};
use crate::ratings::Glicko;
use crate::store::{GameFilter, RatingPoint, ResultCounts, ResultFilter, User};

/// How many rated games back `prog` looks (lichess: the last 12).
pub const PROG_GAMES: usize = 12;

/// A player's rating in one variant (lichess's `perfs.{key}`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingPerfJson {
    /// Rated games played in the variant.
    pub games: i64,
    /// The rating, rounded.
    pub rating: i64,
    /// The rating deviation, rounded.
    pub rd: i64,
    /// The change over the last 12 rated games (the rating now minus the
    /// one after the 13th-last game, or minus 1500 with fewer games).
    pub prog: i64,
    /// Present (true) while the rating is provisional (deviation above 110).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prov: bool,
}

/// Finished games counted by result (aborted ones left out).
#[derive(Debug, Clone, Copy, Default, Serialize, ToSchema)]
pub struct ResultCountJson {
    /// Finished games.
    pub all: i64,
    /// Rated ones among them.
    pub rated: i64,
    /// Won.
    pub win: i64,
    /// Lost.
    pub loss: i64,
    /// Drawn.
    pub draw: i64,
}

impl From<ResultCounts> for ResultCountJson {
    fn from(c: ResultCounts) -> Self {
        ResultCountJson {
            all: c.all,
            rated: c.rated,
            win: c.win,
            loss: c.loss,
            draw: c.draw,
        }
    }
}

/// A user's public view with ratings and counts (lichess's user shape).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserProfileJson {
    /// Lower-cased name.
    pub id: String,
    /// The name as registered.
    pub username: String,
    /// `BOT` for a bot account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    /// Whether they hold a live connection to this server.
    pub online: bool,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Ratings by variant key, for the variants they played rated.
    pub perfs: BTreeMap<&'static str, RatingPerfJson>,
    /// Finished games of every variant, by result.
    pub count: ResultCountJson,
    /// Finished games by variant key, by result.
    pub count_by_variant: BTreeMap<&'static str, ResultCountJson>,
    /// Whether you follow them (signed in, someone else's profile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub following: Option<bool>,
    /// Whether you block them (signed in, someone else's profile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocking: Option<bool>,
}

/// The rating `prog` of a history (oldest first) ending at `now`.
fn prog(points: &[&RatingPoint], now: i64) -> i64 {
    let before = points
        .len()
        .checked_sub(PROG_GAMES + 1)
        .map(|i| points[i].rating);
    now - before.unwrap_or(Glicko::NEW.shown())
}

/// `GET /api/user/{username}`'s answer.
pub async fn profile_json(
    accounts: &Accounts,
    u: &User,
    online: bool,
) -> ApiResult<UserProfileJson> {
    let history = accounts.rating_history(u.id).await?;
    let mut perfs = BTreeMap::new();
    for p in accounts.perfs(u.id).await? {
        let points: Vec<&RatingPoint> = history.iter().filter(|h| h.variant == p.variant).collect();
        perfs.insert(
            p.variant.id(),
            RatingPerfJson {
                games: p.games,
                rating: p.glicko.shown(),
                rd: p.glicko.rd.round() as i64,
                prog: prog(&points, p.glicko.shown()),
                prov: p.glicko.provisional(),
            },
        );
    }
    let mut count = ResultCounts::default();
    let mut by_variant = BTreeMap::new();
    for (v, c) in accounts.result_counts(u.id).await? {
        count.all += c.all;
        count.rated += c.rated;
        count.win += c.win;
        count.loss += c.loss;
        count.draw += c.draw;
        by_variant.insert(v.id(), c.into());
    }
    Ok(UserProfileJson {
        id: u.key(),
        username: u.username.clone(),
        title: crate::views::title_of(u),
        online,
        created_at: u.created_at,
        perfs,
        count: count.into(),
        count_by_variant: by_variant,
        following: None,
        blocking: None,
    })
}

/// One variant's rating history (lichess: `{name, points}`).
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingHistoryJson {
    /// The variant's name.
    pub name: &'static str,
    /// `[year, month (0-11, as lichess), day, rating]`, the last rating of
    /// each day, oldest first.
    pub points: Vec<[i64; 4]>,
}

async fn user_named(accounts: &Accounts, name: &str) -> ApiResult<User> {
    accounts
        .user_named(name)
        .await?
        .ok_or_else(|| ApiError::not_found("user"))
}

/// A user's rating history: every variant, in lichess's shape.
#[utoipa::path(get, path = "/api/user/{username}/rating-history", tag = "users",
    params(("username" = String, Path, description = "the user")),
    responses(
        (status = 200, description = "one entry per variant", body = Vec<RatingHistoryJson>),
        (status = 404, description = "no such user", body = ErrorBody)))]
pub async fn rating_history(
    State(accounts): State<Arc<Accounts>>,
    Path(username): Path<String>,
) -> ApiResult<Json<Vec<RatingHistoryJson>>> {
    let u = user_named(&accounts, &username).await?;
    let history = accounts.rating_history(u.id).await?;
    let out = Variant::ALL
        .into_iter()
        .map(|v| {
            let mut points: Vec<[i64; 4]> = Vec::new();
            for h in history.iter().filter(|h| h.variant == v) {
                let (y, m, d) = super::board::civil_date(h.created_at);
                let p = [y, m - 1, d, h.rating];
                match points.last_mut() {
                    Some(last) if last[..3] == p[..3] => *last = p,
                    _ => points.push(p),
                }
            }
            RatingHistoryJson {
                name: v.name(),
                points,
            }
        })
        .collect();
    Ok(Json(out))
}

/// Filters and paging of a user's games (lichess's names where it has them).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct GameListParams {
    /// How many games at most (1-1000, default 100).
    #[serde(default, deserialize_with = "optional")]
    pub max: Option<i64>,
    /// The same as `max`.
    #[serde(default, deserialize_with = "optional")]
    pub nb: Option<i64>,
    /// Which page of `max` games, from 1.
    #[serde(default, deserialize_with = "optional")]
    pub page: Option<i64>,
    /// Only games created at or after this time (ms since the epoch).
    #[serde(default, deserialize_with = "optional")]
    pub since: Option<i64>,
    /// Only games created before this time (ms since the epoch).
    #[serde(default, deserialize_with = "optional")]
    pub until: Option<i64>,
    /// Only games against this user.
    pub vs: Option<String>,
    /// `true`: only rated games; `false`: only casual ones.
    #[serde(default, deserialize_with = "optional")]
    pub rated: Option<bool>,
    /// Only this variant: `chessmerge`, `chessplus`, `fusion` or `standard`.
    #[serde(default, deserialize_with = "optional")]
    #[param(value_type = Option<String>)]
    pub perf_type: Option<Variant>,
    /// Only games with this result for the user: `win`, `loss` or `draw`.
    #[serde(default, deserialize_with = "optional")]
    #[param(value_type = Option<String>)]
    pub result: Option<ResultFilter>,
}

/// `n` when it lies in `min..=max`, else a 400 naming the parameter.
fn within(name: &str, n: Option<i64>, min: i64, max: i64) -> ApiResult<Option<i64>> {
    match n {
        Some(n) if !(min..=max).contains(&n) => Err(ApiError::bad(format!(
            "invalid {name} {n}: a number from {min} to {max}"
        ))),
        n => Ok(n),
    }
}

impl GameListParams {
    /// The store's filter; a 400 naming the faulty parameter, a 404 for an
    /// unknown `vs` user.
    pub async fn filter(&self, accounts: &Accounts) -> ApiResult<GameFilter> {
        // Like lichess, a larger `max` is cut to the most allowed.
        let limit = within("max", self.max.or(self.nb), 1, i64::MAX)?.map_or(100, |n| n.min(1000));
        let page = within("page", self.page, 1, 1_000_000)?.unwrap_or(1);
        let since = within("since", self.since, 0, i64::MAX)?;
        let until = within("until", self.until, 0, i64::MAX)?;
        let vs: Option<UserId> = match self.vs.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(name) => Some(user_named(accounts, name).await?.id),
        };
        Ok(GameFilter {
            variant: self.perf_type,
            rated: self.rated,
            result: self.result,
            vs,
            since,
            until,
            offset: (page - 1).saturating_mul(limit),
            limit,
        })
    }
}
