use pretty_assertions::assert_eq;

use super::*;
use crate::index::{DocCard, NodeTerms};
use crate::parse::{ParsedDoc, RawSection};
use crate::tree::{build_tree, BuildOptions, DocFormat, NodeId, Tree};

fn tree(sections: &[(u32, &str, &str)]) -> Tree {
    tree_with_preamble("", sections)
}

/// [`tree`] whose root holds `preamble` as its text.
fn tree_with_preamble(preamble: &str, sections: &[(u32, &str, &str)]) -> Tree {
    build_tree(
        ParsedDoc {
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
        },
        &BuildOptions::default(),
    )
}

fn index_of(docs: &[(&str, &Tree)]) -> SectionIndex {
    let index = SectionIndex::create_in_ram().unwrap();
    let writer = index.writer(1).unwrap();
    for (id, t) in docs {
        let card = DocCard::new(id, "x", 1, "f", t);
        writer.replace(index.entries(&card, t, id)).unwrap();
    }
    writer.commit(7).unwrap();
    index.reload().unwrap();
    index
}

/// BM25 with k1 = 1.2, b = 0.75 and Lucene idf, computed by hand for one term.
fn bm25(tf: f32, dl: f32, avgdl: f32, n: f32, df: f32) -> f32 {
    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
    idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl))
}

#[test]
fn scores_are_bm25_with_title_terms_counted_three_times() {
    // Root "Doc" (3 title tokens), "Alpha" (3 title + 2 content), "Beta" (3 title + 4 content).
    let t = tree(&[
        (1, "Alpha", "kiwi mango"),
        (1, "Beta", "kiwi kiwi papaya guava"),
    ]);
    let index = index_of(&[("d", &t)]);
    let search = index.prepare("kiwi", Scope::All).unwrap();
    let hits = search.top(10).unwrap();
    assert_eq!(hits.len(), 2);
    let avgdl = (3.0 + 5.0 + 7.0) / 3.0;
    let beta = bm25(2.0, 7.0, avgdl, 3.0, 2.0);
    let alpha = bm25(1.0, 5.0, avgdl, 3.0, 2.0);
    assert!(
        (hits[0].score - beta).abs() < 1e-4,
        "{} vs {beta}",
        hits[0].score
    );
    assert!(
        (hits[1].score - alpha).abs() < 1e-4,
        "{} vs {alpha}",
        hits[1].score
    );
    // The title "Beta" counts three times: a title match outscores one in content.
    let hits = index
        .prepare("beta papaya", Scope::All)
        .unwrap()
        .top(1)
        .unwrap();
    let e = index
        .prepare("beta papaya", Scope::All)
        .unwrap()
        .explain(&hits[0])
        .unwrap();
    let tf: Vec<(String, f32)> = e.terms.iter().map(|t| (t.term.clone(), t.tf)).collect();
    assert_eq!(tf, vec![("beta".into(), 3.0), ("papaya".into(), 1.0)]);
    assert!((e.score - hits[0].score).abs() < 1e-4);
    assert_eq!((e.unit_count, e.unit_length), (3, 7.0));
}

#[test]
fn a_document_scope_uses_that_documents_statistics_and_filters_to_it() {
    let a = tree(&[(1, "Alpha", "kiwi mango"), (1, "Beta", "kiwi papaya")]);
    let b = tree(&[(1, "Gamma", "mango mango mango")]);
    let index = index_of(&[("a", &a), ("b", &b)]);
    let only = ["a".to_string()];
    let search = index.prepare("mango", Scope::Documents(&only)).unwrap();
    assert_eq!(search.unit_count(), 3);
    let hits = search.top(10).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].doc_id, "a");
    // N = 3 sections of `a`, df(mango) = 1 there, avgdl = (3 + 5 + 5) / 3.
    let want = bm25(1.0, 5.0, 13.0 / 3.0, 3.0, 1.0);
    assert!(
        (hits[0].score - want).abs() < 1e-4,
        "{} vs {want}",
        hits[0].score
    );
    let record = search.record(&hits[0]).unwrap();
    assert_eq!(
        (record.structure.as_str(), record.title.as_str()),
        ("1", "Alpha")
    );
    assert_eq!(record.ancestors, vec![0]);
}

/// A scope's hits are named by the scope (one document) or from their stored records (a few
/// more than asked for), without opening the `doc_id` column; a scope with many ties beyond
/// the limit reads the column instead. Either way, ties go in the scope's order.
#[test]
fn a_scope_names_its_hits_from_the_store_unless_many_tie() {
    let same: Vec<(u32, &str, &str)> = (0..40).map(|_| (1, "Kiwi", "kiwi mango")).collect();
    let t = tree(&same);
    let index = index_of(&[("a", &t), ("b", &t), ("c", &t)]);
    let named = |scope: &[&str], limit: usize| -> Vec<(String, u32)> {
        let scope: Vec<String> = scope.iter().map(|s| s.to_string()).collect();
        let search = index.prepare("kiwi", Scope::Documents(&scope)).unwrap();
        search
            .top(limit)
            .unwrap()
            .into_iter()
            .map(|h| (h.doc_id, h.rank))
            .collect()
    };
    assert_eq!(named(&["b"], 2), [("b".into(), 1), ("b".into(), 2)]);
    assert_eq!(index.columns.doc_id_columns_opened(), 0);
    // 80 ties for a limit of 60: from the store, in the scope's order.
    let got = named(&["b", "a"], 60);
    assert_eq!(got.len(), 60);
    assert_eq!((&got[39], &got[40]), (&("b".into(), 40), &("a".into(), 1)));
    assert_eq!(index.columns.doc_id_columns_opened(), 0);
    // 120 ties for a limit of 1: the column.
    assert_eq!(named(&["c", "a", "b"], 1), [("c".into(), 1)]);
    assert_eq!(index.columns.doc_id_columns_opened(), 1);
}

