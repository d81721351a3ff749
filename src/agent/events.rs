//! What the agent does, as a stream of events: the live progress display, the shell's view of a
//! run and the trace recorder all read this one stream.
//!
//! Every event carries the id of the actor that emitted it (`orchestrator` or a worker id such as
//! `r1-w2-nodejs-doc-fs`) and that actor's own sequence number, so a recording does not depend on
//! how tasks were scheduled (DESIGN.md §7).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::llm::{ChatMessage, Decision, Usage};

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
    },
    /// A request to the model.
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
    /// A parsed decision (`understand`, `analyze`, `plan`, `navigate`, `check`, `evaluate`,
    /// `replan`, `suggest`).
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
}

/// Hex sha256 of a string.
pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// sha256 of a conversation as recorded in [`AgentEvent::ModelRequest`].
pub fn messages_sha256(messages: &[ChatMessage]) -> String {
    sha256_hex(&serde_json::to_string(messages).unwrap_or_default())
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

    /// Emit the model exchanges behind a decision, then the decision itself.
    pub fn decision<T: Serialize>(&self, kind: &str, decision: &Decision<T>) {
        for exchange in &decision.exchanges {
            self.model_call(
                &exchange.request.messages,
                &exchange.response.text,
                exchange.response.usage,
                exchange.response.latency_ms,
            );
        }
        self.emit(AgentEvent::Decision {
            kind: kind.to_string(),
            value: serde_json::to_value(&decision.value).unwrap_or(serde_json::Value::Null),
        });
    }

    /// Emit one request/response pair and count it.
    pub fn model_call(&self, messages: &[ChatMessage], text: &str, usage: Usage, latency_ms: u64) {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.prompt_tokens
            .fetch_add(usage.prompt_tokens, Ordering::SeqCst);
        self.completion_tokens
            .fetch_add(usage.completion_tokens, Ordering::SeqCst);
        self.emit(AgentEvent::ModelRequest {
            messages: messages.to_vec(),
            sha256: messages_sha256(messages),
        });
        self.emit(AgentEvent::ModelResponse {
            text: text.to_string(),
            usage,
            latency_ms,
        });
    }

    /// Count model calls that failed before a usable reply (they still cost a call each).
    pub fn failed_calls(&self, n: u64) {
        self.calls.fetch_add(n, Ordering::SeqCst);
    }

    /// Emit an observation of `text` (cut for the record, hashed in full).
    pub fn observation(&self, text: &str, error: bool) {
        let chars = text.chars().count();
        let shown: String = text.chars().take(OBSERVATION_EVENT_CHARS).collect();
        self.emit(AgentEvent::Observation {
            text: shown,
            chars,
            sha256: sha256_hex(text),
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
