//! The pre-rank ([`super::cards::rank_explained`], what `docnav docs --for` explains) over a
//! corpus split into shards, each an ordinary library holding whole documents, in two rounds
//! of pure functions, so a cluster engine carries them between processes as JSON:
//!
//! 1. each shard's [`rank_statistics`] (its part of the section and card statistics of the
//!    question, its document count, the documents the question names in it), added up by
//!    [`merge_rank_statistics`];
//! 2. each shard's [`rank_shard`] with the merged statistics (its best sections and cards scored
//!    as in one library holding every shard's documents, its first ids in catalog order, the
//!    documents it holds that the question reaches through another shard's names), merged by
//!    [`merge_rankings`] into the [`RankedDocuments`] one library holding every document gives
//!    (same ids, order and scores), and [`explain_shards`] into `docs --for`'s cards.
//!
//! Scores agree to float rounding, not to the bit: BM25 adds a section's or card's term scores
//! in an order that depends on the index's segments, so two documents that score alike can
//! differ in the last bit of their f32 scores one way in one index and the other way over
//! shards, and trade places (as they can between two builds of one index).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::cards::{asked, assemble, slotted_section_hits, RankedDocuments, SectionHit};
use super::cards::{HIT_POOL, PRE_RANK_DOCS};
use super::routing::{self, explain_ranked, Named, RankedCard};
use crate::agent::lexical::{first_slots, Slot};
use crate::index::{CardStatistics, DocCard, QueryStatistics};
use crate::workspace::{Library, WorkspaceError};

/// A document a question names, as it crosses between shards ([`Named`] with its card).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedCard {
    /// Its card.
    pub card: DocCard,
    /// The name the question used.
    pub name: String,
    /// How well its period answers the question's (see [`Named::period_score`]).
    pub period_score: u8,
}

impl NamedCard {
    fn of(n: &Named) -> NamedCard {
        NamedCard {
            card: DocCard::clone(&n.card),
            name: n.name.clone(),
            period_score: n.period_score,
        }
    }

    fn named(&self) -> Named {
        Named {
            card: Arc::new(self.card.clone()),
            name: self.name.clone(),
            period_score: self.period_score,
        }
    }
}

/// What the pre-rank of one question needs of the whole corpus: one shard's part
/// ([`rank_statistics`]) or the sum of all parts ([`merge_rank_statistics`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankStatistics {
    /// Documents in the catalog.
    pub documents: u64,
    /// The section search's statistics ([`crate::agent::lexical::query_statistics`]).
    pub sections: QueryStatistics,
    /// The card ranking's statistics ([`crate::index::SectionIndex::card_statistics`]).
    pub cards: CardStatistics,
    /// The documents the question names by one of their own names or their file's name
    /// ([`routing::named_directly`]), in catalog order.
    pub named: Vec<NamedCard>,
}

/// One shard's part of the ranking, scored with the merged statistics ([`rank_shard`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ShardRanking {
    /// Its best 40 (`HIT_POOL`) sections, best first, each with its slot in the ranking.
    pub hits: Vec<SlottedSection>,
    /// Its best cards by BM25, best first, `(doc_id, score)`, at most as many as the whole
    /// corpus ranks.
    pub by_card: Vec<(String, f32)>,
    /// Its first document ids in catalog order, as many as the whole corpus ranks.
    pub catalog: Vec<String>,
    /// Its documents the question reaches through the entity of a document named by another
    /// of its names ([`routing::named_by_entity`]), in catalog order.
    pub named: Vec<NamedCard>,
    /// The cards of its documents that can be among the first `k` ranked (those of its first
    /// `k` section hits, card ranks and catalog ids), for [`explain_shards`].
    pub cards: Vec<DocCard>,
}

/// A section hit with its slot in its shard's ranking.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SlottedSection {
    /// Where it sits in the ranking before hits are ordered by score.
    pub slot: Slot,
    /// The hit.
    #[serde(flatten)]
    pub hit: SectionHit,
}

