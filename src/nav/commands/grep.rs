//! `grep [-i] [-c] [-m MAX] <regex> [path]`: regex (the `regex` crate, multi-line mode) over the
//! titles and text of a subtree (every document at `/`), as `path:line: text` lines.
//!
//! Line numbers are source lines when the node knows them (Markdown, text); for PDF nodes they
//! are `+N`, the line within the node's own text (`+0` is the title).

use regex::{Regex, RegexBuilder};

use super::{options, target, try_out, usage_error, Command, Example};
use crate::nav::args::OptSpec;
use crate::nav::path::{display_path, load, Place};
use crate::nav::render::one_line;
use crate::nav::{CommandOutput, NavError, Session};
use crate::tree::{Node, NodeId, Tree};

/// `grep`.
pub struct Grep;

/// Matching lines shown without `-m`.
pub const DEFAULT_MAX: usize = 30;

/// Chars of one shown line.
const LINE_CHARS: usize = 160;

/// Compiled regexes larger than this (bytes) are refused as errors, not built.
const REGEX_SIZE_LIMIT: usize = 1 << 22;

static EXAMPLES: &[Example] = &[
    Example {
        command: "grep -i 'max-count' /ripgrep-guide",
        description: "lines matching a regex, case-insensitive, as path:line: text",
    },
    Example {
        command: "grep -c '^\\$ rg' /ripgrep-guide",
        description: "count matching lines per section",
    },
    Example {
        command: "grep -m 5 -i café /",
        description: "across every document, at most 5 lines",
    },
];

const SPEC: &[OptSpec] = &[
    OptSpec::flag('i', "ignore-case"),
    OptSpec::flag('c', "count"),
    OptSpec::value(Some('m'), "max-count"),
];

impl Command for Grep {
    fn name(&self) -> &'static str {
        "grep"
    }
    fn usage(&self) -> &'static str {
        "grep [-i] [-c] [-m MAX] <regex> [path]"
    }
    fn summary(&self) -> &'static str {
        "regex over the text below a section: `path:line: text` (at most 30 lines unless -m)"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, SPEC));
        let max = try_out!(parsed
            .count("max-count")
            .map_err(|e| usage_error(self, Some(&e))))
        .unwrap_or(DEFAULT_MAX);
        let (pattern, path) = match parsed.positional.as_slice() {
            [p] => (p, None),
            [p, path] => (p, Some(path.as_str())),
            [] => return Ok(usage_error(self, Some("no regex given"))),
            _ => return Ok(usage_error(self, Some("too many arguments"))),
        };
        let regex = match RegexBuilder::new(pattern)
            .case_insensitive(parsed.flag("ignore-case"))
            .multi_line(true)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
        {
            Ok(r) => r,
            Err(e) => {
                let why = e.to_string();
                let why = why.lines().last().unwrap_or("invalid regex").trim();
                return Ok(CommandOutput::error(format!(
                    "grep: bad regex '{pattern}': {why}"
                )));
            }
        };
        let place = try_out!(target(self, session, path)?);
        let mut scan = Scan {
            regex,
            max,
            count_only: parsed.flag("count"),
            lines: Vec::new(),
            total: 0,
            sections: 0,
        };
        match &place {
            Place::Root => {
                for card in session.library().cards() {
                    let doc = load(session.library().as_ref(), &card.doc_id)?;
                    scan.subtree(&card.doc_id, &doc.tree, NodeId::ROOT);
                }
            }
            Place::Node { doc_id, doc, node } => scan.subtree(doc_id, &doc.tree, *node),
        }
        Ok(CommandOutput::ok(scan.finish(&place.path(), pattern)))
    }
}

struct Scan {
    regex: Regex,
    max: usize,
    count_only: bool,
    lines: Vec<String>,
    total: usize,
    sections: usize,
}

impl Scan {
    fn subtree(&mut self, doc_id: &str, tree: &Tree, from: NodeId) {
        for id in tree.preorder(from) {
            let node = tree.node(id);
            let path = display_path(doc_id, tree, id);
            let before = self.total;
            let first = content_first_line(node);
            // The root's title is the document's (maybe a file stem), not a source line.
            if id != NodeId::ROOT && self.regex.is_match(&node.title) {
                let line = node.lines.as_ref().map(|r| r.start as usize);
                self.hit(&path, line, 0, &node.title);
            }
            let text = node.content.as_str();
            let mut at = 0;
            let mut line_no = 0usize;
            let mut counted_to = 0;
            while at <= text.len() {
                let Some(m) = self.regex.find_at(text, at) else {
                    break;
                };
                line_no += text[counted_to..m.start()].matches('\n').count();
                let start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
                let end = text[m.start()..]
                    .find('\n')
                    .map_or(text.len(), |i| m.start() + i);
                counted_to = m.start();
                let number = first.map(|f| f as usize + line_no);
                self.hit(&path, number, line_no + 1, &text[start..end]);
                at = end + 1;
            }
            if self.total > before {
                self.sections += 1;
                if self.count_only {
                    self.lines.push(format!("{path}: {}", self.total - before));
                }
            }
        }
    }

    /// Record one matching line: `source` is the source line when known, else `relative` (the
    /// line within the node's text, 0 for the title) is shown as `+N`.
    fn hit(&mut self, path: &str, source: Option<usize>, relative: usize, line: &str) {
        self.total += 1;
        if self.count_only || self.total > self.max {
            return;
        }
        let at = match source {
            Some(n) => n.to_string(),
            None => format!("+{relative}"),
        };
        self.lines
            .push(format!("{path}:{at}: {}", one_line(line, LINE_CHARS)));
    }

    fn finish(self, where_: &str, pattern: &str) -> String {
        if self.total == 0 {
            return format!("grep: no line below {where_} matches '{pattern}'");
        }
        let mut out = self.lines;
        if self.count_only {
            out.push(format!(
                "total: {} line(s) in {} section(s)",
                self.total, self.sections
            ));
        } else if self.total > self.max {
            out.push(format!(
                "… {} more matching line(s) not shown (narrow the regex or the path, or -m)",
                self.total - self.max
            ));
        }
        out.join("\n")
    }
}

/// 1-based source line of the first line of a node's own content: its text runs to the end of
/// its line range, so it starts `lines(content)` lines before the range's end. `None` without
/// source lines (PDF).
fn content_first_line(node: &Node) -> Option<u32> {
    let range = node.lines.as_ref()?;
    let count = u32::try_from(node.content.lines().count()).unwrap_or(u32::MAX);
    Some(range.end.saturating_sub(count).max(range.start))
}
