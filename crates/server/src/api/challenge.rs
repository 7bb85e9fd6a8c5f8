//! Challenges: to a user, open, against the computer; accept, decline, cancel.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use chessmerge_rules::{Position, Variant};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::{AuthUser, random_bytes};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Input, Path, Query};
use crate::game::{self, Actor};
use crate::hub::LobbyUpdate;
use crate::store::{self, Challenge, StoreError, User};
use crate::views::{self, ChallengeJson, ChallengeListJson, GameJson, OkJson};
use crate::{AppState, ai, now_ms};

/// How many open challenges the lobby list holds at most (and by default).
pub const OPEN_LIST_LIMIT: i64 = 50;

/// A number sent as JSON number or as form text.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum NumberParam {
    /// A JSON number.
    Number(i64),
    /// Text (form encoding).
    Text(String),
}

/// Parameters of a new challenge (JSON or form).
#[derive(Debug, Default, Deserialize, ToSchema, IntoParams)]
pub struct ChallengeParams {
    /// `chessmerge` (default), `chessplus`, `fusion` or `standard`.
    pub variant: Option<String>,
    /// Your colour: `white`, `black` or `random` (default).
    pub color: Option<String>,
    /// A custom start position (Merge-FEN).
    pub fen: Option<String>,
    /// The computer's level, 1-8 (`/api/challenge/ai` only, required there).
    #[schema(value_type = Option<i64>)]
    #[param(value_type = Option<i64>)]
    pub level: Option<NumberParam>,
}

/// The answer to a declined challenge.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct DeclineParams {
    /// `generic` (default), `later`, `tooFast`, `tooSlow`, `timeControl`,
    /// `rated`, `casual`, `standard`, `variant`, `noBot` or `onlyBot`.
    pub reason: Option<String>,
}

const DECLINE_REASONS: [&str; 11] = [
    "generic",
    "later",
    "tooFast",
    "tooSlow",
    "timeControl",
    "rated",
    "casual",
    "standard",
    "variant",
    "noBot",
    "onlyBot",
];

struct Validated {
    variant: Variant,
    color: &'static str,
    fen: Option<String>,
}

fn validate(p: &ChallengeParams) -> ApiResult<Validated> {
    let variant = match p.variant.as_deref() {
        None | Some("") => Variant::ChessMerge,
        Some(v) => views::parse_variant(v)?,
    };
    let color = match p.color.as_deref() {
        None | Some("") | Some("random") => "random",
        Some("white") => "white",
        Some("black") => "black",
        Some(c) => {
            return Err(ApiError::bad(format!(
                "invalid color {c:?}: expected white, black or random"
            )));
        }
    };
    let fen = match p.fen.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(f) => {
            if f.len() > 200 {
                return Err(ApiError::bad("invalid fen: too long"));
            }
            let pos = Position::from_fen(variant, f)
                .map_err(|e| ApiError::bad(format!("invalid fen: {e}")))?;
            if pos.legal_moves().is_empty() {
                return Err(ApiError::bad(
                    "invalid fen: the side to move has no legal move",
                ));
            }
            let canonical = pos.fen();
            (canonical != Position::new(variant).fen()).then_some(canonical)
        }
    };
    Ok(Validated {
        variant,
        color,
        fen,
    })
}

/// A new random id: 8 letters and digits.
pub fn new_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut out = String::with_capacity(8);
    while out.len() < 8 {
        for b in random_bytes::<16>() {
            // 248 = 4 * 62: reject the top values so that every letter is equally likely.
            if b < 248 && out.len() < 8 {
                out.push(ALPHABET[(b % 62) as usize] as char);
            }
        }
    }
    out
}

fn random_color() -> &'static str {
    if random_bytes::<1>()[0] & 1 == 0 {
        "white"
    } else {
        "black"
    }
}

/// The colours of challenger and acceptor.
fn resolve_colors(requested: &str) -> (&'static str, &'static str) {
    let challenger = match requested {
        "white" => "white",
        "black" => "black",
        _ => random_color(),
    };
    (challenger, views::other(challenger))
}

