//! `Workspace.ask` underneath: the agent run on a shared tokio runtime, recorded like `docnav ask`
//! ([`ask_recorded`]), behind a handle Python waits on with the GIL released and can cancel
//! (Ctrl-C in Python, or an asyncio task's cancellation) — the trace is finished either way.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use pyo3::prelude::*;
use tokio::sync::oneshot;

use docnav::agent::{AgentOptions, NullSink};
use docnav::llm::{ChatModel, ModelConfig, ModelEnv, ModelFlags, OpenAiCompatible};
use docnav::trace::record::{ask_recorded, AskFailure, Asked, TraceDestination};
use docnav::workspace::{Library, Workspace};

use crate::errors;

/// The runtime every `ask` of this process runs on (created on the first ask).
fn runtime() -> PyResult<&'static tokio::runtime::Runtime> {
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
        .map_err(|e| errors::other(format!("cannot start the async runtime: {e}")))
}

/// What an `ask` needs.
pub struct AskRequest {
    /// The workspace as opened when the ask started.
    pub library: Arc<Workspace>,
    /// The question.
    pub question: String,
    /// Model name (else `DOCNAV_MODEL`).
    pub model: Option<String>,
    /// API base URL (else `OPENAI_BASE_URL`).
    pub base_url: Option<String>,
    /// API key (else `OPENAI_API_KEY`).
    pub api_key: Option<String>,
    /// Only these documents (skips analysis), as `--doc`.
    pub doc_ids: Vec<String>,
    /// Record the trace to this file.
    pub trace: Option<PathBuf>,
    /// Record the trace as a new file in this folder.
    pub trace_dir: Option<PathBuf>,
    /// Agent options as a JSON object (`{"max_steps": 8}`), keys as [`AgentOptions`]' fields.
    pub options_json: Option<String>,
}

/// Agent options from a JSON object; unknown keys are an error (a misspelt option never passes
/// silently). Errors: `ValueError` naming the key, or the JSON error.
fn agent_options(json: Option<&str>, doc_ids: Vec<String>) -> PyResult<AgentOptions> {
    let value_error = pyo3::exceptions::PyValueError::new_err;
    let mut options = match json {
        None => AgentOptions::default(),
        Some(text) => {
            let given: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(text).map_err(|e| value_error(e.to_string()))?;
            // Every field serialized: `answer` is left out of the JSON when off.
            let every_field = AgentOptions {
                answer: true,
                ..AgentOptions::default()
            };
            let known =
                serde_json::to_value(every_field).map_err(|e| value_error(e.to_string()))?;
            for key in given.keys() {
                if key == "doc_ids" || known.get(key).is_none() {
                    let mut names: Vec<&String> = known
                        .as_object()
                        .map(|o| o.keys().filter(|k| *k != "doc_ids").collect())
                        .unwrap_or_default();
                    names.sort();
                    let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "ask() got an unknown agent option '{key}' (known: {})",
                        names.join(", ")
                    )));
                }
            }
            let options: AgentOptions = serde_json::from_value(serde_json::Value::Object(given))
                .map_err(|e| value_error(format!("agent options: {e}")))?;
            options
        }
    };
    options.doc_ids = doc_ids;
    options.max_steps = options.max_steps.max(1);
    options.rounds = options.rounds.max(1);
    options.max_cards = options
        .max_cards
        .clamp(1, docnav::agent::orchestrator::PRE_RANK_DOCS);
    options.max_docs = options.max_docs.max(1);
    options.concurrency = options.concurrency.max(1);
    options.evidence_chars = options.evidence_chars.max(1);
    options.prompt_cap_tokens = options.prompt_cap_tokens.max(1_000);
    options.output_budget = options.output_budget.max(1);
    Ok(options)
}

