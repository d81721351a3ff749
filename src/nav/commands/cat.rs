//! `cat [-o OFFSET | -l LINE] [-n COUNT] [--budget N] [path[:LINE[-LAST]]]`: read a node with its
//! subtree, collected as evidence; `path:N-M` (or `-n COUNT path:N`) reads exactly lines N to M of
//! that text and collects only them.
//!
//! The text is [`Tree::text_of`](crate::tree::Tree::text_of) under a location header. Past the
//! budget (chars) the page stops at a paragraph or line boundary and a note says where it stopped,
//! which limit cut it, and the exact command that reads on; `OFFSET`s are chars of the full text,
//! so the pages concatenate to it. `path:N` (as `grep` prints it) or `-l N` starts the page at line
//! N of that text, line 1 being the section's heading — the one line-number convention of the
//! command language (see `grep`).
//! A page or line range that starts inside a table's body begins with the table's header line,
//! marked `[table header, line N]` ([`crate::tree::tables`]), so a row read alone keeps its
//! columns' names.
//! The last page ends with the sections the text refers to outside itself
//! ([`Node::references`](crate::tree::Node::references): "see Section 2.1", links to headings), so
//! a reader can follow them: `[see also: #2.1 Searching, #3 End]`.

use std::collections::HashMap;

use super::{count_option, one_path, options, target, try_out, usage_error, Command, Example};
use crate::index::cross_refs::named::{mention_keys, named_document};
use crate::nav::args::OptSpec;
use crate::nav::path::Place;
use crate::nav::render::{char_to_byte, location_header, page, Page};
use crate::nav::{CommandOutput, Effect, Evidence, NavError, Session, Status};
use crate::tree::references::external::{anchor_node, link_keys, target_document};
use crate::tree::references::section_node;
use crate::tree::{tables, NodeId, Tree};

/// At most this many sections are named in a `see also` line; the rest are counted.
pub const SEE_ALSO_MAX: usize = 8;

/// `cat`.
pub struct Cat;

static EXAMPLES: &[Example] = &[
    Example {
        command: "cat /ripgrep-guide/1/2",
        description: "read a section and its subsections (first page of the budget)",
    },
    Example {
        command: "cat -o 4000 /ripgrep-guide/1/2",
        description: "read on from char 4000, as the note at the end of a page says",
    },
    Example {
        command: "cat --budget 500 /multilingual",
        description: "read with a smaller page (chars)",
    },
    Example {
        command: "cat /ripgrep-guide/1/10:5",
        description: "read from line 5 of the section's text, where `grep` found a match",
    },
    Example {
        command: "cat /ripgrep-guide/1/10:5-9",
        description: "read exactly lines 5 to 9 (collects only them)",
    },
    Example {
        command: "cat -n 3 /ripgrep-guide/1/10:5",
        description: "read 3 lines from line 5",
    },
];

const SPEC: &[OptSpec] = &[
    OptSpec::value(Some('o'), "offset"),
    OptSpec::value(Some('l'), "line"),
    OptSpec::value(Some('n'), "lines"),
    OptSpec::value(None, "budget"),
];

