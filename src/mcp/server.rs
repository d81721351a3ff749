//! [`DocnavServer`]: the `rmcp` server handler. It answers `initialize`, `tools/list`,
//! `tools/call`, `resources/list`, `resources/templates/list` and `resources/read`; everything
//! else is the SDK's (`ping`, method-not-found, invalid-request for malformed messages).
//!
//! Every tool but `ask` runs on tokio's blocking pool (they read trees and scan text), so a slow
//! `grep` never holds up the protocol loop, and a panic in one (a bug) becomes that call's error
//! result instead of ending the server.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio::sync::Semaphore;

use super::agent::{ask_agent, progress, AskFailure, PROGRESS_LINES_HELD};
use super::args::AskArgs;
use super::nav_tools::ToolText;
use super::resources::{self, ReadError};
use super::{tools, McpConfig};
use crate::agent::paced::Paced;
use crate::agent::AgentOptions;
use crate::llm::ChatModel;
use crate::nav::live::{LiveLibrary, Opened};
use crate::trace::record::{Ask, CachePolicy, Catalog, TraceDestination};
use crate::workspace::{Workspace, WorkspaceError};

/// What the server tells the client (and its model) at `initialize`.
const INSTRUCTIONS: &str = "docnav serves indexed documents (Markdown, PDF, text) as heading \
trees. To answer from them: `search` ranks sections for a query (start here); `tree` or `ls` show \
a document's structure; `cat` reads a section verbatim with its source lines (long ones in pages: \
call again with `offset`); `grep`, `find` and `findtree` locate text and titles. `ask` runs \
docnav's own navigation agent when the server has a model. Paths are absolute: `/doc_id/2/1` (the \
numbers ls shows) or `/doc_id/#2.1` (structure numbers); `docs` lists the documents.";

/// The MCP server over one workspace (cheap to clone: shared state behind an `Arc`).
#[derive(Clone)]
pub struct DocnavServer {
    inner: Arc<Inner>,
}

struct Inner {
    library: Arc<LiveLibrary>,
    model: Result<Arc<dyn ChatModel>, String>,
    agent: AgentOptions,
    traces: bool,
    ask_permits: Option<Arc<Semaphore>>,
}

impl DocnavServer {
    /// A server for `config`. Reads nothing yet: the workspace is opened on the first call.
    pub fn new(config: McpConfig) -> DocnavServer {
        DocnavServer::over(
            Arc::new(LiveLibrary::new(&config.workspace)),
            config.model,
            config.agent,
            config.traces,
            None,
        )
    }

    /// A server over a `library` another face holds open too (`docnav serve` shares its own).
    /// With `ask_permits`, an `ask` runs only with a permit: when none is free it is an error
    /// result saying to retry, so the agents of a whole team cannot run more asks at once than
    /// the server allows (the permits are shared with the other faces).
    pub fn over(
        library: Arc<LiveLibrary>,
        model: Result<Arc<dyn ChatModel>, String>,
        agent: AgentOptions,
        traces: bool,
        ask_permits: Option<Arc<Semaphore>>,
    ) -> DocnavServer {
        DocnavServer {
            inner: Arc::new(Inner {
                library,
                model,
                agent,
                traces,
                ask_permits,
            }),
        }
    }

    /// The workspace as it is now: when its catalog is unchanged, the one already open (one
    /// `stat`, on the calling task); otherwise opened again on the blocking pool, since that
    /// reads the catalog and the index and may wait for an index run to commit — the runtime's
    /// threads serve every other call (and, under `docnav serve`, the web pages) meanwhile.
    ///
    /// Errors: as [`LiveLibrary::get`]; a reopen that did not finish is
    /// [`WorkspaceError::Io`].
    async fn opened(&self) -> Result<Opened, WorkspaceError> {
        if let Some(opened) = self.inner.library.get_if_current() {
            return Ok(opened);
        }
        let library = self.inner.library.clone();
        let dir = library.dir().to_path_buf();
        tokio::task::spawn_blocking(move || library.get())
            .await
            .unwrap_or_else(|e| {
                Err(WorkspaceError::Io {
                    path: dir,
                    source: std::io::Error::other(format!("opening the workspace failed: {e}")),
                })
            })
    }

