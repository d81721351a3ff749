//! `grep [-i] [-c] [-m MAX] <regex> [path]`: a regular expression over the titles and text of a
//! subtree (every document at `/`), as `path:line: text` lines.
//!
//! The syntax is the Rust `regex` crate's (<https://docs.rs/regex/latest/regex/#syntax>), in
//! multi-line mode (`^`/`$` match at line ends): `a|b`, classes, `(?i)`, `\b`; no look-around and
//! no backreferences; `\` escapes a special character (`\.`, `\(`).
//!
//! Line numbers follow the one convention of the command language: `path:N` is line
//! N of the text `cat path` prints, counted from 1 on the section's heading, in every format; so
//! `cat path:N` reads on from that very line. `path` is always the section whose own text holds
//! the line. A hit in a table's body is preceded (once per table) by the table's header line,
//! `path:N: [table header] | … |`, which is not counted as a hit. A line longer than a shown line
//! is shown around its match ([`one_line_around`]).

use regex::{Regex, RegexBuilder};

use super::{count_option, options, target, try_out, usage_error, Command, Example};
use crate::nav::args::OptSpec;
use crate::nav::path::{display_path, load, Place};
use crate::nav::render::{one_line, one_line_around};
use crate::nav::{CommandOutput, NavError, Session};
use crate::tree::{tables, Node, NodeId, Tree};

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
        "regex (Rust syntax) over the text below a section: `path:N: text`, N a line of `cat path` (at most 30 unless -m)"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, SPEC));
        let max = try_out!(count_option(self, &parsed, "max-count")).unwrap_or(DEFAULT_MAX);
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
                for card in session.library().all_cards() {
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
            let lines = ContentLines::of(node);
            // The root's title is the document's (maybe a file stem), not text of the document.
            if id != NodeId::ROOT {
                if let Some(m) = self.regex.find(&node.title) {
                    self.hit(&path, 1, &node.title, m.range());
                }
            }
            let text = node.content.as_str();
            let mut at = 0;
            let mut line_no = 0usize;
            let mut counted_to = 0;
            let mut shown_header: Option<usize> = None;
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
                // A hit in a table's body: its header line first, once per table.
                if let Some(table) = tables::header_at(text, start) {
                    if shown_header != Some(table.line) {
                        shown_header = Some(table.line);
                        self.context(&path, lines.rendered(table.line - 1), table.text);
                    }
                }
                let span = m.start() - start..m.end().min(end) - start;
                self.hit(&path, lines.rendered(line_no), &text[start..end], span);
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

    /// Record one matching line, line `number` of `cat path`, whose match is the byte range
    /// `at` of `line`: a long line is shown around its match.
    fn hit(&mut self, path: &str, number: usize, line: &str, at: std::ops::Range<usize>) {
        self.total += 1;
        if self.count_only || self.total > self.max {
            return;
        }
        self.lines.push(format!(
            "{path}:{number}: {}",
            one_line_around(line, at, LINE_CHARS)
        ));
    }

    /// Show a line that is no hit but tells what the next hits are (a table's header), as
    /// `path:N: [table header] text`; not counted, not shown past the hit limit.
    fn context(&mut self, path: &str, number: usize, line: &str) {
        if self.count_only || self.total >= self.max {
            return;
        }
        self.lines.push(format!(
            "{path}:{number}: [table header] {}",
            one_line(line, LINE_CHARS)
        ));
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

/// Where a node's own content sits in [`crate::tree::Tree::text_of`] of that node: its heading
/// line and a blank line (when it has a title), then the content without its leading blank lines.
pub(super) struct ContentLines {
    /// Rendered line of the content's first shown line (3 under a heading, else 1).
    first: usize,
    /// Blank lines at the start of the raw content, not shown.
    skipped: usize,
    /// Lines of the content as shown (trailing whitespace trimmed).
    shown: usize,
}

impl ContentLines {
    pub(super) fn of(node: &Node) -> ContentLines {
        let raw = node.content.as_str();
        let trimmed = raw.trim_start_matches(['\n', '\r']);
        let skipped = raw[..raw.len() - trimmed.len()].matches('\n').count();
        let shown = trimmed.trim_end().lines().count();
        ContentLines {
            first: if node.title.is_empty() { 1 } else { 3 },
            skipped,
            shown,
        }
    }

    /// The rendered line of raw content line `raw` (0-based); a blank line outside the shown
    /// text (before or after it) counts as the nearest shown line.
    pub(super) fn rendered(&self, raw: usize) -> usize {
        let shown = raw
            .saturating_sub(self.skipped)
            .min(self.shown.saturating_sub(1));
        self.first + shown
    }
}
