//! BM25 statistics of a search scope. At `/` (every document) they are the index's own; inside
//! chosen documents they are those documents' sections only — `N`, the mean length and each
//! term's document frequency counted over their live section entries — so a search inside one
//! document scores exactly the same whatever else the workspace holds (traces recorded in one
//! workspace replay in another). Statistics can also be given ([`ScopeStats::given`]): those of a
//! corpus spread over several indexes ([`super::QueryStatistics`]), so each scores as one index
//! holding all of it would.

use std::collections::BTreeMap;

use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Searcher, Term, TERMINATED};

use super::{CardStatistics, Fields, QueryStatistics, KIND_CARD};

/// Statistics for one field (`text` for sections) over a scope.
pub(super) struct ScopeStats {
    searcher: Searcher,
    field: Field,
    num_docs: u64,
    num_tokens: u64,
    /// Per segment, the sorted live section entries of the scope; `None` for the whole index.
    members: Option<Vec<Vec<DocId>>>,
    /// Given document frequencies of terms of `field` (by text), which replace the index's:
    /// [`ScopeStats::given`].
    given: Option<BTreeMap<String, u64>>,
}

impl ScopeStats {
    /// The whole index's statistics for sections (`N` = section entries, card entries left out).
    ///
    /// Every entry is a section or a card, and only cards carry a `kind` posting (sections of
    /// workspace format 8 and older carry one too), so `N` is the entries less the cards. Both counts
    /// include deleted entries until a merge drops them, as tantivy's document frequencies do.
    pub(super) fn all_sections(searcher: Searcher, f: Fields) -> tantivy::Result<ScopeStats> {
        let entries: u64 = searcher
            .segment_readers()
            .iter()
            .map(|segment| u64::from(segment.max_doc()))
            .sum();
        let cards = searcher.doc_freq(&Term::from_field_text(f.kind, KIND_CARD))?;
        ScopeStats::whole(searcher, f.text, entries.saturating_sub(cards))
    }

    /// The whole index's statistics for `field`, with `num_docs` entries of that kind.
    pub(super) fn whole(
        searcher: Searcher,
        field: Field,
        num_docs: u64,
    ) -> tantivy::Result<ScopeStats> {
        let mut num_tokens = 0;
        for segment in searcher.segment_readers() {
            num_tokens += segment.inverted_index(field)?.total_num_tokens();
        }
        Ok(ScopeStats {
            searcher,
            field,
            num_docs,
            num_tokens,
            members: None,
            given: None,
        })
    }

    /// The statistics in `stats` (a whole corpus's, of which this index may hold a part) for
    /// sections: `N`, the `text` field's tokens and each of its terms' document frequency as
    /// given; a `text` term `stats` does not list has frequency 0. Other fields keep the index's.
    pub(super) fn given(searcher: Searcher, f: Fields, stats: &QueryStatistics) -> ScopeStats {
        ScopeStats {
            searcher,
            field: f.text,
            num_docs: stats.sections,
            num_tokens: stats.text_tokens,
            members: None,
            given: Some(stats.doc_freqs.clone()),
        }
    }

    /// The statistics in `stats` (a whole corpus's cards, of which this index may hold a part)
    /// for the `card` field: `N` cards, their tokens and each term's document frequency as
    /// given; a `card` term `stats` does not list has frequency 0.
    pub(super) fn given_cards(searcher: Searcher, f: Fields, stats: &CardStatistics) -> ScopeStats {
        ScopeStats {
            searcher,
            field: f.card,
            num_docs: stats.cards,
            num_tokens: stats.card_tokens,
            members: None,
            given: Some(stats.doc_freqs.clone()),
        }
    }

    /// Terms of the scored field over the scope (title terms counted as often as they weigh).
    pub(super) fn num_tokens(&self) -> u64 {
        self.num_tokens
    }

    /// Statistics over the live section entries of `doc_ids`.
    pub(super) fn documents(
        searcher: Searcher,
        f: Fields,
        doc_ids: &[String],
    ) -> tantivy::Result<ScopeStats> {
        let mut members = Vec::with_capacity(searcher.segment_readers().len());
        let mut num_docs = 0u64;
        let mut num_tokens = 0u64;
        for segment in searcher.segment_readers() {
            let inverted = segment.inverted_index(f.doc_id)?;
            let mut docs: Vec<DocId> = Vec::new();
            for id in doc_ids {
                let term = Term::from_field_text(f.doc_id, id);
                let Some(mut postings) = inverted.read_postings(&term, IndexRecordOption::Basic)?
                else {
                    continue;
                };
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if !segment.is_deleted(doc) {
                        docs.push(doc);
                    }
                    doc = postings.advance();
                }
            }
            docs.sort_unstable();
            docs.dedup();
            // A document's entries are its sections and its card: the card is told apart by its
            // `kind` posting, sought in doc order, not by the `node` column: opening a column
            // reads its block index, work in proportion to the segment.
            let cards = segment.inverted_index(f.kind)?.read_postings(
                &Term::from_field_text(f.kind, KIND_CARD),
                IndexRecordOption::Basic,
            )?;
            if let Some(mut cards) = cards {
                docs.retain(|&doc| cards.doc() > doc || cards.seek(doc) != doc);
            }
            let norms = segment.get_fieldnorms_reader(f.text)?;
            num_tokens += docs
                .iter()
                .map(|&doc| u64::from(norms.fieldnorm(doc)))
                .sum::<u64>();
            num_docs += docs.len() as u64;
            members.push(docs);
        }
        Ok(ScopeStats {
            searcher,
            field: f.text,
            num_docs,
            num_tokens,
            members: Some(members),
            given: None,
        })
    }

    /// `N`: entries in the scope.
    pub(super) fn num_docs(&self) -> u64 {
        self.num_docs
    }

    /// Mean length of an entry's field, in (title-weighted) terms; 0 for an empty scope.
    pub(super) fn average_length(&self) -> f32 {
        if self.num_docs == 0 {
            0.0
        } else {
            (self.num_tokens as f64 / self.num_docs as f64) as f32
        }
    }

    /// Entries of the scope containing `term`.
    pub(super) fn scoped_doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        if let Some(given) = self.given.as_ref().filter(|_| term.field() == self.field) {
            let value = term.value();
            let text = value.as_str().unwrap_or_default();
            return Ok(given.get(text).copied().unwrap_or(0));
        }
        let Some(members) = &self.members else {
            return self.searcher.doc_freq(term);
        };
        let mut count = 0u64;
        for (segment, docs) in self.searcher.segment_readers().iter().zip(members) {
            if docs.is_empty() {
                continue;
            }
            let inverted = segment.inverted_index(term.field())?;
            let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::Basic)? else {
                continue;
            };
            for &doc in docs {
                if postings.doc() > doc {
                    continue;
                }
                if postings.seek(doc) == doc {
                    count += 1;
                }
                if postings.doc() == TERMINATED {
                    break;
                }
            }
        }
        Ok(count)
    }
}

impl Bm25StatisticsProvider for ScopeStats {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        if field == self.field {
            Ok(self.num_tokens)
        } else {
            self.searcher.total_num_tokens(field)
        }
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        // tantivy asserts df ≤ N; an empty scope still answers 1 so idf stays finite.
        Ok(self.num_docs.max(1))
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        Ok(self.scoped_doc_freq(term)?.min(self.num_docs.max(1)))
    }
}