#[test]
fn compounds_of_adjacent_words_are_searched_when_the_scope_knows_them() {
    let t = tree(&[(
        1,
        "Threadpool usage",
        "libuv runs fs work in its threadpool",
    )]);
    let index = index_of(&[("d", &t)]);
    let search = index.prepare("thread pool size", Scope::All).unwrap();
    assert_eq!(search.terms(), ["thread", "threadpool", "pool", "size"]);
    assert_eq!(search.top(1).unwrap()[0].node.0, 1);
    let search = index.prepare("file name", Scope::All).unwrap();
    assert_eq!(search.terms(), ["file", "name"]);
}

#[test]
fn replacing_a_document_swaps_its_entries_and_commits_record_the_generation() {
    let v1 = tree(&[(1, "Old", "obsolete words")]);
    let index = index_of(&[("d", &v1)]);
    assert_eq!(index.generation().unwrap(), Some(7));
    let v2 = tree(&[(1, "New", "fresh words")]);
    let writer = index.writer(1).unwrap();
    let card = DocCard::new("d", "x", 1, "g", &v2);
    writer
        .replace(index.entries(&card, &v2, "build-2"))
        .unwrap();
    writer.commit(8).unwrap();
    index.reload().unwrap();
    assert_eq!(index.generation().unwrap(), Some(8));
    assert!(index
        .prepare("obsolete", Scope::All)
        .unwrap()
        .top(5)
        .unwrap()
        .is_empty());
    assert_eq!(
        index
            .prepare("fresh", Scope::All)
            .unwrap()
            .top(5)
            .unwrap()
            .len(),
        1
    );
    let docs = index.documents().unwrap();
    assert_eq!(docs.get("d").map(String::as_str), Some("build-2"));
    let writer = index.writer(1).unwrap();
    writer.delete("d");
    writer.commit(9).unwrap();
    index.reload().unwrap();
    assert!(index.documents().unwrap().is_empty());
    assert!(index
        .prepare("fresh", Scope::All)
        .unwrap()
        .top(5)
        .unwrap()
        .is_empty());
}

#[test]
fn snippets_show_the_passage_around_the_matched_terms() {
    let filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(8);
    let text = format!("{filler}Use -z/--search-zip to search compressed files. {filler}");
    let t = tree(&[(1, "Options", &text)]);
    let index = index_of(&[("d", &t)]);
    let search = index.prepare("search-zip compressed", Scope::All).unwrap();
    let snippet = search.snippet(&text, 120);
    assert!(snippet.starts_with("… "), "{snippet}");
    assert!(snippet.contains("--search-zip"), "{snippet}");
    assert!(snippet.chars().count() <= 122, "{snippet}");
    // No term in the text: its start.
    assert!(search
        .snippet("nothing here at all", 120)
        .starts_with("nothing here"));
}

#[test]
fn cards_are_ranked_on_their_own_statistics() {
    let a = tree(&[(1, "Logging", "docker daemon logging driver")]);
    let b = tree(&[(1, "Gardening", "roses and tulips")]);
    let index = index_of(&[("docker-logs", &a), ("garden", &b)]);
    let ranked = index.rank_cards("docker logging", 5).unwrap();
    assert_eq!(ranked.len(), 1);
    assert_eq!(ranked[0].0, "docker-logs");
}

#[test]
fn an_index_on_disk_reopens_and_refuses_a_damaged_meta_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index");
    {
        let index = SectionIndex::create(&path).unwrap();
        let t = tree(&[(1, "Alpha", "kiwi")]);
        let writer = index.writer(1).unwrap();
        let card = DocCard::new("d", "x", 1, "f", &t);
        writer.replace(index.entries(&card, &t, "b1")).unwrap();
        writer.commit(3).unwrap();
    }
    let index = SectionIndex::open(&path).unwrap();
    assert_eq!(index.generation().unwrap(), Some(3));
    assert_eq!(
        index
            .prepare("kiwi", Scope::All)
            .unwrap()
            .top(5)
            .unwrap()
            .len(),
        1
    );
    drop(index);
    let meta = path.join("meta.json");
    let bytes = std::fs::read(&meta).unwrap();
    std::fs::write(&meta, &bytes[..bytes.len() / 2]).unwrap();
    let err = SectionIndex::open(&path).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("search index `{}`", path.display())),
        "{err}"
    );
}

