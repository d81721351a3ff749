//! `docnav replay --show`: a readable transcript of a trace without re-running it — per actor, step
//! by step: the command, a one-line summary of its output, evidence taken, and the decisions with
//! their reasons. The same rendering, free of times, is the canonical text golden tests snapshot.

use std::fmt::Write as _;

use serde::Serialize;

use super::Trace;
use crate::agent::steps::DecisionKind;
use crate::agent::worker::first_line;
use crate::agent::{AgentEvent, EventRecord};

/// One line of a transcript, for `--show --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TranscriptLine {
    /// Actor id.
    pub actor: String,
    /// Actor sequence number of the event.
    pub seq: u64,
    /// Step (commands issued so far by the actor, this one included for commands).
    pub step: usize,
    /// Event kind (`command`, `observation`, `decision:plan`, …).
    pub kind: String,
    /// The rendered line.
    pub text: String,
}

fn one_line(text: &str, max: usize) -> String {
    let mut s = first_line(text, max);
    let more = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
        .saturating_sub(1);
    if more > 0 {
        let _ = write!(s, "  (+{more} lines)");
    }
    s
}

/// `kind: N task(s)` and one `- doc: task` line per task of `value["tasks"]`.
fn tasks_text(kind: &str, value: &serde_json::Value) -> String {
    let tasks = value
        .get("tasks")
        .and_then(|t| t.as_array())
        .cloned()
        .unwrap_or_default();
    let mut out = format!("{kind}: {} task(s)", tasks.len());
    for t in tasks {
        let _ = write!(
            out,
            "\n      - {}: {}",
            t.get("doc_id").and_then(|v| v.as_str()).unwrap_or("?"),
            t.get("task").and_then(|v| v.as_str()).unwrap_or("")
        );
    }
    out
}

