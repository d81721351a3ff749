//! Okapi BM25 in memory, for the final rerank of a handful of evidence passages
//! ([`Bm25Scorer`]: the statistics are those of the passages themselves), and the shapes of a
//! score's explanation shared with the section index ([`Bm25Explanation`]). Every search of the
//! workspace goes through the tantivy section index ([`super::SectionIndex`]), which scores
//! with the same formula.
//!
//! Source: S. Robertson and H. Zaragoza, *The Probabilistic Relevance Framework: BM25 and
//! Beyond*, Foundations and Trends in Information Retrieval 3(4), 2009, eq. 3.15:
//!
//! ```text
//! score(q, d) = Σ_{t ∈ q} idf(t) · tf(t,d) · (k1 + 1) / (tf(t,d) + k1 · (1 − b + b · |d| / avgdl))
//! ```
//!
//! with the non-negative idf used by Lucene (and tantivy `src/query/bm25.rs`):
//! `idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))`, where `N` is the number of units (nodes
//! or texts) and `n(t)` the number of units containing `t`. Query terms are deduplicated: a term
//! repeated in the query counts once.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::tokenize::for_each_token;

/// Term-frequency saturation `k1` (Robertson & Zaragoza 2009 §3.4; Lucene's default).
pub const K1: f32 = 1.2;
/// Length normalisation `b` (Robertson & Zaragoza 2009 §3.4; Lucene's default).
pub const B: f32 = 0.75;

/// Corpus statistics BM25 needs. Implemented by [`Bm25Scorer`] (ad-hoc texts).
pub trait CorpusStats {
    /// Number of indexed units `N` (nodes or texts).
    fn unit_count(&self) -> u32;
    /// Mean unit length `avgdl`, in (weighted) terms.
    fn average_length(&self) -> f32;
    /// Units containing `term` (`n(t)`); 0 for unknown terms.
    fn document_frequency(&self, term: &str) -> u32;
}

/// Lucene idf `ln(1 + (N − df + 0.5) / (df + 0.5))`; always ≥ 0. `df` above `N` (inconsistent
/// statistics) is treated as `N`.
pub fn idf(unit_count: u32, df: u32) -> f32 {
    let n = f64::from(unit_count);
    let df = f64::from(df.min(unit_count));
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln() as f32
}

/// One term's BM25 contribution: `idf · tf · (K1 + 1) / (tf + K1 · (1 − B + B · len / avg))`.
/// `tf` and `unit_length` in (weighted) terms. An `average_length` ≤ 0 (empty corpus) counts
/// every unit as average length. Returns 0 for `tf` ≤ 0.
pub fn term_score(idf: f32, tf: f32, unit_length: f32, average_length: f32) -> f32 {
    if tf <= 0.0 {
        return 0.0;
    }
    let ratio = if average_length > 0.0 {
        unit_length / average_length
    } else {
        1.0
    };
    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * ratio))
}

/// [`idf`] in `f32`, in the order the section index (tantivy `src/query/bm25.rs`) computes it:
/// `ln(1 + ((N − df) + 0.5) / (df + 0.5))`, so an explanation of an indexed section repeats its
/// score to the bit. `df` above `N` is treated as `N`.
pub fn indexed_idf(unit_count: u64, df: u64) -> f32 {
    let df = df.min(unit_count);
    let x = ((unit_count - df) as f32 + 0.5) / (df as f32 + 0.5);
    (1.0 + x).ln()
}

/// [`term_score`] in `f32`, in the order the section index computes it (tantivy's
/// `Bm25Weight::score`: `idf · (1 + K1)` times `tf / (tf + K1 · (1 − B + B · len / avg))`), so
/// the parts of an indexed section's explanation add up to the score the index gave it. `tf`
/// and `unit_length` in (weighted) terms; `average_length` as the index divides it, the
/// scope's terms over its units (at least 1) in `f32`.
pub fn indexed_term_score(idf: f32, tf: f32, unit_length: f32, average_length: f32) -> f32 {
    let weight = idf * (1.0 + K1);
    let norm = K1 * (1.0 - B + B * unit_length / average_length);
    weight * (tf / (tf + norm))
}

/// One query term's part of a score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermExplanation {
    /// The term (as tokenized).
    pub term: String,
    /// Term frequency in the unit (title-weighted for sections of the section index).
    pub tf: f32,
    /// Units containing the term.
    pub df: u32,
    /// Lucene idf of the term.
    pub idf: f32,
    /// This term's contribution ([`term_score`]).
    pub score: f32,
}

/// Why a unit scored what it did: the sum of [`TermExplanation::score`]s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bm25Explanation {
    /// Total score (sum of the term parts, in query order).
    pub score: f32,
    /// Number of units `N` in the statistics.
    pub unit_count: u32,
    /// Unit length in (weighted) terms.
    pub unit_length: f32,
    /// Mean unit length.
    pub average_length: f32,
    /// Per-term parts in query order; query terms absent from the unit (tf 0) are omitted.
    pub terms: Vec<TermExplanation>,
}

