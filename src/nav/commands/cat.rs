//! `cat [-o OFFSET | -l LINE] [--budget N] [path[:LINE]]`: read a node with its subtree, collected
//! as evidence.
//!
//! The text is [`Tree::text_of`](crate::tree::Tree::text_of) under a location header. Past the
//! budget (chars) the page stops at a paragraph or line boundary and a note says where it stopped,
//! which limit cut it, and the exact command that reads on; `OFFSET`s are chars of the full text,
//! so the pages concatenate to it. `path:N` (as `grep` prints it) or `-l N` starts the page at line
//! N of that text, line 1 being the section's heading — the one line-number convention of the
//! command language (see `grep`).
//! The last page ends with the sections the text refers to outside itself
//! ([`Node::references`](crate::tree::Node::references): "see Section 2.1", links to headings), so
//! a reader can follow them: `[see also: #2.1 Searching, #3 End]`.

use super::{one_path, options, target, try_out, usage_error, Command, Example};
use crate::nav::args::OptSpec;
use crate::nav::path::Place;
use crate::nav::render::{location_header, page};
use crate::nav::{CommandOutput, Effect, Evidence, NavError, Session, Status};
use crate::tree::references::external::{anchor_node, target_document};
use crate::tree::{NodeId, Tree};

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
];

const SPEC: &[OptSpec] = &[
    OptSpec::value(Some('o'), "offset"),
    OptSpec::value(Some('l'), "line"),
    OptSpec::value(None, "budget"),
];

impl Command for Cat {
    fn name(&self) -> &'static str {
        "cat"
    }
    fn usage(&self) -> &'static str {
        "cat [-o OFFSET | -l LINE] [--budget CHARS] [path[:LINE]]"
    }
    fn summary(&self) -> &'static str {
        "read a section with its subsections (collected as evidence), paged by the output budget; path:N or -l N starts at line N (as grep prints it)"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, SPEC));
        let offset = try_out!(parsed
            .count("offset")
            .map_err(|e| usage_error(self, Some(&e))))
        .unwrap_or(0);
        let budget = try_out!(parsed
            .count("budget")
            .and_then(|b| match b {
                Some(0) => Err("--budget needs at least 1 char".to_string()),
                b => Ok(b),
            })
            .map_err(|e| usage_error(self, Some(&e))))
        .unwrap_or(session.budget());
        let line = try_out!(parsed
            .count("line")
            .map_err(|e| usage_error(self, Some(&e))));
        let path = try_out!(one_path(self, &parsed));
        let (place, line) = match (path, line) {
            (Some(p), line) => match session.resolve(p)? {
                Ok(place) => (place, line),
                Err(why) => match (split_line(p), line) {
                    (Some((prefix, n)), None) => match session.resolve(prefix)? {
                        Ok(place) => (place, Some(n)),
                        Err(_) => return Ok(CommandOutput::error(format!("cat: {why}"))),
                    },
                    _ => return Ok(CommandOutput::error(format!("cat: {why}"))),
                },
            },
            (None, line) => (try_out!(target(self, session, None)?), line),
        };
        if line.is_some() && parsed.value("offset").is_some() {
            return Ok(usage_error(
                self,
                Some("give a line or an offset (-o), not both"),
            ));
        }
        let Place::Node { doc_id, doc, node } = &place else {
            return Ok(CommandOutput::error(
                "cat: / is the list of documents, not a text (try ls /, then cat /doc_id)",
            ));
        };
        let tree = &doc.tree;
        let text = tree.text_of(*node);
        let offset = match line {
            None => offset,
            Some(0) => {
                return Ok(CommandOutput::error(
                    "cat: lines count from 1 (the heading)",
                ))
            }
            Some(n) => match line_start(&text, n) {
                Some(at) => at,
                None => {
                    return Ok(CommandOutput::error(format!(
                        "cat: line {n} is past the end of {} ({} lines)",
                        place.path(),
                        text.lines().count()
                    )))
                }
            },
        };
        let header = location_header(doc_id, tree, *node);
        let p = page(&text, offset, budget);
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
        let path = place.path();
        let (first, last) = (
            line_of(&text, p.chars.start),
            line_of(&text, p.chars.end.saturating_sub(1).max(p.chars.start)),
        );
        let lines = match (first, last, text.lines().count()) {
            (a, b, total) if a == b => format!("line {a} of {total}"),
            (a, b, total) => format!("lines {a}–{b} of {total}"),
        };
        if p.chars.end < p.total {
            let cut = if p.body.ends_with("\n\n") {
                "a paragraph break"
            } else if p.body.ends_with('\n') {
                "a line break"
            } else {
                "its last char"
            };
            let limit = match parsed.value("budget") {
                Some(_) => format!("--budget {budget}"),
                None => format!("the {budget}-char output budget"),
            };
            out.push_str(&format!(
                "[chars {}–{} of {} shown ({lines}): page cut at {cut} within {limit}; read on: cat -o {} {path}",
                p.chars.start, p.chars.end, p.total, p.chars.end
            ));
            if !tree.node(*node).children.is_empty() {
                out.push_str(&format!(" — or ls {path} and cat one section"));
            }
            out.push(']');
        } else if p.chars.start > 0 {
            out.push_str(&format!(
                "[chars {}–{} of {} shown ({lines}); end of {path}]",
                p.chars.start, p.chars.end, p.total
            ));
        }
        let evidence = Evidence {
            doc_id: doc_id.clone(),
            node: *node,
            chars: p.chars.clone(),
            total_chars: p.total,
        };
        session.push_evidence(evidence.clone());
        Ok(CommandOutput {
            text: out,
            status: Status::Ok,
            effect: Effect::Evidence(evidence),
        })
    }
}

