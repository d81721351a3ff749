//! What the section index stores with each entry (the `record` field, JSON): a section's
//! [`SectionRecord`] (structure number, title, ancestors, locations, ids), or a DocCard entry's
//! [`CardRecord`]; written by [`super::write`], read back by [`super::search`].

use serde::{Deserialize, Serialize};
use tantivy::schema::Value as _;
use tantivy::TantivyDocument;

use super::Fields;

/// What the index stores of a section, so a hit is ranked and named without loading its tree
/// (its text is in the tree only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionRecord {
    /// Dotted structure number (`"2.1"`; the root's is `""`).
    #[serde(rename = "s")]
    pub structure: String,
    /// The node's title.
    #[serde(rename = "t")]
    pub title: String,
    /// Node ids from the root down to the parent (empty for the root).
    #[serde(rename = "a")]
    pub ancestors: Vec<u32>,
    /// Own source lines `[start, end)`, 1-based (Markdown, text).
    #[serde(rename = "l", default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    /// Own pages `[start, end)`, 1-based (PDF).
    #[serde(rename = "p", default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<[u32; 2]>,
    /// The node's id in its tree; `None` in the records of older indexes, whose hits read it
    /// from the `node` column.
    #[serde(rename = "n", default, skip_serializing_if = "Option::is_none")]
    pub node: Option<u32>,
    /// Its position in the document's reading order (pre-order); `None` as for `node`.
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Its document's id; `None` in the records of older indexes, whose hits read it from the
    /// `doc_id` column.
    #[serde(rename = "d", default, skip_serializing_if = "Option::is_none")]
    pub doc_id: Option<String>,
    /// How many child nodes it has (0: a leaf); `None` in the records of older indexes.
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub children: Option<u32>,
}

impl SectionRecord {
    pub(super) fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub(super) fn decode(text: &str) -> Option<SectionRecord> {
        serde_json::from_str(text).ok()
    }
}

/// What the index stores of a DocCard entry (older indexes store none): its document's id, so
/// a ranked card is named from the store, as a section is, without the `doc_id` column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct CardRecord {
    /// The card's document.
    #[serde(rename = "d", default, skip_serializing_if = "Option::is_none")]
    pub doc_id: Option<String>,
}

impl CardRecord {
    pub(super) fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Read back the stored record of a section entry (used by search).
pub(super) fn stored_record(doc: &TantivyDocument, f: Fields) -> Option<SectionRecord> {
    SectionRecord::decode(doc.get_first(f.record)?.as_str()?)
}

/// The doc_id stored with an entry (section or DocCard; `None` in an older index's entries)
/// and, for a section entry, its record.
pub(super) fn stored_entry(
    doc: &TantivyDocument,
    f: Fields,
) -> (Option<String>, Option<SectionRecord>) {
    let Some(text) = doc.get_first(f.record).and_then(|v| v.as_str()) else {
        return (None, None);
    };
    if let Some(record) = SectionRecord::decode(text) {
        return (record.doc_id.clone(), Some(record));
    }
    let card: Option<CardRecord> = serde_json::from_str(text).ok();
    (card.and_then(|c| c.doc_id), None)
}
