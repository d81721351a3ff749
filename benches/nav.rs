//! Command-language latency on the largest corpus documents (issue 3 targets: ls/cd/find < 1 ms,
//! cat of a 100 KB node < 5 ms, grep over a 3 MB document < 30 ms). Skips with a message when
//! `../shared/corpus` is absent. Run: `cargo bench --bench nav`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use docnav::nav::{Cursor, Role, Session};
use docnav::tree::{BuildOptions, NodeId};
use docnav::workspace::{InMemoryLibrary, Library};

const DOCS: &[&str] = &["md/fluentui-react__CHANGELOG.md", "pdf/R-fullrefman.pdf"];

fn bench(c: &mut Criterion) {
    // `../shared/corpus` from the main checkout, `../../shared/corpus` from a worktree.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(corpus) = ["../shared/corpus", "../../shared/corpus"]
        .iter()
        .map(|rel| root.join(rel))
        .find(|p| p.is_dir())
    else {
        eprintln!("skipping nav benches: ../shared/corpus not found");
        return;
    };
    // A real 3 MB Markdown document: the corpus's Markdown files concatenated, largest first.
    // In a folder of its own, under a fixed name: the name is the document's id, which is part of
    // each figure's key in bench/baseline.json.
    let big_dir = tempfile::tempdir().unwrap();
    let big_md = big_dir.path().join("docnav-bench-3mb.md");
    let mut md: Vec<_> = std::fs::read_dir(corpus.join("md"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    md.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)));
    let mut text = String::new();
    for p in md {
        if text.len() >= 3_000_000 {
            break;
        }
        text.push_str(&std::fs::read_to_string(p).unwrap_or_default());
        text.push('\n');
    }
    std::fs::write(&big_md, &text).unwrap();
    let mut docs: Vec<std::path::PathBuf> = DOCS.iter().map(|d| corpus.join(d)).collect();
    docs.push(big_md.clone());
    for path in &docs {
        let rel = path.file_name().unwrap().to_string_lossy();
        let lib = match InMemoryLibrary::from_paths(&[path], &BuildOptions::default()) {
            Ok(lib) => Arc::new(lib),
            Err(e) => {
                eprintln!("skipping {rel}: {e}");
                continue;
            }
        };
        let doc_id = lib.cards_page(0, 1)[0].doc_id.clone();
        let doc = lib.document(&doc_id).unwrap();
        let tree = &doc.tree;
        // The node whose rendered text is closest to 100 KB, and a deep node to cd into.
        let big = tree
            .preorder(NodeId::ROOT)
            .into_iter()
            .min_by_key(|n| tree.text_of(*n).len().abs_diff(100_000))
            .unwrap();
        let deep = tree
            .preorder(NodeId::ROOT)
            .into_iter()
            .max_by_key(|n| tree.node(*n).depth)
            .unwrap();
        let mut s = Session::new(lib.clone() as Arc<dyn Library>, Role::Agent);
        s.set_cursor(Cursor::Node {
            doc_id: doc_id.clone(),
            node: big,
        });
        let big_path = s.pwd().unwrap();
        s.set_cursor(Cursor::Node {
            doc_id: doc_id.clone(),
            node: deep,
        });
        let deep_path = s.pwd().unwrap();
        let first_title = tree.node(tree.root().children[0]).title.clone();
        let prefix: String = first_title.chars().take(4).collect();
        eprintln!(
            "{rel}: {} nodes, {} bytes; cat node {big_path} ({} bytes), cd target {deep_path}",
            tree.len(),
            tree.text_of(NodeId::ROOT).len(),
            tree.text_of(big).len()
        );
        let root = format!("/{doc_id}");
        let mut g = c.benchmark_group(doc_id.clone());
        let cases: Vec<(&str, String, String)> = vec![
            ("ls", root.clone(), "ls".into()),
            ("cd_numbers", root.clone(), format!("cd {deep_path}")),
            (
                "cd_title_prefix",
                root.clone(),
                format!("cd {}", docnav::nav::lexer::quote_word(&prefix)),
            ),
            ("find", root.clone(), "find release fix component".into()),
            ("cat_100k_page", root.clone(), format!("cat {big_path}")),
            (
                "cat_100k_whole",
                root.clone(),
                format!("cat --budget 1000000 {big_path}"),
            ),
            (
                "grep_doc",
                root.clone(),
                "grep -i 'fix(es)?\\b.*button' /".into(),
            ),
            ("grep_doc_count", root.clone(), "grep -c -i button /".into()),
        ];
        for (name, cwd, line) in cases {
            let mut s = Session::new(lib.clone() as Arc<dyn Library>, Role::Agent);
            s.execute(&format!("cd {cwd}")).unwrap();
            let start = s.cursor().clone();
            g.bench_function(name, |b| {
                b.iter(|| {
                    s.set_cursor(start.clone());
                    let out = s.execute(&line).unwrap();
                    s.take_evidence();
                    out
                })
            });
        }
        g.finish();
    }
    let _ = std::fs::remove_file(&big_md);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
