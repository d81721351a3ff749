//! One agent event as people see it ([`Step`]): the Ask page's live steps (`POST /api/v1/ask`
//! streams them), the trace timeline's labels and the terminal's progress lines are all made
//! here ([`StepLine`]), so a step reads the same wherever it is shown. The page's script renders
//! the [`Step::text`] it is given and adds nothing.

use serde::{Deserialize, Serialize};

use super::events::{round_of, AgentEvent, EventRecord, ORCHESTRATOR};
use crate::nav::render::one_line;

/// Chars of an observation's one-line view.
pub const OBSERVATION_LINE_CHARS: usize = 160;

/// What a step is (serialised in snake case: `worker_started`, `model_call`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// A Worker started on its document.
    WorkerStarted,
    /// A model call answered: its tokens and latency.
    ModelCall,
    /// A model call failed.
    ModelError,
    /// A decision of the Orchestrator or a Worker ([`Decision`]).
    Decision,
    /// A command a Worker ran.
    Command,
    /// What the command printed.
    Observation,
    /// Evidence collected.
    Evidence,
    /// A Worker finished or failed.
    WorkerFinished,
    /// An error the run reported and went on from.
    Error,
}

impl StepKind {
    /// The kind as serialised (`worker_started`, `model_call`, …): also the CSS class the Ask
    /// page and the trace timeline give the step.
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::WorkerStarted => "worker_started",
            StepKind::ModelCall => "model_call",
            StepKind::ModelError => "model_error",
            StepKind::Decision => "decision",
            StepKind::Command => "command",
            StepKind::Observation => "observation",
            StepKind::Evidence => "evidence",
            StepKind::WorkerFinished => "worker_finished",
            StepKind::Error => "error",
        }
    }

    /// Whether the step is a model call, answered or failed.
    pub fn is_model(self) -> bool {
        matches!(self, StepKind::ModelCall | StepKind::ModelError)
    }
}

impl std::fmt::Display for StepKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The stage a decision was made at, from its recorded `kind`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// The Orchestrator's analysis of the catalog (its understanding folded in).
    Analyze,
    /// The Orchestrator's understanding of the question (with `--doc` ids; version 2's first
    /// call).
    Understand,
    /// A follow-up rewritten to stand alone.
    Standalone,
    /// A Worker's plan and first command.
    Plan,
    /// A Worker's plan again (version 2: the Orchestrator's next round).
    Replan,
    /// A Worker's next command.
    Navigate,
    /// A Worker's judgement of its evidence.
    Check,
    /// The Orchestrator's judgement of all evidence, with the next round's tasks.
    Evaluate,
    /// A "sufficient" over no evidence, overruled.
    Overruled,
    /// A search of the catalog before "absent" stands.
    CatalogSearch,
    /// The final verdict.
    Verdict,
    /// Any other kind, as recorded (`answer`, `answer_verified`, a newer docnav's).
    Other(String),
}

impl DecisionKind {
    /// The kind recorded as `kind`.
    pub fn of(kind: &str) -> DecisionKind {
        match kind {
            "analyze" => DecisionKind::Analyze,
            "understand" => DecisionKind::Understand,
            "standalone" => DecisionKind::Standalone,
            "plan" => DecisionKind::Plan,
            "replan" => DecisionKind::Replan,
            "navigate" => DecisionKind::Navigate,
            "check" => DecisionKind::Check,
            "evaluate" => DecisionKind::Evaluate,
            "overruled" => DecisionKind::Overruled,
            "catalog_search" => DecisionKind::CatalogSearch,
            "verdict" => DecisionKind::Verdict,
            other => DecisionKind::Other(other.to_string()),
        }
    }

    /// The kind as recorded.
    pub fn as_str(&self) -> &str {
        match self {
            DecisionKind::Analyze => "analyze",
            DecisionKind::Understand => "understand",
            DecisionKind::Standalone => "standalone",
            DecisionKind::Plan => "plan",
            DecisionKind::Replan => "replan",
            DecisionKind::Navigate => "navigate",
            DecisionKind::Check => "check",
            DecisionKind::Evaluate => "evaluate",
            DecisionKind::Overruled => "overruled",
            DecisionKind::CatalogSearch => "catalog_search",
            DecisionKind::Verdict => "verdict",
            DecisionKind::Other(kind) => kind,
        }
    }
}

/// A task as a decision names it: only its document is shown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
struct TaskNamed {
    #[serde(default)]
    doc_id: String,
}

/// What a decision said that its label shows. Every field is optional: each kind records some
/// of them, and older trace format versions recorded other shapes (a version 2 `check` has
/// `sufficient: bool`, no `verdict`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
struct Said {
    verdict: Option<String>,
    missing: Option<String>,
    key_concepts: Vec<String>,
    tasks: Vec<TaskNamed>,
    command: Option<String>,
    standalone: Option<String>,
    search: Vec<String>,
}

