//! The practice board's helpers: replay a line from any position
//! (`POST /api/analysis`) and ask the engine for its best move and
//! evaluation (`POST /api/analysis/best`). Nothing is stored; no account
//! is needed. A game's computer analysis (`/api/game/{id}/analysis`, see
//! `review.rs`) is stored. Engine searches run on the server's bounded analysis lane,
//! apart from the computer player's, so analyses never delay games.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use chessmerge_engine::search::ReportedScore;
use chessmerge_engine::{Limits, level_config};
use chessmerge_rules::{Game as RulesGame, ParseMoveError, Position, Variant};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::extract::Path;
use axum::http::StatusCode;

use super::params::optional;
use crate::auth::AuthUser;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Input;
use crate::games::Games;
use crate::model::GameId;
use crate::review::{
    self, Analyses, AnalysisState, PlyAnalysisJson, PlyPositionJson, ProgressJson, Requested,
    StoredAnalysis, SummaryJson,
};
use crate::state::AnalysisLane;
use crate::views::{LegalMoveJson, VariantJson};

/// Longest FEN accepted.
const MAX_FEN_LEN: usize = 200;
/// Most moves accepted in a line.
const MAX_MOVES: usize = 1000;
/// Longest engine search, whatever is asked.
pub const MAX_MOVETIME_MS: u64 = 3000;
/// Engine level used when none is given.
const DEFAULT_LEVEL: u8 = 8;
/// How long a search may wait for a free analysis slot before giving up (503).
pub const SLOT_WAIT: Duration = Duration::from_secs(30);

/// Moves as a JSON list, or as one space- or comma-separated string (forms).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum MovesParam {
    /// `["a1a6", "c5c4"]`.
    List(Vec<String>),
    /// `"a1a6 c5c4"`.
    Text(String),
}

/// A position and a line played from it (JSON or form).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalysisParams {
    /// `chessmerge` (default), `chessplus`, `fusion` or `standard`.
    #[serde(default, deserialize_with = "optional")]
    #[schema(value_type = Option<String>)]
    pub variant: Option<Variant>,
    /// The start position (Merge-FEN); the variant's start position when left out.
    pub fen: Option<String>,
    /// Merge-UCI moves played from `fen`, in order.
    #[schema(value_type = Option<Vec<String>>)]
    pub moves: Option<MovesParam>,
    /// `/api/analysis/best` only: search effort 1-8 (default 8). The level
    /// sets depth and node limits; the search plays its best, without the
    /// levels' deliberate mistakes.
    #[serde(default, deserialize_with = "optional")]
    pub level: Option<i64>,
    /// `/api/analysis/best` only: search time in milliseconds (capped at 3000).
    #[serde(default, deserialize_with = "optional")]
    pub movetime: Option<i64>,
}

/// The position reached by a line, and what can be played there.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalysisJson {
    /// The variant.
    pub variant: VariantJson,
    /// The start position (Merge-FEN, as written by the rules crate).
    pub initial_fen: String,
    /// The position after the moves (Merge-FEN).
    pub fen: String,
    /// `white` or `black`: who is to move.
    pub turn: &'static str,
    /// The moves, Merge-UCI (as the rules crate writes them).
    pub moves: Vec<String>,
    /// The moves, readable notation.
    pub san: Vec<String>,
    /// The last move, Merge-UCI.
    pub last_move: Option<String>,
    /// Whether the side to move is in check.
    pub check: bool,
    /// `started` while the game can go on; otherwise `mate`, `stalemate` or `draw`.
    pub status: &'static str,
    /// `white` or `black` after a checkmate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<&'static str>,
    /// Why the game is over (`checkmate`, `stalemate`, `threefold repetition`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// The legal moves of the side to move (empty once the game is over).
    pub legal_moves: Vec<LegalMoveJson>,
}

/// An engine score from White's point of view.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScoreJson {
    /// Centipawns (positive: White is better); absent when a mate is found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    /// Mate in this many moves (positive: White mates; negative: Black mates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
}

/// The engine's choice in a position.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BestMoveJson {
    /// The position searched (Merge-FEN).
    pub fen: String,
    /// The best move, Merge-UCI.
    pub uci: String,
    /// The best move, readable notation.
    pub san: String,
    /// The evaluation, from White's point of view.
    pub score: ScoreJson,
    /// The expected line, Merge-UCI (starts with the best move).
    pub pv: Vec<String>,
    /// The expected line, readable notation.
    pub pv_san: Vec<String>,
    /// Deepest completed search iteration.
    pub depth: i32,
    /// Positions searched.
    pub nodes: u64,
    /// Search time in milliseconds.
    pub time_ms: u64,
}

