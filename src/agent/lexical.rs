//! The lexical navigator (`docnav ask --lexical`): no model, BM25 only. A baseline for `docnav
//! eval` and an explicit choice of the user — the agent never falls back to it.
//!
//! Every section (node) of the candidate documents is ranked with BM25 by the workspace's
//! section index ([`crate::index::SectionIndex`]; statistics of the searched documents taken
//! together, so scores compare across documents). A node is scored on its **own** title and
//! content only (title terms weighted up by the index), never on its descendants' text, so a big
//! parent cannot outrank the exact section through its children. Hits are then deduplicated
//! along ancestor/descendant lines (both can never be returned, since the ancestor's evidence
//! text already contains the descendant's; the better-scored one is kept, unless the descendant
//! scores at least [`DESCENDANT_REPLACES_AT`] of its ancestor, when the more specific section
//! wins) and the top `k` are returned as [`Evidence`]. Only the trees of those `k` sections are
//! loaded (for their text with subsections).

use std::time::Instant;

use super::evidence::{Answer, AskStats, Evidence, ScoreExplain};
use crate::index::{PreparedSearch, QueryStatistics, Scope, SectionHit, SectionIndexError};
use crate::workspace::{Library, WorkspaceError};

/// Evidence returned when the caller does not say (`-k`).
pub const DEFAULT_K: usize = 5;

/// Failures of the lexical navigator.
#[derive(Debug, thiserror::Error)]
pub enum LexicalError {
    /// A requested document does not exist, a tree file could not be loaded, or the search
    /// index is unusable.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
}

/// A ranked node with its ancestors and whether it is a leaf (from the index's stored record).
#[derive(Debug, Clone)]
struct Hit {
    hit: SectionHit,
    ancestors: Vec<u32>,
    /// `true` when the node has no children (`false` also when the record does not say: the
    /// records of older indexes lack the child count).
    leaf: bool,
    /// The slot it holds in the ranking: its own, or that of the ancestor it replaced.
    slot: Slot,
}

/// Where a kept hit sits in the ranking before `dedup` orders the kept hits by score: the
/// score and reading-order rank of the hit that first took the slot (an ancestor a descendant
/// replaced keeps its slot for it; the document is the hit's own). The first `k` slots of a
/// search over several indexes are the first `k` of their slots together, in the order score
/// (best first), scope order (`doc_id` for all documents), rank.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Slot {
    /// The BM25 score of the hit that took the slot.
    pub score: f32,
    /// Its position in its document's reading order (pre-order).
    pub rank: u32,
}

impl Hit {
    /// True when `self` is `other` or one of its ancestors.
    fn is_ancestor_or_self_of(&self, other: &Hit) -> bool {
        self.hit.doc_id == other.hit.doc_id
            && (self.hit.node == other.hit.node || other.ancestors.contains(&self.hit.node.0))
    }
}

/// Answer `question` from `library` without a model.
///
/// - `doc_ids`: `Some(ids)` restricts the search to these documents (in this order for ties;
///   statistics counted over them only), `None` searches every document of the library.
/// - `k`: at most this many evidence items (0 returns none).
///
/// Returns an [`Answer`] whose evidence is best first, deduplicated along ancestor/descendant
/// lines, each with its BM25 score, the terms of that score (`explain`, computed from the index's
/// term counts against the statistics of the searched documents, as the score is) and verbatim text; `stats` has
/// `llm_calls = 0`, `rounds = 0`, no workers and the wall time in ms. A question without index
/// terms returns no evidence.
///
/// Errors: [`LexicalError::Workspace`] for an unknown id in `doc_ids`, an unreadable tree file
/// or an unusable search index.
pub fn ask_lexical(
    library: &dyn Library,
    question: &str,
    doc_ids: Option<&[String]>,
    k: usize,
) -> Result<Answer, LexicalError> {
    let start = Instant::now();
    let (prepared, kept, search) = search_deduplicated(library, question, doc_ids, k, None)?;
    let mut evidence = Vec::with_capacity(kept.len());
    for h in kept {
        let doc = library.document(&h.hit.doc_id)?;
        let Some(mut e) = Evidence::from_node(&h.hit.doc_id, &doc.tree, h.hit.node, h.hit.score)
        else {
            continue;
        };
        e.explain = Some(ScoreExplain::from(
            &prepared.explain(&h.hit).map_err(&search)?,
        ));
        evidence.push(e);
    }
    Ok(Answer {
        question: question.to_string(),
        standalone_question: None,
        from_trace: None,
        evidence,
        stats: AskStats {
            wall_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
            ..AskStats::default()
        },
        answer: None,
        verdict: None,
        worker_errors: Vec::new(),
    })
}

