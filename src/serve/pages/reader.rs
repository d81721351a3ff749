//! The Reader (`/doc/DOC_ID/`, a section at `/doc/DOC_ID/#2.1`): the outline as a collapsible
//! tree with `tree`'s numbers beside the selected section's verbatim text and its source lines
//! or pages; the section comes from `/api/v1/docs/DOC_ID/section` when the fragment changes, so
//! every section has a shareable URL. `?mark=A-B` marks chars `A..B` of the section's text (an
//! evidence span, linked from Ask); `#2.1@N` scrolls to line N of it (a `grep` match). The
//! section is shown formatted (the server's sanitized HTML, [`crate::serve::render`]: each
//! block carries its source lines and chars, so `@N` lands on the block holding line N and a
//! mark covers whole blocks); `?view=source` shows the numbered source lines instead.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;

use super::{api_error_page, human_bytes, render_page, shown};
use crate::serve::error::ApiError;
use crate::serve::state::AppState;
use crate::tree::outline::location;
use crate::tree::{NodeId, Tree};
use crate::workspace::Library;

/// One entry of the outline, in reading order. The template opens a nested list after an entry
/// with children and closes `closes` lists after it, so the flat list draws the tree.
pub struct OutlineRow {
    /// Structure number (the fragment).
    pub structure: String,
    /// Title, shown.
    pub title: String,
    /// `lines 40–88`, `pages 3–5`.
    pub location: String,
    /// Depth (1 = top level): the tree item's `aria-level`.
    pub depth: u32,
    /// Whether a nested list follows.
    pub has_children: bool,
    /// Nested lists to close after this entry.
    pub closes: usize,
}

/// The outline rows of `tree` below its root.
pub fn outline_rows(tree: &Tree) -> Vec<OutlineRow> {
    let order: Vec<NodeId> = tree
        .preorder(NodeId::ROOT)
        .into_iter()
        .filter(|&n| n != NodeId::ROOT)
        .collect();
    let mut rows: Vec<OutlineRow> = Vec::with_capacity(order.len());
    for (i, &id) in order.iter().enumerate() {
        let node = tree.node(id);
        let next_depth = order.get(i + 1).map_or(1, |&n| tree.node(n).depth);
        let has_children = !node.children.is_empty();
        rows.push(OutlineRow {
            structure: node.structure.clone(),
            title: shown(&node.title),
            location: location(tree, id),
            depth: node.depth,
            has_children,
            closes: if has_children {
                0
            } else {
                node.depth.saturating_sub(next_depth) as usize
            },
        });
    }
    rows
}

#[derive(Template)]
#[template(path = "reader.html")]
struct ReaderPage {
    active: &'static str,
    doc_id: String,
    doc_id_shown: String,
    title: String,
    format: &'static str,
    size: String,
    sections: usize,
    source: String,
    summary: String,
    outline: Vec<OutlineRow>,
    /// `?view=source`: the section as numbered source lines, not formatted.
    source_view: bool,
}

/// The Reader's query: `view=source` shows the numbered source lines (the section's text as
/// `cat` reads it) instead of the formatted section; `mark` is read by the page's script.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ReaderQuery {
    /// `source`, or absent for the formatted view.
    #[serde(default)]
    pub view: Option<String>,
}

/// `GET /doc/{doc_id}` and `GET /doc/{doc_id}/` (`?view=source` for the source lines).
pub async fn page(
    State(state): State<AppState>,
    Path(doc_id): Path<String>,
    Query(query): Query<ReaderQuery>,
) -> Response {
    let source_view = query.view.as_deref() == Some("source");
    let opened = match state.opened().await {
        Ok(o) => o,
        Err(e) => return api_error_page(&e),
    };
    let built = state
        .blocking(move || {
            let ws = opened.workspace.as_ref();
            let card = ws.card(&doc_id).ok_or_else(|| {
                ApiError::not_found(format!(
                    "document not found: {} (the Library lists the documents)",
                    doc_id.chars().take(200).collect::<String>()
                ))
            })?;
            let doc = ws.document(&doc_id)?;
            let tree = &doc.tree;
            Ok(ReaderPage {
                active: "library",
                doc_id_shown: shown(&doc_id),
                title: shown(tree.title()),
                format: card.format.as_str(),
                size: human_bytes(card.bytes),
                sections: tree.len().saturating_sub(1),
                source: shown(&card.source),
                summary: shown(&card.summary),
                outline: outline_rows(tree),
                source_view,
                doc_id,
            })
        })
        .await;
    match built {
        Ok(page) => render_page(&page),
        Err(e) => api_error_page(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flat_outline_opens_and_closes_every_nested_list() {
        let md = "# A\n\n## A1\n\n### A1a\n\n## A2\n\n# B\n\ntext\n";
        let tree = crate::tree::build_tree(
            crate::parse::markdown::parse_markdown(md),
            &crate::tree::BuildOptions::default(),
        );
        let rows = outline_rows(&tree);
        let shape: Vec<(String, bool, usize)> = rows
            .iter()
            .map(|r| (r.structure.clone(), r.has_children, r.closes))
            .collect();
        assert_eq!(
            shape,
            [
                ("1".to_string(), true, 0),
                ("1.1".to_string(), true, 0),
                ("1.1.1".to_string(), false, 1),
                ("1.2".to_string(), false, 1),
                ("2".to_string(), false, 0),
            ]
        );
    }
}
