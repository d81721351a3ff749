//! Fault-rate bench (issue 11): `docnav ask` over the 43-document corpus while the model server
//! answers a seeded share of requests with a fault — 429 with `Retry-After`, 500, 503, a hang past
//! `--timeout`, prose instead of JSON, truncated or wrong-shape JSON (in the reply text and as
//! the body), `"choices": []`, an empty message, an HTML page, headers then nothing, a connection
//! closed mid-body — and with an oracle's right answer otherwise (`tests/support/`).
//!
//! Measures, over the 36 questions of `fixtures/qa.jsonl` whose document is in the corpus and the
//! 8 of [`EXTRA`] (44 questions, 17 documents):
//! the share of asks that exit 0 with evidence, the share of traces that `docnav replay`
//! reproduces identically, panics, and whether the API key appears in any trace, stdout or
//! stderr. Prints one Markdown table (for BENCHMARKS.md) and the failures, one line each.
//!
//! Run: `cargo bench --bench faults` (release build; needs `../shared/corpus`, skips with a
//! message otherwise). Environment: `DOCNAV_FAULT_RATE` (default 0.3), `DOCNAV_FAULT_SEED`
//! (default 1), `DOCNAV_FAULT_JOBS` (asks run at once, default 2), `DOCNAV_FAULT_TIMEOUT`
//! (`--timeout` in seconds, default 2), `DOCNAV_FAULT_LIMIT` (first N questions only),
//! `DOCNAV_BIN` (another `docnav` binary to measure, e.g. one built from an older commit),
//! `DOCNAV_FAULT_KEEP=1` (keep the workspace and the traces `ask-NN.jsonl`; prints where).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
#[path = "../tests/support/fault_server.rs"]
mod fault_server;
#[allow(dead_code)]
#[path = "../tests/support/oracle.rs"]
mod oracle;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fault_server::{Fault, FaultServer};
use oracle::Oracle;
use serde_json::Value;

const SECRET: &str = "sk-bench-FAULTS-7f3a9c2e51";

/// Questions over corpus documents `fixtures/qa.jsonl` does not cover: `(question, file name)`.
const EXTRA: [(&str, &str); 8] = [
    (
        "how do I point npm at a different registry?",
        "npm__config.md",
    ),
    ("which tokio release added JoinSet?", "tokio__CHANGELOG.md"),
    (
        "how do I limit the memory a container may use?",
        "docker-doc__run.md",
    ),
    (
        "what does the bin field of package.json do?",
        "npm__package-json.md",
    ),
    (
        "how do I convert a Markdown string to HTML from Python?",
        "python-markdown__api.md",
    ),
    ("what does set -e do in bash?", "bash-manpage.pdf"),
    (
        "where must a package put its configuration files?",
        "debian-policy.pdf",
    ),
    ("how do I plot columns of a data file?", "gnuplot.pdf"),
];

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn corpus_dir() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../shared/corpus", "../../shared/corpus"]
        .iter()
        .map(|p| root.join(p))
        .find(|p| p.join("MANIFEST.tsv").is_file())
}

fn docnav(ws: &Path) -> Command {
    let bin = std::env::var_os("DOCNAV_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_docnav")),
        PathBuf::from,
    );
    let mut cmd = Command::new(bin);
    cmd.arg("--workspace")
        .arg(ws)
        .env("NO_COLOR", "1")
        .env_remove("DOCNAV_WORKSPACE")
        .env_remove("DOCNAV_TRACE_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("DOCNAV_MODEL")
        .env_remove("RUST_LOG");
    cmd
}

/// One `docnav ask` and what became of it.
struct Outcome {
    question: String,
    code: Option<i32>,
    evidence: usize,
    worker_errors: usize,
    replay_identical: bool,
    panicked: bool,
    key_leaked: Vec<&'static str>,
    first_error: String,
    seconds: f64,
}