#[test]
fn a_cut_through_equal_scores_keeps_the_same_sections_whatever_the_indexing_order() {
    // Five copies of one document: every copy's "Alpha" scores the same. tantivy alone would
    // keep the first-added copies at a cut; the result must not depend on the add order (a
    // workspace indexes in parallel, a replay in catalog order).
    let t = tree(&[(1, "Alpha", "kiwi mango"), (1, "Beta", "papaya")]);
    let ids = ["c3", "c1", "c5", "c2", "c4"];
    let forward: Vec<(&str, &Tree)> = ids.iter().map(|id| (*id, &t)).collect();
    let backward: Vec<(&str, &Tree)> = ids.iter().rev().map(|id| (*id, &t)).collect();
    let top = |docs: &[(&str, &Tree)], limit: usize| -> Vec<String> {
        let index = index_of(docs);
        let search = index.prepare("kiwi", Scope::All).unwrap();
        search
            .top(limit)
            .unwrap()
            .into_iter()
            .map(|h| h.doc_id)
            .collect()
    };
    for limit in 1..=5 {
        let expected: Vec<String> = ["c1", "c2", "c3", "c4", "c5"][..limit]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(top(&forward, limit), expected, "limit {limit}");
        assert_eq!(top(&backward, limit), expected, "limit {limit}");
    }
    let cards = |docs: &[(&str, &Tree)]| -> Vec<String> {
        let index = index_of(docs);
        index
            .rank_cards("kiwi", 2)
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    };
    assert_eq!(cards(&forward), ["c1", "c2"]);
    assert_eq!(cards(&backward), ["c1", "c2"]);
}

/// Ties cut across several segments: each commit writes its own segment, and the hits of a tie
/// group are first cut per segment by the ordinal of their doc_id. The result is
/// the first `limit` in (score, doc_id, reading order) whatever the segments and the indexing
/// order, for sections and cards, in an index sorted by doc_id (whose searches stop a tie
/// group early in each segment and merge the segments by the ids in the stored records,
/// opening no `doc_id` column), in the same with records written before builder 13 (no ids:
/// the column names them), and in one that is not sorted, and the shared column cache follows
/// a reload.
#[test]
fn a_cut_through_equal_scores_across_segments_keeps_the_first_by_doc_id_then_reading_order() {
    // Two equal "kiwi" sections per document (reading order decides between them).
    let t = tree(&[(1, "Alpha", "kiwi mango"), (1, "Gamma", "kiwi mango")]);
    let ids = [
        "d07", "d02", "d09", "d01", "d05", "d03", "d08", "d04", "d06",
    ];
    // (sorted, records without doc ids)
    let segmented = |order: &[&str], per_commit: usize, (sorted, old): (bool, bool)| {
        let index = if sorted {
            SectionIndex::create_in_ram().unwrap()
        } else {
            SectionIndex::create_in_ram_unsorted()
        };
        for (n, chunk) in order.chunks(per_commit).enumerate() {
            let writer = index.writer(1).unwrap();
            for id in chunk {
                let card = DocCard::new(id, "x", 1, "f", &t);
                let mut entries = index.entries(&card, &t, id);
                if old {
                    entries = entries.into_builder_12_entries(index.fields);
                }
                writer.replace(entries).unwrap();
            }
            writer.commit(n as u64 + 1).unwrap();
            // Searched between commits: the cache must not serve the older segments' columns.
            index.reload().unwrap();
            let _ = index.prepare("kiwi", Scope::All).unwrap().top(3).unwrap();
        }
        index
    };
    let mut sorted = ids.to_vec();
    sorted.sort();
    let expected: Vec<(String, u32)> = sorted
        .iter()
        .flat_map(|id| [(id.to_string(), 0), (id.to_string(), 1)])
        .collect();
    let reversed: Vec<&str> = ids.iter().rev().copied().collect();
    let layouts = [(&ids[..], 2), (&reversed[..], 3), (&ids[..], 1)];
    let kinds = [(true, false), (true, true), (false, false)];
    for ((order, per_commit), kind) in layouts.into_iter().flat_map(|l| kinds.map(|k| (l, k))) {
        let (sorted, old) = kind;
        let index = segmented(order, per_commit, kind);
        assert!(index.reader.searcher().segment_readers().len() > 1);
        assert_eq!(
            super::search::sorted_by_doc_id(&index.reader.searcher()),
            sorted
        );
        let search = index.prepare("kiwi", Scope::All).unwrap();
        for limit in [1, 2, 3, 5, 8, 17, 18, 30] {
            let got: Vec<(String, u32)> = search
                .top(limit)
                .unwrap()
                .into_iter()
                .map(|h| (h.doc_id, h.rank))
                .collect();
            let ranks: Vec<u32> = got.iter().map(|g| g.1).collect();
            let first_rank = ranks.first().copied().unwrap_or(0);
            let want: Vec<(String, u32)> = expected
                .iter()
                .take(limit)
                .map(|(id, r)| (id.clone(), r + first_rank))
                .collect();
            assert_eq!(
                got, want,
                "limit {limit}, {per_commit} per commit, sorted {sorted}, old records {old}"
            );
        }
        // Sections of a sorted index with records are named from the store, never the column.
        let opened = index.columns.doc_id_columns_opened();
        if sorted && !old {
            assert_eq!(opened, 0, "{per_commit} per commit");
        } else {
            assert!(opened > 0, "{per_commit} per commit, sorted {sorted}");
        }
        // Cards are named from the column in every index, ties by id across segments.
        let cards: Vec<String> = index
            .rank_cards("kiwi", 4)
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(cards, ["d01", "d02", "d03", "d04"]);
        assert!(index.columns.doc_id_columns_opened() > 0);
    }
}

