//! The replay model: each actor's recorded model calls, paired from the trace
//! ([`recorded_calls`], the pure part, table-tested), answered in order by a [`ReplayModel`].

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use crate::agent::events::messages_sha256;
use crate::agent::{AgentEvent, EventRecord, ModelRouter};
use crate::llm::{BoxFuture, ChatModel, ChatRequest, ChatResponse, LlmError, Usage};
use crate::trace::Trace;

/// How a recorded model call ended.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// A `model_response`.
    Reply {
        /// Reply text.
        text: String,
        /// Usage reported then.
        usage: Usage,
        /// Latency then, ms.
        latency_ms: u64,
    },
    /// A `model_error`: the call failed (timeout, HTTP error…).
    Failed {
        /// The error as it was displayed.
        message: String,
    },
    /// Neither: the recording stopped (cut, crash, Ctrl-C) while the call was in flight. Only an
    /// actor's last call can end so.
    InFlight,
}

/// One recorded model call: the request's hash and how it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    /// sha256 of the request's messages.
    pub request_sha256: String,
    /// The response, the failure, or nothing.
    pub outcome: CallOutcome,
}

/// Model calls per actor, in recorded order: each `model_request` paired with the
/// `model_response` or `model_error` that follows it in the same actor's stream (by sequence
/// number, so file order across actors does not matter). A request with no outcome before the
/// actor's next request or the end of its stream is [`CallOutcome::InFlight`]; an outcome with no
/// request before it (a version-1 trace of a failed call has none) is ignored.
pub fn recorded_calls(events: &[EventRecord]) -> HashMap<String, Vec<RecordedCall>> {
    let mut ordered: Vec<&EventRecord> = events.iter().collect();
    ordered.sort_by_key(|e| e.seq);
    let mut pending: HashMap<&str, String> = HashMap::new();
    let mut out: HashMap<String, Vec<RecordedCall>> = HashMap::new();
    let mut push = |actor: &str, request_sha256: String, outcome: CallOutcome| {
        out.entry(actor.to_string())
            .or_default()
            .push(RecordedCall {
                request_sha256,
                outcome,
            });
    };
    for record in ordered {
        let actor = record.actor.as_str();
        let outcome = match &record.event {
            AgentEvent::ModelRequest { sha256, .. } => {
                if let Some(earlier) = pending.insert(actor, sha256.clone()) {
                    push(actor, earlier, CallOutcome::InFlight);
                }
                continue;
            }
            AgentEvent::ModelResponse {
                text,
                usage,
                latency_ms,
            } => CallOutcome::Reply {
                text: text.clone(),
                usage: *usage,
                latency_ms: *latency_ms,
            },
            AgentEvent::ModelError { message, .. } => CallOutcome::Failed {
                message: message.clone(),
            },
            _ => continue,
        };
        if let Some(sha) = pending.remove(actor) {
            push(actor, sha, outcome);
        }
    }
    let mut left: Vec<(&str, String)> = pending.into_iter().collect();
    left.sort();
    for (actor, sha) in left {
        push(actor, sha, CallOutcome::InFlight);
    }
    out
}

/// Actors whose recording ends with a model call in flight (the recording was interrupted),
/// sorted.
pub fn in_flight_actors(events: &[EventRecord]) -> Vec<String> {
    let mut actors: Vec<String> = recorded_calls(events)
        .into_iter()
        .filter(|(_, calls)| calls.last().map(|c| &c.outcome) == Some(&CallOutcome::InFlight))
        .map(|(actor, _)| actor)
        .collect();
    actors.sort();
    actors
}

/// A model answering one actor from its recorded calls, in order: a recorded reply is returned
/// as it was, a recorded failure as [`LlmError::Recorded`] with the same message.
///
/// Errors: [`LlmError::Replay`] when the request's hash differs from the recorded one, when the
/// recording has no further call, or when the recorded call was still in flight.
pub struct ReplayModel {
    actor: String,
    model_id: String,
    calls: Mutex<VecDeque<RecordedCall>>,
}

impl ChatModel for ReplayModel {
    fn complete(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            let next = self.calls.lock().ok().and_then(|mut q| q.pop_front());
            let Some(call) = next else {
                return Err(LlmError::Replay(format!(
                    "{} made a model call the trace does not have",
                    self.actor
                )));
            };
            let sha = messages_sha256(&req.messages);
            if sha != call.request_sha256 {
                return Err(LlmError::Replay(format!(
                    "{} sent a request that differs from the recorded one (sha256 {} vs {})",
                    self.actor,
                    &sha[..12],
                    &call.request_sha256[..call.request_sha256.len().min(12)]
                )));
            }
            match call.outcome {
                CallOutcome::Reply {
                    text,
                    usage,
                    latency_ms,
                } => Ok(ChatResponse {
                    text,
                    usage,
                    latency_ms,
                    model: self.model_id.clone(),
                    attempts: 1,
                }),
                CallOutcome::Failed { message } => Err(LlmError::Recorded(message)),
                CallOutcome::InFlight => Err(LlmError::Replay(format!(
                    "the recording of {} ends while this call was in flight",
                    self.actor
                ))),
            }
        })
    }

    fn model_id(&self) -> &str {
        &self.model_id
    }
}

impl ReplayModel {
    /// The model of `actor` over its recorded calls among `events` (a trace's events, or only
    /// that actor's), answering as model `model_id`: what a Worker replayed in another process
    /// (a shard holding its document) talks to.
    pub fn for_actor(actor: &str, model_id: &str, events: &[EventRecord]) -> ReplayModel {
        let calls = recorded_calls(events).remove(actor).unwrap_or_default();
        ReplayModel {
            actor: actor.to_string(),
            model_id: model_id.to_string(),
            calls: Mutex::new(calls.into()),
        }
    }
}

/// Routes each actor to its own [`ReplayModel`].
pub struct ReplayRouter {
    models: HashMap<String, Arc<ReplayModel>>,
    model_id: String,
}

impl ReplayRouter {
    /// A router over the trace's recorded calls.
    pub fn new(trace: &Trace) -> ReplayRouter {
        let model_id = trace.header.model.clone();
        let models = recorded_calls(&trace.events)
            .into_iter()
            .map(|(actor, calls)| {
                let model = ReplayModel {
                    actor: actor.clone(),
                    model_id: model_id.clone(),
                    calls: Mutex::new(calls.into()),
                };
                (actor, Arc::new(model))
            })
            .collect();
        ReplayRouter { models, model_id }
    }
}

impl ModelRouter for ReplayRouter {
    fn model_for(&self, actor: &str) -> Arc<dyn ChatModel> {
        match self.models.get(actor) {
            Some(m) => m.clone(),
            None => Arc::new(ReplayModel {
                actor: actor.to_string(),
                model_id: self.model_id.clone(),
                calls: Mutex::new(VecDeque::new()),
            }),
        }
    }
}
