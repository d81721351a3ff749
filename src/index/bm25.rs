//! BM25 (Robertson & Zaragoza 2009), k1 = 1.2, b = 0.75, Lucene idf. Placeholder.

use serde::{Deserialize, Serialize};

/// Term-frequency saturation.
pub const K1: f32 = 1.2;
/// Length normalisation.
pub const B: f32 = 0.75;

/// Corpus statistics BM25 needs.
pub trait CorpusStats {
    /// Number of indexed units (nodes).
    fn unit_count(&self) -> u32;
    /// Mean unit length in terms.
    fn average_length(&self) -> f32;
    /// Units containing `term`.
    fn document_frequency(&self, term: &str) -> u32;
}

/// One query term's part of a score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermExplanation {
    /// The term.
    pub term: String,
    /// Term frequency in the unit.
    pub tf: f32,
    /// Units containing the term.
    pub df: u32,
    /// Lucene idf.
    pub idf: f32,
    /// This term's contribution.
    pub score: f32,
}

/// Why a unit scored what it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bm25Explanation {
    /// Total score.
    pub score: f32,
    /// Unit length in terms.
    pub unit_length: f32,
    /// Mean unit length.
    pub average_length: f32,
    /// Per-term parts (terms with tf 0 omitted).
    pub terms: Vec<TermExplanation>,
}
