//! Game actions: moves, resignation, abort, draw offers. Every change goes
//! through [`commit_change`]: read the game, compute its next state with the
//! rules crate, store it only if nobody changed the game meanwhile (the
//! version and ply guard), and only then tell the hub.

use chessmerge_rules::{Game as RulesGame, ParseMoveError, Position};

use crate::error::{ApiError, ApiResult};
use crate::hub::GameUpdate;
use crate::views::{self, Players, other, turn_of};
use crate::{AppState, ai, now_ms, store};

/// Who acts in a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    /// A user, by id.
    User(i64),
    /// The computer player of the game.
    Computer,
}

/// How often a change is retried when others changed the game first.
const MAX_ATTEMPTS: usize = 8;

/// Longest move text accepted (`Pe7d8n` is 6).
const MAX_MOVE_LEN: usize = 8;

/// Rebuilds a stored game with the rules crate.
pub fn rebuild(game: &store::Game) -> ApiResult<RulesGame> {
    let variant = views::parse_variant(&game.variant)
        .map_err(|e| ApiError::Internal(format!("game {}: {e}", game.id)))?;
    let start = Position::from_fen(variant, &game.initial_fen)
        .map_err(|e| ApiError::Internal(format!("game {}: initial FEN: {e}", game.id)))?;
    RulesGame::from_uci_moves(start, game.move_list())
        .map_err(|(i, e)| ApiError::Internal(format!("game {}: stored move {i}: {e}", game.id)))
}

/// Loads a game or answers 404.
pub async fn load(state: &AppState, id: &str) -> ApiResult<store::Game> {
    state
        .store
        .game(id)
        .await?
        .ok_or_else(|| ApiError::not_found("game"))
}

/// Loads the players of a game.
pub async fn players(state: &AppState, game: &store::Game) -> ApiResult<Players> {
    let side = async |id: Option<i64>| -> ApiResult<views::PlayerJson> {
        match id {
            Some(id) => {
                let user = state
                    .store
                    .user_by_id(id)
                    .await?
                    .ok_or_else(|| ApiError::Internal(format!("user {id} missing")))?;
                Ok(views::user_player(&user))
            }
            None => Ok(views::ai_player(game.ai_level.unwrap_or(1))),
        }
    };
    Ok(Players {
        white: side(game.white_id).await?,
        black: side(game.black_id).await?,
    })
}

/// The colour the actor plays, or 403.
fn actor_color(game: &store::Game, actor: Actor) -> ApiResult<&'static str> {
    match actor {
        Actor::User(id) => game
            .color_of(id)
            .ok_or_else(|| ApiError::Forbidden("you are not a player in this game".into())),
        Actor::Computer => match (game.ai_level, game.white_id, game.black_id) {
            (Some(_), None, _) => Ok("white"),
            (Some(_), _, None) => Ok("black"),
            _ => Err(ApiError::Forbidden("no computer plays in this game".into())),
        },
    }
}

fn require_ongoing(game: &store::Game) -> ApiResult<()> {
    if game.is_ongoing() {
        Ok(())
    } else {
        Err(ApiError::Conflict(format!(
            "the game is over ({})",
            game.status
        )))
    }
}

fn move_error(e: ParseMoveError) -> ApiError {
    if e.is_malformed() {
        ApiError::BadRequest(e.to_string())
    } else {
        ApiError::Unprocessable(e.to_string())
    }
}

/// Reads the game, computes its next state with `f` (`None`: nothing to
/// change), commits it under the version/ply guard (retrying when another
/// change won the race), then publishes it. Returns the game as it stands.
pub async fn commit_change<F>(state: &AppState, id: &str, mut f: F) -> ApiResult<store::Game>
where
    F: FnMut(&store::Game) -> ApiResult<Option<store::Game>>,
{
    for _ in 0..MAX_ATTEMPTS {
        let old = load(state, id).await?;
        let Some(mut new) = f(&old)? else {
            return Ok(old);
        };
        new.version = old.version + 1;
        new.updated_at = now_ms().max(old.updated_at);
        let event = serde_json::to_string(&views::game_state(&new)?)
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        if state
            .store
            .update_game(&new, old.version, old.ply, &event)
            .await?
        {
            after_commit(state, &old, &new, event).await;
            return Ok(new);
        }
    }
    Err(ApiError::Conflict(
        "the game is changing too fast; try again".into(),
    ))
}

async fn after_commit(state: &AppState, old: &store::Game, new: &store::Game, event: String) {
    state.hub.publish_game(
        &new.id,
        GameUpdate {
            version: new.version,
            payload: event.into(),
        },
    );
    if old.is_ongoing() && !new.is_ongoing() {
        announce(state, new, "gameFinish").await;
    }
    if ai::computer_to_move(new) {
        ai::schedule(state.clone(), new.id.clone());
    }
}

