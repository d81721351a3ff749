//! `POST /api/v1/ask` against the loopback fake model: the live SSE stream (Worker lanes,
//! decisions, the answer, the trace), the answer identical to `docnav ask --json`, the ask limit
//! (429 with Retry-After), and the traces API: list, read, replay identical, replay a diverging
//! upload, open a trace cut mid-line.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::agent::{analysis, command, evaluation, plan, understand};
use super::common::docnav;
use super::mcp::workspace;
use crate::support::fake_model::{FakeModel, Reply};
use crate::support::server::{client, Served};

/// `docnav ask --doc ripgrep-faq` needs understand, the plan (cat 1.8), done, evaluate.
fn script() -> Vec<Reply> {
    vec![
        understand(&["compressed files"]),
        plan("ripgrep-faq", &["cat 1.8"], "cat 1/8"),
        command("ripgrep-faq", "done"),
        evaluation("sufficient", "", &[]),
    ]
}

fn model_env(fake: &FakeModel) -> Vec<(&'static str, String)> {
    vec![
        ("DOCNAV_MODEL", "fake-model".to_string()),
        ("OPENAI_BASE_URL", fake.base_url()),
    ]
}

/// Server-Sent Events of a finished stream: `(event, data)` pairs.
pub fn events(body: &str) -> Vec<(String, String)> {
    body.replace("\r\n", "\n")
        .split("\n\n")
        .filter_map(|block| {
            let mut name = "message".to_string();
            let mut data = Vec::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    name = v.trim_start().to_string();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push(v.strip_prefix(' ').unwrap_or(v).to_string());
                }
            }
            (!data.is_empty()).then(|| (name, data.join("\n")))
        })
        .collect()
}

fn without_wall_time(mut value: Value) -> Value {
    if let Some(stats) = value.get_mut("stats").and_then(Value::as_object_mut) {
        stats.remove("wall_ms");
    }
    value
}

const QUESTION: &str = "How do I search compressed files?";

/// An API key that must never reach a browser, a response or a trace.
const SECRET: &str = "sk-test-never-shown-0123456789";

