//! `Workspace.ask` underneath: the question asked as every face asks it ([`Ask::run`]: a recorded
//! answer to the same question over unchanged documents comes back at once, else the agent runs
//! and is recorded like `docnav ask`) on a shared tokio runtime, behind a handle Python waits on with the GIL released and can cancel
//! (Ctrl-C in Python, or an asyncio task's cancellation) — the trace is finished either way.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use pyo3::prelude::*;
use tokio::sync::oneshot;

use docnav::agent::{AgentError, AgentOptions, NullSink};
use docnav::llm::{ChatModel, ModelConfig, ModelEnv, ModelFlags, OpenAiCompatible};
use docnav::trace::record::{
    Ask, AskError, AskFailure, CachePolicy, Catalog, Outcome, TraceDestination,
};
use docnav::workspace::Workspace;

use crate::errors::{Error, SETTING_NAMES};
use crate::results::Answer;

/// The runtime every `ask` of this process runs on (created on the first ask).
pub(crate) fn runtime() -> PyResult<&'static tokio::runtime::Runtime> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("docnav-ask")
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| Error::Other(format!("cannot start the async runtime: {e}")).into())
}

/// The model settings of an `ask`: the CLI's model flags, as keyword arguments.
pub struct ModelKnobs {
    /// Model name (else `DOCNAV_MODEL`).
    pub model: Option<String>,
    /// API base URL (else `OPENAI_BASE_URL`).
    pub base_url: Option<String>,
    /// API key (else `OPENAI_API_KEY`).
    pub api_key: Option<String>,
    /// Per-request timeout in seconds (`--timeout`; default 60).
    pub timeout: Option<f64>,
    /// Retries on 429/5xx/timeouts (`--retries`; default 3).
    pub retries: Option<u32>,
    /// Concurrent model requests (`--max-requests`; default 4).
    pub max_requests: Option<usize>,
    /// Send `response_format` json_schema (`False` is `--no-json-schema`).
    pub json_schema: bool,
}

/// The agent budgets of an `ask`: the CLI's agent flags (and the two it has no flag for,
/// `concurrency` and `output_budget`), as keyword arguments.
pub struct AgentKnobs {
    /// Commands per Worker (`--max-steps`).
    pub max_steps: usize,
    /// Dispatch rounds (`--rounds`).
    pub rounds: usize,
    /// DocCards shown to the model (`--max-cards`, at most the pre-rank's depth).
    pub max_cards: usize,
    /// Documents (Workers) per round (`--max-docs`).
    pub max_docs: usize,
    /// Workers running at once.
    pub concurrency: usize,
    /// Evidence chars a Worker may collect (`--evidence-chars`).
    pub evidence_chars: usize,
    /// Cap on every prompt in estimated tokens (`--prompt-cap`, at least 1,000).
    pub prompt_cap: usize,
    /// Per-command output budget in chars.
    pub output_budget: usize,
    /// Write a verified answer (`--answer`).
    pub answer: bool,
}

/// What an `ask` needs.
pub struct AskRequest {
    /// The workspace as opened when the ask started.
    pub library: Arc<Workspace>,
    /// The question.
    pub question: String,
    /// Which model, and how to talk to it.
    pub model: ModelKnobs,
    /// The agent's budgets.
    pub agent: AgentKnobs,
    /// Only these documents (skips analysis), as `--doc`.
    pub doc_ids: Vec<String>,
    /// Record the trace to this file.
    pub trace: Option<PathBuf>,
    /// Record the trace as a new file in this folder.
    pub trace_dir: Option<PathBuf>,
    /// Ask the model afresh even when the same question was answered over unchanged documents.
    pub no_cache: bool,
}

