//! The README and the user guide (`docs/`, an mdBook): every relative link reaches a file, and every
//! `#anchor` a heading of that file; a guide page links only inside the book (mdBook publishes
//! `docs/src` alone) and is a chapter of `SUMMARY.md` (mdBook builds nothing else). `mdbook build
//! docs` in `.ci/run` builds the book but checks none of this; these tests need no mdbook.
//!
//! The README and BENCHMARKS.md also keep the sizes a newcomer reads in one sitting: the README
//! says what docnav is and points into the guide, BENCHMARKS.md holds today's figures and the
//! guide's appendix the history.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Component, Path, PathBuf};

use pretty_assertions::assert_eq;

const README_MAX_BYTES: usize = 15_000;
const BENCHMARKS_MAX_BYTES: usize = 20_000;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn book_src() -> PathBuf {
    repo().join("docs/src")
}

/// The anchor GitHub and mdBook give a heading: lowercase, letters, digits, `-` and `_` kept, each
/// space a `-`, everything else dropped (so `` The web app (`docnav serve`) `` is
/// `the-web-app-docnav-serve`). A link inside a heading counts by its text.
fn slug(heading: &str) -> String {
    let text = strip_links(heading);
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.extend(c.to_lowercase());
        } else if c.is_whitespace() {
            out.push('-');
        }
    }
    out
}

/// `[text](target)` → `text`.
fn strip_links(s: &str) -> String {
    let mut out = s.to_string();
    while let Some(link) = inline_links(&out).into_iter().next() {
        out.replace_range(link.span.clone(), &link.text);
    }
    out
}

/// A Markdown file's lines outside fenced code blocks, with their line numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<(char, usize)> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = marker.map_or(0, |m| trimmed.chars().take_while(|c| *c == m).count());
        match (fence, marker) {
            (None, Some(m)) if run >= 3 => fence = Some((m, run)),
            (Some((m, n)), Some(c)) if c == m && run >= n && trimmed[run..].trim().is_empty() => {
                fence = None
            }
            (None, _) => out.push((i + 1, line)),
            _ => {}
        }
    }
    out
}

/// The anchors of a Markdown file's ATX headings, as GitHub and mdBook number repeats (`x`,
/// `x-1`, `x-2`).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let trimmed = line.trim_start();
        if line.len() - trimmed.len() > 3 {
            continue;
        }
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        let rest = &trimmed[hashes..];
        if !(1..=6).contains(&hashes) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
            continue;
        }
        let title = rest.trim().trim_end_matches('#').trim_end();
        let base = slug(title);
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// The line with its code spans blanked (each character of a span becomes a space), so a link
/// written as code (`` `[x](#usage)` ``) is not a link.
fn without_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = chars.clone();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        let close = (i + run..chars.len()).find(|&j| {
            chars[j..].iter().take_while(|c| **c == '`').count() == run
                && (j == 0 || chars[j - 1] != '`')
        });
        match close {
            Some(j) => {
                for c in &mut out[i..j + run] {
                    *c = ' ';
                }
                i = j + run;
            }
            None => i += run,
        }
    }
    out.into_iter().collect()
}

struct InlineLink {
    text: String,
    target: String,
    span: std::ops::Range<usize>,
}