impl Command for Cat {
    fn name(&self) -> &'static str {
        "cat"
    }
    fn usage(&self) -> &'static str {
        "cat [-o OFFSET | -l LINE] [-n COUNT] [--budget CHARS] [path[:LINE[-LAST]]]"
    }
    fn summary(&self) -> &'static str {
        "read a section with its subsections (collected as evidence), paged by the output budget; path:N or -l N starts at line N (as grep prints it); path:N-M or -n COUNT path:N reads exactly those lines"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let asked = try_out!(self.request(args, session)?);
        let Asked {
            place,
            lines,
            offset,
            budget,
            budget_given,
        } = asked;
        let Place::Node { doc_id, doc, node } = &place else {
            return Ok(CommandOutput::error(
                "cat: / is the list of documents, not a text (try ls /, then cat /doc_id)",
            ));
        };
        let tree = &doc.tree;
        let text = tree.text_of(*node);
        let total_lines = text.lines().count();
        let offset = match lines {
            None => offset,
            Some((0, _)) => {
                return Ok(CommandOutput::error(
                    "cat: lines count from 1 (the heading)",
                ))
            }
            Some((n, _)) => match line_start(&text, n) {
                Some(at) => at,
                None => {
                    return Ok(CommandOutput::error(format!(
                        "cat: line {n} is past the end of {} ({total_lines} lines)",
                        place.path(),
                    )))
                }
            },
        };
        // A line range reads exactly its lines (cut by the budget only when longer).
        let range_end = lines
            .and_then(|(_, last)| last)
            .map(|m| line_start(&text, m + 1).unwrap_or_else(|| text.chars().count()));
        let header = location_header(doc_id, tree, *node);
        let whole = page(&text, offset, budget);
        let p = match range_end {
            None => whole,
            Some(end) => {
                let start_byte = char_to_byte(&text, offset);
                let end_byte = start_byte + char_to_byte(&text[start_byte..], end - offset);
                let cut = page(&text[start_byte..end_byte], 0, budget);
                Page {
                    body: cut.body,
                    chars: offset..offset + cut.chars.end,
                    total: whole.total,
                }
            }
        };
        if offset > 0 && offset >= p.total {
            return Ok(CommandOutput::error(format!(
                "cat: offset {offset} is past the end of {} ({} chars)",
                place.path(),
                p.total
            )));
        }
        let mut out = String::with_capacity(p.body.len() + header.len() + 200);
        out.push_str(&header);
        out.push('\n');
        if p.total == 0 {
            out.push_str("(empty section)\n");
        }
        // A read that starts inside a table's body shows the table's header line above it.
        if p.chars.start > 0 {
            let start_byte = char_to_byte(&text, p.chars.start);
            if let Some(table) = tables::header_at(&text, start_byte) {
                out.push_str(&table.label());
                out.push('\n');
            }
        }
        out.push_str(p.body);
        if !p.body.ends_with('\n') && !p.body.is_empty() {
            out.push('\n');
        }
        // On the last page, before its note (the paging note stays the last line).
        if p.chars.end >= p.total {
            if let Some(line) = see_also(session, doc_id, tree, *node) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        let has_children = !tree.node(*node).children.is_empty();
        out.push_str(&paging_note(
            &place.path(),
            &p,
            &text,
            (range_end, lines),
            budget,
            budget_given,
            has_children,
        ));
        let evidence = Evidence {
            doc_id: doc_id.clone(),
            node: *node,
            chars: p.chars.clone(),
            total_chars: p.total,
            by_lines: range_end.is_some(),
        };
        session.push_evidence(evidence.clone());
        Ok(CommandOutput {
            text: out,
            status: Status::Ok,
            effect: Effect::Evidence(evidence),
        })
    }
}

/// What a `cat` asks for, its arguments checked: the place, the line range (first line, last
/// line when a range or a count was given), the char offset, the output budget and whether
/// `--budget` gave it.
struct Asked {
    place: Place,
    lines: Option<(usize, Option<usize>)>,
    offset: usize,
    budget: usize,
    budget_given: bool,
}

/// `Ok(v)` is `v`; `Err(out)` returns `Ok(Err(out))`: a usage error or an error the model sees.
macro_rules! or_out {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(out) => return Ok(Err(out)),
        }
    };
}

