//! Errors as the API returns them: `{"error": CODE, "detail": ONE_LINE}` with the status that
//! says who must act — 400 bad input, 401 no or wrong token, 403 another site's request or no
//! CSRF token, 404 unknown document, section or trace, 405 a method the route does not take,
//! 413 body too large, 414 URL too long, 422 a trace that cannot be replayed, 429 too many asks
//! or wrong tokens (with `Retry-After`, seconds), 431 headers too large, 500 a failure of ours,
//! 503 no workspace or no model yet. One [`IntoResponse`] for all of them, and
//! [`api_errors_as_json`] for the answers the router and the HTTP layer make themselves.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::agent::section::SectionError;
use crate::trace::folder::FolderError;
use crate::workspace::WorkspaceError;

/// The stable code of an API error, for scripts: serialized (and [`ErrorCode::as_str`]) in
/// snake case, `bad_request` … `busy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// 400: the request is malformed or names something impossible.
    BadRequest,
    /// 401: no token, or a wrong one.
    Unauthorized,
    /// 403: a Host header this server does not answer to without a token.
    ForbiddenHost,
    /// 403: another site's page sent a request that changes or spends something.
    CrossOrigin,
    /// 403: a browser's request without the session's CSRF token.
    Csrf,
    /// 404: no such document, section, trace or route.
    NotFound,
    /// 405: a method the route does not take.
    MethodNotAllowed,
    /// 413: the body is over its limit.
    TooLarge,
    /// 414: the URL is over its limit.
    UriTooLong,
    /// 422: a trace this server cannot replay.
    CannotReplay,
    /// 429: the most asks this server runs at once are running.
    TooManyAsks,
    /// 429: too many wrong tokens from this address.
    TooManyAttempts,
    /// 431: the header fields are over their limit.
    HeadersTooLarge,
    /// 500: a failure of ours.
    Internal,
    /// 503: no workspace, or one of another format.
    NoWorkspace,
    /// 503: no model configured.
    NoModel,
    /// 503: the workspace is locked by a writer.
    Busy,
}

impl ErrorCode {
    /// Every code, in the order of the statuses.
    pub const ALL: [ErrorCode; 17] = [
        ErrorCode::BadRequest,
        ErrorCode::Unauthorized,
        ErrorCode::ForbiddenHost,
        ErrorCode::CrossOrigin,
        ErrorCode::Csrf,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::TooLarge,
        ErrorCode::UriTooLong,
        ErrorCode::CannotReplay,
        ErrorCode::TooManyAsks,
        ErrorCode::TooManyAttempts,
        ErrorCode::HeadersTooLarge,
        ErrorCode::Internal,
        ErrorCode::NoWorkspace,
        ErrorCode::NoModel,
        ErrorCode::Busy,
    ];

    /// The code as the JSON body carries it (`"error"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::ForbiddenHost => "forbidden_host",
            ErrorCode::CrossOrigin => "cross_origin",
            ErrorCode::Csrf => "csrf",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::UriTooLong => "uri_too_long",
            ErrorCode::CannotReplay => "cannot_replay",
            ErrorCode::TooManyAsks => "too_many_asks",
            ErrorCode::TooManyAttempts => "too_many_attempts",
            ErrorCode::HeadersTooLarge => "headers_too_large",
            ErrorCode::Internal => "internal",
            ErrorCode::NoWorkspace => "no_workspace",
            ErrorCode::NoModel => "no_model",
            ErrorCode::Busy => "busy",
        }
    }
}

/// An API error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable code for scripts.
    pub code: ErrorCode,
    /// One line for a person, with a hint when there is something to do.
    pub detail: String,
    /// Seconds, for 429.
    pub retry_after: Option<u64>,
}

#[derive(Serialize)]
struct Body<'a> {
    error: ErrorCode,
    detail: &'a str,
}