/// A sorted index's early stop in each segment (`top_with_whole_ties`) keeps what an unsorted
/// index keeps, when scores differ as well as tie: documents of five different scores, added in
/// a shuffled order over several commits, cut at every limit.
#[test]
fn a_sorted_index_cuts_mixed_scores_as_an_unsorted_one_does() {
    let ids: Vec<String> = (0..40).map(|i| format!("d{:02}", (i * 17) % 40)).collect();
    let fill = |index: &SectionIndex| {
        for (n, chunk) in ids.chunks(7).enumerate() {
            let writer = index.writer(1).unwrap();
            for id in chunk {
                let i: usize = id[1..].parse().unwrap();
                // Two sections: "kiwi" 1 to 5 times in the first, once in the second.
                let kiwis = vec!["kiwi"; 1 + (i * 7) % 5].join(" ");
                let t = tree(&[
                    (1, "Alpha", &format!("{kiwis} mango")),
                    (1, "Gamma", "kiwi papaya"),
                ]);
                let card = DocCard::new(id, "x", 1, "f", &t);
                writer.replace(index.entries(&card, &t, id)).unwrap();
            }
            writer.commit(n as u64 + 1).unwrap();
        }
        index.reload().unwrap();
    };
    let sorted = SectionIndex::create_in_ram().unwrap();
    let unsorted = SectionIndex::create_in_ram_unsorted();
    fill(&sorted);
    fill(&unsorted);
    let named = |index: &SectionIndex, limit: usize| -> Vec<(String, u32, f32)> {
        let search = index.prepare("kiwi", Scope::All).unwrap();
        search
            .top(limit)
            .unwrap()
            .into_iter()
            .map(|h| (h.doc_id, h.rank, h.score))
            .collect()
    };
    let all = named(&unsorted, 80);
    assert_eq!(all.len(), 80);
    for limit in 1..=80 {
        let got = named(&sorted, limit);
        assert_eq!(got, all[..limit], "limit {limit}");
        assert_eq!(named(&unsorted, limit), all[..limit], "limit {limit}");
    }
}

