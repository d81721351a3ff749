use std::path::Path;

use super::replay::{
    first_divergence, in_flight_actors, recorded_calls, CallOutcome, ReplayRouter,
};
use super::*;
use crate::agent::{AgentEvent, EventRecord, ModelRouter};
use crate::llm::{ChatMessage, ChatRequest, LlmError, Usage};

/// The header of a trace of the question "how?" to model `m` over no documents, started at
/// the epoch: what the tests of the trace module and its writer record under.
pub(super) fn header() -> TraceHeader {
    TraceHeader {
        format_version: TRACE_FORMAT_VERSION,
        docnav_version: "0.1.0".into(),
        question: "how?".into(),
        model: "m".into(),
        options: serde_json::json!({}),
        documents: vec![],
        started_unix_ms: 0,
        memory: Vec::new(),
        shards: Vec::new(),
        catalog: None,
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

fn fail(message: &str) -> AgentEvent {
    AgentEvent::ModelError {
        message: message.into(),
        latency_ms: 30_000,
    }
}

fn cmd(line: &str) -> AgentEvent {
    AgentEvent::Command { line: line.into() }
}

/// One actor's calls as (request sha, outcome) with outcomes written `reply:TEXT`, `failed:MSG`
/// or `in flight`.
fn calls_of(events: &[EventRecord], actor: &str) -> Vec<(String, String)> {
    recorded_calls(events)
        .get(actor)
        .map(|calls| {
            calls
                .iter()
                .map(|c| {
                    let outcome = match &c.outcome {
                        CallOutcome::Reply { text, .. } => format!("reply:{text}"),
                        CallOutcome::Failed { message } => format!("failed:{message}"),
                        CallOutcome::InFlight => "in flight".into(),
                    };
                    (c.request_sha256.clone(), outcome)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// (case, events, actor, expected (request sha, outcome) calls, actors ending in flight).
type PairingCase = (
    &'static str,
    Vec<EventRecord>,
    &'static str,
    Vec<(String, String)>,
    Vec<&'static str>,
);

#[test]
fn calls_are_paired_per_actor_in_order() {
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    // (case, events, actor, expected calls, actors whose recording ends in flight)
    let table: Vec<PairingCase> = vec![
        (
            "two actors interleaved",
            vec![
                ev("w1", 0, req("a")),
                ev("w2", 0, req("x")),
                ev("w1", 1, resp("one")),
                ev("w1", 2, cmd("ls")),
                ev("w2", 1, resp("ex")),
                ev("w1", 3, req("b")),
                ev("w1", 4, resp("two")),
            ],
            "w1",
            pairs(&[("a", "reply:one"), ("b", "reply:two")]),
            vec![],
        ),
        (
            "file order differs from sequence order",
            vec![
                ev("w1", 1, resp("one")),
                ev("w1", 0, req("a")),
                ev("w1", 2, req("b")),
                ev("w1", 3, resp("two")),
            ],
            "w1",
            pairs(&[("a", "reply:one"), ("b", "reply:two")]),
            vec![],
        ),
        (
            "a failed call, then the next one",
            vec![
                ev("w1", 0, req("a")),
                ev("w1", 1, fail("timed out")),
                ev("w1", 2, req("b")),
                ev("w1", 3, resp("two")),
            ],
            "w1",
            pairs(&[("a", "failed:timed out"), ("b", "reply:two")]),
            vec![],
        ),
        (
            "the last call failed",
            vec![
                ev("w1", 0, req("a")),
                ev("w1", 1, resp("one")),
                ev("w1", 2, req("b")),
                ev("w1", 3, fail("HTTP 500")),
                ev(
                    "w1",
                    4,
                    AgentEvent::Error {
                        message: "navigate: HTTP 500".into(),
                    },
                ),
            ],
            "w1",
            pairs(&[("a", "reply:one"), ("b", "failed:HTTP 500")]),
            vec![],
        ),
        (
            "the last request has no response: in flight",
            vec![
                ev("w1", 0, req("a")),
                ev("w1", 1, resp("one")),
                ev("w2", 0, req("x")),
                ev("w1", 2, cmd("ls")),
                ev("w1", 3, req("b")),
                ev("w2", 1, resp("ex")),
            ],
            "w1",
            pairs(&[("a", "reply:one"), ("b", "in flight")]),
            vec!["w1"],
        ),
        (
            "only a request (cut trace)",
            vec![ev("w3", 0, req("z"))],
            "w3",
            pairs(&[("z", "in flight")]),
            vec!["w3"],
        ),
        (
            "version 1: a failed call left only an error, no request",
            vec![
                ev(
                    "w1",
                    0,
                    AgentEvent::Error {
                        message: "plan: timed out".into(),
                    },
                ),
                ev("w1", 1, req("a")),
                ev("w1", 2, resp("one")),
            ],
            "w1",
            pairs(&[("a", "reply:one")]),
            vec![],
        ),
    ];
    for (case, events, actor, expected, in_flight) in table {
        assert_eq!(calls_of(&events, actor), expected, "{case}");
        assert_eq!(in_flight_actors(&events), in_flight, "{case}");
    }
}

#[tokio::test]
async fn the_replay_model_answers_failures_as_recorded_and_stops_at_a_call_in_flight() {
    let messages = vec![ChatMessage::user("q")];
    let sha = crate::agent::events::messages_sha256(&messages);
    let trace = Trace {
        header: header(),
        events: vec![
            ev("w1", 0, req(&sha)),
            ev("w1", 1, resp("one")),
            ev("w1", 2, req(&sha)),
            ev(
                "w1",
                3,
                fail("model request to http://x timed out after 5 ms (1 attempts)"),
            ),
            ev("w1", 4, req(&sha)),
        ],
        truncated_at_line: None,
    };
    let model = ReplayRouter::new(&trace).model_for("w1");
    let call = || model.complete(ChatRequest::new(messages.clone()));
    assert_eq!(call().await.unwrap().text, "one");
    let err = call().await.unwrap_err();
    assert!(matches!(err, LlmError::Recorded(_)), "{err:?}");
    // Displayed exactly as recorded, so the run's own error events replay identically.
    assert_eq!(
        err.to_string(),
        "model request to http://x timed out after 5 ms (1 attempts)"
    );
    let err = call().await.unwrap_err().to_string();
    assert!(err.contains("ends while this call was in flight"), "{err}");
    let err = call().await.unwrap_err().to_string();
    assert!(
        err.contains("a model call the trace does not have"),
        "{err}"
    );
    // A different request is refused before its recorded outcome is used.
    let model = ReplayRouter::new(&trace).model_for("w1");
    let err = model
        .complete(ChatRequest::new(vec![ChatMessage::user("other")]))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("differs from the recorded one"), "{err}");
}

#[test]
fn a_recording_that_stops_mid_call_is_compared_up_to_there() {
    let recorded = vec![
        ev("w1", 0, req("a")),
        ev("w1", 1, resp("one")),
        ev("w1", 2, req("b")),
    ];
    // The replay's call fails (in flight) and the worker goes on to finish.
    let mut replayed = recorded.clone();
    replayed.push(ev("w1", 3, fail("replay: in flight")));
    replayed.push(ev("w1", 4, cmd("done")));
    assert!(first_divergence(&recorded, &replayed, true).is_none());
    // A failed call replays as a failure with the same message; another message diverges.
    let mut failed = recorded.clone();
    failed.push(ev("w1", 3, fail("HTTP 500")));
    assert!(first_divergence(&failed, &failed, false).is_none());
    let mut other = recorded.clone();
    other.push(ev("w1", 3, fail("HTTP 502")));
    let d = first_divergence(&failed, &other, false).unwrap();
    assert_eq!(d.expected, "model call failed: HTTP 500");
    assert_eq!(d.actual, "model call failed: HTTP 502");
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
fn an_observation_divergence_shows_the_first_differing_line() {
    let obs = |text: &str, sha: &str| AgentEvent::Observation {
        text: text.into(),
        chars: text.chars().count(),
        sha256: sha.into(),
        error: false,
    };
    let text = "1 Getting started\n\nPass --workspace DIR to keep several indexes apart.\nMore.";
    let a = vec![ev("w1", 0, obs(text, "aaaa"))];
    let b = vec![ev(
        "w1",
        0,
        obs(&text.replace("several", "various"), "bbbb"),
    )];
    let shown = first_divergence(&a, &b, false).unwrap().to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(
        lines[3..],
        [
            "  first difference at line 3 of the observation (- expected, + actual):",
            "      1  1 Getting started",
            "      2",
            "    - 3  Pass --workspace DIR to keep several indexes apart.",
            "    + 3  Pass --workspace DIR to keep various indexes apart.",
        ],
        "{shown}"
    );
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
        err.contains("format version 0; this docnav reads format versions 1 to 4")
            && err.contains("re-record it"),
        "{err}"
    );
    h.format_version = 5;
    let err = parse_trace(Path::new("new.jsonl"), &header_line(&h))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("format version 5; this docnav reads format versions 1 to 4")
            && err.contains("newer docnav"),
        "{err}"
    );
    // Version 1 (no `model_error` events) is still read.
    h.format_version = 1;
    let mut text = header_line(&h);
    text.push('\n');
    text.push_str(&serde_json::to_string(&ev("w1", 0, req("a"))).unwrap());
    text.push('\n');
    let trace = parse_trace(Path::new("v1.jsonl"), &text).unwrap();
    assert_eq!(trace.events.len(), 1);
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

/// Regression: two runs of one question in the same second (a server answering several people)
/// wrote into one file, interleaving their events into a trace that no longer parsed.
#[test]
fn runs_of_one_question_in_one_second_get_their_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let h = header();
    let writers: Vec<TraceWriter> = (0..3)
        .map(|_| TraceWriter::create_in(dir.path(), &h).unwrap())
        .collect();
    let base = trace_file_name(h.started_unix_ms, &h.question);
    let stem = base.trim_end_matches(".jsonl");
    let names: Vec<String> = writers
        .iter()
        .map(|w| w.path().file_name().unwrap().to_string_lossy().to_string())
        .collect();
    assert_eq!(
        names,
        [
            base.clone(),
            format!("{stem}-2.jsonl"),
            format!("{stem}-3.jsonl")
        ]
    );
    for w in &writers {
        w.finish().unwrap();
        assert_eq!(read_trace(w.path()).unwrap().header, h);
    }
}
