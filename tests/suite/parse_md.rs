//! Markdown and plain-text parsing on the committed fixtures and, when present, the shared corpus.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::common::corpus_dir;
use docnav::parse::{parse_file, ParsedDoc};
use docnav::tree::build::{build_tree, BuildOptions};
use docnav::tree::{NodeId, Tree};
use pretty_assertions::assert_eq;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/docs")
        .join(name)
}

fn parse(name: &str) -> (ParsedDoc, String) {
    let path = fixture(name);
    let doc = parse_file(&path, false).unwrap();
    (doc, std::fs::read_to_string(&path).unwrap())
}

fn build(doc: ParsedDoc) -> Tree {
    build_tree(doc, &BuildOptions::default())
}

/// 1-based line `n` of `text`.
fn line(text: &str, n: u32) -> &str {
    text.lines().nth(n as usize - 1).unwrap_or("")
}

/// Start lines of all sections.
fn heading_lines(doc: &ParsedDoc) -> BTreeSet<u32> {
    doc.sections
        .iter()
        .map(|s| s.lines.as_ref().unwrap().start)
        .collect()
}

/// Nodes other than the root and the `Part N` children the build stage adds to large leaves.
fn heading_nodes(tree: &Tree) -> usize {
    tree.nodes
        .iter()
        .skip(1)
        .filter(|n| {
            let is_part = n.title.starts_with("Part ")
                && n.parent.is_some_and(|p| {
                    tree.node(p)
                        .children
                        .iter()
                        .all(|c| tree.node(*c).title.starts_with("Part "))
                });
            !is_part
        })
        .count()
}

/// Every section's line range points at its heading in the source: the start line is an ATX or
/// HTML heading, or the line before `content_first_line` is a setext underline; ranges are
/// contiguous and the last one ends at line count + 1.
fn assert_lines_exact(doc: &ParsedDoc, text: &str, name: &str) {
    let all: Vec<&str> = text.lines().collect();
    let line = |n: u32| all.get(n as usize - 1).copied().unwrap_or("");
    let mut next = doc.preamble.lines.as_ref().unwrap().end;
    for s in &doc.sections {
        let lines = s.lines.clone().unwrap();
        assert_eq!(lines.start, next, "{name}: gap before {:?}", s.title);
        let first = line(lines.start).trim_start();
        let content_line = s.content_first_line.unwrap();
        let underline = line(content_line - 1).trim();
        let setext = content_line == lines.start + 2
            && !underline.is_empty()
            && (underline.chars().all(|c| c == '=') || underline.chars().all(|c| c == '-'));
        let atx = first.starts_with('#') && content_line == lines.start + 1;
        let html = first.to_ascii_lowercase().starts_with("<h");
        assert!(
            atx || setext || html,
            "{name}: line {} is not the heading {:?}: {first:?}",
            lines.start,
            s.title
        );
        next = lines.end;
    }
    assert_eq!(next, doc.source_units + 1, "{name}: last section end");
    assert_eq!(doc.source_units as usize, text.lines().count(), "{name}");
}

#[test]
fn nodejs_fs_is_a_deep_tree_under_its_h1() {
    let (doc, text) = parse("nodejs-doc__fs.md");
    assert_lines_exact(&doc, &text, "fs");
    let mut by_level = [0; 6];
    for s in &doc.sections {
        by_level[s.level as usize - 1] += 1;
    }
    assert_eq!(by_level, [1, 8, 144, 112, 9, 0]);
    let access = doc
        .sections
        .iter()
        .find(|s| s.title == "fs.access(path[, mode], callback)")
        .unwrap();
    assert_eq!(
        (access.level, access.lines.as_ref().unwrap().start),
        (3, 1800)
    );
    let tree = build(doc);
    assert_eq!(tree.title(), "File system");
    assert!(heading_nodes(&tree) >= 270, "{}", heading_nodes(&tree));
    assert_eq!(heading_nodes(&tree), 273);
    let first = tree.node(tree.root().children[0]);
    assert_eq!(
        (first.title.as_str(), first.lines.clone()),
        ("Promise example", Some(37..66))
    );
}