/// `library`'s part of the statistics the pre-rank of `question` needs.
///
/// Errors: [`WorkspaceError`] for an unusable section index or a failed catalog read.
pub fn rank_statistics(
    library: &dyn Library,
    question: &str,
) -> Result<RankStatistics, WorkspaceError> {
    let mut out: Result<RankStatistics, WorkspaceError> = Ok(RankStatistics::default());
    library.strict_reads(&mut || {
        out = (|| {
            let sections = library.sections()?;
            let search = |e: crate::index::SectionIndexError| WorkspaceError::Search {
                dir: sections.place().into(),
                reason: e.to_string(),
            };
            let named = routing::named_directly(library, &asked(question));
            Ok(RankStatistics {
                documents: library.document_count() as u64,
                sections: sections
                    .query_statistics(question, crate::index::Scope::All)
                    .map_err(search)?,
                cards: sections.card_statistics(question).map_err(search)?,
                named: named.iter().map(NamedCard::of).collect(),
            })
        })();
    })?;
    out
}

/// The sum of `parts` (each shard's [`rank_statistics`] for the same question): those of one
/// library holding every shard's documents, the named documents in catalog order.
pub fn merge_rank_statistics(parts: &[RankStatistics]) -> RankStatistics {
    let mut out = RankStatistics::default();
    for part in parts {
        out.documents += part.documents;
        out.sections.merge(&part.sections);
        out.cards.merge(&part.cards);
        out.named.extend(part.named.iter().cloned());
    }
    out.named.sort_by(|a, b| a.card.doc_id.cmp(&b.card.doc_id));
    out
}

/// Most documents the whole corpus ranks (see [`PRE_RANK_DOCS`]).
fn ranked_max(stats: &RankStatistics) -> usize {
    usize::try_from(stats.documents)
        .unwrap_or(usize::MAX)
        .min(PRE_RANK_DOCS)
}

/// `library`'s part of the ranking of `question`, scored with `stats` (the merged
/// [`rank_statistics`] of every shard), with the cards [`explain_shards`] needs for the first
/// `k` documents (0 for none: the Orchestrator's pre-rank).
///
/// Errors: [`WorkspaceError`] for an unusable section index or a failed catalog read.
pub fn rank_shard(
    library: &dyn Library,
    question: &str,
    stats: &RankStatistics,
    k: usize,
) -> Result<ShardRanking, WorkspaceError> {
    let mut out: Result<ShardRanking, WorkspaceError> = Ok(ShardRanking::default());
    library.strict_reads(&mut || out = rank_shard_reads(library, question, stats, k))?;
    out
}

fn rank_shard_reads(
    library: &dyn Library,
    question: &str,
    stats: &RankStatistics,
    k: usize,
) -> Result<ShardRanking, WorkspaceError> {
    let max = ranked_max(stats);
    let hits: Vec<SlottedSection> = slotted_section_hits(library, question, Some(&stats.sections))
        .map_err(|crate::agent::lexical::LexicalError::Workspace(e)| e)?
        .into_iter()
        .map(|(slot, hit)| SlottedSection { slot, hit })
        .collect();
    let sections = library.sections()?;
    let by_card = sections
        .rank_cards_given(question, max, &stats.cards)
        .map_err(|e| WorkspaceError::Search {
            dir: sections.place().into(),
            reason: e.to_string(),
        })?;
    let catalog: Vec<String> = library
        .cards_page(0, max)
        .iter()
        .map(|c| c.doc_id.clone())
        .collect();
    let asked = asked(question);
    let found: Vec<Named> = stats.named.iter().map(NamedCard::named).collect();
    let widen = routing::widening(&asked, &found);
    let ids: HashSet<String> = found.iter().map(|n| n.card.doc_id.clone()).collect();
    let named: Vec<NamedCard> = routing::named_by_entity(library, &asked, &widen, &ids)
        .iter()
        .map(NamedCard::of)
        .collect();
    let mut hit_docs: Vec<&str> = Vec::new();
    for h in &hits {
        if !hit_docs.contains(&h.hit.doc_id.as_str()) {
            hit_docs.push(&h.hit.doc_id);
        }
    }
    let mut wanted: Vec<&str> = Vec::new();
    let firsts = hit_docs
        .iter()
        .copied()
        .take(k)
        .chain(by_card.iter().take(k).map(|(id, _)| id.as_str()))
        .chain(catalog.iter().take(k).map(String::as_str));
    for id in firsts {
        if !wanted.contains(&id) {
            wanted.push(id);
        }
    }
    let cards = wanted
        .iter()
        .filter_map(|id| library.card(id))
        .map(|c| DocCard::clone(&c))
        .collect();
    Ok(ShardRanking {
        hits,
        by_card,
        catalog,
        named,
        cards,
    })
}

