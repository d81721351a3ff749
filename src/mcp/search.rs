//! `docs` (the DocCards) and `search` (workspace-wide BM25 over sections, what `docnav ask
//! --lexical` does, through [`ask_lexical`]). Both return text for the model and the same data as
//! `structuredContent` ([`DocsPage`], [`SearchResults`]).

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Serialize;

use super::args::{self, DocsArgs, SearchArgs};
use super::nav_tools::ToolText;
use super::resources::section_uri;
use crate::agent::lexical::{ask_lexical, DEFAULT_K};
use crate::index::doccard::human_bytes;
use crate::nav::render::page;
use crate::workspace::Library;

/// Documents per `docs` page without `limit`.
pub const DOCS_PAGE: usize = 100;

/// Outline entries of each card in `docs`' text (the structured content has all of the card's).
pub const DOCS_OUTLINE_SHOWN: usize = 8;

/// Most results of one `search`.
pub const MAX_K: usize = 50;

/// Chars of each result's text without `budget`.
pub const SEARCH_TEXT_CHARS: usize = 800;

/// `docs`' structured content.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DocsPage {
    /// Documents in the workspace.
    pub total: usize,
    /// Index of the first document on this page.
    pub offset: usize,
    /// `offset` of the next page; `null` on the last one.
    pub next_offset: Option<usize>,
    /// The documents on this page.
    pub documents: Vec<DocEntry>,
}

/// One document of [`DocsPage`].
#[derive(Debug, Serialize, JsonSchema)]
pub struct DocEntry {
    /// Document id: paths start with `/doc_id`.
    pub doc_id: String,
    /// Title.
    pub title: String,
    /// `markdown`, `pdf` or `text`.
    pub format: String,
    /// Source size in bytes.
    pub bytes: u64,
    /// Sections in the tree, root included.
    pub node_count: u32,
    /// Summary (first sentences).
    pub summary: String,
    /// Depth 1–2 sections, `"2.1 Title"`, in reading order (may end with `… (+N more)`).
    pub outline: Vec<String>,
    /// The document as a resource.
    pub uri: String,
}

/// `docs`: one page of the catalog.
pub fn docs(library: &dyn Library, a: DocsArgs) -> ToolText {
    let cards = library.cards();
    let offset = a.offset.unwrap_or(0);
    let limit = match a.limit {
        Some(0) => return ToolText::error("docs: limit must be at least 1"),
        Some(n) => n,
        None => DOCS_PAGE,
    };
    if cards.is_empty() {
        return ToolText::error(
            "docs: the workspace has no documents (run `docnav index <paths>` first)",
        );
    }
    if offset >= cards.len() {
        return ToolText::error(format!(
            "docs: offset {offset} is past the last document (there are {})",
            cards.len()
        ));
    }
    let end = offset.saturating_add(limit).min(cards.len());
    let mut text = String::new();
    let mut documents = Vec::new();
    for c in &cards[offset..end] {
        let _ = writeln!(
            text,
            "/{}  [{}, {}, {} sections]  — {}",
            c.doc_id,
            c.format.as_str(),
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
        documents.push(DocEntry {
            doc_id: c.doc_id.clone(),
            title: c.title.clone(),
            format: c.format.as_str().to_string(),
            bytes: c.bytes,
            node_count: c.node_count,
            summary: c.summary.clone(),
            outline: c.outline.clone(),
            uri: section_uri(&c.doc_id, ""),
        });
    }
    let next_offset = (end < cards.len()).then_some(end);
    if let Some(next) = next_offset {
        let _ = writeln!(
            text,
            "[documents {}–{} of {} listed; more with offset={next}]",
            offset + 1,
            end,
            cards.len()
        );
    }
    let page = DocsPage {
        total: cards.len(),
        offset,
        next_offset,
        documents,
    };
    ToolText {
        text,
        is_error: false,
        structured: serde_json::to_value(page).ok(),
    }
}

/// `search`'s structured content.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchResults {
    /// The query as given.
    pub query: String,
    /// Ranked sections, best first.
    pub results: Vec<SearchHit>,
}

/// One ranked section of [`SearchResults`].
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchHit {
    /// Document id.
    pub doc_id: String,
    /// Path for `cat`/`ls` (`/doc_id/#2.1`; `/doc_id` for the whole document).
    pub path: String,
    /// The section as a resource.
    pub uri: String,
    /// Titles from the document's first level down to the section.
    pub titles: Vec<String>,
    /// Dotted structure number (`2.1`; `""` for the document root).
    pub structure: String,
    /// 1-based source lines `[first, last]` (Markdown and text).
    pub lines: Option<[u32; 2]>,
    /// 1-based PDF pages `[first, last]`.
    pub pages: Option<[u32; 2]>,
    /// BM25 score (higher is better).
    pub score: f32,
    /// The section's text, verbatim, cut to `budget` chars at a line boundary.
    pub text: String,
    /// Chars of the section's whole text (`cat` reads the rest).
    pub text_chars: usize,
}

/// `/doc_id/#2.1`, or `/doc_id` for the root.
fn structure_path(doc_id: &str, structure: &str) -> String {
    if structure.is_empty() {
        format!("/{doc_id}")
    } else {
        format!("/{doc_id}/#{structure}")
    }
}

/// `search`: the `k` best sections for `query` over the workspace (or `doc_ids`).
pub fn search(library: &dyn Library, a: SearchArgs) -> ToolText {
    let k = match a.k {
        Some(0) => return ToolText::error("search: k must be at least 1"),
        Some(k) if k > MAX_K => {
            return ToolText::error(format!("search: k {k} is over the limit of {MAX_K}"))
        }
        Some(k) => k,
        None => DEFAULT_K,
    };
    let budget = match args::budget("search", a.budget, SEARCH_TEXT_CHARS) {
        Ok(b) => b,
        Err(e) => return ToolText::error(e),
    };
    if a.query.trim().is_empty() {
        return ToolText::error("search: the query is empty (give keywords or a question)");
    }
    let answer = match ask_lexical(library, &a.query, a.doc_ids.as_deref(), k) {
        Ok(answer) => answer,
        Err(e) => return ToolText::error(format!("search: {e}")),
    };
    let mut text = String::new();
    if answer.evidence.is_empty() {
        let _ = writeln!(
            text,
            "search: no section matches '{}' (try other words, or grep)",
            a.query
        );
    }
    let mut results = Vec::new();
    for (i, e) in answer.evidence.iter().enumerate() {
        let path = structure_path(&e.doc_id, &e.structure);
        let p = page(&e.text, 0, budget);
        let _ = writeln!(text, "{}\npath: {path}", e.header(i + 1));
        text.push_str(p.body.trim_end());
        text.push('\n');
        if p.chars.end < p.total {
            let _ = writeln!(
                text,
                "[{} of {} chars shown; read on: cat path={path} offset={}]",
                p.chars.end, p.total, p.chars.end
            );
        }
        text.push('\n');
        results.push(SearchHit {
            doc_id: e.doc_id.clone(),
            uri: section_uri(&e.doc_id, &e.structure),
            path,
            titles: e.path.clone(),
            structure: e.structure.clone(),
            lines: e.lines,
            pages: e.pages,
            score: e.score,
            text: p.body.to_string(),
            text_chars: p.total,
        });
    }
    let structured = SearchResults {
        query: a.query,
        results,
    };
    ToolText {
        text: text.trim_end().to_string(),
        is_error: false,
        structured: serde_json::to_value(structured).ok(),
    }
}
