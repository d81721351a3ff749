//! `docnav tree <doc_id>`: a document's outline with structure numbers and locations.

use std::fmt::Write as _;
use std::process::ExitCode;

use serde::Serialize;

use super::{output, GlobalArgs};
use crate::tree::{NodeId, Tree};
use crate::workspace::{Library, Workspace};

/// Arguments of `docnav tree`.
#[derive(Debug, clap::Args)]
pub struct TreeArgs {
    /// Document id as listed by `docnav docs`.
    doc_id: String,
    /// Show nodes down to this depth (1 = top-level sections).
    #[arg(long, short = 'd', value_name = "N")]
    depth: Option<u32>,
    /// Print nested JSON (`children` arrays).
    #[arg(long)]
    json: bool,
}

/// A node in `tree --json`: ranges are inclusive `[first, last]`, 1-based; `references` are the
/// structure numbers of the nodes this node refers to (`["2.1", "4"]`), in order of first mention.
#[derive(Serialize)]
struct JsonNode {
    structure: String,
    title: String,
    lines: Option<[u32; 2]>,
    pages: Option<[u32; 2]>,
    token_count: u32,
    references: Vec<String>,
    children: Vec<JsonNode>,
}

fn inclusive(range: &Option<std::ops::Range<u32>>) -> Option<[u32; 2]> {
    range
        .as_ref()
        .map(|r| [r.start, r.end.saturating_sub(1).max(r.start)])
}

/// `lines 40–88` / `pages 3–5` / empty, from half-open ranges.
pub fn location(tree: &Tree, id: NodeId) -> String {
    let node = tree.node(id);
    if let Some([a, b]) = inclusive(&node.pages) {
        if a == b {
            format!("page {a}")
        } else {
            format!("pages {a}–{b}")
        }
    } else if let Some([a, b]) = inclusive(&node.lines) {
        format!("lines {a}–{b}")
    } else {
        String::new()
    }
}

fn to_json(tree: &Tree, id: NodeId, max_depth: u32) -> JsonNode {
    let node = tree.node(id);
    JsonNode {
        structure: node.structure.clone(),
        title: node.title.clone(),
        lines: inclusive(&node.lines),
        pages: inclusive(&node.pages),
        token_count: node.token_count,
        references: node
            .references
            .iter()
            .filter_map(|r| tree.get(*r).map(|n| n.structure.clone()))
            .collect(),
        children: if node.depth < max_depth {
            node.children
                .iter()
                .map(|c| to_json(tree, *c, max_depth))
                .collect()
        } else {
            Vec::new()
        },
    }
}

/// Run `docnav tree`.
pub fn run(global: &GlobalArgs, args: TreeArgs) -> anyhow::Result<ExitCode> {
    let ws = Workspace::open(&global.workspace)?;
    let doc = ws.document(&args.doc_id)?;
    let tree = &doc.tree;
    let max_depth = args.depth.unwrap_or(u32::MAX);
    if args.json {
        let mut s = serde_json::to_string_pretty(&to_json(tree, NodeId::ROOT, max_depth))?;
        s.push('\n');
        output::print(&s)?;
    } else {
        let mut s = String::new();
        for id in tree.preorder(NodeId::ROOT) {
            let node = tree.node(id);
            if node.depth > max_depth {
                continue;
            }
            let indent = "  ".repeat(node.depth.saturating_sub(1) as usize);
            let label = if node.structure.is_empty() {
                format!("{} ({})", node.title, args.doc_id)
            } else {
                format!("{indent}{} {}", node.structure, node.title)
            };
            let _ = writeln!(s, "{label}  ({})", location(tree, id));
        }
        output::print_human(&s)?;
    }
    Ok(ExitCode::SUCCESS)
}
