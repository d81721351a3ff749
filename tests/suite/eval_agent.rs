//! `docnav eval` through the agent, against the fake model: two questions, scripted replies.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::agent::{check, command, plan, understand};
use super::common::{docnav, fixture, run};
use crate::support::fake_model::FakeModel;

#[tokio::test(flavor = "multi_thread")]
async fn eval_runs_the_agent_and_reports_calls_and_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    assert_eq!(
        run(&ws, &["index", fixture("notes.txt").to_str().unwrap()]).code,
        0
    );
    let qa = dir.path().join("qa.jsonl");
    std::fs::write(
        &qa,
        concat!(
            r#"{"doc": "notes", "question": "how do I keep two indexes apart?", "gold_path": ["1 Getting started", "1.1 Choosing a workspace"], "answer": "set DOCNAV_WORKSPACE"}"#,
            "\n",
            r#"{"doc": "notes", "question": "my PDF has no text layer", "gold_path": ["3 Troubleshooting"], "answer": "Re-run OCR on the file"}"#,
            "\n"
        ),
    )
    .unwrap();
    // With `doc` given the agent skips analysis: understand, plan with its first `cat`, `check`
    // and its verdict per question (the one Worker's check is the final judge).
    let fake = FakeModel::start(vec![
        understand(&["workspace"]),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "check"),
        check("notes", "sufficient", ""),
        understand(&["OCR"]),
        plan("notes", &["cat 3"], "cat 3"),
        command("notes", "check"),
        check("notes", "sufficient", ""),
    ])
    .await;
    let mut cmd = docnav(&ws);
    let out_dir = dir.path().join("out");
    cmd.args([
        "eval",
        qa.to_str().unwrap(),
        "--json",
        "--rounds",
        "1",
        "--out",
    ])
    .arg(&out_dir)
    .env("DOCNAV_MODEL", "fake-model")
    .env("OPENAI_BASE_URL", fake.base_url());
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    fake.verify().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &report["summary"];
    assert_eq!(s["n"], 2);
    assert_eq!(s["section_hit_at_1"], 1.0);
    assert_eq!(s["answer_hit_at_1"], 1.0);
    assert_eq!(s["llm_calls"], 8);
    let prompt_tokens = s["prompt_tokens"].as_u64().unwrap();
    let completion_tokens = s["completion_tokens"].as_u64().unwrap();
    assert!(prompt_tokens > 500 && completion_tokens > 20, "{s}");
    // Per question too.
    assert_eq!(report["questions"][0]["llm_calls"], 4);
    // --out keeps each question's trace, and it replays against the workspace.
    for line in [1, 2] {
        let trace = out_dir.join(format!("line-{line}.trace.jsonl"));
        assert!(trace.is_file(), "{} missing", trace.display());
        let r = run(&ws, &["replay", trace.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    }
    assert!(out_dir.join("report.json").is_file());
}

#[test]
fn eval_without_a_model_and_without_lexical_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let qa = dir.path().join("qa.jsonl");
    std::fs::write(&qa, "").unwrap();
    let r = run(&dir.path().join("ws"), &["eval", qa.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("--lexical") && r.stderr.contains("OPENAI_BASE_URL"),
        "{}",
        r.stderr
    );
}
