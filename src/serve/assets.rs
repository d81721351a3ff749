//! The web app's static files, compiled into the binary (`include_str!`): one style sheet and
//! one script. Served with `Cache-Control: no-cache` and an `ETag` (their sha256), so a new
//! build is picked up at once and an unchanged file costs a 304.

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

/// `GET /assets/{file}`.
pub fn routes() -> Router<AppState> {
    Router::new().route("/assets/{file}", get(asset))
}

async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    let (body, mime) = match file.as_str() {
        "app.css" => (APP_CSS, "text/css; charset=utf-8"),
        "app.js" => (APP_JS, "text/javascript; charset=utf-8"),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    let etag = format!("\"{}\"", &crate::agent::events::sha256_hex(body)[..16]);
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
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    response
}
