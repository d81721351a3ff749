//! Index throughput on the shared corpus (issue 2): Markdown MB/s and PDF pages/s, single-threaded
//! and with all cores, `pdftotext` as the reference, and re-index of an unchanged corpus.
//! Issue 10 adds pages per CPU second for docnav (one indexing thread) and `pdftotext` side by
//! side — CPU time does not move with the load of a shared machine the way wall time does — and
//! the decompression bomb: a generated one-page PDF inflating to 210 MB, indexed with
//! `fhs-3.0.pdf` by the release binary under `/usr/bin/time -v` (wall time, peak RSS).
//!
//! Run: `cargo bench --bench index` (needs `../shared/corpus`; skips with a message otherwise).
//! `DOCNAV_BENCH_RUNS` sets the number of runs per figure (default 5); medians are reported.

#![allow(clippy::expect_used, clippy::unwrap_used)]

#[path = "../tests/support/pdf_bomb.rs"]
#[allow(dead_code)]
mod pdf_bomb;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Clock ticks per second of `/proc/self/stat` times (USER_HZ, 100 on Linux).
const CLOCK_TICKS: f64 = 100.0;

/// CPU seconds used so far by this process (all threads) and by its waited-for children, from
/// `/proc/self/stat` (utime + stime, cutime + cstime); zeros where `/proc` is missing.
fn cpu_seconds() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the `(comm)`, which may contain spaces: state is field 3, utime field 14.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    let get = |field: usize| f.get(field - 3).copied().unwrap_or(0.0) / CLOCK_TICKS;
    (get(14) + get(15), get(16) + get(17))
}

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
    // `../shared/corpus` from the main checkout, `../../shared/corpus` from a worktree.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(corpus) = ["../shared/corpus", "../../shared/corpus"]
        .iter()
        .map(|p| root.join(p))
        .find(|p| p.is_dir())
    else {
        eprintln!(
            "skipping: {} not found",
            root.join("../shared/corpus").display()
        );
        return;
    };
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
    let mut reference_cpu = None;
    if have_pdftotext {
        let mut times = Vec::new();
        let mut cpus = Vec::new();
        for _ in 0..runs {
            let started = Instant::now();
            let (_, children) = cpu_seconds();
            for p in &pdf {
                let _ = Command::new("pdftotext").arg(p).arg("/dev/null").output();
            }
            times.push(started.elapsed());
            cpus.push(Duration::from_secs_f64(cpu_seconds().1 - children));
        }
        let t = median(times);
        let cpu = median(cpus).as_secs_f64();
        reference_cpu = Some(cpu);
        println!(
            "| pdftotext (reference), 1 process at a time | {} files | {:.3} s | {:.1} pages/s |",
            pdf.len(),
            t.as_secs_f64(),
            pages as f64 / t.as_secs_f64()
        );
        println!(
            "| pdftotext CPU time (user + sys of the processes) | {} files | {cpu:.3} s CPU | {:.1} pages per CPU second |",
            pdf.len(),
            pages as f64 / cpu
        );
    } else {
        println!("pdftotext not installed (apt-get install poppler-utils): reference skipped");
    }
    // docnav's CPU time for the same PDFs, one indexing thread (the writer threads included).
    let mut cpus = Vec::new();
    for _ in 0..runs {
        let dir = tempfile::tempdir().expect("temp dir");
        let args: Vec<String> = pdf.iter().map(|p| p.display().to_string()).collect();
        let options = IndexOptions {
            jobs: 1,
            ..IndexOptions::default()
        };
        let (own, _) = cpu_seconds();
        let report = Workspace::index(dir.path(), &args, &options, &NoProgress).expect("index");
        assert_eq!(report.failed, 0);
        cpus.push(Duration::from_secs_f64(cpu_seconds().0 - own));
    }
    let cpu = median(cpus).as_secs_f64();
    let ratio = reference_cpu.map_or(String::new(), |r| {
        format!("; {:.1}× pdftotext's pages per CPU second", r / cpu)
    });
    println!(
        "| index PDF CPU time, 1 thread (user + sys) | {} files | {cpu:.3} s CPU | {:.1} pages per CPU second{ratio} |",
        pdf.len(),
        pages as f64 / cpu
    );
    bomb(&corpus);
}

/// The decompression bomb of issue 10 next to a real PDF in one `docnav index` run, under
/// `/usr/bin/time -v`: exit code, wall time, peak RSS, and whether the real PDF was indexed.
fn bomb(corpus: &Path) {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        println!("/usr/bin/time not installed (apt-get install time): bomb figure skipped");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (pdf, inflated) = pdf_bomb::bomb_pdf(210_000_000);
    let bomb = dir.path().join("bomb.pdf");
    std::fs::write(&bomb, &pdf).expect("write bomb");
    let fhs = corpus.join("pdf/fhs-3.0.pdf");
    let out = Command::new(time)
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_docnav"))
        .arg("--workspace")
        .arg(dir.path().join("ws"))
        .arg("index")
        .arg(&bomb)
        .arg(&fhs)
        .output()
        .expect("run docnav under /usr/bin/time");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let field = |name: &str| {
        stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map_or("?".to_string(), |v| v.trim().to_string())
    };
    let rss_mb = field("Maximum resident set size (kbytes):")
        .parse::<f64>()
        .map_or("?".to_string(), |kb| format!("{:.0} MB", kb / 1024.0));
    let indexed = stderr
        .lines()
        .find(|l| l.starts_with("indexed "))
        .unwrap_or("?");
    println!(
        "| decompression bomb ({} KB inflating to {} MB) + fhs-3.0.pdf in one `docnav index` | exit {} | {} wall, {} peak RSS | {indexed} |",
        pdf.len() / 1000,
        inflated / 1_000_000,
        out.status.code().unwrap_or(-1),
        field("Elapsed (wall clock) time (h:mm:ss or m:ss):"),
        rss_mb,
    );
}
