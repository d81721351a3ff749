//! `GET /session`: what the web app's script needs to act for the person using it.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use serde::Serialize;

use crate::serve::state::AppState;

/// `GET /session`'s answer.
#[derive(Debug, Serialize)]
pub struct SessionInfo {
    /// The CSRF token of this session: a browser's request that spends or stores anything (an
    /// ask, a trace upload, a replay) sends it in `X-Docnav-Csrf`. Another site's page cannot
    /// read it (this answer has no CORS headers).
    pub csrf: String,
    /// Whether the server needs its token (the page then offers "Log out").
    pub login: bool,
}

/// `GET /api/v1/session`. With a token it is behind the guard like every API route (401
/// without a login or the bearer token).
pub async fn session(State(state): State<AppState>, headers: HeaderMap) -> Json<SessionInfo> {
    let session = state.auth.session(&headers);
    Json(SessionInfo {
        csrf: state.auth.sessions().csrf(session.as_deref()),
        login: state.auth.required(),
    })
}
