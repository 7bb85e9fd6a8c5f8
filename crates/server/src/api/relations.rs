//! Relations between players: blocking (lichess's `/api/rel/block`). A
//! player someone blocks may not challenge them or write in the chat of
//! their games; the blocked player is told so when they try.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::accounts::Accounts;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Path;
use crate::store::User;
use crate::views::OkJson;

/// The account named `name`, not the caller's own.
async fn other_player(accounts: &Accounts, me: &User, name: &str) -> ApiResult<User> {
    let other = accounts
        .user_named(name)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no player named {name}")))?;
    if other.id == me.id {
        return Err(ApiError::bad("you cannot block yourself"));
    }
    Ok(other)
}

/// Block a player: they may no longer challenge you or write in the chat
/// of your games. Blocking again changes nothing.
#[utoipa::path(post, path = "/api/rel/block/{username}", tag = "account",
    params(("username" = String, Path, description = "the player to block")),
    responses(
        (status = 200, description = "blocked", body = OkJson),
        (status = 400, description = "yourself", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 404, description = "no such player", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn block(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
    Path(name): Path<String>,
) -> ApiResult<Json<OkJson>> {
    let other = other_player(&accounts, &user.user, &name).await?;
    if !accounts.block(user.user.id, other.id).await? {
        return Err(ApiError::NotFound(format!("no player named {name}")));
    }
    Ok(Json(OkJson::yes()))
}

/// Unblock a player (one not blocked: nothing changes).
#[utoipa::path(post, path = "/api/rel/unblock/{username}", tag = "account",
    params(("username" = String, Path, description = "the player to unblock")),
    responses(
        (status = 200, description = "not blocked (any more)", body = OkJson),
        (status = 400, description = "yourself", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 404, description = "no such player", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn unblock(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
    Path(name): Path<String>,
) -> ApiResult<Json<OkJson>> {
    let other = other_player(&accounts, &user.user, &name).await?;
    accounts.unblock(user.user.id, other.id).await?;
    Ok(Json(OkJson::yes()))
}

/// `GET /api/rel/blocking`.
#[derive(Debug, Serialize, ToSchema)]
pub struct BlockingJson {
    /// The names of the players you block, most recently blocked first.
    pub blocking: Vec<String>,
}

/// The players you block.
#[utoipa::path(get, path = "/api/rel/blocking", tag = "account",
    responses(
        (status = 200, description = "the players you block", body = BlockingJson),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn blocking(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
) -> ApiResult<Json<BlockingJson>> {
    let blocked = accounts.blocked_users(user.user.id).await?;
    Ok(Json(BlockingJson {
        blocking: blocked.into_iter().map(|u| u.username).collect(),
    }))
}
