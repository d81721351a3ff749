//! Per-document keyword index (DESIGN.md §2): a sorted term dictionary with postings
//! `(node, tf)` over each node's **own** title and content (not its descendants'), ranked with
//! BM25 ([`super::bm25`]).
//!
//! Title terms count [`TITLE_WEIGHT`] times, in the term frequency and in the node length alike
//! (the title behaves like a field repeated three times, the simplest form of BM25F; Robertson &
//! Zaragoza 2009 §3.5). Layout is compact for the tree file: the dictionary is one sorted
//! `Vec<String>`, postings are two flat `u32` arrays addressed by per-term offsets.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

use super::bm25::{self, query_terms, Bm25Explanation, CorpusStats};
use super::tokenize::{for_each_token, Tokenizer};
use crate::tree::{NodeId, Tree};

/// Weight of a title term relative to a content term (tf and length both count it this many
/// times).
pub const TITLE_WEIGHT: u32 = 3;

/// At most this many distinct query terms are scored (the rest are ignored).
pub const MAX_QUERY_TERMS: usize = 64;

/// Postings over each node's own title and content; see the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "super::wire::Wire", into = "super::wire::Wire")]
pub struct KeywordIndex {
    /// Sorted, unique terms.
    pub(super) terms: Vec<String>,
    /// `offsets[i]..offsets[i + 1]` are term `i`'s postings; `terms.len() + 1` entries.
    pub(super) offsets: Vec<u32>,
    /// Posting node ids, ascending within a term.
    pub(super) nodes: Vec<u32>,
    /// Posting term frequencies (title-weighted), parallel to `nodes`.
    pub(super) tfs: Vec<u32>,
    /// Weighted length of each node (arena order).
    pub(super) lengths: Vec<u32>,
    /// Position of each node in reading order (pre-order), for tie-breaking.
    pub(super) ranks: Vec<u32>,
    /// Sum of `lengths`.
    pub(super) total_length: u64,
}

/// One ranked node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    /// The node.
    pub node: NodeId,
    /// BM25 score (sum over matched terms), > 0.
    pub score: f32,
    /// Query terms (tokenized form) found in the node, in query order.
    pub matched_terms: Vec<String>,
}

/// The multiply-rotate hash of rustc's `FxHasher` (not DoS-resistant; the dictionary is built
/// once per document from its own text). SipHash was a tenth of indexing time.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Default)]
struct Builder {
    ids: HashMap<String, u32, BuildHasherDefault<FxHasher>>,
    /// `(term id, node, tf)` in node order.
    postings: Vec<(u32, u32, u32)>,
    /// Postings per term id.
    df: Vec<u32>,
    counts: Vec<u32>,
    touched: Vec<u32>,
    length: u32,
}

impl Builder {
    fn add(&mut self, term: &str, weight: u32) {
        let id = match self.ids.get(term) {
            Some(&id) => id,
            None => {
                let id = u32::try_from(self.df.len()).unwrap_or(u32::MAX);
                self.ids.insert(term.to_string(), id);
                self.df.push(0);
                self.counts.push(0);
                id
            }
        };
        let count = &mut self.counts[id as usize];
        if *count == 0 {
            self.touched.push(id);
        }
        *count = count.saturating_add(weight);
        self.length = self.length.saturating_add(weight);
    }

    fn end_node(&mut self, node: u32) -> u32 {
        for &id in &self.touched {
            let count = std::mem::take(&mut self.counts[id as usize]);
            self.postings.push((id, node, count));
            self.df[id as usize] += 1;
        }
        self.touched.clear();
        std::mem::take(&mut self.length)
    }
}

impl Default for KeywordIndex {
    /// An index of no nodes (every search is empty).
    fn default() -> KeywordIndex {
        KeywordIndex {
            terms: Vec::new(),
            offsets: vec![0],
            nodes: Vec::new(),
            tfs: Vec::new(),
            lengths: Vec::new(),
            ranks: Vec::new(),
            total_length: 0,
        }
    }
}

