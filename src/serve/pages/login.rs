//! The login page (`/login`): with a token, the web app asks for it once and sets the session
//! cookie ([`crate::serve::auth`]); `next` brings the browser back, to a path on this server
//! only.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use serde::Deserialize;

use super::render_page;
use crate::serve::auth::COOKIE;
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

/// Where to go after logging in: a path on this server only (`/…`, not `//host`), else `/`.
fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(n) if n.starts_with('/') && !n.starts_with("//") && !n.contains('\\') => n.to_string(),
        _ => "/".to_string(),
    }
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    active: &'static str,
    next: String,
    failed: bool,
    token_required: bool,
}

/// `GET /login`: the form (or, without a token, a link on).
pub async fn page(State(state): State<AppState>, Query(q): Query<NextParam>) -> Response {
    render_page(&LoginPage {
        active: "",
        next: safe_next(q.next.as_deref()),
        failed: false,
        token_required: state.auth.required(),
    })
}

/// `POST /login`: the right token sets the cookie and redirects to `next` (303); a wrong one
/// shows the form again with 401.
pub async fn submit(State(state): State<AppState>, Form(form): Form<LoginForm>) -> Response {
    let next = safe_next(form.next.as_deref());
    if !state.auth.token_matches(form.token.trim()) {
        let page = LoginPage {
            active: "",
            next,
            failed: true,
            token_required: state.auth.required(),
        };
        let mut response = render_page(&page);
        *response.status_mut() = StatusCode::UNAUTHORIZED;
        return response;
    }
    let cookie = format!(
        "{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict",
        state.auth.cookie_value().unwrap_or_default()
    );
    let mut response = Redirect::to(&next).into_response();
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
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
    }
}
