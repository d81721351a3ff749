//! MCP over streamable HTTP (MCP 2025-11-25, "Streamable HTTP"; rmcp's
//! `transport-streamable-http-server`): the same tools and resources as `docnav mcp` on stdio,
//! as a tower service that `docnav serve` mounts at `/mcp` behind its own guard, so one server
//! serves a whole team's coding agents.
//!
//! Stateless: every POST is answered on its own (no session to pin a client to one process), so
//! replicas of `docnav serve` behind any load balancer serve MCP as they serve the rest. An
//! `ask` with a progress token streams its progress notifications in the response (SSE) before
//! the result. rmcp's own `Host` check is off: the server's guard checks `Host` (without a token)
//! or the token (with one) before a request gets here.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;

use super::DocnavServer;
use crate::agent::AgentOptions;
use crate::llm::ChatModel;
use crate::nav::live::LiveLibrary;

/// Bytes of one MCP request body.
pub const MAX_MCP_BODY_BYTES: usize = 1024 * 1024;

/// The MCP service over `library` (shared with the caller). `ask` uses `model` and `agent`,
/// records traces into the workspace when `traces` is set, and runs only with one of
/// `ask_permits` (see [`DocnavServer::over`]).
pub fn streamable_http_service(
    library: Arc<LiveLibrary>,
    model: Result<Arc<dyn ChatModel>, String>,
    agent: AgentOptions,
    traces: bool,
    ask_permits: Option<Arc<Semaphore>>,
) -> StreamableHttpService<DocnavServer, LocalSessionManager> {
    let server = DocnavServer::over(library, model, agent, traces, ask_permits);
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .disable_allowed_hosts();
    config.json_response = true;
    config.max_request_body_bytes = MAX_MCP_BODY_BYTES;
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}
