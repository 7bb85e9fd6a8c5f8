//! Challenges: to a user, open, against the computer; accept, decline, cancel.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::params::{CHALLENGE_CLOCK, ChallengeVariant, LooseBool, optional, time_control};
use crate::auth::AuthUser;
use crate::challenges::{Challenges, OPEN_LIST_LIMIT, Terms, direction_for};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Input, Path, Query};
use crate::games::Games;
use crate::model::{ChallengeId, ColorRequest, Variant};
use crate::store::Challenge;
use crate::views::DECLINE_REASONS;
use crate::views::{ChallengeJson, ChallengeListJson, GameJson, OkJson};

/// Parameters of a new challenge (JSON or form). Fields lichess's
/// clients send that have no meaning here are read and ignored (listed
/// last); any other unknown field is refused, naming it.
#[derive(Debug, Default, Deserialize, ToSchema, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ChallengeParams {
    /// `chessmerge` (default), `chessplus`, `fusion` or `standard`;
    /// `fromPosition` (lichess's name) is `standard` from `fen`.
    #[serde(default, deserialize_with = "optional")]
    #[schema(value_type = Option<String>)]
    #[param(value_type = Option<String>)]
    pub variant: Option<ChallengeVariant>,
    /// Your colour: `white`, `black` or `random` (default).
    #[serde(default, deserialize_with = "optional")]
    #[schema(value_type = Option<String>)]
    #[param(value_type = Option<String>)]
    pub color: Option<ColorRequest>,
    /// A custom start position (Merge-FEN).
    pub fen: Option<String>,
    /// The computer's level, 1-8 (`/api/challenge/ai` only, required there).
    #[serde(default, deserialize_with = "optional")]
    pub level: Option<i64>,
    /// lichess's `rated` (default false): a rated game changes both
    /// players' ratings. Refused for games against the computer and from
    /// custom positions (those are casual). `true`/`false` in any case
    /// (`True`, `False`), `1`/`0`, `yes`/`no`, `on`/`off`.
    #[serde(default, deserialize_with = "optional")]
    #[schema(value_type = Option<bool>)]
    #[param(value_type = Option<bool>)]
    pub rated: Option<LooseBool>,
    /// Days per move of a correspondence game: 1, 2, 3, 5, 7, 10 or 14
    /// (lichess's). Leave out `days` and the clock for an untimed game.
    #[serde(default, deserialize_with = "optional")]
    pub days: Option<i64>,
    /// A real-time clock's initial time, seconds: 0 to 10800 (with `clock.increment`).
    #[serde(rename = "clock.limit", default, deserialize_with = "optional")]
    pub clock_limit: Option<i64>,
    /// A real-time clock's increment, seconds: 0 to 180 (with `clock.limit`).
    #[serde(rename = "clock.increment", default, deserialize_with = "optional")]
    pub clock_increment: Option<i64>,
    /// lichess's name of an open challenge (berserk's `create_open` sends
    /// it, often `null`): ignored.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    #[param(value_type = Option<String>)]
    pub name: Option<serde::de::IgnoredAny>,
    /// lichess's extra rules (`noAbort`, `noRematch`, ...): ignored.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    #[param(value_type = Option<String>)]
    pub rules: Option<serde::de::IgnoredAny>,
    /// lichess's players allowed to accept an open challenge: ignored
    /// (anyone may accept).
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    #[param(value_type = Option<String>)]
    pub users: Option<serde::de::IgnoredAny>,
    /// lichess's expiry of an open challenge: ignored.
    #[serde(rename = "expiresAt", default)]
    #[schema(value_type = Option<i64>)]
    #[param(value_type = Option<i64>)]
    pub expires_at: Option<serde::de::IgnoredAny>,
    /// lichess's `keepAliveStream` (stream until answered): ignored, the
    /// challenge is answered at once.
    #[serde(rename = "keepAliveStream", default)]
    #[schema(value_type = Option<bool>)]
    #[param(value_type = Option<bool>)]
    pub keep_alive_stream: Option<serde::de::IgnoredAny>,
    /// lichess's message to the challenged player: ignored.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    #[param(value_type = Option<String>)]
    pub message: Option<serde::de::IgnoredAny>,
    /// lichess's `acceptByToken` (accept at once with the opponent's
    /// token): refused unless left empty, since it is not offered.
    #[serde(rename = "acceptByToken", default)]
    pub accept_by_token: Option<String>,
}