/// Records written before builder 12 have no node id or rank: they still decode, and a hit
/// then reads both from the columns; a new record carries them.
#[test]
fn a_record_without_node_and_rank_decodes_and_new_ones_carry_them() {
    let old = SectionRecord::decode(r#"{"s":"2.1","t":"Beta","a":[0,2],"l":[3,9]}"#).unwrap();
    assert_eq!((old.node, old.rank), (None, None));
    assert_eq!((old.structure.as_str(), old.lines), ("2.1", Some([3, 9])));
    let t = tree(&[(1, "Alpha", "kiwi"), (2, "Beta", "kiwi mango")]);
    let index = index_of(&[("d", &t)]);
    let search = index.prepare("mango", Scope::All).unwrap();
    let hit = search.top(1).unwrap().remove(0);
    let record = search.record(&hit).unwrap();
    assert_eq!(record.title, "Beta");
    assert_eq!(
        (record.node, record.rank),
        (Some(hit.node.0), Some(hit.rank))
    );
    assert_eq!(hit.rank, 2);
}

/// A bulk run merges the index into one segment when it finishes, keeping its generation,
/// its sorting and every answer; a small run does not, and a run that finds eight small
/// segments merges them as tantivy's log merge policy says.
#[test]
fn a_bulk_run_merges_the_segments_into_one_and_a_small_run_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index");
    // Each document: three sections with "kiwi" at equal scores (ties across documents).
    let t = tree(&[
        (1, "Alpha", "kiwi mango"),
        (1, "Beta", "kiwi papaya"),
        (1, "Gamma", "kiwi guava"),
        (1, "Delta", "mango"),
    ]);
    let index = SectionIndex::create(&path).unwrap();
    let run = |ids: &[&str], generation: u64| -> Committed {
        let writer = index.writer(1).unwrap();
        for id in ids {
            let card = DocCard::new(id, "x", 1, "f", &t);
            writer.replace(index.entries(&card, &t, "b1")).unwrap();
        }
        writer.commit(generation).unwrap()
    };
    let hits = |index: &SectionIndex| -> Vec<(String, u32, f32)> {
        index.reload().unwrap();
        let search = index.prepare("kiwi papaya", Scope::All).unwrap();
        let mut hits: Vec<_> = search
            .top(6)
            .unwrap()
            .into_iter()
            .map(|h| (h.doc_id, h.rank, h.score))
            .collect();
        hits.extend(
            index
                .rank_cards("kiwi", 3)
                .unwrap()
                .into_iter()
                .map(|(id, score)| (id, u32::MAX, score)),
        );
        hits
    };
    let first = run(&["d5", "d3", "d4"], 1);
    assert_eq!(first.entries_added, 3 * 6);
    assert!(first.bulk_merge().unwrap().is_none(), "one segment");
    assert_eq!(first.finish(None).unwrap(), None);
    // A second run of three documents, one of them replacing d3: half the index.
    let second = run(&["d2", "d3", "d1"], 2);
    assert_eq!(second.entries_added, 3 * 6);
    assert_eq!(index.segment_count().unwrap(), 2);
    let before = hits(&index);
    // Every copy's "Beta" ties: the first five by doc_id, across the segments.
    let firsts: Vec<&str> = before[..5].iter().map(|h| h.0.as_str()).collect();
    assert_eq!(firsts, ["d1", "d2", "d3", "d4", "d5"], "{before:?}");
    let plan = second.bulk_merge().unwrap().expect("a bulk run");
    assert_eq!((plan.segments(), plan.entries), (2, 5 * 6));
    let merged = second.finish(Some(&plan)).unwrap().expect("merged");
    assert_eq!((merged.segments_before, merged.segments_after), (2, 1));
    assert_eq!(index.segment_count().unwrap(), 1);
    assert_eq!(index.generation().unwrap(), Some(2));
    // The same hits in the same order; the scores now are those of an index that never held
    // d3's replaced entries (a deleted entry counts in tantivy's statistics until merged away).
    let fresh = hits(&index_of(&[
        ("d1", &t),
        ("d2", &t),
        ("d3", &t),
        ("d4", &t),
        ("d5", &t),
    ]));
    let names = |hits: &[(String, u32, f32)]| -> Vec<(String, u32)> {
        hits.iter().map(|h| (h.0.clone(), h.1)).collect()
    };
    assert_eq!(names(&fresh), names(&before));
    let reopened = SectionIndex::open_for_search(&path).unwrap();
    assert!(reopened.sorted_by_doc_id());
    assert_eq!(hits(&reopened), fresh);
    assert_eq!(hits(&index), fresh);
    // Runs of one document each (a sixth of the index, then less): no bulk merge, and their
    // segments stay until there are eight, which the log policy merges into one.
    assert!(!worth_merging(6, 6 * 6, 2));
    for (n, id) in ["e1", "e2", "e3", "e4", "e5", "e6", "e7"]
        .iter()
        .enumerate()
    {
        let small = run(&[id], 3 + n as u64);
        assert!(small.bulk_merge().unwrap().is_none(), "{id}");
        let merged = small.finish(None).unwrap();
        let segments = index.segment_count().unwrap();
        if n < 6 {
            assert_eq!((merged, segments), (None, n + 2), "{id}");
        } else {
            let merged = merged.expect("eight segments merged");
            assert_eq!((merged.segments_before, merged.segments_after), (8, 1));
            assert_eq!(segments, 1);
        }
    }
    // Seven more documents: other statistics, the same five first (the e's sort after).
    assert_eq!(names(&hits(&index))[..5], names(&fresh)[..5]);
    // Nor is any run over one segment a bulk run.
    assert!(!worth_merging(100, 100, 1));
}

#[test]
fn a_large_document_sits_in_one_segment_in_reading_order() {
    // 3,000 sections indexed by two threads: one indexing thread takes the document whole, so
    // the run leaves one segment (nothing to merge) and its tied sections in reading order.
    let sections: Vec<(String, String)> = (1..=3000)
        .map(|i| (format!("Heading {i}"), format!("kiwi {i}")))
        .collect();
    let t = tree(
        &sections
            .iter()
            .map(|(title, content)| (1, title.as_str(), content.as_str()))
            .collect::<Vec<_>>(),
    );
    let index = SectionIndex::create_in_ram().unwrap();
    let writer = index.writer(2).unwrap();
    let card = DocCard::new("big", "x", 1, "f", &t);
    writer.replace(index.entries(&card, &t, "big")).unwrap();
    let committed = writer.commit(1).unwrap();
    index.reload().unwrap();
    assert_eq!(index.segment_count().unwrap(), 1);
    assert!(committed.bulk_merge().unwrap().is_none());
    let search = index.prepare("kiwi", Scope::All).unwrap();
    let ranks: Vec<u32> = search.top(1500).unwrap().iter().map(|h| h.rank).collect();
    assert_eq!(ranks, (1..=1500).collect::<Vec<u32>>());
}

