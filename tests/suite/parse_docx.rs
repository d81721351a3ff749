//! Word documents as trees: DOCX files that pandoc made from Markdown have the Markdown's heading
//! tree (titles and nesting); a zip bomb is refused alone, fast.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use docnav::parse::parse_file;
use docnav::tree::build::{build_tree, BuildOptions};
use docnav::tree::{NodeId, Tree};
use pretty_assertions::assert_eq;

use super::common::{corpus_dir, fixture, run};
use crate::support::pandoc;
use crate::support::zip_bomb::docx_bomb;

/// `fixtures/docx/<name>`.
pub fn docx_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/docx")
        .join(name)
}

/// The tree of `path` without `Part N` splits (their cuts depend on the text's length, which
/// differs between Markdown source and text rendered from DOCX).
fn unsplit_tree(path: &Path) -> Tree {
    let doc = parse_file(path, false).unwrap();
    build_tree(
        doc,
        &BuildOptions {
            max_leaf_tokens: u32::MAX,
            fallback_title: path.file_stem().unwrap().to_string_lossy().into_owned(),
            ..BuildOptions::default()
        },
    )
}

/// `(depth, title)` of every node but the root, in reading order.
fn headings(tree: &Tree) -> Vec<(u32, String)> {
    tree.preorder(NodeId::ROOT)
        .into_iter()
        .skip(1)
        .map(|id| (tree.node(id).depth, tree.node(id).title.clone()))
        .collect()
}

/// Corpus files whose DOCX tree differs, and why: syntax docnav reads in Markdown that pandoc's
/// GFM reader does not (it keeps `{: #stages }` in the title, and raw HTML headings do not
/// reach a DOCX).
const KNOWN_DIFFERENT: &[(&str, &str)] = &[
    (
        "python-markdown__api.md",
        "attribute lists `{: #id}` after a heading",
    ),
    ("ripgrep__FAQ.md", "HTML `<h3 name=...>` heading blocks"),
];

/// pandoc's DOCX of two committed Markdown fixtures (`pandoc -f gfm`, committed under
/// `fixtures/docx/`) has the Markdown's tree: titles, nesting, and the rooting at a single h1.
#[test]
fn pandoc_docx_has_the_heading_tree_of_its_markdown() {
    for name in ["ripgrep__GUIDE", "python-markdown__toc"] {
        let md = unsplit_tree(&fixture(&format!("{name}.md")));
        let docx = unsplit_tree(&docx_fixture(&format!("{name}.docx")));
        assert!(headings(&md).len() > 3, "{name}");
        assert_eq!(headings(&docx), headings(&md), "{name}");
        assert_eq!(docx.title(), md.title(), "{name}");
    }
    // Text: lists, code and tables are readable; locations are paragraphs.
    let guide = unsplit_tree(&docx_fixture("ripgrep__GUIDE.docx"));
    let basics = guide.by_title_path(&["User Guide", "Basics"]).unwrap();
    let text = guide.text_of(basics);
    assert!(text.contains("```\n$ rg fast README.md\n"), "{text}");
    assert_eq!(guide.node(basics).lines, Some(15..31));
    assert_eq!(guide.format.location_unit(), "paragraph");
}

