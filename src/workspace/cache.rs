//! The loaded trees of an opened workspace, bounded: a long-running reader (the MCP server,
//! `docnav serve`) touches document after document, and keeping every tree it ever loaded would
//! grow without end. Trees are kept up to a byte budget, least recently used evicted first; a
//! tree larger than the whole budget is handed out but not kept. A command that runs once reads
//! a few trees and never reaches the budget.

use std::collections::HashMap;
use std::sync::Arc;

use super::Document;

/// Bytes of decoded trees kept by default (see [`TreeCache::new`]).
pub const DEFAULT_TREE_CACHE_BYTES: usize = 24 * 1024 * 1024;

/// An LRU map from doc id to its decoded tree, bounded by the trees' sizes.
#[derive(Debug)]
pub struct TreeCache {
    entries: HashMap<String, Entry>,
    bytes: usize,
    budget: usize,
    clock: u64,
}

#[derive(Debug)]
struct Entry {
    document: Arc<Document>,
    bytes: usize,
    used: u64,
}

impl TreeCache {
    /// An empty cache keeping at most `budget` bytes of trees (as [`Document::heap_bytes`]
    /// counts them).
    pub fn new(budget: usize) -> TreeCache {
        TreeCache {
            entries: HashMap::new(),
            bytes: 0,
            budget,
            clock: 0,
        }
    }

    /// The tree of `doc_id`, if kept; marks it used.
    pub fn get(&mut self, doc_id: &str) -> Option<Arc<Document>> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(doc_id).map(|e| {
            e.used = clock;
            e.document.clone()
        })
    }

    /// Keep `document` (of `bytes` bytes) as `doc_id`'s tree, evicting the least recently used
    /// trees until the budget holds. A tree over the whole budget is not kept.
    pub fn insert(&mut self, doc_id: &str, document: Arc<Document>, bytes: usize) {
        if bytes > self.budget {
            return;
        }
        self.clock += 1;
        if let Some(old) = self.entries.remove(doc_id) {
            self.bytes -= old.bytes;
        }
        while self.bytes + bytes > self.budget {
            let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(e) = self.entries.remove(&oldest) {
                self.bytes -= e.bytes;
            }
        }
        self.bytes += bytes;
        self.entries.insert(
            doc_id.to_string(),
            Entry {
                document,
                bytes,
                used: self.clock,
            },
        );
    }

    /// Bytes of the trees kept.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Trees kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no tree is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Arc<Document> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "# A\n\ntext\n").unwrap();
        let lib = crate::workspace::InMemoryLibrary::from_paths(
            &[path],
            &crate::tree::BuildOptions::default(),
        )
        .unwrap();
        use crate::workspace::Library;
        lib.document("a").unwrap()
    }

    #[test]
    fn the_least_recently_used_tree_goes_first_and_the_budget_holds() {
        let d = doc();
        let mut cache = TreeCache::new(100);
        cache.insert("a", d.clone(), 40);
        cache.insert("b", d.clone(), 40);
        assert!(cache.get("a").is_some()); // b is now the least recently used
        cache.insert("c", d.clone(), 40);
        assert!(cache.get("b").is_none());
        assert!(cache.get("a").is_some() && cache.get("c").is_some());
        assert_eq!((cache.len(), cache.bytes()), (2, 80));
        cache.insert("huge", d.clone(), 101);
        assert!(cache.get("huge").is_none());
        cache.insert("a", d, 60); // replacing keeps one entry and the new size
        assert_eq!(cache.bytes(), 100);
    }
}