impl Cat {
    /// Parse and check `args`: `Ok(Err(out))` is the output telling what is wrong with them.
    ///
    /// Errors: a fatal session error while resolving the path.
    fn request(
        &self,
        args: &[String],
        session: &mut Session,
    ) -> Result<Result<Asked, CommandOutput>, NavError> {
        let parsed = or_out!(options(self, args, SPEC));
        let offset = or_out!(count_option(self, &parsed, "offset")).unwrap_or(0);
        let budget = or_out!(parsed
            .count("budget")
            .and_then(|b| match b {
                Some(0) => Err("--budget needs at least 1 char".to_string()),
                b => Ok(b),
            })
            .map_err(|e| usage_error(self, Some(&e))))
        .unwrap_or(session.budget());
        let line = or_out!(count_option(self, &parsed, "line"));
        let count = or_out!(parsed
            .count("lines")
            .and_then(|n| match n {
                Some(0) => Err("-n needs at least 1 line".to_string()),
                n => Ok(n),
            })
            .map_err(|e| usage_error(self, Some(&e))));
        let path = or_out!(one_path(self, &parsed));
        let (place, lines) = match (path, line) {
            (Some(p), line) => match session.resolve(p)? {
                Ok(place) => (place, line.map(|n| (n, None))),
                Err(why) => match (split_line(p), line) {
                    (Some((prefix, n, last)), None) => match session.resolve(prefix)? {
                        Ok(place) => (place, Some((n, last))),
                        Err(_) => return Ok(Err(CommandOutput::error(format!("cat: {why}")))),
                    },
                    _ => return Ok(Err(CommandOutput::error(format!("cat: {why}")))),
                },
            },
            (None, line) => (
                or_out!(target(self, session, None)?),
                line.map(|n| (n, None)),
            ),
        };
        if lines.is_some() && parsed.value("offset").is_some() {
            return Ok(Err(usage_error(
                self,
                Some("give a line or an offset (-o), not both"),
            )));
        }
        let lines = match (lines, count) {
            (Some((_, Some(_))), Some(_)) => {
                return Ok(Err(usage_error(
                    self,
                    Some("give a line range (path:N-M) or -n COUNT, not both"),
                )))
            }
            (Some((n, None)), Some(c)) => Some((n, Some(n + c - 1))),
            (None, Some(_)) => {
                return Ok(Err(usage_error(
                    self,
                    Some("-n COUNT reads COUNT lines from a line: cat -n 5 path:N"),
                )))
            }
            (lines, None) => lines,
        };
        if let Some((n, Some(m))) = lines {
            if m < n {
                return Ok(Err(CommandOutput::error(format!(
                    "cat: the range {n}-{m} ends before it starts (write path:N-M with N ≤ M)"
                ))));
            }
        }
        Ok(Ok(Asked {
            place,
            lines,
            offset,
            budget,
            budget_given: parsed.value("budget").is_some(),
        }))
    }
}

/// The note that ends a read of `p` (a page of `text`, the section at `path`): which lines were
/// shown and how to read on — the rest of a line range cut by the `budget`, the whole section
/// after a range, the next page (`budget_given`: the budget came from `--budget`; with
/// `has_children` the subsections are offered too), or the end reached; nothing for a whole
/// section shown at once. `asked` is the range's end char and the lines asked for.
fn paging_note(
    path: &str,
    p: &Page,
    text: &str,
    asked: (Option<usize>, Option<(usize, Option<usize>)>),
    budget: usize,
    budget_given: bool,
    has_children: bool,
) -> String {
    let total_lines = text.lines().count();
    let (first, last) = (
        line_of(text, p.chars.start),
        line_of(text, p.chars.end.saturating_sub(1).max(p.chars.start)),
    );
    let shown_lines = match (first, last) {
        (a, b) if a == b => format!("line {a} of {total_lines}"),
        (a, b) => format!("lines {a}–{b} of {total_lines}"),
    };
    match asked {
        (Some(end), Some((_, Some(asked_last)))) if p.chars.end < end => {
            // A line cut in its middle is read again whole.
            let next = if p.body.ends_with('\n') {
                last + 1
            } else {
                last
            };
            format!(
                "[{shown_lines} shown: the range is longer than the {budget}-char output budget; read on: cat {path}:{next}-{asked_last}]"
            )
        }
        (Some(_), _) => {
            format!("[{shown_lines}: the lines asked for; the whole section: cat {path}]")
        }
        (None, _) if p.chars.end < p.total => {
            let cut = if p.body.ends_with("\n\n") {
                "a paragraph break"
            } else if p.body.ends_with('\n') {
                "a line break"
            } else {
                "its last char"
            };
            let limit = if budget_given {
                format!("--budget {budget}")
            } else {
                format!("the {budget}-char output budget")
            };
            let mut note = format!(
                "[chars {}–{} of {} shown ({shown_lines}): page cut at {cut} within {limit}; read on: cat -o {} {path}",
                p.chars.start, p.chars.end, p.total, p.chars.end
            );
            if has_children {
                note.push_str(&format!(" — or ls {path} and cat one section"));
            }
            note.push(']');
            note
        }
        (None, _) if p.chars.start > 0 => format!(
            "[chars {}–{} of {} shown ({shown_lines}); end of {path}]",
            p.chars.start, p.chars.end, p.total
        ),
        (None, _) => String::new(),
    }
}