impl KeywordIndex {
    /// Index every node of `tree` (title weighted by [`TITLE_WEIGHT`], content by 1).
    pub fn build(tree: &Tree) -> KeywordIndex {
        let mut b = Builder::default();
        let mut tokenizer = Tokenizer::default();
        let mut lengths = Vec::with_capacity(tree.len());
        for (i, node) in tree.nodes.iter().enumerate() {
            tokenizer.for_each(&node.title, |t| b.add(t, TITLE_WEIGHT));
            tokenizer.for_each(&node.content, |t| b.add(t, 1));
            lengths.push(b.end_node(u32::try_from(i).unwrap_or(u32::MAX)));
        }
        let mut ranks: Vec<u32> = (0..tree.len())
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        if !tree.is_empty() {
            for (pos, id) in tree.preorder(NodeId::ROOT).into_iter().enumerate() {
                if let Some(r) = ranks.get_mut(id.index()) {
                    *r = u32::try_from(pos).unwrap_or(u32::MAX);
                }
            }
        }
        let mut dict: Vec<(String, u32)> = b.ids.into_iter().collect();
        dict.sort_unstable();
        // Counting sort of the postings into dictionary order (stable: node order is kept).
        let mut cursor = vec![0usize; dict.len()];
        let mut offsets = Vec::with_capacity(dict.len() + 1);
        offsets.push(0u32);
        let mut total = 0usize;
        for (_, id) in &dict {
            cursor[*id as usize] = total;
            total += b.df[*id as usize] as usize;
            offsets.push(u32::try_from(total).unwrap_or(u32::MAX));
        }
        let mut nodes = vec![0u32; total];
        let mut tfs = vec![0u32; total];
        for &(id, node, tf) in &b.postings {
            let at = &mut cursor[id as usize];
            nodes[*at] = node;
            tfs[*at] = tf;
            *at += 1;
        }
        let index = KeywordIndex {
            terms: dict.into_iter().map(|(t, _)| t).collect(),
            offsets,
            nodes,
            tfs,
            total_length: lengths.iter().map(|&l| u64::from(l)).sum(),
            lengths,
            ranks,
        };
        index
    }

    /// Number of distinct terms.
    pub fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// Number of indexed nodes (the tree's node count).
    pub fn node_count(&self) -> usize {
        self.lengths.len()
    }

    fn term_index(&self, term: &str) -> Option<usize> {
        self.terms.binary_search_by(|t| t.as_str().cmp(term)).ok()
    }

    /// Postings `(nodes, tfs)` of dictionary entry `i`; empty for a corrupt offset table.
    fn postings(&self, i: usize) -> (&[u32], &[u32]) {
        let (Some(&start), Some(&end)) = (self.offsets.get(i), self.offsets.get(i + 1)) else {
            return (&[], &[]);
        };
        let range = start as usize..end as usize;
        match (self.nodes.get(range.clone()), self.tfs.get(range)) {
            (Some(n), Some(t)) => (n, t),
            _ => (&[], &[]),
        }
    }

    /// Title-weighted frequency of `term` (already tokenized) in `node`'s own text; 0 if absent.
    pub fn term_frequency(&self, term: &str, node: NodeId) -> u32 {
        let Some(i) = self.term_index(term) else {
            return 0;
        };
        let (nodes, tfs) = self.postings(i);
        nodes
            .binary_search(&node.0)
            .ok()
            .and_then(|p| tfs.get(p).copied())
            .unwrap_or(0)
    }

    /// Weighted length of `node` in terms; 0 for an unknown node.
    pub fn node_length(&self, node: NodeId) -> u32 {
        self.lengths.get(node.index()).copied().unwrap_or(0)
    }

