//! A tree's outline as data: what `docnav tree --json` prints and the HTTP API's tree endpoint
//! returns, and the location labels (`lines 40–88`, `pages 3–5`) beside each node.

use serde::Serialize;

use super::{NodeId, Tree};

/// A node of the outline: ranges are inclusive `[first, last]`, 1-based, of the node's own text
/// (not its subtree); `references` are the structure numbers of the nodes this node refers to
/// (`["2.1", "4"]`), in order of first mention; `children` stop at the requested depth.
#[derive(Debug, Clone, Serialize)]
pub struct OutlineNode {
    /// Dotted structure number (`""` for the root).
    pub structure: String,
    /// The heading.
    pub title: String,
    /// 1-based source lines (Markdown, text).
    pub lines: Option<[u32; 2]>,
    /// 1-based pages (PDF).
    pub pages: Option<[u32; 2]>,
    /// 1-based paragraphs (Word documents, whose `lines` are then `None`); left out of the JSON
    /// for other formats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paragraphs: Option<[u32; 2]>,
    /// Estimated tokens of the node's own text (chars / 4).
    pub token_count: u32,
    /// Structure numbers of the sections this node refers to.
    pub references: Vec<String>,
    /// Child nodes, in reading order (empty below the depth limit).
    pub children: Vec<OutlineNode>,
}

fn inclusive(range: &Option<std::ops::Range<u32>>) -> Option<[u32; 2]> {
    range
        .as_ref()
        .map(|r| [r.start, r.end.saturating_sub(1).max(r.start)])
}

/// `lines 40–88` / `paragraphs 3–7` (Word) / `pages 3–5` / `page 3` / empty, from the node's own half-open ranges.
pub fn location(tree: &Tree, id: NodeId) -> String {
    let node = tree.node(id);
    if let Some([a, b]) = inclusive(&node.pages) {
        if a == b {
            format!("page {a}")
        } else {
            format!("pages {a}–{b}")
        }
    } else if let Some([a, b]) = inclusive(&node.lines) {
        format!("{}s {a}–{b}", tree.format.location_unit())
    } else {
        String::new()
    }
}

impl OutlineNode {
    /// The outline of `tree` from node `id` down to depth `max_depth` (root depth 0; `u32::MAX`
    /// for all). `id` must be a node of `tree`.
    pub fn of(tree: &Tree, id: NodeId, max_depth: u32) -> OutlineNode {
        let node = tree.node(id);
        // A Word document's `lines` are paragraph numbers.
        let (lines, paragraphs) = match tree.format {
            super::DocFormat::Docx => (None, inclusive(&node.lines)),
            _ => (inclusive(&node.lines), None),
        };
        OutlineNode {
            structure: node.structure.clone(),
            title: node.title.clone(),
            lines,
            pages: inclusive(&node.pages),
            paragraphs,
            token_count: node.token_count,
            references: node
                .references
                .iter()
                .filter_map(|r| tree.get(*r).map(|n| n.structure.clone()))
                .collect(),
            children: if node.depth < max_depth {
                node.children
                    .iter()
                    .map(|c| OutlineNode::of(tree, *c, max_depth))
                    .collect()
            } else {
                Vec::new()
            },
        }
    }
}
