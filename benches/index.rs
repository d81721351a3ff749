//! Index throughput on the shared corpus (issue 2): Markdown MB/s and PDF pages/s, single-threaded
//! and with all cores, `pdftotext` as the reference, and re-index of an unchanged corpus.
//!
//! Run: `cargo bench --bench index` (needs `../shared/corpus`; skips with a message otherwise).
//! `DOCNAV_BENCH_RUNS` sets the number of runs per figure (default 5); medians are reported.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use docnav::workspace::indexer::NoProgress;
use docnav::workspace::{IndexOptions, Workspace};

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v.sort();
    v
}

fn index_once(paths: &[PathBuf], jobs: usize) -> (Duration, Duration, usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let args: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let options = IndexOptions {
        jobs,
        ..IndexOptions::default()
    };
    let started = Instant::now();
    let report = Workspace::index(dir.path(), &args, &options, &NoProgress).expect("index");
    let first = started.elapsed();
    let started = Instant::now();
    let again = Workspace::index(dir.path(), &args, &options, &NoProgress).expect("re-index");
    let second = started.elapsed();
    assert_eq!(
        again.unchanged, report.indexed,
        "re-index must skip everything"
    );
    (first, second, report.failed)
}

fn pdf_pages(paths: &[PathBuf]) -> u64 {
    paths
        .iter()
        .filter_map(|p| lopdf::Document::load(p).ok())
        .map(|d| d.get_pages().len() as u64)
        .sum()
}

fn main() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !corpus.is_dir() {
        eprintln!("skipping: {} not found", corpus.display());
        return;
    }
    let runs: usize = std::env::var("DOCNAV_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let md = files(&corpus.join("md"), "md");
    let pdf = files(&corpus.join("pdf"), "pdf");
    let md_bytes: u64 = md
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let pages = pdf_pages(&pdf);
    println!("machine: {cores} cores; runs per figure: {runs} (median)");
    println!("| figure | input | median | throughput |");
    println!("| --- | --- | --- | --- |");
    for (label, set, unit, amount) in [
        ("Markdown", &md, "MB/s", md_bytes as f64 / 1e6),
        ("PDF", &pdf, "pages/s", pages as f64),
    ] {
        for jobs in [1, cores] {
            let mut firsts = Vec::new();
            let mut seconds = Vec::new();
            for _ in 0..runs {
                let (first, second, failed) = index_once(set, jobs);
                assert_eq!(failed, 0, "{label}: files failed to index");
                firsts.push(first);
                seconds.push(second);
            }
            let first = median(firsts);
            let second = median(seconds);
            println!(
                "| index {label}, {jobs} thread(s) | {} files | {:.3} s | {:.1} {unit} |",
                set.len(),
                first.as_secs_f64(),
                amount / first.as_secs_f64()
            );
            println!(
                "| re-index unchanged {label}, {jobs} thread(s) | {} files | {:.4} s | {:.2}% of first run |",
                set.len(),
                second.as_secs_f64(),
                100.0 * second.as_secs_f64() / first.as_secs_f64()
            );
        }
    }
    // Reference: pdftotext (poppler-utils), sequential, same PDFs.
    let have_pdftotext = Command::new("pdftotext").arg("-v").output().is_ok();
    if have_pdftotext {
        let mut times = Vec::new();
        for _ in 0..runs {
            let started = Instant::now();
            for p in &pdf {
                let _ = Command::new("pdftotext").arg(p).arg("/dev/null").output();
            }
            times.push(started.elapsed());
        }
        let t = median(times);
        println!(
            "| pdftotext (reference), 1 process at a time | {} files | {:.3} s | {:.1} pages/s |",
            pdf.len(),
            t.as_secs_f64(),
            pages as f64 / t.as_secs_f64()
        );
    } else {
        println!("pdftotext not installed (apt-get install poppler-utils): reference skipped");
    }
}