/// A decision, typed from its recorded `kind` and value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The stage.
    pub kind: DecisionKind,
    said: Said,
}

fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| !s.trim().is_empty())
}

impl Decision {
    /// The decision recorded as `kind` with `value` (a value of another shape shows only its
    /// kind).
    pub fn of(kind: &str, value: &serde_json::Value) -> Decision {
        Decision {
            kind: DecisionKind::of(kind),
            said: Said::deserialize(value).unwrap_or_default(),
        }
    }

    /// One line: the kind, then what it decided — `evaluate: insufficient — missing: …`,
    /// `analyze — compressed files → guide, faq`, `plan — cat 2.1`, `standalone — how do I …`,
    /// `analyze — search zip archives; gzip`.
    pub fn label(&self) -> String {
        let said = &self.said;
        let mut label = self.kind.as_str().to_string();
        if let Some(v) = non_empty(&said.verdict) {
            label.push_str(&format!(": {v}"));
            if let Some(m) = non_empty(&said.missing) {
                label.push_str(&format!(" — missing: {m}"));
            }
        }
        if !said.key_concepts.is_empty() {
            label.push_str(&format!(" — {}", said.key_concepts.join(", ")));
        }
        let tasks: Vec<&str> = said.tasks.iter().map(|t| t.doc_id.as_str()).collect();
        if !tasks.is_empty() {
            label.push_str(&format!(" → {}", tasks.join(", ")));
        }
        if let Some(c) = non_empty(&said.command) {
            label.push_str(&format!(" — {c}"));
        }
        if let Some(q) = non_empty(&said.standalone) {
            label.push_str(&format!(" — {q}"));
        }
        if !said.search.is_empty() {
            label.push_str(&format!(" — search {}", said.search.join("; ")));
        }
        label
    }
}

/// One agent event as the Ask page shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Step {
    /// `orchestrator` or a Worker id (`r1-w2-doc_id`): the lane.
    pub actor: String,
    /// The actor's event number.
    pub seq: u64,
    /// The dispatch round of a Worker (`r2-…` → 2); `null` for the Orchestrator.
    pub round: Option<u32>,
    /// What the step is.
    pub kind: StepKind,
    /// One line, shown as it is ([`StepLine::text`]): `$ ` and the command, the observation's
    /// first line, the decision's [`Decision::label`], …
    pub text: String,
    /// Whether it reports a failure (a command's error output, a failed call or Worker).
    pub error: bool,
    /// The decision's kind as recorded (`decision` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// The decision's value as recorded (`decision` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
}

/// One event as one line of text, the same on the Ask page, the trace timeline and the
/// terminal's progress lines: what the step is, its text, whether it reports a failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepLine {
    /// What the step is.
    pub kind: StepKind,
    /// The text, shown as it is: `started on guide: …`, `$ cat 2.1`, the observation's first
    /// line, `evidence guide #2.1 (812 chars)`, the decision's [`Decision::label`], …
    pub text: String,
    /// Whether it reports a failure (a command's error output, a failed call or Worker, a model
    /// request with no reply yet).
    pub error: bool,
}

impl StepLine {
    /// The line of `event`. A model request is a model call still in flight (a failure until
    /// its reply comes, which has a line of its own).
    pub fn of(event: &AgentEvent) -> StepLine {
        let line = |kind, text: String, error| StepLine { kind, text, error };
        match event {
            AgentEvent::WorkerStarted { doc_id, task, .. } => line(
                StepKind::WorkerStarted,
                format!("started on {doc_id}: {task}"),
                false,
            ),
            AgentEvent::ModelRequest { messages, .. } => {
                let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
                line(
                    StepKind::ModelCall,
                    format!(
                        "model call: {} messages, {chars} chars — in flight when the recording \
                         stopped",
                        messages.len()
                    ),
                    true,
                )
            }
            AgentEvent::ModelResponse {
                usage, latency_ms, ..
            } => line(
                StepKind::ModelCall,
                format!(
                    "model call: {} + {} tokens, {latency_ms} ms",
                    usage.prompt_tokens, usage.completion_tokens
                ),
                false,
            ),
            AgentEvent::ModelError {
                message,
                latency_ms,
            } => line(
                StepKind::ModelError,
                format!("model call failed after {latency_ms} ms: {message}"),
                true,
            ),
            AgentEvent::Decision { kind, value } => {
                line(StepKind::Decision, Decision::of(kind, value).label(), false)
            }
            AgentEvent::Command { line: command } => {
                line(StepKind::Command, format!("$ {command}"), false)
            }
            AgentEvent::Observation {
                text, chars, error, ..
            } => {
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                let mut shown = one_line(first, OBSERVATION_LINE_CHARS);
                if text.lines().filter(|l| !l.trim().is_empty()).count() > 1 {
                    shown.push_str(&format!("  [{chars} chars]"));
                }
                line(StepKind::Observation, shown, *error)
            }
            AgentEvent::EvidenceCollected {
                doc_id,
                structure,
                chars,
            } => line(
                StepKind::Evidence,
                format!("evidence {doc_id} #{structure} ({chars} chars)"),
                false,
            ),
            AgentEvent::WorkerFinished {
                steps,
                evidence,
                error,
            } => match error {
                Some(e) => line(
                    StepKind::WorkerFinished,
                    format!("failed after {steps} steps: {e}"),
                    true,
                ),
                None => line(
                    StepKind::WorkerFinished,
                    format!("done: {steps} steps, {evidence} evidence"),
                    false,
                ),
            },
            AgentEvent::Error { message } => {
                line(StepKind::Error, format!("error: {message}"), true)
            }
        }
    }
}

