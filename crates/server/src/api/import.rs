//! PGN import (`POST /api/import`, lichess's shape): a signed-in user
//! sends the PGN of one game of any variant; it is checked move by move
//! with the rules crate and stored as an *imported* game: a game row with
//! no player ids and no computer, the players' names kept as text from
//! the tags. It gets its own page (`/{id}`) and can be analysed like any
//! game (see docs/analysis.md, "Imported games").

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use chessmerge_rules::pgn::{self, PgnReadError};
use chessmerge_rules::{Color, Outcome};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::accounts::Accounts;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Input, Path, Query};
use crate::games::Games;
use crate::model::{ChallengeId, GameId, GameStatus};
use crate::state::Site;
use crate::store::{self, GameImport, StoreError};
use crate::views;

/// Longest PGN accepted, in bytes.
pub const MAX_PGN_BYTES: usize = 32 * 1024;
/// Most moves (plies) accepted in an imported game.
pub const MAX_PLIES: usize = 1000;
/// Largest request body on this route (a form-encoded PGN grows when escaped).
pub const BODY_LIMIT: usize = 4 * MAX_PGN_BYTES;
/// Imports one user may make per [`IMPORT_WINDOW_MS`].
pub const IMPORTS_PER_WINDOW: i64 = 30;
/// The window of the per-user import cap: one hour.
pub const IMPORT_WINDOW_MS: i64 = 3_600_000;
/// Longest player name kept from a tag.
const MAX_NAME_CHARS: usize = 60;
/// Most tags kept, and the longest value of one.
const MAX_TAGS: usize = 40;
const MAX_TAG_CHARS: usize = 200;

/// The PGN to import (form field `pgn`, as lichess; or JSON).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportPgnParams {
    /// One game of PGN: `[Variant]` (chessmerge, chessplus, fusion;
    /// standard when left out), `[FEN]`/`[SetUp]` for another start, moves
    /// in the readable notation or in Merge-UCI.
    pub pgn: String,
}

/// The imported game.
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportedGameJson {
    /// The new game's id.
    pub id: String,
    /// Its page.
    pub url: String,
}

/// What the rules make of an imported game's end: status, winner, reason.
fn ending(
    result: &str,
    outcome: Option<Outcome>,
    termination: Option<&str>,
) -> (GameStatus, Option<Color>, Option<String>) {
    if let Some(o) = outcome {
        // The reader made sure the result agrees with the board.
        let status = match o {
            Outcome::Checkmate { .. } => GameStatus::Mate,
            Outcome::Stalemate => GameStatus::Stalemate,
            _ => GameStatus::Draw,
        };
        return (status, o.winner(), Some(o.reason().to_owned()));
    }
    let reason = termination
        .map(|t| {
            t.chars()
                .filter(|c| !c.is_control())
                .take(MAX_TAG_CHARS)
                .collect::<String>()
        })
        .filter(|t| !t.trim().is_empty());
    match result {
        "1-0" => (GameStatus::Resign, Some(Color::White), reason),
        "0-1" => (GameStatus::Resign, Some(Color::Black), reason),
        "1/2-1/2" => (GameStatus::Draw, None, reason),
        // `*`: unfinished, as the PGN says (nobody can move in it).
        _ => (GameStatus::Started, None, None),
    }
}

fn name_tag(read: &pgn::PgnGame, tag: &str) -> String {
    let name: String = read
        .tag(tag)
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME_CHARS)
        .collect();
    let name = name.trim();
    if name.is_empty() {
        "?".to_owned()
    } else {
        name.to_owned()
    }
}

fn read_error(e: PgnReadError) -> ApiError {
    if e.is_malformed() || matches!(e, PgnReadError::TooLong(_)) {
        ApiError::BadRequest(e.to_string())
    } else {
        ApiError::Unprocessable(e.to_string())
    }
}

