//! The 16 PDFs of the shared corpus (`../shared/corpus/pdf`, 4,479 pages): every file parses,
//! page and outline counts match the MANIFEST, PDFs without an outline get printed headings
//! (all but the OCR sample), and no section starts with page furniture or with the tail of the
//! section before it (the check is [`check`]'s; it prints the counts per document).
//!
//! Ignored by default: parsing 4,479 pages takes ~75 s in a debug build (~5 s in release).
//! Run: `cargo test --release --test all -- --ignored --nocapture corpus_pdfs` (skips with a
//! message when the corpus is absent). `cargo bench --bench index` times the same files.

use std::collections::HashMap;

use docnav::parse::pdf::{page_lines, parse_pdf, PdfOptions};
use docnav::tree::{build_tree, BuildOptions, NodeId, Tree};

use super::common::corpus_dir;

/// Lowercase, digit runs as `#`, spaces collapsed.
fn mask(line: &str) -> String {
    let mut out = String::new();
    let mut digit = false;
    for c in line
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
    {
        if c.is_ascii_digit() {
            if !digit {
                out.push('#');
            }
            digit = true;
        } else {
            out.extend(c.to_lowercase());
            digit = false;
        }
    }
    out
}

fn fold(text: &str) -> String {
    text.chars()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric())
        .collect()
}

/// Edge lines of every page that are page furniture, found independently of the parser's rules
/// (before any removal): a page's highest or lowest line (by baseline) is furniture when its
/// text with digits masked is such an edge line on at least 3 pages and 10% of all pages, or
/// when it is words starting or ending with a number and at least half of the pages have such
/// an edge line (a document whose headers or footers carry page numbers). Also every bare
/// number.
fn furniture_lines(bytes: &[u8]) -> Vec<Vec<String>> {
    let pages = page_lines(bytes, &PdfOptions::default()).unwrap();
    let edges: Vec<Vec<&str>> = pages
        .iter()
        .map(|lines| {
            let top = lines.iter().max_by(|a, b| a.y.total_cmp(&b.y));
            let bottom = lines.iter().min_by(|a, b| a.y.total_cmp(&b.y));
            let mut e: Vec<&str> = top
                .into_iter()
                .chain(bottom)
                .map(|l| l.text.as_str())
                .collect();
            e.dedup();
            e
        })
        .collect();
    let numbered = |t: &str| {
        let words: Vec<&str> = t.split_whitespace().collect();
        let number = |w: &&str| w.len() <= 4 && w.chars().all(|c| c.is_ascii_digit());
        (words.first().is_some_and(number) || words.last().is_some_and(number))
            && t.chars().any(char::is_alphabetic)
    };
    let mut counts: HashMap<String, usize> = HashMap::new();
    for e in &edges {
        for t in e {
            *counts.entry(mask(t)).or_default() += 1;
        }
    }
    let with_numbers = edges
        .iter()
        .filter(|e| e.iter().any(|t| numbered(t)))
        .count();
    let numbers_run = with_numbers * 2 >= pages.len();
    let min_repeats = (pages.len() / 10).max(3);
    edges
        .iter()
        .map(|e| {
            e.iter()
                .filter(|t| {
                    counts[&mask(t)] >= min_repeats
                        || numbers_run && numbered(t)
                        || t.chars().all(|c| c.is_ascii_digit())
                })
                .map(|t| t.to_string())
                .collect()
        })
        .collect()
}

/// What [`check`] found.
#[derive(Default)]
struct Found {
    /// Nodes whose text starts with a furniture line of their first page.
    headers: Vec<String>,
    /// Nodes whose text starts with other text and has its own heading further down.
    tails: Vec<String>,
    /// Nodes whose title is nowhere in their text (heading not printed or not extractable).
    unprinted: usize,
}