#[test]
fn regex_changelog_setext_headings() {
    let (doc, text) = parse("regex__CHANGELOG.md");
    assert_lines_exact(&doc, &text, "regex changelog");
    assert_eq!(doc.sections.len(), 105);
    assert!(doc.sections.iter().all(|s| s.level == 1));
    let first = &doc.sections[0];
    assert_eq!(first.title, "1.13.1 (2026-07-15)");
    assert_eq!(
        (first.lines.clone(), first.content_first_line),
        (Some(1..15), Some(3))
    );
    assert!(first
        .content
        .starts_with("This is a release that fixes a bug"));
    assert!(first.content.ends_with("optimizations.\n\n\n"));
    assert_eq!(doc.sections[1].title, "1.13.0 (2026-07-09)");
    let last = doc.sections.last().unwrap();
    assert_eq!(
        (last.title.as_str(), last.lines.clone()),
        ("0.1.66", Some(1789..1814))
    );
    let tree = build(doc);
    // 105 sibling h1s: the root takes the fallback title, each release is a top-level node.
    assert_eq!(tree.title(), "document");
    assert_eq!(tree.root().children.len(), 105);
    assert_eq!(heading_nodes(&tree), 105);
}

#[test]
fn docker_builder_front_matter_and_fenced_comments() {
    let (doc, text) = parse("docker-doc__builder.md");
    assert_lines_exact(&doc, &text, "builder");
    assert_eq!(doc.sections.len(), 40);
    // The real headings are exactly the `## `/`### ` lines at column 0.
    let real: BTreeSet<u32> = (1..)
        .zip(text.lines())
        .filter(|(_, l)| l.starts_with("## ") || l.starts_with("### "))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(heading_lines(&doc), real);
    // The 41 other `#` lines are shell/Dockerfile comments inside fences: none is a node.
    let fenced: Vec<u32> = (1..)
        .zip(text.lines())
        .filter(|(n, l)| l.trim_start().starts_with('#') && !real.contains(n))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(fenced.len(), 41);
    assert!(fenced.iter().all(|n| !heading_lines(&doc).contains(n)));
    let env = doc.sections.iter().find(|s| s.title == "ENV").unwrap();
    assert_eq!(env.lines.as_ref().unwrap().start, 1021);
    // Front matter: metadata, never content.
    assert_eq!(doc.title.as_deref(), Some("Dockerfile reference"));
    assert!(doc.metadata.contains(&(
        "keywords".into(),
        "builder, docker, Dockerfile, automation, image creation".into()
    )));
    assert!(!doc.preamble.content.contains("title: Dockerfile reference"));
    assert!(doc
        .preamble
        .content
        .starts_with("\n<!-- This file is maintained"));
    assert_eq!(doc.preamble.lines.as_ref().unwrap().start, 8);
    let tree = build(doc);
    assert_eq!(tree.title(), "Dockerfile reference");
    assert_eq!(heading_nodes(&tree), 40);
    assert!(tree
        .nodes
        .iter()
        .all(|n| !n.content.contains("redirect_from:")));
}

#[test]
fn ripgrep_faq_html_h3_questions() {
    let (doc, text) = parse("ripgrep__FAQ.md");
    assert_lines_exact(&doc, &text, "faq");
    let h3: Vec<_> = doc.sections.iter().filter(|s| s.level == 3).collect();
    assert_eq!(h3.len(), 27);
    for s in &h3 {
        let start = s.lines.as_ref().unwrap().start;
        assert!(line(&text, start).starts_with("<h3 name="), "{start}");
        assert!(
            s.title.ends_with('?') || !s.title.contains('<'),
            "{}",
            s.title
        );
    }
    let first = h3[0];
    assert_eq!(first.title, "Does ripgrep support configuration files?");
    assert_eq!(
        (first.lines.clone(), first.content_first_line),
        (Some(32..40), Some(35))
    );
    assert_eq!(
        first.content,
        "\nYes. See the\n[guide's section on configuration files](GUIDE.md#configuration-file).\n\n\n"
    );
    assert_eq!(doc.sections.iter().filter(|s| s.level == 2).count(), 1);
    assert_eq!(heading_nodes(&build(doc)), 28);
}