/// Each term's part of an explanation is the very score tantivy gives that term in that section
/// (its `Explanation`'s value, compared bit for bit), and the parts add up to the hit's score:
/// over long and short sections (field norms past 40 terms are approximate), in the whole index
/// and inside one document, with a compound term.
#[test]
fn explanations_repeat_tantivys_term_scores_to_the_bit() {
    let long = "kiwi ".repeat(7) + &"mango papaya ".repeat(40) + "thread pool threadpool";
    let a = tree(&[
        (1, "Kiwi Mango", "kiwi mango guava"),
        (1, "Pools", long.as_str()),
        (2, "Thread pool", "threadpool kiwi"),
    ]);
    let b = tree(&[(1, "Mango", "mango mango kiwi"), (1, "Other", "guava")]);
    let index = index_of(&[("a", &a), ("b", &b)]);
    let only = ["a".to_string()];
    for scope in [Scope::All, Scope::Documents(&only)] {
        for query in ["kiwi mango", "thread pool kiwi", "guava papaya mango"] {
            let search = index.prepare(query, scope).unwrap();
            let hits = search.top(10).unwrap();
            assert!(hits.len() >= 2, "{query}: {hits:?}");
            for hit in &hits {
                let e = search.explain(hit).unwrap();
                assert!(!e.terms.is_empty());
                let sum: f32 = e.terms.iter().map(|t| t.score).sum();
                assert!(
                    (sum - hit.score).abs() < 1e-4,
                    "{query}: {sum} vs {}",
                    hit.score
                );
                assert!((e.score - hit.score).abs() < 1e-4);
                let segment = search.searcher.segment_reader(hit.address.segment_ord);
                for t in &e.terms {
                    let query = tantivy::query::TermQuery::new(
                        tantivy::Term::from_field_text(search.fields.text, &t.term),
                        tantivy::schema::IndexRecordOption::WithFreqs,
                    );
                    let weight = tantivy::query::Query::weight(
                        &query,
                        tantivy::query::EnableScoring::enabled_from_statistics_provider(
                            &search.stats,
                            &search.searcher,
                        ),
                    )
                    .unwrap();
                    let theirs = weight.explain(segment, hit.address.doc_id).unwrap();
                    assert_eq!(t.score.to_bits(), theirs.value().to_bits(), "{t:?}");
                }
            }
        }
    }
}

/// A tree of `count` sections "Heading i" / "kiwi i".
fn kiwi_tree(count: usize) -> Tree {
    let sections: Vec<(String, String)> = (1..=count)
        .map(|i| (format!("Heading {i}"), format!("kiwi {i}")))
        .collect();
    tree(
        &sections
            .iter()
            .map(|(title, content)| (1, title.as_str(), content.as_str()))
            .collect::<Vec<_>>(),
    )
}

#[test]
fn a_streamed_document_is_indexed_as_a_built_one() {
    let big = kiwi_tree(STREAM_MIN_ENTRIES + 100);
    let small = kiwi_tree(3);
    let (big_card, small_card) = (
        DocCard::new("big", "x", 1, "f", &big),
        DocCard::new("small", "x", 1, "f", &small),
    );
    // Built, streamed to tantivy's indexing threads, streamed into a segment of its own.
    let index_with = |streamed: bool, own_segment: bool| {
        let index = SectionIndex::create_in_ram().unwrap();
        let writer = index.writer(2).unwrap();
        if own_segment {
            writer.plan_documents(1);
        }
        writer
            .replace(index.entries(&small_card, &small, "s1"))
            .unwrap();
        if streamed {
            let terms = NodeTerms::of(&big);
            let streamed = writer.stream_entries("big", &big, &terms).unwrap();
            let streamed = streamed.expect("a large tree");
            assert_eq!(streamed.in_own_segment(), own_segment);
            streamed.finish(&big_card, "b1");
        } else {
            writer
                .replace(index.entries(&big_card, &big, "b1"))
                .unwrap();
        }
        writer.commit(1).unwrap();
        index.reload().unwrap();
        index
    };
    let built = index_with(false, false);
    for streamed in [index_with(true, false), index_with(true, true)] {
        streamed_as_built(&built, &streamed);
    }
}

fn streamed_as_built(built: &SectionIndex, streamed: &SectionIndex) {
    assert_eq!(streamed.documents().unwrap(), built.documents().unwrap());
    let hits = |index: &SectionIndex, scope: Scope<'_>| {
        let search = index.prepare("kiwi heading 7", scope).unwrap();
        search
            .top(3000)
            .unwrap()
            .into_iter()
            .map(|h| (h.doc_id, h.rank, h.score.to_bits()))
            .collect::<Vec<_>>()
    };
    let big_only = ["big".to_string()];
    for scope in [Scope::All, Scope::Documents(&big_only)] {
        let expected = hits(built, scope);
        assert!(expected.len() > 2000);
        assert_eq!(hits(streamed, scope), expected);
    }
    // The big document sits in one segment in reading order, as a built one does.
    let search = streamed
        .prepare("kiwi", Scope::Documents(&big_only))
        .unwrap();
    let ranks: Vec<u32> = search.top(1500).unwrap().iter().map(|h| h.rank).collect();
    assert_eq!(ranks, (1..=1500).collect::<Vec<u32>>());
}

