//! Traces end to end through the real binary: record with `docnav ask --trace` against the fake
//! model, replay without a model, show transcripts; golden traces in `fixtures/traces/`.
//!
//! Re-record the golden traces (after a deliberate prompt or output change) with
//! `DOCNAV_UPDATE_GOLDEN=1 cargo test --test all golden`, then review the snapshot diffs.

use std::path::{Path, PathBuf};
use std::process::Command;

use pretty_assertions::assert_eq;

use super::agent::{command, plan, tasks, understand, verdict, worker_tag};
use super::common::{docnav, fixture, run, Run};
use crate::support::fake_model::{FakeModel, Reply};

const SECRET: &str = "sk-test-SECRET123";

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/traces")
}

/// A workspace with these fixture documents.
fn workspace(dir: &Path, docs: &[&str]) -> PathBuf {
    let ws = dir.join("ws");
    let mut args = vec!["index".to_string()];
    args.extend(docs.iter().map(|d| fixture(d).display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&ws, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    ws
}

fn ask_cmd(ws: &Path, fake: &FakeModel, args: &[&str]) -> Command {
    let mut cmd = docnav(ws);
    cmd.arg("ask")
        .args(args)
        .env("DOCNAV_MODEL", "fake-model")
        .env("OPENAI_BASE_URL", fake.base_url())
        .env("OPENAI_API_KEY", SECRET);
    cmd
}

async fn output(mut cmd: Command) -> Run {
    tokio::task::spawn_blocking(move || cmd.output().unwrap().into())
        .await
        .unwrap()
}

struct Scenario {
    name: &'static str,
    docs: &'static [&'static str],
    question: &'static str,
    args: &'static [&'static str],
    script: fn() -> Vec<Reply>,
}

fn single_doc() -> Vec<Reply> {
    vec![
        understand(&["workspace", "DOCNAV_WORKSPACE"]),
        tasks(&[("notes", "how to keep several indexes apart")]),
        plan("notes", &["cd 1", "cat 1.1"]),
        command("notes", "cd 1"),
        command("notes", "cat 1"),
        command("notes", "done"),
    ]
}

fn multi_doc_replan() -> Vec<Reply> {
    vec![
        understand(&["café", "OCR"]),
        tasks(&[
            ("multilingual", "how café crème is made"),
            ("notes", "PDF without text"),
        ]),
        plan("multilingual", &["cat 2"]),
        plan("notes", &["cat 3"]),
        command("multilingual", "cat '/multilingual/Café crème'"),
        command("notes", "cat '#3'"),
        command("multilingual", "done"),
        command("notes", "done"),
        verdict(false, "how café noir is served"),
        tasks(&[("multilingual", "café noir")]),
        plan("multilingual", &["cat 3"]),
        command("multilingual", "cat 3"),
        command("multilingual", "done"),
    ]
}

fn malformed_repair() -> Vec<Reply> {
    vec![
        understand(&["grep", "search"]),
        tasks(&[("notes", "how to search")]),
        plan("notes", &["find grep"]),
        Reply::text("Let me search for grep first.").when(&worker_tag("notes")),
        command("notes", "find grep regular expression"),
        command("notes", "cat /notes/2/1"),
        command("notes", "done"),
    ]
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "single-doc",
        docs: &["notes.txt"],
        question: "How do I keep two indexes apart?",
        args: &["--rounds", "1"],
        script: single_doc,
    },
    Scenario {
        name: "multi-doc-replan",
        docs: &["notes.txt", "multilingual.md"],
        question: "How is café crème made, and what if my PDF has no text?",
        args: &["--rounds", "2"],
        script: multi_doc_replan,
    },
    Scenario {
        name: "malformed-repair",
        docs: &["notes.txt"],
        question: "How do I search with a regular expression?",
        args: &["--rounds", "1"],
        script: malformed_repair,
    },
];

/// Record `scenario` into `trace`; returns the `ask --json` output.
async fn record(scenario: &Scenario, dir: &Path, trace: &Path) -> (PathBuf, Run) {
    let ws = workspace(dir, scenario.docs);
    let fake = FakeModel::start((scenario.script)()).await;
    let mut args = vec![
        scenario.question,
        "--json",
        "--trace",
        trace.to_str().unwrap(),
    ];
    args.extend(scenario.args);
    let r = output(ask_cmd(&ws, &fake, &args)).await;
    assert_eq!(r.code, 0, "{}: {}", scenario.name, r.stderr);
    fake.verify().unwrap();
    (ws, r)
}

