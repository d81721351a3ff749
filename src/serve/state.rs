//! What every handler shares: one `Arc` of the opened workspace, the model, the agent budgets,
//! the ask limit and the guard's secrets.

use std::ops::Deref;
use std::sync::Arc;

use tokio::sync::Semaphore;

use super::auth::Auth;
use super::traces::TraceCatalog;
use crate::agent::AgentOptions;
use crate::llm::ChatModel;
use crate::nav::live::LiveLibrary;

/// Everything the server needs, resolved by the command line (`src/cli/serve.rs`).
pub struct ServeConfig {
    /// The workspace, opened on first use and reopened when `docnav index` commits.
    pub library: Arc<LiveLibrary>,
    /// The model for `ask`, or the one-line reason there is none (the Ask page and the API show
    /// it with what to set).
    pub model: Result<Arc<dyn ChatModel>, String>,
    /// Agent budgets (the `docnav ask` flags); a request may lower `max_steps` and `rounds`.
    pub agent: AgentOptions,
    /// Permits for running asks, `max_asks` of them (shared with MCP's `ask` when mounted); one
    /// more ask gets 429 with `Retry-After`.
    pub ask_permits: Arc<Semaphore>,
    /// The number of permits.
    pub max_asks: usize,
    /// Record every `ask` as a trace in the workspace's `traces/` (the Ask page links to it).
    pub record_traces: bool,
    /// The bearer token every request needs, if any.
    pub token: Option<String>,
    /// Host names (without port) a request may name when there is no token: the loopback names
    /// and the bound address.
    pub allowed_hosts: Vec<String>,
}

/// The shared state (cheap to clone).
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

/// The fields of [`AppState`].
pub struct Inner {
    /// The workspace.
    pub library: Arc<LiveLibrary>,
    /// The model for `ask`, or why there is none.
    pub model: Result<Arc<dyn ChatModel>, String>,
    /// Agent budgets.
    pub agent: AgentOptions,
    /// Permits for running asks.
    pub asks: Arc<Semaphore>,
    /// The number of permits.
    pub max_asks: usize,
    /// Whether asks are recorded.
    pub record_traces: bool,
    /// Token and cookie checks.
    pub auth: Auth,
    /// Summaries of the trace files, cached by modification time and length.
    pub traces: TraceCatalog,
}

impl AppState {
    /// The state for `config`.
    pub fn new(config: ServeConfig) -> AppState {
        AppState(Arc::new(Inner {
            library: config.library,
            model: config.model,
            agent: config.agent,
            asks: config.ask_permits,
            max_asks: config.max_asks,
            record_traces: config.record_traces,
            auth: Auth::new(config.token, config.allowed_hosts),
            traces: TraceCatalog::default(),
        }))
    }
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}