    /// `ask`: the agent, with progress notifications when the call has a progress token, until
    /// it answers or the client cancels the call.
    async fn ask(
        &self,
        arguments: Option<rmcp::model::JsonObject>,
        ws: Arc<Workspace>,
        context: RequestContext<RoleServer>,
    ) -> ToolText {
        let a: AskArgs = match tools::parse("ask", arguments) {
            Ok(a) => a,
            Err(e) => return e,
        };
        if a.question.trim().is_empty() {
            return ToolText::error("ask: the question is empty");
        }
        let model = match &self.inner.model {
            Ok(m) => m.clone(),
            Err(why) => {
                return ToolText::error(format!(
                    "ask: {why}\nhint: the coding agent starts `docnav mcp`: put these variables \
                     in the `env` of its docnav server entry (user guide, docs/src/mcp.md); \
                     search, cat and the other tools work without a model"
                ))
            }
        };
        let mut options = self.inner.agent.clone();
        if let Some(ids) = a.doc_ids {
            options.doc_ids = ids;
        }
        if let Some(n) = a.max_steps {
            options.max_steps = n.max(1);
        }
        if let Some(n) = a.rounds {
            options.rounds = n.max(1);
        }
        if let Some(answer) = a.answer {
            options.answer = answer;
        }
        let ask = Ask {
            trace: self
                .inner
                .traces
                .then(|| TraceDestination::NewIn(ws.traces_dir())),
            catalog: Catalog::workspace(ws),
            model,
            options,
            question: a.question,
            memory: Vec::new(),
            cache: CachePolicy::unless(a.no_cache.unwrap_or(false)),
            permits: self.inner.ask_permits.clone(),
            placement: crate::agent::orchestrator::Placement::local(),
        };
        let (tx, mut rx) = Paced::channel(PROGRESS_LINES_HELD, progress);
        let token = context.meta.get_progress_token();
        let peer = context.peer.clone();
        let forward = tokio::spawn(async move {
            let mut step = 0u32;
            while let Some(line) = rx.recv().await {
                if let Some(token) = &token {
                    step += 1;
                    let param = ProgressNotificationParam::new(token.clone(), f64::from(step))
                        .with_message(line);
                    let _ = peer.notify_progress(param).await;
                }
            }
        });
        let ct = context.ct.clone();
        let outcome = ask_agent(ask, tx, ct.cancelled()).await;
        match outcome {
            Ok(outcome) => {
                // Every step's notification goes out before the result.
                let _ = forward.await;
                ToolText {
                    text: outcome.text,
                    is_error: false,
                    structured: Some(outcome.structured),
                }
            }
            Err(AskFailure::Failed(message)) => {
                let _ = forward.await;
                ToolText::error(message)
            }
            Err(AskFailure::Busy) => {
                let _ = forward.await;
                ToolText::error(
                    "ask: the server is running as many asks as it allows; retry in a few \
                     seconds (search, cat and the other tools answer meanwhile)",
                )
            }
            Err(AskFailure::Cancelled) => {
                forward.abort();
                ToolText::error("ask: cancelled")
            }
        }
    }
}

/// A tool's text as an MCP result: one text block, `isError` for errors, structured content for
/// successes that have one.
fn to_result(t: ToolText) -> CallToolResult {
    let content = vec![ContentBlock::text(t.text)];
    if t.is_error {
        return CallToolResult::error(content);
    }
    let mut result = CallToolResult::success(content);
    result.structured_content = t.structured;
    result
}

impl ServerHandler for DocnavServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(
                Implementation::new("docnav", env!("CARGO_PKG_VERSION")).with_title("docnav"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list().to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if tools::get(&name).is_none() {
            return Err(ErrorData::invalid_params(
                format!("unknown tool '{name}' (tools/list names the tools)"),
                None,
            ));
        }
        let opened = match self.opened().await {
            Ok(opened) => opened,
            Err(e) => return Ok(to_result(ToolText::error(format!("{name}: {e}"))).into()),
        };
        if name == "ask" {
            let out = self.ask(request.arguments, opened.workspace, context).await;
            return Ok(to_result(out).into());
        }
        let arguments = request.arguments;
        let tool = name.clone();
        let out =
            tokio::task::spawn_blocking(move || tools::run_sync(&tool, arguments, opened)).await;
        let out = match out {
            Ok(Some(out)) => out,
            Ok(None) => ToolText::error(format!("{name}: not a tool this server runs")),
            Err(e) => ToolText::error(format!("{name}: internal error: {e}")),
        };
        Ok(to_result(out).into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let ws = match self.opened().await {
            Ok(opened) => opened.workspace,
            // No workspace yet: nothing to list (the tools say what to do).
            Err(WorkspaceError::Missing(_)) => return Ok(ListResourcesResult::default()),
            Err(e) => return Err(ErrorData::internal_error(e.to_string(), None)),
        };
        let cursor = request.and_then(|r| r.cursor);
        let listed =
            tokio::task::spawn_blocking(move || resources::list(ws.as_ref(), cursor.as_deref()))
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let (items, next) = listed.map_err(|e| ErrorData::invalid_params(e, None))?;
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let ws = self
            .opened()
            .await
            .map_err(|e| ErrorData::resource_not_found(e.to_string(), None))?
            .workspace;
        let uri = request.uri;
        let read = tokio::task::spawn_blocking(move || resources::read(ws.as_ref(), &uri))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match read {
            Ok(contents) => Ok(ReadResourceResult::new(vec![contents]).into()),
            Err(ReadError::NotFound(m)) => Err(ErrorData::resource_not_found(m, None)),
            Err(ReadError::Invalid(m)) => Err(ErrorData::invalid_params(m, None)),
        }
    }
}