/// The answer to a declined challenge.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeclineParams {
    /// `generic` (default), `later`, `tooFast`, `tooSlow`, `timeControl`,
    /// `rated`, `casual`, `standard`, `variant`, `noBot` or `onlyBot`.
    pub reason: Option<String>,
}

fn terms(p: &ChallengeParams) -> ApiResult<Terms> {
    let rated = p.rated.is_some_and(|r| r.0);
    let time_control = time_control(p.clock_limit, p.clock_increment, p.days, CHALLENGE_CLOCK)?;
    if p.accept_by_token
        .as_deref()
        .is_some_and(|t| !t.trim().is_empty())
    {
        return Err(ApiError::bad(
            "acceptByToken is not offered: challenge the player and let them accept",
        ));
    }
    let from_position = p.variant.is_some_and(|v| v.from_position);
    if from_position && p.fen.as_deref().is_none_or(|f| f.trim().is_empty()) {
        return Err(ApiError::bad(
            "variant fromPosition needs a fen: send the start position in fen",
        ));
    }
    let mut terms = Terms::new(
        p.variant.map_or(Variant::ChessMerge, |v| v.variant),
        p.color.unwrap_or(ColorRequest::Random),
        p.fen.as_deref(),
    )?;
    if rated && terms.fen.is_some() {
        return Err(ApiError::bad(
            "games from a custom position are casual: send rated=false or leave out the fen",
        ));
    }
    terms.rated = rated;
    terms.time_control = time_control;
    Ok(terms)
}

async fn json_out(challenges: &Challenges, c: &Challenge) -> ApiResult<Json<ChallengeJson>> {
    Ok(Json(challenges.json(c).await?))
}

