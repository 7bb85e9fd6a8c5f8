//! Quick pairing over HTTP: lichess's `POST /api/board/seek`. A real-time
//! seek holds its request open (an ndjson stream of keep-alive lines) and
//! lapses when the client goes away; a correspondence or untimed seek
//! answers at once and waits in the lobby like an open challenge.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::params::{ChallengeVariant, LooseBool, Minutes, SEEK_CLOCK, optional, time_control};
use super::stream::{keep_alive, line, ndjson_response};
use crate::auth::AuthUser;
use crate::challenges::{Challenges, Seek, Seeking, Terms};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Input;
use crate::model::{ChallengeId, ChallengeStatus, ColorRequest, TimeControl, UserId, Variant};

/// A seek (JSON or form), in lichess's fields.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeekParams {
    /// Rated (default false).
    #[serde(default, deserialize_with = "optional")]
    #[schema(value_type = Option<bool>)]
    pub rated: Option<LooseBool>,
    /// A real-time clock's initial time, minutes (0 to 180; `0.5` is 30 s), with `increment`.
    #[serde(default, deserialize_with = "optional")]
    #[schema(value_type = Option<f64>)]
    pub time: Option<Minutes>,
    /// A real-time clock's increment, seconds (0 to 180), with `time`.
    #[serde(default, deserialize_with = "optional")]
    pub increment: Option<i64>,
    /// Days per move of a correspondence seek (1, 2, 3, 5, 7, 10, 14).
    #[serde(default, deserialize_with = "optional")]
    pub days: Option<i64>,
    /// `chessmerge` (default), `chessplus`, `fusion` or `standard`.
    #[serde(default, deserialize_with = "optional")]
    #[schema(value_type = Option<String>)]
    pub variant: Option<ChallengeVariant>,
    /// lichess's deprecated colour: only `random` (seeks pair with random colours).
    #[serde(default, deserialize_with = "optional")]
    #[schema(value_type = Option<String>)]
    pub color: Option<ColorRequest>,
    /// Opponents' ratings to accept: `1500-1800`.
    #[serde(rename = "ratingRange", default)]
    pub rating_range: Option<String>,
}

/// A correspondence or untimed seek's answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeekJson {
    /// The seek (an open challenge's id; cancel it with `/api/challenge/{id}/cancel`).
    pub id: String,
    /// The game, when the seek was paired at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_id: Option<String>,
}

/// The last line of a real-time seek's stream: the game it was paired into.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PairedLine {
    game_id: String,
}

/// Reads `1500-1800` (either order is refused unless low <= high).
fn rating_range(text: &str) -> ApiResult<(i64, i64)> {
    let bad = || {
        ApiError::bad(format!(
            "ratingRange must be two ratings as low-high, such as 1500-1800, not {:?}",
            text.chars().take(32).collect::<String>()
        ))
    };
    let (lo, hi) = text.trim().split_once('-').ok_or_else(bad)?;
    let lo: i64 = lo.trim().parse().map_err(|_| bad())?;
    let hi: i64 = hi.trim().parse().map_err(|_| bad())?;
    if !(0..=4000).contains(&lo) || !(0..=4000).contains(&hi) || lo > hi {
        return Err(bad());
    }
    Ok((lo, hi))
}

fn seek_of(p: &SeekParams) -> ApiResult<Seek> {
    let control = time_control(p.time.map(|m| m.0), p.increment, p.days, SEEK_CLOCK)?;
    if p.color.is_some_and(|c| c != ColorRequest::Random) {
        return Err(ApiError::bad(
            "color: seeks are paired with random colours; leave it out or send random",
        ));
    }
    if p.variant.is_some_and(|v| v.from_position) {
        return Err(ApiError::bad(
            "variant fromPosition: seeks start from the usual position",
        ));
    }
    let mut terms = Terms::new(
        p.variant.map_or(Variant::ChessMerge, |v| v.variant),
        ColorRequest::Random,
        None,
    )?;
    terms.rated = p.rated.is_some_and(|r| r.0);
    terms.time_control = control;
    Ok(Seek {
        terms,
        rating_range: p.rating_range.as_deref().map(rating_range).transpose()?,
    })
}

/// How often a waiting real-time seek looks whether it was taken.
const LOOK_EVERY: Duration = Duration::from_millis(500);
/// Keep-alive lines of a waiting seek's stream, as the other streams.
const KEEP_ALIVE_EVERY: Duration = Duration::from_secs(7);