/// `name:N` or `name:N-M` split into `name`, line `N` and the last line `M` when it ends with `:`
/// and digits (a range: two runs of digits joined by `-`).
fn split_line(path: &str) -> Option<(&str, usize, Option<usize>)> {
    let (prefix, spec) = path.rsplit_once(':')?;
    let digits = |d: &str| -> Option<usize> {
        if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        d.parse().ok()
    };
    let (first, last) = match spec.split_once('-') {
        Some((a, b)) => (digits(a)?, Some(digits(b)?)),
        None => (digits(spec)?, None),
    };
    Some((if prefix.is_empty() { "." } else { prefix }, first, last))
}

/// Char offset where line `n` (1-based) of `text` starts; `None` past its last line.
fn line_start(text: &str, n: usize) -> Option<usize> {
    if n == 1 {
        return (!text.is_empty()).then_some(0);
    }
    let mut line = 1;
    for (i, c) in text.chars().enumerate() {
        if c == '\n' {
            line += 1;
            if line == n {
                return (i + 1 < text.chars().count()).then_some(i + 1);
            }
        }
    }
    None
}

/// The 1-based line of `text` holding char `at`.
fn line_of(text: &str, at: usize) -> usize {
    1 + text.chars().take(at).filter(|&c| c == '\n').count()
}

/// `[see also: #2.1 Searching, /ripgrep-guide/#1.5 Configuration file]`: the sections the text of
/// `node` and its descendants refers to outside `node`'s subtree, in reading order of the
/// referring nodes (within one, its references to this document first), at most
/// [`SEE_ALSO_MAX`] (then `(+N more)`); `None` when there are none.
///
/// A section of this document is `#2.1 Title` (its root `/doc_id Title`). A link to another
/// indexed document, or another document named in the text (`FHS, section 4.9`),
/// is resolved now, against the library's catalog ([`see_also_targets`]) and shown as
/// `/doc_id/#2.1 Title` (`/doc_id Title` for its root, or when the anchor or section names no
/// heading there); what does not resolve is left out.
fn see_also(session: &Session, doc_id: &str, tree: &Tree, node: NodeId) -> Option<String> {
    let targets = see_also_targets(session.library().as_ref(), doc_id, tree, node);
    if targets.is_empty() {
        return None;
    }
    let shown: Vec<String> = targets
        .iter()
        .take(SEE_ALSO_MAX)
        .map(|t| match (t.doc_id == doc_id, t.structure.is_empty()) {
            (true, false) => format!("#{} {}", t.structure, t.title),
            (_, true) => format!("/{} {}", t.doc_id, t.title),
            (false, false) => format!("/{}/#{} {}", t.doc_id, t.structure, t.title),
        })
        .collect();
    let more = targets.len().saturating_sub(SEE_ALSO_MAX);
    let more = if more > 0 {
        format!(" (+{more} more)")
    } else {
        String::new()
    };
    Some(format!("[see also: {}{more}]", shown.join(", ")))
}

/// A section another section's text refers to: in the same document or in another indexed one.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SeeAlso {
    /// The target's document.
    pub doc_id: String,
    /// The target's structure number (`""`: the document's root).
    pub structure: String,
    /// The target's title (the document's title for a root).
    pub title: String,
}

