//! Searching the section index: BM25 over sections in a [`Scope`], their stored records, the
//! explanation of each score, and snippets around the matched terms.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use ordered_float::OrderedFloat;
use tantivy::columnar::{Column, StrColumn};
use tantivy::postings::Postings;
use tantivy::query::Bm25StatisticsProvider;
use tantivy::query::{BooleanQuery, ConstScoreQuery, EnableScoring, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DocAddress, DocSet, Searcher, SegmentReader, TantivyDocument, Term};

use super::record::{stored_entry, stored_record, SectionRecord};
use super::stats::ScopeStats;
use super::{
    CardStatistics, Fields, QueryStatistics, SectionIndex, SectionIndexError, KIND_CARD,
    MAX_QUERY_TERMS,
};
use crate::index::analyzer::DocnavTokenizer;
use crate::index::bm25::{
    indexed_idf, indexed_term_score, query_terms, Bm25Explanation, TermExplanation,
};
use crate::tree::NodeId;

/// Which documents a search covers.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    /// Every document of the index, with the whole index's statistics.
    All,
    /// These documents (by `doc_id`; ties are broken in this order), with statistics counted
    /// over their sections only.
    Documents(&'a [String]),
}

/// The best `limit` matches of `query`, plus every match that ties with the last of them, best
/// first (ties by address).
///
/// tantivy breaks ties in score by document address, which depends on the order documents were
/// added (parallel indexing) and on the segment layout, so a cut through a group of equal scores
/// would keep different members in two indexes of the same documents — a workspace and the
/// in-memory index a replay builds of the same trees (a replay diverged on exactly this: two
/// copies of one npm section scoring 20.52 each). The caller orders the whole group by its own
/// key and cuts there.
///
/// One pass over the segments with block-max WAND (`for_each_pruning`, Ding & Suel 2011): the
/// threshold is just below the `limit`-th best score seen so far, so blocks that cannot reach it
/// are skipped and matches tying with it still come through. The scores are `TopDocs`'s (the
/// same weight and statistics). One pass, not a `TopDocs` of `limit + 1` then every match at
/// least the tie: a cut inside a tie would then read the segments twice, and the best sections
/// of a corpus of near-copies tie in groups of thousands.
///
/// With `doc_ordered` (each segment holds its entries in the order ties are broken: by
/// `doc_id`, then reading order — see [`sorted_by_doc_id`]), a match is also dropped once
/// `limit` earlier matches of its own segment score at least as much: each of them comes before
/// it (a better score, or the same score and an earlier place). The threshold then rises to
/// the `limit`-th best score of the segment, so block-max WAND skips the blocks of a tie group
/// after its first `limit` members instead of visiting all of them (`bench/scale`'s 2,600
/// copies per section).
///
/// Errors: tantivy's, when a segment cannot be read.
fn top_with_whole_ties(
    searcher: &Searcher,
    query: &dyn Query,
    limit: usize,
    stats: &ScopeStats,
    doc_ordered: bool,
) -> tantivy::Result<Vec<(f32, DocAddress)>> {
    let limit = limit.max(1);
    let weight = query.weight(EnableScoring::enabled_from_statistics_provider(
        stats, searcher,
    ))?;
    // The `limit` best scores so far (a min-heap): once full, its least is the floor a match
    // must reach to be kept.
    let mut best: BinaryHeap<Reverse<OrderedFloat<f32>>> = BinaryHeap::with_capacity(limit + 1);
    let mut kept: Vec<(f32, DocAddress)> = Vec::new();
    // Matches that fell below the floor are dropped when `kept` doubles (amortized linear).
    let mut compact_at = 2 * limit;
    let floor = |best: &BinaryHeap<Reverse<OrderedFloat<f32>>>| {
        (best.len() >= limit)
            .then(|| best.peek().map(|s| s.0 .0))
            .flatten()
    };
    // `for_each_pruning` passes only scores above its threshold: just below the floor.
    let threshold = |best: &BinaryHeap<Reverse<OrderedFloat<f32>>>| {
        floor(best).map_or(f32::MIN, f32::next_down)
    };
    // The `limit` best scores of the current segment (used when `doc_ordered`).
    let mut segment_best: BinaryHeap<Reverse<OrderedFloat<f32>>> =
        BinaryHeap::with_capacity(limit + 1);
    for (ord, reader) in searcher.segment_readers().iter().enumerate() {
        let segment = u32::try_from(ord).unwrap_or(u32::MAX);
        let alive = reader.alive_bitset();
        segment_best.clear();
        weight.for_each_pruning(threshold(&best), reader, &mut |doc, score| {
            let dominated = doc_ordered && floor(&segment_best).is_some_and(|f| score <= f);
            if !dominated
                && alive.is_none_or(|a| a.is_alive(doc))
                && floor(&best).is_none_or(|f| score >= f)
            {
                kept.push((score, DocAddress::new(segment, doc)));
                for heap in [&mut best, &mut segment_best] {
                    heap.push(Reverse(OrderedFloat(score)));
                    if heap.len() > limit {
                        heap.pop();
                    }
                }
                if kept.len() >= compact_at {
                    if let Some(f) = floor(&best) {
                        kept.retain(|k| k.0 >= f);
                    }
                    compact_at = (2 * kept.len()).max(2 * limit);
                }
            }
            let segment_floor = if doc_ordered {
                floor(&segment_best).unwrap_or(f32::MIN)
            } else {
                f32::MIN
            };
            threshold(&best).max(segment_floor)
        })?;
    }
    if let Some(f) = floor(&best) {
        kept.retain(|k| k.0 >= f);
    }
    kept.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(kept)
}