fn move_error(index: usize, e: ParseMoveError) -> ApiError {
    let text = format!("move {} ({e})", index + 1);
    if e.is_malformed() {
        ApiError::BadRequest(text)
    } else {
        ApiError::Unprocessable(text)
    }
}

/// Rebuilds the line the request describes, checking every move.
pub fn replay(p: &AnalysisParams) -> ApiResult<RulesGame> {
    let variant = p.variant.unwrap_or(Variant::ChessMerge);
    let start = match p.fen.as_deref().map(str::trim) {
        None | Some("") | Some("startpos") => Position::new(variant),
        Some(f) if f.len() > MAX_FEN_LEN => return Err(ApiError::bad("invalid fen: too long")),
        Some(f) => Position::from_fen(variant, f)
            .map_err(|e| ApiError::bad(format!("invalid fen: {e}")))?,
    };
    let moves: Vec<&str> = match &p.moves {
        None => Vec::new(),
        Some(MovesParam::List(l)) => l.iter().map(|s| s.trim()).collect(),
        Some(MovesParam::Text(t)) => t
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .collect(),
    };
    if moves.len() > MAX_MOVES {
        return Err(ApiError::bad(format!(
            "too many moves: at most {MAX_MOVES}"
        )));
    }
    let mut game = RulesGame::new(start);
    for (i, text) in moves.into_iter().enumerate() {
        if let Some(o) = game.outcome() {
            return Err(ApiError::Unprocessable(format!(
                "move {} ({text}): the game is over ({})",
                i + 1,
                o.reason()
            )));
        }
        game.play_uci(text).map_err(|e| move_error(i, e))?;
    }
    Ok(game)
}

/// The JSON view of a replayed line.
pub fn analysis_json(game: &RulesGame) -> AnalysisJson {
    let pos = game.position();
    let outcome = game.outcome();
    let legal_moves = if outcome.is_some() {
        Vec::new()
    } else {
        crate::views::legal_moves(pos)
    };
    AnalysisJson {
        variant: crate::views::variant_json(game.variant()),
        initial_fen: game.start().fen(),
        fen: pos.fen(),
        turn: pos.turn().name(),
        moves: game.moves().iter().map(|m| m.to_string()).collect(),
        san: game.san_moves(),
        last_move: game.moves().last().map(|m| m.to_string()),
        check: pos.is_check(),
        status: outcome.map_or("started", |o| o.status()),
        winner: outcome.and_then(|o| o.winner()).map(|c| c.name()),
        reason: outcome.map(|o| o.reason()),
        legal_moves,
    }
}

/// A line of moves from `pos`, as far as it stays legal: Merge-UCI and
/// readable notation.
pub fn legal_line(pos: &Position, line: &[chessmerge_rules::Move]) -> (Vec<String>, Vec<String>) {
    let mut uci = Vec::new();
    let mut san = Vec::new();
    let mut walk = *pos;
    for &m in line {
        if !walk.is_legal(m) {
            break;
        }
        uci.push(m.to_string());
        san.push(walk.san(m));
        walk = walk.play_unchecked(m);
    }
    (uci, san)
}

/// An engine score (internal units, the side to move's view) from White's view.
pub fn score_json(pos: &Position, score: i32) -> ScoreJson {
    let white_sign = if pos.turn() == chessmerge_rules::Color::White {
        1
    } else {
        -1
    };
    match ReportedScore::from_internal(score) {
        ReportedScore::Cp(cp) => ScoreJson {
            cp: Some(cp * white_sign),
            mate: None,
        },
        ReportedScore::Mate(n) => ScoreJson {
            cp: None,
            mate: Some(n * white_sign),
        },
    }
}

/// Replay a line from a position: the position reached, its legal moves,
/// and whether the game is over.
#[utoipa::path(post, path = "/api/analysis", tag = "analysis",
    request_body(content = AnalysisParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "the position after the moves", body = AnalysisJson),
        (status = 400, description = "unknown variant, bad FEN, malformed move", body = ErrorBody),
        (status = 422, description = "an illegal move, with its number and the rules' reason", body = ErrorBody)))]
pub async fn analyse(Input(p): Input<AnalysisParams>) -> ApiResult<Json<AnalysisJson>> {
    let game = replay(&p)?;
    Ok(Json(analysis_json(&game)))
}

