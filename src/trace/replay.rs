//! Replay (DESIGN.md §7): re-run the real pipeline with a model that answers each actor's requests
//! from that actor's recorded responses, in order, then compare what happened with the recording.
//!
//! [`recorded_replies`] is the pure part (trace → replies per actor), table-tested. The comparison
//! covers commands, observations (by sha256), evidence, decisions and model requests (by sha256);
//! times are ignored. The first difference is reported with its actor, step and both sides.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use super::Trace;
use crate::agent::events::messages_sha256;
use crate::agent::{
    AgentError, AgentEvent, AgentOptions, AgentRun, EventRecord, EventSink, ModelRouter,
};
use crate::llm::{BoxFuture, ChatModel, ChatRequest, ChatResponse, LlmError, Usage};
use crate::workspace::Library;

/// One recorded model reply and the request it answered.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedReply {
    /// sha256 of the request's messages.
    pub request_sha256: String,
    /// Reply text.
    pub text: String,
    /// Usage reported then.
    pub usage: Usage,
    /// Latency then, ms.
    pub latency_ms: u64,
}

/// Model replies per actor, in recorded order: each `model_request` paired with the
/// `model_response` that follows it in the same actor's stream.
pub fn recorded_replies(events: &[EventRecord]) -> HashMap<String, Vec<RecordedReply>> {
    let mut pending: HashMap<&str, String> = HashMap::new();
    let mut out: HashMap<String, Vec<RecordedReply>> = HashMap::new();
    for record in events {
        match &record.event {
            AgentEvent::ModelRequest { sha256, .. } => {
                pending.insert(&record.actor, sha256.clone());
            }
            AgentEvent::ModelResponse {
                text,
                usage,
                latency_ms,
            } => {
                if let Some(sha) = pending.remove(record.actor.as_str()) {
                    out.entry(record.actor.clone())
                        .or_default()
                        .push(RecordedReply {
                            request_sha256: sha,
                            text: text.clone(),
                            usage: *usage,
                            latency_ms: *latency_ms,
                        });
                }
            }
            _ => {}
        }
    }
    out
}

/// Where a replay first differed from its recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    /// `orchestrator` or a worker id.
    pub actor: String,
    /// The actor's event sequence number.
    pub seq: u64,
    /// The worker's step as the transcript numbers it (commands after its first plan, the
    /// diverging one included when it is a command's output); 0 = before its first step.
    pub step: usize,
    /// The recorded event, summarised.
    pub expected: String,
    /// What happened instead, summarised.
    pub actual: String,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = if self.step == 0 {
            "before its first step (overview or plan)".to_string()
        } else {
            format!("at step {}", self.step)
        };
        write!(
            f,
            "replay diverged in {} {place} (event {}):\n  expected: {}\n  actual:   {}",
            self.actor, self.seq, self.expected, self.actual
        )
    }
}

/// A model answering one actor from its recorded replies.
pub struct ReplayModel {
    actor: String,
    model_id: String,
    replies: Mutex<VecDeque<RecordedReply>>,
}

impl ChatModel for ReplayModel {
    fn complete(&self, req: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, LlmError>> {
        Box::pin(async move {
            let next = self.replies.lock().ok().and_then(|mut q| q.pop_front());
            let Some(reply) = next else {
                return Err(LlmError::Replay(format!(
                    "{} made a model call the trace does not have",
                    self.actor
                )));
            };
            let sha = messages_sha256(&req.messages);
            if sha != reply.request_sha256 {
                return Err(LlmError::Replay(format!(
                    "{} sent a request that differs from the recorded one (sha256 {} vs {})",
                    self.actor,
                    &sha[..12],
                    &reply.request_sha256[..reply.request_sha256.len().min(12)]
                )));
            }
            Ok(ChatResponse {
                text: reply.text,
                usage: reply.usage,
                latency_ms: reply.latency_ms,
                model: self.model_id.clone(),
                attempts: 1,
            })
        })
    }

    fn model_id(&self) -> &str {
        &self.model_id
    }
}

/// Routes each actor to its own [`ReplayModel`].
pub struct ReplayRouter {
    models: HashMap<String, Arc<ReplayModel>>,
    model_id: String,
}

impl ReplayRouter {
    /// A router over the trace's recorded replies.
    pub fn new(trace: &Trace) -> ReplayRouter {
        let model_id = trace.header.model.clone();
        let models = recorded_replies(&trace.events)
            .into_iter()
            .map(|(actor, replies)| {
                let model = ReplayModel {
                    actor: actor.clone(),
                    model_id: model_id.clone(),
                    replies: Mutex::new(replies.into()),
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
                replies: Mutex::new(VecDeque::new()),
            }),
        }
    }
}

/// Collects events in memory.
#[derive(Default)]
pub struct MemorySink(pub Mutex<Vec<EventRecord>>);

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

/// What a replay produced.
#[derive(Debug)]
pub struct ReplayOutcome {
    /// The re-run's result (`Err` when the orchestrator itself failed, e.g. on divergence).
    pub run: Result<AgentRun, String>,
    /// The first difference from the recording, if any.
    pub divergence: Option<Divergence>,
    /// Events of the re-run.
    pub events: Vec<EventRecord>,
}

/// A comparable key of an event: what must be identical between recording and replay.
pub fn comparable(event: &AgentEvent) -> Option<String> {
    match event {
        AgentEvent::ModelRequest { sha256, .. } => Some(format!("model request sha256 {sha256}")),
        AgentEvent::ModelResponse { text, .. } => Some(format!("model response {}", short(text))),
        AgentEvent::Command { line } => Some(format!("command `{line}`")),
        AgentEvent::Observation {
            sha256,
            chars,
            text,
            ..
        } => Some(format!(
            "observation of {chars} chars, sha256 {} ({})",
            &sha256[..sha256.len().min(12)],
            short(text)
        )),
        AgentEvent::EvidenceCollected {
            doc_id,
            structure,
            chars,
        } => Some(format!("evidence {doc_id} #{structure} ({chars} chars)")),
        AgentEvent::Decision { kind, value } => Some(format!("{kind} decision {value}")),
        AgentEvent::WorkerStarted { doc_id, task } => Some(format!("worker on {doc_id}: {task}")),
        AgentEvent::WorkerFinished {
            steps,
            evidence,
            error,
        } => Some(format!(
            "worker finished: {steps} steps, {evidence} evidence{}",
            error
                .as_ref()
                .map(|e| format!(", error: {e}"))
                .unwrap_or_default()
        )),
        AgentEvent::Error { message } => Some(format!("error: {message}")),
    }
}

fn short(text: &str) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut s: String = first.chars().take(80).collect();
    if first.chars().count() > 80 || text.lines().count() > 1 {
        s.push('…');
    }
    format!("{s:?}")
}