/// `true` when the index keeps each segment's entries sorted by `doc_id` (tantivy's index
/// sorting, set by [`SectionIndex::create`]; an index made by an older docnav keeps them in
/// the order they were added). Entries of one `doc_id` keep the order they were added in, which
/// is reading order (the stable sort of tantivy's segment writer; a merge keeps a segment's
/// order).
pub(super) fn sorted_by_doc_id(searcher: &Searcher) -> bool {
    searcher
        .index()
        .settings()
        .sort_by_field
        .as_ref()
        .is_some_and(|s| s.field == super::DOC_ID_FIELD && s.order.is_asc())
}

/// How many hits of a search in a scope of several documents, beyond the `limit` asked for,
/// are named from their stored records rather than from the `doc_id` column (see
/// `PreparedSearch::first_in_scope_order`).
const SCOPE_NAMES_FROM_STORE: usize = 32;

/// A hit with its document's id and, when it was read to name the hit, its stored record.
struct NamedHit {
    score: f32,
    doc_id: String,
    address: DocAddress,
    record: Option<SectionRecord>,
}

/// How [`first_over_all_documents`] reads the document id of a hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameFrom {
    /// From its stored record, for hits whose record the caller needs anyway (sections); only
    /// for an index sorted by `doc_id` ([`sorted_by_doc_id`]).
    Records,
    /// From the `doc_id` column (any index).
    Column,
}

/// Of `top` (best first, with whole ties, over all documents), the first `limit` in the order
/// score (best first), `doc_id`, reading order, each named. [`NameFrom::Records`] (a sorted
/// index, see [`sorted_by_doc_id`]) names them from their stored records
/// ([`first_in_doc_order`]); [`NameFrom::Column`] cuts each segment's ties by the ordinals of the
/// `doc_id` column (in one segment they order as the ids do) and names the rest from it. One
/// document's hits keep their address order, which is their reading order (its entries sit in
/// one segment, added in pre-order; tantivy's sorting is stable and merges keep a segment's
/// order). Used for sections and DocCards alike.
///
/// Errors: tantivy's, when a stored document or a segment's `doc_id` column cannot be read.
fn first_over_all_documents(
    searcher: &Searcher,
    fields: Fields,
    columns: &ColumnCache,
    top: Vec<(f32, DocAddress)>,
    limit: usize,
    name_from: NameFrom,
) -> tantivy::Result<Vec<NamedHit>> {
    if name_from == NameFrom::Records {
        return first_in_doc_order(searcher, fields, columns, top, limit);
    }
    let top = columns.keep_first_per_segment(searcher, top, limit)?;
    let mut named = Vec::with_capacity(top.len());
    for (score, address) in top {
        let segment = columns.get(searcher, address.segment_ord)?;
        if let Some(doc_id) = segment.doc_id(address.doc_id)? {
            named.push(NamedHit {
                score,
                doc_id,
                address,
                record: None,
            });
        }
    }
    named.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.doc_id.cmp(&b.doc_id))
            .then(a.address.cmp(&b.address))
    });
    named.truncate(limit);
    Ok(named)
}

