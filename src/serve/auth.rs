//! The guard in front of every route, the login cookie and the security headers.
//!
//! - **Host**: without a token the server is for this machine only, so a request must name a
//!   loopback host (or the bound address) in `Host`; a page on another site that rebinds its own
//!   name to 127.0.0.1 (DNS rebinding) gets 403.
//! - **Token**: with one, `/api/…` and `/mcp` need `Authorization: Bearer TOKEN` (the scheme in
//!   any case) or the login cookie (401 otherwise, with `WWW-Authenticate`); pages without the
//!   cookie redirect to `/login` ([`crate::serve::pages::login`]). The cookie is signed, expires
//!   and never holds the token ([`crate::serve::session`]); it is `HttpOnly` and
//!   `SameSite=Strict`; every comparison runs in constant time (`subtle`). Wrong tokens slow
//!   their client down ([`crate::serve::throttle`]).
//! - **Cross-site requests**: a request that is not a read (GET, HEAD) and carries an `Origin`
//!   must name this server; under `/api/` one from a browser must also carry the session's CSRF
//!   token in `X-Docnav-Csrf` unless it has the bearer token. A page elsewhere can neither read
//!   the token nor add the header, so it cannot start an ask or store a trace.
//! - **Headers** on every response: a Content-Security-Policy with no inline script and nothing
//!   from elsewhere, `nosniff`, no framing, and the referrer only to this server
//!   (`same-origin`: with `no-referrer` Chromium sends `Origin: null` on the login form's POST).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use subtle::ConstantTimeEq;

use super::error::ApiError;
use super::session::{now_unix, Sessions, CSRF_HEADER, SESSION_MAX_AGE_SECS};
use super::throttle::Throttle;

/// Name of the login cookie.
pub const COOKIE: &str = "docnav_session";

/// The fewest characters a token may have (`docnav serve` refuses a shorter one at start).
pub const MIN_TOKEN_CHARS: usize = 16;

/// The Content-Security-Policy of every response: scripts and styles only from this server's
/// `/assets/`, no inline script or style attribute that a document could smuggle in, no frames,
/// forms posting only here.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; \
    base-uri 'none'; frame-ancestors 'none'";

/// What the guard checks against.
pub struct Auth {
    token: Option<String>,
    sessions: Sessions,
    allowed_hosts: Vec<String>,
    /// Wrong tokens per client address.
    pub throttle: Throttle,
}

/// What a request's credentials amount to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Access {
    /// The server needs no token.
    Open,
    /// The right bearer token.
    Bearer,
    /// A valid login cookie (its value).
    Session(String),
    /// A bearer token that is not the token.
    WrongBearer,
    /// Nothing that counts.
    Anonymous,
}

impl Auth {
    /// Checks for `token` (none: loopback only, `allowed_hosts` are the host names a request may
    /// name).
    pub fn new(token: Option<String>, allowed_hosts: Vec<String>) -> Auth {
        Auth {
            sessions: Sessions::new(token.as_deref()),
            token,
            allowed_hosts,
            throttle: Throttle::default(),
        }
    }

    /// The session cookies' and CSRF tokens' signer.
    pub fn sessions(&self) -> &Sessions {
        &self.sessions
    }

    /// A `Set-Cookie` value logging a browser in for [`SESSION_MAX_AGE_SECS`].
    pub fn login_cookie(&self) -> String {
        format!(
            "{COOKIE}={}; Path=/; Max-Age={SESSION_MAX_AGE_SECS}; HttpOnly; SameSite=Strict",
            self.sessions.issue(now_unix())
        )
    }

    /// A `Set-Cookie` value removing the login cookie.
    pub fn logout_cookie() -> &'static str {
        "docnav_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
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

    /// The login cookie in `headers` when the server needs a token and the cookie is valid now;
    /// `None` otherwise (the CSRF token of a server without a token belongs to no session).
    pub fn session(&self, headers: &HeaderMap) -> Option<String> {
        if !self.required() {
            return None;
        }
        cookie_values(headers, COOKIE).find(|c| self.sessions.valid(c, now_unix()))
    }