/// The inline links and images of one line: `[text](target)`, `![alt](target "title")`.
fn inline_links(line: &str) -> Vec<InlineLink> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'[' {
            i += 1;
            continue;
        }
        // The matching `]`, brackets nested.
        let mut depth = 0;
        let mut close = None;
        for (j, b) in bytes.iter().enumerate().skip(i) {
            match b {
                b'[' => depth += 1,
                b']' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else { break };
        if bytes.get(close + 1) != Some(&b'(') {
            i += 1;
            continue;
        }
        // The matching `)`, parentheses nested.
        let mut depth = 0;
        let mut end = None;
        for (j, b) in bytes.iter().enumerate().skip(close + 1) {
            match b {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        let inside = line[close + 2..end].trim();
        let target = match inside.strip_prefix('<') {
            Some(rest) => rest.split('>').next().unwrap_or(""),
            None => inside.split_whitespace().next().unwrap_or(""),
        };
        out.push(InlineLink {
            text: line[i + 1..close].to_string(),
            target: target.to_string(),
            span: i..end + 1,
        });
        i = end + 1;
    }
    out
}

/// Every link target of a Markdown file outside code: inline links, images and reference
/// definitions (`[label]: target`), with their line numbers.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose_lines(text) {
        let line = without_code_spans(line);
        out.extend(inline_links(&line).into_iter().map(|l| (n, l.target)));
        let trimmed = line.trim_start();
        if let (true, Some(close)) = (trimmed.starts_with('['), trimmed.find("]:")) {
            if let Some(target) = trimmed[close + 2..].split_whitespace().next() {
                out.push((n, target.to_string()));
            }
        }
    }
    out
}

/// A target with a scheme (`https:`, `mailto:`) points outside the repository.
fn is_external(target: &str) -> bool {
    let head = target.split(['/', '#', '?']).next().unwrap_or("");
    head.contains(':')
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// What is wrong with the relative links of `files`: one line each, `FILE:LINE: problem`, paths
/// relative to `root`. `confined` is the folder a file under it may link into and no further
/// (the book's `src`, which is all mdBook publishes). Returns the problems and how many links
/// were checked.
fn check_links(root: &Path, files: &[PathBuf], confined: Option<&Path>) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut checked = 0;
    let mut anchor_cache: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let shown = file
            .strip_prefix(root)
            .unwrap_or(file)
            .display()
            .to_string();
        let dir = file.parent().unwrap_or(root);
        for (line, target) in link_targets(&text) {
            if target.is_empty() || is_external(&target) {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                normalize(&dir.join(path))
            };
            if let Some(book) = confined.filter(|b| file.starts_with(b)) {
                if !resolved.starts_with(book) {
                    problems.push(format!(
                        "{shown}:{line}: `{target}` is outside the book (mdBook publishes only {})",
                        book.strip_prefix(root).unwrap_or(book).display()
                    ));
                    continue;
                }
            }
            if !resolved.exists() {
                problems.push(format!("{shown}:{line}: `{target}`: no such file"));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if resolved.extension().and_then(|e| e.to_str()) != Some("md") {
                problems.push(format!(
                    "{shown}:{line}: `{target}`: an anchor into a file that is not Markdown"
                ));
                continue;
            }
            let known = anchor_cache
                .entry(resolved.clone())
                .or_insert_with(|| anchors(&fs::read_to_string(&resolved).unwrap_or_default()));
            if !known.contains(anchor) {
                problems.push(format!(
                    "{shown}:{line}: `{target}`: no heading with that anchor"
                ));
            }
        }
    }
    (problems, checked)
}

/// The Markdown pages of the book, sorted.
fn book_pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&book_src(), &mut out);
    out.sort();
    out
}

