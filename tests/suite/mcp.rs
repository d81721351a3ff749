//! `docnav mcp` end to end: the real binary spawned over stdio, driven by rmcp's client (and, for
//! malformed input, by raw JSON-RPC lines). Tool texts are compared with what `docnav exec`
//! prints for the same command; structured results are validated against the tools' output
//! schemas.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use pretty_assertions::assert_eq;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ProgressNotificationParam, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use serde_json::{json, Value};

use super::common::{fixture, run};

/// The test client: answers as a 2025-06-18 client (what Claude Code, Cursor and Codex speak)
/// and keeps every progress notification.
#[derive(Clone, Default)]
pub struct Client {
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.protocol_version = ProtocolVersion::V_2025_06_18;
        config
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

pub type Server = RunningService<RoleClient, Client>;

/// A workspace in `dir/ws` with `notes.txt`, `multilingual.md`, `ripgrep__GUIDE.md` and `more`.
pub fn workspace(dir: &Path, more: &[&str]) -> std::path::PathBuf {
    let ws = dir.join("ws");
    let mut files: Vec<String> = ["notes.txt", "multilingual.md", "ripgrep__GUIDE.md"]
        .iter()
        .chain(more)
        .map(|f| fixture(f).to_str().unwrap().to_string())
        .collect();
    files.insert(0, "index".into());
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let r = run(&ws, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    ws
}

/// `docnav --workspace ws mcp <args>` with a clean environment plus `env`, connected.
pub async fn start(ws: &Path, args: &[&str], env: &[(&str, String)]) -> (Server, Client) {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_docnav"));
    cmd.env("NO_COLOR", "1");
    for var in [
        "DOCNAV_WORKSPACE",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "DOCNAV_MODEL",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("RUST_LOG", "error");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.arg("--workspace").arg(ws).arg("mcp").args(args);
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let client = Client::default();
    let server = client.clone().serve(transport).await.unwrap();
    (server, client)
}

pub fn params(name: &str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_string()).with_arguments(args.as_object().unwrap().clone())
}

pub async fn call(server: &Server, name: &str, args: Value) -> CallToolResult {
    server.call_tool(params(name, args)).await.unwrap()
}

pub fn text(r: &CallToolResult) -> String {
    assert_eq!(r.content.len(), 1, "{r:?}");
    r.content[0].as_text().unwrap().text.clone()
}

fn is_error(r: &CallToolResult) -> bool {
    r.is_error == Some(true)
}

/// What `docnav exec [--cwd cwd] command` prints: stdout without its line end when it succeeds,
/// the error line from stderr when it fails.
pub fn exec(ws: &Path, cwd: Option<&str>, command: &str) -> (bool, String) {
    let mut args = vec!["exec", command];
    if let Some(cwd) = cwd {
        args.extend(["--cwd", cwd]);
    }
    let r = run(ws, &args);
    match r.code {
        0 => (
            true,
            r.stdout.strip_suffix('\n').unwrap_or(&r.stdout).to_string(),
        ),
        1 => (false, r.stderr.trim_end().to_string()),
        code => panic!("exec {command}: exit {code}: {}", r.stderr),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn initialize_and_tools_list_give_valid_json_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let (server, _) = start(&ws, &[], &[]).await;
    let info = server.peer_info().unwrap();
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_06_18);
    let implementation = info.server_info.clone().unwrap();
    assert_eq!(implementation.name, "docnav");
    assert_eq!(implementation.version, env!("CARGO_PKG_VERSION"));
    assert!(info.capabilities.tools.is_some() && info.capabilities.resources.is_some());
    assert!(info.instructions.as_deref().unwrap().contains("`search`"));

    let tools = server.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        ["docs", "search", "ls", "cat", "head", "find", "findtree", "grep", "tree", "wc", "ask"]
    );
    for tool in &tools {
        let input = Value::Object((*tool.input_schema).clone());
        jsonschema::draft202012::meta::validate(&input)
            .unwrap_or_else(|e| panic!("{}: input schema invalid: {e}", tool.name));
        assert_eq!(input["type"], "object", "{}", tool.name);
        if let Some(output) = &tool.output_schema {
            let output = Value::Object((**output).clone());
            jsonschema::draft202012::meta::validate(&output)
                .unwrap_or_else(|e| panic!("{}: output schema invalid: {e}", tool.name));
        }
        let annotations = tool.annotations.as_ref().unwrap();
        assert_eq!(annotations.read_only_hint, Some(true), "{}", tool.name);
    }
    // The schemas describe what the server accepts: a valid call validates, a bad one does not.
    let cat = tools.iter().find(|t| t.name == "cat").unwrap();
    let validator = jsonschema::validator_for(&Value::Object((*cat.input_schema).clone())).unwrap();
    assert!(validator.is_valid(&json!({"path": "/notes", "offset": 10, "budget": 100})));
    assert!(!validator.is_valid(&json!({"path": "/notes", "budget": 0})));
    assert!(!validator.is_valid(&json!({"offset": 1})));
    assert!(!validator.is_valid(&json!({"path": "/notes", "recursive": true})));
    server.cancel().await.unwrap();
}

/// The structured content of `r`, checked against tool `name`'s output schema.
pub async fn structured(server: &Server, name: &str, r: &CallToolResult) -> Value {
    let tools = server.list_all_tools().await.unwrap();
    let tool = tools.iter().find(|t| t.name == name).unwrap();
    let schema = Value::Object((**tool.output_schema.as_ref().unwrap()).clone());
    let value = r.structured_content.clone().unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    if let Err(e) = validator.validate(&value) {
        panic!("{name}: structured content does not fit the output schema: {e}\n{value:#}");
    }
    value
}

/// rmcp's client with its default settings: it asks for the newest revision, 2026-07-28, which
/// has no `initialize`; the handshake settles on the newest revision that has one.
#[derive(Clone, Default)]
struct LatestClient;

impl ClientHandler for LatestClient {}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_asking_for_the_newest_protocol_revision_is_served_too() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_docnav"));
    cmd.env("RUST_LOG", "off")
        .env_remove("DOCNAV_MODEL")
        .arg("--workspace")
        .arg(&ws)
        .arg("mcp");
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = LatestClient.serve(transport).await.unwrap();
    assert_eq!(
        server.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2025_11_25
    );
    let r = server
        .call_tool(params("wc", json!({"path": "/notes"})))
        .await
        .unwrap();
    assert_eq!(text(&r), exec(&ws, None, "wc /notes").1);
    server.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn navigation_tools_print_what_the_shell_prints() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let (server, _) = start(&ws, &[], &[]).await;
    // (tool, arguments, the same command for `docnav exec`, its --cwd)
    let cases: Vec<(&str, Value, &str, Option<&str>)> = vec![
        ("ls", json!({"path": "/"}), "ls /", None),
        (
            "ls",
            json!({"path": "/ripgrep-guide"}),
            "ls /ripgrep-guide",
            None,
        ),
        (
            "ls",
            json!({"path": "/multilingual/#1"}),
            "ls /multilingual/1",
            None,
        ),
        ("cat", json!({"path": "/notes/1/1"}), "cat /notes/1/1", None),
        (
            "cat",
            json!({"path": "/ripgrep-guide/1", "offset": 4000, "budget": 3000}),
            "cat -o 4000 --budget 3000 /ripgrep-guide/1",
            None,
        ),
        (
            "head",
            json!({"path": "/ripgrep-guide/1/2", "lines": 3}),
            "head -n 3 /ripgrep-guide/1/2",
            None,
        ),
        (
            "find",
            json!({"query": "glob patterns"}),
            "find glob patterns",
            None,
        ),
        (
            "find",
            json!({"query": "workspace", "path": "/notes", "hits": 2}),
            "find -n 2 workspace",
            Some("/notes"),
        ),
        (
            "findtree",
            json!({"pattern": "*filter*"}),
            "findtree '*filter*'",
            None,
        ),
        (
            "findtree",
            json!({"pattern": "café"}),
            "findtree café",
            None,
        ),
        (
            "grep",
            json!({"pattern": "max-count", "path": "/ripgrep-guide", "ignore_case": true}),
            "grep -i max-count /ripgrep-guide",
            None,
        ),
        (
            "grep",
            json!({"pattern": "^\\$ rg", "count": true, "path": "/ripgrep-guide"}),
            "grep -c '^\\$ rg' /ripgrep-guide",
            None,
        ),
        (
            "tree",
            json!({"path": "/", "depth": 1}),
            "tree -L 1 /",
            None,
        ),
        (
            "tree",
            json!({"path": "/ripgrep-guide"}),
            "tree /ripgrep-guide",
            None,
        ),
        (
            "wc",
            json!({"path": "/ripgrep-guide/1/2"}),
            "wc /ripgrep-guide/1/2",
            None,
        ),
        ("wc", json!({"path": "/"}), "wc /", None),
    ];
    for (tool, args, command, cwd) in cases {
        let r = call(&server, tool, args.clone()).await;
        let (ok, shell) = exec(&ws, cwd, command);
        assert!(ok, "exec {command} failed: {shell}");
        assert!(!is_error(&r), "{tool} {args}: {}", text(&r));
        assert_eq!(text(&r).trim_end(), shell.trim_end(), "{tool} {args}");
    }
    // cat's structured page: where it is, and how to read on.
    let r = call(
        &server,
        "cat",
        json!({"path": "/ripgrep-guide/1", "budget": 3000}),
    )
    .await;
    let page = structured(&server, "cat", &r).await;
    assert_eq!(page["doc_id"], "ripgrep-guide");
    assert_eq!(page["path"], "/ripgrep-guide/1");
    assert_eq!(page["uri"], "docnav://ripgrep-guide/#1");
    assert_eq!(page["offset"], 0);
    let end = page["end"].as_u64().unwrap();
    assert!(end > 0 && end <= 3000, "{page}");
    assert_eq!(page["next_offset"], end);
    assert!(text(&r).contains(&format!("read on: cat -o {end} /ripgrep-guide/1")));
    let total = page["total_chars"].as_u64().unwrap();
    let r = call(
        &server,
        "cat",
        json!({"path": "/ripgrep-guide/1", "offset": total - 10}),
    )
    .await;
    let last = structured(&server, "cat", &r).await;
    assert_eq!(
        (last["offset"].as_u64(), last["end"].as_u64()),
        (Some(total - 10), Some(total))
    );
    assert_eq!(last["next_offset"], Value::Null);
    // The note names the last page's chars and its line (`path:N` numbering), then the end.
    let note = text(&r).lines().last().unwrap_or_default().to_string();
    assert!(
        note.starts_with(&format!(
            "[chars {}–{total} of {total} shown (line ",
            total - 10
        )) && note.ends_with("); end of /ripgrep-guide/1]"),
        "{note}"
    );
    server.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn docs_and_search_return_text_and_structured_content() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let (server, _) = start(&ws, &[], &[]).await;

