#![allow(clippy::unwrap_used, clippy::expect_used)]

use pretty_assertions::assert_eq;

use super::*;
use crate::parse::{ParsedDoc, RawSection};
use crate::tree::{build_tree, BuildOptions, DocFormat};

/// A text-format tree: root (title "Doc", content `preamble`) and `(level, title, content)`
/// sections.
fn tree_with(preamble: &str, sections: &[(u32, &str, &str)], max_leaf_tokens: u32) -> Tree {
    let doc = ParsedDoc {
        format: DocFormat::Text,
        title: Some("Doc".into()),
        metadata: vec![],
        preamble: RawSection {
            content: preamble.into(),
            ..RawSection::default()
        },
        sections: sections
            .iter()
            .map(|(level, title, content)| RawSection {
                level: *level,
                title: (*title).into(),
                content: (*content).into(),
                ..RawSection::default()
            })
            .collect(),
        pages_without_text: vec![],
        source_units: 1,
        warnings: vec![],
    };
    let options = BuildOptions {
        max_leaf_tokens,
        ..BuildOptions::default()
    };
    build_tree(doc, &options)
}

fn tree(sections: &[(u32, &str, &str)]) -> Tree {
    tree_with("", sections, 4000)
}

fn nodes(hits: &[SearchHit]) -> Vec<u32> {
    hits.iter().map(|h| h.node.0).collect()
}

#[test]
fn postings_cover_own_text_only() {
    let t = tree(&[
        (1, "Install", "download the archive"),
        (2, "Linux", "apt get zebra"),
    ]);
    let idx = KeywordIndex::build(&t);
    // "zebra" is in node 2 only; its parent (node 1) does not inherit it.
    assert_eq!(nodes(&idx.search("zebra", 10)), [2]);
    assert_eq!(idx.term_frequency("zebra", NodeId(1)), 0);
    assert_eq!(idx.node_count(), 3);
}

#[test]
fn title_terms_weigh_three() {
    let t = tree(&[
        (1, "Caching", "plain words here"),
        (1, "Other", "caching noted"),
    ]);
    let idx = KeywordIndex::build(&t);
    assert_eq!(idx.term_frequency("caching", NodeId(1)), TITLE_WEIGHT);
    assert_eq!(idx.term_frequency("caching", NodeId(2)), 1);
    // Lengths: node 1 = 3 × 1 title term + 3 content terms; node 2 = 3 + 2.
    assert_eq!(idx.node_length(NodeId(1)), 6);
    assert_eq!(idx.node_length(NodeId(2)), 5);
    assert_eq!(nodes(&idx.search("caching", 10)), [1, 2]);
}

/// Root "Doc" (title only, length 3), node 1 "Alpha" + "beta beta" (3 + 2 = 5), node 2 "Gamma"
/// + "beta" (3 + 1 = 4). N = 3, avgdl = 12 / 3 = 4. Query "beta": df = 2.
#[test]
fn search_scores_match_closed_form_and_explain() {
    let t = tree(&[(1, "Alpha", "beta beta"), (1, "Gamma", "beta")]);
    let idx = KeywordIndex::build(&t);
    assert_eq!(idx.unit_count(), 3);
    assert_eq!(idx.average_length(), 4.0);
    let idf = (1.0f64 + (3.0 - 2.0 + 0.5) / (2.0 + 0.5)).ln();
    let part = |tf: f64, len: f64| idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / 4.0));
    let hits = idx.search("beta", 10);
    assert_eq!(nodes(&hits), [1, 2]);
    assert!((f64::from(hits[0].score) - part(2.0, 5.0)).abs() < 1e-5);
    assert!((f64::from(hits[1].score) - part(1.0, 4.0)).abs() < 1e-5);
    assert_eq!(hits[0].matched_terms, ["beta"]);
    for hit in &hits {
        let e = idx.explain("beta", hit.node);
        assert_eq!(e.score, hit.score, "explain and search agree exactly");
        assert_eq!(e.terms[0].df, 2);
    }
    assert!(idx.explain("beta", NodeId(0)).terms.is_empty());
    assert_eq!(idx.explain("beta", NodeId(99)).score, 0.0);
}

#[test]
fn matched_terms_list_query_terms_found_in_order() {
    let t = tree(&[(1, "Options", "--max-count limits matches per file")]);
    let idx = KeywordIndex::build(&t);
    let hits = idx.search("file --max-count nothing", 5);
    assert_eq!(nodes(&hits), [1]);
    assert_eq!(
        hits[0].matched_terms,
        ["file", "--max-count", "max", "count"]
    );
}

#[test]
fn ties_follow_reading_order_not_arena_order() {
    // Node 1's content is split into Part children appended to the arena after node 2.
    let long = "lorem ipsum dolor sit amet consectetur.\n\nzeta.\n\nmore lorem ipsum words.";
    let t = tree_with("", &[(1, "Long", long), (1, "Zeta twin", "")], 8);
    let part_ids: Vec<u32> = t.nodes[1].children.iter().map(|c| c.0).collect();
    assert!(
        part_ids.len() >= 2 && part_ids.iter().all(|&p| p > 2),
        "{part_ids:?}"
    );
    let idx = KeywordIndex::build(&t);
    let hits = idx.search("zeta", 10);
    // Node 2 has "zeta" in its title (tf 3) and wins; the part has tf 1.
    assert_eq!(hits[0].node, NodeId(2));

    // Two identical sections: the earlier one in reading order comes first.
    let t = tree(&[(1, "One", "same words"), (1, "Two", "same words")]);
    let idx = KeywordIndex::build(&t);
    assert_eq!(nodes(&idx.search("same", 10)), [1, 2]);
}