/// The check, per node with text:
/// - *starts with a running header*: its first line is one of [`furniture_lines`] of the page
///   it starts on;
/// - *starts with the previous section's tail*: the first significant word of its title
///   (alphanumerics, at least two, not only digits) is not in its first two lines, and a later
///   line is the printed heading — a line of at most 80 chars not ending in punctuation that
///   starts with the title's first three words after its number, as printed, then a space or
///   its end: text that belongs elsewhere comes before its own heading (R-fullrefman's `locator`
///   used to start with the header `locator 997`, then `See Also …` of the help page before, and
///   only then `locator Graphical Input`). A body line that starts with the title's words
///   (bash's `Arrays are assigned to …`, R's usage line `getDLLRegisteredRoutines(dll, …)`) is
///   the section's own text.
///
/// The tree is built without splitting long leaves: the check is about where the parser starts
/// sections; parts are titled from inside their text.
fn check(tree: &Tree, furniture: &[Vec<String>]) -> Found {
    let mut found = Found::default();
    for id in tree.preorder(NodeId::ROOT).into_iter().skip(1) {
        let node = tree.node(id);
        let title = node.title.as_str();
        let lines: Vec<&str> = node
            .content
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        if lines.is_empty() {
            continue;
        }
        let page = node.pages.as_ref().map_or(0, |p| p.start as usize - 1);
        if furniture
            .get(page)
            .is_some_and(|f| f.iter().any(|l| l == lines[0]))
        {
            found.headers.push(format!("{title:?}: {:?}", lines[0]));
        }
        let Some(word) = title
            .split_whitespace()
            .map(fold)
            .find(|w| w.len() > 1 && !w.chars().all(|c| c.is_ascii_digit()))
        else {
            continue;
        };
        let head = fold(&lines[..lines.len().min(2)].join(" "));
        if head.contains(&word) {
            continue;
        }
        let printed = title
            .split_whitespace()
            .skip_while(|w| w.chars().all(|c| c.is_ascii_digit() || c == '.'))
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        let is_printed_heading = |line: &str| {
            let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
            line.chars().count() <= 80
                && !line.ends_with(['.', ',', ';', ':'])
                && line
                    .strip_prefix(printed.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        };
        // …and not a sentence that wraps onto the next line (`Arrays are assigned to using
        // compound assignments of the form` / `name=(value1 …`).
        let wraps = |at: usize| {
            lines
                .get(at + 1)
                .is_some_and(|next| next.starts_with(|c: char| c.is_lowercase()))
        };
        let heading = (2..lines.len()).find(|&at| is_printed_heading(lines[at]) && !wraps(at));
        if let Some(heading) = heading.map(|at| lines[at]) {
            found
                .tails
                .push(format!("{title:?}: {:?} … {heading:?}", lines[0]));
        } else {
            found.unprinted += 1;
        }
    }
    found
}

#[test]
#[ignore = "parses all 16 corpus PDFs (4,479 pages): ~75 s in debug, ~5 s in release"]
fn corpus_pdfs_parse_cleanly_and_sections_start_at_their_headings() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("skipped: ../shared/corpus not found");
        return;
    };
    let manifest = std::fs::read_to_string(corpus.join("MANIFEST.tsv")).unwrap();
    let mut checked = 0;
    let mut report = Vec::new();
    let (mut all_headers, mut all_tails) = (0, 0);
    for line in manifest.lines().filter(|l| l.starts_with("pdf/")) {
        let cols: Vec<&str> = line.split('\t').collect();
        let name = cols[0].trim_start_matches("pdf/");
        let field = |key: &str| -> usize {
            cols[7]
                .split("; ")
                .find_map(|kv| kv.strip_prefix(key))
                .unwrap()
                .parse()
                .unwrap()
        };
        let (outline, pages) = (field("outline_entries="), field("pages="));
        let path = corpus.join("pdf").join(name);
        let bytes = std::fs::read(&path).unwrap();
        let doc = parse_pdf(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(doc.source_units as usize, pages, "{name}");
        let fallback = doc
            .warnings
            .iter()
            .any(|w| w.contains("one section per page"));
        if outline > 0 {
            assert_eq!(doc.sections.len(), outline, "{name}");
        } else if name.contains("OCR") {
            // The scanned sample prints no headings: page sections, with the warning.
            assert!(fallback, "{name}: {:?}", doc.warnings);
            assert_eq!(doc.sections.len(), pages, "{name}");
        } else {
            assert!(!fallback, "{name}: {:?}", doc.warnings);
            assert!(doc.sections.len() > 10, "{name}: {}", doc.sections.len());
        }
        let unsplit = BuildOptions {
            max_leaf_tokens: u32::MAX,
            ..BuildOptions::default()
        };
        let tree = build_tree(doc, &unsplit);
        let found = check(&tree, &furniture_lines(&bytes));
        report.push(format!(
            "{name:36} {:5} nodes {:3} start with a running header {:3} with another section's \
             text ({} titles not in their text)",
            tree.nodes.len(),
            found.headers.len(),
            found.tails.len(),
            found.unprinted,
        ));
        for h in found.headers.iter().chain(&found.tails).take(8) {
            report.push(format!("    {h}"));
        }
        all_headers += found.headers.len();
        all_tails += found.tails.len();
        checked += 1;
    }
    eprintln!("{}", report.join("\n"));
    assert_eq!(checked, 16);
    assert_eq!(all_headers, 0, "nodes starting with a running header");
    assert_eq!(all_tails, 0, "nodes starting with another section's text");
}
