//! A trace as a timeline: the Orchestrator's steps placed where they happened (before the first
//! round, after each round's Workers), each round's Workers as swimlanes side by side, every
//! step with its command, observation (collapsed), model call (the full prompt and reply
//! viewable, tokens and latency), decision or evidence, and the run's totals.
//!
//! Events carry per-actor sequence numbers, not times, so the placement is by structure: an
//! Orchestrator `evaluate` (or `replan`) decision closes a round; everything before the first
//! one happened before round 1.
//!
//! A page is bounded whatever the trace holds (an upload may be megabytes of observations): at
//! most [`PAGE_STEPS`] steps, each text cut to [`STEP_TEXT_CHARS`] and all of them together to
//! [`PAGE_TEXT_CHARS`], every cut saying so; the downloaded trace has everything.
//!
//! Each step's label is its [`StepLine`] text, as the Ask page shows the step live. Every text
//! from the trace is made safe to show first (`shown`: control and bidi characters as visible
//! escapes); a template escapes the markup.

use crate::agent::events::round_of;
use crate::agent::events::{actor_order_key, ORCHESTRATOR};
use crate::agent::steps::{DecisionKind, StepKind, StepLine};
use crate::agent::{AgentEvent, EventRecord};
use crate::nav::render::for_display;
pub use crate::trace::folder::PAGE_STEPS;
use crate::trace::folder::{utc_minute, TraceSummary};
use crate::trace::Trace;

/// `text` with control and bidi characters shown as visible escapes ([`for_display`]).
fn shown(text: &str) -> String {
    for_display(text).into_owned()
}

/// Chars of one step's text a page shows (an observation, a prompt message, a reply, a
/// decision's JSON; also the question and the options); the rest is cut with a note.
pub const STEP_TEXT_CHARS: usize = 20_000;

/// Chars of step text one timeline shows in all; past it, texts are cut to nothing (noted).
pub const PAGE_TEXT_CHARS: usize = 1_000_000;

/// Chars of a step's one-line label.
pub const LABEL_CHARS: usize = 300;

/// What a timeline may still show, and what it left out.
struct Budget {
    /// Chars of text left.
    text: usize,
    /// Steps left.
    steps: usize,
    /// Steps not shown.
    hidden_steps: usize,
    /// Texts cut.
    cut_texts: usize,
}

impl Budget {
    fn new() -> Budget {
        Budget {
            text: PAGE_TEXT_CHARS,
            steps: PAGE_STEPS,
            hidden_steps: 0,
            cut_texts: 0,
        }
    }

    /// `text` cut to what one step and the page may still show, shown ([`shown`]).
    fn text(&mut self, text: &str) -> String {
        let allowed = STEP_TEXT_CHARS.min(self.text);
        let (head, rest) = match text.char_indices().nth(allowed) {
            None => (text, 0),
            Some((at, _)) => (&text[..at], text[at..].chars().count()),
        };
        self.text -= head.chars().count();
        if rest == 0 {
            return shown(head);
        }
        self.cut_texts += 1;
        shown(&format!(
            "{head}\n[… {rest} more chars not shown on this page; Download has the whole trace]"
        ))
    }
}

/// `text` cut to `max` chars (`…` marks a cut), shown.
fn cut_shown(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => shown(text),
        Some((at, _)) => shown(&format!("{}…", &text[..at])),
    }
}

/// One message of a model request.
pub struct MessageView {
    /// `system`, `user`, `assistant`.
    pub role: String,
    /// The content, shown.
    pub content: String,
}

/// One step of a lane.
pub struct StepView {
    /// What the step is, also its CSS class ([`StepKind::as_str`]): a model step holds the
    /// request and its reply.
    pub kind: StepKind,
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
    /// Its document as recorded (for a link to it).
    pub doc: String,
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
    /// Steps past [`PAGE_STEPS`], not shown.
    pub hidden_steps: usize,
    /// Texts cut to the page's bounds.
    pub cut_texts: usize,
    /// Events of the file after those the page read (counted, not read; 0 from [`timeline`]).
    pub unread_events: usize,
}

/// The last model step of `steps` when it has no reply yet (a request, or a failed call): a
/// reply or a failure completes that step rather than adding one.
fn unanswered(steps: &mut [StepView]) -> Option<&mut StepView> {
    steps
        .iter_mut()
        .rev()
        .find(|s| s.kind.is_model())
        .filter(|s| s.reply.is_none() && s.failed)
}