/// A fresh game record for a challenge, and its first event.
fn new_game(
    c: &Challenge,
    white_id: Option<i64>,
    black_id: Option<i64>,
) -> ApiResult<(store::Game, String)> {
    let variant = views::parse_variant(&c.variant)?;
    let pos = match &c.initial_fen {
        Some(f) => Position::from_fen(variant, f)
            .map_err(|e| ApiError::bad(format!("invalid fen: {e}")))?,
        None => Position::new(variant),
    };
    let now = now_ms();
    let g = store::Game {
        id: c.id.clone(),
        variant: variant.id().to_owned(),
        initial_fen: pos.fen(),
        white_id,
        black_id,
        ai_level: c.ai_level,
        status: "started".into(),
        winner: None,
        status_reason: None,
        moves: String::new(),
        fen: pos.fen(),
        ply: 0,
        version: 1,
        draw_offer: None,
        created_at: now,
        updated_at: now,
    };
    let event = serde_json::to_string(&views::game_state(&g)?)
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok((g, event))
}

async fn challenge_json(state: &AppState, c: &Challenge) -> ApiResult<ChallengeJson> {
    let challenger = state.store.user_by_id(c.challenger_id).await?;
    let dest = match c.dest_user_id {
        Some(id) => state.store.user_by_id(id).await?,
        None => None,
    };
    ChallengeJson::new(c, challenger.as_ref(), dest.as_ref(), &state.base_url)
}

/// `direction` of a challenge as `viewer` sees it: `out` when they made it,
/// `in` otherwise.
pub fn direction_for(challenger_id: i64, viewer: i64) -> &'static str {
    if challenger_id == viewer { "out" } else { "in" }
}

/// The pending open challenges, newest first (at most `limit`), as `viewer`
/// sees them: their own marked `direction: "out"`, the others' `"in"`.
pub async fn open_list(state: &AppState, viewer: i64, limit: i64) -> ApiResult<Vec<ChallengeJson>> {
    let list = state.store.open_challenges(limit).await?;
    let mut users: HashMap<i64, Option<User>> = HashMap::new();
    let mut out = Vec::with_capacity(list.len());
    for c in &list {
        if let Entry::Vacant(e) = users.entry(c.challenger_id) {
            e.insert(state.store.user_by_id(c.challenger_id).await?);
        }
        let challenger = users.get(&c.challenger_id).and_then(Option::as_ref);
        let mut j = ChallengeJson::new(c, challenger, None, &state.base_url)?;
        j.direction = Some(direction_for(c.challenger_id, viewer));
        out.push(j);
    }
    Ok(out)
}

/// Tells lobby pages that an open challenge appeared (`challenge`) or left
/// the list (`challengeAccepted`, `challengeCanceled`). Only called after
/// the change is committed.
async fn announce_lobby(state: &AppState, c: &Challenge, kind: &'static str) {
    if c.kind != "open" {
        return;
    }
    let json = match challenge_json(state, c)
        .await
        .and_then(|j| serde_json::to_value(j).map_err(|e| ApiError::Internal(e.to_string())))
    {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!(challenge = %c.id, error = %e, "cannot announce {kind} to the lobby");
            return;
        }
    };
    state.hub.publish_lobby(LobbyUpdate {
        kind,
        challenger_id: c.challenger_id,
        challenge: Arc::new(json),
    });
}

/// Tells the challenger and the challenged player of a challenge event.
async fn notify(state: &AppState, c: &Challenge, kind: &str) {
    match challenge_json(state, c).await {
        Ok(json) => {
            let ev: std::sync::Arc<str> = serde_json::json!({ "type": kind, "challenge": json })
                .to_string()
                .into();
            state.hub.publish_user(c.challenger_id, ev.clone());
            if let Some(d) = c.dest_user_id {
                state.hub.publish_user(d, ev);
            }
        }
        Err(e) => tracing::warn!(challenge = %c.id, error = %e, "cannot notify {kind}"),
    }
}