#[test]
fn a_streamed_document_deleted_or_left_unfinished_leaves_no_entry() {
    let big = kiwi_tree(STREAM_MIN_ENTRIES);
    let small = tree(&[(1, "Kiwi", "kiwi")]);
    let small_card = DocCard::new("small", "x", 1, "f", &small);
    // Streamed to tantivy's indexing thread, then into a segment of its own.
    for own_segment in [false, true] {
        let index = SectionIndex::create_in_ram().unwrap();
        let writer = index.writer(1).unwrap();
        writer
            .replace(index.entries(&small_card, &small, "s1"))
            .unwrap();
        writer.commit(1).unwrap();
        let writer = index.writer(1).unwrap();
        writer.plan_documents(if own_segment { 1 } else { 2 });
        let card = DocCard::new("big", "x", 1, "f", &big);
        let terms = NodeTerms::of(&big);
        let streamed = writer.stream_entries("big", &big, &terms).unwrap().unwrap();
        assert_eq!(streamed.in_own_segment(), own_segment);
        streamed.finish(&card, "b1");
        // What a failed tree-file write does.
        writer.delete("big");
        writer.commit(2).unwrap();
        // And a document whose card never came: its entries are deleted when dropped.
        let writer = index.writer(1).unwrap();
        writer.plan_documents(if own_segment { 1 } else { 2 });
        let other = kiwi_tree(STREAM_MIN_ENTRIES);
        let terms = NodeTerms::of(&other);
        let streamed = writer.stream_entries("other", &other, &terms).unwrap();
        assert_eq!(
            streamed.as_ref().map(|s| s.in_own_segment()),
            Some(own_segment)
        );
        drop(streamed);
        writer.commit(3).unwrap();
        index.reload().unwrap();
        let docs: Vec<String> = index.documents().unwrap().into_keys().collect();
        assert_eq!(docs, vec!["small".to_string()], "own segment {own_segment}");
        let search = index.prepare("kiwi", Scope::All).unwrap();
        let ids: Vec<String> = search
            .top(10)
            .unwrap()
            .into_iter()
            .map(|h| h.doc_id)
            .collect();
        assert_eq!(ids, vec!["small".to_string()], "own segment {own_segment}");
    }
    // A small tree is not streamed: nothing handed over.
    let index = SectionIndex::create_in_ram().unwrap();
    let writer = index.writer(1).unwrap();
    let terms = NodeTerms::of(&small);
    assert!(writer
        .stream_entries("small", &small, &terms)
        .unwrap()
        .is_none());
    writer.commit(1).unwrap();
    index.reload().unwrap();
    assert!(index.documents().unwrap().is_empty());
}

/// A streamed document of a one-document run is indexed into a segment of its own, written
/// without tantivy's sort (it is in `doc_id` order already): the index stays sorted, and a
/// merge of that segment with the next run's keeps every document's reading order and the
/// `doc_id` order between them.
#[test]
fn a_streamed_documents_own_segment_merges_in_doc_id_order() {
    let big = kiwi_tree(STREAM_MIN_ENTRIES + 10);
    let small = kiwi_tree(3);
    let index = SectionIndex::create_in_ram().unwrap();
    let writer = index.writer(1).unwrap();
    writer.plan_documents(1);
    let terms = NodeTerms::of(&big);
    let streamed = writer.stream_entries("m", &big, &terms).unwrap();
    let streamed = streamed.expect("a large tree");
    assert!(streamed.in_own_segment());
    streamed.finish(&DocCard::new("m", "x", 1, "f", &big), "m1");
    writer.commit(1).unwrap();
    let writer = index.writer(1).unwrap();
    writer.plan_documents(2);
    for id in ["a", "z"] {
        let card = DocCard::new(id, "x", 1, "f", &small);
        writer.replace(index.entries(&card, &small, id)).unwrap();
    }
    let committed = writer.commit(2).unwrap();
    index.reload().unwrap();
    assert!(index.sorted_by_doc_id());
    assert_eq!(index.segment_count().unwrap(), 2);
    let order = |index: &SectionIndex| -> Vec<(String, u32)> {
        // "kiwi" ties in every section of the same length: ties go by doc_id, then reading
        // order.
        let search = index.prepare("kiwi", Scope::All).unwrap();
        search
            .top(5000)
            .unwrap()
            .into_iter()
            .map(|h| (h.doc_id, h.rank))
            .collect()
    };
    let before = order(&index);
    let ranks_of = |hits: &[(String, u32)], id: &str| -> Vec<u32> {
        hits.iter().filter(|h| h.0 == id).map(|h| h.1).collect()
    };
    assert_eq!(
        ranks_of(&before, "m"),
        (1..=(STREAM_MIN_ENTRIES as u32 + 10)).collect::<Vec<_>>()
    );
    let plan = committed.full_merge().unwrap().expect("two segments");
    assert_eq!(plan.segments(), 2);
    let merged = committed.finish(Some(&plan)).unwrap().expect("merged");
    assert_eq!((merged.segments_before, merged.segments_after), (2, 1));
    index.reload().unwrap();
    let after = order(&index);
    assert_eq!(after, before);
    assert_eq!(ranks_of(&after, "a"), vec![1, 2, 3]);
}