#[test]
fn limits_and_empty_queries() {
    let t = tree(&[(1, "A", "word"), (1, "B", "word")]);
    let idx = KeywordIndex::build(&t);
    assert!(idx.search("word", 0).is_empty());
    assert_eq!(idx.search("word", 1).len(), 1);
    assert!(idx.search("", 10).is_empty());
    assert!(idx.search("the of and", 10).is_empty());
    assert!(idx.search("absent", 10).is_empty());
    assert!(KeywordIndex::default().search("word", 10).is_empty());
}

#[test]
fn search_many_uses_shared_statistics() {
    // "kafka" is in one node of doc a; doc b has many nodes, none with it.
    let a = tree(&[(1, "Brokers", "kafka brokers"), (1, "Misc", "other")]);
    let b = tree(&[(1, "X", "kafka"), (1, "Y", "y words"), (1, "Z", "z words")]);
    let (ia, ib) = (KeywordIndex::build(&a), KeywordIndex::build(&b));
    let hits = search_many(&[("a", &ia), ("b", &ib)], "kafka", 10);
    let got: Vec<(&str, u32)> = hits.iter().map(|(d, h)| (*d, h.node.0)).collect();
    // b/1 is shorter than a/1 (avgdl is shared), so it ranks first.
    assert_eq!(got, [("b", 1), ("a", 1)]);
    let stats = SharedStats::new(&[&ia, &ib]);
    assert_eq!(stats.unit_count(), 7);
    assert_eq!(stats.document_frequency("kafka"), 2);
    for (doc, hit) in &hits {
        let idx = if *doc == "a" { &ia } else { &ib };
        assert_eq!(idx.explain_with(&stats, "kafka", hit.node).score, hit.score);
    }
    assert_eq!(search_many(&[("a", &ia), ("b", &ib)], "kafka", 1).len(), 1);
    assert!(search_many(&[], "kafka", 5).is_empty());
}

#[test]
fn score_text_uses_index_statistics() {
    let t = tree(&[(1, "Alpha", "beta beta"), (1, "Gamma", "beta")]);
    let idx = KeywordIndex::build(&t);
    // A text identical to node 2's weighted text scores like node 2 does.
    let node2 = idx.search("beta", 10)[1].score;
    assert!((idx.score_text("beta", "gamma gamma gamma beta") - node2).abs() < 1e-6);
    assert_eq!(idx.score_text("beta", "nothing relevant"), 0.0);
}

#[test]
fn top_terms_skip_numbers_noise_and_flags() {
    let t = tree(&[
        (
            1,
            "Release 1.8.0",
            "kafka brokers 2023 https www.example.com --verbose",
        ),
        (1, "Brokers", "kafka brokers replication fs.stats stats"),
    ]);
    let idx = KeywordIndex::build(&t);
    let top = idx.top_terms(20);
    assert_eq!(top[0], "broker");
    for bad in ["1.8.0", "2023", "http", "--verbose", "fs.stats", "www"] {
        assert!(!top.iter().any(|t| t == bad), "{bad} in {top:?}");
    }
    assert!(top.iter().any(|t| t == "kafka"));
    assert_eq!(idx.top_terms(2).len(), 2);
}

#[test]
fn noise_list_is_sorted() {
    let mut sorted = super::top_terms::NOISE.to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, super::top_terms::NOISE);
}

#[test]
fn serde_round_trip() {
    let t = tree(&[(1, "Install", "インストール fs.Stats 1.8.0")]);
    let idx = KeywordIndex::build(&t);
    let json = serde_json::to_string(&idx).unwrap();
    let back: KeywordIndex = serde_json::from_str(&json).unwrap();
    assert_eq!(back, idx);
    assert_eq!(nodes(&back.search("インストール", 5)), [1]);
    assert_eq!(nodes(&back.search("1.8.0", 5)), [1]);
}

#[test]
fn stored_form_is_delta_encoded_and_checked() {
    let t = tree(&[(1, "A", "alpha"), (1, "B", "beta"), (1, "C", "alpha beta")]);
    let idx = KeywordIndex::build(&t);
    let value = serde_json::to_value(&idx).unwrap();
    // "alpha" is in nodes 1 and 3: stored as first id 1, gap 2.
    let terms: Vec<String> = serde_json::from_value(value["terms"].clone()).unwrap();
    let alpha = terms.iter().position(|t| t == "alpha").unwrap();
    let df: Vec<u32> = serde_json::from_value(value["df"].clone()).unwrap();
    let gaps: Vec<u32> = serde_json::from_value(value["node_gaps"].clone()).unwrap();
    let start: usize = df[..alpha].iter().map(|&d| d as usize).sum();
    assert_eq!(&gaps[start..start + 2], [1, 2]);

    let empty = KeywordIndex::default();
    let back: KeywordIndex = serde_json::from_str(&serde_json::to_string(&empty).unwrap()).unwrap();
    assert_eq!(back, empty);

    let mut broken = value.clone();
    broken["df"][0] = serde_json::json!(99);
    let err = serde_json::from_value::<KeywordIndex>(broken).unwrap_err();
    assert!(
        err.to_string().contains("keyword index is inconsistent"),
        "{err}"
    );
    let mut unsorted = value;
    unsorted["terms"][0] = serde_json::json!("zzz");
    assert!(serde_json::from_value::<KeywordIndex>(unsorted).is_err());
}
