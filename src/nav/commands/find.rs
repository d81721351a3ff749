//! `find [-n N] <keywords…>`: BM25 keyword search ([`KeywordIndex`](crate::index::KeywordIndex))
//! over the current document, or over all documents at `/`.

use super::{options, try_out, usage_error, Command, Example};
use crate::index::keyword::search_many;
use crate::nav::args::OptSpec;
use crate::nav::path::{display_path, load, Place};
use crate::nav::render::one_line;
use crate::nav::{CommandOutput, NavError, Session};
use crate::tree::Node;

/// `find`.
pub struct Find;

/// Hits shown without `-n`.
pub const DEFAULT_HITS: usize = 10;

/// Chars of a hit's snippet.
const SNIPPET_CHARS: usize = 120;

static EXAMPLES: &[Example] = &[
    Example {
        command: "find binary data",
        description: "best sections of the current document for these keywords",
    },
    Example {
        command: "find -n 3 glob patterns",
        description: "at most 3 hits; at / the search covers every document",
    },
];

impl Command for Find {
    fn name(&self) -> &'static str {
        "find"
    }
    fn usage(&self) -> &'static str {
        "find [-n HITS] <keywords…>"
    }
    fn summary(&self) -> &'static str {
        "keyword search (BM25) in this document, or all documents at /: `path  score  title: snippet`"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, &[OptSpec::value(Some('n'), "hits")]));
        let limit = try_out!(parsed
            .count("hits")
            .map_err(|e| usage_error(self, Some(&e))))
        .unwrap_or(DEFAULT_HITS);
        if parsed.positional.is_empty() {
            return Ok(usage_error(self, Some("no keywords given")));
        }
        let query = parsed.positional.join(" ");
        let here = session.here()?;
        let docs = match &here {
            Place::Root => {
                let mut docs = Vec::new();
                for card in session.library().cards() {
                    docs.push((
                        card.doc_id.clone(),
                        load(session.library().as_ref(), &card.doc_id)?,
                    ));
                }
                docs
            }
            Place::Node { doc_id, doc, .. } => vec![(doc_id.clone(), doc.clone())],
        };
        let indexes: Vec<(&str, &crate::index::KeywordIndex)> = docs
            .iter()
            .map(|(id, doc)| (id.as_str(), &doc.index))
            .collect();
        let mut hits = Vec::new();
        for (doc_id, hit) in search_many(&indexes, &query, limit) {
            let Some((_, doc)) = docs.iter().find(|(id, _)| id == doc_id) else {
                continue;
            };
            if let Some(node) = doc.tree.get(hit.node) {
                hits.push((
                    hit.score,
                    display_path(doc_id, &doc.tree, hit.node),
                    node,
                    hit,
                ));
            }
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        hits.truncate(limit);
        if hits.is_empty() {
            return Ok(CommandOutput::ok(format!(
                "find: no section of {} matches '{query}' (try other words, or grep)",
                here.path()
            )));
        }
        let lines: Vec<String> = hits
            .iter()
            .map(|(score, path, node, hit)| {
                let title = one_line(&node.title, 80);
                match snippet(node, &hit.matched_terms) {
                    text if text.is_empty() => format!("{path}  {score:.2}  {title}"),
                    text => format!("{path}  {score:.2}  {title}: {text}"),
                }
            })
            .collect();
        Ok(CommandOutput::ok(lines.join("\n")))
    }
}

/// One line of the node's text around the first word containing a matched term (terms are
/// compared lowercase); the start of the text when no word contains one.
fn snippet(node: &Node, terms: &[String]) -> String {
    let words: Vec<&str> = node.content.split_whitespace().collect();
    let first = words
        .iter()
        .position(|w| {
            let w = w.to_lowercase();
            terms
                .iter()
                .any(|t| !t.is_empty() && w.contains(t.as_str()))
        })
        .unwrap_or(0);
    let start = first.saturating_sub(6);
    let mut text = words[start.min(words.len())..].join(" ");
    if start > 0 {
        text.insert_str(0, "… ");
    }
    one_line(&text, SNIPPET_CHARS)
}
