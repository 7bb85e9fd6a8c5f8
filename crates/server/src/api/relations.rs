//! Relations between players (lichess's `/api/rel/...`): following (the
//! friends list, with who is online and playing), blocking and muting. A
//! player someone blocks may not challenge them, write in the chat of
//! their games or follow them; the blocked player is told so when they
//! try. A muted player's chat lines are not shown to the player who muted
//! them (they are not told).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use serde::Serialize;
use utoipa::ToSchema;

use crate::accounts::{Accounts, Follow, MAX_FOLLOWING};
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Path;
use crate::presence::Presence;
use crate::store::{Relation, User};
use crate::views::OkJson;

/// The account named `name`, not the caller's own (`what` they would do
/// to themself).
async fn other_player(accounts: &Accounts, me: &User, name: &str, what: &str) -> ApiResult<User> {
    let other = accounts
        .user_named(name)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no player named {name}")))?;
    if other.id == me.id {
        return Err(ApiError::bad(format!("you cannot {what} yourself")));
    }
    Ok(other)
}

/// Block a player: they may no longer challenge you, write in the chat
/// of your games or follow you (neither of you follows the other any
/// more). Blocking again changes nothing.
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
    let other = other_player(&accounts, &user.user, &name, "block").await?;
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
    drop_relation(&accounts, &user, &name, Relation::Block, "unblock").await
}

/// `user` drops `rel` to the player named `name` (`verb`: the request's).
async fn drop_relation(
    accounts: &Accounts,
    user: &AuthUser,
    name: &str,
    rel: Relation,
    verb: &str,
) -> ApiResult<Json<OkJson>> {
    let other = other_player(accounts, &user.user, name, verb).await?;
    accounts.unrelate(rel, user.user.id, other.id).await?;
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
    let blocked = accounts
        .related_users(Relation::Block, user.user.id)
        .await?;
    Ok(Json(BlockingJson {
        blocking: blocked.into_iter().map(|u| u.username).collect(),
    }))
}

/// Follow a player: they join your friends list. Following again changes
/// nothing.
#[utoipa::path(post, path = "/api/rel/follow/{username}", tag = "account",
    params(("username" = String, Path, description = "the player to follow")),
    responses(
        (status = 200, description = "followed", body = OkJson),
        (status = 400, description = "yourself", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "they block you", body = ErrorBody),
        (status = 404, description = "no such player", body = ErrorBody),
        (status = 429, description = "you follow the most players allowed", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn follow(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
    Path(name): Path<String>,
) -> ApiResult<Json<OkJson>> {
    let other = other_player(&accounts, &user.user, &name, "follow").await?;
    match accounts.follow(user.user.id, other.id).await? {
        Follow::Done => Ok(Json(OkJson::yes())),
        Follow::Blocked => Err(ApiError::Forbidden(format!(
            "{} does not accept followers from you",
            other.username
        ))),
        Follow::TooMany => Err(ApiError::TooManyRequests(format!(
            "you follow {MAX_FOLLOWING} players, the most allowed: unfollow one first"
        ))),
        Follow::Gone => Err(ApiError::NotFound(format!("no player named {name}"))),
    }
}

/// Unfollow a player (one not followed: nothing changes).
#[utoipa::path(post, path = "/api/rel/unfollow/{username}", tag = "account",
    params(("username" = String, Path, description = "the player to unfollow")),
    responses(
        (status = 200, description = "not followed (any more)", body = OkJson),
        (status = 400, description = "yourself", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 404, description = "no such player", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn unfollow(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
    Path(name): Path<String>,
) -> ApiResult<Json<OkJson>> {
    drop_relation(&accounts, &user, &name, Relation::Follow, "unfollow").await
}

/// Mute a player: their lines in game chats are no longer shown to you
/// (the page leaves them out; they are not told). Muting again changes
/// nothing.
#[utoipa::path(post, path = "/api/rel/mute/{username}", tag = "account",
    params(("username" = String, Path, description = "the player to mute")),
    responses(
        (status = 200, description = "muted", body = OkJson),
        (status = 400, description = "yourself", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 404, description = "no such player", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn mute(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
    Path(name): Path<String>,
) -> ApiResult<Json<OkJson>> {
    let other = other_player(&accounts, &user.user, &name, "mute").await?;
    if !accounts.mute(user.user.id, other.id).await? {
        return Err(ApiError::NotFound(format!("no player named {name}")));
    }
    Ok(Json(OkJson::yes()))
}

/// Unmute a player (one not muted: nothing changes).
#[utoipa::path(post, path = "/api/rel/unmute/{username}", tag = "account",
    params(("username" = String, Path, description = "the player to unmute")),
    responses(
        (status = 200, description = "not muted (any more)", body = OkJson),
        (status = 400, description = "yourself", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 404, description = "no such player", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn unmute(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
    Path(name): Path<String>,
) -> ApiResult<Json<OkJson>> {
    drop_relation(&accounts, &user, &name, Relation::Mute, "unmute").await
}

/// `GET /api/rel/muting`.
#[derive(Debug, Serialize, ToSchema)]
pub struct MutingJson {
    /// The names of the players you mute, most recently muted first.
    pub muting: Vec<String>,
}

/// The players you mute.
#[utoipa::path(get, path = "/api/rel/muting", tag = "account",
    responses(
        (status = 200, description = "the players you mute", body = MutingJson),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn muting(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
) -> ApiResult<Json<MutingJson>> {
    let muted = accounts.related_users(Relation::Mute, user.user.id).await?;
    Ok(Json(MutingJson {
        muting: muted.into_iter().map(|u| u.username).collect(),
    }))
}

/// A followed player, as the friends list shows them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FriendJson {
    /// Lower-cased name.
    pub id: String,
    /// The name as registered.
    pub username: String,
    /// `BOT` for a bot account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    /// Whether they hold a live connection to this server.
    pub online: bool,
    /// Whether they have a game under way.
    pub playing: bool,
    /// Their most recently changed game under way, to watch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playing_id: Option<String>,
}

/// The players you follow, by name, one JSON object a line (ndjson, as
/// lichess's), each with whether they are online and playing.
#[utoipa::path(get, path = "/api/rel/following", tag = "account",
    responses(
        (status = 200, description = "ndjson: one player a line", body = FriendJson, content_type = "application/x-ndjson"),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn following(
    State(accounts): State<Arc<Accounts>>,
    State(presence): State<Arc<Presence>>,
    user: AuthUser,
) -> ApiResult<Response> {
    let mut friends = Vec::new();
    for (u, game) in accounts.following(user.user.id).await? {
        let playing_id = game.map(|g| g.to_string());
        friends.push(FriendJson {
            id: u.key(),
            title: crate::views::title_of(&u),
            online: presence.is_online(u.id),
            playing: playing_id.is_some(),
            playing_id,
            username: u.username,
        });
    }
    super::stream::ndjson_lines(&friends)
}
