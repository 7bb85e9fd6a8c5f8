//! Request extractors whose failures are [`ApiError`]s (JSON bodies, right
//! status codes) instead of axum's plain-text rejections.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use std::cell::Cell;
use std::fmt;

use serde::de::value::StrDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer};
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};

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
                .map(|Named(v)| Input(v))
                .map_err(|e| ApiError::bad(format!("invalid JSON body: {e}")))
        } else {
            serde_urlencoded::from_bytes(&bytes)
                .map(|Named(v)| Input(v))
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
            .map(|Named(v)| Query(v))
            .map_err(|e| ApiError::bad(format!("invalid query string: {e}")))
    }
}

/// Request fields read into `T`; when a field's value is refused, the
/// error names the field (`invalid rated: ...`). Only the top level's
/// fields are named: the inputs are flat.
struct Named<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Named<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let failed = Cell::new(None);
        T::deserialize(Fields {
            inner: d,
            failed: &failed,
        })
        .map(Named)
        .map_err(|e| match failed.take() {
            Some(field) => de::Error::custom(format_args!("invalid {field}: {e}")),
            None => e,
        })
    }
}

/// A deserializer that notes which field's value failed.
struct Fields<'f, D> {
    inner: D,
    failed: &'f Cell<Option<String>>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Fields<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(FieldsVisitor {
            inner: visitor,
            failed: self.failed,
        })
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_map(FieldsVisitor {
            inner: visitor,
            failed: self.failed,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_struct(
            name,
            fields,
            FieldsVisitor {
                inner: visitor,
                failed: self.failed,
            },
        )
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct enum identifier ignored_any
    }
}

struct FieldsVisitor<'f, V> {
    inner: V,
    failed: &'f Cell<Option<String>>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for FieldsVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(FieldsMap {
            inner: map,
            failed: self.failed,
            key: None,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(seq)
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }
}

struct FieldsMap<'f, A> {
    inner: A,
    failed: &'f Cell<Option<String>>,
    /// The key whose value is read next.
    key: Option<String>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for FieldsMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let Some(key) = self.inner.next_key::<String>()? else {
            return Ok(None);
        };
        let name: StrDeserializer<'_, A::Error> = key.as_str().into_deserializer();
        let read = seed.deserialize(name)?;
        self.key = Some(key);
        Ok(Some(read))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let key = self.key.take();
        self.inner.next_value_seed(seed).inspect_err(|_| {
            self.failed.set(key);
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
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
