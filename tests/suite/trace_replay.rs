//! Replaying traces through the real binary: divergences (an edited document, with a short diff),
//! failed and in-flight model calls, truncated traces, other format versions.

use std::path::Path;

use pretty_assertions::assert_eq;

use super::agent::{analysis, command, evaluation, plan, worker_tag, EVALUATE_TAG};
use super::common::{fixture, run};
use super::trace::{ask_cmd, output, record, workspace, SCENARIOS};
use crate::support::fake_model::{FakeModel, Reply};

#[tokio::test(flavor = "multi_thread")]
async fn an_edited_document_is_reported_at_the_step_that_diverges() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let notes = src.join("notes.txt");
    std::fs::copy(fixture("notes.txt"), &notes).unwrap();
    let ws = dir.path().join("ws");
    assert_eq!(run(&ws, &["index", notes.to_str().unwrap()]).code, 0);
    // Key concepts that `find` does not hit, so the overview shows only the top level; the worker
    // then runs step 1 `cd 1` and step 2 `cat 1`, which shows section 1.1's text.
    let fake = FakeModel::start(vec![
        analysis(&["zzqx"], &[("notes", "how to keep several indexes apart")]),
        plan("notes", &["cd 1", "cat 1"], "cd 1"),
        command("notes", "cat 1"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let trace = dir.path().join("t.jsonl");
    let question = "How do I keep two indexes apart?";
    let args = ["--rounds", "1", "--trace", trace.to_str().unwrap()];
    let r = output(ask_cmd(&ws, &fake, &[&[question][..], &args[..]].concat())).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    fake.verify().unwrap();

    // Same document: identical.
    assert_eq!(run(&ws, &["replay", trace.to_str().unwrap()]).code, 0);
    // Edit inside section 1.1 (same size, a word in no summary, snippet or DocCard term).
    let edited = std::fs::read_to_string(&notes)
        .unwrap()
        .replace("keep several indexes apart", "keep various indexes apart");
    std::fs::write(&notes, edited).unwrap();
    assert_eq!(run(&ws, &["index", notes.to_str().unwrap()]).code, 0);
    let r = run(&ws, &["replay", trace.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("note: document `notes` changed since the recording"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("replay diverged in r1-w1-notes at step 2 (event"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("expected: observation of")
            && r.stderr.contains("actual:   observation of"),
        "{}",
        r.stderr
    );
    // The short diff: the first differing line of the observation, with its number, the recorded
    // word on the `-` line and the new one on the `+` line (each side's summary alone, its sha and
    // first line, would not show the edit).
    assert!(
        r.stderr.contains("first difference at line"),
        "{}",
        r.stderr
    );
    let minus: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("- "))
        .collect();
    let plus: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("+ "))
        .collect();
    assert_eq!((minus.len(), plus.len()), (1, 1), "{}", r.stderr);
    assert!(
        minus[0].contains("keep several indexes apart") && !minus[0].contains("various"),
        "{}",
        r.stderr
    );
    assert!(
        plus[0].contains("keep various indexes apart") && !plus[0].contains("several"),
        "{}",
        r.stderr
    );
    // Both carry the same line number.
    let number = |l: &str| {
        l.trim_start()[2..]
            .split_whitespace()
            .next()
            .map(str::to_string)
    };
    assert_eq!(number(minus[0]), number(plus[0]), "{}", r.stderr);
}

/// One actor's events of a trace as (type, event JSON), in sequence order.
fn actor_events(trace: &Path, actor: &str) -> Vec<(String, serde_json::Value)> {
    let t = docnav::trace::read_trace(trace).unwrap();
    let mut events: Vec<_> = t.events.into_iter().filter(|e| e.actor == actor).collect();
    events.sort_by_key(|e| e.seq);
    events
        .into_iter()
        .map(|e| {
            let v = serde_json::to_value(&e).unwrap();
            (v["type"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn failed_model_calls_are_recorded_as_they_happen_and_replay_as_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["notes.txt"]);
    let tag = worker_tag("notes");
    // The worker's plan reply does not parse, nor does the repair: both are real calls with
    // their own usage and latency. The orchestrator's evaluate call then fails with HTTP 401.
    let fake = FakeModel::start(vec![
        analysis(&["workspace"], &[("notes", "how to keep indexes apart")]),
        Reply::text("no json here")
            .usage(11, 3)
            .after(30)
            .when(&tag),
        Reply::text("still none").usage(13, 5).when(&tag),
        Reply::status(401).when(EVALUATE_TAG),
    ])
    .await;
    let trace = dir.path().join("t.jsonl");
    let args = ["q", "--rounds", "2", "--trace", trace.to_str().unwrap()];
    let r = output(ask_cmd(&ws, &fake, &args)).await;
    assert_ne!(r.code, 0, "{}", r.stderr);
    let _ = fake.verify();

    let worker = actor_events(&trace, "r1-w1-notes");
    let kinds: Vec<&str> = worker.iter().map(|(k, _)| k.as_str()).collect();
    let first_request = kinds.iter().position(|k| *k == "model_request").unwrap();
    assert_eq!(
        kinds[first_request..],
        [
            "model_request",
            "model_response",
            "model_request",
            "model_response",
            "error",
            "worker_finished"
        ],
        "{worker:?}"
    );
    let usage = |i: usize| {
        let v = &worker[first_request + i].1;
        (
            v["usage"]["prompt_tokens"].as_u64().unwrap(),
            v["usage"]["completion_tokens"].as_u64().unwrap(),
            v["latency_ms"].as_u64().unwrap(),
        )
    };
    let (p, c, ms) = usage(1);
    assert!(
        (p, c) == (11, 3) && ms >= 30,
        "{:?}",
        worker[first_request + 1]
    );
    assert_eq!((usage(3).0, usage(3).1), (13, 5));

    // The orchestrator's failed call: its request, then the failure, then its error.
    let orchestrator = actor_events(&trace, "orchestrator");
    let tail: Vec<&str> = orchestrator[orchestrator.len() - 3..]
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        tail,
        ["model_request", "model_error", "error"],
        "{orchestrator:?}"
    );
    let message = orchestrator[orchestrator.len() - 2].1["message"]
        .as_str()
        .unwrap();
    assert!(message.contains("HTTP 401"), "{message}");

    // Replay answers each call as recorded, failures included, and says the run failed so.
    let r = run(&ws, &["replay", trace.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.starts_with("replay identical:") && r.stdout.contains("failed the same way"),
        "{}",
        r.stdout
    );

    // A recording that stops with the orchestrator's call in flight replays up to there.
    let text = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let request = lines
        .iter()
        .rposition(|l| l.contains("\"type\":\"model_request\""))
        .unwrap();
    std::fs::write(&trace, format!("{}\n", lines[..=request].join("\n"))).unwrap();
    let r = run(&ws, &["replay", trace.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("the recording of orchestrator stops with a model call in flight"),
        "{}",
        r.stderr
    );
    let show = run(&ws, &["replay", "--show", trace.to_str().unwrap()]);
    assert!(
        show.stdout.contains("with a model call in flight"),
        "{}",
        show.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_truncated_trace_replays_up_to_the_cut() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let (ws, _) = record(&SCENARIOS[0], dir.path(), &trace).await;
    let text = std::fs::read_to_string(&trace).unwrap();
    let cut = &text[..text.len() - 40];
    std::fs::write(&trace, cut).unwrap();
    let lines = cut.lines().count();
    let r = run(&ws, &["replay", trace.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains(&format!("the trace ends at line {lines}")),
        "{}",
        r.stderr
    );
    let show = run(&ws, &["replay", "--show", trace.to_str().unwrap()]);
    assert!(
        show.stdout.contains(&format!("trace ends at line {lines}")),
        "{}",
        show.stdout
    );
}

#[test]
fn a_trace_from_another_format_version_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.jsonl");
    std::fs::write(&old, "{\"type\":\"header\",\"format_version\":0}\n").unwrap();
    let r = run(
        &dir.path().join("ws"),
        &["replay", "--show", old.to_str().unwrap()],
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("format version 0; this docnav reads format versions 1 to 4"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_missing_trace_is_one_line_naming_it_and_its_os_error_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let r = run(
        &dir.path().join("ws"),
        &["replay", missing.to_str().unwrap()],
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        format!(
            "error: trace `{}`: No such file or directory (os error 2)\n",
            missing.display()
        )
    );
}

/// Past 500 documents a trace header records the catalog by a digest, not one entry per
/// document (format version 4): the header stays small, the trace replays identically over the
/// same workspace, and a changed workspace is noted (which document, unknown).
#[tokio::test(flavor = "multi_thread")]
async fn a_large_workspace_is_recorded_by_its_catalog_digest_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::copy(fixture("notes.txt"), src.join("notes.txt")).unwrap();
    for i in 0..docnav::trace::LISTED_DOCUMENTS_MAX {
        std::fs::write(
            src.join(format!("filler-{i:03}.md")),
            format!("# Filler {i}\n\nNothing here but filler number {i}.\n"),
        )
        .unwrap();
    }
    let ws = dir.path().join("ws");
    let r = run(&ws, &["index", src.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let fake = FakeModel::start(vec![
        analysis(
            &["workspace"],
            &[("notes", "how to keep several indexes apart")],
        ),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let trace = dir.path().join("t.jsonl");
    let question = "How do I keep two indexes apart?";
    let args = ["--rounds", "1", "--trace", trace.to_str().unwrap()];
    let r = output(ask_cmd(&ws, &fake, &[&[question][..], &args[..]].concat())).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    fake.verify().unwrap();
    let header = docnav::trace::read_trace(&trace).unwrap().header;
    assert_eq!(header.format_version, 4);
    assert!(header.documents.is_empty());
    assert_eq!(
        header.document_count(),
        docnav::trace::LISTED_DOCUMENTS_MAX + 1
    );
    let first_line = std::fs::read_to_string(&trace).unwrap();
    let first_line = first_line.lines().next().unwrap();
    assert!(first_line.len() < 2_000, "{} bytes", first_line.len());

    let r = run(&ws, &["replay", trace.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.starts_with("replay identical: "), "{}", r.stdout);
    let shown = run(&ws, &["replay", "--show", trace.to_str().unwrap()]);
    assert!(
        shown.stdout.contains("documents: 501 (catalog sha256 "),
        "{}",
        shown.stdout
    );

    std::fs::write(src.join("one-more.md"), "# One more\n\nA new document.\n").unwrap();
    assert_eq!(run(&ws, &["index", src.to_str().unwrap()]).code, 0);
    let r = run(&ws, &["replay", trace.to_str().unwrap()]);
    assert!(
        r.stderr.contains(
            "note: the workspace changed since the recording (501 documents then, 502 now;"
        ),
        "{}",
        r.stderr
    );
}
