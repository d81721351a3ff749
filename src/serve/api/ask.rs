//! `POST /ask`: the agent over HTTP, live.
//!
//! With `Accept: text/event-stream` the answer is a Server-Sent Events stream: one `step` event
//! per thing the agent does ([`Step`]: a Worker starts, a command and a one-line
//! observation, evidence collected, a model call's tokens and latency, a decision with its
//! label, as the trace's timeline shows it), then `answer` (exactly what `docnav ask --json`
//! prints) and `done` (`{"trace", "reader_links", "turn"}`: the trace's name, per evidence item
//! its place in the Reader with the span marked, and the turn to send back in `memory` with a
//! follow-up), or `error` (`{"error","detail","trace"}`). Without
//! it the response is the `ask --json` object once the run ends. Closing the connection cancels
//! the run (its trace keeps what happened).
//!
//! `memory` (the `turn` of each earlier `done`, oldest first) makes the question a follow-up,
//! rewritten to stand alone before the run; `answer: true` adds the verified written
//! answer (`docnav ask --answer`).
//!
//! A question asked on its own (no `memory`) whose answer was recorded over unchanged documents
//! comes back at once from that trace, marked `from_trace` ([`crate::trace::cache`]; with
//! `--no-traces` too, as the MCP `ask` tool beside it: the server then keeps none of its own
//! runs, [`CachePolicy`]); `no_cache: true` asks afresh.
//!
//! `lexical: true` runs the model-free BM25 navigator instead (a labelled baseline, never a
//! fallback). Without a model the agent answers 503 with what to set; beyond `max_asks` running
//! asks, 429 with `Retry-After`.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt as _;

use super::ApiJson;
use crate::agent::evidence::{render, Answer, AnswerFormat};
use crate::agent::followup::{Conversation, Turn};
use crate::agent::lexical::{ask_lexical, DEFAULT_K};
use crate::agent::paced::Paced;
use crate::agent::steps::Step;
use crate::agent::{EventRecord, NullSink};
use crate::serve::error::ApiError;
use crate::serve::links::evidence_link;
use crate::serve::state::AppState;
use crate::trace::record::{Ask, AskFailure, CachePolicy, Catalog, Started, TraceDestination};
use crate::workspace::Library;

/// Longest question, in chars.
pub const MAX_QUESTION_CHARS: usize = 2_000;

/// Seconds a client is told to wait after a 429.
pub const RETRY_AFTER_SECS: u64 = 10;

/// Events a stream holds for a client that reads slowly before the run waits for it (before its
/// next model call; see [`Paced`]).
pub const STREAM_EVENTS_HELD: usize = 64;

/// The request.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    /// The question.
    pub question: String,
    /// Only these documents (skips the Orchestrator's choice of documents).
    #[serde(default)]
    pub doc_ids: Vec<String>,
    /// The model-free BM25 navigator instead of the agent.
    #[serde(default)]
    pub lexical: bool,
    /// With `lexical`: evidence items (default 5).
    pub k: Option<usize>,
    /// Commands per Worker (at most the server's `--max-steps`).
    pub max_steps: Option<usize>,
    /// Dispatch rounds (at most the server's `--rounds`).
    pub rounds: Option<usize>,
    /// The conversation so far, oldest first, as earlier `done` events gave it (`turn`): the
    /// question is then a follow-up, rewritten to stand alone first (one more model call). The
    /// page keeps it, not the server, so replicas behind a load balancer need no shared state.
    /// Bounded by the server (`Conversation::from_turns`). Ignored with `lexical`.
    #[serde(default)]
    pub memory: Vec<Turn>,
    /// Write a concise answer citing the evidence, verified (`docnav ask --answer`).
    #[serde(default)]
    pub answer: bool,
    /// Ask the model afresh even when the same question was answered over unchanged documents
    /// (`docnav ask --no-cache`); by default that recorded answer comes back at once, with
    /// `from_trace`.
    #[serde(default)]
    pub no_cache: bool,
}

/// The `step` event of `record`, `None` for events the timeline does not show.
fn step_event(record: &EventRecord) -> Option<Event> {
    let view = Step::of(record)?;
    match Event::default().event("step").json_data(view) {
        Ok(event) => Some(event),
        Err(e) => {
            tracing::error!("a step of {} could not be serialised: {e}", record.actor);
            None
        }
    }
}

/// `done`'s data.
#[derive(Debug, Serialize)]
struct Done {
    /// The trace's file name in `traces/` (open it at `/trace/NAME`), when one was written.
    trace: Option<String>,
    /// Per evidence item, in rank order: its section in the Reader, the span marked.
    reader_links: Vec<String>,
    /// What this run adds to the conversation: send it back in `memory` with a follow-up.
    /// Absent for the lexical baseline, which has no conversation.
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<Turn>,
}

