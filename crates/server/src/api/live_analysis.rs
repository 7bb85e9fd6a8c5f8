//! The analysis board's live engine: `POST /api/analysis/stream` searches a
//! position until stopped and answers one ndjson line per completed
//! iteration (`{"type":"info","depth","score","pv","san","nodes",...}`),
//! then one `{"type":"done",...}` line. `POST /api/analysis/stream/stop`
//! stops the caller's stream; closing the connection stops it too.
//!
//! Bounds (docs/analysis.md, "Analysis board"):
//! - one live analysis at a time per signed-in user, and per client address
//!   for signed-out callers (a second one: 429), on every node together
//!   (the places and their leases: [`crate::live_analysis`]);
//! - a budget per request: signed in [`USER_BUDGET`], signed out
//!   [`GUEST_BUDGET`] (time and nodes; a request may ask for less);
//! - the search runs on the server's analysis lane (`blocking.rs`), apart
//!   from the computer player's lane, so it never delays a game's moves; a
//!   stream that finds no free slot within [`LIVE_SLOT_WAIT`] is refused (503).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::FromRequestParts;
use axum::extract::State;
use axum::http::request::Parts;
use axum::response::Response;
use chessmerge_engine::search::{SearchInfo, Searcher};
use chessmerge_engine::{Limits, TimeControl};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use utoipa::ToSchema;

use super::analysis::{AnalysisParams, MovesParam, ScoreJson, legal_line, replay, score_json};
use super::params::optional;
use crate::AppState;
use crate::auth::MaybeUser;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Input;
use crate::live_analysis::LiveAnalyses;
use crate::live_analysis::{Budget, GUEST_BUDGET, Owner, USER_BUDGET};
use crate::model::Variant;
use crate::state::AnalysisLane;

/// How long a live analysis waits for a free slot on the analysis lane.
pub const LIVE_SLOT_WAIT: Duration = Duration::from_secs(3);
/// How long a stop waits for the search to end.
const STOP_WAIT: Duration = Duration::from_secs(3);
/// An empty line this often while no iteration completes: a closed
/// connection is noticed when writing, so the search stops within it.
const KEEP_ALIVE: Duration = Duration::from_millis(500);
/// The engine's table for a live search, MiB.
const HASH_MB: usize = 16;

/// A position to analyse live (JSON or form).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LiveAnalysisParams {
    /// `chessmerge` (default), `chessplus`, `fusion` or `standard`.
    #[serde(default, deserialize_with = "optional")]
    #[schema(value_type = Option<String>)]
    pub variant: Option<Variant>,
    /// The start position (Merge-FEN); the variant's start position when left out.
    pub fen: Option<String>,
    /// Merge-UCI moves played from `fen`, in order.
    #[schema(value_type = Option<Vec<String>>)]
    pub moves: Option<MovesParam>,
    /// Longest search in milliseconds (at most the budget: 30000 signed
    /// in, 10000 signed out).
    #[serde(default, deserialize_with = "optional")]
    pub movetime: Option<i64>,
    /// Most positions searched (at most the budget: 50,000,000 signed in,
    /// 10,000,000 signed out).
    #[serde(default, deserialize_with = "optional")]
    pub nodes: Option<i64>,
}

/// One line of a live analysis: `info` after each completed iteration,
/// `done` once at the end.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveAnalysisLine {
    /// `info` or `done`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The position searched (Merge-FEN).
    pub fen: String,
    /// Deepest completed iteration.
    pub depth: i32,
    /// The evaluation, from White's point of view (absent in `done` when no
    /// iteration completed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<ScoreJson>,
    /// The expected line, Merge-UCI.
    pub pv: Vec<String>,
    /// The expected line, readable notation.
    pub san: Vec<String>,
    /// Positions searched.
    pub nodes: u64,
    /// Milliseconds since the search started.
    pub time_ms: u64,
    /// Nodes per second.
    pub nps: u64,
    /// `done` only: `stopped` (a stop or a closed connection), `time` or
    /// `nodes` (the budget ran out), `complete` (nothing left to search).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

