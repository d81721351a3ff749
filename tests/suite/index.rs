//! The section index and DocCards over the committed fixtures (and the corpus, for
//! measurements).
//!
//! Tests marked "multi-node" assert on the exact section once the parsers split documents into
//! sections; while a parser still yields a single root node they assert the root instead.

use std::path::{Path, PathBuf};
use std::time::Instant;

use docnav::index::{tokenize, DocCard, Scope, SectionHit, SectionIndex};
use docnav::parse::{ParsedDoc, RawSection};
use docnav::tree::{build_tree, BuildOptions, DocFormat, NodeId, Tree};
use docnav::workspace::{InMemoryLibrary, Library};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/docs")
        .join(name)
}

fn library(names: &[&str]) -> InMemoryLibrary {
    let paths: Vec<PathBuf> = names.iter().map(|n| fixture(n)).collect();
    InMemoryLibrary::from_paths(&paths, &BuildOptions::default()).unwrap()
}

/// True when the parser split the document into headed sections (not only `Part N` splits of
/// one long root).
fn has_sections(tree: &Tree) -> bool {
    tree.nodes.iter().any(|n| {
        n.depth == 1
            && !n
                .title
                .strip_prefix("Part ")
                .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// The best `n` hits for `query` in document `doc_id` of `lib` (that document's statistics).
fn search_in(lib: &InMemoryLibrary, doc_id: &str, query: &str, n: usize) -> Vec<SectionHit> {
    let only = [doc_id.to_string()];
    lib.sections()
        .unwrap()
        .prepare(query, Scope::Documents(&only))
        .unwrap()
        .top(n)
        .unwrap()
}

/// Title path of the best hit for `query` in the only document of `lib`.
fn best_path(lib: &InMemoryLibrary, query: &str) -> (Vec<String>, Tree) {
    let id = lib.cards_page(0, 1)[0].doc_id.clone();
    let doc = lib.document(&id).unwrap();
    let hits = search_in(lib, &id, query, 5);
    assert!(!hits.is_empty(), "no hit for {query:?}");
    (doc.tree.title_path(hits[0].node), doc.tree.clone())
}

#[test]
fn every_fixture_card_is_under_1_kib() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/docs");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for path in &paths {
        // Every fixture builds, PDFs included (`live-manual-broken.pdf` with empty pages).
        let lib = InMemoryLibrary::from_paths(&[path], &BuildOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let card = &lib.cards_page(0, 1)[0];
        let json = serde_json::to_string(card).unwrap();
        assert!(
            json.len() < 1024,
            "{}: {} bytes: {json}",
            path.display(),
            json.len()
        );
        assert!(card.top_terms.len() <= 12);
        assert!(card.summary.chars().count() <= 200);
        let doc = lib.document(&card.doc_id).unwrap();
        if has_sections(&doc.tree) {
            assert!(!card.outline.is_empty(), "{}", path.display());
        }
    }
    assert_eq!(paths.len(), 15, "fixtures/docs changed: {paths:?}");
}

#[test]
fn fixture_cards_name_their_topic() {
    let lib = library(&[
        "nodejs-doc__fs.md",
        "ripgrep__GUIDE.md",
        "regex__CHANGELOG.md",
    ]);
    let terms = |id: &str| lib.card(id).unwrap().top_terms.clone();
    let fs = terms("nodejs-doc-fs");
    assert!(fs.iter().any(|t| t == "file"), "{fs:?}");
    let rg = terms("ripgrep-guide");
    assert!(rg.iter().any(|t| t == "ripgrep"), "{rg:?}");
    let re = terms("regex-changelog");
    assert!(re.iter().any(|t| t == "regex"), "{re:?}");
}

/// `title` without a leading section number (`"1.1 Choosing"` → `"Choosing"`).
fn strip_number(title: &str) -> &str {
    title
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
        .trim_start()
}

/// multi-node: `notes.txt` has numbered sections once the text parser lands.
#[test]
fn find_in_notes_ranks_the_workspace_section() {
    let lib = library(&["notes.txt"]);
    let (path, tree) = best_path(&lib, "DOCNAV_WORKSPACE catalog");
    if has_sections(&tree) {
        // The text parser may keep the heading numbers in titles ("1.1 Choosing a workspace").
        let plain: Vec<&str> = path.iter().map(|t| strip_number(t)).collect();
        assert_eq!(plain, ["Getting started", "Choosing a workspace"]);
    } else {
        assert!(path.is_empty());
    }
    let (path, tree) = best_path(&lib, "OCR text layer");
    if has_sections(&tree) {
        let plain: Vec<&str> = path.iter().map(|t| strip_number(t)).collect();
        assert_eq!(plain, ["Troubleshooting"]);
    }
}

/// multi-node: `multilingual.md` has Japanese and French sections once the Markdown parser lands.
#[test]
fn find_in_multilingual_ranks_cjk_and_accented_sections() {
    let lib = library(&["multilingual.md"]);
    let (path, tree) = best_path(&lib, "設定ファイル");
    if has_sections(&tree) {
        assert_eq!(path, ["インストール", "設定ファイル"]);
    }
    let (path, tree) = best_path(&lib, "café sans sucre");
    if has_sections(&tree) {
        assert_eq!(path, ["Café noir"]);
    }
    // Japanese text is searchable at all, whatever the tree shape.
    let (_, tree) = best_path(&lib, "インストール");
    assert!(tree.text_of(NodeId::ROOT).contains("インストール"));
}

#[test]
fn a_search_of_all_documents_finds_the_right_document() {
    let lib = library(&[
        "nodejs-doc__fs.md",
        "regex__CHANGELOG.md",
        "ripgrep__GUIDE.md",
        "docker-doc__builder.md",
    ]);
    for (query, want) in [
        ("fs.Stats bigint", "nodejs-doc-fs"),
        ("1.8.0", "regex-changelog"),
        ("ONBUILD instruction", "docker-doc-builder"),
    ] {
        let hits = lib
            .sections()
            .unwrap()
            .prepare(query, Scope::All)
            .unwrap()
            .top(5)
            .unwrap();
        assert!(!hits.is_empty(), "{query}");
        assert_eq!(hits[0].doc_id, want, "{query}: {hits:?}");
        let d = lib.document(&hits[0].doc_id).unwrap();
        assert!(
            d.tree
                .text_of(hits[0].node)
                .to_lowercase()
                .contains(&query.split(' ').next().unwrap().to_lowercase()),
            "{query}"
        );
    }
}

/// A search inside one document scores the same whatever else the library holds: its
/// statistics are that document's own (traces recorded in one workspace replay in another).
#[test]
fn a_search_in_one_document_does_not_depend_on_the_other_documents() {
    let alone = library(&["ripgrep__GUIDE.md"]);
    let among = library(&["ripgrep__GUIDE.md", "nodejs-doc__fs.md", "ripgrep__FAQ.md"]);
    let query = "compressed files search-zip gzip";
    let a = search_in(&alone, "ripgrep-guide", query, 10);
    let b = search_in(&among, "ripgrep-guide", query, 10);
    assert!(a.len() >= 3);
    let key = |h: &SectionHit| (h.node, (h.score * 1e4).round() as i64);
    assert_eq!(
        a.iter().map(key).collect::<Vec<_>>(),
        b.iter().map(key).collect::<Vec<_>>()
    );
    // At `/` the statistics are the whole library's, so the same section scores differently.
    let all = among
        .sections()
        .unwrap()
        .prepare(query, Scope::All)
        .unwrap()
        .top(50)
        .unwrap();
    let same = all
        .iter()
        .find(|h| h.doc_id == "ripgrep-guide" && h.node == a[0].node)
        .unwrap();
    assert_ne!(key(same), key(&a[0]));
}

/// multi-node: the version question lands on the release's own section in the changelog.
#[test]
fn version_query_hits_its_release_section() {
    let lib = library(&["regex__CHANGELOG.md"]);
    let doc = lib.document(&lib.cards_page(0, 1)[0].doc_id).unwrap();
    let hits = search_in(&lib, &lib.cards_page(0, 1)[0].doc_id, "1.8.0", 10);
    assert!(!hits.is_empty());
    let node = doc.tree.node(hits[0].node);
    assert!(doc.tree.text_of(hits[0].node).contains("1.8.0"));
    if has_sections(&doc.tree) {
        assert!(node.title.contains("1.8.0"), "{}", node.title);
        // Version tokens are not split: other releases do not match "1.8.0".
        for hit in &hits {
            assert!(
                doc.tree.node(hit.node).title.contains("1.8.0")
                    || doc.tree.node(hit.node).content.contains("1.8.0")
            );
        }
    }
}

/// A changelog split into one section per `#` heading line, built without the Markdown parser
/// (so the measurement does not depend on it).
fn sections_by_heading_lines(text: &str) -> Tree {
    let mut sections: Vec<RawSection> = Vec::new();
    let mut preamble = RawSection::default();
    for line in text.split_inclusive('\n') {
        let hashes = line.bytes().take_while(|b| *b == b'#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            sections.push(RawSection {
                level: u32::try_from(hashes).unwrap(),
                title: line[hashes..].trim().to_string(),
                ..RawSection::default()
            });
        } else if let Some(s) = sections.last_mut() {
            s.content.push_str(line);
        } else {
            preamble.content.push_str(line);
        }
    }
    let doc = ParsedDoc {
        format: DocFormat::Markdown,
        title: None,
        metadata: vec![],
        preamble,
        sections,
        pages_without_text: vec![],
        source_units: 1,
        warnings: vec![],
    };
    build_tree(doc, &BuildOptions::default())
}

