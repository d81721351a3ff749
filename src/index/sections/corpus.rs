//! The corpus statistics of a query, so a corpus split over several indexes (shards, each an
//! ordinary workspace) is searched as one: each index reports its part
//! ([`SectionIndex::query_statistics`]), the parts are added up ([`QueryStatistics::merge`]),
//! and each index scores with the sum ([`SectionIndex::prepare_given`]), through tantivy's
//! `Bm25StatisticsProvider` — what Elasticsearch calls "DFS query then fetch" and Quickwit does
//! across its splits. BM25 (Robertson & Zaragoza 2009, eq. 3.15) reads only `N`, the mean length
//! and each term's document frequency from the corpus; the rest is the section's own, so a
//! section scores the same in its shard as in one index holding every document.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tantivy::Term;

use super::search::search_terms;
use super::stats::ScopeStats;
use super::{SectionIndex, SectionIndexError, KIND_CARD, MAX_QUERY_TERMS};
use crate::index::bm25::query_terms;
use crate::index::Scope;

/// What BM25 needs of a corpus for one query over sections. The one scored field of a section
/// search is `text` (the section's own terms, title terms counted
/// [`super::TITLE_WEIGHT`] times), so its mean length is `text_tokens / sections`.
///
/// Counts include entries deleted since the index's segments were last merged, as tantivy's
/// own statistics do (a freshly built index has none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryStatistics {
    /// Section entries in the scope (`N`).
    pub sections: u64,
    /// Terms of the `text` field over those sections.
    pub text_tokens: u64,
    /// Sections of the scope whose `text` holds each candidate term of the query (its words and
    /// the compounds of adjacent plain words, see [`SectionIndex::prepare`]), 0 included.
    pub doc_freqs: BTreeMap<String, u64>,
}

impl QueryStatistics {
    /// Add `other`'s counts to these (the statistics of the two corpora taken together).
    pub fn merge(&mut self, other: &QueryStatistics) {
        self.sections += other.sections;
        self.text_tokens += other.text_tokens;
        for (term, n) in &other.doc_freqs {
            *self.doc_freqs.entry(term.clone()).or_insert(0) += n;
        }
    }

    /// The sum of `parts` ([`QueryStatistics::merge`]); all zero for none.
    pub fn merged<'a>(parts: impl IntoIterator<Item = &'a QueryStatistics>) -> QueryStatistics {
        let mut out = QueryStatistics::default();
        for part in parts {
            out.merge(part);
        }
        out
    }
}

/// What BM25 over DocCard entries ([`SectionIndex::rank_cards`]) needs of a corpus for one
/// query: the card entries, the terms of their `card` field and each query term's document
/// frequency among them. Added up over shards as [`QueryStatistics`] is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardStatistics {
    /// Card entries (`N`; one per document).
    pub cards: u64,
    /// Terms of the `card` field over those entries.
    pub card_tokens: u64,
    /// Card entries whose `card` field holds each term of the query, 0 included.
    pub doc_freqs: BTreeMap<String, u64>,
}

impl CardStatistics {
    /// Add `other`'s counts to these (the statistics of the two corpora taken together).
    pub fn merge(&mut self, other: &CardStatistics) {
        self.cards += other.cards;
        self.card_tokens += other.card_tokens;
        for (term, n) in &other.doc_freqs {
            *self.doc_freqs.entry(term.clone()).or_insert(0) += n;
        }
    }
}

impl SectionIndex {
    /// This index's part of the statistics [`SectionIndex::rank_cards`] scores `query` with.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the index cannot be read.
    pub fn card_statistics(&self, query: &str) -> Result<CardStatistics, SectionIndexError> {
        let searcher = self.reader.searcher();
        let f = self.fields;
        let run = || -> tantivy::Result<CardStatistics> {
            let cards = searcher.doc_freq(&Term::from_field_text(f.kind, KIND_CARD))?;
            let stats = ScopeStats::whole(searcher.clone(), f.card, cards)?;
            let mut doc_freqs = BTreeMap::new();
            for term in query_terms(query).into_iter().take(MAX_QUERY_TERMS) {
                let n = searcher.doc_freq(&Term::from_field_text(f.card, &term))?;
                doc_freqs.insert(term, n);
            }
            Ok(CardStatistics {
                cards,
                card_tokens: stats.num_tokens(),
                doc_freqs,
            })
        };
        run().map_err(|e| self.error(e))
    }

    /// This index's part of the statistics of a search for `query` over the sections in
    /// `scope` (its documents among `Scope::Documents`' ids; an id it does not hold counts
    /// nothing): the numbers [`SectionIndex::prepare`] scores with.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the index cannot be read.
    pub fn query_statistics(
        &self,
        query: &str,
        scope: Scope,
    ) -> Result<QueryStatistics, SectionIndexError> {
        let searcher = self.reader.searcher();
        let f = self.fields;
        let run = || -> tantivy::Result<QueryStatistics> {
            let stats = match scope {
                Scope::All => ScopeStats::all_sections(searcher.clone(), f)?,
                Scope::Documents(ids) => ScopeStats::documents(searcher.clone(), f, ids)?,
            };
            let mut doc_freqs = BTreeMap::new();
            // Every compound is a candidate: whether it is searched depends on the whole
            // corpus's frequency, known only once the parts are merged.
            for term in search_terms(query, |_| 1) {
                let n = stats.scoped_doc_freq(&Term::from_field_text(f.text, &term))?;
                doc_freqs.insert(term, n);
            }
            Ok(QueryStatistics {
                sections: stats.num_docs(),
                text_tokens: stats.num_tokens(),
                doc_freqs,
            })
        };
        run().map_err(|e| self.error(e))
    }
}
