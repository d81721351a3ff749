use std::ops::Range;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::*;
use crate::tree::BuildOptions;
use crate::workspace::InMemoryLibrary;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/docs")
        .join(name)
}

fn library(paths: &[PathBuf]) -> InMemoryLibrary {
    InMemoryLibrary::from_paths(paths, &BuildOptions::default()).unwrap()
}

/// Evidence of node `structure` of `doc_id` as a Worker collects it: chars `0..n` of its text
/// (the whole text when `n` is `None`).
fn read(lib: &dyn Library, doc_id: &str, structure: &str, n: Option<usize>) -> CollectedEvidence {
    let doc = lib.document(doc_id).unwrap();
    let node = doc.tree.by_structure(structure).unwrap();
    let full = doc.tree.text_of(node);
    let n = n.unwrap_or(full.chars().count());
    CollectedEvidence {
        doc_id: doc_id.into(),
        node,
        chars: 0..n,
        text: full.chars().take(n).collect(),
        cited: Vec::new(),
    }
}

/// `(doc_id, structure, text length)` of the ranked list, best first.
fn shape(ranked: &[RankedEvidence]) -> Vec<(String, String, usize)> {
    ranked
        .iter()
        .map(|r| {
            let e = &r.evidence;
            (
                e.doc_id.clone(),
                e.structure.clone(),
                e.text.chars().count(),
            )
        })
        .collect()
}

fn row(doc: &str, structure: &str, len: usize) -> (String, String, usize) {
    (doc.into(), structure.into(), len)
}

/// Chars `range` of node `structure` of `doc_id`, as a Worker collects a page read at an offset.
fn read_at(
    lib: &dyn Library,
    doc_id: &str,
    structure: &str,
    range: Range<usize>,
) -> CollectedEvidence {
    let doc = lib.document(doc_id).unwrap();
    let node = doc.tree.by_structure(structure).unwrap();
    let full = doc.tree.text_of(node);
    CollectedEvidence {
        doc_id: doc_id.into(),
        node,
        text: full.chars().skip(range.start).take(range.len()).collect(),
        chars: range,
        cited: Vec::new(),
    }
}

#[test]
fn reads_of_one_node_merge_by_char_range() {
    let lib = library(&[fixture("notes.txt")]);
    let whole_11 = read(&lib, "notes", "1.1", None);
    let len_11 = whole_11.text.chars().count();
    let len_3 = read(&lib, "notes", "3", None).text.chars().count();
    let collected = vec![
        read(&lib, "notes", "1.1", Some(40)),
        read(&lib, "notes", "3", None),
        whole_11.clone(),
        read(&lib, "notes", "1.1", Some(60)),
    ];
    let ranked = rerank(&lib, collected, "workspace several");
    // 1.1 matches the query, 3 does not: 1.1 first, with the whole text (the union of its reads).
    assert_eq!(
        shape(&ranked),
        vec![row("notes", "1.1", len_11), row("notes", "3", len_3)]
    );
    assert_eq!(ranked[0].evidence.text, whole_11.text);
    assert_eq!(ranked[0].evidence.lines, Some([11, 15]));
    assert_eq!(ranked[1].evidence.score, 0.0);
}

/// Disjoint reads of one node are all kept, each verbatim; overlapping ones merge.
#[test]
fn disjoint_reads_of_one_node_are_all_kept() {
    let lib = library(&[fixture("nodejs-doc__fs.md")]);
    let collected = vec![
        read_at(&lib, "nodejs-doc-fs", "4", 0..500),
        read_at(&lib, "nodejs-doc-fs", "4", 2000..2600),
        read_at(&lib, "nodejs-doc-fs", "4", 2400..3000),
    ];
    let ranked = rerank(&lib, collected, "file");
    let mut ranges: Vec<(usize, usize)> = ranked
        .iter()
        .map(|r| {
            let text = &r.evidence.text;
            let doc = lib.document("nodejs-doc-fs").unwrap();
            let full = doc.tree.text_of(doc.tree.by_structure("4").unwrap());
            let start = full[..full.find(text.as_str()).unwrap()].chars().count();
            (start, start + text.chars().count())
        })
        .collect();
    ranges.sort();
    assert_eq!(ranges, vec![(0, 500), (2000, 3000)]);
}