/// Of `top` (hits of an index sorted by `doc_id`, see [`sorted_by_doc_id`]), the first `limit`
/// in the order score (best first), `doc_id`, reading order, named from their stored records.
///
/// In a sorted segment that order is (score, address), so each segment's hits are ordered
/// without their names and only its first `limit` can count; the segments are then merged,
/// reading the name of a segment's next hit only when its previous one is taken: at most
/// `limit` + one per segment stored documents are read, most of them the hits returned (whose
/// records the caller needs anyway), and the `doc_id` column — whose opening decodes the block
/// index of the ordinals of every entry of a segment, work in proportion to the segment — is
/// opened only for entries of older indexes, whose records lack the id.
///
/// Errors: tantivy's, when a stored document or a segment's `doc_id` column cannot be read.
fn first_in_doc_order(
    searcher: &Searcher,
    fields: Fields,
    columns: &ColumnCache,
    top: Vec<(f32, DocAddress)>,
    limit: usize,
) -> tantivy::Result<Vec<NamedHit>> {
    let mut by_segment: BTreeMap<u32, Vec<(f32, DocAddress)>> = BTreeMap::new();
    for hit in top {
        by_segment.entry(hit.1.segment_ord).or_default().push(hit);
    }
    let mut queues: Vec<std::vec::IntoIter<(f32, DocAddress)>> = by_segment
        .into_values()
        .map(|mut hits| {
            hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            hits.truncate(limit);
            hits.into_iter()
        })
        .collect();
    // The next hit of a segment, named (hits whose document cannot be named are passed over,
    // as the column's path does).
    let next =
        |queue: &mut std::vec::IntoIter<(f32, DocAddress)>| -> tantivy::Result<Option<NamedHit>> {
            for (score, address) in queue.by_ref() {
                let doc: TantivyDocument = searcher.doc(address)?;
                let (doc_id, record) = stored_entry(&doc, fields);
                let doc_id = match doc_id {
                    Some(id) => Some(id),
                    None => columns
                        .get(searcher, address.segment_ord)?
                        .doc_id(address.doc_id)?,
                };
                if let Some(doc_id) = doc_id {
                    return Ok(Some(NamedHit {
                        score,
                        doc_id,
                        address,
                        record,
                    }));
                }
            }
            Ok(None)
        };
    let mut heads = Vec::with_capacity(queues.len());
    for queue in &mut queues {
        heads.push(next(queue)?);
    }
    let mut out = Vec::with_capacity(limit);
    while out.len() < limit {
        let best = heads
            .iter()
            .enumerate()
            .filter_map(|(i, head)| head.as_ref().map(|h| (i, h)))
            .min_by(|(_, a), (_, b)| {
                b.score
                    .total_cmp(&a.score)
                    .then_with(|| a.doc_id.cmp(&b.doc_id))
                    .then(a.address.cmp(&b.address))
            })
            .map(|(i, _)| i);
        let Some(i) = best else {
            break;
        };
        if let Some(hit) = heads[i].take() {
            out.push(hit);
        }
        heads[i] = next(&mut queues[i])?;
    }
    Ok(out)
}

/// One ranked section.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionHit {
    /// Its document.
    pub doc_id: String,
    /// The node in that document's tree.
    pub node: NodeId,
    /// Position in the document's reading order (pre-order).
    pub rank: u32,
    /// BM25 score (> 0).
    pub score: f32,
    /// Where the hit is in the index (for [`PreparedSearch::explain`]).
    pub(super) address: DocAddress,
    /// Its stored record, when the search read it (for [`PreparedSearch::record`]).
    record: Option<SectionRecord>,
}

/// A query ready to run: its terms, the scope's statistics and the searcher (a consistent view
/// of one commit).
pub struct PreparedSearch {
    pub(super) searcher: Searcher,
    pub(super) fields: Fields,
    pub(super) stats: ScopeStats,
    /// The search terms (tokenized query plus compounds), at most [`MAX_QUERY_TERMS`].
    terms: Vec<String>,
    query: Box<dyn Query>,
    /// The scope's documents in tie-break order (`None`: all, ties by `doc_id`).
    order: Option<Vec<String>>,
    place: String,
    columns: std::sync::Arc<ColumnCache>,
}

impl SectionIndex {
    /// Prepare a BM25 search for `query` over the sections in `scope`.
    ///
    /// Terms: the query tokenized like the text ([`fn@crate::index::tokenize`]), plus the
    /// **compound** of each pair of adjacent plain words when the scope knows it (`thread pool`
    /// also looks up `threadpool`, `file name` also `filename`); documents spell such words
    /// both ways and the tokenizer cannot split `threadpool`, so the query joins instead. Only
    /// compounds with a document frequency > 0 in the scope are added.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the index cannot be read.
    pub fn prepare(&self, query: &str, scope: Scope) -> Result<PreparedSearch, SectionIndexError> {
        self.prepare_with(query, scope, None)
    }

    /// [`SectionIndex::prepare`] scored with `stats`, the statistics of a whole corpus of which
    /// this index holds a part ([`QueryStatistics::merged`] from each part's
    /// [`SectionIndex::query_statistics`]): each section scores as in one index holding the
    /// whole corpus, and a compound is searched when the corpus knows it. `scope` still says
    /// which of this index's sections are searched.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the index cannot be read.
    pub fn prepare_given(
        &self,
        query: &str,
        scope: Scope,
        stats: &QueryStatistics,
    ) -> Result<PreparedSearch, SectionIndexError> {
        self.prepare_with(query, scope, Some(stats))
    }

    fn prepare_with(
        &self,
        query: &str,
        scope: Scope,
        given: Option<&QueryStatistics>,
    ) -> Result<PreparedSearch, SectionIndexError> {
        let searcher = self.reader.searcher();
        let f = self.fields;
        let stats = match (given, scope) {
            (Some(given), _) => Ok(ScopeStats::given(searcher.clone(), f, given)),
            (None, Scope::All) => ScopeStats::all_sections(searcher.clone(), f),
            (None, Scope::Documents(ids)) => ScopeStats::documents(searcher.clone(), f, ids),
        }
        .map_err(|e| self.error(e))?;
        let terms = search_terms(query, |t| {
            stats
                .scoped_doc_freq(&Term::from_field_text(f.text, t))
                .unwrap_or(0)
        });
        let terms: Vec<String> = terms.into_iter().take(MAX_QUERY_TERMS).collect();
        let query = match scope {
            Scope::All => terms_query(f, &terms),
            Scope::Documents(ids) => filtered_query(f, &terms, ids),
        };
        Ok(PreparedSearch {
            searcher,
            fields: f,
            stats,
            terms,
            query,
            order: match scope {
                Scope::All => None,
                Scope::Documents(ids) => Some(ids.to_vec()),
            },
            place: self.place.clone(),
            columns: self.columns.clone(),
        })
    }