/// Sends `gameStart` or `gameFinish` to the game's players.
pub async fn announce(state: &AppState, game: &store::Game, kind: &str) {
    let players = match players(state, game).await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(game = %game.id, error = %e, "cannot announce {kind}");
            return;
        }
    };
    for color in ["white", "black"] {
        let Some(uid) = game.player_id(color) else {
            continue;
        };
        match views::now_playing(game, color, &players) {
            Ok(g) => {
                let ev = serde_json::json!({ "type": kind, "game": g });
                state.hub.publish_user(uid, ev.to_string().into());
            }
            Err(e) => tracing::warn!(game = %game.id, error = %e, "cannot announce {kind}"),
        }
    }
}

/// Plays a move (Merge-UCI). `expected_ply`, when given, must be the game's
/// current ply (409 otherwise: a stale move).
pub async fn play_move(
    state: &AppState,
    id: &str,
    actor: Actor,
    text: &str,
    expected_ply: Option<i64>,
    offering_draw: bool,
) -> ApiResult<store::Game> {
    if text.is_empty() || text.len() > MAX_MOVE_LEN || !text.is_ascii() {
        return Err(ApiError::bad(format!(
            "malformed move {text:?}: expected Merge-UCI such as e2e3, b1d2, Nd2f3 or e7e8q"
        )));
    }
    commit_change(state, id, |old| {
        let color = actor_color(old, actor)?;
        require_ongoing(old)?;
        if let Some(p) = expected_ply
            && p != old.ply
        {
            return Err(ApiError::Conflict(format!(
                "stale move: the game is at ply {}, not {p}",
                old.ply
            )));
        }
        if turn_of(old) != color {
            return Err(ApiError::Conflict("not your turn".into()));
        }
        let mut g = rebuild(old)?;
        let mv = g.position().parse_uci(text).map_err(move_error)?;
        g.play(mv).map_err(|e| move_error(e.into()))?;
        let mut new = old.clone();
        if !new.moves.is_empty() {
            new.moves.push(' ');
        }
        new.moves.push_str(&mv.to_string());
        new.fen = g.position().fen();
        new.ply += 1;
        new.draw_offer = if offering_draw {
            Some(color.to_owned())
        } else if old.draw_offer.as_deref() == Some(other(color)) {
            None // moving declines the opponent's offer
        } else {
            old.draw_offer.clone()
        };
        if let Some(outcome) = g.outcome() {
            new.status = outcome.status().to_owned();
            new.winner = outcome.winner().map(|c| c.name().to_owned());
            new.status_reason = Some(outcome.reason().to_owned());
            new.draw_offer = None;
        }
        Ok(Some(new))
    })
    .await
}

/// Resigns.
pub async fn resign(state: &AppState, id: &str, user_id: i64) -> ApiResult<store::Game> {
    commit_change(state, id, |old| {
        let color = actor_color(old, Actor::User(user_id))?;
        require_ongoing(old)?;
        let mut new = old.clone();
        new.status = "resign".into();
        new.winner = Some(other(color).into());
        new.status_reason = Some(format!("{color} resigned"));
        new.draw_offer = None;
        Ok(Some(new))
    })
    .await
}

/// Whether a game may still be aborted: before both sides have moved.
pub fn abortable(game: &store::Game) -> bool {
    game.is_ongoing() && game.ply < 2
}

/// Aborts (before both sides have moved).
pub async fn abort(state: &AppState, id: &str, actor: Actor) -> ApiResult<store::Game> {
    commit_change(state, id, |old| {
        actor_color(old, actor)?;
        require_ongoing(old)?;
        if !abortable(old) {
            return Err(ApiError::Conflict(
                "the game can no longer be aborted: both sides have moved".into(),
            ));
        }
        let mut new = old.clone();
        new.status = "aborted".into();
        new.winner = None;
        new.status_reason = None;
        new.draw_offer = None;
        Ok(Some(new))
    })
    .await
}

/// `draw/yes` (offer, or accept the opponent's offer) or `draw/no` (decline
/// the opponent's offer, or take back one's own).
pub async fn draw(state: &AppState, id: &str, user_id: i64, yes: bool) -> ApiResult<store::Game> {
    commit_change(state, id, |old| {
        let color = actor_color(old, Actor::User(user_id))?;
        require_ongoing(old)?;
        let offer = old.draw_offer.as_deref();
        let mut new = old.clone();
        if yes {
            if offer == Some(other(color)) {
                new.status = "draw".into();
                new.status_reason = Some("agreement".into());
                new.winner = None;
                new.draw_offer = None;
            } else if offer == Some(color) {
                return Ok(None);
            } else {
                new.draw_offer = Some(color.into());
            }
        } else if offer.is_some() {
            new.draw_offer = None;
        } else {
            return Ok(None);
        }
        Ok(Some(new))
    })
    .await
}