/// Every corpus Markdown file converted by pandoc has the Markdown's tree. The 27 converted
/// files are not committed (pandoc makes them in seconds): the test needs pandoc (`.ci/run`
/// installs it; under CI its absence fails the test, elsewhere it skips with a note) and the
/// corpus `../shared/corpus` (skipped with a note without it).
#[test]
fn every_corpus_markdown_converted_by_pandoc_has_the_same_tree() {
    if !pandoc::available() {
        eprintln!("skipped: pandoc is not installed (apt-get install pandoc)");
        assert!(std::env::var_os("CI").is_none(), "CI must install pandoc");
        return;
    }
    let Some(corpus) = corpus_dir() else {
        eprintln!("skipped: the corpus ../shared/corpus is missing");
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let mut same = 0;
    let mut different = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join("md"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for md in &files {
        let docx = out
            .path()
            .join(md.file_stem().unwrap())
            .with_extension("docx");
        pandoc::convert(md, &docx, &[]);
        if headings(&unsplit_tree(md)) == headings(&unsplit_tree(&docx)) {
            same += 1;
        } else {
            different.push(md.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    let known: Vec<String> = KNOWN_DIFFERENT.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(different, known);
    assert_eq!(same, files.len() - known.len());
    assert_eq!(files.len(), 27);
}

/// A DOCX written by Microsoft Word (python-docx's test file): its `Heading1` style makes the
/// heading, the paragraphs around it are text, the missing style `Foobar` is body text.
#[test]
fn a_word_written_docx_parses_with_its_styles() {
    let tree = unsplit_tree(&docx_fixture("word-known-styles.docx"));
    assert_eq!(tree.title(), "Heading 1");
    assert_eq!(
        tree.root().content,
        "no specified style\n\nmissing style\n\nBody Text"
    );
    assert_eq!(tree.root().lines, Some(1..6));
}

/// A DOCX whose `document.xml` inflates to 1 GiB is refused alone (one `error:` line naming the
/// file, the entry and the flag), whether its headers tell the size or lie; the other files of
/// the run are indexed and the exit code is 1. Time and memory: `bench/formats`.
#[test]
fn zip_bomb_fails_alone_and_the_rest_of_the_run_is_indexed() {
    let dir = tempfile::tempdir().unwrap();
    for honest in [true, false] {
        let (bytes, total) = docx_bomb(1 << 30, honest);
        assert!(
            total >= 1 << 30 && bytes.len() < 8_000_000,
            "{}",
            bytes.len()
        );
        let bomb = dir.path().join(format!("bomb-{honest}.docx"));
        std::fs::write(&bomb, &bytes).unwrap();
        let ws = dir.path().join(format!("ws-{honest}"));
        let started = std::time::Instant::now();
        let r = run(
            &ws,
            &[
                "index",
                bomb.to_str().unwrap(),
                docx_fixture("python-markdown__toc.docx").to_str().unwrap(),
                fixture("notes.txt").to_str().unwrap(),
            ],
        );
        assert_eq!(r.code, 1, "{}", r.stderr);
        let errors = r.error_lines();
        let why = if honest {
            "inflates past 32 MiB (a zip bomb?); the bound is 32 MiB per entry (raise it with \
             --max-zip-entry-mib)"
        } else {
            "inflates past the 1024 bytes its header declares (a zip bomb?)"
        };
        assert_eq!(
            errors,
            vec![format!(
                "error: cannot read Word document `{}`: entry `word/document.xml` {why}",
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
        // Even unoptimized, refusing costs at most the bound's inflation, not the gigabyte's.
        assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    }
    let small = dir.path().join("small.docx");
    std::fs::copy(docx_fixture("ripgrep__GUIDE.docx"), &small).unwrap();
    let r = run(
        &dir.path().join("ws-flag"),
        &["index", "--max-zip-entry-mib", "1", small.to_str().unwrap()],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// Evidence from a Word document says where it is in paragraphs, never as lines: the text header
/// and the JSON (`"paragraphs"`, `"lines": null`) of `docnav ask --lexical`.
#[test]
fn word_evidence_is_located_by_paragraphs() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let guide = docx_fixture("ripgrep__GUIDE.docx");
    let r = run(&ws, &["index", guide.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(&ws, &["index", guide.to_str().unwrap()]);
    assert!(
        r.stderr
            .contains("indexed 0 documents (1 unchanged, 0 failed)"),
        "unchanged, it is skipped on re-index: {}",
        r.stderr
    );
    let question = "replace every match of fast with FAST in the output";
    let r = run(&ws, &["ask", "--lexical", "--json", question]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let first = &v["evidence"][0];
    assert_eq!(
        first["path"],
        serde_json::json!(["User Guide", "Replacements"])
    );
    assert_eq!(first["paragraphs"], serde_json::json!([111, 129]));
    assert_eq!(first["lines"], serde_json::Value::Null);
    let r = run(&ws, &["ask", "--lexical", question]);
    assert!(
        r.stdout.starts_with(
            "[1] ripgrep-guide › User Guide › Replacements  §1.7  paragraphs 111–129  score"
        ),
        "{}",
        r.stdout
    );
}
