//! The one adapter between the MCP server and the agent: [`ask_agent`] asks the way every face
//! does ([`crate::trace::record::Ask`]: same model, budgets, trace format and reused answers)
//! and turns the answer into text and JSON. When the agent's entry point or its result type
//! changes, this file is the only one in `mcp/` to follow it.

use std::future::Future;
use std::sync::Arc;

use crate::agent::evidence::render_text;
use crate::agent::paced::Paced;
use crate::agent::steps::progress_line;
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

/// Progress notifications an ask holds for a client that reads slowly before the run waits for
/// it (before its next model call; see [`Paced`]).
pub const PROGRESS_LINES_HELD: usize = 64;

/// One line per agent step (`[r1-w1-guide] $ cat 2.1`), `None` for events not shown: the server
/// turns each into a progress notification.
pub fn progress(r: &EventRecord) -> Option<String> {
    progress_line(r).map(|line| format!("[{}] {line}", r.actor))
}

/// Ask `ask` ([`Ask::run`]: a recorded answer to the same question over unchanged documents
/// comes back at once, else the agent runs), until it answers or `cancelled` resolves. Each step
/// goes to `progress` as one line ([`progress`]); a client reading them slowly slows the run.
///
/// Errors: [`AskFailure::Failed`] when the trace cannot be created, the run fails as a whole or
/// its answer cannot be serialised;
/// [`AskFailure::Busy`] when no ask permit is free; [`AskFailure::Cancelled`].
pub async fn ask_agent(
    ask: Ask,
    progress: Arc<Paced<String>>,
    cancelled: impl Future<Output = ()>,
) -> Result<AskOutcome, AskFailure> {
    let sink: Arc<dyn EventSink> = progress.clone();
    let outcome = ask.run(sink, cancelled).await;
    if !matches!(outcome, Err(RecordFailure::Cancelled { .. })) {
        // The last steps may still wait in the queue: they go out before the result.
        progress.drain().await;
    }
    let outcome = match outcome {
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
    let mut structured = serde_json::to_value(answer)
        .map_err(|e| AskFailure::Failed(format!("ask: the answer could not be serialised: {e}")))?;
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
