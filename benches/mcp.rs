//! `docnav mcp` as a coding agent sees it (issue 12 targets): the release binary spawned over
//! stdio and driven by rmcp's client, on the 43-document corpus indexed into a temp workspace.
//! Every figure is a whole round trip: JSON-RPC request, the server's work, the response parsed
//! by the client.
//!
//! - `initialize`: spawn → `initialize` answered → `notifications/initialized` sent (≤ 100 ms),
//!   without and with a model configured (the server then builds its HTTP client at start);
//! - `tools_list` (≤ 5 ms); `search`, warm: trees loaded by an earlier call (≤ 20 ms);
//! - `cat` of the section closest to 100 KB: one page (default budget) and whole (≤ 10 ms).
//!
//! Skips with a message when `../shared/corpus` is absent. Run: `cargo bench --bench mcp`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use docnav::nav::display_path;
use docnav::tree::NodeId;
use docnav::workspace::{Library, Workspace};
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};

#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.protocol_version = ProtocolVersion::V_2025_06_18;
        config
    }
}

fn corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../shared/corpus", "../../shared/corpus"]
        .iter()
        .map(|rel| root.join(rel))
        .find(|p| p.join("MANIFEST.tsv").is_file())
}

/// Spawn `docnav mcp` and complete the `initialize` handshake. `model`: configure one (a
/// loopback URL nothing listens on: the server builds its HTTP client at start but calls no model).
async fn connect(ws: &Path, model: bool) -> RunningService<RoleClient, Client> {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_docnav"));
    if model {
        cmd.env("DOCNAV_MODEL", "bench-model")
            .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
    } else {
        cmd.env_remove("DOCNAV_MODEL");
    }
    cmd.env("RUST_LOG", "error")
        .arg("--workspace")
        .arg(ws)
        .arg("mcp");
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Client.serve(transport).await.unwrap()
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_string()).with_arguments(args.as_object().unwrap().clone())
}

/// The path (`/doc/2/1`) of the section whose text is closest to 100 KB, and its size in bytes.
fn section_near_100k(ws: &Workspace) -> (String, usize) {
    let mut best: Option<(usize, String, usize)> = None;
    for card in ws.all_cards() {
        let doc = ws.document(&card.doc_id).unwrap();
        for node in doc.tree.preorder(NodeId::ROOT) {
            let len = doc.tree.text_of(node).len();
            let distance = len.abs_diff(100_000);
            if best.as_ref().is_none_or(|b| distance < b.0) {
                best = Some((distance, display_path(&card.doc_id, &doc.tree, node), len));
            }
        }
    }
    let (_, path, len) = best.unwrap();
    (path, len)
}

fn bench(c: &mut Criterion) {
    let Some(corpus) = corpus() else {
        eprintln!("skipping mcp benches: ../shared/corpus not found");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_docnav"))
        .arg("--workspace")
        .arg(&ws)
        .arg("index")
        .arg(corpus.join("md"))
        .arg(corpus.join("pdf"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "indexing the corpus failed");
    let workspace = Workspace::open(&ws).unwrap();
    let (big_path, big_len) = section_near_100k(&workspace);
    eprintln!(
        "{} documents; cat target {big_path} ({big_len} bytes)",
        workspace.all_cards().len()
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();

    let mut g = c.benchmark_group("mcp");
    for (name, model) in [("initialize", false), ("initialize_with_model", true)] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let started = Instant::now();
                    let client = runtime.block_on(connect(&ws, model));
                    total += started.elapsed();
                    runtime.block_on(client.cancel()).unwrap();
                }
                total
            })
        });
    }

    let client = runtime.block_on(connect(&ws, false));
    g.bench_function("tools_list", |b| {
        b.iter(|| runtime.block_on(client.list_tools(None)).unwrap())
    });
    let queries = [
        "how do I search hidden files",
        "stream backpressure highWaterMark",
        "docker build cache mount",
        "regression coefficients linear model",
        "package.json scripts lifecycle",
    ];
    // Warm: every document's tree is loaded once before timing.
    for q in queries {
        runtime
            .block_on(client.call_tool(call("search", json!({"query": q}))))
            .unwrap();
    }
    let mut i = 0;
    g.bench_function("search_warm", |b| {
        b.iter(|| {
            i = (i + 1) % queries.len();
            let r = runtime
                .block_on(client.call_tool(call("search", json!({"query": queries[i]}))))
                .unwrap();
            assert_ne!(r.is_error, Some(true));
            r
        })
    });
    g.bench_function("cat_100k_page", |b| {
        b.iter(|| {
            runtime
                .block_on(client.call_tool(call("cat", json!({"path": big_path}))))
                .unwrap()
        })
    });
    g.bench_function("cat_100k_whole", |b| {
        b.iter(|| {
            let r = runtime
                .block_on(
                    client.call_tool(call("cat", json!({"path": big_path, "budget": 1_000_000}))),
                )
                .unwrap();
            assert_ne!(r.is_error, Some(true));
            r
        })
    });
    g.finish();
    runtime.block_on(client.cancel()).unwrap();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
