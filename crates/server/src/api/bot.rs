//! The bot API, in lichess's shapes as lichess-bot calls it: bot accounts,
//! the token test, a bot's game stream, moves, resign, abort and chat,
//! users' online flags, the list of online bots and public user views.
//!
//! Bots play only here (the board API, the page's WebSocket and its
//! session refuse them, see [`crate::auth::AuthUser::human`]); humans are
//! refused here. Moves go through the board API's code
//! ([`super::board::play_as`]), so a bot's malformed or illegal move gets
//! exactly the same 400 or 422.
//!
//! "Online" means: holding a live connection to this node (an event
//! stream, a game stream or the page's WebSocket), see
//! [`crate::presence`].

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use utoipa::{IntoParams, ToSchema};

use super::board::{MoveParams, play_as};
use crate::accounts::Accounts;
use crate::auth::{self, AuthUser, MaybeUser};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{MovePath, Path, Query};
use crate::games::Actor;
use crate::games::Games;
use crate::live::Feeds;
use crate::model::GameId;
use crate::presence::Presence;
use crate::store::{BotUpgrade, Relation, TokenKind, User};
use crate::views::{GameFullJson, GameStateJson, OkJson, title_of};

/// Most tokens one token test may ask about.
const TOKEN_TEST_MAX: usize = 100;
/// Most users one status request may ask about.
const STATUS_MAX_IDS: usize = 100;

/// The scopes our tokens have: every token may do everything its account may.
pub const TOKEN_SCOPES: &str = "bot:play,board:play,challenge:read,challenge:write";

/// Make your account a bot (only an account that has no games).
#[utoipa::path(post, path = "/api/bot/account/upgrade", tag = "bot",
    responses(
        (status = 200, description = "the account is a bot (or already was)", body = OkJson),
        (status = 400, description = "the account has games, or is a guest's", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn upgrade(
    State(accounts): State<Arc<Accounts>>,
    user: AuthUser,
) -> ApiResult<Json<OkJson>> {
    // A guest's name cannot be challenged, looked up or signed in to again:
    // as a bot it would be unreachable.
    if crate::model::is_guest(&user.user.username) {
        return Err(ApiError::bad(
            "a guest account cannot become a bot: sign up for an account first",
        ));
    }
    match accounts.upgrade_to_bot(user.user.id).await? {
        BotUpgrade::Upgraded => {
            tracing::info!(user = %user.user.username, "upgraded to a bot account");
            Ok(Json(OkJson::yes()))
        }
        BotUpgrade::AlreadyBot => Ok(Json(OkJson::yes())),
        BotUpgrade::HasGames => Err(ApiError::bad(
            "this account has played games: only an account with no games can become a bot",
        )),
        BotUpgrade::NoUser => Err(ApiError::not_found("user")),
    }
}

/// What a token test says of one token.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenInfoJson {
    /// Comma-separated scopes.
    pub scopes: &'static str,
    /// The account's id (lower-cased name).
    pub user_id: String,
    /// Never: our tokens last until revoked.
    pub expires: Option<i64>,
}

/// Test tokens: the body is one or more raw tokens, comma-separated;
/// the answer maps each to its scopes and user, or to null.
#[utoipa::path(post, path = "/api/token/test", tag = "bot",
    request_body(content = String, description = "tokens, comma-separated", content_type = "text/plain"),
    responses(
        (status = 200, description = "an object: each token to its scopes and user (TokenInfoJson), or to null when unknown",
            body = serde_json::Value),
        (status = 400, description = "no token, or too many", body = ErrorBody)))]
pub async fn token_test(
    State(accounts): State<Arc<Accounts>>,
    body: String,
) -> ApiResult<Json<std::collections::BTreeMap<String, Option<TokenInfoJson>>>> {
    let tokens: Vec<&str> = body
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.is_empty() {
        return Err(ApiError::bad(
            "no token: send the tokens as the body, comma-separated",
        ));
    }
    if tokens.len() > TOKEN_TEST_MAX {
        return Err(ApiError::bad(format!(
            "too many tokens: at most {TOKEN_TEST_MAX} at once"
        )));
    }
    let mut out = std::collections::BTreeMap::new();
    for t in tokens {
        let user = accounts
            .user_by_token(&auth::token_hash(t), TokenKind::Api)
            .await?;
        out.insert(
            t.to_owned(),
            user.map(|u| TokenInfoJson {
                scopes: TOKEN_SCOPES,
                user_id: u.key(),
                expires: None,
            }),
        );
    }
    Ok(Json(out))
}

