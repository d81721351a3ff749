//! The Library (`/`): the documents, a page at a time (format, size, sections, summary), and a
//! search box over every section (results as you type, from `/api/v1/search`).

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::{api_error_page, human_bytes, render_page, shown};
use crate::serve::links::segment;
use crate::serve::state::AppState;
use crate::workspace::Library;

/// Documents per Library page.
pub const PAGE_SIZE: usize = 50;

/// The Library's query: `?page=N` (1-based).
#[derive(Debug, Deserialize)]
pub struct LibraryQuery {
    #[serde(default)]
    page: Option<usize>,
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
    total: usize,
    generation: u64,
    page: usize,
    pages: usize,
    first: usize,
    last: usize,
    previous: Option<usize>,
    next: Option<usize>,
    rows: Vec<DocRow>,
}

/// `GET /`.
pub async fn page(State(state): State<AppState>, Query(q): Query<LibraryQuery>) -> Response {
    let opened = match state.opened().await {
        Ok(o) => o,
        Err(e) => return api_error_page(&e),
    };
    let total = opened.workspace.document_count();
    let pages = total.div_ceil(PAGE_SIZE).max(1);
    let page = q.page.unwrap_or(1).clamp(1, pages);
    let start = (page - 1) * PAGE_SIZE;
    let cards = opened.workspace.cards_page(start, PAGE_SIZE);
    let end = start + cards.len();
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
        total: cards.len(),
        generation: opened.workspace.index_generation(),
        page,
        pages,
        first: if cards.is_empty() { 0 } else { start + 1 },
        last: end,
        previous: (page > 1).then(|| page - 1),
        next: (page < pages).then(|| page + 1),
        rows,
    })
}
