//! `ls [path]`: list the children of a node, or the documents at `/`.

use super::{count_option, one_path, options, target, try_out, Command, Example};
use crate::nav::args::OptSpec;
use crate::nav::path::Place;
use crate::nav::render::{human_size, ls_line, one_line};
use crate::nav::{CommandOutput, NavError, Session};

/// Most documents `ls /` reads from the catalog for one listing (the budget usually cuts it
/// sooner).
const ROOT_PAGE: usize = 200;

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
    Example {
        command: "ls --from 10 /ripgrep-guide/1",
        description: "list from section 10 on (long listings say so at the budget)",
    },
];

impl Command for Ls {
    fn name(&self) -> &'static str {
        "ls"
    }
    fn usage(&self) -> &'static str {
        "ls [--from N] [path]"
    }
    fn summary(&self) -> &'static str {
        "list sections: `N. Title  [S subsections, W words]  — summary` (documents at /); --from N starts the list at child N"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, &[OptSpec::value(None, "from")]));
        let from = try_out!(count_option(self, &parsed, "from"))
            .unwrap_or(1)
            .max(1);
        let path = try_out!(one_path(self, &parsed));
        let place = try_out!(target(self, session, path)?);
        Ok(CommandOutput::ok(list(session, &place, from)))
    }
}

/// The note ending a listing of `/` cut after `shown` of `total` documents.
fn more_documents(total: usize, shown: usize) -> String {
    format!(
        "… {} more document(s) not shown; list them with: ls --from {} /",
        total - shown,
        shown + 1
    )
}

/// The listing of a place from child number `from` (1-based), cut at the session budget with a
/// note giving the command that lists the rest (also used by the agent's bird's-eye view).
pub(crate) fn list(session: &Session, place: &Place, from: usize) -> String {
    match place {
        Place::Root => {
            let library = session.library();
            let total = library.document_count();
            if total == 0 {
                return "(no documents: run `docnav index <paths>` first)".into();
            }
            if from > total {
                return format!("(no document number {from} under /: there are {total})");
            }
            // One page of the catalog, cut at the budget like a node's children: the rest is
            // never read.
            let mut out = String::new();
            let mut chars = 0;
            let first = from - 1;
            let cards = library.cards_page(first, ROOT_PAGE);
            for (k, c) in cards.iter().enumerate() {
                let i = first + k;
                let line = format!(
                    "{}. {}  [{}, {}]  — {}",
                    i + 1,
                    c.doc_id,
                    c.format.as_str(),
                    human_size(c.bytes),
                    one_line(&c.title, 120)
                );
                chars += line.chars().count() + 1;
                if chars > session.budget().saturating_sub(120) && i + 1 > from {
                    out.push_str(&more_documents(total, i));
                    return out;
                }
                out.push_str(&line);
                out.push('\n');
            }
            let listed = first + cards.len();
            if listed < total {
                out.push_str(&more_documents(total, listed));
                return out;
            }
            out.truncate(out.trim_end().len());
            out
        }
        Place::Node { doc_id, doc, node } => {
            let tree = &doc.tree;
            let stats = session.stats(doc_id, doc);
            let children = &tree.node(*node).children;
            if children.is_empty() {
                return format!(
                    "(no sections under {}: {} words here, read them with cat)",
                    place.path(),
                    stats.words.get(node.index()).copied().unwrap_or(0)
                );
            }
            // Stop at the budget with a note rather than format every child of a huge node.
            let mut out = String::new();
            let mut chars = 0;
            for (i, c) in children.iter().enumerate().skip(from - 1) {
                let line = ls_line(tree, &stats, i + 1, *c);
                chars += line.chars().count() + 1;
                if chars > session.budget().saturating_sub(120) && i + 1 > from {
                    out.push_str(&format!(
                        "… {} more section(s) not shown; list them with: ls --from {} {}",
                        children.len() - i,
                        i + 1,
                        place.path()
                    ));
                    return out;
                }
                out.push_str(&line);
                out.push('\n');
            }
            if out.is_empty() {
                return format!(
                    "(no section number {from} under {}: it has {})",
                    place.path(),
                    children.len()
                );
            }
            out.pop();
            out
        }
    }
}
