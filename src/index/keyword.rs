//! Per-document keyword index. Placeholder.

use serde::{Deserialize, Serialize};

use crate::tree::{NodeId, Tree};

/// Postings over each node's own text and title.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeywordIndex {}

/// One ranked node.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// The node.
    pub node: NodeId,
    /// BM25 score.
    pub score: f32,
    /// Query terms found in the node.
    pub matched_terms: Vec<String>,
}

impl KeywordIndex {
    /// Build the index of a tree.
    pub fn build(_tree: &Tree) -> KeywordIndex {
        KeywordIndex {}
    }

    /// Top `limit` nodes for `query`, best first.
    pub fn search(&self, _query: &str, _limit: usize) -> Vec<SearchHit> {
        Vec::new()
    }
}