    /// Top `limit` nodes for `query` (tokenized like the text), best first, ties broken by
    /// reading order. Only nodes matching at least one query term are returned.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        let terms = search_terms(self, query);
        let mut hits = self.search_with(self, &terms, limit);
        hits.truncate(limit);
        hits.into_iter().map(|(hit, _)| hit).collect()
    }

    /// Scored hits with their reading rank, sorted, at most `limit`.
    fn search_with<S: CorpusStats + ?Sized>(
        &self,
        stats: &S,
        terms: &[String],
        limit: usize,
    ) -> Vec<(SearchHit, u32)> {
        let terms = &terms[..terms.len().min(MAX_QUERY_TERMS)];
        let n = stats.unit_count();
        let average = stats.average_length();
        let mut scores = vec![0f32; self.lengths.len()];
        let mut masks = vec![0u64; self.lengths.len()];
        for (qi, term) in terms.iter().enumerate() {
            let Some(ti) = self.term_index(term) else {
                continue;
            };
            let idf = bm25::idf(n, stats.document_frequency(term));
            let (nodes, tfs) = self.postings(ti);
            for (&node, &tf) in nodes.iter().zip(tfs) {
                let node = node as usize;
                let (Some(score), Some(mask)) = (scores.get_mut(node), masks.get_mut(node)) else {
                    continue;
                };
                *score += bm25::term_score(idf, tf as f32, self.lengths[node] as f32, average);
                *mask |= 1 << qi;
            }
        }
        let mut hits: Vec<(u32, f32, u32)> = masks
            .iter()
            .enumerate()
            .filter(|(_, m)| **m != 0)
            .map(|(i, _)| {
                let rank = self.ranks.get(i).copied().unwrap_or(u32::MAX);
                (u32::try_from(i).unwrap_or(u32::MAX), scores[i], rank)
            })
            .collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
        hits.truncate(limit);
        hits.into_iter()
            .map(|(node, score, rank)| {
                let mask = masks[node as usize];
                let matched_terms = terms
                    .iter()
                    .enumerate()
                    .filter(|(qi, _)| mask & (1 << qi) != 0)
                    .map(|(_, t)| t.clone())
                    .collect();
                let hit = SearchHit {
                    node: NodeId(node),
                    score,
                    matched_terms,
                };
                (hit, rank)
            })
            .collect()
    }

    /// The terms of `node`'s score for `query` against this document's statistics (the same
    /// number [`KeywordIndex::search`] reports). An unknown node explains to score 0.
    pub fn explain(&self, query: &str, node: NodeId) -> Bm25Explanation {
        self.explain_with(self, query, node)
    }

    /// Like [`KeywordIndex::explain`] with other statistics, e.g. [`SharedStats`] to explain a
    /// [`search_many`] score.
    pub fn explain_with<S: CorpusStats + ?Sized>(
        &self,
        stats: &S,
        query: &str,
        node: NodeId,
    ) -> Bm25Explanation {
        let terms = search_terms(stats, query);
        let terms = &terms[..terms.len().min(MAX_QUERY_TERMS)];
        let tfs: Vec<(&str, f32)> = terms
            .iter()
            .map(|t| (t.as_str(), self.term_frequency(t, node) as f32))
            .collect();
        bm25::explain(stats, &tfs, self.node_length(node) as f32)
    }

    /// Score an outside `text` (all terms weight 1) for `query` against this document's
    /// statistics; see [`KeywordIndex::score_text`].
    pub fn explain_text(&self, query: &str, text: &str) -> Bm25Explanation {
        let terms = query_terms(query);
        let mut tfs: Vec<(&str, f32)> = terms.iter().map(|t| (t.as_str(), 0.0)).collect();
        let mut length = 0u32;
        for_each_token(text, |tok| {
            length = length.saturating_add(1);
            if let Some(e) = tfs.iter_mut().find(|(t, _)| *t == tok) {
                e.1 += 1.0;
            }
        });
        bm25::explain(self, &tfs, length as f32)
    }

    /// BM25 score of an outside `text` for `query`, with N, average length and document
    /// frequencies taken from this index (to score a snippet as if it were one more node).
    pub fn score_text(&self, query: &str, text: &str) -> f32 {
        self.explain_text(query, text).score
    }
}

