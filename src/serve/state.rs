//! What every handler shares: one `Arc` of the opened workspace, the model, the agent budgets,
//! the ask limit and the guard's secrets.

use std::ops::Deref;
use std::sync::Arc;

use tokio::sync::Semaphore;

use super::auth::Auth;
use super::error::ApiError;
use super::search_cache::SearchCache;
use crate::agent::AgentOptions;
use crate::llm::ChatModel;
use crate::nav::live::{LiveLibrary, Opened};
use crate::trace::folder::{TraceCatalog, UploadLimits};

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
    /// How many uploaded traces are kept, and their bytes.
    pub uploads: UploadLimits,
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
    /// Bounds on uploaded traces.
    pub uploads: UploadLimits,
    /// Token and cookie checks (shared with the guard).
    pub auth: Arc<Auth>,
    /// Summaries of the trace files, cached by modification time and length.
    pub traces: TraceCatalog,
    /// Permits for blocking work ([`work_permits`] of them).
    pub work: Arc<Semaphore>,
    /// Search answers of the current index generation.
    pub searches: SearchCache,
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
            uploads: config.uploads,
            auth: Arc::new(Auth::new(config.token, config.allowed_hosts)),
            traces: TraceCatalog::default(),
            work: Arc::new(Semaphore::new(work_permits())),
            searches: SearchCache::default(),
        }))
    }
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    /// The workspace as it is now: when its catalog is unchanged, the one already open (one
    /// `stat`, on the calling task); otherwise opened again off the runtime (it reads the
    /// catalog and the index).
    ///
    /// Errors: 503 without a workspace (`no_workspace`); 500 for a damaged one.
    pub async fn opened(&self) -> Result<Opened, ApiError> {
        if let Some(opened) = self.library.get_if_current() {
            return Ok(opened);
        }
        let library = self.library.clone();
        self.blocking(move || library.get().map_err(ApiError::from))
            .await
    }

    /// Run `work` (it reads trees and scans text) on tokio's blocking pool once one of
    /// [`work_permits`] is free, so a burst of requests queues instead of starting hundreds of
    /// threads that each hold a request's memory; a panic in it (a bug) is a 500, not a dead
    /// server.
    pub async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let permit = self
            .work
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ApiError::internal(format!("internal error: {e}")))?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work()
        })
        .await
        .map_err(|e| ApiError::internal(format!("internal error: {e}")))?
    }
}

/// Blocking jobs (searches, section reads, replays) that run at once: two per core. More would
/// not finish sooner on a CPU-bound machine, only hold more memory.
pub fn work_permits() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()) * 2
}