    let r = call(&server, "docs", json!({})).await;
    let page = structured(&server, "docs", &r).await;
    let ids: Vec<&str> = page["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["doc_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["multilingual", "notes", "ripgrep-guide"]);
    assert_eq!(page["total"], 3);
    assert_eq!(page["next_offset"], Value::Null);
    assert_eq!(page["documents"][1]["uri"], "docnav://notes");
    let first_line = text(&r).lines().next().unwrap().to_string();
    assert_eq!(
        first_line,
        "/multilingual  [markdown, 873 B, 5 sections]  — Multilingual notes"
    );
    let r = call(&server, "docs", json!({"offset": 1, "limit": 1})).await;
    let page = structured(&server, "docs", &r).await;
    assert_eq!(page["documents"][0]["doc_id"], "notes");
    assert_eq!(page["next_offset"], 2);
    assert!(
        text(&r).ends_with("[documents 2–2 of 3 listed; more with offset=2]\n"),
        "{}",
        text(&r)
    );

    // With `for`, docs ranks what `docs --for` ranks, and prints the same text.
    let question = "How do I search hidden files with ripgrep?";
    let r = call(&server, "docs", json!({"for": question, "k": 2})).await;
    let ranked = structured(&server, "docs", &r).await;
    let cli = run(&ws, &["docs", "--for", question, "-k", "2", "--json"]);
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    let cli: Value = serde_json::from_str(&cli.stdout).unwrap();
    let mcp_ids: Vec<&str> = ranked["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["doc_id"].as_str().unwrap())
        .collect();
    let cli_ids: Vec<&str> = cli
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["card"]["doc_id"].as_str().unwrap())
        .collect();
    assert_eq!(mcp_ids, cli_ids);
    assert_eq!(mcp_ids[0], "ripgrep-guide");
    assert!(
        !ranked["documents"][0]["why"].as_str().unwrap().is_empty(),
        "{ranked}"
    );
    let cli_text = run(&ws, &["docs", "--for", question, "-k", "2"]);
    assert_eq!(text(&r), cli_text.stdout);
    let r = call(&server, "docs", json!({"for": "  "})).await;
    assert!(is_error(&r), "{}", text(&r));

