//! The `ask` tool of `docnav mcp` against the loopback fake model: progress notifications per
//! step, the trace as the only write, the error without a model, and cancelling a call in flight.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use pretty_assertions::assert_eq;
use rmcp::model::{ClientRequest, ProgressNotificationParam, Request, ServerResult};
use rmcp::service::PeerRequestOptions;
use serde_json::{json, Value};

use super::agent::{command, evaluation, plan, understand};
use super::common::run;
use super::mcp::{call, params, start, text, workspace, Client};
use crate::support::fake_model::FakeModel;

/// Every file under `dir` except `traces/`, with its length and modification time.
/// The workspace's files with their sizes and times, but for the traces and what SQLite's
/// readers keep beside the catalog: its shared-memory index (`catalog.db-shm`, where each reader
/// records the snapshot it reads) and an empty log a reader may create (`catalog.db-wal`; a
/// write to the catalog would make it non-empty or change `catalog.db`).
fn files(dir: &Path) -> BTreeMap<String, (u64, SystemTime)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .filter(|e| !e.path().starts_with(dir.join("traces")))
        .filter(|e| {
            let name = e.file_name().to_string_lossy();
            !(name == "catalog.db-shm"
                || name == "catalog.db-wal" && e.metadata().is_ok_and(|m| m.len() == 0))
        })
        .map(|e| {
            let m = e.metadata().unwrap();
            let name = e.path().strip_prefix(dir).unwrap().display().to_string();
            (name, (m.len(), m.modified().unwrap()))
        })
        .collect()
}

fn model_env(fake: &FakeModel) -> Vec<(&'static str, String)> {
    vec![
        ("DOCNAV_MODEL", "fake-model".to_string()),
        ("OPENAI_BASE_URL", fake.base_url()),
    ]
}

/// Progress notifications received so far, in the order of their `progress` numbers (the client
/// handles notifications concurrently, so they may be stored in another order).
fn progress(client: &Client) -> Vec<ProgressNotificationParam> {
    let mut progress = client.progress.lock().unwrap().clone();
    progress.sort_by(|a, b| a.progress.total_cmp(&b.progress));
    progress
}