/// Stream one of your games as a bot: `gameFull`, then a `gameState` after
/// every change (ndjson); it ends after the state that finishes the game.
#[utoipa::path(get, path = "/api/bot/game/stream/{id}", tag = "bot",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "a malformed game id", body = ErrorBody),
        (status = 200, description = "ndjson: one gameFull line, then gameState lines; empty lines keep the connection alive",
            content((GameFullJson = "application/x-ndjson"), (GameStateJson = "application/x-ndjson"))),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not a bot, or not your game", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn game_stream(
    State(games): State<Arc<Games>>,
    State(feeds): State<Feeds>,
    State(presence): State<Arc<Presence>>,
    user: AuthUser,
    Path(id): Path<GameId>,
) -> ApiResult<Response> {
    let bot = user.bot()?;
    let plays = games
        .read(&id, |g| g.row.color_of(bot.id).is_some())
        .await?;
    if !plays {
        return Err(ApiError::Forbidden(format!("you do not play in game {id}")));
    }
    let reader = games.chat_reader(&id, Some(bot)).await?;
    let (tx, rx) = mpsc::channel(16);
    let online = presence.connect(bot.id);
    tokio::spawn(async move {
        let _online = online;
        if let Err(e) = feeds.game(id.clone(), None, false, reader, tx).await {
            tracing::warn!(game = %id, error = %e, "bot game stream failed");
        }
    });
    Ok(super::stream::ndjson(rx))
}

/// Play a move as a bot (Merge-UCI); the same answers as the board API's.
#[utoipa::path(post, path = "/api/bot/game/{id}/move/{move}", tag = "bot",
    params(("id" = String, Path, description = "game id"),
        ("move" = String, Path, description = "the move in Merge-UCI"),
        MoveParams),
    responses(
        (status = 200, description = "the move is committed", body = OkJson),
        (status = 400, description = "malformed move", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not a bot, or not your game", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "not your turn, or the game is over", body = ErrorBody),
        (status = 422, description = "illegal move, with the rules' reason", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn play_move(
    State(games): State<Arc<Games>>,
    MovePath { id, mv }: MovePath,
    user: AuthUser,
    Query(q): Query<MoveParams>,
) -> ApiResult<Json<OkJson>> {
    play_as(&games, user.bot()?, &id, &mv, &q).await
}

/// Resign as a bot.
#[utoipa::path(post, path = "/api/bot/game/{id}/resign", tag = "bot",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "a malformed game id", body = ErrorBody),
        (status = 200, description = "resigned", body = OkJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not a bot, or not your game", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the game is over", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn resign(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path(id): Path<GameId>,
) -> ApiResult<Json<OkJson>> {
    games.resign(&id, user.bot()?.id).await?;
    Ok(Json(OkJson::yes()))
}

/// Abort as a bot (only before both sides have moved).
#[utoipa::path(post, path = "/api/bot/game/{id}/abort", tag = "bot",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "a malformed game id", body = ErrorBody),
        (status = 200, description = "aborted", body = OkJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not a bot, or not your game", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "both sides have moved, or the game is over", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn abort(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path(id): Path<GameId>,
) -> ApiResult<Json<OkJson>> {
    games.abort(&id, Actor::User(user.bot()?.id)).await?;
    Ok(Json(OkJson::yes()))
}

/// A user's online flag.
#[derive(Debug, Serialize, ToSchema)]
pub struct UserStatusJson {
    /// Lower-cased name.
    pub id: String,
    /// The name as registered.
    pub name: String,
    /// `BOT` for a bot account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
    /// Whether they hold a live connection (stream or socket) to this server.
    pub online: bool,
}

/// Query of `GET /api/users/status`.
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct StatusParams {
    /// Comma-separated user names (at most 100).
    pub ids: Option<String>,
}

/// Users' online flags (unknown names are left out).
#[utoipa::path(get, path = "/api/users/status", tag = "bot",
    params(StatusParams),
    responses(
        (status = 200, description = "the known users, in the order asked", body = Vec<UserStatusJson>),
        (status = 400, description = "no ids, or too many", body = ErrorBody)))]
pub async fn users_status(
    State(accounts): State<Arc<Accounts>>,
    State(presence): State<Arc<Presence>>,
    Query(q): Query<StatusParams>,
) -> ApiResult<Json<Vec<UserStatusJson>>> {
    let ids: Vec<&str> = q
        .ids
        .as_deref()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if ids.is_empty() {
        return Err(ApiError::bad("missing ids: comma-separated user names"));
    }
    if ids.len() > STATUS_MAX_IDS {
        return Err(ApiError::bad(format!(
            "too many ids: at most {STATUS_MAX_IDS}"
        )));
    }
    let mut out = Vec::with_capacity(ids.len());
    for name in ids {
        // Names longer than any account's are nobody's (and are not looked up).
        if name.len() > 64 {
            continue;
        }
        if let Some(u) = accounts.user_named(name).await? {
            out.push(UserStatusJson {
                id: u.key(),
                online: presence.is_online(u.id),
                title: title_of(&u),
                name: u.username,
            });
        }
    }
    Ok(Json(out))
}

/// A user's public view.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicUserJson {
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
}

fn public_user(presence: &Presence, u: &User) -> PublicUserJson {
    PublicUserJson {
        id: u.key(),
        username: u.username.clone(),
        title: title_of(u),
        online: presence.is_online(u.id),
        created_at: u.created_at,
    }
}

/// A user's public view, with their ratings (`perfs`) and game counts;
/// signed in, whether you follow and block them (`following`, `blocking`).
#[utoipa::path(get, path = "/api/user/{username}", tag = "bot",
    params(("username" = String, Path, description = "the user")),
    responses(
        (status = 200, description = "the user", body = super::profile::UserProfileJson),
        (status = 404, description = "no such user", body = ErrorBody)))]