    /// The `limit` DocCards best matching `query` (BM25 over id, title, outline, summary and
    /// top terms, with the statistics of the cards alone): `(doc_id, score)`, best first, ties
    /// by `doc_id`. Cards matching no term are not returned.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the index cannot be read.
    pub fn rank_cards(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<(String, f32)>, SectionIndexError> {
        self.rank_cards_with(query, limit, None)
    }

    /// [`SectionIndex::rank_cards`] scored with `stats`, the card statistics of a whole corpus
    /// of which this index holds a part (the sum of each part's
    /// [`SectionIndex::card_statistics`]): each card scores as in one index holding them all.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the index cannot be read.
    pub fn rank_cards_given(
        &self,
        query: &str,
        limit: usize,
        stats: &CardStatistics,
    ) -> Result<Vec<(String, f32)>, SectionIndexError> {
        self.rank_cards_with(query, limit, Some(stats))
    }

    fn rank_cards_with(
        &self,
        query: &str,
        limit: usize,
        given: Option<&CardStatistics>,
    ) -> Result<Vec<(String, f32)>, SectionIndexError> {
        let searcher = self.reader.searcher();
        let f = self.fields;
        let run = || -> tantivy::Result<Vec<(String, f32)>> {
            let stats = match given {
                Some(given) => ScopeStats::given_cards(searcher.clone(), f, given),
                None => {
                    let cards = searcher.doc_freq(&Term::from_field_text(f.kind, KIND_CARD))?;
                    ScopeStats::whole(searcher.clone(), f.card, cards)?
                }
            };
            let should: Vec<(Occur, Box<dyn Query>)> = query_terms(query)
                .iter()
                .take(MAX_QUERY_TERMS)
                .map(|t| {
                    let q: Box<dyn Query> = Box::new(TermQuery::new(
                        Term::from_field_text(f.card, t),
                        IndexRecordOption::WithFreqs,
                    ));
                    (Occur::Should, q)
                })
                .collect();
            let q = BooleanQuery::new(should);
            let doc_ordered = sorted_by_doc_id(&searcher);
            let top = top_with_whole_ties(&searcher, &q, limit.max(1), &stats, doc_ordered)?;
            // Cards are named from the `doc_id` column, not from their stored records: a card
            // needs only its id, and each card's record sits in a different store block, so
            // naming 200 cards from their records would decompress 200 blocks, which costs more
            // than the column's dictionary lookups (`docs --for` at 100,000 documents,
            // BENCHMARKS.md, "The agent").
            let named = first_over_all_documents(
                &searcher,
                f,
                &self.columns,
                top,
                limit,
                NameFrom::Column,
            )?;
            Ok(named
                .into_iter()
                .map(|hit| (hit.doc_id, hit.score))
                .collect())
        };
        run().map_err(|e| self.error(e))
    }
}

/// BM25 over `terms` in the `text` field: one optional clause per term.
fn terms_query(f: Fields, terms: &[String]) -> Box<dyn Query> {
    let should: Vec<(Occur, Box<dyn Query>)> = terms
        .iter()
        .map(|t| {
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(f.text, t),
                IndexRecordOption::WithFreqs,
            ));
            (Occur::Should, q)
        })
        .collect();
    Box::new(BooleanQuery::new(should))
}

/// [`terms_query`] restricted to the sections of `doc_ids` (the filter adds 0 to scores).
fn filtered_query(f: Fields, terms: &[String], doc_ids: &[String]) -> Box<dyn Query> {
    let docs: Vec<(Occur, Box<dyn Query>)> = doc_ids
        .iter()
        .map(|id| {
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(f.doc_id, id),
                IndexRecordOption::Basic,
            ));
            (Occur::Should, q)
        })
        .collect();
    let filter: Box<dyn Query> =
        Box::new(ConstScoreQuery::new(Box::new(BooleanQuery::new(docs)), 0.0));
    Box::new(BooleanQuery::new(vec![
        (Occur::Must, terms_query(f, terms)),
        (Occur::Must, filter),
    ]))
}

/// The fast-field columns of one segment a hit is read from. Opening a column reads its block
/// index (work in proportion to the segment's size), so it is done once per segment and search,
/// never once per hit. Each column is opened when first read, and only then: `doc_id` by the
/// cut through ties of an unsorted index, of a scope with its own order, or of entries of older
/// indexes whose records lack the id (a sorted index names hits from their stored records,
/// [`first_in_doc_order`]); `node` and `rank` come from the hits' stored records and are read
/// from their columns only for records that lack them (older indexes).
pub(super) struct SegmentColumns {
    reader: SegmentReader,
    node: OnceLock<Column<u64>>,
    rank: OnceLock<Column<u64>>,
    doc_id: OnceLock<Option<StrColumn>>,
}

