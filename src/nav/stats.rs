//! Per-document numbers the commands need on every call (leaves and words per subtree, title
//! lookup keys), computed once per loaded document and shared by clones of a session, so `ls`
//! and `cd` stay well under a millisecond on documents with thousands of sections.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::tree::title_key;
use crate::tree::{NodeId, Tree};
use crate::workspace::Document;

/// Subtree statistics and title keys of one tree, indexed by [`NodeId::index`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeStats {
    /// Leaves in each node's subtree (a leaf counts itself).
    pub leaves: Vec<u32>,
    /// Sections below each node (its descendants; 0 for a leaf).
    pub below: Vec<u32>,
    /// Whitespace-separated words of the contents in each node's subtree.
    pub words: Vec<u64>,
    /// [`title_key`] of each node's title.
    pub keys: Vec<String>,
}

impl NodeStats {
    /// Compute the statistics of `tree` in one pass (children are summed into parents in
    /// reverse pre-order).
    pub fn compute(tree: &Tree) -> NodeStats {
        let n = tree.len();
        let mut leaves = vec![0u32; n];
        let mut below = vec![0u32; n];
        let mut words = vec![0u64; n];
        for id in tree.preorder(NodeId::ROOT).into_iter().rev() {
            let node = tree.node(id);
            let i = id.index();
            if node.children.is_empty() {
                leaves[i] = 1;
            }
            words[i] += node.content.split_whitespace().count() as u64;
            if let Some(parent) = node.parent {
                leaves[parent.index()] += leaves[i];
                below[parent.index()] += below[i] + 1;
                words[parent.index()] += words[i];
            }
        }
        let keys = tree
            .nodes
            .iter()
            .map(|node| title_key(&node.title))
            .collect();
        NodeStats {
            leaves,
            below,
            words,
            keys,
        }
    }
}

/// Cache of [`NodeStats`] by document id; an entry is recomputed when the library hands out a
/// different `Arc<Document>` for the id (a reloaded document).
#[derive(Debug, Clone, Default)]
pub struct StatsCache {
    inner: Arc<Mutex<HashMap<String, Entry>>>,
}

/// The document the stats were computed for (compared by pointer) and the stats.
type Entry = (Arc<Document>, Arc<NodeStats>);

impl StatsCache {
    /// The statistics of `doc` (computed on first use).
    pub fn get(&self, doc_id: &str, doc: &Arc<Document>) -> Arc<NodeStats> {
        let mut map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((cached, stats)) = map.get(doc_id) {
            if Arc::ptr_eq(cached, doc) {
                return stats.clone();
            }
        }
        let stats = Arc::new(NodeStats::compute(&doc.tree));
        map.insert(doc_id.to_string(), (doc.clone(), stats.clone()));
        stats
    }
}
