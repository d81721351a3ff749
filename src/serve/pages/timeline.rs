//! A trace as a timeline: the Orchestrator's steps placed where they happened (before the first
//! round, after each round's Workers), each round's Workers as swimlanes side by side, every
//! step with its command, observation (collapsed), model call (the full prompt and reply
//! viewable, tokens and latency), decision or evidence, and the run's totals.
//!
//! Events carry per-actor sequence numbers, not times, so the placement is by structure: an
//! Orchestrator `evaluate` (or `replan`) decision closes a round; everything before the first
//! one happened before round 1.

use crate::agent::events::round_of;
use crate::agent::events::{actor_order_key, ORCHESTRATOR};
use crate::agent::{AgentEvent, EventRecord};
use crate::serve::pages::shown;
use crate::serve::traces::{utc_minute, TraceSummary};
use crate::trace::Trace;

/// One message of a model request.
pub struct MessageView {
    /// `system`, `user`, `assistant`.
    pub role: String,
    /// The content, shown.
    pub content: String,
}

/// One step of a lane.
pub struct StepView {
    /// CSS class and what the step is: `started`, `command`, `observation`, `evidence`,
    /// `decision`, `model`, `finished`, `error`.
    pub kind: &'static str,
    /// The event number (per actor).
    pub seq: u64,
    /// One line, shown.
    pub label: String,
    /// The collapsed body (an observation's text, a decision's JSON), shown.
    pub body: Option<String>,
    /// Whether it reports a failure.
    pub failed: bool,
    /// The request's messages (`model` steps).
    pub messages: Vec<MessageView>,
    /// The reply (`model` steps), shown.
    pub reply: Option<String>,
}

/// One Worker's swimlane.
pub struct LaneView {
    /// Worker id.
    pub actor: String,
    /// Its document, shown.
    pub doc_id: String,
    /// Link to the document in the Reader.
    pub doc_href: String,
    /// Its task, shown.
    pub task: String,
    /// Its steps in order.
    pub steps: Vec<StepView>,
    /// `done: 5 steps, 2 evidence`, `failed …`, or `no end recorded`.
    pub status: String,
    /// Whether the Worker failed.
    pub failed: bool,
}

/// A part of the run: Orchestrator steps, or one round's Workers.
pub struct PhaseView {
    /// `Orchestrator`, `Round 2`…
    pub title: String,
    /// The Orchestrator's steps (Orchestrator phases).
    pub steps: Vec<StepView>,
    /// The Workers (round phases).
    pub lanes: Vec<LaneView>,
}

/// A trace, ready for the template.
pub struct TimelineView {
    /// File name.
    pub name: String,
    /// The question, shown.
    pub question: String,
    /// Model id, shown.
    pub model: String,
    /// `2026-11-25 14:04 UTC`.
    pub started: String,
    /// docnav version and trace format.
    pub written_by: String,
    /// The recorded agent options, pretty JSON.
    pub options: String,
    /// Documents the recording's workspace held.
    pub documents: usize,
    /// Final verdict, if any.
    pub verdict: Option<String>,
    /// What is missing (insufficient/absent verdicts), shown.
    pub missing: String,
    /// The run's error, shown.
    pub error: Option<String>,
    /// Model calls.
    pub calls: u32,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Sum of model call latencies, ms.
    pub model_ms: u64,
    /// Evidence collected (before the final dedup and rerank).
    pub evidence: usize,
    /// Workers.
    pub workers: usize,
    /// Set when the last line was cut: its number.
    pub truncated_at_line: Option<usize>,
    /// The phases in order.
    pub phases: Vec<PhaseView>,
}