/// A ranked section as the section index knows it (no tree loaded).
#[derive(Debug, Clone, PartialEq)]
pub struct RankedSection {
    /// Its document.
    pub doc_id: String,
    /// The node.
    pub node: crate::tree::NodeId,
    /// Its structure number (`""` for a document's root).
    pub structure: String,
    /// Its own title.
    pub title: String,
    /// BM25 score.
    pub score: f32,
    /// Its slot in the ranking (see [`Slot`]).
    pub slot: Slot,
}

/// The sections [`ask_lexical`] would return for `question`, best first, from the section
/// index alone: no tree is loaded (the Orchestrator's pre-rank reads 40 of them per question).
/// Arguments as [`ask_lexical`].
///
/// Errors: [`LexicalError::Workspace`] for an unknown id in `doc_ids` or an unusable index.
pub fn rank_sections(
    library: &dyn Library,
    question: &str,
    doc_ids: Option<&[String]>,
    k: usize,
) -> Result<Vec<RankedSection>, LexicalError> {
    rank_sections_given(library, question, doc_ids, k, None)
}

/// [`rank_sections`] scored with `stats` when given: the statistics of a whole corpus of which
/// `library` holds a part ([`crate::index::SectionIndex::prepare_given`]), so its sections score
/// as in one library holding all of it; `None` scores with the library's own.
///
/// Errors: as [`rank_sections`].
pub fn rank_sections_given(
    library: &dyn Library,
    question: &str,
    doc_ids: Option<&[String]>,
    k: usize,
    stats: Option<&QueryStatistics>,
) -> Result<Vec<RankedSection>, LexicalError> {
    let (prepared, kept, search) = search_deduplicated(library, question, doc_ids, k, stats)?;
    let mut out = Vec::new();
    for h in kept {
        let record = prepared.record(&h.hit).map_err(&search)?;
        out.push(RankedSection {
            doc_id: h.hit.doc_id,
            node: h.hit.node,
            structure: record.structure,
            title: record.title,
            score: h.hit.score,
            slot: h.slot,
        });
    }
    Ok(out)
}

/// `library`'s part of the statistics a search for `question` over `doc_ids` (all documents
/// when `None`; aliases name their documents, ids `library` does not hold count nothing) scores
/// with; the parts of several libraries merged ([`QueryStatistics::merged`]) are those of one
/// library holding all their documents, for [`rank_sections_given`].
///
/// Errors: [`LexicalError::Workspace`] for an unusable search index.
pub fn query_statistics(
    library: &dyn Library,
    question: &str,
    doc_ids: Option<&[String]>,
) -> Result<QueryStatistics, LexicalError> {
    let resolved: Option<Vec<String>> =
        doc_ids.map(|ids| ids.iter().filter_map(|id| library.resolve_id(id)).collect());
    let sections = library.sections()?;
    let scope = resolved.as_deref().map_or(Scope::All, Scope::Documents);
    Ok(sections
        .query_statistics(question, scope)
        .map_err(|e| WorkspaceError::Search {
            dir: sections.place().into(),
            reason: e.to_string(),
        })?)
}

