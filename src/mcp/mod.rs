//! `docnav mcp` (DESIGN.md §9): the navigator served to coding agents over the Model Context
//! Protocol (stdio, JSON-RPC 2.0; the official Rust SDK `rmcp`).
//!
//! Another face like [`crate::cli`] and [`crate::repl`]: it calls [`crate::nav`], the lexical
//! navigator, the workspace and (through the one adapter [`agent::ask_agent`]) the agent; nothing
//! calls it.
//!
//! - **Tools** ([`tools`]): `docs`, `search`, `ls`, `cat`, `head`, `find`, `findtree`, `grep`,
//!   `tree`, `wc` and `ask`. Stateless: every navigation tool takes an absolute `path`
//!   (`/doc_id/2/1`, or `/doc_id/#2.1` by structure number) and runs the shell's own command on a
//!   fresh [`Session`](crate::nav::Session), so its text is what `docnav exec` prints; long
//!   outputs are paged with `offset` and `budget` (chars).
//! - **Resources** ([`resources`]): `docnav://DOC_ID` (a document) and `docnav://DOC_ID/#2.1` (a
//!   section), listed page by page and read as text.
//! - **Errors**: what the shell reports as a fixable error (bad path, unknown document, bad
//!   regex) and arguments that do not match a tool's schema are tool results with `isError:
//!   true` and the one-line message, so the calling model can correct itself (MCP 2025-11-25,
//!   "Tool Execution Errors"); an unknown tool, an unknown resource or a malformed request is a
//!   JSON-RPC error. No input ends the server; it stops when the client closes stdin.
//! - **Read-only**: nothing is written, except one JSONL trace per `ask` in the workspace's
//!   `traces/` directory when [`McpConfig::traces`] is set.

pub mod agent;
pub mod args;
pub mod http;
pub mod nav_tools;
pub mod resources;
pub mod search;
pub mod server;
pub mod stdio;
pub mod tools;

use std::path::PathBuf;
use std::sync::Arc;

pub use server::DocnavServer;

use crate::agent::AgentOptions;
use crate::llm::ChatModel;

/// Everything the server needs, resolved by the command line (`src/cli/mcp.rs`).
pub struct McpConfig {
    /// The workspace directory. It need not exist yet: tools then answer with the workspace's
    /// error (`no workspace at …`), and a catalog written later is picked up on the next call.
    pub workspace: PathBuf,
    /// The model for `ask`, or the one-line reason there is none (shown by `ask` as its error,
    /// e.g. the `no model configured … hint: set DOCNAV_MODEL …` message).
    pub model: Result<Arc<dyn ChatModel>, String>,
    /// Agent budgets for `ask` (the `docnav ask` flags); `ask`'s own arguments override some.
    pub agent: AgentOptions,
    /// Write one JSONL trace per `ask` into `<workspace>/traces/`.
    pub traces: bool,
}

/// Serve MCP on this process's stdin/stdout until the client closes stdin (or the connection
/// fails). Logs go to stderr; stdout carries only protocol messages; a line that is not JSON gets
/// the JSON-RPC parse error ([`stdio`]).
///
/// Errors: the transport failed during the `initialize` handshake (e.g. stdin closed before it),
/// or the service task ended abnormally.
pub async fn serve_stdio(config: McpConfig) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let server = DocnavServer::new(config);
    let running = server.serve(stdio::checked_stdio()).await?;
    running.waiting().await?;
    Ok(())
}
