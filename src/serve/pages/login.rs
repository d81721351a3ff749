//! The login page (`/login`): with a token, the web app asks for it once and sets the session
//! cookie ([`crate::serve::auth`]); `next` brings the browser back, to a path on this server
//! only. Wrong tokens slow their client down ([`crate::serve::throttle`]). `POST /logout`
//! removes the cookie.

use std::net::SocketAddr;
use std::time::Instant;

use askama::Template;
use axum::extract::{ConnectInfo, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use serde::Deserialize;

use super::render_page;
use crate::serve::auth::Auth;
use crate::serve::state::AppState;

/// `?next=PATH`: where to go after logging in.
#[derive(Deserialize)]
pub struct NextParam {
    next: Option<String>,
}

/// The login form.
#[derive(Deserialize)]
pub struct LoginForm {
    token: String,
    next: Option<String>,
}

/// Where to go after logging in: a path on this server only, else `/`.
///
/// A path is one leading `/` followed by visible ASCII (what a URL's path and query are once
/// percent-encoded), not `//` (another host) and without `\` (which browsers read as `/`),
/// and the same holds once percent-decoded: `/%09/host` would reach the browser as `/\t/host`,
/// which it reads as `//host`.
fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(n) if is_local_path(n) => n.to_string(),
        _ => "/".to_string(),
    }
}

fn is_local_path(path: &str) -> bool {
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    let plain = |p: &str| {
        p.starts_with('/')
            && !p.starts_with("//")
            && !p.contains('\\')
            && !p.chars().any(char::is_control)
    };
    path.len() <= 4_096
        && path.bytes().all(|b| b.is_ascii_graphic())
        && plain(path)
        && plain(&decoded)
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    active: &'static str,
    next: String,
    failed: bool,
    /// Seconds to wait before the next try, after too many wrong tokens.
    wait: Option<u64>,
    token_required: bool,
}

/// `GET /login`: the form (or, without a token, a link on).
pub async fn page(State(state): State<AppState>, Query(q): Query<NextParam>) -> Response {
    render_page(&LoginPage {
        active: "",
        next: safe_next(q.next.as_deref()),
        failed: false,
        wait: None,
        token_required: state.auth.required(),
    })
}

/// `POST /login`: the right token sets the cookie and redirects to `next` (303); a wrong one
/// shows the form again with 401; a client past its free failures gets the form with 429 and
/// `Retry-After` until its wait is over, whatever it sends.
pub async fn submit(
    State(state): State<AppState>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    Form(form): Form<LoginForm>,
) -> Response {
    let next = safe_next(form.next.as_deref());
    let client = peer.map(|Extension(ConnectInfo(addr))| addr.ip());
    let throttle = &state.auth.throttle;
    let refused = |status: StatusCode, wait: Option<u64>| {
        let page = LoginPage {
            active: "",
            next: next.clone(),
            failed: wait.is_none(),
            wait,
            token_required: state.auth.required(),
        };
        let mut response = render_page(&page);
        *response.status_mut() = status;
        if let Some(secs) = wait {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    };
    if let Err(wait) = throttle.check(client, Instant::now()) {
        return refused(StatusCode::TOO_MANY_REQUESTS, Some(wait));
    }
    if !state.auth.token_matches(form.token.trim()) {
        throttle.failed(client, Instant::now());
        return refused(StatusCode::UNAUTHORIZED, None);
    }
    throttle.succeeded(client);
    let mut response = Redirect::to(&next).into_response();
    if let Ok(value) = HeaderValue::from_str(&state.auth.login_cookie()) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// `POST /logout`: the cookie is removed and the browser goes to the login page (303).
pub async fn logout() -> Response {
    let mut response = Redirect::to("/login").into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static(Auth::logout_cookie()),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_stays_on_this_server() {
        assert_eq!(safe_next(Some("/doc/a/")), "/doc/a/");
        assert_eq!(safe_next(Some("//evil.example/")), "/");
        assert_eq!(safe_next(Some("https://evil.example/")), "/");
        assert_eq!(safe_next(Some("/\\evil.example")), "/");
        assert_eq!(safe_next(None), "/");
        assert_eq!(safe_next(Some("/ask?q=a%20b")), "/ask?q=a%20b");
        for bad in [
            "/%09/127.0.0.1:9/x",
            "/\t/127.0.0.1:9/x",
            "/%2F/evil.example",
            "/%5Cevil.example",
            "/a\nLocation: x",
            "/%0d%0aSet-Cookie:%20x",
            "/a b",
            "/caf\u{e9}",
            "",
            "doc/a/",
        ] {
            assert_eq!(safe_next(Some(bad)), "/", "{bad:?}");
        }
    }
}
