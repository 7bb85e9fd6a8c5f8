//! Game actions (board API), the page's game view, lists and exports.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;

use super::params::{Answer, optional};
use crate::accounts::Accounts;
use crate::auth::{AuthUser, MaybeUser};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{MovePath, Path, Query};
use crate::games::Games;
use crate::games::{Actor, LiveGame};
use crate::model::{Color, GameId, GameStatus, TimeControl, UserId};
use crate::review::Analyses;
use crate::state::Site;
use crate::store;
use crate::views::{
    self, ExportJson, ExportPlayerJson, ExportPlayersJson, GameJson, NowPlayingListJson, OkJson,
    Players,
};

/// Options of a move.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct MoveParams {
    /// `true` to offer (or agree to) a draw with the move.
    #[serde(default, deserialize_with = "optional")]
    pub offering_draw: Option<bool>,
}

/// Play a move (Merge-UCI: `e2e3`, `b1d2`, `Nd2f3`, `e7e8q`).
#[utoipa::path(post, path = "/api/board/game/{id}/move/{move}", tag = "board",
    params(("id" = String, Path, description = "game id"),
        ("move" = String, Path, description = "the move in Merge-UCI"),
        MoveParams),
    responses(
        (status = 200, description = "the move is committed", body = OkJson),
        (status = 400, description = "malformed id or move, or offeringDraw neither true nor false", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your game, or a bot account (bots use the bot API)", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "not your turn, or the game is over", body = ErrorBody),
        (status = 422, description = "illegal move, with the rules' reason", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn play_move(
    State(games): State<Arc<Games>>,
    MovePath { id, mv }: MovePath,
    user: AuthUser,
    Query(q): Query<MoveParams>,
) -> ApiResult<Json<OkJson>> {
    let player = user.human()?;
    play_as(&games, player, &id, &mv, &q).await
}

/// A move by `player`, the same for the board and the bot API: malformed
/// text was a 400 in the extractor; the games domain answers 409 (turn,
/// game over) and 422 (illegal, with the rules' reason).
pub(crate) async fn play_as(
    games: &Games,
    player: &store::User,
    id: &GameId,
    mv: &chessmerge_rules::UciMove,
    q: &MoveParams,
) -> ApiResult<Json<OkJson>> {
    let offering = q.offering_draw.unwrap_or(false);
    games
        // lichess's HTTP APIs report no lag: their moves are charged in full.
        .play_move(id, Actor::User(player.id), mv, None, offering, 0)
        .await?;
    Ok(Json(OkJson::yes()))
}

/// Resign.
#[utoipa::path(post, path = "/api/board/game/{id}/resign", tag = "board",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 200, description = "resigned", body = OkJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your game, or a bot account (bots use the bot API)", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the game is over", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn resign(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path(id): Path<GameId>,
) -> ApiResult<Json<OkJson>> {
    games.resign(&id, user.human()?.id).await?;
    Ok(Json(OkJson::yes()))
}

/// Most seconds one call of `add-time` gives (lichess's bound).
pub const MAX_ADD_SECONDS: u32 = 86_400;

/// Give the opponent time on a real-time clock (lichess's `add-time`;
/// the page's "+15 seconds"). Bounded per move, like offers.
#[utoipa::path(post, path = "/api/round/{id}/add-time/{seconds}", tag = "board",
    params(("id" = String, Path, description = "game id"),
        ("seconds" = u32, Path, description = "1 to 86400")),
    responses(
        (status = 400, description = "malformed id or seconds", body = ErrorBody),
        (status = 200, description = "given", body = OkJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your game", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the game is over, has no real-time clock, or time was given too often at this move", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn add_time(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path((id, seconds)): Path<(GameId, u32)>,
) -> ApiResult<Json<OkJson>> {
    if !(1..=MAX_ADD_SECONDS).contains(&seconds) {
        return Err(ApiError::bad(format!(
            "seconds must be 1 to {MAX_ADD_SECONDS}, not {seconds}"
        )));
    }
    games
        .give_time(&id, user.user.id, i64::from(seconds) * 1_000)
        .await?;
    Ok(Json(OkJson::yes()))
}

/// Abort (only before both sides have moved).
#[utoipa::path(post, path = "/api/board/game/{id}/abort", tag = "board",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 200, description = "aborted", body = OkJson),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your game, or a bot account (bots use the bot API)", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "both sides have moved, or the game is over", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn abort(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path(id): Path<GameId>,
) -> ApiResult<Json<OkJson>> {
    games.abort(&id, Actor::User(user.human()?.id)).await?;
    Ok(Json(OkJson::yes()))
}

/// Offer or accept a draw (`yes`), decline or withdraw one (`no`).
#[utoipa::path(post, path = "/api/board/game/{id}/draw/{accept}", tag = "board",
    params(("id" = String, Path, description = "game id"),
        ("accept" = String, Path, description = "`yes` or `no`")),
    responses(
        (status = 200, description = "done", body = OkJson),
        (status = 400, description = "malformed id, or neither yes nor no", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "not your game, or a bot account (bots use the bot API)", body = ErrorBody),
        (status = 404, description = "no such game", body = ErrorBody),
        (status = 409, description = "the game is over", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn draw(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Path((id, Answer(yes))): Path<(GameId, Answer)>,
) -> ApiResult<Json<OkJson>> {
    games.draw(&id, user.human()?.id, yes).await?;
    Ok(Json(OkJson::yes()))
}

/// The page's view of a game, from the live game (no replay when cached).
pub fn game_json(live: &LiveGame, viewer: Option<UserId>) -> GameJson {
    let g = &live.row;
    let state = live.state_json();
    GameJson {
        id: g.id.to_string(),
        variant: crate::views::variant_json(g.variant),
        initial_fen: g.initial_fen.clone(),
        fen: g.fen.clone(),
        turn: state.turn,
        ply: g.ply,
        version: g.version,
        status: g.status,
        winner: state.winner,
        reason: state.reason,
        moves: g.move_list().into_iter().map(str::to_owned).collect(),
        san: state.san.list(),
        last_move: state.last_move,
        check: state.check,
        draw_offer: g.draw_offer.map(Color::name),
        takeback_offer: g.takeback_offer.map(Color::name),
        rematch: state.rematch,
        white: views::with_game_rating(&live.players.white, g.white_rating),
        black: views::with_game_rating(&live.players.black, g.black_rating),
        legal_moves: state.legal_moves,
        you: viewer.and_then(|v| g.color_of(v)).map(Color::name),
        created_at: g.created_at,
        updated_at: g.updated_at,
        source: views::source_of(g),
        rated: g.rated,
        rating_diff: state.rating_diff,
        speed: g.speed(),
        time_control: views::time_control_json(g.time_control()),
        clock: views::clock_now(g),
    }
}

/// A game for the web page: position, moves in both notations, legal moves.
#[utoipa::path(get, path = "/api/game/{id}", tag = "games",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 200, description = "the game", body = GameJson),
        (status = 404, description = "no such game", body = ErrorBody)))]
pub async fn show(
    State(games): State<Arc<Games>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<GameId>,
) -> ApiResult<Json<GameJson>> {
    let viewer = user.map(|u| u.user.id);
    Ok(Json(games.read(&id, |g| game_json(g, viewer)).await?))
}

/// Limit on list sizes.
#[derive(Debug, Default, Deserialize, IntoParams)]
pub struct ListParams {
    /// How many games at most.
    #[serde(default, deserialize_with = "optional")]
    pub nb: Option<i64>,
    /// How many games at most (the games export's name for it).
    #[serde(default, deserialize_with = "optional")]
    pub max: Option<i64>,
}

impl ListParams {
    fn limit(&self, default: i64, cap: i64) -> ApiResult<i64> {
        match self.nb.or(self.max) {
            None => Ok(default),
            Some(n) if n >= 1 => Ok(n.min(cap)),
            Some(n) => Err(ApiError::bad(format!(
                "invalid limit {n}: a positive number"
            ))),
        }
    }
}

/// Your ongoing games, those where it is your move first.
#[utoipa::path(get, path = "/api/account/playing", tag = "games",
    params(ListParams),
    responses(
        (status = 200, description = "ongoing games", body = NowPlayingListJson),
        (status = 400, description = "bad nb or max", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn playing(
    State(games): State<Arc<Games>>,
    user: AuthUser,
    Query(q): Query<ListParams>,
) -> ApiResult<Json<NowPlayingListJson>> {
    let limit = q.limit(50, 200)? as usize;
    let ongoing = games.ongoing_of(user.user.id).await?;
    let mut out = Vec::with_capacity(ongoing.len());
    for g in &ongoing {
        let Some(color) = g.color_of(user.user.id) else {
            continue;
        };
        let players = games.players(g).await?;
        out.push(views::now_playing(g, color, &players));
    }
    // Stable: within each group, the most recently changed first (the store's order).
    out.sort_by_key(|g| !g.is_my_turn);
    out.truncate(limit);
    Ok(Json(NowPlayingListJson { now_playing: out }))
}

fn pgn_result(g: &store::Game) -> &'static str {
    match (g.status, g.winner) {
        (_, Some(Color::White)) => "1-0",
        (_, Some(Color::Black)) => "0-1",
        (GameStatus::Draw | GameStatus::Stalemate, _) => "1/2-1/2",
        _ => "*",
    }
}

/// `YYYY.MM.DD` of a Unix time in milliseconds (UTC).
fn pgn_date(ms: i64) -> String {
    let (y, m, d) = civil_date(ms);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Year, month (1-12) and day of a time in ms since the epoch (UTC):
/// Howard Hinnant's days-to-civil algorithm.
pub(crate) fn civil_date(ms: i64) -> (i64, i64, i64) {
    let z = ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn pgn_of(
    base_url: &str,
    g: &store::Game,
    rules: &chessmerge_rules::Game,
    players: &Players,
    notes: &[chessmerge_rules::pgn::Annotation],
) -> String {
    // lichess's words: every ending by the rules or by the players
    // (mate, stalemate, resignation, agreement) is `Normal`.
    let termination = match g.status {
        GameStatus::Started => "Unterminated",
        GameStatus::Aborted => "Abandoned",
        GameStatus::Mate | GameStatus::Resign | GameStatus::Stalemate | GameStatus::Draw => {
            "Normal"
        }
        GameStatus::Outoftime => "Time forfeit",
    }
    .to_owned();
    let kind = if g.rated { "Rated" } else { "Casual" };
    let mut tags: Vec<(String, String)> = vec![
        ("Event".into(), format!("{kind} {} game", g.variant.name())),
        ("Site".into(), format!("{base_url}/{}", g.id)),
        ("Date".into(), pgn_date(g.created_at)),
        ("White".into(), players.white.name.clone()),
        ("Black".into(), players.black.name.clone()),
        ("GameId".into(), g.id.to_string()),
        // lichess's form: `180+2` for a clock, `-` otherwise (its
        // correspondence games too).
        (
            "TimeControl".into(),
            match g.time_control() {
                Some(TimeControl::Clock { limit, increment }) => format!("{limit}+{increment}"),
                _ => "-".into(),
            },
        ),
        ("Termination".into(), termination),
    ];
    // lichess's rating tags, for a finished rated game.
    for (side, r) in [("White", g.white_rating), ("Black", g.black_rating)] {
        if let Some(r) = r {
            tags.push((format!("{side}Elo"), r.rating.to_string()));
            tags.push((format!("{side}RatingDiff"), format!("{:+}", r.diff)));
        }
    }
    chessmerge_rules::pgn::write_annotated(rules, &tags, pgn_result(g), notes)
}

fn side_rating(g: &store::Game, color: Color) -> Option<store::SideRating> {
    match color {
        Color::White => g.white_rating,
        Color::Black => g.black_rating,
    }
}

pub(super) async fn export_json(
    accounts: &Accounts,
    games: &Games,
    g: &store::Game,
) -> ApiResult<ExportJson> {
    // A casual game's players, and a rated game's until it ends, show their
    // rating in its variant (as lichess shows theirs at the game's time;
    // ours is the current one).
    let shown = if g.is_imported() || (g.rated && !g.is_ongoing()) {
        None
    } else {
        Some(games.players(g).await?)
    };
    let mut sides = Vec::with_capacity(2);
    for color in Color::ALL {
        sides.push(match g.player_id(color) {
            Some(id) => ExportPlayerJson {
                user: accounts
                    .user(id)
                    .await?
                    .as_ref()
                    .map(crate::views::light_user),
                ai_level: None,
                name: None,
                rating: side_rating(g, color)
                    .map(|r| r.rating)
                    .or_else(|| shown.as_ref().and_then(|p| p.get(color).rating)),
                rating_diff: side_rating(g, color).map(|r| r.diff),
            },
            None => ExportPlayerJson {
                user: None,
                ai_level: g.ai_level,
                name: None,
                rating: None,
                rating_diff: None,
            },
        });
    }
    if g.is_imported() {
        let names = games.players(g).await?;
        sides[0].name = Some(names.white.name);
        sides[1].name = Some(names.black.name);
    }
    let black = sides.pop().expect("two sides");
    let white = sides.pop().expect("two sides");
    Ok(ExportJson {
        id: g.id.to_string(),
        rated: g.rated,
        variant: views::variant_key(g.variant, Some(g.initial_fen.as_str())),
        speed: g.speed(),
        perf: g.speed(),
        clock: match g.time_control() {
            Some(TimeControl::Clock { limit, increment }) => Some(views::ExportClockJson {
                initial: limit,
                increment,
                total_time: limit + 40 * increment,
            }),
            _ => None,
        },
        days_per_turn: match g.time_control() {
            Some(TimeControl::Correspondence { days }) => Some(days),
            _ => None,
        },
        created_at: g.created_at,
        last_move_at: g.updated_at,
        status: g.status,
        winner: g.winner.map(Color::name),
        players: ExportPlayersJson { white, black },
        source: views::source_of(g),
        initial_fen: (g.initial_fen != chessmerge_rules::START_FEN).then(|| g.initial_fen.clone()),
        fen: g.fen.clone(),
        moves: g.moves.clone(),
        analysis: None,
    })
}

/// PGN of a stored game that is not kept live (lists): one replay; an
/// analysed game carries its evaluations and marks, as the single game's
/// export does.
async fn pgn_of_row(
    games: &Games,
    analyses: &Analyses,
    base_url: &str,
    g: &store::Game,
) -> ApiResult<String> {
    let players = games.players(g).await?;
    let rules = games.rebuild_uncached(g)?;
    let analysis = super::analysis::export_analysis(analyses, &rules, &g.id).await?;
    let notes = analysis.map_or_else(Vec::new, |(stored, judged)| {
        crate::review::pgn_notes(&stored, &judged)
    });
    Ok(pgn_of(base_url, g, &rules, &players, &notes))
}

fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').any(|part| part.trim().starts_with(mime)))
}

fn with_type(body: String, content_type: &'static str) -> Response {
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
        body,
    )
        .into_response()
}

/// Export a game: PGN, or JSON with `Accept: application/json`; an
/// analysed game carries its evaluations and marks (`analysis` in JSON,
/// `{ [%eval 0.17] }` comments and `?!`/`?`/`??` in PGN).
#[utoipa::path(get, path = "/game/export/{id}", tag = "games",
    params(("id" = String, Path, description = "game id")),
    responses(
        (status = 400, description = "malformed id", body = ErrorBody),
        (status = 200, description = "the game", content(
            (String = "application/x-chess-pgn"),
            (ExportJson = "application/json"))),
        (status = 404, description = "no such game", body = ErrorBody)))]
pub async fn export(
    State(accounts): State<Arc<Accounts>>,
    State(games): State<Arc<Games>>,
    State(analyses): State<Arc<Analyses>>,
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path(id): Path<GameId>,
) -> ApiResult<Response> {
    let live = games.get(&id).await?;
    let analysis = super::analysis::export_analysis(&analyses, &live.rules, &id).await?;
    if accepts(&headers, "application/json") {
        let mut json = export_json(&accounts, &games, &live.row).await?;
        json.analysis = analysis.map(|(_, judged)| judged.plies);
        Ok(Json(json).into_response())
    } else {
        let notes = analysis.map_or_else(Vec::new, |(stored, judged)| {
            crate::review::pgn_notes(&stored, &judged)
        });
        let pgn = pgn_of(
            &site.base_url,
            &live.row,
            &live.rules,
            &live.players,
            &notes,
        );
        Ok(with_type(pgn, "application/x-chess-pgn"))
    }
}

/// Games as ndjson export lines, one a line.
pub(super) async fn export_lines(
    accounts: &Accounts,
    games: &Games,
    rows: &[store::Game],
) -> ApiResult<Response> {
    let mut body = String::new();
    for g in rows {
        let line = serde_json::to_string(&export_json(accounts, games, g).await?)
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        body.push_str(&line);
        body.push('\n');
    }
    Ok(with_type(body, "application/x-ndjson"))
}

/// A user's finished games: PGN by default, ndjson with
/// `Accept: application/x-ndjson`, a JSON array with `Accept: application/json`.
#[utoipa::path(get, path = "/api/games/user/{username}", tag = "games",
    params(("username" = String, Path, description = "whose games"), super::profile::GameListParams),
    responses(
        (status = 400, description = "bad filter or paging parameter", body = ErrorBody),
        (status = 200, description = "finished games, newest first", content(
            (String = "application/x-chess-pgn"),
            (ExportJson = "application/x-ndjson"),
            (Vec<ExportJson> = "application/json"))),
        (status = 404, description = "no such user", body = ErrorBody)))]