/// Challenge a user.
#[utoipa::path(post, path = "/api/challenge/{username}", tag = "challenges",
    params(("username" = String, Path, description = "whom to challenge")),
    request_body(content = ChallengeParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 429, description = "a per-user cap is reached (the message names it)", body = ErrorBody),
        (status = 200, description = "the challenge", body = ChallengeJson),
        (status = 400, description = "bad variant, colour or FEN; rated from a custom position", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 404, description = "no such user", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn challenge_user(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Path(username): Path<String>,
    Input(p): Input<ChallengeParams>,
) -> ApiResult<Json<ChallengeJson>> {
    let terms = terms(&p)?;
    let c = challenges
        .create(&user.user, Some(&username), terms)
        .await?;
    json_out(&challenges, &c).await
}

/// Create an open challenge: any other player may accept it.
#[utoipa::path(post, path = "/api/challenge/open", tag = "challenges",
    request_body(content = ChallengeParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 429, description = "a per-user cap is reached (the message names it)", body = ErrorBody),
        (status = 200, description = "the challenge", body = ChallengeJson),
        (status = 400, description = "bad variant, colour or FEN; rated from a custom position", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn challenge_open(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Input(p): Input<ChallengeParams>,
) -> ApiResult<Json<ChallengeJson>> {
    let c = challenges.create(&user.user, None, terms(&p)?).await?;
    json_out(&challenges, &c).await
}

/// Start a game against the computer at once.
#[utoipa::path(post, path = "/api/challenge/ai", tag = "challenges",
    request_body(content = ChallengeParams, description = "JSON or form; `level` 1-8 is required", content_type = "application/json"),
    responses(
        (status = 429, description = "a per-user cap is reached (the message names it)", body = ErrorBody),
        (status = 200, description = "the game", body = GameJson),
        (status = 400, description = "bad level, variant, colour or FEN; rated (games against the computer are casual)", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn challenge_ai(
    State(challenges): State<Arc<Challenges>>,
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Input(p): Input<ChallengeParams>,
) -> ApiResult<Json<GameJson>> {
    let Some(level) = p.level else {
        return Err(ApiError::bad("missing level: 1 to 8"));
    };
    let level = u8::try_from(level)
        .ok()
        .filter(|l| (1..=8).contains(l))
        .ok_or_else(|| ApiError::bad("invalid level: 1 to 8"))?;
    let terms = terms(&p)?;
    if terms.rated {
        return Err(ApiError::bad(
            "games against the computer are casual: send rated=false or leave it out",
        ));
    }
    let g = challenges.create_ai(&user.user, level, terms).await?;
    let viewer = user.user.id;
    Ok(Json(
        games
            .read(&g.id, |live| super::board::game_json(live, Some(viewer)))
            .await?,
    ))
}

/// Page size of `GET /api/challenge` when `nb` is not given.
pub const CHALLENGE_PAGE_DEFAULT: usize = 50;
/// The largest page of `GET /api/challenge`.
pub const CHALLENGE_PAGE_MAX: usize = 200;

/// Query of `GET /api/challenge`.
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct ChallengePageParams {
    /// Challenges per list and page: 1-200, default 50.
    #[serde(default, deserialize_with = "optional")]
    pub nb: Option<i64>,
    /// Which page, from 1 (default), oldest challenges first.
    #[serde(default, deserialize_with = "optional")]
    pub page: Option<i64>,
}

fn positive(name: &str, n: Option<i64>, default: usize, max: usize) -> ApiResult<usize> {
    match n {
        None => Ok(default),
        Some(n) => usize::try_from(n)
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| ApiError::bad(format!("invalid {name} {n}: a number from 1 to {max}"))),
    }
}

/// Your pending challenges: `in` (to you) and `out` (by you), oldest
/// first, `nb` of each per page; `nextPage` is there when either list goes on.
#[utoipa::path(get, path = "/api/challenge", tag = "challenges",
    params(ChallengePageParams),
    responses(
        (status = 200, description = "pending challenges", body = ChallengeListJson),
        (status = 400, description = "bad nb or page", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn list(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Query(q): Query<ChallengePageParams>,
) -> ApiResult<Json<ChallengeListJson>> {
    let nb = positive("nb", q.nb, CHALLENGE_PAGE_DEFAULT, CHALLENGE_PAGE_MAX)?;
    let page = positive("page", q.page, 1, 1_000_000)?;
    let (incoming, outgoing) = challenges.pending_of(user.user.id).await?;
    let skip = (page - 1).saturating_mul(nb);
    let mut out = ChallengeListJson {
        incoming: Vec::new(),
        outgoing: Vec::new(),
        next_page: (incoming.len().max(outgoing.len()) > skip.saturating_add(nb))
            .then_some(page + 1),
    };
    for c in incoming.iter().skip(skip).take(nb) {
        let mut j = challenges.json(c).await?;
        j.direction = Some("in".into());
        out.incoming.push(j);
    }
    for c in outgoing.iter().skip(skip).take(nb) {
        let mut j = challenges.json(c).await?;
        j.direction = Some("out".into());
        out.outgoing.push(j);
    }
    Ok(Json(out))
}

/// `GET /api/challenge/open`.
#[derive(Debug, Serialize, ToSchema)]
pub struct OpenChallengesJson {
    /// Pending open challenges, newest first; yours have `direction: "out"`,
    /// the others' (which you may accept) `direction: "in"`.
    pub challenges: Vec<ChallengeJson>,
}

/// Query of `GET /api/challenge/open`.
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct OpenListParams {
    /// How many challenges at most: 1-50, default 50.
    #[serde(default, deserialize_with = "optional")]
    pub nb: Option<i64>,
}

/// The lobby: pending open challenges by every player, each player's
/// newest first, then each one's next (one player's many cannot crowd
/// the others out).
#[utoipa::path(get, path = "/api/challenge/open", tag = "challenges",
    params(OpenListParams),
    responses(
        (status = 200, description = "pending open challenges, each player's newest first", body = OpenChallengesJson),
        (status = 400, description = "bad nb", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn list_open(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Query(q): Query<OpenListParams>,
) -> ApiResult<Json<OpenChallengesJson>> {
    let limit = match q.nb {
        None => OPEN_LIST_LIMIT,
        Some(n) if n >= 1 => n.min(OPEN_LIST_LIMIT),
        Some(n) => return Err(ApiError::bad(format!("invalid nb {n}: a positive number"))),
    };
    Ok(Json(OpenChallengesJson {
        challenges: challenges.open_for(user.user.id, limit).await?,
    }))
}

/// One challenge: yours, one addressed to you, or any open challenge.
#[utoipa::path(get, path = "/api/challenge/{id}/show", tag = "challenges",
    params(("id" = String, Path, description = "challenge id")),
    responses(
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 200, description = "the challenge, any status", body = ChallengeJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "another player's challenge to someone else", body = ErrorBody),
        (status = 404, description = "no such challenge", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn show(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Path(id): Path<ChallengeId>,
) -> ApiResult<Json<ChallengeJson>> {
    let c: Challenge = challenges.get(&id).await?;
    let me = user.user.id;
    if c.challenger_id != me
        && c.dest_user_id != Some(me)
        && c.kind != crate::model::ChallengeKind::Open
    {
        return Err(ApiError::Forbidden("not your challenge".into()));
    }
    let mut j = challenges.json(&c).await?;
    j.direction = Some(direction_for(c.challenger_id, me).into());
    Ok(Json(j))
}

/// Accept a challenge: creates the game (its id is the challenge's id).
#[utoipa::path(post, path = "/api/challenge/{id}/accept", tag = "challenges",
    params(("id" = String, Path, description = "challenge id")),
    responses(
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 200, description = "accepted; the game has started", body = OkJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "the challenge is not addressed to you", body = ErrorBody),
        (status = 404, description = "no such challenge", body = ErrorBody),
        (status = 409, description = "no longer pending", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn accept(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Path(id): Path<ChallengeId>,
) -> ApiResult<Json<OkJson>> {
    challenges.accept(&user.user, &id).await?;
    Ok(Json(OkJson::yes()))
}

/// Decline a challenge addressed to you.
#[utoipa::path(post, path = "/api/challenge/{id}/decline", tag = "challenges",
    params(("id" = String, Path, description = "challenge id")),
    request_body(content = DeclineParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "declined", body = OkJson),
        (status = 400, description = "malformed id, or unknown reason", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "the challenge is not addressed to you", body = ErrorBody),
        (status = 404, description = "no such challenge", body = ErrorBody),
        (status = 409, description = "no longer pending", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn decline(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Path(id): Path<ChallengeId>,
    Input(p): Input<DeclineParams>,
) -> ApiResult<Json<OkJson>> {
    let reason = match p.reason.as_deref() {
        None | Some("") => "generic",
        Some(r) => DECLINE_REASONS
            .iter()
            .map(|(key, _)| *key)
            .find(|k| k.eq_ignore_ascii_case(r))
            .ok_or_else(|| {
                let keys: Vec<&str> = DECLINE_REASONS.iter().map(|(key, _)| *key).collect();
                ApiError::bad(format!(
                    "invalid reason {r:?}: expected one of {}",
                    keys.join(", ")
                ))
            })?,
    };
    challenges.decline(user.user.id, &id, reason).await?;
    Ok(Json(OkJson::yes()))
}

/// Cancel your challenge (or abort its game while no one has moved).
#[utoipa::path(post, path = "/api/challenge/{id}/cancel", tag = "challenges",
    params(("id" = String, Path, description = "challenge id")),
    responses(
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 200, description = "canceled", body = OkJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your challenge", body = ErrorBody),
        (status = 404, description = "no such challenge", body = ErrorBody),
        (status = 409, description = "no longer pending", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn cancel(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Path(id): Path<ChallengeId>,
) -> ApiResult<Json<OkJson>> {
    challenges.cancel(user.user.id, &id).await?;
    Ok(Json(OkJson::yes()))
}