/// A decision in words. Reads every trace version: version 3's `analyze` carries the
/// understanding, `plan` its first command, `check`/`evaluate` a `verdict` string and `evaluate`
/// the next round's tasks (shown as its replan); versions 1–2 had `sufficient: bool` verdicts and
/// separate `understand` and `replan` decisions.
fn decision_text(kind: &str, value: &serde_json::Value) -> String {
    let s = |k: &str| {
        value
            .get(k)
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    let understanding = || {
        format!(
            "understand: {} question, {} strategy; key concepts: {}",
            s("intent"),
            s("strategy"),
            value
                .get("key_concepts")
                .map(|v| v.to_string())
                .unwrap_or_default()
        )
    };
    let verdict = || match (value.get("verdict"), value.get("sufficient")) {
        (Some(v), _) => v.as_str().unwrap_or("?").to_string(),
        (None, Some(b)) if b.as_bool() == Some(true) => "sufficient".to_string(),
        _ => "insufficient".to_string(),
    };
    match DecisionKind::of(kind) {
        DecisionKind::Understand => understanding(),
        DecisionKind::Analyze if value.get("intent").is_some() => {
            format!("{}\n  {}", understanding(), tasks_text(kind, value))
        }
        DecisionKind::Analyze | DecisionKind::Replan if value.get("tasks").is_some() => {
            tasks_text(kind, value)
        }
        DecisionKind::Plan | DecisionKind::Replan => {
            let steps = value
                .get("plan")
                .and_then(|t| t.as_array())
                .cloned()
                .unwrap_or_default();
            let mut out = format!("{kind}:");
            for (i, st) in steps.iter().enumerate() {
                let _ = write!(out, "\n      {}. {}", i + 1, st.as_str().unwrap_or(""));
            }
            if value.get("command").is_some() {
                let _ = write!(out, "\n  why: {}", s("reason"));
            }
            out
        }
        DecisionKind::Navigate => format!("why: {}", s("reason")),
        DecisionKind::Verdict => {
            match serde_json::from_value::<crate::agent::evidence::AnswerVerdict>(value.clone()) {
                Ok(v) => format!("final {}", v.line()),
                Err(_) => format!("{kind}: {value}"),
            }
        }
        DecisionKind::Check | DecisionKind::Evaluate => {
            let verdict = verdict();
            let mut out = if verdict == "sufficient" {
                format!("{kind}: sufficient")
            } else {
                let what = if verdict == "absent" {
                    "not covered"
                } else {
                    "missing"
                };
                format!("{kind}: {verdict} — {what}: {}", s("missing"))
            };
            let next = value
                .get("tasks")
                .and_then(|t| t.as_array())
                .is_some_and(|t| !t.is_empty());
            if next {
                let _ = write!(out, "\n  {}", tasks_text("replan", value));
            }
            out
        }
        _ => format!("{kind}: {value}"),
    }
}

/// Transcript lines of a trace: the orchestrator first, then workers by round and index; events in
/// sequence order.
pub fn transcript(trace: &Trace) -> Vec<TranscriptLine> {
    let mut actors: Vec<&str> = Vec::new();
    for e in &trace.events {
        if !actors.contains(&e.actor.as_str()) {
            actors.push(&e.actor);
        }
    }
    let mut out = Vec::new();
    actors.sort_by_key(|a| crate::agent::events::actor_order_key(a));
    for actor in actors {
        let mut events: Vec<&EventRecord> =
            trace.events.iter().filter(|e| e.actor == actor).collect();
        events.sort_by_key(|e| e.seq);
        let mut step = 0;
        // Commands before a worker's first plan are its bird's-eye overview, not model steps.
        let mut planned = actor == crate::agent::events::ORCHESTRATOR;
        let mut replies: Vec<String> = Vec::new();
        // The seq of a request whose response or error has not been seen yet.
        let mut in_flight = None;
        for e in events {
            let (kind, text) = match &e.event {
                AgentEvent::WorkerStarted {
                    doc_id,
                    task,
                    shard,
                } => {
                    let on = shard.map(|s| format!(" (shard {s})")).unwrap_or_default();
                    (
                        "start".to_string(),
                        format!("task on `{doc_id}`{on}: {task}"),
                    )
                }
                AgentEvent::ModelRequest { .. } => {
                    in_flight = Some(e.seq);
                    continue;
                }
                AgentEvent::ModelResponse { text, .. } => {
                    in_flight = None;
                    replies.push(text.clone());
                    continue;
                }
                // The `error` event that follows says it, with the decision it was for.
                AgentEvent::ModelError { .. } => {
                    in_flight = None;
                    continue;
                }
                AgentEvent::Decision { kind, value } => {
                    planned |= kind == "plan";
                    let mut text = decision_text(kind, value);
                    if replies.len() > 1 {
                        let _ = write!(
                            text,
                            "\n      (repaired: the first reply did not parse: {:?})",
                            one_line(&replies[0], 80)
                        );
                    }
                    replies.clear();
                    (format!("decision:{kind}"), text)
                }
                AgentEvent::Command { line } if !planned => {
                    ("command".to_string(), format!("overview: $ {line}"))
                }
                AgentEvent::Command { line } => {
                    step += 1;
                    ("command".to_string(), format!("step {step}: $ {line}"))
                }
                AgentEvent::Observation {
                    chars: 0,
                    error: false,
                    ..
                } => continue,
                AgentEvent::Observation {
                    text, chars, error, ..
                } => (
                    "observation".to_string(),
                    format!(
                        "{}{}  [{chars} chars]",
                        if *error { "error: " } else { "→ " },
                        one_line(text, 100)
                    ),
                ),
                AgentEvent::EvidenceCollected {
                    doc_id,
                    structure,
                    chars,
                } => (
                    "evidence".to_string(),
                    format!("evidence: {doc_id} #{structure} ({chars} chars)"),
                ),
                AgentEvent::WorkerFinished {
                    steps,
                    evidence,
                    error,
                } => (
                    "finish".to_string(),
                    match error {
                        Some(err) => {
                            format!("FAILED after {steps} steps, {evidence} evidence: {err}")
                        }
                        None => format!("finished: {steps} steps, {evidence} evidence"),
                    },
                ),
                AgentEvent::Error { message } => {
                    // Replies of a decision that failed are not a later decision's repair.
                    replies.clear();
                    ("error".to_string(), format!("ERROR: {message}"))
                }
            };
            out.push(TranscriptLine {
                actor: actor.to_string(),
                seq: e.seq,
                step,
                kind,
                text,
            });
        }
        if let Some(seq) = in_flight {
            out.push(TranscriptLine {
                actor: actor.to_string(),
                seq,
                step,
                kind: "error".into(),
                text: "(the recording stops here, with a model call in flight)".into(),
            });
        }
    }
    out
}

/// The transcript as text: a header, then one block per actor.
pub fn render_transcript(trace: &Trace) -> String {
    let h = &trace.header;
    let mut s = format!(
        "question: {}\nmodel: {}  (trace format {}, docnav {})\ndocuments: {}\n",
        h.question,
        h.model,
        h.format_version,
        h.docnav_version,
        match &h.catalog {
            Some(c) => format!("{} (catalog sha256 {})", c.documents, &c.sha256[..12]),
            None => h
                .documents
                .iter()
                .map(|d| d.doc_id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }
    );
    let mut current = String::new();
    for line in transcript(trace) {
        if line.actor != current {
            let _ = write!(s, "\n== {} ==\n", line.actor);
            current = line.actor.clone();
        }
        let indent = if line.kind == "command"
            || line.kind.starts_with("decision")
            || line.kind == "start"
            || line.kind == "finish"
            || line.kind == "error"
        {
            "  "
        } else {
            "      "
        };
        let _ = writeln!(s, "{indent}{}", line.text);
    }
    if let Some(line) = trace.truncated_at_line {
        let _ = writeln!(
            s,
            "\n(trace ends at line {line}: the last line was cut; shown up to there)"
        );
    }
    s
}