#[test]
fn documents_without_headings_are_one_root() {
    for (name, lines) in [("clap__git.md", 183), ("nodejs-doc__index.md", 76)] {
        let (doc, text) = parse(name);
        assert!(doc.sections.is_empty(), "{name}");
        assert_eq!(doc.preamble.content, text, "{name}");
        assert_eq!(doc.preamble.lines, Some(1..lines + 1), "{name}");
        let tree = build(doc);
        assert_eq!(heading_nodes(&tree), 0, "{name}");
        assert_eq!(tree.root().content, text, "{name}");
        assert_eq!(tree.title(), "document");
    }
}

#[test]
fn python_markdown_toc_front_matter_title_and_setext() {
    let (doc, text) = parse("python-markdown__toc.md");
    assert_lines_exact(&doc, &text, "toc");
    assert_eq!(doc.title.as_deref(), Some("Table of Contents Extension"));
    assert_eq!(
        doc.metadata,
        vec![("title".into(), "Table of Contents Extension".into())]
    );
    let got: Vec<_> = doc
        .sections
        .iter()
        .map(|s| (s.level, s.title.as_str(), s.lines.as_ref().unwrap().start))
        .collect();
    // The `---` lines and `#Header` lines inside the ``` md-render fences are not headings.
    assert_eq!(
        got,
        vec![
            (1, "Table of Contents", 5),
            (2, "Summary", 8),
            (2, "Syntax", 29),
            (3, "Custom Labels", 99),
            (2, "Usage", 132),
        ]
    );
    assert_eq!(doc.sections.len(), 5);
    assert_eq!(doc.sections[0].lines, Some(5..8));
    assert_eq!(build(doc).title(), "Table of Contents");
}

#[test]
fn multilingual_titles() {
    let (doc, text) = parse("multilingual.md");
    assert_lines_exact(&doc, &text, "multilingual");
    let got: Vec<_> = doc
        .sections
        .iter()
        .map(|s| (s.level, s.title.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (2, "インストール"),
            (3, "設定ファイル"),
            (2, "Café crème"),
            (2, "Café noir"),
            (2, "Résumé des commandes"),
        ]
    );
    // The GFM table's `| --- | --- |` row is a table, not a setext underline.
    assert!(doc.sections[4]
        .content
        .contains("| `ls` | liste les sections |"));
    assert_eq!(doc.sections[0].lines, Some(9..18)); // `### 設定ファイル` is line 18
    assert!(doc.sections[0]
        .content
        .contains("# this line is a shell comment"));
    let tree = build(doc);
    assert_eq!(tree.title(), "Multilingual notes");
    let id = tree
        .by_title_path(&["インストール", "設定ファイル"])
        .unwrap();
    assert_eq!(tree.node(id).structure, "1.1");
}

#[test]
fn vant_html_h1_becomes_the_root() {
    let (doc, text) = parse("vant__README.md");
    assert_lines_exact(&doc, &text, "vant");
    assert_eq!(
        (doc.sections[0].level, doc.sections[0].title.as_str()),
        (1, "Vant")
    );
    assert_eq!(doc.sections[0].lines.as_ref().unwrap().start, 5);
    let tree = build(doc);
    assert_eq!(tree.title(), "Vant");
    assert_eq!(tree.root().children.len(), 13);
}

#[test]
fn ripgrep_guide_fenced_hash_lines_are_code() {
    let (doc, text) = parse("ripgrep__GUIDE.md");
    assert_lines_exact(&doc, &text, "guide");
    assert_eq!(doc.sections.len(), 16);
    assert_eq!(doc.sections[0].title, "User Guide");
    assert_eq!(doc.sections[1].lines, Some(11..26));
}