/// The agent options of `knobs` and `doc_ids`, each brought into its range as the CLI does
/// ([`AgentOptions::within_limits`], as the CLI).
pub(crate) fn agent_options(knobs: &AgentKnobs, doc_ids: Vec<String>) -> AgentOptions {
    AgentOptions {
        max_steps: knobs.max_steps,
        rounds: knobs.rounds,
        max_cards: knobs.max_cards,
        max_docs: knobs.max_docs,
        concurrency: knobs.concurrency,
        evidence_chars: knobs.evidence_chars,
        prompt_cap_tokens: knobs.prompt_cap,
        output_budget: knobs.output_budget,
        doc_ids,
        answer: knobs.answer,
    }
    .within_limits()
}

/// The model for the request: arguments first, then the CLI's environment variables. Errors:
/// `ModelError` when no model is configured (the message says what to set) or the settings are
/// invalid (a timeout that is not a positive number of seconds, `max_requests` 0).
pub(crate) fn connect(knobs: &ModelKnobs) -> Result<Arc<dyn ChatModel>, Error> {
    let timeout = match knobs.timeout {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s.max(0.001))),
        Some(s) => {
            return Err(Error::Model(format!(
                "timeout must be a positive number of seconds, not {s}"
            )))
        }
    };
    let flags = ModelFlags {
        model: knobs.model.clone(),
        base_url: knobs.base_url.clone(),
        timeout,
        max_retries: knobs.retries,
        concurrency: knobs.max_requests,
        json_schema: (!knobs.json_schema).then_some(false),
    };
    let mut env = ModelEnv::from_process();
    if let Some(key) = &knobs.api_key {
        env.openai_api_key = Some(key.clone());
    }
    let config = ModelConfig::resolve(&flags, &env)?;
    Ok(Arc::new(OpenAiCompatible::new(config)?))
}

/// How a run ended.
pub(crate) enum Ended {
    Answered(Box<docnav::agent::evidence::Answer>, Option<String>),
    Model(String),
    Failed(String),
    Cancelled(Option<PathBuf>),
    /// A Python callable the run called raised this (a shard that died during the ranking).
    Raised(PyErr),
}

#[derive(Default)]
struct Shared {
    ended: Mutex<Option<Ended>>,
    signal: Condvar,
}

