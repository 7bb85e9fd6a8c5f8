//! A game's chat (lichess's board and bot chat endpoints, and the page's
//! chat box) and players' reports. Who may write and read which room is
//! the games domain's ([`crate::games::chat`]); lines reach the followers
//! of a game as its events (`chatLine`, over the socket and the streams).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::accounts::{Accounts, MAX_OPEN_REPORTS};
use crate::auth::{AuthUser, MaybeUser};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Input, Path};
use crate::games::Games;
use crate::model::{ChatRoom, GameId, is_guest};
use crate::now_ms;
use crate::store::{ChatLine, NewReport, User};
use crate::views::OkJson;

/// Longest chat line, in characters (lichess's limit).
pub const CHAT_MAX_CHARS: usize = 140;
/// Longest report, in characters.
pub const REPORT_MAX_CHARS: usize = 1000;
/// The reasons a report may give (lichess's words).
pub const REPORT_REASONS: &[&str] = &["comm", "cheat", "boost", "other"];

/// A chat line to say (JSON or form).
#[derive(Debug, Deserialize, ToSchema)]
pub struct ChatParams {
    /// `player` or `spectator`.
    #[serde(deserialize_with = "super::params::required")]
    #[schema(value_type = String)]
    pub room: ChatRoom,
    /// 1 to 140 characters, no control characters.
    pub text: String,
}

/// The text of a chat line or a report, trimmed: 1 to `max` characters,
/// no control characters but line breaks where `lines` allows them.
fn checked_text(text: &str, max: usize, lines: bool) -> ApiResult<String> {
    let text = text.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return Err(ApiError::bad("invalid text: empty"));
    }
    if chars > max {
        return Err(ApiError::bad(format!(
            "invalid text: {chars} characters, at most {max}"
        )));
    }
    if text
        .chars()
        .any(|c| c.is_control() && !(lines && c == '\n'))
    {
        return Err(ApiError::bad("invalid text: control characters"));
    }
    Ok(text.to_owned())
}

/// Says `p` in game `id`'s chat as `by`.
async fn say(games: &Games, id: &GameId, by: &User, p: &ChatParams) -> ApiResult<Json<OkJson>> {
    let line = ChatLine {
        game_id: id.clone(),
        user_id: by.id,
        username: by.username.clone(),
        room: p.room,
        text: checked_text(&p.text, CHAT_MAX_CHARS, false)?,
        created_at: now_ms(),
    };
    games.say(by, line).await?;
    Ok(Json(OkJson::yes()))
}

/// Say something in a game's chat, as a bot.
#[utoipa::path(post, path = "/api/bot/game/{id}/chat", tag = "bot",
    params(("id" = String, Path, description = "game id")),
    request_body(content = ChatParams, description = "JSON or form", content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "said", body = OkJson),
        (status = 400, description = "bad room or text", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not a bot; the players' room of another's game; a player blocks you", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the room is full, or you said the most one may", body = ErrorBody)),
    security(("bearer" = [])))]
pub async fn bot_chat(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path(id): Path<GameId>,
    Input(p): Input<ChatParams>,
) -> ApiResult<Json<OkJson>> {
    say(&games, &id, user.bot()?, &p).await
}

/// Say something in a game's chat: the players' room (the players only)
/// or the spectators' (any registered player).
#[utoipa::path(post, path = "/api/board/game/{id}/chat", tag = "board",
    params(("id" = String, Path, description = "game id")),
    request_body(content = ChatParams, description = "JSON or form", content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "said", body = OkJson),
        (status = 400, description = "bad room or text", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "a bot; the players' room of another's game; a guest in the spectators' room; a player blocks you", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the room is full, or you said the most one may", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn board_chat(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path(id): Path<GameId>,
    Input(p): Input<ChatParams>,
) -> ApiResult<Json<OkJson>> {
    say(&games, &id, user.human()?, &p).await
}

