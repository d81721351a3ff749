//! Indexing (DESIGN.md §2): tokenizer, BM25, the per-document [`KeywordIndex`] and [`DocCard`]s.

pub mod bm25;
pub mod doccard;
pub mod keyword;
pub mod tokenize;
pub mod wire;

pub use bm25::{Bm25Explanation, Bm25Scorer, CorpusStats, TermExplanation, B, K1};
pub use doccard::DocCard;
pub use keyword::{search_many, KeywordIndex, SearchHit, SharedStats, TITLE_WEIGHT};
pub use tokenize::{for_each_token, tokenize, Tokenizer};
pub use wire::IndexDecodeError;
