//! MCP over streamable HTTP at `docnav serve`'s `/mcp`, through rmcp's HTTP client: the same
//! tools and results as `docnav mcp` on stdio, behind the server's token.

use pretty_assertions::assert_eq;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::json;

use super::mcp::{call, start, structured, text, workspace, Client, Server};
use crate::support::server::Served;

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
