//! The one API error type. Domain and rules errors convert into it with
//! `From`, and [`ApiError::status`] is the one place where a failure gets
//! its HTTP status, and [`ApiError::code`] the one where it gets its
//! machine-readable word. Every error answers with a JSON body
//! `{"error": "...", "code": "..."}`; internal failures are logged with
//! their detail and answered without it.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::blocking::BlockingError;
use crate::challenges::ChallengeError;
use crate::games::GameError;
use crate::live::FeedError;
use crate::model::ParseError;
use crate::review::ReviewError;
use crate::store::StoreError;

/// An error answered to a client.
#[derive(Debug)]
pub enum ApiError {
    /// 400: the request is malformed (a bad field, FEN or move text).
    BadRequest(String),
    /// 401: no or bad credentials.
    Unauthorized(String),
    /// 403: authenticated, but not allowed to do this.
    Forbidden(String),
    /// 404: no such thing.
    NotFound(String),
    /// 405: no such method on this path.
    MethodNotAllowed,
    /// 409: conflicts with the current state (a taken name, ...).
    Conflict(String),
    /// 421: addressed to a host name this server does not answer for.
    MisdirectedRequest(String),
    /// 413: the body is too large.
    PayloadTooLarge,
    /// 415: a body in a format we do not read.
    UnsupportedMediaType(String),
    /// 422: well-formed but not allowed by the rules.
    Unprocessable(String),
    /// 429: too many attempts.
    TooManyRequests(String),
    /// 429: over a rate; may try again after this many seconds.
    RateLimited(String, u64),
    /// 500: our fault; the detail is logged, not sent.
    Internal(String),
    /// 503: shutting down or overloaded.
    Unavailable(String),
    /// A game action was refused.
    Game(GameError),
    /// A challenge action was refused.
    Challenge(ChallengeError),
    /// Storage failed.
    Store(StoreError),
    /// Bounded blocking work could not run.
    Blocking(BlockingError),
}

/// `Retry-After` of a 429 for a cap (something held must end first).
pub const CAP_RETRY_SECS: u64 = 10;
/// `Retry-After` of a 503 (a lane or the database busy, shutting down).
pub const BUSY_RETRY_SECS: u64 = 5;

impl ApiError {
    /// The HTTP status of this error: the one place where it is decided.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::MisdirectedRequest(_) => StatusCode::MISDIRECTED_REQUEST,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooManyRequests(_) | ApiError::RateLimited(..) => {
                StatusCode::TOO_MANY_REQUESTS
            }
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Game(e) => game_status(e),
            ApiError::Challenge(e) => match e {
                ChallengeError::NotFound | ChallengeError::UserNotFound => StatusCode::NOT_FOUND,
                ChallengeError::SelfChallenge | ChallengeError::Invalid(_) => {
                    StatusCode::BAD_REQUEST
                }
                ChallengeError::NotYours(_) | ChallengeError::Refused(_) => StatusCode::FORBIDDEN,
                ChallengeError::NotPending(_)
                | ChallengeError::NoLongerPending
                | ChallengeError::GameUnderWay => StatusCode::CONFLICT,
                ChallengeError::NoFreeId => StatusCode::INTERNAL_SERVER_ERROR,
                ChallengeError::Limit(_) => StatusCode::TOO_MANY_REQUESTS,
                ChallengeError::Game(e) => game_status(e),
                ChallengeError::Store(e) => store_status(e),
            },
            ApiError::Store(e) => store_status(e),
            ApiError::Blocking(BlockingError::Busy { .. }) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Blocking(BlockingError::Failed { .. }) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// Seconds a refused client should wait before asking again
    /// (`Retry-After`): every 429 and 503 says it; a rate's refusal gives
    /// the bucket's own wait, a cap (held streams, pending challenges)
    /// [`CAP_RETRY_SECS`], a busy server [`BUSY_RETRY_SECS`].
    pub fn retry_after(&self) -> Option<u64> {
        match (self, self.status()) {
            (ApiError::RateLimited(_, secs), _) => Some((*secs).max(1)),
            (_, StatusCode::TOO_MANY_REQUESTS) => Some(CAP_RETRY_SECS),
            (_, StatusCode::SERVICE_UNAVAILABLE) => Some(BUSY_RETRY_SECS),
            _ => None,
        }
    }

    /// The body's `code`: a short, stable word for the kind of failure
    /// (`illegal_move`, `not_your_turn`, `not_found`, ...), for clients
    /// that act on it; the English `error` beside it may change.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Game(e) => game_code(e),
            ApiError::Challenge(e) => match e {
                ChallengeError::NotFound | ChallengeError::UserNotFound => "not_found",
                ChallengeError::SelfChallenge => "self_challenge",
                ChallengeError::Invalid(_) => "bad_request",
                ChallengeError::NotYours(_) => "not_yours",
                ChallengeError::Refused(_) => "challenge_refused",
                ChallengeError::NotPending(_) | ChallengeError::NoLongerPending => "not_pending",
                ChallengeError::GameUnderWay => "game_under_way",
                ChallengeError::NoFreeId => "internal",
                ChallengeError::Limit(_) => "rate_limited",
                ChallengeError::Game(e) => game_code(e),
                ChallengeError::Store(e) => store_code(e),
            },
            ApiError::Store(e) => store_code(e),
            other => code_of_status(other.status()),
        }
    }

    /// Shorthand for a 400.
    pub fn bad(msg: impl Into<String>) -> ApiError {
        ApiError::BadRequest(msg.into())
    }

    /// Shorthand for a 404.
    pub fn not_found(what: &str) -> ApiError {
        ApiError::NotFound(format!("{what} not found"))
    }
}