/// Seconds this thread has run on a CPU (Linux `/proc/thread-self/schedstat`), so throughput on
/// a loaded machine is not confused with waiting for a core; `None` elsewhere.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// Wall and CPU seconds of `rounds` runs of `f`, per run.
fn timed(rounds: u32, mut f: impl FnMut()) -> (f64, Option<f64>) {
    let (wall, cpu) = (Instant::now(), thread_cpu_seconds());
    for _ in 0..rounds {
        f();
    }
    let per = |s: f64| s / f64::from(rounds);
    let cpu = cpu.and_then(|c0| thread_cpu_seconds().map(|c1| per(c1 - c0)));
    (per(wall.elapsed().as_secs_f64()), cpu)
}

/// Throughput of tokenize and of indexing a tree into an in-memory section index, and search
/// latency, on the largest corpus changelog. Run:
/// `cargo test --release --test all -- --ignored --nocapture index_throughput`.
#[test]
#[ignore = "measurement; run in release with --nocapture"]
fn index_throughput() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/md/fluentui-react__CHANGELOG.md");
    let path = if path.exists() {
        path
    } else {
        PathBuf::from("/work/shared/corpus/md/fluentui-react__CHANGELOG.md")
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let mb = text.len() as f64 / 1e6;
    let tree = sections_by_heading_lines(&text);

    let rounds = 5;
    let mut tokens = 0;
    let tok = timed(rounds, || tokens = tokenize(&text).len());
    let card = DocCard::new("fluentui", "x", text.len() as u64, "f", &tree);
    let mut index = SectionIndex::create_in_ram().unwrap();
    let build = timed(rounds, || {
        index = SectionIndex::create_in_ram().unwrap();
        let writer = index.writer(1).unwrap();
        writer.replace(index.entries(&card, &tree, "f")).unwrap();
        writer.commit(1).unwrap();
        index.reload().unwrap();
    });

    let queries = [
        "8.125.6",
        "Bump @fluentui/react-focus",
        "DetailsList column resize bug",
        "theme",
    ];
    let mut hits = 0;
    let search = timed(200, || {
        for q in queries {
            hits += index.prepare(q, Scope::All).unwrap().top(10).unwrap().len();
        }
    });
    let us = |s: f64| s * 1e6 / queries.len() as f64;
    let mbs = |s: f64| mb / s;
    println!(
        "{mb:.2} MB, {} nodes, {tokens} tokens\n\
         tokenize: {:.1} MB/s wall, {:.1} MB/s cpu\n\
         section index (entries + tantivy, this thread's CPU only): {:.1} MB/s wall\n\
         search: {:.0} µs/query wall, {:.0} µs cpu ({hits} hits)\n\
         card top terms: {:?}",
        tree.len(),
        mbs(tok.0),
        tok.1.map_or(f64::NAN, mbs),
        mbs(build.0),
        us(search.0),
        search.1.map_or(f64::NAN, us),
        card.top_terms,
    );
}
