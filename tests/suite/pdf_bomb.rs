//! Bounded work per PDF page (issue 10): a decompression bomb generated here (never committed)
//! is refused with one line naming the file and the page, and the other files of the same
//! `docnav index` run are still indexed. Time and memory are measured in `benches/index.rs`
//! (`/usr/bin/time -v`), not here.

use std::path::Path;

use docnav::parse::pdf::{parse_pdf, parse_pdf_with, PageBudget, PdfOptions};
use docnav::parse::ParseError;
use pretty_assertions::assert_eq;

use super::common::{fixture, run};
use crate::support::pdf_bomb::{bomb_pdf, padded_pdf, zlib_bomb};

#[test]
fn generated_bomb_stream_inflates_to_the_pattern() {
    let (zlib, total) = zlib_bomb(100_000);
    assert!((100_000..100_000 + 258 + 4).contains(&total));
    assert!(zlib.len() < 6_000, "{} bytes", zlib.len());
    let stream = lopdf::Stream::new(lopdf::dictionary! { "Filter" => "FlateDecode" }, zlib);
    let inflated = stream.decompressed_content_with_limit(1 << 30).unwrap();
    assert_eq!(inflated.len(), total);
    assert!(inflated.chunks(4).all(|c| c == b"q Q\n"));
    // Under the bound it is just a page without text.
    let (pdf, _) = bomb_pdf(100_000);
    let doc = parse_pdf(Path::new("small.pdf"), &pdf).unwrap();
    assert_eq!(doc.pages_without_text, vec![1]);
}

#[test]
fn decompression_bomb_fails_alone_and_the_rest_of_the_run_is_indexed() {
    let dir = tempfile::tempdir().unwrap();
    // 48 MiB of operators from ~320 KB: three times the default bound.
    let (pdf, total) = bomb_pdf(48 << 20);
    assert_eq!(total >> 20, 48);
    assert!(pdf.len() < 400_000, "{} bytes", pdf.len());
    let bomb = dir.path().join("bomb.pdf");
    std::fs::write(&bomb, &pdf).unwrap();
    let ws = dir.path().join("ws");
    let r = run(
        &ws,
        &[
            "index",
            bomb.to_str().unwrap(),
            fixture("notes.txt").to_str().unwrap(),
            fixture("ripgrep__FAQ.md").to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let errors = r.error_lines();
    assert_eq!(
        errors,
        vec![format!(
            "error: cannot parse PDF `{}`: page 1 refused: its content inflates past 16 MiB \
             (a decompression bomb?); the bound is 16 MiB per page (raise it with \
             --max-pdf-page-mib)",
            bomb.display()
        )
        .as_str()]
    );
    assert!(
        r.stderr
            .contains("indexed 2 documents (0 unchanged, 1 failed)"),
        "{}",
        r.stderr
    );
    let docs = run(&ws, &["docs"]);
    assert_eq!(docs.code, 0, "{}", docs.stderr);
    assert!(docs.stdout.contains("notes") && docs.stdout.contains("ripgrep"));
    assert!(!docs.stdout.contains("bomb"), "{}", docs.stdout);
}

#[test]
fn max_pdf_page_mib_sets_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("heavy.pdf");
    // A page with 1.5 MiB of content (a comment: cheap to skip in a debug build), then its text.
    std::fs::write(&path, padded_pdf("Heavy page text", 3 << 19, true)).unwrap();
    let arg = path.to_str().unwrap();
    let r = run(
        &dir.path().join("ws1"),
        &["index", "--max-pdf-page-mib", "1", arg],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("page 1 refused: its content inflates past 1 MiB"),
        "{}",
        r.stderr
    );
    let ws = dir.path().join("ws2");
    let r = run(&ws, &["index", arg]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(&ws, &["exec", "grep -i 'heavy page' /"]);
    assert!(r.stdout.contains("Heavy page text"), "{}", r.stdout);
    let r = run(
        &dir.path().join("ws3"),
        &["index", "--max-pdf-page-mib", "0", arg],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn operator_bound_refuses_a_page_that_runs_too_long() {
    let pdf = padded_pdf("Text", 8_000, false); // 2,000 `q`/`Q` pairs: 4,000 operators
    let options = PdfOptions {
        page_budget: PageBudget {
            max_bytes: 1 << 20,
            max_operators: 1_000,
        },
    };
    let path = Path::new("ops.pdf");
    match parse_pdf_with(path, &pdf, &options).unwrap_err() {
        ParseError::Pdf { path: p, reason } => {
            assert_eq!(p, path);
            assert_eq!(
                reason,
                "page 1 refused: its content runs past 1000 operators; the bound is 1 MiB per \
                 page (raise it with --max-pdf-page-mib)"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(parse_pdf(path, &pdf).is_ok());
}