/// A chat line as read.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatLineJson {
    /// Who said it.
    pub user: String,
    /// What was said.
    pub text: String,
    /// `player` or `spectator`.
    pub room: &'static str,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// A game's chat as the caller may read it, oldest first: while the game
/// is played, its players read their room and everyone else the
/// spectators'; once it is over, both; lines of muted players left out.
#[utoipa::path(get, path = "/api/board/game/{id}/chat", tag = "board",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "a malformed game id", body = ErrorBody),
        (status = 200, description = "the chat lines, oldest first", body = Vec<ChatLineJson>),
        (status = 404, description = "no such game", body = ErrorBody)))]
pub async fn read_chat(
    State(games): State<Arc<Games>>,
    MaybeUser(reader): MaybeUser,
    Path(id): Path<GameId>,
) -> ApiResult<Json<Vec<ChatLineJson>>> {
    let lines = games
        .chat_for(&id, reader.as_ref().map(|r| &r.user))
        .await?;
    Ok(Json(
        lines
            .into_iter()
            .map(|l| ChatLineJson {
                user: l.username,
                text: l.text,
                room: l.room.as_str(),
                created_at: l.created_at,
            })
            .collect(),
    ))
}

/// A game's chat as the bot API reads it (as `GET /api/board/game/{id}/chat`).
#[utoipa::path(get, path = "/api/bot/game/{id}/chat", tag = "bot",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "a malformed game id", body = ErrorBody),
        (status = 200, description = "the chat lines, oldest first", body = Vec<ChatLineJson>),
        (status = 404, description = "no such game", body = ErrorBody)))]
pub async fn read_bot_chat(
    games: State<Arc<Games>>,
    reader: MaybeUser,
    id: Path<GameId>,
) -> ApiResult<Json<Vec<ChatLineJson>>> {
    read_chat(games, reader, id).await
}

/// A report (JSON or form).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportParams {
    /// The player reported.
    pub username: String,
    /// `comm` (what they said), `cheat`, `boost` or `other`.
    pub reason: String,
    /// What happened: a chat line quoted, or your words (1 to 1,000
    /// characters).
    pub text: String,
    /// The game it happened in.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub game_id: Option<GameId>,
}

/// Report a player to the site's operators (a chat line, or their
/// conduct). A player may have a few reports open at once.
#[utoipa::path(post, path = "/api/report", tag = "account",
    request_body(content = ReportParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "filed", body = OkJson),
        (status = 400, description = "a bad reason or text, or yourself", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "a guest account", body = ErrorBody),
        (status = 404, description = "no such player or game", body = ErrorBody),
        (status = 429, description = "too many of your reports are open", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn report(
    State(accounts): State<Arc<Accounts>>,
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Input(p): Input<ReportParams>,
) -> ApiResult<Json<OkJson>> {
    let me = &user.user;
    if is_guest(&me.username) {
        return Err(ApiError::Forbidden("sign up to report a player".into()));
    }
    if !REPORT_REASONS.contains(&p.reason.as_str()) {
        return Err(ApiError::bad(format!(
            "invalid reason: {:?}, expected one of {}",
            p.reason,
            REPORT_REASONS.join(", ")
        )));
    }
    let text = checked_text(&p.text, REPORT_MAX_CHARS, true)?;
    let reported = accounts
        .user_named(&p.username)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no player named {}", p.username)))?;
    if reported.id == me.id {
        return Err(ApiError::bad("you cannot report yourself"));
    }
    if let Some(g) = &p.game_id {
        games.read(g, |_| ()).await?;
    }
    let filed = accounts
        .report(&NewReport {
            reporter_id: me.id,
            reported_id: reported.id,
            reason: p.reason,
            text,
            game_id: p.game_id,
            created_at: now_ms(),
        })
        .await?;
    if !filed {
        return Err(ApiError::TooManyRequests(format!(
            "you have {MAX_OPEN_REPORTS} reports open, the most one may: wait until they are read"
        )));
    }
    Ok(Json(OkJson::yes()))
}