pub async fn user_games(
    State(accounts): State<Arc<Accounts>>,
    State(games): State<Arc<Games>>,
    State(analyses): State<Arc<Analyses>>,
    State(site): State<Arc<Site>>,
    headers: HeaderMap,
    Path(username): Path<String>,
    Query(q): Query<super::profile::GameListParams>,
) -> ApiResult<Response> {
    let user = accounts
        .user_named(&username)
        .await?
        .ok_or_else(|| ApiError::not_found("user"))?;
    let filter = q.filter(&accounts).await?;
    let finished = games.finished_of(user.id, &filter).await?;
    if accepts(&headers, "application/x-ndjson") {
        export_lines(&accounts, &games, &finished).await
    } else if accepts(&headers, "application/json") {
        let mut all = Vec::with_capacity(finished.len());
        for g in &finished {
            all.push(export_json(&accounts, &games, g).await?);
        }
        Ok(Json(all).into_response())
    } else {
        let mut body = String::new();
        for g in &finished {
            body.push_str(&pgn_of_row(&games, &analyses, &site.base_url, g).await?);
            body.push_str("\n\n");
        }
        Ok(with_type(body, "application/x-chess-pgn"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(951_782_400_000), "2000.02.29");
        assert_eq!(pgn_date(1_798_675_200_000), "2026.12.31");
    }
}