fn steps_of(events: &[&EventRecord], budget: &mut Budget) -> Vec<StepView> {
    let mut steps: Vec<StepView> = Vec::new();
    for r in events {
        if budget.steps == 0 {
            budget.hidden_steps += 1;
            continue;
        }
        budget.steps -= 1;
        let line = StepLine::of(&r.event);
        let mut step = StepView {
            kind: line.kind,
            seq: r.seq,
            label: cut_shown(&line.text, LABEL_CHARS),
            body: None,
            failed: line.error,
            messages: Vec::new(),
            reply: None,
        };
        match &r.event {
            AgentEvent::ModelRequest { messages, .. } => {
                step.messages = messages
                    .iter()
                    .map(|m| MessageView {
                        role: format!("{:?}", m.role).to_lowercase(),
                        content: budget.text(&m.content),
                    })
                    .collect();
            }
            AgentEvent::ModelResponse { text, .. } => {
                let reply = Some(budget.text(text));
                if let Some(s) = unanswered(&mut steps) {
                    (s.kind, s.label, s.reply, s.failed) = (step.kind, step.label, reply, false);
                    continue;
                }
                step.reply = reply;
            }
            AgentEvent::ModelError { .. } => {
                if let Some(s) = unanswered(&mut steps) {
                    (s.kind, s.label) = (step.kind, step.label);
                    continue;
                }
            }
            AgentEvent::Decision { value, .. } => {
                step.body = serde_json::to_string_pretty(value)
                    .ok()
                    .map(|j| budget.text(&j));
            }
            AgentEvent::Observation { text, chars, .. } => {
                // The recorded text as the body, noting when the trace kept only part of it.
                let recorded = text.chars().count();
                let mut body = text.to_string();
                if recorded < *chars {
                    body.push_str(&format!(
                        "\n[{recorded} of {chars} chars recorded; the trace keeps the rest's \
                         length and sha256]"
                    ));
                }
                step.body = Some(budget.text(&body));
            }
            _ => {}
        }
        steps.push(step);
    }
    steps
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

    let buckets = orchestrator_buckets(events_of(ORCHESTRATOR));

    let rounds = actors.iter().filter_map(|a| round_of(a)).max().unwrap_or(0) as usize;
    let mut budget = Budget::new();
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
                steps: steps_of(bucket, &mut budget),
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
            .filter_map(|a| lane(a, &events_of(a), &mut budget))
            .collect();
        lane_count += lanes.len();
        phases.push(PhaseView {
            title: format!("Round {round}"),
            steps: Vec::new(),
            lanes,
        });
    }
    // Rounds after the last Orchestrator bucket (a run cut while its Workers ran); only those
    // some Worker ran in (an actor's round number may be anything).
    let mut later: Vec<usize> = actors
        .iter()
        .filter_map(|a| round_of(a))
        .map(|r| r as usize)
        .filter(|&r| r > buckets.len())
        .collect();
    later.sort_unstable();
    later.dedup();
    for round in later {
        let lanes: Vec<LaneView> = actors
            .iter()
            .filter(|a| round_of(a) == Some(round as u32))
            .filter_map(|a| lane(a, &events_of(a), &mut budget))
            .collect();
        lane_count += lanes.len();
        phases.push(PhaseView {
            title: format!("Round {round}"),
            steps: Vec::new(),
            lanes,
        });
    }

    let (model_ms, evidence, missing) = totals(trace);
    TimelineView {
        name: name.to_string(),
        question: cut_shown(&trace.header.question, STEP_TEXT_CHARS),
        model: cut_shown(&trace.header.model, LABEL_CHARS),
        started: utc_minute(trace.header.started_unix_ms),
        written_by: format!(
            "docnav {}, trace format {}",
            cut_shown(&trace.header.docnav_version, LABEL_CHARS),
            trace.header.format_version
        ),
        options: budget
            .text(&serde_json::to_string_pretty(&trace.header.options).unwrap_or_default()),
        documents: trace.header.document_count(),
        verdict: summary.verdict,
        missing: cut_shown(&missing, STEP_TEXT_CHARS),
        error: summary
            .error
            .as_deref()
            .map(|e| cut_shown(e, STEP_TEXT_CHARS)),
        calls: summary.calls,
        prompt_tokens: summary.prompt_tokens,
        completion_tokens: summary.completion_tokens,
        model_ms,
        evidence,
        workers: lane_count,
        truncated_at_line: trace.truncated_at_line,
        phases,
        hidden_steps: budget.hidden_steps,
        unread_events: 0,
        cut_texts: budget.cut_texts,
    }
}