/// An id whose old entries must be deleted gets no segment of its own, even in a run of one
/// document (tantivy would apply the queued delete to it): one this writer has deleted, and one
/// the index holds entries of (as an interrupted run leaves a document the catalog does not
/// name). Its entries go to tantivy's indexing thread after the delete, and replace the old
/// ones.
#[test]
fn a_document_with_entries_to_delete_is_streamed_after_the_delete() {
    let big = kiwi_tree(STREAM_MIN_ENTRIES);
    let card = DocCard::new("big", "x", 1, "f", &big);
    let terms = NodeTerms::of(&big);
    let index = SectionIndex::create_in_ram().unwrap();
    let count_big = |index: &SectionIndex| {
        index.reload().unwrap();
        let search = index
            .prepare("kiwi", Scope::Documents(&["big".to_string()]))
            .unwrap();
        search.top(3 * STREAM_MIN_ENTRIES).unwrap().len()
    };
    for (generation, deleted_first) in [(1, true), (2, false), (3, false)] {
        let writer = index.writer(1).unwrap();
        writer.plan_documents(1);
        if deleted_first {
            writer.delete("big");
        }
        let streamed = writer.stream_entries("big", &big, &terms).unwrap();
        let streamed = streamed.expect("a large tree");
        assert!(!streamed.in_own_segment(), "run {generation}");
        streamed.finish(&card, &format!("b{generation}"));
        writer.commit(generation).unwrap();
        assert_eq!(count_big(&index), STREAM_MIN_ENTRIES, "run {generation}");
    }
    assert_eq!(
        index.documents().unwrap().into_iter().collect::<Vec<_>>(),
        vec![("big".to_string(), "b3".to_string())]
    );
}

/// Since workspace format 9 a section entry carries no `kind` posting and no posting of the root as an
/// ancestor. A search counts sections (`N`) as the entries less the cards, and searches below
/// the root by `doc_id`: scores, hits and the descendants found are those of an index of
/// format 8's entries, and of one holding both. Below the root is the document without the
/// root's own entry, even when the root is the best match and the limit is one.
#[test]
fn sections_without_kind_and_root_ancestor_search_as_format_8_entries_do() {
    let d1 = tree_with_preamble(
        "kiwi kiwi kiwi kiwi kiwi",
        &[
            (1, "A", "kiwi one two three four five"),
            (2, "A1", "kiwi one two three four six"),
            (1, "B", "kiwi one two three four seven"),
            (1, "Other", "plum"),
        ],
    );
    let d2 = tree(&[(1, "C", "kiwi one two three four eight")]);
    // Which of the documents' entries are format 8's: none, all, d1's only.
    let index_with = |old: [bool; 2]| {
        let index = SectionIndex::create_in_ram().unwrap();
        let writer = index.writer(1).unwrap();
        for ((id, t), old) in [("d1", &d1), ("d2", &d2)].into_iter().zip(old) {
            let mut entries = index.entries(&DocCard::new(id, "x", 1, "f", t), t, id);
            if old {
                entries = entries.into_format_8_entries(index.fields);
            }
            writer.replace(entries).unwrap();
        }
        writer.commit(1).unwrap();
        index.reload().unwrap();
        index
    };
    let title = |id: NodeId| d1.node(id).title.clone();
    let below = |index: &SectionIndex, node: NodeId, limit: usize| -> Vec<(String, u32)> {
        let search = index.prepare("kiwi", Scope::All).unwrap();
        search
            .top_below("d1", node, limit)
            .unwrap()
            .into_iter()
            .map(|h| {
                assert_eq!(h.doc_id, "d1");
                (title(h.node), h.score.to_bits())
            })
            .collect()
    };
    let everything = |index: &SectionIndex| -> Vec<(String, u32, u32)> {
        let search = index.prepare("kiwi", Scope::All).unwrap();
        search
            .top(10)
            .unwrap()
            .into_iter()
            .map(|h| (h.doc_id, h.node.0, h.score.to_bits()))
            .collect()
    };
    let new = index_with([false, false]);
    // `N` over all documents is their sections: as the statistics of the two documents named.
    let both = ["d1".to_string(), "d2".to_string()];
    let named: Vec<(String, u32, u32)> = new
        .prepare("kiwi", Scope::Documents(&both))
        .unwrap()
        .top(10)
        .unwrap()
        .into_iter()
        .map(|h| (h.doc_id, h.node.0, h.score.to_bits()))
        .collect();
    assert_eq!(everything(&new), named);
    // The root's text matches best, yet is not below itself.
    assert_eq!(everything(&new)[0].1, 0, "{:?}", everything(&new));
    let a = d1.nodes.iter().position(|n| n.title == "A").unwrap();
    let a = NodeId(u32::try_from(a).unwrap());
    let names = |hits: Vec<(String, u32)>| hits.into_iter().map(|h| h.0).collect::<Vec<_>>();
    let mut found = names(below(&new, NodeId::ROOT, 10));
    found.sort();
    assert_eq!(found, ["A", "A1", "B"]);
    assert_eq!(below(&new, NodeId::ROOT, 1).len(), 1);
    assert_ne!(names(below(&new, NodeId::ROOT, 1))[0], "Doc");
    assert_eq!(names(below(&new, a, 10)), ["A1"]);
    for old in [[true, true], [true, false]] {
        let old_index = index_with(old);
        assert_eq!(everything(&old_index), everything(&new), "{old:?}");
        for (node, limit) in [(NodeId::ROOT, 10), (NodeId::ROOT, 1), (a, 10)] {
            assert_eq!(
                below(&old_index, node, limit),
                below(&new, node, limit),
                "{old:?}"
            );
        }
    }
}
