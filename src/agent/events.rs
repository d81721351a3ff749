//! What the agent does, as a stream of events: the live progress display, the shell's view of a
//! run and the trace recorder all read this one stream.
//!
//! Every event carries the id of the actor that emitted it (`orchestrator` or a worker id such as
//! `r1-w2-nodejs-doc-fs`) and that actor's own sequence number, so a recording does not depend on
//! how tasks were scheduled (DESIGN.md §7).
//!
//! Model calls are recorded as they happen ([`Emitter::recording`]): the request when it is sent,
//! then its response (with the usage and latency the client reported) or its failure, so a call
//! that fails, or is still in flight when the run is interrupted, still leaves its request.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::llm::{BoxFuture, ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, Usage};

/// Id of the orchestrator actor.
pub const ORCHESTRATOR: &str = "orchestrator";

/// Observations recorded in events are cut to this many chars (length and hash stay exact).
pub const OBSERVATION_EVENT_CHARS: usize = 2_000;

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A worker starts on a task.
    WorkerStarted {
        /// Document id.
        doc_id: String,
        /// The task text.
        task: String,
        /// The shard (0-based) holding the document, when the catalog is split into shards and
        /// the Worker ran in its shard's process; absent for one workspace.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shard: Option<u32>,
    },
    /// A request to the model, recorded when it is sent.
    ModelRequest {
        /// The conversation sent.
        messages: Vec<ChatMessage>,
        /// sha256 of the JSON of `messages`, hex.
        sha256: String,
    },
    /// The model's reply to the previous request of this actor.
    ModelResponse {
        /// Reply text.
        text: String,
        /// Token usage.
        usage: Usage,
        /// Wall time of the call, ms.
        latency_ms: u64,
    },
    /// The previous request of this actor failed (timeout, HTTP or transport error…) after the
    /// client's own retries. A request with neither a response nor this after it was still in
    /// flight when the recording stopped. (Format version 2.)
    ModelError {
        /// The error as displayed (the API key is never in it).
        message: String,
        /// Wall time from sending the request to the failure, ms.
        latency_ms: u64,
    },
    /// A parsed decision (`understand`, `analyze`, `plan`, `navigate`, `check`, `evaluate`,
    /// `replan`, `suggest`), or the orchestrator's final `verdict` (its value an
    /// [`crate::agent::evidence::AnswerVerdict`], whoever judged).
    Decision {
        /// Which decision.
        kind: String,
        /// The parsed value.
        value: serde_json::Value,
    },
    /// A command a worker issued.
    Command {
        /// The command line.
        line: String,
    },
    /// The command's output.
    Observation {
        /// Output text, cut to [`OBSERVATION_EVENT_CHARS`] chars.
        text: String,
        /// Full length in chars.
        chars: usize,
        /// sha256 of the full text, hex.
        sha256: String,
        /// Whether the command reported an error.
        error: bool,
    },
    /// `cat` collected evidence.
    EvidenceCollected {
        /// Document id.
        doc_id: String,
        /// Structure number of the node.
        structure: String,
        /// Chars read.
        chars: usize,
    },
    /// A worker finished.
    WorkerFinished {
        /// Commands run.
        steps: usize,
        /// Evidence items collected.
        evidence: usize,
        /// Set when the worker failed.
        error: Option<String>,
    },
    /// A failure (the step fails loudly; this says why).
    Error {
        /// One-line message.
        message: String,
    },
}

/// An event with its actor and that actor's sequence number (from 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    /// `orchestrator` or a worker id.
    pub actor: String,
    /// Sequence number within the actor.
    pub seq: u64,
    /// The event.
    #[serde(flatten)]
    pub event: AgentEvent,
}

/// Receives events (progress display, shell view, trace writer). Must not block for long.
pub trait EventSink: Send + Sync {
    /// One event.
    fn record(&self, record: EventRecord);

    /// Resolves when the sink can take more events. The agent awaits it before each model call,
    /// so a sink feeding a slow reader ([`super::paced::Paced`]) slows the run down instead of
    /// buffering without bound. The default is ready at once.
    fn ready(&self) -> BoxFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
}

/// Drops every event.
pub struct NullSink;

impl EventSink for NullSink {
    fn record(&self, _record: EventRecord) {}
}

/// Sends events to several sinks in order.
pub struct FanOut(pub Vec<Arc<dyn EventSink>>);

impl EventSink for FanOut {
    fn record(&self, record: EventRecord) {
        for sink in &self.0 {
            sink.record(record.clone());
        }
    }

    fn ready(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            for sink in &self.0 {
                sink.ready().await;
            }
        })
    }
}

/// The dispatch round in a Worker id (`r2-w1-doc` → 2); `None` for the orchestrator.
pub fn round_of(actor: &str) -> Option<u32> {
    actor.strip_prefix('r')?.split('-').next()?.parse().ok()
}

/// Sort key of an actor id: the orchestrator first, then workers by round and index
/// (`r1-w2-…` before `r1-w10-…` before `r2-w1-…`), so renderings do not depend on scheduling.
pub fn actor_order_key(actor: &str) -> (u32, u32, String) {
    if actor == ORCHESTRATOR {
        return (0, 0, String::new());
    }
    let mut parts = actor.splitn(3, '-');
    let round = parts
        .next()
        .and_then(|r| r.strip_prefix('r'))
        .and_then(|n| n.parse().ok());
    let index = parts
        .next()
        .and_then(|w| w.strip_prefix('w'))
        .and_then(|n| n.parse().ok());
    match (round, index) {
        (Some(r), Some(i)) => (r, i, actor.to_string()),
        _ => (u32::MAX, u32::MAX, actor.to_string()),
    }
}