/// Who asks: the signed-in user, else the client's address (behind a
/// trusted proxy, the forwarded one).
pub struct LiveOwner {
    owner: Owner,
    signed_in: bool,
}

impl LiveOwner {
    /// Its share of the analysis lane (the lane takes turns by it).
    pub fn share(&self) -> crate::blocking::Share {
        match self.owner {
            Owner::User(id) => crate::blocking::Share::User(id),
            Owner::Address(ip) => crate::blocking::Share::Address(ip),
        }
    }
}

impl FromRequestParts<AppState> for LiveOwner {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let MaybeUser(user) = MaybeUser::from_request_parts(parts, state).await?;
        if let Some(u) = user {
            return Ok(LiveOwner {
                owner: Owner::User(u.user.id),
                signed_in: true,
            });
        }
        let Ok(crate::auth::ClientIp(ip)) =
            crate::auth::ClientIp::from_request_parts(parts, state).await;
        let address = crate::connections::address_key(ip);
        Ok(LiveOwner {
            owner: Owner::Address(address),
            signed_in: false,
        })
    }
}

fn bounded(name: &str, n: Option<i64>, most: u64) -> ApiResult<u64> {
    let Some(n) = n else {
        return Ok(most);
    };
    if n < 1 {
        return Err(ApiError::bad(format!("invalid {name}: a positive number")));
    }
    Ok((n as u64).min(most))
}

/// The budget of one request: the caller's, lowered by what it asks.
fn request_budget(p: &LiveAnalysisParams, signed_in: bool) -> ApiResult<Budget> {
    let most = if signed_in { USER_BUDGET } else { GUEST_BUDGET };
    Ok(Budget {
        time: Duration::from_millis(bounded(
            "movetime",
            p.movetime,
            most.time.as_millis() as u64,
        )?),
        nodes: bounded("nodes", p.nodes, most.nodes)?,
    })
}

enum Out {
    Started,
    Line(String),
}

/// Analyse a position live: ndjson, one `info` line per completed search
/// iteration (growing depth, White's-view score, the line in Merge-UCI and
/// readable notation), then a `done` line. The search stops on
/// `POST /api/analysis/stream/stop`, when the connection closes, or when
/// the budget is spent. One live analysis per user (signed out: per
/// address) at a time. No account needed.
#[utoipa::path(post, path = "/api/analysis/stream", tag = "analysis",
    request_body(content = LiveAnalysisParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "ndjson: info lines, then one done line; empty lines keep the connection alive",
            content((LiveAnalysisLine = "application/x-ndjson"))),
        (status = 400, description = "unknown variant, bad FEN, malformed move, bad movetime or nodes", body = ErrorBody),
        (status = 401, description = "credentials were sent but are not valid (none are needed)", body = ErrorBody),
        (status = 422, description = "an illegal move, or the game is over", body = ErrorBody),
        (status = 429, description = "you already have a live analysis running: stop it first", body = ErrorBody),
        (status = 503, description = "the engine is busy; try again", body = ErrorBody)))]
