//! Traces end to end through the real binary: record with `docnav ask --trace` against the fake
//! model, replay without a model, show transcripts; golden traces in `fixtures/traces/`.
//!
//! Re-record the golden traces (after a deliberate prompt or output change) with
//! `DOCNAV_UPDATE_GOLDEN=1 cargo test --test all golden`, then review the snapshot diffs.

use std::path::{Path, PathBuf};
use std::process::Command;

use pretty_assertions::assert_eq;

use super::agent::{analysis, check, command, evaluation, plan, worker_tag};
use super::common::{docnav, fixture, run, Run};
use crate::support::fake_model::{FakeModel, Reply};

const SECRET: &str = "sk-test-SECRET123";

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/traces")
}

/// A workspace with these fixture documents.
pub fn workspace(dir: &Path, docs: &[&str]) -> PathBuf {
    let ws = dir.join("ws");
    let mut args = vec!["index".to_string()];
    args.extend(docs.iter().map(|d| fixture(d).display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&ws, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    ws
}

pub fn ask_cmd(ws: &Path, fake: &FakeModel, args: &[&str]) -> Command {
    let mut cmd = docnav(ws);
    cmd.arg("ask")
        .args(args)
        .env("DOCNAV_MODEL", "fake-model")
        .env("OPENAI_BASE_URL", fake.base_url())
        .env("OPENAI_API_KEY", SECRET);
    cmd
}

pub async fn output(mut cmd: Command) -> Run {
    tokio::task::spawn_blocking(move || cmd.output().unwrap().into())
        .await
        .unwrap()
}

pub struct Scenario {
    name: &'static str,
    pub docs: &'static [&'static str],
    question: &'static str,
    args: &'static [&'static str],
    script: fn() -> Vec<Reply>,
}

/// The typical single-document path: analyze, plan with its first `cat`, `check`, its verdict.
fn single_doc() -> Vec<Reply> {
    vec![
        analysis(
            &["workspace", "DOCNAV_WORKSPACE"],
            &[("notes", "how to keep several indexes apart")],
        ),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "check"),
        check("notes", "sufficient", ""),
    ]
}

fn multi_doc_replan() -> Vec<Reply> {
    vec![
        analysis(
            &["café", "OCR"],
            &[
                ("multilingual", "how café crème is made"),
                ("notes", "PDF without text"),
            ],
        ),
        plan("multilingual", &["cat 2"], "cat '/multilingual/Café crème'"),
        plan("notes", &["cat 3"], "cat '#3'"),
        command("multilingual", "done"),
        command("notes", "done"),
        evaluation(
            "insufficient",
            "how café noir is served",
            &[("multilingual", "café noir")],
        ),
        plan("multilingual", &["cat 3"], "cat 3"),
        command("multilingual", "done"),
        evaluation("sufficient", "", &[]),
    ]
}