/// The value of `cell`, opened by `open` when it has none yet.
fn opened<T>(cell: &OnceLock<T>, open: impl FnOnce() -> tantivy::Result<T>) -> tantivy::Result<&T> {
    if let Some(value) = cell.get() {
        return Ok(value);
    }
    let value = open()?;
    Ok(cell.get_or_init(|| value))
}

/// [`SegmentColumns`] by segment ordinal, opened on first use, for the searcher generation
/// last asked about (segment ordinals are those of one searcher; a reload starts anew). Shared
/// by the searches of one [`SectionIndex`]: one `ask` runs about seven, and opening a segment's
/// columns decodes their block index, work that must not repeat per search (the benchmark
/// history, docs/src/benchmarks-history.md, "100,000 documents, second pass").
#[derive(Default)]
pub(super) struct ColumnCache(Mutex<(u64, HashMap<u32, Arc<SegmentColumns>>)>);

impl ColumnCache {
    fn get(&self, searcher: &Searcher, segment_ord: u32) -> tantivy::Result<Arc<SegmentColumns>> {
        let generation = searcher.generation().generation_id();
        if let Some(c) = self.0.lock().ok().and_then(|cache| {
            (cache.0 == generation)
                .then(|| cache.1.get(&segment_ord).cloned())
                .flatten()
        }) {
            return Ok(c);
        }
        let columns = Arc::new(SegmentColumns {
            reader: searcher.segment_reader(segment_ord).clone(),
            node: OnceLock::new(),
            rank: OnceLock::new(),
            doc_id: OnceLock::new(),
        });
        if let Ok(mut cache) = self.0.lock() {
            if cache.0 != generation {
                *cache = (generation, HashMap::new());
            }
            cache.1.insert(segment_ord, columns.clone());
        }
        Ok(columns)
    }