/// The first `k` of `items`, ranked hits of several libraries (each holding whole documents,
/// each searched with the same merged statistics), as one library holding all their documents
/// ranks them: the first `k` slots in ranking order (slot score, best first; then `position` of
/// the document, then its `doc_id`, then the slot's rank), then ordered by the hits' own
/// `score`, ties kept in that order. `slot`, `doc_id` and `score` read an item's.
pub fn first_slots<T>(
    mut items: Vec<T>,
    k: usize,
    slot: impl Fn(&T) -> Slot,
    doc_id: impl Fn(&T) -> &str,
    score: impl Fn(&T) -> f32,
    position: impl Fn(&str) -> usize,
) -> Vec<T> {
    items.sort_by(|a, b| {
        let (sa, sb) = (slot(a), slot(b));
        sb.score
            .total_cmp(&sa.score)
            .then_with(|| position(doc_id(a)).cmp(&position(doc_id(b))))
            .then_with(|| doc_id(a).cmp(doc_id(b)))
            .then(sa.rank.cmp(&sb.rank))
    });
    items.truncate(k);
    items.sort_by(|a, b| score(b).total_cmp(&score(a)));
    items
}

/// The search of [`ask_lexical`] and [`rank_sections`]: `doc_ids` resolved against the library
/// (an alias to its document, [`super::resolve_doc_ids`]),
/// the prepared search, its first `k` deduplicated hits, and the mapping of a later index error
/// to the workspace error naming the index.
///
/// Errors: [`LexicalError::Workspace`] for an unknown id in `doc_ids` or an unusable index.
#[allow(clippy::type_complexity)]
fn search_deduplicated(
    library: &dyn Library,
    question: &str,
    doc_ids: Option<&[String]>,
    k: usize,
    given: Option<&QueryStatistics>,
) -> Result<
    (
        PreparedSearch,
        Vec<Hit>,
        impl Fn(SectionIndexError) -> WorkspaceError,
    ),
    LexicalError,
> {
    // Aliases name their documents: the scope is of document ids.
    let resolved = doc_ids
        .map(|ids| super::resolve_doc_ids(library, ids))
        .transpose()
        .map_err(WorkspaceError::NotFound)?;
    let doc_ids = resolved.as_deref();
    let sections = library.sections()?;
    let place = sections.place().to_string();
    let search = move |e: SectionIndexError| WorkspaceError::Search {
        dir: place.clone().into(),
        reason: e.to_string(),
    };
    let scope = doc_ids.map_or(Scope::All, Scope::Documents);
    let prepared = match given {
        Some(stats) => sections.prepare_given(question, scope, stats),
        None => sections.prepare(question, scope),
    }
    .map_err(&search)?;
    let kept = top_deduplicated(&prepared, k).map_err(&search)?;
    Ok((prepared, kept, search))
}

/// The first `k` deduplicated hits ([`dedup`]). The ranking is read in growing pages until
/// dedup can stop; once `k` hits are kept, only a kept hit's own descendants can still change
/// the result (taking its place), so those are looked up below each kept hit instead of reading
/// on down the ranking — in a large workspace thousands of sections can score within half of
/// the best ones.
fn top_deduplicated(prepared: &PreparedSearch, k: usize) -> Result<Vec<Hit>, SectionIndexError> {
    if k == 0 {
        return Ok(Vec::new());
    }
    let with_ancestors = |hit: SectionHit| -> Result<Hit, SectionIndexError> {
        let record = prepared.record(&hit)?;
        Ok(Hit {
            slot: Slot {
                score: hit.score,
                rank: hit.rank,
            },
            hit,
            ancestors: record.ancestors,
            leaf: record.children == Some(0),
        })
    };
    let mut limit = (k * 4).max(16);
    let mut hits: Vec<Hit> = Vec::new();
    loop {
        let ranked = prepared.top(limit)?;
        let exhausted = ranked.len() < limit;
        for hit in ranked.into_iter().skip(hits.len()) {
            hits.push(with_ancestors(hit)?);
        }
        let (kept, complete) = dedup(&hits, k);
        if complete || exhausted {
            return Ok(kept);
        }
        if kept.len() >= k {
            let mut pool = hits;
            // A leaf has no descendants to take its place, so only the others cost a lookup (a
            // filtered search of the whole index each).
            for h in kept.iter().filter(|h| !h.leaf) {
                for hit in prepared.top_below(&h.hit.doc_id, h.hit.node, DESCENDANTS_LOOKED_UP)? {
                    if !pool
                        .iter()
                        .any(|p| p.hit.doc_id == hit.doc_id && p.hit.node == hit.node)
                    {
                        pool.push(with_ancestors(hit)?);
                    }
                }
            }
            pool.sort_by(|a, b| prepared.compare(&a.hit, &b.hit));
            return Ok(dedup(&pool, k).0);
        }
        limit *= 4;
    }
}

