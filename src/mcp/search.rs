//! `docs` (the DocCards) and `search` (workspace-wide BM25 over sections, what `docnav ask
//! --lexical` does, through [`search_sections`]). Both return text for the model and the same
//! data as `structuredContent` ([`DocsPage`],
//! [`SearchResults`](crate::agent::search::SearchResults)).

use std::fmt::Write as _;

use super::args::{self, DocsArgs, SearchArgs};
use super::nav_tools::ToolText;
use crate::agent::evidence::{evidence_header, location_label};
use crate::agent::lexical::DEFAULT_K;
use crate::agent::search::check_k;
use crate::agent::search::{docs_page, search_sections, DocEntry, DocsPage};
use crate::index::doccard::human_bytes;
use crate::workspace::Library;

/// Documents per `docs` page without `limit`.
pub const DOCS_PAGE: usize = 100;

/// Outline entries of each card in `docs`' text (the structured content has all of the card's).
pub const DOCS_OUTLINE_SHOWN: usize = 8;

/// Chars of each result's text without `budget`.
pub const SEARCH_TEXT_CHARS: usize = 800;

/// Documents listed for a question without `k`.
pub const DOCS_FOR_K: usize = 10;

/// `docs`: one page of the catalog, or with `for` the documents ranked for a question
/// ([`docs_for`]).
pub fn docs(library: &dyn Library, a: DocsArgs) -> ToolText {
    if let Some(question) = a.for_question {
        return docs_for(library, &question, a.k);
    }
    let offset = a.offset.unwrap_or(0);
    let limit = match a.limit {
        Some(0) => return ToolText::error("docs: limit must be at least 1"),
        Some(n) => n,
        None => DOCS_PAGE,
    };
    let page = docs_page(library, offset, limit);
    let total = page.total;
    if total == 0 {
        return ToolText::error(
            "docs: the workspace has no documents (run `docnav index <paths>` first)",
        );
    }
    if offset >= total {
        return ToolText::error(format!(
            "docs: offset {offset} is past the last document (there are {total})"
        ));
    }
    let mut text = String::new();
    for c in &page.documents {
        let _ = writeln!(
            text,
            "/{}  [{}, {}, {} sections]  — {}",
            c.doc_id,
            c.format,
            human_bytes(c.bytes),
            c.node_count.saturating_sub(1),
            c.title
        );
        if !c.summary.is_empty() {
            let _ = writeln!(text, "  {}", c.summary);
        }
        if !c.outline.is_empty() {
            let shown: Vec<&str> = c
                .outline
                .iter()
                .take(DOCS_OUTLINE_SHOWN)
                .map(String::as_str)
                .collect();
            let more = if c.outline.len() > DOCS_OUTLINE_SHOWN {
                " · …"
            } else {
                ""
            };
            let _ = writeln!(text, "  outline: {}{more}", shown.join(" · "));
        }
    }
    if let Some(next) = page.next_offset {
        let _ = writeln!(
            text,
            "[documents {}–{next} of {total} listed; more with offset={next}]",
            offset + 1,
        );
    }
    ToolText {
        text,
        is_error: false,
        structured: serde_json::to_value(page).ok(),
    }
}

/// `docs` with `for`: the first `k` (default [`DOCS_FOR_K`], at most [`MAX_K`](crate::agent::search::MAX_K)) documents as the
/// Orchestrator's pre-rank orders them for `question`
/// ([`crate::agent::routing::explain`]), as text ([`crate::agent::routing::ranked_text`], what
/// `docnav docs --for` prints) and as a [`DocsPage`] in rank order whose entries say `why`.
/// Errors (as tool errors): an empty question, `k` 0 or over [`MAX_K`](crate::agent::search::MAX_K), an empty workspace, a
/// catalog whose cards do not decode (the message names the file and says to re-index).
pub fn docs_for(library: &dyn Library, question: &str, k: Option<usize>) -> ToolText {
    let k = k.unwrap_or(DOCS_FOR_K);
    if question.trim().is_empty() {
        return ToolText::error("docs: `for` must be a question, not empty");
    }
    let k = match check_k(k) {
        Ok(k) => k,
        Err(e) => return ToolText::error(format!("docs: {e}")),
    };
    let total = library.document_count();
    if total == 0 {
        return ToolText::error(
            "docs: the workspace has no documents (run `docnav index <paths>` first)",
        );
    }
    let ranked = match crate::agent::routing::explain(library, question, k) {
        Ok(ranked) => ranked,
        Err(e) => return ToolText::error(format!("docs: {e}")),
    };
    let documents = ranked
        .iter()
        .map(|r| DocEntry {
            why: Some(r.why.line()),
            ..DocEntry::of(&r.card)
        })
        .collect();
    let page = DocsPage {
        total,
        offset: 0,
        next_offset: None,
        documents,
    };
    ToolText {
        text: crate::agent::routing::ranked_text(&ranked),
        is_error: false,
        structured: serde_json::to_value(page).ok(),
    }
}

/// `search`: the `k` best sections for `query` over the workspace (or `doc_ids`).
pub fn search(library: &dyn Library, a: SearchArgs) -> ToolText {
    let k = match check_k(a.k.unwrap_or(DEFAULT_K)) {
        Ok(k) => k,
        Err(e) => return ToolText::error(format!("search: {e}")),
    };
    let budget = match args::budget("search", a.budget, SEARCH_TEXT_CHARS) {
        Ok(b) => b,
        Err(e) => return ToolText::error(e),
    };
    if a.query.trim().is_empty() {
        return ToolText::error("search: the query is empty (give keywords or a question)");
    }
    let found = match search_sections(library, &a.query, a.doc_ids.as_deref(), k, budget) {
        Ok(found) => found,
        Err(e) => return ToolText::error(format!("search: {e}")),
    };
    let mut text = String::new();
    if found.results.is_empty() {
        let _ = writeln!(
            text,
            "search: no section matches '{}' (try other words, or grep)",
            a.query
        );
    }
    for (i, hit) in found.results.iter().enumerate() {
        let header = evidence_header(
            i + 1,
            &hit.doc_id,
            &hit.titles,
            &hit.structure,
            &location_label(hit.lines, hit.pages),
            hit.score,
        );
        let _ = writeln!(text, "{header}\npath: {}", hit.path);
        text.push_str(hit.text.trim_end());
        text.push('\n');
        let shown = hit.text.chars().count();
        if shown < hit.text_chars {
            let _ = writeln!(
                text,
                "[{shown} of {} chars shown; read on: cat path={} offset={shown}]",
                hit.text_chars, hit.path
            );
        }
        text.push('\n');
    }
    ToolText {
        text: text.trim_end().to_string(),
        is_error: false,
        structured: serde_json::to_value(found).ok(),
    }
}