impl CorpusStats for KeywordIndex {
    fn unit_count(&self) -> u32 {
        u32::try_from(self.lengths.len()).unwrap_or(u32::MAX)
    }

    fn average_length(&self) -> f32 {
        super::bm25::mean_length(self.total_length as f64, self.lengths.len())
    }

    fn document_frequency(&self, term: &str) -> u32 {
        self.term_index(term).map_or(0, |i| {
            u32::try_from(self.postings(i).0.len()).unwrap_or(u32::MAX)
        })
    }
}

/// Statistics of several indexes taken together (N, total length and df summed), so BM25 scores
/// of nodes from different documents are comparable.
#[derive(Debug, Clone)]
pub struct SharedStats<'a> {
    indexes: Vec<&'a KeywordIndex>,
    units: u64,
    total_length: u64,
}

impl<'a> SharedStats<'a> {
    /// Combined statistics of `indexes`.
    pub fn new(indexes: &[&'a KeywordIndex]) -> SharedStats<'a> {
        SharedStats {
            indexes: indexes.to_vec(),
            units: indexes.iter().map(|i| i.lengths.len() as u64).sum(),
            total_length: indexes.iter().map(|i| i.total_length).sum(),
        }
    }
}

impl CorpusStats for SharedStats<'_> {
    fn unit_count(&self) -> u32 {
        u32::try_from(self.units).unwrap_or(u32::MAX)
    }

    fn average_length(&self) -> f32 {
        if self.units == 0 {
            0.0
        } else {
            (self.total_length as f64 / self.units as f64) as f32
        }
    }

    fn document_frequency(&self, term: &str) -> u32 {
        self.indexes
            .iter()
            .map(|i| i.document_frequency(term))
            .fold(0u32, u32::saturating_add)
    }
}

/// The terms a search for `query` looks up: [`query_terms`], plus the **compound** of each pair
/// of adjacent plain words when the corpus knows it (`thread pool` also looks up `threadpool`,
/// `file name` also `filename`), inserted after the pair's first word. Documents spell such words both
/// ways; the tokenizer cannot split `threadpool`, so the query joins instead. Only compounds
/// that occur in `stats` (document frequency > 0) are added, so a query never grows by terms
/// that cannot match. Plain words are ASCII alphanumerics (no joiners, no CJK bigrams).
pub fn search_terms<S: CorpusStats + ?Sized>(stats: &S, query: &str) -> Vec<String> {
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
            if !out.contains(&compound)
                && !words.contains(&compound)
                && stats.document_frequency(&compound) > 0
            {
                out.push(compound);
            }
        }
    }
    out
}

/// Search several documents at once with [`SharedStats`]: the top `limit` nodes over all of
/// them, each with the name it was given (e.g. its `doc_id`), best first; ties by position in
/// `indexes`, then reading order.
pub fn search_many<'a>(
    indexes: &[(&'a str, &'a KeywordIndex)],
    query: &str,
    limit: usize,
) -> Vec<(&'a str, SearchHit)> {
    let all: Vec<&KeywordIndex> = indexes.iter().map(|(_, i)| *i).collect();
    let stats = SharedStats::new(&all);
    let terms = search_terms(&stats, query);
    let mut merged: Vec<(usize, u32, &'a str, SearchHit)> = Vec::new();
    for (pos, (name, index)) in indexes.iter().enumerate() {
        for (hit, rank) in index.search_with(&stats, &terms, limit) {
            merged.push((pos, rank, name, hit));
        }
    }
    merged.sort_by(|a, b| {
        b.3.score
            .total_cmp(&a.3.score)
            .then(a.0.cmp(&b.0))
            .then(a.1.cmp(&b.1))
    });
    merged.truncate(limit);
    merged
        .into_iter()
        .map(|(_, _, name, hit)| (name, hit))
        .collect()
}

#[path = "top_terms.rs"]
mod top_terms;

#[cfg(test)]
#[path = "keyword_tests.rs"]
mod tests;