/// Descendants of a kept hit that can take its place are looked up this many at a time (best
/// first; a replacement needs at least [`DESCENDANT_REPLACES_AT`] of the kept score).
const DESCENDANTS_LOOKED_UP: usize = 64;

/// A descendant replaces a kept ancestor when it scores at least this fraction of the ancestor's
/// score. The ancestor's evidence text contains the descendant's, so the deeper section is the
/// more exact answer unless it matched much worse; on `fixtures/qa.jsonl` any value from 0.3 to
/// 0.7 gives the same hits (0.5 chosen as the middle), and without the rule a specific
/// subsection under a parent whose own text matched better would be lost entirely.
pub const DESCENDANT_REPLACES_AT: f32 = 0.5;

/// The first `k` hits (already best first) such that no kept hit is an ancestor or descendant of
/// another in the same document, best first. A later hit that is a descendant of a kept one and
/// scores at least [`DESCENDANT_REPLACES_AT`] × its score takes that hit's slot among the `k`,
/// with its own score, and so its place in score order; a later ancestor of a kept hit is
/// dropped. The flag is true when the scan stopped because no later hit could change the result
/// (`k` kept and the next hit scores below [`DESCENDANT_REPLACES_AT`] × every kept score), false
/// when it ran out of hits.
///
/// The list is in score order whatever was replaced: every face shows these scores next to the
/// hits (the analyze prompt's section hits, `search` over MCP, HTTP and Python), and a
/// replacement left in its ancestor's rank read as 22.7, 17.7, 19.4 to the model.
fn dedup(hits: &[Hit], k: usize) -> (Vec<Hit>, bool) {
    let (mut kept, complete) = dedup_in_scan_order(hits, k);
    // Stable: hits of equal score keep the order of the ranking.
    kept.sort_by(|a, b| b.hit.score.total_cmp(&a.hit.score));
    (kept, complete)
}

/// [`dedup`] with each replacement left in the slot of the hit it replaced.
fn dedup_in_scan_order(hits: &[Hit], k: usize) -> (Vec<Hit>, bool) {
    let mut kept: Vec<Hit> = Vec::with_capacity(k);
    for hit in hits {
        let full = kept.len() >= k;
        if full
            && kept
                .iter()
                .all(|h| hit.hit.score < DESCENDANT_REPLACES_AT * h.hit.score)
        {
            return (kept, true);
        }
        let ancestor = kept.iter().position(|h| h.is_ancestor_or_self_of(hit));
        let descendant = kept.iter().any(|h| hit.is_ancestor_or_self_of(h));
        match ancestor {
            Some(i)
                if kept[i].hit.node != hit.hit.node
                    && hit.hit.score >= DESCENDANT_REPLACES_AT * kept[i].hit.score =>
            {
                kept[i] = Hit {
                    slot: kept[i].slot,
                    ..hit.clone()
                };
            }
            Some(_) => {}
            None if !descendant && !full => kept.push(hit.clone()),
            None => {}
        }
    }
    (kept, false)
}

#[cfg(test)]
#[path = "lexical_tests.rs"]
mod tests;
