//! Errors as the API returns them: `{"error": CODE, "detail": ONE_LINE}` with the status that
//! says who must act — 400 bad input, 401 no or wrong token, 404 unknown document, section or
//! trace, 413 body too large, 422 a trace that cannot be replayed, 429 too many asks (with
//! `Retry-After`, seconds), 500 a failure of ours, 503 no workspace or no model yet. One
//! [`IntoResponse`] for all of them.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::workspace::WorkspaceError;

/// An API error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable code for scripts: `bad_request`, `unauthorized`, `not_found`, `too_large`,
    /// `cannot_replay`, `too_many_asks`, `internal`, `no_workspace`, `no_model`, `busy`.
    pub code: &'static str,
    /// One line for a person, with a hint when there is something to do.
    pub detail: String,
    /// Seconds, for 429.
    pub retry_after: Option<u64>,
}

#[derive(Serialize)]
struct Body<'a> {
    error: &'a str,
    detail: &'a str,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            detail: detail.into(),
            retry_after: None,
        }
    }

    /// 400: the request is malformed or names something impossible.
    pub fn bad_request(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", detail)
    }

    /// 404: no such document, section or trace.
    pub fn not_found(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", detail)
    }

    /// 401: the request carries no token, or a wrong one.
    pub fn unauthorized() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "this server needs its token (hint: send `Authorization: Bearer TOKEN`)",
        )
    }

    /// 422: a trace that this server cannot replay (older format, documents missing).
    pub fn cannot_replay(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "cannot_replay", detail)
    }

    /// 429: `max_asks` asks are running.
    pub fn too_many_asks(running: usize, retry_after: u64) -> ApiError {
        ApiError {
            retry_after: Some(retry_after),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_asks",
                format!(
                    "{running} ask(s) are running, the most this server runs at once (hint: \
                     retry in {retry_after} s; the limit is `docnav serve --max-asks`)"
                ),
            )
        }
    }

    /// 503: no model configured; `why` says what to set.
    pub fn no_model(why: &str) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "no_model",
            format!(
                "{why} (the server reads DOCNAV_MODEL and OPENAI_API_KEY or OPENAI_BASE_URL, or \
                 --model/--base-url, when it starts; `lexical: true` works without a model)"
            ),
        )
    }

    /// 500: a failure of ours.
    pub fn internal(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", detail)
    }
}

impl From<WorkspaceError> for ApiError {
    fn from(e: WorkspaceError) -> ApiError {
        let detail = e.to_string();
        match e {
            WorkspaceError::NotFound(_) => ApiError::not_found(detail),
            WorkspaceError::Missing(_)
            | WorkspaceError::Outdated { .. }
            | WorkspaceError::OutdatedTree { .. } => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "no_workspace", detail)
            }
            WorkspaceError::Busy { .. } => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", detail)
            }
            _ => ApiError::internal(detail),
        }
    }
}

impl ApiError {
    /// A navigation command's fatal error: the workspace's error, with the document named.
    pub fn from_nav(e: crate::nav::NavError) -> ApiError {
        let detail = e.to_string();
        match e {
            crate::nav::NavError::Workspace { source, .. }
            | crate::nav::NavError::Search(source) => ApiError {
                detail,
                ..ApiError::from(source)
            },
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Body {
            error: self.code,
            detail: &self.detail,
        };
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"docnav\""),
            );
        }
        response
    }
}