#[test]
fn text_fixture_numbered_sections() {
    let (doc, text) = parse("notes.txt");
    let got: Vec<_> = doc
        .sections
        .iter()
        .map(|s| (s.level, s.title.as_str(), s.lines.clone().unwrap()))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "1 Getting started", 6..11),
            (2, "1.1 Choosing a workspace", 11..16),
            (1, "2 Navigating", 16..21),
            (2, "2.1 Searching", 21..26),
            (1, "3 Troubleshooting", 26..30),
        ]
    );
    for s in &doc.sections {
        assert_eq!(line(&text, s.lines.as_ref().unwrap().start), s.title);
    }
    assert!(doc
        .preamble
        .content
        .starts_with("Field notes on running docnav\n"));
    let tree = build(doc);
    let id = tree.by_structure("2.1").unwrap();
    assert_eq!(tree.node(id).title, "2.1 Searching");
    assert!(tree
        .node(id)
        .content
        .contains("find ranks sections with BM25"));
}

/// Heading counts the corpus manifest gets wrong, verified by reading the files: the manifest's
/// line-based counter does not follow CommonMark. Each entry is (file, our count, why).
const MANIFEST_ERRATA: &[(&str, usize, &str)] = &[
    // Line 284 opens a fence indented 4 spaces and line 287 closes it with 3; CommonMark closes
    // it (list-item content), the manifest counter never does and misses the 38 headings after.
    (
        "npm__npm-install.md",
        41,
        "fence closed with different indent",
    ),
    // `#### Push a plugin` (line 3896) sits inside an unclosed-until-line-3920 `<!-- TODO` comment.
    (
        "docker-doc__api-v1.24.md",
        96,
        "heading inside an HTML comment",
    ),
    // `## Some important topic` / setext `Some important topic` (lines 240, 246) and two
    // `# A Markdown header` (378, 390) are examples inside ``` and ```` fences.
    (
        "python-markdown__contributing.md",
        28,
        "headings inside nested fences",
    ),
];

#[test]
fn corpus_heading_counts_match_manifest() {
    let Some(dir) = corpus_dir() else {
        println!("skipped: shared corpus not found next to the crate");
        return;
    };
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut checked = 0;
    for row in manifest.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let (path, structure) = (cols[0], cols[7]);
        if !path.ends_with(".md") {
            continue;
        }
        let field = |key: &str| {
            structure
                .split("; ")
                .find_map(|f| f.strip_prefix(key))
                .unwrap()
                .to_string()
        };
        let name = path.trim_start_matches("md/");
        let file = dir.join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        let doc = parse_file(&file, false).unwrap();
        assert_lines_exact(&doc, &text, name);
        let expected: usize = match MANIFEST_ERRATA.iter().find(|e| e.0 == name) {
            Some(e) => e.1,
            None => field("headings=").parse().unwrap(),
        };
        assert_eq!(doc.sections.len(), expected, "{name}");
        // Without setext or HTML headings the per-level ATX counts must match too.
        let plain = field("setext=") == "0" && field("html_h=") == "0";
        if plain && !MANIFEST_ERRATA.iter().any(|e| e.0 == name) {
            let mut by_level = [0; 6];
            for s in &doc.sections {
                by_level[s.level as usize - 1] += 1;
            }
            assert_eq!(format!("{by_level:?}"), field("atx_by_level="), "{name}");
        }
        let tree = build(doc);
        assert!(tree.preorder(NodeId::ROOT).len() == tree.len(), "{name}");
        checked += 1;
    }
    assert_eq!(checked, 27);
}

/// Throughput of `parse_markdown` alone. Run with
/// `cargo test --release --test all parse_markdown_throughput -- --ignored --nocapture`.
#[test]
#[ignore = "benchmark; run in release"]
fn parse_markdown_throughput() {
    let Some(dir) = corpus_dir() else {
        println!("skipped: shared corpus not found next to the crate");
        return;
    };
    let text = std::fs::read_to_string(dir.join("md/fluentui-react__CHANGELOG.md")).unwrap();
    let mut best = f64::MAX;
    for _ in 0..20 {
        let t = std::time::Instant::now();
        let doc = docnav::parse::markdown::parse_markdown(&text);
        assert_eq!(doc.sections.len(), 3648);
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mbps = text.len() as f64 / best / 1e6;
    println!(
        "parse_markdown: {} bytes in {:.2} ms = {mbps:.0} MB/s",
        text.len(),
        best * 1e3
    );
}
