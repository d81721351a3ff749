//! `head [-n N] [path]`: the first lines of a node's text (with its subtree), not evidence.

use super::{count_option, one_path, options, target, try_out, Command, Example};
use crate::nav::args::OptSpec;
use crate::nav::path::Place;
use crate::nav::render::location_header;
use crate::nav::{CommandOutput, NavError, Session};

/// `head`.
pub struct Head;

/// Lines shown without `-n`.
pub const DEFAULT_LINES: usize = 10;

static EXAMPLES: &[Example] = &[
    Example {
        command: "head /ripgrep-guide/1/2",
        description: "preview the first 10 lines of a section",
    },
    Example {
        command: "head -n 3 /multilingual/1",
        description: "preview the first 3 lines",
    },
];

impl Command for Head {
    fn name(&self) -> &'static str {
        "head"
    }
    fn usage(&self) -> &'static str {
        "head [-n LINES] [path]"
    }
    fn summary(&self) -> &'static str {
        "preview the first lines of a section (default 10; not collected as evidence)"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, &[OptSpec::value(Some('n'), "lines")]));
        let n = try_out!(count_option(self, &parsed, "lines")).unwrap_or(DEFAULT_LINES);
        let path = try_out!(one_path(self, &parsed));
        let place = try_out!(target(self, session, path)?);
        let Place::Node { doc_id, doc, node } = &place else {
            return Ok(CommandOutput::error(
                "head: / is the list of documents, not a text (try ls /)",
            ));
        };
        let text = doc.tree.text_of(*node);
        let total = text.lines().count();
        let mut out = location_header(doc_id, &doc.tree, *node);
        for line in text.lines().take(n) {
            out.push('\n');
            out.push_str(line);
        }
        if total > n {
            out.push_str(&format!(
                "\n[{n} of {total} lines; read all with cat {}]",
                place.path()
            ));
        }
        Ok(CommandOutput::ok(out))
    }
}
