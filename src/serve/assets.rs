//! The web app's static files, compiled into the binary (`include_str!`): one style sheet, one
//! script and the icon (`/favicon.svg`, also answered at `/favicon.ico`, which browsers ask
//! for whatever the page links). Served with `Cache-Control: no-cache` and an `ETag` (their sha256), so a new
//! build is picked up at once and an unchanged file costs a 304.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::state::AppState;

/// The style sheet.
pub const APP_CSS: &str = include_str!("assets/app.css");

/// The script.
pub const APP_JS: &str = include_str!("assets/app.js");

/// The icon: SVG, drawn with presentation attributes only (no style, no script).
pub const FAVICON_SVG: &str = include_str!("assets/favicon.svg");

/// `"` + 16 hex digits of the body's sha256 + `"`, computed once per file.
fn etag(body: &'static str) -> &'static str {
    static CSS: LazyLock<String> = LazyLock::new(|| quoted_hash(APP_CSS));
    static JS: LazyLock<String> = LazyLock::new(|| quoted_hash(APP_JS));
    static ICON: LazyLock<String> = LazyLock::new(|| quoted_hash(FAVICON_SVG));
    if std::ptr::eq(body, APP_CSS) {
        CSS.as_str()
    } else if std::ptr::eq(body, APP_JS) {
        JS.as_str()
    } else {
        ICON.as_str()
    }
}

fn quoted_hash(body: &str) -> String {
    format!("\"{}\"", &crate::digest::sha256_hex(body.as_bytes())[..16])
}

/// `GET /assets/{file}`, `GET /favicon.svg` and `GET /favicon.ico` (the same SVG: every
/// browser that asks for `/favicon.ico` reads an SVG answer by its content type).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/assets/{file}", get(asset))
        .route("/favicon.svg", get(favicon))
        .route("/favicon.ico", get(favicon))
}

/// Content type of the icon.
const SVG: &str = "image/svg+xml";

async fn favicon(headers: HeaderMap) -> Response {
    cached(FAVICON_SVG, SVG, &headers)
}

async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    let (body, mime) = match file.as_str() {
        "app.css" => (APP_CSS, "text/css; charset=utf-8"),
        "app.js" => (APP_JS, "text/javascript; charset=utf-8"),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    cached(body, mime, &headers)
}

/// `body` as `mime` with its `ETag`, or 304 when the request already holds it.
fn cached(body: &'static str, mime: &'static str, headers: &HeaderMap) -> Response {
    let etag = etag(body);
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == etag)
    {
        return StatusCode::NOT_MODIFIED.into_response();
    }
    let mut response = body.into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::ETAG, HeaderValue::from_static(etag));
    response
}
