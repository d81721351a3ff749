//! The one adapter between the MCP server and the agent: [`ask_agent`] asks the way every face
//! does ([`crate::trace::record::Ask`]: same model, budgets, trace format and reused answers)
//! and turns the answer into text and JSON. When the agent's entry point or its result type
//! changes, this file is the only one in `mcp/` to follow it.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use crate::agent::events::progress_line;
use crate::agent::evidence::render_text;
use crate::agent::{EventRecord, EventSink};
use crate::trace::record::{Ask, AskFailure as RecordFailure};

/// What an `ask` produced.
#[derive(Debug)]
pub struct AskOutcome {
    /// Ranked evidence as `docnav ask` prints it, then one `error: worker … failed` line per
    /// failed Worker and the trace path when there is one.
    pub text: String,
    /// The answer as `docnav ask --json` prints it, plus `"worker_errors"` and `"trace"`.
    pub structured: serde_json::Value,
}

/// How an `ask` ended without an answer.
#[derive(Debug, PartialEq, Eq)]
pub enum AskFailure {
    /// The run failed (model unreachable, unknown document…): the one-line message.
    Failed(String),
    /// Every ask permit was taken: nothing ran.
    Busy,
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

/// Ask `ask` ([`Ask::run`]: a recorded answer to the same question over unchanged documents
/// comes back at once, else the agent runs), until it answers or `cancelled` resolves. Each step
/// goes to `progress` as one line.
///
/// Errors: [`AskFailure::Failed`] when the trace cannot be created or the run fails as a whole;
/// [`AskFailure::Busy`] when no ask permit is free; [`AskFailure::Cancelled`].
pub async fn ask_agent(
    ask: Ask,
    progress: UnboundedSender<String>,
    cancelled: impl Future<Output = ()>,
) -> Result<AskOutcome, AskFailure> {
    let sink: Arc<dyn EventSink> = Arc::new(ProgressLines(progress));
    let outcome = match ask.run(sink, cancelled).await {
        Ok(outcome) => outcome,
        Err(RecordFailure::Cancelled { .. }) => return Err(AskFailure::Cancelled),
        Err(RecordFailure::Busy) => return Err(AskFailure::Busy),
        Err(failure) => {
            let note = failure
                .trace()
                .map(|p| format!(" (trace: `{}`)", p.display()))
                .unwrap_or_default();
            return Err(AskFailure::Failed(format!("{}{note}", failure.message())));
        }
    };
    let trace = outcome.trace().map(|p| p.display().to_string());
    let answer = outcome.answer();
    let worker_errors: Vec<(String, String)> = answer
        .worker_errors
        .iter()
        .map(|f| (f.worker.clone(), f.error.clone()))
        .collect();
    let mut text = render_text(answer);
    for (worker, message) in &worker_errors {
        text.push_str(&format!("error: worker {worker} failed: {message}\n"));
    }
    if let Some(p) = &trace {
        text.push_str(&format!("trace: `{p}`\n"));
    }
    let mut structured = serde_json::to_value(answer).unwrap_or_default();
    if let Some(object) = structured.as_object_mut() {
        let errors: Vec<serde_json::Value> = worker_errors
            .iter()
            .map(|(w, m)| serde_json::json!({"worker": w, "message": m}))
            .collect();
        object.insert("worker_errors".into(), errors.into());
        object.insert("trace".into(), trace.into());
    }
    Ok(AskOutcome { text, structured })
}
