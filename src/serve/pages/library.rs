//! The Library (`/`): the documents, a page at a time (format, size, sections, summary), a
//! filter by id, title or format (`?q=`, answered by one scan of the catalog store's short
//! listing rows, and only the page's cards are read), and a search box over every section (results as you type, from `/api/v1/search`).
//! The page and the filter live in the URL (`/?q=faq&page=2`): a link or a reload shows the same
//! documents.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::{api_error_page, human_bytes, render_page, shown};
use crate::index::DocCard;
use crate::serve::links::segment;
use crate::serve::state::AppState;
use crate::workspace::Library;

/// Documents per Library page.
pub const PAGE_SIZE: usize = 50;

/// Characters of a filter that count (a longer one is cut): ids and titles are shorter.
pub const MAX_FILTER_CHARS: usize = 200;

/// The Library's query: `?q=TEXT&page=N` (1-based).
#[derive(Debug, Deserialize)]
pub struct LibraryQuery {
    #[serde(default)]
    page: Option<usize>,
    #[serde(default)]
    q: Option<String>,
}

/// One row of the table.
pub struct DocRow {
    /// Link to the Reader.
    pub href: String,
    /// Doc id, shown.
    pub doc_id: String,
    /// Title, shown.
    pub title: String,
    /// `markdown`, `pdf`, `text`.
    pub format: &'static str,
    /// `87.1 KB`.
    pub size: String,
    /// Sections below the root.
    pub sections: u32,
    /// Summary, shown.
    pub summary: String,
}

#[derive(Template)]
#[template(path = "library.html")]
struct LibraryPage {
    active: &'static str,
    /// Documents in the catalog.
    total: usize,
    /// Documents the filter keeps (`total` without one).
    matching: usize,
    /// The filter as typed (the input's value; the template escapes it).
    query: String,
    /// The filter, shown.
    query_shown: String,
    generation: u64,
    page: usize,
    pages: usize,
    first: usize,
    last: usize,
    previous: Option<String>,
    next: Option<String>,
    rows: Vec<DocRow>,
    /// Every format's name, for the hint when nothing matches.
    formats: String,
}

/// The Library's URL for `page` of the documents `filter` keeps.
fn page_link(filter: &str, page: usize) -> String {
    if filter.is_empty() {
        format!("/?page={page}")
    } else {
        let q = percent_encoding::utf8_percent_encode(filter, percent_encoding::NON_ALPHANUMERIC);
        format!("/?q={q}&page={page}")
    }
}

/// The documents of page `page` (clamped to the pages there are) that `filter` keeps: the
/// number kept, the page shown, its first index and its cards.
fn select(
    library: &impl Library,
    filter: &str,
    page: usize,
) -> (usize, usize, usize, Vec<std::sync::Arc<DocCard>>) {
    if filter.is_empty() {
        let total = library.document_count();
        let page = page.clamp(1, total.div_ceil(PAGE_SIZE).max(1));
        let start = (page - 1) * PAGE_SIZE;
        return (total, page, start, library.cards_page(start, PAGE_SIZE));
    }
    let start = (page.max(1) - 1).saturating_mul(PAGE_SIZE);
    let (matching, cards) = library.cards_matching(filter, start, PAGE_SIZE);
    if !cards.is_empty() || matching == 0 {
        return (matching, page.max(1), start, cards);
    }
    // Past the last page (the link was older than a re-index, or typed): show the last.
    let last = matching.div_ceil(PAGE_SIZE);
    let start = (last - 1) * PAGE_SIZE;
    let (matching, cards) = library.cards_matching(filter, start, PAGE_SIZE);
    (matching, last, start, cards)
}

/// `GET /`, `GET /?q=TEXT&page=N`.
pub async fn page(State(state): State<AppState>, Query(q): Query<LibraryQuery>) -> Response {
    let opened = match state.opened().await {
        Ok(o) => o,
        Err(e) => return api_error_page(&e),
    };
    let filter: String =
        q.q.as_deref()
            .unwrap_or("")
            .trim()
            .chars()
            .take(MAX_FILTER_CHARS)
            .collect();
    let workspace = opened.workspace.clone();
    let wanted = q.page.unwrap_or(1);
    let needle = filter.clone();
    let selected = state
        .blocking(move || Ok(select(workspace.as_ref(), &needle, wanted)))
        .await;
    let (matching, page, start, cards) = match selected {
        Ok(s) => s,
        Err(e) => return api_error_page(&e),
    };
    let pages = matching.div_ceil(PAGE_SIZE).max(1);
    let rows = cards
        .iter()
        .map(|c| DocRow {
            href: format!("/doc/{}/", segment(&c.doc_id)),
            doc_id: shown(&c.doc_id),
            title: shown(&c.title),
            format: c.format.as_str(),
            size: human_bytes(c.bytes),
            sections: c.node_count.saturating_sub(1),
            summary: shown(&c.summary),
        })
        .collect();
    render_page(&LibraryPage {
        active: "library",
        total: opened.workspace.document_count(),
        matching,
        query_shown: shown(&filter),
        generation: opened.workspace.index_generation(),
        page,
        pages,
        first: if cards.is_empty() { 0 } else { start + 1 },
        last: start + cards.len(),
        previous: (page > 1).then(|| page_link(&filter, page - 1)),
        next: (page < pages).then(|| page_link(&filter, page + 1)),
        query: filter,
        rows,
        formats: crate::tree::DocFormat::ALL
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_links_keep_the_filter_encoded() {
        assert_eq!(page_link("", 3), "/?page=3");
        assert_eq!(page_link("a&b c", 2), "/?q=a%26b%20c&page=2");
    }
}