/// `name:N` split into `name` and line `N` when it ends with `:` and digits (`N` ≥ 0).
fn split_line(path: &str) -> Option<(&str, usize)> {
    let (prefix, digits) = path.rsplit_once(':')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((
        if prefix.is_empty() { "." } else { prefix },
        digits.parse().ok()?,
    ))
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
/// indexed document (issue 14.5) is resolved now, against the library's catalog
/// ([`target_document`], [`anchor_node`]) and shown as `/doc_id/#2.1 Title` (`/doc_id Title` for
/// its root, or when the anchor names no heading there); links to files that are not indexed, or
/// whose tree cannot be loaded, are left out.
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
/// `library`'s catalog ([`target_document`], [`anchor_node`]); links to files that are not
/// indexed, or whose tree cannot be loaded, are left out.
pub fn see_also_targets(
    library: &dyn crate::workspace::Library,
    doc_id: &str,
    tree: &Tree,
    node: NodeId,
) -> Vec<SeeAlso> {
    let catalog: Vec<(&str, &str)> = library
        .cards()
        .iter()
        .map(|c| (c.doc_id.as_str(), c.source.as_str()))
        .collect();
    let source = library.card(doc_id).map_or("", |c| c.source.as_str());
    let mut targets: Vec<SeeAlso> = Vec::new();
    let mut push = |t: SeeAlso| {
        if !targets.contains(&t) {
            targets.push(t);
        }
    };
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
                push(local(r));
            }
        }
        for link in tree.links.external.iter().filter(|l| l.from == n) {
            let Some(other) = target_document(source, &link.file, &catalog) else {
                continue;
            };
            if other == doc_id {
                let r = link
                    .anchor
                    .as_deref()
                    .and_then(|a| anchor_node(tree, a))
                    .unwrap_or(NodeId::ROOT);
                if !tree.is_ancestor_or_self(node, r) {
                    push(local(r));
                }
                continue;
            }
            let Ok(doc) = library.document(other) else {
                continue;
            };
            let t = &doc.tree;
            let r = link.anchor.as_deref().and_then(|a| anchor_node(t, a));
            push(match r.map(|r| t.node(r)) {
                Some(n) if !n.structure.is_empty() => SeeAlso {
                    doc_id: other.to_string(),
                    structure: n.structure.clone(),
                    title: n.title.clone(),
                },
                _ => SeeAlso {
                    doc_id: other.to_string(),
                    structure: String::new(),
                    title: t.title().to_string(),
                },
            });
        }
    }
    targets
}
