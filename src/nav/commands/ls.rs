//! `ls [path]`: list the children of a node, or the documents at `/`.

use super::{one_path, options, target, try_out, Command, Example};
use crate::nav::path::Place;
use crate::nav::render::{human_size, ls_line, one_line};
use crate::nav::{CommandOutput, NavError, Session};

/// `ls`.
pub struct Ls;

static EXAMPLES: &[Example] = &[
    Example {
        command: "ls /",
        description: "list the documents: number, id, format, size and title",
    },
    Example {
        command: "ls",
        description: "list the sections under the current node",
    },
    Example {
        command: "ls /ripgrep-guide/1",
        description: "list the sections of the first top-level section",
    },
];

impl Command for Ls {
    fn name(&self) -> &'static str {
        "ls"
    }
    fn usage(&self) -> &'static str {
        "ls [path]"
    }
    fn summary(&self) -> &'static str {
        "list sections: `N. Title  [leaves, words]  — summary` (documents at /)"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, &[]));
        let path = try_out!(one_path(self, &parsed));
        let place = try_out!(target(self, session, path)?);
        Ok(CommandOutput::ok(list(session, &place)))
    }
}

/// The listing of a place (also used by the agent's bird's-eye view).
pub(crate) fn list(session: &Session, place: &Place) -> String {
    match place {
        Place::Root => {
            let cards = session.library().cards();
            if cards.is_empty() {
                return "(no documents: run `docnav index <paths>` first)".into();
            }
            let lines: Vec<String> = cards
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    format!(
                        "{}. {}  [{}, {}]  — {}",
                        i + 1,
                        c.doc_id,
                        c.format.as_str(),
                        human_size(c.bytes),
                        one_line(&c.title, 120)
                    )
                })
                .collect();
            lines.join("\n")
        }
        Place::Node { doc, node, .. } => {
            let tree = &doc.tree;
            let children = &tree.node(*node).children;
            if children.is_empty() {
                return format!(
                    "(no sections under {}: {} words here, read them with cat)",
                    place.path(),
                    tree.word_count(*node)
                );
            }
            let lines: Vec<String> = children
                .iter()
                .enumerate()
                .map(|(i, c)| ls_line(tree, i + 1, *c))
                .collect();
            lines.join("\n")
        }
    }
}