fn steps_of(events: &[&EventRecord]) -> Vec<StepView> {
    let mut steps: Vec<StepView> = Vec::new();
    for r in events {
        let step = |kind, label: String| StepView {
            kind,
            seq: r.seq,
            label: shown(&label),
            body: None,
            failed: false,
            messages: Vec::new(),
            reply: None,
        };
        match &r.event {
            AgentEvent::WorkerStarted { doc_id, task } => {
                steps.push(step("started", format!("started on {doc_id}: {task}")));
            }
            AgentEvent::ModelRequest { messages, .. } => {
                let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
                let mut s = step(
                    "model",
                    format!(
                        "model call: {} messages, {chars} chars — in flight when the recording stopped",
                        messages.len()
                    ),
                );
                s.messages = messages
                    .iter()
                    .map(|m| MessageView {
                        role: format!("{:?}", m.role).to_lowercase(),
                        content: shown(&m.content),
                    })
                    .collect();
                s.failed = true;
                steps.push(s);
            }
            AgentEvent::ModelResponse {
                text,
                usage,
                latency_ms,
            } => {
                let label = format!(
                    "model call: {} + {} tokens, {latency_ms} ms",
                    usage.prompt_tokens, usage.completion_tokens
                );
                match steps.iter_mut().rev().find(|s| s.kind == "model") {
                    Some(s) if s.reply.is_none() && s.failed => {
                        s.label = shown(&label);
                        s.reply = Some(shown(text));
                        s.failed = false;
                    }
                    _ => {
                        let mut s = step("model", label);
                        s.reply = Some(shown(text));
                        steps.push(s);
                    }
                }
            }
            AgentEvent::ModelError {
                message,
                latency_ms,
            } => {
                let label = format!("model call failed after {latency_ms} ms: {message}");
                match steps.iter_mut().rev().find(|s| s.kind == "model") {
                    Some(s) if s.reply.is_none() && s.failed => s.label = shown(&label),
                    _ => {
                        let mut s = step("model", label);
                        s.failed = true;
                        steps.push(s);
                    }
                }
            }
            AgentEvent::Decision { kind, value } => {
                let mut s = step("decision", decision_label(kind, value));
                s.body = serde_json::to_string_pretty(value).ok().map(|j| shown(&j));
                steps.push(s);
            }
            AgentEvent::Command { line } => steps.push(step("command", format!("$ {line}"))),
            AgentEvent::Observation {
                text, chars, error, ..
            } => {
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                let mut s = step("observation", crate::nav::render::one_line(first, 160));
                let recorded = text.chars().count();
                let mut body = text.clone();
                if recorded < *chars {
                    body.push_str(&format!(
                        "\n[{recorded} of {chars} chars recorded; the trace keeps the rest's length and sha256]"
                    ));
                }
                s.body = Some(shown(&body));
                s.failed = *error;
                steps.push(s);
            }
            AgentEvent::EvidenceCollected {
                doc_id,
                structure,
                chars,
            } => steps.push(step(
                "evidence",
                format!("evidence {doc_id} #{structure} ({chars} chars)"),
            )),
            AgentEvent::WorkerFinished {
                steps: n,
                evidence,
                error,
            } => {
                let mut s = step(
                    "finished",
                    match error {
                        Some(e) => format!("failed after {n} steps: {e}"),
                        None => format!("done: {n} steps, {evidence} evidence"),
                    },
                );
                s.failed = error.is_some();
                steps.push(s);
            }
            AgentEvent::Error { message } => {
                let mut s = step("error", format!("error: {message}"));
                s.failed = true;
                steps.push(s);
            }
        }
    }
    steps
}

/// `evaluate: insufficient — missing: …`, `analyze — compressed files → guide, faq`,
/// `navigate — cat 2.1`…
fn decision_label(kind: &str, value: &serde_json::Value) -> String {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(|v| v.as_str())
            .filter(|s| !s.trim().is_empty())
    };
    let list = |key: &str, field: Option<&str>| -> Vec<String> {
        value
            .get(key)
            .and_then(|v| v.as_array())
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| match field {
                        Some(f) => i.get(f).and_then(|v| v.as_str()),
                        None => i.as_str(),
                    })
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut label = kind.to_string();
    if let Some(v) = text("verdict") {
        label.push_str(&format!(": {v}"));
        if let Some(m) = text("missing") {
            label.push_str(&format!(" — missing: {m}"));
        }
    }
    let concepts = list("key_concepts", None);
    if !concepts.is_empty() {
        label.push_str(&format!(" — {}", concepts.join(", ")));
    }
    let tasks = list("tasks", Some("doc_id"));
    if !tasks.is_empty() {
        label.push_str(&format!(" → {}", tasks.join(", ")));
    }
    if let Some(c) = text("command") {
        label.push_str(&format!(" — {c}"));
    }
    label
}