impl ApiError {
    fn new(status: StatusCode, code: ErrorCode, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            detail: detail.into(),
            retry_after: None,
        }
    }

    /// 400: the request is malformed or names something impossible.
    pub fn bad_request(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, detail)
    }

    /// 404: no such document, section or trace.
    pub fn not_found(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, detail)
    }

    /// 401: the request carries no token, or a wrong one.
    pub fn unauthorized() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "this server needs its token (hint: send `Authorization: Bearer TOKEN`)",
        )
    }

    /// 422: a trace that this server cannot replay (older format, documents missing).
    pub fn cannot_replay(detail: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::CannotReplay,
            detail,
        )
    }

    /// 429: `max_asks` asks are running.
    pub fn too_many_asks(running: usize, retry_after: u64) -> ApiError {
        ApiError {
            retry_after: Some(retry_after),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::TooManyAsks,
                format!(
                    "{running} ask(s) are running, the most this server runs at once (hint: \
                     retry in {retry_after} s; the limit is `docnav serve --max-asks`)"
                ),
            )
        }
    }

    /// 429: this client sent too many wrong tokens and must wait `retry_after` seconds.
    pub fn too_many_attempts(retry_after: u64) -> ApiError {
        ApiError {
            retry_after: Some(retry_after),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::TooManyAttempts,
                format!("too many wrong tokens from this address (hint: retry in {retry_after} s)"),
            )
        }
    }

    /// 403: a browser's request that spends or stores something without the session's CSRF
    /// token.
    pub fn csrf() -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::Csrf,
            "a browser's request that changes or spends anything needs this session's token in \
             `X-Docnav-Csrf` (the web app's pages send it; scripts send `Authorization: Bearer \
             TOKEN` or no browser headers)",
        )
    }

    /// 503: no model configured; `why` says what to set.
    pub fn no_model(why: &str) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::NoModel,
            format!(
                "{why} (the server reads DOCNAV_MODEL and OPENAI_API_KEY or OPENAI_BASE_URL, or \
                 --model/--base-url, when it starts; `lexical: true` works without a model)"
            ),
        )
    }

    /// 500: a failure of ours.
    pub fn internal(detail: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            detail,
        )
    }
}

/// 400 for a bad name or upload, 404 for no such trace (with where they are listed), 422 for a
/// file that is not a trace this build reads, 500 for one that cannot be written.
impl From<FolderError> for ApiError {
    fn from(e: FolderError) -> ApiError {
        match e {
            FolderError::BadName(_) | FolderError::BadUpload(_) => {
                ApiError::bad_request(e.to_string())
            }
            FolderError::NotFound(_) => {
                ApiError::not_found(format!("{e} (hint: /api/v1/traces lists them)"))
            }
            FolderError::Unreadable(_) => ApiError::cannot_replay(e.to_string()),
            FolderError::Write(_) => ApiError::internal(e.to_string()),
        }
    }
}

/// 400 for a bad budget, structure number or offset; 404 for an unknown document or section
/// (with where to look); a workspace error as [`From<WorkspaceError>`].
impl From<SectionError> for ApiError {
    fn from(e: SectionError) -> ApiError {
        match e {
            SectionError::BadBudget(_)
            | SectionError::BadStructure(_)
            | SectionError::OffsetPastEnd { .. } => ApiError::bad_request(e.to_string()),
            SectionError::UnknownDocument(_) => {
                ApiError::not_found(format!("{e} (hint: /api/v1/docs lists the ids)"))
            }
            SectionError::NoSection { ref doc_id, .. } => {
                ApiError::not_found(format!("{e} (hint: /api/v1/docs/{doc_id} has the outline)"))
            }
            SectionError::Workspace(w) => ApiError::from(w),
        }
    }
}

impl From<WorkspaceError> for ApiError {
    fn from(e: WorkspaceError) -> ApiError {
        let detail = e.to_string();
        match e {
            WorkspaceError::NotFound(_) => ApiError::not_found(detail),
            WorkspaceError::Missing(_)
            | WorkspaceError::Outdated { .. }
            | WorkspaceError::OutdatedTree { .. } => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::NoWorkspace,
                detail,
            ),
            WorkspaceError::Busy { .. } => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Busy, detail)
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

/// The code of an error the router or the HTTP layer answered with `status` itself.
fn code_for(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::TooLarge,
        StatusCode::URI_TOO_LONG => ErrorCode::UriTooLong,
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => ErrorCode::HeadersTooLarge,
        s if s.is_server_error() => ErrorCode::Internal,
        _ => ErrorCode::BadRequest,
    }
}

