//! MCP over streamable HTTP at `docnav serve`'s `/mcp`, through rmcp's HTTP client: the same
//! tools and results as `docnav mcp` on stdio, behind the server's token.

use pretty_assertions::assert_eq;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};

use super::agent::{command, evaluation, plan, understand};
use super::common::docnav;
use super::mcp::{call, start, structured, text, workspace, Client, Server};
use crate::support::fake_model::FakeModel;
use crate::support::server::{client, Served};

async fn connect(served: &Served, token: Option<&str>) -> Result<Server, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(served.at("/mcp"));
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    docnav::llm::install_crypto_provider();
    let transport = StreamableHttpClientTransport::from_config(config);
    Client::default()
        .serve(transport)
        .await
        .map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_http_server_has_the_stdio_servers_tools_and_answers() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let token = "team-token-0123456789";
    let served = Served::start(&ws, &[], &[("DOCNAV_TOKEN", token.to_string())]);
    assert!(
        connect(&served, None).await.is_err(),
        "no token, no session"
    );
    assert!(
        connect(&served, Some("wrong")).await.is_err(),
        "a wrong token"
    );
    let http = connect(&served, Some(token)).await.unwrap();
    let (stdio, _client) = start(&ws, &[], &[]).await;

    let names = |tools: Vec<rmcp::model::Tool>| -> Vec<String> {
        tools.iter().map(|t| t.name.to_string()).collect()
    };
    assert_eq!(
        names(http.list_all_tools().await.unwrap()),
        names(stdio.list_all_tools().await.unwrap())
    );
    for (tool, args) in [
        (
            "search",
            json!({"query": "search compressed files", "k": 3}),
        ),
        ("cat", json!({"path": "/ripgrep-faq/#1.8"})),
        ("docs", json!({"limit": 2})),
    ] {
        let over_http = call(&http, tool, args.clone()).await;
        let over_stdio = call(&stdio, tool, args).await;
        assert_eq!(text(&over_http), text(&over_stdio), "{tool}");
        assert_eq!(
            structured(&http, tool, &over_http).await,
            structured(&stdio, tool, &over_stdio).await,
            "{tool}"
        );
    }
    let ls = call(&http, "ls", json!({"path": "/ripgrep-faq/1"})).await;
    assert!(
        text(&ls).starts_with("1. Does ripgrep support configuration files?"),
        "{}",
        text(&ls)
    );
    let resources = http.list_all_resources().await.unwrap();
    assert!(resources
        .iter()
        .any(|r| r.uri == "docnav://ripgrep-faq/#1.8"));
    // Without a model, `ask` is an error result saying what to set.
    let ask = call(&http, "ask", json!({"question": "how?"})).await;
    assert_eq!(ask.is_error, Some(true));
    assert!(text(&ask).contains("DOCNAV_MODEL"), "{}", text(&ask));
    http.cancel().await.unwrap();
    stdio.cancel().await.unwrap();
}

/// `docnav serve --no-traces` answers a repeated question alike on both of its faces: the API
/// and the MCP `ask` tool each reuse the answer `docnav ask` kept, with no model call, and
/// neither records a trace of its own (one rule, in the one ask entry point).
#[tokio::test(flavor = "multi_thread")]
async fn without_traces_the_api_and_the_mcp_ask_reuse_a_kept_answer_alike() {
    const QUESTION: &str = "How do I search compressed files?";
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &["ripgrep__FAQ.md"]);
    let env = |fake: &FakeModel| {
        vec![
            ("DOCNAV_MODEL", "fake-model".to_string()),
            ("OPENAI_BASE_URL", fake.base_url()),
        ]
    };
    let cli_fake = FakeModel::start(vec![
        understand(&["compressed files"]),
        plan("ripgrep-faq", &["cat 1.8"], "cat 1/8"),
        command("ripgrep-faq", "done"),
        evaluation("sufficient", "", &[]),
    ])
    .await;
    let mut cmd = docnav(&ws);
    for (k, v) in env(&cli_fake) {
        cmd.env(k, v);
    }
    let ask = ["ask", "--json", "--doc", "ripgrep-faq", "--rounds", "1"];
    let cli = cmd.args(ask).arg(QUESTION).output().unwrap();
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    cli_fake.verify().unwrap();
    let traces = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(ws.join("traces"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    let recorded = traces();

    // No reply scripted: any model call is an error.
    let fake = FakeModel::start(Vec::new()).await;
    let served = Served::start(&ws, &["--no-traces"], &env(&fake));
    let request = json!({"question": QUESTION, "doc_ids": ["ripgrep-faq"], "rounds": 1});
    let response = client()
        .post(served.at("/api/v1/ask"))
        .json(&request)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let api: Value = response.json().await.unwrap();
    assert_eq!(api["from_trace"]["llm_calls"], 4, "{api:#}");

    let mcp = connect(&served, None).await.unwrap();
    let result = call(&mcp, "ask", request).await;
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    let answer = result.structured_content.clone().unwrap();
    assert_eq!(answer["from_trace"], api["from_trace"]);
    // The same evidence (scores are floats, printed by two serialisers).
    let places = |v: &Value| -> Vec<(Value, Value)> {
        let evidence = v["evidence"].as_array().unwrap();
        evidence
            .iter()
            .map(|e| (e["doc_id"].clone(), e["structure"].clone()))
            .collect()
    };
    assert_eq!(places(&answer), places(&api));
    assert!(!places(&api).is_empty());

    assert!(fake.received().is_empty(), "no model call");
    fake.verify().unwrap();
    assert_eq!(traces(), recorded, "no trace of its own");
}