#[test]
fn of_an_ancestor_and_its_descendant_the_better_scored_survives() {
    let lib = library(&[fixture("notes.txt")]);
    let len = |s: &str| read(&lib, "notes", s, None).text.chars().count();
    let both = || {
        vec![
            read(&lib, "notes", "1", None),
            read(&lib, "notes", "2.1", None),
            read(&lib, "notes", "1.1", None),
        ]
    };
    // Words only in 1.1's text: the ancestor holds them too, but is longer, so 1.1 wins.
    let ranked = rerank(&lib, both(), "several apart");
    assert_eq!(
        shape(&ranked),
        vec![
            row("notes", "1.1", len("1.1")),
            row("notes", "2.1", len("2.1"))
        ]
    );
    // Words only in 1's own text: the descendant scores 0, the ancestor survives.
    let ranked = rerank(&lib, both(), "folder defaults current directory");
    assert_eq!(
        shape(&ranked),
        vec![row("notes", "1", len("1")), row("notes", "2.1", len("2.1"))]
    );
    // A tie (nothing matches): the descendant, the more exact section, survives; ties rank in
    // collection order.
    let ranked = rerank(&lib, both(), "zzqx");
    assert_eq!(
        shape(&ranked),
        vec![
            row("notes", "2.1", len("2.1")),
            row("notes", "1.1", len("1.1"))
        ]
    );
}

/// `notes.txt` and a copy with one word of section 1.1 changed: the same sections, near-identical.
fn notes_and_edited_copy(dir: &Path) -> InMemoryLibrary {
    let copy = dir.join("notes-copy.txt");
    let text = std::fs::read_to_string(fixture("notes.txt")).unwrap();
    std::fs::write(
        &copy,
        text.replace("keep several indexes", "keep various indexes"),
    )
    .unwrap();
    library(&[fixture("notes.txt"), copy])
}

#[test]
fn near_identical_texts_keep_the_better_scored_or_the_first_collected() {
    let dir = tempfile::tempdir().unwrap();
    let lib = notes_and_edited_copy(dir.path());
    let len = read(&lib, "notes", "1", None).text.chars().count();
    let collected = || {
        vec![
            read(&lib, "notes", "1", None),
            read(&lib, "notes-copy", "1", None),
            read(&lib, "notes-copy", "3", None),
        ]
    };
    let len_3 = read(&lib, "notes-copy", "3", None).text.chars().count();
    // "various" is only in the copy: it scores better and survives although collected second.
    let ranked = rerank(&lib, collected(), "keep various indexes");
    assert_eq!(
        shape(&ranked),
        vec![row("notes-copy", "1", len), row("notes-copy", "3", len_3)]
    );
    // Equal scores: the one collected first survives.
    let ranked = rerank(&lib, collected(), "workspace catalog");
    assert_eq!(
        shape(&ranked),
        vec![row("notes", "1", len), row("notes-copy", "3", len_3)]
    );
    // Different sections of the two copies are not near-identical: both survive.
    let ranked = rerank(
        &lib,
        vec![
            read(&lib, "notes", "2", None),
            read(&lib, "notes-copy", "3", None),
        ],
        "zzqx",
    );
    assert_eq!(ranked.len(), 2);
}

#[test]
fn every_survivor_explains_its_score() {
    let lib = library(&[fixture("nodejs-doc__fs.md")]);
    let collected: Vec<CollectedEvidence> = ["7.6.10", "7.6", "5.39", "8.1"]
        .iter()
        .map(|s| read(&lib, "nodejs-doc-fs", s, None))
        .collect();
    let ranked = rerank(&lib, collected, "stat mode bit-field");
    // 7.6 (Class: fs.Stats) is the ancestor of 7.6.10 (stats.mode): only one of them survives.
    let structures: Vec<&str> = ranked
        .iter()
        .map(|r| r.evidence.structure.as_str())
        .collect();
    assert_eq!(
        structures.iter().filter(|s| s.starts_with("7.6")).count(),
        1,
        "{structures:?}"
    );
    for r in &ranked {
        let x = r.evidence.explain.as_ref().unwrap();
        let sum: f32 = x.terms.iter().map(|t| t.contribution).sum();
        assert!(
            (sum - r.evidence.score).abs() < 1e-4,
            "{sum} vs {}",
            r.evidence.score
        );
        assert_eq!(x.units, 4);
        let query = crate::index::bm25::query_terms("stat mode bit-field");
        for t in &x.terms {
            assert!(query.contains(&t.term), "{}", t.term);
            assert!(t.tf > 0.0 && t.df >= 1);
        }
    }
    assert!(ranked
        .windows(2)
        .all(|w| w[0].evidence.score >= w[1].evidence.score));
}

#[test]
fn a_part_read_keeps_its_own_lines() {
    let lib = library(&[fixture("notes.txt")]);
    let doc = lib.document("notes").unwrap();
    let node = doc.tree.by_structure("1").unwrap();
    let text = doc.tree.text_of(node);
    let first_paragraph = text.find("directory.\n\n").unwrap() + "directory.\n\n".len();
    let part = CollectedEvidence {
        doc_id: "notes".into(),
        node,
        chars: 0..first_paragraph,
        text: text[..first_paragraph].to_string(),
        cited: Vec::new(),
    };
    let ranked = rerank(&lib, vec![part], "workspace");
    assert_eq!(ranked[0].evidence.lines, Some([6, 9]));
    assert_eq!(ranked[0].evidence.text, text[..first_paragraph]);
}
