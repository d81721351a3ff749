//! DocCards: the small per-document summary the Orchestrator reads. Placeholder.

use serde::{Deserialize, Serialize};

use super::KeywordIndex;
use crate::tree::{DocFormat, Tree};

/// A document's card (DESIGN.md §2), target < 1 KB serialized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocCard {
    /// Readable slug, unique in the workspace.
    pub doc_id: String,
    /// Document title.
    pub title: String,
    /// Source path as given to `docnav index` (absolute).
    pub source: String,
    /// Source format.
    pub format: DocFormat,
    /// Source size in bytes.
    pub bytes: u64,
    /// Nodes in the tree, root included.
    pub node_count: u32,
    /// Titles of depth 1–2 nodes (bounded).
    pub outline: Vec<String>,
    /// Document summary.
    pub summary: String,
    /// Most characteristic terms.
    pub top_terms: Vec<String>,
    /// sha256 of the source bytes, hex.
    pub fingerprint: String,
}

impl DocCard {
    /// Make the card of a built document.
    pub fn new(
        doc_id: &str,
        source: &str,
        bytes: u64,
        fingerprint: &str,
        tree: &Tree,
        _index: &KeywordIndex,
    ) -> DocCard {
        DocCard {
            doc_id: doc_id.to_string(),
            title: tree.title().to_string(),
            source: source.to_string(),
            format: tree.format,
            bytes,
            node_count: u32::try_from(tree.len()).unwrap_or(u32::MAX),
            outline: Vec::new(),
            summary: tree.root().summary.clone(),
            top_terms: Vec::new(),
            fingerprint: fingerprint.to_string(),
        }
    }
}

/// Human size: `812 B`, `40.1 KB`, `6.2 MB` (1 KB = 1000 bytes).
pub fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b < 1_000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} KB", b as f64 / 1e3),
        b => format!("{:.1} MB", b as f64 / 1e6),
    }
}
