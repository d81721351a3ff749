//! `findtree <pattern>`: sections whose title matches a glob (`*auth*`) or contains all the
//! given words, case-insensitive, below the cursor (every document at `/`).

use globset::GlobBuilder;

use super::{options, try_out, usage_error, Command, Example};
use crate::nav::path::{display_path, load, Place};
use crate::nav::{CommandOutput, NavError, Session};
use crate::tree::title_key;
use crate::tree::{NodeId, Tree};

/// `findtree`.
pub struct FindTree;

/// Matches listed before the rest are only counted.
pub const MAX_MATCHES: usize = 50;

static EXAMPLES: &[Example] = &[
    Example {
        command: "findtree filtering",
        description: "titles containing the word (case-insensitive)",
    },
    Example {
        command: "findtree '*preprocessor*'",
        description: "titles matching a glob",
    },
];

impl Command for FindTree {
    fn name(&self) -> &'static str {
        "findtree"
    }
    fn usage(&self) -> &'static str {
        "findtree <glob or words…>"
    }
    fn summary(&self) -> &'static str {
        "sections whose title matches a glob (*auth*) or contains the words, below the cursor"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, &[]));
        if parsed.positional.is_empty() {
            return Ok(usage_error(self, Some("no pattern given")));
        }
        let pattern = parsed.positional.join(" ");
        let matcher = if pattern.contains(['*', '?', '[']) {
            match GlobBuilder::new(&title_key(&pattern))
                .case_insensitive(true)
                .literal_separator(false)
                .build()
            {
                Ok(g) => Matcher::Glob(g.compile_matcher()),
                Err(e) => {
                    return Ok(CommandOutput::error(format!(
                        "findtree: bad glob '{pattern}': {e}"
                    )))
                }
            }
        } else {
            Matcher::Words(title_key(&pattern).split(' ').map(String::from).collect())
        };
        let here = session.here()?;
        let mut found = Vec::new();
        match &here {
            Place::Root => {
                for card in session.library().all_cards() {
                    let doc = load(session.library().as_ref(), &card.doc_id)?;
                    collect(&card.doc_id, &doc.tree, NodeId::ROOT, &matcher, &mut found);
                }
            }
            Place::Node { doc_id, doc, node } => {
                collect(doc_id, &doc.tree, *node, &matcher, &mut found)
            }
        }
        if found.is_empty() {
            return Ok(CommandOutput::ok(format!(
                "findtree: no title below {} matches '{pattern}'",
                here.path()
            )));
        }
        let more = found.len().saturating_sub(MAX_MATCHES);
        found.truncate(MAX_MATCHES);
        let mut text = found.join("\n");
        if more > 0 {
            text.push_str(&format!(
                "\n… {more} more match(es) not shown (narrow the pattern or cd first)"
            ));
        }
        Ok(CommandOutput::ok(text))
    }
}

enum Matcher {
    Glob(globset::GlobMatcher),
    Words(Vec<String>),
}

impl Matcher {
    fn is_match(&self, title: &str) -> bool {
        let key = title_key(title);
        match self {
            Matcher::Glob(g) => g.is_match(&key),
            Matcher::Words(words) => words.iter().all(|w| key.contains(w.as_str())),
        }
    }
}

/// `path  Title › Path` lines for matching nodes strictly below `from`, in reading order.
fn collect(doc_id: &str, tree: &Tree, from: NodeId, matcher: &Matcher, out: &mut Vec<String>) {
    for id in tree.preorder(from).into_iter().skip(1) {
        if matcher.is_match(&tree.node(id).title) {
            out.push(format!(
                "{}  {}",
                display_path(doc_id, tree, id),
                tree.title_path(id).join(" › ")
            ));
        }
    }
}
