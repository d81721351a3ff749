//! One `search_sections` call as a library user makes it, warm, per call — the Rust side of the
//! Python package's target (issue 22: `Workspace.search` from Python within 1.2× of the same call
//! in Rust at 10,000 documents). `bench/python` runs this and the Python loop over the same
//! workspace and queries and prints both.
//!
//! `cargo bench --bench search_call -- WORKSPACE [ROUNDS]` prints one JSON line:
//! `{"calls", "median_us", "p90_us", "mean_us"}` over ROUNDS (default 20) passes of the queries
//! in `bench/search_queries.txt` (k = 10, 800-char budget, as `Workspace.search`'s defaults),
//! after 3 warm-up passes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Instant;

use docnav::agent::search::search_sections;
use docnav::workspace::Workspace;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: cargo bench --bench search_call -- WORKSPACE [ROUNDS]");
        return;
    };
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(20);
    let queries_file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("bench/search_queries.txt");
    let queries: Vec<String> = std::fs::read_to_string(&queries_file)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let ws = Workspace::open(&PathBuf::from(dir)).unwrap();
    for _ in 0..3 {
        for q in &queries {
            search_sections(&ws, q, None, 10, 800).unwrap();
        }
    }
    let mut times = Vec::new();
    for _ in 0..rounds {
        for q in &queries {
            let t = Instant::now();
            let found = search_sections(&ws, q, None, 10, 800).unwrap();
            times.push(t.elapsed().as_secs_f64() * 1e6);
            std::hint::black_box(found);
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "{{\"calls\": {}, \"median_us\": {:.1}, \"p90_us\": {:.1}, \"mean_us\": {:.1}}}",
        times.len(),
        at(0.5),
        at(0.9),
        mean
    );
}