/// The sections the text of `node` (of `doc_id`, whose tree is `tree`) and its descendants
/// refers to outside `node`'s subtree, each once, in reading order of the referring nodes
/// (within one, its references to this document first): what `cat` lists as `[see also: …]`
/// and the web Reader shows as links. A link to another indexed document is resolved against
/// `library`'s catalog ([`target_document`], [`anchor_node`]), and so is another document named
/// in the text, `FHS, section 4.9` ([`named_document`], [`section_node`]; the whole document
/// when the section is not found there); links to files that are not indexed, names that no
/// single other document answers to, and documents whose tree cannot be loaded are left out.
pub fn see_also_targets(
    library: &dyn crate::workspace::Library,
    doc_id: &str,
    tree: &Tree,
    node: NodeId,
) -> Vec<SeeAlso> {
    let card = library.card(doc_id);
    let source = card.as_ref().map_or("", |c| c.source.as_str());
    let mut targets: Vec<SeeAlso> = Vec::new();
    // Names resolved so far (one catalog pass per distinct name), and the documents the
    // current node links to.
    let mut named: HashMap<(&str, bool), Option<String>> = HashMap::new();
    let mut linked: Vec<String> = Vec::new();
    let local = |r: NodeId| {
        let target = tree.node(r);
        SeeAlso {
            doc_id: doc_id.to_string(),
            structure: target.structure.clone(),
            title: target.title.clone(),
        }
    };
    for n in tree.preorder(node) {
        for &r in &tree.node(n).references {
            if !tree.is_ancestor_or_self(node, r) {
                push(&mut targets, local(r));
            }
        }
        linked.clear();
        for link in tree.links.external.iter().filter(|l| l.from == n) {
            // The catalog is asked for the documents filed under the link's path and file name
            // only, then `target_document` picks among them.
            let candidates = library.cards_with_keys(&link_keys(source, &link.file));
            let catalog: Vec<(&str, &str)> = candidates
                .iter()
                .map(|c| (c.doc_id.as_str(), c.source.as_str()))
                .collect();
            let Some(other) = target_document(source, &link.file, &catalog).map(str::to_string)
            else {
                continue;
            };
            linked.push(other.clone());
            let other = other.as_str();
            if other == doc_id {
                let r = link
                    .anchor
                    .as_deref()
                    .and_then(|a| anchor_node(tree, a))
                    .unwrap_or(NodeId::ROOT);
                if !tree.is_ancestor_or_self(node, r) {
                    push(&mut targets, local(r));
                }
                continue;
            }
            let Ok(doc) = library.document(other) else {
                continue;
            };
            let r = link
                .anchor
                .as_deref()
                .and_then(|a| anchor_node(&doc.tree, a));
            push(&mut targets, other_document(other, &doc.tree, r));
        }
        for mention in tree.links.named.iter().filter(|m| m.from == n) {
            let key = (mention.name.as_str(), mention.section.is_some());
            let other = named.entry(key).or_insert_with(|| {
                // The mentioning document and those filed under the mention's forms only;
                // `named_document` decides among them.
                let mut candidates = library.cards_with_keys(&mention_keys(mention));
                if let Some(card) = &card {
                    if !candidates.iter().any(|c| c.doc_id == doc_id) {
                        candidates.push(card.clone());
                    }
                }
                named_document(mention, doc_id, tree, &candidates).map(str::to_string)
            });
            let Some(other) = other.clone() else {
                continue;
            };
            let other = other.as_str();
            let Ok(doc) = library.document(other) else {
                continue;
            };
            let r = mention
                .section
                .as_deref()
                .and_then(|s| section_node(&doc.tree, s));
            // `[See the FAQ for details.](FAQ.md#colors)`: the link already says where.
            let named_elsewhere = r.is_none() && linked.iter().any(|l| l == other);
            if !named_elsewhere {
                push(&mut targets, other_document(other, &doc.tree, r));
            }
        }
    }
    targets
}

/// Add `t` to `targets` unless it is there.
fn push(targets: &mut Vec<SeeAlso>, t: SeeAlso) {
    if !targets.contains(&t) {
        targets.push(t);
    }
}

/// The see-also entry for node `r` of another document `doc_id` whose tree is `t`: its root
/// (the document's title) when `r` is `None` or the root.
fn other_document(doc_id: &str, t: &Tree, r: Option<NodeId>) -> SeeAlso {
    match r.map(|r| t.node(r)) {
        Some(n) if !n.structure.is_empty() => SeeAlso {
            doc_id: doc_id.to_string(),
            structure: n.structure.clone(),
            title: n.title.clone(),
        },
        _ => SeeAlso {
            doc_id: doc_id.to_string(),
            structure: String::new(),
            title: t.title().to_string(),
        },
    }
}
