//! Print the lines docnav reads from a PDF's pages, one per line with where and how each was
//! drawn (`page y x size bold | text`), before (`--raw`) or after running headers, footers and
//! page numbers are removed: `cargo run --release --example pdf_lines -- FILE.pdf [--raw]
//! [FIRST[-LAST]]` (1-based pages); `--text` prints only each line's text; `--headings` prints the printed headings found instead, `--toc` the contents list's entries. For looking at what heading and table detection see.

use std::path::PathBuf;
use std::process::ExitCode;

use docnav::parse::pdf::{body_lines, contents_entries, page_lines, printed_headings, PdfOptions};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args
        .iter()
        .find(|a| !a.starts_with("--") && a.ends_with(".pdf"))
    else {
        eprintln!("usage: pdf_lines FILE.pdf [--raw] [FIRST[-LAST]]");
        return ExitCode::from(2);
    };
    let path = PathBuf::from(path);
    let range = args
        .iter()
        .find(|a| a.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .map(|r| {
            let (a, b) = r.split_once('-').unwrap_or((r, r));
            (a.parse().unwrap_or(1), b.parse().unwrap_or(usize::MAX))
        })
        .unwrap_or((1, usize::MAX));
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(1);
        }
    };
    let options = PdfOptions::default();
    if args.iter().any(|a| a == "--toc") {
        return match contents_entries(&bytes, &options) {
            Ok(entries) => {
                for (page, level, text) in entries {
                    println!("{page:>4} {}{text}", "  ".repeat(level as usize));
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                ExitCode::from(1)
            }
        };
    }
    if args.iter().any(|a| a == "--headings") {
        return match printed_headings(&bytes, &options) {
            Ok(Some((method, headings))) => {
                println!("method: {method}");
                for (page, level, title) in headings {
                    println!("{page:>4} {}{title}", "  ".repeat(level as usize));
                }
                ExitCode::SUCCESS
            }
            Ok(None) => {
                println!("no printed headings");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                ExitCode::from(1)
            }
        };
    }
    let pages = if args.iter().any(|a| a == "--raw") {
        page_lines(&bytes, &options)
    } else {
        body_lines(&bytes, &options)
    };
    let pages = match pages {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(1);
        }
    };
    let text_only = args.iter().any(|a| a == "--text");
    for (n, lines) in pages.iter().enumerate().map(|(i, l)| (i + 1, l)) {
        if n < range.0 || n > range.1 {
            continue;
        }
        for l in lines {
            if text_only {
                println!("{}", l.text);
                continue;
            }
            // A line split into cells shows each cell's extent: `[x0-x1] text`.
            let text = if l.cells.is_empty() || !l.cell_texts_match() {
                l.text.clone()
            } else {
                l.cells
                    .iter()
                    .map(|c| format!("[{:.0}-{:.0}] {}", c.x0, c.x1, c.text))
                    .collect::<Vec<_>>()
                    .join("  ")
            };
            println!(
                "{n:>4} {:>6.1} {:>6.1}-{:<6.1} {:>5.1} {}{}{}| {text}",
                l.y,
                l.x,
                l.x_end,
                l.size,
                if l.bold { 'B' } else { ' ' },
                if l.para_before { '¶' } else { ' ' },
                if l.in_table { 'T' } else { ' ' },
            );
        }
    }
    ExitCode::SUCCESS
}
