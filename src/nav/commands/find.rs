//! `find [-n N] <keywords…>`: BM25 search in the workspace's section index
//! ([`SectionIndex`](crate::index::SectionIndex)) over the current document (with that
//! document's own statistics), or over all documents at `/`. Each hit shows the passage around
//! its matched terms (tantivy's `SnippetGenerator`) and the line it starts on, numbered as `grep`
//! and `cat path:N-M` number lines, so the passage can be read alone. Hits are ranked and named from the index
//! alone; the snippets are cut from the hits' own text, which only their trees hold, so `find`
//! at `/` loads the trees of the documents it shows (at most `-n` of them). Hits are in score
//! order; when more sections match than are shown, a last line says so.

use super::grep::ContentLines;
use super::{count_option, options, try_out, usage_error, Command, Example};
use crate::index::Scope;
use crate::nav::args::OptSpec;
use crate::nav::path::{structure_path, Place};
use crate::nav::render::one_line;
use crate::nav::{CommandOutput, NavError, Session};

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
        "keyword search (BM25) in this document, or all documents at /: `path  score  title — line N: snippet` (N as `cat path:N-M` reads it)"
    }
    fn examples(&self) -> &'static [Example] {
        EXAMPLES
    }
    fn run(&self, args: &[String], session: &mut Session) -> Result<CommandOutput, NavError> {
        let parsed = try_out!(options(self, args, &[OptSpec::value(Some('n'), "hits")]));
        let limit = try_out!(count_option(self, &parsed, "hits")).unwrap_or(DEFAULT_HITS);
        if limit == 0 {
            // Zero hits would read as "no section matches".
            return Ok(usage_error(self, Some("-n needs at least 1 hit, got 0")));
        }
        if parsed.positional.is_empty() {
            return Ok(usage_error(self, Some("no keywords given")));
        }
        let query = parsed.positional.join(" ");
        let here = session.here()?;
        let library = session.library().clone();
        let sections = library.sections().map_err(NavError::Search)?;
        let search = |e: crate::index::SectionIndexError| {
            NavError::Search(crate::workspace::WorkspaceError::Search {
                dir: sections.place().into(),
                reason: e.to_string(),
            })
        };
        let only;
        let scope = match &here {
            Place::Root => Scope::All,
            Place::Node { doc_id, .. } => {
                only = [doc_id.clone()];
                Scope::Documents(&only)
            }
        };
        let prepared = sections.prepare(&query, scope).map_err(search)?;
        // One hit more than shown tells whether more sections match.
        let mut hits = prepared.top(limit.saturating_add(1)).map_err(search)?;
        let more = hits.len() > limit;
        hits.truncate(limit);
        if hits.is_empty() {
            return Ok(CommandOutput::ok(format!(
                "find: no section of {} matches '{query}' (try other words, or grep)",
                here.path()
            )));
        }
        let mut lines = Vec::with_capacity(hits.len());
        for hit in &hits {
            let record = prepared.record(hit).map_err(search)?;
            let path = structure_path(&hit.doc_id, &record.structure);
            let title = one_line(&record.title, 80);
            let document = library
                .document(&hit.doc_id)
                .map_err(|source| NavError::Workspace {
                    doc_id: hit.doc_id.clone(),
                    source,
                })?;
            let node = document.tree.get(hit.node);
            let content = node.map_or("", |node| node.content.as_str());
            let (snippet, at) = if content.trim().is_empty() {
                (String::new(), None)
            } else {
                prepared.snippet_at(content, SNIPPET_CHARS)
            };
            // The line where the passage starts, numbered as `grep` and `cat path:N-M` number
            // them: the model can read just those lines.
            let line = node.zip(at).map(|(node, at)| {
                ContentLines::of(node).rendered(content[..at].matches('\n').count())
            });
            lines.push(match (snippet.is_empty(), line) {
                (true, _) => format!("{path}  {:.2}  {title}", hit.score),
                (false, Some(line)) => {
                    format!("{path}  {:.2}  {title} — line {line}: {snippet}", hit.score)
                }
                (false, None) => format!("{path}  {:.2}  {title}: {snippet}", hit.score),
            });
        }
        if more {
            lines.push(format!(
                "(the best {limit} hits shown, best first; more sections match: find -n {} for more)",
                limit.saturating_mul(2)
            ));
        }
        Ok(CommandOutput::ok(lines.join("\n")))
    }
}
