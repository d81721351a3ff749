//! The document tree (DESIGN.md §1): an arena of [`Node`]s addressed by [`NodeId`].
//!
//! Node 0 is the document root. Reading order is pre-order. A node's `content` is its own text
//! only; [`Tree::text_of`] renders a node together with its whole subtree.

pub mod build;
mod fence;
pub mod outline;
pub mod parts;
pub mod references;
pub mod summary;
pub mod tables;

use std::ops::Range;

use serde::{Deserialize, Serialize};

pub use crate::parse::DocFormat;
pub use build::{build_tree, build_tree_with, BuildOptions};
pub use summary::SummaryStrategy;

/// Index of a node inside its [`Tree`]'s arena. `NodeId(0)` is always the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The document root.
    pub const ROOT: NodeId = NodeId(0);

    /// The arena index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One section of a document (DESIGN.md §1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Heading text (plain, inline markup removed). The root carries the document title.
    pub title: String,
    /// The node's own text (not its children's), without its heading line.
    pub content: String,
    /// Short summary (≤ 200 chars), see [`SummaryStrategy`].
    pub summary: String,
    /// Dotted 1-based position among siblings, `"2.1.3"`; the root is `""`.
    pub structure: String,
    /// Depth in the tree; the root is 0.
    pub depth: u32,
    /// Parent node; `None` only for the root.
    pub parent: Option<NodeId>,
    /// Children in reading order.
    pub children: Vec<NodeId>,
    /// 1-based source lines, end exclusive (Markdown, text and HTML documents); in a Word
    /// document, 1-based paragraph numbers ([`DocFormat::location_unit`]).
    pub lines: Option<Range<u32>>,
    /// 1-based PDF pages, end exclusive (PDF documents).
    pub pages: Option<Range<u32>>,
    /// Estimated tokens of `title` + `content` (chars / 4, rounded up).
    pub token_count: u32,
    /// Nodes this node's own `content` refers to — Markdown links to headings (`[x](#usage)`),
    /// "see Section 2.1", "§2.1", "Chapter 3" — in order of first mention, each once, never the
    /// node itself (see [`references`]).
    #[serde(default)]
    pub references: Vec<NodeId>,
}

/// Estimate tokens of a text as chars / 4, rounded up (DESIGN.md §1).
pub fn estimate_tokens(text: &str) -> u32 {
    let chars = text.chars().count();
    u32::try_from(chars.div_ceil(4)).unwrap_or(u32::MAX)
}

/// A document as a tree of sections, plus the document-level facts the tree was built from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// The arena; `nodes[0]` is the root.
    pub nodes: Vec<Node>,
    /// Source format.
    pub format: DocFormat,
    /// Front-matter key/values (Markdown) or PDF info entries, as strings.
    #[serde(default)]
    pub metadata: Vec<(String, String)>,
    /// How summaries were made.
    pub summary_strategy: SummaryStrategy,
    /// 1-based PDF pages that had no extractable text (kept as nodes with empty content).
    #[serde(default)]
    pub pages_without_text: Vec<u32>,
    /// Number of pages (PDF) or lines (Markdown/text) of the source.
    pub source_units: u32,
    /// Links to other documents and this document's explicit anchors, kept unresolved: what
    /// another file is, and which heading an anchor names there, is known only when the tree is
    /// read against a catalog ([`references::external`]).
    #[serde(default)]
    pub links: Links,
    /// Nodes from this index on are parts the build stage split a large leaf into (titled by
    /// what they hold, [`parts::part_title`]); `nodes.len()` when no leaf was split.
    #[serde(default)]
    pub first_split: u32,
}

/// A document's links to other files and its own link targets, as found at build time.
/// Resolved when read: [`references::external`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Links {
    /// Links to other files (`[guide](GUIDE.md#configuration-file)`), in reading order of the
    /// linking nodes and, within a node, of first mention; each `(from, file, anchor)` once.
    pub external: Vec<ExternalLink>,
    /// Explicit anchors (`{#id}`, `<h3 name="x">`, `<a name="x">` before a heading or inside a
    /// section) and the node each names, headings first; GitHub heading slugs are not stored (they
    /// follow from the titles, [`references::external::anchor_node`]).
    pub anchors: Vec<(String, NodeId)>,
    /// Other documents named in the text (`except those listed in FHS, section 4.9`, `see
    /// ‘An Introduction to R’`), in reading order of the naming nodes and, within a node, of
    /// first mention; each `(from, name, section)` once. Which document a name means depends
    /// on the catalog: resolved when read ([`crate::index::cross_refs::named`]). Absent (empty) in trees
    /// serialized before it existed.
    #[serde(default)]
    pub named: Vec<DocumentMention>,
}

