//! The one adapter between the MCP server and the agent: [`ask_agent`] runs
//! [`crate::agent::ask`] the way `docnav ask` does (same model, same budgets, same trace format)
//! and turns its run into text and JSON. When the agent's entry point or its result type
//! changes, this file is the only one in `mcp/` to follow it.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use crate::agent::events::progress_line;
use crate::agent::evidence::render_text;
use crate::agent::{AgentOptions, EventRecord, EventSink};
use crate::llm::ChatModel;
use crate::trace::record::{
    ask_recorded, AskFailure as RecordFailure, Asked, RecordedRun, TraceDestination,
};
use crate::workspace::Library;

/// What an `ask` produced.
#[derive(Debug)]
pub struct AskOutcome {
    /// Ranked evidence as `docnav ask` prints it, then one `error: worker … failed` line per
    /// failed Worker and the trace path when one was written.
    pub text: String,
    /// The answer as `docnav ask --json` prints it, plus `"worker_errors"` and `"trace"`.
    pub structured: serde_json::Value,
}

/// How an `ask` ended without an answer.
#[derive(Debug, PartialEq, Eq)]
pub enum AskFailure {
    /// The run failed (model unreachable, unknown document…): the one-line message.
    Failed(String),
    /// `cancelled` resolved first; the run was dropped (its in-flight model request with it).
    Cancelled,
}

/// Sends one line per agent step (`[r1-w1-guide] $ cat 2.1`) down a channel: the server turns
/// each into a progress notification.
struct ProgressLines(UnboundedSender<String>);

impl EventSink for ProgressLines {
    fn record(&self, r: EventRecord) {
        if let Some(line) = progress_line(&r) {
            let _ = self.0.send(format!("[{}] {line}", r.actor));
        }
    }
}

/// Run the agent on `question` over `library` with `model`, until it answers or `cancelled`
/// resolves ([`ask_recorded`]). Each step goes to `progress` as one line; with `trace_dir`, the
/// run is recorded to `trace_dir/<time>-<question>.jsonl` (finished, so a valid prefix, also when
/// cancelled).
///
/// Errors: [`AskFailure::Failed`] when the trace cannot be created or the run fails as a whole;
/// [`AskFailure::Cancelled`].
pub async fn ask_agent(
    library: Arc<dyn Library>,
    model: Arc<dyn ChatModel>,
    options: AgentOptions,
    question: &str,
    progress: UnboundedSender<String>,
    trace_dir: Option<PathBuf>,
    cancelled: impl Future<Output = ()>,
) -> Result<AskOutcome, AskFailure> {
    let sink: Arc<dyn EventSink> = Arc::new(ProgressLines(progress));
    let recorded = ask_recorded(
        library,
        model,
        &options,
        Asked::alone(question),
        sink,
        trace_dir.map(TraceDestination::NewIn),
        cancelled,
    )
    .await;
    let RecordedRun { run, trace, .. } = match recorded {
        Ok(recorded) => recorded,
        Err(RecordFailure::Cancelled { .. }) => return Err(AskFailure::Cancelled),
        Err(RecordFailure::Failed { message, trace, .. }) => {
            let note = trace
                .map(|p| format!(" (trace: `{}`)", p.display()))
                .unwrap_or_default();
            return Err(AskFailure::Failed(format!("{message}{note}")));
        }
    };
    let trace = trace.map(|p| p.display().to_string());
    let mut text = render_text(&run.answer);
    for (worker, message) in &run.worker_errors {
        text.push_str(&format!("error: worker {worker} failed: {message}\n"));
    }
    if let Some(p) = &trace {
        text.push_str(&format!("trace: `{p}`\n"));
    }
    let mut structured = serde_json::to_value(&run.answer).unwrap_or_default();
    if let Some(object) = structured.as_object_mut() {
        let errors: Vec<serde_json::Value> = run
            .worker_errors
            .iter()
            .map(|(w, m)| serde_json::json!({"worker": w, "message": m}))
            .collect();
        object.insert("worker_errors".into(), errors.into());
        object.insert("trace".into(), trace.into());
    }
    Ok(AskOutcome { text, structured })
}