fn canonical_transcript(ws: &Path, trace: &Path) -> String {
    let r = run(ws, &["replay", "--show", trace.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout.replace(env!("CARGO_PKG_VERSION"), "<VERSION>")
}

#[tokio::test(flavor = "multi_thread")]
async fn golden_traces_replay_identically_and_render_the_same() {
    let update = std::env::var_os("DOCNAV_UPDATE_GOLDEN").is_some();
    for scenario in SCENARIOS {
        let dir = tempfile::tempdir().unwrap();
        let golden = golden_dir().join(format!("{}.jsonl", scenario.name));
        let ws = if update {
            std::fs::create_dir_all(golden_dir()).unwrap();
            record(scenario, dir.path(), &golden).await.0
        } else {
            workspace(dir.path(), scenario.docs)
        };
        let r = run(&ws, &["replay", golden.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{}: {}{}", scenario.name, r.stdout, r.stderr);
        assert!(r.stdout.starts_with("replay identical:"), "{}", r.stdout);
        insta::assert_snapshot!(
            format!("transcript-{}", scenario.name),
            canonical_transcript(&ws, &golden)
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn fresh_recording_round_trips_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("run.jsonl");
    let (ws, recorded) = record(&SCENARIOS[1], dir.path(), &trace).await;
    let answer: serde_json::Value = serde_json::from_str(&recorded.stdout).unwrap();

    // Replaying through the library gives the same evidence, byte for byte.
    let t = docnav::trace::read_trace(&trace).unwrap();
    let lib: std::sync::Arc<dyn docnav::workspace::Library> =
        std::sync::Arc::new(docnav::workspace::Workspace::open(&ws).unwrap());
    let outcome = docnav::trace::replay::replay(&t, lib).await;
    assert!(outcome.divergence.is_none(), "{:?}", outcome.divergence);
    // Through the same text serialization as `ask --json` (f32 scores print their shortest form).
    let replayed: serde_json::Value = serde_json::from_str(
        &serde_json::to_string(&outcome.run.unwrap().answer.evidence).unwrap(),
    )
    .unwrap();
    assert_eq!(replayed, answer["evidence"]);
    // Every observation's sha256 matched (the comparison covers them); and stats agree.
    let header_line = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(header_line.contains("\"type\":\"header\""), "{header_line}");
    assert!(header_line.contains("\"fingerprint\""), "{header_line}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edited_document_is_reported_at_the_step_that_diverges() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let notes = src.join("notes.txt");
    std::fs::copy(fixture("notes.txt"), &notes).unwrap();
    let ws = dir.path().join("ws");
    assert_eq!(run(&ws, &["index", notes.to_str().unwrap()]).code, 0);
    let fake = FakeModel::start(single_doc()).await;
    let trace = dir.path().join("t.jsonl");
    let r = output(ask_cmd(
        &ws,
        &fake,
        &[
            "How do I keep two indexes apart?",
            "--rounds",
            "1",
            "--trace",
            trace.to_str().unwrap(),
        ],
    ))
    .await;
    assert_eq!(r.code, 0, "{}", r.stderr);

    // Same document: identical. Edited text in section 1: the second command's output differs.
    assert_eq!(run(&ws, &["replay", trace.to_str().unwrap()]).code, 0);
    // An edit deep in section 1.1 (same size, not in the summaries or terms the DocCard shows).
    let edited = std::fs::read_to_string(&notes).unwrap().replace(
        "A workspace holds one catalog",
        "A workspace holds ONE catalog",
    );
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
    // Bird's-eye ls/find show the summary first: that observation (before any step) diverges.
    assert!(
        r.stderr.contains("replay diverged in r1-w1-notes at step "),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("expected: observation of"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("actual:   observation of"),
        "{}",
        r.stderr
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

#[tokio::test(flavor = "multi_thread")]
async fn the_api_key_never_reaches_output_logs_or_trace() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["notes.txt"]);
    let fake = FakeModel::start(vec![Reply::status(401), understand(&["x"])]).await;
    let trace = dir.path().join("t.jsonl");
    let mut cmd = ask_cmd(&ws, &fake, &["q", "--trace", trace.to_str().unwrap()]);
    cmd.env("RUST_LOG", "trace");
    let r = output(cmd).await;
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("HTTP 401"), "{}", r.stderr);
    let trace_text = std::fs::read_to_string(&trace).unwrap();
    for (what, text) in [
        ("stdout", &r.stdout),
        ("stderr", &r.stderr),
        ("trace", &trace_text),
    ] {
        assert!(!text.contains(SECRET), "API key leaked into {what}");
    }
    // The key was sent, in the header only.
    assert_eq!(
        fake.received()[0].authorization.as_deref(),
        Some(&*format!("Bearer {SECRET}"))
    );
    let _ = fake.verify();
}

#[test]
fn ask_without_a_model_exits_2_and_names_the_settings() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["notes.txt"]);
    let r = run(&ws, &["ask", "how do I search?"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    for name in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "DOCNAV_MODEL",
        "--model",
    ] {
        assert!(r.stderr.contains(name), "{name} missing: {}", r.stderr);
    }
    assert_eq!(r.stdout, "");
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
            .contains("format version 0; this docnav reads version 1"),
        "{}",
        r.stderr
    );
}