/// A running (or finished) `ask`.
#[pyclass(module = "docnav._native", frozen)]
pub struct AskHandle {
    shared: Arc<Shared>,
    cancel: Mutex<Option<oneshot::Sender<()>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Start the run. Errors: `ModelError` without a model or with invalid model settings;
/// `DocnavError` when the runtime cannot start.
pub fn start_ask(request: AskRequest) -> PyResult<AskHandle> {
    let model = connect(&request.model)?;
    let options = agent_options(&request.agent, request.doc_ids.clone());
    let trace = match (&request.trace, &request.trace_dir) {
        (Some(file), _) => Some(TraceDestination::File(file.clone())),
        (None, Some(dir)) => Some(TraceDestination::NewIn(dir.clone())),
        (None, None) => None,
    };
    let ask = Ask {
        catalog: Catalog::workspace(request.library.clone()),
        model,
        options,
        question: request.question.clone(),
        memory: Vec::new(),
        trace,
        cache: CachePolicy::unless(request.no_cache),
        permits: None,
        placement: docnav::agent::orchestrator::Placement::local(),
    };
    spawn_run(move |cancelled| async move { ended(ask.run(Arc::new(NullSink), cancelled).await) })
}

/// How a run that ended with `result` ended.
pub(crate) fn ended(result: Result<Outcome, AskFailure>) -> Ended {
    match result {
        Ok(outcome) => Ended::Answered(
            Box::new(outcome.answer().clone()),
            outcome.trace().map(|p| p.display().to_string()),
        ),
        Err(AskFailure::Cancelled { trace }) => Ended::Cancelled(trace),
        Err(failure) => {
            let note = failure
                .trace()
                .map(|p| format!(" (trace: `{}`)", p.display()))
                .unwrap_or_default();
            match &failure {
                AskFailure::Failed {
                    error: AskError::Agent(AgentError::Llm(e)),
                    ..
                } => Ended::Model(format!("ask: {}{note}", e.message(&SETTING_NAMES))),
                _ if failure.model_failed() => Ended::Model(format!("{}{note}", failure.message())),
                _ => Ended::Failed(format!("{}{note}", failure.message())),
            }
        }
    }
}

/// Start `run` (given the future that resolves when the handle is cancelled) on the shared
/// runtime, behind a handle. Errors: `DocnavError` when the runtime cannot start.
pub(crate) fn spawn_run<F, R>(run: R) -> PyResult<AskHandle>
where
    R: FnOnce(std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>) -> F,
    F: std::future::Future<Output = Ended> + Send + 'static,
{
    let shared = Arc::new(Shared::default());
    let (cancel_tx, cancel_rx) = oneshot::channel::<()>();
    let cancelled = Box::pin(async move {
        // A dropped handle (the sender gone) is not a cancellation: the run finishes.
        if cancel_rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    });
    let done = shared.clone();
    let future = run(cancelled);
    runtime()?.spawn(async move {
        let ended = future.await;
        *lock(&done.ended) = Some(ended);
        done.signal.notify_all();
    });
    Ok(AskHandle {
        shared,
        cancel: Mutex::new(Some(cancel_tx)),
    })
}

#[pymethods]
impl AskHandle {
    /// Wait until the run ends, at most `timeout` seconds (`None`: until it ends), with the GIL
    /// released. Returns whether it has ended.
    #[pyo3(signature = (timeout = None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> bool {
        let shared = self.shared.clone();
        py.detach(move || {
            let mut ended = lock(&shared.ended);
            let deadline =
                timeout.map(|t| std::time::Instant::now() + Duration::from_secs_f64(t.max(0.0)));
            while ended.is_none() {
                match deadline {
                    None => {
                        ended = match shared.signal.wait(ended) {
                            Ok(g) => g,
                            Err(p) => p.into_inner(),
                        }
                    }
                    Some(deadline) => {
                        let now = std::time::Instant::now();
                        if now >= deadline {
                            return false;
                        }
                        ended = match shared.signal.wait_timeout(ended, deadline - now) {
                            Ok((g, _)) => g,
                            Err(p) => p.into_inner().0,
                        };
                    }
                }
            }
            true
        })
    }

    /// Stop the run: its in-flight model request is dropped and its trace finished (a valid
    /// prefix). `wait` returns soon after; `result` then raises `KeyboardInterrupt`-free
    /// `DocnavError("ask: cancelled …")`. Cancelling an ended run does nothing.
    fn cancel(&self) {
        if let Some(tx) = lock(&self.cancel).take() {
            let _ = tx.send(());
        }
    }

    /// Whether the run has ended.
    fn done(&self) -> bool {
        lock(&self.shared.ended).is_some()
    }

    /// The answer (what `docnav ask --json` prints, with the trace file when one was recorded). Errors: `ModelError` when the
    /// model failed; `WorkspaceError`/`DocnavError` for other failures; `DocnavError` when it was
    /// cancelled or has not ended yet.
    fn result(&self, py: Python<'_>) -> PyResult<Answer> {
        match &*lock(&self.shared.ended) {
            None => {
                Err(Error::Other("ask: the run has not ended (call wait() first)".into()).into())
            }
            Some(Ended::Answered(answer, trace)) => Answer::of(py, answer, trace.clone()),
            Some(Ended::Model(message)) => Err(Error::Model(message.clone()).into()),
            Some(Ended::Failed(message)) => Err(Error::Workspace(message.clone()).into()),
            Some(Ended::Raised(err)) => Err(err.clone_ref(py)),
            Some(Ended::Cancelled(trace)) => Err(Error::Other(format!(
                "ask: cancelled{}",
                trace
                    .as_ref()
                    .map(|p| format!("; trace so far in `{}`", p.display()))
                    .unwrap_or_default()
            ))
            .into()),
        }
    }
}