/// Bytes of a request's URL (path and query) the server reads; a longer one gets 414.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// Bytes of a request's header fields (names, values and their separators); more get 431.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// Every error under `/api/` in the JSON shape: the answers the router makes itself (405 for a
/// method a route does not take, 400 for a path that is not UTF-8) are rewritten, their detail
/// kept; a URL over [`MAX_URI_BYTES`] gets 414 and header fields over [`MAX_HEADER_BYTES`] get
/// 431 here, before any handler. (The HTTP layer still answers a URL over 64 KiB or a head over
/// its buffer itself, with an empty body, and closes the connection.)
pub async fn api_errors_as_json(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let uri_bytes = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    let refused = if uri_bytes > MAX_URI_BYTES {
        Some(ApiError::new(
            StatusCode::URI_TOO_LONG,
            ErrorCode::UriTooLong,
            format!("the URL has {uri_bytes} bytes, over the limit of {MAX_URI_BYTES}"),
        ))
    } else if header_bytes > MAX_HEADER_BYTES {
        Some(ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            ErrorCode::HeadersTooLarge,
            format!(
                "the header fields have {header_bytes} bytes, over the limit of {MAX_HEADER_BYTES}"
            ),
        ))
    } else {
        None
    };
    if let Some(e) = refused {
        return if api {
            e.into_response()
        } else {
            let mut response = e.detail.into_response();
            *response.status_mut() = e.status;
            response
        };
    }
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !api || !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4 * 1024)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let detail = match text.trim() {
        "" => status.canonical_reason().unwrap_or("error").to_lowercase(),
        t => t.to_string(),
    };
    let mut json = ApiError::new(status, code_for(status), detail).into_response();
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            json.headers_mut().insert(name.clone(), value.clone());
        }
    }
    json
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The core's trace-folder and section errors keep the statuses and details the API gave
    /// when it made them itself, with the API's hints added here.
    #[test]
    fn core_errors_become_the_api_errors_they_were() {
        let cases: [(ApiError, u16, &str); 8] = [
            (
                FolderError::BadName("a/b".into()).into(),
                400,
                "bad trace name 'a/b': names are letters, digits, `.`, `_` and `-`, ending in `.jsonl`",
            ),
            (
                FolderError::NotFound("t.jsonl".into()).into(),
                404,
                "no trace `t.jsonl` in this workspace (hint: /api/v1/traces lists them)",
            ),
            (FolderError::Unreadable("line 2: bad".into()).into(), 422, "line 2: bad"),
            (
                SectionError::BadBudget(0).into(),
                400,
                "budget must be 1 to 500000 chars, not 0",
            ),
            (
                SectionError::UnknownDocument("nope".into()).into(),
                404,
                "document not found: nope (hint: /api/v1/docs lists the ids)",
            ),
            (
                SectionError::BadStructure("../..".into()).into(),
                400,
                "bad structure number '../..': dotted numbers like 2.1",
            ),
            (
                SectionError::NoSection {
                    doc_id: "notes".into(),
                    structure: "9.9".into(),
                }
                .into(),
                404,
                "notes has no section 9.9 (hint: /api/v1/docs/notes has the outline)",
            ),
            (
                SectionError::OffsetPastEnd {
                    offset: 90,
                    total: 80,
                }
                .into(),
                400,
                "offset 90 is past the end of the section (80 chars)",
            ),
        ];
        for (e, status, detail) in cases {
            assert_eq!((e.status.as_u16(), e.detail.as_str()), (status, detail));
        }
    }

    #[test]
    fn every_code_serializes_as_the_string_scripts_read() {
        for code in ErrorCode::ALL {
            assert_eq!(
                serde_json::to_value(code).ok(),
                Some(serde_json::Value::from(code.as_str()))
            );
        }
        let all: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            all,
            [
                "bad_request",
                "unauthorized",
                "forbidden_host",
                "cross_origin",
                "csrf",
                "not_found",
                "method_not_allowed",
                "too_large",
                "uri_too_long",
                "cannot_replay",
                "too_many_asks",
                "too_many_attempts",
                "headers_too_large",
                "internal",
                "no_workspace",
                "no_model",
                "busy"
            ]
        );
    }
}