/// First difference between recorded and replayed events, compared per actor in sequence order.
/// Actors are visited orchestrator first, then workers by round and index.
/// With `recording_cut`, an actor whose recording simply ends (the trace was truncated) is not a
/// divergence: replay goes on past the cut.
pub fn first_divergence(
    recorded: &[EventRecord],
    replayed: &[EventRecord],
    recording_cut: bool,
) -> Option<Divergence> {
    let mut actors: Vec<&str> = Vec::new();
    for r in recorded.iter().chain(replayed) {
        if !actors.contains(&r.actor.as_str()) {
            actors.push(&r.actor);
        }
    }
    actors.sort_by_key(|a| crate::agent::events::actor_order_key(a));
    let by_actor = |events: &[EventRecord], actor: &str| -> Vec<EventRecord> {
        let mut v: Vec<EventRecord> = events
            .iter()
            .filter(|e| e.actor == actor)
            .cloned()
            .collect();
        v.sort_by_key(|e| e.seq);
        v
    };
    for actor in actors {
        let a = by_actor(recorded, actor);
        let b = by_actor(replayed, actor);
        let mut step = 0;
        let mut planned = false;
        for i in 0..a.len().max(b.len()) {
            let ea = a.get(i).and_then(|e| comparable(&e.event));
            let eb = b.get(i).and_then(|e| comparable(&e.event));
            if ea.is_none() && recording_cut {
                break;
            }
            if ea != eb {
                // A diverging command is the next step itself.
                let is_command =
                    matches!(a.get(i).map(|e| &e.event), Some(AgentEvent::Command { .. }));
                return Some(Divergence {
                    actor: actor.to_string(),
                    seq: i as u64,
                    step: step + usize::from(planned && is_command),
                    expected: ea.unwrap_or_else(|| "(the recording ends here)".into()),
                    actual: eb.unwrap_or_else(|| "(the replay ends here)".into()),
                });
            }
            // Steps as the transcript numbers them: a worker's commands after its first plan;
            // the orchestrator has none.
            match a.get(i).map(|e| &e.event) {
                Some(AgentEvent::Decision { kind, .. }) if kind == "plan" => planned = true,
                Some(AgentEvent::Command { .. }) if planned => step += 1,
                _ => {}
            }
        }
    }
    None
}

/// Replay `trace` against `library` with the recorded options; never calls a real model.
pub async fn replay(trace: &Trace, library: Arc<dyn Library>) -> ReplayOutcome {
    let options: AgentOptions =
        serde_json::from_value(trace.header.options.clone()).unwrap_or_default();
    let sink = Arc::new(MemorySink::default());
    let router = Arc::new(ReplayRouter::new(trace));
    let run = crate::agent::ask(
        library,
        router,
        sink.clone(),
        &options,
        &trace.header.question,
    )
    .await
    .map_err(|e: AgentError| e.to_string());
    let events = sink.events();
    let divergence = first_divergence(&trace.events, &events, trace.truncated_at_line.is_some());
    ReplayOutcome {
        run,
        divergence,
        events,
    }
}