fn ask(ws: &Path, dir: &Path, n: usize, question: &str, base_url: &str, timeout: f64) -> Outcome {
    let trace = dir.join(format!("ask-{n:02}.jsonl"));
    let started = Instant::now();
    let out = docnav(ws)
        .args(["ask", question, "--json", "--timeout", &timeout.to_string()])
        .arg("--trace")
        .arg(&trace)
        .env("DOCNAV_MODEL", "fault-bench")
        .env("OPENAI_BASE_URL", base_url)
        .env("OPENAI_API_KEY", SECRET)
        .output()
        .expect("run docnav ask");
    let seconds = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let evidence = serde_json::from_str::<Value>(&stdout)
        .ok()
        .and_then(|v| v["evidence"].as_array().map(Vec::len))
        .unwrap_or(0);
    let replay = docnav(ws)
        .arg("replay")
        .arg(&trace)
        .output()
        .expect("run docnav replay");
    let replay_out = String::from_utf8_lossy(&replay.stdout).into_owned();
    let replay_err = String::from_utf8_lossy(&replay.stderr).into_owned();
    let trace_text = std::fs::read_to_string(&trace).unwrap_or_default();
    let mut key_leaked = Vec::new();
    for (what, text) in [
        ("stdout", &stdout),
        ("stderr", &stderr),
        ("trace", &trace_text),
        ("replay", &replay_out),
        ("replay stderr", &replay_err),
    ] {
        if text.contains(SECRET) {
            key_leaked.push(what);
        }
    }
    let panicked = [out.status.code(), replay.status.code()].contains(&Some(101))
        || [&stderr, &replay_err]
            .iter()
            .any(|t| t.contains("panicked"));
    Outcome {
        question: question.to_string(),
        code: out.status.code(),
        evidence,
        worker_errors: stderr.matches("error: worker ").count(),
        replay_identical: replay.status.success() && replay_out.starts_with("replay identical"),
        panicked,
        key_leaked,
        first_error: stderr
            .lines()
            .find(|l| l.starts_with("error:"))
            .unwrap_or_default()
            .chars()
            .take(220)
            .collect(),
        seconds,
    }
}

fn pct(n: usize, of: usize) -> String {
    format!("{n}/{of} ({:.1}%)", 100.0 * n as f64 / of.max(1) as f64)
}

fn main() {
    // `cargo bench` passes `--bench`; this bench takes no arguments of its own.
    let Some(corpus) = corpus_dir() else {
        eprintln!("skipping: ../shared/corpus not found");
        return;
    };
    let rate: f64 = env_or("DOCNAV_FAULT_RATE", 0.3);
    let seed: u64 = env_or("DOCNAV_FAULT_SEED", 1);
    let jobs: usize = env_or("DOCNAV_FAULT_JOBS", 2).max(1);
    let timeout: f64 = env_or("DOCNAV_FAULT_TIMEOUT", 2.0);
    let limit: usize = env_or("DOCNAV_FAULT_LIMIT", usize::MAX);

    let dir = tempfile::tempdir().expect("temp dir");
    let dir = if std::env::var_os("DOCNAV_FAULT_KEEP").is_some() {
        let kept = dir.keep();
        eprintln!("keeping the workspace and traces in {}", kept.display());
        kept
    } else {
        dir.path().to_path_buf()
    };
    let ws = dir.join("ws");
    let started = Instant::now();
    let index = docnav(&ws)
        .arg("index")
        .arg(&corpus)
        .output()
        .expect("run docnav index");
    assert!(
        index.status.success(),
        "index failed: {}",
        String::from_utf8_lossy(&index.stderr)
    );
    eprintln!(
        "indexed the corpus in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let cards: Value = serde_json::from_slice(
        &docnav(&ws)
            .args(["docs", "--json"])
            .output()
            .expect("docs")
            .stdout,
    )
    .expect("docs --json");
    let doc_of_file = |file: &str| -> Option<String> {
        cards.as_array()?.iter().find_map(|c| {
            let source = c["source"].as_str()?;
            (Path::new(source).file_name()?.to_str()? == file)
                .then(|| c["doc_id"].as_str().map(String::from))
                .flatten()
        })
    };
    let qa =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/qa.jsonl"))
            .expect("fixtures/qa.jsonl");
    let from_qa = qa
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|row| {
            let file = Path::new(row["doc"].as_str()?)
                .file_name()?
                .to_str()?
                .to_string();
            Some((row["question"].as_str()?.to_string(), file))
        });
    let extra = EXTRA.iter().map(|(q, f)| (q.to_string(), f.to_string()));
    let questions: Vec<(String, String)> = from_qa
        .chain(extra)
        .filter_map(|(question, file)| Some((question, doc_of_file(&file)?)))
        .take(limit)
        .collect();
    let oracle = Oracle {
        questions: questions.clone(),
        default_doc: questions.first().map(|q| q.1.clone()).unwrap_or_default(),
    };
    let server = FaultServer::seeded(
        seed,
        rate,
        &Fault::ALL,
        1.0,
        Arc::new(move |request: &Value| oracle.answer(request)),
    );
    eprintln!(
        "{} questions, fault rate {rate}, seed {seed}, {jobs} at a time, --timeout {timeout}",
        questions.len()
    );

    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::SeqCst);
                let Some((question, _)) = questions.get(n) else {
                    break;
                };
                let outcome = ask(&ws, &dir, n, question, &server.base_url(), timeout);
                eprintln!(
                    "[{:2}] exit {:?} evidence {} {:5.1} s  {}",
                    n + 1,
                    outcome.code,
                    outcome.evidence,
                    outcome.seconds,
                    question
                );
                outcomes.lock().unwrap().push((n, outcome));
            });
        }
    });
    let wall = started.elapsed();
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|(n, _)| *n);
    let outcomes: Vec<Outcome> = outcomes.into_iter().map(|(_, o)| o).collect();
    report(&outcomes, &server, rate, seed, timeout, wall);
}