fn game_status(e: &GameError) -> StatusCode {
    match e {
        GameError::NotFound => StatusCode::NOT_FOUND,
        GameError::NotAPlayer | GameError::NoComputer => StatusCode::FORBIDDEN,
        GameError::Over(_)
        | GameError::Stale { .. }
        | GameError::NotYourTurn
        | GameError::NotAbortable
        | GameError::TooFast
        | GameError::Refused(_) => StatusCode::CONFLICT,
        GameError::Illegal(_) | GameError::BadForecast(_) => StatusCode::UNPROCESSABLE_ENTITY,
        GameError::Corrupt { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        GameError::Store(e) => store_status(e),
    }
}

fn game_code(e: &GameError) -> &'static str {
    match e {
        GameError::NotFound => "not_found",
        GameError::NotAPlayer => "not_a_player",
        GameError::NoComputer => "no_computer",
        GameError::Over(_) => "game_over",
        GameError::Stale { .. } => "stale_move",
        GameError::NotYourTurn => "not_your_turn",
        GameError::NotAbortable => "not_abortable",
        GameError::TooFast => "too_fast",
        GameError::Refused(_) => "refused",
        GameError::Illegal(_) => "illegal_move",
        GameError::BadForecast(_) => "bad_forecast",
        GameError::Corrupt { .. } => "internal",
        GameError::Store(e) => store_code(e),
    }
}

fn store_code(e: &StoreError) -> &'static str {
    match e {
        StoreError::Conflict => "conflict",
        StoreError::Unavailable(_) => "unavailable",
        StoreError::Corrupt(_) | StoreError::Database(_) => "internal",
    }
}

/// The `code` of an error known only by its status: the general kinds of
/// [`ApiError`], and the answers made outside it (the connection layer's,
/// the WebSocket's error frames).
pub fn code_of_status(status: StatusCode) -> &'static str {
    match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::UNAUTHORIZED => "unauthorized",
        StatusCode::FORBIDDEN => "forbidden",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::REQUEST_TIMEOUT => "timeout",
        StatusCode::CONFLICT => "conflict",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::MISDIRECTED_REQUEST => "misdirected_request",
        StatusCode::UNPROCESSABLE_ENTITY => "unprocessable",
        StatusCode::TOO_MANY_REQUESTS => "rate_limited",
        StatusCode::SERVICE_UNAVAILABLE => "unavailable",
        s if s.is_client_error() => "bad_request",
        _ => "internal",
    }
}