    fn access(&self, headers: &HeaderMap) -> Access {
        if !self.required() {
            return Access::Open;
        }
        if let Some(given) = bearer(headers) {
            return if self.token_matches(given) {
                Access::Bearer
            } else {
                Access::WrongBearer
            };
        }
        self.session(headers)
            .map_or(Access::Anonymous, Access::Session)
    }

    /// Whether `headers` carry the token (bearer) or a valid login cookie, or none is needed.
    pub fn authorized(&self, headers: &HeaderMap) -> bool {
        matches!(
            self.access(headers),
            Access::Open | Access::Bearer | Access::Session(_)
        )
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

/// The credentials of `Authorization: Bearer TOKEN`, the scheme matched without regard to case
/// (RFC 9110 §11.1).
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, credentials) = value.split_once([' ', '\t'])?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| credentials.trim())
}

/// The address of the client that sent the request, when the server recorded it.
pub fn peer_ip(request: &Request) -> Option<IpAddr> {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
}

/// The host part of a `Host` header value: `[::1]:7070` → `::1`, `localhost:7070` → `localhost`.
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

/// The values of cookie `name` in `headers` (a browser may send two of one name).
fn cookie_values<'a>(headers: &'a HeaderMap, name: &'a str) -> impl Iterator<Item = String> + 'a {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(move |(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// Whether a request may act: reads (GET, HEAD) always; anything else only without an `Origin`
/// (scripts, coding agents) or with one naming this server's own host (the web app). A page of
/// another site that the user has open could otherwise post to a server on 127.0.0.1 (CSRF): it
/// cannot read the answer, but it could start an ask or store a trace.
fn same_origin(method: &Method, headers: &HeaderMap) -> bool {
    if is_read(method) {
        return true;
    }
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    let origin_host = origin.split_once("://").map(|(_, rest)| rest);
    matches!((origin_host, host), (Some(o), Some(h)) if o.eq_ignore_ascii_case(h))
}

/// GET and HEAD: they change nothing here.
fn is_read(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD)
}

/// Whether a request comes from a browser: browsers send an `Origin` with every request that is
/// not a read, `Sec-Fetch-*` with every request, and the cookie when there is one; scripts and
/// coding agents send none of them.
fn from_browser(headers: &HeaderMap) -> bool {
    [header::ORIGIN, header::COOKIE]
        .iter()
        .any(|h| headers.contains_key(h))
        || headers.contains_key("sec-fetch-site")
        || headers.contains_key("sec-fetch-mode")
}

/// Whether the request must carry the CSRF token: an API request that is not a read, from a
/// browser, without the bearer token.
fn needs_csrf(method: &Method, path: &str, headers: &HeaderMap, access: &Access) -> bool {
    !is_read(method)
        && path.starts_with("/api/")
        && *access != Access::Bearer
        && from_browser(headers)
}

/// Paths served without the token: the login page and the assets it needs (the icon too: a
/// browser asks for it on the login page).
fn is_public(path: &str) -> bool {
    path == "/login"
        || path.starts_with("/assets/")
        || path == "/favicon.svg"
        || path == "/favicon.ico"
}

/// The guard (see the module docs).
pub async fn guard(State(auth): State<Arc<Auth>>, request: Request, next: Next) -> Response {
    if !auth.host_allowed(request.headers()) {
        return (
            StatusCode::FORBIDDEN,
            axum::Json(serde_json::json!({
                "error": crate::serve::error::ErrorCode::ForbiddenHost,
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
                "error": crate::serve::error::ErrorCode::CrossOrigin,
                "detail": "a page of another site may not send requests that change or spend \
                           anything here (the Origin differs from the Host)"
            })),
        )
            .into_response();
    }
    let path = request.uri().path();
    if is_public(path) {
        return next.run(request).await;
    }
    let access = auth.access(request.headers());
    if matches!(access, Access::Bearer | Access::WrongBearer) {
        let client = peer_ip(&request);
        if let Err(wait) = auth.throttle.check(client, Instant::now()) {
            return ApiError::too_many_attempts(wait).into_response();
        }
        if access == Access::WrongBearer {
            auth.throttle.failed(client, Instant::now());
            return ApiError::unauthorized().into_response();
        }
        auth.throttle.succeeded(client);
    }
    if access == Access::Anonymous {
        if path.starts_with("/api/") || path == "/mcp" || path.starts_with("/mcp/") {
            return ApiError::unauthorized().into_response();
        }
        let target = request
            .uri()
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string();
        let encoded: String = url_encode(&target);
        return Redirect::to(&format!("/login?next={encoded}")).into_response();
    }
    if needs_csrf(request.method(), path, request.headers(), &access) {
        let session = match &access {
            Access::Session(value) => Some(value.as_str()),
            _ => None,
        };
        let given = request
            .headers()
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if !auth.sessions.csrf_matches(session, given) {
            return ApiError::csrf().into_response();
        }
    }
    next.run(request).await
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
        HeaderValue::from_static("same-origin"),
    );
    response
}

#[cfg(test)]
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
    fn bearer_in_any_case_or_a_signed_cookie_and_nothing_else() {
        let auth = Auth::new(Some("s3cret-s3cret-s3cret".into()), vec![]);
        let mut h = HeaderMap::new();
        assert!(!auth.authorized(&h));
        h.insert(header::AUTHORIZATION, "Bearer wrong".parse().unwrap());
        assert_eq!(auth.access(&h), Access::WrongBearer);
        for good in [
            "Bearer s3cret-s3cret-s3cret",
            "bearer s3cret-s3cret-s3cret",
            "BEARER  s3cret-s3cret-s3cret ",
        ] {
            h.insert(header::AUTHORIZATION, good.parse().unwrap());
            assert_eq!(auth.access(&h), Access::Bearer, "{good}");
        }
        h.insert(
            header::AUTHORIZATION,
            "Basic s3cret-s3cret-s3cret".parse().unwrap(),
        );
        assert!(!auth.authorized(&h));
        let mut c = HeaderMap::new();
        c.insert(
            header::COOKIE,
            "docnav_session=s3cret-s3cret-s3cret".parse().unwrap(),
        );
        assert!(
            !auth.authorized(&c),
            "the cookie holds a signed session, not the token"
        );
        let login = auth.login_cookie();
        assert!(login.contains("Max-Age=604800"), "{login}");
        let pair = login.split(';').next().unwrap();
        c.insert(header::COOKIE, format!("a=b; {pair}").parse().unwrap());
        assert!(auth.authorized(&c));
        let value = pair.split_once('=').unwrap().1.to_string();
        assert_eq!(auth.access(&c), Access::Session(value));
    }

    #[test]
    fn a_browsers_api_post_needs_the_csrf_token_a_scripts_does_not() {
        let post = Method::POST;
        let session = Access::Session("x".into());
        let mut script = HeaderMap::new();
        assert!(!needs_csrf(&post, "/api/v1/ask", &script, &Access::Open));
        script.insert(header::AUTHORIZATION, "Bearer t".parse().unwrap());
        assert!(!needs_csrf(&post, "/api/v1/ask", &script, &Access::Bearer));
        let mut browser = HeaderMap::new();
        browser.insert("sec-fetch-site", "same-origin".parse().unwrap());
        assert!(needs_csrf(&post, "/api/v1/ask", &browser, &Access::Open));
        assert!(needs_csrf(&post, "/api/v1/traces", &browser, &session));
        assert!(!needs_csrf(
            &Method::GET,
            "/api/v1/docs",
            &browser,
            &session
        ));
        assert!(!needs_csrf(&post, "/login", &browser, &Access::Open));
    }
}
