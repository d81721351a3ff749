//! The workspace's traces: `GET /traces` (summaries), `POST /traces` (upload), `GET
//! /traces/{name}` (header and events), `GET /traces/{name}/raw` (the file) and `POST
//! /traces/{name}/replay` (re-run with the recorded replies, as `docnav replay` does).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};

use super::ApiQuery;
use crate::agent::EventRecord;
use crate::serve::error::ApiError;
use crate::serve::state::AppState;
use crate::trace::folder::{load, store_upload, trace_path, TraceSummary};
use crate::trace::replay::replay as replay_trace;
use crate::trace::replay::verdict::{
    judge, missing_refusal, notes, version_refusal, ReplayVerdict,
};
use crate::trace::TraceHeader;
use crate::workspace::Library;

/// `/traces`' query.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Keep traces whose name, question, model or verdict contains this (case-insensitive).
    #[serde(default)]
    pub q: String,
}

/// `/traces`' answer.
#[derive(Debug, Serialize)]
pub struct TraceList {
    /// Newest first.
    pub traces: Vec<TraceSummary>,
}

/// `GET /api/v1/traces?q=`. Errors: 503 without a workspace.
pub async fn list(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<TraceList>, ApiError> {
    let opened = state.opened().await?;
    let state2 = state.clone();
    let traces = state
        .blocking(move || Ok(state2.traces.list(&opened.workspace.traces_dir(), &q.q)))
        .await?;
    Ok(Json(TraceList { traces }))
}

/// `POST /traces`' answer.
#[derive(Debug, Serialize)]
pub struct Uploaded {
    /// The stored trace's name (open it at `/trace/NAME`).
    pub name: String,
}

/// `POST /api/v1/traces` with a trace (JSON Lines) as the body, at most
/// [`crate::serve::MAX_UPLOAD_BYTES`]: stored in `traces/`, 201 with its name; the oldest
/// uploads beyond the server's [`UploadLimits`](crate::trace::folder::UploadLimits) are removed.
///
/// Errors: 400 when the body is not a trace this build reads (or not UTF-8); 413 over the limit;
/// 503 without a workspace.
pub async fn upload(
    State(state): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body = body.map_err(|e| match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            code: crate::serve::error::ErrorCode::TooLarge,
            detail: format!(
                "the trace is over the upload limit of {} bytes",
                crate::serve::MAX_UPLOAD_BYTES
            ),
            retry_after: None,
        },
        _ => ApiError::bad_request(e.body_text()),
    })?;
    let text = String::from_utf8(body.to_vec())
        .map_err(|_| ApiError::bad_request("the trace is not UTF-8 text"))?;
    let opened = state.opened().await?;
    let limits = state.uploads;
    let name = state
        .blocking(move || Ok(store_upload(&opened.workspace.traces_dir(), &text, limits)?))
        .await?;
    Ok((StatusCode::CREATED, Json(Uploaded { name })).into_response())
}

/// `GET /traces/{name}`'s answer.
#[derive(Debug, Serialize)]
pub struct TraceView {
    /// The file name.
    pub name: String,
    /// The summary.
    pub summary: TraceSummary,
    /// The header line.
    pub header: TraceHeader,
    /// The events in file order.
    pub events: Vec<EventRecord>,
}

/// `GET /api/v1/traces/{name}`. Errors: 400 for a bad name; 404 for no such trace; 422 for a
/// file that is not a trace this build reads.
pub async fn get_trace(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<TraceView>, ApiError> {
    let opened = state.opened().await?;
    let view = state
        .blocking(move || {
            let dir = opened.workspace.traces_dir();
            let trace = load(&dir, &name)?;
            let bytes = std::fs::metadata(trace_path(&dir, &name)?).map_or(0, |m| m.len());
            Ok(TraceView {
                summary: TraceSummary::of(&name, &trace, bytes),
                name,
                header: trace.header,
                events: trace.events,
            })
        })
        .await?;
    Ok(Json(view))
}

/// `GET /api/v1/traces/{name}/raw`: the file as `application/x-ndjson`, to download.
/// Errors: 400 for a bad name; 404 for no such trace.
pub async fn raw(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let opened = state.opened().await?;
    let (name, bytes) = state
        .blocking(move || {
            let path = trace_path(&opened.workspace.traces_dir(), &name)?;
            let bytes = std::fs::read(&path)
                .map_err(|e| ApiError::internal(format!("cannot read trace `{name}`: {e}")))?;
            Ok((name, bytes))
        })
        .await?;
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
        .unwrap_or(HeaderValue::from_static("attachment"));
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/x-ndjson"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response())
}

/// `POST /traces/{name}/replay`'s answer.
#[derive(Debug, Serialize)]
pub struct ReplayReport {
    /// The trace.
    pub name: String,
    /// How it ended (`status`: `identical`, `identical_to_cut`, `failed_the_same_way`,
    /// `diverged` with `expected`/`actual`/`diff`, or `failed`).
    pub verdict: ReplayVerdict,
    /// Whether `docnav replay` would exit 0.
    pub success: bool,
    /// Documents changed since the recording, a cut last line, calls in flight.
    pub notes: Vec<String>,
}

/// `POST /api/v1/traces/{name}/replay`: re-run the trace against this workspace with the
/// recorded model replies (no model is called).
///
/// Errors: 400 for a bad name; 404 for no such trace; 422 when it cannot be re-run (an older
/// format, documents not in this workspace; the detail says which and what to do).
pub async fn replay(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<ReplayReport>, ApiError> {
    let opened = state.opened().await?;
    let dir = opened.workspace.traces_dir();
    let trace = {
        let name = name.clone();
        state.blocking(move || Ok(load(&dir, &name)?)).await?
    };
    if let Some(why) = version_refusal(&trace, &name) {
        return Err(ApiError::cannot_replay(why.to_string()));
    }
    if let Some(why) = missing_refusal(&trace, &name, opened.workspace.as_ref()) {
        return Err(ApiError::cannot_replay(why.to_string()));
    }
    let library: Arc<dyn Library> = opened.workspace.clone();
    // The replay rebuilds a section index of the recording's documents: CPU work, off the
    // async workers.
    let (trace, outcome) = state
        .blocking(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| ApiError::internal(e.to_string()))?;
            let outcome = runtime.block_on(replay_trace(&trace, library));
            Ok((trace, outcome))
        })
        .await?;
    let verdict = judge(&trace, &outcome);
    Ok(Json(ReplayReport {
        name,
        success: verdict.is_success(),
        notes: notes(&trace, opened.workspace.as_ref(), Some(&outcome)),
        verdict,
    }))
}