/// sha256 of a conversation as recorded in [`AgentEvent::ModelRequest`].
pub fn messages_sha256(messages: &[ChatMessage]) -> String {
    crate::digest::sha256_hex(
        serde_json::to_string(messages)
            .unwrap_or_default()
            .as_bytes(),
    )
}

/// One actor's emitter: numbers its events and counts its model calls and tokens.
pub struct Emitter {
    actor: String,
    seq: AtomicU64,
    sink: Arc<dyn EventSink>,
    calls: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
}

impl Emitter {
    /// An emitter for `actor` writing to `sink`.
    pub fn new(actor: impl Into<String>, sink: Arc<dyn EventSink>) -> Emitter {
        Emitter {
            actor: actor.into(),
            seq: AtomicU64::new(0),
            sink,
            calls: AtomicU64::new(0),
            prompt_tokens: AtomicU64::new(0),
            completion_tokens: AtomicU64::new(0),
        }
    }

    /// The actor id.
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// Emit one event.
    pub fn emit(&self, event: AgentEvent) {
        let seq = self.seq.fetch_add(1, Ordering::SeqCst);
        self.sink.record(EventRecord {
            actor: self.actor.clone(),
            seq,
            event,
        });
    }

    /// Emit a parsed decision. Its model calls were recorded as they happened, by the model
    /// [`Emitter::recording`] wrapped.
    pub fn decision<T: Serialize>(&self, kind: &str, value: &T) {
        self.emit(AgentEvent::Decision {
            kind: kind.to_string(),
            value: serde_json::to_value(value).unwrap_or(serde_json::Value::Null),
        });
    }

    /// `model` with every call recorded on this actor's stream as it happens: a
    /// [`AgentEvent::ModelRequest`] when the request is sent, then its
    /// [`AgentEvent::ModelResponse`] (real usage and latency) or [`AgentEvent::ModelError`]. Each
    /// call is counted when sent, failed ones included; tokens when the reply arrives.
    pub fn recording<'a>(&'a self, model: &'a dyn ChatModel) -> RecordingModel<'a> {
        RecordingModel {
            model,
            emitter: self,
        }
    }

    /// Emit an observation of `text` (cut for the record, hashed in full).
    pub fn observation(&self, text: &str, error: bool) {
        let chars = text.chars().count();
        let shown: String = text.chars().take(OBSERVATION_EVENT_CHARS).collect();
        self.emit(AgentEvent::Observation {
            text: shown,
            chars,
            sha256: crate::digest::sha256_hex(text.as_bytes()),
            error,
        });
    }

    /// (model calls, prompt tokens, completion tokens) so far.
    pub fn usage(&self) -> (u64, u64, u64) {
        (
            self.calls.load(Ordering::SeqCst),
            self.prompt_tokens.load(Ordering::SeqCst),
            self.completion_tokens.load(Ordering::SeqCst),
        )
    }
}

/// A [`ChatModel`] that records each call of one actor as it happens (see [`Emitter::recording`]).
pub struct RecordingModel<'a> {
    model: &'a dyn ChatModel,
    emitter: &'a Emitter,
}

impl ChatModel for RecordingModel<'_> {
    fn complete(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            let emitter = self.emitter;
            // A slow reader of the events holds the run here, between steps.
            emitter.sink.ready().await;
            emitter.calls.fetch_add(1, Ordering::SeqCst);
            emitter.emit(AgentEvent::ModelRequest {
                sha256: messages_sha256(&req.messages),
                messages: req.messages.clone(),
            });
            let started = Instant::now();
            let result = self.model.complete(req).await;
            match &result {
                Ok(response) => {
                    emitter
                        .prompt_tokens
                        .fetch_add(response.usage.prompt_tokens, Ordering::SeqCst);
                    emitter
                        .completion_tokens
                        .fetch_add(response.usage.completion_tokens, Ordering::SeqCst);
                    emitter.emit(AgentEvent::ModelResponse {
                        text: response.text.clone(),
                        usage: response.usage,
                        latency_ms: response.latency_ms,
                    });
                }
                Err(err) => emitter.emit(AgentEvent::ModelError {
                    message: err.to_string(),
                    latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                }),
            }
            result
        })
    }

    fn model_id(&self) -> &str {
        self.model.model_id()
    }
}

/// An [`EventSink`] that keeps every event in memory, in the order recorded (replays, the
/// eval navigator, and a Worker run away from its Orchestrator collect their events in one).
#[derive(Default)]
pub struct MemorySink(pub std::sync::Mutex<Vec<EventRecord>>);

impl EventSink for MemorySink {
    fn record(&self, record: EventRecord) {
        if let Ok(mut v) = self.0.lock() {
            v.push(record);
        }
    }
}

impl MemorySink {
    /// The events so far.
    pub fn events(&self) -> Vec<EventRecord> {
        self.0.lock().map(|v| v.clone()).unwrap_or_default()
    }
}
