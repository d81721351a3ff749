//! The guard in front of every route, the login page and the security headers.
//!
//! - **Host**: without a token the server is for this machine only, so a request must name a
//!   loopback host (or the bound address) in `Host`; a page on another site that rebinds its own
//!   name to 127.0.0.1 (DNS rebinding) gets 403.
//! - **Token**: with one, `/api/…` and `/mcp` need `Authorization: Bearer TOKEN` or the login
//!   cookie (401 otherwise, with `WWW-Authenticate`); pages without the cookie redirect to
//!   `/login` ([`crate::serve::pages::login`]). The cookie holds sha256 of the token (never the token), is `HttpOnly` and
//!   `SameSite=Strict`, and every comparison runs in constant time (`subtle`).
//! - **Headers** on every response: a Content-Security-Policy with no inline script and nothing
//!   from elsewhere, `nosniff`, no framing, no referrer.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use subtle::ConstantTimeEq;

use super::error::ApiError;
use crate::agent::events::sha256_hex;

/// Name of the login cookie.
pub const COOKIE: &str = "docnav_session";

/// The Content-Security-Policy of every response: scripts and styles only from this server's
/// `/assets/`, no inline script or style attribute that a document could smuggle in, no frames,
/// forms posting only here.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; \
    base-uri 'none'; frame-ancestors 'none'";

/// What the guard checks against.
pub struct Auth {
    token: Option<String>,
    /// sha256 hex of `docnav-session:` + the token: the login cookie's value.
    cookie: Option<String>,
    allowed_hosts: Vec<String>,
}

impl Auth {
    /// Checks for `token` (none: loopback only, `allowed_hosts` are the host names a request may
    /// name).
    pub fn new(token: Option<String>, allowed_hosts: Vec<String>) -> Auth {
        let cookie = token
            .as_ref()
            .map(|t| sha256_hex(&format!("docnav-session:{t}")));
        Auth {
            token,
            cookie,
            allowed_hosts,
        }
    }

    /// The login cookie's value (a hash of the token), when there is a token.
    pub fn cookie_value(&self) -> Option<&str> {
        self.cookie.as_deref()
    }

    /// Whether a token is required.
    pub fn required(&self) -> bool {
        self.token.is_some()
    }

    /// Whether `given` is the token (constant time).
    pub fn token_matches(&self, given: &str) -> bool {
        self.token
            .as_ref()
            .is_some_and(|t| bool::from(t.as_bytes().ct_eq(given.as_bytes())))
    }

    fn cookie_matches(&self, given: &str) -> bool {
        self.cookie
            .as_ref()
            .is_some_and(|c| bool::from(c.as_bytes().ct_eq(given.as_bytes())))
    }

    /// Whether `headers` carry the token (bearer) or the login cookie.
    pub fn authorized(&self, headers: &HeaderMap) -> bool {
        if !self.required() {
            return true;
        }
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        if bearer.is_some_and(|b| self.token_matches(b)) {
            return true;
        }
        cookie_value(headers, COOKIE).is_some_and(|c| self.cookie_matches(&c))
    }

    /// Whether the `Host` header names a host this server answers to without a token.
    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        if self.required() {
            return true;
        }
        let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
            // HTTP/1.0 without Host: nothing for a rebinding page to abuse.
            return true;
        };
        let name = host_name(host);
        self.allowed_hosts
            .iter()
            .any(|a| a.eq_ignore_ascii_case(name))
    }
}

/// The host part of a `Host` header value: `[::1]:7070` → `::1`, `localhost:7070` → `localhost`.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

/// The value of cookie `name` in `headers`, if any.
fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// Whether a request may act: reads (GET, HEAD) always; anything else only without an `Origin`
/// (scripts, coding agents) or with one naming this server's own host (the web app). A page of
/// another site that the user has open could otherwise post to a server on 127.0.0.1 (CSRF): it
/// cannot read the answer, but it could start an ask or store a trace.
fn same_origin(method: &axum::http::Method, headers: &HeaderMap) -> bool {
    if matches!(*method, axum::http::Method::GET | axum::http::Method::HEAD) {
        return true;
    }
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin_host = origin.split_once("://").map(|(_, rest)| rest);
    matches!((origin_host, host), (Some(o), Some(h)) if o.eq_ignore_ascii_case(h))
}

/// Paths served without the token: the login page and the assets it needs.
fn is_public(path: &str) -> bool {
    path == "/login" || path.starts_with("/assets/")
}

/// The guard (see the module docs).
pub async fn guard(State(auth): State<Arc<Auth>>, request: Request, next: Next) -> Response {
    if !auth.host_allowed(request.headers()) {
        return (
            StatusCode::FORBIDDEN,
            axum::Json(serde_json::json!({
                "error": "forbidden_host",
                "detail": "this server answers only to its loopback names without a token \
                           (hint: open it as http://127.0.0.1:PORT, or start it with --token)"
            })),
        )
            .into_response();
    }
    if !same_origin(request.method(), request.headers()) {
        return (
            StatusCode::FORBIDDEN,
            axum::Json(serde_json::json!({
                "error": "cross_origin",
                "detail": "a page of another site may not send requests that change or spend \
                           anything here (the Origin differs from the Host)"
            })),
        )
            .into_response();
    }
    let path = request.uri().path();
    if is_public(path) || auth.authorized(request.headers()) {
        return next.run(request).await;
    }
    if path.starts_with("/api/") || path == "/mcp" || path.starts_with("/mcp/") {
        return ApiError::unauthorized().into_response();
    }
    let target = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let encoded: String = url_encode(&target);
    Redirect::to(&format!("/login?next={encoded}")).into_response()
}

/// Percent-encode everything but unreserved characters (RFC 3986 §2.3).
fn url_encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// Security headers on every response (see the module docs).
pub async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn host_names_are_cut_from_their_ports() {
        assert_eq!(host_name("localhost:7070"), "localhost");
        assert_eq!(host_name("[::1]:7070"), "::1");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
    }

    #[test]
    fn only_this_servers_own_pages_may_post_from_a_browser() {
        let post = axum::http::Method::POST;
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "127.0.0.1:7070".parse().unwrap());
        assert!(same_origin(&post, &h), "no Origin: a script or an agent");
        h.insert(header::ORIGIN, "http://127.0.0.1:7070".parse().unwrap());
        assert!(same_origin(&post, &h));
        h.insert(header::ORIGIN, "https://evil.example".parse().unwrap());
        assert!(!same_origin(&post, &h));
        assert!(
            same_origin(&axum::http::Method::GET, &h),
            "reads are not refused"
        );
        h.insert(header::ORIGIN, "null".parse().unwrap());
        assert!(!same_origin(&post, &h));
    }

    #[test]
    fn bearer_or_cookie_and_nothing_else() {
        let auth = Auth::new(Some("s3cret".into()), vec![]);
        let mut h = HeaderMap::new();
        assert!(!auth.authorized(&h));
        h.insert(header::AUTHORIZATION, "Bearer wrong".parse().unwrap());
        assert!(!auth.authorized(&h));
        h.insert(header::AUTHORIZATION, "Bearer s3cret".parse().unwrap());
        assert!(auth.authorized(&h));
        let mut c = HeaderMap::new();
        c.insert(header::COOKIE, "docnav_session=s3cret".parse().unwrap());
        assert!(
            !auth.authorized(&c),
            "the cookie holds a hash, not the token"
        );
        let value = format!("a=b; {COOKIE}={}", auth.cookie.clone().unwrap());
        c.insert(header::COOKIE, value.parse().unwrap());
        assert!(auth.authorized(&c));
    }
}
