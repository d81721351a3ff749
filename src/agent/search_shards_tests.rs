//! A corpus split into two libraries, searched with merged statistics, gives what one library
//! holding every document gives.

use std::path::PathBuf;

use super::*;
use crate::agent::lexical::query_statistics;
use crate::tree::BuildOptions;
use crate::workspace::InMemoryLibrary;

const NAMES: &[&str] = &[
    "clap__git.md",
    "docker-doc__builder.md",
    "multilingual.md",
    "nodejs-doc__fs.md",
    "nodejs-doc__index.md",
    "notes.txt",
    "python-markdown__toc.md",
    "regex__CHANGELOG.md",
    "ripgrep__FAQ.md",
    "ripgrep__GUIDE.md",
    "vant__README.md",
];

fn library(names: &[&str]) -> InMemoryLibrary {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/docs");
    let paths: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
    InMemoryLibrary::from_paths(&paths, &BuildOptions::default()).unwrap()
}

/// `(doc_id, path, score)` of each hit, in order.
fn shown(results: &SearchResults) -> Vec<(String, String, f32)> {
    results
        .results
        .iter()
        .map(|h| (h.doc_id.clone(), h.path.clone(), h.score))
        .collect()
}

fn sharded(
    shards: &[&InMemoryLibrary],
    query: &str,
    doc_ids: Option<&[String]>,
    k: usize,
) -> SearchResults {
    let parts: Vec<QueryStatistics> = shards
        .iter()
        .map(|s| query_statistics(*s, query, doc_ids).unwrap())
        .collect();
    let stats = QueryStatistics::merged(&parts);
    let results = shards
        .iter()
        .map(|s| search_shard(*s, query, doc_ids, k, 400, &stats).unwrap())
        .collect();
    merge_shards(query, results, doc_ids, k)
}

#[test]
fn two_shards_with_merged_statistics_search_as_one_library() {
    let whole = library(NAMES);
    let half = |parity: usize| -> Vec<&str> {
        NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == parity)
            .map(|(_, n)| *n)
            .collect()
    };
    let odd = library(&half(1));
    let even = library(&half(0));
    let scope: Vec<String> = ["ripgrep-guide", "nodejs-doc-fs", "clap-git", "notes"]
        .map(String::from)
        .to_vec();
    let mut compared = 0;
    for query in [
        "how do I search compressed files",
        "file name",
        "thread pool",
        "build cache docker",
        "read a file line by line",
        "unicode word boundary regex",
        "table of contents",
        "subcommand",
    ] {
        for k in [1, 3, 10, 50] {
            for doc_ids in [None, Some(scope.as_slice())] {
                let one = search_sections(&whole, query, doc_ids, k, 400).unwrap();
                let two = sharded(&[&odd, &even], query, doc_ids, k);
                let (one, two) = (shown(&one), shown(&two));
                assert_eq!(one.len(), two.len(), "{query} k={k} {doc_ids:?}");
                for (a, b) in one.iter().zip(&two) {
                    assert_eq!((&a.0, &a.1), (&b.0, &b.1), "{query} k={k}: {one:?} {two:?}");
                    assert!((a.2 - b.2).abs() < 1e-5, "{query} k={k}: {a:?} {b:?}");
                }
                compared += one.len();
            }
        }
    }
    assert!(compared > 100, "the queries found too little: {compared}");
    // Each shard alone scores otherwise: the merged statistics are what made them equal.
    let alone = search_sections(&odd, "file name", None, 3, 400).unwrap();
    let merged = sharded(&[&odd], "file name", None, 3);
    assert_eq!(shown(&alone), shown(&merged));
    let with_both = sharded(&[&odd, &even], "file name", None, 50);
    let odd_hit = &alone.results[0];
    let same = with_both
        .results
        .iter()
        .find(|h| h.doc_id == odd_hit.doc_id && h.path == odd_hit.path)
        .unwrap();
    assert!(
        (same.score - odd_hit.score).abs() > 1e-3,
        "{same:?} {odd_hit:?}"
    );
}

#[test]
fn statistics_of_parts_add_up_to_the_whole() {
    let whole = library(NAMES);
    let a = library(&NAMES[..5]);
    let b = library(&NAMES[5..]);
    let q = "thread pool file name";
    let merged = QueryStatistics::merged(&[
        query_statistics(&a, q, None).unwrap(),
        query_statistics(&b, q, None).unwrap(),
    ]);
    let one = query_statistics(&whole, q, None).unwrap();
    assert_eq!(merged, one);
    assert!(one.sections > 100 && one.text_tokens > one.sections);
    // Words and the compounds of adjacent words, known or not.
    let terms: Vec<&str> = one.doc_freqs.keys().map(String::as_str).collect();
    for t in [
        "thread",
        "pool",
        "file",
        "name",
        "threadpool",
        "poolfile",
        "filename",
    ] {
        assert!(terms.contains(&t), "{t} in {terms:?}");
    }
    assert!(one.doc_freqs["file"] > 0);
}