/// A node's text naming another document by its title, an acronym of it or its file name,
/// possibly with one of its sections; kept as written (see `references::cited` for what is
/// found).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentMention {
    /// The node whose own content holds the mention.
    pub from: NodeId,
    /// The name as written, without quotes or code marks and with whitespace collapsed: `FHS`,
    /// `An Introduction to R`, `Node.js fs documentation`.
    pub name: String,
    /// The section as written, keyword and number (`section 4.9`, `Chapter 3`, `§2.1`);
    /// `None` when the mention names the whole document.
    pub section: Option<String>,
}

/// A link from a node to another file, possibly to an anchor in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalLink {
    /// The node whose own content holds the link.
    pub from: NodeId,
    /// The target's path as written (relative, percent-decoded, without the fragment):
    /// `GUIDE.md`, `commandline/build.md`, `../api/fs.md`.
    pub file: String,
    /// The fragment after `#` (percent-decoded), if any.
    pub anchor: Option<String>,
}

impl Tree {
    /// True when `id` is a part the build stage split off a large leaf (not a heading of the
    /// document).
    pub fn is_split(&self, id: NodeId) -> bool {
        id.0 >= self.first_split
    }

    /// The root node.
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// The node with this id.
    ///
    /// # Panics
    /// Never for ids handed out by this tree; an id from another tree may be out of range, so
    /// callers holding foreign ids use [`Tree::get`].
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The node with this id, or `None` when out of range.
    pub fn get(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.index())
    }

    /// Number of nodes, root included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the tree has only... never: a tree always has a root. Kept for clippy's
    /// `len_without_is_empty`; returns `false` unless the arena is empty (a corrupt file).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Document title (the root's title).
    pub fn title(&self) -> &str {
        &self.root().title
    }

    /// All node ids in reading order (pre-order), starting with `from`.
    pub fn preorder(&self, from: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![from];
        while let Some(id) = stack.pop() {
            out.push(id);
            if let Some(node) = self.get(id) {
                stack.extend(node.children.iter().rev().copied());
            }
        }
        out
    }

    /// Ids from the root down to `id`, both included.
    pub fn ancestors_and_self(&self, id: NodeId) -> Vec<NodeId> {
        let mut chain = vec![id];
        let mut cur = id;
        while let Some(parent) = self.get(cur).and_then(|n| n.parent) {
            chain.push(parent);
            cur = parent;
        }
        chain.reverse();
        chain
    }

    /// The span of `unit` (a node's own `lines` or `pages`, 1-based, end exclusive) over node `id`
    /// and its descendants: the location of [`Tree::text_of`]. `None` when `id` is not a node or
    /// no node of its subtree has one.
    pub fn subtree_span(
        &self,
        id: NodeId,
        unit: impl Fn(&Node) -> Option<std::ops::Range<u32>>,
    ) -> Option<std::ops::Range<u32>> {
        self.get(id)?;
        self.preorder(id)
            .into_iter()
            .filter_map(|n| unit(self.node(n)))
            .reduce(|a, b| a.start.min(b.start)..a.end.max(b.end))
    }

    /// True when `ancestor` is `node` or one of its ancestors.
    pub fn is_ancestor_or_self(&self, ancestor: NodeId, node: NodeId) -> bool {
        let mut cur = Some(node);
        while let Some(id) = cur {
            if id == ancestor {
                return true;
            }
            cur = self.get(id).and_then(|n| n.parent);
        }
        false
    }

    /// Titles from the first level below the root down to `id` (the root's title is not included).
    pub fn title_path(&self, id: NodeId) -> Vec<String> {
        self.ancestors_and_self(id)
            .into_iter()
            .skip(1)
            .map(|n| self.node(n).title.clone())
            .collect()
    }

    /// Leaves (nodes without children) in the subtree of `id`, `id` included.
    pub fn leaf_count(&self, id: NodeId) -> usize {
        self.preorder(id)
            .into_iter()
            .filter(|n| self.node(*n).children.is_empty())
            .count()
    }

    /// Whitespace-separated words of `title` + `content` over the subtree of `id`.
    pub fn word_count(&self, id: NodeId) -> usize {
        self.preorder(id)
            .into_iter()
            .map(|n| {
                let node = self.node(n);
                node.content.split_whitespace().count()
            })
            .sum()
    }

    /// The node addressed by a dotted structure such as `"2.1.3"`; `""` is the root.
    ///
    /// Returns `None` when a component is not a number or the position does not exist.
    pub fn by_structure(&self, structure: &str) -> Option<NodeId> {
        let mut cur = NodeId::ROOT;
        let structure = structure.trim().trim_matches('.');
        if structure.is_empty() {
            return Some(cur);
        }
        for part in structure.split('.') {
            let n: usize = part.trim().parse().ok()?;
            cur = *self.node(cur).children.get(n.checked_sub(1)?)?;
        }
        Some(cur)
    }

    /// The node reached by following child titles from the root, compared case-insensitively
    /// after collapsing whitespace. Returns `None` when any step has no match; the first match
    /// wins when siblings share a title (use [`Tree::by_structure`] to tell those apart).
    pub fn by_title_path<S: AsRef<str>>(&self, path: &[S]) -> Option<NodeId> {
        let mut cur = NodeId::ROOT;
        for title in path {
            let want = normalize_title(title.as_ref());
            cur = *self
                .node(cur)
                .children
                .iter()
                .find(|c| normalize_title(&self.node(**c).title) == want)?;
        }
        Some(cur)
    }

    /// The node's text followed by its subtree in reading order, each descendant under its
    /// heading (`#` repeated by relative depth + 1). The node's own heading comes first.
    ///
    /// The string is allocated once at its final size (an upper bound), so reading a 30 MB
    /// section holds the tree and one copy of its text, not the 2× of a doubling buffer.
    pub fn text_of(&self, id: NodeId) -> String {
        let order = self.preorder(id);
        // Per node: up to 6 `#`, a space, the title, the separators and a line end.
        let bound: usize = order
            .iter()
            .map(|n| self.node(*n))
            .map(|n| n.title.len() + n.content.len() + 12)
            .sum();
        let mut out = String::with_capacity(bound);
        self.for_each_text_piece(id, |_, piece| {
            out.push_str(piece);
            true
        });
        out
    }

    /// The first `max_chars` chars of [`Tree::text_of`] (all of it when shorter) and the char
    /// count of the whole text, without building the whole text: what a search result shows of
    /// a section that may be a whole book.
    pub fn text_head(&self, id: NodeId, max_chars: usize) -> (String, usize) {
        let mut head = String::new();
        let mut head_chars = 0;
        let mut total = 0;
        self.for_each_text_piece(id, |_, piece| {
            let chars = piece.chars().count();
            total += chars;
            if head_chars < max_chars {
                let take = (max_chars - head_chars).min(chars);
                if take == chars {
                    head.push_str(piece);
                } else {
                    head.extend(piece.chars().take(take));
                }
                head_chars += take;
            }
            true
        });
        (head, total)
    }

    /// Call `emit` with the pieces of [`Tree::text_of`] in order (separators, heading marks,
    /// titles, contents); concatenated, they are the text. `emit` returns `false` to stop early.
    /// The 1-based line of [`Tree::text_of`]`(id)` on which each titled node of the subtree has
    /// its heading, in reading order: where a reader of that text shows the node's pages.
    pub fn heading_lines(&self, id: NodeId) -> Vec<(usize, NodeId)> {
        let mut out = Vec::new();
        let mut line = 1;
        let mut last = None;
        self.for_each_text_piece(id, |n, piece| {
            // A node's first piece after its separator is its `#`s (titled nodes only).
            if piece.starts_with('#') && last != Some(n) && !self.node(n).title.is_empty() {
                out.push((line, n));
                last = Some(n);
            }
            line += piece.bytes().filter(|&b| b == b'\n').count();
            true
        });
        out
    }

    fn for_each_text_piece(&self, id: NodeId, mut emit: impl FnMut(NodeId, &str) -> bool) {
        const HASHES: &str = "######";
        let base = self.node(id).depth;
        // Whether anything was emitted, and whether it ends with "\n" / "\n\n".
        let mut started = false;
        let mut ends_nl = false;
        let mut ends_blank = false;
        for n in self.preorder(id) {
            let node = self.node(n);
            if !node.title.is_empty() {
                let level = (node.depth - base + 1).min(6) as usize;
                let sep = match (started, ends_blank, ends_nl) {
                    (false, _, _) | (_, true, _) => "",
                    (true, false, true) => "\n",
                    (true, false, false) => "\n\n",
                };
                for piece in [sep, &HASHES[..level], " ", node.title.as_str(), "\n\n"] {
                    if !piece.is_empty() && !emit(n, piece) {
                        return;
                    }
                }
                started = true;
                ends_nl = true;
                ends_blank = true;
            }
            // Leading blank lines of the content would only widen the gap under the heading.
            let content = node.content.trim_start_matches(['\n', '\r']).trim_end();
            if !content.is_empty() {
                if !emit(n, content) || !emit(n, "\n") {
                    return;
                }
                started = true;
                ends_nl = true;
                ends_blank = false;
            }
        }
    }
}

/// Title normal form used for lookups: lowercase, whitespace collapsed, trimmed.
pub fn normalize_title(title: &str) -> String {
    title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Lookup key of a title or a typed path segment: NFC, whitespace collapsed, lowercase (two
/// titles that read the same on screen have one key).
pub fn title_key(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    normalize_title(&s.nfc().collect::<String>())
}

#[cfg(test)]
mod tests;
