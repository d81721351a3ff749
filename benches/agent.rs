//! Agent and trace benchmarks (issues 4 and 5), against a *reactive* fake chat-completions server
//! on 127.0.0.1 that answers each decision by reading the request (so runs of any length and over
//! any workspace can be generated) and waits a fixed delay per call.
//!
//! Run: `cargo bench --bench agent` (the corpus figures need `../shared/corpus`; they are skipped
//! with a message otherwise). `DOCNAV_BENCH_RUNS` (default 5) runs per figure; medians reported;
//! `DOCNAV_BENCH_DELAY_MS` (default 300) is the per-call delay of the latency figures.
//! `DOCNAV_BENCH_ONLY` (comma-separated `latency`, `corpus`, `replay`, `calls`) runs only those
//! groups of figures: `latency` 1–2, `corpus` 3–5 (the trace recording overhead is 5), `replay` 6,
//! `calls` issue 14's sequential calls, prompt tokens and routing ([`calls`]; it keeps its corpus
//! workspace in `target/bench-ws/` between runs, re-indexing only what changed), `concepts` how the
//! key concepts make the Worker's first `find` (issue 14.2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use docnav::agent::{ask, AgentOptions, AgentRun, EventSink, NullSink, SharedModel};
use docnav::llm::{ChatModel, ModelConfig, OpenAiCompatible};
use docnav::trace::replay::{replay, MemorySink};
use docnav::trace::{read_trace, TraceHeader, TraceWriter};
use docnav::workspace::indexer::NoProgress;
use docnav::workspace::{IndexOptions, Library, Workspace};
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

#[path = "agent/calls.rs"]
mod calls;

/// What the reactive fake answers.
struct Script {
    /// Documents analyze returns as tasks.
    docs: Vec<String>,
    /// Navigation steps per worker before `done`.
    steps: usize,
    delay: Duration,
    /// Largest request seen, in chars of message content.
    max_prompt_chars: AtomicUsize,
    calls: AtomicUsize,
}

fn content(body: &Value) -> (String, String) {
    let msgs = body["messages"].as_array().cloned().unwrap_or_default();
    let system = msgs
        .first()
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string();
    let user = msgs
        .iter()
        .skip(1)
        .filter_map(|m| m["content"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    (system, user)
}

fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let rest = &text[from..];
    Some(&rest[..rest.find(end)?])
}

impl Script {
    fn reply(&self, body: &Value) -> String {
        let (system, user) = content(body);
        let chars: usize = system.chars().count() + user.chars().count();
        self.max_prompt_chars.fetch_max(chars, Ordering::SeqCst);
        self.calls.fetch_add(1, Ordering::SeqCst);
        // Each decision is told apart by the JSON schema the request names (json_schema is on
        // by default), so prompt wording can change without breaking the bench.
        let schema = body
            .pointer("/response_format/json_schema/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let understanding = json!({"intent": "factual", "key_concepts": ["options", "usage"], "strategy": "focused"});
        let tasks: Vec<Value> = self
            .docs
            .iter()
            .map(|d| json!({"doc_id": d, "task": "find the usage section"}))
            .collect();
        match schema {
            "query_plan" => return understanding.to_string(),
            "analysis" => {
                let mut v = understanding;
                v["tasks"] = json!(tasks);
                return v.to_string();
            }
            "check" | "evaluation" => {
                return json!({"verdict": "sufficient", "missing": "", "tasks": []}).to_string();
            }
            "plan_step" | "nav_step" => {}
            other => panic!("bench server: unexpected response_format schema {other:?}"),
        }
        // Navigate: steps taken = history lines; cycle through real commands, then done.
        let doc = between(&user, "Task in document `", "`")
            .unwrap_or("x")
            .to_string();
        let taken = between(&user, "Steps so far:\n", "\n\n").map_or(0, |h| {
            h.lines()
                .filter(|l| {
                    l.trim_start()
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_digit())
                })
                .count()
        });
        let command = if taken >= self.steps {
            "done".to_string()
        } else {
            match taken % 4 {
                0 => format!("cd /{doc}"),
                1 => "ls".to_string(),
                2 => "cd 1".to_string(),
                _ => "cat .".to_string(),
            }
        };
        json!({"plan": ["look around", "read a section"], "reason": "bench", "command": command})
            .to_string()
    }
}

struct Responder(Arc<Script>);

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let text = self.0.reply(&body);
        let prompt = (content(&body).0.len() + content(&body).1.len()).div_ceil(4) as u64;
        let completion = text.len().div_ceil(4) as u64;
        ResponseTemplate::new(200)
            .set_body_json(json!({
                "id": "bench", "object": "chat.completion", "created": 0, "model": "bench",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
            }))
            .set_delay(self.0.delay)
    }
}