/// Score a unit of length `unit_length` whose query terms have frequencies `term_tfs`
/// (`(term, tf)` in query order, deduplicated) against `stats`.
pub fn explain<S: CorpusStats + ?Sized>(
    stats: &S,
    term_tfs: &[(&str, f32)],
    unit_length: f32,
) -> Bm25Explanation {
    let n = stats.unit_count();
    let average_length = stats.average_length();
    let mut score = 0.0;
    let mut terms = Vec::new();
    for &(term, tf) in term_tfs {
        if tf <= 0.0 {
            continue;
        }
        let df = stats.document_frequency(term);
        let idf = idf(n, df);
        let part = term_score(idf, tf, unit_length, average_length);
        score += part;
        terms.push(TermExplanation {
            term: term.to_string(),
            tf,
            df,
            idf,
            score: part,
        });
    }
    Bm25Explanation {
        score,
        unit_count: n,
        unit_length,
        average_length,
        terms,
    }
}

/// Query terms of `query`: tokenized, first occurrence kept.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for_each_token(query, |t| {
        if !out.iter().any(|o| o == t) {
            out.push(t.to_string());
        }
    });
    out
}

/// BM25 over an ad-hoc set of texts whose statistics come from the set itself (e.g. the agent's
/// evidence reranked against the question). Texts are tokenized with [`fn@super::tokenize`];
/// all terms weigh 1.
#[derive(Debug, Clone, Default)]
pub struct Bm25Scorer {
    tfs: Vec<HashMap<String, u32>>,
    lengths: Vec<u32>,
    df: HashMap<String, u32>,
    total_length: u64,
}

impl Bm25Scorer {
    /// Statistics over `texts`; text `i` is unit `i`.
    pub fn new<S: AsRef<str>>(texts: &[S]) -> Bm25Scorer {
        let mut scorer = Bm25Scorer::default();
        for text in texts {
            let mut tf: HashMap<String, u32> = HashMap::new();
            let mut len = 0u32;
            for_each_token(text.as_ref(), |t| {
                len = len.saturating_add(1);
                match tf.get_mut(t) {
                    Some(c) => *c += 1,
                    None => {
                        tf.insert(t.to_string(), 1);
                    }
                }
            });
            for term in tf.keys() {
                *scorer.df.entry(term.clone()).or_insert(0) += 1;
            }
            scorer.total_length += u64::from(len);
            scorer.lengths.push(len);
            scorer.tfs.push(tf);
        }
        scorer
    }

    /// Number of texts.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// True when built over no texts.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// Explanation of text `i`'s score for `query`; `None` when `i` is out of range.
    pub fn explain(&self, i: usize, query: &str) -> Option<Bm25Explanation> {
        let terms = query_terms(query);
        self.explain_terms(i, &terms)
    }

    fn explain_terms(&self, i: usize, terms: &[String]) -> Option<Bm25Explanation> {
        let tf = self.tfs.get(i)?;
        let term_tfs: Vec<(&str, f32)> = terms
            .iter()
            .map(|t| (t.as_str(), tf.get(t).copied().unwrap_or(0) as f32))
            .collect();
        Some(explain(self, &term_tfs, self.lengths[i] as f32))
    }

    /// BM25 score of text `i` for `query`; 0 when `i` is out of range or nothing matches.
    pub fn score(&self, i: usize, query: &str) -> f32 {
        self.explain(i, query).map_or(0.0, |e| e.score)
    }

    /// All texts as `(index, score)`, best first, ties by index; texts scoring 0 included last.
    pub fn rank(&self, query: &str) -> Vec<(usize, f32)> {
        let terms = query_terms(query);
        let mut out: Vec<(usize, f32)> = (0..self.len())
            .map(|i| (i, self.explain_terms(i, &terms).map_or(0.0, |e| e.score)))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// Mean unit length: `total / count`, 0 for an empty corpus (units: weighted terms).
pub fn mean_length(total: f64, count: usize) -> f32 {
    if count == 0 {
        0.0
    } else {
        (total / count as f64) as f32
    }
}

impl CorpusStats for Bm25Scorer {
    fn unit_count(&self) -> u32 {
        u32::try_from(self.lengths.len()).unwrap_or(u32::MAX)
    }

    fn average_length(&self) -> f32 {
        mean_length(self.total_length as f64, self.lengths.len())
    }

    fn document_frequency(&self, term: &str) -> u32 {
        self.df.get(term).copied().unwrap_or(0)
    }
}

#[cfg(test)]
#[path = "bm25_tests.rs"]
mod tests;
