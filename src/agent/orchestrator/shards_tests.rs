//! The fixtures' documents split over three libraries, ranked in two rounds with merged
//! statistics, rank as one library holding every document ranks them.

use std::path::PathBuf;

use super::*;
use crate::agent::orchestrator::cards::rank_explained;
use crate::agent::routing::explain;
use crate::tree::BuildOptions;
use crate::workspace::InMemoryLibrary;

/// The Markdown and text documents of `fixtures/docs` and the filings of `fixtures/filings`,
/// in name order.
fn fixture_paths() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut paths: Vec<PathBuf> = Vec::new();
    for dir in ["docs", "filings"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if matches!(ext, "md" | "txt") || dir == "filings" {
                paths.push(path);
            }
        }
    }
    paths.sort_by_key(|p| p.file_name().unwrap().to_owned());
    paths
}

fn library(paths: &[PathBuf]) -> InMemoryLibrary {
    InMemoryLibrary::from_paths(paths, &BuildOptions::default()).unwrap()
}

/// Both rounds over `shards`, statistics and parts passed through JSON as between processes.
fn sharded(
    shards: &[InMemoryLibrary],
    question: &str,
    k: usize,
) -> (RankedDocuments, Vec<RankedCard>) {
    let json = |v: &RankStatistics| serde_json::to_string(v).unwrap();
    let parts: Vec<RankStatistics> = shards
        .iter()
        .map(|s| serde_json::from_str(&json(&rank_statistics(s, question).unwrap())).unwrap())
        .collect();
    let stats: RankStatistics =
        serde_json::from_str(&json(&merge_rank_statistics(&parts))).unwrap();
    let ranked: Vec<ShardRanking> = shards
        .iter()
        .map(|s| {
            let part = rank_shard(s, question, &stats, k).unwrap();
            serde_json::from_str(&serde_json::to_string(&part).unwrap()).unwrap()
        })
        .collect();
    (
        merge_rankings(&stats, &ranked),
        explain_shards(&stats, &ranked, k),
    )
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

fn assert_same(question: &str, one: &RankedDocuments, many: &RankedDocuments) {
    assert_eq!(one.ranking.docs, many.ranking.docs, "{question}");
    assert_eq!(
        one.ranking.hits.len(),
        many.ranking.hits.len(),
        "{question}"
    );
    for (a, b) in one.ranking.hits.iter().zip(&many.ranking.hits) {
        assert_eq!(
            (&a.doc_id, &a.structure, &a.title),
            (&b.doc_id, &b.structure, &b.title),
            "{question}"
        );
    }
    assert_eq!(one.hit_docs, many.hit_docs, "{question}");
    for (a, b) in one.hit_scores.iter().zip(&many.hit_scores) {
        assert!(close(*a, *b), "{question}: {a} {b}");
    }
    assert_eq!(one.by_card.len(), many.by_card.len(), "{question}");
    for (a, b) in one.by_card.iter().zip(&many.by_card) {
        assert_eq!(a.0, b.0, "{question}: {:?} {:?}", one.by_card, many.by_card);
    }
    assert_same_scores_and_names(question, one, many);
}

/// `one` and `many` score their section hits and their cards alike position by position (to
/// 1e-5), and name the same documents by the same names with the same period scores.
fn assert_same_scores_and_names(question: &str, one: &RankedDocuments, many: &RankedDocuments) {
    for (a, b) in one.ranking.hits.iter().zip(&many.ranking.hits) {
        assert!(close(a.score, b.score), "{question}: {a:?} {b:?}");
    }
    for (a, b) in one.by_card.iter().zip(&many.by_card) {
        assert!(close(a.1, b.1), "{question}: {a:?} {b:?}");
    }
    let named = |r: &RankedDocuments| -> Vec<(String, String, u8)> {
        r.named
            .iter()
            .map(|n| (n.card.doc_id.clone(), n.name.clone(), n.period_score))
            .collect()
    };
    assert_eq!(named(one), named(many), "{question}");
}

#[test]
fn three_shards_rank_the_documents_as_one_library() {
    let paths = fixture_paths();
    assert!(paths.len() >= 15, "{paths:?}");
    let whole = library(&paths);
    let shards: Vec<InMemoryLibrary> = (0..3)
        .map(|s| {
            let part: Vec<PathBuf> = paths
                .iter()
                .enumerate()
                .filter(|(i, _)| i % 3 == s)
                .map(|(_, p)| p.clone())
                .collect();
            library(&part)
        })
        .collect();
    let total: usize = shards.iter().map(|s| s.document_count()).sum();
    assert_eq!(total, whole.document_count());
    // The McDonald's 10-K (which prints the ticker) and its earnings release (which does not)
    // sit in different shards, so the entity widening crosses shards.
    let shard_of = |id: &str| shards.iter().position(|s| s.card(id).is_some());
    assert_ne!(
        shard_of("mcdonalds-2022-10k"),
        shard_of("mcdonalds-2023q2-earnings")
    );
    let mut hits = 0;
    let mut cards = 0;
    for question in [
        "how do I search compressed files?",
        "thread pool",
        "docker build cache",
        "unicode word boundary regex",
        "What was AAPL's revenue in fiscal 2019?",
        "What did Costco report in its 8-K of August 2023?",
        "MCD revenue in the second quarter of 2023",
        "McDonald's 10-K for 2022",
        "zzqx vvkw",
    ] {
        let one = rank_explained(&whole, question);
        let (many, explained) = sharded(&shards, question, 10);
        assert_same(question, &one, &many);
        hits += many.ranking.hits.len();
        cards += many.by_card.len();
        let shown = |r: &[RankedCard]| -> Vec<(usize, String, String)> {
            r.iter()
                .map(|c| (c.rank, c.card.doc_id.clone(), c.why.line()))
                .collect()
        };
        let alone = explain(&whole, question, 10).unwrap();
        assert_eq!(shown(&alone), shown(&explained), "{question}");
        assert_eq!(alone.len(), 10, "{question}");
        for (a, b) in alone.iter().zip(&explained) {
            assert_eq!(a.card, b.card, "{question}");
        }
    }
    assert!(
        hits > 100 && cards > 10,
        "the questions matched too little: {hits} {cards}"
    );
    // The named parts: the ticker names the 10-K, and through its entity the earnings release
    // in another shard; the period the question asks for ranks the release first.
    let (many, _) = sharded(&shards, "MCD revenue in the second quarter of 2023", 10);
    let named: Vec<(&str, &str)> = many
        .named
        .iter()
        .map(|n| (n.card.doc_id.as_str(), n.name.as_str()))
        .collect();
    assert!(named.contains(&("mcdonalds-2022-10k", "MCD")), "{named:?}");
    assert!(
        named.contains(&("mcdonalds-2023q2-earnings", "MCD")),
        "{named:?}"
    );
    assert_eq!(many.ranking.docs[0], "mcdonalds-2023q2-earnings");
    assert!(many.named.iter().any(|n| n.period_score > 0), "{named:?}");
    // One shard alone scores otherwise: the merged statistics are what made the scores equal.
    let q = "how do I search compressed files?";
    let own = rank_explained(&shards[0], q);
    let (merged, _) = sharded(&shards, q, 10);
    let (id, score) = &own.by_card[0];
    let same = merged.by_card.iter().find(|(d, _)| d == id).unwrap();
    assert!((same.1 - score).abs() > 1e-3, "{same:?} {score}");
}

/// Where a document ranks in `r` and by what: named (0), a section hit (1, with its best
/// score), a card (2, with its score) or catalog order (3).
fn placed_by(r: &RankedDocuments, id: &str) -> (u8, f32) {
    if r.named.iter().any(|n| n.card.doc_id == id) {
        (0, 0.0)
    } else if let Some(i) = r.hit_docs.iter().position(|d| d == id) {
        (1, r.hit_scores[i])
    } else if let Some((_, score)) = r.by_card.iter().find(|(d, _)| d == id) {
        (2, *score)
    } else {
        (3, 0.0)
    }
}

/// `one` and `many` agree position by position: the same document, or two ranked by the same
/// part with scores equal to 1e-5. BM25 sums a section's or card's term scores in an order
/// that depends on the index's segments, so two documents scoring alike can differ in the
/// last bit of their f32 scores, one way in one index and the other way over shards; they
/// may then trade places (at the cut of the card ranking too), as between two builds of one
/// index.
fn assert_same_to_rounding(question: &str, one: &RankedDocuments, many: &RankedDocuments) {
    assert_eq!(
        one.ranking.docs.len(),
        many.ranking.docs.len(),
        "{question}"
    );
    let mut swapped = 0;
    for (a, b) in one.ranking.docs.iter().zip(&many.ranking.docs) {
        if a == b {
            continue;
        }
        swapped += 1;
        let (pa, sa) = placed_by(one, a);
        let (pb, sb) = placed_by(many, b);
        assert!(
            pa == pb && pa > 0 && close(sa, sb),
            "{question}: {a} {sa} / {b} {sb}"
        );
    }
    assert!(
        swapped * 10 < one.ranking.docs.len(),
        "{question}: {swapped} swapped"
    );
    assert_same_scores_and_names(question, one, many);
}

/// More documents than the pre-rank ranks ([`PRE_RANK_DOCS`]), split unevenly (one shard holds
/// more than it on its own): the card ranking and the catalog order are cut where one library
/// cuts them, and a named document comes first.
#[test]
fn shards_cut_the_ranking_where_one_library_does() {
    const WORDS: &[&str] = &[
        "thread", "pool", "cache", "install", "network", "socket", "parser", "token", "window",
        "render", "queue", "signal", "buffer", "stream", "index", "merge",
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut seed: u64 = 7;
    let mut next = |n: usize| -> usize {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as usize) % n
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for i in 0..260 {
        let path = dir.path().join(format!("pkg-{i:03}.md"));
        let mut text = format!("# Package {i} guide\n\nThe common guide of package {i}.\n");
        for s in 0..3 {
            let words: Vec<&str> = (0..6).map(|_| WORDS[next(WORDS.len())]).collect();
            text.push_str(&format!(
                "\n## {} {}\n\n{}.\n",
                WORDS[next(WORDS.len())],
                s,
                words.join(" ")
            ));
        }
        std::fs::write(&path, text).unwrap();
        paths.push(path);
    }
    let whole = library(&paths);
    let mut parts: Vec<Vec<PathBuf>> = vec![Vec::new(); 3];
    for (i, p) in paths.iter().enumerate() {
        let s = if i % 10 < 8 { 0 } else { 1 + i % 2 };
        parts[s].push(p.clone());
    }
    let shards: Vec<InMemoryLibrary> = parts.iter().map(|p| library(p)).collect();
    assert!(
        shards[0].document_count() > PRE_RANK_DOCS,
        "{}",
        shards[0].document_count()
    );
    for question in [
        "thread pool cache",
        "common guide",
        "which pkg-259 common guide",
        "socket buffer stream",
        "nothing here zzqx",
    ] {
        let one = rank_explained(&whole, question);
        let (many, explained) = sharded(&shards, question, 50);
        assert_same_to_rounding(question, &one, &many);
        let ids: Vec<&str> = explained.iter().map(|c| c.card.doc_id.as_str()).collect();
        assert_eq!(ids, many.ranking.docs[..50], "{question}");
    }
    // `common guide` matches every card: the card ranking is cut at PRE_RANK_DOCS.
    assert_eq!(
        rank_explained(&whole, "common guide").by_card.len(),
        PRE_RANK_DOCS
    );
    let named = rank_explained(&whole, "which pkg-259 common guide");
    assert_eq!(named.ranking.docs[0], "pkg-259");
    assert_eq!(named.ranking.docs.len(), PRE_RANK_DOCS);
}
