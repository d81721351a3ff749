//! `docnav serve`'s JSON API through a real HTTP client on 127.0.0.1: the same data as the CLI
//! and the MCP tools, errors as `{"error","detail"}` with their statuses, and a new index
//! generation served without a restart.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::common::{fixture, run};
use super::mcp::workspace;
use crate::support::server::{client, Served};

async fn get(served: &Served, path: &str) -> (u16, Value) {
    let r = client().get(served.at(path)).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

async fn post(served: &Served, path: &str, body: Value) -> (u16, Value) {
    let r = client()
        .post(served.at(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

/// `value` without `stats.wall_ms` (the one field two runs of the same question differ in).
fn without_wall_time(mut value: Value) -> Value {
    if let Some(stats) = value.get_mut("stats").and_then(Value::as_object_mut) {
        stats.remove("wall_ms");
    }
    value
}

#[tokio::test(flavor = "multi_thread")]
async fn health_docs_and_search_answer_what_the_cli_and_mcp_answer() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let served = Served::start(&ws, &[], &[]);

    let (status, health) = get(&served, "/api/v1/health").await;
    assert_eq!(status, 200);
    assert_eq!(health["status"], "ok");
    assert_eq!(health["documents"], 4);
    assert!(health["generation"].as_u64().unwrap() >= 1);

    let (status, page) = get(&served, "/api/v1/docs?offset=1&limit=2").await;
    assert_eq!(status, 200);
    assert_eq!(page["total"], 4);
    assert_eq!(page["next_offset"], 3);
    let ids: Vec<&str> = page["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["doc_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["notes", "ripgrep-faq"]);

    // The cards ranked for a question, with why: what `docnav docs --for --json` prints.
    let cli = run(
        &ws,
        &[
            "docs",
            "--for",
            "search compressed files",
            "-k",
            "2",
            "--json",
        ],
    );
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();
    let (status, ranked) = get(&served, "/api/v1/docs?for=search+compressed+files&k=2").await;
    assert_eq!(status, 200);
    assert_eq!(ranked["question"], "search compressed files");
    assert_eq!(ranked["total"], 4);
    assert_eq!(ranked["cards"], cli);
    assert_eq!(ranked["cards"][0]["card"]["doc_id"], "ripgrep-faq");
    assert_eq!(ranked["cards"][0]["why"]["name"], Value::Null);
    assert_eq!(ranked["cards"][0]["why"]["section"]["rank"], 1);

    // The lexical navigator's ranking, as `docnav ask --lexical --json` prints it.
    let cli = run(
        &ws,
        &[
            "ask",
            "--lexical",
            "--json",
            "-k",
            "3",
            "search compressed files",
        ],
    );
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();
    let (status, found) = get(&served, "/api/v1/search?q=search+compressed+files&k=3").await;
    assert_eq!(status, 200);
    let ranked = |v: &Value, key: &str| -> Vec<(String, String)> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["doc_id"].as_str().unwrap().to_string(),
                    e["structure"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(ranked(&found, "results"), ranked(&cli, "evidence"));
    let best = &found["results"][0];
    assert_eq!(best["path"], "/ripgrep-faq/#1.8");
    assert_eq!(best["lines"], json!([163, 176]));
    let marked: Vec<&str> = best["snippet"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["hit"] == true)
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert!(marked.contains(&"compressed"), "{marked:?}");

    // One document only.
    let (_, scoped) = get(&served, "/api/v1/search?q=files&k=5&doc_id=notes").await;
    assert!(scoped["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["doc_id"] == "notes"));

    // The lexical ask is `ask --lexical --json`.
    let (status, asked) = post(
        &served,
        "/api/v1/ask",
        json!({"question": "search compressed files", "lexical": true, "k": 3}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(without_wall_time(asked), without_wall_time(cli));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_document_its_sections_grep_and_exec() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let served = Served::start(&ws, &[], &[]);

    let (status, doc) = get(&served, "/api/v1/docs/ripgrep-faq").await;
    assert_eq!(status, 200);
    assert_eq!(doc["card"]["format"], "markdown");
    let first = &doc["outline"]["children"][0];
    assert_eq!(first["structure"], "1");
    assert_eq!(
        first["children"][7]["title"],
        "How do I search compressed files?"
    );

    let (status, section) = get(&served, "/api/v1/docs/ripgrep-faq/section?structure=1.8").await;
    assert_eq!(status, 200);
    assert_eq!(
        section["titles"],
        json!(["FAQ", "How do I search compressed files?"])
    );
    assert_eq!(section["location"], "lines 163–176");
    assert_eq!(section["previous"]["structure"], "1.7");
    assert_eq!(section["next"]["structure"], "1.9");
    // The text is what `cat` reads, without its header line.
    let cat = run(&ws, &["exec", "cat /ripgrep-faq/#1.8"]);
    let body: String = cat.stdout.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(
        section["text"].as_str().unwrap().trim_end(),
        body.trim_end()
    );
    assert_eq!(section["next_offset"], Value::Null);

    // Paged: the pages concatenate to the whole text.
    let (_, p1) = get(
        &served,
        "/api/v1/docs/ripgrep-faq/section?structure=1.8&budget=200",
    )
    .await;
    let next = p1["next_offset"].as_u64().unwrap();
    let (_, p2) = get(
        &served,
        &format!("/api/v1/docs/ripgrep-faq/section?structure=1.8&offset={next}"),
    )
    .await;
    assert_eq!(
        format!(
            "{}{}",
            p1["text"].as_str().unwrap(),
            p2["text"].as_str().unwrap()
        ),
        section["text"].as_str().unwrap()
    );
    assert_eq!(p2["first_line"].as_u64().unwrap() > 1, true);

    // grep: the shell's matches as data; line N is line N of `cat path`.
    let (status, grep) = get(
        &served,
        "/api/v1/docs/ripgrep-faq/grep?pattern=search-zip&ignore_case=true",
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        grep["matches"],
        json!([{"structure": "1.8", "line": 3, "text": "ripgrep's `-z/--search-zip` flag will cause it to search compressed files"}])
    );
    let (_, bad_regex) = get(&served, "/api/v1/docs/ripgrep-faq/grep?pattern=(").await;
    assert!(
        bad_regex["note"].as_str().unwrap().starts_with("grep:"),
        "{bad_regex}"
    );

    // exec: what `docnav exec` prints, from a cwd.
    let (status, out) = post(
        &served,
        "/api/v1/exec",
        json!({"command": "ls", "cwd": "/ripgrep-faq"}),
    )
    .await;
    assert_eq!(status, 200);
    let cli = run(&ws, &["exec", "ls", "--cwd", "/ripgrep-faq"]);
    assert_eq!(
        out["output"].as_str().unwrap().trim_end(),
        cli.stdout.trim_end()
    );
    assert_eq!(out["ok"], true);
    assert_eq!(out["cwd"], "/ripgrep-faq");
    let (_, moved) = post(
        &served,
        "/api/v1/exec",
        json!({"command": "cd 1/8", "cwd": "/ripgrep-faq"}),
    )
    .await;
    assert_eq!(moved["cwd"], "/ripgrep-faq/1/8");
    let (status, wrong) = post(&served, "/api/v1/exec", json!({"command": "cd nowhere"})).await;
    assert_eq!(status, 200);
    assert_eq!(wrong["ok"], false);
    assert!(
        wrong["output"].as_str().unwrap().starts_with("cd: "),
        "{wrong}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_are_json_with_the_status_that_says_who_must_act() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let served = Served::start(&ws, &[], &[]);
    for (path, status, code) in [
        ("/api/v1/docs/nope", 404, "not_found"),
        ("/api/v1/docs/notes/section?structure=9.9", 404, "not_found"),
        (
            "/api/v1/docs/notes/section?structure=..%2F..",
            400,
            "bad_request",
        ),
        ("/api/v1/docs/notes/section?budget=0", 400, "bad_request"),
        ("/api/v1/docs?limit=0", 400, "bad_request"),
        ("/api/v1/docs?limit=abc", 400, "bad_request"),
        ("/api/v1/docs?for=", 400, "bad_request"),
        ("/api/v1/docs?for=x&k=51", 400, "bad_request"),
        ("/api/v1/search?q=", 400, "bad_request"),
        ("/api/v1/search?q=x&k=51", 400, "bad_request"),
        ("/api/v1/search?q=x&doc_id=nope", 404, "not_found"),
        ("/api/v1/search?q=x&color=red", 400, "bad_request"),
        ("/api/v1/no-such-route", 404, "not_found"),
        ("/api/v1/traces/..%2Fcatalog.db", 400, "bad_request"),
        ("/api/v1/traces/nope.jsonl", 404, "not_found"),
    ] {
        let (got, body) = get(&served, path).await;
        assert_eq!(
            (got, body["error"].as_str().unwrap()),
            (status, code),
            "{path}: {body}"
        );
        assert!(!body["detail"].as_str().unwrap().is_empty(), "{path}");
    }
    let (status, body) = post(
        &served,
        "/api/v1/exec",
        json!({"command": "ls", "colour": 1}),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str().unwrap()),
        (400, "bad_request")
    );
    let r = client()
        .post(served.at("/api/v1/exec"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"], "bad_request");
    // Without a model, the agent says what to set (never a silent fallback).
    let (status, body) = post(&served, "/api/v1/ask", json!({"question": "what?"})).await;
    assert_eq!((status, body["error"].as_str().unwrap()), (503, "no_model"));
    assert!(
        body["detail"].as_str().unwrap().contains("DOCNAV_MODEL"),
        "{body}"
    );
    // The Ask page says so once, with what is missing, not "no model configured" twice over.
    let page = client()
        .get(served.at("/ask"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("<strong>No model is configured for this server</strong>: no model name."),
        "{page}"
    );
    assert_eq!(page.matches("no model configured").count(), 0, "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workspace_indexed_while_the_server_runs_is_served_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let served = Served::start(&ws, &[], &[]);
    // No workspace yet: 503 saying what to do.
    let (status, body) = get(&served, "/api/v1/health").await;
    assert_eq!(
        (status, body["error"].as_str().unwrap()),
        (503, "no_workspace")
    );
    assert!(
        body["detail"].as_str().unwrap().contains("docnav index"),
        "{body}"
    );

    let r = run(&ws, &["index", fixture("notes.txt").to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (status, health) = get(&served, "/api/v1/health").await;
    assert_eq!(status, 200);
    assert_eq!(health["documents"], 1);
    let generation = health["generation"].as_u64().unwrap();

    let r = run(
        &ws,
        &["index", fixture("ripgrep__FAQ.md").to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (_, health) = get(&served, "/api/v1/health").await;
    assert_eq!(health["documents"], 2);
    assert!(health["generation"].as_u64().unwrap() > generation);
    let (_, found) = get(&served, "/api/v1/search?q=compressed&k=1").await;
    assert_eq!(found["results"][0]["doc_id"], "ripgrep-faq");
}

#[tokio::test(flavor = "multi_thread")]
async fn two_servers_over_one_workspace_answer_identically_and_both_see_a_new_generation() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let a = Served::start(&ws, &[], &[]);
    let b = Served::start(&ws, &[], &[]);
    for path in [
        "/api/v1/health",
        "/api/v1/docs",
        "/api/v1/search?q=search+files&k=5",
        "/api/v1/docs/ripgrep-guide/section?structure=1.2",
    ] {
        assert_eq!(get(&a, path).await, get(&b, path).await, "{path}");
    }
    let r = run(
        &ws,
        &["index", fixture("ripgrep__FAQ.md").to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (_, ha) = get(&a, "/api/v1/health").await;
    let (_, hb) = get(&b, "/api/v1/health").await;
    assert_eq!(ha, hb);
    assert_eq!(ha["documents"], 4);
    assert_eq!(
        get(&a, "/api/v1/search?q=compressed&k=3").await,
        get(&b, "/api/v1/search?q=compressed&k=3").await
    );
}

/// The answers the router and the HTTP layer make themselves — a method a route does not take,
/// a URL or headers too long, a path that is not UTF-8 — are the same JSON errors.
#[tokio::test(flavor = "multi_thread")]
async fn every_error_under_api_is_json_even_the_routers_own() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let served = Served::start(&ws, &[], &[]);
    let http = client();
    let long = format!("/api/v1/search?q={}", "x".repeat(10_000));
    for (request, status, code) in [
        (
            http.delete(served.at("/api/v1/health")),
            405,
            "method_not_allowed",
        ),
        (
            http.get(served.at("/api/v1/ask")),
            405,
            "method_not_allowed",
        ),
        (http.get(served.at(&long)), 414, "uri_too_long"),
        (
            http.get(served.at("/api/v1/health"))
                .header("x-padding", "p".repeat(40_000)),
            431,
            "headers_too_large",
        ),
        (http.get(served.at("/api/v1/docs/%FF")), 400, "bad_request"),
        (
            http.get(served.at("/api/v1/docs/%FF/section")),
            400,
            "bad_request",
        ),
    ] {
        let r = request.send().await.unwrap();
        let url = r.url().to_string();
        assert_eq!(r.status().as_u16(), status, "{url:.80}");
        let allow = r.headers().get("allow").cloned();
        assert_eq!(r.headers()["content-type"], "application/json", "{url:.80}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"], code, "{url:.80}: {body}");
        assert!(
            !body["detail"].as_str().unwrap().is_empty(),
            "{url:.80}: {body}"
        );
        if status == 405 {
            assert!(allow.is_some(), "405 keeps its Allow header");
        }
    }
}

/// A minimal trace (a header, no events) asking `question`.
fn trace_text(question: &str) -> String {
    format!(
        "{}\n",
        json!({
            "type": "header", "format_version": 4, "docnav_version": "0.1.0",
            "question": question, "model": "fake-model", "options": {}, "documents": [],
            "started_unix_ms": 1_795_622_671_000u64,
        })
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn uploaded_traces_are_bounded_oldest_first_and_recorded_runs_stay() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let traces = ws.join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    let recorded = "20261125T160431Z-a-recorded-run.jsonl";
    std::fs::write(traces.join(recorded), trace_text("a recorded run")).unwrap();
    let served = Served::start(&ws, &["--max-uploads", "2"], &[]);
    let mut names = Vec::new();
    for question in ["first", "second", "third"] {
        let r = served
            .post_raw("/api/v1/traces", trace_text(question))
            .await;
        assert_eq!(r.status().as_u16(), 201, "{question}");
        names.push(
            r.json::<Value>().await.unwrap()["name"]
                .as_str()
                .unwrap()
                .to_string(),
        );
        // Modification times a file system can tell apart.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mut left: Vec<String> = std::fs::read_dir(&traces)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    let mut expected = vec![recorded.to_string(), names[1].clone(), names[2].clone()];
    expected.sort();
    assert_eq!(left, expected);
    let (status, _) = get(&served, &format!("/api/v1/traces/{}", names[0])).await;
    assert_eq!(status, 404);
}
