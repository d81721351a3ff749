//! E-books as trees: a pandoc-made EPUB has its Markdown's chapters and sections.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use docnav::parse::parse_file;
use docnav::tree::build::{build_tree, BuildOptions};
use docnav::tree::{NodeId, Tree};
use pretty_assertions::assert_eq;

use super::common::{corpus_dir, fixture, run};
use crate::support::pandoc;

/// `fixtures/epub/<name>`.
fn epub_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/epub")
        .join(name)
}

/// The tree of `path` without `Part N` splits (their cuts depend on the text's length).
fn unsplit_tree(path: &Path) -> Tree {
    build_tree(
        parse_file(path, false).unwrap(),
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

/// pandoc's EPUB of `python-markdown__toc.md`, one chapter file per `##` section
/// (`pandoc -f gfm --epub-chapter-level=2`): the chapters and the section inside one are the
/// Markdown's tree, its text is the chapters' text, and `docnav` indexes and shows it.
#[test]
fn pandoc_epub_has_the_chapters_and_sections_of_its_markdown() {
    let epub = unsplit_tree(&epub_fixture("python-markdown__toc.epub"));
    let md = unsplit_tree(&fixture("python-markdown__toc.md"));
    assert_eq!(
        headings(&epub),
        vec![
            (1, "Summary".to_string()),
            (1, "Syntax".to_string()),
            (2, "Custom Labels".to_string()),
            (1, "Usage".to_string())
        ]
    );
    assert_eq!(headings(&epub), headings(&md));
    assert_eq!(epub.title(), md.title());
    let labels = epub.by_title_path(&["Syntax", "Custom Labels"]).unwrap();
    let text = epub.text_of(labels);
    assert!(
        text.starts_with("# Custom Labels\n\nIn most cases, the text label"),
        "{text}"
    );
    assert_eq!(epub.node(labels).lines, None);

    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let book = epub_fixture("python-markdown__toc.epub");
    let r = run(&ws, &["index", book.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Unchanged, it is skipped on re-index.
    let r = run(&ws, &["index", book.to_str().unwrap()]);
    assert!(
        r.stderr
            .contains("indexed 0 documents (1 unchanged, 0 failed)"),
        "{}",
        r.stderr
    );
    let r = run(&ws, &["tree", "python-markdown-toc"]);
    assert_eq!(
        r.stdout,
        "Table of Contents (python-markdown-toc)\n1 Summary\n2 Syntax\n  2.1 Custom Labels\n3 Usage\n"
    );
}

/// Corpus Markdown converted to EPUB by pandoc (chapters at `#` and at `##`) has the
/// Markdown's tree. Needs pandoc (`.ci/run` installs it; under CI its absence fails the test)
/// and the corpus (skipped with a note without it).
#[test]
fn corpus_markdown_converted_to_epub_by_pandoc_has_the_same_tree() {
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
    for name in [
        "python-markdown__contributing",
        "aho-corasick__DESIGN",
        "docker-doc__builder",
    ] {
        let md = corpus.join("md").join(format!("{name}.md"));
        for level in ["1", "2"] {
            let epub = out.path().join(format!("{name}-{level}.epub"));
            pandoc::convert(&md, &epub, &["--epub-chapter-level", level]);
            let want = headings(&unsplit_tree(&md));
            assert!(want.len() > 5, "{name}");
            assert_eq!(
                headings(&unsplit_tree(&epub)),
                want,
                "{name} at chapter level {level}"
            );
        }
    }
}