/// The ranking of `question` from every shard's [`rank_shard`] (all with `stats`, the merged
/// [`rank_statistics`]): what [`super::cards::rank_explained`] gives over one library holding
/// every shard's documents.
pub fn merge_rankings(stats: &RankStatistics, parts: &[ShardRanking]) -> RankedDocuments {
    let max = ranked_max(stats);
    let hits: Vec<SectionHit> = first_slots(
        parts.iter().flat_map(|p| p.hits.iter().cloned()).collect(),
        HIT_POOL,
        |h: &SlottedSection| h.slot,
        |h| h.hit.doc_id.as_str(),
        |h| h.hit.score,
        |_| 0,
    )
    .into_iter()
    .map(|h| h.hit)
    .collect();
    // Cards rank best first, ties by `doc_id` (as one index ranks them).
    let mut by_card: Vec<(String, f32)> = parts
        .iter()
        .flat_map(|p| p.by_card.iter().cloned())
        .collect();
    by_card.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    by_card.truncate(max);
    // Each shard's first `max` ids hold the corpus's first `max`.
    let mut catalog: Vec<String> = parts
        .iter()
        .flat_map(|p| p.catalog.iter().cloned())
        .collect();
    catalog.sort();
    catalog.dedup();
    catalog.truncate(max);
    let mut by_entity: Vec<&NamedCard> = parts.iter().flat_map(|p| &p.named).collect();
    by_entity.sort_by(|a, b| a.card.doc_id.cmp(&b.card.doc_id));
    let named: Vec<Named> = stats
        .named
        .iter()
        .chain(by_entity)
        .map(NamedCard::named)
        .collect();
    let total = usize::try_from(stats.documents).unwrap_or(usize::MAX);
    assemble(total, hits, by_card, named, |offset, limit| {
        catalog.iter().skip(offset).take(limit).cloned().collect()
    })
}

/// The first `k` documents of the merged ranking ([`merge_rankings`]) with why each ranks where
/// it does: what [`routing::explain`] (`docnav docs --for`) gives over one library holding every
/// shard's documents, the parts having been asked for at least `k` ([`rank_shard`]).
pub fn explain_shards(stats: &RankStatistics, parts: &[ShardRanking], k: usize) -> Vec<RankedCard> {
    let ranked = merge_rankings(stats, parts);
    let mut cards: HashMap<&str, Arc<DocCard>> = HashMap::new();
    for part in parts {
        for card in part.cards.iter().chain(part.named.iter().map(|n| &n.card)) {
            cards.insert(&card.doc_id, Arc::new(card.clone()));
        }
    }
    for n in &stats.named {
        cards.insert(&n.card.doc_id, Arc::new(n.card.clone()));
    }
    explain_ranked(&ranked, k, |id| cards.get(id).cloned())
}

#[cfg(test)]
#[path = "shards_tests.rs"]
mod tests;