    /// Of `hits` (best first), the first `limit` of each segment in the order score (best
    /// first), doc_id, reading order (with the sections of the last document that tie with it):
    /// a superset of the first `limit` in that order across segments, because in
    /// one segment the ordinals of doc_ids order as the ids do. Ties of thousands of equal
    /// sections (copies of one document) are cut here, before each hit's doc_id string is read
    /// from the column's dictionary. Returns `hits` as they are when at most `limit`.
    ///
    /// Errors: tantivy's, when a segment's columns cannot be opened.
    fn keep_first_per_segment(
        &self,
        searcher: &Searcher,
        hits: Vec<(f32, DocAddress)>,
        limit: usize,
    ) -> tantivy::Result<Vec<(f32, DocAddress)>> {
        if hits.len() <= limit {
            return Ok(hits);
        }
        let mut keyed: Vec<(u32, f32, u64, DocAddress)> = Vec::with_capacity(hits.len());
        for (score, address) in hits {
            let segment = self.get(searcher, address.segment_ord)?;
            let ord = segment
                .doc_ids()?
                .as_ref()
                .and_then(|ids| ids.term_ords(address.doc_id).next())
                .unwrap_or(u64::MAX);
            keyed.push((address.segment_ord, score, ord, address));
        }
        keyed.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
        // Per segment: the first `limit`, and the hits tying with the last of them on score and
        // document (their reading order is read later, by the caller's ordering).
        let mut out = Vec::new();
        let mut taken = 0;
        let mut last: Option<(u32, f32, u64)> = None;
        for (segment, score, ord, address) in keyed {
            let key = (segment, score, ord);
            let same_segment = last.is_some_and(|l| l.0 == segment);
            if !same_segment {
                taken = 0;
            }
            if taken < limit || (same_segment && last == Some(key)) {
                taken += 1;
                out.push((score, address));
                last = Some(key);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
impl ColumnCache {
    /// How many segments of the searcher generation last asked about have had their `doc_id`
    /// column opened.
    pub(super) fn doc_id_columns_opened(&self) -> usize {
        self.0.lock().map_or(0, |cache| {
            cache
                .1
                .values()
                .filter(|c| c.doc_id.get().is_some())
                .count()
        })
    }
}

impl SegmentColumns {
    fn doc_ids(&self) -> tantivy::Result<&Option<StrColumn>> {
        opened(&self.doc_id, || self.reader.fast_fields().str("doc_id"))
    }

    fn node(&self, doc: tantivy::DocId) -> tantivy::Result<Option<u64>> {
        let column = opened(&self.node, || self.reader.fast_fields().u64("node"))?;
        Ok(column.first(doc))
    }

    fn rank(&self, doc: tantivy::DocId) -> tantivy::Result<Option<u64>> {
        let column = opened(&self.rank, || self.reader.fast_fields().u64("rank"))?;
        Ok(column.first(doc))
    }

    fn doc_id(&self, doc: tantivy::DocId) -> tantivy::Result<Option<String>> {
        let Some(ids) = self.doc_ids()? else {
            return Ok(None);
        };
        let Some(ord) = ids.term_ords(doc).next() else {
            return Ok(None);
        };
        let mut out = String::new();
        ids.ord_to_str(ord, &mut out)?;
        Ok(Some(out))
    }
}

impl PreparedSearch {
    /// The search terms, in query order (compounds after their first word).
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Sections in the scope (`N` of the statistics).
    pub fn unit_count(&self) -> u64 {
        self.stats.num_docs()
    }

    /// The best `limit` sections, best first; ties in scope order (by `doc_id` for
    /// [`Scope::All`]), then reading order. Empty when no term matches.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the index cannot be read.
    pub fn top(&self, limit: usize) -> Result<Vec<SectionHit>, SectionIndexError> {
        self.run_top(self.query.as_ref(), limit)
    }

    /// The best `limit` sections below `node` (its descendants, not itself) in document
    /// `doc_id`, scored with this search's statistics (so scores compare with
    /// [`PreparedSearch::top`]'s), best first, ties in reading order.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the index cannot be read.
    pub fn top_below(
        &self,
        doc_id: &str,
        node: NodeId,
        limit: usize,
    ) -> Result<Vec<SectionHit>, SectionIndexError> {
        if node == NodeId::ROOT {
            // Below the root is the whole document but the root's own entry, which is at most
            // one hit: take one more and drop it (entries carry no root `ancestor` posting).
            let query = filtered_query(self.fields, &self.terms, &[doc_id.to_string()]);
            let mut hits = self.run_top(query.as_ref(), limit.saturating_add(1))?;
            hits.retain(|hit| hit.node != NodeId::ROOT);
            hits.truncate(limit);
            return Ok(hits);
        }
        let within: Box<dyn Query> = Box::new(ConstScoreQuery::new(
            Box::new(TermQuery::new(
                Term::from_field_u64(self.fields.ancestor, u64::from(node.0)),
                IndexRecordOption::Basic,
            )),
            0.0,
        ));
        let query = BooleanQuery::new(vec![
            (
                Occur::Must,
                filtered_query(self.fields, &self.terms, &[doc_id.to_string()]),
            ),
            (Occur::Must, within),
        ]);
        self.run_top(&query, limit)
    }

    /// The order of [`PreparedSearch::top`]: score descending, then scope order (`doc_id` for
    /// [`Scope::All`]), then reading order.
    pub fn compare(&self, a: &SectionHit, b: &SectionHit) -> std::cmp::Ordering {
        self.compare_before_rank((a.score, &a.doc_id), (b.score, &b.doc_id))
            .then_with(|| a.rank.cmp(&b.rank))
    }

    /// [`PreparedSearch::compare`] on score and document only.
    fn compare_before_rank(&self, a: (f32, &str), b: (f32, &str)) -> std::cmp::Ordering {
        let position = |id: &str| -> usize {
            self.order
                .as_ref()
                .and_then(|o| o.iter().position(|x| x == id))
                .unwrap_or(0)
        };
        b.0.total_cmp(&a.0)
            .then_with(|| position(a.1).cmp(&position(b.1)))
            .then_with(|| a.1.cmp(b.1))
    }

    fn run_top(
        &self,
        query: &dyn Query,
        limit: usize,
    ) -> Result<Vec<SectionHit>, SectionIndexError> {
        if self.terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let run = || -> tantivy::Result<Vec<SectionHit>> {
            // Over all documents ties go by doc_id, the order of a sorted index's segments.
            let doc_ordered = self.order.is_none() && sorted_by_doc_id(&self.searcher);
            let top = top_with_whole_ties(&self.searcher, query, limit, &self.stats, doc_ordered)?;
            let named = match &self.order {
                None => first_over_all_documents(
                    &self.searcher,
                    self.fields,
                    &self.columns,
                    top,
                    limit,
                    if doc_ordered {
                        NameFrom::Records
                    } else {
                        NameFrom::Column
                    },
                )?,
                Some(order) => self.first_in_scope_order(order, top, limit)?,
            };
            let mut hits = Vec::with_capacity(named.len());
            for hit in named {
                // Node and rank from the stored record (read for each hit anyway, to name it):
                // opening the `node` and `rank` columns of a large segment costs more than
                // the hits it serves (the benchmark history, docs/src/benchmarks-history.md,
                // "Sorted segments and node ids in the records").
                let record = match hit.record {
                    Some(record) => Some(record),
                    None => {
                        let doc: TantivyDocument = self.searcher.doc(hit.address)?;
                        stored_record(&doc, self.fields)
                    }
                };
                let from_record = record.as_ref().and_then(|r| r.node.zip(r.rank));
                let (node, rank) = match from_record {
                    Some((node, rank)) => (u64::from(node), u64::from(rank)),
                    None => {
                        let segment = self.columns.get(&self.searcher, hit.address.segment_ord)?;
                        let (Some(node), Some(rank)) = (
                            segment.node(hit.address.doc_id)?,
                            segment.rank(hit.address.doc_id)?,
                        ) else {
                            continue;
                        };
                        (node, rank)
                    }
                };
                hits.push(SectionHit {
                    doc_id: hit.doc_id,
                    node: NodeId(u32::try_from(node).unwrap_or(u32::MAX)),
                    rank: u32::try_from(rank).unwrap_or(u32::MAX),
                    score: hit.score,
                    address: hit.address,
                    record,
                });
            }
            hits.sort_by(|a, b| self.compare(a, b));
            hits.truncate(limit);
            Ok(hits)
        };
        run().map_err(|e| self.error(e))
    }

    /// The first `limit` of `top` (best first, with whole ties) in the order score (best
    /// first), position in `order` (the scope's documents), reading order (a document's hits
    /// keep their address order, as in [`first_over_all_documents`]).
    ///
    /// Each hit is named by the scope when it has one document (a worker's searches); from its
    /// stored record when the scope's hits are at most [`SCOPE_NAMES_FROM_STORE`] more than
    /// `limit` (the records of the hits kept are read anyway; opening the `doc_id` column of a
    /// large segment costs more than a few dozen reads); otherwise, and for records that lack
    /// the id (older indexes), from the `doc_id` column.
    ///
    /// Errors: tantivy's, when a stored document or a segment's `doc_id` column cannot be read.
    fn first_in_scope_order(
        &self,
        order: &[String],
        top: Vec<(f32, DocAddress)>,
        limit: usize,
    ) -> tantivy::Result<Vec<NamedHit>> {
        let only = match order {
            [only] => Some(only),
            _ => None,
        };
        let from_store = top.len() <= limit + SCOPE_NAMES_FROM_STORE;
        let mut named = Vec::with_capacity(top.len());
        for (score, address) in top {
            let (mut doc_id, mut record) = (only.cloned(), None);
            if doc_id.is_none() && from_store {
                let doc: TantivyDocument = self.searcher.doc(address)?;
                (doc_id, record) = stored_entry(&doc, self.fields);
            }
            if doc_id.is_none() {
                doc_id = self
                    .columns
                    .get(&self.searcher, address.segment_ord)?
                    .doc_id(address.doc_id)?;
            }
            if let Some(doc_id) = doc_id {
                named.push(NamedHit {
                    score,
                    doc_id,
                    address,
                    record,
                });
            }
        }
        named.sort_by(|a, b| {
            self.compare_before_rank((a.score, &a.doc_id), (b.score, &b.doc_id))
                .then_with(|| a.address.cmp(&b.address))
        });
        named.truncate(limit);
        Ok(named)
    }

    /// The stored record of `hit` (title, structure, ancestors, location, own text).
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the stored fields cannot be read; a record
    /// that does not decode is reported the same way (the index is damaged).
    pub fn record(&self, hit: &SectionHit) -> Result<SectionRecord, SectionIndexError> {
        if let Some(record) = &hit.record {
            return Ok(record.clone());
        }
        let doc: TantivyDocument = self.searcher.doc(hit.address).map_err(|e| self.error(e))?;
        stored_record(&doc, self.fields).ok_or_else(|| {
            self.error(tantivy::TantivyError::InternalError(format!(
                "the stored record of section {} of `{}` does not decode",
                hit.node.0, hit.doc_id
            )))
        })
    }

    /// Why `hit` scored what it did: each search term's part, computed here from the scope's
    /// statistics and the section's own counts — `idf · (k1 + 1) · tf / (tf + k1 · (1 − b + b ·
    /// dl / avgdl))` ([`crate::index::bm25::indexed_term_score`]) with the idf of
    /// [`crate::index::bm25::indexed_idf`] — into a [`Bm25Explanation`] whose parts add up to
    /// the hit's score (up to float rounding of the sum). `tf` is the term's occurrences in the
    /// section's `text` (title terms counted [`super::TITLE_WEIGHT`] times); lengths are
    /// tantivy's field norms (exact up to 40 terms, then within a few percent), as its scoring
    /// reads them. A term absent from the section adds nothing and is left out.
    ///
    /// Errors: [`SectionIndexError::Tantivy`] when the index cannot be read.
    pub fn explain(&self, hit: &SectionHit) -> Result<Bm25Explanation, SectionIndexError> {
        let (dl, found) = self.counts(hit).map_err(|e| self.error(e))?;
        // As the index scores: N at least 1 (an empty scope keeps idf finite), the mean length
        // divided in f32.
        let n = self.stats.num_docs().max(1);
        let avgdl = self.stats.num_tokens() as f32 / n as f32;
        let mut out = Bm25Explanation {
            score: 0.0,
            unit_count: u32::try_from(self.stats.num_docs()).unwrap_or(u32::MAX),
            unit_length: if found.is_empty() { 0.0 } else { dl },
            average_length: self.stats.average_length(),
            terms: Vec::with_capacity(found.len()),
        };
        for TermCounts { term, tf, df } in found {
            let idf = indexed_idf(n, df);
            let tf = tf as f32;
            let score = indexed_term_score(idf, tf, dl, avgdl);
            out.score += score;
            out.terms.push(TermExplanation {
                term,
                tf,
                df: u32::try_from(df).unwrap_or(u32::MAX),
                idf,
                score,
            });
        }
        Ok(out)
    }

    /// `hit`'s length in the scored field (its field norm) and, per search term it holds, in
    /// search order, that term's counts.
    fn counts(&self, hit: &SectionHit) -> tantivy::Result<(f32, Vec<TermCounts>)> {
        let segment = self.searcher.segment_reader(hit.address.segment_ord);
        let doc = hit.address.doc_id;
        let dl = segment
            .get_fieldnorms_reader(self.fields.text)?
            .fieldnorm(doc) as f32;
        let inverted = segment.inverted_index(self.fields.text)?;
        let mut found = Vec::with_capacity(self.terms.len());
        for text in &self.terms {
            let term = Term::from_field_text(self.fields.text, text);
            let Some(mut postings) = inverted.read_postings(&term, IndexRecordOption::WithFreqs)?
            else {
                continue;
            };
            // `seek` only moves forward: a posting list starting past `doc` lacks it.
            if postings.doc() > doc || postings.seek(doc) != doc {
                continue;
            }
            found.push(TermCounts {
                term: text.clone(),
                tf: postings.term_freq(),
                df: self.stats.doc_freq(&term)?,
            });
        }
        Ok((dl, found))
    }

    /// A one-line passage of `text` (at most `max_chars` chars) around the search terms that
    /// matter most there (tantivy's `SnippetGenerator`), `…` marking cut ends; the start of the
    /// text when none of the terms occurs in it.
    pub fn snippet(&self, text: &str, max_chars: usize) -> String {
        self.snippet_at(text, max_chars).0
    }

    /// [`Self::snippet`] and the byte offset in `text` where the passage starts (`None` when
    /// none of the terms occurs in `text` and the snippet is its start).
    pub fn snippet_at(&self, text: &str, max_chars: usize) -> (String, Option<usize>) {
        let fragment = match self.snippet_generator(max_chars) {
            Ok(generator) => {
                let snippet = generator.snippet(text);
                let range = snippet.fragment_range();
                if snippet.is_empty() || range.is_empty() {
                    None
                } else {
                    Some((range.start, snippet.fragment().to_string()))
                }
            }
            Err(_) => None,
        };
        let at = fragment.as_ref().map(|(start, _)| *start);
        let (start, fragment) = fragment.unwrap_or_else(|| (0, text.to_string()));
        let mut line = fragment.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.chars().count() > max_chars {
            line = line.chars().take(max_chars.saturating_sub(1)).collect();
            line.push('…');
        }
        if start > 0 && !text[..start].trim().is_empty() {
            line.insert_str(0, "… ");
        }
        (line, at)
    }

    /// What tantivy's `SnippetGenerator::create` builds — each query term weighted
    /// `1 / (1 + document frequency)` — with docnav's tokenizer: `text` holds term lists (its
    /// tokenizer only splits them), the content shown is raw text.
    fn snippet_generator(&self, max_chars: usize) -> tantivy::Result<SnippetGenerator> {
        let mut terms: BTreeSet<Term> = BTreeSet::new();
        self.query.query_terms(&mut |term, _| {
            if term.field() == self.fields.text {
                terms.insert(term.clone());
            }
        });
        let mut weights: BTreeMap<String, f32> = BTreeMap::new();
        for term in terms {
            let Some(text) = term.value().as_str().map(str::to_string) else {
                continue;
            };
            let doc_freq = self.searcher.doc_freq(&term)?;
            if doc_freq > 0 {
                weights.insert(text, 1.0 / (1.0 + doc_freq as f32));
            }
        }
        Ok(SnippetGenerator::new(
            weights,
            TextAnalyzer::from(DocnavTokenizer::default()),
            // Unused: snippets are cut from text given to `snippet`, not read from the store.
            self.fields.text,
            max_chars,
        ))
    }

    fn error(&self, source: tantivy::TantivyError) -> SectionIndexError {
        SectionIndexError::Tantivy {
            place: self.place.clone(),
            source,
        }
    }
}

/// One search term's counts for a section's explanation.
struct TermCounts {
    term: String,
    /// Occurrences in the section's scored field.
    tf: u32,
    /// Sections of the scope holding it, as scoring reads it (at most `N`).
    df: u64,
}

/// The terms a search for `query` looks up; see [`SectionIndex::prepare`]. `doc_freq` tells
/// whether a compound occurs in the scope.
pub(crate) fn search_terms(query: &str, doc_freq: impl Fn(&str) -> u64) -> Vec<String> {
    let words = query_terms(query);
    let plain = |w: &str| w.bytes().all(|b| b.is_ascii_alphanumeric());
    let mut out: Vec<String> = Vec::with_capacity(words.len() + 2);
    for (i, word) in words.iter().enumerate() {
        if !out.contains(word) {
            out.push(word.clone());
        }
        let Some(next) = words.get(i + 1) else {
            continue;
        };
        if plain(word) && plain(next) {
            let compound = format!("{word}{next}");
            if !out.contains(&compound) && !words.contains(&compound) && doc_freq(&compound) > 0 {
                out.push(compound);
            }
        }
    }
    out
}
