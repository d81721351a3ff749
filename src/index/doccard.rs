//! DocCards (DESIGN.md §2): the small per-document summary the Orchestrator reads to decide
//! which documents to open. [`DocCard::new`] keeps each card under [`CARD_MAX_BYTES`] of JSON by
//! bounding every free-text field and filling the outline only as far as the budget allows.

use serde::{Deserialize, Serialize};

use super::NodeTerms;
use crate::tree::{DocFormat, NodeId, Tree};

/// Budget of a card serialized as compact JSON, in bytes (DESIGN.md target: < 1 KB). Met unless
/// the fixed fields alone (id, source path, fingerprint) exceed it.
pub const CARD_MAX_BYTES: usize = 1000;
/// Most top terms on a card.
pub const CARD_TOP_TERMS: usize = 12;
/// Longest summary on a card, in chars.
pub const CARD_SUMMARY_MAX_CHARS: usize = 200;
/// Longest document title on a card, in chars.
pub const CARD_TITLE_MAX_CHARS: usize = 80;
/// Longest title in an outline entry, in chars.
pub const OUTLINE_TITLE_MAX_CHARS: usize = 60;

/// A document's card (DESIGN.md §2), < [`CARD_MAX_BYTES`] serialized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocCard {
    /// Readable slug, unique in the workspace.
    pub doc_id: String,
    /// Document title (≤ [`CARD_TITLE_MAX_CHARS`] chars).
    pub title: String,
    /// Source path as given to `docnav index` (absolute).
    pub source: String,
    /// Source format.
    pub format: DocFormat,
    /// Source size in bytes.
    pub bytes: u64,
    /// Nodes in the tree, root included.
    pub node_count: u32,
    /// Depth 1–2 nodes as `"<structure> <title>"` (`"2.1 Searching"`) in reading order; depth 1
    /// entries are kept before depth 2 ones when the budget runs out, and a last entry
    /// `"… (+N more)"` counts what was left out. Synthetic `Part N` nodes are not listed.
    pub outline: Vec<String>,
    /// The root's summary, else the first non-empty node summary in reading order
    /// (≤ [`CARD_SUMMARY_MAX_CHARS`] chars, shorter if the card needs the room).
    pub summary: String,
    /// Most characteristic terms ([`super::top_terms`], ≤ [`CARD_TOP_TERMS`]).
    pub top_terms: Vec<String>,
    /// sha256 of the source bytes, hex.
    pub fingerprint: String,
    /// The names the document goes by, best first ([`super::names::names_of`]: the entity its
    /// title names, its tickers, file name and the aliases it defines; ≤
    /// [`super::names::MAX_NAMES`]). The catalog files the card under their
    /// [`super::names::name_keys`].
    pub names: Vec<String>,
    /// The period it covers, read from it ([`super::period::period_of`]), if it names one.
    pub period: Option<super::period::Period>,
}