    // search ranks what `ask --lexical` ranks.
    let query = "how do I search hidden files and directories";
    let r = call(
        &server,
        "search",
        json!({"query": query, "k": 3, "budget": 200}),
    )
    .await;
    let found = structured(&server, "search", &r).await;
    let lexical = run(&ws, &["ask", "--lexical", "--json", "-k", "3", query]);
    assert_eq!(lexical.code, 0, "{}", lexical.stderr);
    let lexical: Value = serde_json::from_str(&lexical.stdout).unwrap();
    let expected: Vec<(String, String, Value)> = lexical["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["doc_id"].as_str().unwrap().into(),
                e["structure"].as_str().unwrap().into(),
                e["lines"].clone(),
            )
        })
        .collect();
    let got: Vec<(String, String, Value)> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["doc_id"].as_str().unwrap().into(),
                e["structure"].as_str().unwrap().into(),
                e["lines"].clone(),
            )
        })
        .collect();
    assert_eq!(got, expected);
    assert_eq!(got.len(), 3);
    let best = &found["results"][0];
    let full = lexical["evidence"][0]["text"].as_str().unwrap();
    let shown = best["text"].as_str().unwrap();
    assert!(
        shown.chars().count() <= 200 && full.starts_with(shown),
        "{shown:?}"
    );
    assert_eq!(best["text_chars"], full.chars().count());
    // The path it gives is one cat reads.
    let path = best["path"].as_str().unwrap();
    let r = call(&server, "cat", json!({"path": path, "budget": 100000})).await;
    assert!(!is_error(&r), "{}", text(&r));
    assert!(text(&r).contains(full.trim_end()), "{}", text(&r));
    // No match is a result, not an error.
    let r = call(&server, "search", json!({"query": "zzzyzzy"})).await;
    assert!(!is_error(&r));
    assert_eq!(
        text(&r),
        "search: no section matches 'zzzyzzy' (try other words, or grep)"
    );
    server.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn mistakes_are_error_results_with_the_shells_one_line_messages() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let (server, _) = start(&ws, &[], &[]).await;
    // The shell's own errors: the same text `docnav exec` reports.
    let shell_errors: Vec<(&str, Value, &str)> = vec![
        ("ls", json!({"path": "/nowhere"}), "ls /nowhere"),
        ("cat", json!({"path": "/notes/9"}), "cat /notes/9"),
        ("cat", json!({"path": "/notes/#7.7"}), "cat /notes/#7.7"),
        ("cat", json!({"path": "/"}), "cat /"),
        (
            "cat",
            json!({"path": "/notes/1/1", "offset": 999999}),
            "cat -o 999999 /notes/1/1",
        ),
        ("grep", json!({"pattern": "(("}), "grep '((' /"),
        ("findtree", json!({"pattern": "[z"}), "findtree '[z'"),
        ("find", json!({"query": "  "}), "find"),
        (
            "head",
            json!({"path": "/ripgrep-guide/Nope"}),
            "head /ripgrep-guide/Nope",
        ),
    ];
    for (tool, args, command) in shell_errors {
        let r = call(&server, tool, args.clone()).await;
        let (ok, shell) = exec(&ws, None, command);
        assert!(!ok, "exec {command} succeeded");
        assert!(is_error(&r), "{tool} {args}: {}", text(&r));
        assert_eq!(text(&r), shell, "{tool} {args}");
    }
    // The server's own checks.
    let mut own_errors: Vec<(&str, Value, &str)> = vec![
        ("ls", json!({"path": "notes"}), "ls: path 'notes' is not absolute (start at /: `/` lists the documents, `/doc_id/2/1` or `/doc_id/#2.1` is a section)"),
        ("ls", json!({}), "ls: bad arguments: missing field `path` (see the tool's input schema)"),
        ("cat", json!({"path": "/notes", "budget": "x"}), "cat: bad arguments: invalid type: string \"x\", expected usize (see the tool's input schema)"),
        ("grep", json!({"pattern": "x", "recursive": true}), "grep: bad arguments: unknown field `recursive`, expected one of `pattern`, `path`, `ignore_case`, `count`, `max`, `offset`, `budget` (see the tool's input schema)"),
        ("ls", json!({"path": "/", "budget": 0}), "ls: budget must be at least 1 char"),
        ("cat", json!({"path": "/notes", "budget": 2000000}), "cat: budget 2000000 is over the limit of 1000000 chars per call (read on with offset)"),
        ("docs", json!({"offset": 3}), "docs: offset 3 is past the last document (there are 3)"),
        ("search", json!({"query": "x", "k": 0}), "search: k must be 1 to 50, not 0"),
        ("search", json!({"query": "x", "doc_ids": ["nope"]}), "search: document not found: nope (hint: `docnav docs` lists the ids)"),
        ("ask", json!({"question": "x", "rounds": "two"}), "ask: bad arguments: invalid type: string \"two\", expected usize (see the tool's input schema)"),
    ];
    let tree_chars = exec(&ws, None, "tree /").1.chars().count();
    let past_end =
        format!("tree: offset 100000 is past the end of the output ({tree_chars} chars)");
    own_errors.push(("tree", json!({"path": "/", "offset": 100000}), &past_end));
    for (tool, args, message) in own_errors {
        let r = call(&server, tool, args.clone()).await;
        assert!(is_error(&r), "{tool} {args}: {}", text(&r));
        assert_eq!(text(&r), message, "{tool} {args}");
    }
    // An unknown tool is a protocol error (invalid params), and the server goes on.
    match server.call_tool(params("rm", json!({"path": "/"}))).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code.0, -32602);
            assert_eq!(e.message, "unknown tool 'rm' (tools/list names the tools)");
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
    assert!(!is_error(&call(&server, "ls", json!({"path": "/"})).await));
    server.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_workspace_is_reported_by_each_call_and_picked_up_once_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let (server, _) = start(&ws, &[], &[]).await;
    let r = call(&server, "ls", json!({"path": "/"})).await;
    assert!(is_error(&r));
    assert_eq!(
        text(&r),
        format!(
            "ls: no workspace at `{}` (hint: run `docnav index <files>` first, or pass --workspace)",
            ws.display()
        )
    );
    assert!(server.list_all_resources().await.unwrap().is_empty());
    let indexed = run(&ws, &["index", fixture("notes.txt").to_str().unwrap()]);
    assert_eq!(indexed.code, 0, "{}", indexed.stderr);
    let r = call(&server, "ls", json!({"path": "/"})).await;
    assert_eq!(text(&r), "1. notes  [text, 906 B]  — notes");
    server.cancel().await.unwrap();
}