fn wants_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"))
}

fn json_response(body: String) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

fn file_name(path: &std::path::Path) -> Option<String> {
    path.file_name().map(|n| n.to_string_lossy().to_string())
}

fn links(library: &dyn Library, answer: &Answer) -> Vec<String> {
    answer
        .evidence
        .iter()
        .map(|e| evidence_link(library, e))
        .collect()
}

fn error_event(e: &ApiError, trace: Option<String>) -> Event {
    let data = serde_json::json!({"error": e.code, "detail": e.detail, "trace": trace});
    Event::default().event("error").data(data.to_string())
}

/// `POST /api/v1/ask` (see the module docs).
///
/// Errors: 400 for an empty or too long question or bad budgets; 404 for an unknown `doc_ids`
/// entry; 429 beyond `max_asks`; 503 without a model (agent) or a workspace; a run that fails
/// after it started is a 500 (`error` event when streaming) naming its trace.
pub async fn ask(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<AskRequest>,
) -> Result<Response, ApiError> {
    let question = req.question.trim().to_string();
    if question.is_empty() {
        return Err(ApiError::bad_request("the question is empty"));
    }
    if question.chars().count() > MAX_QUESTION_CHARS {
        return Err(ApiError::bad_request(format!(
            "the question is over {MAX_QUESTION_CHARS} chars"
        )));
    }
    let stream = wants_stream(&headers);
    let opened = state.opened().await?;
    let (workspace, ids) = (opened.workspace.clone(), req.doc_ids.clone());
    // The catalog is read from its store: off the runtime.
    state.blocking(move || known_ids(&workspace, &ids)).await?;
    if req.lexical {
        return lexical(&state, opened.workspace, question, req, stream).await;
    }
    let model = match &state.model {
        Ok(m) => m.clone(),
        Err(why) => return Err(ApiError::no_model(why)),
    };
    let mut options = state.agent.clone();
    options.doc_ids = req.doc_ids.clone();
    if let Some(n) = req.max_steps {
        options.max_steps = n.clamp(1, options.max_steps);
    }
    if let Some(n) = req.rounds {
        options.rounds = n.clamp(1, options.rounds);
    }
    options.answer = req.answer;
    let ask = Ask {
        catalog: Catalog::workspace(opened.workspace.clone()),
        model,
        options,
        question,
        memory: Conversation::from_turns(req.memory).turns().to_vec(),
        trace: state
            .record_traces
            .then(|| TraceDestination::NewIn(opened.workspace.traces_dir())),
        // As every face: `--no-traces` keeps this server's runs out of the cache, not the
        // answers kept before (see `CachePolicy`).
        cache: CachePolicy::unless(req.no_cache),
        permits: Some(state.asks.clone()),
        placement: crate::agent::orchestrator::Placement::local(),
    };
    // A reused answer needs no model call, so no ask permit either.
    let ready = match ask.start().await {
        Ok(Started::Reused(reused)) => {
            return reused_response(opened.workspace.clone(), reused.answer, stream).await
        }
        Ok(Started::Ready(ready)) => ready,
        Err(AskFailure::Busy) => {
            return Err(ApiError::too_many_asks(state.max_asks, RETRY_AFTER_SECS))
        }
        Err(failure) => return Err(run_failed(&failure)),
    };
    let library: Arc<dyn Library> = opened.workspace.clone();

    if !stream {
        // Dropping this future (the client went away) drops the run with it.
        return match ready.run(Arc::new(NullSink), std::future::pending()).await {
            Ok(done) => {
                warn(&done.warnings);
                render(&done.run.answer, AnswerFormat::Json)
                    .map(json_response)
                    .map_err(|e| ApiError::internal(e.to_string()))
            }
            Err(failure) => Err(run_failed(&failure)),
        };
    }

    let (sink, rx) = Paced::channel(STREAM_EVENTS_HELD, step_event);
    tokio::spawn(async move {
        let closed = sink.clone();
        match ready
            .run(sink.clone(), async move { closed.closed().await })
            .await
        {
            Ok(done) => {
                warn(&done.warnings);
                let trace = done.trace.as_deref().and_then(file_name);
                for event in finished_events(library, done.run.answer, trace).await {
                    sink.send(event).await;
                }
            }
            Err(failure) => {
                let trace = failure.trace().and_then(|p| file_name(p));
                sink.send(error_event(&run_failed(&failure), trace)).await;
            }
        }
    });
    let events = ReceiverStream::new(rx).map(Ok::<Event, Infallible>);
    Ok(Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// Errors: 404 naming the first of `ids` that is neither a document nor an alias of one.
fn known_ids(workspace: &crate::workspace::Workspace, ids: &[String]) -> Result<(), ApiError> {
    for id in ids {
        // An alias is accepted: the run resolves it to its document.
        if workspace.resolve_id(id).is_none() {
            return Err(ApiError::not_found(format!(
                "document not found: {} (hint: /api/v1/docs lists the ids)",
                id.chars().take(200).collect::<String>()
            )));
        }
    }
    Ok(())
}

/// The events that end a stream with an answer: `answer` and `done` (`trace`: the file name
/// the answer was recorded in or reused from); an `error` event naming the trace when the answer
/// cannot be serialised, so the client never gets an empty answer.
async fn finished_events(
    library: Arc<dyn Library>,
    answer: Answer,
    trace: Option<String>,
) -> Vec<Event> {
    let json = match render(&answer, AnswerFormat::Json) {
        Ok(json) => json,
        Err(e) => {
            let error = ApiError::internal(format!("the answer could not be serialised: {e}"));
            tracing::error!("{}", error.detail);
            return vec![error_event(&error, trace)];
        }
    };
    let turn = Turn::of(&answer);
    let reader_links =
        match tokio::task::spawn_blocking(move || links(library.as_ref(), &answer)).await {
            Ok(links) => links,
            Err(e) => {
                let error = ApiError::internal(format!("the answer's reader links failed: {e}"));
                tracing::error!("{}", error.detail);
                return vec![error_event(&error, trace)];
            }
        };
    let done = Done {
        trace,
        reader_links,
        turn: Some(turn),
    };
    vec![
        Event::default().event("answer").data(json),
        done_event(&done),
    ]
}

/// The `done` event.
fn done_event(done: &Done) -> Event {
    match serde_json::to_string(done) {
        Ok(data) => Event::default().event("done").data(data),
        // Strings, a list of strings and a turn of strings: serialisation has nothing to fail on.
        Err(e) => {
            let error = ApiError::internal(format!(
                "the end of the answer could not be serialised: {e}"
            ));
            tracing::error!("{}", error.detail);
            error_event(&error, done.trace.clone())
        }
    }
}

/// Log what went wrong without stopping a run (an answer that could not be kept for reuse).
fn warn(warnings: &[String]) {
    for warning in warnings {
        tracing::warn!("{warning}");
    }
}

/// A reused answer as the run's would be: the `ask --json` object, or when streaming its
/// `answer` and `done` events (the trace it came from; the turn to remember).
async fn reused_response(
    workspace: Arc<crate::workspace::Workspace>,
    answer: Answer,
    stream: bool,
) -> Result<Response, ApiError> {
    if !stream {
        let json =
            render(&answer, AnswerFormat::Json).map_err(|e| ApiError::internal(e.to_string()))?;
        return Ok(json_response(json));
    }
    let trace = answer
        .from_trace
        .as_ref()
        .and_then(|f| file_name(std::path::Path::new(&f.trace)));
    let events = finished_events(workspace, answer, trace).await;
    let stream = tokio_stream::iter(events.into_iter().map(Ok::<Event, Infallible>));
    Ok(Sse::new(stream).into_response())
}

fn run_failed(failure: &AskFailure) -> ApiError {
    let message = failure.message();
    if let AskFailure::Cancelled { .. } = failure {
        return ApiError::internal(message);
    }
    ApiError::internal(match failure.trace() {
        Some(p) => format!("{message} (trace: {})", file_name(p).unwrap_or_default()),
        None => message,
    })
}

async fn lexical(
    state: &AppState,
    workspace: Arc<crate::workspace::Workspace>,
    question: String,
    req: AskRequest,
    stream: bool,
) -> Result<Response, ApiError> {
    let k =
        crate::agent::search::check_k(req.k.unwrap_or(DEFAULT_K)).map_err(ApiError::bad_request)?;
    let (json, reader_links) = state
        .blocking(move || {
            let scope = (!req.doc_ids.is_empty()).then_some(req.doc_ids.as_slice());
            let answer =
                ask_lexical(workspace.as_ref(), &question, scope, k).map_err(|e| match e {
                    crate::agent::lexical::LexicalError::Workspace(w) => ApiError::from(w),
                })?;
            let json = render(&answer, AnswerFormat::Json)
                .map_err(|e| ApiError::internal(e.to_string()))?;
            Ok((json, links(workspace.as_ref(), &answer)))
        })
        .await?;
    if !stream {
        return Ok(json_response(json));
    }
    let done = done_event(&Done {
        trace: None,
        reader_links,
        turn: None,
    });
    let events = vec![Event::default().event("answer").data(json), done];
    let stream = tokio_stream::iter(events.into_iter().map(Ok::<Event, Infallible>));
    Ok(Sse::new(stream).into_response())
}
