//! `docnav serve` (DESIGN.md §11): one process holding the workspace open and serving
//!
//! - the **web app** ([`pages`]): Library (`/`), Reader (`/doc/DOC_ID/#2.1`), Ask (`/ask`, live
//!   Worker lanes over Server-Sent Events) and Traces (`/traces`, `/trace/NAME`), rendered on the
//!   server from templates compiled into the binary, with one small script and one style sheet
//!   ([`assets`]); nothing is fetched from elsewhere;
//! - the **JSON API** under `/api/v1/` ([`api`]) that the pages use themselves;
//! - whatever the caller mounts beside them (the command line mounts MCP over streamable HTTP at
//!   `/mcp`): every route sits behind the same guard ([`auth`]).
//!
//! A face like [`crate::cli`] and [`crate::mcp`]: it calls the workspace ([`LiveLibrary`]), the
//! navigator, the agent and the traces; nothing below calls it, and it imports no other face.
//!
//! Secure by default: loopback unless a token is given ([`check_bind`], at least 16
//! characters); with a token every request needs it (a bearer header, or the web app's signed,
//! expiring login cookie, [`session`]), and wrong tokens slow their client down ([`throttle`]);
//! without one, only requests naming a loopback host are served (DNS rebinding). Nothing that
//! spends or stores starts from a GET or from another site: posts need this server's `Origin`,
//! and a browser's API posts the session's CSRF token ([`auth`]). Every document string reaches
//! a page through the templates' HTML escaping after
//! [`for_display`](crate::nav::render::for_display) made its control and bidi characters
//! visible; the Content-Security-Policy allows no inline script; trace names are checked before
//! any file is touched; bodies, URLs, headers, uploads and connections are bounded ([`limits`]);
//! `ask` runs at most `max_asks` at once (429 beyond), because it spends the user's money.

pub mod allocator;
pub mod api;
pub mod assets;
pub mod auth;
pub mod error;
pub mod limits;
pub mod links;
pub mod pages;
pub mod render;
pub mod search_cache;
pub mod session;
pub mod state;
pub mod throttle;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::Router;

pub use limits::{serve, ConnectionLimits};
pub use state::{AppState, ServeConfig};

use crate::nav::live::LiveLibrary;

/// Bytes a request body may have, except trace uploads ([`MAX_UPLOAD_BYTES`]).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Bytes of an uploaded trace: a long run records every prompt in full (a 12-call run at the
/// 12,000-token prompt cap is about 600 KB), so 16 MiB leaves room for the longest.
pub const MAX_UPLOAD_BYTES: usize = 16 * 1024 * 1024;

/// Why the server may not start on an address.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BindError {
    /// A non-loopback address without a token would serve the documents (and the model budget)
    /// to anyone who can reach it.
    #[error(
        "refusing to listen on {0} without a token: it is reachable from other machines \
         (hint: pass --token TOKEN or set DOCNAV_TOKEN, or bind 127.0.0.1)"
    )]
    NeedsToken(SocketAddr),
    /// A token shorter than [`auth::MIN_TOKEN_CHARS`]: guessable.
    #[error(
        "the token has {0} characters, fewer than {min} (hint: give a long random string, \
         e.g. `openssl rand -hex 32`)",
        min = auth::MIN_TOKEN_CHARS
    )]
    ShortToken(usize),
}

/// Whether the server may listen on `addr` with `token`: loopback addresses always; any other
/// (`0.0.0.0`, a LAN address) only with a token; a token only of at least
/// [`auth::MIN_TOKEN_CHARS`] characters.
///
/// Errors: [`BindError::NeedsToken`], [`BindError::ShortToken`].
pub fn check_bind(addr: SocketAddr, token: Option<&str>) -> Result<(), BindError> {
    match token.map(|t| t.chars().count()) {
        Some(n) if n < auth::MIN_TOKEN_CHARS => Err(BindError::ShortToken(n)),
        Some(_) => Ok(()),
        None if addr.ip().is_loopback() => Ok(()),
        None => Err(BindError::NeedsToken(addr)),
    }
}

/// The whole application: pages, assets, the API and `extra` (e.g. MCP at `/mcp`), behind the
/// guard and the security headers, with bounded bodies.
pub fn router(state: AppState, extra: Router) -> Router {
    let app = Router::new()
        .merge(pages::routes())
        .merge(assets::routes())
        .nest("/api/v1", api::routes())
        .with_state(state.clone())
        .merge(extra);
    app.layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            state.auth.clone(),
            auth::guard,
        ))
        .layer(axum::middleware::from_fn(error::api_errors_as_json))
        .layer(axum::middleware::from_fn(auth::security_headers))
}

/// The library a server over `workspace` reads (opened on first use, reopened per generation).
pub fn library(workspace: &std::path::Path) -> Arc<LiveLibrary> {
    Arc::new(LiveLibrary::new(workspace))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_needs_no_token_anything_else_does() {
        let local: SocketAddr = "127.0.0.1:7070".parse().unwrap_or_else(|_| unreachable!());
        let v6: SocketAddr = "[::1]:7070".parse().unwrap_or_else(|_| unreachable!());
        let all: SocketAddr = "0.0.0.0:7070".parse().unwrap_or_else(|_| unreachable!());
        assert_eq!(check_bind(local, None), Ok(()));
        assert_eq!(check_bind(v6, None), Ok(()));
        assert_eq!(check_bind(all, None), Err(BindError::NeedsToken(all)));
        assert_eq!(check_bind(all, Some("s3cret-s3cret-s3")), Ok(()));
        assert_eq!(check_bind(local, Some("")), Err(BindError::ShortToken(0)));
        assert_eq!(check_bind(all, Some("a")), Err(BindError::ShortToken(1)));
        assert_eq!(
            check_bind(local, Some("ééééééééééééééé")),
            Err(BindError::ShortToken(15)),
            "characters, not bytes"
        );
    }
}
