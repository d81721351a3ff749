//! Scale bench (issue 11, points 4 and 7), on generated files (nothing large is committed):
//!
//! 1. **Sibling headings**: Markdown files with 10,000 / 20,000 / 40,000 / 100,000 sibling `##`
//!    headings under one `#`; `docnav index` of each into a fresh workspace (whole process: wall
//!    time, and CPU time user + system from `/usr/bin/time`, which a loaded machine inflates
//!    less) and, in process, parse + build alone (wall and thread CPU time). Linear means 10×
//!    the headings ≈ 10× the time.
//! 2. **A 30 MB one-line section**: `docnav exec 'cat /big/1'` under `/usr/bin/time -v`: the
//!    output is one budget's page, and the peak RSS is compared with the file size.
//!
//! Run: `cargo bench --bench headings`. `DOCNAV_BENCH_RUNS` (default 5) runs per figure; medians.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use docnav::parse::markdown::parse_markdown;
use docnav::tree::{build_tree, BuildOptions};

fn docnav(ws: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_docnav"));
    cmd.arg("--workspace").arg(ws).env("NO_COLOR", "1");
    cmd
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Seconds this thread has run on a CPU (Linux `/proc/thread-self/schedstat`); 0 elsewhere.
fn thread_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// Wall and CPU (user + system) seconds of `docnav index file` into a fresh `ws`; CPU is 0
/// without `/usr/bin/time`.
fn index_once(ws: &Path, file: &Path) -> (f64, f64) {
    let time = Path::new("/usr/bin/time");
    let started = Instant::now();
    let out = if time.is_file() {
        Command::new(time)
            .args(["-f", "cpu %U %S"])
            .arg(env!("CARGO_BIN_EXE_docnav"))
            .arg("--workspace")
            .arg(ws)
            .arg("index")
            .arg(file)
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    } else {
        docnav(ws).arg("index").arg(file).output().unwrap()
    };
    let wall = started.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cpu = String::from_utf8_lossy(&out.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("cpu "))
        .map_or(0.0, |v| {
            v.split_whitespace()
                .filter_map(|x| x.parse::<f64>().ok())
                .sum()
        });
    (wall, cpu)
}

fn siblings(n: usize) -> String {
    let mut s = String::with_capacity(n * 32);
    s.push_str("# Siblings\n\n");
    for i in 0..n {
        s.push_str(&format!("## Heading {i}\n\nText {i}.\n\n"));
    }
    s
}

fn main() {
    let runs: usize = std::env::var("DOCNAV_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
        .max(1);
    let dir = tempfile::tempdir().expect("temp dir");
    println!(
        "machine: {} cores; runs per figure: {runs} (median)",
        std::thread::available_parallelism().map_or(1, |p| p.get())
    );
    println!("| sibling `##` headings | file | `docnav index`, wall / CPU | parse + build in process, wall / CPU | CPU per heading (whole process) |");
    println!("| --- | --- | --- | --- | --- |");
    for n in [10_000, 20_000, 40_000, 100_000] {
        let text = siblings(n);
        let file = dir.path().join(format!("siblings-{n}.md"));
        std::fs::write(&file, &text).unwrap();
        let (mut wall, mut cpu) = (Vec::new(), Vec::new());
        for run in 0..runs {
            let ws = dir.path().join(format!("ws-{n}-{run}"));
            let (w, c) = index_once(&ws, &file);
            wall.push(w);
            cpu.push(c);
            let _ = std::fs::remove_dir_all(&ws);
        }
        let (mut inner_wall, mut inner_cpu) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let (started, cpu0) = (Instant::now(), thread_cpu_seconds());
            let tree = build_tree(parse_markdown(&text), &BuildOptions::default());
            inner_wall.push(started.elapsed().as_secs_f64());
            inner_cpu.push(thread_cpu_seconds() - cpu0);
            assert_eq!(tree.root().children.len(), n);
        }
        let cpu = median(cpu);
        println!(
            "| {n} | {:.1} MB | {:.3} s / {cpu:.3} s | {:.3} s / {:.3} s | {:.1} µs |",
            text.len() as f64 / 1e6,
            median(wall),
            median(inner_wall),
            median(inner_cpu),
            cpu * 1e6 / n as f64
        );
    }

    let big = dir.path().join("big.md");
    let line = "lorem ipsum dolor sit amet consectetur ".repeat(30 * 1024 * 1024 / 39);
    std::fs::write(&big, format!("# Big\n\n## One line\n\n{line}\n")).unwrap();
    let size = std::fs::metadata(&big).unwrap().len();
    let ws = dir.path().join("ws-big");
    let out = docnav(&ws).arg("index").arg(&big).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        println!("/usr/bin/time not installed (apt-get install time): the RSS figure is skipped");
        return;
    }
    let mut peaks = Vec::new();
    let mut shown = 0;
    for _ in 0..runs {
        let out = Command::new(time)
            .arg("-v")
            .arg(env!("CARGO_BIN_EXE_docnav"))
            .arg("--workspace")
            .arg(&ws)
            .args(["exec", "cat /big/1"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        shown = out.stdout.len();
        let report = String::from_utf8_lossy(&out.stderr);
        let kb: u64 = report
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("Maximum resident set size (kbytes): ")
            })
            .and_then(|v| v.trim().parse().ok())
            .expect("time -v reports the peak RSS");
        peaks.push(kb * 1024);
    }
    peaks.sort();
    let peak = peaks[peaks.len() / 2];
    println!();
    println!("| figure | input | result | target |");
    println!("| --- | --- | --- | --- |");
    println!(
        "| peak RSS of `docnav exec 'cat /big/1'` | one-line section, {:.1} MB file | {:.1} MB = {:.2}× the file ({shown} bytes printed) | ≤ 3× |",
        size as f64 / 1e6,
        peak as f64 / 1e6,
        peak as f64 / size as f64
    );
}