/// The timeline of `trace`, stored as `name`.
pub fn timeline(name: &str, trace: &Trace) -> TimelineView {
    let summary = TraceSummary::of(name, trace, 0);
    let mut actors: Vec<&str> = trace.events.iter().map(|e| e.actor.as_str()).collect();
    actors.sort_by_key(|a| actor_order_key(a));
    actors.dedup();
    let events_of = |actor: &str| -> Vec<&EventRecord> {
        let mut v: Vec<&EventRecord> = trace.events.iter().filter(|e| e.actor == actor).collect();
        v.sort_by_key(|e| e.seq);
        v
    };

    // The Orchestrator's events, each model call with the decision it led to: an evaluate (or
    // replan) and its call belong after the round it judged; everything else where it happened.
    let orchestrator = events_of(ORCHESTRATOR);
    let mut buckets: Vec<Vec<&EventRecord>> = vec![Vec::new()];
    let mut pending: Vec<&EventRecord> = Vec::new();
    let mut judged_rounds = 0;
    for e in orchestrator {
        pending.push(e);
        if let AgentEvent::Decision { kind, .. } = &e.event {
            if kind == "evaluate" || kind == "replan" {
                judged_rounds += 1;
            }
            while buckets.len() <= judged_rounds {
                buckets.push(Vec::new());
            }
            buckets[judged_rounds].append(&mut pending);
        }
    }
    while buckets.len() <= judged_rounds {
        buckets.push(Vec::new());
    }
    buckets[judged_rounds].append(&mut pending);

    let rounds = actors.iter().filter_map(|a| round_of(a)).max().unwrap_or(0) as usize;
    let mut phases = Vec::new();
    let mut lane_count = 0;
    for (r, bucket) in buckets.iter().enumerate() {
        if r > 0 || !bucket.is_empty() {
            phases.push(PhaseView {
                title: if r == 0 {
                    "Orchestrator".to_string()
                } else {
                    format!("Orchestrator after round {r}")
                },
                steps: steps_of(bucket),
                lanes: Vec::new(),
            });
        }
        let round = r + 1;
        if round > rounds {
            continue;
        }
        let lanes: Vec<LaneView> = actors
            .iter()
            .filter(|a| round_of(a) == Some(round as u32))
            .map(|a| lane(a, &events_of(a)))
            .collect();
        lane_count += lanes.len();
        phases.push(PhaseView {
            title: format!("Round {round}"),
            steps: Vec::new(),
            lanes,
        });
    }
    // Rounds after the last Orchestrator bucket (a run cut while its Workers ran).
    for round in buckets.len() + 1..=rounds {
        let lanes: Vec<LaneView> = actors
            .iter()
            .filter(|a| round_of(a) == Some(round as u32))
            .map(|a| lane(a, &events_of(a)))
            .collect();
        lane_count += lanes.len();
        phases.push(PhaseView {
            title: format!("Round {round}"),
            steps: Vec::new(),
            lanes,
        });
    }

    let mut model_ms = 0;
    let mut evidence = 0;
    let mut missing = String::new();
    for e in &trace.events {
        match &e.event {
            AgentEvent::ModelResponse { latency_ms, .. }
            | AgentEvent::ModelError { latency_ms, .. } => model_ms += latency_ms,
            AgentEvent::EvidenceCollected { .. } => evidence += 1,
            AgentEvent::Decision { kind, value } if kind == "verdict" => {
                missing = value
                    .get("missing")
                    .and_then(|m| m.as_str())
                    .unwrap_or_default()
                    .to_string();
            }
            _ => {}
        }
    }
    TimelineView {
        name: name.to_string(),
        question: shown(&trace.header.question),
        model: shown(&trace.header.model),
        started: utc_minute(trace.header.started_unix_ms),
        written_by: format!(
            "docnav {}, trace format {}",
            shown(&trace.header.docnav_version),
            trace.header.format_version
        ),
        options: shown(&serde_json::to_string_pretty(&trace.header.options).unwrap_or_default()),
        documents: trace.header.document_count(),
        verdict: summary.verdict,
        missing: shown(&missing),
        error: summary.error.as_deref().map(shown),
        calls: summary.calls,
        prompt_tokens: summary.prompt_tokens,
        completion_tokens: summary.completion_tokens,
        model_ms,
        evidence,
        workers: lane_count,
        truncated_at_line: trace.truncated_at_line,
        phases,
    }
}

fn lane(actor: &str, events: &[&EventRecord]) -> LaneView {
    let (doc_id, task) = events
        .iter()
        .find_map(|e| match &e.event {
            AgentEvent::WorkerStarted { doc_id, task } => Some((doc_id.clone(), task.clone())),
            _ => None,
        })
        .unwrap_or_default();
    let (status, failed) = events
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            AgentEvent::WorkerFinished {
                steps,
                evidence,
                error,
            } => Some(match error {
                Some(err) => (format!("failed after {steps} steps: {err}"), true),
                None => (format!("done: {steps} steps, {evidence} evidence"), false),
            }),
            _ => None,
        })
        .unwrap_or_else(|| ("no end recorded (the run was cut)".to_string(), true));
    LaneView {
        actor: actor.to_string(),
        doc_href: format!("/doc/{}/", crate::serve::links::segment(&doc_id)),
        doc_id: shown(&doc_id),
        task: shown(&task),
        steps: steps_of(events),
        status: shown(&status),
        failed,
    }
}