fn malformed_repair() -> Vec<Reply> {
    vec![
        analysis(&["grep", "search"], &[("notes", "how to search")]),
        plan("notes", &["find grep", "cat 2.1"], "find grep"),
        Reply::text("Let me search for grep first.").when(&worker_tag("notes")),
        command("notes", "find grep regular expression"),
        command("notes", "cat /notes/2/1"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
    ]
}

pub const SCENARIOS: &[Scenario] = &[
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
pub async fn record(scenario: &Scenario, dir: &Path, trace: &Path) -> (PathBuf, Run) {
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

/// Every golden trace replays identically in a workspace holding *all* of `fixtures/docs` (the
/// README's own workspace), more documents than it was recorded with: replay sees only the
/// documents its header names (issue 14).
#[tokio::test(flavor = "multi_thread")]
async fn golden_traces_replay_identically_and_render_the_same() {
    let update = std::env::var_os("DOCNAV_UPDATE_GOLDEN").is_some();
    let all = tempfile::tempdir().unwrap();
    let ws = all.path().join("ws");
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/docs");
    let r = run(&ws, &["index", docs.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for scenario in SCENARIOS {
        let golden = golden_dir().join(format!("{}.jsonl", scenario.name));
        if update {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(golden_dir()).unwrap();
            record(scenario, dir.path(), &golden).await;
        }
        let r = run(&ws, &["replay", golden.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{}: {}{}", scenario.name, r.stdout, r.stderr);
        assert!(r.stdout.starts_with("replay identical:"), "{}", r.stdout);
        assert_eq!(r.stderr.matches("note:").count(), 0, "{}", r.stderr);
        insta::assert_snapshot!(
            format!("transcript-{}", scenario.name),
            canonical_transcript(&ws, &golden)
        );
    }
    // A workspace without one of its documents: said before step 1, exit 1.
    let other = tempfile::tempdir().unwrap();
    let partial = workspace(other.path(), &["notes.txt"]);
    let golden = golden_dir().join("multi-doc-replan.jsonl");
    let r = run(&partial, &["replay", golden.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        format!(
            "note: document `multilingual` of the recording is not in this workspace\n\
             error: cannot replay `{}`: 1 of its 2 document(s) not in this workspace\n\
             hint: index them (`docnav index <files>`), or replay in the workspace it was recorded in\n",
            golden.display()
        )
    );
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
async fn the_api_key_never_reaches_output_logs_or_trace() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["notes.txt"]);
    let fake = FakeModel::start(vec![Reply::status(401), analysis(&["x"], &[])]).await;
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

#[tokio::test(flavor = "multi_thread")]
async fn trace_dir_keeps_one_file_per_run_named_by_time_and_question() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), SCENARIOS[0].docs);
    let fake = FakeModel::start(single_doc()).await;
    let traces = dir.path().join("traces");
    let mut cmd = ask_cmd(&ws, &fake, &[SCENARIOS[0].question, "--rounds", "1"]);
    cmd.env("DOCNAV_TRACE_DIR", &traces);
    let r = output(cmd).await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names: Vec<String> = std::fs::read_dir(&traces)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1);
    assert!(
        names[0].ends_with("Z-how-do-i-keep-two-indexes-apart.jsonl"),
        "{names:?}"
    );
    assert_eq!(
        names[0].len(),
        "20261122T140431Z-how-do-i-keep-two-indexes-apart.jsonl".len()
    );
}

#[test]
fn replay_step_advances_one_event_per_enter_and_show_json_is_for_tools() {
    let dir = tempfile::tempdir().unwrap();
    let golden = golden_dir().join("single-doc.jsonl");
    let ws = dir.path().join("ws");
    let mut cmd = docnav(&ws);
    cmd.args(["replay", "--step", golden.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"\n\nq\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout.contains("[1/") && stdout.contains("[3/"), "{stdout}");
    assert!(!stdout.contains("[4/"), "stopped at q: {stdout}");

    let r = run(
        &ws,
        &["replay", "--show", "--json", golden.to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines
        .iter()
        .any(|l| l["kind"] == "command" && l["actor"] == "r1-w1-notes"));
    assert!(lines
        .iter()
        .all(|l| l.get("step").is_some() && l.get("text").is_some()));
}

/// Traces recorded by older docnav versions (format 1: before `model_error`; format 2: separate
/// understand/plan/replan calls and `sufficient: bool` verdicts) are still shown by `replay
/// --show`; re-running one is refused with a clear message, since its prompts differ.
#[test]
fn older_trace_versions_are_shown_not_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["notes.txt", "multilingual.md"]);
    for version in [1, 2] {
        let trace = golden_dir().join(format!("older/v{version}-multi-doc-replan.jsonl"));
        let show = run(&ws, &["replay", "--show", trace.to_str().unwrap()]);
        assert_eq!(show.code, 0, "{}", show.stderr);
        insta::assert_snapshot!(
            format!("transcript-v{version}-multi-doc-replan"),
            show.stdout.replace(env!("CARGO_PKG_VERSION"), "<VERSION>")
        );
        let r = run(&ws, &["replay", trace.to_str().unwrap()]);
        assert_eq!(r.code, 1, "{}", r.stdout);
        assert_eq!(
            r.stderr,
            format!(
                "error: `{0}` is a trace of format version {version}, recorded by an older docnav whose prompts and decisions differ: it cannot be re-run\nhint: `docnav replay --show {0}` shows it; record the question again to replay it\n",
                trace.display()
            )
        );
    }
}
