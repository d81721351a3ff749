//! Rerank (DESIGN.md §6.6): dedup the raw evidence of all Workers, then rank it by BM25 against the
//! question plus the key concepts (Robertson & Zaragoza 2009; k1 = 1.2, b = 0.75, Lucene idf; the
//! statistics are those of the evidence set itself, see [`crate::index::bm25::Bm25Scorer`]).
//!
//! Dedup, in order: excerpts of the same node (read by one or several workers) that overlap or
//! touch are merged into their union, in the place of the first (disjoint excerpts of a node stay
//! separate: each is verbatim, with its own lines; the lines a Worker read by number stay marked
//! as [`Evidence::cited_lines`]); of an ancestor and its descendant
//! in one document, the better-scored is kept (ties keep the descendant, the more exact section);
//! near-identical texts (Jaccard similarity of their token sets ≥ 0.9) keep the better-scored one
//! (ties keep the one collected first). Survivors are ranked by score, ties in collection order,
//! each with its [`ScoreExplain`] (the `"explain"` of `ask --json`).

use std::collections::{HashMap, HashSet};

use super::evidence::{Evidence, ScoreExplain};
use super::worker::{CollectedEvidence, Excerpts};
use crate::index::bm25::{Bm25Explanation, Bm25Scorer};
use crate::index::tokenize;
use crate::workspace::Library;

/// Jaccard threshold above which two evidence texts count as the same passage.
pub const NEAR_DUPLICATE_JACCARD: f64 = 0.9;

/// One ranked evidence with the BM25 explanation of its score.
#[derive(Debug, Clone)]
pub struct RankedEvidence {
    /// The evidence as returned to the user.
    pub evidence: Evidence,
    /// Why it scored what it did.
    pub explanation: Option<Bm25Explanation>,
}

/// |A ∩ B| / |A ∪ B| of two token sets (1.0 for two empty sets).
fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// Dedup and rank `collected` evidence; `query` is the question plus key concepts.
pub fn rerank(
    library: &dyn Library,
    collected: Vec<CollectedEvidence>,
    query: &str,
) -> Vec<RankedEvidence> {
    // 1. Same node: overlapping or touching excerpts merge into their union.
    let mut texts_of: HashMap<(String, u32), String> = HashMap::new();
    let mut merged = Excerpts::default();
    for ev in collected {
        let key = (ev.doc_id.clone(), ev.node.0);
        if !texts_of.contains_key(&key) {
            let Ok(doc) = library.document(&ev.doc_id) else {
                continue;
            };
            if doc.tree.get(ev.node).is_none() {
                continue;
            }
            texts_of.insert(key.clone(), doc.tree.text_of(ev.node));
        }
        if let Some(full) = texts_of.get(&key) {
            merged.add(&ev.doc_id, ev.node, ev.chars.clone(), full, &ev.cited);
        }
    }
    let items: Vec<CollectedEvidence> = merged.items().to_vec();
    let texts: Vec<&str> = items.iter().map(|e| e.text.as_str()).collect();
    let scorer = Bm25Scorer::new(&texts);
    let scores: Vec<f32> = (0..items.len()).map(|i| scorer.score(i, query)).collect();

    // 2. Ancestor/descendant and 3. near-identical text.
    let token_sets: Vec<HashSet<String>> = items
        .iter()
        .map(|e| tokenize(&e.text).into_iter().collect())
        .collect();
    let mut dropped = vec![false; items.len()];
    for i in 0..items.len() {
        for j in (i + 1)..items.len() {
            if dropped[i] || dropped[j] {
                continue;
            }
            let (a, b) = (&items[i], &items[j]);
            // Two excerpts of one node are not related: each holds text the other lacks.
            let related = a.doc_id == b.doc_id
                && a.node != b.node
                && library.document(&a.doc_id).is_ok_and(|doc| {
                    doc.tree.is_ancestor_or_self(a.node, b.node)
                        || doc.tree.is_ancestor_or_self(b.node, a.node)
                });
            let same_text = jaccard(&token_sets[i], &token_sets[j]) >= NEAR_DUPLICATE_JACCARD;
            if related || same_text {
                // On a tie: of an ancestor and its descendant the descendant; otherwise the
                // earlier one.
                let a_deeper = library.document(&a.doc_id).is_ok_and(|doc| {
                    a.doc_id == b.doc_id
                        && doc.tree.node(a.node).depth > doc.tree.node(b.node).depth
                });
                let b_deeper = related
                    && library
                        .document(&a.doc_id)
                        .is_ok_and(|doc| doc.tree.node(b.node).depth > doc.tree.node(a.node).depth);
                let keep_i =
                    scores[i] > scores[j] || (scores[i] == scores[j] && (a_deeper || !b_deeper));
                if keep_i {
                    dropped[j] = true;
                } else {
                    dropped[i] = true;
                }
            }
        }
    }

    let mut ranked: Vec<(usize, RankedEvidence)> = Vec::new();
    for (i, ev) in items.iter().enumerate() {
        if dropped[i] {
            continue;
        }
        let Ok(doc) = library.document(&ev.doc_id) else {
            continue;
        };
        let Some(mut evidence) = Evidence::from_read(
            &ev.doc_id,
            &doc.tree,
            ev.node,
            &ev.chars,
            ev.text.clone(),
            scores[i],
        ) else {
            continue;
        };
        // A table header line put above the part read shifts its lines down.
        let above = evidence
            .text
            .strip_suffix(ev.text.as_str())
            .map_or(0, |head| head.matches('\n').count() as u32);
        evidence.cited_lines = ev
            .cited_lines()
            .into_iter()
            .map(|[a, b]| [a + above, b + above])
            .collect();
        let explanation = scorer.explain(i, query);
        evidence.explain = explanation.as_ref().map(ScoreExplain::from);
        ranked.push((
            i,
            RankedEvidence {
                evidence,
                explanation,
            },
        ));
    }
    ranked.sort_by(|(ia, a), (ib, b)| {
        b.evidence
            .score
            .partial_cmp(&a.evidence.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(ia.cmp(ib))
    });
    ranked.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
#[path = "rerank_tests.rs"]
mod tests;
