//! Correspondence actions of the board API: takebacks (lichess's
//! `takeback/{yes|no}`, also on the bot API), rematches and conditional
//! moves ("forecasts"). See docs/api.md "Takebacks, rematches, conditional
//! moves".

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::AuthUser;
use crate::challenges::Challenges;
use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Input, Path};
use crate::games::Games;
use crate::model::GameId;
use crate::views::{OkJson, RematchJson};

use super::params::Answer;

/// Propose or accept a takeback (`yes`), decline or withdraw one (`no`).
#[utoipa::path(post, path = "/api/board/game/{id}/takeback/{accept}", tag = "board",
    params(("id" = String, Path, description = "game id"),
        ("accept" = String, Path, description = "`yes` or `no`")),
    responses(
        (status = 200, description = "done", body = OkJson),
        (status = 400, description = "malformed id, or neither yes nor no", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your game, or a bot account (bots use the bot API)", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the game is over, nothing to take back, a game against the computer, or no offer to decline", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn takeback(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path((id, Answer(yes))): Path<(GameId, Answer)>,
) -> ApiResult<Json<OkJson>> {
    games.takeback(&id, user.human()?.id, yes).await?;
    Ok(Json(OkJson::yes()))
}

/// A takeback as a bot: propose, accept (`yes`), decline (`no`).
#[utoipa::path(post, path = "/api/bot/game/{id}/takeback/{accept}", tag = "bot",
    params(("id" = String, Path, description = "game id"),
        ("accept" = String, Path, description = "`yes` or `no`")),
    responses(
        (status = 200, description = "done", body = OkJson),
        (status = 400, description = "malformed id, or neither yes nor no", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not a bot, or not your game", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the game is over, nothing to take back, a game against the computer, or no offer to decline", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn bot_takeback(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path((id, Answer(yes))): Path<(GameId, Answer)>,
) -> ApiResult<Json<OkJson>> {
    games.takeback(&id, user.bot()?.id, yes).await?;
    Ok(Json(OkJson::yes()))
}

/// The answer to a rematch action.
#[derive(Debug, Serialize, ToSchema)]
pub struct RematchAnswerJson {
    /// Always true.
    pub ok: bool,
    /// Where the rematch stands now (`gameId` once accepted).
    pub rematch: Option<RematchJson>,
    /// A rematch offered to a bot: the challenge it was sent (lichess
    /// delivers rematches to bots as challenges; its game, once the bot
    /// accepts, has the challenge's id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenge: Option<crate::views::ChallengeJson>,
}

async fn answer_rematch(
    challenges: &Challenges,
    user: &AuthUser,
    id: &GameId,
    yes: bool,
) -> ApiResult<Json<RematchAnswerJson>> {
    let me = user.human()?;
    if yes && let Some(c) = challenges.rematch_bot(me, id).await? {
        return Ok(Json(RematchAnswerJson {
            ok: true,
            rematch: None,
            challenge: Some(challenges.json(&c).await?),
        }));
    }
    let g = challenges.rematch(me, id, yes).await?;
    Ok(Json(RematchAnswerJson {
        ok: true,
        rematch: g.rematch.as_ref().map(crate::views::rematch_json),
        challenge: None,
    }))
}

/// Offer a rematch of a finished game, or accept the opponent's offer (the
/// new game starts: colours swapped, same variant and start position).
/// Against the computer the new game starts at once; to a bot the offer is
/// a new challenge (`challenge`), which the bot accepts or declines.
#[utoipa::path(post, path = "/api/board/game/{id}/rematch", tag = "board",
    params(("id" = String, Path, description = "the finished game's id")),
    responses(
        (status = 200, description = "offered, or accepted (`rematch.gameId` is the new game)", body = RematchAnswerJson),
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your game, or a bot account", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the game is not over, already rematched or declined", body = ErrorBody),
        (status = 429, description = "the most games against the computer are under way", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn rematch(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Path(id): Path<GameId>,
) -> ApiResult<Json<RematchAnswerJson>> {
    answer_rematch(&challenges, &user, &id, true).await
}

/// `rematch/yes` (as `rematch`) or `rematch/no`: decline the opponent's
/// offer (final), or withdraw one's own.
#[utoipa::path(post, path = "/api/board/game/{id}/rematch/{accept}", tag = "board",
    params(("id" = String, Path, description = "the finished game's id"),
        ("accept" = String, Path, description = "`yes` or `no`")),
    responses(
        (status = 200, description = "done", body = RematchAnswerJson),
        (status = 400, description = "malformed id, or neither yes nor no", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your game, or a bot account", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the game is not over, already rematched or declined, no offer to decline, or the opponent is a bot", body = ErrorBody),
        (status = 429, description = "the most games against the computer are under way", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn rematch_answer(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Path((id, Answer(yes))): Path<(GameId, Answer)>,
) -> ApiResult<Json<RematchAnswerJson>> {
    answer_rematch(&challenges, &user, &id, yes).await
}

/// Conditional moves: lines of Merge-UCI moves, each starting with the
/// opponent's next move, then your reply, and so on.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ForecastsInput {
    /// The lines (an empty list clears them).
    pub steps: Vec<Vec<String>>,
}

/// Your conditional moves in a game.
#[derive(Debug, Serialize, ToSchema)]
pub struct ForecastsJson {
    /// The lines, canonical Merge-UCI (empty while it is your move).
    pub steps: Vec<Vec<String>>,
    /// The game's ply they start from.
    pub ply: i64,
}

/// Your conditional moves in a game (only yours: never shown to the
/// opponent or in any stream).
#[utoipa::path(get, path = "/api/board/game/{id}/forecasts", tag = "board",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 200, description = "your lines", body = ForecastsJson),
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your game, or a bot account", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn forecasts(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path(id): Path<GameId>,
) -> ApiResult<Json<ForecastsJson>> {
    let (steps, ply) = games.forecasts(&id, user.human()?.id).await?;
    Ok(Json(ForecastsJson { steps, ply }))
}

/// Replace your conditional moves (while it is the opponent's move). When
/// the opponent plays a line's first move, the server plays its reply in
/// the same commit.
#[utoipa::path(post, path = "/api/board/game/{id}/forecasts", tag = "board",
    params(("id" = String, Path, description = "game id")),
    request_body(content = ForecastsInput, content_type = "application/json"),
    responses(
        (status = 200, description = "stored (canonical Merge-UCI)", body = ForecastsJson),
        (status = 400, description = "malformed id or body", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your game, or a bot account", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the game is over, or it is your move", body = ErrorBody),
        (status = 413, description = "the body is too large", body = ErrorBody),
        (status = 415, description = "not JSON", body = ErrorBody),
        (status = 422, description = "a line the rules refuse: names the line, the move and the reason", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn set_forecasts(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path(id): Path<GameId>,
    Input(input): Input<ForecastsInput>,
) -> ApiResult<Json<ForecastsJson>> {
    let g = games
        .set_forecasts(&id, user.human()?.id, &input.steps)
        .await?;
    Ok(Json(ForecastsJson {
        steps: g.forecasts,
        ply: g.ply,
    }))
}