impl DocCard {
    /// The name the document's file gives it: the file stem's part before `__`
    /// (`commander__CHANGELOG.md` → `commander`; `eslint-plugin-import__README.md` →
    /// `eslint-plugin-import`), else the whole stem; lowercase. The corpus and the npm
    /// collections name files `PACKAGE__FILE`.
    pub fn name(&self) -> String {
        let file = self
            .source
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&self.source);
        let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
        let name = stem.split_once("__").map_or(stem, |(n, _)| n);
        name.to_lowercase()
    }

    /// Make the card of a built document: `doc_id`, `source` path, source size in `bytes` and
    /// `fingerprint` as given; the rest from `tree`. Never fails.
    pub fn new(doc_id: &str, source: &str, bytes: u64, fingerprint: &str, tree: &Tree) -> DocCard {
        DocCard::with_terms(
            doc_id,
            source,
            bytes,
            fingerprint,
            tree,
            &NodeTerms::of(tree),
        )
    }

    /// [`DocCard::new`] for a tree already tokenized (`terms` = [`NodeTerms::of`] `tree`).
    pub fn with_terms(
        doc_id: &str,
        source: &str,
        bytes: u64,
        fingerprint: &str,
        tree: &Tree,
        terms: &NodeTerms,
    ) -> DocCard {
        let summary = if tree.is_empty() {
            String::new()
        } else {
            tree.preorder(NodeId::ROOT)
                .into_iter()
                .map(|id| tree.node(id).summary.trim())
                .find(|s| !s.is_empty())
                .unwrap_or_default()
                .to_string()
        };
        // A changelog says which releases it covers before anything else: "which release added
        // X" is answered by the changelog whose range holds X's release.
        let period = super::period::period_of(tree);
        let range = period
            .as_ref()
            .and_then(|p| p.releases.as_ref())
            .map(super::releases::Releases::summary);
        let summary = match range {
            Some(range) if summary.is_empty() => range,
            Some(range) => format!("{range}. {summary}"),
            None => summary,
        };
        let mut card = DocCard {
            doc_id: doc_id.to_string(),
            title: truncate_chars(
                tree.nodes.first().map_or("", |n| &n.title),
                CARD_TITLE_MAX_CHARS,
            ),
            source: source.to_string(),
            format: tree.format,
            bytes,
            node_count: u32::try_from(tree.len()).unwrap_or(u32::MAX),
            outline: Vec::new(),
            summary: truncate_chars(&summary, CARD_SUMMARY_MAX_CHARS),
            top_terms: super::top_terms_of(terms, CARD_TOP_TERMS),
            fingerprint: fingerprint.to_string(),
            names: super::names::names_of(tree, source),
            period,
        };
        let candidates = outline_candidates(tree);
        let reserve = json_len(&more_marker(candidates.len())) + 1;
        card.shrink_to(CARD_MAX_BYTES.saturating_sub(reserve));
        card.fill_outline(tree, &candidates, reserve);
        card
    }

    /// Shorten the summary, then drop top terms, until the card fits in `budget` bytes.
    fn shrink_to(&mut self, budget: usize) {
        let mut size = json_len(self);
        while size > budget {
            let chars = self.summary.chars().count();
            if chars > 40 {
                self.summary = truncate_chars(&self.summary, chars / 2);
            } else if self.top_terms.pop().is_none() {
                if self.summary.is_empty() {
                    return;
                }
                self.summary.clear();
            }
            size = json_len(self);
        }
    }

    fn fill_outline(&mut self, tree: &Tree, candidates: &[NodeId], reserve: usize) {
        let mut size = json_len(self);
        let mut taken: Vec<NodeId> = Vec::new();
        for &id in candidates {
            let node = tree.node(id);
            let entry = outline_entry(&node.structure, &node.title);
            let cost = json_len(&entry) + usize::from(!taken.is_empty());
            if size + cost + reserve > CARD_MAX_BYTES {
                break;
            }
            size += cost;
            taken.push(id);
        }
        let left_out = candidates.len() - taken.len();
        let mut rank = vec![usize::MAX; tree.len()];
        for (pos, id) in tree.preorder(NodeId::ROOT).into_iter().enumerate() {
            rank[id.index()] = pos;
        }
        taken.sort_by_key(|id| rank[id.index()]);
        self.outline = taken
            .into_iter()
            .map(|id| outline_entry(&tree.node(id).structure, &tree.node(id).title))
            .collect();
        if left_out > 0 {
            self.outline.push(more_marker(left_out));
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

/// Depth-1 nodes in reading order, then depth-2 nodes in reading order, without split parts.
/// When the top level is a single wrapper heading ("1 Changelog"), the level below the second
/// (depth 3) follows, so the card still shows what the document holds.
fn outline_candidates(tree: &Tree) -> Vec<NodeId> {
    if tree.is_empty() {
        return Vec::new();
    }
    let order = tree.preorder(NodeId::ROOT);
    let at = |depth: u32| {
        order
            .iter()
            .copied()
            .filter(move |id| tree.node(*id).depth == depth && !tree.is_split(*id))
    };
    let wrapped = at(1).count() == 1;
    let deeper: Vec<NodeId> = if wrapped { at(3).collect() } else { Vec::new() };
    at(1).chain(at(2)).chain(deeper).collect()
}

/// `releases 4.1.0 (newest) to 0.1.0 (oldest), 37 versions` for a changelog
/// ([`super::releases::releases_of`]); `None` for any other document.
pub fn version_range(tree: &Tree) -> Option<String> {
    super::releases::releases_of(tree).map(|r| r.summary())
}

fn outline_entry(structure: &str, title: &str) -> String {
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let title = truncate_chars(&title, OUTLINE_TITLE_MAX_CHARS);
    format!("{structure} {title}")
}

fn more_marker(n: usize) -> String {
    format!("… (+{n} more)")
}

/// `text` cut to at most `max` chars on a char boundary; a cut text ends with `…` (counted).
fn truncate_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// Length of the compact JSON of `value`, in bytes (0 if it cannot be serialized).
fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

#[cfg(test)]
#[path = "doccard_tests.rs"]
mod tests;
