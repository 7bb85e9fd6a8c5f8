//! The web page's files, from the workspace's `web/` folder: embedded in
//! release builds (rust-embed; rebuild the crate after changing `web/`),
//! read from disk in debug builds. Without a `web/index.html` a small
//! placeholder page is served.

use axum::http::{HeaderValue, Method, Uri, header};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

#[derive(rust_embed::RustEmbed)]
#[folder = "../../web/"]
#[allow_missing = true]
struct Assets;

fn asset(path: &str) -> Option<(std::borrow::Cow<'static, [u8]>, &'static str)> {
    match Assets::get(path) {
        Some(f) => Some((f.data, content_type(path))),
        None if path == "index.html" => Some((
            std::borrow::Cow::Borrowed(PLACEHOLDER.as_bytes()),
            "text/html; charset=utf-8",
        )),
        None => None,
    }
}

/// Served as `index.html` while the workspace has no `web/index.html`.
const PLACEHOLDER: &str = "<!doctype html>
<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ChessMerge</title></head>
<body><h1>ChessMerge</h1>
<p>The server is running. The web page is not built into this binary yet;
the API is described at <a href=\"/api/openapi.json\">/api/openapi.json</a>.</p>
</body></html>
";

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, e)| e) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Serves the page's files; paths without an extension outside `/api/`,
/// and every profile path `/@/{name}`, get `index.html` (the page routes
/// itself, e.g. `/{gameId}`). Anything else is a JSON 404.
pub async fn fallback(method: Method, uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    if !(method == Method::GET || method == Method::HEAD)
        || path.starts_with("api/")
        || path == "api"
    {
        return ApiError::NotFound(format!("no route for {method} {}", uri.path())).into_response();
    }
    if path
        .split('/')
        .any(|seg| seg == ".." || seg.starts_with('.'))
        || path.contains('\\')
    {
        return ApiError::NotFound(format!("no such file: /{path}")).into_response();
    }
    let wanted = if path.is_empty() { "index.html" } else { path };
    // A profile, `/@/{name}`, is always the page (it says when no one has the name).
    let page = path.starts_with("@/");
    let found = (!page).then(|| asset(wanted)).flatten().or_else(|| {
        let last = wanted.rsplit('/').next().unwrap_or("");
        (page || !last.contains('.'))
            .then(|| asset("index.html"))
            .flatten()
    });
    match found {
        Some((data, ct)) => (
            [(header::CONTENT_TYPE, HeaderValue::from_static(ct))],
            data.into_owned(),
        )
            .into_response(),
        None => ApiError::NotFound(format!("no such file: /{path}")).into_response(),
    }
}
