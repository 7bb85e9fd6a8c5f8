//! The API's request input, through the server's own extractors: a body
//! read by `Input<T>` (JSON or form, by content type) into each body type
//! of the routes, and a query string read by `Query<T>` into each query
//! type; then the checks the handlers run on what was read (a challenge's
//! terms, the analysis line). Whatever the bytes, no panic, and every
//! refusal is a 4xx with a message (never a 5xx: the client is at fault).
#![no_main]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use axum::body::Body;
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::Request;
use chessmerge_server::api::account::Credentials;
use chessmerge_server::api::analysis::{AnalysisParams, replay};
use chessmerge_server::api::board::{ListParams, MoveParams};
use chessmerge_server::api::challenge::{ChallengeParams, DeclineParams, OpenListParams};
use chessmerge_server::challenges::Terms;
use chessmerge_server::error::ApiError;
use chessmerge_server::extract::{Input, Query};
use chessmerge_server::model::{ColorRequest, Variant};
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;

/// The content types a client might send (`None`: no header).
const CONTENT_TYPES: [Option<&str>; 7] = [
    Some("application/json"),
    Some("application/x-www-form-urlencoded"),
    None,
    Some("application/json; charset=utf-8"),
    Some("application/vnd.api+json"),
    Some("text/plain"),
    Some("multipart/form-data; boundary=x"),
];

/// Runs a future that cannot wait (the body is in memory) to its end.
fn at_once<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("an extractor waited on a body held in memory"),
    }
}

fn refused_as_client_error(e: &ApiError) {
    let status = e.status();
    let text = e.to_string();
    assert!(
        status.is_client_error(),
        "input refused with {status}: {text}"
    );
    assert!(!text.is_empty(), "a refusal without a message ({status})");
}

fn body<T: DeserializeOwned>(content_type: Option<&str>, bytes: &[u8]) -> Option<T> {
    let mut req = Request::builder().method("POST").uri("/fuzz");
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    let req = req
        .body(Body::from(bytes.to_vec()))
        .expect("a valid request");
    match at_once(Input::<T>::from_request(req, &())) {
        Ok(Input(v)) => Some(v),
        Err(e) => {
            refused_as_client_error(&e);
            None
        }
    }
}

fn query<T: DeserializeOwned + Send>(bytes: &[u8]) -> Option<T> {
    let text = String::from_utf8_lossy(bytes);
    // Only texts that are a URI's query can arrive in one.
    let Ok(req) = Request::builder().uri(format!("/fuzz?{text}")).body(()) else {
        return None;
    };
    let (mut parts, ()) = req.into_parts();
    match at_once(Query::<T>::from_request_parts(&mut parts, &())) {
        Ok(Query(v)) => Some(v),
        Err(e) => {
            refused_as_client_error(&e);
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let content_type = CONTENT_TYPES[usize::from(selector) % CONTENT_TYPES.len()];
    match usize::from(selector) / CONTENT_TYPES.len() % 7 {
        0 => {
            let _: Option<Credentials> = body(content_type, bytes);
        }
        1 => {
            if let Some(p) = body::<ChallengeParams>(content_type, bytes)
                && let Err(e) = Terms::new(
                    p.variant.map_or(Variant::ChessMerge, |v| v.variant),
                    p.color.unwrap_or(ColorRequest::Random),
                    p.fen.as_deref(),
                )
            {
                refused_as_client_error(&e.into());
            }
        }
        2 => {
            let _: Option<DeclineParams> = body(content_type, bytes);
        }
        3 => {
            if let Some(p) = body::<AnalysisParams>(content_type, bytes)
                && let Err(e) = replay(&p)
            {
                refused_as_client_error(&e);
            }
        }
        4 => {
            let _: Option<MoveParams> = query(bytes);
        }
        5 => {
            let _: Option<ListParams> = query(bytes);
        }
        _ => {
            let _: Option<OpenListParams> = query(bytes);
        }
    }
});