/// Imports one game of PGN. Any signed-in user may import, at most 30
/// games an hour. The game is checked move by move: an illegal move is
/// refused with its number, side and the rules' reason; the result must be
/// a PGN result that agrees with the final position. The game is stored
/// finished (the PGN's result) or unfinished (`*`), with the players'
/// names from the tags as text; `source` is `import` in its JSON.
#[utoipa::path(post, path = "/api/import", tag = "games",
    request_body(content = ImportPgnParams, description = "form field `pgn`, or JSON",
        content_type = "application/x-www-form-urlencoded"),
    responses(
        (status = 200, description = "imported", body = ImportedGameJson),
        (status = 400, description = "malformed PGN or body, too large, too many moves, or an unreadable move", body = ErrorBody),
        (status = 401, description = "not signed in", body = ErrorBody),
        (status = 413, description = "the body is too large", body = ErrorBody),
        (status = 415, description = "neither a form nor JSON", body = ErrorBody),
        (status = 422, description = "an illegal move (its number, side and reason), or a result the position contradicts", body = ErrorBody),
        (status = 429, description = "too many imports this hour", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn import_game(
    State(games): State<Arc<Games>>,
    State(site): State<Arc<Site>>,
    user: AuthUser,
    Input(p): Input<ImportPgnParams>,
) -> ApiResult<Json<ImportedGameJson>> {
    if p.pgn.len() > MAX_PGN_BYTES {
        return Err(ApiError::bad(format!(
            "the PGN is {} bytes: at most {MAX_PGN_BYTES}",
            p.pgn.len()
        )));
    }
    if p.pgn.trim().is_empty() {
        return Err(ApiError::bad("empty PGN"));
    }
    let read = pgn::read_limited(&p.pgn, MAX_PLIES).map_err(read_error)?;
    let rules = &read.game;
    let pos = rules.position();
    let (status, winner, status_reason) =
        ending(&read.result, rules.outcome(), read.tag("Termination"));
    let moves: Vec<String> = rules
        .moves()
        .iter()
        .map(|&m| chessmerge_rules::UciMove::from(m).to_string())
        .collect();
    let now = crate::now_ms();
    let tags: Vec<(String, String)> = read
        .tags
        .iter()
        .take(MAX_TAGS)
        .map(|(k, v)| {
            // Control characters are not kept (the export drops them too).
            let v = v.chars().filter(|c| !c.is_control());
            (k.clone(), v.take(MAX_TAG_CHARS).collect())
        })
        .collect();
    let tags = serde_json::to_string(&tags)
        .map_err(|e| ApiError::Internal(format!("cannot encode tags: {e}")))?;
    // A taken id (one in 62^8) is tried again with another.
    for _ in 0..3 {
        let id: GameId = ChallengeId::random().into();
        let row = store::Game {
            id: id.clone(),
            variant: rules.variant(),
            initial_fen: rules.start().fen(),
            white_id: None,
            black_id: None,
            ai_level: None,
            status,
            winner,
            status_reason: status_reason.clone(),
            moves: moves.join(" "),
            san: rules.san_moves().join(" "),
            fen: pos.fen(),
            ply: moves.len() as i64,
            version: 1,
            draw_offer: None,
            created_at: now,
            updated_at: now,
            takeback_offer: None,
            rematch: None,
            forecasts: Vec::new(),
            rated: false,
            white_rating: None,
            black_rating: None,
            clock: None,
        };
        let first = serde_json::to_string(&views::game_state(&row, pos))
            .map_err(|e| ApiError::Internal(format!("cannot encode an event: {e}")))?;
        let import = GameImport {
            game_id: id.clone(),
            importer_id: user.user.id,
            white_name: name_tag(&read, "White"),
            black_name: name_tag(&read, "Black"),
            tags: tags.clone(),
            created_at: now,
        };
        match games
            .import(
                &row,
                &import,
                &first,
                IMPORTS_PER_WINDOW,
                now - IMPORT_WINDOW_MS,
            )
            .await
        {
            Ok(true) => {
                return Ok(Json(ImportedGameJson {
                    url: format!("{}/{id}", site.base_url),
                    id: id.to_string(),
                }));
            }
            Ok(false) => {
                return Err(ApiError::TooManyRequests(format!(
                    "at most {IMPORTS_PER_WINDOW} imports an hour: try again later"
                )));
            }
            Err(StoreError::Conflict) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::Internal("no free game id".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endings_follow_the_board_then_the_result() {
        let mate = Some(Outcome::Checkmate {
            winner: Color::Black,
        });
        assert_eq!(
            ending("0-1", mate, Some("normal")),
            (
                GameStatus::Mate,
                Some(Color::Black),
                Some("checkmate".into())
            )
        );
        assert_eq!(
            ending("1-0", None, Some("time forfeit")),
            (
                GameStatus::Resign,
                Some(Color::White),
                Some("time forfeit".into())
            )
        );
        assert_eq!(
            ending("1/2-1/2", None, None),
            (GameStatus::Draw, None, None)
        );
        assert_eq!(
            ending("*", None, Some("x")),
            (GameStatus::Started, None, None)
        );
    }
}

/// The query of `GET /api/games/imported/{username}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImportedParams {
    /// How many games: 1 to 100 (default 30).
    max: Option<i64>,
}

/// The games a player imported, newest first: ndjson, one game export a
/// line (an import's players are the PGN's names; an unfinished one has
/// status `started` and nobody to move in it).
#[utoipa::path(get, path = "/api/games/imported/{username}", tag = "games",
    params(("username" = String, Path, description = "the importer"), ImportedParams),
    responses(
        (status = 200, description = "ndjson: one game a line", body = views::ExportJson, content_type = "application/x-ndjson"),
        (status = 400, description = "bad max", body = ErrorBody),
        (status = 404, description = "no such player", body = ErrorBody)))]
pub async fn imported(
    State(accounts): State<Arc<Accounts>>,
    State(games): State<Arc<Games>>,
    Path(username): Path<String>,
    Query(q): Query<ImportedParams>,
) -> ApiResult<Response> {
    let max = q.max.unwrap_or(30);
    if !(1..=100).contains(&max) {
        return Err(ApiError::bad(format!("invalid max {max}: 1 to 100")));
    }
    let user = accounts
        .user_named(&username)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no player named {username}")))?;
    let rows = games.imported_by(user.id, max).await?;
    super::board::export_lines(&accounts, &games, &rows).await
}