async fn fake(script: Arc<Script>) -> (MockServer, Arc<dyn ChatModel>) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(Responder(script))
        .mount(&server)
        .await;
    let mut config = ModelConfig::new("bench", &format!("{}/v1", server.uri())).unwrap();
    config.concurrency = 8;
    let model: Arc<dyn ChatModel> = Arc::new(OpenAiCompatible::new(config).unwrap());
    (server, model)
}

fn script(docs: &[&str], steps: usize, delay_ms: u64) -> Arc<Script> {
    Arc::new(Script {
        docs: docs.iter().map(|d| d.to_string()).collect(),
        steps,
        delay: Duration::from_millis(delay_ms),
        max_prompt_chars: AtomicUsize::new(0),
        calls: AtomicUsize::new(0),
    })
}

fn options(max_steps: usize) -> AgentOptions {
    AgentOptions {
        rounds: 1,
        max_steps,
        evidence_chars: usize::MAX / 4,
        ..AgentOptions::default()
    }
}

async fn run_once(
    lib: Arc<dyn Library>,
    model: Arc<dyn ChatModel>,
    sink: Arc<dyn EventSink>,
    max_steps: usize,
) -> (Duration, AgentRun) {
    let started = Instant::now();
    let run = ask(
        lib,
        Arc::new(SharedModel(model)),
        sink,
        &options(max_steps),
        "how are the options used?",
    )
    .await
    .unwrap();
    (started.elapsed(), run)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn index(dir: &Path, paths: &[PathBuf]) -> Arc<dyn Library> {
    let args: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Workspace::index(dir, &args, &IndexOptions::default(), &NoProgress).unwrap();
    Arc::new(Workspace::open(dir).unwrap())
}

/// A fresh library handle (no cached documents), as a new `docnav ask` process would have.
fn reopen(dir: &Path) -> Arc<dyn Library> {
    Arc::new(Workspace::open(dir).unwrap())
}

fn main() {
    let runs: usize = std::env::var("DOCNAV_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(1);
    let delay: u64 = std::env::var("DOCNAV_BENCH_DELAY_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let only = std::env::var("DOCNAV_BENCH_ONLY").ok();
    let want = |group: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|g| g.trim() == group))
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures: Vec<PathBuf> = [
        "notes.txt",
        "multilingual.md",
        "ripgrep__GUIDE.md",
        "ripgrep__FAQ.md",
        "docker-doc__builder.md",
    ]
    .iter()
    .map(|f| root.join("fixtures/docs").join(f))
    .collect();
    let tmp = tempfile::tempdir().unwrap();
    let fx_dir = tmp.path().join("fixtures-ws");
    index(&fx_dir, &fixtures);
    let four = ["notes", "multilingual", "ripgrep-guide", "ripgrep-faq"];
    println!("machine: {cores} cores; runs per figure: {runs} (median); fake model delay {delay} ms per call");
    println!("| figure | input | median | note |");
    println!("| --- | --- | --- | --- |");

    rt.block_on(async {
        // 1. Wall time vs sequential calls on the critical path (1 worker).
        for steps in [2usize, 4, 8].into_iter().filter(|_| want("latency")) {
            let s = script(&["ripgrep-guide"], steps, delay);
            let (_server, model) = fake(s.clone()).await;
            let mut walls = Vec::new();
            let mut calls = 0;
            for _ in 0..runs {
                let (wall, run) = run_once(reopen(&fx_dir), model.clone(), Arc::new(NullSink), 50).await;
                walls.push(wall.as_secs_f64() * 1000.0);
                calls = run.answer.stats.llm_calls;
            }
            let wall = median(walls);
            println!(
                "| 1 worker, {steps} steps: {calls} sequential calls | fixtures, {delay} ms/call | {wall:.0} ms | {:.0} ms = calls × delay; overhead {:.1} ms |",
                calls as f64 * delay as f64,
                wall - calls as f64 * delay as f64
            );
        }
        // 2. 4 workers in parallel vs 1.
        let mut by_workers = Vec::new();
        for docs in [&four[..1], &four[..]].into_iter().filter(|_| want("latency")) {
            let s = script(docs, 4, delay);
            let (_server, model) = fake(s.clone()).await;
            let mut walls = Vec::new();
            for _ in 0..runs {
                walls.push(run_once(reopen(&fx_dir), model.clone(), Arc::new(NullSink), 50).await.0.as_secs_f64() * 1000.0);
            }
            by_workers.push(median(walls));
        }
        if want("latency") {
            println!(
                "| 4 workers vs 1 (4 steps each) | fixtures, {delay} ms/call | {:.0} ms vs {:.0} ms | ratio {:.2} (target < 1.3) |",
                by_workers[1], by_workers[0], by_workers[1] / by_workers[0]
            );
        }

        // 3–6 on the corpus workspace.
        // `../shared/corpus` from the main checkout, `../../shared/corpus` from a worktree.
        let corpus = ["../shared/corpus", "../../shared/corpus"]
            .iter()
            .map(|p| root.join(p))
            .find(|p| p.join("MANIFEST.tsv").is_file())
            .unwrap_or_else(|| root.join("../shared/corpus"));
        if want("corpus") && corpus.is_dir() {
            let corpus_dir = tmp.path().join("corpus-ws");
            let started = Instant::now();
            index(&corpus_dir, std::slice::from_ref(&corpus));
            eprintln!("indexed the corpus in {:.1} s", started.elapsed().as_secs_f64());
            let docs = ["r-fullrefman", "nodejs-doc-fs", "docker-doc-builder", "bashref"];
            let s = script(&docs, 12, 0);
            let (_server, model) = fake(s.clone()).await;
            let mut overheads = Vec::new();
            let mut walls = Vec::new();
            let mut last = None;
            for _ in 0..runs {
                let sink = Arc::new(MemorySink::default());
                let (wall, run) = run_once(reopen(&corpus_dir), model.clone(), sink.clone(), 12).await;
                let waiting = critical_path_wait_ms(&sink.events());
                walls.push(wall.as_secs_f64() * 1000.0);
                overheads.push(wall.as_secs_f64() * 1000.0 - waiting);
                last = Some(run);
            }
            let run = last.unwrap();
            println!(
                "| docnav overhead per question (4 workers × 12 steps, cold workspace) | corpus (44 docs), 0 ms/call | {:.1} ms | wall {:.1} ms minus model waiting on the critical path (target < 50 ms) |",
                median(overheads), median(walls)
            );
            // Warm: documents already loaded (a shell session's second question).
            let lib = reopen(&corpus_dir);
            let _ = run_once(lib.clone(), model.clone(), Arc::new(NullSink), 12).await;
            let mut warm = Vec::new();
            for _ in 0..runs {
                let sink = Arc::new(MemorySink::default());
                let (wall, _) = run_once(lib.clone(), model.clone(), sink.clone(), 12).await;
                warm.push(wall.as_secs_f64() * 1000.0 - critical_path_wait_ms(&sink.events()));
            }
            println!("| docnav overhead per question, documents already loaded | corpus, 0 ms/call | {:.1} ms | same question in a warm session |", median(warm));
            println!(
                "| model calls and tokens per question | corpus, 4 workers × 12 steps | {} calls | {} prompt + {} completion tokens (chars/4 estimate of the fake) |",
                run.answer.stats.llm_calls, run.answer.stats.prompt_tokens, run.answer.stats.completion_tokens
            );
            // 4. Largest prompt navigating R-fullrefman for 12 steps.
            let s = script(&["r-fullrefman"], 12, 0);
            let (_server, model) = fake(s.clone()).await;
            let _ = run_once(reopen(&corpus_dir), model, Arc::new(NullSink), 12).await;
            let max_tokens = s.max_prompt_chars.load(Ordering::SeqCst).div_ceil(4);
            println!(
                "| largest prompt while navigating R-fullrefman.pdf (12 steps) | corpus | {max_tokens} est. tokens | cap 12,000 ({}) |",
                if max_tokens <= 12_000 { "under" } else { "OVER" }
            );
            // 5. Recording overhead, warm library: worst case with an instant model (docnav CPU-bound
            //    on 2 cores, the writer thread competing), and with the bench delay per call
            //    (the writer works while the agent waits for the model).
            let lib = reopen(&corpus_dir);
            for (label, call_delay, steps) in [("0 ms/call, 4 workers × 12 steps", 0, 12), ("bench delay per call, 4 workers × 4 steps", delay, 4)] {
                let (p, t) = recording_overhead(&lib, &docs, steps, call_delay, runs, tmp.path()).await;
                println!(
                    "| trace recording overhead | corpus, {label} | {t:.1} ms vs {p:.1} ms of ask's own time | {:+.1}% (target < 5%) |",
                    100.0 * (t - p) / p
                );
            }
        } else if want("corpus") {
            println!("| corpus figures | skipped: ../shared/corpus not found | | |");
        }

        // Issue 14: calls, tokens and routing with a scripted typical path.
        if want("concepts") {
            let keep = root.join("target/bench-ws");
            let all_fixtures = index(&keep.join("fixtures"), &[root.join("fixtures/docs")]);
            calls::concepts_figure(root, all_fixtures.as_ref());
        }
        if want("calls") && corpus.is_dir() {
            let keep = root.join("target/bench-ws");
            // The 43 documents (not the corpus README).
            let corpus_lib = index(&keep.join("corpus43"), &[corpus.join("md"), corpus.join("pdf")]);
            let all_fixtures = index(&keep.join("fixtures"), &[root.join("fixtures/docs")]);
            calls::run(root, corpus_lib, all_fixtures).await;
        } else if want("calls") {
            println!("| calls figures | skipped: ../shared/corpus not found | | |");
        }

        // 6. Replay of a 200-step trace.
        if !want("replay") {
            return;
        }
        let s = script(&["ripgrep-guide"], 200, 0);
        let (_server, model) = fake(s.clone()).await;
        let trace = tmp.path().join("long.jsonl");
        let lib = reopen(&fx_dir);
        let header = TraceHeader::for_run(lib.as_ref(), "how are the options used?", "bench", &options(200), 0);
        let writer = Arc::new(TraceWriter::create(&trace, &header).unwrap());
        let run = ask(lib.clone(), Arc::new(SharedModel(model)), writer.clone(), &options(200), "how are the options used?").await.unwrap();
        writer.finish().unwrap();
        let steps = run.answer.stats.workers[0].steps;
        let mut times = Vec::new();
        for _ in 0..runs {
            let started = Instant::now();
            let t = read_trace(&trace).unwrap();
            let outcome = replay(&t, reopen(&fx_dir)).await;
            assert!(outcome.divergence.is_none(), "{:?}", outcome.divergence);
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        let bytes = std::fs::metadata(&trace).map(|m| m.len()).unwrap_or(0);
        println!(
            "| replay of a {steps}-step trace (read + re-run + compare) | fixtures, {:.1} MB trace | {:.0} ms | target < 1 s |",
            bytes as f64 / 1e6,
            median(times)
        );
    });
}

/// Median non-model time of `ask` without and with a trace writer: (plain ms, traced ms). The
/// traced time includes `finish()` (waiting for the writer to drain), as `docnav ask` does.
async fn recording_overhead(
    lib: &Arc<dyn Library>,
    docs: &[&str],
    steps: usize,
    delay_ms: u64,
    runs: usize,
    tmp: &Path,
) -> (f64, f64) {
    let s = script(docs, steps, delay_ms);
    let (_server, model) = fake(s).await;
    let _ = run_once(lib.clone(), model.clone(), Arc::new(NullSink), steps).await;
    let (mut plain, mut traced) = (Vec::new(), Vec::new());
    // Pairs interleaved; many when each run is short, so the median is stable at the 1 ms level.
    let pairs = if delay_ms == 0 {
        runs.max(5) * 8
    } else {
        runs.max(5) * 2
    };
    for i in 0..pairs {
        let mem = Arc::new(MemorySink::default());
        let (w1, _) = run_once(lib.clone(), model.clone(), mem.clone(), steps).await;
        plain.push(w1.as_secs_f64() * 1000.0 - critical_path_wait_ms(&mem.events()));
        let trace = tmp.join(format!("overhead-{delay_ms}-{i}.jsonl"));
        let header = TraceHeader::for_run(lib.as_ref(), "q", "bench", &options(steps), 0);
        let writer = Arc::new(TraceWriter::create(&trace, &header).unwrap());
        let started = Instant::now();
        ask(
            lib.clone(),
            Arc::new(SharedModel(model.clone())),
            writer.clone(),
            &options(steps),
            "how are the options used?",
        )
        .await
        .unwrap();
        writer.finish().unwrap();
        let w2 = started.elapsed().as_secs_f64() * 1000.0;
        traced.push(w2 - critical_path_wait_ms(&read_trace(&trace).unwrap().events));
    }
    (median(plain), median(traced))
}

/// Model waiting on the critical path, ms: the orchestrator's calls plus, per round, the slowest
/// worker's calls (workers of a round run in parallel).
fn critical_path_wait_ms(events: &[docnav::agent::EventRecord]) -> f64 {
    use docnav::agent::AgentEvent;
    use std::collections::HashMap;
    let mut per_actor: HashMap<&str, u64> = HashMap::new();
    for e in events {
        if let AgentEvent::ModelResponse { latency_ms, .. } = &e.event {
            *per_actor.entry(e.actor.as_str()).or_default() += latency_ms;
        }
    }
    let orchestrator = per_actor.get("orchestrator").copied().unwrap_or(0);
    let mut rounds: HashMap<&str, u64> = HashMap::new();
    for (actor, ms) in &per_actor {
        if let Some(round) = actor.split('-').next().filter(|r| r.starts_with('r')) {
            let slot = rounds.entry(round).or_default();
            *slot = (*slot).max(*ms);
        }
    }
    (orchestrator + rounds.values().sum::<u64>()) as f64
}