fn python_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line) {
            (None, "```python") => current = Some(String::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn slugs_are_githubs_and_mdbooks() {
    let cases = [
        ("How a question is answered", "how-a-question-is-answered"),
        (
            "The web app and HTTP API (`docnav serve`)",
            "the-web-app-and-http-api-docnav-serve",
        ),
        ("MCP over HTTP, for a team", "mcp-over-http-for-a-team"),
        ("`ask --answer` (issue 23)", "ask---answer-issue-23"),
        ("Word (DOCX)", "word-docx"),
        ("snake_case and kebab-case", "snake_case-and-kebab-case"),
        ("Über die Grenzen: §2.1!", "über-die-grenzen-21"),
        ("See [the guide](docs/src/introduction.md)", "see-the-guide"),
    ];
    for (heading, want) in cases {
        assert_eq!(slug(heading), want, "{heading}");
    }
}

#[test]
fn the_guide_link_check_finds_missing_files_anchors_and_links_out_of_the_book() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let src = dir.join("docs/src");
    fs::create_dir_all(&src).unwrap();
    fs::write(
        dir.join("README.md"),
        "# Top\n\n[ok](docs/src/a.md#second-part) [gone](docs/src/nope.md) \
         [web](https://example.com/x.md#y)\n",
    )
    .unwrap();
    fs::write(
        src.join("a.md"),
        "# A\n\n## Second part\n\n## Second part\n\n\
         [self](#second-part-1) [bad self](#third) [b](b.md) [b bad](b.md#nowhere)\n\
         ![pic](../../README.md) `[code](gone.md)` ``[code `x`](gone2.md)``\n\n\
         ```text\n# Not a heading\n[fenced](gone3.md)\n```\n\n[ref]: missing.md\n",
    )
    .unwrap();
    fs::write(
        src.join("b.md"),
        "# B\n\n[in fence anchor](a.md#not-a-heading)\n",
    )
    .unwrap();
    let files = [dir.join("README.md"), src.join("a.md"), src.join("b.md")];
    let (problems, checked) = check_links(&dir, &files, Some(&src));
    assert_eq!(
        problems,
        vec![
            "README.md:3: `docs/src/nope.md`: no such file".to_string(),
            "docs/src/a.md:7: `#third`: no heading with that anchor".to_string(),
            "docs/src/a.md:7: `b.md#nowhere`: no heading with that anchor".to_string(),
            "docs/src/a.md:8: `../../README.md` is outside the book (mdBook publishes only docs/src)"
                .to_string(),
            "docs/src/a.md:15: `missing.md`: no such file".to_string(),
            "docs/src/b.md:3: `a.md#not-a-heading`: no heading with that anchor".to_string(),
        ]
    );
    assert_eq!(checked, 9);
}

#[test]
fn every_relative_link_of_the_readme_and_the_guide_resolves() {
    let root = repo();
    let mut files = vec![root.join("README.md"), root.join("BENCHMARKS.md")];
    files.extend(book_pages());
    let (problems, checked) = check_links(&root, &files, Some(&book_src()));
    assert_eq!(problems, Vec::<String>::new());
    // The README alone links every chapter: a parser that found no links would pass above.
    assert!(checked >= 40, "only {checked} links checked");
}

#[test]
fn every_page_of_the_guide_is_a_chapter_of_its_summary() {
    let src = book_src();
    let summary = fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let chapters: BTreeSet<PathBuf> = link_targets(&summary)
        .into_iter()
        .map(|(_, target)| normalize(&src.join(target)))
        .collect();
    let pages: BTreeSet<PathBuf> = book_pages()
        .into_iter()
        .filter(|p| !p.ends_with("SUMMARY.md"))
        .collect();
    let orphans: Vec<_> = pages.difference(&chapters).collect();
    assert_eq!(
        orphans,
        Vec::<&PathBuf>::new(),
        "pages mdBook would not build"
    );
    assert!(chapters.len() >= 10, "{chapters:?}");
}

#[test]
fn the_readme_and_benchmarks_fit_their_budgets() {
    let readme = fs::read(repo().join("README.md")).unwrap().len();
    let benchmarks = fs::read(repo().join("BENCHMARKS.md")).unwrap().len();
    assert!(
        readme <= README_MAX_BYTES,
        "README.md is {readme} bytes, over {README_MAX_BYTES}: move detail into docs/src"
    );
    assert!(
        benchmarks <= BENCHMARKS_MAX_BYTES,
        "BENCHMARKS.md is {benchmarks} bytes, over {BENCHMARKS_MAX_BYTES}: keep today's figures \
         there and the history in docs/src/benchmarks-history.md"
    );
}

#[test]
fn the_guide_python_chapter_holds_the_readme_example() {
    // The README's example is the one the Python test suite runs (python/tests/test_readme.py);
    // the guide shows the same code, not a copy that drifts.
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let guide = fs::read_to_string(book_src().join("python.md")).unwrap();
    let readme_blocks = python_blocks(&readme);
    assert_eq!(readme_blocks.len(), 2);
    assert_eq!(python_blocks(&guide), readme_blocks);
}