pub async fn user(
    State(accounts): State<Arc<Accounts>>,
    State(presence): State<Arc<Presence>>,
    MaybeUser(viewer): MaybeUser,
    Path(username): Path<String>,
) -> ApiResult<Json<super::profile::UserProfileJson>> {
    let u = accounts
        .user_named(&username)
        .await?
        .ok_or_else(|| ApiError::not_found("user"))?;
    let online = presence.is_online(u.id);
    let mut profile = super::profile::profile_json(&accounts, &u, online).await?;
    // As lichess: how the signed-in viewer relates to someone else.
    if let Some(me) = viewer.filter(|me| me.user.id != u.id) {
        profile.following = Some(accounts.related(Relation::Follow, me.user.id, u.id).await?);
        profile.blocking = Some(accounts.related(Relation::Block, me.user.id, u.id).await?);
    }
    Ok(Json(profile))
}

/// Query of `GET /api/bot/online`.
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct OnlineParams {
    /// How many bots at most (1-1000, default 50).
    #[serde(default, deserialize_with = "super::params::optional")]
    pub nb: Option<i64>,
}

/// Most bot accounts `GET /api/bot/online` looks through.
const ONLINE_SCAN: i64 = 5000;

/// The bots online now, one JSON object a line (ndjson).
#[utoipa::path(get, path = "/api/bot/online", tag = "bot",
    params(OnlineParams),
    responses(
        (status = 200, description = "ndjson: one user a line", body = PublicUserJson, content_type = "application/x-ndjson"),
        (status = 400, description = "bad nb", body = ErrorBody)))]
pub async fn online_bots(
    State(accounts): State<Arc<Accounts>>,
    State(presence): State<Arc<Presence>>,
    Query(q): Query<OnlineParams>,
) -> ApiResult<Response> {
    let nb = match q.nb {
        None => 50,
        Some(n) if n >= 1 => n.min(1000) as usize,
        Some(n) => return Err(ApiError::bad(format!("invalid nb {n}: a positive number"))),
    };
    let online: Vec<PublicUserJson> = accounts
        .bots(ONLINE_SCAN)
        .await?
        .iter()
        .filter(|u| presence.is_online(u.id))
        .take(nb)
        .map(|u| public_user(&presence, u))
        .collect();
    super::stream::ndjson_lines(&online)
}
