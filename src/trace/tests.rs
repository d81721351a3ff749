#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use super::replay::{first_divergence, recorded_replies};
use super::*;
use crate::agent::{AgentEvent, EventRecord};
use crate::llm::Usage;

fn header() -> TraceHeader {
    TraceHeader {
        format_version: TRACE_FORMAT_VERSION,
        docnav_version: "0.1.0".into(),
        question: "how?".into(),
        model: "m".into(),
        options: serde_json::json!({}),
        documents: vec![],
        started_unix_ms: 0,
    }
}

fn ev(actor: &str, seq: u64, event: AgentEvent) -> EventRecord {
    EventRecord {
        actor: actor.into(),
        seq,
        event,
    }
}

fn req(sha: &str) -> AgentEvent {
    AgentEvent::ModelRequest {
        messages: vec![],
        sha256: sha.into(),
    }
}

fn resp(text: &str) -> AgentEvent {
    AgentEvent::ModelResponse {
        text: text.into(),
        usage: Usage::default(),
        latency_ms: 5,
    }
}

#[test]
fn replies_are_paired_per_actor_in_order() {
    let events = vec![
        ev("w1", 0, req("a")),
        ev("w2", 0, req("x")),
        ev("w1", 1, resp("one")),
        ev("w1", 2, AgentEvent::Command { line: "ls".into() }),
        ev("w2", 1, resp("ex")),
        ev("w1", 3, req("b")),
        ev("w1", 4, resp("two")),
    ];
    let table = recorded_replies(&events);
    let w1: Vec<_> = table["w1"]
        .iter()
        .map(|r| (r.request_sha256.as_str(), r.text.as_str()))
        .collect();
    assert_eq!(w1, vec![("a", "one"), ("b", "two")]);
    let w2: Vec<_> = table["w2"].iter().map(|r| r.text.as_str()).collect();
    assert_eq!(w2, vec!["ex"]);
    // A request without a response (cut trace) yields no reply.
    assert!(!recorded_replies(&[ev("w3", 0, req("z"))]).contains_key("w3"));
}

#[test]
fn divergence_names_actor_step_and_both_sides() {
    let cmd = |line: &str| AgentEvent::Command { line: line.into() };
    let plan = AgentEvent::Decision {
        kind: "plan".into(),
        value: serde_json::json!({"plan": []}),
    };
    let a = vec![
        ev("w1", 0, cmd("ls")),
        ev("w1", 1, plan),
        ev("w1", 2, cmd("cd 2")),
        ev("w1", 3, cmd("cat 2")),
    ];
    let mut b = a.clone();
    b[3] = ev("w1", 3, cmd("cat 3"));
    let d = first_divergence(&a, &b, false).unwrap();
    // The overview `ls` is not a step: `cd 2` is step 1, the diverging `cat` step 2.
    assert_eq!((d.actor.as_str(), d.seq, d.step), ("w1", 3, 2));
    assert_eq!(d.expected, "command `cat 2`");
    assert_eq!(d.actual, "command `cat 3`");
    assert!(d.to_string().contains("in w1 at step 2 (event 3)"), "{d}");
    assert!(first_divergence(&a, &a, false).is_none());
    // After a cut, a replay that goes further is not a divergence.
    assert!(first_divergence(&a[..1], &a, true).is_none());
    assert!(first_divergence(&a[..1], &a, false).is_some());
    // A difference in the overview comes before the first step.
    let mut c = a.clone();
    c[0] = ev("w1", 0, cmd("ls /"));
    let d = first_divergence(&a, &c, false).unwrap();
    assert_eq!(d.step, 0);
    assert!(d.to_string().contains("before its first step"), "{d}");
}

#[test]
fn truncated_last_line_is_dropped_and_reported() {
    let mut text = header_line(&header());
    text.push('\n');
    text.push_str(
        &serde_json::to_string(&ev("w1", 0, AgentEvent::Command { line: "ls".into() })).unwrap(),
    );
    text.push('\n');
    text.push_str(r#"{"actor":"w1","seq":1,"type":"comm"#);
    let trace = parse_trace(Path::new("t.jsonl"), &text).unwrap();
    assert_eq!(trace.events.len(), 1);
    assert_eq!(trace.truncated_at_line, Some(3));
}

#[test]
fn other_format_versions_are_refused_naming_both() {
    let mut h = header();
    h.format_version = 0;
    let text = header_line(&h);
    let err = parse_trace(Path::new("old.jsonl"), &text)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("format version 0") && err.contains("reads version 1"),
        "{err}"
    );
    let err = parse_trace(Path::new("x.jsonl"), "{\"type\":\"command\"}")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a docnav trace"), "{err}");
}

#[test]
fn trace_file_names_carry_utc_time_and_question_slug() {
    // 2026-11-22T14:04:31Z
    assert_eq!(
        trace_file_name(1_795_356_271_000, "How do I rename a file?"),
        "20261122T140431Z-how-do-i-rename-a-file.jsonl"
    );
}