/// The Orchestrator's events, each model call with the decision it led to: an evaluate (or
/// replan) and its call belong after the round it judged (bucket `r` follows round `r`);
/// everything else where it happened.
fn orchestrator_buckets(orchestrator: Vec<&EventRecord>) -> Vec<Vec<&EventRecord>> {
    let mut buckets: Vec<Vec<&EventRecord>> = vec![Vec::new()];
    let mut pending: Vec<&EventRecord> = Vec::new();
    let mut judged_rounds = 0;
    for e in orchestrator {
        pending.push(e);
        if let AgentEvent::Decision { kind, .. } = &e.event {
            if matches!(
                DecisionKind::of(kind),
                DecisionKind::Evaluate | DecisionKind::Replan
            ) {
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
    buckets
}

/// Over the whole trace: milliseconds of model calls, evidence items collected, and what the
/// last verdict said was missing.
fn totals(trace: &Trace) -> (u64, usize, String) {
    let mut model_ms = 0;
    let mut evidence = 0;
    let mut missing = String::new();
    for e in &trace.events {
        match &e.event {
            AgentEvent::ModelResponse { latency_ms, .. }
            | AgentEvent::ModelError { latency_ms, .. } => model_ms += latency_ms,
            AgentEvent::EvidenceCollected { .. } => evidence += 1,
            AgentEvent::Decision { kind, value }
                if DecisionKind::of(kind) == DecisionKind::Verdict =>
            {
                missing = value
                    .get("missing")
                    .and_then(|m| m.as_str())
                    .unwrap_or_default()
                    .to_string();
            }
            _ => {}
        }
    }
    (model_ms, evidence, missing)
}

/// `actor`'s lane; `None` (its steps counted as hidden) once the page shows no more steps.
fn lane(actor: &str, events: &[&EventRecord], budget: &mut Budget) -> Option<LaneView> {
    if budget.steps == 0 {
        budget.hidden_steps += events.len();
        return None;
    }
    let (doc_id, task) = events
        .iter()
        .find_map(|e| match &e.event {
            AgentEvent::WorkerStarted { doc_id, task, .. } => Some((doc_id.clone(), task.clone())),
            _ => None,
        })
        .unwrap_or_default();
    let (status, failed) = events
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            AgentEvent::WorkerFinished { .. } => {
                let line = StepLine::of(&e.event);
                Some((line.text, line.error))
            }
            _ => None,
        })
        .unwrap_or_else(|| ("no end recorded (the run was cut)".to_string(), true));
    Some(LaneView {
        actor: cut_shown(actor, LABEL_CHARS),
        doc_id: cut_shown(&doc_id, LABEL_CHARS),
        doc: doc_id,
        task: cut_shown(&task, STEP_TEXT_CHARS),
        steps: steps_of(events, budget),
        status: cut_shown(&status, LABEL_CHARS),
        failed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{ChatMessage, Usage};

    fn trace_of(events: Vec<(&str, AgentEvent)>) -> Trace {
        let mut text = serde_json::json!({
            "type": "header", "format_version": 4, "docnav_version": "0.1.0",
            "question": "q", "model": "m", "options": {}, "documents": [],
            "started_unix_ms": 1u64,
        })
        .to_string();
        let mut seqs: std::collections::HashMap<&str, u64> = Default::default();
        for (actor, event) in events {
            let seq = seqs.entry(actor).or_default();
            let record = EventRecord {
                actor: actor.to_string(),
                seq: *seq,
                event,
            };
            *seq += 1;
            text.push('\n');
            text.push_str(&serde_json::to_string(&record).unwrap());
        }
        crate::trace::parse_trace(std::path::Path::new("t.jsonl"), &text).unwrap()
    }

    fn request() -> AgentEvent {
        AgentEvent::ModelRequest {
            messages: vec![ChatMessage::user("hi")],
            sha256: String::new(),
        }
    }

    #[test]
    fn each_step_has_its_typed_kind_and_a_failed_call_then_its_retry_is_one_model_step() {
        let usage = Usage {
            prompt_tokens: 5,
            completion_tokens: 2,
        };
        let trace = trace_of(vec![
            ("orchestrator", request()),
            (
                "orchestrator",
                AgentEvent::ModelError {
                    message: "timed out".into(),
                    latency_ms: 7,
                },
            ),
            (
                "orchestrator",
                AgentEvent::ModelResponse {
                    text: "{}".into(),
                    usage,
                    latency_ms: 3,
                },
            ),
            ("orchestrator", request()),
            (
                "orchestrator",
                AgentEvent::ModelError {
                    message: "refused".into(),
                    latency_ms: 1,
                },
            ),
            (
                "r1-w1-guide",
                AgentEvent::WorkerStarted {
                    doc_id: "guide".into(),
                    task: "t".into(),
                    shard: None,
                },
            ),
            ("r1-w1-guide", request()),
            (
                "r1-w1-guide",
                AgentEvent::Command {
                    line: "ls /".into(),
                },
            ),
            (
                "r1-w1-guide",
                AgentEvent::WorkerFinished {
                    steps: 1,
                    evidence: 0,
                    error: None,
                },
            ),
        ]);
        let view = timeline("t.jsonl", &trace);
        let orchestrator: Vec<(StepKind, bool, bool)> = view.phases[0]
            .steps
            .iter()
            .map(|s| (s.kind, s.failed, s.reply.is_some()))
            .collect();
        // The first call failed, then its retry answered: one answered step; the second call
        // only failed.
        assert_eq!(
            orchestrator,
            [
                (StepKind::ModelCall, false, true),
                (StepKind::ModelError, true, false)
            ]
        );
        let lane = &view.phases[1].lanes[0];
        let kinds: Vec<(StepKind, bool)> = lane.steps.iter().map(|s| (s.kind, s.failed)).collect();
        // A request with no reply was in flight when the recording stopped.
        assert_eq!(
            kinds,
            [
                (StepKind::WorkerStarted, false),
                (StepKind::ModelCall, true),
                (StepKind::Command, false),
                (StepKind::WorkerFinished, false),
            ]
        );
        // The kind is the step's CSS class, as on the Ask page.
        assert_eq!(StepKind::WorkerStarted.to_string(), "worker_started");
        assert_eq!(
            serde_json::to_value(StepKind::ModelError).unwrap(),
            StepKind::ModelError.as_str()
        );
    }
}
