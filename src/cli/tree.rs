//! `docnav tree <doc_id>`: a document's outline with structure numbers and locations.

use std::fmt::Write as _;
use std::process::ExitCode;

use super::{output, GlobalArgs};
use crate::tree::outline::{location, OutlineNode};
use crate::tree::NodeId;
use crate::workspace::{Library, Workspace, WorkspaceError};

/// Arguments of `docnav tree`.
#[derive(Debug, clap::Args)]
pub struct TreeArgs {
    /// Document id as listed by `docnav docs`, or one of its aliases.
    doc_id: String,
    /// Show nodes down to this depth (1 = top-level sections).
    #[arg(long, short = 'd', value_name = "N")]
    depth: Option<u32>,
    /// Print nested JSON (`children` arrays).
    #[arg(long)]
    json: bool,
}

/// Run `docnav tree`.
pub fn run(global: &GlobalArgs, args: TreeArgs) -> anyhow::Result<ExitCode> {
    let ws = Workspace::open(&global.workspace)?;
    // An alias (a duplicate source kept once) shows its document, under the document's id.
    let doc_id = ws
        .resolve_id(&args.doc_id)
        .ok_or_else(|| WorkspaceError::NotFound(args.doc_id.clone()))?;
    let doc = ws.document(&doc_id)?;
    let tree = &doc.tree;
    let max_depth = args.depth.unwrap_or(u32::MAX);
    if args.json {
        let mut s = serde_json::to_string_pretty(&OutlineNode::of(tree, NodeId::ROOT, max_depth))?;
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
                format!("{} ({doc_id})", node.title)
            } else {
                format!("{indent}{} {}", node.structure, node.title)
            };
            // EPUB nodes have no location: no empty parentheses.
            let _ = match location(tree, id) {
                at if at.is_empty() => writeln!(s, "{label}"),
                at => writeln!(s, "{label}  ({at})"),
            };
        }
        output::print_human(&s)?;
    }
    Ok(ExitCode::SUCCESS)
}
