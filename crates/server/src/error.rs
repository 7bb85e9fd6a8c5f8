//! The one API error type: every handler returns it, and it always answers
//! with a JSON body `{"error": "..."}` and the matching status code.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::store::StoreError;

/// An error answered to a client.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: the request is malformed (bad field, bad FEN, bad move text).
    #[error("{0}")]
    BadRequest(String),
    /// 401: no or bad credentials.
    #[error("{0}")]
    Unauthorized(String),
    /// 403: authenticated, but not allowed to do this.
    #[error("{0}")]
    Forbidden(String),
    /// 404: no such thing.
    #[error("{0}")]
    NotFound(String),
    /// 405: no such method on this path.
    #[error("method not allowed")]
    MethodNotAllowed,
    /// 409: conflicts with the current state (not your turn, stale, taken name).
    #[error("{0}")]
    Conflict(String),
    /// 413: the body is too large.
    #[error("request body too large")]
    PayloadTooLarge,
    /// 415: a body in a format we do not read.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// 422: well-formed but not allowed by the rules (an illegal move).
    #[error("{0}")]
    Unprocessable(String),
    /// 429: too many attempts.
    #[error("{0}")]
    TooManyRequests(String),
    /// 500: our fault; the detail is logged, not sent.
    #[error("internal error")]
    Internal(String),
    /// 503: shutting down or overloaded.
    #[error("{0}")]
    Unavailable(String),
}

impl ApiError {
    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
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

/// The JSON body of every error.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// What went wrong, in words.
    pub error: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(detail) = &self {
            tracing::error!(%detail, "internal error");
        }
        let body = ErrorBody {
            error: self.to_string(),
        };
        (self.status(), Json(body)).into_response()
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict => ApiError::Conflict("already exists".into()),
            StoreError::Database(d) => ApiError::Internal(d),
        }
    }
}

/// Result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;
