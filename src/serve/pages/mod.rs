//! The web app's pages, rendered on the server from askama templates
//! (`src/serve/templates/`, compiled into the binary, HTML-escaped by default) and brought to
//! life by one script (`/assets/app.js`) that talks to the JSON API.
//!
//! Every string that comes from a document or a trace goes through [`shown`] first: control and
//! bidi characters become visible escapes (a title holding U+202E cannot reorder the page), then
//! the template escapes markup. No page takes a URL from a document: links are built here from
//! doc ids and structure numbers.
//!
//! Why server-rendered templates and not a single-page app: building docnav must not need Node,
//! and committed bundles are generated files nobody reviews; the pages are documents with
//! links, so HTML from the server is what they are, and the script only adds what must be live
//! (search as you type, the Reader's sections, the Ask stream, replay).

pub mod ask;
pub mod library;
pub mod login;
pub mod reader;
pub mod traces;

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::state::AppState;
use crate::nav::render::for_display;

/// Every page route.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(library::page))
        .route("/doc/{doc_id}", get(reader::page))
        .route("/doc/{doc_id}/", get(reader::page))
        .route("/ask", get(ask::page))
        .route("/login", get(login::page).post(login::submit))
        .route("/logout", axum::routing::post(login::logout))
        .route("/traces", get(traces::list_page))
        .route("/trace/{name}", get(traces::trace_page))
        .fallback(not_found)
}

/// Text from a document or a trace, ready for a template: control and bidi characters shown as
/// visible escapes ([`for_display`]); the template escapes the markup.
pub fn shown(text: &str) -> String {
    for_display(text).into_owned()
}

/// `template` as an HTML response (a 500 page naming the template error if it fails to render,
/// which would be a bug).
pub fn render_page(template: &impl Template) -> Response {
    match template.render() {
        Ok(html) => Html(html).into_response(),
        Err(e) => error_page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal error",
            &format!("the page could not be rendered: {e}"),
        ),
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    active: &'static str,
    title: String,
    detail: String,
}

/// A page saying what went wrong (and what to do), with `status`.
pub fn error_page(status: StatusCode, title: &str, detail: &str) -> Response {
    let page = ErrorPage {
        active: "",
        title: title.to_string(),
        detail: shown(detail),
    };
    let mut response = match page.render() {
        Ok(html) => Html(html).into_response(),
        Err(_) => title.to_string().into_response(),
    };
    *response.status_mut() = status;
    response
}

/// An [`ApiError`](super::error::ApiError) as a page.
pub fn api_error_page(e: &super::error::ApiError) -> Response {
    let title = match e.status {
        StatusCode::NOT_FOUND => "Not found",
        StatusCode::BAD_REQUEST => "Bad request",
        StatusCode::SERVICE_UNAVAILABLE => "Not available",
        _ => "Error",
    };
    error_page(e.status, title, &e.detail)
}

async fn not_found() -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        "Not found",
        "no page here (the Library lists the documents)",
    )
}

/// `1.2 MB`-style sizes.
pub fn human_bytes(bytes: u64) -> String {
    crate::index::doccard::human_bytes(bytes)
}