pub async fn stream(
    State(live): State<Arc<LiveAnalyses>>,
    State(lane): State<AnalysisLane>,
    who: LiveOwner,
    Input(p): Input<LiveAnalysisParams>,
) -> ApiResult<Response> {
    let budget = request_budget(&p, who.signed_in)?;
    let share = who.share();
    let game = replay(&AnalysisParams {
        variant: p.variant,
        fen: p.fen,
        moves: p.moves,
        ..AnalysisParams::default()
    })?;
    if let Some(o) = game.outcome() {
        return Err(ApiError::Unprocessable(format!(
            "no move to search: the game is over ({})",
            o.reason()
        )));
    }
    // Unbounded, yet small: one line per iteration (the depth is capped) and
    // one at the end; a search never waits for a slow reader.
    let (tx, mut rx) = mpsc::unbounded_channel::<Out>();
    let held = live
        .take_shared(who.owner, tx.clone())
        .await?
        .ok_or_else(|| {
            ApiError::TooManyRequests(
                "you already have a live analysis running: stop it first (POST /api/analysis/stream/stop, or close its connection)".into(),
            )
        })?;
    let stop = held.stop_flag().clone();
    let pos = *game.position();
    let keys = game.repetition_keys().to_vec();
    let timed_out = Arc::new(AtomicBool::new(false));
    let lane = lane.0.with_wait(LIVE_SLOT_WAIT);
    let job = {
        let (tx, stop, timed_out) = (tx.clone(), stop.clone(), timed_out.clone());
        move || {
            // The place is held until the search ends (or the job is dropped unrun).
            let _held = held;
            if tx.send(Out::Started).is_err() {
                return;
            }
            live_search(&pos, &keys, budget, &stop, &timed_out, &tx);
        }
    };
    tokio::spawn(async move {
        // In turn with other users' and addresses' searches.
        if let Err(e) = lane.run_for(share, job).await {
            let _ = tx.send(Out::Line(error_line(&ApiError::from(e))));
        }
    });
    // The time budget: the search is stopped when it is spent.
    {
        let (stop, timed_out) = (stop.clone(), timed_out.clone());
        tokio::spawn(async move {
            tokio::time::sleep(budget.time).await;
            if !stop.swap(true, Ordering::Relaxed) {
                timed_out.store(true, Ordering::Relaxed);
            }
        });
    }
    match rx.recv().await {
        Some(Out::Started) => {}
        Some(Out::Line(_)) | None => {
            stop.store(true, Ordering::Relaxed);
            // The place and its lease are given back before the answer
            // (the channel closes once the lease is).
            let _ =
                tokio::time::timeout(STOP_WAIT, async { while rx.recv().await.is_some() {} }).await;
            return Err(ApiError::Unavailable(
                "busy: the analysis engine is at capacity; try again shortly".into(),
            ));
        }
    }
    Ok(ndjson(rx, StopOnDrop(stop)))
}

fn error_line(e: &ApiError) -> String {
    serde_json::json!({ "type": "error", "error": e.to_string(), "code": e.code() }).to_string()
}

/// Runs the search, sending a line per iteration and one at the end.
fn live_search(
    pos: &chessmerge_rules::Position,
    keys: &[u64],
    budget: Budget,
    stop: &Arc<AtomicBool>,
    timed_out: &AtomicBool,
    tx: &mpsc::UnboundedSender<Out>,
) {
    let started = Instant::now();
    let mut searcher = Searcher::new(HASH_MB, stop.clone());
    let limits = Limits {
        time: TimeControl::Infinite,
        nodes: Some(budget.nodes),
        ..Limits::default()
    };
    let mut last: Option<SearchInfo> = None;
    let mut on_info = |info: &SearchInfo| {
        let line = info_line(pos, "info", info, None);
        if tx.send(Out::Line(line)).is_err() {
            // Nobody reads any more: the connection is gone.
            stop.store(true, Ordering::Relaxed);
        }
        last = Some(info.clone());
    };
    let result = searcher.search(pos, keys, &limits, &mut on_info);
    let reason = if timed_out.load(Ordering::Relaxed) {
        "time"
    } else if stop.load(Ordering::Relaxed) {
        "stopped"
    } else if result.nodes >= budget.nodes {
        "nodes"
    } else {
        "complete"
    };
    let end = match &last {
        Some(info) => SearchInfo {
            nodes: searcher.nodes(),
            time: started.elapsed(),
            ..info.clone()
        },
        None => SearchInfo {
            depth: 0,
            seldepth: 0,
            score: 0,
            nodes: searcher.nodes(),
            time: started.elapsed(),
            pv: Vec::new(),
            hashfull: 0,
        },
    };
    let mut line: LiveAnalysisLine = info_json(pos, "done", &end, Some(reason));
    if last.is_none() {
        line.score = None;
    }
    let _ = tx.send(Out::Line(serde_json::to_string(&line).unwrap_or_default()));
}