fn store_status(e: &StoreError) -> StatusCode {
    match e {
        StoreError::Conflict => StatusCode::CONFLICT,
        StoreError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        StoreError::Corrupt(_) | StoreError::Database(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.status() == StatusCode::INTERNAL_SERVER_ERROR {
            return f.write_str("internal error");
        }
        match self {
            ApiError::BadRequest(m)
            | ApiError::Unauthorized(m)
            | ApiError::Forbidden(m)
            | ApiError::NotFound(m)
            | ApiError::Conflict(m)
            | ApiError::MisdirectedRequest(m)
            | ApiError::UnsupportedMediaType(m)
            | ApiError::Unprocessable(m)
            | ApiError::TooManyRequests(m)
            | ApiError::RateLimited(m, _)
            | ApiError::Internal(m)
            | ApiError::Unavailable(m) => f.write_str(m),
            ApiError::MethodNotAllowed => f.write_str("method not allowed"),
            ApiError::PayloadTooLarge => f.write_str("request body too large"),
            ApiError::Game(e) => e.fmt(f),
            ApiError::Challenge(e) => e.fmt(f),
            ApiError::Store(StoreError::Conflict) => f.write_str("already exists"),
            ApiError::Store(StoreError::Unavailable(_)) => {
                f.write_str("the database is unavailable; try again shortly")
            }
            ApiError::Store(e) => e.fmt(f),
            ApiError::Blocking(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ApiError {}

/// What is logged for an internal error: the detail the client is not told.
fn detail(e: &ApiError) -> String {
    match e {
        ApiError::Internal(d) => d.clone(),
        ApiError::Game(g) => g.to_string(),
        ApiError::Challenge(c) => c.to_string(),
        ApiError::Store(s) => s.to_string(),
        ApiError::Blocking(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

/// The JSON body of every error.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// What went wrong, in words (lichess's field; the text may change).
    pub error: String,
    /// The kind of failure, a short stable word: `bad_request`,
    /// `unauthorized`, `forbidden`, `not_found`, `method_not_allowed`,
    /// `timeout`, `conflict`, `payload_too_large`,
    /// `unsupported_media_type`, `misdirected_request`, `unprocessable`,
    /// `rate_limited`, `unavailable`, `internal`; for games
    /// `illegal_move`, `not_your_turn`, `stale_move`, `game_over`,
    /// `not_a_player`, `no_computer`, `not_abortable`, `too_fast`,
    /// `refused`, `bad_forecast`; for challenges `self_challenge`,
    /// `not_yours`, `not_pending`, `game_under_way` (docs/api.md).
    #[schema(example = "not_your_turn")]
    pub code: &'static str,
}

impl ErrorBody {
    /// The body of an error known only by its status (see [`code_of_status`]).
    pub fn of_status(status: StatusCode, error: String) -> ErrorBody {
        ErrorBody {
            error,
            code: code_of_status(status),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(detail = %detail(&self), "internal error");
        }
        let body = ErrorBody {
            error: self.to_string(),
            code: self.code(),
        };
        let mut response = (status, Json(body)).into_response();
        if let Some(secs) = self.retry_after() {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        response
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> Self {
        ApiError::Game(e)
    }
}

impl From<crate::games::ChatError> for ApiError {
    fn from(e: crate::games::ChatError) -> Self {
        use crate::games::ChatError;
        match e {
            ChatError::Game(e) => ApiError::Game(e),
            e @ (ChatError::NotAPlayer(_) | ChatError::Guest | ChatError::Blocked) => {
                ApiError::Forbidden(e.to_string())
            }
            e @ (ChatError::RoomFull { .. } | ChatError::SaidEnough) => {
                ApiError::Conflict(e.to_string())
            }
        }
    }
}

impl From<ChallengeError> for ApiError {
    fn from(e: ChallengeError) -> Self {
        ApiError::Challenge(e)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        ApiError::Store(e)
    }
}

impl From<BlockingError> for ApiError {
    fn from(e: BlockingError) -> Self {
        ApiError::Blocking(e)
    }
}

impl From<crate::games::VacationError> for ApiError {
    fn from(e: crate::games::VacationError) -> ApiError {
        match e {
            crate::games::VacationError::NoneLeft => ApiError::Conflict(e.to_string()),
            crate::games::VacationError::Game(g) => g.into(),
        }
    }
}

impl From<ReviewError> for ApiError {
    fn from(e: ReviewError) -> ApiError {
        match e {
            ReviewError::Ongoing => ApiError::Conflict(e.to_string()),
            ReviewError::OnePerUser(_) => ApiError::TooManyRequests(e.to_string()),
            ReviewError::Busy => ApiError::Unavailable(e.to_string()),
            ReviewError::Game(e) => ApiError::Game(e),
            ReviewError::Store(e) => ApiError::Store(e),
        }
    }
}

impl From<FeedError> for ApiError {
    fn from(e: FeedError) -> Self {
        match e {
            FeedError::Game(g) => ApiError::Game(g),
            FeedError::Store(s) => ApiError::Store(s),
        }
    }
}

/// A malformed id or word in a request.
impl From<ParseError> for ApiError {
    fn from(e: ParseError) -> Self {
        ApiError::BadRequest(e.to_string())
    }
}

/// Move text that is not Merge-UCI: a 400, found before anything is loaded.
impl From<chessmerge_rules::ParseUciError> for ApiError {
    fn from(e: chessmerge_rules::ParseUciError) -> Self {
        ApiError::BadRequest(e.to_string())
    }
}

/// A move the rules refuse: a 422 with the rules' reason.
impl From<chessmerge_rules::IllegalMove> for ApiError {
    fn from(e: chessmerge_rules::IllegalMove) -> Self {
        ApiError::Game(GameError::Illegal(e))
    }
}

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;
