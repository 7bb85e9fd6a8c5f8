//! Request extractors whose failures are [`ApiError`]s (JSON bodies, right
//! status codes) instead of axum's plain-text rejections.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A request body read as JSON (`application/json`) or as a form
/// (`application/x-www-form-urlencoded`, the lichess way); an empty body
/// reads as an empty form, so that all-optional parameters may be left out.
/// A non-empty body without either content type is a 415, and the input
/// types refuse unknown fields (`deny_unknown_fields`), so that a
/// misspelled field is a 400 naming it rather than silently ignored.
#[derive(Debug)]
pub struct Input<T>(pub T);

impl<S, T> FromRequest<S> for Input<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let content_type = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            });
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge
            } else {
                ApiError::bad(format!("cannot read the request body: {e}"))
            }
        })?;
        let is_json = match content_type.as_deref() {
            Some("application/json") => true,
            Some(t) if t.ends_with("+json") => true,
            Some("application/x-www-form-urlencoded") => false,
            // Nothing to read: all-optional parameters left out.
            _ if bytes.is_empty() => false,
            // A body of unknown format would be read as an empty form and
            // its fields silently ignored.
            Some("") | None => {
                return Err(ApiError::UnsupportedMediaType(
                    "the request body has no Content-Type: send application/json or application/x-www-form-urlencoded".into(),
                ));
            }
            Some(other) => {
                return Err(ApiError::UnsupportedMediaType(format!(
                    "unsupported content type {other:?}: send application/json or application/x-www-form-urlencoded"
                )));
            }
        };
        if is_json {
            serde_json::from_slice(&bytes)
                .map(Input)
                .map_err(|e| ApiError::bad(format!("invalid JSON body: {e}")))
        } else {
            serde_urlencoded::from_bytes(&bytes)
                .map(Input)
                .map_err(|e| ApiError::bad(format!("invalid form body: {e}")))
        }
    }
}

/// Query-string parameters.
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<S, T> FromRequestParts<S> for Query<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let q = parts.uri.query().unwrap_or("");
        serde_urlencoded::from_str(q)
            .map(Query)
            .map_err(|e| ApiError::bad(format!("invalid query string: {e}")))
    }
}

/// Path parameters.
#[derive(Debug)]
pub struct Path<T>(pub T);

impl<S, T> FromRequestParts<S> for Path<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(v)| Path(v))
            .map_err(|e| ApiError::bad(format!("invalid path: {}", e.body_text())))
    }
}

/// `{id}/move/{move}` path parameters, each parsed into its type: a bad id
/// or malformed move text is a 400 before anything is read from storage.
#[derive(Debug)]
pub struct MovePath {
    /// The game.
    pub id: crate::model::GameId,
    /// The move, Merge-UCI (checked against the position later).
    pub mv: chessmerge_rules::UciMove,
}

impl<S> FromRequestParts<S> for MovePath
where
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path((id, mv)) = Path::<(String, String)>::from_request_parts(parts, state).await?;
        Ok(MovePath {
            id: id.parse()?,
            mv: mv.parse()?,
        })
    }
}