fn messages(client: &Client) -> Vec<String> {
    progress(client)
        .into_iter()
        .filter_map(|p| p.message)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_reports_each_step_as_progress_and_writes_only_its_trace() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let before = files(&ws);
    // With doc_ids the agent skips choosing documents: understand, the plan with its first
    // command, the next command, evaluate.
    let fake = FakeModel::start(vec![
        understand(&["workspace"]),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
        command("notes", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let (server, client) = start(&ws, &["--traces"], &model_env(&fake)).await;
    let request = ClientRequest::CallToolRequest(Request::new(params(
        "ask",
        json!({"question": "how do I keep two indexes apart?", "doc_ids": ["notes"], "rounds": 1}),
    )));
    let handle = server
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    let ServerResult::CallToolResult(result) = handle.await_response().await.unwrap() else {
        panic!("not a tool result");
    };
    fake.verify().unwrap();
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    let answer = result.structured_content.clone().unwrap();
    assert_eq!(answer["evidence"][0]["doc_id"], "notes");
    assert_eq!(answer["evidence"][0]["structure"], "1.1");
    assert_eq!(answer["evidence"][0]["lines"], json!([11, 15]));
    assert_eq!(answer["stats"]["llm_calls"], 4);
    assert_eq!(answer["worker_errors"], json!([]));
    let shown = text(&result);
    assert!(
        shown.starts_with(
            "[1] notes › 1 Getting started › 1.1 Choosing a workspace  §1.1  lines 11–15  score "
        ),
        "{shown}"
    );
    assert!(
        shown.contains("set DOCNAV_WORKSPACE to keep several indexes apart"),
        "{shown}"
    );

    // One notification per step, numbered in order, before the result.
    let deadline = Instant::now() + Duration::from_secs(5);
    let finished = |m: &[String]| {
        m.iter().any(|m| m.ends_with("] $ done")) && m.iter().any(|m| m.contains("] done: "))
    };
    while !finished(&messages(&client)) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let messages = messages(&client);
    let worker: Vec<&str> = messages
        .iter()
        .filter_map(|m| m.strip_prefix("[r1-w1-notes] "))
        .collect();
    // The Worker's bird's-eye commands, then the model's, in the order the agent ran them.
    assert!(worker[0].starts_with("started on notes: "), "{messages:#?}");
    let steps: Vec<&str> = worker
        .iter()
        .copied()
        .filter(|m| m.starts_with("$ "))
        .collect();
    assert_eq!(
        steps,
        [
            "$ cd /notes",
            "$ ls",
            "$ find -- workspace",
            "$ cat '#1.1'",
            "$ done"
        ]
    );
    for line in [
        "evidence notes #1.1 (166 chars)",
        "done: 2 steps, 1 evidence",
    ] {
        assert!(worker.contains(&line), "{line} missing: {messages:#?}");
    }
    let notes = progress(&client);
    assert!(notes.iter().all(|p| p.progress_token == token));
    let steps: Vec<f64> = notes.iter().map(|p| p.progress).collect();
    assert_eq!(
        steps,
        (1..=steps.len()).map(|n| n as f64).collect::<Vec<_>>()
    );

    // The trace (and beside it, its answer kept for reuse) is the only file written, and it
    // replays.
    assert_eq!(files(&ws), before);
    let traces: Vec<_> = std::fs::read_dir(ws.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(traces.len(), 1, "{traces:?}");
    assert!(
        shown.contains(&format!("trace: `{}`", traces[0].display())),
        "{shown}"
    );
    let replay = run(&ws, &["replay", traces[0].to_str().unwrap()]);
    assert_eq!(replay.code, 0, "{}{}", replay.stdout, replay.stderr);
    server.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_without_a_model_says_what_to_set_and_the_rest_still_works() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let (server, _) = start(&ws, &[], &[]).await;
    let r = call(
        &server,
        "ask",
        json!({"question": "how do I keep two indexes apart?"}),
    )
    .await;
    assert_eq!(r.is_error, Some(true));
    let message = text(&r);
    assert_eq!(
        message.lines().next().unwrap(),
        "ask: no model configured: no model name"
    );
    for needle in [
        "DOCNAV_MODEL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "`env` of its docnav server entry",
    ] {
        assert!(message.contains(needle), "{needle} missing: {message}");
    }
    let r = call(&server, "search", json!({"query": "workspace", "k": 1})).await;
    assert_ne!(r.is_error, Some(true));
    assert!(text(&r).starts_with("[1] notes › 1 Getting started › 1.1 Choosing a workspace"));
    assert!(!ws.join("traces").exists());
    server.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_an_ask_stops_the_agent_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    // The first model reply takes 1.5 s; without cancellation the agent would then go on to plan.
    let fake = FakeModel::start(vec![
        understand(&["workspace"]).after(1_500),
        plan("notes", &["cat 1.1"], "cat '#1.1'"),
    ])
    .await;
    let (server, _) = start(&ws, &["--traces"], &model_env(&fake)).await;
    let request = ClientRequest::CallToolRequest(Request::new(params(
        "ask",
        json!({"question": "how do I keep two indexes apart?", "doc_ids": ["notes"]}),
    )));
    let handle = server
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while fake.requests().is_empty() {
        assert!(
            Instant::now() < deadline,
            "the agent never called the model"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    handle
        .cancel(Some("user pressed Esc".into()))
        .await
        .unwrap();
    // The server answers the next call at once.
    let started = Instant::now();
    let r = call(&server, "ls", json!({"path": "/notes"})).await;
    assert_ne!(r.is_error, Some(true));
    assert!(
        started.elapsed() < Duration::from_millis(1_000),
        "{:?}",
        started.elapsed()
    );
    // Past the moment the reply arrives, the dropped run made no further call.
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    assert_eq!(fake.requests().len(), 1);
    assert_eq!(fake.remaining(), 1);
    // Its trace was finished: the header and the request that was in flight, no response.
    let traces: Vec<_> = std::fs::read_dir(ws.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(traces.len(), 1);
    let lines: Vec<Value> = std::fs::read_to_string(&traces[0])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["model_request"]);
    server.cancel().await.unwrap();
}

/// The `ask` tool reuses a recorded answer as the CLI does: the same question again (up to case
/// and end punctuation) reaches no model and says which trace it comes from; `no_cache` asks
/// afresh.
#[tokio::test(flavor = "multi_thread")]
async fn a_repeated_ask_is_answered_from_its_trace_without_a_model_call() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let script = || {
        vec![
            understand(&["workspace"]),
            plan("notes", &["cat 1.1"], "cat '#1.1'"),
            command("notes", "done"),
            evaluation("sufficient", "", &[]),
        ]
    };
    let fake = FakeModel::start(script()).await;
    let (server, _client) = start(&ws, &["--traces"], &model_env(&fake)).await;
    let asked = |question: &str, no_cache: bool| json!({"question": question, "doc_ids": ["notes"], "rounds": 1, "no_cache": no_cache});
    let first = call(
        &server,
        "ask",
        asked("How do I keep two indexes apart?", false),
    )
    .await;
    assert_ne!(first.is_error, Some(true), "{}", text(&first));
    assert_eq!(fake.received().len(), 4);
    let first = first.structured_content.unwrap();
    assert_eq!(first["stats"]["llm_calls"], 4);
    assert_eq!(first.get("from_trace"), None);

    let again = call(
        &server,
        "ask",
        asked("how do i keep two indexes apart", false),
    )
    .await;
    assert_ne!(again.is_error, Some(true), "{}", text(&again));
    assert_eq!(fake.received().len(), 4, "the second ask reached the model");
    let shown = text(&again);
    let again = again.structured_content.unwrap();
    assert_eq!(again["evidence"], first["evidence"]);
    assert_eq!(again["stats"]["llm_calls"], 0);
    assert_eq!(again["from_trace"]["llm_calls"], 4);
    assert_eq!(again["from_trace"]["trace"], first["trace"]);
    assert_eq!(again["trace"], first["trace"]);
    assert!(shown.starts_with("from trace "), "{shown}");

    let fresh_model = FakeModel::start(script()).await;
    let (fresh_server, _fresh_client) = start(&ws, &["--traces"], &model_env(&fresh_model)).await;
    let fresh = call(
        &fresh_server,
        "ask",
        asked("How do I keep two indexes apart?", true),
    )
    .await;
    assert_ne!(fresh.is_error, Some(true), "{}", text(&fresh));
    fresh_model.verify().unwrap();
    assert_eq!(fresh.structured_content.unwrap().get("from_trace"), None);
}