/// The model for the request: arguments first, then the CLI's environment variables. Errors:
/// `ModelError` when no model is configured (the message says what to set) or the settings are
/// invalid.
fn connect(request: &AskRequest) -> PyResult<Arc<dyn ChatModel>> {
    let flags = ModelFlags {
        model: request.model.clone(),
        base_url: request.base_url.clone(),
        ..ModelFlags::default()
    };
    let mut env = ModelEnv::from_process();
    if let Some(key) = &request.api_key {
        env.openai_api_key = Some(key.clone());
    }
    let config = ModelConfig::resolve(&flags, &env).map_err(errors::model)?;
    Ok(Arc::new(
        OpenAiCompatible::new(config).map_err(errors::model)?,
    ))
}

/// How a run ended.
enum Ended {
    Answered(String),
    Model(String),
    Failed(String),
    Cancelled(Option<PathBuf>),
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

/// Start the run. Errors: `ModelError` without a model; `ValueError`/`TypeError` for bad agent
/// options; `DocnavError` when the runtime cannot start.
pub fn start_ask(request: AskRequest) -> PyResult<AskHandle> {
    let model = connect(&request)?;
    let options = agent_options(request.options_json.as_deref(), request.doc_ids.clone())?;
    let trace = match (&request.trace, &request.trace_dir) {
        (Some(file), _) => Some(TraceDestination::File(file.clone())),
        (None, Some(dir)) => Some(TraceDestination::NewIn(dir.clone())),
        (None, None) => None,
    };
    let shared = Arc::new(Shared::default());
    let (cancel_tx, cancel_rx) = oneshot::channel::<()>();
    let library: Arc<dyn Library> = request.library.clone();
    let question = request.question.clone();
    let done = shared.clone();
    runtime()?.spawn(async move {
        let cancelled = async move {
            // A dropped handle (the sender gone) is not a cancellation: the run finishes.
            if cancel_rx.await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        let result = ask_recorded(
            library,
            model,
            &options,
            Asked::alone(&question),
            Arc::new(NullSink),
            trace,
            cancelled,
        )
        .await;
        let ended = match result {
            Ok(done) => {
                let mut value = match serde_json::to_value(&done.run.answer) {
                    Ok(v) => v,
                    Err(e) => serde_json::json!({ "error": e.to_string() }),
                };
                if let Some(obj) = value.as_object_mut() {
                    obj.insert(
                        "trace".into(),
                        done.trace
                            .map(|p| serde_json::Value::String(p.display().to_string()))
                            .unwrap_or(serde_json::Value::Null),
                    );
                }
                Ended::Answered(value.to_string())
            }
            Err(AskFailure::Failed {
                message,
                model_failed,
                trace,
            }) => {
                let note = trace
                    .map(|p| format!(" (trace: `{}`)", p.display()))
                    .unwrap_or_default();
                if model_failed {
                    Ended::Model(format!("{message}{note}"))
                } else {
                    Ended::Failed(format!("{message}{note}"))
                }
            }
            Err(AskFailure::Cancelled { trace }) => Ended::Cancelled(trace),
        };
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

    /// The answer as JSON (`docnav ask --json` plus `"trace"`). Errors: `ModelError` when the
    /// model failed; `WorkspaceError`/`DocnavError` for other failures; `DocnavError` when it was
    /// cancelled or has not ended yet.
    fn result(&self) -> PyResult<String> {
        match &*lock(&self.shared.ended) {
            None => Err(errors::other(
                "ask: the run has not ended (call wait() first)",
            )),
            Some(Ended::Answered(json)) => Ok(json.clone()),
            Some(Ended::Model(message)) => Err(errors::ModelError::new_err(message.clone())),
            Some(Ended::Failed(message)) => Err(errors::WorkspaceError::new_err(message.clone())),
            Some(Ended::Cancelled(trace)) => Err(errors::other(format!(
                "ask: cancelled{}",
                trace
                    .as_ref()
                    .map(|p| format!("; trace so far in `{}`", p.display()))
                    .unwrap_or_default()
            ))),
        }
    }
}
