//! The JSON API under `/api/v1/` — the one the web app uses itself. One file per resource;
//! handlers parse, call the library on tokio's blocking pool (they read trees and scan text),
//! and serialize. Errors are [`ApiError`]s (`{"error","detail"}`), bad JSON and bad query
//! strings included ([`ApiJson`], [`ApiQuery`]).
//!
//! | route | what |
//! | --- | --- |
//! | `GET /session` | `{"csrf","login"}`: the CSRF token a browser sends in `X-Docnav-Csrf` |
//! | `GET /health` | `{"status":"ok","documents":N,"generation":G}` |
//! | `GET /docs?offset=&limit=` | a page of DocCards, `{"documents":[…],"total":N,…}` |
//! | `GET /search?q=&k=&doc_id=&budget=` | BM25-ranked sections (the MCP `search` tool's data) |
//! | `GET /docs/{doc_id}` | the card and the whole outline |
//! | `GET /docs/{doc_id}/section?structure=&offset=&budget=` | a section's verbatim text, paged |
//! | `GET /docs/{doc_id}/grep?pattern=&ignore_case=` | regex matches in a document |
//! | `POST /exec` | one command of the navigation language, `{"command","cwd"}` |
//! | `POST /ask` | the agent (SSE with `Accept: text/event-stream`), or `lexical: true` |
//! | `GET /traces?q=` | trace summaries, newest first |
//! | `POST /traces` | upload a trace (JSON Lines body) |
//! | `GET /traces/{name}` | a trace's header and events |
//! | `GET /traces/{name}/raw` | the file |
//! | `POST /traces/{name}/replay` | re-run it with the recorded replies; the first divergence |

pub mod ask;
pub mod documents;
pub mod exec;
pub mod library;
pub mod session;
pub mod traces;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::Router;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use super::state::AppState;

/// Every API route (mounted at `/api/v1`).
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/session", get(session::session))
        .route("/health", get(library::health))
        .route("/docs", get(library::docs))
        .route("/search", get(library::search))
        .route("/docs/{doc_id}", get(documents::document))
        .route("/docs/{doc_id}/section", get(documents::section))
        .route("/docs/{doc_id}/grep", get(documents::grep))
        .route("/exec", post(exec::exec))
        .route("/ask", post(ask::ask))
        .route(
            "/traces",
            get(traces::list)
                .post(traces::upload)
                .layer(DefaultBodyLimit::max(super::MAX_UPLOAD_BYTES)),
        )
        .route("/traces/{name}", get(traces::get_trace))
        .route("/traces/{name}/raw", get(traces::raw))
        .route("/traces/{name}/replay", post(traces::replay))
        .fallback(not_found)
}

async fn not_found() -> ApiError {
    ApiError::not_found(
        "no such API route (hint: the user guide lists the routes, docs/src/serve.md)",
    )
}

/// `axum::Json` whose rejections are [`ApiError`]s: 400 for malformed JSON or a wrong shape,
/// 413 for a body over the limit, 415 without `Content-Type: application/json`.
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(ApiJson(v)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

fn json_rejection(rejection: JsonRejection) -> ApiError {
    let status = rejection.status();
    let detail = rejection.body_text();
    match status {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError {
            status,
            code: crate::serve::error::ErrorCode::TooLarge,
            detail: format!(
                "the request body is over the limit of {} bytes",
                super::MAX_BODY_BYTES
            ),
            retry_after: None,
        },
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError {
            status,
            code: crate::serve::error::ErrorCode::BadRequest,
            detail: "send the body as JSON (`Content-Type: application/json`)".into(),
            retry_after: None,
        },
        _ => ApiError::bad_request(detail),
    }
}

/// `axum::extract::Query` whose rejections are 400 [`ApiError`]s naming the bad parameter.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(ApiQuery(v)),
            Err(rejection) => Err(query_rejection(rejection)),
        }
    }
}

fn query_rejection(rejection: QueryRejection) -> ApiError {
    ApiError::bad_request(rejection.body_text())
}