/// The limits of a best-move search.
fn search_limits(p: &AnalysisParams) -> ApiResult<Limits> {
    let level = match p.level {
        None => DEFAULT_LEVEL,
        Some(l) if (1..=8).contains(&l) => l as u8,
        Some(_) => return Err(ApiError::bad("invalid level: 1 to 8")),
    };
    let cfg = level_config(level);
    let movetime = match p.movetime {
        None => MAX_MOVETIME_MS.min(cfg.max_time.as_millis() as u64),
        Some(ms) if ms >= 1 => (ms as u64).min(MAX_MOVETIME_MS),
        Some(_) => {
            return Err(ApiError::bad(
                "invalid movetime: a positive number of milliseconds",
            ));
        }
    };
    // A movetime alone asks for a search bounded by time only.
    let time_only = p.movetime.is_some() && p.level.is_none();
    Ok(Limits {
        depth: if time_only { None } else { cfg.depth },
        nodes: if time_only { None } else { cfg.nodes },
        ..Limits::movetime(movetime)
    })
}

/// "Best move" searches one user (signed out: one address) may have
/// waiting for the analysis lane at once; one more is refused as busy.
pub const BEST_WAITING_PER_SHARE: usize = 4;

/// How long a "best move" request waits for the analysis lane before it
/// is told the engine is busy (503): well within a client's read timeout
/// (20-30 s is common), searches of 3 s at most included.
pub const BEST_SLOT_WAIT: Duration = Duration::from_secs(10);

/// The engine's best move and evaluation after a line.
#[utoipa::path(post, path = "/api/analysis/best", tag = "analysis",
    request_body(content = AnalysisParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "the best move, its line and the evaluation", body = BestMoveJson),
        (status = 400, description = "unknown variant, bad FEN, malformed move, bad level or movetime", body = ErrorBody),
        (status = 422, description = "an illegal move, or the game is over", body = ErrorBody),
        (status = 503, description = "the engine is busy; try again", body = ErrorBody)))]
pub async fn best(
    State(lane): State<AnalysisLane>,
    who: crate::api::live_analysis::LiveOwner,
    Input(p): Input<AnalysisParams>,
) -> ApiResult<Json<BestMoveJson>> {
    let game = replay(&p)?;
    let limits = search_limits(&p)?;
    if let Some(o) = game.outcome() {
        return Err(ApiError::Unprocessable(format!(
            "no move to search: the game is over ({})",
            o.reason()
        )));
    }
    let pos = *game.position();
    let keys = game.repetition_keys().to_vec();
    // In turn by user (signed out: by address), and a few waiting each.
    let result = lane
        .0
        .with_wait(BEST_SLOT_WAIT)
        .per_share(BEST_WAITING_PER_SHARE)
        .run_for(who.share(), move || {
            chessmerge_engine::search::search_once(&pos, &keys, &limits)
        })
        .await?;
    let pos = game.position();
    let best = result
        .best
        .ok_or_else(|| ApiError::Internal("the engine found no move".into()))?;
    // The principal variation, as far as it stays legal, starting with the best move.
    let line = if result.pv.first() == Some(&best) {
        result.pv.clone()
    } else {
        vec![best]
    };
    let (pv, pv_san) = legal_line(pos, &line);
    let score = score_json(pos, result.score);
    Ok(Json(BestMoveJson {
        fen: pos.fen(),
        uci: best.to_string(),
        san: pos.san(best),
        score,
        pv,
        pv_san,
        depth: result.depth,
        nodes: result.nodes,
        time_ms: result.time.as_millis() as u64,
    }))
}

/// A game's positions and its computer analysis, as the game page shows them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameAnalysisJson {
    /// The game's id.
    pub id: String,
    /// Every position, the start first (`positions[n]`: after `n` moves).
    pub positions: Vec<PlyPositionJson>,
    /// `none`, `queued`, `running` or `done`.
    pub state: AnalysisState,
    /// Whether an analysis can be asked for (the game is over, none is stored or on its way).
    pub can_request: bool,
    /// Positions evaluated so far, while queued or running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<ProgressJson>,
    /// One entry per ply once done (as in the JSON export).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Vec<PlyAnalysisJson>>,
    /// Marks and accuracy per player, once done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<SummaryJson>,
    /// The engine's node budget per position, once done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes_per_position: Option<u64>,
}

async fn game_analysis_json(
    games: &Games,
    analyses: &Analyses,
    id: &GameId,
) -> ApiResult<GameAnalysisJson> {
    let live = games.get(id).await?;
    let stored = analyses.stored(id).await?;
    let judged = stored
        .as_ref()
        .and_then(|a| review::judged(&live.rules, a).map(|j| (a, j)));
    let progress = analyses.progress(id);
    let analysis_state = match (&judged, progress) {
        (Some(_), _) => AnalysisState::Done,
        (None, Some((_, true))) => AnalysisState::Running,
        (None, Some((_, false))) => AnalysisState::Queued,
        (None, None) => AnalysisState::None,
    };
    Ok(GameAnalysisJson {
        id: id.to_string(),
        positions: review::positions(&live.rules),
        state: analysis_state,
        can_request: analysis_state == AnalysisState::None
            && (!live.row.is_ongoing() || live.row.is_imported()),
        progress: progress.map(|(p, _)| p),
        nodes_per_position: judged.as_ref().map(|(a, _)| a.nodes_per_position),
        summary: judged.as_ref().map(|(_, j)| j.summary.clone()),
        analysis: judged.map(|(_, j)| j.plies),
    })
}