async fn create(
    state: &AppState,
    user: &AuthUser,
    kind: &str,
    dest: Option<i64>,
    p: &ChallengeParams,
) -> ApiResult<Challenge> {
    let v = validate(p)?;
    for _ in 0..5 {
        let c = Challenge {
            id: new_id(),
            kind: kind.into(),
            challenger_id: user.user.id,
            dest_user_id: dest,
            variant: v.variant.id().into(),
            color: v.color.into(),
            initial_fen: v.fen.clone(),
            ai_level: None,
            status: "created".into(),
            decline_reason: None,
            created_at: now_ms(),
        };
        match state.store.create_challenge(&c).await {
            Ok(()) => {
                notify(state, &c, "challenge").await;
                announce_lobby(state, &c, "challenge").await;
                return Ok(c);
            }
            Err(StoreError::Conflict) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::Internal(
        "could not find a free challenge id".into(),
    ))
}

/// Challenge a user.
#[utoipa::path(post, path = "/api/challenge/{username}", tag = "challenges",
    params(("username" = String, Path, description = "whom to challenge")),
    request_body(content = ChallengeParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "the challenge", body = ChallengeJson),
        (status = 400, description = "bad variant, colour or FEN", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 404, description = "no such user", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn challenge_user(
    State(state): State<AppState>,
    user: AuthUser,
    Path(username): Path<String>,
    Input(p): Input<ChallengeParams>,
) -> ApiResult<Json<ChallengeJson>> {
    let dest = state
        .store
        .user_by_name(&username)
        .await?
        .ok_or_else(|| ApiError::not_found("user"))?;
    if dest.id == user.user.id {
        return Err(ApiError::bad("you cannot challenge yourself"));
    }
    let c = create(&state, &user, "user", Some(dest.id), &p).await?;
    Ok(Json(challenge_json(&state, &c).await?))
}

/// Create an open challenge: any other player may accept it.
#[utoipa::path(post, path = "/api/challenge/open", tag = "challenges",
    request_body(content = ChallengeParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "the challenge", body = ChallengeJson),
        (status = 400, description = "bad variant, colour or FEN", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn challenge_open(
    State(state): State<AppState>,
    user: AuthUser,
    Input(p): Input<ChallengeParams>,
) -> ApiResult<Json<ChallengeJson>> {
    let c = create(&state, &user, "open", None, &p).await?;
    Ok(Json(challenge_json(&state, &c).await?))
}

/// Start a game against the computer at once.
#[utoipa::path(post, path = "/api/challenge/ai", tag = "challenges",
    request_body(content = ChallengeParams, description = "JSON or form; `level` 1-8 is required", content_type = "application/json"),
    responses(
        (status = 200, description = "the game", body = GameJson),
        (status = 400, description = "bad level, variant, colour or FEN", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn challenge_ai(
    State(state): State<AppState>,
    user: AuthUser,
    Input(p): Input<ChallengeParams>,
) -> ApiResult<Json<GameJson>> {
    let level = match &p.level {
        Some(NumberParam::Number(n)) => Some(*n),
        Some(NumberParam::Text(t)) => t.trim().parse::<i64>().ok(),
        None => return Err(ApiError::bad("missing level: 1 to 8")),
    };
    let level = level
        .filter(|l| (1..=8).contains(l))
        .ok_or_else(|| ApiError::bad("invalid level: 1 to 8"))?;
    let v = validate(&p)?;
    let (mine, _) = resolve_colors(v.color);
    let (white, black) = if mine == "white" {
        (Some(user.user.id), None)
    } else {
        (None, Some(user.user.id))
    };
    let mut created = None;
    for _ in 0..5 {
        let c = Challenge {
            id: new_id(),
            kind: "ai".into(),
            challenger_id: user.user.id,
            dest_user_id: None,
            variant: v.variant.id().into(),
            color: v.color.into(),
            initial_fen: v.fen.clone(),
            ai_level: Some(level),
            status: "accepted".into(),
            decline_reason: None,
            created_at: now_ms(),
        };
        let (g, event) = new_game(&c, white, black)?;
        match state.store.create_accepted(&c, &g, &event).await {
            Ok(()) => {
                created = Some(g);
                break;
            }
            Err(StoreError::Conflict) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    let g = created.ok_or_else(|| ApiError::Internal("could not find a free game id".into()))?;
    game::announce(&state, &g, "gameStart").await;
    if ai::computer_to_move(&g) {
        ai::schedule(state.clone(), g.id.clone());
    }
    Ok(Json(
        super::board::game_json(&state, &g, Some(user.user.id)).await?,
    ))
}

/// Your pending challenges: `in` (to you) and `out` (by you).
#[utoipa::path(get, path = "/api/challenge", tag = "challenges",
    responses(
        (status = 200, description = "pending challenges", body = ChallengeListJson),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn list(
    State(state): State<AppState>,
    user: AuthUser,
) -> ApiResult<Json<ChallengeListJson>> {
    let (incoming, outgoing) = state.store.pending_challenges(user.user.id).await?;
    let mut out = ChallengeListJson {
        incoming: Vec::new(),
        outgoing: Vec::new(),
    };
    for c in &incoming {
        let mut j = challenge_json(&state, c).await?;
        j.direction = Some("in");
        out.incoming.push(j);
    }
    for c in &outgoing {
        let mut j = challenge_json(&state, c).await?;
        j.direction = Some("out");
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
    pub nb: Option<String>,
}

/// The lobby: pending open challenges by every player, newest first.
#[utoipa::path(get, path = "/api/challenge/open", tag = "challenges",
    params(OpenListParams),
    responses(
        (status = 200, description = "pending open challenges, newest first", body = OpenChallengesJson),
        (status = 400, description = "bad nb", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn list_open(
    State(state): State<AppState>,
    user: AuthUser,
    Query(q): Query<OpenListParams>,
) -> ApiResult<Json<OpenChallengesJson>> {
    let limit = match q.nb.as_deref().map(str::trim) {
        None | Some("") => OPEN_LIST_LIMIT,
        Some(t) => t
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 1)
            .map(|n| n.min(OPEN_LIST_LIMIT))
            .ok_or_else(|| ApiError::bad(format!("invalid nb {t:?}: a positive number")))?,
    };
    Ok(Json(OpenChallengesJson {
        challenges: open_list(&state, user.user.id, limit).await?,
    }))
}

/// One challenge: yours, one addressed to you, or any open challenge.
#[utoipa::path(get, path = "/api/challenge/{id}/show", tag = "challenges",
    params(("id" = String, Path, description = "challenge id")),
    responses(
        (status = 200, description = "the challenge, any status", body = ChallengeJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "another player's challenge to someone else", body = ErrorBody),
        (status = 404, description = "no such challenge", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn show(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<Json<ChallengeJson>> {
    let c = load(&state, &id).await?;
    let me = user.user.id;
    if c.challenger_id != me && c.dest_user_id != Some(me) && c.kind != "open" {
        return Err(ApiError::Forbidden("not your challenge".into()));
    }
    let mut j = challenge_json(&state, &c).await?;
    j.direction = Some(direction_for(c.challenger_id, me));
    Ok(Json(j))
}

async fn load(state: &AppState, id: &str) -> ApiResult<Challenge> {
    state
        .store
        .challenge(id)
        .await?
        .ok_or_else(|| ApiError::not_found("challenge"))
}

fn require_pending(c: &Challenge) -> ApiResult<()> {
    if c.status == "created" {
        Ok(())
    } else {
        Err(ApiError::Conflict(format!("the challenge is {}", c.status)))
    }
}

/// Accept a challenge: creates the game (its id is the challenge's id).
#[utoipa::path(post, path = "/api/challenge/{id}/accept", tag = "challenges",
    params(("id" = String, Path, description = "challenge id")),
    responses(
        (status = 200, description = "accepted; the game has started", body = OkJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "the challenge is not addressed to you", body = ErrorBody),
        (status = 404, description = "no such challenge", body = ErrorBody),
        (status = 409, description = "no longer pending", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn accept(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<Json<OkJson>> {
    let c = load(&state, &id).await?;
    let me = user.user.id;
    match c.kind.as_str() {
        "user" if c.dest_user_id == Some(me) => {}
        "user" => {
            return Err(ApiError::Forbidden(
                "only the challenged player may accept".into(),
            ));
        }
        "open" if c.challenger_id == me => {
            return Err(ApiError::Forbidden(
                "you cannot accept your own challenge".into(),
            ));
        }
        "open" => {}
        _ => return Err(ApiError::Conflict(format!("the challenge is {}", c.status))),
    }
    require_pending(&c)?;
    let (challenger_color, _) = resolve_colors(&c.color);
    let (white, black) = if challenger_color == "white" {
        (c.challenger_id, me)
    } else {
        (me, c.challenger_id)
    };
    let (g, event) = new_game(&c, Some(white), Some(black))?;
    if !state.store.accept_challenge(&c.id, me, &g, &event).await? {
        let now = load(&state, &id).await?;
        return Err(ApiError::Conflict(format!(
            "the challenge is {}",
            now.status
        )));
    }
    tracing::info!(game = %g.id, "challenge accepted");
    game::announce(&state, &g, "gameStart").await;
    let mut c = c;
    c.status = "accepted".into();
    c.dest_user_id = Some(me);
    announce_lobby(&state, &c, "challengeAccepted").await;
    Ok(Json(OkJson::yes()))
}

/// Decline a challenge addressed to you.
#[utoipa::path(post, path = "/api/challenge/{id}/decline", tag = "challenges",
    params(("id" = String, Path, description = "challenge id")),
    request_body(content = DeclineParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "declined", body = OkJson),
        (status = 400, description = "unknown reason", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "the challenge is not addressed to you", body = ErrorBody),
        (status = 404, description = "no such challenge", body = ErrorBody),
        (status = 409, description = "no longer pending", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn decline(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
    Input(p): Input<DeclineParams>,
) -> ApiResult<Json<OkJson>> {
    let reason = match p.reason.as_deref() {
        None | Some("") => "generic",
        Some(r) => DECLINE_REASONS
            .iter()
            .find(|k| k.eq_ignore_ascii_case(r))
            .copied()
            .ok_or_else(|| {
                ApiError::bad(format!(
                    "invalid reason {r:?}: expected one of {}",
                    DECLINE_REASONS.join(", ")
                ))
            })?,
    };
    let mut c = load(&state, &id).await?;
    if c.kind != "user" || c.dest_user_id != Some(user.user.id) {
        return Err(ApiError::Forbidden(
            "only the challenged player may decline".into(),
        ));
    }
    require_pending(&c)?;
    if !state
        .store
        .close_challenge(&id, "declined", Some(reason))
        .await?
    {
        return Err(ApiError::Conflict(
            "the challenge is no longer pending".into(),
        ));
    }
    c.status = "declined".into();
    c.decline_reason = Some(reason.into());
    notify(&state, &c, "challengeDeclined").await;
    Ok(Json(OkJson::yes()))
}

/// Cancel your challenge (or abort its game while no one has moved).
#[utoipa::path(post, path = "/api/challenge/{id}/cancel", tag = "challenges",
    params(("id" = String, Path, description = "challenge id")),
    responses(
        (status = 200, description = "canceled", body = OkJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your challenge", body = ErrorBody),
        (status = 404, description = "no such challenge", body = ErrorBody),
        (status = 409, description = "no longer pending", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn cancel(
    State(state): State<AppState>,
    user: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<Json<OkJson>> {
    let mut c = load(&state, &id).await?;
    if c.challenger_id != user.user.id {
        return Err(ApiError::Forbidden("only the challenger may cancel".into()));
    }
    if c.status == "accepted" {
        let g = game::load(&state, &id).await?;
        if game::abortable(&g) {
            game::abort(&state, &id, Actor::User(user.user.id)).await?;
            return Ok(Json(OkJson::yes()));
        }
        return Err(ApiError::Conflict(
            "the challenge was accepted and its game is under way".into(),
        ));
    }
    require_pending(&c)?;
    if !state.store.close_challenge(&id, "canceled", None).await? {
        return Err(ApiError::Conflict(
            "the challenge is no longer pending".into(),
        ));
    }
    c.status = "canceled".into();
    notify(&state, &c, "challengeCanceled").await;
    announce_lobby(&state, &c, "challengeCanceled").await;
    Ok(Json(OkJson::yes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_eight_alphanumerics_and_vary() {
        let a = new_id();
        let b = new_id();
        assert_eq!(a.len(), 8);
        assert!(a.bytes().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a, b);
    }

    #[test]
    fn params_are_validated() {
        let p = |variant: Option<&str>, color: Option<&str>, fen: Option<&str>| ChallengeParams {
            variant: variant.map(Into::into),
            color: color.map(Into::into),
            fen: fen.map(Into::into),
            level: None,
        };
        let v = validate(&p(None, None, None)).unwrap();
        assert_eq!(
            (v.variant, v.color, v.fen),
            (Variant::ChessMerge, "random", None)
        );
        assert!(matches!(
            validate(&p(Some("crazyhouse"), None, None)),
            Err(ApiError::BadRequest(_))
        ));
        assert!(matches!(
            validate(&p(None, Some("green"), None)),
            Err(ApiError::BadRequest(_))
        ));
        assert!(matches!(
            validate(&p(None, None, Some("not a fen"))),
            Err(ApiError::BadRequest(_))
        ));
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(
            validate(&p(None, Some("black"), Some(start))).unwrap().fen,
            None
        );
        let custom = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
        assert_eq!(
            validate(&p(Some("chessplus"), None, Some(custom)))
                .unwrap()
                .fen
                .as_deref(),
            Some(custom)
        );
    }

    #[test]
    fn colors_resolve_to_opposites() {
        assert_eq!(resolve_colors("white"), ("white", "black"));
        assert_eq!(resolve_colors("black"), ("black", "white"));
        let (a, b) = resolve_colors("random");
        assert_ne!(a, b);
    }
}