#[tokio::test(flavor = "multi_thread")]
async fn ask_streams_the_run_then_the_cli_answer_and_its_trace_replays() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);

    // The CLI's answer to the question, with the same script.
    let cli_fake = FakeModel::start(script()).await;
    let mut cmd = docnav(&ws);
    for (k, v) in model_env(&cli_fake) {
        cmd.env(k, v);
    }
    let cli = cmd
        .args([
            "ask",
            "--json",
            "--doc",
            "ripgrep-faq",
            "--rounds",
            "1",
            QUESTION,
        ])
        .output()
        .unwrap();
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    let cli: Value = serde_json::from_slice(&cli.stdout).unwrap();
    cli_fake.verify().unwrap();

    let fake = FakeModel::start(script()).await;
    let mut env = model_env(&fake);
    env.push(("OPENAI_API_KEY", SECRET.to_string()));
    let served = Served::start(&ws, &[], &env);
    let response = client()
        .post(served.at("/api/v1/ask"))
        .header("accept", "text/event-stream")
        // The CLI's run above is recorded in the workspace: asked afresh, not reused.
        .json(&json!({"question": QUESTION, "doc_ids": ["ripgrep-faq"], "rounds": 1, "no_cache": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    let stream = response.text().await.unwrap();
    let events = events(&stream);
    fake.verify().unwrap();
    // The key went to the model server only.
    assert_eq!(
        fake.received()[0].authorization.as_deref(),
        Some(format!("Bearer {SECRET}").as_str())
    );
    assert!(!stream.contains(SECRET));

    let steps: Vec<Value> = events
        .iter()
        .filter(|(e, _)| e == "step")
        .map(|(_, d)| serde_json::from_str(d).unwrap())
        .collect();
    let lane: Vec<(String, String)> = steps
        .iter()
        .filter(|s| s["actor"] == "r1-w1-ripgrep-faq")
        .filter(|s| s["kind"] != "model_call")
        .map(|s| {
            (
                s["kind"].as_str().unwrap().to_string(),
                s["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(lane[0].0, "worker_started");
    let commands: Vec<&str> = lane
        .iter()
        .filter(|(k, _)| k == "command")
        .map(|(_, t)| t.as_str())
        .collect();
    // The Worker's overview (cd, ls, find for the key concepts), then the model's commands,
    // each as the page shows it (the script adds nothing).
    assert_eq!(commands[0], "$ cd /ripgrep-faq");
    assert_eq!(&commands[commands.len() - 2..], ["$ cat 1/8", "$ done"]);
    let observed = lane.iter().find(|(k, _)| k == "observation").unwrap();
    assert!(observed.1.contains("ripgrep-faq"), "{observed:?}");
    assert!(lane
        .iter()
        .any(|(k, t)| k == "evidence" && t.starts_with("evidence ripgrep-faq #1.8")));
    assert!(steps.iter().any(|s| s["actor"] == "orchestrator"
        && s["kind"] == "decision"
        && s["decision"] == "evaluate"
        && s["text"] == "evaluate: sufficient"));
    assert!(steps.iter().any(|s| s["kind"] == "model_call"));

    // Then the answer, exactly `ask --json`'s, and where the trace and the Reader are.
    let names: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(&names[names.len() - 2..], ["answer", "done"]);
    let answer: Value = serde_json::from_str(&events[events.len() - 2].1).unwrap();
    assert_eq!(without_wall_time(answer.clone()), without_wall_time(cli));
    let done: Value = serde_json::from_str(&events[events.len() - 1].1).unwrap();
    let link = done["reader_links"][0].as_str().unwrap();
    assert!(
        link.starts_with("/doc/ripgrep-faq/?s=1.8&mark=0-"),
        "{link}"
    );
    assert!(link.ends_with("#1.8"), "{link}");
    let trace = done["trace"].as_str().unwrap().to_string();

    // The trace is listed, readable and replays identically.
    let list: Value = served.get_json("/api/v1/traces?q=compressed").await;
    let row = &list["traces"][0];
    assert_eq!(row["name"], trace.as_str());
    assert_eq!(row["question"], QUESTION);
    assert_eq!(row["model"], "fake-model");
    assert_eq!(row["verdict"], "sufficient");
    assert_eq!(row["calls"], 4);
    let none: Value = served.get_json("/api/v1/traces?q=no-such-question").await;
    assert_eq!(none["traces"], json!([]));

    let report: Value = served
        .post_empty(&format!("/api/v1/traces/{trace}/replay"))
        .await;
    assert_eq!(report["verdict"]["status"], "identical", "{report}");
    assert_eq!(report["verdict"]["model_replies"], 4);
    assert_eq!(report["success"], true);

    // The timeline: the Orchestrator's understanding, round 1's Worker, then its evaluation.
    let page = served.get_text(&format!("/trace/{trace}")).await;
    let phases: Vec<&str> = page
        .split("<section class=\"phase\">")
        .skip(1)
        .map(|p| {
            p.split("<h2>")
                .nth(1)
                .unwrap()
                .split("</h2>")
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(
        phases,
        ["Orchestrator", "Round 1", "Orchestrator after round 1"]
    );
    let after = page.split("Orchestrator after round 1").nth(1).unwrap();
    assert!(
        after.contains("evaluate: sufficient"),
        "the evaluation after its round"
    );
    assert!(after.contains("verdict: sufficient"));

    // A copy whose recorded plan reads another section diverges where it first differs.
    let raw = served
        .get_text(&format!("/api/v1/traces/{trace}/raw"))
        .await;
    assert!(raw.contains("cat 1/8"));
    assert!(!raw.contains(SECRET));
    for page in [
        "/ask",
        "/traces",
        &format!("/trace/{trace}"),
        &format!("/api/v1/traces/{trace}"),
    ] {
        let body = served.get_text(page).await;
        assert!(!body.contains(SECRET), "{page}");
    }
    let diverging = raw.replace("cat 1/8", "cat 1/9");
    let uploaded = served.post_raw("/api/v1/traces", diverging).await;
    assert_eq!(uploaded.status().as_u16(), 201);
    let name = uploaded.json::<Value>().await.unwrap()["name"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(name.starts_with("upload-"), "{name}");
    let report: Value = served
        .post_empty(&format!("/api/v1/traces/{name}/replay"))
        .await;
    let verdict = &report["verdict"];
    assert_eq!(verdict["status"], "diverged", "{report}");
    assert_eq!(verdict["actor"], "r1-w1-ripgrep-faq");
    // The edited reply makes the replay read 1.9, where the recording holds 1.8's text.
    assert!(
        verdict["expected"]
            .as_str()
            .unwrap()
            .contains("search compressed files"),
        "{verdict}"
    );
    assert!(
        verdict["actual"]
            .as_str()
            .unwrap()
            .contains("search over multiple lines"),
        "{verdict}"
    );
    assert!(!verdict["diff"].as_array().unwrap().is_empty(), "{verdict}");
    assert_eq!(report["success"], false);

    // Two traces of the same question side by side.
    let compared = served
        .get_text(&format!("/trace/{trace}?compare={name}"))
        .await;
    assert_eq!(compared.matches("<article class=\"timeline\"").count(), 2);
    assert!(compared.contains(&format!("data-name=\"{name}\"")));

    // A trace cut mid-line opens up to the cut and replays up to it.
    let cut = &raw[..raw.len() - 40];
    let uploaded: Value = served
        .post_raw("/api/v1/traces", cut.to_string())
        .await
        .json()
        .await
        .unwrap();
    let name = uploaded["name"].as_str().unwrap();
    let opened: Value = served.get_json(&format!("/api/v1/traces/{name}")).await;
    assert!(
        opened["summary"]["truncated_at_line"].as_u64().is_some(),
        "{}",
        opened["summary"]
    );
    let page = client()
        .get(served.at(&format!("/trace/{name}")))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert!(page.text().await.unwrap().contains("its last line was cut"));

    // Not a trace: refused, nothing stored.
    let refused = served.post_raw("/api/v1/traces", "hello\n").await;
    assert_eq!(refused.status().as_u16(), 400);
}

#[tokio::test(flavor = "multi_thread")]
async fn asks_beyond_the_limit_get_429_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let mut replies = script();
    // The first call answers only after the second ask was refused.
    replies[0] = replies[0].clone().after(1_500);
    let fake = FakeModel::start(replies).await;
    let served = Served::start(
        &ws,
        &["--max-asks", "1", "--timeout", "10"],
        &model_env(&fake),
    );
    let body = json!({"question": QUESTION, "doc_ids": ["ripgrep-faq"], "rounds": 1});
    let first = client()
        .post(served.at("/api/v1/ask"))
        .header("accept", "text/event-stream")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(first.status().as_u16(), 200);
    let second = client()
        .post(served.at("/api/v1/ask"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(second.status().as_u16(), 429);
    assert_eq!(second.headers()["retry-after"], "10");
    let refusal: Value = second.json().await.unwrap();
    assert_eq!(refusal["error"], "too_many_asks");
    // The lexical baseline costs nothing and is not limited.
    let lexical = client()
        .post(served.at("/api/v1/ask"))
        .json(&json!({"question": QUESTION, "lexical": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(lexical.status().as_u16(), 200);
    let events = events(&first.text().await.unwrap());
    assert_eq!(events.last().unwrap().0, "done");
    fake.verify().unwrap();
}

/// The Ask page's conversation over the API: `done` gives the turn to remember; sent back in
/// `memory`, it makes the next question a follow-up, rewritten to stand alone before the run
/// (the answer's `standalone_question`), with the written answer when asked for.
#[tokio::test(flavor = "multi_thread")]
async fn a_follow_up_sends_the_turn_back_and_is_rewritten_to_stand_alone() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let standalone = "How does ripgrep search inside a .tar.gz archive?";
    let mut replies = script();
    replies.push(
        Reply::text(json!({ "standalone": standalone }).to_string())
            .when("Follow-up question: and inside a .tar.gz?"),
    );
    replies.extend(script());
    replies.push(
        Reply::text(
            json!({"sentences": [{"text": "Pass `--search-zip`.", "citations": [1]}]}).to_string(),
        )
        .when("You write the answer to a question from numbered evidence"),
    );
    let fake = FakeModel::start(replies).await;
    let served = Served::start(&ws, &[], &model_env(&fake));
    let ask = |body: Value| {
        let url = served.at("/api/v1/ask");
        async move {
            let response = client()
                .post(url)
                .header("accept", "text/event-stream")
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), 200);
            let events = events(&response.text().await.unwrap());
            let data = |name: &str| -> Value {
                let (_, data) = events.iter().find(|(n, _)| n == name).unwrap();
                serde_json::from_str(data).unwrap()
            };
            (data("answer"), data("done"))
        }
    };
    let (first, done) =
        ask(json!({"question": QUESTION, "doc_ids": ["ripgrep-faq"], "rounds": 1})).await;
    assert_eq!(first.get("standalone_question"), None);
    let turn = done["turn"].clone();
    assert_eq!(turn["question"], QUESTION);
    assert!(
        turn["key_points"]
            .as_str()
            .unwrap()
            .starts_with("ripgrep-faq › "),
        "{turn}"
    );

    let (second, done) = ask(
        json!({"question": "and inside a .tar.gz?", "doc_ids": ["ripgrep-faq"],
        "rounds": 1, "answer": true, "memory": [turn]}),
    )
    .await;
    fake.verify().unwrap();
    assert_eq!(second["question"], "and inside a .tar.gz?");
    assert_eq!(second["standalone_question"], standalone);
    assert_eq!(second["answer"]["sentences"][0]["supported"], true);
    assert_eq!(done["turn"]["question"], standalone);
    // The rewrite saw the earlier question; the Workers searched for the standalone one.
    let rewrite = fake
        .requests()
        .iter()
        .map(Value::to_string)
        .find(|r| r.contains("Follow-up question"))
        .unwrap();
    assert!(rewrite.contains(QUESTION), "{rewrite}");
    let trace = docnav::trace::read_trace(&ws.join("traces").join(done["trace"].as_str().unwrap()))
        .unwrap();
    assert_eq!(trace.header.memory.len(), 1);
    assert_eq!(trace.header.memory[0].question, QUESTION);
}

/// The server reuses a recorded answer like the CLI: the same question again makes no model call
/// and says which trace it comes from (JSON and stream); `no_cache` asks afresh.
#[tokio::test(flavor = "multi_thread")]
async fn the_same_question_again_is_answered_from_its_trace() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let mut replies = script();
    replies.extend(script());
    let fake = FakeModel::start(replies).await;
    let served = Served::start(&ws, &[], &model_env(&fake));
    let body = json!({"question": QUESTION, "doc_ids": ["ripgrep-faq"], "rounds": 1});
    let post = |body: Value, stream: bool| {
        let request = client().post(served.at("/api/v1/ask")).json(&body);
        let request = if stream {
            request.header("accept", "text/event-stream")
        } else {
            request
        };
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status().as_u16(), 200);
            response.text().await.unwrap()
        }
    };
    let first: Value = serde_json::from_str(&post(body.clone(), false).await).unwrap();
    assert_eq!(fake.received().len(), 4);
    let again: Value = serde_json::from_str(&post(body.clone(), false).await).unwrap();
    assert_eq!(fake.received().len(), 4, "no model call");
    assert_eq!(again["evidence"], first["evidence"]);
    assert_eq!(again["from_trace"]["llm_calls"], 4);
    let name = again["from_trace"]["name"].as_str().unwrap().to_string();
    assert!(ws.join("traces").join(&name).is_file());

    let streamed = events(&post(body.clone(), true).await);
    let (_, done) = streamed.iter().find(|(n, _)| n == "done").unwrap();
    let done: Value = serde_json::from_str(done).unwrap();
    assert_eq!(done["trace"], name);
    assert_eq!(fake.received().len(), 4);

    let mut fresh = body;
    fresh["no_cache"] = json!(true);
    let fresh: Value = serde_json::from_str(&post(fresh, false).await).unwrap();
    assert_eq!(fresh.get("from_trace"), None);
    assert_eq!(fake.received().len(), 8);
    fake.verify().unwrap();
}

/// Every step reads the same on the Ask page's live steps and on the trace's timeline: one text
/// per step, made once in the core — each decision (a follow-up's `standalone` rewrite and an
/// analysis that asked for a catalog `search` included), command, observation and evidence.
#[tokio::test(flavor = "multi_thread")]
async fn the_timeline_and_the_streamed_steps_read_alike() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let fake = FakeModel::start(vec![
        Reply::text(json!({"standalone": QUESTION}).to_string()).when("Follow-up question"),
        Reply::text(
            json!({"intent": "factual", "key_concepts": ["compressed files"],
                   "strategy": "focused", "tasks": [], "search": ["compressed files", "zip"]})
            .to_string(),
        ),
        analysis(
            &["compressed files"],
            &[("ripgrep-faq", "how to search compressed files")],
        ),
        plan("ripgrep-faq", &["cat 1.8"], "cat 1/8"),
        command("ripgrep-faq", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let served = Served::start(&ws, &[], &model_env(&fake));
    let memory = json!([{"question": "What is ripgrep?", "key_points": "a search tool"}]);
    let stream = client()
        .post(served.at("/api/v1/ask"))
        .header("accept", "text/event-stream")
        .json(&json!({"question": "and compressed ones?", "memory": memory, "rounds": 1}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let events = events(&stream);
    fake.verify().unwrap();
    let labels: Vec<(String, String)> = events
        .iter()
        .filter(|(e, _)| e == "step")
        .map(|(_, d)| serde_json::from_str::<Value>(d).unwrap())
        .filter(|s| s["kind"] == "decision")
        .map(|s| {
            (
                s["decision"].as_str().unwrap().to_string(),
                s["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let kinds: Vec<&str> = labels.iter().map(|(k, _)| k.as_str()).collect();
    for kind in [
        "standalone",
        "analyze",
        "catalog_search",
        "plan",
        "navigate",
        "evaluate",
        "verdict",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing: {labels:#?}");
    }
    let label = |kind: &str| -> Vec<&str> {
        labels
            .iter()
            .filter(|(k, _)| k == kind)
            .map(|(_, t)| t.as_str())
            .collect()
    };
    assert_eq!(label("standalone"), [format!("standalone — {QUESTION}")]);
    assert_eq!(
        label("analyze"),
        [
            "analyze — compressed files — search compressed files; zip",
            "analyze — compressed files → ripgrep-faq"
        ]
    );
    assert_eq!(label("evaluate"), ["evaluate: sufficient"]);

    // The timeline of the same run shows each step with the text the stream gave it (the
    // decisions above, `$ ` and the command, `started on …`, `evidence …`), and no other: the
    // text is made once, in the core. Model calls differ only in that the timeline folds a
    // request into its reply.
    let done: Value = serde_json::from_str(&events[events.len() - 1].1).unwrap();
    let page = served
        .get_text(&format!("/trace/{}", done["trace"].as_str().unwrap()))
        .await;
    let unescape = |html: &str| {
        html.replace("&#34;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    };
    let mut shown: Vec<(String, String)> = page
        .split("<li class=\"step ")
        .skip(1)
        .map(|step| {
            let kind = step.split([' ', '"']).next().unwrap().to_string();
            let label = match (step.find("<summary>"), step.find("<span class=\"label\">")) {
                (Some(s), Some(l)) if l < s => &step[l + "<span class=\"label\">".len()..],
                (Some(s), _) => &step[s + "<summary>".len()..],
                (None, Some(l)) => &step[l + "<span class=\"label\">".len()..],
                (None, None) => panic!("a step without a label: {step}"),
            };
            (kind, unescape(label.split(['<']).next().unwrap()))
        })
        .filter(|(kind, _)| !kind.starts_with("model"))
        .collect();
    let mut streamed: Vec<(String, String)> = events
        .iter()
        .filter(|(e, _)| e == "step")
        .map(|(_, d)| serde_json::from_str::<Value>(d).unwrap())
        .filter(|s| !s["kind"].as_str().unwrap().starts_with("model"))
        .map(|s| {
            (
                s["kind"].as_str().unwrap().to_string(),
                s["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(streamed.contains(&("command".into(), "$ cat 1/8".into())));
    assert!(streamed.contains(&(
        "worker_started".into(),
        "started on ripgrep-faq: how to search compressed files".into()
    )));
    shown.sort();
    streamed.sort();
    assert_eq!(shown, streamed, "{page}");
}