/// The analysis of a game, when it has one: the JSON export's `analysis`
/// list and the PGN's annotations.
pub async fn export_analysis(
    analyses: &Analyses,
    rules: &RulesGame,
    id: &GameId,
) -> ApiResult<Option<(StoredAnalysis, review::Judged)>> {
    let Some(stored) = analyses.stored(id).await? else {
        return Ok(None);
    };
    Ok(review::judged(rules, &stored).map(|j| (stored, j)))
}

/// Every position of a game (to step through it) and its computer
/// analysis: its state, its progress, and once done the evaluation, mark
/// and better move of every ply and each player's summary. Anyone may read it.
#[utoipa::path(get, path = "/api/game/{id}/analysis", tag = "analysis",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "a malformed game id", body = ErrorBody),
        (status = 200, description = "positions and analysis", body = GameAnalysisJson),
        (status = 404, description = "no such game", body = ErrorBody)))]
pub async fn show_game_analysis(
    State(games): State<Arc<Games>>,
    State(analyses): State<Arc<Analyses>>,
    Path(id): Path<GameId>,
) -> ApiResult<Json<GameAnalysisJson>> {
    Ok(Json(game_analysis_json(&games, &analyses, &id).await?))
}

/// Asks for the computer analysis of a finished game. Any signed-in player
/// may ask, for any finished game (games are public here); one analysis per
/// player is queued or running at a time. Progress arrives on the game's
/// live channels (`analysisProgress`, then `analysisComplete`). Answers 202
/// while queued or running, 200 once stored (asking again costs nothing).
#[utoipa::path(post, path = "/api/game/{id}/analysis", tag = "analysis",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "a malformed game id", body = ErrorBody),
        (status = 200, description = "the analysis is stored", body = GameAnalysisJson),
        (status = 202, description = "queued or running", body = GameAnalysisJson),
        (status = 401, description = "not signed in", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the game is still being played", body = ErrorBody),
        (status = 429, description = "you already have an analysis queued or running", body = ErrorBody),
        (status = 503, description = "the queue is full; try again later", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn request_game_analysis(
    State(games): State<Arc<Games>>,
    State(analyses): State<Arc<Analyses>>,
    user: AuthUser,
    Path(id): Path<GameId>,
) -> ApiResult<(StatusCode, Json<GameAnalysisJson>)> {
    let requested = analyses.request(&id, user.user.id).await?;
    let view = game_analysis_json(&games, &analyses, &id).await?;
    let status = match requested {
        Requested::Done if view.state == AnalysisState::Done => StatusCode::OK,
        _ => StatusCode::ACCEPTED,
    };
    Ok((status, Json(view)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(json: serde_json::Value) -> AnalysisParams {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn limits_follow_level_and_movetime() {
        let l = search_limits(&params(serde_json::json!({}))).unwrap();
        assert_eq!(l.nodes, level_config(8).nodes);
        assert_eq!(
            l.time,
            chessmerge_engine::TimeControl::MoveTime(Duration::from_millis(MAX_MOVETIME_MS))
        );
        let l = search_limits(&params(serde_json::json!({"level": "1"}))).unwrap();
        assert_eq!(l.depth, Some(1));
        let l = search_limits(&params(serde_json::json!({"movetime": 99999}))).unwrap();
        assert_eq!((l.depth, l.nodes), (None, None));
        assert_eq!(
            l.time,
            chessmerge_engine::TimeControl::MoveTime(Duration::from_millis(MAX_MOVETIME_MS))
        );
        assert!(search_limits(&params(serde_json::json!({"level": 9}))).is_err());
        assert!(search_limits(&params(serde_json::json!({"movetime": 0}))).is_err());
        // Not a number: refused when the request is read.
        assert!(
            serde_json::from_value::<AnalysisParams>(serde_json::json!({"level": "x"})).is_err()
        );
    }

    #[test]
    fn moves_as_text_or_list() {
        let a = replay(&params(serde_json::json!({"moves": "b1d2 e7e6"}))).unwrap();
        let b = replay(&params(serde_json::json!({"moves": ["b1d2", "e7e6"]}))).unwrap();
        assert_eq!(a.position().fen(), b.position().fen());
        assert_eq!(
            a.position().fen(),
            "rnbqkbnr/pppp1ppp/4p3/8/8/8/PPP(NP)PPPP/R1BQKBNR w KQkq - 0 2"
        );
    }
}
