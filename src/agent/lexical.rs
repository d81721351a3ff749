//! The lexical navigator (`docnav ask --lexical`): no model, BM25 only. A baseline for `docnav
//! eval` and an explicit choice of the user — the agent never falls back to it.
//!
//! Every section (node) of the candidate documents is ranked with BM25 over the documents'
//! [`KeywordIndex`]es taken together (shared corpus statistics, so scores compare across
//! documents). A node is scored on its **own** title and content only (title terms weighted up by
//! the index), never on its descendants' text, so a big parent cannot outrank the exact section
//! through its children. Hits are then deduplicated along ancestor/descendant lines (both can
//! never be returned, since the ancestor's evidence text already contains the descendant's; the
//! better-scored one is kept, unless the descendant scores at least
//! [`DESCENDANT_REPLACES_AT`] of its ancestor, when the more specific section wins) and the top
//! `k` are returned as [`Evidence`].

use std::sync::Arc;
use std::time::Instant;

use super::evidence::{Answer, AskStats, Evidence, ScoreExplain};
use crate::index::keyword::SharedStats;
use crate::index::KeywordIndex;
use crate::tree::NodeId;
use crate::workspace::{Document, Library, WorkspaceError};

/// Evidence returned when the caller does not say (`-k`).
pub const DEFAULT_K: usize = 5;

/// Failures of the lexical navigator.
#[derive(Debug, thiserror::Error)]
pub enum LexicalError {
    /// A requested document does not exist, or a tree file could not be loaded.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
}

/// A ranked node of one document.
#[derive(Debug, Clone, Copy)]
struct Hit {
    doc: usize,
    node: NodeId,
    score: f32,
}

/// Answer `question` from `library` without a model.
///
/// - `doc_ids`: `Some(ids)` restricts the search to these documents (in this order for ties),
///   `None` searches every document of the library (catalog order).
/// - `k`: at most this many evidence items (0 returns none).
///
/// Returns an [`Answer`] whose evidence is best first, deduplicated along ancestor/descendant
/// lines, each with its BM25 score, the terms of that score (`explain`, against the statistics of
/// all searched documents together) and verbatim text; `stats` has `llm_calls = 0`, `rounds = 0`,
/// no workers and the wall time in ms. A question without index terms returns no evidence.
///
/// Errors: [`LexicalError::Workspace`] for an unknown id in `doc_ids` or an unreadable tree
/// file.
pub fn ask_lexical(
    library: &dyn Library,
    question: &str,
    doc_ids: Option<&[String]>,
    k: usize,
) -> Result<Answer, LexicalError> {
    let start = Instant::now();
    let ids: Vec<String> = match doc_ids {
        Some(ids) => ids.to_vec(),
        None => library.cards().iter().map(|c| c.doc_id.clone()).collect(),
    };
    let docs: Vec<Arc<Document>> = ids
        .iter()
        .map(|id| library.document(id))
        .collect::<Result<_, _>>()?;
    let hits = rank(&ids, &docs, question);
    let kept = dedup(&docs, &hits, k);
    // The statistics `search_many` scored with, so each explanation adds up to its score.
    let indexes: Vec<&KeywordIndex> = docs.iter().map(|d| &d.index).collect();
    let stats = SharedStats::new(&indexes);
    let evidence = kept
        .iter()
        .filter_map(|h| {
            let doc = &docs[h.doc];
            let mut e = Evidence::from_node(&ids[h.doc], &doc.tree, h.node, h.score)?;
            e.explain = Some(ScoreExplain::from(
                &doc.index.explain_with(&stats, question, h.node),
            ));
            Some(e)
        })
        .collect();
    Ok(Answer {
        question: question.to_string(),
        evidence,
        stats: AskStats {
            wall_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
            ..AskStats::default()
        },
        verdict: None,
        worker_errors: Vec::new(),
    })
}

/// Every matching node of `docs`, best first (ties: document order, then reading order).
fn rank(ids: &[String], docs: &[Arc<Document>], question: &str) -> Vec<Hit> {
    let indexes: Vec<(&str, &KeywordIndex)> = ids
        .iter()
        .zip(docs)
        .map(|(id, d)| (id.as_str(), &d.index))
        .collect();
    let total: usize = docs.iter().map(|d| d.tree.len()).sum();
    crate::index::keyword::search_many(&indexes, question, total)
        .into_iter()
        .filter_map(|(name, hit)| {
            let doc = ids.iter().position(|id| id == name)?;
            Some(Hit {
                doc,
                node: hit.node,
                score: hit.score,
            })
        })
        .collect()
}

/// A descendant replaces a kept ancestor when it scores at least this fraction of the ancestor's
/// score. The ancestor's evidence text contains the descendant's, so the deeper section is the
/// more exact answer unless it matched much worse; on `fixtures/qa.jsonl` any value from 0.3 to
/// 0.7 gives the same hits (0.5 chosen as the middle), and without the rule a specific
/// subsection under a parent whose own text matched better was lost entirely.
pub const DESCENDANT_REPLACES_AT: f32 = 0.5;

/// The first `k` hits (already best first) such that no kept hit is an ancestor or descendant of
/// another in the same document. A later hit that is a descendant of a kept one and scores at
/// least [`DESCENDANT_REPLACES_AT`] × its score takes that hit's place (rank and slot), with its
/// own score; a later ancestor of a kept hit is dropped.
fn dedup(docs: &[Arc<Document>], hits: &[Hit], k: usize) -> Vec<Hit> {
    let mut kept: Vec<Hit> = Vec::with_capacity(k);
    for hit in hits {
        let full = kept.len() >= k;
        if full
            && kept
                .iter()
                .all(|h| hit.score < DESCENDANT_REPLACES_AT * h.score)
        {
            break;
        }
        let tree = &docs[hit.doc].tree;
        if tree.get(hit.node).is_none() {
            continue;
        }
        let ancestor = kept
            .iter()
            .position(|h| h.doc == hit.doc && tree.is_ancestor_or_self(h.node, hit.node));
        let descendant = kept
            .iter()
            .any(|h| h.doc == hit.doc && tree.is_ancestor_or_self(hit.node, h.node));
        match ancestor {
            Some(i)
                if kept[i].node != hit.node
                    && hit.score >= DESCENDANT_REPLACES_AT * kept[i].score =>
            {
                kept[i] = *hit;
            }
            Some(_) => {}
            None if !descendant && !full => kept.push(*hit),
            None => {}
        }
    }
    kept
}

#[cfg(test)]
#[path = "lexical_tests.rs"]
mod tests;