fn info_json(
    pos: &chessmerge_rules::Position,
    kind: &'static str,
    info: &SearchInfo,
    reason: Option<&'static str>,
) -> LiveAnalysisLine {
    let (pv, san) = legal_line(pos, &info.pv);
    LiveAnalysisLine {
        kind,
        fen: pos.fen(),
        depth: info.depth,
        score: Some(score_json(pos, info.score)),
        pv,
        san,
        nodes: info.nodes,
        time_ms: info.time.as_millis() as u64,
        nps: info.nps(),
        reason,
    }
}

fn info_line(
    pos: &chessmerge_rules::Position,
    kind: &'static str,
    info: &SearchInfo,
    reason: Option<&'static str>,
) -> String {
    serde_json::to_string(&info_json(pos, kind, info, reason)).unwrap_or_default()
}

/// Sets the stop flag when the response body is dropped (the client left).
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn ndjson(rx: mpsc::UnboundedReceiver<Out>, guard: StopOnDrop) -> Response {
    let stream = futures_util::stream::unfold((rx, guard), |(mut rx, guard)| async move {
        let bytes = match tokio::time::timeout(KEEP_ALIVE, rx.recv()).await {
            Err(_) => super::stream::keep_alive(),
            Ok(None) => return None,
            Ok(Some(Out::Started)) => super::stream::keep_alive(),
            Ok(Some(Out::Line(mut l))) => {
                l.push('\n');
                Bytes::from(l)
            }
        };
        Some((Ok::<_, Infallible>(bytes), (rx, guard)))
    });
    super::stream::ndjson_response(Body::from_stream(stream))
}

/// Whether a live analysis was stopped.
#[derive(Debug, Serialize, ToSchema)]
pub struct LiveAnalysisStopped {
    /// True if the caller had a live analysis; it has ended when this answers.
    pub stopped: bool,
}

/// Stop your live analysis (the one `POST /api/analysis/stream` runs for
/// this user, or signed out for this address). Answers once it has ended,
/// so a new one may start at once; `stopped` is false when none was running.
#[utoipa::path(post, path = "/api/analysis/stream/stop", tag = "analysis",
    responses(
        (status = 200, description = "stopped (or none was running)", body = LiveAnalysisStopped),
        (status = 401, description = "credentials were sent but are not valid (none are needed)", body = ErrorBody),
        (status = 503, description = "the search did not end in time", body = ErrorBody)))]
pub async fn stop(
    State(live): State<Arc<LiveAnalyses>>,
    who: LiveOwner,
) -> ApiResult<Json<LiveAnalysisStopped>> {
    // Answered once the search has ended and its lease is given back,
    // wherever it ran.
    let Some(stopped) = live.stop_and_wait(who.owner, STOP_WAIT).await? else {
        return Err(ApiError::Unavailable(
            "the live analysis did not stop in time; try again".into(),
        ));
    };
    Ok(Json(LiveAnalysisStopped { stopped }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_are_capped_and_checked() {
        let p: LiveAnalysisParams = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(request_budget(&p, true).unwrap(), USER_BUDGET);
        assert_eq!(request_budget(&p, false).unwrap(), GUEST_BUDGET);
        let p: LiveAnalysisParams =
            serde_json::from_value(serde_json::json!({"movetime": 999999, "nodes": "5000"}))
                .unwrap();
        let b = request_budget(&p, false).unwrap();
        assert_eq!((b.time, b.nodes), (GUEST_BUDGET.time, 5000));
        let p: LiveAnalysisParams =
            serde_json::from_value(serde_json::json!({"movetime": 0})).unwrap();
        assert!(request_budget(&p, true).is_err());
        // Not a number: refused when the request is read.
        assert!(
            serde_json::from_value::<LiveAnalysisParams>(serde_json::json!({"nodes": "x"}))
                .is_err()
        );
    }
}
