//! `tree [-L depth] [path]`: the outline below a node with structure numbers (usable as `#2.1`).

use super::{count_option, one_path, options, target, try_out, Command, Example};
use crate::nav::args::OptSpec;
use crate::nav::path::{display_path, load, Place};
use crate::nav::render::one_line;
use crate::nav::{CommandOutput, NavError, Session};
use crate::tree::{NodeId, Tree};

/// `tree`.
pub struct TreeCmd;

/// Levels shown without `-L`.
pub const DEFAULT_DEPTH: usize = 2;

static EXAMPLES: &[Example] = &[
    Example {
        command: "tree /ripgrep-guide",
        description: "outline of a document, two levels deep",
    },
    Example {
        command: "tree -L 1 /",
        description: "every document with its top-level sections",
    },
    Example {
        command: "tree -L 3 /multilingual",
        description: "three levels deep",
    },
];

impl Command for TreeCmd {
    fn name(&self) -> &'static str {
        "tree"
    }
    fn usage(&self) -> &'static str {
        "tree [-L DEPTH] [path]"
    }
    fn summary(&self) -> &'static str {
        "outline below a section with structure numbers (default depth 2)"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, &[OptSpec::value(Some('L'), "level")]));
        let depth = try_out!(count_option(self, &parsed, "level")).unwrap_or(DEFAULT_DEPTH);
        let path = try_out!(one_path(self, &parsed));
        let place = try_out!(target(self, session, path)?);
        let mut lines = Vec::new();
        match &place {
            Place::Root => {
                for card in session.library().all_cards() {
                    let doc = load(session.library().as_ref(), &card.doc_id)?;
                    lines.push(format!("/{} — {}", card.doc_id, one_line(&card.title, 120)));
                    outline(&doc.tree, NodeId::ROOT, depth, 1, &mut lines);
                }
            }
            Place::Node { doc_id, doc, node } => {
                let tree = &doc.tree;
                lines.push(format!(
                    "{} — {}",
                    display_path(doc_id, tree, *node),
                    one_line(&tree.node(*node).title, 120)
                ));
                outline(tree, *node, depth, 1, &mut lines);
            }
        }
        Ok(CommandOutput::ok(lines.join("\n")))
    }
}

/// Children of `node` down to `depth` levels, indented two spaces per level below `indent`.
fn outline(tree: &Tree, node: NodeId, depth: usize, indent: usize, lines: &mut Vec<String>) {
    if depth == 0 {
        return;
    }
    for child in &tree.node(node).children {
        let n = tree.node(*child);
        let more = if depth == 1 && !n.children.is_empty() {
            format!("  (+{})", n.children.len())
        } else {
            String::new()
        };
        lines.push(format!(
            "{}{} {}{more}",
            "  ".repeat(indent),
            n.structure,
            one_line(&n.title, 120)
        ));
        outline(tree, *child, depth - 1, indent + 1, lines);
    }
}