fn report(
    outcomes: &[Outcome],
    server: &FaultServer,
    rate: f64,
    seed: u64,
    timeout: f64,
    wall: Duration,
) {
    let n = outcomes.len();
    let ok = outcomes
        .iter()
        .filter(|o| o.code == Some(0) && o.evidence > 0)
        .count();
    let ok_or_worker_only = outcomes
        .iter()
        .filter(|o| o.evidence > 0 && (o.code == Some(0) || o.worker_errors > 0))
        .count();
    let identical = outcomes.iter().filter(|o| o.replay_identical).count();
    let panics = outcomes.iter().filter(|o| o.panicked).count();
    let leaks = outcomes.iter().filter(|o| !o.key_leaked.is_empty()).count();
    let stats = server.stats();
    let faults: u64 = stats.faults.values().sum();
    let mut seconds: Vec<f64> = outcomes.iter().map(|o| o.seconds).collect();
    seconds.sort_by(|a, b| a.total_cmp(b));
    let median = seconds.get(seconds.len() / 2).copied().unwrap_or(0.0);

    println!();
    println!(
        "machine: {} cores; fault rate {rate}, seed {seed}, --timeout {timeout} s; {n} asks in {:.0} s (median {median:.1} s per ask)",
        std::thread::available_parallelism().map_or(1, |p| p.get()),
        wall.as_secs_f64()
    );
    println!("| figure | result | target |");
    println!("| --- | --- | --- |");
    println!(
        "| asks that exit 0 with evidence | {} | ≥ 95% |",
        pct(ok, n)
    );
    println!(
        "| asks with evidence, exit 0 or only Worker errors (what tolerating a failed Worker would give) | {} | |",
        pct(ok_or_worker_only, n)
    );
    println!(
        "| traces that `docnav replay` reproduces identically | {} | 100% |",
        pct(identical, n)
    );
    println!("| runs that panicked | {panics} | 0 |");
    println!("| runs with the API key in stdout, stderr, trace or replay output | {leaks} | 0 |");
    println!(
        "| model requests / faults served | {} / {faults} ({:.1}%) | |",
        stats.requests,
        100.0 * faults as f64 / stats.requests.max(1) as f64
    );
    let kinds: Vec<String> = stats
        .faults
        .iter()
        .map(|(k, v)| format!("{k:?} {v}"))
        .collect();
    println!("faults by kind: {}", kinds.join(", "));
    for o in outcomes {
        if o.code == Some(0)
            && o.evidence > 0
            && o.replay_identical
            && !o.panicked
            && o.key_leaked.is_empty()
        {
            continue;
        }
        println!(
            "- exit {:?}, evidence {}, replay {}, {}{}: {}\n    {}",
            o.code,
            o.evidence,
            if o.replay_identical {
                "identical"
            } else {
                "DIVERGED"
            },
            if o.panicked { "PANIC, " } else { "" },
            if o.key_leaked.is_empty() {
                String::new()
            } else {
                format!("KEY IN {:?}, ", o.key_leaked)
            },
            o.question,
            o.first_error
        );
    }
}