/// Withdraws a waiting seek when its stream ends before it was taken
/// (the client went away): a real-time seek lapses with its page.
struct Lapse {
    challenges: Arc<Challenges>,
    user: UserId,
    id: ChallengeId,
    settled: bool,
}

impl Drop for Lapse {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let (challenges, user, id) = (self.challenges.clone(), self.user, self.id.clone());
        tokio::spawn(async move {
            if let Err(e) = challenges.withdraw(user, &id).await {
                tracing::warn!(challenge = %id, error = %e, "cannot withdraw a lapsed seek");
            }
        });
    }
}

/// Seek a game (quick pairing), lichess's board-API seek. A real-time
/// seek (`time` and `increment`) answers an ndjson stream: empty lines
/// while it waits, a last line `{"gameId": ...}` when it is paired (the
/// game also starts on the event stream, as on lichess); closing the
/// request withdraws the seek. A correspondence (`days`) or untimed seek
/// answers at once.
#[utoipa::path(post, path = "/api/board/seek", tag = "challenges",
    request_body(content = SeekParams, description = "JSON or form", content_type = "application/json"),
    responses(
        (status = 200, description = "a correspondence or untimed seek (or its game); a real-time seek's ndjson stream", body = SeekJson),
        (status = 400, description = "a field out of its range, named", body = ErrorBody),
        (status = 401, description = "not authenticated", body = ErrorBody),
        (status = 403, description = "a bot account (bots are challenged, they do not seek)", body = ErrorBody),
        (status = 429, description = "a per-user cap of open challenges is reached", body = ErrorBody)),
    security(("bearer" = []), ("cookie" = [])))]
pub async fn seek(
    State(challenges): State<Arc<Challenges>>,
    user: AuthUser,
    Input(p): Input<SeekParams>,
) -> ApiResult<Response> {
    let me = user.human()?.clone();
    let seek = seek_of(&p)?;
    let real_time = matches!(seek.terms.time_control, Some(TimeControl::Clock { .. }));
    let waiting = match challenges.seek(&me, seek).await? {
        Seeking::Paired(game) if real_time => {
            let body = line(&PairedLine {
                game_id: game.to_string(),
            });
            return Ok(ndjson_response(Body::from(body)));
        }
        Seeking::Paired(game) => {
            return Ok(Json(SeekJson {
                id: game.to_string(),
                game_id: Some(game.to_string()),
            })
            .into_response());
        }
        Seeking::Waiting(c) if !real_time => {
            return Ok(Json(SeekJson {
                id: c.id.to_string(),
                game_id: None,
            })
            .into_response());
        }
        Seeking::Waiting(c) => c,
    };
    let lapse = Lapse {
        challenges,
        user: me.id,
        id: waiting.id,
        settled: false,
    };
    let quiet_since = tokio::time::Instant::now();
    let stream = futures_util::stream::unfold(Some((lapse, quiet_since)), |state| async move {
        let (mut lapse, mut quiet_since) = state?;
        loop {
            tokio::time::sleep(LOOK_EVERY).await;
            match lapse.challenges.get(&lapse.id).await {
                Ok(c) if c.status == ChallengeStatus::Created => {}
                Ok(c) => {
                    lapse.settled = true;
                    if c.status != ChallengeStatus::Accepted {
                        return None;
                    }
                    let last = line(&PairedLine {
                        game_id: c.id.to_string(),
                    });
                    return Some((Ok::<_, Infallible>(last), None));
                }
                Err(e) => {
                    tracing::warn!(challenge = %lapse.id, error = %e, "cannot read a waiting seek");
                }
            }
            if quiet_since.elapsed() >= KEEP_ALIVE_EVERY {
                quiet_since = tokio::time::Instant::now();
                return Some((Ok(keep_alive()), Some((lapse, quiet_since))));
            }
        }
    });
    Ok(ndjson_response(Body::from_stream(stream)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rating_ranges_read_low_high() {
        assert_eq!(rating_range("1500-1800").unwrap(), (1500, 1800));
        assert_eq!(rating_range(" 800 - 1200 ").unwrap(), (800, 1200));
        for bad in ["1800-1500", "1500", "a-b", "-5-10", "1500-99999"] {
            assert!(rating_range(bad).is_err(), "{bad}");
        }
    }
}