impl Step {
    /// `record` as a step ([`StepLine::of`]); `None` for a model request (its reply carries the
    /// call's cost).
    pub fn of(record: &EventRecord) -> Option<Step> {
        if let AgentEvent::ModelRequest { .. } = record.event {
            return None;
        }
        let StepLine { kind, text, error } = StepLine::of(&record.event);
        let mut step = Step::new(record, kind, text, error);
        if let AgentEvent::Decision { kind, value } = &record.event {
            step.decision = Some(kind.clone());
            step.value = Some(value.clone());
        }
        Some(step)
    }

    fn new(record: &EventRecord, kind: StepKind, text: String, error: bool) -> Step {
        Step {
            actor: record.actor.clone(),
            seq: record.seq,
            round: round_of(&record.actor),
            kind,
            text,
            error,
            decision: None,
            value: None,
        }
    }
}

/// One line describing an event for a live progress display (`$ cd 2`, `evidence guide #2.1 (812
/// chars)`: the step's [`StepLine`] text, as the web app shows it), or
/// `None` for events not worth showing (model traffic, observations). Orchestrator decisions
/// other than `understand` are shown with their JSON.
pub fn progress_line(record: &EventRecord) -> Option<String> {
    let line = match &record.event {
        AgentEvent::WorkerStarted { .. }
        | AgentEvent::Command { .. }
        | AgentEvent::EvidenceCollected { .. }
        | AgentEvent::WorkerFinished { .. }
        | AgentEvent::Error { .. } => StepLine::of(&record.event).text,
        AgentEvent::Decision { kind, value }
            if record.actor == ORCHESTRATOR && kind == "standalone" =>
        {
            let text = value
                .get("standalone")
                .and_then(|v| v.as_str())
                .unwrap_or_default();
            format!("question, standalone: {text}")
        }
        AgentEvent::Decision { kind, value }
            if record.actor == ORCHESTRATOR && kind != "understand" =>
        {
            format!("{kind}: {value}")
        }
        _ => return None,
    };
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decision(kind: &str, value: serde_json::Value) -> Step {
        let record = EventRecord {
            actor: "orchestrator".into(),
            seq: 2,
            event: AgentEvent::Decision {
                kind: kind.into(),
                value,
            },
        };
        Step::of(&record).unwrap_or_else(|| unreachable!())
    }

    #[test]
    fn an_observation_is_its_first_line_and_its_size() {
        let record = EventRecord {
            actor: "r1-w1-guide".into(),
            seq: 4,
            event: AgentEvent::Observation {
                text: "\n1. Intro  [3 leaves]\n2. Usage\n".into(),
                chars: 30,
                sha256: String::new(),
                error: false,
            },
        };
        let view = Step::of(&record).unwrap_or_else(|| unreachable!());
        assert_eq!(view.kind, StepKind::Observation);
        assert_eq!(view.text, "1. Intro [3 leaves]  [30 chars]");
        assert_eq!(view.round, Some(1));
        assert_eq!(serde_json::to_value(&view).unwrap()["kind"], "observation");
    }

    /// Each kind of step has one text, whichever face shows it: the Ask page's script adds no
    /// `$ ` of its own, the timeline no `started on`.
    #[test]
    fn each_step_kind_reads_the_same_on_every_face() {
        use crate::llm::{ChatMessage, Usage};
        let cases = [
            (
                AgentEvent::WorkerStarted {
                    doc_id: "guide".into(),
                    task: "find the flags".into(),
                    shard: None,
                },
                StepKind::WorkerStarted,
                "started on guide: find the flags",
                false,
            ),
            (
                AgentEvent::ModelRequest {
                    messages: vec![ChatMessage::user("hi")],
                    sha256: String::new(),
                },
                StepKind::ModelCall,
                "model call: 1 messages, 2 chars — in flight when the recording stopped",
                true,
            ),
            (
                AgentEvent::ModelResponse {
                    text: "{}".into(),
                    usage: Usage {
                        prompt_tokens: 5,
                        completion_tokens: 2,
                    },
                    latency_ms: 3,
                },
                StepKind::ModelCall,
                "model call: 5 + 2 tokens, 3 ms",
                false,
            ),
            (
                AgentEvent::ModelError {
                    message: "timed out".into(),
                    latency_ms: 7,
                },
                StepKind::ModelError,
                "model call failed after 7 ms: timed out",
                true,
            ),
            (
                AgentEvent::Command {
                    line: "cat 1/8".into(),
                },
                StepKind::Command,
                "$ cat 1/8",
                false,
            ),
            (
                AgentEvent::EvidenceCollected {
                    doc_id: "guide".into(),
                    structure: "2.1".into(),
                    chars: 812,
                },
                StepKind::Evidence,
                "evidence guide #2.1 (812 chars)",
                false,
            ),
            (
                AgentEvent::WorkerFinished {
                    steps: 5,
                    evidence: 2,
                    error: None,
                },
                StepKind::WorkerFinished,
                "done: 5 steps, 2 evidence",
                false,
            ),
            (
                AgentEvent::WorkerFinished {
                    steps: 3,
                    evidence: 0,
                    error: Some("the model refused".into()),
                },
                StepKind::WorkerFinished,
                "failed after 3 steps: the model refused",
                true,
            ),
            (
                AgentEvent::Error {
                    message: "no such document".into(),
                },
                StepKind::Error,
                "error: no such document",
                true,
            ),
        ];
        for (event, kind, text, error) in cases {
            let line = StepLine::of(&event);
            assert_eq!(
                line,
                StepLine {
                    kind,
                    text: text.to_string(),
                    error
                }
            );
            let record = EventRecord {
                actor: "r1-w1-guide".into(),
                seq: 1,
                event,
            };
            // The API's step carries the same text; a request has none (its reply does).
            match Step::of(&record) {
                Some(step) => {
                    assert_eq!((step.kind, step.text, step.error), (kind, line.text, error))
                }
                None => assert!(matches!(record.event, AgentEvent::ModelRequest { .. })),
            }
        }
    }

    #[test]
    fn each_decision_kind_is_labelled_by_what_it_decided() {
        let cases = [
            (
                "analyze",
                json!({"intent": "factual", "key_concepts": ["zip", "gzip"], "strategy": "focused",
                       "tasks": [{"doc_id": "faq", "task": "t"}, {"doc_id": "guide", "task": "u"}],
                       "search": [], "reason": ""}),
                "analyze — zip, gzip → faq, guide",
            ),
            (
                "analyze",
                json!({"key_concepts": [], "tasks": [], "search": ["zip archives", "gzip"]}),
                "analyze — search zip archives; gzip",
            ),
            (
                "standalone",
                json!({"standalone": "how do I search gzip files?"}),
                "standalone — how do I search gzip files?",
            ),
            (
                "plan",
                json!({"plan": ["cat 1/8"], "reason": "r", "command": "cat 1/8"}),
                "plan — cat 1/8",
            ),
            (
                "navigate",
                json!({"reason": "r", "command": "done"}),
                "navigate — done",
            ),
            (
                "check",
                json!({"verdict": "sufficient", "missing": ""}),
                "check: sufficient",
            ),
            (
                "evaluate",
                json!({"verdict": "insufficient", "missing": "the flags", "tasks": [{"doc_id": "guide", "task": "t"}]}),
                "evaluate: insufficient — missing: the flags → guide",
            ),
            (
                "verdict",
                json!({"verdict": "absent", "missing": "", "judged_by": "analyze"}),
                "verdict: absent",
            ),
            (
                "catalog_search",
                json!({"queries": ["q"], "found": 2}),
                "catalog_search",
            ),
            // Version 2's check: no verdict field, so only its kind.
            ("check", json!({"sufficient": true}), "check"),
            ("answer_verified", json!(null), "answer_verified"),
        ];
        for (kind, value, label) in cases {
            let step = decision(kind, value.clone());
            assert_eq!(step.text, label, "{kind} {value}");
            assert_eq!(step.decision.as_deref(), Some(kind));
            assert_eq!(step.value, Some(value));
        }
        assert_eq!(
            DecisionKind::of("catalog_search"),
            DecisionKind::CatalogSearch
        );
        assert_eq!(DecisionKind::of("answer").as_str(), "answer");
    }
}