/// Responses and id-less errors of a raw JSON-RPC session, until responses to all of `ids` came
/// (requests are answered concurrently, so in any order).
fn raw_session(ws: &Path, lines: &[&[u8]], ids: &[u64]) -> (Vec<Value>, std::process::ExitStatus) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_docnav"))
        .env("RUST_LOG", "off")
        .env_remove("DOCNAV_MODEL")
        .arg("--workspace")
        .arg(ws)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    stdin.flush().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(serde_json::from_str::<Value>(&line).unwrap());
        }
    });
    let mut seen = Vec::new();
    loop {
        let message = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("responses to {ids:?} missing; got {seen:#?}"));
        seen.push(message);
        if ids.iter().all(|id| seen.iter().any(|m| m["id"] == *id)) {
            break;
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    (seen, status)
}

#[test]
fn malformed_input_gets_protocol_errors_and_never_ends_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let ws = workspace(dir.path(), &[]);
    let lines: Vec<&[u8]> = vec![
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        b"this is not JSON",
        b"\xff\xfe{ not UTF-8",
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"not an object"}"#,
        br#"{"jsonrpc":"2.0","id":3,"method":"no/such/method"}"#,
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ls","arguments":{"path":42}}}"#,
        br#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"docnav://nope"}}"#,
        br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"cat"}}"#,
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ls","arguments":{"path":"/"}}}"#,
    ];
    let (seen, status) = raw_session(&ws, &lines, &[1, 3, 4, 5, 6, 7]);
    let by_id = |id: u64| seen.iter().find(|m| m["id"] == id).cloned();
    assert_eq!(by_id(1).unwrap()["result"]["serverInfo"]["name"], "docnav");
    // A line that is not JSON (or not UTF-8): the parse error, id null, one per line.
    let parse_errors: Vec<&Value> = seen
        .iter()
        .filter(|m| m["error"]["code"] == -32700)
        .collect();
    assert_eq!(parse_errors.len(), 2, "{seen:#?}");
    assert!(parse_errors.iter().all(|m| m["id"].is_null()));
    // Well-formed JSON of the wrong shape: "Invalid Request" (the id cannot be trusted).
    assert!(
        seen.iter().any(|m| m["error"]["code"] == -32600),
        "{seen:#?}"
    );
    assert_eq!(by_id(3).unwrap()["error"]["code"], -32601);
    let r4 = by_id(4).unwrap();
    assert_eq!(r4["result"]["isError"], true);
    assert_eq!(
        r4["result"]["content"][0]["text"],
        "ls: bad arguments: invalid type: integer `42`, expected a string (see the tool's input schema)"
    );
    let r5 = by_id(5).unwrap();
    assert_eq!(r5["error"]["code"], -32002);
    assert_eq!(
        r5["error"]["message"],
        "document not found: nope (hint: `docnav docs` lists the ids)"
    );
    assert_eq!(
        by_id(6).unwrap()["result"]["content"][0]["text"],
        "cat: bad arguments: missing field `path` (see the tool's input schema)"
    );
    assert_eq!(
        by_id(7).unwrap()["result"]["content"][0]["text"],
        "1. multilingual  [markdown, 873 B]  — Multilingual notes\n2. notes  [text, 906 B]  — notes\n3. ripgrep-guide  [markdown, 40.7 KB]  — ripgrep__GUIDE"
    );
    // Closing stdin ends the server cleanly.
    assert!(status.success(), "{status}");
}
