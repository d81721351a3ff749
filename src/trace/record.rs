//! One `ask` run on someone else's behalf and recorded: what the MCP server and `docnav serve`
//! do for each question. [`ask_recorded`] runs [`crate::agent::ask`] as `docnav ask` does (same
//! model, budgets and trace format), feeds every event to the caller's sink as it happens, and
//! stops when the caller's cancellation resolves — the trace is finished (a valid prefix) in
//! every case.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use super::{TraceHeader, TraceWriter};
use crate::agent::events::FanOut;
use crate::agent::followup::Turn;
use crate::agent::{AgentOptions, AgentRun, EventSink, SharedModel};
use crate::llm::ChatModel;
use crate::workspace::Library;

/// A finished run and where its trace is.
#[derive(Debug)]
pub struct RecordedRun {
    /// The agent's result: ranked evidence, verdict, failed Workers.
    pub run: AgentRun,
    /// The trace file, when one was written.
    pub trace: Option<PathBuf>,
    /// When the run started (its trace header's time), ms since the Unix epoch.
    pub started_unix_ms: u64,
}

/// How a recorded `ask` ended without an answer.
#[derive(Debug)]
pub enum AskFailure {
    /// The run failed as a whole (model unreachable after retries, unknown document, the trace
    /// could not be created): the one-line message, and the trace so far.
    Failed {
        /// One line, starting with `ask: `.
        message: String,
        /// Whether the model was what failed (not configured, unreachable, garbage replies), as
        /// opposed to the workspace or the trace: the Python package raises `ModelError` for it.
        model_failed: bool,
        /// The trace file, when one was written.
        trace: Option<PathBuf>,
    },
    /// The cancellation resolved first; the run was dropped (its in-flight model request with
    /// it).
    Cancelled {
        /// The trace file (a valid prefix of the run), when one was written.
        trace: Option<PathBuf>,
    },
}

impl AskFailure {
    /// The trace file of the failed or cancelled run, when one was written.
    pub fn trace(&self) -> Option<&PathBuf> {
        match self {
            AskFailure::Failed { trace, .. } | AskFailure::Cancelled { trace } => trace.as_ref(),
        }
    }
}

/// Where a recorded run's trace goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceDestination {
    /// This file, created or overwritten (`docnav ask --trace FILE`, Python's `trace="x.jsonl"`).
    File(PathBuf),
    /// A new `<time>-<question>.jsonl` in this folder, never an existing file
    /// ([`TraceWriter::create_in`]: a run of the same question in the same second gets its own
    /// `-2` file) — a workspace's `traces/`, `DOCNAV_TRACE_DIR`.
    NewIn(PathBuf),
}

/// A question and the conversation it is asked in.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// The question as asked.
    pub question: &'a str,
    /// Earlier turns, oldest first (empty: the question stands alone).
    pub memory: &'a [Turn],
}

impl<'a> Asked<'a> {
    /// `question` asked on its own.
    pub fn alone(question: &'a str) -> Asked<'a> {
        Asked {
            question,
            memory: &[],
        }
    }
}

/// Run the agent on `asked.question` over `library` with `model` and `options`, until it answers or
/// `cancelled` resolves. With earlier turns in `asked.memory` (a conversation), the question is first
/// rewritten to stand alone ([`crate::agent::ask_in_conversation`]); the trace records the
/// memory. Every event goes to `sink` as it happens; with a `trace` destination,
/// the run is also recorded there ([`TraceDestination`]).
///
/// Errors: [`AskFailure::Failed`] when the trace cannot be created or the run fails as a whole;
/// [`AskFailure::Cancelled`].
pub async fn ask_recorded(
    library: Arc<dyn Library>,
    model: Arc<dyn ChatModel>,
    options: &AgentOptions,
    asked: Asked<'_>,
    sink: Arc<dyn EventSink>,
    trace: Option<TraceDestination>,
    cancelled: impl Future<Output = ()>,
) -> Result<RecordedRun, AskFailure> {
    let Asked { question, memory } = asked;
    let unix_ms = super::now_unix_ms();
    let writer = match trace {
        Some(destination) => {
            let header = TraceHeader::for_run(
                library.as_ref(),
                question,
                model.model_id(),
                options,
                unix_ms,
            )
            .with_memory(memory);
            let created = match &destination {
                TraceDestination::File(path) => TraceWriter::create(path, &header),
                TraceDestination::NewIn(dir) => TraceWriter::create_in(dir, &header),
            };
            match created {
                Ok(w) => Some(Arc::new(w)),
                Err(e) => {
                    return Err(AskFailure::Failed {
                        message: format!("ask: {e}"),
                        model_failed: false,
                        trace: None,
                    })
                }
            }
        }
        None => None,
    };
    let mut sinks: Vec<Arc<dyn EventSink>> = vec![sink];
    if let Some(w) = &writer {
        sinks.push(w.clone());
    }
    let sink: Arc<dyn EventSink> = Arc::new(FanOut(sinks));
    let run = crate::agent::ask_in_conversation(
        library,
        Arc::new(SharedModel(model)),
        sink,
        options,
        memory,
        question,
    );
    let result = tokio::select! {
        biased;
        _ = cancelled => None,
        result = run => Some(result),
    };
    let trace = match writer {
        Some(w) => {
            let path = w.path().to_path_buf();
            let _ = tokio::task::spawn_blocking(move || w.finish()).await;
            Some(path)
        }
        None => None,
    };
    match result {
        None => Err(AskFailure::Cancelled { trace }),
        Some(Err(e)) => Err(AskFailure::Failed {
            message: format!("ask: {e}"),
            model_failed: matches!(e, crate::agent::AgentError::Llm(_)),
            trace,
        }),
        Some(Ok(run)) => Ok(RecordedRun {
            run,
            trace,
            started_unix_ms: unix_ms,
        }),
    }
}
