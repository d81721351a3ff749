//! Indexing (DESIGN.md §2): the tokenizer, the workspace-wide [`SectionIndex`] (tantivy) that
//! every search goes through, [`DocCard`]s, and the in-memory BM25 of the final evidence rerank.

pub mod analyzer;
mod backlog;
pub mod bm25;
pub mod cross_refs;
pub mod doccard;
pub mod names;
pub mod node_terms;
pub mod period;
mod question_text;
pub mod releases;
pub mod sections;
pub mod tokenize;
mod top_terms;

pub use backlog::Backlog;
pub use bm25::{Bm25Explanation, Bm25Scorer, CorpusStats, TermExplanation, B, K1};
pub use doccard::DocCard;
pub use node_terms::NodeTerms;
pub use sections::{
    CardStatistics, PreparedSearch, QueryStatistics, Scope, SectionHit, SectionIndex,
    SectionIndexError, SectionRecord, SectionWriter, TITLE_WEIGHT,
};
pub use tokenize::{for_each_token, tokenize, Tokenizer};
pub use top_terms::{top_terms, top_terms_of};
